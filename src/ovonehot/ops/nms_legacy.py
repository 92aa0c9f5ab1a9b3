"""NonMaxSuppression-1, -3 and -4: the greedy NMS of NonMaxSuppression-9 with one, padded output.

Inputs: ``boxes [B, N, 4]``, ``scores [B, C, N]`` and optional scalars
``max_output_boxes_per_class`` (default 0), ``iou_threshold`` and ``score_threshold`` (0);
attributes ``box_encoding``, ``sort_result_descending`` and (v3, v4) ``output_type`` (i32 or
i64; v1 gives i64).  OpenVINO checks no element types for these versions.

One output, ``selected_indices [K, 3]`` (``nms_shape_inference.hpp``): v1 and v3 size it
``K = min(N, max_output_boxes_per_class * C)`` (the spec's formula, which forgets the batch),
v4 ``K = min(N, max_output_boxes_per_class) * B * C``; ``?`` when N or the maximum is unknown
(v4: or B or C unbounded), 0 when it is negative.

Values: the selections of :func:`ovonehot.ops.nms.evaluate_nms` (NMS-9 without soft NMS:
suppression at ``iou > iou_threshold``, scores ``> score_threshold``), in its order, written
into the K rows and the rest filled with -1, as the spec says; v1/v3 keep only the first K
when more are selected.  The core ops have no ``evaluate``.  The CPU plugin (measured on
2026.4) returns every selection instead, ignoring the static shape it infers (so more rows
than K for v1/v3 with several batches, and no -1 rows): the tests compare the selected rows
with it and pin the difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, element_type_attr, enum_attr
from .common.shape_util import known_ints
from .common.spec import OpSpec, TensorInfo
from .nms import BoxEncoding, NMSAttrs, evaluate_nms

_SCALARS = ("max_output_boxes_per_class", "iou_threshold", "score_threshold")


@dataclass(frozen=True, slots=True)
class LegacyNMSAttrs:
    version: int  # 1, 3 or 4
    box_encoding: BoxEncoding = BoxEncoding.CORNER
    sort_result_descending: bool = True
    output_type: ElementType = ElementType.i64


def _parser(version: int) -> Callable[[Node], LegacyNMSAttrs]:
    def parse(node: Node) -> LegacyNMSAttrs:
        output_type = ElementType.i64
        if version >= 3:
            output_type = element_type_attr(node, "output_type", ElementType.i64)
        return LegacyNMSAttrs(
            version,
            enum_attr(node, "box_encoding", BoxEncoding, BoxEncoding.CORNER),
            bool_attr(node, "sort_result_descending", True),
            output_type,
        )

    return parse


def _validate(inputs: Sequence[TensorInfo]) -> None:
    boxes, scores = inputs[0].shape, inputs[1].shape
    for what, s in (("boxes", boxes), ("scores", scores)):
        if s.rank_is_static and s.rank != 3:
            raise ValidationError(f"Expected a 3D tensor for the '{what}' input")
    for name, info in zip(_SCALARS, inputs[2:], strict=False):
        if info.shape.rank_is_static and info.shape.rank != 0:
            suffix = "." if name == "max_output_boxes_per_class" else ""
            raise ValidationError(f"Expected a scalar for the '{name}' input{suffix}")
    if boxes.rank_is_static:
        if scores.rank_is_static:
            if not boxes[0].compatible(scores[0]):
                raise ValidationError("The first dimension of both 'boxes' and 'scores' must match.")
            if not boxes[1].compatible(scores[2]):
                raise ValidationError(
                    "'boxes' and 'scores' input shapes must match at the second and third dimension respectively. "
                    "Boxes:"
                )
        if not boxes[2].contains(4):
            raise ValidationError("The last dimension of the 'boxes' input must be equal to 4")


def _rows(version: int, num_boxes: int, max_out: int, batches: int, classes: int) -> int:
    if version == 4:
        return max(min(num_boxes, max_out) * batches * classes, 0)
    return max(min(num_boxes, max_out * classes), 0)


def _selected(attrs: LegacyNMSAttrs, inputs: Sequence[TensorInfo]) -> Dimension:
    boxes, scores = inputs[0].shape, inputs[1].shape
    if not boxes.rank_is_static or not boxes[1].is_static:
        return Dimension()
    maxima = known_ints(inputs[2]) if len(inputs) > 2 else [0]
    if maxima is None:
        return Dimension()
    num_boxes, max_out = boxes[1].min, maxima[0]
    if not scores.rank_is_static:  # v1/v3: nothing to multiply by; v4: unknown B and C
        return Dimension() if attrs.version == 4 else Dimension.static(max(min(num_boxes, max_out), 0))
    if attrs.version == 4:  # the upper bounds of B and C
        batches, classes = scores[0].max, scores[1].max
        if batches is None or classes is None:
            return Dimension()
        return Dimension.static(_rows(4, num_boxes, max_out, batches, classes))
    if not scores[1].is_static:
        return Dimension()
    return Dimension.static(_rows(attrs.version, num_boxes, max_out, 1, scores[1].min))


def infer_legacy_nms(attrs: LegacyNMSAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError("Output type must be i32 or i64")
    _validate(inputs)
    return [TensorInfo(attrs.output_type, PartialShape((_selected(attrs, inputs), Dimension.static(3))))]


def evaluate_legacy_nms(attrs: LegacyNMSAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    boxes, scores = np.asarray(inputs[0]), np.asarray(inputs[1])
    if boxes.ndim != 3 or scores.ndim != 3:
        raise InputError(
            f"boxes must be [B, N, 4] and scores [B, C, N], got {list(boxes.shape)} and {list(scores.shape)}"
        )
    nine = NMSAttrs(9, attrs.box_encoding, attrs.sort_result_descending, attrs.output_type)
    floats = [a.astype(np.float32) for a in (boxes, scores)] + list(inputs[2:])
    selected = evaluate_nms(nine, floats)[0]
    max_out = int(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 else 0
    k = _rows(attrs.version, boxes.shape[1], max_out, scores.shape[0], scores.shape[1])
    out = np.full((k, 3), -1, selected.dtype)
    n = min(k, selected.shape[0])
    out[:n] = selected[:n]
    return [out]


def _spec(version: int, since: int) -> OpSpec[LegacyNMSAttrs]:
    return OpSpec(
        type="NonMaxSuppression",
        version=version,
        since=since,
        inputs=(2, 5),
        parse=_parser(version),
        infer=infer_legacy_nms,
        evaluate=evaluate_legacy_nms,
        foldable=False,
    )


SPECS = (_spec(1, 1), _spec(3, 3), _spec(4, 4))
