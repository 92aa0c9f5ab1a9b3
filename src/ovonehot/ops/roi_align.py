"""ROIAlign-3 and ROIAlign-9: pool ``[N, C, H, W]`` features over boxes (Mask R-CNN heads, ONNX RoiAlign).

Inputs: data, rois ``[num_rois, 4]`` (x1, y1, x2, y2) of the data's real type, and
integer batch_indices ``[num_rois]``.  Output ``[num_rois, C, pooled_h, pooled_w]``
(``roi_align_shape_utils.hpp``: num_rois merged from rois and batch_indices).

Values (``reference/roi_align.hpp``), in the data type: a box maps to
``(coord + offset_src) * spatial_scale + offset_dst`` (``asymmetric``: 0, 0 and sides
at least 1; ``half_pixel_for_nn``: 0, -0.5; ``half_pixel``: 0.5, -0.5); each bin takes
``sampling_ratio`` samples per side (0: ``ceil(bin size)``) at the centres of its sub-bins,
each sample bilinear over its 4 neighbours (a sample more than one pixel outside the
map counts as 0; coordinates below 0 clamp to 0, at or past the last row/column to
it).  ``avg`` adds ``sample / count`` in order; ``max`` keeps the largest sample *starting
from 0*, so a bin of negative samples pools to 0, as the reference does.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ResourceLimitError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import enum_attr, float_attr, int_attr
from .common.numeric import narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


class PoolingMode(enum.Enum):
    AVG = "avg"
    MAX = "max"


class AlignedMode(enum.Enum):
    ASYMMETRIC = "asymmetric"
    HALF_PIXEL_FOR_NN = "half_pixel_for_nn"
    HALF_PIXEL = "half_pixel"


@dataclass(frozen=True, slots=True)
class ROIAlignAttrs:
    pooled_h: int
    pooled_w: int
    sampling_ratio: int
    spatial_scale: float
    mode: PoolingMode
    aligned_mode: AlignedMode = AlignedMode.ASYMMETRIC


def _parse(node: Node, aligned: bool) -> ROIAlignAttrs:
    attrs = ROIAlignAttrs(
        int_attr(node, "pooled_h"),
        int_attr(node, "pooled_w"),
        int_attr(node, "sampling_ratio"),
        float_attr(node, "spatial_scale"),
        enum_attr(node, "mode", PoolingMode),
        enum_attr(node, "aligned_mode", AlignedMode, AlignedMode.ASYMMETRIC)
        if aligned
        else AlignedMode.ASYMMETRIC,
    )
    if attrs.pooled_h <= 0 or attrs.pooled_w <= 0:
        raise ValidationError(f"{node.describe()}: pooled_h and pooled_w must be positive")
    if attrs.sampling_ratio < 0:
        raise ValidationError(f"{node.describe()}: sampling_ratio must be non-negative")
    if not attrs.spatial_scale > 0:
        raise ValidationError(f"{node.describe()}: spatial_scale must be positive")
    return attrs


def parse_roi_align_3(node: Node) -> ROIAlignAttrs:
    return _parse(node, False)


def parse_roi_align_9(node: Node) -> ROIAlignAttrs:
    return _parse(node, True)


def infer_roi_align(attrs: ROIAlignAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, rois, indices = inputs
    et = data.element_type.merge(rois.element_type)
    if et is None or not (et.is_real or et.is_dynamic):
        raise ValidationError(
            f"The data type for input and ROIs is expected to be a same floating point type. Got: "
            f"{data.element_type} and: {rois.element_type}"
        )
    if not (indices.element_type.is_dynamic or indices.element_type.is_integral_number):
        raise ValidationError(
            f"The data type for batch indices is expected to be an integer. Got: {indices.element_type}"
        )
    num, channels = roi_dims(data.shape, rois.shape, indices.shape, 4)
    out = (num, channels, Dimension.static(attrs.pooled_h), Dimension.static(attrs.pooled_w))
    return [TensorInfo(et, PartialShape(out))]


def roi_dims(
    data: PartialShape, rois: PartialShape, indices: PartialShape, box: int
) -> tuple[Dimension, Dimension]:
    """The ROI count and channels of a ROIAlign-like op (``roi_align_shape_utils.hpp``): ranks 4, 2
    and 1, ``box`` numbers per ROI, the ROI count merged from rois and batch indices."""
    for shape, rank, what in ((data, 4, "a 4D tensor for the input data"), (rois, 2, "a 2D tensor for the ROIs input"),
                             (indices, 1, "a 1D tensor for the batch indices input")):  # fmt: skip
        if shape.rank_is_static and shape.rank != rank:
            raise ValidationError(f"Expected {what}. Got: {shape}")
    num = Dimension()
    if rois.rank_is_static:
        if not rois[1].contains(box):
            raise ValidationError(
                "The second dimension of ROIs input should contain box coordinates. op dimension is expected to "
                f"be equal to {box}. Got: {rois[1]}"
            )
        num = rois[0]
    if indices.rank_is_static:
        merged = num.merge(indices[0])
        if merged is None:
            raise ValidationError(
                "The first dimension of ROIs input must be equal to the first dimension of the batch indices "
                f"input. Got: {num} and: {indices[0]}"
            )
        num = merged
    return num, data[1] if data.rank_is_static else Dimension()


def evaluate_roi_align(attrs: ROIAlignAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, rois, indices = (np.asarray(a) for a in inputs)
    if data.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 4 or indices.shape != (rois.shape[0],):
        raise InputError(f"data {data.shape}, rois {rois.shape}, batch_indices {indices.shape} do not fit")
    _check_boxes(attrs, rois, data.shape[1])
    return _all_rois(attrs, data, rois, indices)


# The most samples (bilinear interpolations, one value per channel) one ROIAlign run may take.
# An adaptive sampling ratio (0) takes ceil(bin size) samples per bin and axis: a box that a
# hostile or broken input makes enormous asks for billions (hours of NumPy; a 10^4-pixel box
# took 38 s), where detectors take thousands to tens of millions.
MAX_SAMPLES = 2**28


def refuse_non_finite(boxes: np.ndarray, cast: str) -> None:
    """InputError naming the first box (row of ``boxes``) with a NaN or infinite value: the
    reference casts its coordinates to ``cast``, an int that C++ leaves undefined there."""
    finite = np.isfinite(boxes).all(axis=1)
    if not finite.all():
        r = int(np.flatnonzero(~finite)[0])
        raise InputError(
            f"rois[{r}] = {boxes[r].tolist()} has a non-finite coordinate: OpenVINO's reference "
            f"casts it to {cast}, which C++ leaves undefined"
        )


def _check_boxes(attrs: ROIAlignAttrs, rois: np.ndarray, channels: int) -> None:
    """Refuse boxes with a non-finite coordinate (the reference casts it to an integer: undefined)
    and boxes asking for more than ``MAX_SAMPLES`` samples in all, naming the first such box."""
    boxes = widen(rois).astype(np.float64)
    refuse_non_finite(boxes, "an integer sample count")
    with quiet():
        _, _, samples = _geometry(attrs, np.clip(boxes, -(2.0**40), 2.0**40), np.float64)
    per_box = samples.astype(np.float64).prod(axis=1) * attrs.pooled_h * attrs.pooled_w * max(channels, 1)
    if per_box.sum() > MAX_SAMPLES:
        r = int(np.argmax(np.cumsum(per_box) > MAX_SAMPLES))
        raise ResourceLimitError(
            f"the boxes ask for {per_box.sum():.3g} samples, more than ovonehot takes "
            f"({MAX_SAMPLES}): rois[{r}] = {boxes[r].tolist()} with sampling_ratio "
            f"{attrs.sampling_ratio} and spatial_scale {attrs.spatial_scale}"
        )


def _all_rois(
    attrs: ROIAlignAttrs, data: np.ndarray, rois: np.ndarray, indices: np.ndarray
) -> list[np.ndarray]:
    """``_one_roi`` for every box at once (the same operations on each element in the same order,
    so the same bits): the samples' neighbours and weights of every box along both axes at
    once, then every sample of a block of sample rows gathered at once; a box with fewer
    samples than the most adds zeros for the others (the sum, from +0, is never -0: adding +0
    leaves it as it is)."""
    n, c, h, w = data.shape
    idx = indices.astype(np.int64)
    if np.any((idx < 0) | (idx >= n)):
        raise InputError(f"batch_indices must lie in [0, {n}), got {idx.tolist()}")
    t = np.dtype(np.float32) if widen(data).dtype != np.float64 else np.dtype(np.float64)
    x = np.ascontiguousarray(widen(data).astype(t).transpose(0, 2, 3, 1)).reshape(-1, c)  # (NHWC rows)
    ph, pw = attrs.pooled_h, attrs.pooled_w
    out = np.zeros((rois.shape[0], ph, pw, c), t)
    with quiet():
        start, bins, samples = _geometry(attrs, widen(rois).astype(t), t.type)
        most_x, most_y = (int(m) for m in samples.max(axis=0, initial=0))
        if out.size and most_x > 0 and most_y > 0:
            grid = _Grid.of(start, bins, samples, np.array([w, h]), max(ph, pw), t)
            xs = grid.along(0, most_x, pw)
            count = (samples[:, 0] * samples[:, 1]).astype(t)[:, None, None, None, None, None]
            rows = max(1, _SAMPLE_BUDGET // (4 * out.size * most_x))
            for at in range(0, most_y, rows):
                ys = grid.along(1, min(at + rows, most_y), ph, at)
                _pool_rows(attrs.mode, out, x, idx * (h * w), ys, xs, count, w)
    return [narrow(np.ascontiguousarray(out.transpose(0, 3, 1, 2)), data.dtype)]


@dataclass(frozen=True, slots=True)
class _Grid:
    """Along both axes (x, then y), for each box, sample (up to the most any box takes on
    either axis) and bin: the two neighbours' positions and weights (``_neighbours`` along
    that axis: low then high), whether the sample is more than a pixel outside the map, and
    whether the box takes it."""

    position: np.ndarray  # [2, R, axis, samples, bins] int64
    weight: np.ndarray  # [2, R, axis, samples, bins] (1 - l, l)
    outside: np.ndarray  # [R, axis, samples, bins]
    taken: np.ndarray  # [R, axis, samples]

    @staticmethod
    def of(
        start: np.ndarray, size: np.ndarray, samples: np.ndarray, length: np.ndarray, bins: int, t: np.dtype
    ) -> _Grid:
        """From each box's corner, bin size and samples per side ``[R, axis]``."""
        T = t.type
        k = np.arange(int(samples.max()), dtype=t)
        dist = size / samples.astype(t)
        at = start[:, :, None, None] + np.arange(bins, dtype=t) * size[:, :, None, None]
        at = at + (dist[:, :, None] * (k + T(0.5)))[..., None]  # [R, axis, samples, bins]
        last = length[:, None, None] - 1
        # (NaN counts as outside: only a box that takes no samples has NaN there, 0 / 0, and the
        # reference's int cast of it would read out of the map)
        outside = ~((at >= -1.0) & (at <= length[:, None, None].astype(t)))
        at = np.maximum(at, T(0))
        low = np.trunc(np.where(outside, np.zeros((), t), at)).astype(np.int64)
        edge = low >= last
        low = np.where(edge, last, low)
        lw = np.where(edge, low.astype(t), at) - low.astype(t)
        position = np.array([low, np.where(edge, low, low + 1)])  # (np.array: np.stack costs more)
        return _Grid(position, np.array([T(1.0) - lw, lw]), outside, k < samples[:, :, None])

    def along(self, axis: int, end: int, bins: int, begin: int = 0) -> _Grid:
        """The samples ``begin:end`` and the first ``bins`` bins of one axis."""
        s = slice(begin, end)
        return _Grid(self.position[:, :, axis, s, :bins], self.weight[:, :, axis, s, :bins],
                     self.outside[:, axis, s, :bins], self.taken[:, axis, s])  # fmt: skip


def _pool_rows(
    mode: PoolingMode, out: np.ndarray, x: np.ndarray, base: np.ndarray, ys: _Grid, xs: _Grid,
    count: np.ndarray, w: int,
) -> None:  # fmt: skip
    """Pool the samples of rows ``ys`` (every column ``xs``) of every box into ``out`` [R, ph,
    pw, C], sample by sample in the reference's order (row, then column)."""
    # Axes: (y neighbour, x neighbour, R, sample row, sample column, bin row, bin column).
    outside = ys.outside[:, :, None, :, None] | xs.outside[:, None, :, None, :]
    weight = ys.weight[:, None, :, :, None, :, None] * xs.weight[None, :, :, None, :, None, :]
    zero = np.zeros((), weight.dtype)  # (np.where is slower with a NumPy scalar than a 0-d array)
    weight = np.where(outside, zero, weight)
    row_at = (base[:, None, None] + ys.position * w)[:, None, :, :, None, :, None]  # (image and row)
    flat = row_at + xs.position[None, :, :, None, :, None, :]
    flat = np.where(outside, base[:, None, None, None, None], flat)  # (outside: pixel (0, 0), weight 0)
    terms = weight[..., None] * np.take(x, flat, axis=0)  # [2, 2, R, rows, columns, ph, pw, C]
    value = terms[0, 0] + terms[0, 1] + terms[1, 0] + terms[1, 1]  # (the reference's order)
    taken = (ys.taken[:, :, None] & xs.taken[:, None, :])[:, :, :, None, None, None]
    if mode is PoolingMode.MAX:  # (the largest sample above +0, else +0: NaN never replaces)
        value = np.where(taken & (value > 0), value, zero)
        np.maximum(out, value.max(axis=(1, 2)), out=out)
        return
    value = value / count if taken.all() else np.where(taken, value / count, zero)
    for sy in range(value.shape[1]):
        for sx in range(value.shape[2]):
            out += value[:, sy, sx]


def _alignment(
    attrs: ROIAlignAttrs, T: type[np.floating]
) -> tuple[np.floating, np.floating, bool, np.floating]:
    """The box corners' offsets before and after the scale, whether the box is aligned (its size
    not raised to 1), and the scale, in the working type ``T``."""
    off_src, off_dst, aligned = T(0), T(0), False
    if attrs.aligned_mode is AlignedMode.HALF_PIXEL_FOR_NN:
        off_dst, aligned = T(-0.5), True
    elif attrs.aligned_mode is AlignedMode.HALF_PIXEL:
        off_src, off_dst, aligned = T(0.5), T(-0.5), True
    return off_src, off_dst, aligned, T(np.float32(attrs.spatial_scale))


def _geometry(attrs: ROIAlignAttrs, boxes: np.ndarray, T: type[np.floating]) -> tuple[np.ndarray, ...]:
    """Per box and axis (x, y) as ``_one_roi`` computes them: the box's corner, its bin size and
    its samples per side (0 on both axes where it takes none), each ``[R, 2]``."""
    off_src, off_dst, aligned, scale = _alignment(attrs, T)
    corners = (boxes + off_src) * scale + off_dst  # x1, y1, x2, y2
    size = corners[:, 2:] - corners[:, :2]
    if not aligned:
        size = np.maximum(size, T(1.0))
    bins = size / np.array([attrs.pooled_w, attrs.pooled_h], boxes.dtype)
    if attrs.sampling_ratio == 0:
        samples = np.ceil(bins).astype(np.int64)
    else:
        samples = np.full(bins.shape, attrs.sampling_ratio, np.int64)
    none = (samples <= 0).any(axis=1, keepdims=True)  # (no samples: the box pools to 0)
    return corners[:, :2], bins, np.where(none, np.zeros((), np.int64), samples)


_SAMPLE_BUDGET = 1 << 20  # (elements of one batch of samples of every box)
OneRoi = Callable[[np.ndarray, np.ndarray, np.dtype], np.ndarray]


def per_roi(
    data: np.ndarray, rois: np.ndarray, indices: np.ndarray, pooled: tuple[int, int], one: OneRoi
) -> list[np.ndarray]:
    """Each box pooled from its image by ``one(feature map, box, working type)`` into ``[R, C,
    pooled_h, pooled_w]``, in f32 (f64 for f64 data), rounded once to the data's type; the batch
    indices checked against the batch."""
    n, c = data.shape[0], data.shape[1]
    idx = indices.astype(np.int64)
    if np.any((idx < 0) | (idx >= n)):
        raise InputError(f"batch_indices must lie in [0, {n}), got {idx.tolist()}")
    t = np.dtype(np.float32) if widen(data).dtype != np.float64 else np.dtype(np.float64)
    x = widen(data).astype(t)
    boxes = widen(rois).astype(t)
    out = np.zeros((rois.shape[0], c, *pooled), t)
    with quiet():
        for r in range(rois.shape[0]):
            out[r] = one(x[idx[r]], boxes[r], t)
    return [narrow(out, data.dtype)]


def _one_roi(attrs: ROIAlignAttrs, fmap: np.ndarray, box: np.ndarray, t: np.dtype) -> np.ndarray:
    T = t.type
    c, _h, _w = fmap.shape
    off_src, off_dst, aligned, scale = _alignment(attrs, T)
    x1, y1, x2, y2 = ((box[k] + off_src) * scale + off_dst for k in range(4))
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = max(roi_w, T(1.0)), max(roi_h, T(1.0))
    bin_w, bin_h = roi_w / T(attrs.pooled_w), roi_h / T(attrs.pooled_h)
    sr_x = attrs.sampling_ratio or math.ceil(bin_w)
    sr_y = attrs.sampling_ratio or math.ceil(bin_h)
    pooled = np.zeros((c, attrs.pooled_h, attrs.pooled_w), t)
    count = sr_x * sr_y
    if count == 0:
        return pooled
    dist_x, dist_y = bin_w / T(sr_x), bin_h / T(sr_y)
    ybins = np.arange(attrs.pooled_h, dtype=t)[:, None]
    xbins = np.arange(attrs.pooled_w, dtype=t)[None, :]
    for sy in range(sr_y):
        ys = y1 + ybins * bin_h + dist_y * (T(sy) + T(0.5))  # [ph, 1]
        for sx in range(sr_x):
            xs = x1 + xbins * bin_w + dist_x * (T(sx) + T(0.5))  # [1, pw]
            value = bilinear(fmap, np.broadcast_to(ys, (attrs.pooled_h, attrs.pooled_w)),
                              np.broadcast_to(xs, (attrs.pooled_h, attrs.pooled_w)), t)  # fmt: skip
            if attrs.mode is PoolingMode.MAX:
                pooled = np.where(value > pooled, value, pooled)
            else:
                pooled = pooled + value / T(count)
    return pooled


def bilinear(fmap: np.ndarray, ys: np.ndarray, xs: np.ndarray, t: np.dtype) -> np.ndarray:
    """The reference's sample value at each (y, x): [C, ph, pw]."""
    terms = (wgt * fmap[:, py, px] for wgt, py, px in _neighbours(fmap.shape[1], fmap.shape[2], ys, xs, t))
    total: np.ndarray = functools.reduce(operator.add, terms)  # (in order: one term at a time)
    return total


def _neighbours(
    h: int, w: int, ys: np.ndarray, xs: np.ndarray, t: np.dtype
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The reference's four (weight, row, column) of each sample, in its order; a sample more
    than one pixel outside the map has weight 0 at (0, 0)."""
    T = t.type
    outside = (xs < -1.0) | (xs > T(w)) | (ys < -1.0) | (ys > T(h))
    ys = np.maximum(ys, T(0))
    xs = np.maximum(xs, T(0))
    y_low = np.trunc(np.where(outside, 0, ys)).astype(np.int64)
    x_low = np.trunc(np.where(outside, 0, xs)).astype(np.int64)
    y_edge = y_low >= h - 1
    x_edge = x_low >= w - 1
    y_low = np.where(y_edge, h - 1, y_low)
    x_low = np.where(x_edge, w - 1, x_low)
    ys = np.where(y_edge, y_low.astype(t), ys)
    xs = np.where(x_edge, x_low.astype(t), xs)
    y_high = np.where(y_edge, y_low, y_low + 1)
    x_high = np.where(x_edge, x_low, x_low + 1)
    ly = (ys - y_low.astype(t)).astype(t)
    lx = (xs - x_low.astype(t)).astype(t)
    hy, hx = T(1.0) - ly, T(1.0) - lx
    weights = [hy * hx, hy * lx, ly * hx, ly * lx]
    points = [(y_low, x_low), (y_low, x_high), (y_high, x_low), (y_high, x_high)]
    return [
        (np.where(outside, T(0), wgt), np.where(outside, 0, py), np.where(outside, 0, px))
        for wgt, (py, px) in zip(weights, points, strict=True)
    ]


SPECS = (
    OpSpec(
        type="ROIAlign",
        version=3,
        since=3,
        inputs=3,
        parse=parse_roi_align_3,
        infer=infer_roi_align,
        evaluate=evaluate_roi_align,
    ),
    OpSpec(
        type="ROIAlign",
        version=9,
        since=9,
        inputs=3,
        parse=parse_roi_align_9,
        infer=infer_roi_align,
        evaluate=evaluate_roi_align,
    ),
)
