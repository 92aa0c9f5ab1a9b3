"""SegmentMax-16 against OpenVINO: values against the CPU plugin (the core op has no ``evaluate``;
maxima are exact; an empty f16 segment under ``lowest`` is -65504 by the spec, -inf on the CPU
plugin, which computes in f32) and against NumPy's per-segment maximum; shapes and messages against
OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o16 = pytest.importorskip("openvino.opset16")

RNG = np.random.default_rng(16)

CASES = [
    pytest.param([0, 0, 1, 1, 1, 2], None, id="contiguous"),
    pytest.param([0, 0, 2, 2, 5, 5], None, id="empty-segments"),
    pytest.param([0, 1, 1, 3, 3, 3], 6, id="num-segments-above"),
    pytest.param([0, 1, 1, 3, 3, 3], 2, id="num-segments-below"),
    pytest.param([2, 2, 2, 2, 2, 2], None, id="one-segment"),
]


@pytest.mark.parametrize("fill", ["ZERO", "LOWEST"])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int32, np.float16, np.int8], ids=["f32", "i32", "f16", "i8"]
)
@pytest.mark.parametrize(("ids", "count"), CASES)
def test_segment_max_matches_cpu(tmp_path, ids, count, dtype, fill):  # type: ignore[no-untyped-def]
    data = (RNG.standard_normal((6, 3)) * 20).astype(dtype)
    seg = np.array(ids, np.int32)
    inputs = [P(data), C(seg)] + ([C(np.array(count, np.int32))] if count is not None else [])
    node, params = build(lambda *a: o16.segment_max(*a, fill_mode=fill), inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data]).values()
    theirs = cpu_outputs(node, params, [data])[0].astype(dtype)
    n = count if count is not None else max(ids) + 1
    filled = np.array([(seg == s).any() for s in range(n)], bool)
    if dtype == np.float16 and fill == "LOWEST":  # the CPU plugin fills f32's lowest: -inf in f16
        assert np.isneginf(theirs[~filled]).all()
        assert_same(ours[filled], theirs[filled])
    else:
        assert_same(ours, theirs)
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    empty = 0 if fill == "ZERO" else info.min
    expected = np.array(
        [data[seg == s].max(axis=0) if (seg == s).any() else np.full(3, empty) for s in range(n)], dtype
    )
    assert_same(ours, expected)


SHAPES = [
    ("6,3", "6", None, [0, 0, 1, 1, 2, 2], None),
    ("6,3", "6", None, None, None),
    ("6,3", "6", "", None, 4),
    ("6,3", "6", "", None, None),
    ("6,3", "5", None, None, None),
    ("", "6", None, None, None),
    ("6,3", "6,1", None, None, None),
    ("...", "6", None, [0, 1, 1, 2, 2, 2], None),
    ("...", "...", None, None, None),
    ("6,3", "6", "1", None, None),
    ("6,3", "6", None, [0, 2, 1, 1, 2, 2], None),
]


@pytest.mark.parametrize(("data", "ids", "count_shape", "ids_value", "count_value"), SHAPES)
def test_segment_max_inference_matches_openvino(data, ids, count_shape, ids_value, count_value):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.segment_max import FillMode, SegmentMaxAttrs, infer_segment_max
    from ovonehot.types import ElementType, PartialShape

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    nodes = [o16.parameter(ps(data), ov.Type.f32)]
    infos = [TensorInfo(ElementType.f32, PartialShape.parse(data))]
    if ids_value is not None:
        nodes.append(o16.constant(np.array(ids_value, np.int32)))
        infos.append(
            TensorInfo(
                ElementType.i32, PartialShape.of((len(ids_value),)), value=np.array(ids_value, np.int32)
            )
        )
    else:
        nodes.append(o16.parameter(ps(ids), ov.Type.i32))
        infos.append(TensorInfo(ElementType.i32, PartialShape.parse(ids)))
    if count_value is not None:
        nodes.append(o16.constant(np.array(count_value, np.int32)))
        infos.append(
            TensorInfo(ElementType.i32, PartialShape.parse(""), value=np.array(count_value, np.int32))
        )
    elif count_shape is not None:
        nodes.append(o16.parameter(ps(count_shape), ov.Type.i32))
        infos.append(TensorInfo(ElementType.i32, PartialShape.parse(count_shape)))
    try:
        node = o16.segment_max(*nodes, fill_mode="ZERO")
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    try:
        (out,) = infer_segment_max(SegmentMaxAttrs(FillMode.ZERO), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
