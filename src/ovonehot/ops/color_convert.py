"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8: camera YUV 4:2:0 planes to RGB/BGR.

Inputs are NHWC with one channel: one plane (Y on top of the chroma rows, height ``H * 3 / 2``)
or separate planes (NV12: Y ``[N, H, W, 1]`` and interleaved UV ``[N, H/2, W/2, 2]``; I420: Y,
U ``[N, H/2, W/2, 1]`` and V likewise).  The output is ``[N, H, W, 3]`` of the input's type
(u8 or a real type; ``nv12_shape_inference.hpp`` / ``i420_shape_inference.hpp``, errors in
their words).

Values (the spec's formulas, with ``reference/convert_color_nv12.hpp``'s order of operations,
all in f32): ``c = Y - 16``, ``d = U - 128``, ``e = V - 128``; ``R = 1.164c + 1.596e``,
``G = (1.164c - 0.391d) - 0.813e``, ``B = 1.164c + 2.018d``, each clamped to [0, 255].  Each
2x2 block of pixels shares one U and one V.  u8 outputs are rounded before the clamp: the
core reference rounds half away from zero (``std::round``), the CPU plugin half to even
(docs/openvino-behaviour.md); ovonehot follows the reference.  The core op has no
``evaluate`` (OpenVINO never folds it): f16/bf16/f64 inputs are computed in f32 and rounded
once to the type, as the CPU plugin computes them.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.numeric import quiet, round_half_away
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo


class Layout(enum.Enum):
    NV12 = "NV12"
    I420 = "I420"


class Order(enum.Enum):
    RGB = "RGB"
    BGR = "BGR"


@dataclass(frozen=True, slots=True)
class ColorAttrs:
    layout: Layout
    order: Order


# -- shape inference ---------------------------------------------------------------------
def _div(d: Dimension, k: int) -> Dimension | None:
    """OpenVINO's interval ``Dimension / k``: lower bound rounded up, upper down; None if empty."""
    lo = -(-d.min // k)
    hi = None if d.max is None else d.max // k
    if hi is not None and hi < lo:
        return None
    return Dimension(lo, hi)


def _dims(shape: PartialShape) -> list[Dimension]:
    return list(shape) if shape.rank_is_static else [Dimension()] * 4


def _check_y(y: TensorInfo, what: str) -> list[Dimension]:
    shape = y.shape
    nv12 = what == "Y(UV)"
    if shape.rank_is_static and shape.rank != 4:
        layout = "(N, H, W,C)" if nv12 else "(N, H, W, C)"  # (OpenVINO's spacing)
        raise ValidationError(f"input 0 (Y): {what} input shall have 4 dimensions {layout}, got {shape}")
    dims = _dims(shape)
    if not dims[3].compatible(Dimension.static(1)):
        name = "YUV" if nv12 else "Y"
        raise ValidationError(
            f"input 0 (Y): {name} input number of channels should be equal to 1, got {shape}"
        )
    return dims


def _single_plane(dims: list[Dimension]) -> list[Dimension]:
    height = _div(mul(dims[1], Dimension.static(2)), 3)
    if height is None:
        raise ValidationError(f"input 0 (Y): Image height shall be divisible by 3, got {dims[1]}")
    return [dims[0], height, dims[2]]


def _chroma(shape: PartialShape, port: str, channels: int) -> list[Dimension] | None:
    """A chroma plane's [N, 2H, 2W] (its H and W doubled), None for a dynamic rank."""
    if not shape.rank_is_static:
        return None
    if shape.rank != 4 or not shape[3].compatible(Dimension.static(channels)):
        if channels == 2:
            raise ValidationError(f"{port}: UV input number of channels should be equal to 2, got {shape}")
        raise ValidationError(f"{port}: U, V inputs number of channels should be equal to 1, got {shape}")
    return [shape[0], mul(shape[1], Dimension.static(2)), mul(shape[2], Dimension.static(2))]


def _merge(a: list[Dimension], b: list[Dimension] | None) -> list[Dimension] | None:
    if b is None:
        return a
    merged = [x.merge(y) for x, y in zip(a, b, strict=True)]
    return None if any(m is None for m in merged) else [m for m in merged if m is not None]


def _planes(attrs: ColorAttrs, inputs: Sequence[TensorInfo], dims: list[Dimension]) -> list[Dimension]:
    if attrs.layout is Layout.NV12:
        out = _merge(dims[:3], _chroma(inputs[1].shape, "input 1 (UV)", 2))
        if out is None:
            raise ValidationError(
                f"Y shape is inconsistent with UV: Y {inputs[0].shape}, UV {inputs[1].shape}"
            )
        return out
    u_shape, v_shape = inputs[1].shape, inputs[2].shape
    uv = u_shape.merge(v_shape)
    chroma = _chroma(u_shape if uv is None else uv, "inputs 1, 2 (U, V)", 1)
    out = None if uv is None else _merge(dims[:3], chroma)
    if out is None:
        raise ValidationError(
            f"Y shape is inconsistent with U and V: Y {inputs[0].shape}, U {u_shape}, V {v_shape}"
        )
    return out


def _element_type(attrs: ColorAttrs, inputs: Sequence[TensorInfo]) -> ElementType:
    et: ElementType | None = inputs[0].element_type
    for info in inputs[1:]:
        et = None if et is None else et.merge(info.element_type)
    if et is None:
        names = "Y, UV" if attrs.layout is Layout.NV12 else "Y, U, V"
        got = "".join(str(i.element_type) for i in inputs)
        raise ValidationError(f"{names} inputs shall have compatible types, got {got}")
    if not (et.is_dynamic or et.is_real or et is ElementType.u8):
        raise ValidationError(f"Input type shall have u8 or floating-point precision, got {et}")
    return et


def infer_color(attrs: ColorAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if attrs.layout is Layout.I420 and len(inputs) == 2:
        raise ValidationError("I420 conversion shall have one or 3 inputs, but it is 2")
    y_name = "Y(UV)" if attrs.layout is Layout.NV12 else "Y"
    dims = _check_y(inputs[0], y_name)
    out = _single_plane(dims) if len(inputs) == 1 else _planes(attrs, inputs, dims)
    if _div(out[1], 2) is None:
        raise ValidationError(f"Image height must be even, got {out[1]}")
    if _div(out[2], 2) is None:
        raise ValidationError(f"Image width must be even, got {out[2]}")
    et = _element_type(attrs, inputs)
    return [TensorInfo(et, PartialShape((*out, Dimension.static(3))))]


# -- values ------------------------------------------------------------------------------
def _split(attrs: ColorAttrs, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [N, H, W] and U, V [N, H/2, W/2] from the planes, as the reference reads them."""
    y = np.asarray(inputs[0])
    shapes = [list(np.shape(a)) for a in inputs]
    if y.ndim != 4 or y.shape[3] != 1:
        raise InputError(f"{attrs.layout.value} input Y must be [N, H, W, 1], got {shapes[0]}")
    n, h, w = y.shape[:3]
    if len(inputs) == 1:
        height = h * 2 // 3
        if h % 3 or height % 2 or w % 2:
            raise InputError(f"{attrs.layout.value} single plane {shapes[0]}: height not 3/2 of an even one")
        flat = y.reshape(n, h * w)
        luma = flat[:, : height * w].reshape(n, height, w)
        chroma = flat[:, height * w :]
        if attrs.layout is Layout.NV12:
            uv = chroma.reshape(n, height // 2, w // 2, 2)
            return luma, uv[..., 0], uv[..., 1]
        quarter = height * w // 4
        u = chroma[:, :quarter].reshape(n, height // 2, w // 2)
        return luma, u, chroma[:, quarter:].reshape(n, height // 2, w // 2)
    if h % 2 or w % 2:
        raise InputError(f"{attrs.layout.value} image {shapes[0]}: height and width must be even")
    half = [n, h // 2, w // 2]
    planes = [np.asarray(a) for a in inputs[1:]]
    if attrs.layout is Layout.NV12:
        if shapes[1] != [*half, 2]:
            raise InputError(f"NV12 UV plane {shapes[1]} does not fit Y {shapes[0]} (expected {[*half, 2]})")
        return y[..., 0], planes[0][..., 0], planes[0][..., 1]
    if shapes[1] != [*half, 1] or shapes[2] != [*half, 1]:
        raise InputError(
            f"I420 U {shapes[1]}, V {shapes[2]} do not fit Y {shapes[0]} (expected {[*half, 1]})"
        )
    return y[..., 0], planes[0][..., 0], planes[1][..., 0]


def yuv_to_rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R, G, B in f32, before clamping: the reference's expressions, evaluated in its order."""
    f = np.float32
    c = y.astype(f) - f(16)
    d = np.repeat(np.repeat(u.astype(f) - f(128), 2, axis=1), 2, axis=2)
    e = np.repeat(np.repeat(v.astype(f) - f(128), 2, axis=1), 2, axis=2)
    luma = f(1.164) * c
    r = luma + f(1.596) * e
    g = (luma - f(0.391) * d) - f(0.813) * e
    b = luma + f(2.018) * d
    return r, g, b


def evaluate_color(attrs: ColorAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    dtype = np.asarray(inputs[0]).dtype
    if any(np.asarray(a).dtype != dtype for a in inputs) or not (
        dtype == np.uint8 or ElementType.from_numpy(dtype).is_real
    ):
        raise InputError(f"{attrs.layout.value} planes must share one u8 or real type")
    y, u, v = _split(attrs, inputs)
    with quiet():
        r, g, b = yuv_to_rgb(y, u, v)
        channels = (r, g, b) if attrs.order is Order.RGB else (b, g, r)
        out = np.stack(channels, axis=-1)
        if dtype == np.uint8:
            out = round_half_away(out)
        out = np.minimum(np.maximum(out, np.float32(0)), np.float32(255))
    return [out.astype(dtype)]


def _spec(layout: Layout, order: Order) -> OpSpec[ColorAttrs]:
    attrs = ColorAttrs(layout, order)

    def parse(node: Node) -> ColorAttrs:
        return attrs

    return OpSpec(
        type=f"{layout.value}to{order.value}",
        version=8,
        since=8,
        inputs=(1, 2) if layout is Layout.NV12 else (1, 3),
        parse=parse,
        infer=infer_color,
        evaluate=evaluate_color,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    )


SPECS = tuple(_spec(layout, order) for layout in Layout for order in Order)
