"""Unary element-wise ops: Abs, Negative, Exp, Log, Sqrt, Clamp; Relu, Sigmoid, Tanh, Erf, Floor, Ceiling, Sign.

Types: any element type but ``boolean`` and ``string`` (OpenVINO's
``UnaryElementwiseArithmetic``); Clamp wants a number (integer or real).  The
output keeps the input's type and shape.

Values follow the core reference, checked against ``Node.evaluate`` of 2026.4:

* integers: Abs and Negative wrap (``abs(INT_MIN) == INT_MIN``); Exp and Log are
  ``static_cast<T>(std::exp/log(double(x)))`` (truncated; ``log(0)`` is the cast
  of -inf: INT_MIN for i32/i64, 0 for u32); Sqrt is
  ``static_cast<T>(std::round(std::sqrt(double(x))))`` (halves away from zero);
* floats: f16/bf16 are computed in f32 and rounded back (OpenVINO's own bf16
  rounding).  Exp and Log on f32 round the float64 result once, which equals glibc's
  ``expf``/``logf`` (what OpenVINO calls) except in rare hard-to-round cases, where it
  is 1 ulp away (the tests allow that 1 ulp); Abs, Negative, Sqrt and Clamp are exact;
* Clamp on integers clamps to ``ceil(min)`` and ``floor(max)``, each first
  saturated to the type's range; on floats to ``T(min)``/``T(max)``; NaN stays NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import ElementType
from .common.attrs import NoAttrs, float_attr, parse_no_attrs
from .common.binding import PLAIN_FLOATS, Binder, dtype_of, mode_independent, typed, with_attrs
from .common.bounds import FLOATS, WIDE_INTEGERS, abs_bounds, kernel_bounds
from .common.numeric import c_cast, is_float, libm, narrow, quiet, round_half_away, select, widen
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo


def infer_unary(attrs: object, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if x.element_type in (ElementType.boolean, ElementType.string):
        raise ValidationError(f"This operation does not support input with element type: {x.element_type}")
    return [TensorInfo(x.element_type, x.shape)]


UnaryKernel = Callable[[np.ndarray], np.ndarray]


def _bind_unary(float_fn: UnaryKernel) -> Binder[NoAttrs]:
    """The binder (``OpSpec.specialize``) of a ``_unary`` op: on f32/f64 (not 0-d), ``float_fn`` alone."""

    def bind(attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
        dtype = dtype_of(inputs[0])
        if dtype not in PLAIN_FLOATS or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
            return None

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            out = float_fn(values[0])
            return [out if out.dtype == dtype else out.astype(dtype)]

        return kernel

    return bind


def _unary(
    float_fn: UnaryKernel, int_fn: UnaryKernel
) -> Callable[[NoAttrs, Sequence[np.ndarray]], list[np.ndarray]]:
    def evaluate(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        x = np.asarray(x)
        with quiet():
            out = float_fn(widen(x)) if is_float(x.dtype) else int_fn(x)
        return [narrow(np.asarray(out), x.dtype)]

    return evaluate


def _f32_via_double(name: str) -> UnaryKernel:
    """``expf``/``logf`` on f32 (and f16/bf16 widened to f32): the double result rounded once.

    That differs from glibc's ``expf``/``logf`` by 1 ulp on a fraction of a percent of
    inputs; NumPy's own f32 SIMD ``exp``/``log`` differ far more often.  f64 goes through
    libm's ``exp``/``log`` exactly.
    """
    fn = getattr(np, name)

    def kernel(x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float64:
            return libm(name, x)
        out: np.ndarray = fn(x.astype(np.float64)).astype(np.float32)
        return out

    return kernel


def _via_libm(name: str) -> UnaryKernel:
    """``static_cast<T>(std::exp/log(double(x)))`` for integer inputs, through libm itself."""

    def kernel(x: np.ndarray) -> np.ndarray:
        return c_cast(libm(name, x), x.dtype)

    return kernel


def _int_sqrt(x: np.ndarray) -> np.ndarray:
    return c_cast(round_half_away(np.sqrt(x.astype(np.float64))), x.dtype)


# -- Clamp -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClampAttrs:
    min: float
    max: float


def parse_clamp(node: Node) -> ClampAttrs:
    return ClampAttrs(float_attr(node, "min"), float_attr(node, "max"))


def infer_clamp(attrs: ClampAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    et = x.element_type
    if not (et.is_integral_number or et.is_real or et.is_dynamic):
        raise ValidationError(f"Input element type must be numeric. Got: {et}")
    if not attrs.min <= attrs.max:
        raise ValidationError(
            f"Attribute 'min' must be less or equal than 'max'. Got: {_g(attrs.min)} and {_g(attrs.max)}"
        )
    return [TensorInfo(et, x.shape)]


def _g(v: float) -> str:
    return str(int(v)) if v.is_integer() else repr(v)


def _int_bound(value: float, dtype: np.dtype, rounding: Callable[[float], float]) -> int:
    """OpenVINO's ``double_to_int<T>``: saturate to T's range, else round and cast."""
    info = np.iinfo(dtype)
    if value < float(info.min):
        return int(info.min)
    if value > float(info.max):
        return int(info.max)
    return int(rounding(value))


def evaluate_clamp(attrs: ClampAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    x = np.asarray(x)
    if is_float(x.dtype):
        # static_cast<T>(double): f16/bf16 are built from a float, so round through f32.
        via = np.float64 if x.dtype == np.float64 else np.float32
        lo = narrow(np.asarray(attrs.min, dtype=via), x.dtype)
        hi = narrow(np.asarray(attrs.max, dtype=via), x.dtype)
    else:
        lo = np.asarray(_int_bound(attrs.min, x.dtype, math.ceil), dtype=x.dtype)
        hi = np.asarray(_int_bound(attrs.max, x.dtype, math.floor), dtype=x.dtype)
    # The reference: x < min ? min : (x > max ? max : x); NaN compares false and stays.
    with quiet():
        out = select(x < lo, lo, select(x > hi, hi, x))
    return [out.astype(x.dtype, copy=False)]


def evaluate_clamp_fast(attrs: ClampAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) Clamp of f32/f64: ``minimum(maximum(x, min), max)`` in one pass
    (``np.clip``, 2x two passes on a MobileNet's activations), NaN kept as NaN; it may give +0.0
    where the exact kernel keeps an input -0.0 equal to a bound (or the other way round), the
    same number.  Every other type takes ``evaluate_clamp``."""
    x = np.asarray(inputs[0])
    if x.dtype not in (np.float32, np.float64) or x.ndim == 0:
        return evaluate_clamp(attrs, inputs)
    with quiet():
        lo, hi = (
            x.dtype.type(attrs.min),
            x.dtype.type(attrs.max),
        )  # (f32: the bounds as OpenVINO's static_cast)
        out: np.ndarray = np.clip(x, lo, hi)  # (one pass: maximum, then minimum, per element)
    return [out]


def specialize_clamp(
    attrs: ClampAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``evaluate_clamp`` (None).  Fast: ``evaluate_clamp_fast`` (the same for every plan)."""
    return None if mode.exact else with_attrs(evaluate_clamp_fast, attrs)


def _int_abs(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x.copy() if x.dtype.kind == "u" else np.abs(x)
    return out


# -- activations and rounding that real exports put around OneHot --------------------------------
# Relu keeps -0.0 and NaN (``x < 0 ? 0 : x``); Sign gives +0.0 for -0.0 and keeps NaN;
# Floor/Ceiling are the identity on integers.  Integer Sigmoid is OpenVINO's
# ``1 / (1 + T(exp(-x)))`` in integer arithmetic; integer Tanh and Erf round the
# double result half away from zero.  Float Sigmoid repeats exp, add, divide in f32
# (exp rounded once from float64, as Exp); Tanh and Erf round the float64 result.


def _relu(x: np.ndarray) -> np.ndarray:
    return select(x < 0, np.zeros((), x.dtype), x)


def evaluate_relu_fast(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) Relu of f32/f64: ``maximum(x, 0)``, NaN kept as NaN; it gives +0.0
    for -0.0 (the exact kernel keeps -0.0), the same number.  Other types: the exact kernel."""
    x = np.asarray(inputs[0])
    if x.dtype not in (np.float32, np.float64) or x.ndim == 0:
        return _unary(_relu, _relu)(attrs, inputs)
    return [np.maximum(x, x.dtype.type(0))]


def specialize_relu(
    attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``_relu`` bound (f32/f64).  Fast: ``evaluate_relu_fast`` (the same for every plan)."""
    if mode.exact:
        return _bind_unary(_relu)(attrs, inputs, outputs) if typed(inputs, outputs) else None
    return with_attrs(evaluate_relu_fast, attrs)


def _sign(x: np.ndarray) -> np.ndarray:
    one = np.ones((), x.dtype)
    out = np.where(x > 0, one, np.where(x < 0, -one if x.dtype.kind != "u" else one, np.zeros((), x.dtype)))
    return np.where(np.isnan(x), x, out) if is_float(x.dtype) else out


def _float_sigmoid(x: np.ndarray) -> np.ndarray:
    e = _f32_via_double("exp")(-x)
    one = np.ones((), x.dtype)
    out: np.ndarray = one / (one + e)
    return out


def _int_sigmoid(x: np.ndarray) -> np.ndarray:
    # C's ``-x``: types narrower than int are promoted first (no wrap); int, long and the unsigned
    # types negate in their own type and wrap (-INT_MIN == INT_MIN; -1u == UINT_MAX).
    negated = np.negative(x) if x.dtype.itemsize >= 4 else np.negative(x.astype(np.int64))
    e = c_cast(libm("exp", negated.astype(np.float64)), x.dtype)
    denominator = np.ones((), x.dtype) + e  # wraps: exp overflow casts to INT_MIN
    # C's 1 / d truncates: 1 for d == 1, -1 for d == -1 (signed), 0 otherwise (d == 0 traps in C).
    out = np.where(denominator == 1, 1, 0)
    if x.dtype.kind == "i":
        out = np.where(denominator == -1, -1, out)
    return out.astype(x.dtype)


def _erf64(x: np.ndarray) -> np.ndarray:
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    return np.array([math.erf(v) for v in flat.tolist()], dtype=np.float64).reshape(np.shape(x))


def _float_via_f64(fn: UnaryKernel) -> UnaryKernel:
    def kernel(x: np.ndarray) -> np.ndarray:
        out = fn(x.astype(np.float64))
        return out if x.dtype == np.float64 else out.astype(np.float32)

    return kernel


def _int_rounded(fn: UnaryKernel) -> UnaryKernel:
    def kernel(x: np.ndarray) -> np.ndarray:
        return c_cast(round_half_away(fn(x.astype(np.float64))), x.dtype)

    return kernel


def _copy(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x.copy()
    return out


SPECS = (
    OpSpec(
        type="Relu",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_relu, _relu),
        specialize=specialize_relu,
    ),
    OpSpec(
        type="Sigmoid",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_float_sigmoid, _int_sigmoid),
        specialize=mode_independent(_bind_unary(_float_sigmoid)),
    ),
    OpSpec(
        type="Tanh",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_float_via_f64(np.tanh), _int_rounded(np.tanh)),
        specialize=mode_independent(_bind_unary(_float_via_f64(np.tanh))),
    ),
    OpSpec(
        type="Erf",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_float_via_f64(_erf64), _int_rounded(_erf64)),
        specialize=mode_independent(_bind_unary(_float_via_f64(_erf64))),
    ),
    OpSpec(
        type="Floor",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(np.floor, _copy),
        specialize=mode_independent(_bind_unary(np.floor)),
    ),
    OpSpec(
        type="Ceiling",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(np.ceil, _copy),
        specialize=mode_independent(_bind_unary(np.ceil)),
    ),
    OpSpec(
        type="Sign",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_sign, _sign),
        specialize=mode_independent(_bind_unary(_sign)),
    ),
    OpSpec(
        type="Abs",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(np.abs, _int_abs),
        specialize=mode_independent(_bind_unary(np.abs)),
        bounds=abs_bounds,
        evaluate_types=(FLOATS | WIDE_INTEGERS,),
    ),
    OpSpec(
        type="Negative",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(np.negative, np.negative),
        specialize=mode_independent(_bind_unary(np.negative)),
    ),
    OpSpec(
        type="Exp",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_f32_via_double("exp"), _via_libm("exp")),
        specialize=mode_independent(_bind_unary(_f32_via_double("exp"))),
    ),
    OpSpec(
        type="Log",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(_f32_via_double("log"), _via_libm("log")),
        specialize=mode_independent(_bind_unary(_f32_via_double("log"))),
    ),
    OpSpec(
        type="Sqrt",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_unary(np.sqrt, _int_sqrt),
        specialize=mode_independent(_bind_unary(np.sqrt)),
    ),
    OpSpec(
        type="Clamp",
        version=0,
        since=1,
        inputs=1,
        parse=parse_clamp,
        infer=infer_clamp,
        evaluate=evaluate_clamp,
        bounds=kernel_bounds(exact=()),
        specialize=specialize_clamp,
    ),
)
