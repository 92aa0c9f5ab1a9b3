"""ROIPooling-2: Fast R-CNN region pooling, ``max`` over integer bins or ``bilinear`` sampling.

Inputs: feature maps ``[N, C, H, W]`` and ROIs ``[num_rois, 5]`` (``batch_id, x1, y1, x2, y2``),
both of one real type.  Attributes ``pooled_h``/``pooled_w`` (IR ``output_size``), ``spatial_scale``
and ``method`` (``max`` or ``bilinear``).  Output ``[num_rois, C, pooled_h, pooled_w]``.

Values (``reference/roi_pooling.hpp``), in the data type:

* ``max``: the box scaled by ``spatial_scale`` and rounded half away from zero; its height and
  width ``end - start + 1`` (at least 1); bin ``ph`` covers rows ``floor(ph * h / pooled_h)`` to
  ``ceil((ph + 1) * h / pooled_h)`` (``h / pooled_h`` computed once in the data type) offset by
  the start and clipped to the map; an empty bin is 0, else the largest value.
* ``bilinear``: normalized coordinates; sample ``ph`` at ``y1 * (H-1) + ph * (y2-y1) * (H-1) /
  (pooled_h-1)`` (the last at ``y2 * (H-1)``; with one bin ``0.5 * (y1+y2) * (H-1)`` in double),
  interpolated from the four neighbours (``top + (bottom - top) * dy``); a sample outside the
  map is 0.

A batch id outside ``[0, N)`` is an error.  f16/bf16 maps are computed in f32 and rounded once
(the CPU plugin's precision).  The core op has no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import enum_attr, float_attr, int_attr, ints_attr
from .common.numeric import narrow, quiet, round_half_away, widen
from .common.spec import OpSpec, TensorInfo
from .roi_align import refuse_non_finite


class PoolMethod(enum.Enum):
    MAX = "max"
    BILINEAR = "bilinear"


@dataclass(frozen=True, slots=True)
class ROIPoolingAttrs:
    pooled_h: int
    pooled_w: int
    spatial_scale: float
    method: PoolMethod = PoolMethod.MAX


def parse_roi_pooling(node: Node) -> ROIPoolingAttrs:
    size = ints_attr(node, "output_size", ())
    h = int_attr(node, "pooled_h", size[0] if len(size) == 2 else None)
    w = int_attr(node, "pooled_w", size[1] if len(size) == 2 else None)
    if h is None or w is None:
        raise ValidationError(f"{node.describe()}: missing pooled_h/pooled_w (or output_size)")
    scale = float(np.float32(float_attr(node, "spatial_scale")))  # an f32 attribute
    return ROIPoolingAttrs(h, w, scale, enum_attr(node, "method", PoolMethod, PoolMethod.MAX))


def infer_roi_pooling(attrs: ROIPoolingAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    feat, rois = inputs
    et = feat.element_type.merge(rois.element_type)
    if et is None or not (et.is_real or et.is_dynamic):
        raise ValidationError(
            f"The data type for input and ROIs is expected to be a floating point type. Got: {feat.element_type} "
            f"and: {rois.element_type}"
        )
    if feat.shape.rank_is_static and feat.shape.rank != 4:
        raise ValidationError(f"Expected a 4D tensor for the feature maps input. Got: {feat.shape}")
    if rois.shape.rank_is_static and rois.shape.rank != 2:
        raise ValidationError(
            f"Expected a 2D tensor for the ROIs input with box coordinates. Got: {rois.shape}"
        )
    if rois.shape.rank_is_static and not rois.shape[1].contains(5):
        raise ValidationError(
            "The second dimension of ROIs input should contain batch id and box coordinates. This dimension is "
            f"expected to be equal to 5. Got: {rois.shape[1]}"
        )
    if attrs.pooled_h <= 0 or attrs.pooled_w <= 0:
        raise ValidationError(f"Output ROI sizes must be positive. Got: {attrs.pooled_h}, {attrs.pooled_w}")
    if not attrs.spatial_scale > 0:
        raise ValidationError(
            f"The spatial scale attribute should be a positive floating point number. Got: {attrs.spatial_scale}"
        )
    num = rois.shape[0] if rois.shape.rank_is_static else Dimension()
    channels = feat.shape[1] if feat.shape.rank_is_static else Dimension()
    out = (num, channels, Dimension.static(attrs.pooled_h), Dimension.static(attrs.pooled_w))
    return [TensorInfo(et, PartialShape(out))]


def _max_roi(attrs: ROIPoolingAttrs, fmap: np.ndarray, box: np.ndarray, t: type) -> np.ndarray:
    c, height, width = fmap.shape
    scaled = [int(round_half_away(np.asarray(box[k] * t(attrs.spatial_scale)))) for k in range(1, 5)]
    x1, y1, x2, y2 = scaled
    roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
    bin_h, bin_w = t(roi_h) / t(attrs.pooled_h), t(roi_w) / t(attrs.pooled_w)
    out = np.zeros((c, attrs.pooled_h, attrs.pooled_w), fmap.dtype)
    for ph in range(attrs.pooled_h):
        h0 = min(max(math.floor(t(ph) * bin_h) + y1, 0), height)
        h1 = min(max(math.ceil(t(ph + 1) * bin_h) + y1, 0), height)
        for pw in range(attrs.pooled_w):
            w0 = min(max(math.floor(t(pw) * bin_w) + x1, 0), width)
            w1 = min(max(math.ceil(t(pw + 1) * bin_w) + x1, 0), width)
            if h1 > h0 and w1 > w0:
                out[:, ph, pw] = fmap[:, h0:h1, w0:w1].max(axis=(1, 2))
    return out


def _sample_coords(lo: np.floating, hi: np.floating, size: int, pooled: int, t: type) -> list[np.floating]:
    if pooled == 1:
        return [t(0.5 * (float(lo) + float(hi)) * (size - 1))]
    extent = (hi - lo) * t(size - 1)
    scale = extent / t(pooled - 1)
    return [
        t(t(p) * scale + lo * t(size - 1)) if p < pooled - 1 else t(t(size - 1) * hi) for p in range(pooled)
    ]


def _bilinear_roi(attrs: ROIPoolingAttrs, fmap: np.ndarray, box: np.ndarray, t: type) -> np.ndarray:
    c, height, width = fmap.shape
    ys = _sample_coords(box[2], box[4], height, attrs.pooled_h, t)
    xs = _sample_coords(box[1], box[3], width, attrs.pooled_w, t)
    out = np.zeros((c, attrs.pooled_h, attrs.pooled_w), fmap.dtype)
    for ph, y in enumerate(ys):
        for pw, x in enumerate(xs):
            if y < 0 or y > t(height - 1) or x < 0 or x > t(width - 1):
                continue
            top_i, left_i = math.floor(y), math.floor(x)
            bottom_i, right_i = min(math.ceil(y), height - 1), min(math.ceil(x), width - 1)
            tl, tr = fmap[:, top_i, left_i], fmap[:, top_i, right_i]
            bl, br = fmap[:, bottom_i, left_i], fmap[:, bottom_i, right_i]
            dx, dy = t(x - t(left_i)), t(y - t(top_i))
            top = tl + (tr - tl) * dx
            bottom = bl + (br - bl) * dx
            out[:, ph, pw] = top + (bottom - top) * dy
    return out


def evaluate_roi_pooling(attrs: ROIPoolingAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    feat, rois = np.asarray(inputs[0]), np.asarray(inputs[1])
    if feat.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise InputError(
            f"feature maps {list(feat.shape)} and ROIs {list(rois.shape)} do not fit [N,C,H,W], [R,5]"
        )
    dtype = np.dtype(np.float64) if feat.dtype == np.float64 else np.dtype(np.float32)
    t = dtype.type
    maps, boxes = widen(feat).astype(dtype), widen(rois).astype(dtype)
    refuse_non_finite(boxes, "an integer batch index and bin bounds")
    out = np.zeros((rois.shape[0], feat.shape[1], attrs.pooled_h, attrs.pooled_w), dtype)
    with quiet():
        for r, box in enumerate(boxes):
            batch = int(box[0])
            if not 0 <= batch < feat.shape[0]:
                raise InputError(f"ROI batch id must be in the range of [0, N-1], got {batch}")
            pool = _max_roi if attrs.method is PoolMethod.MAX else _bilinear_roi
            out[r] = pool(attrs, maps[batch], box, t)
    return [narrow(out, feat.dtype)]


SPECS = (
    OpSpec(
        type="ROIPooling",
        version=0,
        since=2,
        inputs=2,
        parse=parse_roi_pooling,
        infer=infer_roi_pooling,
        evaluate=evaluate_roi_pooling,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
