"""Interpolate-1/4/11 against OpenVINO.

Values of Interpolate-4/11 against the core reference (``Node.evaluate``), bit for bit:
every mode, every coordinate transformation, every nearest rounding, antialias,
pads, scales and sizes, f32/f16/u8.  Types and shapes are always OpenVINO's inference,
including unknown scales, interval sizes from a ShapeOf and dynamic ranks.
Interpolate-1 has no core evaluate: compared with the CPU plugin (deterministic config).
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import (
    C,
    P,
    assert_inferred,
    assert_same,
    build,
    compare_op,
    cpu_outputs,
    export,
    infer_shapes,
    reference,
)

ov = pytest.importorskip("openvino")
o11 = pytest.importorskip("openvino.opset11")
o10 = pytest.importorskip("openvino.opset10")
o1 = pytest.importorskip("openvino.opset1")

RNG = np.random.default_rng(31)
X4 = RNG.standard_normal((1, 2, 5, 6)).astype(np.float32)
X5 = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
AXES_HW = np.array([2, 3], np.int64)

MODES = ["nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"]
TRANSFORMS = ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sizes", [[9, 4], [1, 11]], ids=["up-down", "to-1-and-up"])
def test_interpolate_11_sizes_matches_reference(tmp_path, mode, transform, sizes):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda a, s, ax: o11.interpolate(
            a, s, mode, "sizes", coordinate_transformation_mode=transform, axes=ax
        ),
        [P(X4), C(np.array(sizes, np.int64)), C(AXES_HW)],
    )


@pytest.mark.parametrize(
    "nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]
)
@pytest.mark.parametrize(
    "scales", [[2.0, 0.5], [1.5, 0.7], [0.6, 2.5]], ids=["x2-half", "1.5-0.7", "0.6-2.5"]
)
def test_interpolate_11_nearest_modes_match_reference(tmp_path, nearest_mode, scales):  # type: ignore[no-untyped-def]
    # asymmetric gives coordinates ending in .5 exactly: the tie rules differ there
    compare_op(
        tmp_path,
        lambda a, s, ax: o11.interpolate(
            a,
            s,
            "nearest",
            "scales",
            coordinate_transformation_mode="asymmetric",
            nearest_mode=nearest_mode,
            axes=ax,
        ),
        [P(X4), C(np.array(scales, np.float32)), C(AXES_HW)],
    )


@pytest.mark.parametrize(
    ("sizes", "antialias"),
    [([2, 3], True), ([2, 3], False), ([8, 9], True), ([3, 10], True)],
    ids=["down-antialias", "down-plain", "up-antialias-ignored", "mixed-antialias"],
)
def test_interpolate_11_linear_antialias_matches_reference(tmp_path, sizes, antialias):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda a, s, ax: o11.interpolate(a, s, "linear", "sizes", antialias=antialias, axes=ax),
        [P(X4), C(np.array(sizes, np.int64)), C(AXES_HW)],
    )


@pytest.mark.parametrize("mode", ["nearest", "linear", "linear_onnx", "cubic"])
def test_interpolate_11_scales_pads_default_axes_match_reference(tmp_path, mode):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda a, s: o11.interpolate(a, s, mode, "scales", pads_begin=[0, 0, 1, 0], pads_end=[0, 0, 0, 2]),
        [P(X4), C(np.array([1, 1, 1.7, 0.6], np.float32))],
    )


ONNX_LAYOUTS = [
    pytest.param((3, 4, 5), [3, 7, 9], None, id="3d-first-kept"),
    pytest.param((3, 4, 5), [5, 7, 9], None, id="3d-all-resized"),
    pytest.param((4, 5), [7, 3], None, id="2d"),
    pytest.param((1, 2, 5, 6), [1, 2, 7, 3], None, id="4d-all-axes"),
    pytest.param((1, 2, 3, 4, 5), [5, 7, 3], [2, 3, 4], id="5d-spatial"),
    # The reference's own quirk: with the depth kept, it interpolates H and W with the
    # coordinate rules of D and H (so H is not interpolated). The CPU plugin does not.
    pytest.param((1, 2, 3, 4, 5), [3, 7, 3], [2, 3, 4], id="5d-depth-kept-reference-quirk"),
]


@pytest.mark.parametrize(("shape", "sizes", "axes"), ONNX_LAYOUTS)
def test_interpolate_11_linear_onnx_layouts_match_reference(tmp_path, shape, sizes, axes):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal(shape).astype(np.float32)
    ins = [P(x), C(np.array(sizes, np.int64))]
    if axes is None:
        compare_op(tmp_path, lambda a, s: o11.interpolate(a, s, "linear_onnx", "sizes"), ins)
    else:
        compare_op(
            tmp_path,
            lambda a, s, ax: o11.interpolate(a, s, "linear_onnx", "sizes", axes=ax),
            [*ins, C(np.array(axes, np.int64))],
        )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.float16], ids=["u8", "i8", "f16"])
def test_interpolate_11_other_types_match_reference(tmp_path, mode, dtype):  # type: ignore[no-untyped-def]
    if np.dtype(dtype).kind == "f":
        x = RNG.standard_normal((1, 3, 5, 6)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = RNG.integers(info.min, info.max, (1, 3, 5, 6), endpoint=True).astype(dtype)
    compare_op(
        tmp_path,
        lambda a, s, ax: o11.interpolate(a, s, mode, "sizes", axes=ax, cube_coeff=-0.5),
        [P(x), C(np.array([8, 4], np.int64)), C(AXES_HW)],
    )


def test_interpolate_11_linear_5d_antialias_matches_reference(tmp_path):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda a, s, ax: o11.interpolate(a, s, "linear", "sizes", axes=ax, antialias=True),
        [P(X5), C(np.array([2, 3, 2], np.int64)), C(np.array([2, 3, 4], np.int64))],
    )


@pytest.mark.parametrize(
    ("mode", "calc"), [("cubic", "scales"), ("linear_onnx", "sizes"), ("nearest", "scales")], ids=str
)
def test_interpolate_4_matches_reference(tmp_path, mode, calc):  # type: ignore[no-untyped-def]
    # Interpolate-4 reads sizes or scales by shape_calculation_mode; the other input is ignored
    compare_op(
        tmp_path,
        lambda a, s, sc, ax: o10.interpolate(a, s, sc, mode, calc, axes=ax),
        [P(X4), C(np.array([7, 3], np.int64)), C(np.array([1.3, 2.2], np.float32)), C(AXES_HW)],
    )


@pytest.mark.parametrize(
    ("mode", "align", "axes", "pads"),
    [
        ("nearest", False, [2, 3], [0, 0, 0, 0]),
        ("linear", False, [2, 3], [0, 0, 0, 0]),
        ("linear", True, [2, 3], [0, 0, 0, 0]),
        ("cubic", False, [2, 3], [0, 0, 0, 0]),
        ("linear", False, [2, 3], [0, 0, 1, 1]),
    ],
    ids=["nearest", "linear", "linear-align-corners", "cubic", "linear-padded"],
)
def test_interpolate_1_matches_cpu(tmp_path, mode, align, axes, pads):  # type: ignore[no-untyped-def]
    attrs = {"axes": axes, "mode": mode, "align_corners": align, "pads_begin": pads, "pads_end": pads}
    node, params = build(lambda a, s: o1.interpolate(a, s, attrs), [P(X4), C(np.array([9, 4], np.int64))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = next(iter(model.run([X4]).values()))
    theirs = cpu_outputs(node, params, [X4])[0]
    # The CPU plugin's own kernels: same coordinates, f32 sums in its own order
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


INFER_CASES = [
    pytest.param("1,3,?,8", None, id="dynamic-spatial-scales"),
    pytest.param("1,3,4..9,8", None, id="interval-spatial-scales"),
    pytest.param("...", None, id="dynamic-rank"),
    pytest.param("1,3,4,8", "unknown-scales", id="unknown-scales"),
    pytest.param("1,3,4,8", "unknown-axes", id="unknown-axes"),
]


@pytest.mark.parametrize(("shape", "what"), INFER_CASES)
def test_interpolate_11_scales_infer_agrees(tmp_path, shape, what):  # type: ignore[no-untyped-def]
    scales = np.array([1.3, 0.35], np.float32)
    ins = [
        P(np.zeros((), np.float32), shape=shape),
        P(scales) if what == "unknown-scales" else C(scales),
        P(AXES_HW) if what == "unknown-axes" else C(AXES_HW),
    ]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, s, ax: o11.interpolate(a, s, "linear", "scales", pads_begin=[0, 0, 1], axes=ax),
        ins,
    )
    assert ours == theirs


@pytest.mark.parametrize("size_shape", ["2..5,6", "?,7", "3,9"])
def test_interpolate_11_sizes_from_shape_of_infer_agrees(tmp_path, size_shape):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: o11.interpolate(a, o11.shape_of(b), "nearest", "sizes", axes=o11.constant(AXES_HW)),
        [P(np.zeros((1, 3, 4, 4), np.float32)), P(np.zeros((), np.float32), shape=size_shape)],
    )
    assert ours == theirs


@pytest.mark.parametrize("scale", [0.1, 1 / 3, 2.5, 0.999999, 7.0])
def test_interpolate_11_scaled_size_rounding_agrees(tmp_path, scale):  # type: ignore[no-untyped-def]
    # the output size is float(dim) * (scale + 1e-6f) truncated, in f32
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, s: o11.interpolate(a, s, "nearest", "scales", axes=o11.constant(AXES_HW)),
        [P(np.zeros((1, 1, 30, 9), np.float32)), C(np.array([scale, scale], np.float32))],
    )
    assert ours == theirs


def test_interpolate_11_bad_axes_is_one_line_error(tmp_path):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.interpolate import InterpolateAttrs, infer_interpolate
    from ovonehot.types import ElementType, PartialShape

    data = TensorInfo(ElementType.f32, PartialShape.of((1, 2, 3)))
    scales = TensorInfo(ElementType.f32, PartialShape.of((1,)), value=np.array([2.0], np.float32))
    axes = TensorInfo(ElementType.i64, PartialShape.of((1,)), value=np.array([3]))
    with pytest.raises(ValidationError, match="less than input rank: 3"):
        infer_interpolate(InterpolateAttrs(11, shape_calculation_mode=_scales()), [data, scales, axes])


def _scales():  # type: ignore[no-untyped-def]
    from ovonehot.ops.interpolate import ShapeCalc

    return ShapeCalc.SCALES


def test_interpolate_11_linear_onnx_5d_depth_kept_cpu_differs_from_reference(tmp_path):  # type: ignore[no-untyped-def]
    # docs/openvino-behaviour.md: ovonehot follows the core reference, whose 5-D linear_onnx
    # with the depth kept repeats rows along H (clamped) instead of interpolating them; the
    # CPU plugin interpolates H.
    x = np.arange(60, dtype=np.float32).reshape(1, 1, 3, 4, 5)
    sizes, axes = np.array([3, 7, 5], np.int64), np.array([2, 3, 4], np.int64)
    node, params = build(
        lambda a, s, ax: o11.interpolate(a, s, "linear_onnx", "sizes", axes=ax), [P(x), C(sizes), C(axes)]
    )
    (theirs,) = reference(node, [x, sizes, axes]) or [None]
    ours = next(iter(export(tmp_path, node, params).run([x]).values()))
    assert_same(ours, theirs)
    assert len(set(ours[0, 0, 0, :, 0].tolist())) == 4  # the 4 input rows, some repeated
    cpu = cpu_outputs(node, params, [x])[0]
    assert len(set(cpu[0, 0, 0, :, 0].tolist())) == 7  # interpolated
