"""MVN-6 (``F.layer_norm`` / ONNX MeanVarianceNormalization) and NormalizeL2-0 (ONNX LpNormalization).

MVN-6: inputs data (real) and axes (integers, 1-D); attributes ``normalize_variance``,
``eps`` and ``eps_mode`` (``inside_sqrt``: divide by ``sqrt(var + eps)``;
``outside_sqrt``: by ``sqrt(var) + eps``).  OpenVINO's reference
(``reference/mvn.hpp``): ``mean`` is a ReduceMean over the axes (Kahan sums),
``x - mean``, ``var`` the ReduceMean of its square, each step in the working type (f32
for f16/bf16, which are rounded at the end).

NormalizeL2-0: inputs data (real) and axes; ``eps`` and ``eps_mode`` (``add``:
``x / sqrt(sum(x^2) + eps)``; ``max``: ``x / sqrt(max(sum(x^2), eps))``).  Empty axes
divide each element by itself, without eps: 1 for every non-zero element (even a
negative one), 0 for zero (the template reference's rule, which the CPU plugin shares).
No core evaluate exists for it in OpenVINO 2026.4.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from .attrs import bool_attr, enum_attr, float_attr
from .numeric import narrow, quiet, widen
from .reduce import Reduction, reduce_array
from .shape_ops import is_integral_number
from .shape_util import known_ints, normalize_axes
from .spec import OpSpec, TensorInfo


class MVNEpsMode(enum.Enum):
    INSIDE_SQRT = "inside_sqrt"
    OUTSIDE_SQRT = "outside_sqrt"


class NormalizeEpsMode(enum.Enum):
    ADD = "add"
    MAX = "max"


@dataclass(frozen=True, slots=True)
class MVNAttrs:
    normalize_variance: bool
    eps: float
    eps_mode: MVNEpsMode


def parse_mvn_6(node: Node) -> MVNAttrs:
    return MVNAttrs(
        bool_attr(node, "normalize_variance"),
        float_attr(node, "eps"),
        enum_attr(node, "eps_mode", MVNEpsMode),
    )


def _check_axes(data: TensorInfo, axes: TensorInfo) -> None:
    if not (axes.element_type.is_dynamic or is_integral_number(axes.element_type)):
        raise ValidationError(f"Expected axes element type to be integral number. Got: {axes.element_type}")
    if axes.shape.rank_is_static and axes.shape.rank != 1:
        raise ValidationError(f"Expected 1D tensor for the 'axes' input. Got: {axes.shape}")
    values = known_ints(axes)
    if values is not None and data.shape.rank_is_static:
        normalize_axes(values, data.shape.rank)


def infer_mvn(attrs: MVNAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    if not (data.element_type.is_dynamic or data.element_type.is_real):
        raise ValidationError(f"Expected floating point input element type. Got: {data.element_type}")
    _check_axes(data, axes)
    return [TensorInfo(data.element_type, data.shape)]


def _mean_keep(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    kept = reduce_array(x, axes, Reduction.MEAN)
    return kept.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))


def _axes(x: np.ndarray, axes_arr: np.ndarray) -> list[int]:
    return sorted(set(normalize_axes([int(a) for a in np.asarray(axes_arr).reshape(-1)], x.ndim)))


def evaluate_mvn(attrs: MVNAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    w = widen(data)
    axes = _axes(w, inputs[1])
    t = w.dtype.type
    with quiet():
        centered = w - _mean_keep(w, axes)
        if attrs.normalize_variance:
            var = _mean_keep(centered * centered, axes)
            eps = t(attrs.eps)
            denom = np.sqrt(var + eps) if attrs.eps_mode is MVNEpsMode.INSIDE_SQRT else np.sqrt(var) + eps
            centered = centered / denom
    return [narrow(np.asarray(centered, dtype=w.dtype), data.dtype)]


@dataclass(frozen=True, slots=True)
class NormalizeL2Attrs:
    eps: float
    eps_mode: NormalizeEpsMode


def parse_normalize_l2(node: Node) -> NormalizeL2Attrs:
    return NormalizeL2Attrs(float_attr(node, "eps"), enum_attr(node, "eps_mode", NormalizeEpsMode))


def infer_normalize_l2(attrs: NormalizeL2Attrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    if not (data.element_type.is_dynamic or data.element_type.is_real):
        raise ValidationError(f"Expected floating point input element type. Got: {data.element_type}")
    if not (axes.element_type.is_dynamic or is_integral_number(axes.element_type)):
        raise ValidationError(f"Axes input must be integral numbers, but are: {axes.element_type}")
    if axes.shape.rank_is_static and axes.shape.rank > 1:
        raise ValidationError(
            f"Input axes must be scalar or have rank equal to 1 (axes rank: {axes.shape.rank})."
        )
    values = known_ints(axes)
    if values is not None and data.shape.rank_is_static:
        normalize_axes(values, data.shape.rank)
    return [TensorInfo(data.element_type, data.shape)]


def evaluate_normalize_l2(attrs: NormalizeL2Attrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    w = widen(data)
    axes = _axes(w, inputs[1])
    t = w.dtype.type
    if not axes:
        return [narrow(np.where(w == 0, t(0), t(1)).astype(w.dtype), data.dtype)]
    with quiet():
        squares = w * w
        total = reduce_array(squares, axes, Reduction.SUM).reshape(
            tuple(1 if i in axes else n for i, n in enumerate(w.shape))
        )
        eps = t(attrs.eps)
        total = total + eps if attrs.eps_mode is NormalizeEpsMode.ADD else np.maximum(total, eps)
        out = w / np.sqrt(total)
    return [narrow(np.asarray(out, dtype=w.dtype), data.dtype)]


SPECS = (
    OpSpec("MVN", 6, 6, 2, parse_mvn_6, infer_mvn, evaluate_mvn),
    OpSpec("NormalizeL2", 0, 1, 2, parse_normalize_l2, infer_normalize_l2, evaluate_normalize_l2),
)
