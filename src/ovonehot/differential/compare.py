"""Compare two output tensors: shape, then element type, then values.

Integers and booleans compare exactly.  Floats compare either *exactly* (bit for
bit: a copy such as a OneHot output must keep -0.0 and NaN payloads) or within a
tolerance ``|ours - theirs| <= atol + rtol * |theirs|``, where NaN equals NaN and
``-0.0`` equals ``0.0`` (reported as a note).  A mismatch carries what a user
needs to act on it: how many elements differ, the first positions with both
values, the largest error and the smallest tolerance that would pass.

>>> a = np.array([1.0, -0.0, np.nan], np.float32)
>>> compare(a, a.copy(), Tolerance.exact()).equal
True
>>> compare(a, np.array([1.0, 0.0, np.nan], np.float32), Tolerance.exact()).summary()
'1 of 3 elements differ (1 only in the sign of zero); first at [1]: ours -0.0, theirs 0.0'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..types import ElementType

# Positions listed in a mismatch.
FIRST = 5

# One tensor element as Python holds it: what a mismatch lists at each of its first positions
# (the JSON's numbers; bf16/f16/f8 as floats, bool as bool, a string element as its text).
Scalar = float | int | bool | str


@dataclass(frozen=True, slots=True)
class Tolerance:
    """``exact``: bit-for-bit for floats; else ``|a-b| <= atol + rtol*|b|`` with NaN == NaN."""

    atol: float = 0.0
    rtol: float = 0.0
    is_exact: bool = False

    @classmethod
    def exact(cls) -> Tolerance:
        return cls(0.0, 0.0, True)

    def __str__(self) -> str:
        return "exact (bit for bit)" if self.is_exact else f"atol={self.atol:g} rtol={self.rtol:g}"

    def as_json(self) -> dict[str, float | bool]:
        """``{"atol", "rtol", "exact"}`` (exact: bit for bit, atol and rtol 0)."""
        return {"atol": self.atol, "rtol": self.rtol, "exact": self.is_exact}


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome of comparing ours with theirs.

    ``kind`` is ``None`` when equal, else ``"shape"``, ``"element type"`` or ``"values"``.
    """

    kind: str | None
    detail: str = ""
    count: int = 0
    total: int = 0
    positions: tuple[tuple[int, ...], ...] = ()
    # The values at ``positions`` (compare=False: a NaN is never equal to itself).
    ours: tuple[Scalar, ...] = field(default=(), compare=False)
    theirs: tuple[Scalar, ...] = field(default=(), compare=False)
    max_abs_error: float | None = None
    passing_atol: float | None = None  # smallest atol passing with rtol = 0
    passing_rtol: float | None = None  # smallest rtol passing with atol = 0
    notes: tuple[str, ...] = field(default=())
    # Where the values differ (a boolean array of the outputs' shape) and the absolute error at
    # each of those positions (row-major; inf for NaN against a number): what the HTML report
    # plots, so its counts are this comparison's.  Not compared, not printed, not in the JSON.
    where: np.ndarray | None = field(default=None, compare=False, repr=False)
    errors: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def equal(self) -> bool:
        return self.kind is None

    def as_json(self) -> dict[str, Any]:
        """The comparison as JSON: ``ours``/``theirs`` are the values at ``positions`` (lists of
        ints) as numbers (NaN and infinities become "nan", "inf", "-inf" in the document:
        :func:`ovonehot.jsondata.plain`)."""
        return {
            "kind": self.kind,
            "summary": self.summary(),
            "count": self.count,
            "total": self.total,
            "positions": [list(p) for p in self.positions],
            "ours": list(self.ours),
            "theirs": list(self.theirs),
            "max_abs_error": self.max_abs_error,
            "passing_atol": self.passing_atol,
            "passing_rtol": self.passing_rtol,
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        if self.kind is None:
            return "equal" + (f" ({'; '.join(self.notes)})" if self.notes else "")
        if self.kind != "values":
            return f"{self.kind} differs: {self.detail}"
        first = (
            f"first at {list(self.positions[0])}: ours {value_text(self.ours[0])}, "
            f"theirs {value_text(self.theirs[0])}"
        )
        extra = f" ({self.detail})" if self.detail else ""
        return f"{self.count} of {self.total} elements differ{extra}; {first}"


def scalar(value: object) -> Scalar:
    """A tensor element as a Python number (bf16/f16/f8 as float, int4 as int), a bool, or text."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def value_text(value: Scalar) -> str:
    """An element as the reports print it: ``-0.0``, ``nan``, ``inf``, ``1099511627776``, ``True``."""
    return repr(value)


def element_type_name(array: np.ndarray) -> str:
    try:
        return str(ElementType.from_numpy(array.dtype))
    except Exception:  # noqa: BLE001 - any dtype without an OpenVINO name is shown as NumPy's
        return str(array.dtype)


def _is_float(dtype: np.dtype) -> bool:
    try:
        return ElementType.from_numpy(dtype).is_real
    except Exception:  # noqa: BLE001 - not an OpenVINO type: not a float we know
        return dtype.kind == "f"


def compare(ours: np.ndarray, theirs: np.ndarray, tolerance: Tolerance) -> Comparison:
    """Compare in the order shape, element type, values."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return Comparison("shape", f"ours {list(ours.shape)}, theirs {list(theirs.shape)}")
    if ours.dtype != theirs.dtype:
        return Comparison(
            "element type", f"ours {element_type_name(ours)}, theirs {element_type_name(theirs)}"
        )
    if ours.dtype == object:
        diff = ours != theirs
        return _values(ours, theirs, np.asarray(diff, dtype=bool), None, ())
    if not _is_float(ours.dtype):
        diff = ours != theirs
        err = _int_errors(ours, theirs, diff)
        return _values(ours, theirs, diff, err, ())
    a = ours.astype(np.float64)
    b = theirs.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    both_nan = nan_a & nan_b
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.where(both_nan, 0.0, np.abs(a - b))
    abs_err = np.where(nan_a ^ nan_b, np.inf, abs_err)
    abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)  # inf - inf of the same sign is equal below
    same_inf = np.isinf(a) & np.isinf(b) & (a == b)
    abs_err = np.where(same_inf, 0.0, abs_err)
    signed_zero = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    width = ours.dtype.itemsize
    bits_a = ours.reshape(-1).view(f"u{width}").reshape(ours.shape) if ours.size else ours
    bits_b = theirs.reshape(-1).view(f"u{width}").reshape(theirs.shape) if theirs.size else theirs
    payload = both_nan & (bits_a != bits_b)
    notes = []
    if tolerance.is_exact:
        diff = (abs_err != 0) | signed_zero | payload
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            # (an infinite reference allows no slack: rtol * inf would accept anything)
            allowed = np.where(np.isfinite(b), tolerance.atol + tolerance.rtol * np.abs(b), 0.0)
        diff = abs_err > allowed
        if np.any(signed_zero & ~diff):
            notes.append(
                f"{int(np.count_nonzero(signed_zero & ~diff))} zeros differ only in sign (-0.0 vs 0.0)"
            )
        if np.any(payload & ~diff):
            notes.append(f"{int(np.count_nonzero(payload & ~diff))} NaNs differ in payload bits")
    details = []
    if tolerance.is_exact and np.any(diff):
        if np.any(signed_zero):
            details.append(f"{int(np.count_nonzero(signed_zero))} only in the sign of zero")
        if np.any(payload):
            details.append(f"{int(np.count_nonzero(payload))} only in NaN payload bits")
    return _values(ours, theirs, diff, abs_err, tuple(notes), "; ".join(details), b)


def _int_errors(ours: np.ndarray, theirs: np.ndarray, diff: np.ndarray) -> np.ndarray:
    if ours.dtype == np.bool_:
        return diff.astype(np.float64)
    # Python ints would be exact, but float64 is enough to rank errors and report tolerances.
    return np.abs(ours.astype(np.float64) - theirs.astype(np.float64))


def _values(
    ours: np.ndarray,
    theirs: np.ndarray,
    diff: np.ndarray,
    abs_err: np.ndarray | None,
    notes: tuple[str, ...],
    detail: str = "",
    reference: np.ndarray | None = None,
) -> Comparison:
    count = int(np.count_nonzero(diff))
    if count == 0:
        return Comparison(None, total=int(ours.size), notes=notes)
    where = np.argwhere(diff)[:FIRST]
    positions = tuple(tuple(int(i) for i in w) for w in where)
    ours_v = tuple(scalar(ours[p]) for p in positions)
    theirs_v = tuple(scalar(theirs[p]) for p in positions)
    max_err = passing_atol = passing_rtol = None
    errs = None
    if abs_err is not None:
        errs = abs_err[diff]
        max_err = float(errs.max())
        passing_atol = max_err
        if reference is not None:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                rel = np.where(errs == 0, 0.0, errs / np.abs(reference[diff]))
            passing_rtol = float(np.nan_to_num(rel, nan=np.inf).max())
    return Comparison(
        "values",
        detail,
        count,
        int(ours.size),
        positions,
        ours_v,
        theirs_v,
        max_err,
        passing_atol,
        passing_rtol,
        notes,
        diff,
        errs,
    )


def error_size(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """The largest absolute and relative error over two arrays of one shape (NaN == NaN, inf == inf;
    relative to ``|theirs|``, infinite where theirs is 0 and ours is not).

    >>> error_size(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    (0.5, 0.2)
    """
    a = np.asarray(ours).astype(np.float64)
    b = np.asarray(theirs).astype(np.float64)
    if a.shape != b.shape or not a.size:
        return (0.0, 0.0) if a.shape == b.shape else (math.inf, math.inf)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs(a - b)
        same = (np.isnan(a) & np.isnan(b)) | (a == b)
        err = np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))
        rel = np.where(err == 0, 0.0, err / np.abs(b))
    return float(err.max()), float(np.nan_to_num(rel, nan=np.inf).max())
