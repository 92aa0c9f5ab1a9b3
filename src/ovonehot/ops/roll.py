"""Roll-7: ``torch.roll`` of one-hot tensors (cyclic shifts of class positions).

Inputs: data, shift (integer scalar or 1-D), axes (integer scalar or 1-D).  A scalar
shift applies to every axis; otherwise shift and axes have equal lengths.  Negative
axes count from the end; an axis listed twice is shifted by the sum (OpenVINO's
``roll.hpp`` accumulates per axis).  The output is the data's type and shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import ElementType
from .common.attrs import NoAttrs, parse_no_attrs
from .common.shape_util import known_ints, normalize_axis
from .common.spec import OpSpec, TensorInfo


def _index_type(et: ElementType) -> bool:
    return et.is_dynamic or et in (ElementType.i32, ElementType.i64)


def infer_roll(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, shift, axes = inputs
    if not _index_type(shift.element_type):
        raise ValidationError("Shift must have int32 or int64 element type.")
    if not _index_type(axes.element_type):
        raise ValidationError("Axes must have int32 or int64 element type.")
    if shift.shape.rank_is_static and shift.shape.rank > 1:
        raise ValidationError(f"Shift must be a scalar or 1D tensor. Got: {shift.shape}")
    if axes.shape.rank_is_static and axes.shape.rank > 1:
        raise ValidationError(f"Axes must be a scalar or 1D tensor. Got: {axes.shape}")
    if (
        shift.shape.rank_is_static
        and shift.shape.rank == 1
        and axes.shape.rank_is_static
        and axes.shape.rank == 1
        and shift.shape[0].is_static
        and axes.shape[0].is_static
        and shift.shape[0].length != axes.shape[0].length
    ):
        raise ValidationError("If shift is a 1D vector, axes must be a 1D tensor of the same size.")
    values = known_ints(axes)
    if values is not None and data.shape.rank_is_static:
        for a in values:
            normalize_axis(a, data.shape.rank)
    return [TensorInfo(data.element_type, data.shape)]


def evaluate_roll(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, shift, axes = (np.asarray(a) for a in inputs)
    axis_list = [normalize_axis(int(a), data.ndim) for a in axes.reshape(-1)]
    shifts = [int(s) for s in shift.reshape(-1)]
    if shift.ndim == 0:
        shifts = shifts * len(axis_list)
    if len(shifts) != len(axis_list):
        raise InputError(f"{len(shifts)} shifts for {len(axis_list)} axes")
    if data.ndim == 0:  # (axis 0 or -1 of a scalar, as normalize_axis allows: one element, unmoved)
        return [np.array(data, copy=True)]
    total = [0] * data.ndim
    for a, s in zip(axis_list, shifts, strict=True):
        total[a] += s
    out = data
    for a, s in enumerate(total):
        if s and data.shape[a]:
            out = np.roll(out, s % data.shape[a], axis=a)
    return [np.array(out, copy=True)]


SPECS = (
    OpSpec(
        type="Roll",
        version=7,
        since=7,
        inputs=3,
        parse=parse_no_attrs,
        infer=infer_roll,
        evaluate=evaluate_roll,
        copies_values=True,
    ),
)
