"""TopK-1, TopK-3 and TopK-11: what ``argmax`` becomes (PyTorch ``x.argmax(d)`` is TopK-11, k=1).

Shape (``topk_shape_inference.hpp``): both outputs are the data shape with the axis
dim replaced by k (known value), an interval ``[min(dim.min, k.min), min(dim.max,
k.max)]`` (k from bounds), or ``0..dim.max`` (k unknown).  ``index_element_type``
must be i32 or i64 (default i32); k must be a non-negative scalar.

Values (``reference/topk.hpp``): elements compare by value (descending for ``max``,
ascending for ``min``), ties by the smaller index, so the chosen k are well defined.
``sort=value`` orders them that way, ``sort=index`` by ascending index.  With
``sort=none`` and k > 1 the reference leaves the k in whatever order
``std::nth_element`` does; ovonehot gives them in value order (for k = 1 the two
agree).  A k larger than the dim is refused at run time (OpenVINO's reference writes
past its buffers there).  k = 0 gives empty outputs, as OpenVINO infers; its
reference kernel instead returns the whole axis sorted.  NaN ordering is not OpenVINO's.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, enum_attr, int_attr
from .common.binding import folded, mode_independent
from .common.shape_util import input_bounds, normalize_axis
from .common.spec import Kernel, OpSpec, TensorInfo


class TopKMode(enum.Enum):
    MAX = "max"
    MIN = "min"


class TopKSort(enum.Enum):
    NONE = "none"
    INDEX = "index"
    VALUE = "value"


@dataclass(frozen=True, slots=True)
class TopKAttrs:
    axis: int
    mode: TopKMode
    sort: TopKSort
    index_element_type: ElementType = ElementType.i32
    stable: bool = False


def _parse(node: Node, stable: bool) -> TopKAttrs:
    return TopKAttrs(
        int_attr(node, "axis"),
        enum_attr(node, "mode", TopKMode),
        enum_attr(node, "sort", TopKSort),
        element_type_attr(node, "index_element_type", ElementType.i32),
        bool_attr(node, "stable", False) if stable else False,
    )


def parse_topk_1(node: Node) -> TopKAttrs:
    return _parse(node, stable=False)


def parse_topk_11(node: Node) -> TopKAttrs:
    return _parse(node, stable=True)


def infer_topk(attrs: TopKAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, k_info = inputs
    if attrs.index_element_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(
            f"Index element type attribute should be either 'i32' or 'i64'. Got: {attrs.index_element_type}"
        )
    if data.shape.rank_is_static and data.shape.rank == 0:
        raise ValidationError("Input rank must be greater than 0.")
    if k_info.shape.rank_is_static and k_info.shape.rank != 0:
        raise ValidationError("The 'K' input must be a scalar.")
    et_k = k_info.element_type
    if not (et_k.is_dynamic or et_k.is_integral_number):
        raise ValidationError(f"K input has to be an integer type, which {et_k} is not.")
    shape = data.shape
    if shape.dims is not None:
        axis = normalize_axis(attrs.axis, len(shape.dims))
        dims = list(shape.dims)
        dims[axis] = _k_dim(dims[axis], k_info)
        shape = PartialShape(tuple(dims))
    return [TensorInfo(data.element_type, shape), TensorInfo(attrs.index_element_type, shape)]


def _k_dim(dim: Dimension, k_info: TensorInfo) -> Dimension:
    bounds = input_bounds(k_info)
    if bounds is None:
        return Dimension(0, dim.max)
    if len(bounds) != 1:
        raise ValidationError(
            f"Only one value (scalar) should be provided as the 'K' input to TopK (got {len(bounds)} elements)."
        )
    lo, hi = bounds[0]
    for v in (lo, hi):
        if v < 0 and v != -1:
            raise ValidationError(f"The value of 'K' must be greater or equal to zero. (got {v}).")
    if lo == hi and lo >= 0:
        return Dimension.static(lo)
    k_min = max(lo, 0)
    k_max = None if hi in (-1, 2**63 - 1) else hi
    lower = min(dim.min, k_min)
    if dim.max is None:
        return Dimension(lower, None)
    return Dimension(lower, dim.max if k_max is None else min(dim.max, k_max))


def evaluate_topk(attrs: TopKAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, k_arr = (np.asarray(a) for a in inputs)
    if k_arr.size != 1:
        raise InputError(f"The 'K' input must be a scalar, got shape {list(k_arr.shape)}")
    k = int(k_arr.reshape(-1)[0])
    try:
        axis = normalize_axis(attrs.axis, data.ndim)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    n = data.shape[axis]
    if not 0 <= k <= n:
        raise InputError(f"TopK k={k} must be in [0, {n}] for axis {axis} of shape {list(data.shape)}")
    return _top(data, k, axis, attrs)


def _top(data: np.ndarray, k: int, axis: int, attrs: TopKAttrs) -> list[np.ndarray]:
    """Values and indices of the ``k`` (checked) first elements along ``axis`` by the mode."""
    if k == 1 and data.shape[axis] and data.dtype.kind in "biuf":
        return _first(data, axis, attrs)
    return _sorted(data, k, axis, attrs)


def _sorted(data: np.ndarray, k: int, axis: int, attrs: TopKAttrs) -> list[np.ndarray]:
    """``_top`` by a stable sort of every row."""
    n = data.shape[axis]
    last = axis == data.ndim - 1  # (the usual case: no axis moved, no copy made twice)
    moved = data if last else np.moveaxis(data, axis, -1)
    if attrs.mode is TopKMode.MAX:
        # Descending by value, ties by ascending index: stable sort of the reversed row, reversed.
        order = np.argsort(moved[..., ::-1], axis=-1, kind="stable")[..., ::-1]
        order = n - 1 - order
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    chosen = order[..., :k]
    if attrs.sort is TopKSort.INDEX:
        chosen = np.sort(chosen, axis=-1)
    values = np.take_along_axis(moved, chosen, axis=-1)
    index_dtype = numpy_dtype_of(attrs.index_element_type)
    if last:
        return [np.ascontiguousarray(values), np.ascontiguousarray(chosen, dtype=index_dtype)]
    return [
        np.array(np.moveaxis(values, -1, axis), order="C", copy=True),
        np.array(np.moveaxis(chosen, -1, axis), dtype=index_dtype, order="C"),
    ]


def _first(data: np.ndarray, axis: int, attrs: TopKAttrs) -> list[np.ndarray]:
    """``_top`` for k = 1 (an argmax, as segmentation heads take): the sort's first element is
    ``np.argmax``'s, the first of the largest values, a NaN above every number (the sort puts
    NaN first, in index order); for min, ``np.argmin``'s where the data holds no NaN (argmin
    would pick a NaN, the sort puts them last: the sort decides).  The same bytes as the sort."""
    if attrs.mode is TopKMode.MAX:
        chosen = np.argmax(data, axis=axis, keepdims=True)
    elif data.dtype.kind != "f" or not np.isnan(data).any():
        chosen = np.argmin(data, axis=axis, keepdims=True)
    else:
        return _sorted(data, 1, axis, attrs)
    values = np.take_along_axis(data, chosen, axis=axis)
    return [
        np.ascontiguousarray(values),
        np.ascontiguousarray(chosen, dtype=numpy_dtype_of(attrs.index_element_type)),
    ]


def bind_topk(attrs: TopKAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
    """A folded K of a static-rank input: K and the axis read once (a K past the axis's length,
    which a shape the signature leaves open may bring, goes to the kernel)."""
    data, k_value = inputs[0], folded(inputs[1])
    if (
        k_value is None
        or k_value.size != 1
        or k_value.dtype.kind not in "iu"
        or not data.shape.rank_is_static
    ):
        return None
    k = int(k_value.reshape(-1)[0])
    try:
        axis = normalize_axis(attrs.axis, data.shape.rank)
    except ValidationError:
        return None
    if k < 0:
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        if k > x.shape[axis]:
            raise ValueError("the kernel words it")
        return _top(x, k, axis, attrs)

    return kernel


SPECS = (
    OpSpec(
        type="TopK",
        version=1,
        since=1,
        inputs=2,
        parse=parse_topk_1,
        infer=infer_topk,
        evaluate=evaluate_topk,
        specialize=mode_independent(bind_topk),
    ),
    OpSpec(
        type="TopK",
        version=3,
        since=3,
        inputs=2,
        parse=parse_topk_1,
        infer=infer_topk,
        evaluate=evaluate_topk,
        specialize=mode_independent(bind_topk),
    ),
    OpSpec(
        type="TopK",
        version=11,
        since=11,
        inputs=2,
        parse=parse_topk_11,
        infer=infer_topk,
        evaluate=evaluate_topk,
        specialize=mode_independent(bind_topk),
    ),
)
