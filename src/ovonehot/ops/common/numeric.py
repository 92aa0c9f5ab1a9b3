"""NumPy arithmetic the way OpenVINO's C++ reference kernels compute it.

Three habits of the reference that NumPy does not share, gathered here for the
element-wise, unary and softmax kernels:

* **narrow floats** (f16, bf16, f8, f4) are computed in f32 and rounded back
  (``evaluate_node_with_unsupported_precision`` converts them to f32 around the
  kernel), so ``widen``/``narrow`` do the same;
* **C casts from double** (``static_cast<T>(std::pow(x, y))``) truncate toward zero
  and turn out-of-range or NaN values into what x86 gives: ``c_cast`` reuses
  Convert's rules, which were checked against OpenVINO;
* **integer overflow wraps** (two's complement), which NumPy does too once its
  warnings are silenced (``quiet``);
* **f32 -> bf16 rounding** is IEEE round-to-nearest-even (:mod:`.bf16`), as OpenVINO's
  bfloat16 type names it and its CPU plugin computes it; the reference's own formula
  ``(bits + ((bits & 0x10000) >> 1)) >> 16`` is a named deviation that
  :func:`.bf16.bf16_rounding` reproduces.
"""

from __future__ import annotations

import array
import math

import numpy as np

from ...types import ElementType
from ..convert import convert_array, f32_to_bf16


def quiet() -> np.errstate:
    """A context manager turning NumPy's overflow/division warnings off (C++ has none)."""
    return np.errstate(all="ignore")


_NARROW_FLOATS = frozenset(
    t.numpy_dtype
    for t in (
        ElementType.f16,
        ElementType.bf16,
        ElementType.f8e4m3,
        ElementType.f8e5m2,
        ElementType.f8e8m0,
        ElementType.f4e2m1,
    )
    if t.numpy_dtype is not None
)


def is_float(dtype: np.dtype) -> bool:
    """Any real type: NumPy's floats and ml_dtypes' bf16/f8/f4."""
    return dtype.kind == "f" or dtype in _NARROW_FLOATS


def is_narrow_float(dtype: np.dtype) -> bool:
    return dtype in _NARROW_FLOATS


def widen(x: np.ndarray) -> np.ndarray:
    """Narrow floats as f32 (exact); other arrays unchanged."""
    return x.astype(np.float32) if x.dtype in _NARROW_FLOATS else x


def narrow(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A result computed by ``widen`` rounded back to ``dtype`` as OpenVINO rounds it."""
    x = np.asarray(x)
    if x.dtype == dtype:
        return x
    if dtype == _BF16:
        return f32_to_bf16(x)
    with quiet():
        return x.astype(dtype)


_BF16 = ElementType.bf16.numpy_dtype


def _c_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _c_log(x: float) -> float:
    if x == 0.0:
        return -math.inf
    try:
        return math.log(x)
    except ValueError:  # negative, or -inf
        return math.nan


_C_UNARY = {"exp": np.frompyfunc(_c_exp, 1, 1), "log": np.frompyfunc(_c_log, 1, 1)}


def libm(name: str, x: np.ndarray) -> np.ndarray:
    """C's ``exp``/``log`` of double through libm, element by element, bit for bit.

    NumPy's float64 ``exp``/``log`` may use SIMD code that differs from libm by an ulp.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        out: np.ndarray = x.copy()
        return out
    return np.asarray(_C_UNARY[name](x), dtype=np.float64).reshape(x.shape)


def _c_pow(x: float, y: float) -> float:
    """C's ``pow(double, double)``: the platform libm, as OpenVINO calls it.

    Python's ``math.pow`` is that function plus error checks; where it raises, C
    returns the IEEE special value, which NumPy's power gives.
    """
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):
        with quiet():
            return float(np.power(np.float64(x), np.float64(y)))


_c_pow_vec = np.frompyfunc(_c_pow, 2, 1)


def libm_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Element-wise ``pow`` of two float64 arrays through libm, bit for bit (one call per element).

    NumPy's own float64 power may use SIMD code that differs from libm by an ulp.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    if x.size == 0:
        return np.empty(x.shape, dtype=np.float64)
    return np.asarray(_c_pow_vec(x, y), dtype=np.float64).reshape(x.shape)


def element_type_of(dtype: np.dtype) -> ElementType:
    return ElementType.from_numpy(dtype)


def c_cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``static_cast<T>(double)`` for an integer ``T``, as x86-64 scalar code does it.

    ``cvttsd2si`` truncates toward zero and gives the "integer indefinite" value
    (INT_MIN of its width) for NaN and out-of-range values.  Targets of 32 bits or
    fewer but u32 go through the 32-bit form and keep the low bits; u32 goes through
    the 64-bit form; u64 subtracts 2**63 first for values >= 2**63, so values at or
    beyond 2**64 (and inf) become 0.  Checked against OpenVINO's integer Power/Exp/Log.
    """
    dtype = np.dtype(dtype)
    x = np.asarray(x, dtype=np.float64)
    if dtype == np.bool_:
        out: np.ndarray = x != 0
        return out
    if dtype == np.uint64:
        small = ~(x >= 2.0**63)  # NaN takes the small path
        low = _cvtt(x, 64)
        with quiet():
            high = _cvtt(x - 2.0**63, 64) ^ np.int64(-(2**63))
        return np.where(small, low, high).view(np.uint64)
    if dtype == np.int64:
        return _cvtt(x, 64)
    if dtype == np.uint32:
        return _cvtt(x, 64).astype(np.uint32)  # keeps the low 32 bits
    if dtype.kind in "iu" and dtype.itemsize <= 4:
        return _cvtt(x, 32).astype(dtype)  # keeps the low bits
    return convert_array(x, element_type_of(dtype))  # sub-byte integers: Convert's rules


def _cvtt(x: np.ndarray, bits: int) -> np.ndarray:
    """``cvttsd2si`` with a ``bits``-wide destination, as int64 (or int32) values."""
    limit = 2.0 ** (bits - 1)
    with quiet():
        t = np.trunc(x)
        ok = (t >= -limit) & (t < limit)
        out = np.where(ok, t, 0).astype(np.int64 if bits == 64 else np.int32)
    out[~ok] = -(2 ** (bits - 1))
    return out


def round_half_away(x: np.ndarray) -> np.ndarray:
    """``std::round``: halves away from zero (NumPy's ``round`` goes to even)."""
    with quiet():
        t = np.trunc(x)
        frac = x - t
        out: np.ndarray = np.where(np.abs(frac) >= 0.5, t + np.sign(x), t)
        return out


# Up to this many sums at once, the plain Kahan loop allocates its steps' results instead of
# writing into buffers (``out=`` makes each NumPy call slower on small arrays).
_SMALL_KAHAN = 512
# Up to this many sums, the Kahan loop runs in Python floats, one sum at a time: about 0.6 us
# per term and sum against 3.5 us per term for NumPy's calls on a few elements (decode steps).
_SCALAR_KAHAN = 4


def _kahan_scalar(terms: np.ndarray) -> np.ndarray:
    """The plain Kahan loop of ``kahan_sum_leading`` (finite f32 or f64 terms) in Python floats,
    one sum at a time.  f64 is Python's own arithmetic; f32 steps are computed in f64 and
    rounded to f32 by storing into an ``array('f')`` (C's double -> float conversion, to
    nearest even), which gives f32 arithmetic's bits: a sum or difference of two f32 values
    rounded to f64 and then to f32 is the sum rounded once (double rounding is innocuous for
    + and - when 53 >= 2 * 24 + 2).  A step overflowing f32 gives inf, as NumPy's does."""
    flat = terms.reshape(terms.shape[0], -1)
    sums = []
    if terms.dtype == np.float64:
        for column in flat.T.tolist():
            total = comp = 0.0
            for x in column:
                y = x - comp
                t = total + y
                comp = (t - total) - y
                total = t
            sums.append(total)
    else:
        f = array.array("f", [0.0])  # (each store rounds to f32, each load is exact)
        for column in flat.T.tolist():
            total = comp = 0.0
            for x in column:
                f[0] = x - comp
                y = f[0]
                f[0] = total + y
                t = f[0]
                f[0] = t - total
                f[0] = f[0] - y
                comp = f[0]
                total = t
            sums.append(total)
    return np.array(sums, dtype=terms.dtype).reshape(terms.shape[1:])


def kahan_sum_leading(terms: np.ndarray) -> np.ndarray:
    """OpenVINO's ``details::kahan_summation`` of floats along axis 0, in order: the sums,
    shaped ``terms.shape[1:]``.

    A step whose term or running sum is not finite adds plainly and keeps the compensation.
    The plain Kahan loop (in place, on rows made contiguous) runs first: where its final sum
    is finite, no step met a non-finite value (a non-finite term makes the running sum
    non-finite, and a non-finite running sum or compensation stays so to the end), so it
    gives the same bits; otherwise the loop with those checks runs.
    """
    if (
        terms.shape[0]
        and terms.dtype in (np.float32, np.float64)
        and math.prod(terms.shape[1:]) <= _SCALAR_KAHAN
    ):
        sums = _kahan_scalar(terms)
        if np.isfinite(sums).all():
            return sums
        return _kahan_checked(terms)
    total = np.zeros(terms.shape[1:], dtype=terms.dtype)
    if not terms.shape[0]:
        return total
    rows = np.ascontiguousarray(terms)
    comp = np.zeros_like(total)
    with quiet():
        if total.size <= _SMALL_KAHAN:  # few sums: NumPy's call overhead decides, and ``out=`` costs more
            for term in rows:
                y = term - comp
                t = total + y
                comp = (t - total) - y
                total = t
        else:
            y = np.empty_like(total)
            spare = np.empty_like(total)
            for term in rows:
                np.subtract(term, comp, out=y)
                np.add(total, y, out=spare)
                np.subtract(spare, total, out=comp)
                np.subtract(comp, y, out=comp)
                total, spare = spare, total
    if np.isfinite(total).all():
        return np.asarray(total)
    return _kahan_checked(terms)


def _kahan_checked(terms: np.ndarray) -> np.ndarray:
    """``kahan_sum_leading`` step by step as the reference's loop: a step whose term or running
    sum is not finite adds plainly and keeps the compensation."""
    total = np.zeros(terms.shape[1:], dtype=terms.dtype)
    comp = np.zeros_like(total)
    with quiet():
        for term in terms:
            finite = np.isfinite(term) & np.isfinite(total)
            y = term - comp
            temp = total + y
            comp = np.where(finite, (temp - total) - y, comp)
            total = np.where(finite, temp, term + total)
    return total


_SAME_SIZE_INTS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def select(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.where(cond, a, b)`` for ``b``'s type and shape, ``a`` of the same type broadcasting to
    it: the same bits, by integer masks instead of a branch per element (``np.where`` runs at a
    tenth of the speed on a mask of mixed values).  Booleans and other types go to ``np.where``."""
    ints = _SAME_SIZE_INTS.get(b.dtype.itemsize)
    if ints is None or b.dtype.kind not in "fiuV" or a.dtype != b.dtype or b.ndim == 0:
        out: np.ndarray = np.where(cond, a, b)
        return out
    bits = np.ascontiguousarray(b).view(ints)
    other = np.ascontiguousarray(a).view(ints)
    mask = cond.astype(ints)
    np.negative(mask, out=mask)  # (all ones where cond)
    picked = np.bitwise_xor(bits, other)
    np.bitwise_and(picked, mask, out=picked)
    np.bitwise_xor(picked, bits, out=picked)
    return picked.view(b.dtype)
