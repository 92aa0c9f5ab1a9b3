"""IsNaN, IsInf, IsFinite (opset10): the NaN guards of losses over one-hot targets (``F.kl_div``, ``xlogy``).

Each takes a real tensor and gives a boolean tensor of its shape.  IsInf's attributes
``detect_negative`` and ``detect_positive`` (both default true) choose which infinity
counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import ElementType
from .common.attrs import NoAttrs, bool_attr, parse_no_attrs
from .common.numeric import widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class IsInfAttrs:
    detect_negative: bool = True
    detect_positive: bool = True


def parse_is_inf(node: Node) -> IsInfAttrs:
    return IsInfAttrs(bool_attr(node, "detect_negative", True), bool_attr(node, "detect_positive", True))


def infer_float_check(attrs: object, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if not (x.element_type.is_dynamic or x.element_type.is_real):
        raise ValidationError(
            f"The element type of the input tensor must be a floating point number. Got: {x.element_type}"
        )
    return [TensorInfo(ElementType.boolean, x.shape)]


# (np.asarray around each ufunc: on a 0-d input NumPy returns its bool scalar, not an array.)
def evaluate_is_nan(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(np.isnan(widen(np.asarray(inputs[0]))))]


def evaluate_is_finite(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(np.isfinite(widen(np.asarray(inputs[0]))))]


def evaluate_is_inf(attrs: IsInfAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = widen(np.asarray(inputs[0]))
    out = np.zeros(x.shape, bool)
    if attrs.detect_positive:
        out |= np.isposinf(x)
    if attrs.detect_negative:
        out |= np.isneginf(x)
    return [out]


SPECS = (
    OpSpec(
        type="IsNaN",
        version=10,
        since=10,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_float_check,
        evaluate=evaluate_is_nan,
    ),
    OpSpec(
        type="IsInf",
        version=10,
        since=10,
        inputs=1,
        parse=parse_is_inf,
        infer=infer_float_check,
        evaluate=evaluate_is_inf,
    ),
    OpSpec(
        type="IsFinite",
        version=10,
        since=10,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_float_check,
        evaluate=evaluate_is_finite,
    ),
)
