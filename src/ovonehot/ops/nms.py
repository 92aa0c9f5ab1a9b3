"""NonMaxSuppression-5 and -9: greedy (or Gaussian soft) suppression of boxes per batch and class.

Inputs: ``boxes [B, N, 4]`` and ``scores [B, C, N]`` (f32, f16 or bf16), then optional
scalars (or one-element 1-D tensors) ``max_output_boxes_per_class`` (default 0),
``iou_threshold`` (0), ``score_threshold`` (0) and ``soft_nms_sigma`` (0).  Attributes:
``box_encoding`` (``corner``: ``[y1, x1, y2, x2]`` in either order; ``center``: ``[x, y,
w, h]``), ``sort_result_descending`` (default true) and ``output_type`` (i32 or i64,
default i64).  Outputs: ``selected_indices [K, 3]`` (batch, class, box) of
``output_type``, ``selected_scores [K, 3]`` (batch, class, score) in f32 whatever the
input type, and ``valid_outputs [1]`` (= K) of ``output_type``.

Shape (``nms_shape_inference.hpp``, measured on 2026.4): K is ``0..M`` with ``M =
min(max(N), max_output_boxes_per_class) * max(B) * max(C)`` (``max`` of a dim: its
upper bound; the scores give B and C), ``?`` when any of them is unknown or
unbounded, or the count is negative.

Values (``reference/non_max_suppression.cpp``, the ``non_max_suppression`` kernel for
NMS-9 and ``non_max_suppression5`` for NMS-5): per batch and class, boxes with ``score >
score_threshold`` are taken by descending score (ties: lower box index first).  Each
candidate is compared with the boxes selected so far, newest first, and its score
multiplied by a weight: NMS-9 uses ``exp(-0.5 / sigma * iou**2)`` when ``sigma > 0``
(soft NMS), else 1 for ``iou <= iou_threshold`` and 0 otherwise, and drops the candidate
(hard suppression) at ``iou > iou_threshold`` without soft NMS; NMS-5 uses the soft
weight only for ``iou <= iou_threshold`` (0 above, as its spec says) and hard-suppresses
at ``iou >= iou_threshold`` in both modes.  A score falling to ``<= score_threshold``
stops the comparisons.  A candidate whose score did not change is selected; one whose
score decayed and stays above the threshold goes back into the queue.  At most
``max_output_boxes_per_class`` are selected per class; a negative value selects nothing,
as the CPU plugin and onnxruntime do (OpenVINO's reference cannot size its output then).  IoU is computed in f32 as OpenVINO does (``area <= 0`` gives IoU 0), the soft
weight with ``expf`` (f64 ``exp`` rounded to f32).  ``sort_result_descending`` orders
the whole output by score (ties by batch, class, box), as the spec and the CPU plugin
do; otherwise it stays grouped by batch and class in selection order.

The core has no ``evaluate`` for NMS (the reference kernels run only in the template
plugin, which the wheel lacks); the CPU plugin is the oracle.  Where they differ
(measured on 2026.4, recorded in the tests): the CPU plugin hard-suppresses at ``iou >=
iou_threshold`` (the spec and the NMS-9 reference keep a box whose IoU equals the
threshold), runs NMS-5 as NMS-9 (no zero weight above the threshold in soft mode), and
its soft-NMS scores differ by a few ulp (its own ``exp``, products of 4-16 weights as a
vector).  The reference's NMS-9 ``sort_result_descending`` merely reverses the grouped
list, and its NMS-5 sort treats scores within 1e-6 as equal; ovonehot sorts exactly by
score, as the CPU plugin does.
"""

from __future__ import annotations

import enum
import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, enum_attr
from .common.shape_util import known_ints, mul
from .common.spec import OpSpec, TensorInfo
from .common.widening import is_narrow_float


class BoxEncoding(enum.Enum):
    CORNER = "corner"
    CENTER = "center"


@dataclass(frozen=True, slots=True)
class NMSAttrs:
    version: int = 9  # 5 or 9: NMS-5 keeps its reference's soft weight and >= suppression
    box_encoding: BoxEncoding = BoxEncoding.CORNER
    sort_result_descending: bool = True
    output_type: ElementType = ElementType.i64


def _parse(node: Node, version: int) -> NMSAttrs:
    return NMSAttrs(
        version,
        enum_attr(node, "box_encoding", BoxEncoding, BoxEncoding.CORNER),
        bool_attr(node, "sort_result_descending", True),
        element_type_attr(node, "output_type", ElementType.i64),
    )


_FLOATS = (ElementType.f32, ElementType.f16, ElementType.bf16)
# OpenVINO's names for the inputs in its messages (sic: 'score_threshold_ps').
_NAMES = (
    "boxes",
    "scores",
    "max_output_boxes_per_class",
    "iou_threshold",
    "score_threshold_ps",
    "soft_nms_sigma",
)
_SCALAR_NAMES = ("max_output_boxes_per_class", "iou_threshold", "score_threshold", "soft_nms_sigma")


def _check_nms_inputs(attrs: NMSAttrs, inputs: Sequence[TensorInfo]) -> None:
    """The output type, the inputs' element types and ranks."""
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError("Output type must be i32 or i64")
    for k, info in enumerate(inputs):
        if k != 2 and not (info.element_type.is_dynamic or is_narrow_float(info.element_type, _FLOATS)):
            raise ValidationError(f"Expected bf16, fp16 or fp32 as element type for the '{_NAMES[k]}' input.")
    for what, s in (("boxes", inputs[0].shape), ("scores", inputs[1].shape)):
        if s.rank_is_static and s.rank != 3:
            raise ValidationError(f"Expected a 3D tensor for the '{what}' input")
    for k, info in enumerate(inputs[2:], start=2):
        s = info.shape
        if s.rank_is_static and not (s.rank == 0 or (s.rank == 1 and s[0].contains(1))):
            raise ValidationError(f"Expected 0D or 1D tensor for the '{_SCALAR_NAMES[k - 2]}' input")


def infer_nms(attrs: NMSAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check_nms_inputs(attrs, inputs)
    boxes, scores = inputs[0].shape, inputs[1].shape
    selected = Dimension()
    if boxes.rank_is_static:
        selected = per_class_bound(boxes[1], inputs[2] if len(inputs) > 2 else None)
        if scores.rank_is_static:
            if not boxes[0].compatible(scores[0]):
                raise ValidationError("The first dimension of both 'boxes' and 'scores' must match.")
            if not boxes[1].compatible(scores[2]):
                raise ValidationError(
                    "'boxes' and 'scores' input shapes must match at the second and third dimension respectively."
                    f" Boxes: {boxes}, scores: {scores}"
                )
            for d in (scores[0], scores[1]):
                selected = mul(selected, Dimension.static(d.max) if d.max is not None else Dimension())
        else:
            selected = Dimension()
        if not boxes[2].compatible(Dimension.static(4)):
            raise ValidationError("The last dimension of the 'boxes' input must be equal to 4")
    pairs = PartialShape((selected, Dimension.static(3)))
    return [
        TensorInfo(attrs.output_type, pairs),
        TensorInfo(ElementType.f32, pairs),
        TensorInfo(attrs.output_type, PartialShape.of((1,))),
    ]


def per_class_bound(num_boxes: Dimension, max_out: TensorInfo | None) -> Dimension:
    if max_out is None:
        limit = 0
    else:
        if max_out.element_type is ElementType.boolean:
            raise ValidationError(
                "Element not supported: OpenVINO cannot read a boolean max_output_boxes_per_class"
            )
        values = known_ints(max_out)
        limit = values[0] if values else -1
    if num_boxes.max is None:
        return Dimension()
    bound = min(num_boxes.max, limit)
    return Dimension(0, bound) if bound >= 0 else Dimension()


# -- the kernel ---------------------------------------------------------------------------------
def _corners(boxes: np.ndarray, encoding: BoxEncoding) -> np.ndarray:
    """``[..., 4]`` as ``y1, x1, y2, x2`` with y1 <= y2 and x1 <= x2, in f32 (OpenVINO's normalize_*)."""
    if encoding is BoxEncoding.CENTER:
        centre, half = boxes[..., 1::-1], boxes[..., 3:1:-1] / np.float32(2)  # (y, x) and (h / 2, w / 2)
        return np.concatenate([centre - half, centre + half], axis=-1)
    first, second = boxes[..., :2], boxes[..., 2:]
    return np.concatenate([np.minimum(first, second), np.maximum(first, second)], axis=-1)


def _iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one box with many (rows of ``others``), in f32 and in OpenVINO's operation order."""
    cols = others.T
    area = (cols[2] - cols[0]) * (cols[3] - cols[1])
    return _iou_columns(box, cols, area)


def _iou_columns(box: np.ndarray, cols: np.ndarray, area_j: np.ndarray) -> np.ndarray:
    """``_iou`` on the others' coordinates as four rows ``y1, x1, y2, x2`` and their areas."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        area_i = (box[2] - box[0]) * (box[3] - box[1])
        ih = np.maximum(np.minimum(box[2], cols[2]) - np.maximum(box[0], cols[0]), np.float32(0))
        iw = np.maximum(np.minimum(box[3], cols[3]) - np.maximum(box[1], cols[1]), np.float32(0))
        inter = ih * iw
        iou = inter / (area_i + area_j - inter)
    out: np.ndarray = np.where((area_i <= 0) | (area_j <= 0), np.float32(0), iou)
    return out.astype(np.float32, copy=False)


@dataclass(frozen=True, slots=True)
class _Params:
    max_out: int  # >= 0
    iou_threshold: np.float32
    score_threshold: np.float32
    scale: np.float32  # -0.5 / sigma, 0 without soft NMS
    soft: bool
    v5: bool  # NMS-5's reference: weight 0 above the threshold, hard suppression at >=


Selection = tuple[np.ndarray, np.ndarray]  # the selected boxes' indices (int64) and final scores (f32)


def _select(boxes: np.ndarray, scores: np.ndarray, p: _Params) -> Selection:
    """The boxes selected for one batch and class and their final scores, in selection order."""
    if not p.soft:
        greedy = _select_hard(boxes, scores, p)
        if greedy is not None:
            return greedy
    return _select_queue(boxes, scores, p)


def _select_hard(boxes: np.ndarray, scores: np.ndarray, p: _Params) -> Selection | None:
    """The hard-NMS case of ``_select_queue`` without its queue: weights are 1 or 0, so a candidate
    is selected exactly when no selected box overlaps it by more than the threshold (NMS-5: at
    least the threshold).  The candidates' overlaps are computed a block of rows at a time
    (the same f32 operations as one box against the rest); each selected box suppresses the
    later candidates by its row.  None when a candidate it would select has a NaN IoU with a
    later one (a zero weight there lets the queue's score rules decide)."""
    index = np.flatnonzero(scores > p.score_threshold)
    order = index[np.lexsort((index, -scores[index].astype(np.float64)))]  # score down, index up
    cols = np.ascontiguousarray(boxes[order].T)  # y1, x1, y2, x2 of the candidates in order
    with np.errstate(over="ignore", invalid="ignore"):
        area = (cols[2] - cols[0]) * (cols[3] - cols[1])
    suppressed = 0  # (bit k: candidate k is suppressed; Python ints: no NumPy call per candidate)
    broken: list[np.ndarray] = []  # (per block: its rows with a NaN IoU with a later candidate)
    block = max(1, min(_ROWS, _IOU_BUDGET // max(1, order.size)))
    done = 0  # (the candidates decided: every block before ``done``)
    while done < order.size and done - (suppressed & ((1 << done) - 1)).bit_count() < p.max_out:
        rows = slice(done, min(done + block, order.size))
        over, nan = _overlapping(
            cols[:, rows, None], area[rows, None], cols[:, None, done:], area[None, done:], p
        )
        width = (order.size - done + 7) // 8
        packed = np.packbits(over, axis=1, bitorder="little").tobytes()  # (a row: bits from ``done``)
        for k in np.flatnonzero(over.any(axis=1)).tolist():  # (only rows that overlap a later one)
            if not suppressed >> (done + k) & 1:
                suppressed |= int.from_bytes(packed[k * width : (k + 1) * width], "little") << done
        broken.append(nan)
        done = rows.stop
    bits = np.frombuffer((suppressed & ((1 << done) - 1)).to_bytes((done + 7) // 8, "little"), np.uint8)
    picked = np.flatnonzero(np.unpackbits(bits, count=done, bitorder="little") == 0)[: p.max_out]
    if broken and np.concatenate(broken)[picked].any():
        return None
    chosen = order[picked].astype(np.int64)
    return chosen, scores[chosen]


_ROWS = 256  # (candidates whose overlaps are computed together; fewer when max_out stops early)
_IOU_BUDGET = 1 << 22  # (IoU values of one block of candidates against the later ones)


def _overlapping(
    box: np.ndarray, area_i: np.ndarray, cols: np.ndarray, area_j: np.ndarray, p: _Params
) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs of a block of rows (candidates ``start..``) and the columns (candidates
    ``start``, ``start + 1``, ...) overlap enough to suppress (``_iou_columns`` on broadcast
    coordinates, a row's later candidates only), and which rows have a NaN IoU with a later
    candidate."""
    zero = np.float32(0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # (in place: the same operations)
        inter = np.minimum(box[2], cols[2])
        inter -= np.maximum(box[0], cols[0])
        np.maximum(inter, zero, out=inter)  # (ih)
        iw = np.minimum(box[3], cols[3])
        iw -= np.maximum(box[1], cols[1])
        np.maximum(iw, zero, out=iw)
        inter *= iw
        union = np.add(area_i, area_j, out=iw)
        union -= inter
        iou = np.divide(inter, union, out=inter)
    np.copyto(iou, zero, where=(area_i <= 0) | (area_j <= 0))
    later = np.arange(iou.shape[1])[None, :] > np.arange(iou.shape[0])[:, None]
    nan = np.isnan(iou)
    nan &= later
    over = np.greater_equal(iou, p.iou_threshold) if p.v5 else np.greater(iou, p.iou_threshold)
    over &= later
    return over, nan.any(axis=1)


def _select_queue(boxes: np.ndarray, scores: np.ndarray, p: _Params) -> Selection:
    """OpenVINO's loop: a priority queue of candidates, each compared with the selected boxes."""
    heap = [(-float(scores[i]), int(i), 0) for i in np.flatnonzero(scores > p.score_threshold)]
    heapq.heapify(heap)
    picked: list[int] = []
    picked_scores: list[np.float32] = []
    while heap and len(picked) < p.max_out:
        neg, index, begin = heapq.heappop(heap)
        original = np.float32(-neg)
        score = original
        hard = False
        if len(picked) > begin:
            others = boxes[picked[begin:][::-1]]  # newest first
            iou = _iou(boxes[index], others)
            with np.errstate(over="ignore", invalid="ignore"):
                weight = np.exp(((p.scale * iou) * iou).astype(np.float64)).astype(np.float32)
            if not p.soft or p.v5:
                weight = np.where(iou <= p.iou_threshold, weight, np.float32(0))
            running = np.multiply.accumulate(np.concatenate([[original], weight]).astype(np.float32))[1:]
            hard_at = (iou >= p.iou_threshold) if p.v5 else (iou > p.iou_threshold) & (not p.soft)
            stop = hard_at | (running <= p.score_threshold)
            at = int(np.argmax(stop)) if stop.any() else len(running) - 1
            score, hard = running[at], bool(hard_at[at])
        if hard:
            continue
        if score == original:
            picked.append(index)
            picked_scores.append(score)
        elif score > p.score_threshold:
            heapq.heappush(heap, (-float(score), index, len(picked)))
    return np.array(picked, np.int64), np.array(picked_scores, np.float32)


def _scalar(inputs: Sequence[np.ndarray], k: int, default: float) -> np.generic:
    if len(inputs) <= k:
        fallback: np.generic = np.float64(default)
        return fallback
    a = np.asarray(inputs[k])
    if a.size != 1:
        raise InputError(
            f"Expected 0D or 1D tensor for the '{_SCALAR_NAMES[k - 2]}' input, got shape {list(a.shape)}"
        )
    value: np.generic = a.reshape(-1)[0]
    return value


def evaluate_nms(attrs: NMSAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    boxes = np.asarray(inputs[0]).astype(np.float32)
    scores = np.asarray(inputs[1]).astype(np.float32)
    if boxes.ndim != 3 or scores.ndim != 3 or boxes.shape[2] != 4:
        raise InputError(
            f"boxes must be [B, N, 4] and scores [B, C, N], got {list(boxes.shape)} and {list(scores.shape)}"
        )
    if boxes.shape[0] != scores.shape[0] or boxes.shape[1] != scores.shape[2]:
        raise InputError(
            f"boxes {list(boxes.shape)} and scores {list(scores.shape)} disagree on batches or boxes"
        )
    max_raw = _scalar(inputs, 2, 0)
    max_out = max(int(np.trunc(max_raw)), 0) if np.isfinite(max_raw) else 0
    sigma = np.float32(_scalar(inputs, 5, 0.0))
    soft = bool(sigma > 0)
    params = _Params(
        max_out,
        np.float32(_scalar(inputs, 3, 0.0)),
        np.float32(_scalar(inputs, 4, 0.0)),
        np.float32(np.float32(-0.5) / sigma) if soft else np.float32(0),
        soft,
        attrs.version == 5,
    )
    corners = _corners(boxes, attrs.box_encoding)
    parts = [
        (b, c, _select(corners[b], scores[b, c], params))
        for b in range(scores.shape[0])
        for c in range(scores.shape[1])
    ]
    return _outputs(attrs, parts)


def _outputs(attrs: NMSAttrs, parts: list[tuple[int, int, Selection]]) -> list[np.ndarray]:
    """The three outputs from each (batch, class)'s selection: grouped in that order, or sorted
    by score down, then batch, class and box up (``sort_result_descending``)."""
    counts = [sel[0].size for _, _, sel in parts]
    batch = np.repeat(np.array([b for b, _, _ in parts], np.int64), counts)
    klass = np.repeat(np.array([c for _, c, _ in parts], np.int64), counts)
    box = np.concatenate([sel[0] for _, _, sel in parts]) if parts else np.zeros(0, np.int64)
    score = np.concatenate([sel[1] for _, _, sel in parts]) if parts else np.zeros(0, np.float32)
    if attrs.sort_result_descending:  # (the selected scores are above the threshold: no NaN)
        order = np.lexsort((box, klass, batch, -score.astype(np.float64)))
        batch, klass, box, score = batch[order], klass[order], box[order], score[order]
    dtype = numpy_dtype_of(attrs.output_type)
    indices = np.empty((box.size, 3), dtype)
    indices[:, 0], indices[:, 1], indices[:, 2] = batch, klass, box
    selected_scores = np.empty((box.size, 3), np.float32)
    # (batch and class to f32 through f64, as NumPy converts Python ints)
    selected_scores[:, :2] = indices[:, :2].astype(np.float64)
    selected_scores[:, 2] = score
    return [indices, selected_scores, np.array([box.size], dtype=dtype)]


def parse_nms_5(node: Node) -> NMSAttrs:
    return _parse(node, 5)


def parse_nms_9(node: Node) -> NMSAttrs:
    return _parse(node, 9)


SPECS = (
    OpSpec(
        type="NonMaxSuppression",
        version=5,
        since=5,
        inputs=(2, 6),
        parse=parse_nms_5,
        infer=infer_nms,
        evaluate=evaluate_nms,
        foldable=False,
    ),
    OpSpec(
        type="NonMaxSuppression",
        version=9,
        since=9,
        inputs=(2, 6),
        parse=parse_nms_9,
        infer=infer_nms,
        evaluate=evaluate_nms,
        foldable=False,
    ),
)
