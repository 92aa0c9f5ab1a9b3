"""Convolution, GroupConvolution, MaxPool and AvgPool against OpenVINO.

Types and shapes are always OpenVINO's inference.  Values: MaxPool-8/14 against the
core reference (``Node.evaluate``, bit for bit, outputs given their shapes first);
Convolution, GroupConvolution, MaxPool-1 and AvgPool have no core evaluate and are
compared with the CPU plugin (deterministic config): exact for MaxPool, ``CPU_RTOL``
for the f32 sums (oneDNN sums in f32 in its own order; ovonehot in float64).
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")
opset1 = pytest.importorskip("openvino.opset1")
opset8 = pytest.importorskip("openvino.opset8")

CPU_RTOL = 1e-5
RNG = np.random.default_rng(12)


def _run(tmp_path, factory, inputs):  # type: ignore[no-untyped-def]
    """(ovonehot's outputs, the CPU plugin's outputs) of a one-op model; types/shapes compared."""
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    return list(model.run(feeds).values()), theirs, node


# data shape, kernel shape (spatial), strides, dilations, pads_begin, pads_end, auto_pad
CONV_CASES = [
    pytest.param((2, 4, 9), (3,), [1], [1], [0], [0], "explicit", id="1d-char-cnn"),
    pytest.param((1, 3, 10), (3,), [2], [2], [1], [2], "explicit", id="1d-stride-dilation-pads"),
    pytest.param((1, 2, 6, 7), (3, 2), [2, 1], [1, 2], [1, 0], [0, 1], "explicit", id="2d"),
    pytest.param((1, 2, 7, 5), (3, 3), [2, 2], [1, 1], [0, 0], [0, 0], "same_upper", id="2d-same-upper"),
    pytest.param((1, 2, 7, 6), (2, 3), [3, 2], [1, 1], [0, 0], [0, 0], "same_lower", id="2d-same-lower"),
    pytest.param((1, 2, 7, 6), (2, 3), [1, 1], [1, 1], [5, 5], [5, 5], "valid", id="2d-valid-ignores-pads"),
    pytest.param((1, 1, 3, 4, 5), (2, 2, 2), [1, 2, 1], [1, 1, 2], [0, 1, 0], [1, 0, 0], "explicit", id="3d"),
]


@pytest.mark.parametrize(("shape", "kernel", "strides", "dilations", "pb", "pe", "auto_pad"), CONV_CASES)
def test_convolution_matches_cpu(tmp_path, shape, kernel, strides, dilations, pb, pe, auto_pad):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((3, shape[1], *kernel)).astype(np.float32)
    ours, theirs, _ = _run(
        tmp_path, lambda a, b: ops.convolution(a, b, strides, pb, pe, dilations, auto_pad), [P(x), C(w)]
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=CPU_RTOL, atol=CPU_RTOL)


@pytest.mark.parametrize(
    ("groups", "out_per_group"), [(1, 2), (2, 3), (4, 1)], ids=["1-group", "2-groups", "depthwise"]
)
def test_group_convolution_matches_cpu(tmp_path, groups, out_per_group):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((2, 4, 8)).astype(np.float32)
    w = RNG.standard_normal((groups, out_per_group, 4 // groups, 3)).astype(np.float32)
    ours, theirs, _ = _run(
        tmp_path, lambda a, b: ops.group_convolution(a, b, [1], [1], [1], [1]), [P(x), C(w)]
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=CPU_RTOL, atol=CPU_RTOL)


def test_convolution_of_a_one_hot_is_a_filter_lookup(tmp_path):  # type: ignore[no-untyped-def]
    # A one-hot input picks filter columns: exact, whatever the summation order.
    idx = np.array([[0, 3, 1, 2, 3, 0]])
    x = np.moveaxis(np.eye(4, dtype=np.float32)[idx], -1, 1)
    w = RNG.integers(-4, 5, (5, 4, 2)).astype(np.float32)
    ours, theirs, _ = _run(tmp_path, lambda a, b: ops.convolution(a, b, [1], [0], [0], [1]), [P(x), C(w)])
    assert_same(ours[0], theirs[0])


CONV_SHAPES = [
    pytest.param("?,4,9", id="dynamic-batch"),
    pytest.param("1,4,?", id="dynamic-spatial"),
    pytest.param("1,4,5..12", id="interval-spatial"),
    pytest.param("...", id="dynamic-rank"),
]


KERNEL_SHAPES = [
    pytest.param("1,4,9", "3,4,?", id="unknown-kernel"),
    pytest.param("1,4,?", "3,4,?", id="unknown-both"),
    pytest.param("1,4,5..12", "3,4,2..3", id="interval-both"),
    pytest.param("1,4,9", "?,?,?", id="unknown-filters"),
    pytest.param("1,4,1..3", "3,4,2..5", id="kernel-may-exceed-data"),
]


@pytest.mark.parametrize(("data", "filters"), KERNEL_SHAPES)
@pytest.mark.parametrize("auto_pad", ["explicit", "same_upper", "valid"])
def test_convolution_with_unknown_kernel_infer_agrees(tmp_path, data, filters, auto_pad):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: ops.convolution(a, b, [2], [1], [1], [2], auto_pad),
        [P(np.zeros((), np.float32), shape=data), P(np.zeros((), np.float32), shape=filters)],
    )
    assert ours == theirs


@pytest.mark.parametrize("shape", CONV_SHAPES)
@pytest.mark.parametrize("auto_pad", ["explicit", "same_upper", "valid"])
def test_convolution_infer_agrees(tmp_path, shape, auto_pad):  # type: ignore[no-untyped-def]
    w = np.zeros((3, 4, 3), np.float32)
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: ops.convolution(a, b, [2], [1], [0], [1], auto_pad),
        [P(np.zeros((), np.float32), shape=shape), C(w)],
    )
    assert ours == theirs


# data shape, kernel, strides, dilations, pads_begin, pads_end, rounding, auto_pad
POOL_CASES = [
    pytest.param((1, 3, 4, 4), [2, 2], [2, 2], [1, 1], [0, 0], [0, 0], "floor", "explicit", id="2x2"),
    pytest.param((2, 2, 7), [3], [2], [1], [1], [1], "floor", "explicit", id="1d-pads"),
    pytest.param((1, 2, 7, 6), [3, 2], [2, 2], [1, 1], [0, 0], [0, 0], "ceil", "explicit", id="ceil"),
    pytest.param((1, 2, 6, 6), [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "ceil", "explicit", id="ceil-pads"),
    pytest.param(
        (1, 2, 6, 5), [2, 2], [2, 2], [1, 1], [0, 0], [0, 0], "floor", "same_upper", id="same-upper"
    ),
    pytest.param(
        (1, 2, 6, 5), [3, 2], [2, 3], [1, 1], [0, 0], [0, 0], "floor", "same_lower", id="same-lower"
    ),
    pytest.param((1, 1, 9, 8), [2, 3], [1, 2], [2, 1], [1, 0], [0, 1], "floor", "explicit", id="dilated"),
    pytest.param(
        (1, 1, 3, 4, 5), [2, 2, 2], [2, 1, 2], [1, 1, 1], [0, 0, 1], [0, 1, 0], "ceil", "explicit", id="3d"
    ),
]
WITH_CEIL_TORCH = [
    *POOL_CASES,
    pytest.param(
        (1, 2, 5, 5), [2, 2], [2, 2], [1, 1], [1, 1], [1, 1], "ceil_torch", "explicit", id="ceil-torch"
    ),
]


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "dilations", "pb", "pe", "rounding", "auto_pad"), WITH_CEIL_TORCH
)
@pytest.mark.parametrize("axis", [0, 2])
def test_max_pool_14_matches_reference(
    tmp_path, shape, kernel, strides, dilations, pb, pe, rounding, auto_pad, axis
):  # type: ignore[no-untyped-def]
    x = RNG.integers(-9, 9, shape).astype(np.float32)  # ties on purpose: the first maximum wins
    node, params = build(
        lambda a: ops.max_pool(a, strides, dilations, pb, pe, kernel, rounding, auto_pad, "i64", axis), [P(x)]
    )
    outs = [
        ov.Tensor(node.get_output_element_type(k), ov.Shape(list(node.get_output_shape(k)))) for k in range(2)
    ]
    assert node.evaluate(outs, [ov.Tensor(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([x]).values())
    for got, want in zip(ours, outs, strict=True):
        assert_same(got, np.array(want.data, copy=True))


@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "dilations", "pb", "pe", "rounding", "auto_pad"), POOL_CASES
)
def test_max_pool_1_and_avg_pool_match_cpu(
    tmp_path, shape, kernel, strides, dilations, pb, pe, rounding, auto_pad
):  # type: ignore[no-untyped-def]
    if dilations != [1] * len(kernel):
        dilations = [1] * len(kernel)  # MaxPool-1 and AvgPool have no dilations
    x = RNG.standard_normal(shape).astype(np.float32)
    ours, theirs, _ = _run(
        tmp_path, lambda a: opset1.max_pool(a, strides, pb, pe, kernel, rounding, auto_pad), [P(x)]
    )
    assert_same(ours[0], theirs[0])
    for exclude_pad in (True, False):
        ours, theirs, _ = _run(
            tmp_path,
            lambda a, e=exclude_pad: ops.avg_pool(a, strides, pb, pe, kernel, e, rounding, auto_pad),
            [P(x)],
        )
        np.testing.assert_allclose(ours[0], theirs[0], rtol=CPU_RTOL, atol=CPU_RTOL)


@pytest.mark.parametrize("auto_pad", ["explicit", "valid"])
@pytest.mark.parametrize("version", [1, 14])
def test_avg_pool_without_padding_divides_by_the_data_in_the_window(tmp_path, version, auto_pad):  # type: ignore[no-untyped-def]
    """No pads at all and include-pad: a window past the data is averaged over its data (CPU plugin)."""
    x = RNG.standard_normal((1, 2, 6, 6)).astype(np.float32)
    module = opset1 if version == 1 else ops
    ours, theirs, _ = _run(
        tmp_path,
        lambda a: module.avg_pool(a, [2, 2], [0, 0], [0, 0], [3, 3], False, "ceil", auto_pad),
        [P(x)],
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=CPU_RTOL, atol=CPU_RTOL)


def test_max_pool_8_matches_reference(tmp_path):  # type: ignore[no-untyped-def]
    x = RNG.integers(-3, 3, (2, 3, 5, 4)).astype(np.int32)
    node, params = build(
        lambda a: opset8.max_pool(a, [1, 2], [1, 1], [1, 0], [0, 1], [2, 2], "ceil", "explicit", "i32", 1),
        [P(x)],
    )
    outs = [
        ov.Tensor(node.get_output_element_type(k), ov.Shape(list(node.get_output_shape(k)))) for k in range(2)
    ]
    assert node.evaluate(outs, [ov.Tensor(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    for got, want in zip(model.run([x]).values(), outs, strict=True):
        assert_same(got, np.array(want.data, copy=True))


@pytest.mark.parametrize("shape", ["?,3,8,8", "1,3,?,8", "1,3,4..9,8", "..."])
@pytest.mark.parametrize("rounding", ["floor", "ceil"])
def test_pool_infer_agrees(tmp_path, shape, rounding):  # type: ignore[no-untyped-def]
    for factory in (
        lambda a: ops.max_pool(a, [2, 2], [1, 1], [0, 1], [1, 0], [3, 2], rounding),
        lambda a: ops.avg_pool(a, [2, 2], [0, 1], [1, 0], [3, 2], True, rounding),
    ):
        ours, theirs = infer_shapes(tmp_path, factory, [P(np.zeros((), np.float32), shape=shape)])
        assert ours == theirs


def _specials(dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Mostly NaN, +-inf, signed zeros and the type's lowest value (integers: their minimum)."""
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return np.where(RNG.random(shape) < 0.6, info.min, RNG.integers(-5, 5, shape)).astype(dtype)
    pool = np.array([np.nan, -np.inf, np.inf, 1.0, -1.0, 0.0, -0.0, np.finfo(dtype).min], dtype)
    return np.where(RNG.random(shape) < 0.6, RNG.choice(pool, shape), RNG.standard_normal(shape)).astype(
        dtype
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8])
@pytest.mark.parametrize("axis", [0, 2])
def test_max_pool_14_never_chooses_nan_or_the_lowest_value(tmp_path, dtype, axis):  # type: ignore[no-untyped-def]
    """The reference scans from T's lowest value and keeps an element only when greater: NaN,
    -inf and the lowest itself are never chosen; a window with nothing above the lowest gives
    the lowest (f32's for f16, rounded: -inf) and the channel's first element (core reference)."""
    x = _specials(dtype, (2, 3, 6, 5))
    node, params = build(
        lambda a: ops.max_pool(a, [1, 2], [1, 1], [1, 0], [1, 1], [2, 3], "ceil", "explicit", "i64", axis),
        [P(x)],
    )
    outs = [
        ov.Tensor(node.get_output_element_type(k), ov.Shape(list(node.get_output_shape(k)))) for k in range(2)
    ]
    assert node.evaluate(outs, [ov.Tensor(x)])
    model = export(tmp_path, node, params)
    for got, want in zip(model.run([x]).values(), outs, strict=True):
        assert_same(got, np.array(want.data, copy=True))


def test_max_pool_1_never_chooses_nan_or_minus_inf(tmp_path):  # type: ignore[no-untyped-def]
    """MaxPool-1 on the CPU plugin: the same rule (windows of -inf/NaN only give f32's lowest)."""
    x = _specials(np.float32, (1, 2, 7, 6))
    x[0, 0, :2] = -np.inf
    ours, theirs, _ = _run(
        tmp_path, lambda a: opset1.max_pool(a, [2, 2], [1, 0], [0, 1], [2, 2], "ceil", "explicit"), [P(x)]
    )
    assert_same(ours[0], theirs[0])
