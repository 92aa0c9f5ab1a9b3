"""Index-driven data movement: GatherElements-6, GatherND-5/8, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15, ScatterUpdate-3.

What PyTorch's ``gather``/``scatter_``/``scatter_add``/``index_put_``/``masked_select``
and ONNX's GatherElements/ScatterElements/ScatterND become, usually right next to a
one-hot (``zeros.scatter_(1, t[:, None], 1)`` *is* a one-hot).

Shape rules: OpenVINO's ``gather_elements_shape_inference.hpp``,
``gather_nd_shape_inference.hpp``, ``scatter_elements_update_shape_inference.hpp``
and ``scatter_nd_base_shape_inference.hpp``, restated.  Indices must be an integer
type; data and updates share one element type; every scatter output is the data's
type and shape.

Values (checked against ``Node.evaluate`` where OpenVINO has it -- the scatters -- and
against the CPU plugin where it has not -- GatherElements, GatherND):

* negative indices count from the end (``-1`` is the last) in every op here; an index
  still outside the axis is an error (the reference refuses it; the CPU plugin reads
  or writes out of bounds);
* updates are applied in row-major order of ``updates``: with ``reduction=none`` the
  last write to a position wins; reductions combine in that order (f16/bf16 computed in
  f32 and rounded at the end, as the reference evaluates them); float min/max repeat the
  reference's comparisons, which differ between the two ops (``_float_min_max``: NaN
  and tie handling);
* ``use_init_val=false`` first resets every targeted position to the reduction's
  identity (0 for sum and mean, 1 for prod, the type's max/lowest for min/max);
* ``mean`` divides the sum by the number of contributions (counting the initial value
  when used); integers round toward negative infinity (the reference's
  ``nearbyint(double(sum) / N)`` under ``FE_DOWNWARD``, so an i64/u64 sum beyond 2**53 is
  first rounded down to a double; the CPU plugin truncates -- a CPU deviation); the sum
  accumulates in the element type and wraps;
* booleans: sum is OR, prod is AND, min is AND, max is OR.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, bool_attr, enum_attr, int_attr, parse_no_attrs
from .common.binding import PLAIN_NUMBERS, dtype_of, folded, mode_independent
from .common.bounds import kernel_bounds
from .common.numeric import is_float, narrow, quiet, widen
from .common.shape_util import known_ints, mul, normalize_axis, passes_integral_number_check
from .common.spec import Kernel, OpSpec, TensorInfo


def _merge_dim(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(message)
    return merged


def _require_indices_type(et: ElementType, what: str = "indices") -> None:
    if not (et.is_dynamic or passes_integral_number_check(et)):
        raise ValidationError(f"The element type of the {what} input must be integral. Got: {et}")


def _normalize_indices(idx: np.ndarray, size: int, message: Callable[[int], str]) -> np.ndarray:
    """Negative indices count from the end; anything still outside ``[0, size)`` is an InputError."""
    idx = np.asarray(idx).astype(np.int64)
    norm = np.where(idx < 0, idx + size, idx)
    bad = (norm < 0) | (norm >= size)
    if bad.any():
        raise InputError(message(int(idx[bad].reshape(-1)[0])))
    return norm


# =========================================================================================
# GatherElements-6
# =========================================================================================
@dataclass(frozen=True, slots=True)
class AxisAttrs:
    axis: int = 0


def parse_axis(node: Node) -> AxisAttrs:
    return AxisAttrs(int_attr(node, "axis", 0))


def infer_gather_elements(attrs: AxisAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices = inputs
    if not (indices.element_type.is_dynamic or indices.element_type in (ElementType.i32, ElementType.i64)):
        raise ValidationError(
            f"indices must be of int32 or int64 type. But instead got: {indices.element_type}"
        )
    d, i = data.shape, indices.shape
    if d.rank_is_static and d.rank < 1:
        raise ValidationError("data rank must be >= 1.")
    if i.rank_is_static and i.rank < 1:
        raise ValidationError("indices rank must be >= 1.")
    if d.rank_is_static:
        axis = normalize_axis(attrs.axis, d.rank)
    if d.rank_is_static and i.rank_is_static:
        if d.rank != i.rank:
            raise ValidationError(
                f"data and indices rank must be equal. But instead got: {d.rank} and {i.rank}"
            )
        dims = [
            di
            if k == axis
            else _merge_dim(
                di,
                dd,
                f"Shapes {d} and {i} are not consistent, data and indices "
                f"must have equal or intersecting dimensions, except for "
                f"the dimension at axis index.",
            )
            for k, (dd, di) in enumerate(zip(d, i, strict=True))
        ]
        return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]
    if i.rank_is_static:
        return [TensorInfo(data.element_type, i)]
    if d.rank_is_static:
        dims = [Dimension() if k == axis else dd for k, dd in enumerate(d)]
        return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]
    return [TensorInfo(data.element_type, PartialShape.dynamic())]


def evaluate_gather_elements(attrs: AxisAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices = (np.asarray(a) for a in inputs)
    axis = normalize_axis(attrs.axis, data.ndim)
    for k in range(data.ndim):
        if k != axis and data.shape[k] != indices.shape[k]:
            raise InputError(
                f"data shape {list(data.shape)} and indices shape {list(indices.shape)} differ "
                f"outside axis {axis}"
            )
    size = data.shape[axis]
    idx = _normalize_indices(
        indices, size, lambda v: f"GatherElements index {v} is out of bounds for the axis of size {size}"
    )
    return [np.take_along_axis(data, idx, axis=axis)]


# =========================================================================================
# GatherND-5, GatherND-8
# =========================================================================================
@dataclass(frozen=True, slots=True)
class GatherNDAttrs:
    batch_dims: int = 0
    version: int = 8


def _nd_parser(version: int) -> Callable[[Node], GatherNDAttrs]:
    def parse(node: Node) -> GatherNDAttrs:
        return GatherNDAttrs(int_attr(node, "batch_dims", 0), version)

    return parse


def infer_gather_nd(attrs: GatherNDAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices = inputs
    _require_indices_type(indices.element_type)
    b = attrs.batch_dims
    if b < 0:
        raise ValidationError(f"batch_dims value must be non-negative. Got: {b}")
    d, i = data.shape, indices.shape
    if d.rank_is_static and d.rank <= b:
        raise ValidationError("Number of batch dimensions must not exceed a rank of input.")
    if i.rank_is_static and i.rank <= b:
        raise ValidationError("Number of batch dimensions must not exceed a rank of indices.")
    if not (d.rank_is_static and i.rank_is_static) or not i[i.rank - 1].is_static:
        if attrs.version == 5 or not (d.rank_is_static and i.rank_is_static):
            return [TensorInfo(data.element_type, PartialShape.dynamic())]
        return [TensorInfo(data.element_type, PartialShape.dynamic())]
    k = i[i.rank - 1].length
    if k > d.rank - b:
        raise ValidationError(
            "Length of a tuple with indices must not exceed a rank of data tensor excluding batch dimensions."
        )
    batch = [
        _merge_dim(dd, di, "Batch dimensions of data and indices must be the same.")
        for dd, di in zip(tuple(d)[:b], tuple(i)[:b], strict=True)
    ]
    tail = list(tuple(i)[b : i.rank - 1]) + list(tuple(d)[b + k :])
    if attrs.version == 5 and b > 0:
        product = Dimension.static(1)
        for dim in batch:
            product = mul(product, dim)
        batch = [product]
    return [TensorInfo(data.element_type, PartialShape(tuple(batch + tail)))]


def _gather_nd_message(size: int) -> Callable[[int], str]:
    return lambda v: f"GatherND index {v} is out of bounds for a dimension of size {size}"


def evaluate_gather_nd(attrs: GatherNDAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices = (np.asarray(a) for a in inputs)
    b = attrs.batch_dims
    k = indices.shape[-1]
    if k > data.ndim - b:
        raise InputError(
            f"index tuples of length {k} do not fit data of rank {data.ndim} with {b} batch dims"
        )
    batch_shape = data.shape[:b]
    n_batch = math.prod(batch_shape)
    flat_data = data.reshape((n_batch, *data.shape[b:]))
    flat_idx = indices.reshape((n_batch, -1, k)).astype(np.int64)
    for j in range(k):
        flat_idx[..., j] = _normalize_indices(
            flat_idx[..., j], data.shape[b + j], _gather_nd_message(data.shape[b + j])
        )
    where = (np.arange(n_batch)[:, None], *(flat_idx[..., j] for j in range(k)))
    gathered = flat_data[where]
    middle = indices.shape[b:-1]
    slice_shape = data.shape[b + k :]
    if attrs.version == 5 and b > 0:
        return [gathered.reshape((n_batch, *middle, *slice_shape))]
    return [gathered.reshape((*batch_shape, *middle, *slice_shape))]


# =========================================================================================
# Scatters: shared reduction machinery
# =========================================================================================
class Reduction(enum.Enum):
    NONE = "none"
    SUM = "sum"
    SUB = "sub"
    PROD = "prod"
    MIN = "min"
    MAX = "max"
    MEAN = "mean"


def _identity(reduction: Reduction, dtype: np.dtype) -> object:
    if reduction in (Reduction.SUM, Reduction.SUB, Reduction.MEAN):
        return 0
    if reduction is Reduction.PROD:
        return 1
    if dtype == np.bool_:
        return reduction is Reduction.MIN
    if is_float(dtype):
        info = ml_dtypes.finfo(dtype)
        return info.max if reduction is Reduction.MIN else info.min
    iinfo = np.iinfo(dtype)
    return iinfo.max if reduction is Reduction.MIN else iinfo.min


def _combine(reduction: Reduction, current: np.ndarray, update: np.ndarray) -> np.ndarray:
    """One reduction step on equal-dtype arrays, rounded to that dtype."""
    dtype = current.dtype
    if dtype == np.bool_:
        if reduction in (Reduction.SUM, Reduction.MAX, Reduction.MEAN):
            out: np.ndarray = current | update
            return out
        if reduction in (Reduction.PROD, Reduction.MIN):
            both: np.ndarray = current & update
            return both
        return current & ~update if reduction is Reduction.SUB else update
    a, u = widen(current), widen(update)
    with quiet():
        if reduction in (Reduction.SUM, Reduction.MEAN):
            out = a + u
        elif reduction is Reduction.SUB:
            out = a - u
        elif reduction is Reduction.PROD:
            out = a * u
        elif reduction is Reduction.MIN:
            out = np.where(a < u, a, u)  # the reference: the update wins unless strictly worse
        elif reduction is Reduction.MAX:
            out = np.where(a > u, a, u)
        else:
            out = u
    return narrow(np.asarray(out), dtype)


def _occurrence(targets: np.ndarray) -> np.ndarray:
    """For each target, how many earlier entries hit the same position (0 for the first)."""
    order = np.argsort(targets, kind="stable")
    sorted_t = targets[order]
    starts = np.r_[True, sorted_t[1:] != sorted_t[:-1]] if sorted_t.size else np.zeros(0, bool)
    group_start = (
        np.maximum.accumulate(np.where(starts, np.arange(sorted_t.size), 0)) if sorted_t.size else starts
    )
    rank = np.empty(targets.size, dtype=np.int64)
    rank[order] = np.arange(sorted_t.size) - group_start
    return rank


def scatter_rows(
    out: np.ndarray,
    targets: np.ndarray,
    updates: np.ndarray,
    reduction: Reduction,
    use_init_val: bool,
    update_wins_ties: bool = True,
) -> np.ndarray:
    """``out`` (positions, row...) with ``updates[j]`` applied to row ``targets[j]``, in order.

    f16/bf16 are computed in f32 and rounded once at the end, as OpenVINO's reference
    does for every kernel it lacks a narrow-float version of.
    """
    original = out.dtype
    out = widen(out)
    updates = widen(updates)
    if targets.size == 0:
        return narrow(out, original)
    if not use_init_val and reduction is not Reduction.NONE:
        out[targets] = np.asarray(_identity(reduction, out.dtype)).astype(out.dtype)
    _apply_in_order(out, targets, updates, reduction, update_wins_ties)
    if reduction is Reduction.MEAN and out.dtype != np.bool_:
        unique, counts = np.unique(targets, return_counts=True)
        n = (counts + (1 if use_init_val else 0)).reshape((-1,) + (1,) * (out.ndim - 1))
        sums = out[unique]
        if is_float(out.dtype):
            with quiet():
                out[unique] = sums / n.astype(out.dtype)
        else:
            wide = sums if out.dtype.kind == "u" else sums.astype(np.int64)
            means = np.floor_divide(wide, n.astype(wide.dtype))
            if out.dtype.itemsize == 8:
                means = _wide_means(wide, n, means)
            out[unique] = means.astype(out.dtype)
    return narrow(out, original)


_EXACT_IN_DOUBLE = 2**53


def _wide_means(sums: np.ndarray, n: np.ndarray, means: np.ndarray) -> np.ndarray:
    """The reference's integer mean where an i64/u64 sum is beyond double's exact integers.

    reference/scatter_elements_update.hpp computes ``nearbyint(double(sum) / N)`` under
    ``FE_DOWNWARD``: the sum's conversion, the division and the rounding all go toward -inf
    (2**63 - 2 becomes 2**63 - 1024).  Below 2**53 that is the exact floor division.
    """
    counts = np.broadcast_to(n, sums.shape)
    big = np.abs(sums.astype(np.float64)) >= _EXACT_IN_DOUBLE
    if not big.any():
        return means
    out: np.ndarray = means.copy()
    for at in zip(*np.nonzero(big), strict=True):
        total = _down(Fraction(int(sums[at])))
        out[at] = math.floor(_down(Fraction(total) / int(counts[at])))
    return out


def _down(value: Fraction) -> float:
    """The largest double not above ``value`` (C's conversion or division under FE_DOWNWARD)."""
    nearest = float(value)
    return math.nextafter(nearest, -math.inf) if Fraction(nearest) > value else nearest


_UFUNCS = {
    Reduction.SUM: np.add,
    Reduction.MEAN: np.add,
    Reduction.SUB: np.subtract,
    Reduction.PROD: np.multiply,
    Reduction.MIN: np.minimum,
    Reduction.MAX: np.maximum,
}
_BOOL_UFUNCS = {
    Reduction.SUM: np.logical_or,
    Reduction.MEAN: np.logical_or,
    Reduction.MAX: np.logical_or,
    Reduction.PROD: np.logical_and,
    Reduction.MIN: np.logical_and,
}


def _apply_in_order(
    out: np.ndarray, targets: np.ndarray, updates: np.ndarray, reduction: Reduction, update_wins_ties: bool
) -> None:
    """``out[targets[j]] = op(out[targets[j]], updates[j])`` for j in order, in place.

    ``ufunc.at`` applies unbuffered, in index order, so sums and products round exactly as a
    sequential loop; ``none`` keeps each position's last update; float min/max follow the
    C++ comparisons (``_float_min_max``).  A boolean ``sub`` takes the generic path: one
    vectorized round per repeat of a position, each with ``_combine``.
    """
    if reduction is Reduction.NONE:
        last = targets.size - 1 - np.unique(targets[::-1], return_index=True)[1]
        out[targets[last]] = updates[last]
        return
    if out.dtype == np.bool_ and reduction in _BOOL_UFUNCS:
        _BOOL_UFUNCS[reduction].at(out, targets, updates)
        return
    if reduction in (Reduction.MIN, Reduction.MAX) and is_float(out.dtype):
        _float_min_max(out, targets, updates, reduction is Reduction.MAX, update_wins_ties)
        return
    if out.dtype != np.bool_:
        with quiet():
            _UFUNCS[reduction].at(out, targets, updates)
        return
    rank = _occurrence(targets)
    for r in range(int(rank.max()) + 1):
        pick = rank == r
        t = targets[pick]
        out[t] = _combine(reduction, out[t], updates[pick])


def _float_min_max(
    out: np.ndarray, targets: np.ndarray, updates: np.ndarray, is_max: bool, update_wins_ties: bool
) -> None:
    """The reference's sequential float min/max per position, vectorized.

    ScatterElementsUpdate folds ``cur = cur < u ? cur : u`` (``update_wins_ties``): the
    update wins unless the current value is strictly better, so ties go to the latest (the
    sign of equal zeros), a NaN update wins and the next update replaces that NaN -- a
    position ends as the min/max of what follows its last NaN (its initial value first),
    or as that NaN when nothing follows.  ScatterNDUpdate folds ``cur = u < cur ? u : cur``:
    a NaN update never wins, a NaN current value stays, ties keep the earliest.
    """
    size = int(np.prod(out.shape[1:], dtype=np.int64))
    flat_out = out.reshape(-1)
    elem_updates = (targets[:, None] * size + np.arange(size)[None, :]).reshape(-1)
    touched = np.unique(elem_updates)
    # The sequence of every touched element: its current value, then its updates in order.
    elem = np.concatenate([touched, elem_updates])
    vals = np.concatenate([flat_out[touched], np.ascontiguousarray(updates).reshape(-1)])
    pos = np.arange(elem.size)  # increasing along each element's sequence
    nan = np.isnan(vals)
    if update_wins_ties:
        last_nan = np.full(flat_out.size, -1, dtype=np.int64)
        np.maximum.at(last_nan, elem[nan], pos[nan])
        live = pos > last_nan[elem]
    else:
        live = ~nan
    best = np.full(flat_out.size, -np.inf if is_max else np.inf, dtype=flat_out.dtype)
    (np.maximum if is_max else np.minimum).at(best, elem[live], vals[live])
    # Equal zeros: the sign comes from the latest (or, for ScatterND, the earliest) live zero.
    zero = live & (vals == 0) & (best[elem] == 0)
    pick = np.full(flat_out.size, -1 if update_wins_ties else elem.size, dtype=np.int64)
    (np.maximum if update_wins_ties else np.minimum).at(pick, elem[zero], pos[zero])
    result = best[touched]
    has_zero = (pick[touched] >= 0) & (pick[touched] < elem.size)
    result[has_zero] = vals[pick[touched][has_zero]]
    if update_wins_ties:
        ends_nan = ~np.isin(touched, elem[live])
        result[ends_nan] = vals[last_nan[touched][ends_nan]]
    else:
        stays_nan = np.isnan(flat_out[touched])
        result[stays_nan] = flat_out[touched][stays_nan]
    flat_out[touched] = result


def _infer_scatter_types(data: TensorInfo, indices: TensorInfo, updates: TensorInfo) -> ElementType:
    _require_indices_type(indices.element_type)
    et = data.element_type.merge(updates.element_type)
    if et is None:
        raise ValidationError(
            f"Data type and updates type are required to be the same. Got: {data.element_type} and "
            f"{updates.element_type}"
        )
    return et


# =========================================================================================
# ScatterElementsUpdate-3, -12
# =========================================================================================
@dataclass(frozen=True, slots=True)
class ScatterElementsAttrs:
    reduction: Reduction = Reduction.NONE
    use_init_val: bool = True


def parse_scatter_elements_3(node: Node) -> ScatterElementsAttrs:
    return ScatterElementsAttrs()


def parse_scatter_elements_12(node: Node) -> ScatterElementsAttrs:
    reduction = enum_attr(node, "reduction", Reduction, Reduction.NONE)
    if reduction is Reduction.SUB:
        raise ValidationError(f"{node.describe()}: ScatterElementsUpdate has no reduction 'sub'")
    return ScatterElementsAttrs(reduction, bool_attr(node, "use_init_val", True))


def infer_scatter_elements(attrs: ScatterElementsAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices, updates, axis = inputs
    et = _infer_scatter_types(data, indices, updates)
    if attrs.reduction is Reduction.MEAN and et is ElementType.boolean:
        raise ValidationError("The 'mean' reduction type is not supported for boolean tensors")
    if not (axis.element_type.is_dynamic or passes_integral_number_check(axis.element_type)):
        raise ValidationError(f"Axis element type must be integral_number, but is: {axis.element_type}")
    if axis.shape.rank_is_static and axis.shape.rank > 1:
        raise ValidationError(f"Axis input shape are required to be scalar or 1D tensor. Got: {axis.shape}")
    i, u = indices.shape, updates.shape
    if i.merge(u) is None:
        raise ValidationError(f"Indices and updates input shapes are required to be equal. Got: {i} and {u}")
    d = data.shape
    for other in (i, u):
        if d.rank_is_static and other.rank_is_static and d.rank != other.rank:
            raise ValidationError(
                f"Indices rank and data rank are required to be equal. Got: {other.rank} and {d.rank}"
            )
    values = known_ints(axis)
    if values and d.rank_is_static:
        normalize_axis(values[0], d.rank)
    return [TensorInfo(et, d)]


def evaluate_scatter_elements(attrs: ScatterElementsAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices, updates, axis_arr = (np.asarray(a) for a in inputs)
    axis = normalize_axis(int(np.asarray(axis_arr).reshape(-1)[0]), data.ndim)
    if indices.shape != updates.shape:
        raise InputError(
            f"indices shape {list(indices.shape)} and updates shape {list(updates.shape)} differ"
        )
    size = data.shape[axis]
    idx = _normalize_indices(
        indices,
        size,
        lambda v: f"ScatterElementsUpdate index {v} is out of bounds for the axis of size {size}",
    )
    coords: list[np.ndarray] = list(np.indices(indices.shape, sparse=False)) if indices.ndim else []
    if indices.ndim:
        coords[axis] = idx
        targets = np.ravel_multi_index(tuple(c.reshape(-1) for c in coords), data.shape)
    else:
        targets = np.zeros(0, np.int64)
    out = scatter_rows(
        data.reshape(-1).copy(),
        targets.astype(np.int64),
        updates.reshape(-1),
        attrs.reduction,
        attrs.use_init_val,
    )
    return [out.reshape(data.shape)]


def bind_scatter_elements(
    attrs: ScatterElementsAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded axis, data of a static rank: the flat targets are the indices times the axis
    stride plus the other coordinates' offsets, remembered per indices shape; then the
    kernel's ``scatter_rows`` (``ufunc.at`` directly for a sum or product, what it does there).
    Indices out of range or shapes that differ go to the kernel, which words the error."""
    data, indices = inputs[0], inputs[1]
    axis_value = folded(inputs[3])
    if axis_value is None or axis_value.size != 1 or not data.shape.rank_is_static or not data.shape.rank:
        return None
    if dtype_of(data).kind == "O" or dtype_of(indices).kind not in "iu" or dtype_of(indices) == np.uint64:
        return None
    try:
        axis = normalize_axis(int(axis_value.reshape(-1)[0]), data.shape.rank)
    except ValidationError:
        return None
    offsets: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[np.ndarray, int]] = {}
    reduction, use_init_val = attrs.reduction, attrs.use_init_val
    plain = dtype_of(data) in PLAIN_NUMBERS and use_init_val
    direct = _UFUNCS[reduction] if plain and reduction in (Reduction.SUM, Reduction.PROD) else None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, idx, updates = values[0], values[1], values[2]
        if idx.shape != updates.shape or idx.ndim != x.ndim or not idx.size:
            raise ValueError("the kernel decides")
        key = (x.shape, idx.shape)
        known = offsets.get(key)
        if known is None:
            grid = np.indices(idx.shape, sparse=False)
            grid[axis] = 0
            base = np.ravel_multi_index(tuple(c.reshape(-1) for c in grid), x.shape).astype(np.int64)
            known = offsets[key] = (base, math.prod(x.shape[axis + 1 :]))
            if len(offsets) > 64:
                offsets.pop(next(iter(offsets)))
        base, stride = known
        flat = _normalize_indices(idx, x.shape[axis], str).reshape(-1)  # (out of range: the kernel words it)
        out = x.reshape(-1).copy()
        if direct is not None:  # what scatter_rows does for these: ufunc.at, in index order
            direct.at(out, base + flat * stride, updates.reshape(-1))
            return [out.reshape(x.shape)]
        out = scatter_rows(out, base + flat * stride, updates.reshape(-1), reduction, use_init_val)
        return [out.reshape(x.shape)]

    return kernel


# =========================================================================================
# ScatterNDUpdate-3, -15
# =========================================================================================
@dataclass(frozen=True, slots=True)
class ScatterNDAttrs:
    reduction: Reduction = Reduction.NONE


def parse_scatter_nd_3(node: Node) -> ScatterNDAttrs:
    return ScatterNDAttrs()


def parse_scatter_nd_15(node: Node) -> ScatterNDAttrs:
    reduction = enum_attr(node, "reduction", Reduction, Reduction.NONE)
    if reduction is Reduction.MEAN:
        raise ValidationError(f"{node.describe()}: ScatterNDUpdate has no reduction 'mean'")
    return ScatterNDAttrs(reduction)


def infer_scatter_nd(attrs: ScatterNDAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices, updates = inputs
    et = _infer_scatter_types(data, indices, updates)
    d, i, u = data.shape, indices.shape, updates.shape
    if i.rank_is_static and i.rank < 1:
        raise ValidationError("Indices rank is expected to be at least 1")
    if i.rank_is_static and d.rank_is_static and i[i.rank - 1].is_static:
        k = i[i.rank - 1].length
        if k > d.rank:
            raise ValidationError("Last dimension of indices can be at most the rank of inputs")
        if u.rank_is_static:
            expected = i.rank - 1 + d.rank - k
            if u.rank != expected:
                raise ValidationError(
                    "Rank of updates must be rank of inputs + rank of indices - last dimension of indices - 1"
                )
            want = tuple(i)[: i.rank - 1] + tuple(d)[k:]
            if PartialShape(want).merge(u) is None:
                raise ValidationError(
                    "updates_shape[indices_rank-1:] shape must be input_shape[indices_shape[-1]:]"
                )
    return [TensorInfo(et, d)]


def evaluate_scatter_nd(attrs: ScatterNDAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices, updates = (np.asarray(a) for a in inputs)
    k = indices.shape[-1]
    lead = data.shape[:k]
    rest = data.shape[k:]
    tuples = indices.reshape(-1, k).astype(np.int64)
    for j in range(k):
        tuples[:, j] = _normalize_indices(tuples[:, j], lead[j], lambda v: "Index is out of bounds")
    targets = (
        np.ravel_multi_index(tuple(tuples[:, j] for j in range(k)), lead)
        if k
        else np.zeros(len(tuples), np.int64)
    )
    want = indices.shape[:-1] + rest
    if updates.shape != want:
        raise InputError(f"updates shape {list(updates.shape)} differs from the expected {list(want)}")
    rows = updates.reshape((len(tuples), *rest))
    out = scatter_rows(
        data.reshape((math.prod(lead), *rest)).copy(),
        np.asarray(targets, np.int64),
        rows,
        attrs.reduction,
        True,
        update_wins_ties=False,  # ScatterNDUpdate's min/max: u < cur ? u : cur
    )
    return [out.reshape(data.shape)]


# =========================================================================================
# ScatterUpdate-3
# =========================================================================================
def infer_scatter_update(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices, updates, axis = inputs
    et = _infer_scatter_types(data, indices, updates)
    if not (axis.element_type.is_dynamic or passes_integral_number_check(axis.element_type)):
        raise ValidationError(
            f"Axis element type must be of an integral number type. Got: {axis.element_type}"
        )
    d, i, u = data.shape, indices.shape, updates.shape
    values = known_ints(axis)
    if values and d.rank_is_static and i.rank_is_static and u.rank_is_static:
        normalize_axis(values[0], d.rank)
        if u.rank != d.rank - 1 + i.rank:
            raise ValidationError("Updates rank is expected to be indices rank + data rank - 1.")
    return [TensorInfo(et, d)]


def evaluate_scatter_update(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices, updates, axis_arr = (np.asarray(a) for a in inputs)
    axis = normalize_axis(int(axis_arr.reshape(-1)[0]), data.ndim)
    size = data.shape[axis]
    # Indices in [0, size) only: OpenVINO's reference refuses negative ones too (unlike
    # ScatterElementsUpdate's, they do not count from the end), with this message.
    idx = np.asarray(indices).reshape(-1).astype(np.int64)
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise InputError(
            f"ScatterUpdate indices value {int(idx[bad][0])} is out of bounds for axis {axis} of size {size}"
        )
    moved = np.moveaxis(data, axis, 0).copy()
    upd = updates.reshape((*data.shape[:axis], idx.size, *data.shape[axis + 1 :]))
    upd = np.moveaxis(upd, axis, 0)
    flat = scatter_rows(moved.reshape((size, -1)), idx, upd.reshape((idx.size, -1)), Reduction.NONE, True)
    return [np.moveaxis(flat.reshape(moved.shape), 0, axis).copy()]


SPECS = (
    OpSpec(
        type="GatherElements",
        version=6,
        since=6,
        inputs=2,
        parse=parse_axis,
        infer=infer_gather_elements,
        evaluate=evaluate_gather_elements,
    ),
    OpSpec(
        type="GatherND",
        version=5,
        since=5,
        inputs=2,
        parse=_nd_parser(5),
        infer=infer_gather_nd,
        evaluate=evaluate_gather_nd,
    ),
    OpSpec(
        type="GatherND",
        version=8,
        since=8,
        inputs=2,
        parse=_nd_parser(8),
        infer=infer_gather_nd,
        evaluate=evaluate_gather_nd,
    ),
    OpSpec(
        type="ScatterElementsUpdate",
        version=3,
        since=3,
        inputs=4,
        parse=parse_scatter_elements_3,
        infer=infer_scatter_elements,
        evaluate=evaluate_scatter_elements,
        specialize=mode_independent(bind_scatter_elements),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
    ),
    OpSpec(
        type="ScatterElementsUpdate",
        version=12,
        since=12,
        inputs=4,
        parse=parse_scatter_elements_12,
        infer=infer_scatter_elements,
        evaluate=evaluate_scatter_elements,
        specialize=mode_independent(bind_scatter_elements),
        bounds=kernel_bounds(exact=(1,)),
    ),
    OpSpec(
        type="ScatterNDUpdate",
        version=3,
        since=4,
        inputs=3,
        parse=parse_scatter_nd_3,
        infer=infer_scatter_nd,
        evaluate=evaluate_scatter_nd,
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
    ),
    OpSpec(
        type="ScatterNDUpdate",
        version=15,
        since=15,
        inputs=3,
        parse=parse_scatter_nd_15,
        infer=infer_scatter_nd,
        evaluate=evaluate_scatter_nd,
        bounds=kernel_bounds(exact=(1,)),
    ),
    OpSpec(
        type="ScatterUpdate",
        version=3,
        since=3,
        inputs=4,
        parse=parse_no_attrs,
        infer=infer_scatter_update,
        evaluate=evaluate_scatter_update,
        bounds=kernel_bounds(exact=(1, 3)),
        copies_values=True,
    ),
)
