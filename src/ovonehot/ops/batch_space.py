"""BatchToSpace-2 and SpaceToBatch-2: moving blocks of the batch into the spatial dims and back.

Inputs: data ``[B, D1, ..., DN]`` and three 1-D integer tensors of N+1 elements:
``block_shape`` (``block_shape[0]`` must be 1) and ``crops_begin``/``crops_end`` (BatchToSpace)
or ``pads_begin``/``pads_end`` (SpaceToBatch).

Shapes (``batch_to_space_shape_inference.hpp``, ``space_to_batch_shape_inference.hpp``):
BatchToSpace gives ``[B / prod(block), D1 * b1 - crop1, ...]`` (``B`` must divide; each crop
sum at most ``Di * bi``; crops known but blocks not: ``Di * [1, inf) - crop``); SpaceToBatch
``[B * prod(block), (D1 + pad1) / b1, ...]`` (each padded dim must divide; an unbounded one
gives ``[ceil(lo / b), inf)``).  Unknown inputs give ``?`` dims.

Values (the spec's reshape-transpose-reshape; ``op/batch_to_space.cpp`` and
``op/space_to_batch.cpp`` do it one axis at a time, with the same result): BatchToSpace
splits the batch as ``[b1, ..., bN, B']``, interleaves each ``bi`` after ``Di`` and crops;
SpaceToBatch pads with zeros, splits each ``Pi`` as ``[Pi / bi, bi]`` and moves the ``bi`` in
front of the batch.  OpenVINO's ``evaluate`` reads the three integer inputs as i64 only.

The batch dimension's begin and end must be 0: OpenVINO's shape inference ignores them while
its ``evaluate`` pads or crops the batch, so nothing else is consistent.  (SpaceToBatch's
``evaluate`` takes its pad value from the first bytes of ``pads_end``, which are then zero:
ovonehot pads with zeros, the spec's value.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.shape_util import known_ints, mul
from .common.spec import OpSpec, TensorInfo
from .space_depth import _divided


@dataclass(frozen=True, slots=True)
class _Names:
    begin: str  # "crops_begin" / "pads_begin"
    end: str
    family: str  # "crops" / "pads"


_B2S = _Names("crops_begin", "crops_end", "crops")
_S2B = _Names("pads_begin", "pads_end", "pads")


def _clip_minus(a: int | None, b: int | None) -> int | None:
    """Interval ``clip_minus``: never below 0, unbounded stays unbounded."""
    if a is None:
        return None
    if b is None or a <= b:
        return 0
    return a - b


def _minus(d: Dimension, c: int) -> Dimension:
    return Dimension(_clip_minus(d.min, c) or 0, _clip_minus(d.max, c))


def _check_common(inputs: Sequence[TensorInfo], names: _Names, to_space: bool) -> PartialShape:
    _, block, begin, end = inputs
    if to_space:
        ets = (block.element_type, begin.element_type, end.element_type)
        merged: ElementType | None = ets[0]
        for et in ets[1:]:
            merged = None if merged is None else merged.merge(et)
        if merged is None:
            raise ValidationError(
                f"block_shape and {names.family} inputs must have same element type. Got: {ets[0]}, {ets[1]} and {ets[2]}"
            )
        if not (merged.is_integral_number or merged.is_dynamic):
            raise ValidationError(
                f"block_shape and {names.family} inputs must have integer element type. Got: {merged}"
            )
    else:
        for info, name in ((block, "block_shape"), (begin, names.begin), (end, names.end)):
            et = info.element_type
            if not (et.is_integral_number or et.is_dynamic):
                raise ValidationError(f"{name} must be an integral number but got ({et}).")
    same = begin.shape.merge(end.shape)
    same = None if same is None else same.merge(block.shape)
    if same is None:
        raise ValidationError(
            f"block_shape, {names.begin} and {names.end} inputs must have the same shape. Got: {block.shape}, "
            f"{begin.shape} and {end.shape}"
        )
    if same.rank_is_static and same.rank != 1:
        raise ValidationError(f"block_shape and {names.family} inputs must have rank 1. Got: {same.rank}")
    return same


def infer_batch_to_space(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    same = _check_common(inputs, _B2S, True)
    data = inputs[0]
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape.dynamic())]
    rank = shape.rank
    if rank < 2:
        raise ValidationError(f"data input must have rank greater or equal than 2. Got: {rank}")
    if same.is_static and same[0].min != rank:
        raise ValidationError(
            f"block_shape and crop inputs must have same number of elements as data input rank. Got: {same[0]} and {rank}"
        )
    blocks, begins, ends = (known_ints(i) for i in inputs[1:])
    dims: list[Dimension] = []
    if blocks is not None:
        if any(b < 1 for b in blocks):
            raise ValidationError("Elements of block_shape input must be greater or equal to one.")
        dims.append(_divided(shape[0], math.prod(blocks)))
    else:
        dims.append(Dimension())
    if begins is None or ends is None:
        return [TensorInfo(data.element_type, PartialShape((*dims, *([Dimension()] * (rank - 1)))))]
    if any(c < 0 for c in (*begins, *ends)):
        raise ValidationError(
            "Elements of crops_begin and crops_end inputs must be greater or equal to zero."
        )
    for i in range(1, rank):
        crop = begins[i] + ends[i]
        d = mul(shape[i], Dimension.static(blocks[i]) if blocks is not None else Dimension(1, None))
        if blocks is not None and d.is_static and crop > d.min:
            raise ValidationError(
                "crops_begin[i] + crops_end[i] must be less or equal to block_shape[i] * input_shape[i]"
            )
        dims.append(_minus(d, crop))
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]


def _padded_quotient(d: Dimension, pad: int, block: int) -> Dimension:
    # OpenVINO adds the pad as a Dimension: -1 is a dynamic one (an unbounded sum); a pad
    # below -1 adds nothing (probed on 2026.4: [2] + (-2) stays [2]).
    if pad == -1:
        d = Dimension(d.min, None)
    elif pad > 0:
        d = Dimension(d.min + pad, None if d.max is None else d.max + pad)
    lo, hi = d.min, d.max
    if hi is None:
        return Dimension(-(-lo // block), None)
    return _divided(Dimension(lo, hi), block)


def infer_space_to_batch(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check_common(inputs, _S2B, False)
    data = inputs[0]
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, shape)]
    rank = shape.rank
    if rank < 2:
        raise ValidationError(f"The data tensor with rank lower than 2 is not supported (data rank: {rank})")
    blocks, begins, ends = (known_ints(i) for i in inputs[1:])
    for vector in (blocks, begins, ends):
        if vector is not None and len(vector) < rank:  # OpenVINO reads past the end here
            raise ValidationError(
                f"block_shape and pads inputs must have at least as many elements as the data rank ({rank}), "
                f"got {len(vector)}"
            )
    dims = [mul(shape[0], Dimension.static(math.prod(blocks))) if blocks is not None else Dimension()]
    if blocks is None or begins is None or ends is None:
        return [TensorInfo(data.element_type, PartialShape((*dims, *([Dimension()] * (rank - 1)))))]
    for i in range(1, rank):
        if blocks[i] <= 0:
            raise ValidationError("block_shape values must be greater than 0")
        dims.append(_padded_quotient(shape[i], begins[i] + ends[i], blocks[i]))
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]


def _vectors(inputs: Sequence[np.ndarray], rank: int) -> tuple[list[int], list[int], list[int]]:
    vectors = [[int(v) for v in np.asarray(a).reshape(-1)] for a in inputs[1:4]]
    if any(len(v) != rank for v in vectors):
        raise InputError(f"block_shape and the begin/end inputs need {rank} elements each, got {vectors}")
    if vectors[0][0] != 1 or any(b < 1 for b in vectors[0]):
        raise InputError(f"block_shape must be positive with block_shape[0] = 1, got {vectors[0]}")
    if vectors[1][0] or vectors[2][0]:  # OpenVINO's shape inference leaves the batch unpadded/uncropped
        raise InputError(
            f"the batch dimension's begin and end must be 0, got {vectors[1][0]}, {vectors[2][0]}"
        )
    return vectors[0], vectors[1], vectors[2]


def evaluate_batch_to_space(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    blocks, begins, ends = _vectors(inputs, x.ndim)
    n, spatial, k = x.shape[0], list(x.shape[1:]), x.ndim - 1
    prod = math.prod(blocks)
    if n % prod:
        raise InputError(f"the batch ({n}) is not a multiple of the block product ({prod})")
    y = x.reshape([*blocks[1:], n // prod, *spatial])  # [b1..bk, B', D1..Dk]
    order = [k] + [a for i in range(k) for a in (k + 1 + i, i)]  # [B', D1, b1, D2, b2, ...]
    full = np.transpose(y, order).reshape(
        [n // prod, *(d * b for d, b in zip(spatial, blocks[1:], strict=True))]
    )
    if any(c < 0 for c in (*begins, *ends)) or any(
        begins[i] + ends[i] > full.shape[i] for i in range(x.ndim)
    ):
        raise InputError(f"crops {begins}, {ends} do not fit the shape {list(full.shape)}")
    index = tuple(slice(begins[i], full.shape[i] - ends[i]) for i in range(x.ndim))
    return [np.ascontiguousarray(full[index])]


def evaluate_space_to_batch(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    blocks, begins, ends = _vectors(inputs, x.ndim)
    if any(p < 0 for p in (*begins, *ends)):
        raise InputError(f"pads must be non-negative, got {begins}, {ends}")
    padded = np.pad(x, list(zip(begins, ends, strict=True)))  # zeros: the spec's value
    n, spatial, k = padded.shape[0], list(padded.shape[1:]), x.ndim - 1
    if any(d % b for d, b in zip(spatial, blocks[1:], strict=True)):
        raise InputError(f"padded spatial dims {spatial} are not multiples of block_shape {blocks[1:]}")
    split = [v for d, b in zip(spatial, blocks[1:], strict=True) for v in (d // b, b)]
    y = padded.reshape([n, *split])  # [B, P1/b1, b1, ...]
    order = [2 + 2 * i for i in range(k)] + [0] + [1 + 2 * i for i in range(k)]
    out_shape = [n * math.prod(blocks), *(d // b for d, b in zip(spatial, blocks[1:], strict=True))]
    return [np.ascontiguousarray(np.transpose(y, order)).reshape(out_shape)]


_I64 = frozenset({ElementType.i64})


def _spec(
    type_name: str,
    infer: Callable[[NoAttrs, Sequence[TensorInfo]], list[TensorInfo]],
    evaluate: Callable[[NoAttrs, Sequence[np.ndarray]], list[np.ndarray]],
) -> OpSpec[NoAttrs]:
    return OpSpec(
        type=type_name,
        version=1,
        since=2,
        inputs=4,
        parse=parse_no_attrs,
        infer=infer,
        evaluate=evaluate,
        # OpenVINO's evaluate reads block/begin/end as int64 whatever their type: i64 only.
        evaluate_types=(None, _I64, _I64, _I64),
        copies_values=True,
    )


SPECS = (
    _spec("BatchToSpace", infer_batch_to_space, evaluate_batch_to_space),
    _spec("SpaceToBatch", infer_space_to_batch, evaluate_space_to_batch),
)
