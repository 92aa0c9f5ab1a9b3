"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: pooling to a requested spatial size (PyTorch's adaptive pools).

Inputs: data ``[N, C, D1..Dk]`` (k = 1, 2 or 3) and ``output_shape``, a 1-D integer tensor of
k sizes.  Output ``[N, C, *output_shape]`` (``pooling::out_shape_infer``: the data rank must
be compatible with 3, 4 or 5; ``output_shape``'s length compatible with k; its value, or its
bounds, give the spatial dims, else they are ``?``).  AdaptiveMaxPool has a second output,
the indices, of ``index_element_type`` (i32 or i64).

Bins (``reference/adaptive_avg_pool.hpp``): along each axis, output position ``i`` of ``n``
over an input of ``L`` covers ``[floor(i * L / n), ceil((i + 1) * L / n))``, so bins overlap
when ``L`` is not a multiple of ``n``.  Average: the bin's elements summed in raster order
from 0, divided by their count (floats in the data type; f16/bf16 computed in f32 and
rounded once, as the CPU plugin does at its f32 precision; i8/u8 ``nearbyint(float(sum) /
count)``; other integers ``sum / count`` with the count a ``size_t``, as the reference writes
it: a negative sum is divided as its unsigned 64-bit pattern).  Max: each bin row's first
largest element (``std::max_element``), a later row's replacing it only when strictly larger;
the index is the element's flat position within its channel's spatial volume (``d*H*W + h*W +
w``).  A NaN is picked only where it starts a row.  An empty bin (an input axis of 0 with a
non-zero output) is an error.

OpenVINO's core ops have no ``evaluate`` (nothing folds); the CPU plugin (f32) is the oracle.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import element_type_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import dim_from_bounds, input_bounds
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class AdaptivePoolAttrs:
    maximum: bool  # AdaptiveMaxPool; False: AdaptiveAvgPool
    index_element_type: ElementType = ElementType.i64


def parse_adaptive_avg_pool(node: Node) -> AdaptivePoolAttrs:
    return AdaptivePoolAttrs(maximum=False)


def parse_adaptive_max_pool(node: Node) -> AdaptivePoolAttrs:
    et = element_type_attr(node, "index_element_type", ElementType.i64)
    return AdaptivePoolAttrs(maximum=True, index_element_type=et)


def _spatial_dims(info: TensorInfo) -> list[Dimension] | None:
    bounds = input_bounds(info)
    if bounds is None:
        return None
    return [dim_from_bounds(max(lo, -1), max(hi, -1)) for lo, hi in bounds]


def infer_adaptive_pool(attrs: AdaptivePoolAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, sizes = inputs
    if attrs.maximum and attrs.index_element_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError("Index element type must be i32 or i64")
    shape = data.shape
    if shape.rank_is_static and shape.rank not in (3, 4, 5):
        raise ValidationError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {shape}")
    out = PartialShape.dynamic()
    if shape.rank_is_static:
        k = shape.rank - 2
        if sizes.shape.rank_is_static and (sizes.shape.rank == 0 or not sizes.shape[0].contains(k)):
            raise ValidationError("Output shape for spatial dimension not compatible with data shape.")
        spatial = _spatial_dims(sizes)
        if spatial is not None and len(spatial) != k:
            raise ValidationError("Number of spatial dimensions is not compatible with input data rank")
        dims = spatial if spatial is not None else [Dimension()] * k
        out = PartialShape((shape[0], shape[1], *dims))
    result = [TensorInfo(data.element_type, out)]
    if attrs.maximum:
        result.append(TensorInfo(attrs.index_element_type, out))
    return result


def _bins(length: int, count: int) -> list[tuple[int, int]]:
    return [(i * length // count, -(-(i + 1) * length // count)) for i in range(count)]


def _windows(spatial: Sequence[int], sizes: Sequence[int]) -> list[tuple[tuple[int, ...], list[slice]]]:
    """Each output position with the slices of its bin, in raster order."""
    per_axis = [_bins(length, n) for length, n in zip(spatial, sizes, strict=True)]
    out = []
    for pos in itertools.product(*(range(n) for n in sizes)):
        bounds = [per_axis[a][p] for a, p in enumerate(pos)]
        if any(hi <= lo for lo, hi in bounds):
            raise InputError("AdaptivePool elements == 0, must be non-zero (an empty bin)")
        out.append((pos, [slice(lo, hi) for lo, hi in bounds]))
    return out


def _average(window: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The reference's average of each row of ``window`` [M, K], summed left to right from 0."""
    count = window.shape[1]
    zero = np.zeros((window.shape[0], 1), window.dtype)
    total = np.add.accumulate(np.concatenate([zero, window], axis=1), axis=1)[:, -1]
    result: np.ndarray
    if window.dtype.kind == "f":
        result = total / window.dtype.type(count)
    elif dtype in (np.dtype(np.int8), np.dtype(np.uint8)):
        result = np.rint(total.astype(np.float32) / np.float32(count)).astype(dtype)
    else:
        bits = total.astype(np.int64).astype(np.uint64) if dtype.kind == "i" else total.astype(np.uint64)
        result = (bits // np.uint64(count)).astype(dtype)
    return result


def _maximum(window: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(value, position in the window) of the reference's max over [M, rows, K] row by row."""
    m = window.shape[0]
    if window.dtype.kind == "f":
        starts_nan = np.isnan(window[:, :, 0])
        scan = np.where(np.isnan(window), -np.inf, window)
        best = np.where(starts_nan, 0, np.argmax(scan, axis=2))  # [M, rows]
    else:
        best = np.argmax(window, axis=2)
    every = np.arange(m)
    value = window[every, 0, best[:, 0]]
    where = best[:, 0].copy()
    for r in range(1, rows):
        candidate = window[every, r, best[:, r]]
        larger = candidate > value
        value = np.where(larger, candidate, value)
        where = np.where(larger, r * window.shape[2] + best[:, r], where)
    return value, where


def evaluate_adaptive_pool(attrs: AdaptivePoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, sizes_in = np.asarray(inputs[0]), np.asarray(inputs[1])
    if data.ndim not in (3, 4, 5):
        raise InputError(f"the data must have rank 3, 4 or 5, got {list(data.shape)}")
    sizes = [int(v) for v in sizes_in.reshape(-1)]
    spatial = list(data.shape[2:])
    if len(sizes) != len(spatial) or any(s < 0 for s in sizes):
        raise InputError(f"output_shape {sizes} does not fit data {list(data.shape)}")
    n, c = data.shape[:2]
    x = widen(data).reshape(n * c, *spatial)
    values = np.zeros((n * c, *sizes), x.dtype)
    index_dtype = attrs.index_element_type.numpy_dtype or np.dtype(np.int64)
    indices = np.zeros((n * c, *sizes), index_dtype)
    plane = [math.prod(spatial[a + 1 :]) for a in range(len(spatial))]  # flat strides
    with quiet():
        for pos, slices in _windows(spatial, sizes):
            if n * c == 0:
                break
            window = (slice(None), *slices)
            at: tuple[slice | int, ...] = (slice(None), *pos)
            block = x[window]
            if not attrs.maximum:
                values[at] = _average(block.reshape(n * c, -1), data.dtype)
                continue
            width = block.shape[-1]
            rows = block.size // (n * c * width)
            value, where = _maximum(block.reshape(n * c, rows, width), rows)
            values[at] = value
            indices[at] = _flat_index(where, block.shape[1:], slices, plane)
    out = [narrow(values.reshape(n, c, *sizes), data.dtype)]
    if attrs.maximum:
        out.append(indices.reshape(n, c, *sizes))
    return out


def _flat_index(
    where: np.ndarray, block: Sequence[int], slices: Sequence[slice], plane: Sequence[int]
) -> np.ndarray:
    """A position within a bin's block as a flat position within the channel's spatial volume."""
    coords = np.unravel_index(where, tuple(block))
    flat = np.zeros_like(where)
    for axis, coord in enumerate(coords):
        start = slices[axis].start
        flat = flat + (coord + start) * plane[axis]
    return flat


def _spec(type_name: str, parse: Callable[[Node], AdaptivePoolAttrs]) -> OpSpec[AdaptivePoolAttrs]:
    return OpSpec(
        type=type_name,
        version=8,
        since=8,
        inputs=2,
        parse=parse,
        infer=infer_adaptive_pool,
        evaluate=evaluate_adaptive_pool,
        evaluate_types=(frozenset(),),  # OpenVINO's core ops have no evaluate: they never fold
    )


SPECS = (
    _spec("AdaptiveAvgPool", parse_adaptive_avg_pool),
    _spec("AdaptiveMaxPool", parse_adaptive_max_pool),
)
