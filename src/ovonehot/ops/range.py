"""Range-4 (and Range-0): ``start, start + step, ...`` up to, not including, ``stop``.

Shape (``range_shape_inference.hpp``): ``[n]`` when start, stop and step are known,
with ``n = max(ceil(|stop - start| / |step|), 0)`` computed in double after
truncating each input toward zero when the output type is an integer, then cast to
uint32 as OpenVINO does; ``[?]`` otherwise.  Known NaN/inf inputs and a known zero
step are refused.  Range-4 takes numeric (not boolean) inputs of any types and an
``output_type``; Range-0 takes three inputs of one type, which is the output's.

Values: each input is cast to the output type first (truncating toward zero for
integers), then ``out[i] = start + i * step`` in the output type (f16/bf16 through
f32 with a rounding after each operation; integers wrap).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import element_type_attr
from .common.numeric import is_narrow_float, narrow, quiet
from .common.spec import OpSpec, TensorInfo
from .convert import convert_array

_NAMES = ("start", "stop", "step")


@dataclass(frozen=True, slots=True)
class RangeAttrs:
    output_type: ElementType | None  # None: Range-0, the inputs' type


def parse_range_4(node: Node) -> RangeAttrs:
    return RangeAttrs(element_type_attr(node, "output_type"))


def parse_range_0(node: Node) -> RangeAttrs:
    return RangeAttrs(None)


def _numeric(et: ElementType) -> bool:
    return et.is_dynamic or et.is_integral_number or et.is_real


def infer_range(attrs: RangeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    for name, info in zip(_NAMES, inputs, strict=True):
        if info.shape.rank_is_static and info.shape.rank != 0:
            raise ValidationError(f"'{name}' input is not a scalar")
        if not _numeric(info.element_type):
            raise ValidationError(f"'{name}' input scalar should be a numeric type. Got: {info.element_type}")
    if attrs.output_type is None:
        out_type = ElementType.dynamic
        for info in inputs:
            merged = out_type.merge(info.element_type)
            if merged is None:
                raise ValidationError("Element types for start, stop, and step do not match.")
            out_type = merged
    else:
        out_type = attrs.output_type
        if not (out_type.is_integral_number or out_type.is_real):
            raise ValidationError(f"output tensor type should be a numeric type. Got: {out_type}")
    integral = out_type.is_integral_number
    values = [_known_scalar(info, name, integral) for name, info in zip(_NAMES, inputs, strict=True)]
    if any(v is None for v in values):
        return [TensorInfo(out_type, PartialShape((Dimension(),)))]
    start, stop, step = (float(v) for v in values if v is not None)
    return [TensorInfo(out_type, PartialShape.of((range_length(start, stop, step),)))]


def _known_scalar(info: TensorInfo, name: str, integral: bool) -> float | None:
    if info.value is None or np.asarray(info.value).size != 1:
        return None
    v = float(np.asarray(info.value).reshape(-1)[0].astype(np.float64))
    if not math.isfinite(v) or (name == "step" and v == 0):
        what = "zero, nan, or infinite" if name == "step" else "nan or infinite"
        raise ValidationError(f"'{name}' cannot be {what}.")
    return math.trunc(v) if integral else v


def range_length(start: float, stop: float, step: float) -> int:
    """OpenVINO's element count: ``static_cast<uint32_t>(ceil(|span| / |step|))``."""
    span = 0.0 if (step > 0 and start >= stop) or (step < 0 and start <= stop) else stop - start
    with quiet():
        strided = np.ceil(np.float64(abs(span)) / np.float64(abs(step)))
    if not np.isfinite(strided):
        return 0  # the x86 cast of inf/NaN to uint32 (through int64) keeps 0 in the low bits
    return int(strided) % 2**32


def evaluate_range(attrs: RangeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    for name, a in zip(_NAMES, arrays, strict=True):
        if a.size != 1:
            raise InputError(f"'{name}' input is not a scalar")
    out_type = attrs.output_type or ElementType.from_numpy(arrays[0].dtype)
    dtype = numpy_dtype_of(out_type)
    integral = out_type.is_integral_number
    doubles = [float(a.reshape(-1)[0].astype(np.float64)) for a in arrays]
    for name, v in zip(_NAMES, doubles, strict=True):
        if not math.isfinite(v) or (name == "step" and v == 0):
            raise InputError(
                f"'{name}' cannot be {'zero, nan, or infinite' if name == 'step' else 'nan or infinite'}."
            )
    if integral:
        doubles = [float(math.trunc(v)) for v in doubles]
    n = range_length(*doubles)
    start, step = (convert_array(a.reshape(()), out_type) for a in (arrays[0], arrays[2]))
    with quiet():
        if integral:
            idx = np.arange(n, dtype=np.uint64).astype(dtype)
            out = start + idx * step  # wraps like C++
        elif is_narrow_float(dtype):
            idx = narrow(np.arange(n, dtype=np.float64).astype(np.float32), dtype)
            prod = narrow(idx.astype(np.float32) * step.astype(np.float32), dtype)
            out = narrow(start.astype(np.float32) + prod.astype(np.float32), dtype)
        else:
            out = start + np.arange(n).astype(dtype) * step
    return [np.asarray(out, dtype=dtype).reshape(n)]


SPECS = (
    OpSpec(
        type="Range",
        version=0,
        since=1,
        inputs=3,
        parse=parse_range_0,
        infer=infer_range,
        evaluate=evaluate_range,
    ),
    OpSpec(
        type="Range",
        version=4,
        since=4,
        inputs=3,
        parse=parse_range_4,
        infer=infer_range,
        evaluate=evaluate_range,
    ),
)
