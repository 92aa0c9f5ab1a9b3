"""Data movement ops: Split, VariadicSplit, Transpose, Broadcast (v1, v3), Tile, Slice (v8).

Shape rules follow OpenVINO's ``shape_inference/include/*_shape_inference.hpp``;
index-like inputs (axis, lengths, order, target shape, repeats, start/stop/step)
are read from their known values, or from their bounds where OpenVINO reads bounds
(Broadcast's target shape, Tile's repeats, Slice's start/stop), via
:mod:`.shape_util`.  Values are plain NumPy indexing; every output is a fresh,
contiguous array.

Where OpenVINO is more precise than ovonehot: Broadcast's target shape built by a
``Concat`` whose inputs are partly Constants gives OpenVINO those constant dims even
when no bounds are known; ovonehot then gives ``?`` for every dim.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..budget import check_allocation
from ..errors import InputError, UnsupportedError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import NoAttrs, enum_attr, int_attr, parse_no_attrs
from .common.autobroadcast import NUMPY, broadcast_merge_dim, broadcast_shapes
from .common.binding import folded, mode_independent
from .common.bounds import kernel_bounds
from .common.shape_util import dim_from_bounds, input_bounds, known_ints, mul, normalize_axis
from .common.slicing import make_dim
from .common.spec import Kernel, OpSpec, TensorInfo

# The most outputs a Split may declare: each is a port in the IR, so real models stay far below.
MAX_SPLITS = 1 << 16


def _require_integral(info: TensorInfo, message: str) -> None:
    et = info.element_type
    if not (et.is_dynamic or et.is_integral_number):
        raise ValidationError(f"{message} Got: {et}")


def _ints(a: np.ndarray) -> list[int]:
    """An index-like runtime input as Python ints (u64 read as int64, as OpenVINO casts)."""
    flat = np.asarray(a).reshape(-1)
    if flat.dtype == np.uint64:
        return [int(v) - 2**64 if int(v) >= 2**63 else int(v) for v in flat]
    if flat.dtype.kind == "f":
        return [int(np.trunc(v)) for v in flat]
    return [int(v) for v in flat]


def _fresh(a: np.ndarray) -> np.ndarray:
    """A contiguous copy that keeps a 0-d array 0-d (``np.ascontiguousarray`` would not)."""
    return np.array(a, order="C", copy=True)


def _shape_from_info(info: TensorInfo, clamp_negative: bool = False) -> list[Dimension] | None:
    """A 1-D shape-like input as dims: exact values, else intervals from bounds, else None.

    OpenVINO's ``get_input_const_data_as_shape`` (``evaluate_as_partial_shape``): -1
    and the type's maximum mean unbounded; ``clamp_negative`` maps negatives to 0
    first (Tile's repeats).
    """
    bounds = input_bounds(info)
    if bounds is None:
        return None
    dims = []
    for lo, hi in bounds:
        if clamp_negative:
            lo, hi = max(lo, 0), max(hi, 0)
        if lo < -1 or (hi < -1):
            raise ValidationError(f"shape input holds a negative value: {lo if lo < -1 else hi}")
        dims.append(dim_from_bounds(lo, hi))
    return dims


# ---------------------------------------------------------------------------------------
# Split-1
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SplitAttrs:
    num_splits: int


def parse_split(node: Node) -> SplitAttrs:
    return SplitAttrs(int_attr(node, "num_splits"))


def infer_split(attrs: SplitAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axis_info = inputs
    n = attrs.num_splits
    if n <= 0:
        raise ValidationError(f"Attribute 'num_splits' must be greater than zero. Got: {n}")
    if n > MAX_SPLITS:  # one output each: the list alone would not fit in memory
        raise ValidationError(
            f"Attribute 'num_splits' {n} is more outputs than ovonehot handles ({MAX_SPLITS})"
        )
    _require_integral(axis_info, "Element type of 'axis' input must be integer.")
    if axis_info.shape.rank_is_static and axis_info.shape.rank != 0:
        raise ValidationError(f"'axis' input must be a scalar. Got: {axis_info.shape}")
    axes = known_ints(axis_info)
    if axes is None or not data.shape.rank_is_static:
        shape = PartialShape(None if data.shape.dims is None else (Dimension(),) * data.shape.rank)
        return [TensorInfo(data.element_type, shape)] * n
    if len(axes) != 1:
        raise ValidationError(f"a scalar axis value is expected. Got: {len(axes)} axes")
    axis = _split_axis(axes[0], data.shape.rank)
    dims = list(data.shape)
    d = dims[axis]
    if d.is_static:
        if d.min % n:
            raise ValidationError(
                f"Dimension of data input shape along 'axis': {d.min} must be evenly divisible by "
                f"'num_splits' attribute value: {n}"
            )
        dims[axis] = Dimension.static(d.min // n)
    else:
        if d.max is not None and d.max < n:
            raise ValidationError(
                "The interval maximum of the dimension for data input shape along 'axis' must be greater "
                f"or equal to 'num_splits' attribute. Got: {d} and {n}"
            )
        # OpenVINO computes these in float32: static_cast<int64_t>(bound * (1.0f / n)).
        inverse = np.float32(1.0) / np.float32(n)
        lo = int(np.float32(d.min) * inverse)
        hi = None if d.max is None else int(np.float32(d.max) * inverse)
        dims[axis] = Dimension(lo, hi) if hi is None or hi >= lo else Dimension(lo, lo)
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))] * n


def evaluate_split(attrs: SplitAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, axis_arr = (np.asarray(a) for a in inputs)
    axis = _runtime_axis(_ints(axis_arr), data.ndim)
    return _split(data, axis, attrs.num_splits)


def _split(data: np.ndarray, axis: int, num_splits: int) -> list[np.ndarray]:
    if data.shape[axis] % num_splits:
        raise InputError(
            f"Dimension of data input shape along 'axis': {data.shape[axis]} must be evenly divisible by "
            f"'num_splits' attribute value: {num_splits}"
        )
    part = data.shape[axis] // num_splits  # (slices: np.split's Python costs more than the copies)
    before = (slice(None),) * axis
    parts = [(*before, slice(k * part, (k + 1) * part)) for k in range(num_splits)]
    return [_fresh(data[where]) for where in parts]


def bind_split(
    attrs: SplitAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded axis of a static-rank input: its split (the kernel's check of the length)."""
    axis_value = folded(inputs[1])
    if axis_value is None or not inputs[0].shape.rank_is_static:
        return None
    try:
        axis = _runtime_axis(_ints(axis_value), inputs[0].shape.rank)
    except InputError:
        return None
    n = attrs.num_splits

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return _split(values[0], axis, n)

    return kernel


def _split_axis(axis: int, rank: int) -> int:
    """The split axis: a scalar has no axis to split (OpenVINO: "out of the tensor rank range [0, -1]")."""
    if rank == 0:
        raise ValidationError(f"Axis {axis} out of the tensor rank range [0, -1]: a scalar cannot be split.")
    return normalize_axis(axis, rank)


def _runtime_axis(values: list[int], rank: int) -> int:
    if len(values) != 1:
        raise InputError(f"a scalar axis value is expected. Got: {len(values)} axes")
    try:
        return _split_axis(values[0], rank)
    except ValidationError as exc:
        raise InputError(str(exc)) from None


# ---------------------------------------------------------------------------------------
# VariadicSplit-1
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VariadicSplitAttrs:
    outputs: int  # the number of output ports the layer declares


def parse_variadic_split(node: Node) -> VariadicSplitAttrs:
    return VariadicSplitAttrs(len(node.outputs))


def _fit_split_lengths(lengths: list[int], d: Dimension) -> None:
    """Check ``lengths`` (at most one -1) against the axis ``d``; resolve the -1 when ``d`` is static."""
    total, minus_one = 0, None
    for i, v in enumerate(lengths):
        if v < -1:
            raise ValidationError(f"Invalid value {v} in split lengths input. Should be >= -1.")
        if v == -1:
            if minus_one is not None:
                raise ValidationError(f"Cannot infer split with multiple -1 values at {minus_one} and {i}")
            minus_one = i
        else:
            total += v
    if d.is_static:
        if minus_one is not None:
            lengths[minus_one] = d.min - total
            total = d.min
        if total != d.min:
            raise ValidationError(
                f"Total length of splits: {total} must match the length of the chosen axis: {d.min}"
            )
    elif minus_one is None and not d.contains(total):
        raise ValidationError(
            f"Total length of splits: {total} must match the length of the chosen axis: {d}"
        )


def infer_variadic_split(attrs: VariadicSplitAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, axis_info, lengths_info = inputs
    axis_shape, lengths_shape = axis_info.shape, lengths_info.shape
    if not (axis_shape.compatible(PartialShape.of(())) or axis_shape.compatible(PartialShape.of((1,)))):
        raise ValidationError(f"Axis should be a scalar or of shape [1]. Got {axis_shape} instead.")
    _require_integral(axis_info, "Element type of 'axis' input must be integer.")
    _require_integral(lengths_info, "Element type of 'split_lengths' input must be integer.")
    if not lengths_shape.is_static:
        raise ValidationError(
            f"split_lengths must have a static shape to know the outputs, got {lengths_shape}"
        )
    if lengths_shape.rank != 1:
        raise ValidationError(f"Split lengths should be a 1-D tensor. Got {lengths_shape.rank} instead.")
    n = lengths_shape[0].min
    if n != attrs.outputs:
        raise ValidationError(f"split_lengths has {n} values but the layer declares {attrs.outputs} outputs")
    et = data.element_type
    axes = known_ints(axis_info)
    if not data.shape.rank_is_static or axes is None:
        shape = PartialShape(None if data.shape.dims is None else (Dimension(),) * data.shape.rank)
        return [TensorInfo(et, shape)] * n
    if len(axes) != 1:
        raise ValidationError(f"a scalar axis value is expected. Got: {len(axes)} axes")
    axis = _split_axis(axes[0], data.shape.rank)
    dims = list(data.shape)
    lengths = known_ints(lengths_info)
    if lengths is None:
        dims[axis] = Dimension()
        return [TensorInfo(et, PartialShape(tuple(dims)))] * n
    _fit_split_lengths(lengths, dims[axis])
    outs = []
    for v in lengths:
        if v == -1:
            dims[axis] = Dimension()  # OpenVINO leaves it dynamic, even for an interval dim
        else:  # a -1 resolved below 0 (lengths [3, -1] of an empty axis): OpenVINO's Dimension clips it to 0
            dims[axis] = Dimension.static(max(v, 0))
        outs.append(TensorInfo(et, PartialShape(tuple(dims))))
    return outs


def evaluate_variadic_split(attrs: VariadicSplitAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, axis_arr, lengths_arr = (np.asarray(a) for a in inputs)
    axis = _runtime_axis(_ints(axis_arr), data.ndim)
    return [
        _fresh(data[index])
        for index in _variadic_indexes(data.ndim, axis, data.shape[axis], _ints(lengths_arr))
    ]


def _variadic_indexes(rank: int, axis: int, dim: int, lengths: list[int]) -> list[tuple[slice, ...]]:
    """VariadicSplit's parts of a dimension ``dim`` as index tuples (InputError: bad lengths)."""
    if lengths.count(-1) > 1 or any(v < -1 for v in lengths):
        raise InputError(f"invalid split lengths {lengths}")
    if -1 in lengths:
        lengths[lengths.index(-1)] = dim - sum(v for v in lengths if v != -1)
    if sum(lengths) != dim or any(v < 0 for v in lengths):
        raise InputError(
            f"Total length of splits: {sum(lengths)} must match the length of the chosen axis: {dim}"
        )
    bounds = list(itertools.accumulate(lengths, initial=0))
    index = [slice(None)] * rank
    indexes = []
    for lo, hi in itertools.pairwise(bounds):
        index[axis] = slice(lo, hi)
        indexes.append(tuple(index))
    return indexes


def _split_by_runtime_lengths(axis: int, lengths_info: TensorInfo) -> Kernel | None:
    """VariadicSplit on a folded axis with lengths (i32/i64) or a dimension known only when it
    runs: the kernel's ``_variadic_indexes`` per run (lengths that do not fit raise its error,
    and the plan then runs the kernel itself, which names the layer)."""
    if lengths_info.element_type.numpy_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        indexes = _variadic_indexes(x.ndim, axis, x.shape[axis], values[2].reshape(-1).tolist())
        return [_fresh(x[index]) for index in indexes]

    return kernel


def bind_variadic_split(
    attrs: VariadicSplitAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded axis and folded lengths, the split dimension static: the parts' indexes."""
    data, axis_info, lengths_info = inputs
    axis_value, lengths = folded(axis_info), folded(lengths_info)
    if axis_value is None or not data.shape.rank_is_static:
        return None
    try:
        axis = _runtime_axis(_ints(axis_value), data.shape.rank)
        dim = data.shape[axis]
        if lengths is None or not dim.is_static:
            return _split_by_runtime_lengths(axis, lengths_info)
        indexes = _variadic_indexes(data.shape.rank, axis, dim.min, _ints(lengths))
    except InputError:
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        return [_fresh(x[index]) for index in indexes]

    return kernel


# ---------------------------------------------------------------------------------------
# Transpose-1
# ---------------------------------------------------------------------------------------


def _check_permutation(order: Sequence[int], rank: int | None, shape: PartialShape) -> None:
    n = len(order)
    valid = all(0 <= a < n for a in order) and sorted(order) == list(range(n))
    if rank is not None and (n != rank or any(a >= rank for a in order)):
        valid = False
    if not valid:
        text = ", ".join(str(a if a >= 0 else a + 2**64) for a in order)
        raise ValidationError(f"Permutation AxisVector{{{text}}} is not valid for input shape {shape}")


def infer_transpose(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, order_info = inputs
    order_shape = order_info.shape
    if order_shape.rank_is_static and order_shape.rank != 1:
        raise ValidationError("Input order must be a vector.")
    _require_integral(order_info, "Input order must have an integral number element type.")
    et = data.element_type
    shape = data.shape
    if shape.rank_is_static:
        n = PartialShape.of((shape.rank,))
        empty = order_shape.is_static and order_shape[0].min == 0
        if not (order_shape.compatible(n) or empty):
            raise ValidationError("Input order must have shape [n], where n is the rank of arg.")
    order = known_ints(order_info)
    if order is None:
        if shape.rank_is_static:
            return [TensorInfo(et, PartialShape((Dimension(),) * shape.rank))]
        return [TensorInfo(et, PartialShape.dynamic())]  # even when the order's length is known
    if not shape.rank_is_static:
        _check_permutation(order, None, shape)
        return [
            TensorInfo(et, PartialShape((Dimension(),) * len(order)) if order else PartialShape.dynamic())
        ]
    if not order:
        order = list(range(shape.rank - 1, -1, -1))
    _check_permutation(order, shape.rank, shape)
    return [TensorInfo(et, PartialShape(tuple(shape[a] for a in order)))]


def evaluate_transpose(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, order_arr = (np.asarray(a) for a in inputs)
    return [_fresh(np.transpose(data, _permutation(_ints(order_arr), data.ndim, data.shape)))]


def _permutation(order: list[int], rank: int, shape: object) -> list[int]:
    if not order:
        order = list(range(rank - 1, -1, -1))
    if sorted(order) != list(range(rank)):
        raise InputError(f"Permutation {order} is not valid for input shape {shape}")
    return order


def bind_transpose(
    attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded permutation of a static-rank input."""
    order_value = folded(inputs[1])
    if order_value is None or not inputs[0].shape.rank_is_static:
        return None
    try:
        order = _permutation(_ints(order_value), inputs[0].shape.rank, inputs[0].shape)
    except InputError:
        return None

    if not order:  # (a 0-d input stays a 0-d array)

        def scalar(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [_fresh(np.transpose(values[0], order))]

        return scalar

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [values[0].transpose(order).copy()]  # (``_fresh`` by the array's own methods)

    return kernel


# ---------------------------------------------------------------------------------------
# Broadcast-1 and Broadcast-3
# ---------------------------------------------------------------------------------------


class BroadcastMode(enum.Enum):
    """``mode``: v1 takes numpy/explicit/pdpd (``none`` is ``explicit``); v3 adds bidirectional."""

    NUMPY = "numpy"
    EXPLICIT = "explicit"
    NONE = "none"
    BIDIRECTIONAL = "bidirectional"
    PDPD = "pdpd"


@dataclass(frozen=True, slots=True)
class BroadcastAttrs:
    mode: BroadcastMode
    version: int


def _parse_broadcast(node: Node, version: int) -> BroadcastAttrs:
    mode = enum_attr(node, "mode", BroadcastMode, BroadcastMode.NUMPY)
    if mode is BroadcastMode.NONE:
        mode = BroadcastMode.EXPLICIT
    if mode is BroadcastMode.BIDIRECTIONAL and version == 1:
        raise ValidationError("Broadcast-1 has no bidirectional mode (it came with Broadcast-3)")
    if mode is BroadcastMode.PDPD:
        raise UnsupportedError(f"{node.describe()}: Broadcast mode 'pdpd' is not supported by ovonehot")
    return BroadcastAttrs(mode, version)


def parse_broadcast_1(node: Node) -> BroadcastAttrs:
    return _parse_broadcast(node, 1)


def parse_broadcast_3(node: Node) -> BroadcastAttrs:
    return _parse_broadcast(node, 3)


def infer_broadcast(attrs: BroadcastAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, target = inputs[0], inputs[1]
    explicit = attrs.mode is BroadcastMode.EXPLICIT
    if attrs.version == 3:
        if explicit and len(inputs) != 3:
            raise ValidationError("axes_mapping input should be provided if explicit mode is used")
        if not explicit and len(inputs) != 2:
            raise ValidationError("axes_mapping input should not be provided for mode other than explicit")
    elif explicit and len(inputs) != 3:
        raise ValidationError("axes_mapping input should be provided if explicit mode is used")
    _require_integral(target, "Broadcast shape must be an integral number, but is:")
    if target.shape.rank_is_static and target.shape.rank != 1:
        raise ValidationError(f"Broadcast shape rank must be 1, but has {target.shape.rank}")
    if explicit:
        axes_info = inputs[2]
        _require_integral(axes_info, "Broadcast axes must be integral numbers, but are:")
        if axes_info.shape.rank_is_static and axes_info.shape.rank != 1:
            raise ValidationError(f"Broadcast axes rank must be 1, but has {axes_info.shape.rank}")
    et = data.element_type
    target_dims = _shape_from_info(target)
    if attrs.mode is BroadcastMode.NUMPY:
        if target_dims is None:
            return [TensorInfo(et, _unknown_target(target))]
        _validate_numpy(data.shape, target_dims)
        return [TensorInfo(et, PartialShape(tuple(target_dims)))]
    if attrs.mode is BroadcastMode.BIDIRECTIONAL:
        if target_dims is None:
            return [TensorInfo(et, _bidirectional_unknown(data.shape, target))]
        return [TensorInfo(et, _bidirectional(data.shape, target_dims))]
    return [TensorInfo(et, _explicit_shape(data, target, inputs[2], target_dims))]


def _bidirectional_unknown(data: PartialShape, target: TensorInfo) -> PartialShape:
    """The bidirectional output shape for a target shape whose values are not known."""
    if not (data.rank_is_static and target.shape.is_static):
        return PartialShape.dynamic()
    out = broadcast_shapes(_unknown_target(target), data, NUMPY)
    if out is None:
        raise ValidationError(
            "Broadcast shape inference failed, output shape calculation with "
            "'broadcast_merge_into' was unsuccessful."
        )
    return out


def _explicit_shape(
    data: TensorInfo, target: TensorInfo, axes_info: TensorInfo, target_dims: list[Dimension] | None
) -> PartialShape:
    """The explicit-mode output shape, ``axes_mapping`` checked against the data and the target."""
    out = PartialShape(tuple(target_dims)) if target_dims is not None else _unknown_target(target)
    if data.shape.rank_is_static and target.shape.rank_is_static and axes_info.shape.is_static:
        n_axes = axes_info.shape[0].min
        input_rank = 1 if data.shape.rank == 0 and n_axes > 0 else data.shape.rank
        if n_axes != input_rank:
            raise ValidationError(
                f"Broadcast axes_mapping shape {axes_info.shape} doesn't match rank of input tensor {input_rank}"
            )
        mapping = known_ints(axes_info)
        if target_dims is not None and mapping is not None:
            _validate_explicit(data.shape, mapping, target_dims)
    return out


def _unknown_target(target: TensorInfo) -> PartialShape:
    if target.shape.is_static and target.shape.rank == 1:
        return PartialShape((Dimension(),) * target.shape[0].min)
    return PartialShape.dynamic()


def _validate_numpy(arg: PartialShape, target: Sequence[Dimension]) -> None:
    if not arg.rank_is_static:
        return
    if len(target) < arg.rank:
        raise ValidationError(
            f"Broadcast target_shape has smaller rank {len(target)} than arg shape {arg.rank}"
        )
    start = len(target) - arg.rank
    for i in range(start, len(target)):
        a, t = arg[i - start], target[i]
        if a.is_dynamic or t.is_dynamic or a.contains(1) or a.compatible(t):
            continue
        allowed = "1" if t.min == 1 else f"1 or {t.min}"
        raise ValidationError(
            f"Input shape dimension equal {a} cannot be broadcasted (numpy mode) to {t}. "
            f"Allowed input dimension value would be {allowed}"
        )


def _validate_explicit(arg: PartialShape, mapping: Sequence[int], target: Sequence[Dimension]) -> None:
    if list(mapping) != sorted(mapping):
        raise ValidationError(
            f"Broadcast doesn't permit transposes. axes_mapping {list(mapping)} not in sorted order"
        )
    if (
        arg.rank == 0
        and mapping
        and (not 0 <= mapping[0] < len(target) or not target[mapping[0]].contains(1))
    ):
        t = target[mapping[0]] if 0 <= mapping[0] < len(target) else "?"
        raise ValidationError(f"Broadcast target[axes_mapping[0]]. Expected 1. Got {t}")
    for i, axis in enumerate(mapping):
        if not 0 <= axis < len(target):
            raise ValidationError(f"Broadcast axes_mapping[{i}]: {axis} exceeds target rank {len(target)}")
        if arg.rank > 0:
            a = arg[i]
            if not (target[axis].compatible(a) or a.contains(1)):
                raise ValidationError(f"Broadcast target[axes_mapping[{i}]] Expected {a}. Got {target[axis]}")


def _bidirectional(arg: PartialShape, target: Sequence[Dimension]) -> PartialShape:
    if arg.dims is None:
        return PartialShape.dynamic()
    a, t = list(arg.dims), list(target)
    one = Dimension.static(1)
    if len(a) < len(t):
        a = [one] * (len(t) - len(a)) + a
    else:
        t = [one] * (len(a) - len(t)) + t
    dims = []
    for x, y in zip(a, t, strict=True):
        d = broadcast_merge_dim(x, y)
        if d is None:
            raise ValidationError(f"Broadcast incorrect target shape. Expecting either 1 or {x}. Got {y}")
        dims.append(d)
    return PartialShape(tuple(dims))


def evaluate_broadcast(attrs: BroadcastAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    target = _ints(np.asarray(inputs[1]))
    if any(v < 0 for v in target):
        raise InputError(f"Broadcast target shape {target} holds a negative value")
    try:
        if attrs.mode is BroadcastMode.NUMPY:
            out = np.broadcast_to(data, tuple(target))
        elif attrs.mode is BroadcastMode.BIDIRECTIONAL:
            out = np.broadcast_to(data, np.broadcast_shapes(data.shape, tuple(target)))
        else:
            mapping = _ints(np.asarray(inputs[2]))
            shape = [1] * len(target)
            if data.ndim:
                if len(mapping) != data.ndim or any(not 0 <= a < len(target) for a in mapping):
                    raise InputError(f"Broadcast axes_mapping {mapping} does not fit data {list(data.shape)}")
                for dim, axis in zip(data.shape, mapping, strict=True):
                    shape[axis] = dim
            out = np.broadcast_to(data.reshape(shape), tuple(target))
    except ValueError:
        raise InputError(
            f"cannot broadcast data of shape {list(data.shape)} to target shape {target} ({attrs.mode.value} mode)"
        ) from None
    return [_fresh(out)]


# ---------------------------------------------------------------------------------------
# Tile-0
# ---------------------------------------------------------------------------------------


def infer_tile(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, repeats_info = inputs
    if repeats_info.shape.rank_is_static and repeats_info.shape.rank != 1:
        raise ValidationError("Tile repeats must be of rank 1")
    _require_integral(repeats_info, "Tile repeats must have any integer element type, but has")
    et = data.element_type
    repeats = _shape_from_info(repeats_info, clamp_negative=True)
    arg = data.shape
    if arg.rank_is_static and repeats is not None:
        rank = max(arg.rank, len(repeats))
        reps = [Dimension.static(1)] * (rank - len(repeats)) + repeats
        dims = [Dimension.static(1)] * (rank - arg.rank) + list(arg)
        out = [reps[i] if i < rank - arg.rank else mul(dims[i], reps[i]) for i in range(rank)]
        return [TensorInfo(et, PartialShape(tuple(out)))]
    rshape = repeats_info.shape
    if arg.rank_is_static and rshape.rank_is_static and rshape[0].is_static:
        return [TensorInfo(et, PartialShape((Dimension(),) * max(arg.rank, rshape[0].min)))]
    return [TensorInfo(et, PartialShape.dynamic())]


def evaluate_tile(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, repeats_arr = (np.asarray(a) for a in inputs)
    repeats = [max(v, 0) for v in _ints(repeats_arr)]
    # Repeats past int64 leave the inferred shape dynamic, so evaluate could not check it:
    # checked here, in Python ints (NumPy's own tile fails with "array is too big" otherwise).
    rank = max(data.ndim, len(repeats))
    dims = [1] * (rank - data.ndim) + list(data.shape)
    reps = [1] * (rank - len(repeats)) + repeats
    check_allocation(
        tuple(d * r for d, r in zip(dims, reps, strict=True)), data.dtype.itemsize, "the Tile output"
    )
    return [_fresh(np.tile(data, repeats) if repeats else data.copy())]


# ---------------------------------------------------------------------------------------
# Slice-8
# ---------------------------------------------------------------------------------------

_SLICE_NAMES = ("start", "stop", "step", "axes")


def infer_slice(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    et = data.element_type
    if not data.shape.rank_is_static:
        return [TensorInfo(et, PartialShape.dynamic())]
    rank = data.shape.rank
    if rank == 0:
        raise ValidationError("Slice `data` input can't be a scalar.")
    _check_slice_inputs(inputs, rank)
    start = input_bounds(inputs[1])
    stop = input_bounds(inputs[2])
    steps = known_ints(inputs[3])
    axes_map = _slice_axes(inputs, rank, start)
    out = []
    for k, d in enumerate(data.shape):
        if axes_map is None:
            out.append(_any_slice(d))
        elif k in axes_map:
            i = axes_map[k]
            if start is not None and stop is not None and steps is not None:
                if i >= len(steps) or i >= len(start) or i >= len(stop):
                    raise ValidationError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
                if steps[i] == 0:
                    raise ValidationError("Step must be non-zero")
                out.append(make_dim(d, start[i], stop[i], steps[i]))
            else:
                out.append(_any_slice(d))
        else:
            out.append(d)
    return [TensorInfo(et, PartialShape(tuple(out)))]


def _check_slice_inputs(inputs: Sequence[TensorInfo], rank: int) -> None:
    """start, stop, step (and axes): integral, 1-D, no longer than the data's rank, compatible."""
    for name, info in zip(_SLICE_NAMES, inputs[1:], strict=False):
        _require_integral(info, f"Slice `{name}` input type must be integer.")
        s = info.shape
        if s.rank_is_static and s.rank != 1:
            raise ValidationError(f"Slice `{name}` input must be a 1D tensor. Got rank: {s.rank}")
        if s.rank_is_static and s[0].min > rank:
            raise ValidationError(f"Slice `{name}` input dim size can't be bigger than `data` rank.")
    start_s, stop_s, step_s = (i.shape for i in inputs[1:4])
    if not (start_s.compatible(stop_s) and start_s.compatible(step_s) and stop_s.compatible(step_s)):
        raise ValidationError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")


def _slice_axes(
    inputs: Sequence[TensorInfo], rank: int, start: Sequence[tuple[int, int]] | None
) -> dict[int, int] | None:
    """Each sliced data axis -> its position in start/stop/step; None when the axes are not known."""
    if len(inputs) <= 4:
        return None if start is None else {i: i for i in range(len(start))}
    if not inputs[4].shape.compatible(inputs[1].shape):
        raise ValidationError(
            "Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs."
        )
    axes = known_ints(inputs[4])
    if axes is None:
        return None
    normalized = [normalize_axis(a, rank) for a in axes]
    if len(set(normalized)) != len(normalized):
        raise ValidationError("Slice values in `axes` input must be unique.")
    return {a: i for i, a in enumerate(normalized)}


def _any_slice(d: Dimension) -> Dimension:
    return Dimension(0, d.max)


def evaluate_slice(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    return [_fresh(data[_slice_index(data.ndim, [_ints(np.asarray(a)) for a in inputs[1:]])])]


def _slice_index(rank: int, params: list[list[int]]) -> tuple[slice, ...]:
    """Slice-8's index of a rank-``rank`` input from its start, stop, step (and axes) values."""
    start, stop, step = params[:3]
    if not len(start) == len(stop) == len(step):
        raise InputError(f"Slice start {start}, stop {stop} and step {step} differ in length")
    if len(params) > 3:
        try:
            axes = [normalize_axis(a, rank) for a in params[3]]
        except ValidationError as exc:
            raise InputError(str(exc)) from None
        if len(axes) != len(start) or len(set(axes)) != len(axes):
            raise InputError(f"Slice axes {axes} must be unique and match start/stop/step")
    else:
        axes = list(range(len(start)))
    if len(axes) > rank:
        raise InputError(f"Slice has {len(axes)} axes for data of rank {rank}")
    index = [slice(None)] * rank
    for a, lo, hi, st in zip(axes, start, stop, step, strict=True):
        if st == 0:
            raise InputError("Step must be non-zero")
        # Python's slice clamps and wraps exactly as OpenVINO's Slice-8 does.
        index[a] = slice(lo, hi, st)
    return tuple(index)


def bind_slice(attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
    """Folded start, stop, step (and axes) of a static-rank input: the index, made once."""
    params = [folded(t) for t in inputs[1:]]
    if not inputs[0].shape.rank_is_static or any(v is None for v in params):
        return None
    try:
        index = _slice_index(inputs[0].shape.rank, [_ints(v) for v in params if v is not None])
    except InputError:
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [_fresh(values[0][index])]

    return kernel


def _broadcast_pair(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes(a, b)`` for two shapes, a few times faster (ValueError alike)."""
    if len(a) < len(b):
        a = (1,) * (len(b) - len(a)) + a
    elif len(b) < len(a):
        b = (1,) * (len(a) - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        if x != y and x != 1 and y != 1:
            raise ValueError("shapes do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def bind_broadcast(
    attrs: BroadcastAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded target shape in numpy or bidirectional mode (NumPy refuses what does not
    broadcast, and the kernel words it)."""
    target_value = folded(inputs[1])
    if target_value is None or attrs.mode not in (BroadcastMode.NUMPY, BroadcastMode.BIDIRECTIONAL):
        return None
    target = tuple(_ints(target_value))
    if any(v < 0 for v in target):
        return None
    settled = (
        attrs.mode is BroadcastMode.BIDIRECTIONAL and inputs[0].shape.is_static and outputs[0].shape.is_static
    )
    if settled:  # the data's static shape and the target, broadcast once: the output's shape
        target = outputs[0].shape.to_shape()
    if attrs.mode is BroadcastMode.NUMPY or settled:

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            x = values[0]
            out = np.empty(target, dtype=x.dtype)  # (copyto broadcasts as broadcast_to, 4x faster)
            np.copyto(out, x)
            return [out]

        return kernel

    def bidirectional(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        out = np.empty(_broadcast_pair(x.shape, target), dtype=x.dtype)
        np.copyto(out, x)
        return [out]

    return bidirectional


SPECS = (
    OpSpec(
        type="Split",
        version=1,
        since=1,
        inputs=2,
        parse=parse_split,
        infer=infer_split,
        evaluate=evaluate_split,
        specialize=mode_independent(bind_split),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
    ),
    OpSpec(
        type="VariadicSplit",
        version=1,
        since=1,
        inputs=3,
        parse=parse_variadic_split,
        infer=infer_variadic_split,
        evaluate=evaluate_variadic_split,
        specialize=mode_independent(bind_variadic_split),
        bounds=kernel_bounds(exact=(1, 2)),
        copies_values=True,
    ),
    OpSpec(
        type="Transpose",
        version=1,
        since=1,
        inputs=2,
        parse=parse_no_attrs,
        infer=infer_transpose,
        evaluate=evaluate_transpose,
        specialize=mode_independent(bind_transpose),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="Broadcast",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_broadcast_1,
        infer=infer_broadcast,
        evaluate=evaluate_broadcast,
        specialize=mode_independent(bind_broadcast),
        bounds=kernel_bounds(exact=(1, 2)),
        copies_values=True,
    ),
    OpSpec(
        type="Broadcast",
        version=3,
        since=3,
        inputs=(2, 3),
        parse=parse_broadcast_3,
        infer=infer_broadcast,
        evaluate=evaluate_broadcast,
        specialize=mode_independent(bind_broadcast),
        bounds=kernel_bounds(exact=(1, 2)),
        copies_values=True,
    ),
    OpSpec(
        type="Tile",
        version=0,
        since=1,
        inputs=2,
        parse=parse_no_attrs,
        infer=infer_tile,
        evaluate=evaluate_tile,
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
    ),
    OpSpec(
        type="Slice",
        version=8,
        since=8,
        inputs=(4, 5),
        parse=parse_no_attrs,
        infer=infer_slice,
        evaluate=evaluate_slice,
        specialize=mode_independent(bind_slice),
        bounds=kernel_bounds(exact=(1, 2, 3, 4)),
        copies_values=True,
    ),
)
