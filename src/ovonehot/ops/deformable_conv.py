"""DeformableConvolution-1 and -8: 2-D convolution whose taps sample the data at learned offsets.

Inputs: ``data`` ``[N, C_in, H, W]``, ``offsets`` ``[N, DG * 2 * KH * KW, OH, OW]``, ``filters``
``[C_out, C_in / group, KH, KW]`` and (v8 only) an optional ``mask`` ``[N, DG * KH * KW, OH, OW]``;
one real or integer element type for all of them, which the output ``[N, C_out, OH, OW]`` keeps.
Attributes: Convolution's window (``strides``, ``pads_begin``, ``pads_end``, ``dilations``,
``auto_pad``), ``group`` and ``deformable_group`` (>= 1; OpenVINO's IR reader refuses a layer
without them) and (v8) ``bilinear_interpolation_pad`` (default false).

Tap ``k = (ky, kx)`` of output ``(oh, ow)`` samples input channel ``c`` at
``y = oh*stride_y - pad_y + ky*dilation_y + offsets[n, 2*(d*K + k), oh, ow]`` and
``x = ... + offsets[n, 2*(d*K + k) + 1, oh, ow]``, ``d = c // (C_in / DG)`` its deformable group,
bilinearly; the product with the filter weight (and ``mask[n, d*K + k, oh, ow]``) is summed over
the group's channels and taps (``reference/deformable_convolution.hpp``):

* without ``bilinear_interpolation_pad`` a tap samples only where ``0 <= y < H`` and
  ``0 <= x < W``, and the four corners are clamped into the data (a sample past the last row
  or column reads that row or column);
* with it a tap samples where ``-1 < y < H`` and ``-1 < x < W``, and corners outside the data
  read 0 (the data zero-padded by one).

Shapes: ``deformable_convolution_shape_inference.hpp`` (rank 4 everywhere; channels divisible by
the groups; the offsets' and mask's channels, batches and spatial sizes against the filters and
the output).  OpenVINO 2026.4's core has no ``evaluate`` for either version: the oracle is the
CPU plugin.  ovonehot sums in float64 and rounds once (integers: computed in float64 and
summed in int64 and wrapped to the type as the reference's integer sum wraps (the CPU plugin
computes in f32 and saturates): integer offsets put every tap on a whole position, so each
sample is a data value; the reference reads it through f32, which rounds values beyond 2**24); the plugin sums f32
in its own order (tests/test_ops_deformable_conv.py states the tolerance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, int_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.shape_util import mul
from .common.spatial import Window, check_window, pads_for, parse_window, spatial_dims
from .common.spec import OpSpec, TensorInfo

_NAMES = ("Input", "Offsets", "Filters", "Mask")


@dataclass(frozen=True, slots=True)
class DeformableAttrs:
    window: Window
    group: int
    deformable_group: int
    bilinear_interpolation_pad: bool


def parse_deformable_1(node: Node) -> DeformableAttrs:
    return DeformableAttrs(
        parse_window(node), int_attr(node, "group"), int_attr(node, "deformable_group"), False
    )


def parse_deformable_8(node: Node) -> DeformableAttrs:
    return DeformableAttrs(
        parse_window(node),
        int_attr(node, "group"),
        int_attr(node, "deformable_group"),
        bool_attr(node, "bilinear_interpolation_pad", False),
    )


# -- shape inference -----------------------------------------------------------------------------
def _divisible(d: Dimension, n: int) -> bool:
    """Some length ``d`` allows is a multiple of ``n``."""
    if d.max is None:
        return True
    return -(-d.min // n) * n <= d.max


def _element_type(inputs: Sequence[TensorInfo]) -> ElementType:
    et = ElementType.dynamic
    for info in inputs:
        merged = et.merge(info.element_type)
        if merged is None:
            types = ", ".join(f"{_NAMES[k].lower()} ({t.element_type})" for k, t in enumerate(inputs))
            raise ValidationError(f"Element types of inputs do not match. Got: {types}")
        et = merged
    if et is ElementType.boolean or not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Element type of inputs must be numeric. Got: {et}")
    return et


def infer_deformable(attrs: DeformableAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    et = _element_type(inputs)
    shapes = [i.shape for i in inputs]
    if not any(s.rank_is_static for s in shapes[:3]):
        return [TensorInfo(et, PartialShape.dynamic())]
    for name, shape in zip(_NAMES, shapes, strict=False):
        if shape.rank_is_static and shape.rank != 4:
            raise ValidationError(f"{name} must be of rank 4. Got: {shape.rank}")
    for name, value in (("group", attrs.group), ("deformable group", attrs.deformable_group)):
        if value < 1:
            raise ValidationError(f"Attribute '{name}' must be any value starting from 1. Got: {value}")
    check_window(attrs.window, 2, None)
    data, offsets, filters = (s if s.rank_is_static else PartialShape((Dimension(),) * 4) for s in shapes[:3])
    kernel = mul(filters[2], filters[3])
    _check_channels(attrs, data, filters, shapes[2].rank_is_static)
    batch = data[0]
    if shapes[1].rank_is_static:
        _check_grouped(
            offsets[1], mul(kernel, Dimension.static(2 * attrs.deformable_group)), "offsets", attrs
        )
        merged = batch.merge(offsets[0])
        if merged is None:
            raise ValidationError(
                f"Data batch and offsets batch dimension must be same value. Got: {data[0]} and {offsets[0]}"
            )
        batch = merged
    mask = shapes[3] if len(shapes) == 4 else None
    if mask is not None and mask.rank_is_static:
        _check_mask(attrs, mask, data[0], kernel)
    spatial = spatial_dims(attrs.window, tuple(data)[2:], tuple(filters)[2:])
    out = PartialShape((batch, filters[0], *spatial))
    _check_spatial(out, (("offsets", shapes[1]), ("mask", mask)))
    return [TensorInfo(et, out)]


def _check_mask(attrs: DeformableAttrs, mask: PartialShape, batch: Dimension, kernel: Dimension) -> None:
    _check_grouped(mask[1], mul(kernel, Dimension.static(attrs.deformable_group)), "mask", attrs)
    if not mask[0].compatible(batch):
        raise ValidationError(
            f"Data batch and mask batch dimension must be same value. Got: {mask[0]} and {batch}"
        )


def _check_spatial(out: PartialShape, others: Sequence[tuple[str, PartialShape | None]]) -> None:
    for name, shape in others:
        if shape is None or not shape.rank_is_static:
            continue
        if not all(a.compatible(b) for a, b in zip(tuple(out)[2:], tuple(shape)[2:], strict=True)):
            raise ValidationError(
                f"Spatial dimensions of {name} and output must be compatible: {shape} and {out}"
            )


def _check_channels(attrs: DeformableAttrs, data: PartialShape, filters: PartialShape, known: bool) -> None:
    if not _divisible(data[1], attrs.group):
        raise ValidationError(
            f"Input channels dimension ({data[1]}) must be evenly divisible by the 'group': {attrs.group}"
        )
    if not known:
        return
    if not _divisible(filters[0], attrs.group):
        raise ValidationError(
            f"Filters channels dimension ({filters[0]}) must be evenly divisible by the 'group': {attrs.group}"
        )
    expected = mul(filters[1], Dimension.static(attrs.group))
    if not data[1].compatible(expected):
        raise ValidationError(
            f"Data batch channel count ({data[1]}) does not match filter input channel count ({expected})"
        )


def _check_grouped(channels: Dimension, expected: Dimension, name: str, attrs: DeformableAttrs) -> None:
    if not channels.compatible(expected):
        raise ValidationError(
            f"The channels dimension of {name} input ({channels}) is not compatible with filters and "
            f"'deformable group' attribute ({attrs.deformable_group}): expected {expected}"
        )
    if not _divisible(channels, attrs.deformable_group):
        raise ValidationError(
            f"{name.capitalize()} channels dimension ({channels}) must be evenly divisible by the "
            f"'deformable group': {attrs.deformable_group}"
        )


# -- the kernel ----------------------------------------------------------------------------------
def _check_runtime(attrs: DeformableAttrs, arrays: Sequence[np.ndarray]) -> None:
    infos = [TensorInfo(ElementType.from_numpy(a.dtype), PartialShape.of(a.shape)) for a in arrays]
    try:
        (out,) = infer_deformable(attrs, infos)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    if not out.shape.is_static:
        raise InputError(
            f"DeformableConvolution inputs of shapes {[list(a.shape) for a in arrays]} do not fit"
        )


def _positions(attrs: DeformableAttrs, x: np.ndarray, w: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Every tap's sampling rows and columns: [2, N, DG, K, OH, OW] (float64)."""
    n, _, oh, ow = off.shape
    kh, kw = w.shape[2:]
    s, d = attrs.window.strides, attrs.window.dilations
    begin, _ = pads_for(attrs.window, x.shape[2:], [kh, kw])
    tap_rows = np.repeat(np.arange(kh), kw) * d[0]  # tap k = (k // KW, k % KW)
    tap_cols = np.tile(np.arange(kw), kh) * d[1]
    # the undeformed positions: rows [K, OH, 1], columns [K, 1, OW]
    rows = (np.arange(oh) * s[0] - begin[0])[None, :, None] + tap_rows[:, None, None]
    cols = (np.arange(ow) * s[1] - begin[1])[None, None, :] + tap_cols[:, None, None]
    shifts = widen(off).astype(np.float64).reshape(n, attrs.deformable_group, kh * kw, 2, oh, ow)
    return np.stack([rows + shifts[:, :, :, 0], cols + shifts[:, :, :, 1]])


def _sample(x: np.ndarray, y: np.ndarray, xs: np.ndarray, groups: int, pad: bool) -> np.ndarray:
    """Bilinear samples of every channel at its deformable group's positions: [N, C, K, OH, OW]."""
    n, c, h, w = x.shape
    per = c // groups
    if pad:
        inside = (y > -1) & (y < h) & (xs > -1) & (xs < w)
        y1, x1 = np.floor(y), np.floor(xs)
        y2, x2 = y1 + 1, x1 + 1
    else:
        inside = (y >= 0) & (y < h) & (xs >= 0) & (xs < w)
        y1, x1 = np.maximum(np.floor(y), 0), np.maximum(np.floor(xs), 0)
        y2, x2 = np.minimum(np.ceil(y), h - 1), np.minimum(np.ceil(xs), w - 1)
    dy, dx = y - y1, xs - x1
    data = widen(x).astype(np.float64).reshape(n, groups, per, h * w)
    if data.size == 0 or y.size == 0:
        return np.zeros((n, c, *y.shape[2:]))
    total = np.zeros((n, groups, per, *y.shape[2:]))
    for yy, xx, weight in ((y1, x1, (1 - dx) * (1 - dy)), (y2, x1, (1 - dx) * dy), (y1, x2, dx * (1 - dy)),
                           (y2, x2, dx * dy)):  # fmt: skip
        valid = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        flat = np.where(valid, np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1), 0).astype(np.int64)
        picked = np.take_along_axis(data, flat.reshape(n, groups, 1, flat[0, 0].size), axis=3).reshape(
            total.shape
        )
        total += np.where(valid, weight, 0.0)[:, :, None] * picked
    return total.reshape(n, c, *y.shape[2:])


def evaluate_deformable(attrs: DeformableAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    _check_runtime(attrs, arrays)
    x, off, w = arrays[:3]
    n = x.shape[0]
    oh, ow = off.shape[2:]
    kk = w.shape[2] * w.shape[3]
    with quiet():
        y, xs = _positions(attrs, x, w, off)
        sampled = _sample(
            x, y, xs, attrs.deformable_group, attrs.bilinear_interpolation_pad
        )  # [N, C, K, OH, OW]
        if len(arrays) == 4:
            mask = widen(arrays[3]).astype(np.float64).reshape(n, attrs.deformable_group, 1, kk, oh, ow)
            per = x.shape[1] // attrs.deformable_group
            sampled = (sampled.reshape(n, attrs.deformable_group, per, kk, oh, ow) * mask).reshape(
                sampled.shape
            )
        return [_contract(attrs.group, w, sampled, x.dtype)]


def _contract(groups: int, w: np.ndarray, sampled: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Each output channel's sum over its group's channels and taps: [N, C_out, OH, OW].

    Floats in float64, rounded once; integers (whose taps sit on whole positions, so every
    sample is a data value) in int64 with wrap-around, as the reference's integer sum wraps."""
    n, c_in, kk, oh, ow = sampled.shape
    c_out = w.shape[0]
    taps = c_in // groups * kk
    acc = np.float64 if is_float(dtype) else np.int64
    weights = widen(w).astype(acc).reshape(groups, c_out // groups, taps)  # [G, C_out/G, C_in/G * K]
    cols = sampled.astype(acc).reshape(n, groups, taps, oh * ow)  # [N, G, C_in/G * K, OH*OW]
    out: np.ndarray = np.einsum("gok,ngkp->ngop", weights, cols).reshape(n, c_out, oh, ow)
    if is_float(dtype):
        return narrow(out if dtype == np.float64 else out.astype(np.float32), dtype)
    return out.astype(dtype)


SPECS = (
    OpSpec(
        type="DeformableConvolution",
        version=1,
        since=1,
        inputs=3,
        parse=parse_deformable_1,
        infer=infer_deformable,
        evaluate=evaluate_deformable,
        foldable=False,  # (OpenVINO has no evaluate for it: nothing folds through it)
    ),
    OpSpec(
        type="DeformableConvolution",
        version=8,
        since=8,
        inputs=(3, 4),
        parse=parse_deformable_8,
        infer=infer_deformable,
        evaluate=evaluate_deformable,
        foldable=False,  # (OpenVINO has no evaluate for it: nothing folds through it)
    ),
)
