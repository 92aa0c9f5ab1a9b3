"""MulticlassNms-8 and -9: PaddlePaddle's multi-class NMS (``multiclass_nms3``) as an OpenVINO op.

Inputs: ``boxes [B, N, 4]`` (``x1, y1, x2, y2``) and ``scores [B, C, N]`` of one of f32, f16,
bf16 (boxes shared by the classes); MulticlassNms-9 also takes ``boxes [C, N, 4]``, ``scores
[C, N]`` and ``roisnum [B]`` (i32/i64): image ``b`` owns the next ``roisnum[b]`` boxes of
every class.  Outputs: ``selected_outputs [K, 6]`` (class, score, x1, y1, x2, y2) in the boxes'
type, ``selected_indices [K, 1]`` and ``selected_num [B]`` of ``output_type``.

Shape (``multiclass_nms_shape_inference.hpp``): K is ``0..M``; ``M`` = ``min(N, nms_top_k)``
(``N`` when ``nms_top_k`` is -1 or ``N`` unbounded) times ``C``, replaced by ``keep_top_k``
when that is smaller than a bounded product, times ``B`` (scores' first dim, or roisnum's);
``?`` when unbounded.  ``selected_num`` takes boxes' first dim (roisnum's with three inputs).
Both versions ignore ``background_class`` in the bound.  Shape errors come before the type
and attribute checks, as OpenVINO orders them.

Values: per image and class (``background_class`` skipped), boxes with ``score >=
score_threshold`` are taken by descending score (ties: lower box index), at most
``nms_top_k`` of them; each is kept when its IoU with every box kept before is at most the
adaptive threshold (``iou_threshold``, multiplied by ``nms_eta`` after each kept box while it
is above 0.5), IoU in f32 as ``reference/multiclass_nms.cpp`` computes it (``normalized=false``
adds 1 to widths and heights; a box of area ``<= 0`` overlaps nothing).  An image's boxes are
ordered by score (ties: class, then index) and cut to ``keep_top_k``; ``sort_result_type=classid``
then orders them by class (ties: score down, index).  ``sort_result_across_batch`` sorts the
whole output by score (ties: image, class, index) or by class (ties: image, score, index).
Indices: ``b * N + i`` with shared boxes, ``(start_b + i) * C + c`` with roisnum (start_b: the
image's first box), as the reference and the CPU plugin give them.

Where the spec, OpenVINO's reference and its CPU plugin differ (docs/openvino-behaviour.md):
the spec (and PaddlePaddle) suppress a box at ``iou > threshold``; the reference and the CPU
plugin at ``iou >= threshold``.  ovonehot follows the spec.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, enum_attr, float_attr, int_attr
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo
from .common.widening import is_narrow_float


class SortResultType(enum.Enum):
    CLASSID = "classid"
    SCORE = "score"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class MulticlassNmsAttrs:
    sort_result_type: SortResultType = SortResultType.NONE
    sort_result_across_batch: bool = False
    output_type: ElementType = ElementType.i64
    iou_threshold: float = 0.0
    score_threshold: float = 0.0
    nms_top_k: int = -1
    keep_top_k: int = -1
    background_class: int = -1
    nms_eta: float = 1.0
    normalized: bool = True


def parse_multiclass_nms(node: Node) -> MulticlassNmsAttrs:
    return MulticlassNmsAttrs(
        enum_attr(node, "sort_result_type", SortResultType, SortResultType.NONE),
        bool_attr(node, "sort_result_across_batch", False),
        element_type_attr(node, "output_type", ElementType.i64),
        float_attr(node, "iou_threshold", 0.0),
        float_attr(node, "score_threshold", 0.0),
        int_attr(node, "nms_top_k", -1),
        int_attr(node, "keep_top_k", -1),
        int_attr(node, "background_class", -1),
        float_attr(node, "nms_eta", 1.0),
        bool_attr(node, "normalized", True),
    )


BOX_TYPES = (ElementType.f32, ElementType.f16, ElementType.bf16)


def check_rank(shape: PartialShape, rank: int, what: str) -> None:
    if shape.rank_is_static and shape.rank != rank:
        raise ValidationError(f"Expected a {rank}D tensor for the '{what}' input, got {shape}")


def check_boxes(boxes: PartialShape, scores: PartialShape) -> None:
    """The checks every NMS of this family makes once boxes have a static rank: OpenVINO reads
    the scores' first dim then, and refuses scores of dynamic rank (its own indexing error)."""
    if not scores.rank_is_static:
        raise ValidationError(
            "scores of dynamic rank with boxes of static rank: OpenVINO's shape inference refuses them "
            "('Accessing out-of-range dimension')"
        )
    if not boxes[0].compatible(scores[0]):
        raise ValidationError(
            f"The first dimension of both 'boxes' and 'scores' must match. Boxes: {boxes}, scores: {scores}"
        )
    if not boxes[2].compatible(Dimension.static(4)):
        raise ValidationError(f"The last dimension of the 'boxes' input must be equal to 4, got {boxes}")


def check_boxes_scores(boxes: PartialShape, scores: PartialShape) -> None:
    """Boxes ``[N, M, 4]`` and scores ``[N, C, M]`` of static rank agree, in OpenVINO's words."""
    if not boxes[0].compatible(scores[0]):
        raise ValidationError(
            f"The first dimension of both 'boxes' and 'scores' must match. Boxes: {boxes}, scores: {scores}"
        )
    if not boxes[1].compatible(scores[2]):
        raise ValidationError(
            "'boxes' and 'scores' input shapes must match at the second and third dimension "
            f"respectively. Boxes: {boxes}, scores: {scores}"
        )


def top_k_bound(boxes: Dimension, nms_top_k: int) -> Dimension:
    """Boxes per class after ``nms_top_k``: OpenVINO's ``min(max length, nms_top_k)``, where an
    unbounded dim counts as -1 (so stays unbounded)."""
    if nms_top_k <= -1:
        return boxes
    if boxes.max is None:
        return Dimension()
    return Dimension.static(min(boxes.max, nms_top_k))


def upto(d: Dimension) -> Dimension:
    """``0..max(d)``: how many boxes an NMS of at most ``d`` selects."""
    return Dimension(0, d.max) if d.max is not None else Dimension()


def check_box_types(output_type: ElementType, inputs: Sequence[TensorInfo]) -> None:
    """The output type and the boxes' and scores' types (a dynamic type fails too)."""
    if output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"Output type must be i32 or i64, got {output_type}")
    for k, what in ((0, "boxes"), (1, "scores")):
        et = inputs[k].element_type
        if not is_narrow_float(et, BOX_TYPES):  # (f64 only in the envelope's truth run)
            raise ValidationError(
                f"Expected bf16, fp16 or fp32 as element type for the '{what}' input, got {et}"
            )
    if inputs[0].element_type is not inputs[1].element_type:
        raise ValidationError(
            f"Expected 'boxes', 'scores' type is same, got {inputs[0].element_type} and {inputs[1].element_type}"
        )


def check_top_k(nms_top_k: int, keep_top_k: int, background_class: int) -> None:
    for name, value in (
        ("nms_top_k", nms_top_k),
        ("keep_top_k", keep_top_k),
        ("background_class", background_class),
    ):
        if value < -1:
            raise ValidationError(f"The '{name}' must be great or equal -1. Got: {value}")


def check_types(attrs: MulticlassNmsAttrs, inputs: Sequence[TensorInfo]) -> None:
    """``MulticlassNmsBase::validate``: types and attributes."""
    check_box_types(attrs.output_type, inputs)
    if len(inputs) == 3 and inputs[2].element_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(
            f"Expected i64 or i32 as element type for the 'roisnum' input, got {inputs[2].element_type}"
        )
    check_top_k(attrs.nms_top_k, attrs.keep_top_k, attrs.background_class)
    if not 0.0 <= attrs.nms_eta <= 1.0:
        raise ValidationError(f"The 'nms_eta' must be in close range [0, 1.0]. Got: {attrs.nms_eta}")


def infer_multiclass_nms(attrs: MulticlassNmsAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    boxes, scores = inputs[0].shape, inputs[1].shape
    rois = inputs[2].shape if len(inputs) == 3 else None
    check_rank(boxes, 3, "boxes")
    check_rank(scores, 2 if rois is not None else 3, "scores")
    if rois is not None:
        check_rank(rois, 1, "roisnum")
    selected, images = Dimension(), Dimension()
    if boxes.rank_is_static:
        check_boxes(boxes, scores)
        if rois is not None and not boxes[1].compatible(scores[1]):
            raise ValidationError(
                "'boxes' and 'scores' input shapes must match at the second dimension respectively. "
                f"Boxes: {boxes}, scores: {scores}"
            )
        if rois is None:
            check_boxes_scores(boxes, scores)
        if rois is None or rois.rank_is_static:
            classes = boxes[0] if rois is not None else scores[1]
            images = rois[0] if rois is not None else boxes[0]
            selected = _selected(attrs, boxes[1], classes, rois[0] if rois is not None else scores[0])
    check_types(attrs, inputs)
    return [
        TensorInfo(inputs[0].element_type, PartialShape((selected, Dimension.static(6)))),
        TensorInfo(attrs.output_type, PartialShape((selected, Dimension.static(1)))),
        TensorInfo(attrs.output_type, PartialShape((images,))),
    ]


def _selected(
    attrs: MulticlassNmsAttrs, boxes: Dimension, classes: Dimension, images: Dimension
) -> Dimension:
    per_image = mul(top_k_bound(boxes, attrs.nms_top_k), classes)
    if attrs.keep_top_k > -1 and per_image.max is not None and attrs.keep_top_k < per_image.max:
        per_image = Dimension.static(attrs.keep_top_k)
    return upto(mul(per_image, images))


# -- the kernel ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pick:
    """One selected box: its image, class, index among the image's boxes, score and corners."""

    image: int
    klass: int
    index: int
    score: np.float32
    box: tuple[float, float, float, float]


def iou_with(box: np.ndarray, others: np.ndarray, normalized: bool) -> np.ndarray:
    """IoU of one ``x1, y1, x2, y2`` box with each row of ``others``, in f32, as the reference
    computes it (``normalized=false`` adds 1 to every side; an area ``<= 0`` gives 0)."""
    one = np.float32(0.0 if normalized else 1.0)
    with np.errstate(all="ignore"):
        area_i = (box[3] - box[1] + one) * (box[2] - box[0] + one)
        area_j = (others[:, 3] - others[:, 1] + one) * (others[:, 2] - others[:, 0] + one)
        ih = np.maximum(
            np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + one, np.float32(0)
        )
        iw = np.maximum(
            np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + one, np.float32(0)
        )
        inter = ih * iw
        iou = inter / (area_i + area_j - inter)
    out: np.ndarray = np.where((area_i <= 0) | (area_j <= 0), np.float32(0), iou).astype(np.float32)
    return out


def candidates(scores: np.ndarray, threshold: np.float32, top_k: int) -> np.ndarray:
    """Box indices with ``score >= threshold`` by descending score (ties: lower index), the
    first ``top_k`` of them (-1: all)."""
    index = np.flatnonzero(scores >= threshold)
    order: np.ndarray = index[np.lexsort((index, -scores[index].astype(np.float64)))]
    return order if top_k < 0 else order[:top_k]


def _nms_class(attrs: MulticlassNmsAttrs, boxes: np.ndarray, scores: np.ndarray) -> list[int]:
    """The boxes one class keeps, in selection order (PaddlePaddle's NMSFast)."""
    threshold = np.float32(attrs.iou_threshold)
    eta = np.float32(attrs.nms_eta)
    kept: list[int] = []
    for i in candidates(scores, np.float32(attrs.score_threshold), attrs.nms_top_k):
        if kept and bool(np.any(iou_with(boxes[i], boxes[kept], attrs.normalized) > threshold)):
            continue
        kept.append(int(i))
        if eta < 1 and threshold > 0.5:
            threshold = np.float32(threshold * eta)
    return kept


def _image(attrs: MulticlassNmsAttrs, image: int, boxes: np.ndarray, scores: np.ndarray) -> list[Pick]:
    """The picks of one image: ``boxes`` is ``[N, 4]`` (shared) or ``[C, N, 4]``, ``scores [C, N]``."""
    picks: list[Pick] = []
    for c in range(scores.shape[0]):
        if c == attrs.background_class:
            continue
        class_boxes = boxes if boxes.ndim == 2 else boxes[c]
        for i in _nms_class(attrs, class_boxes, scores[c]):
            corners = tuple(float(v) for v in class_boxes[i])
            picks.append(Pick(image, c, i, scores[c, i], (corners[0], corners[1], corners[2], corners[3])))
    picks.sort(key=lambda p: (-float(p.score), p.klass, p.index))
    if attrs.keep_top_k > -1:
        picks = picks[: attrs.keep_top_k]
    return sort_within_image(attrs.sort_result_type, attrs.sort_result_across_batch, picks)


def sort_within_image(sort: SortResultType, across: bool, picks: list[Pick]) -> list[Pick]:
    """An image's picks by score (ties: class, index), or by class (ties: score down, index) when
    ``sort_result_type=classid`` and the sort is not across the batch."""
    picks = sorted(picks, key=lambda p: (-float(p.score), p.klass, p.index))
    if not across and sort is SortResultType.CLASSID:
        picks.sort(key=lambda p: (p.klass, -float(p.score), p.index))
    return picks


def sort_across_batch(sort: SortResultType, across: bool, picks: list[Pick]) -> list[Pick]:
    if not across:
        return picks
    if sort is SortResultType.SCORE:
        return sorted(picks, key=lambda p: (-float(p.score), p.image, p.klass, p.index))
    if sort is SortResultType.CLASSID:
        return sorted(picks, key=lambda p: (p.klass, p.image, -float(p.score), p.index))
    return picks


def _images(boxes: np.ndarray, scores: np.ndarray, rois: np.ndarray | None) -> list[tuple[int, slice]]:
    """Each image's first box and its boxes (a slice of the box axis); checks the shapes."""
    if rois is None:
        if boxes.ndim != 3 or scores.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != scores.shape[0] \
                or boxes.shape[1] != scores.shape[2]:  # fmt: skip
            raise InputError(
                f"boxes must be [B, N, 4] and scores [B, C, N], got {list(boxes.shape)} and {list(scores.shape)}"
            )
        return [(0, slice(None))] * boxes.shape[0]
    if boxes.ndim != 3 or scores.ndim != 2 or boxes.shape[2] != 4 or boxes.shape[:2] != scores.shape \
            or rois.ndim != 1:  # fmt: skip
        raise InputError(
            f"boxes must be [C, N, 4], scores [C, N] and roisnum [B], got {list(boxes.shape)}, "
            f"{list(scores.shape)} and {list(rois.shape)}"
        )
    out, start = [], 0
    for n in rois.astype(np.int64).tolist():
        if n > 0 and start + n > boxes.shape[1]:
            raise InputError(f"roisnum {rois.tolist()} asks for more than the {boxes.shape[1]} boxes given")
        out.append((start, slice(start, start + max(n, 0))))
        start += max(n, 0)
    return out


def _rows(picks: Sequence[Pick], inputs: Sequence[np.ndarray], batched: bool) -> list[tuple[float, ...]]:
    """The selected rows with the float64 inputs' own scores and boxes (the envelope's truth run:
    selection is decided in f32 as the reference does, the values keep their precision)."""
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    if batched:
        return [
            (p.klass, float(scores[p.image, p.klass, p.index]), *boxes[p.image, p.index].tolist())
            for p in picks
        ]
    return [(p.klass, float(scores[p.klass, p.index]), *boxes[p.klass, p.index].tolist()) for p in picks]


def evaluate_multiclass_nms(attrs: MulticlassNmsAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    dtype = np.asarray(inputs[0]).dtype
    boxes = np.asarray(inputs[0]).astype(np.float32)
    scores = np.asarray(inputs[1]).astype(np.float32)
    rois = np.asarray(inputs[2]) if len(inputs) == 3 else None
    picks: list[Pick] = []
    counts: list[int] = []
    for b, (start, part) in enumerate(_images(boxes, scores, rois)):
        if rois is None:
            found = _image(attrs, b, boxes[b], scores[b])
        else:
            found = _image(attrs, b, boxes[:, part], scores[:, part])
            found = [Pick(p.image, p.klass, p.index + start, p.score, p.box) for p in found]
        counts.append(len(found))
        picks.extend(found)
    picks = sort_across_batch(attrs.sort_result_type, attrs.sort_result_across_batch, picks)
    rows = (
        _rows(picks, inputs, rois is None)
        if dtype == np.float64
        else [(p.klass, p.score, *p.box) for p in picks]
    )
    if rois is None:
        flat = [p.image * boxes.shape[1] + p.index for p in picks]
    else:
        flat = [p.index * boxes.shape[0] + p.klass for p in picks]
    index_type = numpy_dtype_of(attrs.output_type)
    return [
        np.array(rows, dtype=np.float32 if dtype != np.float64 else dtype).reshape(-1, 6).astype(dtype),
        np.array(flat, dtype=np.int64).reshape(-1, 1).astype(index_type),
        np.array(counts, dtype=np.int64).astype(index_type),
    ]


SPECS = (
    OpSpec(
        type="MulticlassNms",
        version=8,
        since=8,
        inputs=2,
        parse=parse_multiclass_nms,
        infer=infer_multiclass_nms,
        evaluate=evaluate_multiclass_nms,
        foldable=False,
        copies_values=True,
    ),
    OpSpec(
        type="MulticlassNms",
        version=9,
        since=9,
        inputs=(2, 3),
        parse=parse_multiclass_nms,
        infer=infer_multiclass_nms,
        evaluate=evaluate_multiclass_nms,
        foldable=False,
        copies_values=True,
    ),
)
