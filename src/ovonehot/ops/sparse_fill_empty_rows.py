"""SparseFillEmptyRows-16: TensorFlow's ``SparseFillEmptyRows`` for 2-D sparse tensors.

Inputs: ``values [M]`` (any type), ``dense_shape [2]`` and ``indices [M, 2]`` (i32 or i64, the
same type), ``default_value`` (a scalar).  Outputs: ``output_indices [M', 2]`` (the indices'
type), ``output_values [M']`` (the values' type) and ``empty_row_indicator [rows]`` (boolean):
every row of ``dense_shape[0]`` without an entry gets one at ``[row, 0]`` holding the default
value, and the entries come out sorted by row, then column (entries at the same position keep
their input order, as the CPU plugin keeps them).

Shape (``sparse_fill_empty_rows_shape_inference.hpp``): ``empty_row_indicator`` has
``dense_shape[0]`` elements when the dense shape is known (its value, or equal bounds from a
ShapeOf), and when the indices are known too ``M' = M + empty rows`` (OpenVINO then refuses an
index outside the dense shape); ``?`` otherwise.  OpenVINO never folds the op (the core has no
``evaluate``), and neither does ovonehot, so these are the shapes a model keeps.  OpenVINO does
not check the default value's type: the CPU plugin converts it to the values' type, as ovonehot
does.

At run time an index outside ``[0, rows) x [0, cols)`` is refused (InputError): the spec asks
valid indices, the reference does not check them and the CPU plugin corrupts its heap
(docs/openvino-behaviour.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..budget import check_allocation
from ..errors import InputError, ValidationError
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.shape_util import input_bounds, known_ints
from .common.spec import OpSpec, TensorInfo

_INDEX_TYPES = (ElementType.i32, ElementType.i64)


def _check_types(inputs: Sequence[TensorInfo]) -> ElementType:
    dense, indices = inputs[1].element_type, inputs[2].element_type
    merged = dense.merge(indices)
    if merged is None:
        raise ValidationError(
            f"The element types of the dense_shape and indices inputs must match. Got: {dense} and {indices}"
        )
    if not (merged in _INDEX_TYPES or merged.is_dynamic):
        raise ValidationError(
            f"The element type of the indices and dense_shape inputs must be i32 or i64. Got: {merged}"
        )
    return merged


def _check_shapes(
    values: PartialShape, dense: PartialShape, indices: PartialShape, default: PartialShape
) -> None:
    if values.rank_is_static and values.rank != 1:
        raise ValidationError(f"The values input must be a 1D tensor, got {values}")
    if dense.rank_is_static and not (dense.rank == 1 and dense[0].contains(2)):
        raise ValidationError(
            "The dense_shape input must be 1D and have exactly 2 elements, meaning only 2D sparse tensors are "
            f"supported, got {dense}"
        )
    if indices.rank_is_static:
        matches = not dense.rank_is_static or not values.rank_is_static or indices[0].compatible(values[0])
        if not (indices.rank == 2 and indices[1].contains(2) and matches):
            raise ValidationError(
                "The indices input must be a 2D tensor with the first dimension matching the size of values and "
                f"the second dimension having 2 elements, got {indices} (values {values})"
            )
    if default.rank_is_static and default.rank != 0:
        raise ValidationError(f"The default_value input must be a scalar, got {default}")


def _dense_shape(info: TensorInfo) -> tuple[int, int] | None:
    """The dense shape when OpenVINO knows it (a value, or bounds equal per element)."""
    bounds = input_bounds(info)
    if bounds is None or len(bounds) != 2 or any(lo != hi or lo < 0 for lo, hi in bounds):
        return None
    return bounds[0][0], bounds[1][0]


def _existing_rows(indices: Sequence[int], rows: int, cols: int) -> set[int]:
    found = set()
    for k in range(0, len(indices) - 1, 2):
        row, col = indices[k], indices[k + 1]
        for what, v, limit in (("row", row, rows), ("column", col, cols)):
            if not 0 <= v < limit:
                raise ValidationError(
                    f"Sparse tensor index out of bounds: {what} {v} is outside the valid range [0, {limit - 1}]"
                )
        found.add(row)
    return found


def infer_sparse_fill_empty_rows(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check_types(inputs)
    values, dense, indices, default = (i.shape for i in inputs)
    _check_shapes(values, dense, indices, default)
    entries, kept, rows_dim = Dimension(), Dimension(), Dimension()
    known = _dense_shape(inputs[1])
    if known is not None:
        rows_dim = Dimension.static(known[0])
        flat = known_ints(inputs[2])
        if flat is not None:
            empty = Dimension.static(known[0] - len(_existing_rows(flat, *known)))
            entries = (indices[0] if indices.rank_is_static else Dimension()) + empty
            kept = (values[0] if values.rank_is_static else Dimension()) + empty
    return [
        TensorInfo(inputs[2].element_type, PartialShape((entries, Dimension.static(2)))),
        TensorInfo(inputs[0].element_type, PartialShape((kept,))),
        TensorInfo(ElementType.boolean, PartialShape((rows_dim,))),
    ]


def evaluate_sparse_fill_empty_rows(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    values, dense, indices, default = (np.asarray(a) for a in inputs)
    if values.ndim != 1 or dense.shape != (2,) or indices.shape != (values.shape[0], 2) or default.size != 1:
        raise InputError(
            f"values {list(values.shape)}, dense_shape {list(dense.shape)}, indices {list(indices.shape)} and "
            f"default_value {list(default.shape)} do not fit [M], [2], [M, 2] and a scalar"
        )
    rows, cols = (int(v) for v in dense.astype(np.int64))
    idx = indices.astype(np.int64)
    bad = (idx[:, 0] < 0) | (idx[:, 0] >= rows) | (idx[:, 1] < 0) | (idx[:, 1] >= cols)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"Sparse tensor index {idx[k].tolist()} (entry {k}) is outside the dense shape {[rows, cols]}"
        )
    check_allocation((max(rows, 0),), 1, "empty_row_indicator")
    empty = np.ones(max(rows, 0), dtype=bool)
    empty[idx[:, 0]] = False
    empty_rows = np.flatnonzero(empty)
    check_allocation((values.shape[0] + empty_rows.size, 2), indices.dtype.itemsize, "output_indices")
    all_rows = np.concatenate([idx[:, 0], empty_rows])
    all_cols = np.concatenate([idx[:, 1], np.zeros(empty_rows.size, np.int64)])
    order = np.lexsort((all_cols, all_rows))  # (stable: equal positions keep their input order)
    filler = np.full(empty_rows.size, default.reshape(()), dtype=default.dtype).astype(values.dtype)
    out_values = np.concatenate([values, filler])[order]
    out_indices = np.stack([all_rows[order], all_cols[order]], axis=1).astype(indices.dtype)
    return [out_indices, out_values, empty]


SPECS = (
    OpSpec(
        type="SparseFillEmptyRows",
        version=16,
        since=16,
        inputs=4,
        parse=parse_no_attrs,
        infer=infer_sparse_fill_empty_rows,
        evaluate=evaluate_sparse_fill_empty_rows,
        foldable=False,
    ),
)
