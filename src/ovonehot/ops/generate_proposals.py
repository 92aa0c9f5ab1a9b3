"""GenerateProposals-9: region proposals from anchors, box deltas and objectness scores (Mask R-CNN's RPN head).

Inputs: ``im_info [B, 3|4]`` (height, width, scale or scale_h, scale_w), ``anchors [H, W, A,
4]`` (x0, y0, x1, y1), ``deltas [B, A*4, H, W]`` (dx, dy, dlog_w, dlog_h per anchor) and
``scores [B, A, H, W]``.  Outputs: ``rpnrois [R, 4]`` and ``rpnscores [R]`` of im_info's type
(the proposals of every image, image after image), ``rpnroisnum [B]`` of ``roi_num_type``.

Shape (``generate_proposals_shape_inference.hpp``): B merged from the four inputs' batch dims
(a dim that does not merge is skipped silently, as ``Dimension::merge`` does, unless the pairwise
checks below catch it); R is ``0..B*post_nms_count``.  OpenVINO checks ``pre_nms_count > 0``,
``post_nms_count > 0``, ``nms_eta == 1`` and the output type, but no input type: integer or f64
inputs pass inference, and ovonehot refuses them at run time as the reference does (f32, f16,
bf16 only).

Values (``reference/generate_proposal.cpp``), in f32 per image: each anchor (in ``h, w, a``
order) is moved by its deltas (``dlog`` clipped at ``log(1000/16)``; ``normalized=false`` adds 1
to widths and heights and takes it off the far corner), clipped to the image, and marked too
small when its width or height is below ``min_size * scale``.  The proposals are sorted by score
(ties: the ``h, w, a`` order; OpenVINO's ``partial_sort`` leaves it open), the first
``pre_nms_count`` kept, and greedy NMS over them skips the small ones, keeps at most
``post_nms_count`` and suppresses a later proposal whose IoU exceeds ``nms_threshold`` when the
two boxes touch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, float_attr, int_attr
from .common.numeric import narrow, quiet
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class GenerateProposalsAttrs:
    min_size: float
    nms_threshold: float
    pre_nms_count: int
    post_nms_count: int
    normalized: bool = True
    nms_eta: float = 1.0
    roi_num_type: ElementType = ElementType.i64


def parse_generate_proposals(node: Node) -> GenerateProposalsAttrs:
    return GenerateProposalsAttrs(
        float_attr(node, "min_size"),
        float_attr(node, "nms_threshold"),
        int_attr(node, "pre_nms_count"),
        int_attr(node, "post_nms_count"),
        bool_attr(node, "normalized", True),
        float_attr(node, "nms_eta", 1.0),
        element_type_attr(node, "roi_num_type", ElementType.i64),
    )


def _check_attrs(attrs: GenerateProposalsAttrs) -> None:
    if attrs.pre_nms_count <= 0:
        raise ValidationError(f"Attribute pre_nms_count must be larger than 0, got {attrs.pre_nms_count}")
    if attrs.post_nms_count <= 0:
        raise ValidationError(f"Attribute post_nms_count must be larger than 0, got {attrs.post_nms_count}")
    if np.float32(attrs.nms_eta) != 1.0:  # (OpenVINO's message names min_size)
        raise ValidationError(
            f"Attribute nms_eta must be 1.0 (OpenVINO: 'min_size must be 1.0'), got {attrs.nms_eta}"
        )


def _rank(shape: PartialShape, rank: int, what: str) -> None:
    if shape.rank_is_static and shape.rank != rank:
        raise ValidationError(f"The '{what}' input is expected to be a {rank}D. Got: {shape}")


def _same(a: Dimension, b: Dimension, what: str) -> None:
    if not a.compatible(b):
        raise ValidationError(f"{what} should be equal. Got: {a} and {b}")


def _pairwise(info: PartialShape, anchors: PartialShape, deltas: PartialShape, scores: PartialShape) -> None:
    """The cross-input checks, in OpenVINO's order."""
    if deltas.rank_is_static and scores.rank_is_static:
        _same(deltas[0], scores[0], "Batch for inputs 'input_deltas' and 'input_scores'")
        four = Dimension(scores[1].min * 4, None if scores[1].max is None else scores[1].max * 4)
        _same(deltas[1], four, "Anchor number (times 4) for inputs 'input_deltas' and 'input_scores'")
        _same(deltas[2], scores[2], "Heights for inputs 'input_deltas' and 'input_scores'")
        _same(deltas[3], scores[3], "Width for inputs 'input_deltas' and 'input_scores'")
        if info.rank_is_static:
            _same(deltas[0], info[0], "Batch for inputs 'im_info' and 'input_deltas'")
    if scores.rank_is_static and anchors.rank_is_static:
        _same(anchors[0], scores[2], "Heights for inputs 'input_anchors' and 'input_scores'")
        _same(anchors[1], scores[3], "Width for inputs 'input_anchors' and 'input_scores'")
        _same(anchors[2], scores[1], "Anchor number for inputs 'input_anchors' and 'input_scores'")


def infer_generate_proposals(attrs: GenerateProposalsAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check_attrs(attrs)
    info, anchors, deltas, scores = (i.shape for i in inputs)
    batches = Dimension()
    _rank(info, 2, "input_im_info")
    if info.rank_is_static:
        if not (info[1].contains(3) or info[1].contains(4)):
            raise ValidationError(
                f"The 'input_im_info' shape[1] is expected to be a compatible with [3] or [4]. Got: {info}"
            )
        batches = batches.merge(info[0]) or batches
    _rank(anchors, 4, "input_anchors")
    if anchors.rank_is_static and not anchors[3].contains(4):
        raise ValidationError(
            f"The fourth dimension of 'input_anchors' should be compatible with 4. Got: {anchors[3]}"
        )
    _rank(deltas, 4, "input_deltas")
    _rank(scores, 4, "input_scores")
    for shape in (deltas, scores):
        if shape.rank_is_static:
            batches = batches.merge(shape[0]) or batches  # (a failed merge keeps the dim, as OpenVINO's)
    _pairwise(info, anchors, deltas, scores)
    if attrs.roi_num_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"The third output type must be int64 or int32, got {attrs.roi_num_type}")
    rois = Dimension(0, None if batches.max is None else batches.max * attrs.post_nms_count)
    et = inputs[0].element_type
    return [
        TensorInfo(et, PartialShape((rois, Dimension.static(4)))),
        TensorInfo(et, PartialShape((rois,))),
        TensorInfo(attrs.roi_num_type, PartialShape((batches,))),
    ]


# -- the kernel ---------------------------------------------------------------------------------
_MAX_DELTA_LOG_WH = np.float32(math.log(1000.0 / 16.0))
_HALF = np.float32(0.5)


def _refine(
    attrs: GenerateProposalsAttrs, info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Proposal boxes ``[P, 4]`` and whether each is large enough, in f32 and the reference's order."""
    off = np.float32(0.0 if attrs.normalized else 1.0)
    img_h, img_w = info[0], info[1]
    scale_h = info[2]
    scale_w = info[3] if info.shape[0] == 4 else info[2]
    x0, y0, x1, y1 = (anchors[:, k] for k in range(4))
    dx, dy, dw, dh = (deltas[:, k] for k in range(4))
    ww, hh = x1 - x0 + off, y1 - y0 + off
    cx, cy = x0 + _HALF * ww, y0 + _HALF * hh
    pcx, pcy = dx * ww + cx, dy * hh + cy
    pw = np.exp(np.minimum(dw, _MAX_DELTA_LOG_WH).astype(np.float64)).astype(np.float32) * ww
    ph = np.exp(np.minimum(dh, _MAX_DELTA_LOG_WH).astype(np.float64)).astype(np.float32) * hh
    zero = np.float32(0)
    x0 = np.maximum(zero, np.minimum(pcx - _HALF * pw, img_w - off))
    y0 = np.maximum(zero, np.minimum(pcy - _HALF * ph, img_h - off))
    x1 = np.maximum(zero, np.minimum(pcx + _HALF * pw - off, img_w - off))
    y1 = np.maximum(zero, np.minimum(pcy + _HALF * ph - off, img_h - off))
    min_size = np.float32(attrs.min_size)
    big = (min_size * scale_w <= x1 - x0 + off) & (min_size * scale_h <= y1 - y0 + off)
    return np.stack([x0, y0, x1, y1], axis=1), big


def _nms(attrs: GenerateProposalsAttrs, boxes: np.ndarray, alive: np.ndarray) -> list[int]:
    off = np.float32(0.0 if attrs.normalized else 1.0)
    threshold = np.float32(attrs.nms_threshold)
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    area = (x1 - x0 + off) * (y1 - y0 + off)
    dead = ~alive
    kept: list[int] = []
    for i in range(boxes.shape[0]):
        if dead[i]:
            continue
        kept.append(i)
        if len(kept) == attrs.post_nms_count:
            break
        t = slice(i + 1, None)
        width = np.maximum(np.float32(0), np.minimum(x1[i], x1[t]) - np.maximum(x0[i], x0[t]) + off)
        height = np.maximum(np.float32(0), np.minimum(y1[i], y1[t]) - np.maximum(y0[i], y0[t]) + off)
        inter = width * height
        iou = inter / (area[i] + area[t] - inter)
        touch = (x0[i] <= x1[t]) & (y0[i] <= y1[t]) & (x0[t] <= x1[i]) & (y0[t] <= y1[i])
        dead[t] |= (threshold < iou) & touch
    return kept


def _image(attrs: GenerateProposalsAttrs, info: np.ndarray, anchors: np.ndarray, deltas: np.ndarray,
           scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    a, h, w = scores.shape
    per_anchor = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
    flat_scores = scores.transpose(1, 2, 0).reshape(-1)
    boxes, big = _refine(attrs, info, anchors.reshape(-1, 4), per_anchor)
    order = np.argsort(-flat_scores.astype(np.float64), kind="stable")[
        : min(flat_scores.size, attrs.pre_nms_count)
    ]
    kept = order[_nms(attrs, boxes[order], big[order])]
    return boxes[kept], flat_scores[kept]


def evaluate_generate_proposals(
    attrs: GenerateProposalsAttrs, inputs: Sequence[np.ndarray]
) -> list[np.ndarray]:
    info, anchors, deltas, scores = (np.asarray(x) for x in inputs)
    dtype = info.dtype
    allowed = {np.dtype(np.float32), np.dtype(np.float16), ElementType.bf16.numpy_dtype}
    if any(x.dtype not in allowed for x in (info, anchors, deltas, scores)):
        raise InputError(
            "GenerateProposals supports only fp32, fp16, or bf16 data (OpenVINO's reference refuses others)"
        )
    b = info.shape[0] if info.ndim == 2 else -1
    if info.ndim != 2 or info.shape[1] not in (3, 4) or anchors.ndim != 4 or anchors.shape[3] != 4 \
            or scores.ndim != 4 or deltas.shape != (b, scores.shape[1] * 4, *scores.shape[2:]) \
            or scores.shape[0] != b or anchors.shape[:3] != (*scores.shape[2:], scores.shape[1]):  # fmt: skip
        raise InputError(
            f"im_info {list(info.shape)}, anchors {list(anchors.shape)}, deltas {list(deltas.shape)} and scores "
            f"{list(scores.shape)} do not fit [B, 3|4], [H, W, A, 4], [B, A*4, H, W], [B, A, H, W]"
        )
    f32 = [x.astype(np.float32) for x in (info, anchors, deltas, scores)]
    rois, found, counts = [], [], []
    with quiet():
        for k in range(b):
            boxes, kept_scores = _image(attrs, f32[0][k], f32[1], f32[2][k], f32[3][k])
            rois.append(boxes)
            found.append(kept_scores)
            counts.append(boxes.shape[0])
    all_rois = np.concatenate(rois) if rois else np.zeros((0, 4), np.float32)
    all_scores = np.concatenate(found) if found else np.zeros(0, np.float32)
    return [
        narrow(all_rois, dtype),
        narrow(all_scores, dtype),
        np.array(counts, dtype=numpy_dtype_of(attrs.roi_num_type)),
    ]


SPECS = (
    OpSpec(
        type="GenerateProposals",
        version=9,
        since=9,
        inputs=4,
        parse=parse_generate_proposals,
        infer=infer_generate_proposals,
        evaluate=evaluate_generate_proposals,
        foldable=False,
    ),
)
