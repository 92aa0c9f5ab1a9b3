"""A 4-bit constant kept packed in memory: two values per byte, unpacked on demand.

The reader (``ir.payload.decode_lazy``) keeps large u4/i4 Constants so; the graph and the ops
see them as ``Node.payload`` / ``ConstantAttrs.value``; a Constant's ``evaluate`` unpacks the
whole (``np.asarray`` does too), and the fused weight decompression
(:mod:`ovonehot.decompression`) unpacks one block of rows at a time.
"""

from __future__ import annotations

import math

import numpy as np

from .types import ElementType

__all__ = ["NIBBLES", "Packed"]

NIBBLES = frozenset({ElementType.u4, ElementType.i4})


def _packed_size(count: int) -> int:
    return (count + 1) // 2


class Packed:
    """A u4/i4 constant kept as its packed bytes (two values per byte, element 0 in the low
    nibble), unpacked on demand: a 4-bit weight costs half a byte in memory instead of the one
    byte per value NumPy holds it in.  ``np.asarray`` of it (``__array__``) unpacks the whole;
    ``take`` unpacks a slice along axis 0 only.  Made by the reader from a payload whose size
    it checked; read-only (the bytes may be the mapped .bin)."""

    __slots__ = ("_raw", "dtype", "element_type", "shape")

    def __init__(self, element_type: ElementType, shape: tuple[int, ...], raw: np.ndarray) -> None:
        if element_type not in NIBBLES or element_type.numpy_dtype is None:
            raise ValueError(f"ovonehot bug: {element_type} constants are not kept packed")
        if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size < _packed_size(math.prod(shape)):
            raise ValueError("ovonehot bug: a packed payload shorter than its shape")
        self.element_type = element_type
        self.shape = shape
        self.dtype: np.dtype = element_type.numpy_dtype
        self._raw = raw

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        """The bytes it holds (packed)."""
        return _packed_size(self.size)

    @property
    def raw(self) -> np.ndarray:
        """The packed bytes, as the .bin holds them."""
        return self._raw[: self.nbytes]

    def __repr__(self) -> str:
        return f"Packed({self.element_type}, {list(self.shape)})"

    def __array__(self, dtype: np.dtype | None = None, copy: bool | None = None) -> np.ndarray:
        values = self.unpack()
        return values if dtype is None else values.astype(dtype)

    def unpack(self) -> np.ndarray:
        """Every value, as ``decode`` gives them (a fresh array)."""
        return self._codes(0, self.size).view(self.dtype).reshape(self.shape) if self.size else self._empty()

    def take(self, index: slice | np.ndarray) -> np.ndarray:
        """The slice ``index`` (a range, or row indices) along axis 0, unpacked."""
        rows = self.shape[0] if self.shape else 0
        row = math.prod(self.shape[1:])
        if isinstance(index, slice):
            lo, hi, step = index.indices(rows)
            if step != 1:
                return self.unpack()[index]
            out = self._codes(lo * row, max(hi - lo, 0) * row)
            return out.view(self.dtype).reshape((max(hi - lo, 0), *self.shape[1:]))
        picked = np.asarray(index, dtype=np.int64).reshape(-1)
        picked = np.where(picked < 0, picked + rows, picked)
        if picked.size and (int(picked.min()) < 0 or int(picked.max()) >= rows):
            raise IndexError(f"row index out of range for {rows} rows")
        out = np.empty((picked.size, row), np.uint8)
        for k, r in enumerate(picked.tolist()):
            out[k] = self._codes(r * row, row)
        return out.view(self.dtype).reshape((picked.size, *self.shape[1:]))

    def _codes(self, start: int, count: int) -> np.ndarray:
        """Elements ``start .. start + count`` as one byte each, the nibble: the byte ml_dtypes
        holds a uint4 or an int4 in (it reads an int4's nibble as signed)."""
        if count <= 0:
            return np.empty(0, np.uint8)
        first, last = start // 2, (start + count - 1) // 2
        data = self._raw[first : last + 1]
        codes = np.empty((data.size, 2), np.uint8)
        np.bitwise_and(data, 0xF, out=codes[:, 0])
        np.right_shift(data, 4, out=codes[:, 1])
        flat = codes.reshape(-1)
        lo = start - 2 * first
        return flat[lo : lo + count] if lo or flat.size != count else flat

    def _empty(self) -> np.ndarray:
        return np.empty(self.shape, self.dtype)
