"""ReorgYolo-0: YOLOv2's "reorg" (space to depth with darknet's index mapping).

Data ``[N, C, H, W]`` and attribute ``stride`` (``[s]`` or ``[s, s]`` in the IR).  Output
``[N, C*s*s, H/s, W/s]`` (``reorg_yolo_shape_inference.hpp``: rank 4, ``C >= s*s``, H and W
multiples of ``s``; dynamic dims stay dynamic).

Values (``reference/reorg_yolo.cpp``, darknet's backward-style mapping): the output read in
the input's ``(n, c, h, w)`` order takes element ``((n*C' + c % C')*H*s + h*s + k // s)*W*s +
w*s + k % s`` of the input read as ``[N, C', H*s, W*s]``, with ``C' = C / (s*s)`` and ``k = c //
C'``.  Data movement only: exact for every type.  The core op has no ``evaluate``; the CPU
plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import ints_attr
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class ReorgYoloAttrs:
    stride: int


def parse_reorg_yolo(node: Node) -> ReorgYoloAttrs:
    strides = ints_attr(node, "stride")
    if not strides or any(s != strides[0] for s in strides):
        raise ValidationError(
            f"{node.describe()}: stride must hold one value (or equal ones), got {list(strides)}"
        )
    return ReorgYoloAttrs(strides[0])


def _quotient(d: Dimension, s: int) -> Dimension:
    if d.is_static:
        return Dimension.static(d.min // s)
    return Dimension(-(-d.min // s), None if d.max is None else d.max // s)


def infer_reorg_yolo(attrs: ReorgYoloAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    s = attrs.stride
    if s <= 0:
        raise ValidationError("Stride attribute is required and should be greater than 0.")
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape.dynamic())]
    if shape.rank != 4:
        raise ValidationError("[N, C, H, W] input shape is required.")
    n, c, h, w = shape
    if c.is_static and c.min < s * s:
        raise ValidationError("For [N, C, H, W] input shape, C >= (stride*stride) is required.")
    if (h.is_static and h.min % s) or (w.is_static and w.min % s):
        raise ValidationError("For [N, C, H, W] input shape, H and W should be divisible by stride.")
    out = (n, mul(c, Dimension.static(s * s)), _quotient(h, s), _quotient(w, s))
    return [TensorInfo(data.element_type, PartialShape(out))]


def evaluate_reorg_yolo(attrs: ReorgYoloAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    s = attrs.stride
    if (
        x.ndim != 4
        or s <= 0
        or x.shape[1] % (s * s)
        or x.shape[1] < s * s
        or x.shape[2] % s
        or x.shape[3] % s
    ):
        raise InputError(f"ReorgYolo with stride {s} does not fit data {list(x.shape)}")
    n, c, h, w = x.shape
    c_impl = c // (s * s)
    nn, cc, hh, ww = np.indices((n, c, h, w), sparse=True)
    k = cc // c_impl
    src = ((nn * c_impl + cc % c_impl) * (h * s) + hh * s + k // s) * (w * s) + ww * s + k % s
    flat = x.reshape(-1)[src.reshape(-1)]
    return [flat.reshape(n, c * s * s, h // s, w // s)]


SPECS = (
    OpSpec(
        type="ReorgYolo",
        version=0,
        since=2,
        inputs=1,
        parse=parse_reorg_yolo,
        infer=infer_reorg_yolo,
        evaluate=evaluate_reorg_yolo,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
        copies_values=True,
    ),
)
