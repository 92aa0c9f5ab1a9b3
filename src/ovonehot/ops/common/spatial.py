"""Shared by Convolution and the pooling ops: spatial attributes, padding and output sizes.

Data is ``[N, C, spatial...]``.  ``auto_pad``: ``explicit`` uses ``pads_begin``/``pads_end``;
``valid`` pads nothing; ``same_upper``/``same_lower`` pad so that the output is
``ceil(in / stride)``, the odd unit going to the end (upper) or the beginning (lower).
The output size along a spatial axis is ``(in + pads - dilated_kernel) / stride + 1``,
rounded down (``floor``) or up (``ceil``, ``ceil_torch``); ``ceil_torch`` drops a last
window that would start in the end padding, as PyTorch does.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ValidationError
from ...graph import Node
from ...types import Dimension
from .attrs import enum_attr, ints_attr


class AutoPad(enum.Enum):
    EXPLICIT = "explicit"
    NOTSET = "notset"
    VALID = "valid"
    SAME_UPPER = "same_upper"
    SAME_LOWER = "same_lower"


class RoundingType(enum.Enum):
    FLOOR = "floor"
    CEIL = "ceil"
    CEIL_TORCH = "ceil_torch"


@dataclass(frozen=True, slots=True)
class Window:
    """The spatial attributes of one op (kernel is None for Convolution: it comes from the filters)."""

    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: AutoPad = AutoPad.EXPLICIT
    rounding: RoundingType = RoundingType.FLOOR


def parse_window(node: Node, with_dilations: bool = True, rounding: bool = False) -> Window:
    strides = ints_attr(node, "strides")
    dilations = ints_attr(node, "dilations") if with_dilations else (1,) * len(strides)
    return Window(
        strides,
        dilations,
        ints_attr(node, "pads_begin", ()),
        ints_attr(node, "pads_end", ()),
        enum_attr(node, "auto_pad", AutoPad, AutoPad.EXPLICIT),
        enum_attr(node, "rounding_type", RoundingType, RoundingType.FLOOR)
        if rounding
        else RoundingType.FLOOR,
    )


def check_window(window: Window, kernel_rank: int, data_rank: int | None) -> None:
    n = kernel_rank
    for name, values in (("strides", window.strides), ("dilations", window.dilations)):
        if len(values) != n:
            raise ValidationError(
                f"Expected {name} size to be equal to the number of spatial dims ({n}). Got: {len(values)}"
            )
        if any(v == 0 for v in values):
            raise ValidationError(f"{name.capitalize()} has zero dimension(s). {list(values)}")
    if window.auto_pad in (AutoPad.EXPLICIT, AutoPad.NOTSET):
        for name, values in (("pads_begin", window.pads_begin), ("pads_end", window.pads_end)):
            if values and len(values) != n:
                raise ValidationError(
                    f"Expected {name} size to be equal to the number of spatial dims ({n}). "
                    f"Got: {len(values)}"
                )
    if data_rank is not None and data_rank != n + 2:
        raise ValidationError(
            f"Expected the data rank ({data_rank}) to be the number of spatial dims + 2 ({n + 2})."
        )


def dilated(kernel: int, dilation: int) -> int:
    return (kernel - 1) * dilation + 1


def pads_for(window: Window, sizes: Sequence[int], kernel: Sequence[int]) -> tuple[list[int], list[int]]:
    """The begin/end padding for static spatial ``sizes``."""
    pads = [_pad_one(window, i, n, k) for i, (n, k) in enumerate(zip(sizes, kernel, strict=True))]
    return [b for b, _ in pads], [e for _, e in pads]


def _pad_one(window: Window, i: int, size: int, k: int) -> tuple[int, int]:
    if window.auto_pad is AutoPad.VALID:
        return 0, 0
    if window.auto_pad in (AutoPad.SAME_UPPER, AutoPad.SAME_LOWER):
        s, d = window.strides[i], window.dilations[i]
        out = -(-size // s)
        total = max(0, (out - 1) * s + dilated(k, d) - size)
        small, big = total // 2, total - total // 2
        return (small, big) if window.auto_pad is AutoPad.SAME_UPPER else (big, small)
    begin = window.pads_begin[i] if window.pads_begin else 0
    end = window.pads_end[i] if window.pads_end else 0
    return begin, end


def out_size(size: int, k: int, s: int, d: int, pb: int, pe: int, rounding: RoundingType) -> int:
    span = size + pb + pe - dilated(k, d)
    if span < 0:
        raise ValidationError(
            f"Kernel after dilation has size (dim: {dilated(k, d)}) larger than the data shape after padding "
            f"(dim: {size + pb + pe})."
        )
    if rounding is RoundingType.FLOOR:
        return span // s + 1
    out = -(-span // s) + 1
    if rounding is RoundingType.CEIL_TORCH and (out - 1) * s >= size + pb:
        out -= 1
    return out


def spatial_dims(
    window: Window, dims: Sequence[Dimension], kernel: Sequence[Dimension | int]
) -> list[Dimension]:
    """Output spatial dimensions for partially known input dims and kernel sizes.

    Static data and kernel give the exact size (with OpenVINO's checks).  Otherwise the
    bounds are OpenVINO's interval arithmetic: the lower bound uses the largest kernel,
    the upper bound the smallest (an unknown kernel counts as 1 there), subtractions
    clip at 0, so an explicit/valid output is at least 1; ``same_*`` padding gives
    ``ceil(in / stride)`` whatever the kernel.
    """
    out = []
    up = window.rounding is not RoundingType.FLOOR
    same = window.auto_pad in (AutoPad.SAME_UPPER, AutoPad.SAME_LOWER)
    for i, d in enumerate(dims):
        given = kernel[i]
        k = given if isinstance(given, Dimension) else Dimension.static(given)
        s, dl = window.strides[i], window.dilations[i]
        if d.is_static and k.is_static:
            pb, pe = _pad_one(window, i, d.length, k.length)
            out.append(Dimension.static(out_size(d.length, k.length, s, dl, pb, pe, window.rounding)))
        elif same:
            lo = -(-d.min // s)
            out.append(Dimension(lo, None if d.max is None else -(-d.max // s)))
        else:
            pads = sum(_pad_one(window, i, 0, 1))
            lo = 1 if k.max is None else _div(max(d.min + pads - dilated(k.max, dl), 0), s, up) + 1
            hi = None if d.max is None else _div(max(d.max + pads - dilated(max(k.min, 1), dl), 0), s, up) + 1
            out.append(Dimension(lo, hi))
    return out


def _div(a: int, b: int, up: bool) -> int:
    return -(-a // b) if up else a // b


def padded(x: np.ndarray, begin: Sequence[int], end: Sequence[int], fill: object) -> np.ndarray:
    """``x`` with its spatial dims (from axis 2) padded by ``begin``/``end`` (negative pads crop)."""
    width = [(0, 0), (0, 0)] + [(max(b, 0), max(e, 0)) for b, e in zip(begin, end, strict=True)]
    out = np.pad(x, width, mode="constant", constant_values=np.asarray(fill, dtype=x.dtype))
    crop = tuple(
        [slice(None), slice(None)]
        + [
            slice(-min(b, 0), out.shape[2 + i] - (-min(e, 0)))
            for i, (b, e) in enumerate(zip(begin, end, strict=True))
        ]
    )
    cropped: np.ndarray = out[crop]
    return cropped


def windows(x: np.ndarray, kernel: Sequence[int], window: Window, outs: Sequence[int]) -> np.ndarray:
    """Every window of ``x`` (already padded): shape ``[N, C, *outs, *kernel]``."""
    n = len(kernel)
    extents = [dilated(k, d) for k, d in zip(kernel, window.dilations, strict=True)]
    need = [(o - 1) * s + e for o, s, e in zip(outs, window.strides, extents, strict=True)]
    grow = [max(0, want - have) for want, have in zip(need, x.shape[2:], strict=True)]
    if any(grow):
        raise ValueError("windows past the padded data: pad before calling")
    view = np.lib.stride_tricks.sliding_window_view(x, extents, axis=tuple(range(2, 2 + n)))
    pick: tuple[slice, ...] = (slice(None), slice(None))
    pick += tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, window.strides, strict=True))
    pick += tuple(slice(None, None, d) for d in window.dilations)
    return view[pick]


def product(values: Sequence[int]) -> int:
    return math.prod(values)


@dataclass(frozen=True, slots=True)
class Canvas:
    """Where the windows of one data shape lie, decided once per shape (pooling, convolution).

    The data is laid into a zero canvas of ``dtype`` (begin pads, data, end pads, and any
    overflow the last windows reach under ceil rounding), C-ordered; a negative pad crops: the
    windows start past it (as ``padded`` crops a view); the windows ``[N, C, *outs, *kernel]`` are a strided view of it, with
    the strides ``sliding_window_view`` and the stride/dilation slicing would give, made
    directly (that function's Python overhead is most of a small window's cost).
    """

    shape: tuple[int, ...]  # [N, C, *canvas spatial]
    dtype: np.dtype
    place: tuple[slice, ...] | None  # the canvas region the data fills; None: the canvas is the data
    offset: int  # bytes from the canvas start to the first window
    view_shape: tuple[int, ...]  # [N, C, *outs, *kernel]
    view_strides: tuple[int, ...]

    def windows(self, x: np.ndarray, fill: object = 0) -> np.ndarray:
        """Every window of ``x`` (shape ``[N, C, *spatial]`` of the canvas' data shape), the
        canvas around the data holding ``fill``."""
        canvas = self.laid(x, fill)
        view: np.ndarray = np.ndarray(self.view_shape, self.dtype, canvas, self.offset, self.view_strides)
        return view

    def laid(self, x: np.ndarray, fill: object = 0) -> np.ndarray:
        """The canvas itself (``shape``, C-ordered): ``x`` in its place, ``fill`` around it."""
        if self.place is None:
            return np.ascontiguousarray(x, dtype=self.dtype)
        canvas = np.zeros(self.shape, self.dtype) if fill == 0 else np.full(self.shape, fill, self.dtype)
        canvas[self.place] = x
        return canvas


def canvas_for(
    shape: Sequence[int],
    dtype: np.dtype,
    kernel: Sequence[int],
    window: Window,
    outs: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
) -> Canvas:
    """The :class:`Canvas` of data of ``shape`` for windows of ``kernel`` giving ``outs`` per axis."""
    sizes = list(shape[2:])
    extents = [dilated(k, d) for k, d in zip(kernel, window.dilations, strict=True)]
    need = [(o - 1) * s + e for o, s, e in zip(outs, window.strides, extents, strict=True)]
    origin = [max(-b, 0) for b in begin]  # canvas index of the window grid's start
    at = [max(b, 0) for b in begin]  # canvas index of the data's first element
    total = [
        max(a + n + max(e, 0), o + nd) for a, n, e, o, nd in zip(at, sizes, end, origin, need, strict=True)
    ]
    canvas_shape = (shape[0], shape[1], *total)
    itemsize = np.dtype(dtype).itemsize
    strides = [itemsize * math.prod(canvas_shape[i + 1 :]) for i in range(len(canvas_shape))]
    sp = strides[2:]
    offset = sum(o * st for o, st in zip(origin, sp, strict=True))
    plain = tuple(total) == tuple(sizes) and not any(origin) and math.prod(shape) > 0
    return Canvas(
        canvas_shape,
        np.dtype(dtype),
        None
        if plain
        else (slice(None), slice(None), *(slice(a, a + n) for a, n in zip(at, sizes, strict=True))),
        offset,
        (shape[0], shape[1], *outs, *kernel),
        (
            strides[0],
            strides[1],
            *(st * s for st, s in zip(sp, window.strides, strict=True)),
            *(st * d for st, d in zip(sp, window.dilations, strict=True)),
        ),
    )
