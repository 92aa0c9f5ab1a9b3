"""NMSRotated-13: hard non-maximum suppression of rotated boxes (mmdetection/detectron2 rotated NMS).

Inputs: ``boxes [B, N, 5]`` (``x_center, y_center, width, height, angle`` in radians) and
``scores [B, C, N]`` (real types), ``max_output_boxes_per_class`` (an integer scalar or
one-element 1-D tensor), ``iou_threshold`` and ``score_threshold`` (real scalars or one-element
tensors).  Attributes: ``sort_result_descending`` (true), ``output_type`` (i64), ``clockwise``
(true: a positive angle turns clockwise).  Outputs as NonMaxSuppression-9's: ``selected_indices
[K, 3]`` (batch, class, box), ``selected_scores [K, 3]`` (f32), ``valid_outputs [1]``.

Shape: OpenVINO's NMS-9 rule (``nms_shape_inference.hpp``, ``v13::shape_infer``): K is ``0..M``,
``M = min(max(N), max_output_boxes_per_class) * max(B) * max(C)``, ``?`` when the limit is not
a constant or a factor is unbounded; the last dim of boxes must be 5.  Type checks come after the
shape checks: real types (any, f64 included) for inputs 0, 1, 3, 4, an integral number for 2.

Values (``reference/nms_rotated.cpp``): per batch and class, boxes by descending score (ties:
lower index), each kept when its rotated IoU with every box kept before is ``<= iou_threshold``,
at most ``max_output_boxes_per_class`` (a negative limit keeps none).  The rotated IoU is the
area of the intersection polygon (edge crossings and the corners of each box inside the other,
as detectron2 finds them) over ``area1 + area2 - intersection``, 0 when a box has area ``w * h
<= 0``; ovonehot computes the polygon in f64 (OpenVINO in f32 with a Graham scan), so only an
IoU within a few f32 ulp of the threshold can be judged otherwise.  Selected scores are the
input scores (hard NMS never decays them).  ``sort_result_descending`` orders the whole output
by score (ties: batch, class, box), otherwise it stays grouped by batch and class.

The spec takes boxes with ``score >= score_threshold``; the reference and the CPU plugin take
``score > score_threshold``: ovonehot follows the spec (docs/openvino-behaviour.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo
from .multiclass_nms import check_boxes_scores
from .nms import per_class_bound


@dataclass(frozen=True, slots=True)
class NMSRotatedAttrs:
    sort_result_descending: bool = True
    output_type: ElementType = ElementType.i64
    clockwise: bool = True


def parse_nms_rotated(node: Node) -> NMSRotatedAttrs:
    return NMSRotatedAttrs(
        bool_attr(node, "sort_result_descending", True),
        element_type_attr(node, "output_type", ElementType.i64),
        bool_attr(node, "clockwise", True),
    )


_SCALARS = ("max_output_boxes_per_class", "iou_threshold", "score_threshold")


def _check_shapes(boxes: PartialShape, scores: PartialShape, inputs: Sequence[TensorInfo]) -> None:
    for shape, what in ((boxes, "boxes"), (scores, "scores")):
        if shape.rank_is_static and shape.rank != 3:
            raise ValidationError(f"Expected a 3D tensor for the '{what}' input, got {shape}")
    for name, info in zip(_SCALARS, inputs[2:], strict=True):
        s = info.shape
        if s.rank_is_static and not (s.rank == 0 or (s.rank == 1 and s[0].contains(1))):
            raise ValidationError(f"Expected 0D or 1D tensor for the '{name}' input, got shape {s}")


def infer_nms_rotated(attrs: NMSRotatedAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    boxes, scores = inputs[0].shape, inputs[1].shape
    _check_shapes(boxes, scores, inputs)
    selected = Dimension()
    if boxes.rank_is_static:
        if scores.rank_is_static:
            check_boxes_scores(boxes, scores)
            # (a boolean limit is refused by the type check below, as OpenVINO words it)
            limit = inputs[2] if inputs[2].element_type is not ElementType.boolean else None
            selected = per_class_bound(boxes[1], limit) if limit is not None else Dimension()
            for d in (scores[0], scores[1]):
                selected = mul(selected, Dimension.static(d.max) if d.max is not None else Dimension())
        if not boxes[2].compatible(Dimension.static(5)):
            raise ValidationError(f"The last dimension of the 'boxes' input must be equal to 5, got {boxes}")
    for k, info in enumerate(inputs):
        et = info.element_type
        if k == 2 and not (et.is_integral_number or et.is_dynamic):
            raise ValidationError(f"Expected integer type as element type for the input at: 2, got {et}")
        if k != 2 and not (et.is_real or et.is_dynamic):
            raise ValidationError(
                f"Expected floating point type as element type for the input at: {k}, got {et}"
            )
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(
            "The `output_type` attribute (related to the first and third output) must be i32 or i64, "
            f"got {attrs.output_type}"
        )
    pairs = PartialShape((selected, Dimension.static(3)))
    return [
        TensorInfo(attrs.output_type, pairs),
        TensorInfo(ElementType.f32, pairs),
        TensorInfo(attrs.output_type, PartialShape.of((1,))),
    ]


# -- the kernel ---------------------------------------------------------------------------------
def corners(boxes: np.ndarray) -> np.ndarray:
    """``[..., 5]`` rotated boxes (clockwise angles) -> ``[..., 4, 2]`` corners in f64, in the order
    of OpenVINO's ``get_rotated_vertices`` (left-down, left-top, right-top, right-down)."""
    b = boxes.astype(np.float64)
    x, y, w, h, a = (b[..., k] for k in range(5))
    c, s = np.cos(a) * 0.5, np.sin(a) * 0.5
    p0 = np.stack([x - s * h - c * w, y + c * h - s * w], axis=-1)
    p1 = np.stack([x + s * h - c * w, y - c * h - s * w], axis=-1)
    centre = np.stack([x, y], axis=-1)
    return np.stack([p0, p1, 2 * centre - p0, 2 * centre - p1], axis=-2)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out: np.ndarray = a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1]
    return out


def _inside(points: np.ndarray, rect: np.ndarray) -> np.ndarray:
    """Whether each of ``points [K, 4, 2]`` lies in (or on) the rectangle ``rect [K, 4, 2]``."""
    ab = rect[:, 1] - rect[:, 0]
    da = rect[:, 0] - rect[:, 3]
    ap = points - rect[:, None, 0]
    along = np.einsum("kpi,ki->kp", ap, ab)
    across = -np.einsum("kpi,ki->kp", ap, da)
    inside: np.ndarray = (
        (along >= 0)
        & (across >= 0)
        & (along <= np.einsum("ki,ki->k", ab, ab)[:, None])
        & (across <= np.einsum("ki,ki->k", da, da)[:, None])
    )
    return inside


def intersection_areas(one: np.ndarray, many: np.ndarray) -> np.ndarray:
    """Area of the intersection of the rectangle ``one [4, 2]`` with each of ``many [K, 4, 2]``:
    the convex polygon through the edge crossings and the corners inside the other box."""
    k = many.shape[0]
    a = np.broadcast_to(one, many.shape)
    ea, eb = np.roll(a, -1, axis=1) - a, np.roll(many, -1, axis=1) - many  # edges [K, 4, 2]
    det = _cross(eb[:, None, :, :], ea[:, :, None, :])  # [K, 4 (a), 4 (b)]
    d = many[:, None, :, :] - a[:, :, None, :]
    with np.errstate(all="ignore"):
        t1 = _cross(eb[:, None, :, :], d) / det
        t2 = _cross(ea[:, :, None, :], d) / det
    crossing = (np.abs(det) > 1e-14) & (t1 >= 0) & (t1 <= 1) & (t2 >= 0) & (t2 <= 1)
    hits = a[:, :, None, :] + ea[:, :, None, :] * np.where(crossing, t1, 0)[..., None]
    points = np.concatenate([hits.reshape(k, 16, 2), a, many], axis=1)
    valid = np.concatenate([crossing.reshape(k, 16), _inside(a, many), _inside(many, a)], axis=1)
    count = valid.sum(axis=1)
    centre = np.where(valid[..., None], points, 0).sum(axis=1) / np.maximum(count, 1)[:, None]
    rel = points - centre[:, None, :]
    angle = np.where(valid, np.arctan2(rel[..., 1], rel[..., 0]), np.inf)
    order = np.argsort(angle, axis=1, kind="stable")
    rel = np.take_along_axis(rel, order[..., None], axis=1)
    position = np.arange(points.shape[1])[None, :]
    following = np.where(position + 1 < count[:, None], position + 1, 0)
    nxt = np.take_along_axis(rel, following[..., None], axis=1)
    twice = np.where(position < count[:, None], _cross(rel, nxt), 0.0).sum(axis=1)
    area: np.ndarray = np.where(count > 2, np.abs(twice) / 2, 0.0)
    return area


def rotated_iou(one: np.ndarray, many: np.ndarray) -> np.ndarray:
    """IoU (f32) of the box ``one [5]`` with each row of ``many [K, 5]``."""
    area_one = np.float32(one[2] * one[3])
    areas = (many[:, 2] * many[:, 3]).astype(np.float32)
    inter = intersection_areas(corners(one), corners(many))
    with np.errstate(all="ignore"):
        iou = (inter / (np.float64(area_one) + areas.astype(np.float64) - inter)).astype(np.float32)
    out: np.ndarray = np.where((area_one <= 0) | (areas <= 0), np.float32(0), iou)
    return out


def _select(
    boxes: np.ndarray, scores: np.ndarray, limit: int, iou_t: np.float32, score_t: np.float32
) -> list[int]:
    index = np.flatnonzero(scores >= score_t)
    order = index[np.lexsort((index, -scores[index].astype(np.float64)))]
    kept: list[int] = []
    for i in order:
        if len(kept) >= limit:
            break
        if kept and bool(np.any(rotated_iou(boxes[i], boxes[kept]) > iou_t)):
            continue
        kept.append(int(i))
    return kept


def _scalar(a: np.ndarray, name: str) -> np.generic:
    a = np.asarray(a)
    if a.size != 1:
        raise InputError(f"Expected 0D or 1D tensor for the '{name}' input, got shape {list(a.shape)}")
    value: np.generic = a.reshape(-1)[0]
    return value


def evaluate_nms_rotated(attrs: NMSRotatedAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    boxes = np.asarray(inputs[0]).astype(np.float32)
    scores = np.asarray(inputs[1]).astype(np.float32)
    if boxes.ndim != 3 or scores.ndim != 3 or boxes.shape[2] != 5 or boxes.shape[0] != scores.shape[0] \
            or boxes.shape[1] != scores.shape[2]:  # fmt: skip
        raise InputError(
            f"boxes must be [B, N, 5] and scores [B, C, N], got {list(boxes.shape)} and {list(scores.shape)}"
        )
    if not attrs.clockwise:
        boxes = boxes.copy()
        boxes[..., 4] = -boxes[..., 4]
    limit = max(int(_scalar(inputs[2], _SCALARS[0])), 0)
    iou_t = np.float32(_scalar(inputs[3], _SCALARS[1]))
    score_t = np.float32(_scalar(inputs[4], _SCALARS[2]))
    rows: list[tuple[int, int, int, np.float32]] = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            rows.extend(
                (b, c, i, scores[b, c, i]) for i in _select(boxes[b], scores[b, c], limit, iou_t, score_t)
            )
    if attrs.sort_result_descending:
        rows.sort(key=lambda r: (-float(r[3]), r[0], r[1], r[2]))
    dtype = numpy_dtype_of(attrs.output_type)
    return [
        np.array([r[:3] for r in rows], dtype=np.int64).reshape(-1, 3).astype(dtype),
        np.array([(r[0], r[1], r[3]) for r in rows], dtype=np.float32).reshape(-1, 3),
        np.array([len(rows)], dtype=dtype),
    ]


SPECS = (
    OpSpec(
        type="NMSRotated",
        version=13,
        since=13,
        inputs=5,
        parse=parse_nms_rotated,
        infer=infer_nms_rotated,
        evaluate=evaluate_nms_rotated,
        foldable=False,
    ),
)
