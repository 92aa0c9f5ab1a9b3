"""BinaryConvolution-1: a 2-D convolution of 0/1 data with 0/1 (u1) filters, XNOR-popcount style.

Inputs: ``data`` ``[N, C_in, H, W]`` of a numeric type (0/1 values), ``filters``
``[C_out, C_in, KH, KW]`` (u1 in practice; any type is accepted by inference).  Attributes:
Convolution's window, ``mode`` (``xnor-popcount``, the only one) and ``pad_value`` (what the
padding holds).  Output ``[N, C_out, OH, OW]`` of the data's type (Convolution's sizes).

Each output is ``2 * P - B``: ``B`` the number of taps (``C_in * KH * KW``), ``P`` the number of
taps whose data value (``pad_value`` in the padding, converted to the data type) equals the
filter bit.  So 0 and 1 stand for -1 and +1 (the spec), and a data value that is neither 0 nor 1
matches no bit, as the reference compares them (``reference/binary_convolution.hpp``).  A
filter element other than u1 counts as the bit ``value != 0``.  Outputs are exact integers
(in the data type).

Shapes: ``binary_convolution_shape_inference.hpp`` (Convolution's, with 4-D data).  OpenVINO
2026.4 has no ``evaluate`` for the op, and its CPU plugin gives different results for the same
inputs from one compilation to the next here (it reads memory it did not write:
docs/openvino-behaviour.md): the values are checked against an oracle written from the spec.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr, float_attr
from .common.spatial import Window, check_window, padded, pads_for, parse_window, spatial_dims, windows
from .common.spec import OpSpec, TensorInfo


class BinaryMode(enum.Enum):
    XNOR_POPCOUNT = "xnor-popcount"


@dataclass(frozen=True, slots=True)
class BinaryConvAttrs:
    window: Window
    mode: BinaryMode
    pad_value: float


def parse_binary_convolution(node: Node) -> BinaryConvAttrs:
    return BinaryConvAttrs(
        parse_window(node), enum_attr(node, "mode", BinaryMode), float_attr(node, "pad_value")
    )


def infer_binary_convolution(attrs: BinaryConvAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, filters = inputs
    et = data.element_type
    if not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Data batch element type must be numeric. Got: {et}")
    d, f = data.shape, filters.shape
    if d.rank_is_static and d.rank != 4:
        raise ValidationError(f"Expected 4D for the input. Got: {d}")
    check_window(attrs.window, 2, None)
    if f.rank_is_static and f.rank != 4:
        raise ValidationError(f"Data batch and filters rank do not match (filters shape: {f}).")
    dd = tuple(d) if d.rank_is_static else (Dimension(),) * 4
    fd = tuple(f) if f.rank_is_static else (Dimension(),) * 4
    if not dd[1].compatible(fd[1]):
        raise ValidationError(
            f"Data batch channel count ({dd[1]}) does not match filter input channel count ({fd[1]})."
        )
    spatial = spatial_dims(attrs.window, dd[2:], fd[2:])
    return [TensorInfo(et, PartialShape((dd[0], fd[0], *spatial)))]


def evaluate_binary_convolution(attrs: BinaryConvAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, f = (np.asarray(a) for a in inputs)
    if x.ndim != 4 or f.ndim != 4 or x.shape[1] != f.shape[1]:
        raise InputError(f"BinaryConvolution takes [N, C, H, W] data and [C_out, C, KH, KW] filters, got "
                         f"{list(x.shape)} and {list(f.shape)}")  # fmt: skip
    et = ElementType.from_numpy(x.dtype)
    try:
        (out,) = infer_binary_convolution(
            attrs,
            [TensorInfo(et, PartialShape.of(x.shape)), TensorInfo(ElementType.u1, PartialShape.of(f.shape))],
        )
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    outs = out.shape.to_shape()[2:]
    kernel = list(f.shape[2:])
    begin, end = pads_for(attrs.window, x.shape[2:], kernel)
    pad = np.asarray(attrs.pad_value, np.float64).astype(x.dtype)  # the pad value in the data type
    canvas = padded(x, begin, end, pad)
    taps = windows(canvas, kernel, attrs.window, outs)  # [N, C, OH, OW, KH, KW]
    bits = f != 0
    ones = taps == 1
    zeros = taps == 0
    # P = matches of 1-bits with data 1 plus matches of 0-bits with data 0, per output channel
    count = np.einsum("nchwij,ocij->nohw", ones.astype(np.int64), bits.astype(np.int64)) + np.einsum(
        "nchwij,ocij->nohw", zeros.astype(np.int64), (~bits).astype(np.int64)
    )
    total = int(np.prod(f.shape[1:]))
    result = 2 * count - total
    return [result.astype(x.dtype)]


SPECS = (
    OpSpec(
        type="BinaryConvolution",
        version=1,
        since=1,
        inputs=2,
        parse=parse_binary_convolution,
        infer=infer_binary_convolution,
        evaluate=evaluate_binary_convolution,
        foldable=False,  # (OpenVINO has no evaluate for it: nothing folds through it)
    ),
)
