"""PSROIPooling-0 and DeformablePSROIPooling-1: R-FCN's position-sensitive region pooling.

Inputs: feature maps ``[N, C, H, W]``, ROIs ``[R, 5]`` (``batch_id, x1, y1, x2, y2``) and, for
the deformable op, optional offsets ``[R, 2 * classes, part_size, part_size]``.  Output
``[R, output_dim, group_size, group_size]`` (``psroi_pooling_shape_inference.hpp``,
``deformable_psroi_pooling_shape_inference.hpp``: their checks and messages; PSROIPooling takes
real types only and C must be ``output_dim * group_size**2`` (average) or ``output_dim *
spatial_bins_x * spatial_bins_y`` (bilinear); the deformable op checks no types).

Values as the CPU plugin computes them (``nodes/psroi_pooling.cpp``, in f32; the core ops have
no ``evaluate`` and the reference, ``reference/psroi_pooling.hpp``, differs: it casts negative
bin starts to size_t):

* ``average``: the box ``round(x1) * scale .. round(x2 + 1) * scale`` (at least 0.1 wide), bin
  ``(ph, pw)`` the rows ``floor(ph * bin_h + y1) .. ceil((ph + 1) * bin_h + y1)`` clipped to the
  map, averaged (summed in row order) over channel ``(c * G + ph) * G + pw``; an empty bin is 0.
* ``bilinear``: for each of the ``bins_y * bins_x`` sub-boxes, one point (at ``ph * scale_h +
  y_min * (H - 1)``, or the sub-box centre with one bin) of channel ``c + bin * output_dim``,
  interpolated (``top + (bottom - top) * dy``) when inside the map; the sum over all sub-boxes
  divided by their number.
* ``bilinear_deformable``: the box ``round(x1) * scale - 0.5 .. (round(x2) + 1) * scale - 0.5``,
  each bin shifted by its part's offset times ``trans_std`` and the box size, the mean of its
  ``bins_y * bins_x`` samples that fall inside the map (clamped to it, interpolated).

A batch id of -1 ends the ROIs (the rest of the output is zeros), as Proposal's marker row
leaves them; another id outside ``[0, N)`` is refused.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import float_attr, int_attr, str_attr
from .common.numeric import is_float, narrow, quiet, round_half_away, widen
from .common.spec import OpSpec, TensorInfo
from .roi_align import refuse_non_finite

F = np.float32


@dataclass(frozen=True, slots=True)
class PSROIAttrs:
    output_dim: int
    group_size: int
    spatial_scale: float
    spatial_bins_x: int
    spatial_bins_y: int
    mode: str
    trans_std: float = 1.0
    part_size: int = 1


def _parse(node: Node, mode: str) -> PSROIAttrs:
    """The attributes both ops share (``mode``: the op's default mode)."""
    return PSROIAttrs(
        output_dim=int_attr(node, "output_dim"),
        group_size=int_attr(node, "group_size", 1),
        spatial_scale=float(F(float_attr(node, "spatial_scale"))),
        spatial_bins_x=int_attr(node, "spatial_bins_x", 1),
        spatial_bins_y=int_attr(node, "spatial_bins_y", 1),
        mode=str_attr(node, "mode", mode),
    )


def parse_psroi_pooling(node: Node) -> PSROIAttrs:
    return _parse(node, "average")


def parse_deformable(node: Node) -> PSROIAttrs:
    return dataclasses.replace(
        _parse(node, "bilinear_deformable"),
        trans_std=float(F(float_attr(node, "trans_std", 1.0))),
        part_size=int_attr(node, "part_size", 1),
    )


def _out(attrs: PSROIAttrs, rois: PartialShape, et: ElementType) -> list[TensorInfo]:
    g = Dimension.static(attrs.group_size)
    num = rois[0] if rois.rank_is_static else Dimension()
    return [TensorInfo(et, PartialShape((num, Dimension.static(attrs.output_dim), g, g)))]


def _check_attrs(attrs: PSROIAttrs) -> None:
    if attrs.mode not in ("average", "bilinear"):
        raise ValidationError(f"Expected 'average' or 'bilinear' mode. Got {attrs.mode}")
    if attrs.group_size <= 0:
        raise ValidationError("group_size has to be greater than 0")
    if attrs.mode == "bilinear":
        for name, bins in (
            ("spatial_bins_x", attrs.spatial_bins_x),
            ("spatial_bins_y", attrs.spatial_bins_y),
        ):
            if bins <= 0:
                raise ValidationError(f"{name} has to be greater than 0")
    scale = attrs.spatial_scale
    if not (math.isfinite(scale) and scale >= np.finfo(F).tiny):
        raise ValidationError(
            f"The spatial scale attribute should be a positive floating point number. Got: {scale:g}"
        )


def infer_psroi_pooling(attrs: PSROIAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    feat, rois = inputs
    if not feat.element_type.is_real:
        raise ValidationError(f"Feature maps' data type must be floating point. Got {feat.element_type}")
    if not rois.element_type.is_real:
        raise ValidationError(f"Coords' data type must be floating point. Got {rois.element_type}")
    _check_attrs(attrs)
    if feat.shape.rank_is_static:
        if feat.shape.rank != 4:
            raise ValidationError(f"Expected a 4D tensor for the feature maps input. Got: {feat.shape}")
        if attrs.mode == "average":
            need, what = attrs.group_size**2, "group_size * group_size"
        else:
            need, what = attrs.spatial_bins_x * attrs.spatial_bins_y, "spatial_bins_x * spatial_bins_y"
        if not feat.shape[1].compatible(Dimension.static(need * attrs.output_dim)):
            raise ValidationError(f"Number of input's channels must be a multiply of output_dim * {what}")
    if rois.shape.rank_is_static:
        if rois.shape.rank != 2:
            raise ValidationError(
                f"Expected a 2D tensor for the ROIs input with box coordinates. Got: {rois.shape}"
            )
        if not rois.shape[1].compatible(Dimension.static(5)):
            raise ValidationError(
                "The second dimension of ROIs input should contain batch id and box coordinates. This dimension "
                f"is expected to be equal to 5. Got: {rois.shape[1]}"
            )
    return _out(attrs, rois.shape, feat.element_type)


def infer_deformable(attrs: PSROIAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    feat, rois = inputs[0].shape, inputs[1].shape
    if feat.rank_is_static and feat.rank != 4:
        raise ValidationError(f"First input rank must be compatible with 4 (input rank: {feat.rank})")
    if rois.rank_is_static and rois.rank != 2:
        raise ValidationError(f"Second input rank must be compatible with 2 (input rank: {rois.rank})")
    if len(inputs) == 3 and inputs[2].shape.rank_is_static and inputs[2].shape.rank != 4:
        raise ValidationError(
            f"Third input rank must be compatible with 4 (input rank: {inputs[2].shape.rank})"
        )
    if attrs.output_dim <= 0:
        raise ValidationError("Value of `output_dim` attribute has to be greater than 0")
    if attrs.group_size <= 0:
        raise ValidationError("Value of `group_size` attribute has to be greater than 0")
    return _out(attrs, rois, inputs[0].element_type)


# -- values ---------------------------------------------------------------------------------
def _rounded(x: np.floating) -> np.float32:
    value: np.float32 = F(round_half_away(np.asarray(x, F)))
    return value


def _average(attrs: PSROIAttrs, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
    """One ROI's ``[output_dim, G, G]`` bins of ``fmap`` ``[C, H, W]`` (f32)."""
    _, height, width = fmap.shape
    g, scale = attrs.group_size, F(attrs.spatial_scale)
    x1, y1 = _rounded(box[1]) * scale, _rounded(box[2]) * scale
    x2, y2 = _rounded(box[3] + F(1)) * scale, _rounded(box[4] + F(1)) * scale
    roi_w, roi_h = max(x2 - x1, F(0.1)), max(y2 - y1, F(0.1))
    bin_h, bin_w = roi_h / F(g), roi_w / F(g)
    out = np.zeros((attrs.output_dim, g, g), F)
    channels = np.arange(attrs.output_dim) * g * g
    for ph in range(g):
        h0 = min(max(math.floor(F(ph) * bin_h + y1), 0), height)
        h1 = min(max(math.ceil(F(ph + 1) * bin_h + y1), 0), height)
        for pw in range(g):
            w0 = min(max(math.floor(F(pw) * bin_w + x1), 0), width)
            w1 = min(max(math.ceil(F(pw + 1) * bin_w + x1), 0), width)
            if h1 <= h0 or w1 <= w0:
                continue
            plane = fmap[channels + ph * g + pw]
            acc = np.zeros(attrs.output_dim, F)
            for hh in range(h0, h1):
                for ww in range(w0, w1):
                    acc = acc + plane[:, hh, ww]
            out[:, ph, pw] = acc / F((h1 - h0) * (w1 - w0))
    return out


def _axis_point(p: int, pooled: int, lo: np.float32, hi: np.float32, size: int) -> np.float32:
    """Where bilinear PSROIPooling samples sub-box ``[lo, hi]`` for output index ``p``."""
    if pooled > 1:
        scale = (hi - lo) * F(size - 1) / F(pooled - 1)
        point: np.float32 = F(F(p) * scale + lo * F(size - 1))
        return point
    centre: np.float32 = F(F(0.5) * (lo + hi) * F(size - 1))
    return centre


def _bilinear(attrs: PSROIAttrs, fmap: np.ndarray, box: np.ndarray) -> np.ndarray:
    _, height, width = fmap.shape
    g, d, scale = attrs.group_size, attrs.output_dim, F(attrs.spatial_scale)
    bx, by = attrs.spatial_bins_x, attrs.spatial_bins_y
    x1, y1, x2, y2 = (F(box[k]) * scale for k in range(1, 5))
    roi_w, roi_h = x2 - x1, y2 - y1
    out = np.zeros((d, g, g), F)
    for ph in range(g):
        for pw in range(g):
            acc = np.zeros(d, F)
            for sy in range(by):
                ylo, yhi = y1 + F(sy) * (roi_h / F(by)), y1 + F(sy + 1) * (roi_h / F(by))
                y = _axis_point(ph, g, ylo, yhi, height)
                for sx in range(bx):
                    xlo, xhi = x1 + F(sx) * (roi_w / F(bx)), x1 + F(sx + 1) * (roi_w / F(bx))
                    x = _axis_point(pw, g, xlo, xhi, width)
                    if not (0 <= y <= F(height - 1) and 0 <= x <= F(width - 1)):
                        continue
                    top_i, left_i = math.floor(y), math.floor(x)
                    bottom_i, right_i = min(math.ceil(y), height - 1), min(math.ceil(x), width - 1)
                    plane = fmap[np.arange(d) + (sy * bx + sx) * d]
                    dx, dy = x - F(left_i), y - F(top_i)
                    top = plane[:, top_i, left_i] + (plane[:, top_i, right_i] - plane[:, top_i, left_i]) * dx
                    bottom = (
                        plane[:, bottom_i, left_i]
                        + (plane[:, bottom_i, right_i] - plane[:, bottom_i, left_i]) * dx
                    )
                    acc = acc + (top + (bottom - top) * dy)
            out[:, ph, pw] = acc / F(bx * by)
    return out


def _interpolate(plane: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The plugin's ``bilinearInterp`` of per-channel points (``plane`` ``[K, H, W]``)."""
    x1, x2 = np.floor(x).astype(np.int64), np.ceil(x).astype(np.int64)
    y1, y2 = np.floor(y).astype(np.int64), np.ceil(y).astype(np.int64)
    dx, dy = x - x1.astype(F), y - y1.astype(F)
    k = np.arange(len(plane))
    one = F(1)
    value: np.ndarray = (
        (one - dx) * (one - dy) * plane[k, y1, x1]
        + (one - dx) * dy * plane[k, y2, x1]
        + dx * (one - dy) * plane[k, y1, x2]
        + dx * dy * plane[k, y2, x2]
    )
    return value


def _deformable_box(
    attrs: PSROIAttrs, box: np.ndarray
) -> tuple[np.float32, np.float32, np.float32, np.float32]:
    scale, half = F(attrs.spatial_scale), F(0.5)
    x1, y1 = _rounded(box[1]) * scale - half, _rounded(box[2]) * scale - half
    x2, y2 = (_rounded(box[3]) + F(1)) * scale - half, (_rounded(box[4]) + F(1)) * scale - half
    return x1, y1, max(x2 - x1, F(0.1)), max(y2 - y1, F(0.1))


def _deformable(attrs: PSROIAttrs, fmap: np.ndarray, box: np.ndarray, trans: np.ndarray | None) -> np.ndarray:
    """One ROI of DeformablePSROIPooling; ``trans``: its offsets ``[classes, 2, part, part]``."""
    _, height, width = fmap.shape
    g, d, part = attrs.group_size, attrs.output_dim, attrs.part_size
    x1, y1, roi_w, roi_h = _deformable_box(attrs, box)
    bin_h, bin_w = roi_h / F(g), roi_w / F(g)
    sub_h, sub_w = bin_h / F(attrs.spatial_bins_y), bin_w / F(attrs.spatial_bins_x)
    classes = 1 if trans is None else trans.shape[0]
    cls = np.arange(d) // (d // classes)
    out = np.zeros((d, g, g), F)
    for h in range(g):
        for w in range(g):
            if trans is None:
                tx = ty = np.zeros(d, F)
            else:
                tx = trans[cls, 0, h * part // g, w * part // g] * F(attrs.trans_std)
                ty = trans[cls, 1, h * part // g, w * part // g] * F(attrs.trans_std)
            w_start = F(w) * bin_w + x1 + tx * roi_w
            h_start = F(h) * bin_h + y1 + ty * roi_h
            plane = fmap[(np.arange(d) * g + h) * g + w]
            total, count = np.zeros(d, F), np.zeros(d, np.int64)
            for ih in range(attrs.spatial_bins_y):
                for iw in range(attrs.spatial_bins_x):
                    px, py = w_start + F(iw) * sub_w, h_start + F(ih) * sub_h
                    inside = (px >= -0.5) & (px <= width - 0.5) & (py >= -0.5) & (py <= height - 0.5)
                    px, py = np.clip(px, 0, width - 1).astype(F), np.clip(py, 0, height - 1).astype(F)
                    val = _interpolate(
                        plane, np.where(inside, px, 0).astype(F), np.where(inside, py, 0).astype(F)
                    )
                    total = np.where(inside, total + val, total)
                    count += inside
            out[:, h, w] = np.where(count > 0, total / np.maximum(count, 1).astype(F), F(0))
    return out


def _run(
    inputs: Sequence[np.ndarray],
    out_channels: int,
    g: int,
    pool: Callable[[np.ndarray, np.ndarray, int], np.ndarray],
) -> list[np.ndarray]:
    feat, rois = np.asarray(inputs[0]), np.asarray(inputs[1])
    if feat.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise InputError(
            f"feature maps {list(feat.shape)} and ROIs {list(rois.shape)} do not fit [N,C,H,W], [R,5]"
        )
    maps, boxes = widen(feat).astype(F), widen(rois).astype(F)
    out = np.zeros((rois.shape[0], out_channels, g, g), F)
    with quiet():
        for r, box in enumerate(boxes):
            if not np.isfinite(box[0]):
                raise InputError(f"ROI {r} has batch id {box[0]}")
            batch = int(box[0])  # (truncated, as the plugin's int cast)
            if batch == -1:
                break  # the end of the ROIs
            if not 0 <= batch < feat.shape[0]:
                raise InputError(f"ROI batch id must be in the range of [0, N-1], got {batch}")
            out[r] = pool(maps[batch], box, r)
    return [narrow(out, feat.dtype) if is_float(feat.dtype) else _to_int(out, feat.dtype)]


def _to_int(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float result in an integer data type (the CPU plugin converts with rounding)."""
    out: np.ndarray = round_half_away(x).astype(dtype) if dtype != np.bool_ else x != 0
    return out


def evaluate_psroi_pooling(attrs: PSROIAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    feat = np.asarray(inputs[0])
    need = attrs.group_size**2 if attrs.mode == "average" else attrs.spatial_bins_x * attrs.spatial_bins_y
    if feat.ndim != 4 or feat.shape[1] != need * attrs.output_dim:
        raise InputError(
            f"PSROIPooling needs {need * attrs.output_dim} channels, got feature maps {list(feat.shape)}"
        )
    if attrs.mode == "average":  # (bilinear mode computes with them: NaN in, NaN out)
        refuse_non_finite(widen(np.asarray(inputs[1])).astype(F), "integer bin bounds")
    pool = _average if attrs.mode == "average" else _bilinear
    return _run(inputs, attrs.output_dim, attrs.group_size, lambda fmap, box, _r: pool(attrs, fmap, box))


def evaluate_deformable(attrs: PSROIAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    feat = np.asarray(inputs[0])
    g, d = attrs.group_size, attrs.output_dim
    if feat.ndim != 4 or feat.shape[1] < d * g * g:
        raise InputError(
            f"DeformablePSROIPooling needs {d * g * g} channels, got feature maps {list(feat.shape)}"
        )
    trans: np.ndarray | None = None
    if len(inputs) == 3:
        offsets = widen(np.asarray(inputs[2])).astype(F)
        num = np.asarray(inputs[1]).shape[0]
        classes = offsets.shape[1] // 2 if offsets.ndim == 4 else 0
        size = num * classes * 2 * attrs.part_size**2
        if offsets.ndim != 4 or classes == 0 or d % classes or offsets.size < size:
            raise InputError(
                f"DeformablePSROIPooling offsets {list(offsets.shape)} do not fit {num} ROIs of parts "
                f"{attrs.part_size}x{attrs.part_size} and {d} output channels"
            )
        trans = offsets.reshape(-1)[:size].reshape(num, classes, 2, attrs.part_size, attrs.part_size)
    return _run(
        inputs, d, g, lambda fmap, box, r: _deformable(attrs, fmap, box, None if trans is None else trans[r])
    )


SPECS = (
    OpSpec(
        type="PSROIPooling",
        version=0,
        since=1,
        inputs=2,
        parse=parse_psroi_pooling,
        infer=infer_psroi_pooling,
        evaluate=evaluate_psroi_pooling,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
    OpSpec(
        type="DeformablePSROIPooling",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_deformable,
        infer=infer_deformable,
        evaluate=evaluate_deformable,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
