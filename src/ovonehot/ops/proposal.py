"""Proposal-0 (opset1) and Proposal-4: Faster R-CNN's region proposal layer.

Inputs: class probabilities ``[N, 2A, H, W]`` (background then foreground scores of ``A``
anchors), box deltas ``[N, 4A, H, W]`` and the image info ``[3 or 4]`` (height, width, scale
of height [and of width]).  Output ``[N * post_nms_topn, 5]`` rows ``(image, x0, y0, x1, y1)``;
Proposal-4 adds the rows' scores ``[N * post_nms_topn]`` (``proposal_shape_inference.hpp``,
its checks and messages; the output type is the class probabilities').

Values (``reference/proposal.hpp`` and the CPU plugin's ``proposal_imp.cpp``, both in f32):
anchors from ``base_size``, ``ratio`` and ``scale`` (rounded for Caffe, shifted by half the base
for ``framework="tensorflow"``, which also clips the anchors to the image, swaps x and y and
takes no +1 in widths); each anchor at each position moved by its deltas (exp sizes), clipped
before NMS if asked, its score zeroed when the box is smaller than ``min_size * scale``; the
``pre_nms_topn`` best by score, greedy NMS (``nms_thresh < IoU`` suppresses) up to
``post_nms_topn``, then clipped after NMS and normalized if asked; unused rows are zeros with
-1 at the start of the first one.

Ordering of equal scores: both OpenVINO kernels take the best ``pre_nms_topn`` with
``std::partial_sort`` comparing scores only, whose order of equal scores is the heap's:
ovonehot runs the same heap algorithm (libstdc++'s ``__heap_select`` and ``__sort_heap``, which
the Linux builds use), so equal scores come out in OpenVINO's order.  With tensorflow the CPU
plugin also swaps the image height and width it clips and normalizes with (the reference does
not): ovonehot follows the plugin, whose x runs along the rows it clips against.  The core op
has no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr, float_attr, int_attr, str_attr
from .common.numeric import narrow, quiet, round_half_away, widen
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo
from .prior_box import floats_attr

F = np.float32


@dataclass(frozen=True, slots=True)
class ProposalAttrs:
    base_size: int
    pre_nms_topn: int
    post_nms_topn: int
    nms_thresh: float
    feat_stride: int
    min_size: int
    ratio: tuple[float, ...]
    scale: tuple[float, ...]
    clip_before_nms: bool
    clip_after_nms: bool
    normalize: bool
    box_size_scale: float
    box_coordinate_scale: float
    framework: str
    with_probs: bool

    @property
    def tensorflow(self) -> bool:
        return self.framework == "tensorflow"


def _parser(with_probs: bool) -> Callable[[Node], ProposalAttrs]:
    def parse(node: Node) -> ProposalAttrs:
        return ProposalAttrs(
            base_size=int_attr(node, "base_size"),
            pre_nms_topn=int_attr(node, "pre_nms_topn"),
            post_nms_topn=int_attr(node, "post_nms_topn"),
            nms_thresh=float(F(float_attr(node, "nms_thresh"))),
            feat_stride=int_attr(node, "feat_stride"),
            min_size=int_attr(node, "min_size"),
            ratio=floats_attr(node, "ratio"),
            scale=floats_attr(node, "scale"),
            clip_before_nms=bool_attr(node, "clip_before_nms", True),
            clip_after_nms=bool_attr(node, "clip_after_nms", False),
            normalize=bool_attr(node, "normalize", False),
            box_size_scale=float(F(float_attr(node, "box_size_scale", 1.0))),
            box_coordinate_scale=float(F(float_attr(node, "box_coordinate_scale", 1.0))),
            framework=str_attr(node, "framework", ""),
            with_probs=with_probs,
        )

    return parse


def infer_proposal(attrs: ProposalAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    for info, what in zip(inputs, ("class_probs", "bbox_deltas", "image_shape"), strict=True):
        if not info.element_type.is_real:
            raise ValidationError(
                f"Proposal layer input {what} should have floating point type ({info.element_type})."
            )
    probs, deltas, image = (i.shape for i in inputs)
    for shape, what in ((probs, "class_probs"), (deltas, "bbox_deltas")):
        if shape.rank_is_static and shape.rank != 4:
            raise ValidationError(f"Proposal layer shape {what} should be rank 4 compatible ({shape}).")
    if image.rank_is_static and not (image.rank == 1 and (image[0].contains(3) or image[0].contains(4))):
        raise ValidationError(
            f"Image_shape must be 1-D tensor and has got 3 or 4 elements (image_shape_shape[0]{image})."
        )
    batch = probs[0] if probs.rank_is_static else Dimension()
    if probs.rank_is_static and deltas.rank_is_static:
        anchors = mul(probs[1], Dimension.static(2))
        if not deltas[1].compatible(anchors):
            raise ValidationError(
                f"Anchor number inconsistent between class_probs ({anchors}), and bbox_deltas ({deltas[1]})."
            )
    if deltas.rank_is_static:
        merged = batch.merge(deltas[0])
        if merged is None:
            raise ValidationError(
                f"Batch size inconsistent between class_probs ({probs[0]}) and bbox deltas ({deltas[0]})."
            )
        batch = merged
    rows = mul(batch, Dimension.static(attrs.post_nms_topn))
    et = inputs[0].element_type
    out = [TensorInfo(et, PartialShape((rows, Dimension.static(5))))]
    if attrs.with_probs:
        out.append(TensorInfo(et, PartialShape((rows,))))
    return out


# -- values ---------------------------------------------------------------------------------
def _cmin(a: np.ndarray, b: np.ndarray | np.floating) -> np.ndarray:
    """``std::min(a, b)``: ``b < a ? b : a``."""
    out: np.ndarray = np.where(b < a, b, a).astype(F)
    return out


def _cmax(a: np.ndarray | np.floating, b: np.ndarray) -> np.ndarray:
    """``std::max(a, b)``: ``a < b ? b : a``."""
    out: np.ndarray = np.where(a < b, b, a).astype(F)
    return out


def anchors(attrs: ProposalAttrs) -> np.ndarray:
    """``generate_anchors``: ``[len(ratio) * len(scale), 4]`` boxes ``x0, y0, x1, y1`` in f32."""
    off = F(0) if attrs.tensorflow else F(1)
    base = F(attrs.base_size)
    area, half, center = F(attrs.base_size * attrs.base_size), base * F(0.5), F(0.5) * (base - off)
    out = []
    with quiet():
        for r in (F(v) for v in attrs.ratio):
            ratio_w = np.sqrt(area / r)
            ratio_h = ratio_w * r
            if not attrs.tensorflow:
                ratio_w = F(round_half_away(np.asarray(ratio_w)))
                ratio_h = F(round_half_away(np.asarray(ratio_w * r)))
            for s in (F(v) for v in attrs.scale):
                sw, sh = F(0.5) * (ratio_w * s - off), F(0.5) * (ratio_h * s - off)
                box = [center - sw, center - sh, center + sw, center + sh]
                out.append([b - half for b in box] if attrs.tensorflow else box)
    return np.array(out, F).reshape(-1, 4)


@dataclass(frozen=True, slots=True)
class _Image:
    """One image's info as the CPU plugin reads it: height and width (swapped for tensorflow),
    the scales."""

    height: np.float32
    width: np.float32
    scale_h: np.float32
    scale_w: np.float32


def _image(attrs: ProposalAttrs, info: np.ndarray) -> _Image:
    h, w = F(info[0]), F(info[1])
    if (
        not (np.isfinite(h) and np.isfinite(w) and abs(h) >= np.finfo(F).tiny and abs(w) >= np.finfo(F).tiny)
        or h < 0
        or w < 0
    ):
        raise InputError("Proposal operation image info input must have positive image height and width.")
    sh = F(info[2])
    sw = F(info[3]) if info.shape[0] == 4 else sh
    if not (np.isfinite(sh) and np.isfinite(sw)) or sh < 0 or sw < 0:
        raise InputError("Proposal operation image info input must have non negative scales.")
    return _Image(w, h, sh, sw) if attrs.tensorflow else _Image(h, w, sh, sw)


def _exp(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.exp(x.astype(np.float64)).astype(F)
    return out


def _enumerate(
    attrs: ProposalAttrs, base: np.ndarray, scores: np.ndarray, deltas: np.ndarray, img: _Image
) -> tuple[np.ndarray, np.ndarray]:
    """Every proposal of one image, ordered (h, w, anchor): boxes ``[K, 4]`` and scores ``[K]``."""
    a, height, width = scores.shape
    off = F(0) if attrs.tensorflow else F(1)
    hh, ww = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    x = ((hh if attrs.tensorflow else ww) * attrs.feat_stride).astype(F)[:, :, None]
    y = ((ww if attrs.tensorflow else hh) * attrs.feat_stride).astype(F)[:, :, None]
    d = deltas.reshape(a, 4, height, width).transpose(2, 3, 0, 1)  # [H, W, A, 4]
    dx, dy = d[..., 0] / F(attrs.box_coordinate_scale), d[..., 1] / F(attrs.box_coordinate_scale)
    dw, dh = d[..., 2] / F(attrs.box_size_scale), d[..., 3] / F(attrs.box_size_scale)
    x0, y0, x1, y1 = (x + base[:, 0], y + base[:, 1], x + base[:, 2], y + base[:, 3])
    if attrs.tensorflow:
        x0, x1 = (_cmax(F(0), _cmin(v, img.width)) for v in (x0, x1))
        y0, y1 = (_cmax(F(0), _cmin(v, img.height)) for v in (y0, y1))
    bw, bh = x1 - x0 + off, y1 - y0 + off
    cx, cy = dx * bw + (x0 + F(0.5) * bw), dy * bh + (y0 + F(0.5) * bh)
    pw, ph = _exp(dw) * bw, _exp(dh) * bh
    x0, y0, x1, y1 = cx - F(0.5) * pw, cy - F(0.5) * ph, cx + F(0.5) * pw, cy + F(0.5) * ph
    if attrs.clip_before_nms:
        x0, x1 = (_cmax(F(0), _cmin(v, img.width - off)) for v in (x0, x1))
        y0, y1 = (_cmax(F(0), _cmin(v, img.height - off)) for v in (y0, y1))
    keep = (F(attrs.min_size) * img.scale_w <= x1 - x0 + off) & (
        F(attrs.min_size) * img.scale_h <= y1 - y0 + off
    )
    score = keep.astype(F) * scores.transpose(1, 2, 0)
    boxes = np.stack([x0, y0, x1, y1], axis=-1).reshape(-1, 4).astype(F)
    return boxes, score.reshape(-1).astype(F)


def _adjust_heap(
    heap: list[int], hole: int, length: int, value: int, before: Callable[[int, int], bool]
) -> None:
    """libstdc++'s ``__adjust_heap`` then ``__push_heap`` over indices."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if before(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and before(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def partial_sort(order: list[int], middle: int, before: Callable[[int, int], bool]) -> list[int]:
    """``std::partial_sort(order, order + middle, order.end(), before)`` as libstdc++ runs it:
    the first ``middle`` in ``before`` order, equal elements where its heap leaves them."""
    heap = list(order)
    if middle > 1:
        for parent in range((middle - 2) // 2, -1, -1):
            _adjust_heap(heap, parent, middle, heap[parent], before)
    for i in range(middle, len(heap)):
        if middle and before(heap[i], heap[0]):
            value, heap[i] = heap[i], heap[0]
            _adjust_heap(heap, 0, middle, value, before)
    for end in range(middle - 1, 0, -1):
        value, heap[end] = heap[end], heap[0]
        _adjust_heap(heap, 0, end, value, before)
    return heap[:middle]


def _nms(boxes: np.ndarray, threshold: float, limit: int, off: np.float32) -> list[int]:
    """The plugin's ``nms_cpu`` over boxes in score order: ``threshold < IoU`` kills a later box."""
    dead = np.zeros(len(boxes), bool)
    kept: list[int] = []
    x0, y0, x1, y1 = boxes.T
    t = F(threshold)
    for i in range(len(boxes)):
        if dead[i]:
            continue
        kept.append(i)
        if len(kept) == limit:
            break
        j = slice(i + 1, None)
        touch = (x0[i] <= x1[j]) & (y0[i] <= y1[j]) & (x0[j] <= x1[i]) & (y0[j] <= y1[i])
        iw = _cmax(F(0), _cmin(x1[i], x1[j]) - _cmax(x0[i], x0[j]) + off)
        ih = _cmax(F(0), _cmin(y1[i], y1[j]) - _cmax(y0[i], y0[j]) + off)
        inter = iw * ih
        area_i = (x1[i] - x0[i] + off) * (y1[i] - y0[i] + off)
        area_j = (x1[j] - x0[j] + off) * (y1[j] - y0[j] + off)
        iou = np.where(touch, inter / (area_i + area_j - inter), F(0))
        dead[j] |= t < iou
    return kept


def _one_image(
    attrs: ProposalAttrs, base: np.ndarray, arrays: tuple[np.ndarray, np.ndarray], img: _Image
) -> tuple[np.ndarray, np.ndarray]:
    boxes, score = _enumerate(attrs, base, *arrays, img)
    values = score.tolist()
    top = min(len(values), attrs.pre_nms_topn)
    order = partial_sort(list(range(len(values))), top, lambda p, q: values[p] > values[q])
    chosen = boxes[order]
    off = F(0) if attrs.tensorflow else F(1)
    kept = [order[k] for k in _nms(chosen, attrs.nms_thresh, attrs.post_nms_topn, off)]
    rois = boxes[kept]
    if attrs.clip_after_nms:
        rois[:, 0::2] = _cmax(F(0), _cmin(rois[:, 0::2], img.width))
        rois[:, 1::2] = _cmax(F(0), _cmin(rois[:, 1::2], img.height))
    if attrs.normalize:
        rois[:, 0::2] /= img.width
        rois[:, 1::2] /= img.height
    return rois, score[kept]


def evaluate_proposal(attrs: ProposalAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    probs, deltas, info = (np.asarray(a) for a in inputs)
    base = anchors(attrs)
    a = len(base)
    if probs.ndim != 4 or deltas.ndim != 4 or info.ndim != 1 or info.shape[0] not in (3, 4):
        raise InputError(f"Proposal inputs {[list(x.shape) for x in (probs, deltas, info)]} do not fit")
    n, _, height, width = probs.shape
    if probs.shape[1] != 2 * a or deltas.shape != (n, 4 * a, height, width):
        raise InputError(
            f"Proposal with {a} anchors (ratio x scale) needs class_probs [N, {2 * a}, H, W] and bbox_deltas "
            f"[N, {4 * a}, H, W], got {list(probs.shape)} and {list(deltas.shape)}"
        )
    rows = np.zeros((n, attrs.post_nms_topn, 5), F)
    scores = np.zeros((n, attrs.post_nms_topn), F)
    with quiet():
        img = _image(attrs, widen(info).astype(F))
        p, d = widen(probs).astype(F), widen(deltas).astype(F)
        for i in range(n):
            rois, score = _one_image(attrs, base, (p[i, a:], d[i]), img)
            k = len(rois)
            rows[i, :k, 0], rows[i, :k, 1:], scores[i, :k] = i, rois, score
            if k < attrs.post_nms_topn:
                rows[i, k, 0] = -1
    out = [narrow(rows.reshape(-1, 5), probs.dtype)]
    if attrs.with_probs:
        out.append(narrow(scores.reshape(-1), probs.dtype))
    return out


def _spec(version: int, since: int, with_probs: bool) -> OpSpec[ProposalAttrs]:
    return OpSpec(
        type="Proposal",
        version=version,
        since=since,
        inputs=3,
        parse=_parser(with_probs),
        infer=infer_proposal,
        evaluate=evaluate_proposal,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    )


SPECS = (_spec(0, 1, False), _spec(4, 4, True))
