"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: transposed convolution (ONNX ConvTranspose).

Inputs: data ``[N, C_in, spatial...]``, filters ``[C_in, C_out, k...]`` (the group
version: ``[G, C_in/G, C_out/G, k...]``, output channels ``G * C_out/G``), and an optional
1-D ``output_shape`` holding the output's spatial sizes.

Shapes (``convolution_backprop_shape_inference*.hpp``): without ``output_shape`` each
spatial size is ``(in - 1) * stride + (k - 1) * dilation + 1 - pads_begin - pads_end +
output_padding`` (interval arithmetic on dynamic dims; ``same_*`` and ``valid`` use zero
pads); with it, the sizes are its values (intervals from bounds, ``?`` when unknown) and
``same_upper``/``same_lower`` derive the pads from them: ``total = (in - 1) * stride +
dilated_k - out + output_padding`` (at least 0), the larger half at the beginning for
``same_upper`` and at the end for ``same_lower``.

Values: every input element scatters ``x * w`` to output position ``i * stride + t *
dilation - pads_begin`` (summed over input channels); positions outside the output are
dropped, and output positions no input reaches (``output_padding`` past the end) are 0.
Sums are in float64 (integers in int64, wrapped) and rounded once; OpenVINO's core has
no evaluate for these ops and the CPU plugin sums in f32 in its own order.

Fast (``exact=False``): float data takes every kernel tap of every group in one batched BLAS
product in f32 (f64 for f64), then places the taps: where no two land on one output position
(each axis's dilated kernel within its stride, as a UNet's 2x2 stride-2 upsampling) by one
transposing copy with no sums, else by adding each tap's products in f32; the result is
rounded once to the data's type.  Integers (exact in any order), empty tensors and inputs that
do not fit the op take the exact kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Error, InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr, ints_attr
from .common.binding import dtype_of, fast_kernel, folded, shape_of, typed, with_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.spatial import AutoPad, dilated
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo
from .movement import _shape_from_info


@dataclass(frozen=True, slots=True)
class BackpropAttrs:
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: AutoPad
    output_padding: tuple[int, ...]
    groups: bool


def _parse(node: Node, groups: bool) -> BackpropAttrs:
    strides = ints_attr(node, "strides")
    n = len(strides)
    return BackpropAttrs(
        strides,
        ints_attr(node, "dilations", ()) or (1,) * n,
        ints_attr(node, "pads_begin", ()) or (0,) * n,
        ints_attr(node, "pads_end", ()) or (0,) * n,
        enum_attr(node, "auto_pad", AutoPad, AutoPad.EXPLICIT),
        ints_attr(node, "output_padding", ()) or (0,) * n,
        groups,
    )


def parse_backprop(node: Node) -> BackpropAttrs:
    return _parse(node, False)


def parse_group_backprop(node: Node) -> BackpropAttrs:
    return _parse(node, True)


def _check_attrs(attrs: BackpropAttrs) -> int:
    n = len(attrs.strides)
    for name, values in (
        ("dilations", attrs.dilations),
        ("pads_begin", attrs.pads_begin),
        ("pads_end", attrs.pads_end),
        ("output_padding", attrs.output_padding),
    ):
        if len(values) != n:
            raise ValidationError(
                f"Expected {name} size to be equal to the number of spatial dims ({n}). Got: {len(values)}"
            )
    for name, values in (("Strides", attrs.strides), ("Dilations", attrs.dilations)):
        if any(v <= 0 for v in values):
            raise ValidationError(f"{name} has zero dimension(s). {list(values)}")
    return n


def _same(attrs: BackpropAttrs) -> bool:
    return attrs.auto_pad in (AutoPad.SAME_UPPER, AutoPad.SAME_LOWER)


def auto_pads(
    attrs: BackpropAttrs, sizes: Sequence[int], kernel: Sequence[int], out: Sequence[int]
) -> tuple[list[int], list[int]]:
    """``apply_auto_pad`` of the backprop ops: pads from a requested output size."""
    begin, end = [], []
    for i, (n, k, o) in enumerate(zip(sizes, kernel, out, strict=True)):
        total = max(
            (n - 1) * attrs.strides[i] + dilated(k, attrs.dilations[i]) - o + attrs.output_padding[i], 0
        )
        small, big = total // 2, total - total // 2
        b, e = (big, small) if attrs.auto_pad is AutoPad.SAME_UPPER else (small, big)
        begin.append(b)
        end.append(e)
    return begin, end


def _padded(d: Dimension, pad: int) -> Dimension:
    """``ov::util::dim::padded``: a bound pushed below 0 becomes unbounded (upper) or 0 (lower)."""
    if pad == 0:
        return d
    hi = None if d.max is None or d.max + pad < 0 else d.max + pad
    if d.is_static:
        return Dimension() if hi is None else Dimension.static(hi)
    lo = max(d.min + pad, 0)
    return Dimension(lo if hi is None or lo <= hi else hi, hi)


def _spatial_out(attrs: BackpropAttrs, d: Dimension, k: Dimension, i: int) -> Dimension:
    s, dil = attrs.strides[i], attrs.dilations[i]
    explicit = attrs.auto_pad is AutoPad.EXPLICIT or attrs.auto_pad is AutoPad.NOTSET
    pads = attrs.pads_begin[i] + attrs.pads_end[i] if explicit else 0
    lo = max(d.min - 1, 0) * s + (max(k.min - 1, 0) * dil + 1)
    hi = None if d.max is None or k.max is None else max(d.max - 1, 0) * s + (max(k.max - 1, 0) * dil + 1)
    base = Dimension(lo, hi) if hi is None or lo <= hi else Dimension(hi, hi)
    return _padded(base, attrs.output_padding[i] - pads)


def _output_spatial(shape_in: TensorInfo, n: int) -> list[Dimension]:
    """The ``output_shape`` input's ``n`` spatial dims (any length where not known)."""
    if not (shape_in.element_type.is_dynamic or shape_in.element_type.is_integral_number):
        raise ValidationError(
            f"Element type for output shape should be of integer type (output_shape element type: "
            f"{shape_in.element_type})."
        )
    if shape_in.shape.rank_is_static and shape_in.shape.rank != 1:
        raise ValidationError("Input delivering output shape must have rank 1.")
    out_spatial = _shape_from_info(shape_in)
    if out_spatial is None:
        out_spatial = [Dimension()] * n
    if len(out_spatial) != n:
        raise ValidationError("Output shape should be defined for all and only spatial dimensions.")
    return out_spatial


def infer_backprop(attrs: BackpropAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, filters = inputs[0], inputs[1]
    et = data.element_type.merge(filters.element_type)
    if et is None:
        raise ValidationError(
            f"Element types for data batch and filters do not match (data batch element type: "
            f"{data.element_type}, filters element type: {filters.element_type})."
        )
    if not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Element type of inputs must be numeric. Got: {et}")
    n = _check_attrs(attrs)
    out_spatial = _output_spatial(inputs[2], n) if len(inputs) == 3 else None
    extra = 3 if attrs.groups else 2
    d = data.shape if data.shape.rank_is_static else PartialShape((Dimension(),) * (n + 2))
    f = filters.shape if filters.shape.rank_is_static else PartialShape((Dimension(),) * (n + extra))
    if d.rank != n + 2:
        raise ValidationError(
            f"Expected the data rank ({d.rank}) to be the number of spatial dims + 2 ({n + 2})."
        )
    if f.rank != n + extra:
        raise ValidationError(
            f"Data batch and filters rank do not match (data batch shape: {d}, filters shape: {f})."
        )
    if attrs.groups:
        groups, c_in, c_out = f[0], f[1], f[2]
        if (
            groups.is_static
            and c_in.is_static
            and d[1].is_static
            and d[1].length != groups.length * c_in.length
        ):
            raise ValidationError(
                f"Input channels dimension of data batch is incompatible with filter groups or input channels "
                f"({d[1]} vs {groups.length} groups of {c_in.length})."
            )
        channels = (
            Dimension.static(groups.length * c_out.length)
            if groups.is_static and c_out.is_static
            else Dimension()
        )
    else:
        if not d[1].compatible(f[0]):
            raise ValidationError(
                f"Data batch channel count ({d[1]}) does not match filter input channel count ({f[0]})."
            )
        channels = f[1]
    if out_spatial is None:
        out_spatial = [_spatial_out(attrs, d[2 + i], f[extra + i], i) for i in range(n)]
    return [TensorInfo(et, PartialShape((d[0], channels, *out_spatial)))]


@dataclass(frozen=True, slots=True)
class _Geometry:
    """One call's layout: ``groups`` of ``c_in`` input and ``c_out`` output channels each, the
    kernel's and the data's spatial sizes, the output's first position's offset (``begin``:
    input 0's tap 0 lands at ``-begin``) and the output's spatial sizes."""

    groups: int
    c_in: int
    c_out: int
    kernel: tuple[int, ...]
    sizes: tuple[int, ...]
    begin: tuple[int, ...]
    out: tuple[int, ...]


def _geometry(
    attrs: BackpropAttrs, x: np.ndarray, w: np.ndarray, output_shape: np.ndarray | None
) -> _Geometry:
    """The layout of a call on data ``x`` and filters ``w`` (and the ``output_shape`` input's
    value), or the reason the inputs do not fit the op."""
    return _layout(attrs, (x.shape, x.dtype), (w.shape, w.dtype), output_shape)


def _layout(
    attrs: BackpropAttrs,
    x: tuple[tuple[int, ...], np.dtype],
    w: tuple[tuple[int, ...], np.dtype],
    output_shape: np.ndarray | None,
) -> _Geometry:
    """``_geometry`` of the data's and the filters' shapes and types."""
    (x_shape, x_dtype), (w_shape, w_dtype) = x, w
    n = _check_attrs(attrs)
    extra = 3 if attrs.groups else 2
    if len(x_shape) != n + 2 or len(w_shape) != n + extra:
        raise InputError(f"data {x_shape} and filters {w_shape} do not fit {n} spatial dims")
    g = w_shape[0] if attrs.groups else 1
    c_in, c_out = w_shape[extra - 2], w_shape[extra - 1]
    if x_shape[1] != g * c_in:
        raise InputError(f"data has {x_shape[1]} channels, the filters take {g} x {c_in}")
    sizes, kernel = list(x_shape[2:]), list(w_shape[extra:])
    if output_shape is not None:
        out = [int(v) for v in np.asarray(output_shape).reshape(-1)]
        if len(out) != n or any(v < 0 for v in out):
            raise InputError(f"output_shape {out} is not {n} non-negative spatial sizes")
        if _same(attrs):
            begin, _ = auto_pads(attrs, sizes, kernel, out)
        elif attrs.auto_pad is AutoPad.VALID:
            begin = [0] * n
        else:
            begin = list(attrs.pads_begin)
    else:
        info = infer_backprop(
            attrs,
            [
                TensorInfo(ElementType.from_numpy(x_dtype), PartialShape.of(x_shape)),
                TensorInfo(ElementType.from_numpy(w_dtype), PartialShape.of(w_shape)),
            ],
        )
        shape = info[0].shape
        if not shape.is_static:
            raise InputError(f"the output shape {shape} is not positive")
        out = list(shape.to_shape()[2:])
        begin = list(attrs.pads_begin) if attrs.auto_pad in (AutoPad.EXPLICIT, AutoPad.NOTSET) else [0] * n
    return _Geometry(g, c_in, c_out, tuple(kernel), tuple(sizes), tuple(begin), tuple(out))


def _output_shape(inputs: Sequence[np.ndarray]) -> np.ndarray | None:
    return np.asarray(inputs[2]) if len(inputs) == 3 else None


def evaluate_backprop(attrs: BackpropAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    geo = _geometry(attrs, x, w, _output_shape(inputs))
    w_groups = [w[i] for i in range(geo.groups)] if attrs.groups else [w]
    c_in = geo.c_in
    acc = np.float64 if is_float(x.dtype) else np.int64
    with quiet():
        xs = widen(x).astype(acc)
        parts = [
            _scatter(xs[:, k * c_in : (k + 1) * c_in], widen(wg).astype(acc), attrs, geo.begin, geo.out)
            for k, wg in enumerate(w_groups)
        ]
        y = np.concatenate(parts, axis=1) if parts else np.zeros((x.shape[0], 0, *geo.out), acc)
        if is_float(x.dtype):
            return [narrow(y if x.dtype == np.float64 else y.astype(np.float32), x.dtype)]
        return [y.astype(x.dtype)]


_EVERY = (slice(None), slice(None))  # (a batch's and a channel's axes, whole)


def _tap_slices(
    attrs: BackpropAttrs, begin: Sequence[int], sizes: Sequence[int], out: Sequence[int], tap: Sequence[int]
) -> tuple[list[slice], list[slice]] | None:
    """Per spatial axis, the inputs whose kernel tap ``tap`` lands inside the output and the
    output positions they land at (None: no input does)."""
    src: list[slice] = []
    dst: list[slice] = []
    for i, (n_in, t, o) in enumerate(zip(sizes, tap, out, strict=True)):
        s = attrs.strides[i]
        first = t * attrs.dilations[i] - begin[i]  # output position of input 0
        lo = -(first // s) if first < 0 else 0  # the first input index landing at >= 0
        hi = min(n_in, (o - 1 - first) // s + 1) if o > 0 else 0
        if hi <= lo:
            return None
        src.append(slice(lo, hi))
        dst.append(slice(first + lo * s, first + (hi - 1) * s + 1, s))
    return src, dst


def _scatter(
    x: np.ndarray, w: np.ndarray, attrs: BackpropAttrs, begin: Sequence[int], out: Sequence[int]
) -> np.ndarray:
    """One group: x ``[N, C_in, in...]``, w ``[C_in, C_out, k...]`` -> ``[N, C_out, out...]``."""
    sizes, kernel = x.shape[2:], w.shape[2:]
    y = np.zeros((x.shape[0], w.shape[1], *out), x.dtype)
    for tap in np.ndindex(*kernel):
        taps = w.reshape(w.shape[0], w.shape[1], math.prod(kernel))[
            :, :, int(np.ravel_multi_index(tap, kernel))
        ]
        contrib = np.moveaxis(np.tensordot(x, taps, axes=([1], [0])), -1, 1)
        slices = _tap_slices(attrs, begin, sizes, out, tap)
        if slices is not None:
            src, dst = slices
            y[_EVERY + tuple(dst)] += contrib[_EVERY + tuple(src)]
    return y


# -- the fast kernel (``exact=False``) ---------------------------------------------------------


def _work_type(dtype: np.dtype) -> type[np.floating]:
    """A fast backprop's accumulator: float64 for f64, float32 for every other float."""
    return np.float64 if dtype == np.float64 else np.float32


def _fast_filters(geo: _Geometry, w: np.ndarray, acc: type[np.floating]) -> np.ndarray:
    """The filters as one matrix per group in the working type: ``[G, C_out/G * K, C_in/G]``
    (a row per output channel and kernel tap, taps the inner index)."""
    rows = geo.c_out * math.prod(geo.kernel)
    mats = widen(w).reshape(geo.groups, geo.c_in, rows).transpose(0, 2, 1)
    return np.ascontiguousarray(mats, dtype=acc)


_Slices = tuple[slice, ...]


@dataclass(frozen=True, slots=True)
class _Placement:
    """Where a fast call's products go, worked out once per layout (``_placement``).

    Taps apart (each axis's dilated kernel within its stride: no output position gets two
    products): ``order`` lays each input position's taps after it, ``blocks`` is the canvas of
    ``in * stride`` positions per axis as ``[in, stride]`` pairs, ``spots`` the taps' places in
    a block (None: the taps fill their blocks, no zeros), and the output is the canvas's
    ``src`` at the output's ``dst`` (both None: the whole canvas is the output).  Else
    ``taps``: per kernel tap, its products' and their output positions' slices."""

    geo: _Geometry
    apart: bool
    order: tuple[int, ...] = ()
    blocks: tuple[int, ...] = ()
    spots: _Slices | None = None
    full: tuple[int, ...] = ()
    src: _Slices | None = None
    dst: _Slices | None = None
    taps: tuple[tuple[_Slices, _Slices], ...] = ()


def _placement(attrs: BackpropAttrs, geo: _Geometry) -> _Placement:
    n_sp = len(geo.sizes)
    axes = list(zip(geo.kernel, attrs.dilations, attrs.strides, strict=True))
    if not all((k - 1) * d < s for k, d, s in axes):
        taps = []
        for tap in np.ndindex(*geo.kernel):
            slices = _tap_slices(attrs, geo.begin, geo.sizes, geo.out, tap)
            if slices is not None:
                taps.append((_EVERY + tuple(tap) + tuple(slices[0]), _EVERY + tuple(slices[1])))
        return _Placement(geo, False, taps=tuple(taps))
    order = (0, 1, *(a for i in range(n_sp) for a in (2 + n_sp + i, 2 + i)))
    blocks = tuple(v for n, s in zip(geo.sizes, attrs.strides, strict=True) for v in (n, s))
    spots = None
    if not all(k == s and d == 1 for k, d, s in axes):
        spots = _EVERY + tuple(v for k, d, _ in axes for v in (slice(None), slice(0, k * d, d)))
    full = tuple(n * s for n, s in zip(geo.sizes, attrs.strides, strict=True))
    if geo.begin == (0,) * n_sp and geo.out == full:
        return _Placement(geo, True, order, blocks, spots, full)
    src = tuple(
        slice(max(b, 0), max(min(b + o, f), max(b, 0)))
        for b, o, f in zip(geo.begin, geo.out, full, strict=True)
    )
    dst = tuple(slice(r.start - b, r.stop - b) for r, b in zip(src, geo.begin, strict=True))
    return _Placement(geo, True, order, blocks, spots, full, _EVERY + src, _EVERY + dst)


def _backprop_fast(plan: _Placement, x: np.ndarray, mats: np.ndarray) -> np.ndarray:
    """Every tap of every group at once (``[G, C_out/G * K, C_in/G]`` times the data as
    ``[N, G, C_in/G, in]``: one batched BLAS product in the working type), the taps then put
    in place (``_place_apart``, ``_scatter_taps``) and the result rounded once to the data's type."""
    geo = plan.geo
    n = x.shape[0]
    xs = widen(x).astype(mats.dtype, copy=False).reshape(n, geo.groups, geo.c_in, -1)
    products = np.matmul(mats, xs)  # [N, G, C_out/G * K, in]
    taps = products.reshape((n, geo.groups * geo.c_out, *geo.kernel, *geo.sizes))
    y = _place_apart(plan, taps) if plan.apart else _scatter_taps(plan, taps)
    return narrow(y, x.dtype)


def _place_apart(plan: _Placement, taps: np.ndarray) -> np.ndarray:
    """Taps whose output positions never meet: every input's taps go to its own block of the
    canvas by one transposing copy and no sums; the output is the canvas shifted by ``begin``,
    positions past the canvas 0 (``output_padding``, a larger ``output_shape``)."""
    lead = taps.shape[:2]
    laid = taps.transpose(plan.order)  # [N, C, in_1, k_1, in_2, k_2, ...]
    if plan.spots is None:
        canvas = np.ascontiguousarray(laid).reshape((*lead, *plan.blocks))
    else:
        canvas = np.zeros((*lead, *plan.blocks), taps.dtype)
        canvas[plan.spots] = laid
    canvas = canvas.reshape((*lead, *plan.full))
    if plan.src is None or plan.dst is None:
        return canvas
    y = np.zeros((*lead, *plan.geo.out), taps.dtype)
    y[plan.dst] = canvas[plan.src]
    return y


def _scatter_taps(plan: _Placement, taps: np.ndarray) -> np.ndarray:
    """Taps that may meet: each tap's products added where they land, in the working type."""
    y = np.zeros((*taps.shape[:2], *plan.geo.out), taps.dtype)
    for src, dst in plan.taps:
        y[dst] += taps[src]
    return y


def _fast_applies(x: tuple[tuple[int, ...], np.dtype], w: tuple[tuple[int, ...], np.dtype]) -> bool:
    """Float data and filters of one type, neither empty (the rest: the exact kernel)."""
    return is_float(x[1]) and x[1] == w[1] and math.prod(x[0]) > 0 and math.prod(w[0]) > 0


def evaluate_backprop_fast(attrs: BackpropAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The backprop ops with float sums by BLAS in f32 (f64 for f64): not bit-exact with the
    exact kernel's float64 sums; integers (exact in any order), empty data, filters or output
    and inputs that do not fit the op take the exact kernel."""
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    if not _fast_applies((x.shape, x.dtype), (w.shape, w.dtype)):
        return evaluate_backprop(attrs, inputs)
    geo = _geometry(attrs, x, w, _output_shape(inputs))
    if not math.prod(geo.out):
        return evaluate_backprop(attrs, inputs)
    with quiet():
        return [_backprop_fast(_placement(attrs, geo), x, _fast_filters(geo, w, _work_type(x.dtype)))]


def bind_backprop_fast(attrs: BackpropAttrs, inputs: Sequence[TensorInfo]) -> Kernel | None:
    """The fast kernel for static float data and filter shapes (and a Constant ``output_shape``
    where there is one): the layout once, and the filter matrices once when the filters are
    folded; what ``evaluate_backprop_fast`` computes."""
    data, filters = inputs[0], inputs[1]
    if not (data.shape.is_static and filters.shape.is_static):
        return None
    shape = folded(inputs[2]) if len(inputs) == 3 else None
    if len(inputs) == 3 and shape is None:
        return None
    x, w = (shape_of(data), dtype_of(data)), (shape_of(filters), dtype_of(filters))
    if not _fast_applies(x, w):
        return None
    try:
        geo = _layout(attrs, x, w, shape)
    except Error:
        return None  # (the general kernel words it)
    if not math.prod(geo.out):
        return None
    acc, plan = _work_type(x[1]), _placement(attrs, geo)
    value = folded(filters)
    if value is not None:
        mats = _fast_filters(geo, value, acc)
        return lambda values: [_run(plan, values[0], mats)]
    return lambda values: [_run(plan, values[0], _fast_filters(geo, values[1], acc))]


def _run(plan: _Placement, x: np.ndarray, mats: np.ndarray) -> np.ndarray:
    with quiet():
        return _backprop_fast(plan, np.asarray(x), mats)


def specialize_backprop(
    attrs: BackpropAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``evaluate_backprop`` (None).  Fast: float sums by BLAS in the working type
    (``bind_backprop_fast`` for a static signature, else ``evaluate_backprop_fast``); integer
    signatures keep ``evaluate_backprop`` (exact in any order)."""
    if mode.exact:
        return None
    if typed(inputs, outputs) and not is_float(dtype_of(inputs[0])):
        return None
    bound = bind_backprop_fast(attrs, inputs) if typed(inputs, outputs) else None
    return fast_kernel(bound, with_attrs(evaluate_backprop_fast, attrs))


SPECS = (
    OpSpec(
        type="ConvolutionBackpropData",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_backprop,
        infer=infer_backprop,
        evaluate=evaluate_backprop,
        blas=True,
        specialize=specialize_backprop,
    ),
    OpSpec(
        type="GroupConvolutionBackpropData",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_group_backprop,
        infer=infer_backprop,
        evaluate=evaluate_backprop,
        blas=True,
        specialize=specialize_backprop,
    ),
)
