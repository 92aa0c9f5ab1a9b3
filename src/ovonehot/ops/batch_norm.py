"""BatchNormInference-0 (opset1) and -5: per-channel normalization with given statistics.

Inputs: opset1 ``gamma, beta, data, mean, variance``; opset5 ``data, gamma, beta, mean,
variance``.  Attribute ``epsilon`` (>= 0).  ``data`` has rank >= 2 with channels on axis 1;
the four channel inputs are 1D of the channel count (``batch_norm_shape_inference.hpp``:
they merge with each other and with the data's channel dim, which the output takes).  All
five share one real element type.

Values (``reference/batch_norm.hpp``), in the element type (f16/bf16 in f32, rounded at the
end)::

    out = (x - mean) / sqrt(variance + T(epsilon)) * gamma + beta

each step one IEEE operation (``sqrt`` correctly rounded).  The core has no ``evaluate``;
the CPU plugin folds the statistics into a scale and a shift first (a few ulp away: see the
tests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import float_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class BatchNormAttrs:
    epsilon: float
    data_first: bool  # opset5 order (data first); opset1 has gamma, beta, data


def _parser(data_first: bool) -> Callable[[Node], BatchNormAttrs]:
    def parse(node: Node) -> BatchNormAttrs:
        return BatchNormAttrs(float_attr(node, "epsilon"), data_first)

    return parse


T = TypeVar("T")


def _split(attrs: BatchNormAttrs, items: Sequence[T]) -> tuple[T, list[T]]:
    """(data, [gamma, beta, mean, variance]) from the inputs in the version's order."""
    if attrs.data_first:
        return items[0], [items[1], items[2], items[3], items[4]]
    return items[2], [items[0], items[1], items[3], items[4]]


def _channel_param_shape(channel_inputs: Sequence[TensorInfo]) -> tuple[Dimension, PartialShape]:
    """gamma/beta/mean/variance's merged shape, of rank 1, and its one dimension."""
    merged_shape: PartialShape | None = channel_inputs[0].shape
    for info in channel_inputs[1:]:
        merged_shape = None if merged_shape is None else merged_shape.merge(info.shape)
    if merged_shape is None:
        raise ValidationError("Shapes for gamma/beta/mean/variance do not match.")
    if merged_shape.dims is None:
        return Dimension(), PartialShape((Dimension(),))
    if len(merged_shape.dims) != 1:
        raise ValidationError(f"Shape for gamma/beta/mean/variance ({merged_shape}) does not have rank 1.")
    return merged_shape.dims[0], merged_shape


def infer_batch_norm(attrs: BatchNormAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if not attrs.epsilon >= 0:
        raise ValidationError(f"Attribute 'epsilon' must be non negative value. Got: {attrs.epsilon:g}")
    et = inputs[0].element_type
    for info in inputs[1:]:
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError("Input element types do not match.")
        et = merged
    if not (et.is_real or et.is_dynamic):
        raise ValidationError(f"Input element types must be floating-point. Got: {et}")
    data, channel_inputs = _split(attrs, inputs)
    shape = data.shape
    channels = Dimension()
    if shape.dims is not None:
        if len(shape.dims) < 2:
            raise ValidationError(
                f"Input argument must have rank of at least 2 (input argument shape: {shape})."
            )
        channels = shape.dims[1]
    param_dim, merged_shape = _channel_param_shape(channel_inputs)
    merged_channels = channels.merge(param_dim)
    if merged_channels is None:
        raise ValidationError(
            f"Input channel dimension ({channels}) does not match shape for gamma/beta/mean/variance "
            f"({merged_shape})."
        )
    if merged_channels.is_static and merged_channels.length < 1:
        raise ValidationError("Channel count must be at least 1.")
    out = shape
    if shape.dims is not None:
        dims = list(shape.dims)
        dims[1] = merged_channels
        out = PartialShape(tuple(dims))
    return [TensorInfo(et, out)]


def evaluate_batch_norm(attrs: BatchNormAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    data, channel_arrays = _split(attrs, arrays)
    if not is_float(data.dtype):
        raise InputError(f"BatchNormInference takes real numbers, got {data.dtype}")
    if data.ndim < 2:
        raise InputError(f"data must have rank >= 2, got {list(data.shape)}")
    c = data.shape[1]
    view = (1, c) + (1,) * (data.ndim - 2)
    x = widen(data)
    dtype = x.dtype
    stats = []
    for array in channel_arrays:
        if array.shape != (c,):
            raise InputError(f"gamma/beta/mean/variance must have shape [{c}], got {list(array.shape)}")
        stats.append(widen(array).astype(dtype).reshape(view))
    gamma, beta, mean, variance = stats
    eps = np.asarray(np.float32(attrs.epsilon)).astype(dtype)  # the reference takes epsilon as a float
    with quiet():
        out = (x - mean) / np.sqrt(variance + eps) * gamma + beta
    return [narrow(np.asarray(out, dtype=dtype), data.dtype)]


SPECS = (
    # No core evaluate in OpenVINO: values never reach shape inference.
    OpSpec(
        type="BatchNormInference",
        version=0,
        since=1,
        inputs=5,
        parse=_parser(False),
        infer=infer_batch_norm,
        evaluate=evaluate_batch_norm,
        foldable=False,
    ),
    OpSpec(
        type="BatchNormInference",
        version=5,
        since=5,
        inputs=5,
        parse=_parser(True),
        infer=infer_batch_norm,
        evaluate=evaluate_batch_norm,
        foldable=False,
    ),
)
