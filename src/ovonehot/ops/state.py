"""Stateful ops: ReadValue-3/-6 and Assign-3/-6, the variables of LLM KV-cache exports.

A variable, named by ``variable_id``, lives across runs of one request
(:class:`ovonehot.model.Request`); :class:`ovonehot.ops.common.spec.Variables` holds it.

* ReadValue gives the variable's value; a variable in its initial state (never
  assigned, or reset) gives the init input (the value of the init sub-graph, run each
  time, as OpenVINO 2024+ does), or without one zeros of ``variable_shape`` in
  ``variable_type`` (a dynamic dim counts as its lower bound, 0 for ``?``).
* Assign stores its input in the variable; the new value is seen from the next run on.
* ReadValue-6's output is ``variable_type``/``variable_shape``
  (``src/core/src/op/read_value.cpp``); the init input must fit them.  ReadValue-3 has no
  variable info: its output is its input.  Assign's output is its input.

Neither op folds: their values change from run to run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import IRError, ValidationError
from ..graph import Node
from ..types import ElementType, PartialShape
from .common.attrs import element_type_attr, str_attr
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo


@dataclass(frozen=True, slots=True)
class ReadValueAttrs:
    variable_id: str
    # None for ReadValue-3, whose variable takes its input's type and shape.
    variable_type: ElementType | None = None
    variable_shape: PartialShape | None = None


def parse_read_value_3(node: Node) -> ReadValueAttrs:
    return ReadValueAttrs(str_attr(node, "variable_id"))


def parse_read_value_6(node: Node) -> ReadValueAttrs:
    text = str_attr(node, "variable_shape", "...")
    try:
        shape = PartialShape.parse(text)
    except ValueError as exc:
        raise IRError(f"{node.describe()}: attribute variable_shape={text!r} is not a shape: {exc}") from None
    return ReadValueAttrs(
        str_attr(node, "variable_id"), element_type_attr(node, "variable_type", ElementType.dynamic), shape
    )


def _relaxes(general: PartialShape, specific: PartialShape) -> bool:
    """OpenVINO's ``PartialShape::relaxes``: every shape ``specific`` allows, ``general`` allows."""
    if general.dims is None:
        return True
    if specific.dims is None or len(general.dims) != len(specific.dims):
        return False
    for g, s in zip(general.dims, specific.dims, strict=True):
        if g.min > s.min or (g.max is not None and (s.max is None or s.max > g.max)):
            return False
    return True


def infer_read_value(attrs: ReadValueAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if attrs.variable_type is None or attrs.variable_shape is None:  # ReadValue-3
        return [TensorInfo(inputs[0].element_type, inputs[0].shape)]
    et, shape = attrs.variable_type, attrs.variable_shape
    if inputs:
        init = inputs[0]
        if et.is_dynamic and not shape.rank_is_static:  # variable info left open: the init decides
            return [TensorInfo(init.element_type, init.shape)]
        if not _relaxes(shape, init.shape):
            raise ValidationError(
                f"variable_shape {shape} of variable {attrs.variable_id!r} must relax the init input's "
                f"shape {init.shape}"
            )
        if et.merge(init.element_type) is None:
            raise ValidationError(
                f"variable_type {et} of variable {attrs.variable_id!r} does not match the init input's "
                f"type {init.element_type}"
            )
    return [TensorInfo(et, shape)]


def read_variable(attrs: ReadValueAttrs) -> str:
    return attrs.variable_id


def evaluate_read_value(attrs: ReadValueAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The variable in its initial state (a stateless run): the init input, or zeros."""
    if inputs:
        return [inputs[0]]
    et, shape = attrs.variable_type, attrs.variable_shape  # (ReadValue-3, without them, has an input)
    dtype = et.numpy_dtype if et is not None else None
    if dtype is None or shape is None or shape.dims is None:
        raise ValidationError(
            f"variable {attrs.variable_id!r} of type {et} and shape {shape} "
            f"has no init input, and no zero value can be made for it"
        )
    return [np.zeros(tuple(d.min for d in shape.dims), dtype=dtype)]


@dataclass(frozen=True, slots=True)
class AssignAttrs:
    variable_id: str


def parse_assign(node: Node) -> AssignAttrs:
    return AssignAttrs(str_attr(node, "variable_id"))


def infer_assign(attrs: AssignAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return [TensorInfo(inputs[0].element_type, inputs[0].shape)]


def evaluate_assign(attrs: AssignAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Assign in a stateless run: its output is its input, and what it writes is dropped."""
    return [inputs[0]]


def specialize_read_value(
    attrs: ReadValueAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """ReadValue in a run with ``mode.variables``: the value the variable holds, or its initial one."""
    variables = mode.variables
    if variables is None:
        return None

    def read(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        held = variables.values.get(attrs.variable_id)
        return [held] if held is not None else evaluate_read_value(attrs, arrays)

    return read


def specialize_assign(
    attrs: AssignAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Assign in a run with ``mode.variables``: its input becomes the variable's value when the
    run ends (:meth:`Variables.commit`)."""
    variables = mode.variables
    if variables is None:
        return None

    def assign(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        variables.pending[attrs.variable_id] = arrays[0]
        return [arrays[0]]

    return assign


SPECS = (
    OpSpec(
        type="ReadValue",
        version=3,
        since=3,
        inputs=1,
        parse=parse_read_value_3,
        infer=infer_read_value,
        evaluate=evaluate_read_value,
        specialize=specialize_read_value,
        uses_run=True,
        reads_variable=read_variable,
        foldable=False,
    ),
    OpSpec(
        type="ReadValue",
        version=6,
        since=6,
        inputs=(0, 1),
        parse=parse_read_value_6,
        infer=infer_read_value,
        evaluate=evaluate_read_value,
        specialize=specialize_read_value,
        uses_run=True,
        reads_variable=read_variable,
        foldable=False,
    ),
    OpSpec(
        type="Assign",
        version=3,
        since=3,
        inputs=1,
        parse=parse_assign,
        infer=infer_assign,
        evaluate=evaluate_assign,
        specialize=specialize_assign,
        uses_run=True,
        foldable=False,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="Assign",
        version=6,
        since=6,
        inputs=1,
        parse=parse_assign,
        infer=infer_assign,
        evaluate=evaluate_assign,
        specialize=specialize_assign,
        uses_run=True,
        foldable=False,
        sizes_within_inputs=True,
    ),
)
