"""PriorBox-1, PriorBox-8, PriorBoxClustered-1: SSD prior (anchor) boxes of a feature map.

Inputs: the feature map's ``[H, W]`` (output size) and the image's ``[IH, IW]``, 1-D integer
tensors, usually Constants or ``ShapeOf`` slices, so OpenVINO folds the op (its ``evaluate``
takes i8..u64) and so does ``infer``.  Output f32 ``[2, H * W * P * 4]``: row 0 the boxes
``(xmin, ymin, xmax, ymax)`` per position (h, w) and prior, normalized by the image size; row
1 the variances.  ``P`` is the number of priors the attributes give
(``prior_box.cpp: number_of_priors``; PriorBoxClustered: ``len(widths)``); when the output
size is not known, its bounds give the dimension (``prior_box_shape_inference_util.hpp``).

Values follow ``reference/prior_box.hpp`` and ``reference/prior_box_clustered.hpp`` in f32,
operation by operation (centres, step, ``1 / IW`` factors, the sqrt of aspect ratios, the
fixed-size/density grid).  PriorBox-1 is PriorBox-8 with ``min_max_aspect_ratios_order``
true.  A negative output size, which OpenVINO takes into a shape it never fills, is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError, IRError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, float_attr
from .common.numeric import quiet
from .common.shape_util import input_bounds, known_ints, mul, passes_integral_number_check
from .common.spec import OpSpec, TensorInfo

F = np.float32
_INT64_MAX = 2**63 - 1
_INPUT_NAMES = ("output size", "image")
_EVALUATED = frozenset(
    {
        ElementType.i8,
        ElementType.i16,
        ElementType.i32,
        ElementType.i64,
        ElementType.u8,
        ElementType.u16,
        ElementType.u32,
        ElementType.u64,
    }
)


def floats_attr(node: Node, name: str, default: tuple[float, ...] = ()) -> tuple[float, ...]:
    """A comma-separated list of f32 attribute values (empty string: no values)."""
    text = node.attr(name)
    if text is None or not text.strip():
        return default
    try:
        return tuple(float(F(float(p))) for p in text.split(","))
    except ValueError:
        raise IRError(f"{node.describe()}: attribute {name}={text!r} is not a list of numbers") from None


@dataclass(frozen=True, slots=True)
class PriorBoxAttrs:
    min_size: tuple[float, ...]
    max_size: tuple[float, ...]
    aspect_ratio: tuple[float, ...]
    density: tuple[float, ...]
    fixed_ratio: tuple[float, ...]
    fixed_size: tuple[float, ...]
    clip: bool
    flip: bool
    step: float
    offset: float
    variance: tuple[float, ...]
    scale_all_sizes: bool
    min_max_aspect_ratios_order: bool = True


def _f32(node: Node, name: str, default: float) -> float:
    return float(F(float_attr(node, name, default)))


def parse_prior_box(node: Node) -> PriorBoxAttrs:
    return PriorBoxAttrs(
        min_size=floats_attr(node, "min_size"),
        max_size=floats_attr(node, "max_size"),
        aspect_ratio=floats_attr(node, "aspect_ratio"),
        density=floats_attr(node, "density"),
        fixed_ratio=floats_attr(node, "fixed_ratio"),
        fixed_size=floats_attr(node, "fixed_size"),
        clip=bool_attr(node, "clip", False),
        flip=bool_attr(node, "flip", False),
        step=_f32(node, "step", 0.0),
        offset=_f32(node, "offset", 0.0),
        variance=floats_attr(node, "variance"),
        scale_all_sizes=bool_attr(node, "scale_all_sizes", True),
    )


def parse_prior_box_8(node: Node) -> PriorBoxAttrs:
    order = bool_attr(node, "min_max_aspect_ratios_order", True)
    return replace(parse_prior_box(node), min_max_aspect_ratios_order=order)


@dataclass(frozen=True, slots=True)
class ClusteredAttrs:
    widths: tuple[float, ...]
    heights: tuple[float, ...]
    clip: bool
    step_widths: float
    step_heights: float
    step: float
    offset: float
    variances: tuple[float, ...]


def parse_clustered(node: Node) -> ClusteredAttrs:
    return ClusteredAttrs(
        widths=floats_attr(node, "width"),
        heights=floats_attr(node, "height"),
        clip=bool_attr(node, "clip", True),
        step_widths=_f32(node, "step_w", 0.0),
        step_heights=_f32(node, "step_h", 0.0),
        step=_f32(node, "step", 0.0),
        offset=_f32(node, "offset", 0.0),
        variances=floats_attr(node, "variance"),
    )


# -- number of priors ----------------------------------------------------------------------
def _normalized_ratios(aspect_ratio: Sequence[float], flip: bool) -> set[float]:
    """``normalized_aspect_ratio``: the ratios (and flipped ones) rounded to 1e-6, and 1."""
    ratios = {1.0}
    for ratio in aspect_ratio:
        ratios.add(float(F(round_away(float(F(ratio)) * 1e6) / 1e6)))
        if flip:
            ratios.add(float(F(round_away(float(F(1) / F(ratio)) * 1e6) / 1e6)))
    return ratios


def round_away(x: float) -> float:
    """``std::round`` of a double."""
    if not np.isfinite(x):
        return x
    return float(np.sign(x) * np.floor(abs(x) + 0.5))


def number_of_priors(a: PriorBoxAttrs) -> int:
    with quiet():
        total = len(_normalized_ratios(a.aspect_ratio, a.flip))
    count = total * len(a.min_size) + len(a.max_size) if a.scale_all_sizes else total + len(a.min_size) - 1
    if a.fixed_size:
        count = total * len(a.fixed_size)
    for density in a.density:
        d = int(density) if np.isfinite(density) else 0
        count += (len(a.fixed_ratio) if a.fixed_ratio else total) * (d * d - 1)
    return count


# -- shape inference -------------------------------------------------------------------------
def _size_dim(info: TensorInfo) -> Dimension:
    """``H * W`` from the output size's value or bounds."""
    values = known_ints(info)
    if values is not None:
        if len(values) != 2:
            raise ValidationError(
                f"input 0 (output size): Output size must have two elements. Got: {len(values)}"
            )
        if min(values) < 0:
            raise ValidationError(f"input 0 (output size): negative output size {values}")
        return Dimension.static(values[0] * values[1])
    bounds = input_bounds(info)
    if bounds is None or len(bounds) != 2:
        return Dimension()
    dims = [Dimension(max(lo, 0), None if hi == _INT64_MAX else max(hi, 0)) for lo, hi in bounds]
    return mul(dims[0], dims[1])


def _infer(priors: int, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    for k, info in enumerate(inputs):
        if not passes_integral_number_check(info.element_type):
            raise ValidationError(
                f"input {k}: {_INPUT_NAMES[k]} input must be an integral number, but is: {info.element_type}"
            )
    ranks = [i.shape.rank if i.shape.rank_is_static else None for i in inputs]
    size_rank, image_rank = ranks
    # OpenVINO's check: the size's rank compatible with the image's and with 1 (a size of dynamic
    # rank passes whatever the image's rank).
    if size_rank not in (None, 1) or (None not in ranks and size_rank != image_rank):
        shown = ["?" if r is None else str(r) for r in ranks]
        raise ValidationError(
            f"output size input rank {shown[0]} must match image shape input rank {shown[1]} and both must be 1-D"
        )
    size = _size_dim(inputs[0])
    width = mul(mul(size, Dimension.static(priors)), Dimension.static(4))
    return [TensorInfo(ElementType.f32, PartialShape((Dimension.static(2), width)))]


def infer_prior_box(attrs: PriorBoxAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return _infer(number_of_priors(attrs), inputs)


def infer_clustered(attrs: ClusteredAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if len(attrs.heights) != len(attrs.widths):
        raise ValidationError(
            f"Size of heights vector: {len(attrs.heights)} doesn't match size of widths vector: "
            f"{len(attrs.widths)}"
        )
    if attrs.step_widths < 0 or attrs.step_heights < 0:  # (OpenVINO's attribute conditions)
        raise ValidationError("step_w and step_h must be non-negative")
    return _infer(len(attrs.widths), inputs)


# -- values ------------------------------------------------------------------------------------
def _sizes(inputs: Sequence[np.ndarray]) -> tuple[int, int, int, int]:
    """(H, W, IH, IW) as the reference reads them (int64)."""
    data, image = (np.asarray(a).reshape(-1) for a in inputs)
    if data.size < 2 or image.size < 2 or data.dtype.kind not in "iu" or image.dtype.kind not in "iu":
        raise InputError(
            f"output size and image must hold two integers, got {data.tolist()}, {image.tolist()}"
        )
    h, w = (int(np.int64(v)) if data.dtype.kind == "i" else int(v) for v in data[:2])
    ih, iw = (int(v) for v in image[:2])
    if min(h, w) < 0:
        raise InputError(f"negative output size [{h}, {w}]")
    return h, w, ih, iw


def _variances(variance: Sequence[float], count: int) -> np.ndarray:
    """Row 1: one variance repeated, or four per box (the reference's 0.1 when none)."""
    values = list(variance) or [0.1]
    if len(values) not in (1, 4):
        raise InputError(f"variance must hold 1 or 4 values, got {len(values)}")
    return np.resize(np.asarray(values, dtype=F), count)


@dataclass(frozen=True, slots=True)
class _Grid:
    """Per position (h, w): centres (f32 ``[H, W]``) and the image's reciprocal sizes."""

    cx: np.ndarray
    cy: np.ndarray
    iwi: np.float32
    ihi: np.float32


def _box(g: _Grid, cx: np.ndarray, cy: np.ndarray, bw: np.float32, bh: np.float32, clip: bool) -> np.ndarray:
    """``calculate_data``: [H, W, 4] corners, clipped per value when ``clip`` (NaN to 0 / 1)."""
    xmin, ymin = (cx - bw) * g.iwi, (cy - bh) * g.ihi
    xmax, ymax = (cx + bw) * g.iwi, (cy + bh) * g.ihi
    if clip:
        xmin, ymin = np.where(xmin > 0, xmin, F(0)), np.where(ymin > 0, ymin, F(0))
        xmax, ymax = np.where(xmax < 1, xmax, F(1)), np.where(ymax < 1, ymax, F(1))
    return np.stack([xmin, ymin, xmax, ymax], axis=-1).astype(F)


def _aspect_ratios(a: PriorBoxAttrs) -> list[np.float32]:
    ratios = [F(1)]
    for ratio in a.aspect_ratio:
        if not any(abs(float(F(ratio) - r)) < 1e-6 for r in ratios):
            ratios.append(F(ratio))
            if a.flip:
                ratios.append(F(1) / F(ratio))
    return ratios


def _density_boxes(g: _Grid, size: float, density: float, ratio: np.float32 | None) -> Iterator[np.ndarray]:
    """The fixed-size grid: ``density**2`` shifted centres for one ratio (None: the square box
    of the integer side ``size``)."""
    d = int(density) if np.isfinite(density) else 0
    if d <= 0:
        return
    shift = int(F(size) / F(d))
    whole = F(int(size) // 2)
    if ratio is None:
        bw = bh = F(int(size)) * F(0.5)
    else:
        root = np.sqrt(ratio)
        bw, bh = F(size) * F(0.5) * root, F(size) * F(0.5) / root
    for r in range(d):
        for c in range(d):
            cx = ((g.cx - whole) + F(shift) / F(2)) + F(c * shift)
            cy = ((g.cy - whole) + F(shift) / F(2)) + F(r * shift)
            yield _box(g, cx, cy, bw, bh, True)


def _fixed_boxes(g: _Grid, a: PriorBoxAttrs, ratios: Sequence[np.float32]) -> Iterator[np.ndarray]:
    for s, size in enumerate(a.fixed_size):
        density = a.density[s] if s < len(a.density) else 0.0
        if a.fixed_ratio:
            for ar in a.fixed_ratio:
                yield from _density_boxes(g, size, density, F(ar))
            continue
        if a.density:
            yield from _density_boxes(g, size, density, None)
        for ratio in ratios:
            if abs(float(ratio) - 1.0) >= 1e-6:
                yield from _density_boxes(g, size, density, ratio)


def _ratio_boxes(g: _Grid, size: np.float32, ratios: Sequence[np.float32]) -> Iterator[np.ndarray]:
    for ar in ratios:
        if abs(float(ar - F(1))) < 1e-6:
            continue
        root = np.sqrt(ar)
        yield _box(g, g.cx, g.cy, size * F(0.5) * root, size * F(0.5) / root, False)


def _size_boxes(
    g: _Grid, a: PriorBoxAttrs, min_size: Sequence[np.float32], ratios: Sequence[np.float32]
) -> Iterator[np.ndarray]:
    for k, size in enumerate(min_size):
        yield _box(g, g.cx, g.cy, size * F(0.5), size * F(0.5), False)
        with_ratios = a.scale_all_sizes or k == len(min_size) - 1
        base = min_size[k] if a.scale_all_sizes else min_size[0]
        big = None
        if k < len(a.max_size):
            half = np.sqrt(size * F(a.max_size[k])) * F(0.5)
            big = _box(g, g.cx, g.cy, half, half, False)
        if a.min_max_aspect_ratios_order and big is not None:
            yield big
        if with_ratios:
            yield from _ratio_boxes(g, base, ratios)
        if not a.min_max_aspect_ratios_order and big is not None:
            yield big


def evaluate_prior_box(attrs: PriorBoxAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    h, w, ih, iw = _sizes(inputs)
    priors = number_of_priors(attrs)
    step = F(attrs.step)
    min_size = [F(s) for s in attrs.min_size]
    with quiet():
        if not attrs.scale_all_sizes:  # mxnet-like PriorBox: sizes relative to the image
            step = F(ih) / F(h) if step == F(-1) else step * F(ih)
            min_size = [s * F(ih) for s in min_size]
        hh, ww = np.meshgrid(np.arange(h, dtype=F), np.arange(w, dtype=F), indexing="ij")
        if step == 0:
            cx, cy = (ww + F(0.5)) * (F(iw) / F(w)), (hh + F(0.5)) * (F(ih) / F(h))
        else:
            cx, cy = (F(attrs.offset) + ww) * step, (F(attrs.offset) + hh) * step
        grid = _Grid(cx, cy, F(1) / F(iw), F(1) / F(ih))
        ratios = _aspect_ratios(attrs)
        boxes = [*_fixed_boxes(grid, attrs, ratios), *_size_boxes(grid, attrs, min_size, ratios)]
        if len(boxes) != priors and h * w:
            raise InputError(f"the attributes give {len(boxes)} priors per position, the shape {priors}")
        row = np.stack(boxes, axis=2).reshape(-1) if boxes and h * w else np.zeros(0, F)
        if attrs.clip:
            row = np.where(row < 0, F(0), row)
            row = np.where(F(1) < row, F(1), row)
    count = h * w * priors * 4
    return [np.stack([row.astype(F), _variances(attrs.variance, count)])]


def evaluate_clustered(attrs: ClusteredAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    h, w, ih, iw = _sizes(inputs)
    step_w = F(attrs.step) if attrs.step_widths == 0 else F(attrs.step_widths)
    step_h = F(attrs.step) if attrs.step_heights == 0 else F(attrs.step_heights)
    with quiet():
        if step_w == 0 and step_h == 0:
            step_w, step_h = F(iw) / F(w), F(ih) / F(h)
        hh, ww = np.meshgrid(np.arange(h, dtype=F), np.arange(w, dtype=F), indexing="ij")
        cx, cy = (ww + F(attrs.offset)) * step_w, (hh + F(attrs.offset)) * step_h
        boxes = []
        for bw, bh in zip(attrs.widths, attrs.heights, strict=True):
            half_w, half_h = F(bw) / F(2), F(bh) / F(2)
            corners = [
                (cx - half_w) / F(iw),
                (cy - half_h) / F(ih),
                (cx + half_w) / F(iw),
                (cy + half_h) / F(ih),
            ]
            if attrs.clip:
                corners = [np.minimum(np.where(c < 0, F(0), c), F(1)) for c in corners]
            boxes.append(np.stack(corners, axis=-1))
        count = h * w * len(attrs.widths) * 4
        row = np.stack(boxes, axis=2).reshape(-1) if boxes and h * w else np.zeros(0, F)
    variances = list(attrs.variances) or [0.1]
    if len(variances) not in (1, 4):
        raise InputError(f"variance must hold 1 or 4 values, got {len(variances)}")
    return [np.stack([row.astype(F), np.resize(np.asarray(variances, dtype=F), count)])]


_TYPES = (_EVALUATED, _EVALUATED)

SPECS = (
    OpSpec(
        type="PriorBox",
        version=1,
        since=1,
        inputs=2,
        parse=parse_prior_box,
        infer=infer_prior_box,
        evaluate=evaluate_prior_box,
        evaluate_types=_TYPES,
    ),
    OpSpec(
        type="PriorBox",
        version=8,
        since=8,
        inputs=2,
        parse=parse_prior_box_8,
        infer=infer_prior_box,
        evaluate=evaluate_prior_box,
        evaluate_types=_TYPES,
    ),
    OpSpec(
        type="PriorBoxClustered",
        version=1,
        since=1,
        inputs=2,
        parse=parse_clustered,
        infer=infer_clustered,
        evaluate=evaluate_clustered,
        evaluate_types=_TYPES,
    ),
)
