"""RandomUniform-8: OpenVINO's generator reproduced bit for bit (``reference/random_uniform.cpp``).

Inputs: the output shape (1-D i32/i64), ``min_val`` and ``max_val`` (scalars or ``[1]``,
of ``output_type``).  Attributes: ``output_type`` (f32, f16, bf16, f64, i32, i64),
``global_seed``, ``op_seed`` (u64, default 0) and ``alignment`` (``tensorflow``, the
default, or ``pytorch``).

Shape (``random_uniform_shape_inference.hpp``): the shape input's value (a negative
entry is ``0``, ``-1`` is ``?``; intervals from bounds), else ``[?,...]`` with as many
dims as the shape input's length allows at most, else ``[...]``.  Known min and max
must satisfy ``min < max`` (NaN fails), checked again when running.

Values (``utils/phillox_generator.cpp``, ``phillox_converter.cpp``, checked against
``Node.evaluate`` of 2026.4):

* ``tensorflow``: Philox4x32-10 with key = ``global_seed`` (low, high words) and counter
  ``[n low, n high, op_seed low, op_seed high]``, ``n`` = 0, 1, 2, ...  Each block of 4
  words gives 4 elements of a 32-bit or 16-bit type (1 word each) or 2 of f64/i64 (2
  words each).  Floats put the word's low mantissa bits under exponent 0 (``[1, 2)``),
  subtract 1, then ``x * (max - min) + min`` computed in the output type (f16/bf16
  round after each operation, bf16 with OpenVINO's own rounding, which the CPU plugin's kernel
  shares: ``openvino_bf16``, not the nearest-even of Convert); integers are
  ``word % (max - min) + min`` in unsigned arithmetic (i64 word = ``hi << 32 | lo``
  from the second and first word).
* ``pytorch``: Mersenne Twister (mt19937, ``init_genrand(global_seed & 0xffffffff)``;
  ``op_seed`` unused), one 32-bit draw per element (two for f64, and for i64 unless both
  bounds fit u32): f32 ``(w & 2**24-1) * 2**-24``, f16 11 bits, bf16 8 bits (computed
  in f32, rounded once), f64 53 bits of ``w0 << 32 | w1``; then ``* (max - min) + min``.

Both seeds 0 make OpenVINO's reference nondeterministic: it seeds with
``srand(time(0)); global_seed = rand()``.  ovonehot then draws a fresh global seed in
``[0, 2**31)`` from the operating system for each run, so two runs differ, as in
OpenVINO; give a non-zero seed for reproducible values.

OpenVINO's op keeps a state: in ``tensorflow`` alignment each later ``evaluate`` (and
each later inference of a compiled CPU model) continues the sequence.  ovonehot
computes every run as the first one, what a freshly compiled model returns.  With
constant inputs the op folds like any other: ``read_model`` evaluates it when a shape
depends on its value (a OneHot depth taken from it is the first sequence's value), so
ovonehot infers what ``read_model`` of the file does.  (OpenVINO's own node keeps
advancing meanwhile: the IR ``save_model`` writes declares later values, and compiling
such a model crashed the 2026.4 CPU plugin.)
"""

from __future__ import annotations

import enum
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import element_type_attr, enum_attr, int_attr
from .common.bf16 import openvino_bf16
from .common.shape_util import input_bounds
from .common.spec import OpSpec, TensorInfo


class Alignment(enum.Enum):
    TENSORFLOW = "tensorflow"
    PYTORCH = "pytorch"


@dataclass(frozen=True, slots=True)
class RandomUniformAttrs:
    output_type: ElementType
    global_seed: int = 0
    op_seed: int = 0
    alignment: Alignment = Alignment.TENSORFLOW


def parse_random_uniform(node: Node) -> RandomUniformAttrs:
    return RandomUniformAttrs(
        element_type_attr(node, "output_type"),
        int_attr(node, "global_seed", 0) % 2**64,  # u64 attributes: -1 is 2**64-1, as a C++ cast gives
        int_attr(node, "op_seed", 0) % 2**64,
        enum_attr(node, "alignment", Alignment, Alignment.TENSORFLOW),
    )


_ET = ElementType
_GENERATED = (_ET.f32, _ET.f16, _ET.bf16, _ET.f64, _ET.i32, _ET.i64)


def infer_random_uniform(attrs: RandomUniformAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    shape_in, min_in, max_in = inputs
    if not (shape_in.element_type.is_dynamic or shape_in.element_type in (_ET.i32, _ET.i64)):
        raise ValidationError("Type of the input should be int32 or int64.")
    if min_in.element_type is not max_in.element_type:
        raise ValidationError("'min_val' should have the same type as 'max_val'.")
    out_et = attrs.output_type
    if not ((out_et.is_real or out_et in (_ET.i32, _ET.i64)) and out_et is min_in.element_type):
        raise ValidationError("'min_val' and 'max_val' should have the same type as 'out_type' attribute.")
    if shape_in.shape.rank_is_static and shape_in.shape.rank != 1:
        raise ValidationError("The rank of the tensor defining output shape must be equal to 1.")
    for what, info in (("Min", min_in), ("Max", max_in)):
        s = info.shape
        if s.rank_is_static and not (s.rank == 0 or (s.rank == 1 and s[0].contains(1))):
            raise ValidationError(f"{what} value must be a scalar or one element 1D tensor.")
    if min_in.value is not None and max_in.value is not None:
        _check_range(np.asarray(min_in.value), np.asarray(max_in.value))
    return [TensorInfo(out_et, _output_shape(shape_in))]


def _check_range(lo: np.ndarray, hi: np.ndarray) -> None:
    a, b = lo.reshape(-1)[0], hi.reshape(-1)[0]
    if not float(a) < float(b):  # OpenVINO compares the values read as double
        raise ValidationError(f"Min value must be less than max value. Got min value: {a}, max value: {b}")


def _output_shape(shape_in: TensorInfo) -> PartialShape:
    bounds = input_bounds(shape_in)
    if bounds is not None:
        # get_input_const_data_as_shape: -1 and "unbounded" are '?', other negatives clip to 0.
        return PartialShape(tuple(_dim(lo, hi) for lo, hi in bounds))
    s = shape_in.shape
    if s.rank_is_static and s.rank == 1 and s[0].max is not None:
        return PartialShape((Dimension(),) * s[0].max)
    return PartialShape.dynamic()


def _dim(lo: int, hi: int) -> Dimension:
    if lo == hi:
        return Dimension() if lo == -1 else Dimension.static(max(lo, 0))
    top = None if hi < 0 or hi == 2**63 - 1 else hi
    return Dimension(max(lo, 0), top)


# -- the generators --------------------------------------------------------------------------
_PHILOX_M = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_LOW32 = np.uint64(0xFFFFFFFF)


def philox_words(blocks: int, global_seed: int, op_seed: int) -> np.ndarray:
    """Philox4x32-10 on counters n = 0..blocks-1: a ``(blocks, 4)`` uint32 array."""
    n = np.arange(blocks, dtype=np.uint64)
    c0, c1 = n & _LOW32, n >> np.uint64(32)
    c2 = np.full(blocks, op_seed & 0xFFFFFFFF, np.uint64)
    c3 = np.full(blocks, op_seed >> 32, np.uint64)
    k0, k1 = global_seed & 0xFFFFFFFF, global_seed >> 32
    for _ in range(10):
        p0, p1 = c0 * _PHILOX_M[0], c2 * _PHILOX_M[1]
        c0, c1, c2, c3 = (
            (p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
            p1 & _LOW32,
            (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
            p0 & _LOW32,
        )
        k0, k1 = (k0 + _PHILOX_W[0]) & 0xFFFFFFFF, (k1 + _PHILOX_W[1]) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def mt19937_words(count: int, seed: int) -> np.ndarray:
    """The first ``count`` outputs of mt19937 seeded by ``init_genrand(seed)``, as uint32."""
    state = [seed & 0xFFFFFFFF]
    for j in range(1, 624):
        prev = state[-1]
        state.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": np.array(state, np.uint32), "pos": 624}}
    return generator.random_raw(count).astype(np.uint32)


def _bf16(x: np.ndarray) -> np.ndarray:
    return openvino_bf16(np.asarray(x, np.float32)).astype(np.float32)


def _scale_tensorflow(unit: np.ndarray, et: ElementType, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``unit * (max - min) + min`` in the output type's arithmetic (OpenVINO's f16/bf16 round per op)."""
    if et is _ET.f16:
        span = np.float16(hi - lo)
        half: np.ndarray = ((unit * span).astype(np.float16) + lo).astype(np.float16)
        return half
    if et is _ET.bf16:
        span = _bf16(np.float32(hi) - np.float32(lo))
        return openvino_bf16(_bf16(unit * span) + np.float32(lo))
    out: np.ndarray = unit * (hi - lo) + lo
    return out


def _tensorflow(
    count: int, et: ElementType, lo: np.ndarray, hi: np.ndarray, seeds: tuple[int, int]
) -> np.ndarray:
    wide = et in (_ET.f64, _ET.i64)
    words = philox_words(-(-count // (2 if wide else 4)), *seeds).reshape(-1)
    if wide:
        first, second = words[0::2].astype(np.uint64), words[1::2].astype(np.uint64)
    if et is _ET.f32:
        unit = ((words & 0x7FFFFF) | (127 << 23)).view(np.float32) - np.float32(1)
        out = _scale_tensorflow(unit, et, lo, hi)
    elif et is _ET.f16:
        unit = ((words & 0x3FF) | (15 << 10)).astype(np.uint16).view(np.float16) - np.float16(1)
        out = _scale_tensorflow(unit, et, lo, hi)
    elif et is _ET.bf16:
        unit = (((words & 0x7F) | (127 << 7)) << 16).view(np.float32) - np.float32(1)
        out = _scale_tensorflow(unit, et, lo, hi)
    elif et is _ET.f64:
        bits = ((first & np.uint64(0xFFFFF)) << np.uint64(32)) | second | np.uint64(1023 << 52)
        out = bits.view(np.float64) - 1.0
        out = _scale_tensorflow(out, et, lo, hi)
    elif et is _ET.i32:
        span = np.uint32((int(hi) - int(lo)) % 2**32)
        out = ((words % span) + np.uint32(int(lo) % 2**32)).view(np.int32)
    else:  # i64
        span64 = np.uint64((int(hi) - int(lo)) % 2**64)
        joined = (second << np.uint64(32)) | first
        out = ((joined % span64) + np.uint64(int(lo) % 2**64)).view(np.int64)
    return out[:count]


def _pytorch(count: int, et: ElementType, lo: np.ndarray, hi: np.ndarray, seed: int) -> np.ndarray:
    narrow_i64 = et is _ET.i64 and int(lo) <= 2**32 - 1 and int(hi) <= 2**32 - 1
    pairs = et in (_ET.f64, _ET.i64) and not narrow_i64
    words = mt19937_words(count * (2 if pairs else 1), seed)
    if pairs:
        joined = (words[0::2].astype(np.uint64) << np.uint64(32)) | words[1::2].astype(np.uint64)
    out: np.ndarray
    if et is _ET.f32:
        unit = (words & (2**24 - 1)).astype(np.float32) * np.float32(2.0**-24)
        out = unit * (hi - lo) + lo
    elif et is _ET.f16:
        unit = (words & (2**11 - 1)).astype(np.float32) * np.float32(2.0**-11)
        out = (unit * np.float32(np.float16(hi - lo)) + np.float32(lo)).astype(np.float16)
    elif et is _ET.bf16:
        unit = (words & 255).astype(np.float32) * np.float32(2.0**-8)
        out = openvino_bf16(unit * _bf16(np.float32(hi) - np.float32(lo)) + np.float32(lo))
    elif et is _ET.f64:
        unit = (joined & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53
        out = unit * (hi - lo) + lo
    elif et is _ET.i32:
        span = np.uint32((int(hi) - int(lo)) % 2**32)
        out = ((words % span) + np.uint32(int(lo) % 2**32)).view(np.int32)
    else:  # i64: a signed remainder (C's %, truncating) of the one word, or the unsigned one of the pair
        span_i = (int(hi) - int(lo) + 2**63) % 2**64 - 2**63  # int64 subtraction, wrapping
        if narrow_i64:
            out = np.fmod(words.astype(np.int64), np.int64(span_i)) + np.int64(lo)
        else:
            out = ((joined % np.uint64(span_i % 2**64)) + np.uint64(int(lo) % 2**64)).view(np.int64)
    return out


def evaluate_random_uniform(attrs: RandomUniformAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    shape_arr, lo_arr, hi_arr = (np.asarray(a) for a in inputs)
    et = attrs.output_type
    if et not in _GENERATED:
        raise InputError(
            f"Unsupported type of RandomUniform: {et} (OpenVINO generates {', '.join(map(str, _GENERATED))})"
        )
    if lo_arr.size != 1 or hi_arr.size != 1:
        raise InputError("Min and max values must hold one element each")
    _check_range_at_run(lo_arr, hi_arr)
    dims = [max(int(v), 0) for v in shape_arr.reshape(-1)]
    count = math.prod(dims)
    dtype = numpy_dtype_of(et)
    lo, hi = lo_arr.reshape(-1)[0], hi_arr.reshape(-1)[0]
    global_seed, op_seed = attrs.global_seed, attrs.op_seed
    if global_seed == 0 and op_seed == 0:  # nondeterministic, as OpenVINO's srand(time) / rand()
        global_seed = secrets.randbelow(2**31)
    if count == 0:
        return [np.zeros(dims, dtype)]
    with np.errstate(over="ignore", invalid="ignore"):  # a span past the type's range is inf, as in C++
        if attrs.alignment is Alignment.TENSORFLOW:
            flat = _tensorflow(count, et, lo, hi, (global_seed, op_seed))
        else:
            flat = _pytorch(count, et, lo, hi, global_seed)
    # (np.asarray, not np.ascontiguousarray, which makes a 0-d output 1-d)
    return [np.asarray(flat.astype(dtype, copy=False).reshape(dims), order="C")]


def _check_range_at_run(lo: np.ndarray, hi: np.ndarray) -> None:
    try:
        _check_range(lo, hi)
    except ValidationError as exc:
        raise InputError(str(exc)) from None


SPECS = (
    OpSpec(
        type="RandomUniform",
        version=8,
        since=8,
        inputs=3,
        parse=parse_random_uniform,
        infer=infer_random_uniform,
        evaluate=evaluate_random_uniform,
        deterministic=False,
    ),
)
