"""MatrixNms-8: Matrix NMS (Wang et al., SOLOv2; PaddlePaddle's ``matrix_nms``): scores decay, no box is dropped by overlap.

Inputs: ``boxes [B, N, 4]`` (``x1, y1, x2, y2``) and ``scores [B, C, N]`` of one of f32, f16,
bf16.  Outputs as MulticlassNms's (:mod:`.multiclass_nms`): ``selected_outputs [K, 6]`` (class,
decayed score, box) in the boxes' type, ``selected_indices [K, 1]`` (``b * N + i``) and
``selected_num [B]`` of ``output_type``.

Shape (``matrix_nms_shape_inference.hpp``): K is ``0..M``, ``M = min(min(N, nms_top_k) * C,
keep_top_k) * B`` on upper bounds (an unbounded factor leaves it ``?``); ``selected_num`` takes
boxes' first dim.  ``nms_top_k``, ``keep_top_k`` and ``background_class`` below -1 are refused
only when boxes have a static rank, as OpenVINO checks them.

Values (``reference/matrix_nms.cpp``): per image and class (``background_class`` skipped), the
boxes with ``score > score_threshold``, by descending score (ties: lower index; OpenVINO's
``partial_sort`` leaves tie order unspecified), at most ``nms_top_k``.  With IoU ``x[i, j]`` of
candidates ``j < i`` (0 when they do not touch; ``normalized=false`` adds 1 to sides; a box with
``x2 < x1`` or ``y2 < y1`` has area 0) and ``m[j]`` the largest IoU of candidate ``j`` with those
before it, candidate ``i``'s score is multiplied by ``min(1, min_j decay)``, ``decay =
exp((m[j]**2 - x**2) * gaussian_sigma)`` (f32, ``expf``) or ``(1 - x) / (1 - m[j] + 1e-10)``
(``linear``, in double as the reference writes it); it is kept when the decayed score is above
``post_threshold``.  An image's boxes are ordered by decayed score (ties: class, index) and cut
to ``keep_top_k``; the remaining order follows MulticlassNms.

Where the spec, the reference and the CPU plugin differ (docs/openvino-behaviour.md): with
``sort_result_type=classid`` and no sort across the batch, both OpenVINO implementations keep
the score order, the spec asks class order: ovonehot sorts by class.  The reference stops at the
first image with no selection (later images unwritten); the CPU plugin and ovonehot go on.
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
from .common.numeric import narrow
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo
from .multiclass_nms import (
    Pick,
    SortResultType,
    check_box_types,
    check_boxes_scores,
    check_rank,
    check_top_k,
    sort_across_batch,
    sort_within_image,
    top_k_bound,
    upto,
)


class DecayFunction(enum.Enum):
    GAUSSIAN = "gaussian"
    LINEAR = "linear"


@dataclass(frozen=True, slots=True)
class MatrixNmsAttrs:
    sort_result_type: SortResultType = SortResultType.NONE
    sort_result_across_batch: bool = False
    output_type: ElementType = ElementType.i64
    score_threshold: float = 0.0
    nms_top_k: int = -1
    keep_top_k: int = -1
    background_class: int = -1
    decay_function: DecayFunction = DecayFunction.LINEAR
    gaussian_sigma: float = 2.0
    post_threshold: float = 0.0
    normalized: bool = True


def parse_matrix_nms(node: Node) -> MatrixNmsAttrs:
    return MatrixNmsAttrs(
        enum_attr(node, "sort_result_type", SortResultType, SortResultType.NONE),
        bool_attr(node, "sort_result_across_batch", False),
        element_type_attr(node, "output_type", ElementType.i64),
        float_attr(node, "score_threshold", 0.0),
        int_attr(node, "nms_top_k", -1),
        int_attr(node, "keep_top_k", -1),
        int_attr(node, "background_class", -1),
        enum_attr(node, "decay_function", DecayFunction, DecayFunction.LINEAR),
        float_attr(node, "gaussian_sigma", 2.0),
        float_attr(node, "post_threshold", 0.0),
        bool_attr(node, "normalized", True),
    )


def infer_matrix_nms(attrs: MatrixNmsAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    boxes, scores = inputs[0].shape, inputs[1].shape
    check_rank(boxes, 3, "boxes")
    check_rank(scores, 3, "scores")
    selected, images = Dimension(), Dimension()
    if boxes.rank_is_static:
        check_top_k(attrs.nms_top_k, attrs.keep_top_k, attrs.background_class)
        per_class = top_k_bound(boxes[1], attrs.nms_top_k)
        if scores.rank_is_static:
            check_boxes_scores(boxes, scores)
            per_image = mul(per_class, scores[1])
            if attrs.keep_top_k > -1:
                per_image = (
                    Dimension()
                    if per_image.max is None
                    else Dimension.static(min(per_image.max, attrs.keep_top_k))
                )
            selected = upto(mul(per_image, scores[0]))
        if not boxes[2].compatible(Dimension.static(4)):
            raise ValidationError(f"The last dimension of the 'boxes' input must be equal to 4, got {boxes}")
        images = boxes[0]
    check_box_types(attrs.output_type, inputs)
    return [
        TensorInfo(inputs[0].element_type, PartialShape((selected, Dimension.static(6)))),
        TensorInfo(attrs.output_type, PartialShape((selected, Dimension.static(1)))),
        TensorInfo(attrs.output_type, PartialShape((images,))),
    ]


# -- the kernel ---------------------------------------------------------------------------------
def iou_matrix(boxes: np.ndarray, normalized: bool) -> np.ndarray:
    """Pairwise IoU of ``[n, 4]`` boxes in f32, as ``matrix_nms_v8::intersectionOverUnion``."""
    one = np.float32(0.0 if normalized else 1.0)
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    with np.errstate(all="ignore"):
        valid = (x2 >= x1) & (y2 >= y1)
        area = np.where(valid, (x2 - x1 + one) * (y2 - y1 + one), np.float32(0)).astype(np.float32)
        apart = (
            (x1[None, :] > x2[:, None])
            | (x2[None, :] < x1[:, None])
            | (y1[None, :] > y2[:, None])
            | (y2[None, :] < y1[:, None])
        )
        iw = np.minimum(x2[:, None], x2[None, :]) - np.maximum(x1[:, None], x1[None, :]) + one
        ih = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :]) + one
        inter = iw * ih
        iou = inter / (area[:, None] + area[None, :] - inter)
    out: np.ndarray = np.where(apart, np.float32(0), iou).astype(np.float32)
    return out


def _decay(attrs: MatrixNmsAttrs, iou: np.ndarray, max_iou: np.ndarray) -> np.ndarray:
    """The decay of each candidate ``i`` by each ``j`` (``iou[i, j]``, ``max_iou[j]``), f32."""
    with np.errstate(all="ignore"):
        if attrs.decay_function is DecayFunction.GAUSSIAN:
            sigma = np.float32(attrs.gaussian_sigma)
            power = (max_iou[None, :] * max_iou[None, :] - iou * iou) * sigma
            out: np.ndarray = np.exp(power.astype(np.float64)).astype(np.float32)
            return out
        denominator = 1.0 - max_iou.astype(np.float64) + float(np.float32(1e-10))
        linear: np.ndarray = ((1.0 - iou.astype(np.float64)) / denominator[None, :]).astype(np.float32)
        return linear


def _matrix_class(
    attrs: MatrixNmsAttrs, boxes: np.ndarray, scores: np.ndarray
) -> list[tuple[int, np.float32]]:
    """(box, decayed score) of one class, in candidate order."""
    index = np.flatnonzero(scores > np.float32(attrs.score_threshold))
    order = index[np.lexsort((index, -scores[index].astype(np.float64)))]
    if attrs.nms_top_k > -1:
        order = order[: attrs.nms_top_k]
    n = order.size
    if n == 0:
        return []
    iou = np.tril(iou_matrix(boxes[order], attrs.normalized), -1)  # x[i, j], j < i
    max_iou = np.fmax.reduce(np.where(np.tri(n, k=-1, dtype=bool), iou, np.float32(0)), axis=1, initial=0.0)
    decay = np.where(
        np.tri(n, k=-1, dtype=bool), _decay(attrs, iou, max_iou.astype(np.float32)), np.float32(1)
    )
    factor = np.fmin.reduce(decay, axis=1, initial=1.0).astype(np.float32)  # (a NaN decay never wins)
    with np.errstate(all="ignore"):
        decayed = (factor * scores[order]).astype(np.float32)
    post = np.float32(attrs.post_threshold)
    return [(int(order[k]), decayed[k]) for k in range(n) if decayed[k] > post]


def evaluate_matrix_nms(attrs: MatrixNmsAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    dtype = np.asarray(inputs[0]).dtype
    boxes = np.asarray(inputs[0]).astype(np.float32)
    scores = np.asarray(inputs[1]).astype(np.float32)
    if boxes.ndim != 3 or scores.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != scores.shape[0] \
            or boxes.shape[1] != scores.shape[2]:  # fmt: skip
        raise InputError(
            f"boxes must be [B, N, 4] and scores [B, C, N], got {list(boxes.shape)} and {list(scores.shape)}"
        )
    picks: list[Pick] = []
    counts: list[int] = []
    for b in range(boxes.shape[0]):
        found = []
        for c in range(scores.shape[1]):
            if c == attrs.background_class:
                continue
            for i, score in _matrix_class(attrs, boxes[b], scores[b, c]):
                x1, y1, x2, y2 = (float(v) for v in boxes[b, i])
                found.append(Pick(b, c, i, score, (x1, y1, x2, y2)))
        found.sort(key=lambda p: (-float(p.score), p.klass, p.index))
        if attrs.keep_top_k > -1:
            found = found[: attrs.keep_top_k]
        found = sort_within_image(attrs.sort_result_type, attrs.sort_result_across_batch, found)
        counts.append(len(found))
        picks.extend(found)
    picks = sort_across_batch(attrs.sort_result_type, attrs.sort_result_across_batch, picks)
    rows = np.array([(float(p.klass), float(p.score), *p.box) for p in picks], dtype=np.float32).reshape(
        -1, 6
    )
    index_type = numpy_dtype_of(attrs.output_type)
    return [
        narrow(rows, dtype),
        np.array([p.image * boxes.shape[1] + p.index for p in picks], dtype=np.int64)
        .reshape(-1, 1)
        .astype(index_type),
        np.array(counts, dtype=np.int64).astype(index_type),
    ]


SPECS = (
    OpSpec(
        type="MatrixNms",
        version=8,
        since=8,
        inputs=2,
        parse=parse_matrix_nms,
        infer=infer_matrix_nms,
        evaluate=evaluate_matrix_nms,
        foldable=False,
    ),
)
