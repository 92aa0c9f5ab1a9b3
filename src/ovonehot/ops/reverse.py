"""Reverse-1 and ReverseSequence-1: flipping axes, and flipping the first ``L`` steps of each sequence.

Reverse-1 (``src/core/src/op/reverse.cpp``, ``reverse_shape_inference.hpp``): inputs
``data`` and ``reversed_axes`` (1D); ``mode`` ``index`` (axes as integers, negative ones
counted from the end at run time) or ``mask`` (one boolean per data axis).  Shape
inference clips negative axes to 0 before checking them against the rank, so ``-5`` on a
rank-2 input passes inference and fails at run time, as in OpenVINO.  Output = data.

ReverseSequence-1 (``reverse_sequence.cpp``, ``reference/reverse_sequence.hpp``): inputs
``data`` (rank >= 2) and ``seq_lengths`` (1D, any number type, one per batch entry);
attributes ``batch_axis`` (default 0) and ``seq_axis`` (default 1), negative allowed.  For
batch entry ``b`` with length ``L`` (cast to an unsigned integer: floats truncate), the
first ``L`` elements along ``seq_axis`` are reversed and the rest kept; ``L == 0`` acts as 1;
``L`` beyond the axis (or negative) is an error.  With ``batch_axis == seq_axis`` the
reference leaves outputs unwritten; ovonehot follows the CPU plugin there (see the kernel).  The batch dim of the output merges the
data's with the length of ``seq_lengths``.  OpenVINO's core has no ``evaluate`` for it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import ElementType, PartialShape
from .common.attrs import enum_attr, int_attr
from .common.shape_util import known_ints, normalize_axis
from .common.spec import OpSpec, TensorInfo


class ReverseMode(enum.Enum):
    INDEX = "index"
    MASK = "mask"


@dataclass(frozen=True, slots=True)
class ReverseAttrs:
    mode: ReverseMode


def parse_reverse(node: Node) -> ReverseAttrs:
    return ReverseAttrs(enum_attr(node, "mode", ReverseMode))


def infer_reverse(attrs: ReverseAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    et = axes.element_type
    if attrs.mode is ReverseMode.MASK:
        if et is not ElementType.boolean:
            raise ValidationError("In 'mask' mode the second input must contain boolean values.")
    elif not (et.is_integral_number or et.is_dynamic):
        raise ValidationError("In 'index' mode the second input must contain integer values.")
    if axes.shape.rank_is_static and axes.shape.rank != 1:
        raise ValidationError(f"The reversed_axes input must be a 1D tensor (got {axes.shape.rank}).")
    rank = data.shape.rank if data.shape.rank_is_static else None
    if attrs.mode is ReverseMode.MASK:
        if rank is not None and axes.shape.rank_is_static and not axes.shape[0].contains(rank):
            raise ValidationError(
                f"The number of elements in the reversed_axes tensor ({axes.shape[0]}) must match the input "
                f"data tensor rank ({rank}) in 'mask' mode."
            )
    elif rank is not None:
        values = known_ints(axes)
        if values is not None:
            clipped = sorted({max(v, 0) for v in values})
            if any(v >= rank for v in clipped):
                listed = ", ".join(str(v) for v in clipped)
                raise ValidationError(
                    f"Some of the provided axes (AxisSet{{{listed}}}) are out of bounds (input rank: {rank})."
                )
    return [TensorInfo(data.element_type, data.shape)]


def evaluate_reverse(attrs: ReverseAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, axes = (np.asarray(a) for a in inputs)
    if attrs.mode is ReverseMode.MASK:
        if axes.size != data.ndim:
            raise InputError(f"mask has {axes.size} elements, the data rank is {data.ndim}")
        flip = [i for i, on in enumerate(axes.reshape(-1).tolist()) if on]
    else:
        try:
            flip = sorted({normalize_axis(int(v), data.ndim) for v in axes.reshape(-1).tolist()})
        except ValidationError as exc:
            raise InputError(str(exc)) from None
    return [np.array(np.flip(data, axis=tuple(flip)) if flip else data, copy=True)]


# -- ReverseSequence ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReverseSequenceAttrs:
    batch_axis: int = 0
    seq_axis: int = 1


def parse_reverse_sequence(node: Node) -> ReverseSequenceAttrs:
    return ReverseSequenceAttrs(int_attr(node, "batch_axis", 0), int_attr(node, "seq_axis", 1))


def infer_reverse_sequence(attrs: ReverseSequenceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, lengths = inputs
    shape = data.shape
    if shape.rank_is_static and shape.rank < 2:
        raise ValidationError(f"Data input rank should be equal or greater than 2. Got: {shape}")
    if shape.rank_is_static:
        normalize_axis(attrs.batch_axis, shape.rank)
        normalize_axis(attrs.seq_axis, shape.rank)
    if lengths.shape.rank_is_static and lengths.shape.rank != 1:
        raise ValidationError(f"Sequence lengths rank must be equal to 1. Got: {lengths.shape}")
    out = shape
    if shape.dims is not None and lengths.shape.dims is not None:
        batch = normalize_axis(attrs.batch_axis, shape.rank)
        merged = shape.dims[batch].merge(lengths.shape.dims[0])
        if merged is None:
            raise ValidationError(
                f"Sequence lengths input size ({lengths.shape.dims[0]}) is not equal to batch axis dimension of "
                f"data input ({shape.dims[batch]}) (argument shape: {shape}, sequence indices shape: "
                f"{lengths.shape})."
            )
        dims = list(shape.dims)
        dims[batch] = merged
        out = PartialShape(tuple(dims))
    et = lengths.element_type
    if not (et.is_real or et.is_integral_number or et.is_dynamic):
        raise ValidationError(f"Sequence lengths element type must be numeric type. Got: {et}")
    return [TensorInfo(data.element_type, out)]


def _lengths(values: np.ndarray) -> list[int]:
    """``static_cast<size_t>(length)``: floats truncate; a negative length wraps to a huge one."""
    out = []
    for v in values.reshape(-1).tolist():
        n = int(v) if not isinstance(v, float) else (int(v) if np.isfinite(v) else -1)
        out.append(n)
    return out


def evaluate_reverse_sequence(attrs: ReverseSequenceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, seq_lengths = (np.asarray(a) for a in inputs)
    try:
        batch = normalize_axis(attrs.batch_axis, data.ndim)
        seq = normalize_axis(attrs.seq_axis, data.ndim)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    lengths = _lengths(seq_lengths)
    if len(lengths) != data.shape[batch]:
        raise InputError(f"{len(lengths)} sequence lengths for a batch of {data.shape[batch]}")
    for length in lengths:
        if not 0 <= length <= data.shape[seq]:
            raise InputError(
                "One of the elements of sequence lengths is greater than sequence axis dimension"
            )
    out = data.copy()
    if batch == seq:
        # One axis for both: the reference scatters entry b to L_b - b - 1 and leaves the other
        # outputs unwritten (whatever the buffer held); the CPU plugin gathers, out[i] =
        # data[L_i - i - 1] for i < L_i, else data[i].  ovonehot does what the plugin does.
        source_rows = [max(n, 1) - i - 1 if i < max(n, 1) else i for i, n in enumerate(lengths)]
        return [np.array(np.take(data, source_rows, axis=batch), copy=True)]
    for b, length in enumerate(lengths):
        length = max(length, 1)
        where: list[slice | int] = [slice(None)] * data.ndim
        where[batch] = b
        where[seq] = slice(0, length)
        source = list(where)
        source[seq] = slice(length - 1, None, -1)
        out[tuple(where)] = data[tuple(source)]
    return [out]


SPECS = (
    OpSpec(
        type="Reverse",
        version=1,
        since=1,
        inputs=2,
        parse=parse_reverse,
        infer=infer_reverse,
        evaluate=evaluate_reverse,
    ),
    # No core evaluate in OpenVINO: its values never reach shape inference.
    OpSpec(
        type="ReverseSequence",
        version=0,
        since=1,
        inputs=2,
        parse=parse_reverse_sequence,
        infer=infer_reverse_sequence,
        evaluate=evaluate_reverse_sequence,
        foldable=False,
    ),
)
