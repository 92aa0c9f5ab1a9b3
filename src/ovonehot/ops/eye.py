"""Eye-9: batches of 2D matrices with ones on one diagonal (``src/core/src/op/eye.cpp``).

Inputs ``num_rows``, ``num_columns``, ``diagonal_index`` (each i32/i64, a scalar or one
element) and optionally ``batch_shape`` (i32/i64, 1D); attribute ``output_type``.
Output ``batch_shape + [num_rows, num_columns]``, ``out[..., r, c] = 1`` where
``c - r == diagonal_index``, else 0 (a diagonal outside the matrix gives zeros).

Shapes, probed on 2026.4: ``num_rows``/``num_columns`` become their value when known
(a negative value is an error), an interval when only bounds are known (``ShapeOf`` of a
``2..7`` dim), else ``?``; ``batch_shape`` of a static shape ``[n]`` gives n dims, each
its value (``-1`` is ``?``, smaller negatives 0), bounds, or ``?``; a ``batch_shape``
whose length is unknown makes the output rank dynamic.  OpenVINO's ``evaluate`` has no
kernel for boolean, i16, u16, u32, u64 outputs; ovonehot computes them all.  Eye is not
folded into shape inference (its values never feed a shape in practice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import element_type_attr
from .common.shape_util import INT64_MAX, input_bounds, known_ints
from .common.spec import OpSpec, TensorInfo

_INDEX_TYPES = (ElementType.i32, ElementType.i64)
_NAMES = ("num_rows", "num_columns", "diagonal_index", "batch_shape")


@dataclass(frozen=True, slots=True)
class EyeAttrs:
    output_type: ElementType


def parse_eye(node: Node) -> EyeAttrs:
    return EyeAttrs(element_type_attr(node, "output_type"))


def _check_inputs(inputs: Sequence[TensorInfo]) -> None:
    for name, info in zip(_NAMES, inputs, strict=False):
        et = info.element_type
        if not (et in _INDEX_TYPES or et.is_dynamic):
            raise ValidationError(f"Type of the '{name}' should be int32 or int64. Got: {et}")
        shape = info.shape
        if name == "batch_shape":
            if shape.rank_is_static and shape.rank != 1:
                raise ValidationError("'batch_shape' input must be a 1D tensor.")
            continue
        if shape.rank_is_static:
            if shape.rank > 1:
                raise ValidationError(f"'{name}' value must be a scalar or 1D tensor.")
            if shape.rank == 1 and not shape[0].contains(1):
                raise ValidationError(f"'{name}' value input should have 1 element.")


def _size(info: TensorInfo) -> Dimension:
    """A matrix dim from ``num_rows``/``num_columns``: the value, bounds, or ``?``."""
    value = known_ints(info)
    if value is not None:
        if value[0] < 0:
            raise ValidationError(f"Value {value[0]} not in range [0:{INT64_MAX}]")
        return Dimension.static(value[0])
    bounds = input_bounds(info)
    if bounds is None:
        return Dimension()
    lo, hi = bounds[0]
    if lo < 0 or hi < 0:
        raise ValidationError("Value for partial shape evaluation can't be lower than zero.")
    return Dimension(lo, None if hi >= INT64_MAX else hi)


def _batch_dims(info: TensorInfo) -> tuple[Dimension, ...] | None:
    shape = info.shape
    if not shape.is_static:
        return None
    (length,) = shape.to_shape()
    value = known_ints(info)
    if value is not None:
        return tuple(Dimension() if v == -1 else Dimension.static(max(v, 0)) for v in value)
    bounds = input_bounds(info)
    if bounds is None:
        return (Dimension(),) * length
    return tuple(Dimension(max(lo, 0), None if hi >= INT64_MAX or hi < 0 else hi) for lo, hi in bounds)


def infer_eye(attrs: EyeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check_inputs(inputs)
    rows, columns = _size(inputs[0]), _size(inputs[1])
    batch: tuple[Dimension, ...] = ()
    if len(inputs) == 4:
        dims = _batch_dims(inputs[3])
        if dims is None:
            return [TensorInfo(attrs.output_type, PartialShape.dynamic())]
        batch = dims
    return [TensorInfo(attrs.output_type, PartialShape((*batch, rows, columns)))]


def _one(name: str, array: np.ndarray) -> int:
    if array.size != 1:
        raise InputError(f"'{name}' must hold one element, got shape {list(array.shape)}")
    return int(array.reshape(-1)[0])


def evaluate_eye(attrs: EyeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    rows, columns, diagonal = (_one(name, a) for name, a in zip(_NAMES[:3], arrays[:3], strict=True))
    batch = tuple(int(v) for v in arrays[3].reshape(-1)) if len(arrays) == 4 else ()
    if rows < 0 or columns < 0 or any(b < 0 for b in batch):
        raise InputError(f"Eye sizes must be non-negative, got {rows}, {columns}, batch {list(batch)}")
    dtype = attrs.output_type.numpy_dtype
    if dtype is None:
        raise InputError(f"Eye cannot produce {attrs.output_type} values")
    matrix = np.zeros((rows, columns), dtype=dtype)
    if -rows < diagonal < columns:
        r = np.arange(max(0, -diagonal), min(rows, columns - diagonal))
        matrix[r, r + diagonal] = 1
    return [np.array(np.broadcast_to(matrix, (*batch, rows, columns)), copy=True)]


SPECS = (
    OpSpec(
        type="Eye",
        version=9,
        since=9,
        inputs=(3, 4),
        parse=parse_eye,
        infer=infer_eye,
        evaluate=evaluate_eye,
        foldable=False,
    ),
)
