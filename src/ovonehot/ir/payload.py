"""Constant payloads: bytes in the .bin <-> NumPy arrays, packed as OpenVINO packs them.

Packing (checked against ``ov.save_model`` output, see docs/openvino-behaviour.md):
  * u1: 8 per byte, element 0 in the top bit.
  * u2: 4 per byte, element 0 in the two low bits.
  * u4, i4, nf4, f4e2m1: 2 per byte, element 0 in the low nibble.
  * u3: blocks of 8 values in 3 bytes: bytes 0-1 hold the two low bits of each
    value, element 0 in the top bits of byte 0; byte 2 holds the high bit of each,
    element 0 in the top bit.
  * u6: blocks of 4 values in 3 bytes: bytes 0-1 hold the low nibbles, element 0
    in the high nibble of byte 0; byte 2 holds the two high bits of each, element 0
    in the top bits.
  * string: int32 count N, then N+1 int32 offsets starting at 0, then the bytes.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import IRError, UnsupportedError
from ..packed import NIBBLES, Packed
from ..types import ElementType


def packed_size(element_type: ElementType, count: int) -> int:
    """Bytes OpenVINO needs for ``count`` elements (strings excluded)."""
    t = element_type
    if t is ElementType.u3:
        return 3 * math.ceil(count / 8)
    if t is ElementType.u6:
        return 3 * math.ceil(count / 4)
    return math.ceil(count * t.bitwidth / 8)


def decode(element_type: ElementType, shape: tuple[int, ...], raw: memoryview | bytes) -> np.ndarray:
    """Decode ``raw`` (at least the packed size) into an array of ``shape``.

    Raises IRError for a payload that is too short or malformed, UnsupportedError for
    a type NumPy cannot hold.
    """
    t = element_type
    count = math.prod(shape)
    if t is ElementType.string:
        return _decode_strings(shape, count, bytes(raw))
    if t.numpy_dtype is None:
        raise UnsupportedError(f"constants of element type {t} cannot be held in NumPy")
    need = packed_size(t, count)
    if len(raw) < need:
        raise IRError(f"payload holds {len(raw)} bytes, {need} needed for {count} x {t}")
    data = np.frombuffer(raw, dtype=np.uint8, count=need)
    if t.bitwidth >= 8:
        out = np.frombuffer(raw, dtype=t.numpy_dtype, count=count)
        return out.reshape(shape)
    codes = _unpack_sub_byte(t, data, count)
    if t is ElementType.i4:  # sign-extend the nibble
        return (
            (codes.astype(np.int8) - ((codes >= 8) * 16).astype(np.int8)).astype(t.numpy_dtype).reshape(shape)
        )
    if t in (ElementType.f4e2m1, ElementType.nf4):  # a bit pattern / a code, not a value
        return codes.view(t.numpy_dtype).reshape(shape)
    return codes.astype(t.numpy_dtype).reshape(shape)


def encode(element_type: ElementType, array: np.ndarray | Packed) -> bytes:
    """Pack ``array`` as OpenVINO stores ``element_type`` constants."""
    t = element_type
    if isinstance(array, Packed):
        if array.element_type is t:  # (its bytes are the packing already)
            return array.raw.tobytes()
        array = array.unpack()
    flat = np.asarray(array).reshape(-1)
    if t is ElementType.string:
        parts: list[bytes] = [
            s.encode("utf-8", "surrogateescape") if isinstance(s, str) else bytes(s) for s in flat
        ]
        ends: np.ndarray = np.cumsum([0] + [len(p) for p in parts]).astype("<i4")
        count: bytes = np.int32(len(parts)).tobytes()
        return count + ends.tobytes() + b"".join(parts)
    if t.bitwidth >= 8:
        return np.ascontiguousarray(flat.astype(t.numpy_dtype)).tobytes()
    codes = _codes(t, flat)
    return _pack_sub_byte(t, codes).tobytes()


# -- sub-byte ------------------------------------------------------------------------


def _codes(t: ElementType, flat: np.ndarray) -> np.ndarray:
    """The raw bit patterns (as uint8) of sub-byte values."""
    if t in (ElementType.i4, ElementType.u4, ElementType.u2, ElementType.f4e2m1):
        return flat.astype(t.numpy_dtype).view(np.uint8) & ((1 << t.bitwidth) - 1)
    if t is ElementType.nf4:
        return np.ascontiguousarray(flat).view(np.uint8) & 0xF
    return flat.astype(np.uint8) & ((1 << t.bitwidth) - 1)


def _unpack_sub_byte(t: ElementType, data: np.ndarray, count: int) -> np.ndarray:
    """Unpack into one uint8 code per element; signed/float codes are re-typed by the caller."""
    if t is ElementType.u1:
        return np.unpackbits(data, bitorder="big")[:count]
    if t is ElementType.u2:
        shifts = np.array([0, 2, 4, 6], dtype=np.uint8)
        return ((data[:, None] >> shifts) & 0b11).reshape(-1)[:count]
    if t is ElementType.u3:
        blocks = data.reshape(-1, 3)
        shifts2 = np.array([6, 4, 2, 0], dtype=np.uint8)
        low = ((blocks[:, :2, None] >> shifts2) & 0b11).reshape(-1, 8)
        high = np.unpackbits(blocks[:, 2:3], axis=1, bitorder="big")
        return ((high << 2) | low).reshape(-1)[:count]
    if t is ElementType.u6:
        blocks = data.reshape(-1, 3)
        shifts4 = np.array([4, 0], dtype=np.uint8)
        low = ((blocks[:, :2, None] >> shifts4) & 0xF).reshape(-1, 4)
        shifts2 = np.array([6, 4, 2, 0], dtype=np.uint8)
        top = (blocks[:, 2:3] >> shifts2) & 0b11
        return ((top << 4) | low).reshape(-1)[:count]
    # 4-bit types: element 0 in the low nibble.
    return np.stack([data & 0xF, data >> 4], axis=1).reshape(-1)[:count]


def _pack_sub_byte(t: ElementType, codes: np.ndarray) -> np.ndarray:
    n = codes.size
    if t is ElementType.u1:
        return np.packbits(codes.astype(np.uint8), bitorder="big")
    if t is ElementType.u2:
        padded = np.zeros(math.ceil(n / 4) * 4, dtype=np.uint8)
        padded[:n] = codes
        q = padded.reshape(-1, 4)
        return q[:, 0] | (q[:, 1] << 2) | (q[:, 2] << 4) | (q[:, 3] << 6)
    if t is ElementType.u3:
        padded = np.zeros(math.ceil(n / 8) * 8, dtype=np.uint8)
        padded[:n] = codes
        q = padded.reshape(-1, 8)
        low = q & 0b11
        b0 = (low[:, 0] << 6) | (low[:, 1] << 4) | (low[:, 2] << 2) | low[:, 3]
        b1 = (low[:, 4] << 6) | (low[:, 5] << 4) | (low[:, 6] << 2) | low[:, 7]
        b2 = np.packbits((q >> 2) & 1, axis=1, bitorder="big")[:, 0]
        return np.stack([b0, b1, b2], axis=1).reshape(-1)
    if t is ElementType.u6:
        padded = np.zeros(math.ceil(n / 4) * 4, dtype=np.uint8)
        padded[:n] = codes
        q = padded.reshape(-1, 4)
        nibble = q & 0xF
        top = q >> 4
        first = (nibble[:, 0] << 4) | nibble[:, 1]
        second = (nibble[:, 2] << 4) | nibble[:, 3]
        tops = (top[:, 0] << 6) | (top[:, 1] << 4) | (top[:, 2] << 2) | top[:, 3]
        return np.stack([first, second, tops], axis=1).reshape(-1)
    padded = np.zeros(math.ceil(n / 2) * 2, dtype=np.uint8)
    padded[:n] = codes
    q = padded.reshape(-1, 2)
    return q[:, 0] | (q[:, 1] << 4)


def _decode_strings(shape: tuple[int, ...], count: int, raw: bytes) -> np.ndarray:
    if len(raw) < 4:
        raise IRError("string payload shorter than its 4-byte count")
    n = int(np.frombuffer(raw, dtype="<i4", count=1)[0])
    if n != count:
        raise IRError(f"string payload holds {n} strings, the shape {list(shape)} needs {count}")
    header = 4 * (n + 2)
    if len(raw) < header:
        raise IRError(f"string payload shorter than its offset table ({header} bytes)")
    ends = np.frombuffer(raw, dtype="<i4", count=n + 1, offset=4).astype(np.int64)
    body = raw[header:]
    if ends[0] != 0 or np.any(np.diff(ends) < 0) or ends[-1] > len(body):
        raise IRError("string payload offsets are not increasing within the payload")
    out = np.empty(count, dtype=object)
    for i in range(n):
        out[i] = body[ends[i] : ends[i + 1]].decode("utf-8", "surrogateescape")
    return out.reshape(shape)


# -- packed constants ------------------------------------------------------------------


# Sub-byte constants larger than this many elements are kept packed (``Packed``).
PACKED_MIN_ELEMENTS = 1 << 16


def decode_lazy(
    element_type: ElementType, shape: tuple[int, ...], raw: memoryview | bytes
) -> np.ndarray | Packed:
    """``decode``, but a large u4/i4 payload is kept packed (``Packed``); ``raw`` holds at least
    the packed size (the caller checked it)."""
    count = math.prod(shape)
    if element_type in NIBBLES and count > PACKED_MIN_ELEMENTS:
        need = packed_size(element_type, count)
        if len(raw) < need:
            raise IRError(f"payload holds {len(raw)} bytes, {need} needed for {count} x {element_type}")
        return Packed(element_type, shape, np.frombuffer(raw, dtype=np.uint8, count=need))
    return decode(element_type, shape, raw)
