"""LRN-1: local response normalization (``src/core/src/op/lrn.cpp``, ``reference/lrn.hpp``).

Inputs ``data`` and ``axes`` (integers, 1D, at most rank-many); attributes ``alpha``,
``beta``, ``bias``, ``size``.  Output = data's type and shape.  Shape checks use the axes
only when they are known (OpenVINO's ``get_constant_from_source``); negative axes pass
them (and are refused when running, as the CPU plugin refuses them).

Values, in the element type (f16/bf16 in f32, rounded at the end)::

    sum  = sum of x**2 over the window [i - (size-1)/2, i + (size-1)/2] on every axis
           (clipped to the data; added in row-major order of the window)
    out  = x / pow(bias + alpha / size**len(axes) * sum, beta)

``pow`` is computed in float64 and rounded once (OpenVINO calls ``powf``).  The window is
symmetric, so an even ``size`` covers ``size - 1`` elements in the reference.  The core
has no ``evaluate``; the CPU plugin (oneDNN) sums in its own order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from .common.attrs import float_attr, int_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.shape_util import known_ints
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class LRNAttrs:
    alpha: float
    beta: float
    bias: float
    size: int


def parse_lrn(node: Node) -> LRNAttrs:
    return LRNAttrs(
        float_attr(node, "alpha"), float_attr(node, "beta"), float_attr(node, "bias"), int_attr(node, "size")
    )


def infer_lrn(attrs: LRNAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    shape = data.shape
    axes_shape = axes.shape if axes.shape.is_static else None
    if axes_shape is not None and axes_shape.rank != 1:
        raise ValidationError(f"Input axes must have rank equals 1 (axes_rank: {axes_shape.rank}).")
    if axes_shape is not None and shape.rank_is_static and axes_shape[0].length > shape.rank:
        raise ValidationError(
            f"Number of elements of axes must be >= 0 and <= argument rank (axes_shape[0]: {axes_shape[0]})."
        )
    if shape.rank_is_static:
        if axes.value is not None and axes.element_type.is_real:
            raise ValidationError(f"LRN axes must be integers, got a {axes.element_type} constant")
        values = known_ints(axes)
        # Negative axes pass OpenVINO's check (probed: -1, -4 on rank 3); only too large ones fail.
        reduction = sorted({v for v in values if v >= 0}) if values is not None else [1]
        for axis in reduction:
            if axis >= shape.rank:
                listed = ", ".join(str(a) for a in reduction)
                raise ValidationError(
                    f"Reduction axis ({axis}) is out of bounds (argument shape: {shape}, reduction axes: "
                    f"AxisSet{{{listed}}})"
                )
    if not (axes.element_type.is_integral_number or axes.element_type.is_dynamic):
        raise ValidationError(f"Axes input must be integral numbers, but are: {axes.element_type}).")
    return [TensorInfo(data.element_type, shape)]


def evaluate_lrn(attrs: LRNAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, axes_array = (np.asarray(a) for a in inputs)
    if not is_float(data.dtype):
        raise InputError(f"LRN takes real numbers, got {data.dtype}")
    axes = sorted({int(v) for v in axes_array.reshape(-1).tolist()})
    if any(not 0 <= a < data.ndim for a in axes):
        raise InputError(f"LRN axes {axes} are out of bounds for rank {data.ndim}")
    x = widen(data)
    dtype = x.dtype
    half = (attrs.size - 1) // 2
    with quiet():
        square = x * x
        total = np.zeros_like(x)
        # Row-major order of the window = the offsets in lexicographic order, first axis outermost.
        for offsets in itertools.product(range(-half, half + 1), repeat=len(axes)):
            total = total + _shifted(square, axes, offsets)
        alpha, beta, bias = (np.asarray(v).astype(dtype) for v in (attrs.alpha, attrs.beta, attrs.bias))
        scale = alpha / np.asarray(float(attrs.size) ** len(axes)).astype(dtype)
        base = bias + scale * total
        power = np.power(base.astype(np.float64), beta.astype(np.float64)).astype(dtype)
        out = x / power
    return [narrow(np.asarray(out, dtype=dtype), data.dtype)]


def _shifted(values: np.ndarray, axes: Sequence[int], offsets: Sequence[int]) -> np.ndarray:
    """``values`` moved so that position i holds values[i + offset] on each axis, 0 outside."""
    out = np.zeros_like(values)
    target: list[slice] = [slice(None)] * values.ndim
    source: list[slice] = [slice(None)] * values.ndim
    for axis, offset in zip(axes, offsets, strict=True):
        n = values.shape[axis]
        if abs(offset) >= n:
            return out
        target[axis] = slice(max(0, -offset), n - max(0, offset))
        source[axis] = slice(max(0, offset), n - max(0, -offset))
    out[tuple(target)] = values[tuple(source)]
    return out


# No core evaluate in OpenVINO: values never reach shape inference.
SPECS = (
    OpSpec(
        type="LRN",
        version=0,
        since=1,
        inputs=2,
        parse=parse_lrn,
        infer=infer_lrn,
        evaluate=evaluate_lrn,
        foldable=False,
    ),
)
