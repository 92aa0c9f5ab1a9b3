"""MaxPool-1/8/14 and AvgPool-1/14/16: pooling over one-hot maps (``F.max_pool2d`` of a segmentation one-hot).

Shapes: data ``[N, C, spatial...]`` of rank 3 to 5; output ``[N, C, out...]`` with the
sizes of ``spatial.py`` (``rounding_type`` floor, ceil, and from opset14 ceil_torch).
MaxPool-8/14 also return the indices of the maxima (``index_element_type`` i32 or i64,
default i64) and take ``dilations`` and ``axis``; AvgPool-16 takes ``dilations`` (ONNX
AveragePool-19 with dilations converts to it).

Values:

* MaxPool: the largest element of each window; padding and window positions past the
  padded data are never chosen (a window holding no data element, which ceil rounding
  can make, gives the type's lowest value -- -inf for f16/bf16, computed in f32 -- and
  the index of the channel's first element, as the reference).  Ties go to the first position in row-major window
  order.  An index is the position of the chosen element in the *input*, flattened
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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, element_type_attr, int_attr, ints_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.shape_util import normalize_axis
from .common.spatial import (
    RoundingType,
    Window,
    check_window,
    dilated,
    pads_for,
    parse_window,
    spatial_dims,
    windows,
)
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class PoolAttrs:
    window: Window
    kernel: tuple[int, ...]
    version: int
    exclude_pad: bool = False  # AvgPool
    index_element_type: ElementType = ElementType.i64  # MaxPool-8/14
    axis: int = 0  # MaxPool-8/14


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


def _prepare(
    attrs: PoolAttrs, x: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int], list[int]]:
    """(windows of x, windows of the in-data mask, windows of the in-padded-data mask, outs, begin pads)."""
    sizes = list(x.shape[2:])
    begin, end = pads_for(attrs.window, sizes, attrs.kernel)
    info = _out_shape(attrs, TensorInfo(ElementType.f32, PartialShape.of(x.shape)))
    outs = list(info.to_shape()[2:])
    ext = [dilated(k, d) for k, d in zip(attrs.kernel, attrs.window.dilations, strict=True)]
    need = [(o - 1) * s + e for o, s, e in zip(outs, attrs.window.strides, ext, strict=True)]
    # Lay the data into a canvas covering every window: begin pads, data, end pads, overflow.
    total = [max(nd, b + n + e) for nd, b, n, e in zip(need, begin, sizes, end, strict=True)]
    canvas = np.zeros(x.shape[:2] + tuple(total), dtype=x.dtype)
    in_data = np.zeros(tuple(total), dtype=bool)
    in_padded = np.zeros(tuple(total), dtype=bool)
    place = tuple(slice(b, b + n) for b, n in zip(begin, sizes, strict=True))
    canvas[(slice(None), slice(None)) + place] = x
    in_data[place] = True
    in_padded[tuple(slice(0, b + n + e) for b, n, e in zip(begin, sizes, end, strict=True))] = True
    win = windows(canvas, attrs.kernel, attrs.window, outs)
    mask = windows(in_data[None, None], attrs.kernel, attrs.window, outs)[0, 0]
    pmask = windows(in_padded[None, None], attrs.kernel, attrs.window, outs)[0, 0]
    return win, mask, pmask, outs, begin


def evaluate_max_pool(attrs: PoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    win, mask, _, outs, begin = _prepare(attrs, x)
    n_sp = len(attrs.kernel)
    flat = win.reshape(win.shape[: 2 + n_sp] + (-1,))
    valid = mask.reshape(mask.shape[:n_sp] + (-1,))
    w = widen(flat)
    low = -np.inf if is_float(x.dtype) else np.iinfo(x.dtype).min
    with quiet():
        scored = np.where(valid, w.astype(np.float64) if is_float(x.dtype) else w, low)
    pos = np.argmax(scored, axis=-1)  # first maximum in window order
    values = np.take_along_axis(flat, pos[..., None], axis=-1)[..., 0]
    empty = ~valid.any(axis=-1)  # a window only over padding (ceil rounding): T's lowest value, index 0
    if empty.any():
        lowest = np.finfo(w.dtype).min if is_float(x.dtype) else np.iinfo(x.dtype).min
        values = np.where(empty, narrow(np.asarray(lowest, dtype=w.dtype), x.dtype), values)
    if attrs.version < 8:
        return [values]
    # The chosen element's input coordinates, flattened from ``axis`` on.
    k_coords = np.unravel_index(pos, attrs.kernel)
    grids = np.indices(outs)
    spatial = [
        np.where(
            empty, 0, grids[i] * attrs.window.strides[i] + k_coords[i] * attrs.window.dilations[i] - begin[i]
        )
        for i in range(n_sp)
    ]
    n_idx = np.arange(x.shape[0]).reshape((-1, 1) + (1,) * n_sp)
    c_idx = np.arange(x.shape[1]).reshape((1, -1) + (1,) * n_sp)
    coords = [np.broadcast_to(n_idx, pos.shape), np.broadcast_to(c_idx, pos.shape)] + [
        np.broadcast_to(s, pos.shape) for s in spatial
    ]
    axis = normalize_axis(attrs.axis, x.ndim)
    index = np.zeros(pos.shape, dtype=np.int64)
    for dim in range(axis, x.ndim):
        index = index * x.shape[dim] + np.clip(coords[dim], 0, x.shape[dim] - 1)
    dtype = attrs.index_element_type.numpy_dtype
    assert dtype is not None
    return [values, index.astype(dtype)]


def evaluate_avg_pool(attrs: PoolAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    win, mask, _, _, _ = _prepare(attrs, x)
    n_sp = len(attrs.kernel)
    axes = tuple(range(2 + n_sp, 2 + 2 * n_sp))
    begin, end = pads_for(attrs.window, list(x.shape[2:]), attrs.kernel)
    padded = any(begin) or any(end)
    with quiet():
        total = np.sum(np.where(mask, widen(win).astype(np.float64), 0.0), axis=axes)
        if attrs.exclude_pad or not padded:
            count = np.sum(mask, axis=tuple(range(n_sp, 2 * n_sp)))
        else:
            count = np.full(mask.shape[:n_sp], int(np.prod(attrs.kernel)))
        mean = total / np.where(count == 0, 1, count)
        if is_float(x.dtype):
            out = mean if x.dtype == np.float64 else mean.astype(np.float32)
            return [narrow(np.asarray(out), x.dtype)]
        return [np.trunc(mean).astype(x.dtype)]


SPECS = (
    OpSpec(
        type="MaxPool",
        version=1,
        since=1,
        inputs=1,
        parse=_parser("max", 1),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
    ),
    OpSpec(
        type="MaxPool",
        version=8,
        since=8,
        inputs=1,
        parse=_parser("max", 8),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
    ),
    OpSpec(
        type="MaxPool",
        version=14,
        since=14,
        inputs=1,
        parse=_parser("max", 14),
        infer=infer_max_pool,
        evaluate=evaluate_max_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=1,
        since=1,
        inputs=1,
        parse=_parser("avg", 1),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=14,
        since=14,
        inputs=1,
        parse=_parser("avg", 14),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
    ),
    OpSpec(
        type="AvgPool",
        version=16,
        since=16,
        inputs=1,
        parse=_parser("avg", 16),
        infer=infer_avg_pool,
        evaluate=evaluate_avg_pool,
    ),
)
