"""StringTensorUnpack-15 and StringTensorPack-15: string tensors to and from (begins, ends, bytes).

ovonehot holds a ``string`` tensor as a NumPy object array of ``str`` (the reader decodes each
Constant string as UTF-8, undecodable bytes kept by ``surrogateescape``; a ``bytes`` element
is taken as its bytes), so a string's bytes are its UTF-8 encoding with ``surrogateescape``.

* StringTensorUnpack: ``data`` (string, any shape) -> ``begins`` and ``ends`` (i32, data's
  shape) and ``symbols`` (u8, 1-D): the strings' bytes concatenated in order, string ``i``
  being ``symbols[begins[i]:ends[i]]``.  ``symbols`` has a static length when the strings
  are known before running (a Constant: their total byte count) or there are none (a static 0
dimension: ``[0]``),
  else ``[?]`` (``string_tensor_unpack_shape_inference.hpp``, checked against the wheel).
* StringTensorPack: ``begins`` and ``ends`` (both i32 or both i64, compatible shapes, merged
  into the output's shape) and ``symbols`` (u8, 1-D) -> a string tensor:
  ``symbols[begins[i]:ends[i]]`` decoded.  A range with ``begin >= end`` gives the empty
  string; a range outside ``symbols`` is refused (the spec asks for valid ranges; OpenVINO does
  not check them, and its CPU plugin returns other strings after a reversed range: it reads
  memory it did not write).

OpenVINO 2026.4's core gives neither op an ``evaluate`` (nothing folds through them); its CPU
plugin runs both, and is the oracle (tests/test_ops_string_tensor.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.spec import OpSpec, TensorInfo

_INDEX = (ElementType.i32, ElementType.i64)


def _utf8(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def infer_unpack(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    if data.element_type is not ElementType.string:
        raise ValidationError(
            f"StringTensorUnpack expects a tensor with string elements. Got: {data.element_type}"
        )
    shape = data.shape
    if data.value is not None:
        length = Dimension.static(sum(len(_utf8(v)) for v in np.asarray(data.value).reshape(-1)))
    elif shape.rank_is_static and any(d.max == 0 for d in shape):
        length = Dimension.static(0)
    else:
        length = Dimension()
    return [
        TensorInfo(ElementType.i32, shape),
        TensorInfo(ElementType.i32, shape),
        TensorInfo(ElementType.u8, PartialShape((length,))),
    ]


def evaluate_unpack(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    if data.dtype.kind not in "OUS":
        raise InputError(f"StringTensorUnpack takes strings, got {data.dtype} values")
    encoded = [_utf8(v) for v in data.reshape(-1).tolist()]
    lengths = np.array([len(b) for b in encoded], np.int64)
    ends = np.cumsum(lengths)
    if ends.size and ends[-1] > np.iinfo(np.int32).max:
        raise InputError(f"StringTensorUnpack: {int(ends[-1])} bytes do not fit i32 offsets")
    begins = ends - lengths
    symbols = np.frombuffer(b"".join(encoded), np.uint8).copy()
    return [begins.astype(np.int32).reshape(data.shape), ends.astype(np.int32).reshape(data.shape), symbols]


def infer_pack(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    begins, ends, symbols = inputs
    b, e = begins.element_type, ends.element_type
    if not (b in _INDEX and b is e):
        raise ValidationError(
            f"The element types of the begins and ends input tensors must match and be of i32 or i64 type. "
            f"Got: {b} and {e}"
        )
    if symbols.element_type is not ElementType.u8:
        raise ValidationError(
            f"StringTensorPack expects a tensor with ov::element::u8 elements. Got: {symbols.element_type}"
        )
    if symbols.shape.rank_is_static and symbols.shape.rank != 1:
        raise ValidationError(f"Symbols input must be 1D, got {symbols.shape}.")
    shape = begins.shape.merge(ends.shape)
    if shape is None:
        raise ValidationError(
            f"The shapes of begins and ends have to be compatible, got {begins.shape} and {ends.shape}."
        )
    return [TensorInfo(ElementType.string, shape)]


def evaluate_pack(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    begins, ends, symbols = (np.asarray(a) for a in inputs)
    if begins.shape != ends.shape:
        raise InputError(f"begins {list(begins.shape)} and ends {list(ends.shape)} differ in shape")
    raw = np.ascontiguousarray(symbols).reshape(-1).tobytes()
    starts, stops = begins.reshape(-1).tolist(), ends.reshape(-1).tolist()
    for start, stop in zip(starts, stops, strict=True):
        if start < stop and (start < 0 or stop > len(raw)):
            raise InputError(
                f"StringTensorPack: the range [{start}, {stop}) is outside the {len(raw)} symbols"
            )
    out = np.empty(len(starts), dtype=object)
    for k, (start, stop) in enumerate(zip(starts, stops, strict=True)):
        out[k] = raw[start:stop].decode("utf-8", "surrogateescape") if start < stop else ""
    return [out.reshape(begins.shape)]


SPECS = (
    OpSpec(
        type="StringTensorUnpack",
        version=15,
        since=15,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unpack,
        evaluate=evaluate_unpack,
        foldable=False,
    ),
    OpSpec(
        type="StringTensorPack",
        version=15,
        since=15,
        inputs=3,
        parse=parse_no_attrs,
        infer=infer_pack,
        evaluate=evaluate_pack,
        foldable=False,
    ),
)
