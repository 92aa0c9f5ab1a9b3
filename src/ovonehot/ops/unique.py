"""Unique-10: ``torch.unique(t, return_inverse=True)`` before ``F.one_hot`` (label encoding of arbitrary ids).

Inputs: data and an optional scalar integer ``axis``.  Attributes: ``sorted`` (default
true), ``index_element_type`` and ``count_element_type`` (i32 or i64, default i64).
Outputs: the unique elements (or slices along ``axis``), the index of each one's first
occurrence, for every input element (slice) the position of its unique value, and
the count of each unique value.

Without ``axis`` the data is flattened.  ``sorted``: ascending (slices
lexicographically); otherwise in order of first occurrence.  Equal values are merged
by ``==`` (so -0.0 and 0.0 are one value, shown as its first occurrence).  NaN is
outside what OpenVINO defines (its CPU plugin returns garbage for it).

Inferred shapes are OpenVINO's: with N data elements, ``[1..N]`` for the unique
values, first indices and counts (``[1..dim]`` on the axis, with ``axis``; ``?`` when N
or the dim is unknown or 0), ``[N]`` (``[dim]``) for the inverse indices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr
from .common.numeric import widen
from .common.shape_util import known_ints, normalize_axis
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class UniqueAttrs:
    sorted: bool = True
    index_element_type: ElementType = ElementType.i64
    count_element_type: ElementType = ElementType.i64


def parse_unique(node: Node) -> UniqueAttrs:
    return UniqueAttrs(
        bool_attr(node, "sorted", True),
        element_type_attr(node, "index_element_type", ElementType.i64),
        element_type_attr(node, "count_element_type", ElementType.i64),
    )


def _upto(n: Dimension) -> Dimension:
    return Dimension(1, n.length) if n.is_static and n.length > 0 else Dimension()


def infer_unique(attrs: UniqueAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    for label, et in (("Index", attrs.index_element_type), ("Count", attrs.count_element_type)):
        if et not in (ElementType.i32, ElementType.i64):
            raise ValidationError(f"{label} element type must be i32 or i64. Got: {et}")
    shape = data.shape
    total = (
        Dimension.static(math.prod(shape.to_shape()))
        if shape.rank_is_static and shape.is_static
        else Dimension()
    )
    idx_t, cnt_t = attrs.index_element_type, attrs.count_element_type
    if len(inputs) == 2:
        axis_info = inputs[1]
        if not (axis_info.element_type.is_dynamic or axis_info.element_type.is_integral_number):
            raise ValidationError(f"The axis input must be an integer. Got: {axis_info.element_type}")
        if axis_info.shape.rank_is_static and math.prod(axis_info.shape.to_shape() or (1,)) != 1:
            raise ValidationError(
                f"The axis input must be a scalar or hold one element. Got: {axis_info.shape}"
            )
        values = known_ints(axis_info)
        if shape.rank_is_static and values is not None:
            axis = normalize_axis(values[0], shape.rank)
            dims = list(shape)
            dims[axis] = _upto(dims[axis])
            along = shape[axis]
            return [
                TensorInfo(data.element_type, PartialShape(tuple(dims))),
                TensorInfo(idx_t, PartialShape((_upto(total),))),
                TensorInfo(idx_t, PartialShape((along,))),
                TensorInfo(cnt_t, PartialShape((_upto(total),))),
            ]
        unknown = PartialShape((Dimension(),))
        out0 = PartialShape((Dimension(),) * shape.rank) if shape.rank_is_static else PartialShape.dynamic()
        return [
            TensorInfo(data.element_type, out0),
            TensorInfo(idx_t, unknown),
            TensorInfo(idx_t, unknown),
            TensorInfo(cnt_t, unknown),
        ]
    if shape.rank_is_static and shape.rank == 0:
        one = PartialShape.of([1])
        return [
            TensorInfo(data.element_type, one),
            TensorInfo(idx_t, one),
            TensorInfo(idx_t, one),
            TensorInfo(cnt_t, one),
        ]
    some = PartialShape((_upto(total),))
    every = PartialShape((total,)) if total.is_static and total.length > 0 else PartialShape((Dimension(),))
    return [
        TensorInfo(data.element_type, some),
        TensorInfo(idx_t, some),
        TensorInfo(idx_t, every),
        TensorInfo(cnt_t, some),
    ]


def evaluate_unique(attrs: UniqueAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    if len(inputs) == 2:
        axis = normalize_axis(int(np.asarray(inputs[1]).reshape(-1)[0]), data.ndim)
        items = np.moveaxis(data, axis, 0)
    else:
        axis = None
        items = data.reshape(-1)
    n = items.shape[0]
    if items.size == 0:  # (before the reshape, which NumPy refuses for n == 0)
        raise InputError("Unique of an empty tensor has no output OpenVINO defines")
    keys = items.reshape(n, -1)
    # Sorted groups (lexicographic rows; == semantics, so -0.0 and 0.0 are one value) with the
    # index of each group's first occurrence; unsorted output orders groups by that index.
    sortable = widen(keys) if keys.dtype != np.bool_ else keys.astype(np.uint8)
    _, first, inverse, counts = np.unique(
        sortable, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    order = np.arange(first.size) if attrs.sorted else np.argsort(first, kind="stable")
    rank = np.empty(first.size, dtype=np.int64)
    rank[order] = np.arange(first.size)
    firsts = first[order].astype(np.int64)
    counts = counts[order]
    values = items[firsts]
    if axis is not None:
        values = np.moveaxis(values, 0, axis)
    idx_dtype = numpy_dtype_of(attrs.index_element_type)
    cnt_dtype = numpy_dtype_of(attrs.count_element_type)
    return [
        np.ascontiguousarray(values),
        firsts.astype(idx_dtype),
        rank[inverse].astype(idx_dtype),
        counts.astype(cnt_dtype),
    ]


SPECS = (
    OpSpec(
        type="Unique",
        version=10,
        since=10,
        inputs=(1, 2),
        parse=parse_unique,
        infer=infer_unique,
        evaluate=evaluate_unique,
    ),
)
