"""More element-wise ops real exports put around OneHot: trigonometry, rounding and activations.

Sin, Cos, Tan, Atan (opset1), Round-5, SoftPlus-4, Gelu-2/7, Swish-4, Elu-1, HSigmoid-5,
HSwish-4, Mish-4, PRelu-1, HardSigmoid-1, Selu-1 and SoftSign-9 (ONNX's activations): positional encodings (``torch.sin``), ``torch.round`` before
an ``F.one_hot``, GELU/SiLU/ELU/Mish layers of small models that embed one-hot inputs,
``F.leaky_relu`` (PRelu with a constant slope).

Types follow OpenVINO: the trigonometric ops take any number (``UnaryElementwiseArithmetic``;
integers get ``std::round`` of the double result, as Tanh and Erf in ``unary.py``);
Round takes numbers and is the identity on integers; SoftPlus, Gelu, Swish, Elu,
HSigmoid, HSwish and Mish want a real type; PRelu a number.  The output keeps the
input's type and shape (PRelu: the data's).

Values follow the core reference (``src/core/reference/include/openvino/reference/*.hpp``):

* SoftPlus, Swish, Mish, HSigmoid and HSwish repeat the reference's steps in the
  working type (f32 for f32/f16/bf16, f64 for f64): ``exp``/``log``/``tanh`` are the
  float64 results rounded once (glibc's ``expf``/``logf`` are correctly rounded on
  nearly every input), additions and divisions are IEEE operations in that type, so
  ``SoftPlus(-20)`` is 0 (``exp(-20) + 1`` rounds to 1) and ``Swish(-104)`` is -0;
  SoftPlus passes ``x`` through from ``log(max of T)`` up;
* Sin, Cos, Tan, Atan and Gelu compute the formula in float64 and round once (1-2 ulp
  from libm's float functions, stated in the tests);
* integers: Cos, Tan and Atan round the double result half away from zero; Sin
  truncates (the reference's integer Sin is ``static_cast<T>(std::sin(x))``, so it is 0
  for every integer -- the CPU plugin rounds instead);
* f16/bf16 are evaluated in f32 and rounded at the end.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..scratch import Scratch, scratch
from ..types import ElementType
from .common.attrs import NoAttrs, enum_attr, float_attr, parse_no_attrs
from .common.binding import PLAIN_FLOATS, dtype_of, folded, typed, with_attrs
from .common.numeric import c_cast, is_float, libm, narrow, quiet, round_half_away, select, widen
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo
from .unary import infer_unary

F64Kernel = Callable[[np.ndarray], np.ndarray]


def f64_then_round(
    fn: F64Kernel, integers: Callable[[np.ndarray], np.ndarray] | None = round_half_away
) -> Callable[[object, Sequence[np.ndarray]], list[np.ndarray]]:
    """Evaluate ``fn`` on float64 and round to the input type (integers: ``integers(y)``, then cast)."""

    def evaluate(attrs: object, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        with quiet():
            y = fn(widen(x).astype(np.float64))
            if is_float(x.dtype):
                out = y if x.dtype == np.float64 else y.astype(np.float32)
                return [narrow(np.asarray(out), x.dtype)]
            if integers is None:
                raise InputError(f"takes real numbers, got {x.dtype}")
            return [c_cast(integers(y), x.dtype)]

    return evaluate


def _in_working_type(fn: F64Kernel) -> Callable[[object, Sequence[np.ndarray]], list[np.ndarray]]:
    """Run ``fn`` on the working type (f32, or f64 for f64 data) and round to the element type."""

    def evaluate(attrs: object, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(inputs[0])
        if not is_float(x.dtype):
            raise InputError(f"takes real numbers, got {x.dtype}")
        with quiet():
            out = fn(widen(x))
        return [narrow(np.asarray(out), x.dtype)]

    return evaluate


def _libm(name: str, w: np.ndarray) -> np.ndarray:
    """``std::exp/log/tanh`` in ``w``'s type: the float64 result, rounded once for f32."""
    if w.dtype == np.float64:
        return libm(name, w) if name != "tanh" else np.tanh(w)
    fn = {"exp": np.exp, "log": np.log, "tanh": np.tanh}[name]
    return fn(w.astype(np.float64)).astype(np.float32)


def infer_real_unary(attrs: object, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if not (x.element_type.is_dynamic or x.element_type.is_real):
        raise ValidationError(f"Input element type must be float. Got: {x.element_type}")
    return [TensorInfo(x.element_type, x.shape)]


# -- Round-5 ----------------------------------------------------------------------------------
class RoundMode(enum.Enum):
    HALF_TO_EVEN = "half_to_even"
    HALF_AWAY_FROM_ZERO = "half_away_from_zero"


class GeluApproximation(enum.Enum):
    ERF = "ERF"
    TANH = "TANH"


@dataclass(frozen=True, slots=True)
class RoundAttrs:
    half_to_even: bool


def parse_round(node: Node) -> RoundAttrs:
    return RoundAttrs(enum_attr(node, "mode", RoundMode) is RoundMode.HALF_TO_EVEN)


def evaluate_round(attrs: RoundAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if not is_float(x.dtype):
        return [x.copy()]
    w = widen(x)
    with quiet():
        out = np.rint(w) if attrs.half_to_even else round_half_away(w)
    return [narrow(np.asarray(out).astype(w.dtype), x.dtype)]


def infer_round(attrs: RoundAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if x.element_type in (ElementType.boolean, ElementType.string):
        raise ValidationError(f"Only numeric element type is supported. Got: {x.element_type}")
    return [TensorInfo(x.element_type, x.shape)]


# -- activations with float64 formulas -----------------------------------------------------------
def _softplus(w: np.ndarray) -> np.ndarray:
    threshold = w.dtype.type(np.log(np.finfo(w.dtype).max))
    one = w.dtype.type(1)
    return np.where(w < threshold, _libm("log", _libm("exp", w) + one), w)


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    # C's erf per element (NumPy has none), through a list: 3x faster than np.vectorize
    scaled = (x / math.sqrt(2.0)).ravel().tolist()
    erf = np.fromiter(map(math.erf, scaled), np.float64, x.size).reshape(x.shape)
    return 0.5 * x * (1.0 + erf)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _gelu_tanh_of_f32(x: np.ndarray) -> np.ndarray:
    """``_gelu_tanh`` of f32 values (held in f64): x * x is exact then, so x * x * x is x**3
    rounded once, as the reference's ``std::pow(x, 3)`` gives it; NumPy's ``x**3`` is a SIMD
    power 100x slower and an ulp off for a few percent of values (never seen to change the
    f32 result)."""
    out: np.ndarray = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))))
    return out


def _clip3(w: np.ndarray) -> np.ndarray:
    t = w.dtype.type
    out: np.ndarray = np.minimum(np.maximum(w + t(3), t(0)), t(6))
    return out


def _hsigmoid(w: np.ndarray) -> np.ndarray:
    out: np.ndarray = _clip3(w) / w.dtype.type(6)
    return out


def _hswish(w: np.ndarray) -> np.ndarray:
    out: np.ndarray = (w * _clip3(w)) / w.dtype.type(6)
    return out


def _mish(w: np.ndarray) -> np.ndarray:
    one = w.dtype.type(1)
    out: np.ndarray = w * _libm("tanh", _libm("log", _libm("exp", w) + one))
    return out


# -- Gelu -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GeluAttrs:
    tanh: bool = False


def parse_gelu_2(node: Node) -> GeluAttrs:
    return GeluAttrs(False)


def parse_gelu_7(node: Node) -> GeluAttrs:
    mode = enum_attr(node, "approximation_mode", GeluApproximation, GeluApproximation.ERF)
    return GeluAttrs(mode is GeluApproximation.TANH)


def evaluate_gelu(attrs: GeluAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if not attrs.tanh:
        return f64_then_round(_gelu_erf, integers=None)(attrs, inputs)
    f32_values = np.asarray(inputs[0]).dtype != np.float64
    return f64_then_round(_gelu_tanh_of_f32 if f32_values else _gelu_tanh, integers=None)(attrs, inputs)


def bind_gelu(attrs: GeluAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
    """f32/f64 Gelu of a static rank above 0: ``evaluate_gelu``'s formula and rounding without
    its conversions and checks."""
    dtype = dtype_of(inputs[0])
    if dtype not in PLAIN_FLOATS or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
        return None
    wide = dtype == np.float64
    fn = _gelu_tanh if wide else _gelu_tanh_of_f32
    fn = fn if attrs.tanh else _gelu_erf

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        y = fn(values[0].astype(np.float64))
        return [y if wide else y.astype(np.float32)]

    return kernel


# Values a fast Gelu works on at once: its two dozen passes then stay in a core's L2 cache (3x
# faster than passes over a whole 600 KB tensor, measured on a ViT's MLP).
GELU_BLOCK = 1 << 15


def evaluate_gelu_fast(attrs: GeluAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) f32 Gelu (erf mode): ``x/2 * (1 + erf(x/sqrt 2))`` in f32, with
    ``1 + erf`` as ``erfc(|z|)`` below 0 and ``2 - erfc(|z|)`` above (no cancellation), erfc by
    ``_erfc_block`` (a few f32 ulp from the exact kernel's C ``erf`` per element, which is slow:
    within ``ulp(y) + 2^-24 max(1, |x|)`` of Gelu, tests/test_gelu_fast.py), ``GELU_BLOCK``
    values at a time; the tanh mode by ``_gelu_tanh_block``; other types take ``evaluate_gelu``."""
    x = np.asarray(inputs[0])
    if x.dtype != np.float32 or x.ndim == 0:
        return evaluate_gelu(attrs, inputs)
    if not attrs.tanh and x.size <= GELU_SMALL:
        with quiet():
            return [_gelu_small(x)]
    out = np.empty(x.shape, np.float32)
    flat, into = x.reshape(-1), out.reshape(-1)
    buffers = scratch()
    block = _gelu_tanh_block if attrs.tanh else _gelu_block
    with quiet():
        for lo in range(0, flat.size, GELU_BLOCK):
            block(flat[lo : lo + GELU_BLOCK], into[lo : lo + GELU_BLOCK], buffers)
    return [out]


# Up to this many values, erf mode runs ``_gelu_small``: the same operations on fresh arrays,
# whose NumPy calls cost less than ``out=`` ones and scratch buffers on a few values (a tiny
# BERT's Gelu: 30 us against 56).
GELU_SMALL = 8192


def _gelu_small(x: np.ndarray) -> np.ndarray:
    """``_gelu_block``'s steps on fresh arrays (the same operations in the same order, so the
    same bits: tests/test_gelu_fast.py compares a tensor's values with each value's alone)."""
    z = np.multiply(x, np.float32(1 / math.sqrt(2.0)))
    az = np.abs(z)
    p = np.empty_like(az)
    _erfc_block(az, np.empty_like(az), p)
    factor: np.ndarray = select(z < 0, p, np.float32(2) - p)
    factor *= np.multiply(x, np.float32(0.5))
    return factor


_TANH_SCALE = np.float32(math.sqrt(2.0 / math.pi))


def _gelu_tanh_block(x: np.ndarray, out: np.ndarray, buffers: Scratch) -> None:
    """Gelu's tanh approximation of the f32 values ``x`` into ``out``, in f32: the exact
    kernel's formula ``x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` step by step with
    NumPy's f32 tanh (9x faster than through float64; tests/test_gelu_fast.py's bound)."""
    t = buffers.take("gelu.t", x.shape, np.float32)
    np.multiply(x, x, out=out)
    out *= x
    out *= np.float32(0.044715)
    out += x
    out *= _TANH_SCALE
    np.tanh(out, out=out)
    out += np.float32(1)
    np.multiply(x, np.float32(0.5), out=t)
    out *= t


def _gelu_block(x: np.ndarray, out: np.ndarray, buffers: Scratch) -> None:
    """``evaluate_gelu_fast`` of the f32 values ``x`` into ``out`` (this thread's scratch buffers)."""
    a = buffers.take("gelu.a", x.shape, np.float32)
    t = buffers.take("gelu.t", x.shape, np.float32)
    below = buffers.take("gelu.below", x.shape, np.bool_)
    mask = buffers.take("gelu.mask", x.shape, np.int32)
    np.multiply(x, np.float32(1 / math.sqrt(2.0)), out=a)  # z
    np.less(a, np.float32(0), out=below)
    np.abs(a, out=a)
    _erfc_block(a, t, out)  # erfc(|z|)
    np.subtract(np.float32(2), out, out=t)  # 1 + erf(z): 2 - erfc(|z|) above 0, erfc(|z|) below,
    np.subtract(0, below, out=mask, dtype=np.int32)  # picked by a mask of all ones (``select``'s way:
    bits, picked = t.view(np.int32), out.view(np.int32)  # np.copyto's ``where`` is 40x slower)
    np.bitwise_xor(picked, bits, out=picked)
    np.bitwise_and(picked, mask, out=picked)
    np.bitwise_xor(picked, bits, out=picked)
    np.multiply(x, np.float32(0.5), out=t)  # x / 2 first (exact but below 2^-125): 2 * x would
    out *= t  # overflow for x above 1.7e38, where Gelu(x) = x


# Numerical Recipes' erfcc: erfc(z) = t exp(-z^2 - 1.26551223 + t P(t)), t = 1 / (1 + z / 2), z >= 0,
# within 1.2e-7 of erfc relatively everywhere (measured: 1.04e-7 against math.erfc on [0, 12]).
_ERFC_P = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
           1.00002368)  # fmt: skip


def _erfc_block(az: np.ndarray, t: np.ndarray, p: np.ndarray) -> None:
    """erfc of the non-negative f32 values ``az`` (NaN stays NaN) into ``p``, in f32; ``t`` is
    scratch and ``az`` is overwritten (its square)."""
    np.multiply(az, np.float32(0.5), out=t)
    t += np.float32(1)
    np.reciprocal(t, out=t)
    np.multiply(t, np.float32(_ERFC_P[0]), out=p)
    for c in _ERFC_P[1:]:
        p += np.float32(c)
        p *= t
    p -= np.float32(1.26551223)
    np.square(az, out=az)
    p -= az
    np.exp(p, out=p)
    p *= t


def specialize_gelu(
    attrs: GeluAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``bind_gelu`` (``evaluate_gelu``'s values).  Fast: ``evaluate_gelu_fast`` (the same
    for every plan)."""
    return bind_gelu(attrs, inputs, outputs) if mode.exact else with_attrs(evaluate_gelu_fast, attrs)


# -- Swish-4 (optional beta input) ------------------------------------------------------------
def infer_swish(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    x = inputs[0]
    (out,) = infer_real_unary(attrs, [x])
    if len(inputs) == 2:
        beta = inputs[1]
        if beta.shape.rank_is_static and beta.shape.rank != 0:
            raise ValidationError(f"Swish input with beta must be scalar. Got: {beta.shape}")
        if x.element_type.merge(beta.element_type) is None:
            raise ValidationError(
                f"Swish inputs must have the same type but they are: {x.element_type} and {beta.element_type}"
            )
    return [out]


def evaluate_swish(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    # The reference: arg / (1.0 + std::exp(-arg * beta)): exp in T, the division in double.
    x = np.asarray(inputs[0])
    beta = widen(np.asarray(inputs[1])) if len(inputs) == 2 else None

    def swish(w: np.ndarray) -> np.ndarray:
        b = w.dtype.type(1) if beta is None else beta.astype(w.dtype)
        e = _libm("exp", -w * b)
        return (w.astype(np.float64) / (1.0 + e.astype(np.float64))).astype(w.dtype)

    return _in_working_type(swish)(attrs, [x])


def bind_swish(attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
    """f32 Swish (beta absent or folded): ``evaluate_swish``'s steps with beta read once."""
    if dtype_of(inputs[0]) != np.float32 or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
        return None
    beta = np.float32(1) if len(inputs) == 1 else folded(inputs[1])
    if beta is None or np.asarray(beta).dtype != np.float32:
        return None
    b = np.asarray(beta).astype(np.float32)
    # Beta 1: ``-w * 1`` is ``-w``, negated after the (exact) widening, and the division
    # written over the denominator: the same bits in fewer NumPy calls (tests/test_kernel_trims.py).
    unit = b.shape == () and b.tobytes() == np.float32(1).tobytes()

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        if unit:
            wide = w.astype(np.float64)
            denominator = np.exp(np.negative(wide)).astype(np.float32).astype(np.float64)
            denominator += 1.0
            return [np.divide(wide, denominator, out=denominator).astype(np.float32)]
        e = np.exp((-w * b).astype(np.float64)).astype(np.float32)
        return [(w.astype(np.float64) / (1.0 + e.astype(np.float64))).astype(np.float32)]

    return kernel


def evaluate_swish_fast(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) f32 Swish: ``x / (1 + exp(-x * beta))`` all in f32 with NumPy's own
    ``exp`` (a few ulp from the exact kernel's f64 steps); every other type takes ``evaluate_swish``."""
    x = np.asarray(inputs[0])
    beta = np.asarray(inputs[1]) if len(inputs) == 2 else np.ones((), np.float32)
    if x.dtype != np.float32 or beta.dtype != np.float32 or beta.ndim != 0:
        return evaluate_swish(attrs, inputs)
    with quiet():
        t = np.multiply(x, np.negative(beta), dtype=np.float32)
        np.exp(t, out=t)
        np.add(t, np.float32(1), out=t)
        np.divide(x, t, out=t)
    return [t]


def specialize_swish(
    attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``bind_swish``.  Fast: ``evaluate_swish_fast`` (the same for every plan)."""
    if mode.exact:
        return bind_swish(attrs, inputs, outputs) if typed(inputs, outputs) else None
    return with_attrs(evaluate_swish_fast, attrs)


# -- Elu (attribute alpha) -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EluAttrs:
    alpha: float


def parse_elu(node: Node) -> EluAttrs:
    return EluAttrs(float_attr(node, "alpha"))


def infer_elu(attrs: EluAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if x.element_type in (ElementType.boolean, ElementType.string):
        raise ValidationError(f"Argument element type must be numeric. Got: {x.element_type}")
    return [TensorInfo(x.element_type, x.shape)]


def evaluate_elu(attrs: EluAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    # ``x < 0 ? alpha * (std::exp(x) - 1) : x``: exp and the subtraction in T, the product in double.
    x = np.asarray(inputs[0])
    if not is_float(x.dtype):
        with quiet():
            w = x.astype(np.float64)
            return [c_cast(np.where(w < 0, attrs.alpha * (np.exp(w) - 1.0), w), x.dtype)]

    def elu(w: np.ndarray) -> np.ndarray:
        e = _libm("exp", w) - w.dtype.type(1)
        return np.where(w < 0, (attrs.alpha * e.astype(np.float64)).astype(w.dtype), w)

    return _in_working_type(elu)(attrs, [x])


# -- PRelu -------------------------------------------------------------------------------------
def infer_prelu(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    x, slope = inputs
    et = x.element_type.merge(slope.element_type)
    if et is None:
        raise ValidationError(
            f"Argument element types are inconsistent: {x.element_type} and {slope.element_type}"
        )
    if et in (ElementType.boolean, ElementType.string):
        raise ValidationError(f"Argument element type must be numeric. Got: {et}")
    return [TensorInfo(et, x.shape)]


def prelu_slope(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """The slope laid out against ``x``: a 1-D slope as long as the channel axis (1) runs along it."""
    if slope.ndim == 1 and x.ndim >= 2 and slope.size == x.shape[1] and slope.size != 1:
        return slope.reshape((1, slope.size) + (1,) * (x.ndim - 2))
    return slope


def evaluate_prelu(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, slope = (np.asarray(a) for a in inputs)
    s = prelu_slope(x, slope)
    try:
        np.broadcast_shapes(x.shape, s.shape)
    except ValueError:
        raise InputError(
            f"slope shape {list(slope.shape)} does not broadcast to data {list(x.shape)}"
        ) from None
    wx, ws = widen(x), widen(s)
    with quiet():
        out = np.where(wx < 0, wx * ws, wx)
    return [narrow(np.asarray(out).astype(wx.dtype), x.dtype).reshape(x.shape)]


# -- HardSigmoid-1, Selu-1 (scalar parameters as inputs), SoftSign-9 ----------------------------
def infer_parametrized(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    x = inputs[0]
    (out,) = infer_real_unary(attrs, [x])
    for k, p in enumerate(inputs[1:], start=1):
        if x.element_type.merge(p.element_type) is None:
            raise ValidationError(
                f"The element type of input {k} ({p.element_type}) must match the data's ({x.element_type})"
            )
        if p.shape.rank_is_static and p.shape.is_static and math.prod(p.shape.to_shape()) != 1:
            raise ValidationError(f"Input {k} must be a scalar or hold one element. Got: {p.shape}")
    return [out]


def _scalar(a: np.ndarray, w: np.ndarray) -> np.floating:
    s: np.floating = widen(np.asarray(a)).astype(w.dtype).reshape(-1)[0]
    return s


def evaluate_hard_sigmoid(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    # max(0, min(1, alpha * x + beta)) in the working type
    def fn(w: np.ndarray) -> np.ndarray:
        t = w.dtype.type
        alpha, beta = _scalar(inputs[1], w), _scalar(inputs[2], w)
        out: np.ndarray = np.maximum(t(0), np.minimum(t(1), alpha * w + beta))
        return out

    return _in_working_type(fn)(attrs, inputs[:1])


def evaluate_selu(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    # x > 0 ? lambda * x : alpha * lambda * (exp(x) - 1), in the working type
    def fn(w: np.ndarray) -> np.ndarray:
        alpha, lam = _scalar(inputs[1], w), _scalar(inputs[2], w)
        out: np.ndarray = np.where(w > 0, lam * w, alpha * lam * (_libm("exp", w) - w.dtype.type(1)))
        return out

    return _in_working_type(fn)(attrs, inputs[:1])


def _softsign(w: np.ndarray) -> np.ndarray:
    out: np.ndarray = w / (w.dtype.type(1) + np.abs(w))
    return out


SPECS = (
    OpSpec(
        type="Sin",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.sin, np.trunc),
    ),
    OpSpec(
        type="Cos",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.cos),
    ),
    OpSpec(
        type="Tan",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.tan),
    ),
    OpSpec(
        type="Atan",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.arctan),
    ),
    OpSpec(
        type="Round",
        version=5,
        since=5,
        inputs=1,
        parse=parse_round,
        infer=infer_round,
        evaluate=evaluate_round,
    ),
    OpSpec(
        type="SoftPlus",
        version=4,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_real_unary,
        evaluate=_in_working_type(_softplus),
    ),
    OpSpec(
        type="Gelu",
        version=2,
        since=2,
        inputs=1,
        parse=parse_gelu_2,
        infer=infer_real_unary,
        evaluate=evaluate_gelu,
        specialize=specialize_gelu,
    ),
    OpSpec(
        type="Gelu",
        version=7,
        since=7,
        inputs=1,
        parse=parse_gelu_7,
        infer=infer_real_unary,
        evaluate=evaluate_gelu,
        specialize=specialize_gelu,
    ),
    OpSpec(
        type="Swish",
        version=4,
        since=4,
        inputs=(1, 2),
        parse=parse_no_attrs,
        infer=infer_swish,
        evaluate=evaluate_swish,
        specialize=specialize_swish,
    ),
    OpSpec(type="Elu", version=0, since=1, inputs=1, parse=parse_elu, infer=infer_elu, evaluate=evaluate_elu),
    OpSpec(
        type="HSigmoid",
        version=5,
        since=5,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_real_unary,
        evaluate=_in_working_type(_hsigmoid),
    ),
    OpSpec(
        type="HSwish",
        version=4,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_real_unary,
        evaluate=_in_working_type(_hswish),
    ),
    OpSpec(
        type="Mish",
        version=4,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_real_unary,
        evaluate=_in_working_type(_mish),
    ),
    OpSpec(
        type="PRelu",
        version=0,
        since=1,
        inputs=2,
        parse=parse_no_attrs,
        infer=infer_prelu,
        evaluate=evaluate_prelu,
    ),
    OpSpec(
        type="HardSigmoid",
        version=0,
        since=1,
        inputs=3,
        parse=parse_no_attrs,
        infer=infer_parametrized,
        evaluate=evaluate_hard_sigmoid,
    ),
    OpSpec(
        type="Selu",
        version=0,
        since=1,
        inputs=3,
        parse=parse_no_attrs,
        infer=infer_parametrized,
        evaluate=evaluate_selu,
    ),
    OpSpec(
        type="SoftSign",
        version=9,
        since=9,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_real_unary,
        evaluate=_in_working_type(_softsign),
    ),
)
