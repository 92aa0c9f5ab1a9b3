"""Binary element-wise ops: arithmetic, comparison, logical; and Select.

Shapes follow ``auto_broadcast`` (see :mod:`.autobroadcast`); types follow
OpenVINO's ``validate_and_infer_elementwise_args``: both inputs must have the same
element type (or one dynamic); arithmetic refuses ``boolean``; comparisons give
``boolean``; logical ops take ``boolean`` only.

Values follow the core reference (``src/core/reference/include/openvino/reference``),
checked against ``Node.evaluate`` of OpenVINO 2026.4:

* integer overflow wraps (two's complement);
* Divide on integers: ``m_pythondiv=true`` (the default) floors, ``false``
  truncates; a zero divisor is an error ("integer division by zero"), as in the
  reference; float division gives inf/NaN.  ``INT_MIN / -1`` wraps to INT_MIN
  (the reference traps there: SIGFPE);
* Mod is C's ``%`` on integers (sign of the dividend) and ``x - trunc(x / y) * y``
  on floats; FloorMod is ``x - y * floor(x / double(y))`` computed in double and
  cast back for signed integers and floats (so int64 beyond 2**53 loses precision,
  as in OpenVINO) and ``%`` for unsigned.  An integer zero divisor gives the C cast of
  NaN (INT_MIN for i32/i64, 0 for 8/16-bit and u32, 2**63 for u64): signed FloorMod
  computes exactly that in the reference; for Mod and unsigned FloorMod the reference
  traps (SIGFPE: no value) and the CPU plugin returns values of a float path (INT_MIN
  for i32, the same), so ovonehot applies FloorMod's rule rather than refuse a graph
  OpenVINO runs: ``torch.gcd`` becomes a Loop computing ``a % b`` on lanes where
  ``b == 0`` that a Select then discards (docs/openvino-behaviour.md);
* Power on integers is ``static_cast<T>(std::pow(double(x), double(y)))``
  (``2 ** -1 == 0``, ``0 ** -1`` is the cast of inf);
* Maximum is ``x < y ? y : x`` and Minimum ``y < x ? y : x``: a NaN first
  operand wins, a NaN second operand loses;
* f16/bf16 are computed in f32 and rounded back.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Error, InputError, ValidationError
from ..graph import Node
from ..types import ElementType
from .common.attrs import NoAttrs, bool_attr, parse_no_attrs
from .common.autobroadcast import (
    AutoBroadcastSpec,
    AutoBroadcastType,
    align_arrays,
    broadcast_shapes,
    infer_broadcast,
    parse_auto_broadcast,
)
from .common.binding import (
    PLAIN_FLOATS,
    PLAIN_INTEGERS,
    PLAIN_NUMBERS,
    Binder,
    bind_ufunc,
    dtype_of,
    folded,
    mode_independent,
)
from .common.bounds import (
    FLOATS,
    INTEGERS,
    WIDE_INTEGERS,
    bounds_of,
    default_bounds,
    divide_bounds,
    equal_bounds,
    is_exact,
    is_max,
    kernel_bounds,
    max_of,
    mod_bounds,
    run_kernel,
)
from .common.numeric import c_cast, is_float, is_narrow_float, libm_pow, narrow, quiet, widen
from .common.spec import Bounds, BoundsFn, Kernel, OpSpec, SpecializeFn, TensorInfo
from .reduce import Reduction, reduce_array


class Family(enum.Enum):
    ARITHMETIC = "arithmetic"
    COMPARISON = "comparison"
    LOGICAL = "logical"


@dataclass(frozen=True, slots=True)
class BinaryAttrs:
    auto_broadcast: AutoBroadcastSpec
    pythondiv: bool = True  # Divide only (IR attribute ``m_pythondiv``)


def parse_binary(node: Node) -> BinaryAttrs:
    return BinaryAttrs(parse_auto_broadcast(node))


def parse_divide(node: Node) -> BinaryAttrs:
    return BinaryAttrs(parse_auto_broadcast(node), bool_attr(node, "m_pythondiv", True))


def merge_types(a: ElementType, b: ElementType) -> ElementType:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(
            f"Arguments do not have the same element type (arg0 element type: {a}, arg1 element type: {b})."
        )
    return merged


def _infer(family: Family) -> Callable[[BinaryAttrs, Sequence[TensorInfo]], list[TensorInfo]]:
    def infer(attrs: BinaryAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        a, b = inputs
        et = merge_types(a.element_type, b.element_type)
        if family is Family.ARITHMETIC and et in (ElementType.boolean, ElementType.string):
            raise ValidationError(f"This operation does not support inputs with element type: {et}")
        if family is Family.LOGICAL and not (et.is_dynamic or et is ElementType.boolean):
            raise ValidationError(
                f"Operands for logical operators must have boolean element type but have element type {et}."
            )
        shape = infer_broadcast(a.shape, b.shape, attrs.auto_broadcast)
        out_type = et if family is Family.ARITHMETIC else ElementType.boolean
        return [TensorInfo(out_type, shape)]

    return infer


BinaryKernel = Callable[[np.ndarray, np.ndarray, BinaryAttrs], np.ndarray]


def _evaluate(
    kernel: BinaryKernel, boolean_out: bool
) -> Callable[[BinaryAttrs, Sequence[np.ndarray]], list[np.ndarray]]:
    def evaluate(attrs: BinaryAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, b = (np.asarray(x) for x in inputs)
        if a.dtype != b.dtype:
            raise InputError(f"inputs differ in element type: {a.dtype} and {b.dtype}")
        a, b = align_arrays([a, b], attrs.auto_broadcast)
        if is_narrow_float(a.dtype) and not boolean_out:
            return [_narrow_in_blocks(kernel, a, b, attrs)]
        with quiet():
            out = np.asarray(kernel(a, b, attrs))
        if boolean_out:
            return [out.astype(np.bool_, copy=False)]
        return [narrow(out, a.dtype)]

    return evaluate


# Elements per block of a narrow-float (f16, bf16, f8) binary op: computed in f32 a block at
# a time, so a large operand (the int4/int8 weights of an LLM decompressed to f16) never has
# whole f32 copies beside it.  Element-wise: the blocks give the same bits as one pass.
NARROW_BLOCK = 1 << 20


def _narrow_in_blocks(kernel: BinaryKernel, a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    shape = np.broadcast_shapes(a.shape, b.shape)
    size = math.prod(shape)
    if not shape or size <= NARROW_BLOCK:
        with quiet():
            return narrow(np.asarray(kernel(a, b, attrs)), a.dtype)
    out = np.empty(shape, a.dtype)
    a_full, b_full = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    rows = max(1, NARROW_BLOCK // max(1, size // shape[0]))
    with quiet():
        for start in range(0, shape[0], rows):
            block = slice(start, start + rows)
            out[block] = narrow(np.asarray(kernel(a_full[block], b_full[block], attrs)), a.dtype)
    return out


# -- arithmetic kernels: each returns a result NumPy can round to the input dtype -------------


def _add(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    out: np.ndarray = np.add(widen(a), widen(b))
    return out


def _subtract(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    out: np.ndarray = np.subtract(widen(a), widen(b))
    return out


def _multiply(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    out: np.ndarray = np.multiply(widen(a), widen(b))
    return out


def _check_nonzero(b: np.ndarray) -> None:
    if b.size and not np.all(b):
        raise InputError("integer division by zero")


def _divide(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    if is_float(a.dtype):
        out: np.ndarray = np.true_divide(widen(a), widen(b))
        return out
    _check_nonzero(b)
    floor: np.ndarray = np.floor_divide(a, b)  # wraps INT_MIN // -1 to INT_MIN
    if attrs.pythondiv or a.dtype.kind == "u":
        return floor
    # C++ truncation: one more than the floor where the signs differ and it is inexact.
    inexact = np.multiply(floor, b) != a
    truncated: np.ndarray = floor + (inexact & ((a < 0) != (b < 0))).astype(a.dtype)
    return truncated


def _mod(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    if is_float(a.dtype):
        x, y = widen(a), widen(b)
        out: np.ndarray = x - np.trunc(x / y) * y
        return out
    return _by_nonzero(np.fmod, a, b)  # C's %: the sign of the dividend


def _by_nonzero(fn: np.ufunc, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``fn(a, b)`` for integers; where ``b`` is 0 the C cast of NaN (see the module doc)."""
    zero = b == 0
    if not np.any(zero):
        out: np.ndarray = fn(a, b)
        return out
    nan_cast = c_cast(np.asarray(np.nan), a.dtype)
    return np.where(zero, nan_cast, fn(a, np.where(zero, np.ones_like(b), b))).astype(a.dtype, copy=False)


def _floor_mod(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    if a.dtype.kind == "u":
        return _by_nonzero(np.remainder, a, b)
    x = widen(a).astype(np.float64)
    y = widen(b).astype(np.float64)
    result = x - y * np.floor(x / y)
    if is_float(a.dtype):
        return result.astype(np.float32) if a.dtype != np.float64 else result
    return c_cast(result, a.dtype)


def _power(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    if a.dtype == np.float32 or is_narrow_float(a.dtype):
        # powf(x, y): the float64 power rounded once to f32 is powf's correctly rounded result
        # in all but vanishingly rare cases (see the tests' tolerance); narrow types then round again.
        return np.power(widen(a).astype(np.float64), widen(b).astype(np.float64)).astype(np.float32)
    result = libm_pow(a, b)  # double pow, exactly libm's (integers go through double too)
    return result if a.dtype == np.float64 else c_cast(result, a.dtype)


def _squared_difference(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    d = np.subtract(widen(a), widen(b))
    out: np.ndarray = d * d
    return out


def _maximum(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    return np.where(a < b, b, a)


def _minimum(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
    return np.where(b < a, b, a)


def _ufunc(f: np.ufunc) -> BinaryKernel:
    def kernel(a: np.ndarray, b: np.ndarray, attrs: BinaryAttrs) -> np.ndarray:
        out: np.ndarray = f(a, b)
        return out

    return kernel


def binary_binder(f: np.ufunc, dtypes: frozenset[np.dtype]) -> Binder[BinaryAttrs]:
    """The binder (``OpSpec.specialize``) of a binary op that is ``f`` itself on inputs of one dtype in ``dtypes``,
    broadcast the NumPy way (or not at all)."""

    def bind(
        attrs: BinaryAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
    ) -> Kernel | None:
        kind = attrs.auto_broadcast.type
        if kind is AutoBroadcastType.PDPD or (
            kind is not AutoBroadcastType.NUMPY and not all(t.shape.is_static for t in inputs)
        ):
            return None
        return bind_ufunc(f, dtypes, inputs[0], inputs[1], outputs[0])

    return bind


def _bind_power(
    attrs: BinaryAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """f32 Power, NumPy broadcast: ``_power``'s f64 power rounded to f32, the exponent widened
    once when folded; a folded exponent of exactly 2 (one element, adding no dimension) is
    ``x * x`` in f32: the square of an f32 is exact in f64, so both round the same exact value."""
    x, y = inputs
    if attrs.auto_broadcast.type is not AutoBroadcastType.NUMPY or dtype_of(x) != np.float32:
        return None
    if dtype_of(y) != np.float32 or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
        return None
    exponent = folded(y)
    if (
        exponent is not None
        and exponent.size == 1
        and x.shape.rank_is_static
        and exponent.ndim <= x.shape.rank
        and exponent.reshape(-1)[0] == 2.0
    ):

        def square(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.multiply(values[0], values[0])]

        return square
    wide = None if exponent is None else exponent.astype(np.float64)

    def power(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        b = values[1].astype(np.float64) if wide is None else wide
        return [np.power(values[0].astype(np.float64), b).astype(np.float32)]

    return power


def _integer_binder(kernel: BinaryKernel) -> Binder[BinaryAttrs]:
    """``bind`` of integer Divide/Mod (NumPy broadcast, one plain integer type): the op's own
    arithmetic (its zero-divisor check included) without the checks the signature settles."""

    def bind(
        attrs: BinaryAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
    ) -> Kernel | None:
        dtype = dtype_of(inputs[0])
        if attrs.auto_broadcast.type is not AutoBroadcastType.NUMPY or dtype != dtype_of(inputs[1]):
            return None
        if dtype not in PLAIN_INTEGERS or not outputs[0].shape.rank_is_static:
            return None

        def bound(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.asarray(kernel(values[0], values[1], attrs))]

        return bound

    return bind


def _divide_bind(
    attrs: BinaryAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Divide: floats by NumPy's true divide, integers by ``_divide``'s own arithmetic."""
    if dtype_of(inputs[0]) in PLAIN_INTEGERS:
        return _integer_binder(_divide)(attrs, inputs, outputs)
    return binary_binder(np.true_divide, PLAIN_FLOATS)(attrs, inputs, outputs)


_ANY_PLAIN = PLAIN_NUMBERS | {np.dtype(np.bool_)}
_BOOL = frozenset({np.dtype(np.bool_)})


def _arithmetic(
    name: str,
    kernel: BinaryKernel,
    *,
    bounds: BoundsFn[BinaryAttrs],
    evaluate_types: frozenset[ElementType],
    lower_is_value: bool = False,
    parse: Callable[[Node], BinaryAttrs] = parse_binary,
    specialize: SpecializeFn[BinaryAttrs] | None = None,
) -> OpSpec[BinaryAttrs]:
    return OpSpec(
        type=name,
        version=1,
        since=1,
        inputs=2,
        parse=parse,
        infer=_infer(Family.ARITHMETIC),
        evaluate=_evaluate(kernel, False),
        bounds=bounds,
        evaluate_types=(evaluate_types,),
        lower_is_value=lower_is_value,
        specialize=specialize,
        shapes_only=True,
    )


def _comparison(name: str, f: np.ufunc, bounds: BoundsFn[BinaryAttrs] | None = None) -> OpSpec[BinaryAttrs]:
    return OpSpec(
        type=name,
        version=1,
        since=1,
        inputs=2,
        parse=parse_binary,
        infer=_infer(Family.COMPARISON),
        evaluate=_evaluate(_ufunc(f), True),
        bounds=bounds,
        specialize=mode_independent(binary_binder(f, _ANY_PLAIN)),
        shapes_only=True,
    )


def _logical(name: str, f: np.ufunc) -> OpSpec[BinaryAttrs]:
    return OpSpec(
        type=name,
        version=1,
        since=1,
        inputs=2,
        parse=parse_binary,
        infer=_infer(Family.LOGICAL),
        evaluate=_evaluate(_ufunc(f), True),
        specialize=mode_independent(binary_binder(f, _BOOL)),
        shapes_only=True,
    )


def _interval_bounds(
    spec: OpSpec[BinaryAttrs], attrs: BinaryAttrs, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """``interval_bound_evaluator``: extremes of the kernel over the four lower/upper
    combinations; where any input bound is its type's max ("unbounded") the result is [0, max]."""
    a, b = bounds_of(ins[0]), bounds_of(ins[1])
    if a is None or b is None:
        return [None]
    if is_exact(ins[0]) and is_exact(ins[1]):
        return default_bounds(spec, attrs, ins, 1)
    results = []
    for x in (a[0], a[1]):
        for y in (b[0], b[1]):
            r = run_kernel(spec, attrs, [x, y])
            if r is None:
                return [None]
            results.append(r[0])
    stack = np.stack(results)
    try:
        lower = reduce_array(stack, [0], Reduction.MIN)
        upper = reduce_array(stack, [0], Reduction.MAX)
    except Error:
        return [None]
    if max_of(a[0].dtype) is None or max_of(b[0].dtype) is None:
        return [None]
    top = max_of(upper.dtype)
    if top is None:
        return [None]
    unbounded = is_max(a[0]) | is_max(a[1]) | is_max(b[0]) | is_max(b[1])
    upper = np.where(unbounded, top, upper).astype(upper.dtype)
    lower = np.where(unbounded, np.zeros((), lower.dtype), lower).astype(lower.dtype)
    return [(lower, upper)]


# -- LogicalNot: any element type; the output keeps it (1/0), as OpenVINO's v1 does ----------


def infer_logical_not(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    return [TensorInfo(x.element_type, x.shape)]


def evaluate_logical_not(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    x = np.asarray(x)
    # (np.asarray: on a 0-d input np.logical_not gives NumPy's bool scalar, not an array)
    return [np.asarray(np.logical_not(x)).astype(x.dtype, copy=False)]


# -- Select ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SelectAttrs:
    auto_broadcast: AutoBroadcastSpec


def parse_select(node: Node) -> SelectAttrs:
    return SelectAttrs(parse_auto_broadcast(node))


def infer_select(attrs: SelectAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    cond, then, other = inputs
    if not (cond.element_type.is_dynamic or cond.element_type is ElementType.boolean):
        raise ValidationError(
            f"Argument 0 must have boolean element type (element type: {cond.element_type})."
        )
    et = then.element_type.merge(other.element_type)
    if et is None:
        raise ValidationError(
            f"Argument 1 and 2 element types must match (got {then.element_type} and {other.element_type})."
        )
    spec = attrs.auto_broadcast
    if spec.type is AutoBroadcastType.PDPD:
        # 'else' and then 'cond' are merged into 'then', one way.
        shape = then.shape
        for label, info in (("Else", other), ("Cond", cond)):
            merged = broadcast_shapes(shape, info.shape, spec)
            if merged is None:
                raise ValidationError(f"'{label}' tensor shape is not broadcastable.")
            shape = merged
    else:
        shape = infer_broadcast(other.shape, then.shape, spec)
        shape = infer_broadcast(shape, cond.shape, spec)
    return [TensorInfo(et, shape)]


def evaluate_select(attrs: SelectAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    cond, then, other = (np.asarray(x) for x in inputs)
    if then.dtype != other.dtype:
        raise InputError(f"then and else differ in element type: {then.dtype} and {other.dtype}")
    if attrs.auto_broadcast.type is AutoBroadcastType.PDPD:
        then, other, cond = align_arrays([then, other, cond], attrs.auto_broadcast)
    else:
        cond, then, other = align_arrays([cond, then, other], attrs.auto_broadcast)
    return [np.where(cond.astype(np.bool_, copy=False), then, other).astype(then.dtype, copy=False)]


def bind_select(
    attrs: SelectAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """NumPy-broadcast Select of a boolean condition and two values of one type: ``np.where``
    (shapes that do not broadcast make NumPy raise, and the kernel words it)."""
    cond, then, other = inputs
    dtype = dtype_of(then)
    if attrs.auto_broadcast.type is not AutoBroadcastType.NUMPY or dtype != dtype_of(other):
        return None
    if dtype_of(cond) != np.bool_ or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.where(values[0], values[1], values[2])]

    return kernel


# What OpenVINO's Subtract and FloorMod kernels take besides floats (not i16, u16).
_SUBTRACT_INTEGERS = frozenset(
    {ElementType.i8, ElementType.i32, ElementType.i64, ElementType.u8, ElementType.u32, ElementType.u64}
)

_ARITHMETIC = (
    _arithmetic(
        "Add",
        _add,
        bounds=_interval_bounds,
        evaluate_types=FLOATS | INTEGERS,
        specialize=mode_independent(binary_binder(np.add, PLAIN_NUMBERS)),
    ),
    _arithmetic(
        "Subtract",
        _subtract,
        bounds=_interval_bounds,
        evaluate_types=FLOATS | _SUBTRACT_INTEGERS,
        specialize=mode_independent(binary_binder(np.subtract, PLAIN_NUMBERS)),
    ),
    _arithmetic(
        "Multiply",
        _multiply,
        bounds=_interval_bounds,
        evaluate_types=FLOATS | WIDE_INTEGERS | {ElementType.f64},
        specialize=mode_independent(binary_binder(np.multiply, PLAIN_NUMBERS)),
    ),
    _arithmetic(
        "Divide",
        _divide,
        parse=parse_divide,
        bounds=divide_bounds,
        evaluate_types=FLOATS | WIDE_INTEGERS,
        lower_is_value=True,
        specialize=mode_independent(_divide_bind),
    ),
    _arithmetic("Maximum", _maximum, bounds=_interval_bounds, evaluate_types=FLOATS | WIDE_INTEGERS),
    _arithmetic(
        "Minimum",
        _minimum,
        bounds=_interval_bounds,
        evaluate_types=FLOATS | WIDE_INTEGERS | {ElementType.u8, ElementType.u16},
    ),
    _arithmetic(
        "Power",
        _power,
        bounds=_interval_bounds,
        evaluate_types=FLOATS | WIDE_INTEGERS,
        specialize=mode_independent(_bind_power),
    ),
    _arithmetic(
        "Mod",
        _mod,
        bounds=mod_bounds,
        evaluate_types=INTEGERS,
        lower_is_value=True,
        specialize=mode_independent(_integer_binder(_mod)),
    ),
    _arithmetic("FloorMod", _floor_mod, bounds=_interval_bounds, evaluate_types=FLOATS | _SUBTRACT_INTEGERS),
    _arithmetic(
        "SquaredDifference",
        _squared_difference,
        bounds=_interval_bounds,
        evaluate_types=frozenset({ElementType.f32}),
    ),
)
# The ops whose narrow-float (f16, bf16, f8) inputs run in blocks of NARROW_BLOCK elements: the
# conformance harness runs them again with tiny blocks, so every generated case meets that path.
IN_BLOCKS = frozenset(
    s.type
    for s in _ARITHMETIC
    if any(t in (ElementType.f16, ElementType.bf16) for ts in s.evaluate_types or () for t in ts or ())
)

SPECS = (
    *_ARITHMETIC,
    _comparison("Equal", np.equal, bounds=equal_bounds),
    _comparison("NotEqual", np.not_equal),
    _comparison("Less", np.less),
    _comparison("LessEqual", np.less_equal),
    _comparison("Greater", np.greater),
    _comparison("GreaterEqual", np.greater_equal),
    _logical("LogicalAnd", np.logical_and),
    _logical("LogicalOr", np.logical_or),
    OpSpec(
        type="LogicalXor",
        version=1,
        since=1,
        inputs=2,
        parse=parse_binary,
        infer=_infer(Family.LOGICAL),
        evaluate=_evaluate(_ufunc(np.logical_xor), True),
        specialize=mode_independent(binary_binder(np.logical_xor, _BOOL)),
    ),
    OpSpec(
        type="LogicalNot",
        version=1,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_logical_not,
        evaluate=evaluate_logical_not,
    ),
    OpSpec(
        type="Select",
        version=1,
        since=1,
        inputs=3,
        parse=parse_select,
        infer=infer_select,
        evaluate=evaluate_select,
        specialize=mode_independent(bind_select),
        shapes_only=True,
        bounds=kernel_bounds(exact=(0,)),
        copies_values=True,
    ),
)
