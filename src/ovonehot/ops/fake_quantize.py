"""FakeQuantize-1 and FakeConvert-13: quantize-dequantize in one op (NNCF/POT int8 models, FP8 emulation).

FakeQuantize: inputs data, input_low, input_high, output_low, output_high; the four
range inputs broadcast to the data (``auto_broadcast`` numpy, or ``none``: equal
shapes).  Output = data's type and shape (``fake_quantize.cpp``: the range shapes are
only checked, "Argument shapes are inconsistent.").  Values (``reference/fake_quantize.hpp``),
all in the data type: ``x <= min(il, ih)`` gives ``ol``; ``x > max(il, ih)`` gives
``oh``; otherwise ``nearbyint((x - il) / (ih - il) * (levels - 1)) / (levels - 1) *
(oh - ol) + ol`` (f32 arithmetic with round-half-even; integer types divide as C does
and finish in double).

FakeConvert: inputs data, scale, optional shift (numpy-broadcast); ``destination_type``
``f8e4m3`` or ``f8e5m2``.  Values (``reference/fake_convert.hpp``): ``y = x * scale -
shift``, rounded to f16, then to the f8 grid *on the f16 bits* (round to nearest even;
f8e4m3 flushes magnitudes below 2**-9 to 0 and saturates everything beyond, inf and
NaN included, at 448; f8e5m2 saturates at 57344 and keeps NaN), back to the data type,
then ``(y + shift) / scale``.  f16/bf16 data round every single operation to their type
(``x * scale`` is rounded before ``- shift``), as the reference's float16/bfloat16 do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import ElementType, PartialShape
from .common.attrs import int_attr, str_attr
from .common.autobroadcast import (
    NUMPY,
    AutoBroadcastSpec,
    AutoBroadcastType,
    broadcast_shapes,
    parse_auto_broadcast,
)
from .common.numeric import c_cast, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo

F32 = np.float32


@dataclass(frozen=True, slots=True)
class FakeQuantizeAttrs:
    levels: int
    auto_broadcast: AutoBroadcastSpec = NUMPY


def parse_fake_quantize(node: Node) -> FakeQuantizeAttrs:
    attrs = FakeQuantizeAttrs(int_attr(node, "levels"), parse_auto_broadcast(node))
    if attrs.auto_broadcast.type is AutoBroadcastType.PDPD:
        raise ValidationError(f"{node.describe()}: auto_broadcast pdpd is not supported for FakeQuantize")
    if attrs.levels < 2:
        raise ValidationError(f"{node.describe()}: levels must be at least 2, got {attrs.levels}")
    return attrs


def infer_fake_quantize(attrs: FakeQuantizeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    merged = data.shape
    for info in inputs[1:]:
        m = broadcast_shapes(merged, info.shape, attrs.auto_broadcast)
        if m is None:
            raise ValidationError(f"Argument shapes are inconsistent. ({data.shape} and {info.shape})")
        merged = m
    return [TensorInfo(data.element_type, data.shape)]


def evaluate_fake_quantize(attrs: FakeQuantizeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    try:
        il, ih, ol, oh = (np.broadcast_to(np.asarray(a), x.shape) for a in inputs[1:])
    except ValueError:
        raise InputError(
            f"the ranges {[np.shape(a) for a in inputs[1:]]} do not broadcast to the data {x.shape}"
        ) from None
    if x.dtype.kind in "iu":
        return [_quantize_int(x, il, ih, ol, oh, attrs.levels)]
    xs, ils, ihs, ols, ohs = (widen(np.asarray(a)).astype(F32) for a in (x, il, ih, ol, oh))
    lm1 = F32(attrs.levels - 1)
    with quiet():
        q = np.rint((xs - ils) / (ihs - ils) * lm1) / lm1 * (ohs - ols) + ols
        out = np.where(xs <= np.minimum(ils, ihs), ols, np.where(xs > np.maximum(ils, ihs), ohs, q))
    return [narrow(out.astype(F32), x.dtype)]


def _quantize_int(
    x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray, levels: int
) -> np.ndarray:
    """The reference for integer types: C division in the type, then double."""
    dtype = x.dtype
    with quiet():
        num = (x - il).astype(dtype)
        den = (ih - il).astype(dtype)
        safe = np.where(den == 0, 1, den)
        ratio = np.where(den == 0, 0, np.trunc(num.astype(np.float64) / safe.astype(np.float64))).astype(
            dtype
        )
        if np.any((den == 0) & (x > np.minimum(il, ih)) & (x <= np.maximum(il, ih))):
            raise InputError("FakeQuantize of an integer type divides by zero (input_high == input_low)")
        q = (ratio * dtype.type(levels - 1)).astype(dtype).astype(np.float64)
        # (oh - ol) is computed in the type (wrapping) before going to double
        span = (oh - ol).astype(dtype).astype(np.float64)
        y = c_cast(q / float(levels - 1) * span + ol.astype(np.float64), dtype)
    return np.where(x <= np.minimum(il, ih), ol, np.where(x > np.maximum(il, ih), oh, y)).astype(dtype)


# -- FakeConvert-13 ------------------------------------------------------------------------------
_DESTINATIONS = ("f8e4m3", "f8e5m2")


@dataclass(frozen=True, slots=True)
class FakeConvertAttrs:
    destination_type: str


def parse_fake_convert(node: Node) -> FakeConvertAttrs:
    dest = str_attr(node, "destination_type", "f8e4m3")
    if dest not in _DESTINATIONS:
        raise ValidationError(f"{node.describe()}: Bad format for f8 conversion type: {dest}")
    return FakeConvertAttrs(dest)


_FC_TYPES = {ElementType.f16, ElementType.bf16, ElementType.f32, ElementType.dynamic}


def infer_fake_convert(attrs: FakeConvertAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    if data.element_type not in _FC_TYPES:
        raise ValidationError(f"FakeConvert data type must be f16, bf16 or f32, got {data.element_type}")
    for info in inputs[1:]:
        if info.element_type != data.element_type and not info.element_type.is_dynamic:
            raise ValidationError(
                f"FakeConvert scale and shift must have the data's type {data.element_type}, got {info.element_type}"
            )
        if broadcast_shapes(data.shape, info.shape, NUMPY) is None:
            raise ValidationError(
                f"FakeConvert scale/shift shape {info.shape} does not broadcast to {data.shape}"
            )
    return [TensorInfo(data.element_type, PartialShape(data.shape.dims))]


def emulate_f8e5m2(h: np.ndarray) -> np.ndarray:
    """f16 values on the f8e5m2 grid (round to nearest even on the bits, saturating at 57344)."""
    bits = h.view(np.uint16).astype(np.int64)
    can_round = (bits & 0x7F00) < 0x7B00
    naninf = (bits & 0x7C00) == 0x7C00
    up = ((bits & 0x00FF) > 0x0080) | ((bits & 0x0180) == 0x0180)
    bits = np.where(~naninf & can_round & up, bits + (1 << 8), bits)
    bits &= 0xFF00
    nan = naninf & ((h.view(np.uint16).astype(np.int64) & 0x03FF) != 0)
    out = bits.astype(np.uint16).view(np.float16)
    # beyond the largest finite value (inf, or rounding up past it): the largest value, signed
    return np.where(np.isinf(out) & ~nan, np.copysign(np.float16(57344.0), out), out)


def emulate_f8e4m3(h: np.ndarray) -> np.ndarray:
    """f16 values on the f8e4m3 grid as OpenVINO's reference computes it (see the module doc)."""
    bits = h.view(np.uint16).astype(np.int64)
    bits = np.where(np.abs(h.astype(F32)) < F32(0.001953125), 0, bits)
    exp = ((bits & 0x7C00) >> 10) - 15
    sign = bits & 0x8000
    mant = bits & 0x03FF
    can_round = (bits & 0x7FFF) < 0b101111110000000
    naninf = (bits & 0x7C00) == 0x7C00
    big = exp > 8
    naninf = naninf | big
    mant = np.where(big, 0x300, mant)
    exp = np.where(big, 8, exp)
    tiny = ~big & (exp < -9)
    mant = np.where(tiny, 0, mant)
    exp = np.where(tiny, -15, exp)
    mant = np.where((exp == 8) & (mant >= 0x300), 0x300, mant)
    up = ((mant & 0x7F) > 0x40) | ((mant & 0xC0) == 0xC0)
    mant = np.where(~naninf & can_round & up, mant + (1 << 7), mant)
    dshift = np.where(exp < -6, -6 - exp, 0)
    mant = mant >> dshift
    mant &= 0xFF80
    mant = mant << dshift
    mant = mant + ((exp + 15) << 10)
    return ((mant | sign) & 0xFFFF).astype(np.uint16).view(np.float16)


def evaluate_fake_convert(attrs: FakeConvertAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    dtype = x.dtype
    scale = np.asarray(inputs[1])
    shift = np.asarray(inputs[2]) if len(inputs) > 2 else np.zeros_like(scale)
    try:
        np.broadcast_shapes(x.shape, scale.shape, shift.shape)
    except ValueError:
        raise InputError(
            f"scale {scale.shape} and shift {shift.shape} do not broadcast to {x.shape}"
        ) from None
    s, o = widen(scale).astype(F32), widen(shift).astype(F32)

    def step(a: np.ndarray) -> np.ndarray:
        """One arithmetic operation of the reference: computed in f32, stored in the data type."""
        return widen(narrow(np.asarray(a).astype(F32), dtype)).astype(F32)

    with quiet():
        y = step(step(widen(x).astype(F32) * s) - o)
        h = y.astype(np.float16)
        h = emulate_f8e4m3(h) if attrs.destination_type == "f8e4m3" else emulate_f8e5m2(h)
        y = step(h.astype(F32))
        out = narrow(step(step(y + o) / s), dtype)
    return [np.broadcast_to(out, x.shape).copy() if out.shape != x.shape else out]


SPECS = (
    OpSpec(
        type="FakeQuantize",
        version=1,
        since=1,
        inputs=5,
        parse=parse_fake_quantize,
        infer=infer_fake_quantize,
        evaluate=evaluate_fake_quantize,
    ),
    OpSpec(
        type="FakeConvert",
        version=13,
        since=13,
        inputs=(2, 3),
        parse=parse_fake_convert,
        infer=infer_fake_convert,
        evaluate=evaluate_fake_convert,
    ),
)
