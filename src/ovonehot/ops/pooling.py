"""MaxPool-1/8/14 and AvgPool-1/14/16: pooling over one-hot maps (``F.max_pool2d`` of a segmentation one-hot).

Shapes: data ``[N, C, spatial...]`` of rank 3 to 5; output ``[N, C, out...]`` with the
sizes of ``spatial.py`` (``rounding_type`` floor, ceil, and from opset14 ceil_torch).
MaxPool-8/14 also return the indices of the maxima (``index_element_type`` i32 or i64,
default i64) and take ``dilations`` and ``axis``; AvgPool-16 takes ``dilations`` (ONNX
AveragePool-19 with dilations converts to it).

Values:

* MaxPool: the largest element of each window, as the reference scans it: from the
  type's lowest value (f32's for f16/bf16, computed in f32), an element on data replaces
  the maximum only when greater, so NaN, -inf and the lowest value itself are never
  chosen, and padding and window positions past the padded data never are.  A window with
  nothing above the lowest (all NaN/-inf, or no data at all, which ceil rounding can make)
  gives the lowest value (-3.4028235e38 for f32, -inf for f16/bf16) and the index of the
  channel's first element (core reference and CPU plugin agree, measured).  Ties go to
  the first position in row-major window order.  An index is the position of the chosen element in the *input*, flattened
  from dimension ``axis`` on (``axis=0``: over the whole tensor, ``axis=2``: within one
  channel, as PyTorch's ``return_indices``).
* AvgPool: the mean of each window; with ``exclude-pad``, or when there is no padding at
  all (zero pads, ``valid``), it divides by the number of data elements in the window
  (a window that ceil rounding lets run past the data); otherwise always by the kernel
  size (also for a window that runs past the end padding: the CPU plugin's rule,
  measured; PyTorch would divide by the part inside the padding).  With dilations the window holds
  the kernel's dilated positions only; ``exclude-pad`` counts those that fall on data.
  Sums are in float64, rounded once to the element type.

OpenVINO's core evaluates MaxPool-8/14 (compared bit for bit); AvgPool has no core
evaluate and is compared with the CPU plugin.

Kernels for a plan: MaxPool scans small windows one position at a time over every window at
once (``_max_scan``, the same bytes in both modes: no arithmetic).  AvgPool, fast
(``exact=False``): float sums in f32 (f64 for f64) in NumPy's order instead of float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, int_attr, ints_attr
from .common.binding import Binder, dtype_of, fast_kernel, shape_of, typed, with_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.shape_util import normalize_axis
from .common.spatial import (
    Canvas,
    RoundingType,
    Window,
    canvas_for,
    check_window,
    pads_for,
    parse_window,
    spatial_dims,
)
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo, placeholder


def _int_lowest(dtype: np.dtype) -> int:
    """The smallest value of an integer (or boolean: False) dtype, what a MaxPool window starts from."""
    return 0 if dtype == np.bool_ else int(np.iinfo(dtype).min)


@dataclass(frozen=True, slots=True)
class PoolAttrs:
    window: Window
    kernel: tuple[int, ...]
    version: int
    exclude_pad: bool = False  # AvgPool
    index_element_type: ElementType = ElementType.i64  # MaxPool-8/14
    axis: int = 0  # MaxPool-8/14


_P = TypeVar("_P", "_MaxPool", "_AvgPool", "_MaxScan")


def _parser(kind: str, version: int) -> Callable[[Node], PoolAttrs]:
    def parse(node: Node) -> PoolAttrs:
        # MaxPool takes dilations from opset8, AvgPool from opset16 (AvgPool-1/14 have none).
        with_dilations = version >= 8 if kind == "max" else version >= 16
        window = parse_window(node, with_dilations=with_dilations, rounding=True)
        if window.rounding is RoundingType.CEIL_TORCH and version < 14:
            raise ValidationError(f"{node.describe()}: rounding_type ceil_torch needs opset14")
        kernel = ints_attr(node, "kernel")
        if kind == "avg":
            return PoolAttrs(window, kernel, version, exclude_pad=bool_attr(node, "exclude-pad"))
        if version >= 8:
            return PoolAttrs(
                window,
                kernel,
                version,
                index_element_type=element_type_attr(node, "index_element_type", ElementType.i64),
                axis=int_attr(node, "axis", 0),
            )
        return PoolAttrs(window, kernel, version)

    return parse


def _out_shape(attrs: PoolAttrs, data: TensorInfo) -> PartialShape:
    d = data.shape
    n = len(attrs.kernel)
    if d.rank_is_static and d.rank not in (3, 4, 5):
        raise ValidationError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {d}")
    check_window(attrs.window, n, d.rank if d.rank_is_static else None)
    if not d.rank_is_static:
        return PartialShape((Dimension(),) * (n + 2))
    for label, dim in (("Batch size", d[0]), ("Channel count", d[1])):
        if dim.is_static and dim.length == 0:
            raise ValidationError(f"{label} is zero.")
    return PartialShape((d[0], d[1], *spatial_dims(attrs.window, tuple(d)[2:], attrs.kernel)))


def infer_max_pool(attrs: PoolAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    shape = _out_shape(attrs, data)
    if attrs.version < 8:
        return [TensorInfo(data.element_type, shape)]
    if attrs.index_element_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"Index element type must be i32 or i64. Got: {attrs.index_element_type}")
    if data.shape.rank_is_static:
        normalize_axis(attrs.axis, data.shape.rank)
    return [TensorInfo(data.element_type, shape), TensorInfo(attrs.index_element_type, shape)]


def infer_avg_pool(attrs: PoolAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    return [TensorInfo(data.element_type, _out_shape(attrs, data))]


@dataclass(frozen=True, slots=True)
class _Pool:
    """What a pooling of one data shape and type computes before seeing any data."""

    canvas: Canvas  # the data in a zero canvas of its own type; windows [N, C, *outs, *kernel]
    mask: np.ndarray  # [*outs, *kernel]: window positions on data (a strided view, as the windows)
    begin: tuple[int, ...]
    end: tuple[int, ...]
    outs: tuple[int, ...]


def _pool(attrs: PoolAttrs, shape: tuple[int, ...], dtype: np.dtype) -> _Pool:
    sizes = list(shape[2:])
    begin, end = pads_for(attrs.window, sizes, attrs.kernel)
    info = _out_shape(attrs, TensorInfo(ElementType.f32, PartialShape.of(shape)))
    outs = info.to_shape()[2:]
    canvas = canvas_for(shape, dtype, attrs.kernel, attrs.window, outs, begin, end)
    # The same windows over a mask of the data's place in the canvas.
    in_data = np.zeros((1, 1, *canvas.shape[2:]), dtype=bool)
    in_data[(slice(None), slice(None), *canvas.place[2:]) if canvas.place else ...] = True
    mask = canvas_for((1, 1, *sizes), in_data.dtype, attrs.kernel, attrs.window, outs, begin, end)
    view = np.ndarray(mask.view_shape, in_data.dtype, in_data, mask.offset, mask.view_strides)[0, 0]
    return _Pool(canvas, view, tuple(begin), tuple(end), tuple(outs))


@dataclass(frozen=True, slots=True)
class _MaxPool:
    """MaxPool of one data shape and type: everything but the data's own arithmetic."""

    pool: _Pool
    flat_shape: tuple[int, ...]  # [N, C, *outs, K]: the windows in row-major window order
    valid: np.ndarray | None  # [*outs, K]: positions on data; None: all are
    low: float | int  # a position not chosen scores this
    floats: bool
    floor: np.ndarray  # T's lowest value, in the widened type: only elements above it are chosen
    lowest: np.ndarray  # what a window with nothing above it (or no data) gives
    firsts: np.ndarray  # [N, C, *outs]: each window's first position in the flat windows
    # Indices (MaxPool-8/14): index = base + table[rows + position in window]
    table: np.ndarray | None  # [O * K]: the flattened spatial part of each (window, position)
    rows: np.ndarray | None  # [*outs]: each window's first entry in ``table``
    base: np.ndarray | None  # [N, C, 1...]: the batch and channel part; None: 0
    index_dtype: np.dtype  # i32 or i64 (read with ``table``)


def _max_pool_plan(attrs: PoolAttrs, shape: tuple[int, ...], dtype: np.dtype) -> _MaxPool:
    pool = _pool(attrs, shape, dtype)
    n_sp = len(attrs.kernel)
    k = math.prod(attrs.kernel)
    outs = pool.outs
    n_out = math.prod(outs)
    valid = np.ascontiguousarray(pool.mask).reshape((*outs, k))
    wide = widen(np.empty(0, dtype)).dtype
    floats = is_float(dtype)
    lowest = np.finfo(wide).min if floats else _int_lowest(dtype)
    firsts = (np.arange(shape[0] * shape[1] * n_out, dtype=np.intp) * k).reshape(
        pool.canvas.view_shape[: 2 + n_sp]
    )
    table = rows = base = None
    if attrs.version >= 8:
        # The chosen element's input coordinates, flattened from ``axis`` on: per (window, position)
        # the spatial part, per (batch, channel) the rest.
        axis = normalize_axis(attrs.axis, len(shape))
        scale = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
        k_coords = np.unravel_index(np.arange(k), attrs.kernel)
        grids = np.indices(outs).reshape((n_sp, -1, 1))
        part = np.zeros((n_out, k), dtype=np.int64)
        for i in range(n_sp):
            if 2 + i < axis:
                continue
            at = grids[i] * attrs.window.strides[i] + k_coords[i] * attrs.window.dilations[i] - pool.begin[i]
            part += np.clip(at, 0, shape[2 + i] - 1) * scale[2 + i]
        table = part.reshape(-1)
        rows = (np.arange(n_out, dtype=np.intp) * k).reshape(outs)
        if axis < 2:
            nc = np.arange(shape[1], dtype=np.int64) * scale[1]
            if axis == 0:
                nc = nc + (np.arange(shape[0], dtype=np.int64) * scale[0])[:, None]
            base = np.broadcast_to(nc, shape[:2]).reshape(shape[:2] + (1,) * n_sp)
    return _MaxPool(
        pool,
        (*pool.canvas.view_shape[: 2 + n_sp], k),
        None if valid.all() else valid,
        -np.inf if floats else _int_lowest(dtype),
        floats,
        np.asarray(lowest, dtype=wide),
        narrow(np.asarray(lowest, dtype=wide), dtype),
        firsts,
        table,
        rows,
        base,
        numpy_dtype_of(attrs.index_element_type),
    )


def _max_pool(plan: _MaxPool, x: np.ndarray) -> list[np.ndarray]:
    flat = plan.pool.canvas.windows(x).reshape(plan.flat_shape)
    w = widen(flat)
    # The reference's scan: from T's lowest, a data element replaces the maximum when greater,
    # so NaN and values not above the lowest are never chosen.
    candidate = w > plan.floor
    if plan.valid is not None:
        candidate &= plan.valid
    scored = np.where(candidate, w.astype(np.float64) if plan.floats else w, plan.low)
    pos = np.argmax(scored, axis=-1)  # first maximum in window order
    values = np.take(flat, plan.firsts + pos)
    none = np.logical_not(candidate.any(axis=-1))  # T's lowest, at the channel's first element
    unchosen = bool(none.any())
    if unchosen:
        values = np.where(none, plan.lowest, values)
    if plan.table is None:
        return [values]
    index = plan.table[plan.rows + pos]
    if plan.base is not None:
        index = index + plan.base
    if unchosen:
        index = np.where(none, 0 if plan.base is None else plan.base, index)
    return [values, index.astype(plan.index_dtype)]


# Windows of at most this many positions are scanned one position at a time (``_max_scan``);
# larger ones (a global pooling) take ``_max_pool``'s one argmax, fewer NumPy calls there.
SCAN_TAPS = 32


# ``_MaxScan.axes``: per spatial axis, first first, the strided view (shape, strides in bytes,
# offset in bytes) of the array reduced so far that puts that axis's window positions last.
_Axes = tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]


@dataclass(frozen=True, slots=True)
class _MaxScan:
    """MaxPool of one data shape and type as the reference scans a window, one window position
    (tap) at a time over every window at once: each tap's element replaces the maximum where it
    is greater, starting from T's lowest, around the data a value never chosen.  The bytes of
    ``_max_pool`` (a copy or a widening of the chosen element, no arithmetic), in fewer passes."""

    plan: _MaxPool  # the index tables and the lowest value
    canvas: Canvas  # the data widened (f16/bf16 in f32); around it ``fill``
    fill: float | int
    n_sp: int  # spatial dims
    taps: int  # window positions, scanned in row-major order (ties go to the first)
    out_shape: tuple[int, ...]  # [N, C, *outs]
    # The table's entries split (MaxPool-8/14): the spatial index of a window's chosen element is
    # ``starts[window] + offsets[position]`` (the table's clip is a no-op on data, and padding is
    # never chosen); in int32 when every index fits.  None without indices.
    starts: np.ndarray | None  # [*outs]
    offsets: np.ndarray | None  # [K]
    # No indices wanted and the data's own type: the maxima one spatial axis at a time
    # (``_max_axes``: a window's maximum is the maximum over its rows of each row's maximum),
    # fmax over strided views of the canvas, no copy of the taps.
    axes: _Axes | None = None


def _axis_views(canvas: Canvas, window: Window, kernel: tuple[int, ...], outs: tuple[int, ...]) -> _Axes:
    """``_MaxScan.axes`` for the windows of ``canvas``: reducing axis ``a`` (the first first, so
    the passes read whole rows, contiguous) reads an array whose axes before ``a`` are the
    outputs' already, the others the canvas' (contiguous, of the canvas' type), through a view
    ``[..., outs[a], ..., kernel[a]]`` starting at the window grid's origin on that axis."""
    item = canvas.dtype.itemsize
    sizes = list(canvas.shape)
    canvas_strides = [item * math.prod(sizes[d + 1 :]) for d in range(len(sizes))]
    origins = [(canvas.offset // canvas_strides[d]) % sizes[d] for d in range(2, len(sizes))]
    views = []
    for a in range(len(kernel)):
        strides = [item * math.prod(sizes[d + 1 :]) for d in range(len(sizes))]
        step = strides[2 + a]
        shape = (*sizes[: 2 + a], outs[a], *sizes[3 + a :], kernel[a])
        view_strides = (
            *strides[: 2 + a],
            step * window.strides[a],
            *strides[3 + a :],
            step * window.dilations[a],
        )
        views.append((shape, view_strides, origins[a] * step))
        sizes[2 + a] = outs[a]
    return tuple(views)


def _max_axes(scan: _MaxScan, axes: _Axes, x: np.ndarray) -> np.ndarray | None:
    """The windows' maxima of ``x`` one spatial axis at a time: ``_max_scan``'s fmax from T's
    lowest over strided views, no copy of the taps.  Equal values other than zeros have equal
    bits, so the order of the passes does not matter but for a zero maximum's sign: None
    (``_max_scan`` decides) where the data holds a -0.0 and some window's maximum is zero."""
    current = scan.canvas.laid(x, scan.fill)
    floor = scan.plan.floor
    for shape, strides, offset in axes:
        view = np.ndarray(shape, current.dtype, current, offset, strides)
        best: np.ndarray = np.fmax(view[..., 0], floor)  # (from T's lowest)
        for t in range(1, shape[-1]):
            np.fmax(best, view[..., t], out=best)
        current = best
    if scan.plan.floats and not current.all() and _negative_zero(x):
        return None  # (a zero maximum, and a -0.0 in the data)
    return narrow(current, x.dtype)


def _negative_zero(x: np.ndarray) -> bool:
    """Whether the float array ``x`` holds a -0.0: its bits as a signed integer are the type's
    lowest (one reduction, no temporary)."""
    bits = np.dtype(f"i{x.dtype.itemsize}")
    return bool(
        np.min(x.view(bits) if x.flags.c_contiguous else np.ascontiguousarray(x).view(bits))
        == np.iinfo(bits).min
    )


def _max_scan_plan(attrs: PoolAttrs, shape: tuple[int, ...], dtype: np.dtype) -> _MaxScan:
    plan = _max_pool_plan(attrs, shape, dtype)
    pool = plan.pool
    canvas = canvas_for(shape, plan.floor.dtype, attrs.kernel, attrs.window, pool.outs, pool.begin, pool.end)
    fill = -np.inf if plan.floats else _int_lowest(dtype)  # (never above the start, T's lowest)
    n_sp = len(attrs.kernel)
    starts, offsets = _index_parts(attrs, shape, pool) if plan.table is not None else (None, None)
    out_shape = (*shape[:2], *pool.outs)
    by_axes = starts is None and math.prod(shape) > 0
    axes = _axis_views(canvas, attrs.window, tuple(attrs.kernel), pool.outs) if by_axes else None
    return _MaxScan(plan, canvas, fill, n_sp, math.prod(attrs.kernel), out_shape, starts, offsets, axes)


def _index_parts(attrs: PoolAttrs, shape: tuple[int, ...], pool: _Pool) -> tuple[np.ndarray, np.ndarray]:
    """``_max_pool_plan``'s table without its clip, as a per-window start plus a per-position
    offset (the spatial dims from ``axis`` on)."""
    n_sp = len(attrs.kernel)
    axis = normalize_axis(attrs.axis, len(shape))
    scale = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
    grids = np.indices(pool.outs)
    k_coords = np.indices(attrs.kernel).reshape(n_sp, -1)
    starts = np.zeros(pool.outs, np.int64)
    offsets = np.zeros(k_coords.shape[1], np.int64)
    for i in range(n_sp):
        if 2 + i >= axis:
            starts += (grids[i] * attrs.window.strides[i] - pool.begin[i]) * scale[2 + i]
            offsets += k_coords[i] * attrs.window.dilations[i] * scale[2 + i]
    small = max(np.abs(starts).max(initial=0), 0) + np.abs(offsets).max(initial=0) < 2**31
    return (starts.astype(np.int32), offsets.astype(np.int32)) if small else (starts, offsets)


def _max_scan(scan: _MaxScan, x: np.ndarray) -> list[np.ndarray]:
    plan = scan.plan
    if scan.axes is not None:
        maxima = _max_axes(scan, scan.axes, x)
        if maxima is not None:
            return [maxima]
    view = scan.canvas.windows(x, scan.fill)  # [N, C, *outs, *kernel]
    # the windows tap-major, each tap's elements contiguous: [K, N, C, *outs] (one copy)
    kernel_axes = tuple(range(2 + scan.n_sp, 2 + 2 * scan.n_sp))
    taps = np.ascontiguousarray(np.moveaxis(view, kernel_axes, tuple(range(scan.n_sp))))
    taps = taps.reshape((scan.taps, *scan.out_shape))
    # The scan's maximum is the largest value above T's lowest (NaN never chosen): fmax, which
    # skips NaN, from T's lowest.  Equal non-zero values have equal bits; a zero maximum takes
    # the sign of the first zero in window order (the one the scan's strict "greater" keeps).
    best = np.full(scan.out_shape, plan.floor, plan.floor.dtype)
    for t in range(scan.taps):
        np.fmax(best, taps[t], out=best)
    if plan.floats:
        zero = np.flatnonzero(best == 0)
        if zero.size:
            flat = taps.reshape(scan.taps, -1)[:, zero]
            best.reshape(-1)[zero] = flat[np.argmax(flat == 0, axis=0), np.arange(zero.size)]
    values = narrow(best, x.dtype)  # (a widened element back to its own bits; T's lowest as before)
    if scan.starts is None or scan.offsets is None:
        return [values]
    pos = _first_equal(taps, best)
    none = best == plan.floor  # nothing above T's lowest: the channel's first element
    index = scan.starts + np.take(scan.offsets, pos)
    if plan.base is not None:
        index = index + plan.base
    if none.any():
        index = np.where(none, 0 if plan.base is None else plan.base, index)
    return [values, index.astype(plan.index_dtype)]


# Outputs up to this many find their chosen tap by one comparison and one argmax over the taps'
# axis (two NumPy calls); more by a pass per tap (argmax across a leading axis is slow when large).
ARGMAX_OUTPUTS = 2048


def _first_equal(taps: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Per window, the first tap (in window order) whose value equals ``best``: [N, C, *outs]."""
    if best.size <= ARGMAX_OUTPUTS:
        first: np.ndarray = np.argmax(taps == best, axis=0)
        return first
    pos = np.zeros(best.shape, np.uint8)  # (taps <= SCAN_TAPS)
    for t in range(taps.shape[0] - 1, -1, -1):
        pos += (taps[t] == best) * (np.uint8(t) - pos)  # (uint8 wraps: pos becomes t where equal)
    return pos


def bind_max_pool(
    attrs: PoolAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Small windows scanned tap by tap (``_max_scan``), larger ones by ``_max_pool``'s argmax."""
    if math.prod(attrs.kernel) <= SCAN_TAPS:
        return _binder(_max_scan_plan, _max_scan)(attrs, inputs, outputs)
    return _binder(_max_pool_plan, _max_pool)(attrs, inputs, outputs)


def specialize_max_pool(
    attrs: PoolAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """``bind_max_pool`` in every mode; MaxPool-8/14 whose indices nothing reads
    (``RunMode.unused``) computes the values alone (MaxPool-1's kernel: the same values) and
    returns a placeholder for the indices, a third of the time."""
    if not typed(inputs, outputs):
        return None
    if attrs.version < 8 or 1 not in mode.unused or not outputs[1].shape.is_static:
        return bind_max_pool(attrs, inputs, outputs)
    values = bind_max_pool(replace(attrs, version=1), inputs, outputs[:1])
    if values is None:
        return None
    indices = placeholder(outputs[1])

    def kernel(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [values(arrays)[0], indices]

    return kernel


def evaluate_max_pool(attrs: PoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    plan = _max_pool_plan(attrs, x.shape, x.dtype)
    with quiet():
        return _max_pool(plan, x)


@dataclass(frozen=True, slots=True)
class _AvgPool:
    """AvgPool of one data shape and type: everything but the data's own arithmetic."""

    pool: _Pool
    axes: tuple[int, ...]  # the window axes
    divisor: np.ndarray  # [*outs]: what each window's sum is divided by


def _avg_pool_plan(attrs: PoolAttrs, shape: tuple[int, ...], dtype: np.dtype) -> _AvgPool:
    pool = _pool(attrs, shape, dtype)
    n_sp = len(attrs.kernel)
    padded = any(pool.begin) or any(pool.end)
    if attrs.exclude_pad or not padded:
        count = np.sum(pool.mask, axis=tuple(range(n_sp, 2 * n_sp)))
    else:
        count = np.full(pool.mask.shape[:n_sp], int(np.prod(attrs.kernel)))
    return _AvgPool(pool, tuple(range(2 + n_sp, 2 + 2 * n_sp)), np.where(count == 0, 1, count))


def _avg_pool(plan: _AvgPool, x: np.ndarray) -> list[np.ndarray]:
    win = plan.pool.canvas.windows(x)
    total = np.sum(np.where(plan.pool.mask, widen(win).astype(np.float64), 0.0), axis=plan.axes)
    mean = total / plan.divisor
    if is_float(x.dtype):
        out = mean if x.dtype == np.float64 else mean.astype(np.float32)
        return [narrow(np.asarray(out), x.dtype)]
    return [np.trunc(mean).astype(x.dtype)]


def evaluate_avg_pool(attrs: PoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    plan = _avg_pool_plan(attrs, x.shape, x.dtype)
    with quiet():
        return _avg_pool(plan, x)


def _avg_pool_fast(plan: _AvgPool, x: np.ndarray) -> list[np.ndarray]:
    """AvgPool summed in f32 (f64 for f64) in NumPy's order, divided, rounded once: not bit-exact
    with ``_avg_pool``'s float64 sums.  The canvas around the data is zeros (adding nothing)."""
    win = plan.pool.canvas.windows(x)
    work = win.dtype
    # tap by tap: one add per window position over every window (NumPy's sum over the two small
    # strided window axes runs a loop per window, ten times slower)
    total = np.zeros(win.shape[: 2 + len(plan.axes)], work)
    for at in np.ndindex(*win.shape[2 + len(plan.axes) :]):
        tap = (Ellipsis, *at)  # (one window position of every window)
        np.add(total, win[tap], out=total)
    np.divide(total, plan.divisor.astype(work), out=total)
    return [narrow(total, x.dtype)]


def _avg_fast_plan(attrs: PoolAttrs, shape: tuple[int, ...], dtype: np.dtype) -> _AvgPool:
    """``_avg_pool_plan`` with the canvas in the fast kernel's working type."""
    return _avg_pool_plan(attrs, shape, np.dtype(np.float64 if dtype == np.float64 else np.float32))


def evaluate_avg_pool_fast(attrs: PoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """AvgPool with float sums in f32 (``_avg_pool_fast``); integers take the exact kernel."""
    x = np.asarray(inputs[0])
    if not is_float(x.dtype):
        return evaluate_avg_pool(attrs, [x])
    plan = _avg_fast_plan(attrs, x.shape, x.dtype)
    with quiet():
        return _avg_pool_fast(plan, x)


def specialize_avg_pool(
    attrs: PoolAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Exact: the bound ``_avg_pool``.  Fast, on floats: sums in the working type
    (``_avg_pool_fast`` bound to a static signature, else ``evaluate_avg_pool_fast``)."""
    if not typed(inputs, outputs):
        return None if mode.exact else with_attrs(evaluate_avg_pool_fast, attrs)
    if mode.exact or not is_float(dtype_of(inputs[0])):
        return _binder(_avg_pool_plan, _avg_pool)(attrs, inputs, outputs)
    bound = _binder(_avg_fast_plan, _avg_pool_fast)(attrs, inputs, outputs)
    return fast_kernel(bound, with_attrs(evaluate_avg_pool_fast, attrs))


def _binder(
    make: Callable[[PoolAttrs, tuple[int, ...], np.dtype], _P],
    run: Callable[[_P, np.ndarray], list[np.ndarray]],
) -> Binder[PoolAttrs]:
    """``bind`` of a pooling: for a static data shape with nonzero sizes and non-negative pads,
    the kernel's plan made once; each run only lays the data into its canvas and computes."""

    def bind(attrs: PoolAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
        data = inputs[0]
        if not data.shape.is_static or any(p < 0 for p in (*attrs.window.pads_begin, *attrs.window.pads_end)):
            return None
        shape = shape_of(data)
        if not math.prod(shape):
            return None
        try:
            plan = make(attrs, shape, dtype_of(data))
        except (ValidationError, ValueError):
            return None  # (the kernel words it)

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return run(plan, values[0])

        return kernel

    return bind


SPECS = (
    OpSpec(
        type="MaxPool",
        version=1,
        since=1,
        inputs=1,
        parse=_parser("max", 1),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
        specialize=specialize_max_pool,
    ),
    OpSpec(
        type="MaxPool",
        version=8,
        since=8,
        inputs=1,
        parse=_parser("max", 8),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
        specialize=specialize_max_pool,
    ),
    OpSpec(
        type="MaxPool",
        version=14,
        since=14,
        inputs=1,
        parse=_parser("max", 14),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
        specialize=specialize_max_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=1,
        since=1,
        inputs=1,
        parse=_parser("avg", 1),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
        specialize=specialize_avg_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=14,
        since=14,
        inputs=1,
        parse=_parser("avg", 14),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
        specialize=specialize_avg_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=16,
        since=16,
        inputs=1,
        parse=_parser("avg", 16),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
        specialize=specialize_avg_pool,
    ),
)
