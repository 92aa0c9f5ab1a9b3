"""Graph plumbing ops: Parameter, Constant, Result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import IRError, quote
from ..graph import Node
from ..packed import Packed
from ..types import ElementType, PartialShape
from .common.attrs import NoAttrs, element_type_attr, parse_no_attrs, str_attr
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class ParameterAttrs:
    element_type: ElementType
    shape: PartialShape


def parse_parameter(node: Node) -> ParameterAttrs:
    element_type = element_type_attr(node, "element_type")
    text = str_attr(node, "shape")
    try:
        shape = PartialShape.parse(text)
    except ValueError as exc:
        raise IRError(f"{node.describe()}: attribute shape={quote(text)} is not a shape: {exc}") from None
    return ParameterAttrs(element_type, shape)


def infer_parameter(attrs: ParameterAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return [TensorInfo(attrs.element_type, attrs.shape)]


@dataclass(frozen=True, slots=True)
class ConstantAttrs:
    element_type: ElementType
    value: np.ndarray | Packed = field(compare=False)  # (a large u4/i4 payload stays packed)


def parse_constant(node: Node) -> ConstantAttrs:
    if node.payload is None:  # the reader decodes every Const; a Const built elsewhere may lack it
        raise IRError(f"{node.describe()}: constant has no payload")
    return ConstantAttrs(element_type_attr(node, "element_type"), node.payload)


def infer_constant(attrs: ConstantAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    shape = _SHAPES.get(attrs.value.shape)
    if shape is None:
        shape = PartialShape.of(attrs.value.shape)
        if len(_SHAPES) < 4096:
            _SHAPES[attrs.value.shape] = shape
    # A packed payload (more than FOLD_LIMIT values: nothing folds from it) is not offered as a
    # value to inference, which would unpack it.
    value = attrs.value if isinstance(attrs.value, np.ndarray) else None
    return [TensorInfo(attrs.element_type, shape, value=value)]


# Constants' shapes (a PartialShape is immutable: one object serves every constant of a shape).
_SHAPES: dict[tuple[int, ...], PartialShape] = {}


def evaluate_constant(attrs: ConstantAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    value = attrs.value
    return [value if isinstance(value, np.ndarray) else value.unpack()]


def infer_result(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return []


def evaluate_result(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return []


SPECS = (
    OpSpec(
        type="Parameter",
        version=0,
        since=1,
        inputs=0,
        parse=parse_parameter,
        infer=infer_parameter,
        evaluate=None,
        foldable=False,
        copies_values=True,
    ),
    OpSpec(
        type="Constant",
        version=0,
        since=1,
        inputs=0,
        parse=parse_constant,
        infer=infer_constant,
        evaluate=evaluate_constant,
        copies_values=True,
    ),
    OpSpec(
        type="Result",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_result,
        evaluate=evaluate_result,
        foldable=False,
    ),
)
