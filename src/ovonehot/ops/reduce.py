"""ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd (all version 1, since opset1).

Shape rule: OpenVINO's ``reduce_shape_inference.hpp``.  Axes must be a scalar or
1-D integer tensor; known axes are normalized against the data rank (repeats count
once); unknown axes give a dynamic shape of the data rank with ``keep_dims``, of rank
minus one for a single unknown axis without it, else a dynamic rank.  Empty axes
reduce nothing.

Kernels: ``src/core/reference/include/openvino/reference/reduce_*.hpp``, whose
habits NumPy does not share (checked against ``Node.evaluate`` of OpenVINO 2026.4):

* sums (and so means) of floats use Kahan summation in row-major order, falling back
  to a plain add once a term or the running sum is not finite;
* f16/bf16 data are reduced in f32 and rounded back;
* a mean of integers divides with truncation toward zero; an empty mean is 0;
* max/min ignore NaN (a NaN never compares greater or less); an empty max is the
  type's lowest finite value, an empty min is +inf for floats and the type's max for
  integers; an empty product is 1;
* integer arithmetic wraps.

The fast kernels of ReduceSum/ReduceMean (``evaluate_reduce_fast``, made by ``specialize`` for runs with ``exact=False``)
sum by ``np.add.reduce`` in the working type (NumPy's pairwise order on the innermost axis,
no compensation), then divide as the exact kernel does; integer sums wrap the same in any
order, so they equal the exact kernel's bit for bit.  Non-finite sums: a NaN or inf term
gives the same non-finite result in any order (inf + -inf is NaN either way), but partial
sums of finite terms that overflow in one order may stay finite in another.  A sum of
zeros only may differ in the sign of the zero.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr
from .common.binding import (
    PLAIN_FLOATS,
    PLAIN_INTEGERS,
    PLAIN_NUMBERS,
    Binder,
    dtype_of,
    fast_kernel,
    folded,
    mode_independent,
    typed,
    with_attrs,
)
from .common.bounds import FLOATS, WIDE_INTEGERS, kernel_bounds, reduce_prod_bounds
from .common.numeric import kahan_sum_leading, narrow
from .common.shape_util import known_ints, normalize_axes, passes_integral_number_check
from .common.spec import BoundsFn, Kernel, OpSpec, RunMode, TensorInfo


class Reduction(enum.Enum):
    SUM = "ReduceSum"
    MEAN = "ReduceMean"
    MAX = "ReduceMax"
    MIN = "ReduceMin"
    PROD = "ReduceProd"


@dataclass(frozen=True, slots=True)
class ReduceAttrs:
    kind: Reduction
    keep_dims: bool = False


def _parser(kind: Reduction) -> Callable[[Node], ReduceAttrs]:
    def parse(node: Node) -> ReduceAttrs:
        return ReduceAttrs(kind, bool_attr(node, "keep_dims", False))

    return parse


def infer_reduce(attrs: ReduceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axes = inputs
    if not (data.element_type.is_real or passes_integral_number_check(data.element_type)):
        raise ValidationError(f"Element type of data input must be numeric. Got: {data.element_type}")
    if not passes_integral_number_check(axes.element_type):
        raise ValidationError(f"Element type of axes input must be integer. Got: {axes.element_type}")
    return [TensorInfo(data.element_type, reduce_shape(data.shape, axes, attrs.keep_dims))]


def reduce_shape(data: PartialShape, axes: TensorInfo, keep_dims: bool) -> PartialShape:
    if axes.shape.rank_is_static and axes.shape.rank > 1:
        raise ValidationError(f"Axes input must be a scalar or 1D input. Got: {axes.shape}")
    values = known_ints(axes)
    if data.rank_is_static and values is not None:
        normalized = set(normalize_axes(values, data.rank))
        if keep_dims:
            if data.rank == 0 and normalized:
                raise ValidationError("cannot keep the reduced axis 0 of a scalar")
            return PartialShape(
                tuple(Dimension.static(1) if i in normalized else d for i, d in enumerate(data))
            )
        return PartialShape(tuple(d for i, d in enumerate(data) if i not in normalized))
    if keep_dims:
        return PartialShape((Dimension(),) * data.rank) if data.rank_is_static else PartialShape.dynamic()
    if axes.shape.is_static and math.prod(axes.shape.to_shape()) == 1 and data.rank_is_static:
        return PartialShape((Dimension(),) * max(data.rank - 1, 0))
    return PartialShape.dynamic()


# -- kernels --------------------------------------------------------------------------------
_NARROW = tuple(t.numpy_dtype for t in (ElementType.f16, ElementType.bf16) if t.numpy_dtype is not None)


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype in _NARROW


def _columns(x: np.ndarray, axes: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``x`` as (outputs, reduced elements in row-major order) and the reduced shape."""
    keep = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, keep + sorted(axes))
    kept_shape = tuple(x.shape[i] for i in keep)
    k = math.prod(x.shape[i] for i in axes)
    return moved.reshape(math.prod(kept_shape), k), kept_shape


def _kahan_sum(cols: np.ndarray) -> np.ndarray:
    return kahan_sum_leading(cols.T)


def _sequential(
    cols: np.ndarray, op: Callable[[np.ndarray, np.ndarray], np.ndarray], init: np.ndarray
) -> np.ndarray:
    acc = np.full(cols.shape[0], init, dtype=cols.dtype)
    for j in range(cols.shape[1]):
        acc = op(acc, cols[:, j])
    return acc


def _extreme(dtype: np.dtype, kind: Reduction) -> np.ndarray:
    if _is_float(dtype):
        # OpenVINO starts a max at the lowest *finite* value but a min at +inf
        return np.array(np.finfo(dtype).min if kind is Reduction.MAX else np.inf, dtype=dtype)
    info = np.iinfo(dtype)
    return np.array(info.min if kind is Reduction.MAX else info.max, dtype=dtype)


def reduce_array(x: np.ndarray, axes: Sequence[int], kind: Reduction, exact: bool = True) -> np.ndarray:
    """Reduce ``x`` over normalized ``axes`` (keep_dims off) with OpenVINO's reference semantics.

    ``exact=False``: sums (and means) by ``np.add.reduce`` in the working type instead of
    the reference's Kahan-compensated row-major order (module docstring).
    """
    if x.dtype == np.bool_ or x.dtype == object:
        raise InputError(f"{kind.value} does not take {x.dtype} data")
    original = x.dtype
    if original in _NARROW:
        x = x.astype(np.float32)
    kept_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    sums = kind in (Reduction.SUM, Reduction.MEAN)
    if sums and not exact and (_is_float(x.dtype) or x.dtype.kind in "iu"):
        with np.errstate(all="ignore"):
            out = _divide_mean(np.add.reduce(x, axis=tuple(axes), dtype=x.dtype), x, kind)
        return narrow(np.asarray(out), original).reshape(kept_shape)
    cols, _ = _columns(x, axes)
    with np.errstate(all="ignore"):
        if sums:
            total = (
                _kahan_sum(cols) if _is_float(x.dtype) else _sequential(cols, np.add, np.zeros((), x.dtype))
            )
            out = _divide_mean(total, x, kind)
        elif kind is Reduction.PROD:
            out = _sequential(cols, np.multiply, np.ones((), x.dtype))
        else:
            out = _extreme_of_rows(cols, kind)
        return narrow(np.asarray(out), original).reshape(kept_shape)


def _extreme_of_rows(cols: np.ndarray, kind: Reduction) -> np.ndarray:
    """The reference's ReduceMax/Min of each row, vectorized.

    It folds ``acc = v > acc ? v : acc`` (``<`` for min) from the type's lowest finite value
    (+inf for min): a NaN never wins, and of equal values the first stays.  So the result is
    ``fmax``/``fmin`` (which skip NaN) over the row and that start; only the sign of a zero
    result depends on order: it is the first zero of the row (later zeros compare equal).
    Integers have no such ties.
    """
    ext = _extreme(cols.dtype, kind)
    if not _is_float(cols.dtype):
        ufunc = np.maximum if kind is Reduction.MAX else np.minimum
        out: np.ndarray = ufunc.reduce(cols, axis=1, initial=ext)
        return out
    out = (np.fmax if kind is Reduction.MAX else np.fmin).reduce(cols, axis=1, initial=ext)
    zero = np.flatnonzero(out == 0)
    if zero.size:
        rows = cols[zero]
        out[zero] = rows[np.arange(zero.size), np.argmax(rows == 0, axis=1)]
    return out


def _divide_mean(total: np.ndarray, x: np.ndarray, kind: Reduction) -> np.ndarray:
    """A mean's sums divided by the count (integers: truncated); a sum's unchanged."""
    if kind is not Reduction.MEAN or not x.size:
        return total
    count = np.array(x.size // max(total.size, 1)).astype(x.dtype)
    out: np.ndarray = total / count if _is_float(x.dtype) else _trunc_div(total, count)
    return out


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ integer division (truncation toward zero); ``b`` is a positive count."""
    q, r = np.floor_divide(a, b), np.remainder(a, b)
    out: np.ndarray = np.where((r != 0) & (a < 0), q + 1, q).astype(a.dtype)
    return out


def evaluate_reduce(attrs: ReduceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return reduce(attrs, inputs, exact=True)


def evaluate_reduce_fast(attrs: ReduceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """ReduceSum/ReduceMean with sums by ``np.add.reduce`` (not bit-exact with OpenVINO's reference)."""
    return reduce(attrs, inputs, exact=False)


def reduce(attrs: ReduceAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """One reduction of ``inputs`` (data, axes); ``exact=False``: see :func:`reduce_array`."""
    x, axes_arr = (np.asarray(a) for a in inputs)
    axes_info = TensorInfo(ElementType.i64, PartialShape.of(axes_arr.shape), value=axes_arr)
    values = known_ints(axes_info) or []
    axes = sorted(set(normalize_axes(values, x.ndim)))
    if x.ndim == 0 and axes:
        if attrs.keep_dims:
            raise InputError("cannot keep the reduced axis 0 of a scalar")
        axes = []
    out = reduce_array(x, axes, attrs.kind, exact)
    if attrs.keep_dims:
        out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return [out]


def folded_axes(info: TensorInfo, rank: int) -> tuple[int, ...] | None:
    """A folded axes input normalized for a rank-``rank`` input, sorted, or None."""
    value = folded(info)
    if value is None or value.dtype.kind not in "iu":
        return None
    try:
        return tuple(sorted(set(normalize_axes([int(v) for v in value.reshape(-1)], rank))))
    except ValidationError:
        return None


def _integer_extreme(kind: Reduction, dtype: np.dtype, axes: tuple[int, ...], keep: bool) -> Kernel:
    """ReduceMax/Min of integers over folded axes: NumPy's reduce from the reference's start
    value (integers have no ties to order)."""
    ufunc = np.maximum if kind is Reduction.MAX else np.minimum
    start = _extreme(dtype, kind)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        if keep:
            return [ufunc.reduce(values[0], axis=axes, initial=start, keepdims=True)]
        return [np.asarray(ufunc.reduce(values[0], axis=axes, initial=start))]

    return kernel


def bind_sum_fast(
    attrs: ReduceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The fast ReduceSum (of NumPy's numbers) or ReduceMean (f32/f64) over folded axes (not
    none, output not 0-d): ``np.add.reduce`` and the mean's division, as
    ``reduce_array(exact=False)``."""
    x = inputs[0]
    dtype = dtype_of(x)
    mean = attrs.kind is Reduction.MEAN
    if (
        dtype not in (PLAIN_FLOATS if mean else PLAIN_NUMBERS)
        or not x.shape.rank_is_static
        or not x.shape.rank
    ):
        return None
    axes = folded_axes(inputs[1], x.shape.rank)
    if not axes or not (outputs[0].shape.rank_is_static and outputs[0].shape.rank):
        return None
    keep = attrs.keep_dims
    if mean and x.shape.is_static and 0 not in x.shape.to_shape():
        return _static_mean(x.shape.to_shape(), axes, keep, dtype)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        if keep:
            total = np.add.reduce(w, axis=axes, dtype=dtype, keepdims=True)
        else:
            total = np.add.reduce(w, axis=axes, dtype=dtype)
        if mean and w.size:
            total = total / np.array(w.size // max(total.size, 1)).astype(dtype)
        return [total]

    return kernel


def _static_mean(shape: tuple[int, ...], axes: tuple[int, ...], keep: bool, dtype: np.dtype) -> Kernel:
    """``bind_sum_fast``'s ReduceMean of a static non-empty shape: the count in the data's type
    made once, the division written over the fresh sum (the same operations)."""
    count = np.array(math.prod(shape[a] for a in axes)).astype(dtype)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        w = values[0]
        total = (
            np.add.reduce(w, axis=axes, dtype=dtype, keepdims=True)
            if keep
            else np.add.reduce(w, axis=axes, dtype=dtype)
        )
        return [np.divide(total, count, out=total)]

    return kernel


def _binder(exact: bool) -> Binder[ReduceAttrs]:
    """The binder (exact, or fast) of any reduction over folded axes: ``reduce_array`` with the axes
    decoded once (integer sums, and the fast float sums of outputs that are not 0-d, take
    ``np.add.reduce`` directly: ``bind_sum_fast``)."""

    def bind(
        attrs: ReduceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
    ) -> Kernel | None:
        x = inputs[0]
        dtype = dtype_of(x)
        if dtype.kind in "bO" or not x.shape.rank_is_static or not x.shape.rank:
            return None
        sums = attrs.kind in (Reduction.SUM, Reduction.MEAN)
        if sums and (not exact or dtype in PLAIN_INTEGERS):
            direct = bind_sum_fast(attrs, inputs, outputs)
            if direct is not None:
                return direct
        axes = folded_axes(inputs[1], x.shape.rank)
        if not axes:
            return None
        kind, keep, listed = attrs.kind, attrs.keep_dims, list(axes)
        if kind in (Reduction.MAX, Reduction.MIN) and dtype in PLAIN_INTEGERS:
            return _integer_extreme(kind, dtype, axes, keep)

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            w = values[0]
            out = reduce_array(w, listed, kind, exact)
            return [out.reshape(tuple(1 if i in axes else n for i, n in enumerate(w.shape))) if keep else out]

        return kernel

    return bind


_BOUND_EXACT, _BOUND_FAST = _binder(True), _binder(False)


def _specialize_sums(
    attrs: ReduceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """ReduceSum/ReduceMean for a plan: the axes decoded once where they are folded; fast,
    float sums in NumPy's order (``evaluate_reduce_fast``) everywhere."""
    bound = (
        (_BOUND_EXACT if mode.exact else _BOUND_FAST)(attrs, inputs, outputs)
        if typed(inputs, outputs)
        else None
    )
    return bound if mode.exact else fast_kernel(bound, with_attrs(evaluate_reduce_fast, attrs))


def _reduction(
    kind: Reduction, evaluate_types: frozenset[ElementType], bounds: BoundsFn[ReduceAttrs] | None = None
) -> OpSpec[ReduceAttrs]:
    sums = kind in (Reduction.SUM, Reduction.MEAN)
    return OpSpec(
        type=kind.value,
        version=1,
        since=1,
        inputs=2,
        parse=_parser(kind),
        infer=infer_reduce,
        evaluate=evaluate_reduce,
        specialize=_specialize_sums if sums else mode_independent(_BOUND_EXACT),
        bounds=bounds,
        evaluate_types=(evaluate_types,),
    )


# ReduceSum and ReduceMean have no bounds in OpenVINO (their values still fold).
_MAX_MIN_TYPES = FLOATS | WIDE_INTEGERS | {ElementType.i8, ElementType.u8}
SPECS = (
    _reduction(Reduction.SUM, FLOATS | WIDE_INTEGERS),
    _reduction(Reduction.MEAN, FLOATS | WIDE_INTEGERS),
    _reduction(Reduction.MAX, _MAX_MIN_TYPES, bounds=kernel_bounds(exact=(1,))),
    _reduction(Reduction.MIN, _MAX_MIN_TYPES, bounds=kernel_bounds(exact=(1,))),
    _reduction(Reduction.PROD, FLOATS | WIDE_INTEGERS, bounds=reduce_prod_bounds),
)
