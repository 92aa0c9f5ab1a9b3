"""DFT-7, IDFT-7, RDFT-9 and IRDFT-9: discrete Fourier transforms over chosen axes.

Complex tensors are real tensors with a trailing dimension of 2 (real, imaginary).
Inputs: ``data``, ``axes`` (1-D i32/i64) and an optional ``signal_size`` (1-D i32/i64,
one entry per axis; ``-1`` keeps the axis' length, a smaller size crops the input, a
larger one pads it with zeros).  Data is f32, f16 or bf16; the output has its type.

* DFT/IDFT: complex ``[..., 2]`` in, complex out; axes in ``[-(r-1), r-2]`` (``r`` the
  rank with the trailing 2).  IDFT divides by each transformed length.
* RDFT: real in, complex out; axes in ``[-r, r-1]``; the last listed axis keeps
  ``n // 2 + 1`` entries (``n`` its signal size).
* IRDFT: complex in (the non-redundant half on the last listed axis), real out; that
  axis' output length is its signal size, by default ``2 * (n - 1)``; the missing half is
  filled with the complex conjugates (Hermitian symmetry).

Shape (``fft_base_shape_inference.hpp``, ``rdft_shape_inference.hpp``,
``irdft_shape_inference.hpp``): DFT/IDFT take signal sizes from bounds (intervals
propagate), RDFT/IRDFT only from known values; unknown axes make every transformed
dimension dynamic.

Values (``reference/fft.cpp``, ``rdft.cpp``, ``irdft.cpp``): computed in f32 whatever
the data type (f16/bf16 in, rounded once at the end, bf16 with OpenVINO's rounding).
Axes are transformed one at a time, the highest axis first; a length that is a power of
two uses OpenVINO's iterative radix-2 FFT, any other length its direct O(n^2) sum with
twiddles ``exp(-2*pi*i * (k*n) / len)`` computed in f32 from the unreduced product
``k*n``.  IDFT/IRDFT divide by the length after each axis.  ovonehot performs the same
f32 operations in the same order (with sin/cos rounded from f64), so results carry
OpenVINO's rounding, not NumPy's FFT.  The core has no ``evaluate`` for these ops (they
are never constant-folded).  The CPU plugin computes DFT/IDFT the reference's way (a
97-point DFT: ~130 ulp of the largest magnitude from the exact transform, within 1 ulp
of ovonehot); its RDFT/IRDFT are its own and more accurate, so for long
non-power-of-two lengths they differ from the reference's (and ovonehot's) by up to
about the length in ulps of the largest magnitude (see tests/test_ops_fft.py).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.shape_util import INT64_MAX, input_bounds, known_ints, normalize_axis
from .common.spec import OpSpec, TensorInfo
from .convert import f32_to_bf16


class Kind(enum.Enum):
    DFT = "DFT"
    IDFT = "IDFT"
    RDFT = "RDFT"
    IRDFT = "IRDFT"

    @property
    def real_input(self) -> bool:
        return self is Kind.RDFT


@dataclass(frozen=True, slots=True)
class FFTAttrs:
    kind: Kind


def _parser(kind: Kind) -> Callable[[Node], FFTAttrs]:
    """These ops have no attributes: the parsed layer only records which transform it is."""

    def parse(node: Node) -> FFTAttrs:
        return FFTAttrs(kind)

    return parse


_FLOATS = (ElementType.f32, ElementType.f16, ElementType.bf16)
_INDEX = (ElementType.i32, ElementType.i64)


# -- shape inference ---------------------------------------------------------------------------
def infer_fft(attrs: FFTAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes_in = inputs[0], inputs[1]
    size_in = inputs[2] if len(inputs) == 3 else None
    if not (data.element_type.is_dynamic or data.element_type in _FLOATS):
        raise ValidationError("FFT op input element type must be f32, f16, or bf16")
    if not (axes_in.element_type.is_dynamic or axes_in.element_type in _INDEX):
        raise ValidationError("FFT op axes element type must be i32 or i64")
    if size_in is not None and not (size_in.element_type.is_dynamic or size_in.element_type in _INDEX):
        raise ValidationError("FFT op signal_size element type must be i32 or i64")
    axes = _validate(attrs.kind, data.shape, axes_in, size_in)
    shape = data.shape
    if attrs.kind is Kind.RDFT:
        out = _rdft_shape(shape, axes, axes_in, size_in)
    elif attrs.kind is Kind.IRDFT:
        out = _irdft_shape(shape, axes, axes_in, size_in)
    else:
        out = _dft_shape(shape, axes, size_in)
    return [TensorInfo(data.element_type, out)]


def _validate(
    kind: Kind, shape: PartialShape, axes_in: TensorInfo, size_in: TensorInfo | None
) -> list[int] | None:
    """``fft_common_validation::shape_validation``; the normalized axes when known."""
    axes = known_ints(axes_in)
    axes_shape = axes_in.shape
    if shape.rank_is_static:
        rank = shape.rank
        min_rank = 1 if kind.real_input else 2
        if rank < min_rank:
            raise ValidationError(f"The input rank must be greater or equal to {min_rank}")
        if not kind.real_input and not shape[rank - 1].compatible(Dimension.static(2)):
            raise ValidationError("The last dimension of input data must be 2.")
        if axes_shape.rank_is_static and axes_shape.is_static and axes_shape.rank >= 1:
            count = axes_shape[0].length
            if kind.real_input and rank < count:
                raise ValidationError("The input rank must be greater than or equal to the number of axes. ")
            if not kind.real_input and rank < count + 1:
                raise ValidationError("The input rank must be greater than number of axes.")
        if axes is not None and axes_shape.rank_is_static:
            axes = [normalize_axis(a, rank if kind.real_input else rank - 1) for a in axes]
            if len(set(axes)) != len(axes):
                raise ValidationError("Each axis must be unique.")
    if axes_shape.rank_is_static and axes_shape.rank != 1:
        raise ValidationError("Axes input must be 1D tensor.")
    if size_in is not None:
        _validate_signal_size(axes_shape, size_in.shape)
    return axes if shape.rank_is_static else None


def _validate_signal_size(axes_shape: PartialShape, s: PartialShape) -> None:
    if s.rank_is_static and s.rank != 1:
        raise ValidationError("Signal size input must be 1D tensor.")
    if axes_shape.is_static and s.is_static and not axes_shape[0].compatible(s[0]):
        raise ValidationError("Sizes of inputs 'axes' and 'signal_size' must be equal.")


def _size_dim(lo: int, hi: int) -> Dimension:
    """``Dimension(lo, hi)`` from signal-size bounds: negatives are 0, int64 max is unbounded."""
    top = None if hi == INT64_MAX else max(hi, 0)
    return Dimension(max(lo, 0), top) if top is None or top >= max(lo, 0) else Dimension()


def _dft_shape(shape: PartialShape, axes: list[int] | None, size_in: TensorInfo | None) -> PartialShape:
    if size_in is None or not shape.rank_is_static:
        return shape
    dims = list(shape)
    if axes is None:
        return PartialShape((Dimension(),) * (len(dims) - 1) + (dims[-1],))
    bounds = input_bounds(size_in)
    for k, axis in enumerate(axes):
        if bounds is None:
            dims[axis] = Dimension()
        elif bounds[k] != (-1, -1):
            dims[axis] = _size_dim(*bounds[k])
    return PartialShape(tuple(dims))


def _half(d: Dimension) -> Dimension:
    """RDFT's last-axis length: ``n // 2 + 1`` on each bound (unbounded stays unbounded)."""

    def bound(b: int) -> int:
        return b if b <= 0 else b // 2 + 1

    return Dimension(bound(d.min), None if d.max is None else bound(d.max))


def _rdft_shape(
    shape: PartialShape, axes: list[int] | None, axes_in: TensorInfo, size_in: TensorInfo | None
) -> PartialShape:
    if not shape.rank_is_static:
        return PartialShape.dynamic()
    two = Dimension.static(2)
    if axes is None or not axes_in.shape.rank_is_static:
        return PartialShape((Dimension(),) * shape.rank + (two,))
    dims = list(shape)
    last = axes[-1]
    if size_in is None:
        dims[last] = _half(dims[last])
        return PartialShape((*dims, two))
    sizes = known_ints(size_in)
    if sizes is None or not size_in.shape.rank_is_static:
        dims[last] = Dimension()
        return PartialShape((*dims, two))
    for axis, n in zip(axes, sizes, strict=True):
        if n != -1:
            dims[axis] = Dimension.static(max(n, 0))
    dims[last] = _half(dims[last])
    return PartialShape((*dims, two))


def _doubled_less_one(d: Dimension) -> Dimension:
    """``2 * (d - 1)`` in OpenVINO's interval arithmetic."""
    lo = max(d.min - 1, 0) * 2
    return Dimension(lo, None if d.max is None else max(d.max - 1, 0) * 2)


def _irdft_shape(
    shape: PartialShape, axes: list[int] | None, axes_in: TensorInfo, size_in: TensorInfo | None
) -> PartialShape:
    if not shape.rank_is_static:
        return PartialShape.dynamic()
    dims = list(shape)[:-1]
    if axes is None or not axes_in.shape.rank_is_static:
        return PartialShape((Dimension(),) * len(dims))
    last = axes[-1]
    if size_in is None:
        dims[last] = _doubled_less_one(dims[last])
        return PartialShape(tuple(dims))
    sizes = known_ints(size_in)
    if sizes is None or not size_in.shape.rank_is_static:
        dims[last] = Dimension()
        return PartialShape(tuple(dims))
    for axis, n in zip(axes, sizes, strict=True):
        if n != -1:
            dims[axis] = Dimension.static(max(n, 0))
    if sizes[-1] == -1:
        dims[last] = _doubled_less_one(list(shape)[last])
    return PartialShape(tuple(dims))


# -- the kernel: OpenVINO's f32 FFT -------------------------------------------------------------
_PI = np.float32(3.141592653589793)
_MINUS_TWO_PI = np.float32(-2.0) * _PI


def _twiddles(k: np.ndarray, length: int, inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """``exp(-2*pi*i*k/length)`` (conjugated for the inverse) as OpenVINO computes it in f32."""
    angle = (_MINUS_TWO_PI * k.astype(np.float32)) / np.float32(length)
    wide = angle.astype(np.float64)
    re, im = np.cos(wide).astype(np.float32), np.sin(wide).astype(np.float32)
    return re, (-im if inverse else im)


def _fft_1d(re: np.ndarray, im: np.ndarray, inverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """OpenVINO's 1-D transform of every row (last axis) of ``re + i*im`` (f32)."""
    length = re.shape[-1]
    rows = re.shape[:-1]
    if length & (length - 1) == 0:
        xr, xi = re, im
        blocks = 1
        while blocks < length:
            tr, ti = _twiddles(np.arange(blocks), 2 * blocks, inverse)
            tr, ti = tr[:, None], ti[:, None]
            size = length // blocks
            half = size // 2
            br, bi = xr.reshape(*rows, blocks, size), xi.reshape(*rows, blocks, size)
            er, ei, orr, oi = br[..., :half], bi[..., :half], br[..., half:], bi[..., half:]
            # twiddle * odd, as std::complex<float> multiplies: (a*c - b*d, a*d + b*c)
            pr, pi = tr * orr - ti * oi, tr * oi + ti * orr
            flat = (*rows, length // 2)
            xr = np.concatenate([(er + pr).reshape(flat), (er - pr).reshape(flat)], axis=-1)
            xi = np.concatenate([(ei + pi).reshape(flat), (ei - pi).reshape(flat)], axis=-1)
            blocks *= 2
        out_r, out_i = xr, xi
    else:
        k = np.arange(length, dtype=np.int64)
        out_r = np.zeros_like(re)
        out_i = np.zeros_like(im)
        for j in range(
            length
        ):  # value += buffer[n] * twiddle(n*k), n in order (one row of twiddles at a time)
            wr, wi = _twiddles(j * k, length, inverse)
            a, b = re[..., j : j + 1], im[..., j : j + 1]
            out_r = out_r + (a * wr - b * wi)
            out_i = out_i + (a * wi + b * wr)
    if inverse:
        out_r, out_i = out_r / np.float32(length), out_i / np.float32(length)
    zero = np.all((re == 0) & (im == 0), axis=-1, keepdims=True)  # such rows are left as they are
    return np.where(zero, re, out_r), np.where(zero, im, out_i)


def _resize(a: np.ndarray, axis: int, n: int) -> np.ndarray:
    """Crop or zero-pad ``a`` along ``axis`` to ``n``."""
    have = a.shape[axis]
    if n <= have:
        return np.take(a, np.arange(n), axis=axis)
    pad = [(0, 0)] * a.ndim
    pad[axis] = (0, n - have)
    return np.pad(a, pad)


def _fft(
    re: np.ndarray, im: np.ndarray, axes: Sequence[int], sizes: Sequence[int], inverse: bool
) -> tuple[np.ndarray, np.ndarray]:
    """OpenVINO's ``reference::fft``: resize each axis, then 1-D transforms, highest axis first."""
    for axis, n in zip(axes, sizes, strict=True):
        re, im = _resize(re, axis, n), _resize(im, axis, n)
    if re.size == 0:
        return re, im
    for axis in sorted(axes, reverse=True):
        r, i = _fft_1d(np.moveaxis(re, axis, -1), np.moveaxis(im, axis, -1), inverse)
        re, im = np.moveaxis(r, -1, axis), np.moveaxis(i, -1, axis)
    return re, im


def _runtime_axes(attrs: FFTAttrs, data: np.ndarray, axes_arr: np.ndarray) -> list[int]:
    rank = data.ndim if attrs.kind.real_input else data.ndim - 1
    try:
        axes = [normalize_axis(int(a), rank) for a in np.asarray(axes_arr).reshape(-1)]
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    if len(set(axes)) != len(axes):
        raise InputError("Each axis must be unique.")
    if not attrs.kind.real_input and (data.ndim < 2 or data.shape[-1] != 2):
        raise InputError(f"The last dimension of input data must be 2, got shape {list(data.shape)}")
    return axes


def _signal_sizes(inputs: Sequence[np.ndarray], axes: list[int], lengths: Sequence[int]) -> list[int]:
    if len(inputs) < 3:
        return [lengths[a] for a in axes]
    given = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    if len(given) != len(axes):
        raise InputError(
            f"Sizes of inputs 'axes' and 'signal_size' must be equal, got {len(axes)} and {len(given)}"
        )
    return [lengths[a] if n == -1 else max(n, 0) for a, n in zip(axes, given, strict=True)]


def _to_output(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.float32:
        return np.ascontiguousarray(x)
    if dtype == np.float16:
        return np.ascontiguousarray(x.astype(np.float16))
    return np.ascontiguousarray(f32_to_bf16(x))  # bf16: OpenVINO's own rounding


def evaluate_fft(attrs: FFTAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    dtype = data.dtype
    x = data.astype(np.float32)
    axes = _runtime_axes(attrs, data, inputs[1])
    kind = attrs.kind
    if kind is Kind.RDFT:
        sizes = _signal_sizes(inputs, axes, x.shape)
        re, im = _fft(x, np.zeros_like(x), axes, sizes, inverse=False)
        kept = sizes[-1] // 2 + 1 if sizes[-1] > 0 else 0  # as inferred: an empty axis stays empty
        re, im = (_resize(a, axes[-1], kept) for a in (re, im))
        return [_to_output(np.stack([re, im], axis=-1), dtype)]
    re, im = x[..., 0], x[..., 1]
    if kind is Kind.IRDFT:
        return [_to_output(_irdft(re, im, axes, inputs), dtype)]
    sizes = _signal_sizes(inputs, axes, re.shape)
    re, im = _fft(re, im, axes, sizes, inverse=kind is Kind.IDFT)
    return [_to_output(np.stack([re, im], axis=-1), dtype)]


def _irdft(re: np.ndarray, im: np.ndarray, axes: list[int], inputs: Sequence[np.ndarray]) -> np.ndarray:
    """``reference::irdft``: inverse over the other axes, Hermitian extension, inverse over the last."""
    last = axes[-1]
    sizes = _signal_sizes(inputs, axes, re.shape)
    if len(inputs) < 3 or int(np.asarray(inputs[2]).reshape(-1)[-1]) == -1:
        sizes[-1] = 2 * max(re.shape[last] - 1, 0)
    re, im = _fft(re, im, axes[:-1], sizes[:-1], inverse=True)
    n = sizes[-1]
    bound = n // 2 + 1
    kept_r, kept_i = _resize(re, last, bound), _resize(im, last, bound)  # zeros past the input
    shape = list(re.shape)
    shape[last] = n
    full_r, full_i = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
    head = [slice(None)] * re.ndim
    head[last] = slice(0, min(bound, n))
    full_r[tuple(head)] = np.take(kept_r, np.arange(min(bound, n)), axis=last)
    full_i[tuple(head)] = np.take(kept_i, np.arange(min(bound, n)), axis=last)
    mirrored = np.arange(1, n - bound + 1)  # j -> n - j, conjugated
    if mirrored.size:
        src_r, src_i = np.take(kept_r, mirrored, axis=last), np.take(kept_i, mirrored, axis=last)
        np.put_along_axis(full_r, _along(n - mirrored, last, re.ndim), src_r, axis=last)
        np.put_along_axis(full_i, _along(n - mirrored, last, re.ndim), -src_i, axis=last)
    out_r, _ = _fft(full_r, full_i, [last], [n], inverse=True)
    return out_r


def _along(index: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """``index`` shaped to broadcast along ``axis`` of an ``ndim``-d array (for put_along_axis)."""
    shape = [1] * ndim
    shape[axis] = index.size
    return index.reshape(shape)


SPECS = (
    OpSpec(
        type="DFT",
        version=7,
        since=7,
        inputs=(2, 3),
        parse=_parser(Kind.DFT),
        infer=infer_fft,
        evaluate=evaluate_fft,
        foldable=False,
    ),
    OpSpec(
        type="IDFT",
        version=7,
        since=7,
        inputs=(2, 3),
        parse=_parser(Kind.IDFT),
        infer=infer_fft,
        evaluate=evaluate_fft,
        foldable=False,
    ),
    OpSpec(
        type="RDFT",
        version=9,
        since=9,
        inputs=(2, 3),
        parse=_parser(Kind.RDFT),
        infer=infer_fft,
        evaluate=evaluate_fft,
        foldable=False,
    ),
    OpSpec(
        type="IRDFT",
        version=9,
        since=9,
        inputs=(2, 3),
        parse=_parser(Kind.IRDFT),
        infer=infer_fft,
        evaluate=evaluate_fft,
        foldable=False,
    ),
)
