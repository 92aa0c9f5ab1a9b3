"""Col2Im-15 against OpenVINO's CPU plugin (the core has no evaluate for it), and its shape inference.

Values are small integers (in f32/f16/i32), so every sum is exact whatever the order
and the comparison is bit for bit.  Cases: batched and unbatched data, strides, dilations and pads (blocks partly in the
padding), overlapping blocks (sums in the reference's order), f32/f16/i32; shapes with
unknown kernel or output size, intervals from a ShapeOf, and OpenVINO's refusals.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(81)


def _blocks(size, kernel, strides, dilations, pb, pe):  # type: ignore[no-untyped-def]
    return [
        (size[d] + pb[d] + pe[d] - dilations[d] * (kernel[d] - 1) - 1) // strides[d] + 1 for d in range(2)
    ]


# output size, kernel, strides, dilations, pads_begin, pads_end
CASES = [
    pytest.param([4, 5], [2, 2], [1, 1], [1, 1], [0, 0], [0, 0], id="overlapping"),
    pytest.param([6, 7], [3, 2], [2, 3], [1, 1], [0, 0], [0, 0], id="strides"),
    pytest.param([7, 6], [2, 3], [1, 1], [2, 2], [0, 0], [0, 0], id="dilations"),
    pytest.param([5, 5], [3, 3], [2, 1], [1, 2], [1, 2], [2, 1], id="pads-strides-dilations"),
]


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize(("size", "kernel", "strides", "dilations", "pb", "pe"), CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=["f32", "f16", "i32"])
def test_col2im_matches_reference(tmp_path, batched, size, kernel, strides, dilations, pb, pe, dtype):  # type: ignore[no-untyped-def]
    bh, bw = _blocks(size, kernel, strides, dilations, pb, pe)
    shape = (2, 3 * kernel[0] * kernel[1], bh * bw) if batched else (3 * kernel[0] * kernel[1], bh * bw)
    x = RNG.integers(-50, 50, shape).astype(dtype)
    node, params = build(
        lambda a, s, k: ops.col2im(a, s, k, strides, dilations, pb, pe),
        [P(x), C(np.array(size, np.int64)), C(np.array(kernel, np.int64))],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    assert_same(next(iter(model.run([x]).values())), cpu_outputs(node, params, [x])[0])


@pytest.mark.parametrize(
    ("data", "size", "kernel"),
    [
        ("2,12,20", "const", "param"),
        ("2,12,20", "param", "const"),
        ("?,12,?", "const", "const"),
        ("...", "const", "const"),
        ("12,20", "shape-of", "const"),
        ("2,?,20", "const", "const"),
    ],
    ids=[
        "unknown-kernel",
        "unknown-size",
        "dynamic-dims",
        "dynamic-rank",
        "size-from-shape-of",
        "unknown-channels",
    ],
)
def test_col2im_infer_agrees(tmp_path, data, size, kernel):  # type: ignore[no-untyped-def]
    sizes = np.array([5, 6], np.int64)
    kernels = np.array([2, 2], np.int64)
    size_in = {"const": C(sizes), "param": P(sizes), "shape-of": P(np.zeros((), np.float32), shape="3..9,6")}[
        size
    ]
    kernel_in = C(kernels) if kernel == "const" else P(kernels)
    make_size = ops.shape_of if size == "shape-of" else (lambda s: s)
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, s, k: ops.col2im(a, make_size(s), k),
        [P(np.zeros((), np.float32), shape=data), size_in, kernel_in],
    )
    assert ours == theirs


@pytest.mark.parametrize(
    ("shape", "kernel", "message"),
    [((2, 13, 20), [2, 2], "evenly divisible"), ((2, 12, 21), [2, 2], "must be equal to 20")],
    ids=["channels", "blocks"],
)
def test_col2im_bad_shapes_refused_like_openvino(shape, kernel, message):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.col2im import Col2ImAttrs, infer_col2im
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    size = np.array([5, 6], np.int64)
    k = np.array(kernel, np.int64)
    with pytest.raises(RuntimeError, match=message):
        ops.col2im(ops.parameter(shape, np.float32), ops.constant(size), ops.constant(k))
    infos = [
        TensorInfo(ElementType.f32, PartialShape.of(shape)),
        TensorInfo(ElementType.i64, PartialShape.of((2,)), value=size),
        TensorInfo(ElementType.i64, PartialShape.of((2,)), value=k),
    ]
    with pytest.raises(ValidationError, match=message):
        infer_col2im(Col2ImAttrs(), infos)
