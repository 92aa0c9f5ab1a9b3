"""RegionYolo-0: the YOLOv2 "region" and YOLOv3 "yolo" output layers (logistic and softmax).

Data ``[N, C, H, W]`` of a real type; attributes ``coords``, ``classes``, ``num``, ``do_softmax``,
``mask``, ``axis``, ``end_axis`` (``anchors`` is carried for post-processing, unused here).

Shapes (``region_yolo_shape_inference.hpp``): rank 4 (a dynamic rank gives a dynamic rank);
``do_softmax``: the input with dims ``axis..end_axis`` multiplied into one (both normalized;
``end_axis < axis`` flattens nothing); otherwise ``[N, (classes + coords + 1) * len(mask), H, W]``.

Values, on the input read flat as ``N`` blocks of ``R`` regions of ``classes + coords + 1``
planes of ``H * W`` (``R = num`` with ``do_softmax``, else ``len(mask)``): the output starts as
a copy of the input's first elements (all of them with ``do_softmax``); in each region the
logistic function (computed in f32, as the reference and the CPU plugin compute it) replaces
planes 0 and 1 (x, y) and plane ``coords`` (the objectness; with ``do_softmax`` off, the class
planes after it too); with ``do_softmax`` the class planes are then replaced by the softmax
over the classes of the *input* values (in the data type, f32 for f16/bf16).  Regions are
processed in order, so overlapping planes (``coords < 2``) see the logistic twice, as in
OpenVINO.  An input with fewer elements than the ``N * R`` regions need is refused.

The core op has no ``evaluate``; the CPU plugin (which computes exp its own way: a few ulp
apart) is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr, int_attr, ints_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import mul, normalize_axis
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class RegionYoloAttrs:
    coords: int
    classes: int
    num: int
    do_softmax: bool
    mask: tuple[int, ...]
    axis: int
    end_axis: int

    @property
    def regions(self) -> int:
        return self.num if self.do_softmax else len(self.mask)

    @property
    def per_region(self) -> int:
        return self.classes + self.coords + 1


def parse_region_yolo(node: Node) -> RegionYoloAttrs:
    return RegionYoloAttrs(
        coords=int_attr(node, "coords"),
        classes=int_attr(node, "classes"),
        num=int_attr(node, "num"),
        do_softmax=bool_attr(node, "do_softmax", True),
        mask=ints_attr(node, "mask", ()),
        axis=int_attr(node, "axis"),
        end_axis=int_attr(node, "end_axis"),
    )


def infer_region_yolo(attrs: RegionYoloAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    et = data.element_type
    if not et.is_real:
        raise ValidationError(f"Type of input is expected to be a floating point type. Got: {et}")
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(et, PartialShape.dynamic())]  # (OpenVINO: rank 1..4, which prints so)
    if shape.rank != 4:
        raise ValidationError(f"Input must be a tensor of rank 4, but got {shape.rank}")
    dims = list(shape)
    if not attrs.do_softmax:
        dims[1] = Dimension.static(attrs.per_region * len(attrs.mask))
        return [TensorInfo(et, PartialShape(tuple(dims)))]
    axis = normalize_axis(attrs.axis, 4)
    end_axis = normalize_axis(attrs.end_axis, 4)
    flat = dims[axis]
    for d in dims[axis + 1 : end_axis + 1]:
        flat = mul(flat, d)
    out = (*dims[:axis], flat, *dims[max(axis + 1, end_axis + 1) :])
    return [TensorInfo(et, PartialShape(tuple(out)))]


def _logistic(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in f32."""
    f = x.astype(np.float32)
    with quiet():
        out: np.ndarray = np.float32(1) / (np.float32(1) + np.exp(-f))
    return out


def _softmax(x: np.ndarray) -> np.ndarray:
    """The softmax over axis 0 (the classes) of ``x``, summed in order as the reference sums."""
    with quiet():
        e = np.exp(x - x.max(axis=0, initial=-np.inf))
        total = np.zeros(x.shape[1:], x.dtype)
        for row in e:
            total = total + row
        out: np.ndarray = e / total
    return out


def evaluate_region_yolo(attrs: RegionYoloAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if x.ndim != 4:
        raise InputError(f"RegionYolo takes data [N, C, H, W], got {list(x.shape)}")
    n, _, h, w = x.shape
    hw, per, regions = h * w, attrs.per_region, attrs.regions
    block = hw * regions * per
    if n * block > x.size:
        raise InputError(
            f"RegionYolo with {regions} regions of {attrs.classes} classes and {attrs.coords} coords needs "
            f"C >= {regions * per}, got data {list(x.shape)}"
        )
    work = widen(x).reshape(-1)
    calc = work.dtype if work.dtype == np.float64 else np.dtype(np.float32)
    out = work[: x.size if attrs.do_softmax else n * block].astype(calc)
    tail = hw if attrs.do_softmax else hw * (attrs.classes + 1)
    for b in range(n):
        for r in range(regions):
            start = b * block + r * hw * per
            for lo, count in ((start, 2 * hw), (start + attrs.coords * hw, tail)):
                out[lo : lo + count] = _logistic(out[lo : lo + count])
    if attrs.do_softmax and attrs.classes > 0:
        src = work.astype(calc)
        for k in range(n * regions):
            lo = k * hw * per + (attrs.coords + 1) * hw
            planes = src[lo : lo + attrs.classes * hw].reshape(attrs.classes, hw)
            out[lo : lo + attrs.classes * hw] = _softmax(planes).reshape(-1)
    if not attrs.do_softmax:
        return [narrow(out, x.dtype).reshape(n, regions * per, h, w)]
    axis, end_axis = normalize_axis(attrs.axis, 4), normalize_axis(attrs.end_axis, 4)
    dims = x.shape
    flat = int(np.prod(dims[axis : end_axis + 1])) if end_axis >= axis else dims[axis]
    shape = (*dims[:axis], flat, *dims[max(axis + 1, end_axis + 1) :])
    return [narrow(out, x.dtype).reshape(shape)]


SPECS = (
    OpSpec(
        type="RegionYolo",
        version=0,
        since=1,
        inputs=1,
        parse=parse_region_yolo,
        infer=infer_region_yolo,
        evaluate=evaluate_region_yolo,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
