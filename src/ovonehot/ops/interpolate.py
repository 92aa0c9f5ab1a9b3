"""Interpolate-1, -4 and -11: image resizing (ONNX ``Resize``, ``F.interpolate``).

Inputs: Interpolate-11 takes data, ``scales_or_sizes`` and optional ``axes``;
Interpolate-4 takes data, ``sizes``, ``scales`` and optional ``axes`` (which of the two
counts is ``shape_calculation_mode``); Interpolate-1 takes data and the output sizes of
its ``axes`` attribute.  Data is padded first (``pads_begin``/``pads_end``, resized to
the data rank, zeros), then resized along ``axes`` (default: every axis).

Shapes (``interpolate_shape_inference.hpp``): on each axis, ``sizes`` gives the size
(intervals from bounds); ``scales`` gives ``int(float(dim) * (scale + 1e-6f))`` in f32,
bound by bound (a scale of exactly 1 keeps the dim).  Unknown sizes/scales give ``?``
on the axes; unknown axes a dynamic shape of the data rank.

Values follow OpenVINO's reference (``reference/interpolate.hpp``, ``interpolate_pil.hpp``):
coordinates and weights in f32, in the reference's order, so f32 results are bit for
bit: ``nearest`` (five rounding rules), ``linear`` (triangle filter over a window, with
``antialias`` when downscaling, normalised by the weight sum), ``linear_onnx``
(separable linear over the spatial axes; on axes the reference refuses, such as TensorFlow's
``[1, 2]`` of NHWC data, each listed axis as the CPU plugin does), ``cubic`` (4 taps per axis, ``cube_coeff``),
``bilinear_pillow``/``bicubic_pillow`` (Pillow's two-pass resampling in double).  In
SIZES mode the scale of an axis is ``size / padded_dim`` in f32.  Narrow floats are
computed in f32; integer outputs are rounded or truncated as the reference's casts are.
Interpolate-1 runs as the reference's ``transform_v0_to_v4`` says (nearest: ``simple``
rounding, ``asymmetric``; ``linear``: linear_onnx below rank 5 with ``half_pixel``
unless padded or resizing exactly axes 2,3 of a 4-D tensor).
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, enum_attr, float_attr, ints_attr, str_attr
from .common.binding import with_attrs
from .common.numeric import c_cast, narrow, quiet, round_half_away, widen
from .common.shape_util import known_ints
from .common.spec import Kernel as OpKernel
from .common.spec import OpSpec, RunMode, TensorInfo
from .common.widening import is_narrow_float
from .movement import _shape_from_info

F32 = np.float32


class Mode(enum.Enum):
    NEAREST = "nearest"
    LINEAR = "linear"
    LINEAR_ONNX = "linear_onnx"
    CUBIC = "cubic"
    BILINEAR_PILLOW = "bilinear_pillow"
    BICUBIC_PILLOW = "bicubic_pillow"


class ShapeCalc(enum.Enum):
    SIZES = "sizes"
    SCALES = "scales"


class Transform(enum.Enum):
    HALF_PIXEL = "half_pixel"
    PYTORCH_HALF_PIXEL = "pytorch_half_pixel"
    ASYMMETRIC = "asymmetric"
    TF_HALF_PIXEL_FOR_NN = "tf_half_pixel_for_nn"
    ALIGN_CORNERS = "align_corners"


class NearestMode(enum.Enum):
    ROUND_PREFER_FLOOR = "round_prefer_floor"
    ROUND_PREFER_CEIL = "round_prefer_ceil"
    FLOOR = "floor"
    CEIL = "ceil"
    SIMPLE = "simple"


@dataclass(frozen=True, slots=True)
class InterpolateAttrs:
    version: int  # 1, 4 or 11
    mode: Mode = Mode.NEAREST
    shape_calculation_mode: ShapeCalc = ShapeCalc.SIZES
    coordinate_transformation_mode: Transform = Transform.HALF_PIXEL
    nearest_mode: NearestMode = NearestMode.ROUND_PREFER_FLOOR
    antialias: bool = False
    pads_begin: tuple[int, ...] = (0,)
    pads_end: tuple[int, ...] = (0,)
    cube_coeff: float = -0.75
    axes: tuple[int, ...] = ()  # Interpolate-1 only
    v1_mode: str = "nearest"  # Interpolate-1 only
    align_corners: bool = False  # Interpolate-1 only


def _parse_new(node: Node, version: int) -> InterpolateAttrs:
    pads_begin = ints_attr(node, "pads_begin", (0,))
    pads_end = ints_attr(node, "pads_end", (0,))
    if any(p < 0 for p in (*pads_begin, *pads_end)):
        raise ValidationError(f"{node.describe()}: negative pads are not supported: {pads_begin}, {pads_end}")
    return InterpolateAttrs(
        version,
        enum_attr(node, "mode", Mode, Mode.NEAREST),
        enum_attr(node, "shape_calculation_mode", ShapeCalc, ShapeCalc.SIZES),
        enum_attr(node, "coordinate_transformation_mode", Transform, Transform.HALF_PIXEL),
        enum_attr(node, "nearest_mode", NearestMode, NearestMode.ROUND_PREFER_FLOOR),
        bool_attr(node, "antialias", False),
        pads_begin,
        pads_end,
        float_attr(node, "cube_coeff", -0.75),
    )


def parse_interpolate_4(node: Node) -> InterpolateAttrs:
    return _parse_new(node, 4)


def parse_interpolate_11(node: Node) -> InterpolateAttrs:
    return _parse_new(node, 11)


_V1_MODES = ("nearest", "linear", "cubic", "linear_onnx")


def parse_interpolate_1(node: Node) -> InterpolateAttrs:
    mode = str_attr(node, "mode")
    if mode not in _V1_MODES:
        # 'area' is an enum value of Interpolate-1 that no kernel implements
        raise ValidationError(f"{node.describe()}: mode {mode!r} is not one of: {', '.join(_V1_MODES)}")
    pads_begin = ints_attr(node, "pads_begin", ())
    pads_end = ints_attr(node, "pads_end", ())
    if any(p < 0 for p in (*pads_begin, *pads_end)):
        raise ValidationError(f"{node.describe()}: negative pads are not supported: {pads_begin}, {pads_end}")
    return InterpolateAttrs(
        1,
        pads_begin=pads_begin,
        pads_end=pads_end,
        antialias=bool_attr(node, "antialias", False),
        axes=ints_attr(node, "axes"),
        v1_mode=mode,
        align_corners=bool_attr(node, "align_corners", False),
    )


# -- shape inference ---------------------------------------------------------------------------
_DATA_TYPES = {
    ElementType.f32,
    ElementType.f16,
    ElementType.bf16,
    ElementType.f64,
    ElementType.i8,
    ElementType.u8,
    ElementType.i32,
    ElementType.i64,
    ElementType.dynamic,
}
_INDEX_TYPES = {ElementType.i32, ElementType.i64, ElementType.u32, ElementType.u64, ElementType.dynamic}
_SCALE_TYPES = {ElementType.f32, ElementType.f16, ElementType.bf16, ElementType.dynamic}


def _check_type(et: ElementType, allowed: set[ElementType], message: str) -> None:
    if et not in allowed:
        raise ValidationError(f"{message} Got: {et}")


def _check_scales(et: ElementType) -> None:
    """Scales are f32, f16 or bf16; in the float64 truth run f64 stands for them (the kernel
    rounds the scales to f32 as OpenVINO's does)."""
    if not is_narrow_float(et, _SCALE_TYPES):
        raise ValidationError(f"Scales element type must be f32, f16 or bf16 Got: {et}")


def _check_rank_1(info: TensorInfo, port: int) -> None:
    if info.shape.rank_is_static and info.shape.rank != 1:
        raise ValidationError(f"Input [{port}] is not rank 1. Got: {info.shape}")


def _resized(values: Sequence[int], rank: int) -> list[int]:
    return [*values[:rank], *([0] * max(0, rank - len(values)))]


def _padded_dim(d: Dimension, pad: int) -> Dimension:
    if pad == 0:
        return d
    hi = None if d.max is None else d.max + pad
    return Dimension.static(hi) if d.is_static and hi is not None else Dimension(d.min + pad, hi)


def scaled_length(length: int, scale: float) -> int:
    """``static_cast<int64>(float(length) * (scale + 1e-6f))`` in f32 (``dim::scale``)."""
    with quiet():
        s = F32(scale) + F32(1e-6)
        return int(np.trunc(F32(length) * s))


def _scaled_dim(d: Dimension, scale: float) -> Dimension:
    if F32(scale) == F32(1.0):
        return d
    hi = None if d.max is None else scaled_length(d.max, scale)
    if d.is_static and hi is not None:
        return Dimension.static(max(hi, 0))
    lo = max(scaled_length(d.min, scale), 0)
    return Dimension(lo, None if hi is None else max(hi, lo))


def _check_axes(axes: Sequence[int], rank: int) -> None:
    # OpenVINO compares the axes as unsigned: a negative axis is refused with the same message
    if any(a >= rank or a < 0 for a in axes):
        raise ValidationError(f"All axes values should less than input rank: {rank} (axes: {list(axes)})")


def _known_floats(info: TensorInfo) -> list[float] | None:
    if info.error is not None:
        raise ValidationError(f"computing this input's value fails: {info.error}")
    if info.value is None:
        return None
    return [float(v) for v in np.asarray(info.value, dtype=np.float32).reshape(-1)]


def _ports(attrs: InterpolateAttrs) -> tuple[int, int, int]:
    """(sizes port, scales port, axes port) of this version."""
    if attrs.version == 4:
        return 1, 2, 3
    return 1, 1, 2


def infer_interpolate(attrs: InterpolateAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    if attrs.version == 1:
        return [_infer_v1(attrs, inputs)]
    _check_type(
        data.element_type, _DATA_TYPES, "Input element type must be f32, f16, bf16, f64, i8, u8, i64, i32"
    )
    sizes_port, scales_port, axes_port = _ports(attrs)
    use_scales = attrs.shape_calculation_mode is ShapeCalc.SCALES
    if attrs.version == 4:
        _check_type(inputs[1].element_type, _INDEX_TYPES, "Sizes element type must be i32, i64, u32 or u64")
        _check_scales(inputs[2].element_type)
        _check_rank_1(
            inputs[scales_port if use_scales else sizes_port], scales_port if use_scales else sizes_port
        )
    elif use_scales:
        _check_scales(inputs[1].element_type)
    else:
        _check_type(inputs[1].element_type, _INDEX_TYPES, "Sizes element type must be i32, i64, u32 or u64")
    has_axes = len(inputs) > axes_port
    if has_axes:
        _check_type(
            inputs[axes_port].element_type, _INDEX_TYPES, "Axes element type must be i32, i64, u32 or u64"
        )
    ports = range(1, len(inputs)) if attrs.version == 11 else ([axes_port] if has_axes else [])
    for port in ports:
        _check_rank_1(inputs[port], port)
    et = data.element_type
    if not data.shape.rank_is_static:
        return [TensorInfo(et, PartialShape.dynamic())]
    rank = data.shape.rank
    axes = known_ints(inputs[axes_port]) if has_axes else list(range(rank))
    if axes is None:
        return [TensorInfo(et, PartialShape((Dimension(),) * rank))]
    _check_axes(axes, rank)
    pads = [
        b + e for b, e in zip(_resized(attrs.pads_begin, rank), _resized(attrs.pads_end, rank), strict=True)
    ]
    out = [_padded_dim(d, p) for d, p in zip(data.shape, pads, strict=True)]
    if use_scales:
        _scale_dims(out, axes, _known_floats(inputs[scales_port]))
    else:
        _size_dims(out, axes, _shape_from_info(inputs[sizes_port]))
    return [TensorInfo(et, PartialShape(tuple(out)))]


def _scale_dims(out: list[Dimension], axes: Sequence[int], scales: Sequence[float] | None) -> None:
    """Each of ``axes`` in ``out`` scaled (unknown scales: any length)."""
    if scales is None:
        for a in axes:
            out[a] = Dimension()
        return
    _check_count("scales", len(scales), len(axes))
    for a, s in zip(axes, scales, strict=False):
        out[a] = _scaled_dim(out[a], s)


def _size_dims(out: list[Dimension], axes: Sequence[int], sizes: Sequence[Dimension] | None) -> None:
    """Each of ``axes`` in ``out`` given its size (unknown sizes: any length)."""
    if sizes is None:
        for a in axes:
            out[a] = Dimension()
        return
    _check_count("sizes", len(sizes), len(axes))
    for a, d in zip(axes, sizes, strict=False):
        out[a] = d


def _check_count(name: str, count: int, n_axes: int) -> None:
    if count < n_axes:
        raise ValidationError(
            f"The number of elements in the '{name}' input does not match the number of axes {n_axes}"
        )


def _infer_v1(attrs: InterpolateAttrs, inputs: Sequence[TensorInfo]) -> TensorInfo:
    data, target = inputs
    if not target.element_type.is_dynamic and not target.element_type.is_integral_number:
        raise ValidationError("output shape must be an integral number.")
    if not data.shape.rank_is_static:
        return TensorInfo(data.element_type, PartialShape.dynamic())
    rank = data.shape.rank
    _check_axes(attrs.axes, rank)
    out = list(data.shape)
    sizes = _shape_from_info(target)
    for k, a in enumerate(attrs.axes):
        out[a] = Dimension() if sizes is None or k >= len(sizes) else sizes[k]
    return TensorInfo(data.element_type, PartialShape(tuple(out)))


# -- evaluation ----------------------------------------------------------------------------------
def _resolved(
    attrs: InterpolateAttrs, inputs: Sequence[np.ndarray]
) -> tuple[InterpolateAttrs, np.ndarray, list[int], list[np.float32], tuple[int, ...]]:
    """What a kernel runs on: the attributes (Interpolate-1's as v4's), the padded data, the
    axes, their f32 scales and the output shape; the inputs' refusals raised."""
    x = np.asarray(inputs[0])
    rank = x.ndim
    if attrs.version == 1:
        run_attrs, axes, sizes = _v1_as_v4(attrs, x.shape, inputs[1])
        pads_begin = _resized(attrs.pads_begin, rank)
        pads_end = _resized(attrs.pads_end, rank)
    else:
        run_attrs = attrs
        sizes_port, scales_port, axes_port = _ports(attrs)
        axes = _ints(inputs[axes_port]) if len(inputs) > axes_port else list(range(rank))
        _check_axes_runtime(axes, rank)
        pads_begin = _resized(attrs.pads_begin, rank)
        pads_end = _resized(attrs.pads_end, rank)
        sizes = None
        if attrs.shape_calculation_mode is ShapeCalc.SIZES:
            sizes = _ints(inputs[sizes_port])
            if len(sizes) < len(axes):
                raise InputError(f"sizes hold {len(sizes)} values for {len(axes)} axes")
    xp = (
        np.pad(x, [(b, e) for b, e in zip(pads_begin, pads_end, strict=True)])
        if any(pads_begin + pads_end)
        else x
    )
    in_shape = xp.shape
    if sizes is not None:
        scales = [
            F32(sizes[k]) / F32(in_shape[a]) if in_shape[a] else F32(np.inf) for k, a in enumerate(axes)
        ]
        out_shape = list(in_shape)
        for k, a in enumerate(axes):
            out_shape[a] = sizes[k]
    else:
        scale_values = np.asarray(inputs[scales_port]).astype(np.float32).reshape(-1)
        if scale_values.size < len(axes):
            raise InputError(f"scales hold {scale_values.size} values for {len(axes)} axes")
        scales = [F32(s) for s in scale_values[: len(axes)]]
        out_shape = list(in_shape)
        for k, a in enumerate(axes):
            out_shape[a] = (
                scaled_length(in_shape[a], float(scales[k])) if scales[k] != F32(1.0) else in_shape[a]
            )
    if any(n < 0 for n in out_shape):
        raise InputError(f"output shape {out_shape} has a negative dimension")
    if any(in_shape[a] == 0 for a in axes) and any(out_shape[a] for a in axes):
        raise InputError(f"cannot resize an empty axis of shape {list(in_shape)}")
    return run_attrs, xp, list(axes), [F32(s) for s in scales], tuple(out_shape)


def evaluate_interpolate(attrs: InterpolateAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _interpolated(*_resolved(attrs, inputs), np.asarray(inputs[0]).dtype, _KERNELS)


def evaluate_interpolate_fast(attrs: InterpolateAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) Interpolate: linear_onnx of f32 data one axis at a time
    (``_linear_onnx_separable``), every other mode and type as ``evaluate_interpolate``."""
    return _interpolated(*_resolved(attrs, inputs), np.asarray(inputs[0]).dtype, _FAST_KERNELS)


def _interpolated(
    attrs: InterpolateAttrs,
    xp: np.ndarray,
    axes: list[int],
    scales: list[np.float32],
    out_shape: tuple[int, ...],
    out_dtype: np.dtype,
    kernels: dict[Mode, Kernel],
) -> list[np.ndarray]:
    with quiet():
        y = kernels[attrs.mode](attrs, widen(xp), axes, scales, out_shape)
    if y.dtype != out_dtype:
        y = narrow(y, out_dtype)
    return [y]


def specialize_interpolate(
    attrs: InterpolateAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> OpKernel | None:
    """Exact: ``evaluate``.  Fast: ``evaluate_interpolate_fast``."""
    return None if mode.exact else with_attrs(evaluate_interpolate_fast, attrs)


def _ints(a: np.ndarray) -> list[int]:
    flat = np.asarray(a).reshape(-1)
    return [int(v) - 2**64 if flat.dtype == np.uint64 and int(v) >= 2**63 else int(v) for v in flat]


def _check_axes_runtime(axes: Sequence[int], rank: int) -> None:
    try:
        _check_axes(axes, rank)
    except ValidationError as exc:
        raise InputError(str(exc)) from None


def _v1_as_v4(
    attrs: InterpolateAttrs, shape: tuple[int, ...], target: np.ndarray
) -> tuple[InterpolateAttrs, list[int], list[int]]:
    """The reference's ``transform_v0_to_v4``."""
    rank = len(shape)
    axes = list(attrs.axes)
    _check_axes_runtime(axes, rank)
    sizes = _ints(target)
    if len(sizes) < len(axes):
        raise InputError(f"output shape holds {len(sizes)} values for {len(axes)} axes")
    if attrs.v1_mode == "linear":
        if rank > 5:
            raise InputError(f"Interpolate-1 'linear' takes data of rank 5 at most, got {rank}")
        mode = Mode.LINEAR_ONNX if rank < 5 else Mode.LINEAR
    else:  # (parse allows _V1_MODES only)
        mode = {"nearest": Mode.NEAREST, "cubic": Mode.CUBIC, "linear_onnx": Mode.LINEAR_ONNX}[attrs.v1_mode]
    transform = Transform.ASYMMETRIC
    unpadded = not any(attrs.pads_begin) and not any(attrs.pads_end)
    if attrs.align_corners:
        transform = Transform.ALIGN_CORNERS
    elif (
        mode in (Mode.LINEAR_ONNX, Mode.LINEAR)
        and unpadded
        and not (rank == 4 and sorted(set(axes)) == [2, 3])
    ):
        transform = Transform.HALF_PIXEL
    v4 = InterpolateAttrs(
        4,
        mode,
        ShapeCalc.SIZES,
        transform,
        NearestMode.SIMPLE,
        attrs.antialias,
        attrs.pads_begin,
        attrs.pads_end,
        -0.75,
    )
    return v4, axes, sizes


# -- coordinates ----------------------------------------------------------------------------------
def source_coords(
    transform: Transform, out_len: int, in_len: int, scale: np.float32, count: int | None = None
) -> np.ndarray:
    """The input coordinate (f32) of output positions ``0..count-1`` (default ``out_len``) on one axis."""
    x = np.arange(out_len if count is None else count, dtype=F32)
    if scale == F32(1.0) or out_len == in_len:
        return x
    half = F32(0.5)
    if transform is Transform.PYTORCH_HALF_PIXEL:
        return (x + half) / scale - half if out_len > 1 else np.zeros_like(x)
    if transform is Transform.ASYMMETRIC:
        return x / scale
    if transform is Transform.TF_HALF_PIXEL_FOR_NN:
        out: np.ndarray = (x + half) / scale
        return out
    if transform is Transform.ALIGN_CORNERS:
        if out_len == 1:
            return np.zeros_like(x)
        aligned: np.ndarray = x * F32(in_len - 1) / F32(out_len - 1)
        return aligned
    half_pixel: np.ndarray = (x + half) / scale - half
    return half_pixel


def _nearest_index(mode: NearestMode, c: np.ndarray, downsample: bool) -> np.ndarray:
    if mode is NearestMode.ROUND_PREFER_CEIL:
        r = round_half_away(c)
    elif mode is NearestMode.FLOOR:
        r = np.floor(c)
    elif mode is NearestMode.CEIL:
        r = np.ceil(c)
    elif mode is NearestMode.SIMPLE:
        r = np.ceil(c) if downsample else np.trunc(c)
    else:  # round_prefer_floor: a value ending in .5 (after truncation) goes down
        t = np.trunc(c)
        r = np.where(c == t + F32(0.5), np.floor(c), round_half_away(c))
    return c_cast(r, np.dtype(np.int64))


def _along(a: np.ndarray, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = a.shape[0]
    return a.reshape(shape)


def _take(x: np.ndarray, picks: dict[int, np.ndarray]) -> np.ndarray:
    for axis, idx in picks.items():
        x = np.take(x, idx, axis=axis)
    return x


def _cast_out(acc: np.ndarray, dtype: np.dtype, rounding: bool = False) -> np.ndarray:
    """``static_cast<T>(float)`` (``rounding``: of ``std::round`` of it first)."""
    if dtype.kind == "f":
        return acc.astype(dtype)
    return c_cast(round_half_away(acc) if rounding else acc, dtype)


# -- kernels ----------------------------------------------------------------------------------------
Kernel = Callable[[InterpolateAttrs, np.ndarray, list[int], list[np.float32], tuple[int, ...]], np.ndarray]


def _nearest(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    picks = {}
    for a, s in zip(axes, scales, strict=True):
        c = source_coords(attrs.coordinate_transformation_mode, out[a], x.shape[a], s)
        idx = _nearest_index(attrs.nearest_mode, c, bool(s < 1.0))
        picks[a] = np.clip(idx, 0, x.shape[a] - 1)
    return _take(x, picks)


def _linear(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    rank = x.ndim
    downsample = any(s < 1.0 for s in scales)
    antialias = downsample and attrs.antialias
    a = [s if antialias else F32(1.0) for s in scales]
    prod_a = F32(1.0)
    for v in a:
        prod_a = F32(prod_a * v)
    radius = [2 if s > 1.0 else math.ceil(F32(2.0) / v) for s, v in zip(scales, a, strict=True)]
    coords = [
        source_coords(attrs.coordinate_transformation_mode, out[ax], x.shape[ax], s)
        for ax, s in zip(axes, scales, strict=True)
    ]
    centres = [c_cast(round_half_away(c), np.dtype(np.int64)) for c in coords]
    xf = x.astype(F32) if x.dtype != F32 else x
    summa = np.zeros(out, F32)
    wsum = np.zeros(out, F32)
    for offsets in np.ndindex(*[2 * r + 1 for r in radius]):
        w = np.full([1] * rank, prod_a, F32)
        valid = np.ones([1] * rank, bool)
        picks = {}
        for i, ax in enumerate(axes):
            inner = offsets[i] + centres[i] - radius[i]
            ok = (inner >= 0) & (inner < x.shape[ax])
            dz = coords[i] - inner.astype(F32)
            tri = np.maximum(F32(0.0), F32(1.0) - np.abs(a[i] * dz))
            w = w * _along(tri.astype(F32), ax, rank)
            valid = valid & _along(ok, ax, rank)
            picks[ax] = np.clip(inner, 0, max(x.shape[ax] - 1, 0))
        vals = _take(xf, picks)
        w = np.broadcast_to(w, out)
        valid = np.broadcast_to(valid, out)
        wsum = np.where(valid, wsum + w, wsum)
        summa = np.where(valid, summa + w * vals, summa)
    res = np.where(wsum == 0, F32(0.0), summa / np.where(wsum == 0, F32(1.0), wsum))
    return _cast_out(res.astype(F32), x.dtype, rounding=True)


def _reference_onnx_axes(rank: int, axes: list[int]) -> bool:
    """The axes the reference's linear_onnx takes (the spec's note): all, or all but the first two."""
    if rank <= 3:
        return rank >= 2 and axes == list(range(rank))
    return axes == list(range(rank)) or axes == list(range(2, rank))


def _onnx_spatial(in_shape: Sequence[int], out: Sequence[int], axes: list[int]) -> list[tuple[int, int]]:
    """(data dim, index into axes/scales) of each axis linear_onnx interpolates.

    The reference views the data as 5-D (leading 1s) and interpolates its last three
    dims, or only the last two when dims 1 and 2 of that view keep their size; the
    k-th interpolated dim takes the coordinate rule of ``axes[k + offset]`` (offset
    ``rank - spatial rank`` when every axis is listed, else 0).
    """
    rank = len(in_shape)
    in5 = [1] * (5 - rank) + list(in_shape)
    out5 = [1] * (5 - rank) + list(out)
    spatial_rank = 2 if in5[1] == out5[1] and in5[2] == out5[2] else 3
    offset = rank - spatial_rank if len(axes) == rank else 0
    return [(rank - spatial_rank + i, i + offset) for i in range(spatial_rank)]


# Output sizes up to which linear_onnx's corners are remembered per geometry (``_corners``:
# 16 geometries of at most 5 arrays of this many values per axis, a few MB at most).
CACHED_CORNERS = 1 << 14


def _onnx_corners(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> tuple[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]:
    """Per axis linear_onnx interpolates: (data axis, low and high source indices, the low
    and the high corner's weights ``|c - hi|`` and ``|c - lo|``, 0.5 each where they meet).
    They depend on the geometry only, so a run of the same shapes reuses them (read-only
    arrays): on a small image they cost more than the interpolation."""
    key = (attrs, x.shape, tuple(axes), tuple(float(s) for s in scales), tuple(out))
    if max(out, default=0) <= CACHED_CORNERS:
        return _corners(*key)
    return _corners.__wrapped__(*key)


@functools.lru_cache(maxsize=16)
def _corners(
    attrs: InterpolateAttrs,
    shape: tuple[int, ...],
    axes_t: tuple[int, ...],
    scales_t: tuple[float, ...],
    out: tuple[int, ...],
) -> tuple[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]:
    rank = len(shape)
    axes, scales = list(axes_t), [F32(s) for s in scales_t]
    if _reference_onnx_axes(rank, axes):
        pairs = _onnx_spatial(shape, out, axes)
    else:
        # Other axes (TensorFlow's ResizeBilinear: [1, 2] of NHWC data): the reference refuses
        # ("Axes are not correct!"), the CPU plugin interpolates each listed axis with its own
        # coordinate rule, the ONNX linear formula along each: what this does.
        pairs = [(ax, k) for k, ax in enumerate(axes)]
    found = []
    for ax, k in pairs:
        if ax < 0:  # a leading dim of the 5-D view that the data does not have: size 1
            continue
        if k >= len(axes):
            raise InputError(f"linear_onnx cannot map data dim {ax} to one of the axes {axes}")
        n = shape[ax]
        ref = axes[k]
        c = source_coords(attrs.coordinate_transformation_mode, out[ref], shape[ref], scales[k], out[ax])
        c = np.maximum(F32(0.0), np.minimum(c, F32(n - 1)))
        lo = np.minimum(c_cast(c, np.dtype(np.int64)), n - 1)
        hi = np.minimum(lo + 1, n - 1)
        d1 = np.abs(c - lo.astype(F32))
        d2 = np.abs(c - hi.astype(F32))
        same = lo == hi
        d1 = np.where(same, F32(0.5), d1).astype(F32)
        d2 = np.where(same, F32(0.5), d2).astype(F32)
        for a in (lo, hi, d2, d1):
            a.setflags(write=False)  # (remembered, shared by the runs of this geometry)
        found.append((ax, lo, hi, d2, d1))
    return tuple(found)


def _linear_onnx(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    rank = x.ndim
    corners = _onnx_corners(attrs, x, axes, scales, out)
    k = len(corners)
    xf = x.astype(F32) if x.dtype != F32 else x
    total = np.zeros(out, F32)
    for i in range(1 << k):
        coeff = np.full([1] * rank, F32(1.0), F32)
        picks = {}
        for j, (ax, lo, hi, w_lo, w_hi) in enumerate(corners):
            upper = bool(i & (1 << (k - 1 - j)))
            coeff = coeff * _along(w_hi if upper else w_lo, ax, rank)
            picks[ax] = hi if upper else lo
        total = total + coeff * _take(xf, picks)
    return _cast_out(total.astype(F32), x.dtype)


def _linear_onnx_separable(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    """Fast linear_onnx of f32 data: one axis at a time (``w_lo x[lo] + w_hi x[hi]``, the last
    axis first while the data is small, then each earlier one as gathers of whole rows), the
    same weights as ``_linear_onnx``; each output a convex combination of its corners, within a
    few f32 roundings of it (tests/test_interpolate_fast.py).  Other data: ``_linear_onnx``."""
    if x.dtype != F32:
        return _linear_onnx(attrs, x, axes, scales, out)
    corners = _onnx_corners(attrs, x, axes, scales, out)
    y = x
    for ax, lo, hi, w_lo, w_hi in sorted(corners, key=lambda c: -c[0]):
        rank = y.ndim
        low = np.take(y, lo, axis=ax)
        low *= _along(w_lo, ax, rank)
        high = np.take(y, hi, axis=ax)
        high *= _along(w_hi, ax, rank)
        low += high
        y = low
    if y.shape != out:  # (an axis the corners left alone: a size-1 dim kept)
        y = np.broadcast_to(y, out).copy()
    return y


def cubic_coeffs(s: np.ndarray, a: np.float32) -> list[np.ndarray]:
    """The reference's ``get_cubic_coeff`` in f32."""
    t = np.abs(s).astype(F32)
    one, two = F32(1.0), F32(2.0)
    c0 = ((a * (t + one) - F32(5) * a) * (t + one) + F32(8) * a) * (t + one) - F32(4) * a
    c1 = ((a + two) * t - (a + F32(3))) * t * t + one
    c2 = ((a + two) * (one - t) - (a + F32(3))) * (one - t) * (one - t) + one
    c3 = ((a * (two - t) - F32(5) * a) * (two - t) + F32(8) * a) * (two - t) - F32(4) * a
    return [c.astype(F32) for c in (c0, c1, c2, c3)]


def _cubic(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    rank = x.ndim
    a = F32(attrs.cube_coeff)
    bases, coeffs = [], []
    for ax, s in zip(axes, scales, strict=True):
        c = source_coords(attrs.coordinate_transformation_mode, out[ax], x.shape[ax], s)
        base = np.floor(c)
        bases.append(c_cast(base, np.dtype(np.int64)))
        coeffs.append([_along(v, ax, rank) for v in cubic_coeffs((c - base).astype(F32), a)])
    xf = x.astype(F32) if x.dtype != F32 else x
    total = np.zeros(out, F32)
    for taps in np.ndindex(*([4] * len(axes))):
        prod = np.full([1] * rank, F32(1.0), F32)
        picks = {}
        for i, ax in enumerate(axes):
            picks[ax] = np.clip(bases[i] + taps[i] - 1, 0, x.shape[ax] - 1)
            prod = prod * coeffs[i][taps[i]]
        total = total + prod * _take(xf, picks)
    return _cast_out(total.astype(F32), x.dtype)


# -- Pillow modes ---------------------------------------------------------------------------------
def _bilinear_filter(v: float, _a: float) -> float:
    v = abs(v)
    return 1.0 - v if v < 1.0 else 0.0


def _bicubic_filter(v: float, a: float) -> float:
    v = abs(v)
    if v < 1.0:
        return ((a + 2.0) * v - (a + 3.0)) * v * v + 1
    if v < 2.0:
        return (((v - 5) * v + 8) * v - 4) * a
    return 0.0


def _pil_coeffs(
    in_size: int, out_size: int, filt: Callable[[float, float], float], support: float, a: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per output position: first source index, tap count, and weights [out, ksize] (Pillow)."""
    scale = float(F32(in_size)) / out_size
    filterscale = max(scale, 1.0)
    support = support * filterscale
    ksize = math.ceil(support) * 2 + 1
    starts = np.zeros(out_size, np.int64)
    counts = np.zeros(out_size, np.int64)
    weights = np.zeros((out_size, ksize), np.float64)
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        ss = 1.0 / filterscale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        ks = [filt((x + xmin - center + 0.5) * ss, a) for x in range(xmax)]
        ww = sum_in_order(ks)
        for x, w in enumerate(ks):
            weights[xx, x] = w / ww if ww != 0.0 else w
        starts[xx], counts[xx] = xmin, max(xmax, 0)
    return starts, counts, weights


def sum_in_order(values: Sequence[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


def _pil_pass(
    x: np.ndarray, axis: int, out_size: int, coeffs: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> np.ndarray:
    starts, counts, weights = coeffs
    n = x.shape[axis]
    ss = np.zeros((*x.shape[:axis], out_size, *x.shape[axis + 1 :]), np.float64)
    xd = x.astype(np.float64)
    for k in range(weights.shape[1]):
        use = counts > k
        src = np.take(xd, np.clip(starts + k, 0, max(n - 1, 0)), axis=axis)
        term = src * _along(weights[:, k], axis, x.ndim)
        ss = np.where(_along(use, axis, x.ndim), ss + term, ss)
    if x.dtype.kind == "f":
        return ss.astype(x.dtype)
    info = np.iinfo(x.dtype)
    rounded = np.where(ss >= 0.0, ss + 0.5, ss - 0.5)
    out: np.ndarray = np.clip(c_cast(rounded, np.dtype(np.int64)), info.min, info.max).astype(x.dtype)
    return out


def _pillow(
    attrs: InterpolateAttrs, x: np.ndarray, axes: list[int], scales: list[np.float32], out: tuple[int, ...]
) -> np.ndarray:
    if len(axes) != 2:
        raise InputError(f"For Pillow based modes exactly two (HW) axes need to be provided, got {axes}")
    bicubic = attrs.mode is Mode.BICUBIC_PILLOW
    filt, support = (_bicubic_filter, 2.0) if bicubic else (_bilinear_filter, 1.0)
    h_axis, w_axis = axes
    y = x.astype(F32) if x.dtype.kind == "f" and x.dtype != F32 else x
    if out[w_axis] != x.shape[w_axis]:
        coeffs = _pil_coeffs(x.shape[w_axis], out[w_axis], filt, support, attrs.cube_coeff)
        y = _pil_pass(y, w_axis, out[w_axis], coeffs)
    if out[h_axis] != x.shape[h_axis]:
        coeffs = _pil_coeffs(x.shape[h_axis], out[h_axis], filt, support, attrs.cube_coeff)
        y = _pil_pass(y, h_axis, out[h_axis], coeffs)
    return y


_KERNELS: dict[Mode, Kernel] = {
    Mode.NEAREST: _nearest,
    Mode.LINEAR: _linear,
    Mode.LINEAR_ONNX: _linear_onnx,
    Mode.CUBIC: _cubic,
    Mode.BILINEAR_PILLOW: _pillow,
    Mode.BICUBIC_PILLOW: _pillow,
}
_FAST_KERNELS: dict[Mode, Kernel] = {**_KERNELS, Mode.LINEAR_ONNX: _linear_onnx_separable}


SPECS = (
    OpSpec(
        type="Interpolate",
        version=1,
        since=1,
        inputs=2,
        parse=parse_interpolate_1,
        infer=infer_interpolate,
        evaluate=evaluate_interpolate,
        specialize=specialize_interpolate,
    ),
    OpSpec(
        type="Interpolate",
        version=4,
        since=4,
        inputs=(3, 4),
        parse=parse_interpolate_4,
        infer=infer_interpolate,
        evaluate=evaluate_interpolate,
        specialize=specialize_interpolate,
    ),
    OpSpec(
        type="Interpolate",
        version=11,
        since=11,
        inputs=(2, 3),
        parse=parse_interpolate_11,
        infer=infer_interpolate,
        evaluate=evaluate_interpolate,
        specialize=specialize_interpolate,
    ),
)
