"""MVN-6 (``F.layer_norm`` / ONNX MeanVarianceNormalization), NormalizeL2-0 (ONNX LpNormalization)
and GroupNormalization-12 (``nn.GroupNorm``).

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

GroupNormalization-12: inputs data ``[N, C, ...]``, ``scale`` and ``bias`` (``[C]``);
attributes ``num_groups`` (dividing C) and ``epsilon``.  Each group of ``C / num_groups``
channels of one batch item is normalized by its mean and biased variance
(``(x - mean) / sqrt(var + epsilon)``), then scaled and shifted per channel.  Computed in
float64 and rounded once; no core evaluate exists, the CPU plugin is the oracle.

The fast kernels of MVN and NormalizeL2 (made by ``specialize`` for runs with ``exact=False``) take
the same steps with their sums by ``np.add.reduce`` (``reduce.reduce_array(exact=False)``)
instead of the reference's Kahan sums; GroupNormalization's (``evaluate_group_norm_fast``)
computes in f32 instead of float64, its sums pairwise.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import Dimension
from .common.attrs import bool_attr, enum_attr, float_attr, int_attr
from .common.binding import PLAIN_FLOATS, dtype_of, fast_kernel, typed, with_attrs
from .common.numeric import kahan_sum_leading, narrow, quiet, widen
from .common.shape_util import known_ints, normalize_axes, passes_integral_number_check
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo
from .reduce import Reduction, folded_axes, reduce_array


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
    if not (axes.element_type.is_dynamic or passes_integral_number_check(axes.element_type)):
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


def _mean_keep(x: np.ndarray, axes: Sequence[int], exact: bool) -> np.ndarray:
    kept = reduce_array(x, axes, Reduction.MEAN, exact)
    return kept.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))


def _axes(x: np.ndarray, axes_arr: np.ndarray) -> list[int]:
    return sorted(set(normalize_axes([int(a) for a in np.asarray(axes_arr).reshape(-1)], x.ndim)))


def evaluate_mvn(attrs: MVNAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return mvn(attrs, inputs, exact=True)


def evaluate_mvn_fast(attrs: MVNAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """MVN with its means summed by ``np.add.reduce`` (not bit-exact with OpenVINO's reference)."""
    return mvn(attrs, inputs, exact=False)


def mvn(attrs: MVNAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """MVN-6 of (data, axes); ``exact``: means summed in the reference's order."""
    data = np.asarray(inputs[0])
    w = widen(data)
    axes = _axes(w, inputs[1])
    t = w.dtype.type
    with quiet():
        centered = w - _mean_keep(w, axes, exact)
        if attrs.normalize_variance:
            var = _mean_keep(centered * centered, axes, exact)
            eps = t(attrs.eps)
            denom = np.sqrt(var + eps) if attrs.eps_mode is MVNEpsMode.INSIDE_SQRT else np.sqrt(var) + eps
            centered = centered / denom
    return [narrow(np.asarray(centered, dtype=w.dtype), data.dtype)]


def bind_mvn_fast(
    attrs: MVNAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The fast MVN of f32/f64 over folded axes: the steps of ``mvn(exact=False)``, its means
    by ``np.add.reduce`` kept in place (the same sums as ``reduce_array``'s)."""
    x = inputs[0]
    dtype = dtype_of(x)
    if dtype not in PLAIN_FLOATS or not x.shape.rank_is_static or not x.shape.rank:
        return None
    axes = folded_axes(inputs[1], x.shape.rank)
    if not axes:
        return None
    eps, inside, normalize = (
        dtype.type(attrs.eps),
        attrs.eps_mode is MVNEpsMode.INSIDE_SQRT,
        attrs.normalize_variance,
    )

    if x.shape.is_static and 0 not in x.shape.to_shape():
        return _static_mvn_fast(x.shape.to_shape(), axes, dtype, eps, inside, normalize)

    def mean(w: np.ndarray) -> np.ndarray:
        total = np.add.reduce(w, axis=axes, dtype=dtype, keepdims=True)
        return total / np.array(w.size // max(total.size, 1)).astype(dtype) if w.size else total

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        centered = w - mean(w)
        if normalize:
            var = mean(centered * centered)
            centered = centered / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
        return [centered]

    return kernel


def _static_mvn_fast(
    shape: tuple[int, ...],
    axes: tuple[int, ...],
    dtype: np.dtype,
    eps: np.floating,
    inside: bool,
    normalize: bool,
) -> Kernel:
    """``bind_mvn_fast``'s kernel for a static non-empty shape: the count in the data's type
    made once and each step written over an array the kernel made (the same operations)."""
    count = np.array(math.prod(shape[a] for a in axes)).astype(dtype)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        total = np.add.reduce(w, axis=axes, dtype=dtype, keepdims=True)
        centered = np.subtract(w, np.divide(total, count, out=total))
        if normalize:
            var = np.add.reduce(np.multiply(centered, centered), axis=axes, dtype=dtype, keepdims=True)
            np.divide(var, count, out=var)
            if inside:
                np.sqrt(np.add(var, eps, out=var), out=var)
            else:
                np.add(np.sqrt(var, out=var), eps, out=var)
            np.divide(centered, var, out=centered)
        return [centered]

    return kernel


def bind_mvn_exact(
    attrs: MVNAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The exact MVN of f32/f64 data of a static shape over folded trailing axes (a layer norm):
    the steps of ``mvn(exact=True)`` with its rows made once.  Each mean is ``reduce_array``'s:
    the reference's Kahan sum of each row in row-major order (the reduced axes are the last
    ones, so its columns are a reshape of the data) divided by the count in the data's type."""
    x = inputs[0]
    dtype = dtype_of(x)
    if dtype not in PLAIN_FLOATS or not x.shape.is_static or not x.shape.rank:
        return None
    shape = x.shape.to_shape()
    axes = folded_axes(inputs[1], len(shape))
    if not axes or axes != tuple(range(len(shape) - len(axes), len(shape))):
        return None
    k = math.prod(shape[a] for a in axes)
    if not k:  # (an empty row's mean is its zero sum, undivided: ``evaluate`` handles it)
        return None
    rows = math.prod(shape) // k
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    count = np.array(k).astype(dtype)
    eps, inside, normalize = (
        dtype.type(attrs.eps),
        attrs.eps_mode is MVNEpsMode.INSIDE_SQRT,
        attrs.normalize_variance,
    )

    def mean(w: np.ndarray) -> np.ndarray:
        total = np.asarray(kahan_sum_leading(w.reshape(rows, k).T) / count)
        return total.reshape(kept)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        with quiet():
            centered = w - mean(w)
            if normalize:
                var = mean(centered * centered)
                centered = centered / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
        return [np.asarray(centered, dtype=dtype)]

    return kernel


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
    if not (axes.element_type.is_dynamic or passes_integral_number_check(axes.element_type)):
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
    return normalize_l2(attrs, inputs, exact=True)


def evaluate_normalize_l2_fast(attrs: NormalizeL2Attrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """NormalizeL2 with its sum by ``np.add.reduce`` (not bit-exact with OpenVINO's reference)."""
    return normalize_l2(attrs, inputs, exact=False)


def normalize_l2(attrs: NormalizeL2Attrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """NormalizeL2-0 of (data, axes); ``exact``: the sum in the reference's order."""
    data = np.asarray(inputs[0])
    w = widen(data)
    axes = _axes(w, inputs[1])
    t = w.dtype.type
    if not axes:
        return [narrow(np.where(w == 0, t(0), t(1)).astype(w.dtype), data.dtype)]
    with quiet():
        squares = w * w
        total = reduce_array(squares, axes, Reduction.SUM, exact).reshape(
            tuple(1 if i in axes else n for i, n in enumerate(w.shape))
        )
        eps = t(attrs.eps)
        total = total + eps if attrs.eps_mode is NormalizeEpsMode.ADD else np.maximum(total, eps)
        out = w / np.sqrt(total)
    return [narrow(np.asarray(out, dtype=w.dtype), data.dtype)]


@dataclass(frozen=True, slots=True)
class GroupNormAttrs:
    num_groups: int
    epsilon: float


def parse_group_norm(node: Node) -> GroupNormAttrs:
    return GroupNormAttrs(int_attr(node, "num_groups"), float_attr(node, "epsilon"))


def infer_group_norm(attrs: GroupNormAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, scale, bias = inputs
    et = data.element_type
    for info in (scale, bias):
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError(
                f"The element types of data, scale and bias must match: {et}, {info.element_type}"
            )
        et = merged
    if not (et.is_dynamic or et.is_real):
        raise ValidationError(f"The element type of the inputs must be a float type. Got: {et}")
    if attrs.num_groups <= 0:
        raise ValidationError(
            f"The number of groups needs to be a positive integer value. Got: {attrs.num_groups}"
        )
    d = data.shape
    if d.rank_is_static and d.rank < 2:
        raise ValidationError(f"The input tensor is required to be at least 2D. Got: {d}")
    channels = d[1] if d.rank_is_static else Dimension()
    if channels.is_static and channels.length % attrs.num_groups:
        raise ValidationError(
            f"The number of channels ({channels.length}) is required to be evenly divisible by the number of "
            f"groups ({attrs.num_groups})"
        )
    for label, info in (("scale", scale), ("bias", bias)):
        if info.shape.rank_is_static and info.shape.rank != 1:
            raise ValidationError(f"The {label} input is required to be 1D. Got: {info.shape}")
        if info.shape.rank_is_static and info.shape[0].merge(channels) is None:
            raise ValidationError(
                f"The {label} input size ({info.shape[0]}) must equal the channels ({channels})"
            )
    return [TensorInfo(et, d)]


def _group_size(shape: tuple[int, ...], groups: int) -> int:
    """The values of one group of data of ``shape`` (explicit: an empty batch has no -1 to infer)."""
    return shape[1] // groups * math.prod(shape[2:])


def evaluate_group_norm(attrs: GroupNormAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    x = widen(data).astype(np.float64)
    scale, bias = (widen(np.asarray(a)).astype(np.float64) for a in inputs[1:])
    cast = np.float64 if data.dtype == np.float64 else np.float32
    if x.size == 0:  # an empty batch or empty groups: nothing to average (NumPy warns on it)
        return [narrow(x.astype(cast), data.dtype)]
    n, c = x.shape[0], x.shape[1]
    groups = x.reshape(n, attrs.num_groups, _group_size(x.shape, attrs.num_groups))
    with quiet():
        mean = groups.mean(axis=2, keepdims=True)
        var = ((groups - mean) ** 2).mean(axis=2, keepdims=True)
        normed = ((groups - mean) / np.sqrt(var + attrs.epsilon)).reshape(x.shape)
        shape = (1, c) + (1,) * (x.ndim - 2)
        out = normed * scale.reshape(shape) + bias.reshape(shape)
    return [narrow(out.astype(cast), data.dtype)]


def evaluate_group_norm_fast(attrs: GroupNormAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Fast (``exact=False``) GroupNormalization of f32 data: ``evaluate_group_norm``'s steps in
    f32, the mean and the biased variance (two passes, of ``x - mean``) summed by NumPy's
    pairwise ``np.add.reduce``, ``1 / sqrt(var + epsilon)`` folded into the per-channel scale
    (3x faster than float64; within tests/test_group_norm_fast.py's bound of the float64
    kernel); every other type, and data it does not take, ``evaluate_group_norm``."""
    data, scale, bias = (np.asarray(a) for a in inputs)
    if (
        data.dtype != np.float32
        or scale.dtype != np.float32
        or bias.dtype != np.float32
        or data.ndim < 2
        or not data.size
        or data.shape[1] % attrs.num_groups
        or scale.shape != (data.shape[1],)
        or bias.shape != (data.shape[1],)
    ):
        return evaluate_group_norm(attrs, inputs)
    n, c = data.shape[:2]
    g = attrs.num_groups
    with quiet():
        groups = data.reshape(n, g, _group_size(data.shape, g))
        size = np.float32(groups.shape[2])
        mean = np.add.reduce(groups, axis=2, keepdims=True)
        mean /= size
        centred = np.subtract(groups, mean)
        squares = np.square(centred)
        var = np.add.reduce(squares, axis=2, keepdims=True)
        var /= size
        var += np.float32(attrs.epsilon)
        inverse = np.sqrt(var, out=var)
        np.divide(np.float32(1), inverse, out=inverse)  # (n, g, 1)
        factor = np.repeat(inverse.reshape(n, g), c // g, axis=1) * scale  # (n, c): per channel
        out = centred.reshape(n, c, -1)
        out *= factor[:, :, None]
        out += bias[:, None]
    return [out.reshape(data.shape)]


def specialize_group_norm(
    attrs: GroupNormAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """GroupNormalization for a plan: exact, ``evaluate`` (float64); fast, ``evaluate_group_norm_fast``."""
    return None if mode.exact else with_attrs(evaluate_group_norm_fast, attrs)


def specialize_mvn(
    attrs: MVNAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """MVN-6 for a plan: fast, sums in NumPy's order, the axes decoded once where they are
    folded (``bind_mvn_fast``); exact: over folded trailing axes ``bind_mvn_exact``, else
    ``evaluate``."""
    if mode.exact:
        return bind_mvn_exact(attrs, inputs, outputs) if typed(inputs, outputs) else None
    bound = bind_mvn_fast(attrs, inputs, outputs) if typed(inputs, outputs) else None
    return fast_kernel(bound, with_attrs(evaluate_mvn_fast, attrs))


def specialize_normalize_l2(
    attrs: NormalizeL2Attrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """NormalizeL2 for a plan: fast, sums in NumPy's order; exact: ``evaluate``."""
    return None if mode.exact else with_attrs(evaluate_normalize_l2_fast, attrs)


SPECS = (
    OpSpec(
        type="MVN",
        version=6,
        since=6,
        inputs=2,
        parse=parse_mvn_6,
        infer=infer_mvn,
        evaluate=evaluate_mvn,
        specialize=specialize_mvn,
    ),
    OpSpec(
        type="NormalizeL2",
        version=0,
        since=1,
        inputs=2,
        parse=parse_normalize_l2,
        infer=infer_normalize_l2,
        evaluate=evaluate_normalize_l2,
        specialize=specialize_normalize_l2,
    ),
    OpSpec(
        type="GroupNormalization",
        version=12,
        since=12,
        inputs=3,
        parse=parse_group_norm,
        infer=infer_group_norm,
        evaluate=evaluate_group_norm,
        specialize=specialize_group_norm,
    ),
)
