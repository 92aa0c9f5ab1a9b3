"""CumSum-3: running sums along an axis (``exclusive``, ``reverse``), as OpenVINO's reference.

Shape and type are the input's; the axis input (default 0 when absent) must be an
integer scalar in ``[-rank, rank - 1]``.  Sums run in axis order in the element type
(NumPy's ``cumsum`` adds in that same order; f16/bf16 in f32, rounded once), so f32
results equal the reference bit for bit; integers wrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from .common.attrs import bool_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import known_ints, normalize_axis
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class CumSumAttrs:
    exclusive: bool = False
    reverse: bool = False


def parse_cumsum(node: Node) -> CumSumAttrs:
    return CumSumAttrs(bool_attr(node, "exclusive", False), bool_attr(node, "reverse", False))


def infer_cumsum(attrs: CumSumAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    x = inputs[0]
    if len(inputs) > 1:
        axis = inputs[1]
        if not (axis.element_type.is_dynamic or axis.element_type.is_integral_number):
            raise ValidationError(
                f"axis element type must be either int64_t or int32_t but got ({axis.element_type})."
            )
        if axis.shape.rank_is_static and axis.shape.rank != 0:
            raise ValidationError(f"axis must be a scalar (rank = 0), got {axis.shape}.")
        values = known_ints(axis)
        if values is not None and x.shape.rank_is_static:
            normalize_axis(values[0], x.shape.rank)
    return [TensorInfo(x.element_type, x.shape)]


def evaluate_cumsum(attrs: CumSumAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    axis_value = int(np.asarray(inputs[1]).reshape(-1)[0]) if len(inputs) > 1 else 0
    if x.ndim == 0:
        return [x.copy()]
    try:
        axis = normalize_axis(axis_value, x.ndim)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    w = widen(x)
    if attrs.reverse:
        w = np.flip(w, axis)
    if attrs.exclusive:  # (the reference's running sum starts at +0: 0 + -0.0 is +0.0)
        w = np.concatenate([np.zeros_like(np.take(w, [0], axis=axis)), np.delete(w, -1, axis=axis)], axis)
    with quiet():
        out = np.cumsum(w, axis=axis, dtype=w.dtype)
    if attrs.reverse:
        out = np.flip(out, axis)
    return [np.array(narrow(out, x.dtype), order="C", copy=True)]


SPECS = (
    OpSpec(
        type="CumSum",
        version=3,
        since=3,
        inputs=(1, 2),
        parse=parse_cumsum,
        infer=infer_cumsum,
        evaluate=evaluate_cumsum,
    ),
)
