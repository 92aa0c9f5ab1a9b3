"""NonZero-3: the coordinates of the non-zero elements, one row per axis, in row-major order.

Shape (OpenVINO 2026.4): ``[rank, 0..n]`` with ``n`` the largest element count the
input shape allows (unbounded if a dim is), ``[?,?]`` for a dynamic rank or a scalar;
the exact shape when the input's value is known (a constant, as OpenVINO reads it).
``output_type`` is i32 or i64 (default i64).  Values: a non-zero scalar gives ``[[0]]``
and a zero scalar an empty ``[0,0]``, as OpenVINO's reference does; NaN counts as non-zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import element_type_attr
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class NonZeroAttrs:
    output_type: ElementType = ElementType.i64


def parse_non_zero(node: Node) -> NonZeroAttrs:
    return NonZeroAttrs(element_type_attr(node, "output_type", ElementType.i64))


def infer_non_zero(attrs: NonZeroAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"Output type must be i32 or i64, got {attrs.output_type}")
    if x.value is not None:
        # A known input gives the exact shape (OpenVINO's NonZero reads constant inputs): a scalar is
        # [1,1] or [0,0], as its value.
        (value,) = evaluate_non_zero(attrs, [np.asarray(x.value)])
        return [TensorInfo(attrs.output_type, PartialShape.of(value.shape))]
    if x.shape.dims is None or len(x.shape.dims) == 0:
        return [TensorInfo(attrs.output_type, PartialShape((Dimension(), Dimension())))]
    maxes = [d.max for d in x.shape.dims]
    upper = None if any(m is None for m in maxes) else math.prod(m for m in maxes if m is not None)
    return [TensorInfo(attrs.output_type, PartialShape((Dimension.static(len(maxes)), Dimension(0, upper))))]


def evaluate_non_zero(attrs: NonZeroAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    dtype = numpy_dtype_of(attrs.output_type)
    if x.ndim == 0:
        return [np.zeros((1, 1), dtype) if x != 0 else np.zeros((0, 0), dtype)]
    return [np.array(np.nonzero(x), dtype=dtype)]  # (ndim, count), C order (3x np.stack's speed)


SPECS = (
    OpSpec(
        type="NonZero",
        version=3,
        since=3,
        inputs=1,
        parse=parse_non_zero,
        infer=infer_non_zero,
        evaluate=evaluate_non_zero,
    ),
)
