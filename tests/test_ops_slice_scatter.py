"""SliceScatter-15 against OpenVINO: values against the CPU plugin (its core op has no
``evaluate``; data movement, exact) and against NumPy's slice assignment; shapes, types and
messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

CASES = [
    pytest.param((6, 4), [0], [6], [2], None, id="every-other-row"),
    pytest.param((6, 4), [1, 3], [5, 0], [1, -1], None, id="two-axes-reverse"),
    pytest.param((2, 5, 3), [-4], [100], [1], [1], id="axes-negative-start"),
    pytest.param((4, 4), [3], [-10], [-2], [-1], id="negative-step"),
    pytest.param((5,), [2], [2], [1], None, id="empty-slice"),
    pytest.param((3, 4, 5), [0, 0], [3, 5], [2, 2], [0, 2], id="3d"),
]


@pytest.mark.parametrize(
    "dtype", [np.float32, np.int64, np.uint8, np.float16], ids=["f32", "i64", "u8", "f16"]
)
@pytest.mark.parametrize(("shape", "start", "stop", "step", "axes"), CASES)
def test_slice_scatter_matches_cpu(tmp_path, shape, start, stop, step, axes, dtype):  # type: ignore[no-untyped-def]
    data = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    index = [slice(None)] * len(shape)
    for a, lo, hi, st in zip(axes if axes is not None else range(len(start)), start, stop, step, strict=True):
        index[a] = slice(lo, hi, st)
    target = data[tuple(index)]
    updates = (100 + np.arange(target.size)).reshape(target.shape).astype(dtype)
    vectors = [C(np.array(v, np.int64)) for v in (start, stop, step)] + (
        [C(np.array(axes, np.int64))] if axes else []
    )
    node, params = build(o15.slice_scatter, [P(data), P(updates), *vectors])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data, updates]).values()
    expected = data.copy()
    expected[tuple(index)] = updates
    assert_same(ours, expected)
    assert_same(ours, cpu_outputs(node, params, [data, updates])[0])


SHAPES = [
    ("6,4", "3,4", [0], [6], [2]),
    ("6,4", "2,4", [0], [6], [2]),
    ("6,4", "3", [0], [6], [2]),
    ("?,4", "3,4", [0], [6], [2]),
    ("...", "3,4", [0], [6], [2]),
    ("6,4", "...", [0], [6], [2]),
    ("6,4", "3,4", [0], [6], [0]),
    ("", "", [0], [6], [1]),
    ("6,4", "6,4", [0, 0, 0], [1, 1, 1], [1, 1, 1]),
    ("2..8,4", "1..3,4", [0], [8], [3]),
]


@pytest.mark.parametrize(("data", "updates", "start", "stop", "step"), SHAPES)
def test_slice_scatter_inference_matches_openvino(tmp_path, data, updates, start, stop, step):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.attrs import NoAttrs
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.slice_scatter import infer_slice_scatter
    from ovonehot.types import ElementType, PartialShape

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    vectors = [np.array(v, np.int64) for v in (start, stop, step)]
    try:
        node = o15.slice_scatter(
            o15.parameter(ps(data), ov.Type.f32),
            o15.parameter(ps(updates), ov.Type.f32),
            *(o15.constant(v) for v in vectors),
        )
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in (data, updates)] + [
        TensorInfo(ElementType.i64, PartialShape.of(v.shape), value=v) for v in vectors
    ]
    try:
        (out,) = infer_slice_scatter(NoAttrs(), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
