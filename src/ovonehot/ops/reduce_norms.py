"""ReduceLogicalAnd, ReduceLogicalOr (opset1) and ReduceL1, ReduceL2 (opset4).

``torch.any``/``torch.all`` over one-hot masks and ``torch.norm``/``F.normalize``
around one-hot targets become these.  Shapes follow the same rule as the other
reductions (``reduce.reduce_shape``); the logical ones want boolean data and give
boolean, the norms keep the data's element type.

Kernels (OpenVINO's ``reference/reduce_l1.hpp``, ``reduce_l2.hpp``,
``logical_reduction.hpp``): L1 is the sum of ``|x|`` and L2 the square root of the
sum of ``x * x``, both accumulated in the data type in row-major order; f16/bf16 are
computed in f32 and rounded back.  An empty ``all`` is true, an empty ``any`` false.

The fast kernels of ReduceL1/ReduceL2 (``evaluate_norm_reduce_fast``, made by ``specialize`` for runs with ``exact=False``) sum
by ``np.add.reduce`` in the same type (NumPy's pairwise order); integer sums wrap the same
in any order, so only float results may differ (by rounding; and partial sums of finite
terms that overflow in one order may stay finite in another).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import ElementType, PartialShape
from .common.attrs import bool_attr
from .common.binding import dtype_of, mode_independent, with_attrs
from .common.numeric import c_cast, is_float, narrow, quiet, widen
from .common.shape_util import known_ints, normalize_axes, passes_integral_number_check
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo
from .reduce import folded_axes, reduce_shape


class NormReduction(enum.Enum):
    LOGICAL_AND = "ReduceLogicalAnd"
    LOGICAL_OR = "ReduceLogicalOr"
    L1 = "ReduceL1"
    L2 = "ReduceL2"

    @property
    def logical(self) -> bool:
        return self in (NormReduction.LOGICAL_AND, NormReduction.LOGICAL_OR)


@dataclass(frozen=True, slots=True)
class NormReduceAttrs:
    kind: NormReduction
    keep_dims: bool = False


def _parser(kind: NormReduction) -> Callable[[Node], NormReduceAttrs]:
    def parse(node: Node) -> NormReduceAttrs:
        return NormReduceAttrs(kind, bool_attr(node, "keep_dims", False))

    return parse


def infer_norm_reduce(attrs: NormReduceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    et = data.element_type
    if attrs.kind.logical:
        if not (et.is_dynamic or et is ElementType.boolean):
            raise ValidationError(f"Element type of data input must be boolean. Got: {et}")
    elif not (et.is_dynamic or et.is_real or passes_integral_number_check(et)):
        raise ValidationError(f"Element type of data input must be numeric. Got: {et}")
    if not passes_integral_number_check(axes.element_type):
        raise ValidationError(f"Element type of axes input must be integer. Got: {axes.element_type}")
    return [TensorInfo(et, reduce_shape(data.shape, axes, attrs.keep_dims))]


def _rows(x: np.ndarray, axes: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``x`` as (kept outputs, reduced elements in row-major order) and the kept shape."""
    keep = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, keep + list(axes))
    kept_shape = tuple(x.shape[i] for i in keep)
    return moved.reshape(math.prod(kept_shape), math.prod(x.shape[i] for i in axes)), kept_shape


def _accumulate(terms: np.ndarray, exact: bool) -> np.ndarray:
    """Each row's sum: in row order, plainly (``exact``), else by ``np.add.reduce``."""
    if not exact:
        with quiet():
            total: np.ndarray = np.add.reduce(terms, axis=1, dtype=terms.dtype)
        return total
    acc = np.zeros(terms.shape[0], dtype=terms.dtype)
    with quiet():
        for j in range(terms.shape[1]):
            acc = acc + terms[:, j]
    return acc


def norm_reduce(x: np.ndarray, axes: Sequence[int], kind: NormReduction, exact: bool = True) -> np.ndarray:
    """Reduce ``x`` over sorted normalized ``axes`` (keep_dims off) as OpenVINO's reference does
    (``exact=False``: sums by ``np.add.reduce``)."""
    if kind.logical:
        if x.dtype != np.bool_:
            raise InputError(f"{kind.value} takes boolean data, got {x.dtype}")
        fn = np.all if kind is NormReduction.LOGICAL_AND else np.any
        rows, kept = _rows(x, axes)
        out: np.ndarray = fn(rows, axis=1).reshape(kept)
        return out
    if x.dtype == np.bool_ or x.dtype == object:
        raise InputError(f"{kind.value} does not take {x.dtype} data")
    original = x.dtype
    wide = widen(x)
    rows, kept = _rows(wide, axes)
    with quiet():
        if kind is NormReduction.L1:
            out = _accumulate(np.abs(rows) if rows.dtype.kind != "u" else rows, exact)
        else:
            total = _accumulate(rows * rows, exact)
            if is_float(total.dtype):
                out = np.sqrt(total)
            else:
                out = c_cast(np.sqrt(total.astype(np.float64)), total.dtype)
    return narrow(np.asarray(out), original).reshape(kept)


def bind_logical_reduce(
    attrs: NormReduceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """ReduceLogicalAnd/Or of booleans over folded axes: ``np.logical_and``/``or`` reduce (what
    ``np.all``/``np.any`` compute, in one call)."""
    x = inputs[0]
    if dtype_of(x) != np.bool_ or not x.shape.rank_is_static or not x.shape.rank:
        return None
    axes = folded_axes(inputs[1], x.shape.rank)
    if not axes:
        return None
    ufunc = np.logical_and if attrs.kind is NormReduction.LOGICAL_AND else np.logical_or
    keep = attrs.keep_dims

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        if keep:
            return [ufunc.reduce(values[0], axis=axes, keepdims=True)]
        return [np.asarray(ufunc.reduce(values[0], axis=axes))]

    return kernel


def evaluate_norm_reduce(attrs: NormReduceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return reduce_norm(attrs, inputs, exact=True)


def evaluate_norm_reduce_fast(attrs: NormReduceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """ReduceL1/ReduceL2 with sums by ``np.add.reduce`` (not bit-exact with OpenVINO's reference)."""
    return reduce_norm(attrs, inputs, exact=False)


def reduce_norm(attrs: NormReduceAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """One reduction of ``inputs`` (data, axes); ``exact=False``: see :func:`norm_reduce`."""
    x, axes_arr = (np.asarray(a) for a in inputs)
    axes_info = TensorInfo(ElementType.i64, PartialShape.of(axes_arr.shape), value=axes_arr)
    axes = sorted(set(normalize_axes(known_ints(axes_info) or [], x.ndim)))
    if x.ndim == 0 and axes:
        if attrs.keep_dims:
            raise InputError("cannot keep the reduced axis 0 of a scalar")
        axes = []
    out = norm_reduce(x, axes, attrs.kind, exact)
    if attrs.keep_dims:
        out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return [out]


def specialize_norm_reduce(
    attrs: NormReduceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """ReduceL1/ReduceL2 for a plan: fast, float sums in NumPy's order (exact: ``evaluate``)."""
    return None if mode.exact else with_attrs(evaluate_norm_reduce_fast, attrs)


SPECS = (
    OpSpec(
        type="ReduceLogicalAnd",
        version=1,
        since=1,
        inputs=2,
        parse=_parser(NormReduction.LOGICAL_AND),
        infer=infer_norm_reduce,
        evaluate=evaluate_norm_reduce,
        specialize=mode_independent(bind_logical_reduce),
    ),
    OpSpec(
        type="ReduceLogicalOr",
        version=1,
        since=1,
        inputs=2,
        parse=_parser(NormReduction.LOGICAL_OR),
        infer=infer_norm_reduce,
        evaluate=evaluate_norm_reduce,
        specialize=mode_independent(bind_logical_reduce),
    ),
    OpSpec(
        type="ReduceL1",
        version=4,
        since=4,
        inputs=2,
        parse=_parser(NormReduction.L1),
        infer=infer_norm_reduce,
        evaluate=evaluate_norm_reduce,
        specialize=specialize_norm_reduce,
    ),
    OpSpec(
        type="ReduceL2",
        version=4,
        since=4,
        inputs=2,
        parse=_parser(NormReduction.L2),
        infer=infer_norm_reduce,
        evaluate=evaluate_norm_reduce,
        specialize=specialize_norm_reduce,
    ),
)
