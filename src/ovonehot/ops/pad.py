"""Pad-1 and Pad-12: ``F.pad`` around one-hot maps (constant, edge, reflect, symmetric).

Inputs: data, pads_begin, pads_end (1-D integers, one entry per data axis), and for
``constant`` an optional scalar pad value of the data's type (default 0).  Output
dimension ``i`` is ``pads_begin[i] + dim[i] + pads_end[i]``; a negative pad removes
elements from that side (Pad-12; OpenVINO's Pad-1 computes the same).  Reflect needs
pads smaller than the dimension, symmetric pads no larger (OpenVINO's checks).

Values: every output coordinate reads data at ``i - pads_begin`` mapped by the mode --
``constant`` gives the pad value outside ``[0, dim)``, ``edge`` clamps, ``reflect``
mirrors without repeating the edge element, ``symmetric`` with it -- so negative pads
crop and padding on the other side still mirrors the original edges.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr
from .common.bounds import kernel_bounds
from .common.shape_util import INT64_MAX, dim_from_bounds, input_bounds, passes_integral_number_check, wrap64
from .common.spec import OpSpec, TensorInfo


class PadMode(enum.Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


@dataclass(frozen=True, slots=True)
class PadAttrs:
    pad_mode: PadMode = PadMode.CONSTANT


def parse_pad(node: Node) -> PadAttrs:
    return PadAttrs(enum_attr(node, "pad_mode", PadMode))


def _check_static_limits(mode: PadMode, begin: int, end: int, dim: int) -> None:
    """The checks shape inference makes on a static dim, with the pads' lower bounds."""
    if begin > 0 or end > 0:
        if mode is PadMode.EDGE and dim < 1:
            raise ValidationError(
                "EDGE padding mode requires an input of dimension of at least 1 at each spatial axis."
            )
        if mode is PadMode.REFLECT and dim < 2:
            raise ValidationError(
                "REFLECT padding mode requires an input of dimension of at least 2 at each spatial axis."
            )
    _check_mode_limits(mode, begin, end, dim)


def _check_mode_limits(mode: PadMode, begin: int, end: int, dim: int) -> None:
    if mode is PadMode.REFLECT and not (begin < dim and end < dim):
        raise ValidationError(
            "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than "
            "'data_shape[D] - 1'."
        )
    if mode is PadMode.SYMMETRIC and not (begin <= dim and end <= dim):
        raise ValidationError(
            "SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than "
            "'data_shape[D]'."
        )


def _padded(length: int, pad: int) -> int:
    """OpenVINO's ``dim::padded`` on one bound: -1 (unbounded) stays, a negative result becomes -1."""
    total = wrap64(length + pad)
    return -1 if length == -1 or total < 0 else total


def _is_inf_padding(bounds: tuple[int, int]) -> bool:
    """A pad from 0 to unbounded (``pad::is_inf_padding``): the padded dim has no upper bound."""
    return bounds[0] == 0 and bounds[1] in (-1, INT64_MAX)


def _padded_dim(d: Dimension, begin: tuple[int, int], end: tuple[int, int]) -> Dimension:
    """One output dim from the data dim and the (lower, upper) bounds of its two pads.

    OpenVINO (``pad_shape_inference.hpp``) adds the lower bounds of both pads to the
    dim's minimum and the upper bounds to its maximum, each through ``dim::padded``
    (a negative sum is "unbounded", so it reads as 0 as a minimum and as no limit as a
    maximum); a pad that may be anything from 0 up leaves no upper bound.
    """
    low_pad = wrap64(begin[0] + end[0])
    high_pad = wrap64(begin[1] + end[1])
    if low_pad == 0 and high_pad == 0:
        return d
    lo = _padded(d.min, low_pad)
    if _is_inf_padding(begin) or _is_inf_padding(end):
        hi = -1
    else:
        hi = _padded(-1 if d.max is None else d.max, high_pad)
    return dim_from_bounds(lo, hi)


def _check_pad_inputs(attrs: PadAttrs, inputs: Sequence[TensorInfo]) -> None:
    """The pad value (a scalar of the data's type), the mode for strings, the pads' types and ranks."""
    data, begin, end = inputs[:3]
    if len(inputs) == 4:
        value = inputs[3]
        if attrs.pad_mode is PadMode.CONSTANT and value.shape.rank_is_static and value.shape.rank != 0:
            raise ValidationError(f"Argument for padding value is not a scalar (shape: {value.shape}).")
        if data.element_type.merge(value.element_type) is None:
            raise ValidationError(
                f"Argument element types do not match (input arg element type: {data.element_type}, "
                f"arg_pad_value element type: {value.element_type})."
            )
    if data.element_type is ElementType.string and attrs.pad_mode is not PadMode.CONSTANT:
        raise ValidationError("Only CONSTANT pad mode is supported for element::string")  # pad_base.cpp
    for name, info in (("pads_begin", begin), ("pads_end", end)):
        if not (info.element_type.is_dynamic or passes_integral_number_check(info.element_type)):
            raise ValidationError(f"{name} must be an integral number, but is: {info.element_type}.")
        if info.shape.rank_is_static and info.shape.rank != 1:
            raise ValidationError(f"Argument for {name} is not 1D (shape: {info.shape.rank}).")


def infer_pad(attrs: PadAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, begin, end = inputs[:3]
    _check_pad_inputs(attrs, inputs)
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape.dynamic())]
    # Pads computed from shapes (F.pad(x, (0, -n % 8))) are seldom known exactly: OpenVINO
    # reads their lower and upper bounds (get_input_bounds) and pads each bound.
    b, e = input_bounds(begin), input_bounds(end)
    if b is None or e is None:
        for name, info in (("pads_begin", begin), ("pads_end", end)):
            if info.shape.is_static and info.shape.to_shape()[0] > shape.rank:
                raise ValidationError(f"Number of elements of {name} must be >= 0 and <= arg rank")
        return [TensorInfo(data.element_type, PartialShape((Dimension(),) * shape.rank))]
    for name, pads in (("pads_begin", b), ("pads_end", e)):
        if len(pads) != shape.rank:
            raise ValidationError(
                f"length of {name} mismatches with rank of input, expect {shape.rank}, but got {len(pads)}"
            )
    dims = []
    for d, pb, pe in zip(shape, b, e, strict=True):
        if d.is_static:
            _check_static_limits(attrs.pad_mode, pb[0], pe[0], d.length)
        dims.append(_padded_dim(d, pb, pe))
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]


def _source(out_len: int, begin: int, dim: int, mode: PadMode) -> tuple[np.ndarray, np.ndarray]:
    """Per output position along one axis: the data index to read and whether it lies inside."""
    pos = np.arange(out_len, dtype=np.int64) - begin
    inside = (pos >= 0) & (pos < dim)
    if mode is PadMode.CONSTANT or dim == 0:
        return np.clip(pos, 0, max(dim - 1, 0)), inside
    if mode is PadMode.EDGE:
        return np.clip(pos, 0, dim - 1), np.ones(out_len, bool)
    if mode is PadMode.REFLECT:
        period = 2 * (dim - 1)
        if period == 0:
            return np.zeros(out_len, np.int64), np.ones(out_len, bool)
        m = np.mod(pos, period)
        return np.where(m < dim, m, period - m), np.ones(out_len, bool)
    period = 2 * dim  # symmetric
    m = np.mod(pos, period)
    return np.where(m < dim, m, period - 1 - m), np.ones(out_len, bool)


def evaluate_pad(attrs: PadAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    begin = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    end = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    if len(begin) != data.ndim or len(end) != data.ndim:
        raise InputError(f"pads of lengths {len(begin)} and {len(end)} for data of rank {data.ndim}")
    fill = np.asarray(inputs[3]).reshape(()) if len(inputs) == 4 else np.zeros((), data.dtype)
    out = data
    mask = np.ones((), bool)
    for axis, (pb, pe) in enumerate(zip(begin, end, strict=True)):
        dim = data.shape[axis]
        _check_mode_limits(attrs.pad_mode, pb, pe, dim)
        out_len = dim + pb + pe
        if out_len < 0:
            raise InputError(f"axis {axis} of size {dim} padded by {pb} and {pe} would be negative")
        idx, inside = _source(out_len, pb, dim, attrs.pad_mode)
        if dim == 0 and out_len > 0 and attrs.pad_mode is not PadMode.CONSTANT:
            raise InputError(f"{attrs.pad_mode.value} padding of an empty axis {axis}")
        out = (
            np.take(out, idx, axis=axis)
            if dim
            else np.zeros((*out.shape[:axis], out_len, *out.shape[axis + 1 :]), data.dtype)
        )
        shape = [1] * data.ndim
        shape[axis] = out_len
        mask = mask & inside.reshape(shape)
    if attrs.pad_mode is PadMode.CONSTANT:
        out = np.where(mask, out, fill.astype(data.dtype))
    # (np.asarray, not np.ascontiguousarray, which makes a 0-d result 1-d)
    return [np.asarray(out, dtype=data.dtype, order="C")]


SPECS = (
    OpSpec(
        type="Pad",
        version=1,
        since=1,
        inputs=(3, 4),
        parse=parse_pad,
        infer=infer_pad,
        evaluate=evaluate_pad,
        bounds=kernel_bounds(exact=(1, 2)),
        copies_values=True,
    ),
    OpSpec(
        type="Pad",
        version=12,
        since=12,
        inputs=(3, 4),
        parse=parse_pad,
        infer=infer_pad,
        evaluate=evaluate_pad,
        bounds=kernel_bounds(exact=(1, 2)),
        copies_values=True,
    ),
)
