"""Convolution-1 and GroupConvolution-1: a character CNN over one-hot inputs (``F.one_hot`` -> ``conv1d``).

Shapes (``convolution_shape_inference.hpp``): data ``[N, C_in, spatial...]``, filters
``[C_out, C_in, k...]`` (GroupConvolution: ``[G, C_out/G, C_in/G, k...]``, with
``C_in = G * C_in/G``); output ``[N, C_out, out...]`` with the sizes of ``spatial.py``.
Data and filters share one real or integer element type, which the output keeps.

Values: every output element is the sum over input channels and kernel taps of data
times filter, zero padding outside the data.  ovonehot sums in float64 and rounds
once (integers: in int64, wrapped to the type); OpenVINO's CPU plugin (oneDNN) sums in
f32 in its own order, so f32 results agree to a few ulp.  The core has no ``evaluate``
for these ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.numeric import is_float, narrow, quiet, widen
from .common.spatial import Window, check_window, padded, pads_for, parse_window, spatial_dims, windows
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class ConvAttrs:
    window: Window
    groups: bool  # GroupConvolution


def parse_convolution(node: Node) -> ConvAttrs:
    return ConvAttrs(parse_window(node), False)


def parse_group_convolution(node: Node) -> ConvAttrs:
    return ConvAttrs(parse_window(node), True)


def _merge(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(message)
    return merged


def infer_convolution(attrs: ConvAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, filters = inputs
    et = data.element_type.merge(filters.element_type)
    if et is None:
        raise ValidationError(
            f"Element types for data batch and filters do not match (data batch element type: "
            f"{data.element_type}, filters element type: {filters.element_type})."
        )
    if not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Element types must be numeric. Got: {et}")
    extra = 3 if attrs.groups else 2  # leading filter dims before the kernel
    d, f = data.shape, filters.shape
    n_spatial = len(attrs.window.strides)
    check_window(attrs.window, n_spatial, d.rank if d.rank_is_static else None)
    if f.rank_is_static and f.rank != n_spatial + extra:
        raise ValidationError(f"Data batch and filters rank do not match (filters shape: {f}).")
    fd = tuple(f) if f.rank_is_static else (Dimension(),) * (n_spatial + extra)
    c_out = _out_channels(attrs, fd)
    kernel_dims = fd[extra:]
    if not d.rank_is_static:
        d = PartialShape((Dimension(),) * (n_spatial + 2))
    elif attrs.groups:
        groups, c_in_per_group = fd[0], fd[2]
        in_channels = d[1]
        if (
            groups.is_static
            and c_in_per_group.is_static
            and in_channels.is_static
            and in_channels.length != groups.length * c_in_per_group.length
        ):
            raise ValidationError(
                f"Input channels dimension of data batch has incompatible value with filter shape "
                f"({in_channels} vs {groups.length} groups of {c_in_per_group.length})."
            )
    else:
        _merge(
            d[1],
            fd[1],
            f"Data batch channel count ({d[1]}) does not match filter input channel count ({fd[1]}).",
        )
    spatial = spatial_dims(attrs.window, tuple(d)[2:], kernel_dims)
    return [TensorInfo(et, PartialShape((d[0], c_out, *spatial)))]


def _out_channels(attrs: ConvAttrs, filters: Sequence[Dimension]) -> Dimension:
    if not attrs.groups:
        return filters[0]
    groups, per_group = filters[0], filters[1]
    if groups.is_static and per_group.is_static:
        return Dimension.static(groups.length * per_group.length)
    return Dimension()


def evaluate_convolution(attrs: ConvAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, w = (np.asarray(a) for a in inputs)
    if attrs.groups:
        g = w.shape[0]
        w_full = w.reshape((g * w.shape[1], *w.shape[2:]))
    else:
        g = 1
        w_full = w
    kernel = list(w_full.shape[2:])
    c_in_per_group = w_full.shape[1]
    if x.shape[1] != g * c_in_per_group:
        raise InputError(f"data has {x.shape[1]} channels, the filters take {g} x {c_in_per_group}")
    begin, end = pads_for(attrs.window, x.shape[2:], kernel)
    info = infer_convolution(
        attrs,
        [
            TensorInfo(ElementType.from_numpy(x.dtype), PartialShape.of(x.shape)),
            TensorInfo(ElementType.from_numpy(w.dtype), PartialShape.of(w.shape)),
        ],
    )
    outs = list(info[0].shape.to_shape()[2:])
    acc = np.float64 if is_float(x.dtype) else np.int64
    xp = padded(widen(x).astype(acc), begin, end, 0)
    win = windows(xp, kernel, attrs.window, outs)  # [N, C, *outs, *kernel]
    n_sp = len(kernel)
    c_out_per_group = w_full.shape[0] // g
    parts = []
    with quiet():
        for group in range(g):
            xs = win[:, group * c_in_per_group : (group + 1) * c_in_per_group]
            ws = widen(w_full[group * c_out_per_group : (group + 1) * c_out_per_group]).astype(acc)
            # contract channels and kernel taps: [N, *outs] x [C_out]
            y = np.tensordot(xs, ws, axes=([1, *range(2 + n_sp, 2 + 2 * n_sp)], [1, *range(2, 2 + n_sp)]))
            parts.append(np.moveaxis(y, -1, 1))
        y = np.concatenate(parts, axis=1) if parts else np.zeros((x.shape[0], 0, *outs), acc)
        if is_float(x.dtype):
            out = y if x.dtype == np.float64 else y.astype(np.float32)
            return [narrow(np.asarray(out), x.dtype)]
        return [y.astype(x.dtype)]


SPECS = (
    OpSpec(
        type="Convolution",
        version=1,
        since=1,
        inputs=2,
        parse=parse_convolution,
        infer=infer_convolution,
        evaluate=evaluate_convolution,
    ),
    OpSpec(
        type="GroupConvolution",
        version=1,
        since=1,
        inputs=2,
        parse=parse_group_convolution,
        infer=infer_convolution,
        evaluate=evaluate_convolution,
    ),
)
