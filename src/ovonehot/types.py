"""Element types, dimensions and partial shapes, as OpenVINO has them.

This module knows OpenVINO's type system and shape notation and nothing about
the IR file or any op.  Shapes print in OpenVINO's own notation:
``[2,?,1..10,2..,..5]``, ``[...]`` for a dynamic rank, ``[]`` for a scalar.

>>> str(PartialShape.parse("2,?,1..10,2..,..5"))
'[2,?,1..10,2..,..5]'
>>> str(PartialShape.parse("..."))
'[...]'
>>> ElementType.from_name("boolean").numpy_dtype
dtype('bool')
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .errors import IRError, quote

try:  # ml_dtypes gives NumPy bf16, f8 and sub-byte integer dtypes.
    import ml_dtypes as _mld
except ImportError:  # pragma: no cover - ml_dtypes is a declared dependency
    _mld = None  # type: ignore[assignment]


class TypeKind(enum.Enum):
    """The families OpenVINO's ``is_real``/``is_integral``/``is_signed`` split types into."""

    # Members are singletons: identity hashing in C, not Enum's hash of the name in Python
    # (element types key the evaluator's hottest dict lookups).
    __hash__ = object.__hash__

    BOOLEAN = "boolean"
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    REAL = "real"
    QUANTIZED = "quantized"  # nf4: integral for OpenVINO's checks, a lookup-table float in truth
    STRING = "string"
    DYNAMIC = "dynamic"


def _ml(name: str) -> np.dtype | None:
    if _mld is None or not hasattr(_mld, name):
        return None
    scalar_type: type = getattr(_mld, name)
    return np.dtype(scalar_type)


class ElementType(enum.Enum):
    """An OpenVINO element type, valued by its IR name (``element_type="..."``).

    ``numpy_dtype`` is how ovonehot holds the values in memory; ``None`` means
    NumPy cannot hold them and ovonehot refuses to compute with them.  Sub-byte
    integers u1/u3/u6 are held unpacked, one value per ``uint8``.
    """

    __hash__ = object.__hash__  # (as TypeKind's)

    boolean = "boolean"
    bf16 = "bf16"
    f16 = "f16"
    f32 = "f32"
    f64 = "f64"
    i4 = "i4"
    i8 = "i8"
    i16 = "i16"
    i32 = "i32"
    i64 = "i64"
    u1 = "u1"
    u2 = "u2"
    u3 = "u3"
    u4 = "u4"
    u6 = "u6"
    u8 = "u8"
    u16 = "u16"
    u32 = "u32"
    u64 = "u64"
    nf4 = "nf4"
    f8e4m3 = "f8e4m3"
    f8e5m2 = "f8e5m2"
    f8e8m0 = "f8e8m0"
    f4e2m1 = "f4e2m1"
    string = "string"
    dynamic = "dynamic"

    # -- look-ups -----------------------------------------------------------------
    @classmethod
    def from_name(cls, name: str) -> ElementType:
        """An IR ``element_type`` name (case-insensitive; OpenVINO's aliases too)."""
        key = name.strip().lower()
        key = _ALIASES.get(key, key)
        try:
            return cls(key)
        except ValueError:
            raise IRError(
                f"unknown element type {quote(name)}; expected one of: " + ", ".join(t.value for t in cls)
            ) from None

    @classmethod
    def from_precision(cls, precision: str) -> ElementType:
        """A legacy port ``precision`` name (FP32, I64, BOOL, BIN, ...)."""
        key = precision.strip().upper()
        if key in _PRECISION_TO_TYPE:
            return _PRECISION_TO_TYPE[key]
        try:
            return cls.from_name(precision)
        except IRError:
            raise IRError(f"unknown port precision {quote(precision)}") from None

    @classmethod
    def from_numpy(cls, dtype: np.dtype) -> ElementType:
        """The element type whose in-memory dtype is ``dtype`` (u1/u3/u6 are never chosen)."""
        dtype = np.dtype(dtype)
        if dtype.kind in "OUS":
            return cls.string
        for t in _NUMPY_PREFERENCE:
            if t.numpy_dtype == dtype:
                return t
        raise IRError(f"NumPy dtype {dtype} has no OpenVINO element type")

    # -- properties -------------------------------------------------------------
    @property
    def kind(self) -> TypeKind:
        return _KIND[self]

    @property
    def bitwidth(self) -> int:
        return _BITWIDTH[self]

    @property
    def precision(self) -> str:
        """The legacy name OpenVINO writes in a port's ``precision`` attribute."""
        return _TYPE_TO_PRECISION[self]

    @property
    def is_dynamic(self) -> bool:
        return self is ElementType.dynamic

    @property
    def is_real(self) -> bool:
        return self.kind is TypeKind.REAL

    @property
    def is_integral(self) -> bool:
        """OpenVINO's ``is_integral``: anything static that is not a float (boolean, string, nf4 too)."""
        return not self.is_real and not self.is_dynamic

    @property
    def is_integral_number(self) -> bool:
        """Integers proper: signed or unsigned, not boolean, string or nf4."""
        return self.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED)

    @property
    def is_signed(self) -> bool:
        return self.kind in (TypeKind.SIGNED, TypeKind.REAL, TypeKind.BOOLEAN)

    @property
    def numpy_dtype(self) -> np.dtype | None:
        return _NUMPY.get(self)

    def compatible(self, other: ElementType) -> bool:
        """OpenVINO's ``Type::compatible``: equal, or either is dynamic."""
        return self is other or self.is_dynamic or other.is_dynamic

    def merge(self, other: ElementType) -> ElementType | None:
        """OpenVINO's ``Type::merge``: the more precise of two compatible types, else None."""
        if self.is_dynamic:
            return other
        if other.is_dynamic or self is other:
            return self
        return None

    def __str__(self) -> str:
        return self.value


_ALIASES = {"bool": "boolean", "undefined": "dynamic", "u1": "u1", "bin": "u1"}

_KIND: dict[ElementType, TypeKind] = {}
_BITWIDTH: dict[ElementType, int] = {}
_TYPE_TO_PRECISION: dict[ElementType, str] = {}
for _t, _kind, _bits, _prec in [
    (ElementType.boolean, TypeKind.BOOLEAN, 8, "BOOL"),
    (ElementType.bf16, TypeKind.REAL, 16, "BF16"),
    (ElementType.f16, TypeKind.REAL, 16, "FP16"),
    (ElementType.f32, TypeKind.REAL, 32, "FP32"),
    (ElementType.f64, TypeKind.REAL, 64, "FP64"),
    (ElementType.i4, TypeKind.SIGNED, 4, "I4"),
    (ElementType.i8, TypeKind.SIGNED, 8, "I8"),
    (ElementType.i16, TypeKind.SIGNED, 16, "I16"),
    (ElementType.i32, TypeKind.SIGNED, 32, "I32"),
    (ElementType.i64, TypeKind.SIGNED, 64, "I64"),
    (ElementType.u1, TypeKind.UNSIGNED, 1, "BIN"),
    (ElementType.u2, TypeKind.UNSIGNED, 2, "U2"),
    (ElementType.u3, TypeKind.UNSIGNED, 3, "U3"),
    (ElementType.u4, TypeKind.UNSIGNED, 4, "U4"),
    (ElementType.u6, TypeKind.UNSIGNED, 6, "U6"),
    (ElementType.u8, TypeKind.UNSIGNED, 8, "U8"),
    (ElementType.u16, TypeKind.UNSIGNED, 16, "U16"),
    (ElementType.u32, TypeKind.UNSIGNED, 32, "U32"),
    (ElementType.u64, TypeKind.UNSIGNED, 64, "U64"),
    (ElementType.nf4, TypeKind.QUANTIZED, 4, "NF4"),
    (ElementType.f8e4m3, TypeKind.REAL, 8, "F8E4M3"),
    (ElementType.f8e5m2, TypeKind.REAL, 8, "F8E5M2"),
    (ElementType.f8e8m0, TypeKind.REAL, 8, "F8E8M0"),
    (ElementType.f4e2m1, TypeKind.REAL, 4, "F4E2M1"),
    (ElementType.string, TypeKind.STRING, 256, "STRING"),
    (ElementType.dynamic, TypeKind.DYNAMIC, 0, "UNSPECIFIED"),
]:
    _KIND[_t], _BITWIDTH[_t], _TYPE_TO_PRECISION[_t] = _kind, _bits, _prec

_PRECISION_TO_TYPE = {p: t for t, p in _TYPE_TO_PRECISION.items()}
# Older IR spellings OpenVINO still reads.
_PRECISION_TO_TYPE.update(
    {
        "U1": ElementType.u1,
        "BOOLEAN": ElementType.boolean,
        "DYNAMIC": ElementType.dynamic,
        "UNDEFINED": ElementType.dynamic,
        "F16": ElementType.f16,
        "F32": ElementType.f32,
        "F64": ElementType.f64,
        "UNSPECIFIED": ElementType.dynamic,
    }
)

_NUMPY: dict[ElementType, np.dtype] = {
    ElementType.boolean: np.dtype(np.bool_),
    ElementType.f16: np.dtype(np.float16),
    ElementType.f32: np.dtype(np.float32),
    ElementType.f64: np.dtype(np.float64),
    ElementType.i8: np.dtype(np.int8),
    ElementType.i16: np.dtype(np.int16),
    ElementType.i32: np.dtype(np.int32),
    ElementType.i64: np.dtype(np.int64),
    ElementType.u1: np.dtype(np.uint8),
    ElementType.u3: np.dtype(np.uint8),
    ElementType.u6: np.dtype(np.uint8),
    ElementType.u8: np.dtype(np.uint8),
    ElementType.u16: np.dtype(np.uint16),
    ElementType.u32: np.dtype(np.uint32),
    ElementType.u64: np.dtype(np.uint64),
    ElementType.string: np.dtype(object),
    # nf4 codes (indices into the NF4 table, see ``NF4_TABLE``), unpacked one per byte, in a
    # dtype of their own so that nothing mistakes them for u8 values.
    ElementType.nf4: np.dtype([("nf4", np.uint8)]),
}

# The values of the 16 nf4 codes (QLoRA's NormalFloat4), as f32: what OpenVINO's Convert from
# nf4 gives (checked bit for bit against Node.evaluate and the CPU plugin of 2026.4.1).
NF4_TABLE = np.array(
    [
        -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
        -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
        0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
        0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
    ],
    dtype=np.float32,
)  # fmt: skip
for _t, _name in [
    (ElementType.bf16, "bfloat16"),
    (ElementType.f8e4m3, "float8_e4m3fn"),
    (ElementType.f8e5m2, "float8_e5m2"),
    (ElementType.f8e8m0, "float8_e8m0fnu"),
    (ElementType.f4e2m1, "float4_e2m1fn"),
    (ElementType.i4, "int4"),
    (ElementType.u4, "uint4"),
    (ElementType.u2, "uint2"),
]:
    _dt = _ml(_name)
    if _dt is not None:
        _NUMPY[_t] = _dt

# When mapping a NumPy dtype back, prefer the full-width types over the unpacked sub-byte ones.
_NUMPY_PREFERENCE = [t for t in ElementType if t not in (ElementType.u1, ElementType.u3, ElementType.u6)]


def numpy_dtype_of(et: ElementType) -> np.dtype:
    """``et.numpy_dtype`` where the caller knows ``et`` is static (a kernel's output type, a typed
    tensor's): every static type has a dtype, so a missing one is an ovonehot bug."""
    dtype = _NUMPY.get(et)
    if dtype is None:
        raise AssertionError(f"ovonehot bug: element type {et} has no NumPy dtype here")
    return dtype


# ---------------------------------------------------------------------------------------
# Dimensions and partial shapes
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dimension:
    """A dimension: the interval ``[min, max]``; ``max=None`` is unbounded.

    Static when ``min == max``; ``Dimension()`` is fully dynamic (``?``).
    """

    min: int = 0
    max: int | None = None

    def __post_init__(self) -> None:
        if self.min < 0 or (self.max is not None and self.max < self.min):
            raise ValueError(f"bad dimension interval [{self.min}, {self.max}]")

    @classmethod
    def static(cls, n: int) -> Dimension:
        return cls(n, n)

    @classmethod
    def parse(cls, text: str) -> Dimension:
        """One dim of IR/OpenVINO notation: ``N``, ``?``, ``-1``, ``a..b``, ``..b``, ``a..``, ``..``."""
        s = text.strip(_ASCII_SPACE)  # not str.strip(): OpenVINO refuses a no-break space
        if s.isdigit() and s.isascii():  # the common case, without the regular expressions
            n = int(s)
            return cls(n, n)
        if s in ("?", "-1", ".."):
            return cls()
        m = _INTERVAL.fullmatch(s)
        if m:
            lo = int(m.group(1)) if m.group(1) else 0
            hi = int(m.group(2)) if m.group(2) else None
            if hi is not None and hi < lo:
                raise ValueError(f"empty interval {quote(s)}")
            if max(lo, hi or 0) > _INT64_MAX:
                raise ValueError(f"dimension {quote(s)} does not fit in int64")
            return cls(lo, hi)
        if _INT.fullmatch(s):
            n = int(s)
            if n < 0:
                raise ValueError(f"negative dimension {quote(s)}")
            if n > _INT64_MAX:  # OpenVINO refuses the file
                raise ValueError(f"dimension {quote(s)} does not fit in int64")
            return cls(n, n)
        raise ValueError(f"not a dimension: {quote(s)}")

    @property
    def is_static(self) -> bool:
        return self.max == self.min

    @property
    def is_dynamic(self) -> bool:
        return not self.is_static

    @property
    def length(self) -> int:
        if not self.is_static:
            raise ValueError(f"dimension {self} is not static")
        return self.min

    def contains(self, n: int) -> bool:
        return self.min <= n and (self.max is None or n <= self.max)

    def compatible(self, other: Dimension) -> bool:
        """Intervals intersect (OpenVINO's ``Dimension::compatible``)."""
        lo = max(self.min, other.min)
        hi = _min_opt(self.max, other.max)
        return hi is None or lo <= hi

    def merge(self, other: Dimension) -> Dimension | None:
        """OpenVINO's ``Dimension::merge``: the intersection of two intervals, None when empty."""
        lo = max(self.min, other.min)
        hi = _min_opt(self.max, other.max)
        if hi is not None and hi < lo:
            return None
        if lo == self.min and hi == self.max:  # (the common case: no new object)
            return self
        return Dimension(lo, hi)

    def __add__(self, other: Dimension) -> Dimension:
        hi = None if self.max is None or other.max is None else self.max + other.max
        return Dimension(self.min + other.min, hi)

    def __str__(self) -> str:
        if self.is_static:
            return str(self.min)
        if self.max is None:
            return "?" if self.min == 0 else f"{self.min}.."
        return f"..{self.max}" if self.min == 0 else f"{self.min}..{self.max}"

    def __repr__(self) -> str:
        return f"Dimension({self})"


def _min_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


# ASCII digits only, no '+' and no '_': OpenVINO refuses "٣", "+3" and "1_0" in a shape.
_INTERVAL = re.compile(r"([0-9]*)\.\.([0-9]*)", re.ASCII)
_INT = re.compile(r"-?[0-9]+", re.ASCII)
_INT64_MAX = 2**63 - 1
_ASCII_SPACE = " \t\n\r\f\v"


@dataclass(frozen=True, slots=True)
class PartialShape:
    """A shape whose rank may be unknown (``dims is None``) and whose dims may be intervals."""

    dims: tuple[Dimension, ...] | None

    # -- construction -------------------------------------------------------------
    @classmethod
    def dynamic(cls) -> PartialShape:
        return cls(None)

    @classmethod
    def of(cls, dims: Iterable[int | Dimension]) -> PartialShape:
        return cls(tuple(d if isinstance(d, Dimension) else Dimension.static(int(d)) for d in dims))

    @classmethod
    def parse(cls, text: str) -> PartialShape:
        """IR ``data shape`` / OpenVINO notation: ``"2,?,1..10"``, ``"[...]"``, ``""`` (scalar).

        Raises ``ValueError`` with the offending part; callers add the layer context.
        """
        s = text.strip(_ASCII_SPACE)
        if s.startswith("[") and s.endswith("]"):
            s = s[1:-1].strip(_ASCII_SPACE)
        if s == "...":
            return cls(None)
        if s == "":
            return cls(())
        return cls(tuple(Dimension.parse(part) for part in s.split(",")))

    # -- queries -------------------------------------------------------------------
    @property
    def rank_is_static(self) -> bool:
        return self.dims is not None

    @property
    def rank(self) -> int:
        if self.dims is None:
            raise ValueError("rank is dynamic")
        return len(self.dims)

    @property
    def is_static(self) -> bool:
        return self.dims is not None and all(d.is_static for d in self.dims)

    def to_shape(self) -> tuple[int, ...]:
        if self.dims is None or not self.is_static:
            raise ValueError(f"shape {self} is not static")
        return tuple(d.min for d in self.dims)

    def accepts(self, shape: Sequence[int]) -> bool:
        """Whether a concrete shape fits this partial shape."""
        if self.dims is None:
            return True
        return len(shape) == len(self.dims) and all(
            d.contains(int(n)) for d, n in zip(self.dims, shape, strict=True)
        )

    def compatible(self, other: PartialShape) -> bool:
        if self.dims is None or other.dims is None:
            return True
        return len(self.dims) == len(other.dims) and all(
            a.compatible(b) for a, b in zip(self.dims, other.dims, strict=True)
        )

    def merge(self, other: PartialShape) -> PartialShape | None:
        """OpenVINO's ``PartialShape::merge_into``: ranks agree and dims intersect, else None."""
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        if len(self.dims) != len(other.dims):
            return None
        dims = []
        for a, b in zip(self.dims, other.dims, strict=True):
            m = a.merge(b)
            if m is None:
                return None
            dims.append(m)
        return PartialShape(tuple(dims))

    def __iter__(self) -> Iterator[Dimension]:
        if self.dims is None:
            raise ValueError("rank is dynamic")
        return iter(self.dims)

    def __len__(self) -> int:
        return self.rank

    def __getitem__(self, i: int) -> Dimension:
        if self.dims is None:
            raise ValueError("rank is dynamic")
        return self.dims[i]

    def __str__(self) -> str:
        if self.dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self.dims) + "]"

    def __repr__(self) -> str:
        return f"PartialShape({self})"
