"""Rounding to bf16: IEEE round-to-nearest-even, and OpenVINO's reference rounding as a named mode.

Every bf16 value ovonehot produces (Convert, and every kernel that computes a bf16 result in f32
and rounds it back) goes through :func:`to_bf16`.  By default it rounds as IEEE 754 says, as the
CPU plugin does at run time and as ONNX's Cast expects: to nearest, ties to even, overflowing to
inf only where the rounded value does, NaN staying a NaN (quieted, sign and top payload bits
kept: ``0x7FA00000`` -> ``0x7FE0``, what the CPU plugin gives).  OpenVINO's bfloat16 header
names its rounding mode ``ROUND_MODE_TO_NEAREST_EVEN`` too, but its function computes
``(bits + ((bits & 0x10000) >> 1)) >> 16``, which truncates whenever the kept last bit is even
(``0x3F80C000`` -> ``0x3F80``, not ``0x3F81``), turns a NaN whose payload lies in the low 16
bits into inf and ``0x7FFFFFFF`` into -0.0.  That is a known deviation of the reference
(``bf16-reference-rounding``, docs/openvino-behaviour.md); :func:`bf16_rounding` switches to
it so :mod:`ovonehot.differential.deviations` can predict the reference's outputs (and the
constants OpenVINO folds with it) with ovonehot's own kernels.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ...types import ElementType, numpy_dtype_of


class Bf16Rounding(enum.Enum):
    NEAREST_EVEN = "nearest-even"  # IEEE 754 (the CPU plugin, ONNX): ovonehot's semantics
    OPENVINO_REFERENCE = "openvino-reference"  # (bits + ((bits & 0x10000) >> 1)) >> 16


_ROUNDING: ContextVar[Bf16Rounding] = ContextVar("bf16_rounding", default=Bf16Rounding.NEAREST_EVEN)


@contextmanager
def bf16_rounding(mode: Bf16Rounding) -> Iterator[None]:
    """Within the block (this thread or task only), every bf16 ovonehot produces rounds by ``mode``."""
    token = _ROUNDING.set(mode)
    try:
        yield
    finally:
        _ROUNDING.reset(token)


def current_bf16_rounding() -> Bf16Rounding:
    return _ROUNDING.get()


_QUIET = np.uint32(0x00400000)


def to_bf16(x: np.ndarray) -> np.ndarray:
    """``x`` (any real or integer type) rounded to bf16 by the current :class:`Bf16Rounding`.

    Nearest-even rounds once from the exact value: an f64 (or a 32/64-bit integer) is first
    narrowed to f32 rounding to odd (truncate, then set the last bit when inexact), which f32's 16 spare bits make exact for
    the rounding to bf16 that follows.  OpenVINO's reference goes through the nearest f32
    (``static_cast<float>``), then its own formula.
    """
    x = np.asarray(x)
    mode = _ROUNDING.get()
    with np.errstate(all="ignore"):
        if mode is Bf16Rounding.NEAREST_EVEN and (
            x.dtype == np.float64 or (x.dtype.kind in "iu" and x.dtype.itemsize >= 4)
        ):  # (32/64-bit integers through f64: exact up to 2**53)
            f32 = _f64_to_f32_round_to_odd(x.astype(np.float64))
        else:
            f32 = np.ascontiguousarray(x.astype(np.float32))
    bits = f32.reshape(-1).view(np.uint32).astype(np.uint64)
    if mode is Bf16Rounding.OPENVINO_REFERENCE:
        rounded = (bits + ((bits & 0x10000) >> 1)) >> 16
    else:
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # ties to even; carries into the exponent
        nan = np.isnan(f32.reshape(-1))
        rounded[nan] = (bits[nan] | _QUIET) >> 16  # truncated payload, quiet bit set
    bf16 = numpy_dtype_of(ElementType.bf16)
    # (a 0-d input gives a 1-d view above: give the result x's shape back)
    return rounded.astype(np.uint16).reshape(x.shape).view(bf16)


def _f64_to_f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding to odd (NaN and inf as the hardware converts them)."""
    nearest = np.ascontiguousarray(x.astype(np.float32))
    finite = np.isfinite(x)
    away = finite & (np.abs(nearest.astype(np.float64)) > np.abs(x))  # rounded up in magnitude
    truncated = np.where(away, np.nextafter(nearest, np.float32(0)), nearest).astype(np.float32)
    inexact = finite & (truncated.astype(np.float64) != x)
    bits = np.ascontiguousarray(truncated).view(np.uint32)
    bits[inexact] |= np.uint32(1)
    return bits.view(np.float32)


def openvino_bf16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bf16 the way OpenVINO's ``bfloat16`` type rounds, whatever the current
    mode: for the kernels where the CPU plugin computes with that type too, so the plugin and the
    reference agree (RandomUniform's bf16 arithmetic, measured bit for bit)."""
    with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE):
        return to_bf16(x)
