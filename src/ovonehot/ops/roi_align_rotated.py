"""ROIAlignRotated-15: average-pool ``[N, C, H, W]`` features over rotated boxes (mmcv/detectron2 ``RoIAlignRotated``).

Inputs: data, rois ``[num_rois, 5]`` (``center_x, center_y, width, height, angle`` in radians)
of the data's real type, integer batch_indices ``[num_rois]``.  Attributes: ``pooled_h``,
``pooled_w``, ``sampling_ratio``, ``spatial_scale``, ``clockwise_mode`` (false).  Output
``[num_rois, C, pooled_h, pooled_w]`` (ROIAlign's shape rule, five numbers per ROI; OpenVINO
checks none of the attributes: a pooled size of 0 gives an empty dim, -1 a dynamic one).

Values (``reference/roi_align.hpp``, ``ROIAlignRotatedOpDefPolicy``), in f32 (f64 for f64 data;
f16/bf16 computed in f32 and rounded once): the box's centre is ``roi * spatial_scale - 0.5``,
its sides ``roi * spatial_scale`` (no minimum size), its angle negated when
``clockwise_mode``.  Each bin takes ``sampling_ratio`` samples per side (0: ``ceil(bin size)``) at
the centres of its sub-bins, laid out from the box's corner ``(-w/2, -h/2)`` and turned about the
centre (``x' = y sin + x cos + cx``, ``y' = y cos - x sin + cy``); each sample is ROIAlign's
bilinear one (0 more than a pixel outside the map).  The bin is the mean of its samples, added in
order as ``sample / count``.  A negative sample count (a negative size with ``sampling_ratio=0``,
or a negative ``sampling_ratio``) is refused, as the reference's assertion refuses it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr, float_attr, int_attr
from .common.spec import OpSpec, TensorInfo
from .roi_align import bilinear, per_roi, roi_dims


@dataclass(frozen=True, slots=True)
class ROIAlignRotatedAttrs:
    pooled_h: int
    pooled_w: int
    sampling_ratio: int
    spatial_scale: float
    clockwise_mode: bool = False


def parse_roi_align_rotated(node: Node) -> ROIAlignRotatedAttrs:
    attrs = ROIAlignRotatedAttrs(
        int_attr(node, "pooled_h"),
        int_attr(node, "pooled_w"),
        int_attr(node, "sampling_ratio"),
        float_attr(node, "spatial_scale"),
        bool_attr(node, "clockwise_mode", False),
    )
    if attrs.pooled_h < -1 or attrs.pooled_w < -1:
        raise ValidationError(
            f"{node.describe()}: pooled_h and pooled_w must be at least -1 (a dimension), "
            f"got {attrs.pooled_h} and {attrs.pooled_w}"
        )
    return attrs


def _pooled(n: int) -> Dimension:
    return Dimension() if n < 0 else Dimension.static(n)


def infer_roi_align_rotated(attrs: ROIAlignRotatedAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, rois, indices = inputs
    num, channels = roi_dims(data.shape, rois.shape, indices.shape, 5)
    et = data.element_type
    if et is not rois.element_type or not et.is_real:
        raise ValidationError(
            f"The data type for input and ROIs is expected to be a same floating point type. Got: "
            f"{data.element_type} and: {rois.element_type}"
        )
    if not (indices.element_type.is_dynamic or indices.element_type.is_integral_number):
        raise ValidationError(
            f"The data type for batch indices is expected to be an integer. Got: {indices.element_type}"
        )
    out = (num, channels, _pooled(attrs.pooled_h), _pooled(attrs.pooled_w))
    return [TensorInfo(et, PartialShape(out))]


def evaluate_roi_align_rotated(attrs: ROIAlignRotatedAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, rois, indices = (np.asarray(a) for a in inputs)
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5 or indices.shape != (rois.shape[0],):
        raise InputError(f"data {data.shape}, rois {rois.shape}, batch_indices {indices.shape} do not fit")
    if attrs.pooled_h < 0 or attrs.pooled_w < 0:
        raise InputError(
            f"pooled_h {attrs.pooled_h} and pooled_w {attrs.pooled_w} must not be negative to run"
        )
    return per_roi(data, rois, indices, (attrs.pooled_h, attrs.pooled_w), functools.partial(_one_roi, attrs))


def _one_roi(attrs: ROIAlignRotatedAttrs, fmap: np.ndarray, box: np.ndarray, t: np.dtype) -> np.ndarray:
    T = t.type
    ph, pw = attrs.pooled_h, attrs.pooled_w
    scale = T(np.float32(attrs.spatial_scale))
    cx, cy = box[0] * scale - T(0.5), box[1] * scale - T(0.5)
    width, height = box[2] * scale, box[3] * scale
    angle = -box[4] if attrs.clockwise_mode else box[4]
    cos_a, sin_a = T(math.cos(float(angle))), T(math.sin(float(angle)))  # (in double, rounded once)
    x1, y1 = -width / T(2.0), -height / T(2.0)
    bin_w, bin_h = width / T(pw), height / T(ph)
    sr_x = attrs.sampling_ratio or _ceil(bin_w)
    sr_y = attrs.sampling_ratio or _ceil(bin_h)
    if sr_x < 0 or sr_y < 0:
        raise InputError(
            f"a ROI of {sr_x} x {sr_y} samples per bin (sampling_ratio {attrs.sampling_ratio}, "
            f"box {box.tolist()}): OpenVINO's reference asserts a non-negative count"
        )
    pooled = np.zeros((fmap.shape[0], ph, pw), t)
    count = sr_x * sr_y
    if count == 0:
        return pooled
    dist_x, dist_y = bin_w / T(sr_x), bin_h / T(sr_y)
    ybins = np.arange(ph, dtype=t)[:, None]
    xbins = np.arange(pw, dtype=t)[None, :]
    divisor = T(count)
    for sy in range(sr_y):
        pre_y = np.broadcast_to(y1 + ybins * bin_h + dist_y * (T(sy) + T(0.5)), (ph, pw))
        for sx in range(sr_x):
            pre_x = np.broadcast_to(x1 + xbins * bin_w + dist_x * (T(sx) + T(0.5)), (ph, pw))
            ys = pre_y * cos_a - pre_x * sin_a + cy
            xs = pre_y * sin_a + pre_x * cos_a + cx
            pooled = pooled + bilinear(fmap, ys.astype(t), xs.astype(t), t) / divisor
    return pooled


def _ceil(v: np.floating) -> int:
    """``static_cast<int>(ceil(v))``; a NaN or infinite size gives no samples."""
    return math.ceil(float(v)) if math.isfinite(float(v)) else 0


SPECS = (
    OpSpec(
        type="ROIAlignRotated",
        version=15,
        since=15,
        inputs=3,
        parse=parse_roi_align_rotated,
        infer=infer_roi_align_rotated,
        evaluate=evaluate_roi_align_rotated,
    ),
)
