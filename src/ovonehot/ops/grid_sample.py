"""GridSample-9: sample ``[N, C, H, W]`` data at the normalised ``(x, y)`` points of a ``[N, H_out, W_out, 2]`` grid.

Shapes (``grid_sample_shape_inference.hpp``): output ``[N, C, H_out, W_out]`` with N
merged from both inputs; data and grid must be 4-D, the grid's last dim 2 and its type
real.  The output has the data's type.

Values (``reference/grid_sample.hpp``), in the grid's float type: a grid value ``v``
maps to ``(v + 1) * (size - 1) / 2`` with ``align_corners`` and ``((v + 1) * size - 1) /
2`` without.  ``bilinear`` mixes the 4 neighbours (``(1 - dx) * v00 + dx * v01`` per
row, then ``dy * q1 + (1 - dy) * q0``), ``nearest`` rounds half to even, ``bicubic``
weighs 4 x 4 neighbours with the cubic kernel (A = -0.75), rows first.  Padding is
applied to the *integer* neighbour indices: ``zeros`` reads 0 outside, ``border``
clamps, ``reflection`` mirrors (about the edge pixels' centres with align_corners,
about their outer edges without).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr, enum_attr
from .common.numeric import narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


class InterpolationMode(enum.Enum):
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    NEAREST = "nearest"


class PaddingMode(enum.Enum):
    ZEROS = "zeros"
    BORDER = "border"
    REFLECTION = "reflection"


@dataclass(frozen=True, slots=True)
class GridSampleAttrs:
    align_corners: bool = False
    mode: InterpolationMode = InterpolationMode.BILINEAR
    padding_mode: PaddingMode = PaddingMode.ZEROS


def parse_grid_sample(node: Node) -> GridSampleAttrs:
    return GridSampleAttrs(
        bool_attr(node, "align_corners", False),
        enum_attr(node, "mode", InterpolationMode, InterpolationMode.BILINEAR),
        enum_attr(node, "padding_mode", PaddingMode, PaddingMode.ZEROS),
    )


def infer_grid_sample(attrs: GridSampleAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, grid = inputs
    if not (grid.element_type.is_dynamic or grid.element_type.is_real):
        raise ValidationError("The element type of the grid input tensor must be a floating point type.")
    if data.shape.rank_is_static and data.shape.rank != 4:
        raise ValidationError(f"The supported shape of the input data tensor is 4D. Got: {data.shape}")
    if grid.shape.rank_is_static and grid.shape.rank != 4:
        raise ValidationError(f"The supported shape of the grid tensor is 4D. Got: {grid.shape}")
    d = tuple(data.shape) if data.shape.rank_is_static else (Dimension(),) * 4
    g = tuple(grid.shape) if grid.shape.rank_is_static else (Dimension(),) * 4
    if not g[3].contains(2):
        raise ValidationError("The last dimension of grid tensor's shape has to be equal to 2.")
    batch = d[0].merge(g[0])
    if batch is None:
        raise ValidationError(
            "The batch dimension in the input data tensor's shape doesn't match the batch dimension in the "
            f"grid tensor's shape ({d[0]} vs {g[0]})."
        )
    return [TensorInfo(data.element_type, PartialShape((batch, d[1], g[1], g[2])))]


def _denormalize(v: np.ndarray, size: int, align: bool) -> np.ndarray:
    n = v.dtype.type(size)
    one, two = v.dtype.type(1), v.dtype.type(2)
    out: np.ndarray = (v + one) * (n - one) / two if align else ((v + one) * n - one) / two
    return out


def _padded_index(i: np.ndarray, size: int, attrs: GridSampleAttrs) -> tuple[np.ndarray, np.ndarray]:
    """(index to read, whether it is inside) for integer neighbour indices ``i``."""
    if attrs.padding_mode is PaddingMode.ZEROS:
        inside = (i >= 0) & (i < size)
        return np.clip(i, 0, size - 1), inside
    ok = np.ones(i.shape, bool)
    if attrs.padding_mode is PaddingMode.BORDER:
        return np.clip(i, 0, size - 1), ok
    if attrs.align_corners:
        period = 1 if size == 1 else 2 * (size - 1)
        r = np.abs(i) % period
        return np.where(r >= size, period - r, r), ok
    r = i % (2 * size)
    return np.where(r >= size, 2 * size - 1 - r, r), ok


def evaluate_grid_sample(attrs: GridSampleAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, grid = np.asarray(inputs[0]), np.asarray(inputs[1])
    if data.ndim != 4 or grid.ndim != 4 or grid.shape[3] != 2 or grid.shape[0] != data.shape[0]:
        raise InputError(f"data {data.shape} and grid {grid.shape} are not [N,C,H,W] and [N,H_out,W_out,2]")
    n, c, h, w = data.shape
    if h == 0 or w == 0:
        raise InputError(f"cannot sample empty data of shape {list(data.shape)}")
    g = widen(grid)
    gt = g.dtype if g.dtype.kind == "f" else np.dtype(np.float32)
    g = g.astype(gt)
    x = widen(data)
    ct = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    xs = x.astype(ct)
    batch = np.arange(n).reshape(n, 1, 1)

    def read(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """data[n, :, y, x] at integer indices [N, H_out, W_out] -> [N, C, H_out, W_out]."""
        ry, oky = _padded_index(yi, h, attrs)
        rx, okx = _padded_index(xi, w, attrs)
        v = xs[batch, :, ry, rx]  # [N, H_out, W_out, C]
        v = np.where((oky & okx)[..., None], v, ct.type(0))
        return np.moveaxis(v, -1, 1)

    with quiet():
        yd = _denormalize(g[..., 1], h, attrs.align_corners)
        xd = _denormalize(g[..., 0], w, attrs.align_corners)
        if attrs.mode is InterpolationMode.NEAREST:
            out = read(_to_long(np.rint(yd)), _to_long(np.rint(xd)))
        else:
            y0, x0 = np.floor(yd), np.floor(xd)
            dy = (yd - y0).astype(ct)[:, None]
            dx = (xd - x0).astype(ct)[:, None]
            yi, xi = _to_long(y0), _to_long(x0)
            one = ct.type(1)
            if attrs.mode is InterpolationMode.BILINEAR:
                q0 = (one - dx) * read(yi, xi) + dx * read(yi, xi + 1)
                q1 = (one - dx) * read(yi + 1, xi) + dx * read(yi + 1, xi + 1)
                out = dy * q1 + (one - dy) * q0
            else:
                cy, cx = _cubic(dy), _cubic(dx)
                out = np.zeros((n, c, *grid.shape[1:3]), ct)
                for j in range(4):
                    row = np.zeros_like(out)
                    for i in range(4):
                        row = row + cx[i] * read(yi + (j - 1), xi + (i - 1))
                    out = out + cy[j] * row
    if data.dtype.kind in "iu":
        from .common.numeric import c_cast

        return [c_cast(out, data.dtype)]
    return [narrow(np.asarray(out).astype(ct), data.dtype)]


def _to_long(v: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.nan_to_num(v, nan=0.0, posinf=2**62, neginf=-(2**62)).astype(np.int64)
    return out


def _cubic(r: np.ndarray) -> list[np.ndarray]:
    a = r.dtype.type(-0.75)
    one, two = r.dtype.type(1), r.dtype.type(2)
    five, eight, four, three = (r.dtype.type(v) for v in (5, 8, 4, 3))
    return [
        ((a * (r + one) - five * a) * (r + one) + eight * a) * (r + one) - four * a,
        ((a + two) * r - (a + three)) * r * r + one,
        ((a + two) * (one - r) - (a + three)) * (one - r) * (one - r) + one,
        ((a * (two - r) - five * a) * (two - r) + eight * a) * (two - r) - four * a,
    ]


SPECS = (
    OpSpec(
        type="GridSample",
        version=9,
        since=9,
        inputs=2,
        parse=parse_grid_sample,
        infer=infer_grid_sample,
        evaluate=evaluate_grid_sample,
    ),
)
