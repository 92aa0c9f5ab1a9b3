"""ExtractImagePatches-3: TF's ``extract_image_patches``: every ``sizes`` patch, as channels.

Data ``[N, C, H, W]``; attributes ``sizes``, ``strides``, ``rates`` (each ``[rows, cols]``) and
``auto_pad`` (``valid``, ``same_upper``, ``same_lower``).  Output ``[N, C*KH*KW, OH, OW]`` with
``OH = ceil((H - RH*(KH-1)) / SH)`` (``valid``, at least 0) or ``ceil(H / SH)`` (``same``),
computed on intervals (``extract_image_patches_shape_inference.hpp``).

Values (``reference/extract_image_patches.hpp``): output channel ``(kh*KW + kw)*C + c`` of
position ``(oh, ow)`` is input ``(c, oh*SH - PT + kh*RH, ow*SW - PL + kw*RW)``, 0 outside the
image.  ``same`` pads ``P = (ceil(H / SH) - 1)*SH + KH + (RH-1)*(KH-1) - H`` in total, applied
only when ``0 < P < KH + (RH-1)*(KH-1)``: half before (``same_lower`` rounds the odd half up,
``same_upper`` down).  Data movement only: exact for every type.  The core op has no
``evaluate`` (nothing folds); the CPU plugin is the oracle.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import enum_attr, ints_attr
from .common.shape_util import mul
from .common.spec import OpSpec, TensorInfo


class PatchPad(enum.Enum):
    VALID = "valid"
    SAME_UPPER = "same_upper"
    SAME_LOWER = "same_lower"


@dataclass(frozen=True, slots=True)
class PatchAttrs:
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    rates: tuple[int, ...]
    auto_pad: PatchPad


def parse_extract_image_patches(node: Node) -> PatchAttrs:
    return PatchAttrs(
        ints_attr(node, "sizes"),
        ints_attr(node, "strides"),
        ints_attr(node, "rates"),
        enum_attr(node, "auto_pad", PatchPad),
    )


def _check(attrs: PatchAttrs) -> None:
    for name, values, kind in (("sizes", attrs.sizes, "size"), ("strides", attrs.strides, "stride"),
                               ("rates", attrs.rates, "rate")):  # fmt: skip
        if len(values) != 2:
            raise ValidationError(f"Attribute {name} should be in [{kind}_rows, {kind}_cols] format.")
        if name != "sizes" and min(values) < 1:
            raise ValidationError(f"Attribute {name} should be strictly greater than zeros in values.")


def _ceil_div(d: Dimension, k: int) -> Dimension:
    return Dimension(-(-d.min // k), None if d.max is None else -(-d.max // k))


def _minus(d: Dimension, c: int) -> Dimension:
    return Dimension(max(d.min - c, 0), None if d.max is None else max(d.max - c, 0))


def infer_extract_image_patches(attrs: PatchAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    shape = data.shape
    if shape.rank_is_static and shape.rank != 4:
        raise ValidationError("input tensor must be 4D tensor.")
    _check(attrs)
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape((Dimension(),) * 4))]
    dims = [shape[0], mul(shape[1], Dimension.static(attrs.sizes[0] * attrs.sizes[1]))]
    for i in range(2):
        d = shape[2 + i]
        if attrs.auto_pad is PatchPad.VALID:
            d = _minus(d, attrs.rates[i] * (attrs.sizes[i] - 1))
        dims.append(_ceil_div(d, attrs.strides[i]))
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]


def _out_size(attrs: PatchAttrs, axis: int, length: int) -> int:
    if attrs.auto_pad is PatchPad.VALID:
        length = max(length - attrs.rates[axis] * (attrs.sizes[axis] - 1), 0)
    return -(-length // attrs.strides[axis])


def _begin_pad(attrs: PatchAttrs, axis: int, length: int) -> int:
    if attrs.auto_pad is PatchPad.VALID:
        return 0
    k, s, r = attrs.sizes[axis], attrs.strides[axis], attrs.rates[axis]
    span = k + (r - 1) * (k - 1)
    steps = math.ceil(float(np.float32(length) / np.float32(s)))  # the reference's ceil(1.f * L / S)
    total = (steps - 1) * s + span - length
    if not 0 < total < span:
        return 0
    if total % 2 == 0:
        return total // 2
    return (total + 1) // 2 if attrs.auto_pad is PatchPad.SAME_LOWER else (total - 1) // 2


def evaluate_extract_image_patches(attrs: PatchAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if x.ndim != 4:
        raise InputError(f"ExtractImagePatches takes 4-D data, got {list(x.shape)}")
    try:
        _check(attrs)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    n, c, h, w = x.shape
    oh, ow = (_out_size(attrs, axis, length) for axis, length in enumerate((h, w)))
    kh, kw = attrs.sizes
    rows = (np.arange(oh) * attrs.strides[0] - _begin_pad(attrs, 0, h))[:, None] + np.arange(kh)[
        None, :
    ] * attrs.rates[0]
    cols = (np.arange(ow) * attrs.strides[1] - _begin_pad(attrs, 1, w))[:, None] + np.arange(kw)[
        None, :
    ] * attrs.rates[1]
    row_ok, col_ok = (rows >= 0) & (rows < h), (cols >= 0) & (cols < w)
    r = np.clip(rows, 0, max(h - 1, 0))[:, :, None, None]  # [oh, kh, 1, 1]
    q = np.clip(cols, 0, max(w - 1, 0))[None, None, :, :]  # [1, 1, ow, kw]
    out = np.zeros((n, c, oh, kh, ow, kw), x.dtype)
    if h and w and oh and ow:
        picked = x[:, :, r, q]  # [n, c, oh, kh, ow, kw]
        mask = row_ok[:, :, None, None] & col_ok[None, None, :, :]
        out = np.where(mask, picked, np.zeros((), x.dtype))
    # -> [n, kh, kw, c, oh, ow] -> channels (kh*KW + kw)*C + c
    return [np.ascontiguousarray(out.transpose(0, 3, 5, 1, 2, 4)).reshape(n, kh * kw * c, oh, ow)]


SPECS = (
    OpSpec(
        type="ExtractImagePatches",
        version=3,
        since=3,
        inputs=1,
        parse=parse_extract_image_patches,
        infer=infer_extract_image_patches,
        evaluate=evaluate_extract_image_patches,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
        copies_values=True,
    ),
)
