"""Einsum-7: ``torch.einsum`` over one-hot tensors (``"bsc,bsd->bcd"`` per-class sums, ``"bc,cd->bd"``).

Equation rules (OpenVINO's ``einsum.cpp`` and ``einsum_shape_inference.hpp``): each
subscript is alphabetic labels with at most one ``...`` (OpenVINO 2026.4 refuses spaces);
its length must equal the input's rank (the ellipsis takes the rest); when an input
has an ellipsis the output must have one too.  Without ``->`` the output is the
ellipsis (if any) followed, in ASCII order, by every label occurrence whose label
appears in no *other* input -- OpenVINO's rule, which keeps a label repeated within one
input twice (``"ii"`` is ``"ii->ii"``, not NumPy's trace).  All inputs share one
numeric element type.

Shapes: dimensions carrying one label must be equal (merged); ellipsis dimensions
broadcast NumPy-style; a repeated label in one input takes its diagonal.

Values: ``numpy.einsum`` without path optimization, in the element type (f16/bf16 in
f32, rounded at the end; integers wrap).  The core reference has no ``evaluate`` for
Einsum; the CPU plugin decomposes it into MatMul/ReduceSum, so float sums may differ
from it in the last bits (tests state the tolerance).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import str_attr
from .common.autobroadcast import AutoBroadcastSpec, broadcast_shapes
from .common.numeric import narrow, quiet, widen
from .common.shape_util import passes_integral_number_check
from .common.spec import OpSpec, TensorInfo

ELLIPSIS = "..."
_SUBSCRIPT = re.compile(r"^[A-Za-z]*(\.\.\.)?[A-Za-z]*$")


@dataclass(frozen=True, slots=True)
class EinsumAttrs:
    inputs: tuple[tuple[str, ...], ...]  # per input: labels, with "..." as one token
    output: tuple[str, ...]
    equation: str


def _tokens(subscript: str) -> tuple[str, ...]:
    if not _SUBSCRIPT.match(subscript):
        raise ValidationError(
            "Input subscript of Einsum equation must consist of either only alphabetic letters or alphabetic "
            f"letters with one ellipsis. Got: {subscript!r}"
        )
    head, sep, tail = subscript.partition(ELLIPSIS)
    return (*head, *((ELLIPSIS,) if sep else ()), *tail)


def parse_equation(equation: str) -> EinsumAttrs:
    """Split an Einsum equation into per-input label tuples and the output labels."""
    left, arrow, right = equation.partition("->")
    inputs = tuple(_tokens(s) for s in left.split(","))
    input_ellipsis = any(ELLIPSIS in sub for sub in inputs)
    if arrow:
        output = _tokens(right)
        if (ELLIPSIS in output) != input_ellipsis:
            raise ValidationError(
                "Output subscript of Einsum equation must contain one ellipsis if ellipsis is met in any input "
                "subscript."
            )
        known = {t for sub in inputs for t in sub}
        for label in output:
            if label not in known:
                raise ValidationError(
                    f"Label {label!r} of the Einsum output subscript is not in any input subscript"
                )
    else:
        letters = [
            t
            for k, sub in enumerate(inputs)
            for t in sub
            if t != ELLIPSIS and not any(t in other for j, other in enumerate(inputs) if j != k)
        ]
        output = ((ELLIPSIS,) if input_ellipsis else ()) + tuple(sorted(letters))
    return EinsumAttrs(inputs, output, equation)


def parse_einsum(node: Node) -> EinsumAttrs:
    return parse_equation(str_attr(node, "equation"))


def _einsum_type(inputs: Sequence[TensorInfo]) -> ElementType:
    """The inputs' one numeric element type."""
    et = inputs[0].element_type
    if not (et.is_dynamic or et.is_real or passes_integral_number_check(et)):
        raise ValidationError("The input type for Einsum operation must be numeric.")
    for info in inputs[1:]:
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError("Inputs to Einsum operation must have the same type.")
        et = merged
    return et


def _read_labels(
    sub: Sequence[str],
    dims: list[Dimension],
    span: int,
    labels: dict[str, Dimension],
    ellipsis: PartialShape | None,
) -> PartialShape | None:
    """Merge one input's ``dims`` into ``labels`` by its subscript ``sub`` (the ellipsis covers
    ``span`` dims); the ellipsis shape broadcast so far with this input's."""
    pos = 0
    for t in sub:
        if t == ELLIPSIS:
            part = PartialShape(tuple(dims[pos : pos + span]))
            ellipsis = None if ellipsis is None else _broadcast(ellipsis, part)
            pos += span
            continue
        d = dims[pos]
        pos += 1
        if t in labels:
            merged_dim = labels[t].merge(d)
            if merged_dim is None:
                raise ValidationError(f"Label {t!r} has inconsistent dimensions {labels[t]} and {d}.")
            labels[t] = merged_dim
        else:
            labels[t] = d
    return ellipsis


def infer_einsum(attrs: EinsumAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if len(inputs) != len(attrs.inputs):
        raise ValidationError(
            f"Equation must contain a number of subscripts equal to a number of Einsum inputs "
            f"({len(attrs.inputs)} subscripts, {len(inputs)} inputs)."
        )
    et = _einsum_type(inputs)
    labels: dict[str, Dimension] = {}
    ellipsis: PartialShape | None = PartialShape(())
    for sub, info in zip(attrs.inputs, inputs, strict=True):
        shape = info.shape
        letters = [t for t in sub if t != ELLIPSIS]
        if not shape.rank_is_static:
            if ELLIPSIS in sub:
                ellipsis = None
            for t in letters:
                labels.setdefault(t, Dimension())
            continue
        has_ellipsis = ELLIPSIS in sub
        if (has_ellipsis and shape.rank < len(letters)) or (not has_ellipsis and shape.rank != len(letters)):
            raise ValidationError(
                "Input rank must be greater or equal to a number of labels in the corresponding "
                "input subscript."
                if has_ellipsis
                else "Input rank must be equal to a number of labels in the corresponding input subscript."
            )
        ellipsis = _read_labels(sub, list(shape), shape.rank - len(letters), labels, ellipsis)
    out: list[Dimension] = []
    for t in attrs.output:
        if t == ELLIPSIS:
            if ellipsis is None:
                return [TensorInfo(et, PartialShape.dynamic())]
            out.extend(ellipsis)
        else:
            out.append(labels[t])
    return [TensorInfo(et, PartialShape(tuple(out)))]


def _broadcast(a: PartialShape, b: PartialShape) -> PartialShape:
    shape = broadcast_shapes(a, b, AutoBroadcastSpec())  # numpy rules
    if shape is None:
        raise ValidationError(f"Ellipsis dimensions of Einsum inputs do not broadcast: {a} and {b}.")
    return shape


def _numpy_subscript(sub: Sequence[str], letters: dict[str, str]) -> str:
    return "".join(ELLIPSIS if t == ELLIPSIS else letters[t] for t in sub)


def evaluate_einsum(attrs: EinsumAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays):
        raise InputError("Einsum inputs differ in element type")
    # NumPy takes the same letters; mapping keeps the door open for labels NumPy would refuse.
    letters = {t: t for sub in attrs.inputs for t in sub if t != ELLIPSIS}
    spec = (
        ",".join(_numpy_subscript(s, letters) for s in attrs.inputs)
        + "->"
        + _numpy_subscript(attrs.output, letters)
    )
    if len(set(attrs.output)) != len(attrs.output):
        raise InputError(
            f"Einsum {attrs.equation!r}: an output label repeated (OpenVINO's implicit output of a "
            "label repeated in one input) has no defined value"
        )
    wide = [widen(a) for a in arrays]
    try:
        with quiet():
            out = np.einsum(spec, *wide, optimize=False)
    except ValueError as exc:
        raise InputError(f"Einsum {attrs.equation!r}: {exc}") from None
    return [narrow(np.asarray(out, dtype=wide[0].dtype), dtype)]


SPECS = (
    OpSpec(
        type="Einsum",
        version=7,
        since=7,
        inputs=(1, 64),
        parse=parse_einsum,
        infer=infer_einsum,
        evaluate=evaluate_einsum,
        blas=True,
    ),
)
