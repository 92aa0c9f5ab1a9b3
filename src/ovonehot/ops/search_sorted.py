"""SearchSorted-15: insertion positions of ``values`` in ``sorted_sequence`` (``torch.searchsorted``).

``sorted_sequence`` ``[..., N]`` (sorted along its last axis; 1-D: one sequence for every
value) and ``values`` of the same type; ``right_mode`` (default false) and ``output_type``
(i32 or i64, default i64).  The output has the values' shape
(``search_sorted_shape_inference.hpp``: the sequence cannot be a scalar; scalar values need a
1-D sequence; otherwise equal ranks and every dim but the last merged; dynamic values take the
sequence's shape with the last dim ``?``).

Values (``reference/search_sorted.hpp``): ``std::lower_bound`` with ``<`` (left: the first
position whose element is not less than the value) or with ``<=`` (right: the first whose
element is greater).  A NaN value compares as C++ does (every comparison false), so it lands at
0 in both modes (NumPy would put it last).  The core op has no ``evaluate`` (nothing folds); the
CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, element_type_attr
from .common.numeric import widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class SearchSortedAttrs:
    right_mode: bool = False
    output_type: ElementType = ElementType.i64


def parse_search_sorted(node: Node) -> SearchSortedAttrs:
    return SearchSortedAttrs(
        bool_attr(node, "right_mode", False), element_type_attr(node, "output_type", ElementType.i64)
    )


def _shape(sorted_shape: PartialShape, values: PartialShape) -> PartialShape:
    if sorted_shape.rank_is_static and sorted_shape.rank == 0:
        raise ValidationError("The sorted sequence input cannot be a scalar.")
    out = values
    if not values.rank_is_static and sorted_shape.rank_is_static:
        out = PartialShape((*list(sorted_shape)[:-1], Dimension()))
    if sorted_shape.rank_is_static and values.rank_is_static and sorted_shape.rank > 1:
        if sorted_shape.rank != values.rank:
            raise ValidationError(
                "If the shape of sorted sequence is not 1D, the ranks of the inputs have to be compatible."
            )
        dims = list(values)
        for i in range(sorted_shape.rank - 1):
            merged = sorted_shape[i].merge(values[i])
            if merged is None:
                raise ValidationError("All dimensions but the last one have to be compatible.")
            dims[i] = merged
        out = PartialShape(tuple(dims))
    if (
        values.rank_is_static
        and values.rank == 0
        and not (sorted_shape.rank_is_static and sorted_shape.rank == 1)
    ):
        raise ValidationError("If values input is a scalar the sorted sequence must be a 1D tensor.")
    return out


def infer_search_sorted(attrs: SearchSortedAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    sorted_info, values = inputs
    if not sorted_info.element_type.compatible(values.element_type):
        raise ValidationError("Sorted sequence and values must have the same element type.")
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError("The output type must be int32 or int64.")
    return [TensorInfo(attrs.output_type, _shape(sorted_info.shape, values.shape))]


def _positions(row: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """lower_bound over one sorted row for each value, NaNs as C++ compares them."""
    found = np.asarray(np.searchsorted(row, values, side="right" if right else "left"))
    if row.dtype.kind == "f":
        nan = np.isnan(values)
        found = np.where(nan, 0, found)
    result: np.ndarray = found
    return result


def evaluate_search_sorted(attrs: SearchSortedAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    seq, values = (widen(np.asarray(a)) for a in inputs)
    out_dtype = attrs.output_type.numpy_dtype or np.dtype(np.int64)
    if seq.ndim == 0:
        raise InputError("the sorted sequence cannot be a scalar")
    if seq.ndim == 1:
        return [_positions(seq, values, attrs.right_mode).astype(out_dtype).reshape(values.shape)]
    if values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]:
        raise InputError(f"sorted sequence {list(seq.shape)} and values {list(values.shape)} do not fit")
    rows = int(np.prod(seq.shape[:-1]))  # (not -1: NumPy cannot infer it when a row is empty)
    rows_seq = seq.reshape(rows, seq.shape[-1])
    rows_val = values.reshape(rows, values.shape[-1])
    out = np.zeros(rows_val.shape, out_dtype)
    for r in range(rows_seq.shape[0]):
        out[r] = _positions(rows_seq[r], rows_val[r], attrs.right_mode)
    return [out.reshape(values.shape)]


SPECS = (
    OpSpec(
        type="SearchSorted",
        version=15,
        since=15,
        inputs=2,
        parse=parse_search_sorted,
        infer=infer_search_sorted,
        evaluate=evaluate_search_sorted,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
