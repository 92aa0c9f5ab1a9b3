"""Shared helpers of the shape-manipulating ops: axes, dimension arithmetic, known inputs.

OpenVINO's rules, restated (``src/core/src/dimension.cpp``, ``interval.cpp``,
``src/core/src/validation_util.cpp``):

* an axis is valid for rank ``r`` when ``-max(r, 1) <= axis < max(r, 1)`` (so a
  scalar takes axes 0 and -1, and an op may fail later on it, as in OpenVINO);
* dimension arithmetic saturates at "unbounded" (``max=None`` here);
* ``merge`` is the intersection of two intervals, ``None`` when empty;
* a shape-relevant input is *known* when its value is known (a Constant, or a
  tensor whose lower and upper bounds are equal); ``input_bounds`` gives per-element
  (lower, upper) pairs with the i32/i64 extreme values meaning "unbounded", as
  OpenVINO's ``get_input_bounds`` does.

Knows no particular op.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import ValidationError
from ...types import Dimension, ElementType
from .spec import TensorInfo

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def wrap64(v: int) -> int:
    """``v`` wrapped to int64 as a C++ sum or difference of int64 values wraps."""
    return (v + 2**63) % 2**64 - 2**63


# -- axes ------------------------------------------------------------------------------
def axis_error(axis: int, rank: int) -> ValidationError:
    r = max(rank, 1)
    return ValidationError(f"Axis {axis} out of the tensor rank range [{-r}, {r - 1}].")


def normalize_axis(axis: int, rank: int) -> int:
    """OpenVINO's axis normalization: ``-r <= axis < r`` with ``r = max(rank, 1)``.

    A scalar accepts axes 0 and -1 (both normalize to 0), as OpenVINO's checks do.
    """
    r = max(rank, 1)
    if not -r <= axis < r:
        raise axis_error(axis, rank)
    return axis + r if axis < 0 else axis


def normalize_axes(axes: Sequence[int], rank: int) -> list[int]:
    return [normalize_axis(a, rank) for a in axes]


# -- dimension arithmetic ------------------------------------------------------------
def _times(a: int | None, b: int | None) -> int | None:
    """Interval ``clip_times``: 0 wins over unbounded, unbounded over everything else."""
    if a == 0 or b == 0:
        return 0
    if a is None or b is None or a * b > INT64_MAX:
        return None
    return a * b


def mul(a: Dimension, b: Dimension) -> Dimension:
    """OpenVINO's ``Dimension::operator*`` (interval product, saturating)."""
    if a.is_static and a.min == 1:
        return b
    if b.is_static and b.min == 1:
        return a
    lo = _times(a.min, b.min)
    hi = _times(a.max, b.max)
    if lo is None:  # the lower bound overflowed: OpenVINO's interval degenerates; call it unknown
        return Dimension()
    return Dimension(lo, hi)


def add(a: Dimension, b: Dimension) -> Dimension:
    """OpenVINO's ``Dimension::operator+`` (saturating interval sum)."""
    if b.is_static and b.min == 0:
        return a
    if a.is_static and a.min == 0:
        return b
    return a + b


def dim_from_bounds(lo: int, hi: int) -> Dimension:
    """``Dimension(lo, hi)`` as OpenVINO builds it from int64 bounds (-1 or int64 max: unbounded).

    OpenVINO's ``Interval`` turns an empty interval (``hi < lo``, or a minimum of int64
    max, as ``ReduceMin`` of an empty shape vector gives) into its canonical empty
    interval, which prints and behaves as ``?``.
    """
    lo = 0 if lo == -1 else lo
    top = None if hi in (-1, INT64_MAX) else hi
    if lo == INT64_MAX or (top is not None and top < lo):
        return Dimension()
    return Dimension(lo, top)


# -- known inputs -----------------------------------------------------------------------
def known_ints(info: TensorInfo) -> list[int] | None:
    """The input's value as Python ints (OpenVINO's ``get_input_const_data_as<int64_t>``).

    Raises ValidationError when computing the value throws in OpenVINO (``info.error``).
    """
    _check_computable(info)
    if info.value is None:
        return None
    return [_as_int(v) for v in _elements(np.asarray(info.value))]


def _elements(a: np.ndarray) -> list[object] | np.ndarray:
    """The elements of ``a`` for :func:`_as_int`, flat: Python ints and bools at once for
    integer and boolean arrays (what ``_as_int`` makes of their NumPy scalars), else as is."""
    return a.reshape(-1).tolist() if a.dtype.kind in "iub" else a.reshape(-1)


def _check_computable(info: TensorInfo) -> None:
    if info.error is not None:
        raise ValidationError(f"computing this input's value fails: {info.error}")


def _as_int(v: object) -> int:
    if isinstance(v, (float, np.floating)):
        return int(np.trunc(v)) if np.isfinite(v) else 0
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    n: int = int(v)  # type: ignore[call-overload]  # v: a Python or NumPy integer, typed object
    return n - 2**64 if n > INT64_MAX else n  # u64 read as int64, as a static_cast does


def input_bounds(info: TensorInfo) -> list[tuple[int, int]] | None:
    """Per element (lower, upper) as int64, or None; extremes of i32/i64 map to int64's.

    OpenVINO's ``get_input_bounds<..., int64_t>``: a value equal to the type's max
    (min) becomes int64 max (min), so an i32 "unbounded" reads as unbounded.
    """
    _check_computable(info)
    if info.value is not None:
        lows = highs = _elements(np.asarray(info.value))
    elif info.lower is not None and info.upper is not None:
        lows, highs = _elements(np.asarray(info.lower)), _elements(np.asarray(info.upper))
    else:
        return None
    et = info.element_type
    return [(_limit(et, _as_int(lo)), _limit(et, _as_int(hi))) for lo, hi in zip(lows, highs, strict=True)]


def _limit(et: ElementType, v: int) -> int:
    if et is ElementType.i32:
        if v == 2**31 - 1:
            return INT64_MAX
        if v == -(2**31):
            return INT64_MIN
    return v


def inverted_dimension(lo: int, hi: int) -> Dimension:
    """A dimension ``lo..hi`` with ``hi < lo``, printed as OpenVINO prints it (``1..0``).

    OpenVINO's Reshape can resolve a ``-1`` to such an interval (its setters skip the
    emptiness check) and keeps the model; ``Dimension`` refuses to build one, so this
    bypasses its check on purpose.  Nothing can satisfy the dimension at run time.
    """
    d = Dimension()
    object.__setattr__(d, "min", lo)
    object.__setattr__(d, "max", hi)
    return d


def passes_integral_number_check(et: ElementType) -> bool:
    """Whether OpenVINO's ``Type::is_integral_number()`` check passes: not a float and not
    boolean, so dynamic, string and nf4 pass too.  (``ElementType.is_integral_number`` is the
    strict "signed or unsigned integer".)"""
    return not et.is_real and et is not ElementType.boolean
