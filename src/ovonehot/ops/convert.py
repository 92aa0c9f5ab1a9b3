"""Convert-0: element type conversion, as OpenVINO's reference does it.

Rules (checked against ``Node.evaluate`` of OpenVINO 2026.4 on x86-64):
  * integer -> integer wraps (two's complement truncation);
  * anything -> boolean is ``x != 0`` (NaN is true);
  * float -> integer truncates toward zero.  Out-of-range and NaN values follow
    the x86 conversion OpenVINO compiles to: through int32 for targets of 32 bits
    or fewer (NaN/out of range -> INT32_MIN, then wrapped), through int64 for
    i64 and for u32 from f16/bf16/f64/f8.  u64 (from any float) and u32 from f32
    use the compiler's unsigned sequence: a value >= 2**(n-1) is shifted down by
    it, converted as signed and its top bit flipped back, so +inf and values
    >= 2**n give 0 while NaN, -inf and large negatives give 2**(n-1);
  * i32 -> f16 saturates at +-65504; other integers overflow f16 to inf;
  * nf4 -> anything: the code's NF4 table value (f32), converted on as f32 (Node.evaluate has
    f32, f16 and bf16 destinations; nothing converts to nf4);
  * float -> float rounds to nearest even, overflow to inf (NumPy/ml_dtypes), except
    to f8e8m0, where OpenVINO rounds its own way (``f32_to_f8e8m0``); NaN payloads as
    OpenVINO carries them (``_nan_payloads``);
  * to bf16 (from f32, f16 and f64, rounded once) IEEE round-to-nearest-even, NaN quieted with
    its sign and top payload bits, as OpenVINO's own bfloat16 type says and its CPU plugin
    and ONNX do; OpenVINO's reference rounds its own way, a known deviation
    (``bf16-reference-rounding``, :mod:`.common.bf16`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Error, ValidationError
from ..graph import Node
from ..types import NF4_TABLE, ElementType, TypeKind, numpy_dtype_of
from .common.attrs import element_type_attr
from .common.bf16 import to_bf16
from .common.binding import PLAIN_INTEGERS, PLAIN_NUMBERS, dtype_of, mode_independent
from .common.bounds import bounds_of, max_of
from .common.spec import Bounds, Kernel, OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class ConvertAttrs:
    destination_type: ElementType


def parse_convert(node: Node) -> ConvertAttrs:
    return ConvertAttrs(element_type_attr(node, "destination_type"))


def infer_convert(attrs: ConvertAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if attrs.destination_type.is_dynamic:
        raise ValidationError("destination type must be static")
    return [TensorInfo(attrs.destination_type, x.shape)]


def evaluate_convert(attrs: ConvertAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    return [convert_array(x, attrs.destination_type)]


_INT32_MIN = np.int32(-(2**31))
_INT64_MIN = np.int64(-(2**63))


def convert_array(x: np.ndarray, to: ElementType) -> np.ndarray:
    """``x`` converted to ``to`` with OpenVINO's reference semantics (see module doc)."""
    target = to.numpy_dtype
    if target is None:
        raise ValidationError(f"cannot convert to {to}: NumPy cannot hold it")
    x = np.asarray(x)
    if to is ElementType.nf4:
        raise ValidationError(
            "conversion to nf4 is not supported (OpenVINO's reference has no kernel for it)"
        )
    if x.dtype == _NF4:  # nf4 codes are their table's f32 values (then converted on from f32)
        x = np.asarray(NF4_TABLE[x.view(np.uint8)])  # (0-d codes index to a scalar: keep an array)
        if to is ElementType.f32:
            return x
    strings = to is ElementType.string or x.dtype == object
    if strings and (x.dtype != object or to is not ElementType.string):
        raise ValidationError(f"conversion between string and {to} is not supported")
    if strings or (x.dtype == target and to not in _SUB_BYTE_UINT8):  # string to string, or same type
        out: np.ndarray = x.copy()
        return out
    special = _special_conversion(x, to)
    return _cast(x, to, target) if special is None else special


def _special_conversion(x: np.ndarray, to: ElementType) -> np.ndarray | None:
    """The conversions OpenVINO does by rules of its own (not NumPy's cast); None for the rest."""
    if to is ElementType.boolean:
        return np.asarray(x != 0)  # a 0-d comparison gives NumPy's bool scalar, not an array
    if to is ElementType.bf16:  # nearest-even (the reference's rounding under its named mode)
        return _nan_payloads(x, f32_to_bf16(x), to)
    if to is ElementType.f8e8m0:  # OpenVINO's own rounding and saturation, not ml_dtypes'
        return f32_to_f8e8m0(x)
    if to is ElementType.f16 and x.dtype == np.int32:
        # OpenVINO's i32 -> f16 kernel saturates at +-65504 (i64, u32... overflow to inf).
        return np.asarray(np.clip(x, -65504, 65504)).astype(np.float16)  # (0-d: np.clip gives a scalar)
    if to.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED) and _is_float(x.dtype):
        return _float_to_int(x, to)
    if to in _SUB_BYTE_UINT8:  # u1/u3/u6 are held unpacked in uint8: wrap to their width
        return _wrap_int(x.astype(np.int64), to)
    if to.bitwidth < 8 and to.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED):  # ml_dtypes i4/u4/u2
        return _wrap_int(x.astype(np.int64), to)
    return None


def _cast(x: np.ndarray, to: ElementType, target: np.dtype) -> np.ndarray:
    """NumPy's (ml_dtypes') cast of ``x`` to ``target``, rounded and with NaNs as OpenVINO's."""
    with np.errstate(over="ignore", invalid="ignore"):
        # OpenVINO rounds twice: f64 -> f16 through f32 (0x3FEF9A000D9A3BB9 -> f16 0x3BE6, not
        # the nearest 0x3BE7); f32, f64 and integers -> f8e4m3/f8e5m2 through f32 and f16
        # (i16 26629 -> f8e5m2 0x76, not 0x77).
        x_rounded = x
        if x.dtype == np.float64 and to is ElementType.f16:
            x_rounded = x.astype(np.float32)
        elif to in (ElementType.f8e4m3, ElementType.f8e5m2) and (
            x.dtype in (np.float32, np.float64) or x.dtype.kind in "iub"
        ):
            x_rounded = x.astype(np.float32).astype(np.float16)
        try:
            out = x_rounded.astype(target)
        except TypeError:  # ml_dtypes has no direct cast between some f8 types: widen exactly first
            out = x_rounded.astype(np.float32).astype(target)
    if x.dtype == np.float16 and to in _QUIET_BIT and not np.isnan(out).any():
        return out  # (the usual decompression Convert: no NaN to quiet or carry; tested in the wide type)
    if x.dtype == np.float16 and to in _QUIET_BIT:
        # OpenVINO's f16 -> f32/f64 (the decompression Convert of f16-compressed IR) quiets
        # signalling NaNs, keeping sign and payload; NumPy keeps them signalling.
        bits = out.view(_QUIET_BIT[to].dtype)
        bits[np.isnan(out)] |= _QUIET_BIT[to]
    if _is_float(x.dtype) and to.is_real:
        out = _nan_payloads(x, out, to)
    return out


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# Mantissa width of the float types whose NaN payloads OpenVINO carries over in its own way.
_MANTISSA = {
    ElementType.f64: 52,
    ElementType.f32: 23,
    ElementType.f16: 10,
    ElementType.bf16: 7,
    ElementType.f8e5m2: 2,
}


def _nan_payloads(x: np.ndarray, out: np.ndarray, to: ElementType) -> np.ndarray:
    """``out`` with the NaNs of a float -> float conversion as OpenVINO's reference writes them
    (checked bit for bit against its Convert; NumPy/ml_dtypes quiet or drop the payload instead):

    * to f16 from f32/f64/bf16: sign, quiet bit, the top 10 payload bits (f32 ``0x7F800001`` ->
      ``0x7E00``); from f8e5m2 the bits as they are (``0x7D`` -> ``0x7D00``, still signalling);
    * to f8e5m2: sign and the top 2 payload bits, quiet or not (f32 ``0x7F800001`` -> ``0x7C``, inf);
    * from f8e5m2 to f32 (and on to bf16/f64): the payload shifted, not quieted (``0x7D`` -> ``0x7FA00000``);
    """
    source = ElementType.from_numpy(x.dtype)
    if source not in _MANTISSA or source is to:
        return out
    with np.errstate(all="ignore"):
        # (NumPy's own floats tested as they are: no f32 copy of a large f16 tensor)
        nan = np.isnan(x if x.dtype.kind == "f" else np.asarray(x, dtype=np.float32))
    if not nan.any():
        return out
    width = np.dtype(x.dtype).itemsize
    bits = np.ascontiguousarray(x).reshape(np.shape(x)).view(_UINT[width])[nan].astype(np.uint64)
    sign = bits >> np.uint64(8 * width - 1)
    payload = bits & np.uint64((1 << _MANTISSA[source]) - 1)
    top = payload << np.uint64(64 - _MANTISSA[source])  # the payload left-aligned in 64 bits
    out = np.array(out, copy=True)
    if to is ElementType.f16 and source is not ElementType.f8e5m2:
        out.view(np.uint16)[nan] = (
            (sign << np.uint64(15)) | np.uint64(0x7E00) | (top >> np.uint64(54))
        ).astype(np.uint16)
    elif to is ElementType.f16:
        out.view(np.uint16)[nan] = (
            (sign << np.uint64(15)) | np.uint64(0x7C00) | (top >> np.uint64(54))
        ).astype(np.uint16)
    elif to is ElementType.f8e5m2:
        # (from f64 through the hardware's f64 -> f32, which sets the quiet bit)
        quiet = np.uint64(0x02 if source is ElementType.f64 else 0)
        out.view(np.uint8)[nan] = (
            (sign << np.uint64(7)) | np.uint64(0x7C) | quiet | (top >> np.uint64(62))
        ).astype(np.uint8)
    elif source is ElementType.f8e5m2 and to in (ElementType.f32, ElementType.f64, ElementType.bf16):
        f32 = (
            ((sign << np.uint64(31)) | np.uint64(0x7F800000) | (top >> np.uint64(41)))
            .astype(np.uint32)
            .view(np.float32)
        )
        with np.errstate(invalid="ignore"):  # (widening a signalling NaN raises the invalid flag)
            out[nan] = f32_to_bf16(f32) if to is ElementType.bf16 else f32.astype(out.dtype)
    return out


def f32_to_f8e8m0(x: np.ndarray) -> np.ndarray:
    """OpenVINO's conversion to f8e8m0 (a bare exponent), other types through f32 first: negative
    values (and -0.0, -NaN) give 0, the exponent is rounded to nearest with ties to an even
    exponent (3.0 -> 2**1), zero and subnormals give the nearer of 2**-127 (0) and 2**-126, f32 max and +inf give 254
    (2**127), NaN gives 255.  ml_dtypes instead gives NaN for zero, negatives and overflow."""
    with np.errstate(all="ignore"):
        f = np.asarray(x).astype(np.float32)
    bits = np.ascontiguousarray(f).reshape(f.shape).view(np.uint32).astype(np.int64)
    exponent = (bits >> 23) & 0xFF
    mantissa = bits & 0x7FFFFF
    up = (mantissa > 0x400000) | ((mantissa == 0x400000) & ((exponent & 1) == 1))
    # A subnormal m * 2**-149 lies between 2**-127 (code 0) and 2**-126 (code 1): nearer the
    # second from m > 0.75 * 2**23.
    up = np.where(exponent == 0, mantissa > 0x600000, up)
    code = np.where(exponent >= 0xFE, exponent - np.isinf(f), exponent + up)
    code = np.where((bits >> 31) == 1, 0, code)
    out_dtype = numpy_dtype_of(ElementType.f8e8m0)
    return code.astype(np.uint8).view(out_dtype)


_SUB_BYTE_UINT8 = (ElementType.u1, ElementType.u3, ElementType.u6)
_NF4 = ElementType.nf4.numpy_dtype
_QUIET_BIT: dict[ElementType, np.unsignedinteger] = {
    ElementType.f32: np.uint32(1 << 22),
    ElementType.f64: np.uint64(1 << 51),
}


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bf16: IEEE round-to-nearest-even (see :mod:`.common.bf16`, which also
    holds OpenVINO's reference rounding as a named deviation)."""
    return to_bf16(x)


def _is_float(dtype: np.dtype) -> bool:
    return ElementType.from_numpy(dtype).is_real


def _float_to_int(x: np.ndarray, to: ElementType) -> np.ndarray:
    f = x.astype(np.float64)
    truncated = np.trunc(f)
    if to is ElementType.u64 or (to is ElementType.u32 and x.dtype == np.float32):
        return _unsigned_via_signed(truncated, to.bitwidth)
    if to.bitwidth <= 32 and to is not ElementType.u32:
        ok = (truncated >= -(2.0**31)) & (truncated < 2.0**31)
        via = np.where(ok, truncated, 0).astype(np.int32)
        via[~ok] = _INT32_MIN
        wide = via.astype(np.int64)
    else:
        ok = (truncated >= -(2.0**63)) & (truncated < 2.0**63)
        wide = np.where(ok, truncated, 0).astype(np.int64)
        wide[~ok] = _INT64_MIN
    return _wrap_int(wide, to)


def _unsigned_via_signed(truncated: np.ndarray, bits: int) -> np.ndarray:
    """Float -> u32/u64 as the compiler lowers it (checked against OpenVINO's Convert): values from
    2**(bits-1) up are shifted down by it and converted as signed, out of range or NaN give the
    signed minimum, and the top bit of the shifted ones is flipped back."""
    half = 2.0 ** (bits - 1)
    big = truncated >= half  # NaN is not
    shifted = np.where(big, truncated - half, truncated)
    ok = (shifted >= -half) & (shifted < half)
    signed, unsigned = (np.int64, np.uint64) if bits == 64 else (np.int32, np.uint32)
    via = np.where(ok, shifted, 0).astype(signed)
    via[~ok] = np.iinfo(signed).min
    out = via.astype(unsigned)
    return np.where(big, out ^ unsigned(1 << (bits - 1)), out).astype(unsigned)


def _wrap_int(wide: np.ndarray, to: ElementType) -> np.ndarray:
    """int64 values wrapped to the integer type ``to`` (two's complement truncation)."""
    wide = np.asarray(wide)  # (operators on a 0-d array give NumPy scalars; the results stay arrays)
    if to in _SUB_BYTE_UINT8:
        return np.asarray(wide & ((1 << to.bitwidth) - 1)).astype(np.uint8)
    target = numpy_dtype_of(to)
    if to.bitwidth < 8:  # i4/u4/u2 through ml_dtypes: wrap to the width first
        mask = (1 << to.bitwidth) - 1
        code = wide & mask
        if to.kind is TypeKind.SIGNED:
            code = np.where(code >= (1 << (to.bitwidth - 1)), code - (1 << to.bitwidth), code)
        return np.asarray(code).astype(target)
    return wide.astype(target)


# -- bounds ----------------------------------------------------------------------------------
def _convert_bounds(
    spec: OpSpec[ConvertAttrs], attrs: ConvertAttrs, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """Converted bounds; "unbounded" (type max) stays unbounded unless either type is a
    small integer (``convert::evaluate_bound``), where values simply wrap."""
    b = bounds_of(ins[0])
    if b is None:
        return [None]
    src, dst = ins[0].element_type, outs[0].element_type
    result = []
    for bound in b:
        try:
            with np.errstate(all="ignore"):
                out = convert_array(bound, dst)
        except Error:
            return [None]
        if not (_small_integral(src) or _small_integral(dst)):
            top_in, top_out = max_of(bound.dtype), max_of(out.dtype)
            if top_in is None or top_out is None:
                return [None]
            out = np.where(bound == top_in, top_out, out).astype(out.dtype)
        result.append(out)
    return [(result[0], result[1])]


def _small_integral(et: ElementType) -> bool:
    return et.is_integral and et.bitwidth <= 16


def bind_convert(
    attrs: ConvertAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The conversions ``convert_array`` does as NumPy's ``astype`` (integers and booleans to
    NumPy's numbers, f32 <-> f64), to boolean (``!= 0``), or a copy; the rest keep the kernel."""
    source, to = dtype_of(inputs[0]), attrs.destination_type
    target = to.numpy_dtype
    if target is None or source.kind == "O" or to is ElementType.string:
        return None
    if source == target and to not in _SUB_BYTE_UINT8:

        def copy(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [values[0].copy()]

        return copy
    if to in _SUB_BYTE_UINT8:  # (u1/u3/u6 held in uint8: the kernel keeps their low bits)
        return None
    if to is ElementType.boolean:

        def nonzero(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.not_equal(values[0], 0)]

        return nonzero if outputs[0].shape.rank_is_static and outputs[0].shape.rank else None
    if source in _F32_F64 and target in PLAIN_INTEGERS and to not in (ElementType.u32, ElementType.u64):
        return _bind_float_to_int(to, target)
    plain = source.kind in "iub" or (source in _F32_F64 and target in _F32_F64)
    if not plain or target not in PLAIN_NUMBERS:
        return None

    def cast(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [values[0].astype(target)]

    return cast


_F32_F64 = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def _bind_float_to_int(to: ElementType, target: np.dtype) -> Kernel:
    """f32/f64 -> an integer type through int32 (int64 for 64-bit targets), as ``_float_to_int``:
    values all within the intermediate type's range are truncated by NumPy's C cast, the
    same as truncating then casting; anything else (NaN, inf, out of range, empty) goes to it."""
    wide = to.bitwidth > 32
    lo, hi = (-(2.0**63), 2.0**63) if wide else (-(2.0**31), 2.0**31)
    via = np.dtype(np.int64 if wide else np.int32)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        if x.size and x.min() >= lo and x.max() < hi:
            return [x.astype(via).astype(target, copy=False)]
        return [convert_array(x, to)]

    return kernel


SPECS = (
    OpSpec(
        type="Convert",
        version=0,
        since=1,
        inputs=1,
        parse=parse_convert,
        infer=infer_convert,
        evaluate=evaluate_convert,
        specialize=mode_independent(bind_convert),
        bounds=_convert_bounds,
        shapes_only=True,
        lower_is_value=True,
        copies_values=True,
    ),
)
