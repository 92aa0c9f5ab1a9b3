"""DetectionOutput-0 (opset1) and DetectionOutput-8: SSD's box decoding, per-class NMS and top-k.

Inputs: box logits ``[N, P * L * 4]`` (``L = 1`` with ``share_location``, else the classes),
class predictions ``[N, P * C]``, priors ``[1 or N, 1 or 2, P * S]`` (``S = 4`` normalized, else
5 with a leading batch id; the second row the variances unless ``variance_encoded_in_target``),
and optionally the additional (ARM) class predictions ``[N, P * 2]`` and box predictions.
DetectionOutput-8 has no ``num_classes`` attribute: it comes from the shapes.  Output
``[1, 1, R, 7]`` rows ``(image, label, score, xmin, ymin, xmax, ymax)``; ``R`` is
``N * keep_top_k`` (``keep_top_k > 0``), else ``N * top_k * C`` (``top_k > 0``), else
``N * P * C`` (``detection_output_shape_inference.hpp``, with its checks and messages).

Values (``reference/detection_output.hpp``; computed in f32 for f16/bf16, as the CPU plugin):
boxes decoded from the priors (CORNER: offsets; CENTER_SIZE: centre and exp sizes, scaled by
the variances), clipped to [0, 1] before NMS if asked; Caffe style: per class but the
background, the scores ``> confidence_threshold`` sorted by score (ties: lower prior first),
the first ``top_k``, then greedy NMS (an IoU ``> nms_threshold`` suppresses); MXNet style
(``decrease_label_id``): per prior its best class (``>= confidence_threshold``), sorted, the
first ``top_k``, NMS within each class.  With more than ``keep_top_k`` detections in an image,
the best ``keep_top_k`` stay.  Rows: per image, per class ascending, in NMS order; after the
last one a row starting with -1 (when it fits); the rest zeros.

Equal scores: the first ``top_k`` of Caffe's candidates, and the best ``keep_top_k``, take the
lower prior first (the reference's and the CPU plugin's rule; equal score and prior: the
lower class, where both use an unspecified sort order); MXNet's candidates take the lower
``class * P + prior`` first, as the CPU plugin does (the reference: the lower prior;
docs/openvino-behaviour.md).  The core op has no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, float_attr, int_attr, ints_attr, str_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo

CORNER = "caffe.PriorBoxParameter.CORNER"
CENTER_SIZE = "caffe.PriorBoxParameter.CENTER_SIZE"


@dataclass(frozen=True, slots=True)
class DetectionOutputAttrs:
    num_classes: int  # -1: DetectionOutput-8 (from the shapes)
    background_label_id: int
    top_k: int
    variance_encoded_in_target: bool
    keep_top_k: tuple[int, ...]
    code_type: str
    share_location: bool
    nms_threshold: float
    confidence_threshold: float
    clip_after_nms: bool
    clip_before_nms: bool
    decrease_label_id: bool
    normalized: bool
    input_height: int
    input_width: int
    objectness_score: float


def _f32(node: Node, name: str, default: object = None) -> float:
    value = float_attr(node, name) if default is None else float_attr(node, name, default)
    return float(np.float32(value))


def parse_detection_output_8(node: Node) -> DetectionOutputAttrs:
    return DetectionOutputAttrs(
        num_classes=-1,
        background_label_id=int_attr(node, "background_label_id", 0),
        top_k=int_attr(node, "top_k", -1),
        variance_encoded_in_target=bool_attr(node, "variance_encoded_in_target", False),
        keep_top_k=ints_attr(node, "keep_top_k"),
        code_type=str_attr(node, "code_type", CORNER),
        share_location=bool_attr(node, "share_location", True),
        nms_threshold=_f32(node, "nms_threshold"),
        confidence_threshold=_f32(node, "confidence_threshold", 0.0),
        clip_after_nms=bool_attr(node, "clip_after_nms", False),
        clip_before_nms=bool_attr(node, "clip_before_nms", False),
        decrease_label_id=bool_attr(node, "decrease_label_id", False),
        normalized=bool_attr(node, "normalized", False),
        input_height=int_attr(node, "input_height", 1),
        input_width=int_attr(node, "input_width", 1),
        objectness_score=_f32(node, "objectness_score", 0.0),
    )


def parse_detection_output_0(node: Node) -> DetectionOutputAttrs:
    return replace(parse_detection_output_8(node), num_classes=int_attr(node, "num_classes"))


# -- shape inference ------------------------------------------------------------------------
def _check_types(attrs: DetectionOutputAttrs, inputs: Sequence[TensorInfo]) -> ElementType:
    if attrs.code_type not in (CORNER, CENTER_SIZE):
        raise ValidationError(f'code_type must be either "{CORNER}" or "{CENTER_SIZE}"')
    box, cls, pri = (i.element_type for i in inputs[:3])
    if not box.is_real:
        raise ValidationError(f"Box logits' data type must be floating point. Got {box}")
    if cls != box:
        raise ValidationError(
            f"Class predictions' data type must be the same as box logits type ({box}). Got {cls}"
        )
    if not pri.is_real:
        raise ValidationError(f"Proposals' data type must be floating point. Got {pri}")
    if len(inputs) == 5:
        if inputs[3].element_type != cls:
            raise ValidationError(
                "Additional class predictions' data type must be the same as class predictions data type "
                f"({cls}). Got {inputs[3].element_type}"
            )
        if inputs[4].element_type != box:
            raise ValidationError(
                "Additional box predictions' data type must be the same as box logits data type "
                f"({box}). Got {inputs[4].element_type}"
            )
    if not attrs.keep_top_k:
        raise ValidationError("keep_top_k attribute must be provided")
    return box


def _static2(info: TensorInfo, k: int) -> int | None:
    """Dim ``k`` of a rank-static shape when static."""
    s = info.shape
    if s.rank_is_static and len(s) > k and s[k].is_static:
        return s[k].min
    return None


def _rank_check(info: TensorInfo, rank: int, what: str) -> None:
    if info.shape.rank_is_static and info.shape.rank != rank:
        raise ValidationError(f"{what} rank must be {rank}. Got {info.shape.rank}")


def _priors_from_shapes(attrs: DetectionOutputAttrs, inputs: Sequence[TensorInfo]) -> int:
    """The number of priors from the proposals (or the additional class predictions), 0 unknown."""
    size = 4 if attrs.normalized else 5
    priors = 0
    third = _static2(inputs[2], 2)
    if third is not None:
        if third % size:
            raise ValidationError(
                f"Proposals' third dimension must be a multiply of prior_box_size ({size}). Current value is: "
                f"{third}."
            )
        priors = third // size
        if priors <= 0:
            raise ValidationError(f"A number of prior boxes must be greater zero. Got: {priors}")
    aux = _static2(inputs[3], 1) if len(inputs) == 5 else None
    if priors == 0 and aux is not None:
        if aux % 2:
            raise ValidationError(
                "Additional class predictions second dimension must be a multiply of 2. Current value is: "
                f"{aux}."
            )
        priors = aux // 2
        if priors <= 0:
            raise ValidationError(f"A number of prior boxes must be greater zero. Got: {priors}")
    return priors


def _classes_from_shapes(attrs: DetectionOutputAttrs, inputs: Sequence[TensorInfo]) -> tuple[int, int]:
    """``compute_num_classes`` of DetectionOutput-8: (num_classes, num_prior_boxes), 0 unknown."""
    box, cls, pri = inputs[:3]
    for info, rank, what in ((box, 2, "Box logits"), (cls, 2, "Class predictions"), (pri, 3, "Proposals")):
        _rank_check(info, rank, what)
    if len(inputs) == 5:
        _rank_check(inputs[3], 2, "Additional class predictions")
        _rank_check(inputs[4], 2, "Additional box predictions")
    priors = _priors_from_shapes(attrs, inputs)
    classes = 0
    second = _static2(cls, 1)
    if priors > 0 and second is not None:
        if second % priors:
            raise ValidationError(
                f"Class predictions second dimension must be a multiply of num_prior_boxes ({priors}). "
                f"Current value is: {second}."
            )
        classes = second // priors
    for k, what in ((0, "Box logits"), (4, "Additional box predictions")):
        logits = _static2(inputs[k], 1) if k < len(inputs) else None
        if classes == 0 and priors > 0 and logits is not None and not attrs.share_location:
            if logits % (priors * 4):
                raise ValidationError(
                    f"{what} second dimension must be a multiply of num_prior_boxes * 4 ({priors * 4}). "
                    f"Current value is: {logits}."
                )
            classes = logits // (priors * 4)
    return classes, priors


def _box_logits(
    attrs: DetectionOutputAttrs, box: TensorInfo, classes: int, priors: int
) -> tuple[Dimension, int]:
    loc_classes = 1 if attrs.share_location else classes
    images = box.shape[0]
    second = box.shape[1]
    if not priors and second.is_static:
        if loc_classes == 0 or second.min % (loc_classes * 4):
            raise ValidationError(
                f"Box logits' second dimension must be a multiply of num_loc_classes * 4 ({loc_classes * 4}). "
                f"Current value is: {second.min}."
            )
        priors = second.min // (loc_classes * 4)
    if priors > 0 and loc_classes > 0 and not second.compatible(Dimension.static(priors * loc_classes * 4)):
        raise ValidationError(
            "The second dimension of the first input (box logits) is not compatible. Current value: "
            f"{second}, expected value: {priors * loc_classes * 4}"
        )
    return images, priors


def _class_preds(
    cls: TensorInfo, images: Dimension | None, classes: int, priors: int
) -> tuple[Dimension | None, int]:
    first, second = cls.shape[0], cls.shape[1]
    if (images is None or images.is_dynamic) and first.is_static:
        images = first
    elif images is not None and not first.compatible(images):
        raise ValidationError(
            "Class predictions' first dimension is not compatible with batch size.  Current value is: "
            f"{first}, expected: {images}."
        )
    if second.is_static and classes:
        if not priors:
            if second.min % classes:
                raise ValidationError(
                    f"Class predictions' second dimension must be a multiply of num_classes ({classes}). "
                    f"Current value is: {second.min}."
                )
            priors = second.min // classes
        elif second.min != priors * classes:
            raise ValidationError(
                "Class predictions' second dimension must be equal to num_prior_boxes * num_classes "
                f"({priors * classes}). Current value is: {second.min}."
            )
    return images, priors


def _proposals(attrs: DetectionOutputAttrs, pri: TensorInfo, images: Dimension | None, priors: int) -> int:
    first, second, third = pri.shape
    batch = images if images is not None else Dimension()
    if not (first.compatible(Dimension.static(1)) or first.compatible(batch)):
        raise ValidationError(
            f"Proposals' first dimension is must be equal to either batch size ({batch}) or 1. Got: {first}."
        )
    rows = 1 if attrs.variance_encoded_in_target else 2
    if not second.compatible(Dimension.static(rows)):
        raise ValidationError(
            f"Proposals' second dimension is mismatched. Current value is: {second}, expected: {rows}."
        )
    size = 4 if attrs.normalized else 5
    if third.is_static:
        if not priors:
            if third.min % size:
                raise ValidationError(
                    f"Proposals' third dimension must be a multiply of prior_box_size ({size}). Current value "
                    f"is: {third.min}."
                )
            priors = third.min // size
        elif third.min != priors * size:
            raise ValidationError(
                f"Proposals' third dimension must be equal to num_prior_boxes * prior_box_size ({priors * size}). "
                f"Current value is: {third.min}."
            )
    return priors


def _aux(inputs: Sequence[TensorInfo], images: Dimension | None, priors: int) -> int:
    aux_cls, aux_box = inputs[3], inputs[4]
    batch = images if images is not None else Dimension()
    if aux_cls.shape.rank_is_static:
        if aux_cls.shape.rank != 2:
            raise ValidationError(f"additional class predictions rank must be 2. Got {aux_cls.shape.rank}")
        first, second = aux_cls.shape
        if not first.compatible(batch):
            raise ValidationError(
                "Additional class predictions' first dimension must be compatible with batch size. Current "
                f"value is: {first}, expected: {batch}."
            )
        if priors and not second.compatible(Dimension.static(priors * 2)):
            raise ValidationError(
                "Additional class predictions' second dimension must be compatible with num_prior_boxes * 2. "
                f"Current value is: {second}, expected: {priors * 2}."
            )
        if second.is_static:
            priors = second.min // 2
    if not aux_box.shape.compatible(inputs[0].shape):
        raise ValidationError(
            "Additional box predictions' shape must be compatible with box logits shape. Current value is: "
            f"{aux_box.shape}, expected: {inputs[0].shape}."
        )
    return priors


def infer_detection_output(attrs: DetectionOutputAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if len(inputs) not in (3, 5):
        raise ValidationError(f"A number of arguments must be  equal to 3 or equal to 5. Got  {len(inputs)}")
    et = _check_types(attrs, inputs)
    if attrs.num_classes == -1:
        classes, priors = _classes_from_shapes(attrs, inputs)
    else:
        classes, priors = attrs.num_classes, 0
    box, cls, pri = inputs[:3]
    images: Dimension | None = None
    if box.shape.rank_is_static:
        _rank_check(box, 2, "Box logits")
        images, priors = _box_logits(attrs, box, classes, priors)
    if cls.shape.rank_is_static:
        _rank_check(cls, 2, "Class predictions")
        images, priors = _class_preds(cls, images, classes, priors)
    if pri.shape.rank_is_static:
        _rank_check(pri, 3, "Proposals")
        priors = _proposals(attrs, pri, images, priors)
    if len(inputs) == 5:
        priors = _aux(inputs, images, priors)
    n = images if images is not None else Dimension()
    dim_priors = Dimension.static(priors) if priors else Dimension()
    dim_classes = Dimension.static(classes) if classes else Dimension()
    if attrs.keep_top_k[0] > 0:
        rows = mul(n, Dimension.static(attrs.keep_top_k[0]))
    elif attrs.keep_top_k[0] == -1 and attrs.top_k > 0:
        rows = mul(mul(n, Dimension.static(attrs.top_k)), dim_classes)
    else:
        rows = mul(mul(n, dim_priors), dim_classes)
    one = Dimension.static(1)
    return [TensorInfo(et, PartialShape((one, one, rows, Dimension.static(7))))]


# -- values ---------------------------------------------------------------------------------
def _clip(x: np.ndarray) -> np.ndarray:
    """``std::max(0, std::min(1, x))`` (NaN becomes 1, as the C++ comparisons give)."""
    y = np.where(x < 1, x, np.asarray(1, x.dtype))
    out: np.ndarray = np.where(y > 0, y, np.asarray(0, x.dtype))
    return out


def _exp(x: np.ndarray) -> np.ndarray:
    """``std::exp`` in the calculation type (f32: rounded from the exact value)."""
    out: np.ndarray = np.exp(x.astype(np.float64)).astype(x.dtype)
    return out


def _decode(
    attrs: DetectionOutputAttrs, prior: np.ndarray, var: np.ndarray | None, loc: np.ndarray
) -> np.ndarray:
    """``DecodeBBox`` of ``[..., 4]`` priors, variances and offsets (boxes ``xmin, ymin, xmax, ymax``)."""
    t = prior.dtype.type
    p = prior.copy()
    if not attrs.normalized:
        p[..., 0::2] /= t(attrs.input_width)
        p[..., 1::2] /= t(attrs.input_height)
    scaled = [loc[..., k] if var is None else var[..., k] * loc[..., k] for k in range(4)]
    if attrs.code_type == CORNER:
        out = np.stack([p[..., k] + scaled[k] for k in range(4)], axis=-1)
    else:
        width, height = p[..., 2] - p[..., 0], p[..., 3] - p[..., 1]
        cx, cy = (p[..., 0] + p[..., 2]) / t(2), (p[..., 1] + p[..., 3]) / t(2)
        if var is None:
            cx, cy = loc[..., 0] * width + cx, loc[..., 1] * height + cy
        else:
            cx, cy = var[..., 0] * loc[..., 0] * width + cx, var[..., 1] * loc[..., 1] * height + cy
        w, h = _exp(scaled[2]) * width, _exp(scaled[3]) * height
        out = np.stack([cx - w / t(2), cy - h / t(2), cx + w / t(2), cy + h / t(2)], axis=-1)
    return _clip(out) if attrs.clip_before_nms else out


def _overlaps(box: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """``JaccardOverlap`` of one box with each kept box (0 where disjoint or touching)."""
    disjoint = (kept[:, 0] > box[2]) | (kept[:, 2] < box[0]) | (kept[:, 1] > box[3]) | (kept[:, 3] < box[1])
    iw = np.minimum(box[2], kept[:, 2]) - np.maximum(box[0], kept[:, 0])
    ih = np.minimum(box[3], kept[:, 3]) - np.maximum(box[1], kept[:, 1])
    inter = iw * ih

    def size(b: np.ndarray) -> np.ndarray:
        inverted = (b[..., 2] < b[..., 0]) | (b[..., 3] < b[..., 1])
        return np.where(inverted, 0, (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]))

    iou = inter / (size(box) + size(kept) - inter)
    out: np.ndarray = np.where(disjoint | ~((iw > 0) & (ih > 0)), 0, iou)
    return out


def _nms(boxes: np.ndarray, order: Sequence[int], threshold: float) -> list[int]:
    """Greedy NMS over candidates in ``order``: an overlap ``> threshold`` with a kept box drops one."""
    kept: list[int] = []
    t = boxes.dtype.type(threshold)
    for idx in order:
        if not kept or not (_overlaps(boxes[idx], boxes[kept]) > t).any():
            kept.append(idx)
    return kept


@dataclass(frozen=True, slots=True)
class _Image:
    """One image's decoded boxes ``[L, P, 4]`` and scores ``[P, C]``."""

    boxes: np.ndarray
    scores: np.ndarray


def _caffe(attrs: DetectionOutputAttrs, img: _Image) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    threshold = img.scores.dtype.type(attrs.confidence_threshold)
    for c in range(img.scores.shape[1]):
        if c == attrs.background_label_id:
            continue
        score = img.scores[:, c]
        cand = np.flatnonzero(score > threshold)
        cand = cand[np.lexsort((cand, -score[cand]))]
        if attrs.top_k > -1:
            cand = cand[: attrs.top_k]
        found[c] = _nms(img.boxes[0 if attrs.share_location else c], cand.tolist(), attrs.nms_threshold)
    return found


def _mxnet(attrs: DetectionOutputAttrs, img: _Image) -> dict[int, list[int]]:
    priors, classes = img.scores.shape
    best = np.full(priors, -1, img.scores.dtype)
    label = np.zeros(priors, np.int64)
    for c in range(1, classes):
        if c == attrs.background_label_id:
            continue
        better = img.scores[:, c] > best
        best = np.where(better, img.scores[:, c], best)
        label = np.where(better, c, label)
    cand = np.flatnonzero((label > 0) & (best >= img.scores.dtype.type(attrs.confidence_threshold)))
    key = label[cand] * priors + cand  # ties: the CPU plugin's order (class, then prior)
    cand = cand[np.lexsort((key, -best[cand]))]
    if attrs.top_k > -1:
        cand = cand[: attrs.top_k]
    found: dict[int, list[int]] = {}
    for p in cand.tolist():
        c = int(label[p])
        kept = found.setdefault(c, [])
        boxes = img.boxes[0 if attrs.share_location else c]
        if not kept or not (_overlaps(boxes[p], boxes[kept]) > boxes.dtype.type(attrs.nms_threshold)).any():
            kept.append(p)
    return found


def _keep_top(
    attrs: DetectionOutputAttrs, found: dict[int, list[int]], scores: np.ndarray
) -> dict[int, list[int]]:
    keep = attrs.keep_top_k[0]
    total = sum(len(v) for v in found.values())
    if keep <= -1 or total <= keep:
        return found
    entries = [(c, p) for c, ps in found.items() for p in ps]
    values = np.array([scores[p, c] for c, p in entries], scores.dtype)
    cls = np.array([c for c, _ in entries], np.int64)
    pri = np.array([p for _, p in entries], np.int64)
    order = np.lexsort((cls, pri, -values))[:keep]  # ties: prior, then class (see the module doc)
    out: dict[int, list[int]] = {}
    for k in order.tolist():
        out.setdefault(int(cls[k]), []).append(int(pri[k]))
    return out


def _prepare(
    attrs: DetectionOutputAttrs, arrays: Sequence[np.ndarray], calc: np.dtype
) -> tuple[list[_Image], int, int]:
    loc, conf, pri = (widen(np.asarray(a)).astype(calc) for a in arrays[:3])
    n = loc.shape[0]
    size = 4 if attrs.normalized else 5
    priors = pri.shape[2] // size
    classes = attrs.num_classes if attrs.num_classes > 0 else (conf.shape[1] // priors if priors else 0)
    loc_classes = 1 if attrs.share_location else classes
    if (
        conf.shape != (n, priors * classes)
        or loc.shape != (n, priors * loc_classes * 4)
        or pri.shape[0] not in (1, n)
    ):
        raise InputError(
            f"DetectionOutput inputs {[list(a.shape) for a in arrays]} do not fit {priors} priors of {classes} classes"
        )
    scores = conf.reshape(n, priors, classes)
    prior_boxes = pri[:, 0, :].reshape(pri.shape[0], priors, size)[..., size - 4 :]
    var = (
        None
        if attrs.variance_encoded_in_target
        else pri[:, -1, : priors * 4].reshape(pri.shape[0], priors, 4)
    )
    offsets = loc.reshape(n, priors, loc_classes, 4).transpose(0, 2, 1, 3)
    arm = len(arrays) == 5
    if arm:
        arm_conf = widen(np.asarray(arrays[3])).astype(calc).reshape(n, priors, 2)
        arm_loc = (
            widen(np.asarray(arrays[4])).astype(calc).reshape(n, priors, loc_classes, 4).transpose(0, 2, 1, 3)
        )
        low = arm_conf[:, :, 1] < calc.type(attrs.objectness_score)
        background = (np.arange(classes) == attrs.background_label_id).astype(calc)
        scores = np.where(low[:, :, None], background, scores)
    images = []
    for i in range(n):
        b = 0 if pri.shape[0] == 1 else i
        v = None if var is None else var[b]
        base = prior_boxes[b][None, :, :]
        if arm:
            base = _decode(attrs, base, v, arm_loc[i])
            base = _decode(attrs, base, v, offsets[i])
            images.append(_Image(base, scores[i]))
        else:
            images.append(_Image(_decode(attrs, base, v, offsets[i]), scores[i]))
    return images, priors, classes


def evaluate_detection_output(attrs: DetectionOutputAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len(inputs) not in (3, 5) or any(
        np.ndim(a) != r for a, r in zip(inputs, (2, 2, 3, 2, 2), strict=False)
    ):
        raise InputError(f"DetectionOutput inputs {[list(np.shape(a)) for a in inputs]} have the wrong ranks")
    dtype = np.asarray(inputs[0]).dtype
    calc = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
    with quiet():
        images, priors, classes = _prepare(attrs, inputs, calc)
        n = len(images)
        keep = attrs.keep_top_k[0]
        rows = (
            n * keep
            if keep > 0
            else n * (attrs.top_k if keep == -1 and attrs.top_k > 0 else priors) * classes
        )
        out = np.zeros((rows, 7), calc)
        count = 0
        for i, img in enumerate(images):
            found = _mxnet(attrs, img) if attrs.decrease_label_id else _caffe(attrs, img)
            found = _keep_top(attrs, found, img.scores)
            for c in sorted(found):
                boxes = img.boxes[0 if attrs.share_location else c]
                for p in found[c]:
                    if count >= rows:
                        raise InputError(
                            f"DetectionOutput found more than the {rows} detections its output holds"
                        )
                    box = _clip(boxes[p]) if attrs.clip_after_nms else boxes[p]
                    label = c - 1 if attrs.decrease_label_id else c
                    out[count] = (i, label, img.scores[p, c], *box)
                    count += 1
        if count < rows:
            out[count, 0] = -1
    return [narrow(out, dtype).reshape(1, 1, rows, 7)]


def _spec(
    version: int, since: int, parse: Callable[[Node], DetectionOutputAttrs]
) -> OpSpec[DetectionOutputAttrs]:
    return OpSpec(
        type="DetectionOutput",
        version=version,
        since=since,
        inputs=(3, 5),
        parse=parse,
        infer=infer_detection_output,
        evaluate=evaluate_detection_output,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    )


SPECS = (_spec(0, 1, parse_detection_output_0), _spec(8, 8, parse_detection_output_8))
