"""The embedding bags: EmbeddingBagOffsets-15, EmbeddingBagOffsetsSum-3, EmbeddingBagPacked-15,
EmbeddingBagPackedSum-3 and EmbeddingSegmentsSum-3 (PyTorch's ``embedding_bag``, TF's segment sums).

Each output row ``b`` reduces rows of ``emb_table`` ``[N, ...]`` picked by integer ``indices``
(i32/i64), optionally scaled by ``per_sample_weights`` (the table's type):

* *Offsets*: bag ``b`` holds ``indices[offsets[b]:offsets[b+1]]`` (the last bag to the end);
  an empty bag is row ``default_index`` (unweighted) when that input is given and ``>= 0``,
  else zeros.  Output ``[len(offsets), ...]``.
* *Packed*: ``indices`` ``[B, K]``; bag ``b`` is row ``b``.  Output ``[B, ...]``.
* *Segments*: ``indices[i]`` goes to segment ``segment_ids[i]`` of ``num_segments``; an empty
  segment is row ``default_index`` when given (and ``>= 0``), else zeros.  Output
  ``[num_segments, ...]`` (its value or bounds).

Values (``reference/embedding_bag_offsets.hpp``, ``embedding_bag_packed.hpp``,
``embedding_segments_sum.hpp``): each bag starts at 0 and adds ``row * weight`` (the product
rounded first) in index order; ``reduction="mean"`` (v15) then divides by the bag's size (a
default row by 1).  f16/bf16 tables are computed in f32 and rounded once, as the CPU plugin
does at its f32 precision.  Integer means divide as the reference writes it: Offsets by the
size cast to the type (truncating), Packed by a ``size_t`` (a negative sum divided as its
unsigned pattern).  An index outside the table, an offset past the indices (the reference
refuses an offset equal to their count, so a trailing empty bag too), decreasing offsets or a
segment id outside ``[0, num_segments)`` is an error.  Segment ids need not be sorted (the
reference sums any order; the CPU plugin assumes each segment's ids are contiguous, as the
spec asks: ``test_ops_embedding_bag`` pins the difference).

OpenVINO's core ops have no ``evaluate`` (nothing folds); the CPU plugin is the oracle.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import dim_from_bounds, input_bounds
from .common.spec import OpSpec, TensorInfo


class Reduction(enum.Enum):
    SUM = "sum"
    MEAN = "mean"


class BagKind(enum.Enum):
    OFFSETS = "offsets"
    PACKED = "packed"
    SEGMENTS = "segments"


@dataclass(frozen=True, slots=True)
class EmbeddingBagAttrs:
    kind: BagKind
    reduction: Reduction = Reduction.SUM


def _parser(kind: BagKind, with_reduction: bool) -> Callable[[Node], EmbeddingBagAttrs]:
    def parse(node: Node) -> EmbeddingBagAttrs:
        reduction = (
            enum_attr(node, "reduction", Reduction, Reduction.SUM) if with_reduction else Reduction.SUM
        )
        return EmbeddingBagAttrs(kind, reduction)

    return parse


_INDEX_TYPES = (ElementType.i32, ElementType.i64)


def _index_type(info: TensorInfo, name: str) -> None:
    if info.element_type not in _INDEX_TYPES:
        raise ValidationError(f"{name} type must be i32 or i64")


def _same_type(info: TensorInfo, other: TensorInfo, what: str, against: str) -> None:
    if not info.element_type.compatible(other.element_type):
        raise ValidationError(
            f"{what} element type ({info.element_type}) must match {against} element type ({other.element_type})"
        )


def _rank(info: TensorInfo, rank: int, message: str) -> None:
    if info.shape.rank_is_static and info.shape.rank != rank:
        raise ValidationError(message)


def _output(table: TensorInfo, first: Dimension) -> TensorInfo:
    shape = table.shape
    if not shape.rank_is_static:
        return TensorInfo(table.element_type, PartialShape.dynamic())
    if shape.rank == 0:
        raise ValidationError("EMB_TABLE can't be a scalar.")
    return TensorInfo(table.element_type, PartialShape((first, *list(shape)[1:])))


def _weights(attrs: EmbeddingBagAttrs, inputs: Sequence[TensorInfo], port: int, rank: int) -> None:
    if len(inputs) <= port:
        return
    weights = inputs[port]
    _same_type(weights, inputs[0], "Per sample weight", "embedding table")
    _rank(weights, rank, f"PER_SAMPLE_WEIGHTS must be {rank}D.")
    if not inputs[1].shape.compatible(weights.shape):
        raise ValidationError("INDICES and PER_SAMPLE_WEIGHTS shape must be same.")
    if attrs.reduction is Reduction.MEAN:
        raise ValidationError("Per sample weights can only be used in Reduction::SUM mode.")


def infer_offsets(attrs: EmbeddingBagAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    table, indices, offsets = inputs[:3]
    _index_type(offsets, "OFFSETS")
    _index_type(indices, "INDICES")
    _same_type(offsets, indices, "Offsets", "indices")
    if len(inputs) > 3:
        _index_type(inputs[3], "DEFAULT_INDEX")
        _same_type(inputs[3], indices, "Default_index", "indices")
    _rank(indices, 1, "INDICES must be 1D.")
    _rank(offsets, 1, "OFFSETS must be 1D.")
    if len(inputs) > 3:
        _rank(inputs[3], 0, "DEFAULT_INDEX must be a scalar.")
    _weights(attrs, inputs, 4, 1)
    return [_output(table, offsets.shape[0] if offsets.shape.rank_is_static else Dimension())]


def infer_packed(attrs: EmbeddingBagAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    table, indices = inputs[:2]
    _index_type(indices, "INDICES")
    _rank(indices, 2, "INDICES must be 2D.")
    _weights(attrs, inputs, 2, 2)
    return [_output(table, indices.shape[0] if indices.shape.rank_is_static else Dimension())]


def infer_segments(attrs: EmbeddingBagAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    table, indices, segment_ids, num_segments = inputs[:4]
    _index_type(segment_ids, "SEGMENT_IDS")
    _index_type(indices, "INDICES")
    _same_type(segment_ids, indices, "Segment_ids", "indices")
    _index_type(num_segments, "NUM_SEGMENTS")
    _same_type(num_segments, indices, "Num_segments", "indices")
    if len(inputs) > 4:
        _index_type(inputs[4], "DEFAULT_INDEX")
        _same_type(inputs[4], indices, "Default_index", "indices")
    _rank(indices, 1, "INDICES must be 1D.")
    _rank(segment_ids, 1, "SEGMENT_IDS must be 1D.")
    if not indices.shape.compatible(segment_ids.shape):
        raise ValidationError("INDICES and SEGMENT_IDS shape must be same")
    _rank(num_segments, 0, "NUM_SEGMENTS must be a scalar.")
    if len(inputs) > 4:
        _rank(inputs[4], 0, "DEFAULT_INDEX must be a scalar.")
    _weights(attrs, inputs, 5, 1)
    bounds = input_bounds(num_segments)
    first = Dimension() if bounds is None else dim_from_bounds(max(bounds[0][0], 0), bounds[0][1])
    return [_output(table, first)]


# -- values ------------------------------------------------------------------------------------
def _reduce(rows: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """0 + row0*w0 + row1*w1 + ... in order, in the rows' type: [K, ...] -> [...]."""
    terms = rows if weights is None else rows * weights.reshape((-1,) + (1,) * (rows.ndim - 1))
    zero = np.zeros((1, *rows.shape[1:]), rows.dtype)
    total: np.ndarray = np.add.accumulate(np.concatenate([zero, terms.astype(rows.dtype)]), axis=0)[-1]
    return total


def _mean(total: np.ndarray, count: int, unsigned_count: bool) -> np.ndarray:
    result: np.ndarray
    if total.dtype.kind == "f":
        result = total / total.dtype.type(count)
        return result
    if not unsigned_count:  # T(count): C's truncating division
        wide = total.astype(np.int64)
        result = np.where(wide < 0, -(-wide // count), wide // count).astype(total.dtype)
        return result
    bits = total.astype(np.int64).astype(np.uint64) if total.dtype.kind == "i" else total.astype(np.uint64)
    result = (bits // np.uint64(count)).astype(total.dtype)
    return result


def _table_and_weights(inputs: Sequence[np.ndarray], port: int) -> tuple[np.ndarray, np.ndarray | None]:
    table = widen(np.asarray(inputs[0]))
    if table.ndim == 0:
        raise InputError("the embedding table can't be a scalar")
    weights = widen(np.asarray(inputs[port])) if len(inputs) > port else None
    return table, weights


def _rows(table: np.ndarray, picked: np.ndarray) -> np.ndarray:
    if picked.size and (picked.min() < 0 or picked.max() >= table.shape[0]):
        raise InputError(f"indices must lie in [0, {table.shape[0]}), got {picked.tolist()}")
    rows: np.ndarray = table[picked]
    return rows


def _default_row(table: np.ndarray, inputs: Sequence[np.ndarray], port: int) -> np.ndarray | None:
    if len(inputs) <= port:
        return None
    default = int(np.asarray(inputs[port]).reshape(-1)[0])
    if default < 0:
        return None
    if default >= table.shape[0]:
        raise InputError(f"default_index {default} is outside the table of {table.shape[0]} rows")
    row: np.ndarray = table[default]
    return row


def _bag_ranges(offsets: list[int], count: int) -> list[tuple[int, int]]:
    ranges = []
    for b, start in enumerate(offsets):
        stop = offsets[b + 1] if b + 1 < len(offsets) else count
        if not 0 <= start < count or stop < start:
            raise InputError(
                f"Offset value exceeds indices size in the model. offset: {start}; indices size: {count}"
            )
        ranges.append((start, stop))
    return ranges


def evaluate_offsets(attrs: EmbeddingBagAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    table, weights = _table_and_weights(inputs, 4)
    indices = np.asarray(inputs[1]).astype(np.int64).reshape(-1)
    offsets = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    default = _default_row(table, inputs, 3)
    out = np.zeros((len(offsets), *table.shape[1:]), table.dtype)
    with quiet():
        for b, (start, stop) in enumerate(_bag_ranges(offsets, indices.size)):
            if stop == start:
                if default is not None:
                    out[b] = _reduce(default[None], None)
                continue
            bag_weights = None if weights is None else weights[start:stop]
            total = _reduce(_rows(table, indices[start:stop]), bag_weights)
            out[b] = _mean(total, stop - start, False) if attrs.reduction is Reduction.MEAN else total
    return [narrow(out, np.asarray(inputs[0]).dtype)]


def evaluate_packed(attrs: EmbeddingBagAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    table, weights = _table_and_weights(inputs, 2)
    indices = np.asarray(inputs[1]).astype(np.int64)
    if indices.ndim != 2:
        raise InputError(f"indices must be 2-D, got {list(indices.shape)}")
    out = np.zeros((indices.shape[0], *table.shape[1:]), table.dtype)
    with quiet():
        for b in range(indices.shape[0]):
            total = _reduce(_rows(table, indices[b]), None if weights is None else weights[b])
            out[b] = _mean(total, indices.shape[1], True) if attrs.reduction is Reduction.MEAN else total
    return [narrow(out, np.asarray(inputs[0]).dtype)]


def evaluate_segments(attrs: EmbeddingBagAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    table, weights = _table_and_weights(inputs, 5)
    indices = np.asarray(inputs[1]).astype(np.int64).reshape(-1)
    segment_ids = np.asarray(inputs[2]).astype(np.int64).reshape(-1)
    count = int(np.asarray(inputs[3]).reshape(-1)[0])
    if count < 0 or (segment_ids.size and (segment_ids.min() < 0 or segment_ids.max() >= count)):
        raise InputError(
            f"Segment index could not be more than segments number ({count}): {segment_ids.tolist()}"
        )
    default = _default_row(table, inputs, 4)
    out = np.zeros((count, *table.shape[1:]), table.dtype)
    with quiet():
        for s in range(count):
            members = np.flatnonzero(segment_ids == s)  # in index order
            if members.size:
                out[s] = _reduce(
                    _rows(table, indices[members]), None if weights is None else weights[members]
                )
            elif default is not None:
                out[s] = default
    return [narrow(out, np.asarray(inputs[0]).dtype)]


_NO_EVALUATE = (frozenset[ElementType](),)  # OpenVINO's core ops have no evaluate: they never fold


def _spec(
    type_name: str,
    version: int,
    inputs: tuple[int, int],
    parse: Callable[[Node], EmbeddingBagAttrs],
    infer: Callable[[EmbeddingBagAttrs, Sequence[TensorInfo]], list[TensorInfo]],
    evaluate: Callable[[EmbeddingBagAttrs, Sequence[np.ndarray]], list[np.ndarray]],
) -> OpSpec[EmbeddingBagAttrs]:
    return OpSpec(
        type=type_name,
        version=version,
        since=version,
        inputs=inputs,
        parse=parse,
        infer=infer,
        evaluate=evaluate,
        evaluate_types=_NO_EVALUATE,
    )


SPECS = (
    _spec(
        "EmbeddingBagOffsetsSum", 3, (3, 5), _parser(BagKind.OFFSETS, False), infer_offsets, evaluate_offsets
    ),
    _spec("EmbeddingBagOffsets", 15, (3, 5), _parser(BagKind.OFFSETS, True), infer_offsets, evaluate_offsets),
    _spec("EmbeddingBagPackedSum", 3, (2, 3), _parser(BagKind.PACKED, False), infer_packed, evaluate_packed),
    _spec("EmbeddingBagPacked", 15, (2, 3), _parser(BagKind.PACKED, True), infer_packed, evaluate_packed),
    _spec(
        "EmbeddingSegmentsSum", 3, (4, 6), _parser(BagKind.SEGMENTS, False), infer_segments, evaluate_segments
    ),
)
