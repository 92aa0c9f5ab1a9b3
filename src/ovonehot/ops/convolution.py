"""Convolution-1 and GroupConvolution-1: a character CNN over one-hot inputs (``F.one_hot`` -> ``conv1d``).

Shapes (``convolution_shape_inference.hpp``): data ``[N, C_in, spatial...]``, filters
``[C_out, C_in, k...]`` (GroupConvolution: ``[G, C_out/G, C_in/G, k...]``, with
``C_in = G * C_in/G``); output ``[N, C_out, out...]`` with the sizes of ``spatial.py``.
Data and filters share one real or integer element type, which the output keeps.

Values: every output element is the sum over input channels and kernel taps of data
times filter, zero padding outside the data.  ovonehot sums in float64 and rounds
once (integers: in int64, wrapped to the type); OpenVINO's CPU plugin (oneDNN) sums in
f32 in its own order, so f32 results agree to a few ulp.  The core has no ``evaluate``
for these ops.

Fast (``exact=False``): float convolutions sum in f32 (f64 for f64) by one batched BLAS
product: each group's windows laid out as columns (im2col) times its filter matrix, the
result rounded once to the data's type; integers keep the exact kernel (exact in any order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import Error, InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.binding import dtype_of, fast_kernel, folded, shape_of, typed, with_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.spatial import (
    AutoPad,
    Canvas,
    Window,
    canvas_for,
    check_window,
    pads_for,
    parse_window,
    spatial_dims,
)
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo


@dataclass(frozen=True, slots=True)
class ConvAttrs:
    window: Window
    groups: bool  # GroupConvolution


def parse_convolution(node: Node) -> ConvAttrs:
    return ConvAttrs(parse_window(node), False)


def parse_group_convolution(node: Node) -> ConvAttrs:
    return ConvAttrs(parse_window(node), True)


def _merge(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(message)
    return merged


def infer_convolution(attrs: ConvAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, filters = inputs
    et = data.element_type.merge(filters.element_type)
    if et is None:
        raise ValidationError(
            f"Element types for data batch and filters do not match (data batch element type: "
            f"{data.element_type}, filters element type: {filters.element_type})."
        )
    if not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Element types must be numeric. Got: {et}")
    extra = 3 if attrs.groups else 2  # leading filter dims before the kernel
    d, f = data.shape, filters.shape
    n_spatial = len(attrs.window.strides)
    check_window(attrs.window, n_spatial, d.rank if d.rank_is_static else None)
    if f.rank_is_static and f.rank != n_spatial + extra:
        raise ValidationError(f"Data batch and filters rank do not match (filters shape: {f}).")
    fd = tuple(f) if f.rank_is_static else (Dimension(),) * (n_spatial + extra)
    c_out = _out_channels(attrs, fd)
    kernel_dims = fd[extra:]
    if not d.rank_is_static:
        d = PartialShape((Dimension(),) * (n_spatial + 2))
    elif attrs.groups:
        groups, c_in_per_group = fd[0], fd[2]
        in_channels = d[1]
        if (
            groups.is_static
            and c_in_per_group.is_static
            and in_channels.is_static
            and in_channels.length != groups.length * c_in_per_group.length
        ):
            raise ValidationError(
                f"Input channels dimension of data batch has incompatible value with filter shape "
                f"({in_channels} vs {groups.length} groups of {c_in_per_group.length})."
            )
    else:
        _merge(
            d[1],
            fd[1],
            f"Data batch channel count ({d[1]}) does not match filter input channel count ({fd[1]}).",
        )
    spatial = spatial_dims(attrs.window, tuple(d)[2:], kernel_dims)
    return [TensorInfo(et, PartialShape((d[0], c_out, *spatial)))]


def _out_channels(attrs: ConvAttrs, filters: Sequence[Dimension]) -> Dimension:
    if not attrs.groups:
        return filters[0]
    groups, per_group = filters[0], filters[1]
    if groups.is_static and per_group.is_static:
        return Dimension.static(groups.length * per_group.length)
    return Dimension()


@dataclass(frozen=True, slots=True)
class _Conv:
    """A convolution of one data and filter shape and type: everything but the arithmetic."""

    canvas: Canvas  # the data in a zero canvas of the accumulator type; windows [N, C, *outs, *kernel]
    groups: int
    c_in: int  # input channels per group
    c_out: int  # output channels per group
    filters: tuple[int, ...]  # the filters' shape as one group's [C_out, C_in, *kernel]
    order: tuple[int, ...]  # the windows' axes as np.tensordot orders them: [N, *outs, C, *kernel]
    rows: tuple[int, int]  # the windows as one matrix: [N * O, C * K]
    y_shape: tuple[int, ...]  # one group's product: [N, *outs, C_out]
    acc: type[np.floating | np.signedinteger]
    dtype: np.dtype


def _conv_plan(
    attrs: ConvAttrs,
    x_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    dtype: np.dtype,
    acc: type[np.floating | np.signedinteger] | None = None,
) -> _Conv:
    """The geometry of one convolution, its checks, and the canvas in ``acc`` (default: float64
    for floats, int64 for integers, the exact kernel's accumulators)."""
    if attrs.groups:
        g = w_shape[0]
        full = (g * w_shape[1], *w_shape[2:])
    else:
        g = 1
        full = w_shape
    kernel = list(full[2:])
    c_in = full[1]
    if x_shape[1] != g * c_in:
        raise InputError(f"data has {x_shape[1]} channels, the filters take {g} x {c_in}")
    begin, end = pads_for(attrs.window, x_shape[2:], kernel)
    et = ElementType.from_numpy(dtype)
    info = infer_convolution(
        attrs, [TensorInfo(et, PartialShape.of(x_shape)), TensorInfo(et, PartialShape.of(w_shape))]
    )
    outs = info[0].shape.to_shape()[2:]
    if acc is None:
        acc = np.float64 if is_float(dtype) else np.int64
    n_sp = len(kernel)
    c_out = full[0] // g
    return _Conv(
        canvas_for(x_shape, np.dtype(acc), kernel, attrs.window, outs, begin, end),
        g,
        c_in,
        c_out,
        (c_out, c_in, *kernel),
        (0, *range(2, 2 + n_sp), 1, *range(2 + n_sp, 2 + 2 * n_sp)),
        (x_shape[0] * math.prod(outs), c_in * math.prod(kernel)),
        (x_shape[0], *outs, c_out),
        acc,
        dtype,
    )


def _filter_matrices(plan: _Conv, w: np.ndarray) -> list[np.ndarray]:
    """Each group's filters in the accumulator type as np.tensordot lays them out: [C * K, C_out]."""
    w_full = w.reshape((plan.groups * plan.c_out, *plan.filters[1:]))
    n_sp = len(plan.filters) - 2
    mats = []
    for group in range(plan.groups):
        ws = widen(w_full[group * plan.c_out : (group + 1) * plan.c_out]).astype(plan.acc)
        mats.append(ws.transpose((*range(1, 2 + n_sp), 0)).reshape(plan.rows[1], plan.c_out))
    return mats


def _convolve(plan: _Conv, x: np.ndarray, mats: Sequence[np.ndarray]) -> np.ndarray:
    win = plan.canvas.windows(widen(x))  # [N, C, *outs, *kernel]
    parts = []
    for group, mat in enumerate(mats):
        xs = win[:, group * plan.c_in : (group + 1) * plan.c_in]
        # contract channels and kernel taps: [N, *outs] x [C_out], np.tensordot's way
        y = np.dot(xs.transpose(plan.order).reshape(plan.rows), mat).reshape(plan.y_shape)
        parts.append(np.moveaxis(y, -1, 1))
    shape = (plan.y_shape[0], 0, *plan.y_shape[1:-1])
    out = np.concatenate(parts, axis=1) if parts else np.zeros(shape, plan.acc)
    if is_float(plan.dtype):
        return narrow(out if plan.dtype == np.float64 else out.astype(np.float32), plan.dtype)
    return out.astype(plan.dtype)


def evaluate_convolution(attrs: ConvAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, w = (np.asarray(a) for a in inputs)
    plan = _conv_plan(attrs, x.shape, w.shape, x.dtype)
    with quiet():
        return [_convolve(plan, x, _filter_matrices(plan, w))]


def bind_convolution(
    attrs: ConvAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Static data and filter shapes of one type: the canvas and window geometry once, and the
    filters' accumulator-type matrices once when they are folded (a Constant, the usual case);
    each run lays the data into its canvas and multiplies."""
    data, filters = inputs
    if not (data.shape.is_static and filters.shape.is_static) or dtype_of(data) != dtype_of(filters):
        return None
    x_shape, w_shape = shape_of(data), shape_of(filters)
    if not math.prod(x_shape) or not math.prod(w_shape):
        return None
    try:
        plan = _conv_plan(attrs, x_shape, w_shape, dtype_of(data))
    except Error:
        return None  # (the kernel words it)
    w = folded(filters)
    if w is not None:
        mats = _filter_matrices(plan, w)

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [_convolve(plan, values[0], mats)]

        return kernel

    def unfolded(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_convolve(plan, values[0], _filter_matrices(plan, values[1]))]

    return unfolded


# -- the fast kernel (``exact=False``) ---------------------------------------------------------


def _work_type(dtype: np.dtype) -> type[np.floating]:
    """A fast float convolution's accumulator: float64 for f64, float32 for every other float."""
    return np.float64 if dtype == np.float64 else np.float32


def _fast_filters(plan: _Conv, w: np.ndarray) -> np.ndarray:
    """The filters as one matrix per group in the working type: [G, C_out/G, C_in/G * K]."""
    return np.ascontiguousarray(widen(w).reshape(plan.groups, plan.c_out, plan.rows[1]), dtype=plan.acc)


# Elements of the window columns of a block of groups laid out at once by the fast kernel: a
# depthwise convolution's columns for every channel (K times the data) leave the cache before
# their product reads them (a 7x7 depthwise layer of 96 x 56 x 56: 4x slower than by blocks).
GROUP_BLOCK = 1 << 17


def _convolve_fast(plan: _Conv, x: np.ndarray, mats: np.ndarray) -> np.ndarray:
    """Every group's windows as columns (im2col, [G, C_in/G * K, N * O]) times its filter matrix,
    one batched BLAS product in the working type; the result rounded once to the data's type."""
    n, g = plan.y_shape[0], plan.groups
    outs = plan.y_shape[1:-1]
    n_sp = len(outs)
    taps = n * g * math.prod(outs)  # (the elements of one tap's product)
    if plan.c_in == plan.c_out == 1 and n_sp == 2 and math.prod(outs) <= DEPTHWISE_TAP_OUTPUTS <= taps // 128:
        return narrow(_depthwise_taps(plan, x, mats), plan.dtype)
    win = plan.canvas.windows(x)  # [N, C, *outs, *kernel]
    win = win.reshape((n, g, plan.c_in, *outs, *plan.filters[2:]))
    # [G, C/G, *kernel, N, *outs]: columns whose rows are (channel, tap), one copy
    order = (1, 2, *range(3 + n_sp, 3 + 2 * n_sp), 0, *range(3, 3 + n_sp))
    columns = n * math.prod(outs)
    step = max(
        1, GROUP_BLOCK // max(1, plan.rows[1] * columns)
    )  # (groups whose columns are laid out at once)
    if step >= g:
        y = np.matmul(mats, win.transpose(order).reshape((g, plan.rows[1], columns)))  # [G, C_out/G, N * O]
    else:  # (many groups, a depthwise convolution: a block's columns stay in cache for its product)
        y = np.empty((g, plan.c_out, columns), plan.acc)
        for a in range(0, g, step):
            cols = win[:, a : a + step].transpose(order).reshape((-1, plan.rows[1], columns))
            np.matmul(mats[a : a + step], cols, out=y[a : a + step])
    y = y.reshape((g * plan.c_out, n, *outs))
    out = y[:, 0][np.newaxis] if n == 1 else np.ascontiguousarray(np.moveaxis(y, 1, 0))
    return narrow(out, plan.dtype)


# A 2-D depthwise layer of at most this many output positions per channel (its late, small
# stage: 7 x 7, 8 x 8) sums its taps in channels-last layout instead (``_depthwise_taps``):
# few positions and many channels make the window columns' short rows slow to lay out.  Only
# with at least 128 x DEPTHWISE_TAP_OUTPUTS elements per tap (8192: channels x positions): for
# fewer, the two NumPy calls per tap cost more than the columns (tiny mobilenet_v3: 1.79 ms a
# call against 1.35).
DEPTHWISE_TAP_OUTPUTS = 64


def _depthwise_taps(plan: _Conv, x: np.ndarray, mats: np.ndarray) -> np.ndarray:
    """A depthwise convolution (one input and one output channel per group) as the sum over its
    kernel taps of each tap's window view times the tap's per-channel weight, in channels-last
    layout (the channels a contiguous row); the sum in the working type, tap by tap."""
    canvas = plan.canvas.laid(x).reshape(plan.canvas.shape)  # [N, C, *canvas spatial]
    last = np.ascontiguousarray(np.moveaxis(canvas, 1, -1))  # [N, H, W, C]
    item = last.itemsize
    rows = plan.canvas.shape[3]  # (a canvas row, in elements, channels-first)
    sh, sw = plan.canvas.view_strides[2] // item, plan.canvas.view_strides[3] // item
    dh, dw = plan.canvas.view_strides[4] // item, plan.canvas.view_strides[5] // item
    top, left = divmod(plan.canvas.offset // item, rows)
    c = plan.canvas.shape[1]
    n, oh, ow, kh, kw = plan.y_shape[0], *plan.y_shape[1:3], *plan.filters[2:]
    scale = c * item  # (bytes per canvas position, channels-last)
    view = np.ndarray(
        (n, oh, ow, kh, kw, c),
        last.dtype,
        last,
        (top * rows + left) * scale,
        (last.strides[0], sh // rows * rows * scale, sw * scale, dh // rows * rows * scale, dw * scale, item),
    )
    taps = np.ascontiguousarray(mats.reshape(c, kh * kw).T)  # [K, C]: a tap's weights in a row
    acc = np.zeros((n, oh, ow, c), plan.acc)
    term = np.empty_like(acc)
    for k, (i, j) in enumerate(np.ndindex(kh, kw)):
        np.multiply(view[:, :, :, i, j], taps[k], out=term)
        acc += term
    return np.ascontiguousarray(np.moveaxis(acc, -1, 1))


def evaluate_convolution_fast(attrs: ConvAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Convolution with float sums by BLAS in f32 (f64 for f64): not bit-exact with the exact
    kernel's float64 sums; integers (exact in any order) and empty tensors take the exact kernel."""
    x, w = (np.asarray(a) for a in inputs)
    if not is_float(x.dtype) or x.dtype != w.dtype or not x.size or not w.size:
        return evaluate_convolution(attrs, [x, w])
    plan = _conv_plan(attrs, x.shape, w.shape, x.dtype, _work_type(x.dtype))
    plan, w = _without_padding_taps(attrs, plan, x.shape, w)
    with quiet():
        return [_convolve_fast(plan, x, _fast_filters(plan, w))]


def bind_convolution_fast(
    attrs: ConvAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The fast kernel for static float data and filter shapes: geometry once, and the filter
    matrices once when the filters are folded; what ``evaluate_convolution_fast`` computes."""
    data, filters = inputs
    dtype = dtype_of(data)
    if not (data.shape.is_static and filters.shape.is_static) or dtype != dtype_of(filters):
        return None
    x_shape, w_shape = shape_of(data), shape_of(filters)
    if not is_float(dtype) or not math.prod(x_shape) or not math.prod(w_shape):
        return None
    try:
        plan = _conv_plan(attrs, x_shape, w_shape, dtype, _work_type(dtype))
    except Error:
        return None  # (the kernel words it)
    w = folded(filters)
    if w is not None:
        plan, w = _without_padding_taps(attrs, plan, x_shape, w)
        mats = _fast_filters(plan, w)
        return lambda values: [_convolve_fast(plan, values[0], mats)]
    cropping = _Cropping.of(attrs, plan, x_shape, w_shape)

    def unfolded(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        run, w = cropping.apply(plan, values[1])
        return [_convolve_fast(run, values[0], _fast_filters(run, w))]

    return unfolded


def used_taps(plan: _Conv, attrs: ConvAttrs, x_shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """Per spatial axis, the range of kernel taps that read the data at some output position
    (the others read only padding); a range, as the taps reading data are consecutive."""
    kernel = plan.filters[2:]
    begin, _ = pads_for(attrs.window, x_shape[2:], kernel)
    outs = plan.y_shape[1:-1]
    ranges = []
    for a, (k, n, o) in enumerate(zip(kernel, x_shape[2:], outs, strict=True)):
        s, d = attrs.window.strides[a], attrs.window.dilations[a]
        at = (np.arange(k) * d - begin[a])[:, None] + np.arange(o)[None, :] * s  # (tap, output) -> position
        hits = np.flatnonzero(((at >= 0) & (at < n)).any(axis=1))
        ranges.append((int(hits[0]), int(hits[-1]) + 1) if hits.size else (0, k))
    return ranges


@dataclass(frozen=True, slots=True)
class _Cropping:
    """A fast convolution's geometry without the kernel taps that read only padding, and the
    taps it keeps (None: every tap reads data)."""

    plan: _Conv | None
    ranges: tuple[tuple[int, int], ...]

    @staticmethod
    def of(attrs: ConvAttrs, plan: _Conv, x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> _Cropping:
        ranges = tuple(used_taps(plan, attrs, x_shape))
        kernel = plan.filters[2:]
        if all(r == (0, k) for r, k in zip(ranges, kernel, strict=True)):
            return _Cropping(None, ranges)
        begin, end = pads_for(attrs.window, x_shape[2:], kernel)
        d = attrs.window.dilations
        window = replace(
            attrs.window,
            pads_begin=tuple(b - lo * dd for b, (lo, _), dd in zip(begin, ranges, d, strict=True)),
            pads_end=tuple(
                e - (k - hi) * dd for e, (_, hi), k, dd in zip(end, ranges, kernel, d, strict=True)
            ),
            auto_pad=AutoPad.EXPLICIT,
        )
        cropped = (*w_shape[: len(w_shape) - len(ranges)], *(hi - lo for lo, hi in ranges))
        return _Cropping(
            _conv_plan(replace(attrs, window=window), x_shape, cropped, plan.dtype, plan.acc), ranges
        )

    def apply(self, plan: _Conv, w: np.ndarray) -> tuple[_Conv, np.ndarray]:
        """The geometry and filters to run: cropped when the filters are finite (a product of
        padding is then a zero, adding nothing), else ``plan`` and every tap (inf x 0 is NaN)."""
        if self.plan is None or not np.isfinite(w).all():
            return plan, w
        cropped = w
        for a, (lo, hi) in enumerate(self.ranges):  # (the filters' trailing axes are the kernel's)
            cropped = np.take(cropped, np.arange(lo, hi), axis=w.ndim - len(self.ranges) + a)
        return self.plan, np.ascontiguousarray(cropped)


def _without_padding_taps(
    attrs: ConvAttrs, plan: _Conv, x_shape: tuple[int, ...], w: np.ndarray
) -> tuple[_Conv, np.ndarray]:
    """The fast kernel's geometry and filters without the kernel taps that read only padding
    (DeepLab's dilated 3x3 convolutions at rates 24 and 36 on a 14 x 14 map: a 1x1
    convolution, and no 86 x 86 canvas of zeros), for finite filters ``w`` (``_Cropping``);
    every plan of a fast run crops alike, so its values do not depend on the plan."""
    return _Cropping.of(attrs, plan, x_shape, w.shape).apply(plan, w)


def specialize_convolution(
    attrs: ConvAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: ``bind_convolution``.  Fast: float sums by BLAS in the working type
    (``bind_convolution_fast`` for a static signature, else ``evaluate_convolution_fast``)."""
    if mode.exact:
        return bind_convolution(attrs, inputs, outputs) if typed(inputs, outputs) else None
    if typed(inputs, outputs) and not is_float(dtype_of(inputs[0])):
        return bind_convolution(attrs, inputs, outputs)  # (integers: exact in any order)
    bound = bind_convolution_fast(attrs, inputs, outputs) if typed(inputs, outputs) else None
    return fast_kernel(bound, with_attrs(evaluate_convolution_fast, attrs))


SPECS = (
    OpSpec(
        type="Convolution",
        version=1,
        since=1,
        inputs=2,
        parse=parse_convolution,
        infer=infer_convolution,
        evaluate=evaluate_convolution,
        blas=True,
        specialize=specialize_convolution,
    ),
    OpSpec(
        type="GroupConvolution",
        version=1,
        since=1,
        inputs=2,
        parse=parse_group_convolution,
        infer=infer_convolution,
        evaluate=evaluate_convolution,
        blas=True,
        specialize=specialize_convolution,
    ),
)
