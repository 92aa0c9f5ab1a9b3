"""Auto-broadcast rules shared by the element-wise ops (and Select, Broadcast-bidirectional).

OpenVINO's ``auto_broadcast`` attribute: ``numpy`` (the default of every
element-wise op), ``none`` (shapes must be equal; OpenVINO also reads ``explicit``
as ``none``) and ``pdpd`` (the second input is aligned to the first at the axis
OpenVINO writes as ``auto_broadcast.auto_broadcast_axis``, default 0; -1 means
right-aligned).  Follows ``Dimension::broadcast_merge`` and
``PartialShape::broadcast_merge_into`` (``src/core/src/dimension.cpp``,
``partial_shape.cpp``) for partial shapes, so intervals combine as OpenVINO's do:

* a dimension that may be 1 on both sides gives the hull of both intervals
  (``1..5`` with ``?`` -> ``?``);
* a dimension that may be 1 on one side only gives the other side (``?`` with ``3`` -> ``3``);
* otherwise the intervals intersect, and an empty intersection is an error.

A dynamic rank on either side makes the result rank dynamic.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, ValidationError
from ...graph import Node
from ...types import Dimension, PartialShape
from .attrs import enum_attr, int_attr


class AutoBroadcastType(enum.Enum):
    """``auto_broadcast`` values; ``explicit`` is OpenVINO's other name of ``none``."""

    NONE = "none"
    NUMPY = "numpy"
    PDPD = "pdpd"
    EXPLICIT = "explicit"


@dataclass(frozen=True, slots=True)
class AutoBroadcastSpec:
    type: AutoBroadcastType = AutoBroadcastType.NUMPY
    axis: int = 0  # pdpd only

    def __str__(self) -> str:
        if self.type is AutoBroadcastType.PDPD:
            return f"pdpd(axis={self.axis})"
        name: str = self.type.value
        return name


NUMPY = AutoBroadcastSpec(AutoBroadcastType.NUMPY)
NONE = AutoBroadcastSpec(AutoBroadcastType.NONE)


def parse_auto_broadcast(node: Node, default: AutoBroadcastSpec = NUMPY) -> AutoBroadcastSpec:
    """``auto_broadcast`` (case-insensitive) and, for ``pdpd``, its axis.

    OpenVINO's serializer writes the axis as ``auto_broadcast.auto_broadcast_axis`` and
    its reader reads only that spelling (a plain ``auto_broadcast_axis`` is ignored).
    """
    kind = enum_attr(node, "auto_broadcast", AutoBroadcastType, default.type)
    if kind is AutoBroadcastType.EXPLICIT:
        kind = AutoBroadcastType.NONE
    axis = int_attr(node, "auto_broadcast.auto_broadcast_axis", 0) if kind is AutoBroadcastType.PDPD else 0
    return AutoBroadcastSpec(kind, axis)


# ---------------------------------------------------------------------------------------
# Dimensions
# ---------------------------------------------------------------------------------------


def broadcast_merge_dim(a: Dimension, b: Dimension) -> Dimension | None:
    """``Dimension::broadcast_merge``; None when the two cannot broadcast."""
    a1, b1 = a.contains(1), b.contains(1)
    if a1 and b1:
        hi = None if a.max is None or b.max is None else max(a.max, b.max)
        lo = min(a.min, b.min)
        return a if lo == a.min and hi == a.max else Dimension(lo, hi)
    if a1:
        return b
    if b1:
        return a
    return a.merge(b)


def broadcast_shapes(a: PartialShape, b: PartialShape, spec: AutoBroadcastSpec) -> PartialShape | None:
    """``PartialShape::broadcast_merge_into(a, b, spec)`` for numpy/pdpd, ``merge_into`` for none.

    Returns None when the shapes are inconsistent.
    """
    kind = spec.type
    if kind in (AutoBroadcastType.NONE, AutoBroadcastType.EXPLICIT):
        return a.merge(b)
    if a.dims is None or b.dims is None:
        return PartialShape.dynamic()
    if kind is AutoBroadcastType.NUMPY:
        rank = max(len(a.dims), len(b.dims))
        pa = (_ONE,) * (rank - len(a.dims)) + a.dims
        pb = (_ONE,) * (rank - len(b.dims)) + b.dims
        dims = [broadcast_merge_dim(x, y) for x, y in zip(pa, pb, strict=True)]
        if any(d is None for d in dims):
            return None
        return PartialShape(tuple(d for d in dims if d is not None))
    return _pdpd_merge(a.dims, b.dims, spec.axis)


_ONE = Dimension.static(1)


def _static_dims(shape: tuple[int, ...]) -> tuple[Dimension, ...]:
    return tuple(Dimension.static(int(n)) for n in shape)


def _pdpd_merge(dst: tuple[Dimension, ...], src: tuple[Dimension, ...], axis: int) -> PartialShape | None:
    if len(src) > len(dst) or axis < -1:
        return None
    start = len(dst) - len(src) if axis == -1 else axis
    if start + len(src) > len(dst):
        return None
    dims = list(dst)
    for i, s in enumerate(src):
        d = dims[start + i]
        if d.is_static and s.is_static and s.min > d.min:
            return None
        merged = broadcast_merge_dim(d, s)
        if merged is None:
            return None
        dims[start + i] = merged
    return PartialShape(tuple(dims))


def infer_broadcast(a: PartialShape, b: PartialShape, spec: AutoBroadcastSpec) -> PartialShape:
    """The output shape of a two-input element-wise op, or OpenVINO's error."""
    out = broadcast_shapes(a, b, spec)
    if out is None:
        raise ValidationError(f"Argument shapes are inconsistent: {a} and {b} ({spec} broadcast).")
    return out


# ---------------------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------------------


def align_arrays(arrays: Sequence[np.ndarray], spec: AutoBroadcastSpec) -> list[np.ndarray]:
    """The inputs reshaped so that NumPy broadcasting gives OpenVINO's result.

    ``numpy``: unchanged (checked); ``none``: shapes must be equal; ``pdpd``: every
    input after the first is aligned to the first at ``spec.axis`` with 1s around.
    Raises InputError when the runtime shapes do not broadcast.
    """
    kind = spec.type
    shapes = [tuple(a.shape) for a in arrays]
    if kind in (AutoBroadcastType.NONE, AutoBroadcastType.EXPLICIT):
        if any(s != shapes[0] for s in shapes):
            raise InputError(f"Argument shapes are inconsistent: {_fmt(shapes)} (none broadcast).")
        return list(arrays)
    if kind is AutoBroadcastType.NUMPY:
        if not all(s == shapes[0] for s in shapes) and not _numpy_broadcastable(shapes):
            raise InputError(f"Argument shapes are inconsistent: {_fmt(shapes)} (numpy broadcast).")
        return list(arrays)
    first = arrays[0]
    out = [first]
    for arr in arrays[1:]:
        merged = _pdpd_merge(_static_dims(first.shape), _static_dims(arr.shape), spec.axis)
        if merged is None or merged.to_shape() != first.shape:
            raise InputError(f"Argument shapes are inconsistent: {_fmt(shapes)} ({spec} broadcast).")
        start = first.ndim - arr.ndim if spec.axis == -1 else spec.axis
        trailing = first.ndim - start - arr.ndim
        out.append(arr.reshape((1,) * start + arr.shape + (1,) * trailing))
    return out


def _numpy_broadcastable(shapes: Sequence[tuple[int, ...]]) -> bool:
    """Whether NumPy broadcasts these shapes (dims aligned right: equal, or 1); np.broadcast_shapes
    without its overhead."""
    rank = max(len(s) for s in shapes)
    for k in range(1, rank + 1):
        size = 1
        for s in shapes:
            if k <= len(s) and (d := s[-k]) != 1:
                if size != 1 and d != size:
                    return False
                size = d
    return True


def _fmt(shapes: Sequence[tuple[int, ...]]) -> str:
    return " and ".join(str(list(s)) for s in shapes)
