"""Shape-manipulating ops: ShapeOf, Gather, Squeeze, Unsqueeze, Concat, Reshape, StridedSlice.

Shape rules follow OpenVINO's ``src/core/shape_inference/include/*_shape_inference.hpp``
(restated, not copied); the kernels follow ``Node::evaluate`` of OpenVINO 2026.4.
Where a rule needs the *value* of an input (Gather's axis, Squeeze's axes, Reshape's
pattern, StridedSlice's begin/end/strides) it reads ``TensorInfo.value``, or its
``lower``/``upper`` bounds where OpenVINO reads bounds (Reshape, StridedSlice).

Quirks kept on purpose (each checked against the wheel):

* Squeeze with an axis pointing at a dimension that cannot be 1 ignores that axis;
  Squeeze-15 with ``allow_axis_skip`` gives a dynamic rank when a selected dimension
  may or may not be 1;
* Gather of every version wraps negative indices (``-1`` is the last) and gives 0 for
  indices still out of range;
* Unsqueeze refuses empty axes; repeated axes count once;
* Reshape's ``-1`` and interval patterns follow OpenVINO's product rule exactly, so
  ``[2..6,3]`` reshaped to ``[-1]`` is ``[6..18]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, bool_attr, element_type_attr, int_attr, ints_attr, parse_no_attrs
from .common.binding import dtype_of, folded, mode_independent
from .common.bounds import FLOATS, WIDE_INTEGERS, kernel_bounds, shape_of_bounds, strided_slice_bounds
from .common.shape_util import (
    INT64_MAX,
    add,
    axis_error,
    dim_from_bounds,
    input_bounds,
    inverted_dimension,
    known_ints,
    mul,
    normalize_axes,
    normalize_axis,
    passes_integral_number_check,
)
from .common.slicing import SliceMasks, apply_slice_plan, make_slice_plan, strided_slice_dim
from .common.spec import Kernel, OpSpec, TensorInfo


def _static(shape: Sequence[int]) -> PartialShape:
    return PartialShape.of(shape)


def _out_shape(info: TensorInfo) -> tuple[int, ...]:
    """The static output shape a kernel computed through its own shape rule."""
    if not info.shape.is_static:
        raise InputError(f"cannot compute a static output shape, got {info.shape}")
    return info.shape.to_shape()


# =========================================================================================
# ShapeOf-1, ShapeOf-3
# =========================================================================================
@dataclass(frozen=True, slots=True)
class ShapeOfAttrs:
    output_type: ElementType = ElementType.i64


def parse_shape_of_1(node: Node) -> ShapeOfAttrs:
    return ShapeOfAttrs()


def parse_shape_of_3(node: Node) -> ShapeOfAttrs:
    return ShapeOfAttrs(element_type_attr(node, "output_type", ElementType.i64))


def infer_shape_of(attrs: ShapeOfAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"Output type must be i32 or i64. Got {attrs.output_type}.")
    dim = Dimension.static(x.shape.rank) if x.shape.rank_is_static else Dimension()
    return [TensorInfo(attrs.output_type, PartialShape((dim,)))]


def evaluate_shape_of(attrs: ShapeOfAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    with np.errstate(over="ignore"):
        return [np.array(np.shape(x), dtype=np.int64).astype(attrs.output_type.numpy_dtype)]


def bind_shape_of(
    attrs: ShapeOfAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """ShapeOf of a shape the signature leaves open (a static one folds): i32/i64 out."""
    dtype = attrs.output_type.numpy_dtype
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(values[0].shape, dtype=np.int64).astype(dtype)]

    return kernel


# =========================================================================================
# Gather-1, Gather-7, Gather-8
# =========================================================================================
@dataclass(frozen=True, slots=True)
class GatherAttrs:
    batch_dims: int = 0
    check_types: bool = False  # Gather-7/8 require integral indices and axis


def parse_gather_1(node: Node) -> GatherAttrs:
    return GatherAttrs()


def parse_gather_7(node: Node) -> GatherAttrs:
    return GatherAttrs(int_attr(node, "batch_dims", 0), check_types=True)


def infer_gather(attrs: GatherAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, indices, axis_in = inputs
    if attrs.check_types:
        if not passes_integral_number_check(indices.element_type):
            raise ValidationError("Indices element type must be of an integral number type.")
        if not passes_integral_number_check(axis_in.element_type):
            raise ValidationError("Axis element type must be of an integral number type.")
    return [TensorInfo(data.element_type, gather_shape(attrs, data.shape, indices.shape, axis_in))]


def _gather_axis(axis_in: TensorInfo, data: PartialShape, batch_dims: int) -> int | None:
    """The axis when known (normalized when the data's rank is), checked against ``batch_dims``."""
    axis_values = known_ints(axis_in)
    if not axis_values:
        return None
    axis = axis_values[0]
    if data.rank_is_static:
        axis = normalize_axis(axis, data.rank)
    if not (batch_dims <= axis or batch_dims < 0 or axis < 0):
        raise ValidationError(
            "After normalization batch_dims must be <= axis. But instead got: "
            f"batch_dims = {batch_dims}, axis = {axis}"
        )
    return axis


def gather_shape(
    attrs: GatherAttrs, data: PartialShape, indices: PartialShape, axis_in: TensorInfo
) -> PartialShape:
    axis_shape = axis_in.shape
    if axis_shape.is_static:
        dims = axis_shape.to_shape()
        if not (len(dims) == 0 or dims == (1,)):
            raise ValidationError(
                f"Axis input must be scalar or have 1 element. But instead got axis_shape = {axis_shape}"
            )
    batch_dims = attrs.batch_dims
    if batch_dims < 0 and indices.rank_is_static:
        batch_dims += indices.rank
    axis = _gather_axis(axis_in, data, batch_dims)
    if indices.rank_is_static and batch_dims >= 0 and batch_dims > indices.rank:
        raise ValidationError(
            f"The batch_dims must be <= indices_rank. But instead got: batch_dims = {batch_dims}, "
            f"indices_rank = {indices.rank}"
        )
    if not (data.rank_is_static and indices.rank_is_static):
        return PartialShape.dynamic()
    out_rank = data.rank + indices.rank - 1 - batch_dims
    if (
        out_rank < 0
        or batch_dims > min(data.rank, out_rank)
        or (axis is not None and (batch_dims < 0 or data.rank == 0))
    ):
        raise ValidationError(
            f"batch_dims {batch_dims} does not fit data {data} and indices {indices} (OpenVINO fails too)"
        )
    out: list[Dimension] = [Dimension()] * out_rank
    for i in range(batch_dims):
        m = data[i].merge(indices[i])
        if m is None:
            raise ValidationError(
                f"Shapes {data} and {indices} are not consistent. data and indices must have equal or "
                "intersecting sizes until batch_dims"
            )
        out[i] = m
    if axis is not None:
        if axis < 0:  # only reachable with a dynamic data rank, excluded above
            raise axis_error(axis, data.rank)
        tail = list(data)[batch_dims:axis] + list(indices)[batch_dims:] + list(data)[axis + 1 :]
        out[batch_dims:] = tail
    return PartialShape(tuple(out))


def evaluate_gather(attrs: GatherAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, indices, axis_arr = (np.asarray(a) for a in inputs)
    if data.ndim == 0:
        raise InputError("Gather data must have rank >= 1, got a scalar")
    axis = normalize_axis(int(axis_arr.reshape(-1)[0]), data.ndim)
    b = attrs.batch_dims + indices.ndim if attrs.batch_dims < 0 else attrs.batch_dims
    if not 0 <= b <= min(axis, indices.ndim):
        raise InputError(
            f"batch_dims {attrs.batch_dims} does not fit axis {axis} and indices rank {indices.ndim}"
        )
    if data.shape[:b] != indices.shape[:b]:
        raise InputError(
            f"data {list(data.shape)} and indices {list(indices.shape)} differ in the batch dims"
        )
    size = data.shape[axis]
    if b == 0 and size:  # the usual case: every index in [-size, size), as np.take reads them
        flat = indices.astype(np.int64, copy=False)
        if not flat.size or (int(flat.min()) >= -size and int(flat.max()) < size):
            # A 0-d result comes as a scalar: give it back its array type (a str scalar would
            # otherwise become a '<U' array, not the object array ovonehot holds strings in).
            return [np.asarray(np.take(data, flat, axis=axis), dtype=data.dtype)]
    batch = math.prod(data.shape[:b])
    outer_shape, inner_shape = data.shape[b:axis], data.shape[axis + 1 :]
    d = data.reshape(batch, math.prod(outer_shape), size, math.prod(inner_shape))
    idx = indices.reshape(batch, math.prod(indices.shape[b:])).astype(np.int64)
    idx = np.where(idx < 0, idx + size, idx)
    valid = (idx >= 0) & (idx < size)
    safe = np.where(valid, idx, 0)
    if size == 0:
        empty = "" if data.dtype == object else 0
        picked = np.full((batch, idx.shape[1], d.shape[1], d.shape[3]), empty, dtype=data.dtype)
    else:
        picked = d[np.arange(batch)[:, None], :, safe]  # (batch, k, outer, inner)
    picked = picked.copy()
    picked[~valid] = "" if data.dtype == object else 0
    out = picked.transpose(0, 2, 1, 3)
    shape = data.shape[:b] + outer_shape + indices.shape[b:] + inner_shape
    return [np.ascontiguousarray(out).reshape(shape)]


# =========================================================================================
# Squeeze-0 (opset1), Squeeze-15
# =========================================================================================
@dataclass(frozen=True, slots=True)
class SqueezeAttrs:
    version: int = 0
    allow_axis_skip: bool = False


def parse_squeeze_0(node: Node) -> SqueezeAttrs:
    return SqueezeAttrs()


def parse_squeeze_15(node: Node) -> SqueezeAttrs:
    return SqueezeAttrs(15, bool_attr(node, "allow_axis_skip", False))


def infer_squeeze(attrs: SqueezeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return [TensorInfo(inputs[0].element_type, squeeze_shape(attrs, inputs))]


def _maybe_one(d: Dimension) -> bool:
    return d.contains(1)


def squeeze_shape(attrs: SqueezeAttrs, inputs: Sequence[TensorInfo]) -> PartialShape:
    arg = inputs[0].shape
    axes: set[int] | None = None
    if len(inputs) == 1:
        axes = set()
    else:
        axes_shape = inputs[1].shape
        if axes_shape.is_static and axes_shape.rank > 1:
            raise ValidationError(
                f"Second input (axes) should not be of rank higher than 1. Got: {axes_shape.rank}"
            )
        if arg.rank_is_static and axes_shape.is_static:
            values = known_ints(inputs[1])
            if values is not None:
                axes = set(normalize_axes(values, arg.rank))
            elif arg.rank > 0 and math.prod(axes_shape.to_shape()) == 1:
                # one unknown axis: OpenVINO guesses the rank (v0) or gives up on it (v15)
                if any(_maybe_one(d) for d in arg):
                    return (
                        PartialShape.dynamic()
                        if attrs.version >= 15
                        else PartialShape((Dimension(),) * (arg.rank - 1))
                    )
                return arg
    if not arg.rank_is_static or axes is None:
        return PartialShape.dynamic()
    if attrs.allow_axis_skip and any(d.is_dynamic and _maybe_one(d) and i in axes for i, d in enumerate(arg)):
        return PartialShape.dynamic()
    if not axes:
        if any(d.is_dynamic and _maybe_one(d) for d in arg):
            return PartialShape.dynamic()
        return PartialShape(tuple(d for d in arg if not _maybe_one(d)))
    # an axis pointing at a dimension that cannot be 1 is ignored
    return PartialShape(tuple(d for i, d in enumerate(arg) if i not in axes or not _maybe_one(d)))


def evaluate_squeeze(attrs: SqueezeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    simple = _simple_squeeze(x.shape, np.asarray(inputs[1]) if len(inputs) > 1 else None)
    if simple is not None:
        return [x.reshape(simple)]
    infos = [TensorInfo(ElementType.f32, _static(x.shape))]
    if len(inputs) > 1:
        axes = np.asarray(inputs[1])
        infos.append(TensorInfo(ElementType.i64, _static(axes.shape), value=axes))
    return [x.reshape(_out_shape(TensorInfo(ElementType.f32, squeeze_shape(attrs, infos))))]


def _simple_squeeze(shape: tuple[int, ...], axes: np.ndarray | None) -> tuple[int, ...] | None:
    """What ``squeeze_shape`` gives for static shapes and integer axes in range, without
    partial shapes; None for anything else (the full rule decides and words the error)."""
    if axes is not None:
        if axes.ndim > 1 or axes.dtype.kind not in "iu":
            return None
        picked = _in_range(axes.reshape(-1).tolist(), len(shape))
        if picked is None:
            return None
        if picked:  # an axis at a dimension that is not 1 is ignored
            return tuple(d for i, d in enumerate(shape) if d != 1 or i not in picked)
    return tuple(d for d in shape if d != 1)  # no axes (or none given): every 1


def _in_range(values: Sequence[int], rank: int) -> set[int] | None:
    """``values`` as axes of a rank-``rank`` shape, or None when one is out of range."""
    if any(not -rank <= v < rank for v in values):
        return None
    return {v + rank if v < 0 else v for v in values}


# =========================================================================================
# Unsqueeze-0
# =========================================================================================
def infer_unsqueeze(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    return [TensorInfo(inputs[0].element_type, unsqueeze_shape(inputs[0].shape, inputs[1]))]


def unsqueeze_shape(arg: PartialShape, axes_info: TensorInfo) -> PartialShape:
    if axes_info.shape.rank_is_static and axes_info.shape.rank > 1:
        raise ValidationError(
            f"Second input (axes) should not be of rank higher than 1. Got: {axes_info.shape.rank}"
        )
    values = known_ints(axes_info)
    if values is None or not arg.rank_is_static:
        return PartialShape.dynamic()
    if not values:
        raise ValidationError("'axes' input is mandatory")
    unique = set(values)
    axes = sorted(set(normalize_axes(sorted(unique), arg.rank + len(unique))))
    out = list(arg)
    for axis in axes:
        if axis <= len(out):
            out.insert(axis, Dimension.static(1))
        else:  # repeated axes after normalization: OpenVINO appends
            out.append(Dimension.static(1))
    return PartialShape(tuple(out))


def evaluate_unsqueeze(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axes = (np.asarray(a) for a in inputs)
    if axes.ndim <= 1 and axes.dtype.kind in "iu" and axes.size:  # the usual case, as unsqueeze_shape
        values = set(axes.reshape(-1).tolist())
        picked = _in_range(list(values), x.ndim + len(values))
        if picked is not None:
            out = list(x.shape)
            for axis in sorted(picked):
                out.insert(min(axis, len(out)), 1)
            return [x.reshape(out)]
    shape = unsqueeze_shape(_static(x.shape), TensorInfo(ElementType.i64, _static(axes.shape), value=axes))
    return [x.reshape(_out_shape(TensorInfo(ElementType.f32, shape)))]


# =========================================================================================
# Concat-0
# =========================================================================================
@dataclass(frozen=True, slots=True)
class ConcatAttrs:
    axis: int


def parse_concat(node: Node) -> ConcatAttrs:
    return ConcatAttrs(int_attr(node, "axis"))


def infer_concat(attrs: ConcatAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if not inputs:
        raise ValidationError("At least one argument required.")
    et = inputs[0].element_type
    for info in inputs[1:]:
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError("Argument element types are inconsistent.")
        et = merged
    return [TensorInfo(et, concat_shape(attrs.axis, [i.shape for i in inputs]))]


def concat_shape(axis: int, shapes: Sequence[PartialShape]) -> PartialShape:
    out = PartialShape.dynamic()
    concat_dim = Dimension.static(0)
    norm = axis
    for shape in shapes:
        if not shape.rank_is_static:
            concat_dim = add(concat_dim, Dimension())
            continue
        norm = normalize_axis(axis, shape.rank)
        if shape.rank == 0:
            raise ValidationError("Concat inputs must have rank >= 1, got a scalar")
        concat_dim = add(concat_dim, shape[norm])
        rest = list(shape)
        rest[norm] = Dimension()
        merged = out.merge(PartialShape(tuple(rest)))
        if merged is None:
            raise ValidationError(
                "Argument shapes are inconsistent; they must have the same rank, and must have equal "
                f"dimension everywhere except on the concatenation axis (axis {norm})."
            )
        out = merged
    if out.dims is None:
        return out
    dims = list(out.dims)
    dims[norm] = concat_dim
    return PartialShape(tuple(dims))


def evaluate_concat(attrs: ConcatAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in inputs]
    rank = arrays[0].ndim
    if rank and -rank <= attrs.axis < rank:  # the usual case: equal ranks, equal dims off the axis
        axis = attrs.axis % rank
        outside = arrays[0].shape[:axis], arrays[0].shape[axis + 1 :]
        if all(a.ndim == rank and (a.shape[:axis], a.shape[axis + 1 :]) == outside for a in arrays):
            return [np.concatenate(arrays, axis=axis)]
    shape = concat_shape(attrs.axis, [_static(a.shape) for a in arrays])
    axis = normalize_axis(attrs.axis, arrays[0].ndim)
    out = np.concatenate(arrays, axis=axis)
    if out.shape != _out_shape(TensorInfo(ElementType.f32, shape)):
        raise InputError(f"Concat inputs {[list(a.shape) for a in arrays]} do not fit together")
    return [out]


# =========================================================================================
# Reshape-1
# =========================================================================================
@dataclass(frozen=True, slots=True)
class ReshapeAttrs:
    special_zero: bool


def parse_reshape(node: Node) -> ReshapeAttrs:
    return ReshapeAttrs(bool_attr(node, "special_zero"))


def infer_reshape(attrs: ReshapeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, pattern = inputs
    if not passes_integral_number_check(pattern.element_type):
        raise ValidationError("PartialShape pattern must be an integral number.")
    return [TensorInfo(data.element_type, reshape_shape(attrs, data.shape, pattern))]


class _Product:
    """OpenVINO's ``reshape::Product<Dimension>``: static and dynamic parts of both products.

    Equal static dims of input and pattern cancel out before multiplying (there are
    no symbols in a freshly read IR, so only static dims can cancel).
    """

    def __init__(self) -> None:
        self.inputs: list[Dimension] = []
        self.outputs: list[Dimension] = []
        self.in_static = self.out_static = Dimension.static(1)
        self.in_dynamic = self.out_dynamic = Dimension.static(1)

    def set_inf(self) -> None:
        self.in_dynamic = self.out_dynamic = Dimension()

    def calculate(self) -> None:
        outs = list(self.outputs)
        for d in self.inputs:
            match = next((k for k, o in enumerate(outs) if d.is_static and o == d and d.min != 0), None)
            if match is None:
                self._mul_in(d)
            else:
                del outs[match]
        for o in outs:
            self._mul_out(o)
        if self.in_static != self.out_static:
            self.in_dynamic = mul(self.in_dynamic, self.in_static)
            self.out_dynamic = mul(self.out_dynamic, self.out_static)

    def _mul_in(self, d: Dimension) -> None:
        if d.is_static:
            self.in_static = mul(d, self.in_static)
        else:
            self.in_dynamic = mul(d, self.in_dynamic)

    def _mul_out(self, d: Dimension) -> None:
        if d.is_static:
            self.out_static = mul(d, self.out_static)
        else:
            self.out_dynamic = mul(d, self.out_dynamic)


def _divide(d: Dimension, divisor: int) -> Dimension | None:
    """``Dimension::operator/``: ceil of the minimum, floor of the maximum; None when empty."""
    if divisor == 1:
        return d
    if d.max is None and d.min == 0:
        return Dimension()
    if divisor == 0:
        return None
    lo = -(-d.min // divisor)
    hi = None if d.max is None else d.max // divisor
    if hi is not None and hi < lo:
        return None
    return Dimension(lo, hi)


def _resolve_minus_one(p: _Product) -> Dimension | None:
    """``reshape::resolve_minus_one_dim``; None when the interval comes out empty."""
    dim, out = p.in_dynamic, p.out_dynamic
    if dim.is_static and out.is_static:
        return _divide(dim, out.min)
    lo, hi = dim.min, dim.max
    hi = hi // out.min if hi is not None and out.min != 0 else None
    if out.max != 0:  # an unbounded maximum counts as int64 max
        divisor = INT64_MAX if out.max is None else out.max
        lo = 0 if lo == 0 else 1 + (lo - 1) // divisor
    if hi is not None and hi < lo:
        return inverted_dimension(lo, hi)  # OpenVINO keeps such an interval (see there)
    return Dimension(lo, hi)


def _pattern_dims(bounds: Sequence[tuple[int, int]]) -> tuple[list[Dimension], int | None]:
    dims: list[Dimension] = []
    minus_one: int | None = None
    for i, (lo, hi) in enumerate(bounds):
        if (lo, hi) == (-1, -1):
            if minus_one is not None:
                raise ValidationError("More than one dimension has size of -1")
            minus_one = i
        if (lo, hi) >= (-1, -1):
            dims.append(dim_from_bounds(lo, hi))
        elif (lo < 0) != (hi < 0):
            dims.append(Dimension())
        else:
            raise ValidationError(f"Output pattern dim[{i}] has invalid bounds: {lo},{hi}")
    return dims, minus_one


def _is_zero(d: Dimension) -> bool:
    return d.is_static and d.min == 0


def reshape_shape(attrs: ReshapeAttrs, data: PartialShape, pattern: TensorInfo) -> PartialShape:
    pshape = pattern.shape
    if not (not pshape.rank_is_static or pshape.rank == 1):
        raise ValidationError(f"Pattern shape must have rank 1, got {pshape}")
    bounds = input_bounds(pattern)
    if bounds is None:
        if pshape.rank_is_static:
            n = pshape[0]
            if n.is_static:
                return PartialShape((Dimension(),) * n.min)
        return PartialShape.dynamic()
    target, minus_one = _pattern_dims(bounds)
    special_zero = attrs.special_zero
    product = _Product()
    out = _reshape_dims(data, target, minus_one, special_zero, product)
    product.calculate()
    if minus_one is not None:
        out[minus_one] = _minus_one_dim(product)
    result = PartialShape(tuple(out))
    if data.is_static and result.is_static:
        zero_dims = any(_is_zero(d) for d in target)
        if (
            not ((zero_dims and special_zero) or minus_one is not None)
            and product.in_static != product.out_static
        ):
            raise ValidationError(f"Requested output shape {result} is incompatible with input shape {data}")
    return result


def _reshape_dims(
    data: PartialShape, target: list[Dimension], minus_one: int | None, special_zero: bool, product: _Product
) -> list[Dimension]:
    """The output dims before the -1 is resolved (a copied zero takes the data's dim), each
    noted in ``product`` on its side."""
    out: list[Dimension] = []
    if not data.rank_is_static:
        for d in target:
            if special_zero and _is_zero(d):
                out.append(Dimension())
                product.set_inf()
            else:
                out.append(d)
                product.outputs.append(d)
        return out
    in_dims = list(data)
    for i, d in enumerate(target):
        ignore = special_zero and _is_zero(d)
        if i == minus_one:
            out.append(Dimension())
        elif ignore:
            if i >= len(in_dims):
                raise ValidationError("'0' dimension is out of range")
            out.append(in_dims[i])
        else:
            out.append(d)
            product.outputs.append(d)
        if i < len(in_dims) and not ignore:
            product.inputs.append(in_dims[i])
    product.inputs.extend(in_dims[len(target) :])
    return out


def _minus_one_dim(product: _Product) -> Dimension:
    """The dim a -1 stands for, from the calculated ``product``, or OpenVINO's error."""
    resolved = _resolve_minus_one(product)
    if product.out_static.is_static and product.out_static.min == 0:
        if not (product.in_static.is_static and product.in_static.min == 0):
            raise ValidationError(
                "Cannot infer '-1' dimension with zero-size output dimension unless at least one input "
                "dimension is also zero-size"
            )
    elif resolved is None:
        raise ValidationError("Non-'-1' output dimensions do not evenly divide the input dimensions")
    return resolved if resolved is not None else Dimension()


def evaluate_reshape(attrs: ReshapeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, pattern = (np.asarray(a) for a in inputs)
    simple = _simple_reshape(x.shape, pattern, attrs.special_zero)
    if simple is not None:
        return [x.reshape(simple)]
    info = TensorInfo(ElementType.from_numpy(pattern.dtype), _static(pattern.shape), value=pattern)
    shape = _out_shape(TensorInfo(ElementType.f32, reshape_shape(attrs, _static(x.shape), info)))
    if math.prod(shape) != x.size:
        raise InputError(f"cannot reshape {list(x.shape)} to {list(shape)}")
    return [x.reshape(shape)]


def _simple_reshape(
    shape: tuple[int, ...], pattern: np.ndarray, special_zero: bool
) -> tuple[int, ...] | None:
    """The output shape of the usual valid Reshape (positive dims, at most one -1, zeros copied
    under ``special_zero``, no empty dim), what ``reshape_shape`` gives for it, without building
    partial shapes; None for anything else (the full rule decides and words the error)."""
    if pattern.ndim != 1 or pattern.dtype.kind not in "iu":
        return None
    out = pattern.tolist()
    minus_one = -1
    known = 1
    for i, v in enumerate(out):
        if v == -1:
            if minus_one >= 0:
                return None
            minus_one = i
            continue
        if v == 0 and special_zero and i < len(shape):
            v = out[i] = shape[i]
        if v <= 0:
            return None
        known *= v
    size = math.prod(shape)
    if minus_one >= 0:
        if size % known:
            return None
        out[minus_one] = size // known
    elif known != size:
        return None
    return tuple(out)


# =========================================================================================
# StridedSlice-1
# =========================================================================================
@dataclass(frozen=True, slots=True)
class StridedSliceAttrs:
    begin_mask: tuple[int, ...]
    end_mask: tuple[int, ...]
    new_axis_mask: tuple[int, ...] = ()
    shrink_axis_mask: tuple[int, ...] = ()
    ellipsis_mask: tuple[int, ...] = ()


def parse_strided_slice(node: Node) -> StridedSliceAttrs:
    return StridedSliceAttrs(
        ints_attr(node, "begin_mask"),
        ints_attr(node, "end_mask"),
        ints_attr(node, "new_axis_mask", ()),
        ints_attr(node, "shrink_axis_mask", ()),
        ints_attr(node, "ellipsis_mask", ()),
    )


def _mask_set(mask: Sequence[int]) -> frozenset[int]:
    return frozenset(i for i, m in enumerate(mask) if m == 1)


def infer_strided_slice(attrs: StridedSliceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data = inputs[0]
    if not passes_integral_number_check(inputs[1].element_type):
        raise ValidationError(f"Begin mask must be an integral number, but is: {inputs[1].element_type}")
    if not passes_integral_number_check(inputs[2].element_type):
        raise ValidationError(f"End mask must be an integral number, but is: {inputs[2].element_type}")
    masks = (
        attrs.begin_mask,
        attrs.end_mask,
        attrs.new_axis_mask,
        attrs.shrink_axis_mask,
        attrs.ellipsis_mask,
    )
    if any(m not in (0, 1) for mask in masks for m in mask):
        raise ValidationError("All masks of StridedSlice must have be 0 or 1")
    sizes = [len(m) for m in masks if len(m)]
    if len(set(sizes)) > 1:
        raise ValidationError("All masks of StridedSlice must have the same size")
    return [TensorInfo(data.element_type, strided_slice_shape(attrs, inputs))]


def _length_1d(shape: PartialShape) -> int:
    if shape.rank_is_static:
        if shape.rank != 1:
            raise ValidationError("Only 1D tensor is allowed.")
        if shape[0].is_static:
            return shape[0].min
    return -1


def strided_slice_shape(attrs: StridedSliceAttrs, inputs: Sequence[TensorInfo]) -> PartialShape:
    for name, info in zip(("Begin", "End", "Strides"), inputs[1:], strict=False):
        if info.shape.rank_is_static and info.shape.rank != 1:
            raise ValidationError(f"{name} input must be 1D (has rank: {info.shape.rank})")
    data = inputs[0].shape
    if not data.rank_is_static:
        return PartialShape.dynamic()
    rank = data.rank
    begin = input_bounds(inputs[1])
    end = input_bounds(inputs[2])
    strides: list[int] | None = None
    if len(inputs) > 3:
        strides = known_ints(inputs[3])
    elif begin is not None:
        strides = [1] * len(begin)
    n_axes = _strided_slice_length(inputs[1].shape, inputs[2].shape, strides)
    if n_axes < 0:
        return PartialShape.dynamic()
    ellipsis = _mask_set(attrs.ellipsis_mask)
    if len(ellipsis) > 1:
        raise ValidationError("At most one ellipsis is allowed.")
    new_axis = _mask_set(attrs.new_axis_mask)
    if not ellipsis and rank + len(new_axis) < n_axes:
        raise ValidationError(
            "Input rank plus number of new axis has to be at least the size of Lower and Upper bounds vector."
        )
    return PartialShape(tuple(_strided_slice_dims(attrs, data, n_axes, begin, end, strides)))


def _strided_slice_dims(
    attrs: StridedSliceAttrs,
    data: PartialShape,
    n_axes: int,
    begin: list[tuple[int, int]] | None,
    end: list[tuple[int, int]] | None,
    strides: list[int] | None,
) -> list[Dimension]:
    """The output dims, walking begin/end/strides (``n_axes`` values) and the masks over ``data``."""
    rank = data.rank
    ellipsis, new_axis = _mask_set(attrs.ellipsis_mask), _mask_set(attrs.new_axis_mask)
    begin_mask, end_mask = _mask_set(attrs.begin_mask), _mask_set(attrs.end_mask)
    shrink = _mask_set(attrs.shrink_axis_mask)
    out: list[Dimension] = []
    k = 0  # input axis
    for axis in range(n_axes):
        if axis in ellipsis:
            before = sum(1 for i in range(axis) if i not in new_axis)
            after_new = (
                sum(1 for i in range(axis + 1, len(begin)) if i in new_axis) if begin is not None else 0
            )
            after = n_axes - axis - after_new - 1
            hidden = rank - after - before
            for _ in range(hidden):
                out.append(_dim_at(data, k))
                k += 1
        elif axis in new_axis:
            out.append(Dimension.static(1))
        elif axis in shrink:
            k += 1
        elif begin is not None and end is not None and strides is not None:
            dim = _dim_at(data, k)
            stride = strides[axis] if axis < len(strides) else 1
            if stride == 0:
                raise ValidationError("Stride must be non-zero")
            out.append(
                strided_slice_dim(dim, axis in begin_mask, begin[axis], axis in end_mask, end[axis], stride)
            )
            k += 1
        else:
            out.append(Dimension(0, _dim_at(data, k).max))
            k += 1
    out.extend(list(data)[k:])
    return out


def _strided_slice_length(begin: PartialShape, end: PartialShape, strides: list[int] | None) -> int:
    """How many values begin, end and strides hold (-1: not known), or OpenVINO's error where they differ."""
    n_axes = _length_1d(begin)
    n_end = _length_1d(end)
    if n_axes != -1 and n_end != -1:
        if n_axes != n_end:
            raise ValidationError("Begin and end need to have same number of values.")
    elif n_end != -1:
        n_axes = n_end
    n_strides = len(strides) if strides is not None else -1
    if n_axes != -1 and n_strides != -1:
        if n_axes != n_strides:
            raise ValidationError("Stride needs to have same number of values as begin and end.")
    elif n_strides != -1:
        n_axes = n_strides
    return n_axes


def _dim_at(shape: PartialShape, k: int) -> Dimension:
    if k >= shape.rank:
        raise ValidationError(f"StridedSlice addresses input axis {k} of a rank-{shape.rank} input")
    return shape[k]


def _ints(array: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(array).reshape(-1).astype(np.int64)]


def evaluate_strided_slice(attrs: StridedSliceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO's ``make_slice_plan`` + ``reference::strided_slice``: plan, then slice, reshape, reverse."""
    x = np.asarray(inputs[0])
    begins, ends = _ints(inputs[1]), _ints(inputs[2])
    strides = _ints(inputs[3]) if len(inputs) > 3 else [1] * len(begins)
    masks = SliceMasks(
        _mask_set(attrs.begin_mask),
        _mask_set(attrs.end_mask),
        _mask_set(attrs.new_axis_mask),
        _mask_set(attrs.shrink_axis_mask),
        _mask_set(attrs.ellipsis_mask),
    )
    return [apply_slice_plan(x, make_slice_plan(x.shape, begins, ends, strides, masks))]


# What OpenVINO's Gather evaluate takes: the data types, and i32/i64 indices only.
_GATHER_DATA_TYPES = (
    FLOATS | WIDE_INTEGERS | {ElementType.boolean, ElementType.i8, ElementType.u8} | {ElementType.string}
)
_GATHER_INDEX_TYPES = frozenset({ElementType.i32, ElementType.i64})


# =========================================================================================
# Kernels bound to a folded signature (``OpSpec.specialize``, see ops/common/binding.py)
# =========================================================================================
def bind_gather(
    attrs: GatherAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """``np.take`` along a folded axis, batch_dims 0, i32/i64 indices: what the kernel does for
    indices in range; an index out of range makes ``np.take`` raise, and the kernel runs."""
    data, indices, axis_info = inputs
    axis_value = folded(axis_info)
    rank = data.shape.rank if data.shape.rank_is_static else 0
    if axis_value is None or axis_value.size != 1 or not rank or dtype_of(indices) not in _TAKE_INDICES:
        return None
    try:
        axis = normalize_axis(int(axis_value.reshape(-1)[0]), rank)
    except ValidationError:
        return None
    if attrs.batch_dims:
        return None
    scalar = not (outputs[0].shape.rank_is_static and outputs[0].shape.rank)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        out = np.take(values[0], values[1], axis=axis)
        return [np.asarray(out, dtype=values[0].dtype) if scalar else out]

    return kernel


_TAKE_INDICES = frozenset({np.dtype(np.int32), np.dtype(np.int64)})


def _reshaping(outputs: Sequence[TensorInfo]) -> Kernel | None:
    """A view of the input in the output's static shape."""
    if not outputs[0].shape.is_static:
        return None
    shape = outputs[0].shape.to_shape()

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [values[0].reshape(shape)]

    return kernel


def bind_reshape(
    attrs: ReshapeAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """A folded pattern: the static output shape, or for a shape the signature leaves open a
    pattern NumPy reads as the kernel does (positive dims and one -1; NumPy refuses a size
    that does not fit, and the kernel words it)."""
    pattern = folded(inputs[1])
    if pattern is None:
        return None
    if outputs[0].shape.is_static:
        return _reshaping(outputs)
    if pattern.ndim != 1 or pattern.dtype.kind not in "iu":
        return None
    target = tuple(int(v) for v in pattern.tolist())
    if target.count(-1) != 1 or any(v == 0 or v < -1 for v in target):
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        if not x.size:  # (NumPy cannot place a -1 in an empty array: the kernel decides)
            raise ValueError("empty")
        return [x.reshape(target)]

    return kernel


def bind_squeeze(
    attrs: SqueezeAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Folded axes (or none) and a static output shape: a view in that shape; folded axes that
    are all static 1s of a shape the signature leaves open: those dimensions dropped."""
    if len(inputs) > 1 and folded(inputs[1]) is None:
        return None
    if outputs[0].shape.is_static or len(inputs) == 1:
        return _reshaping(outputs)
    data, axes = inputs[0].shape, folded(inputs[1])
    if axes is None or axes.ndim > 1 or axes.dtype.kind not in "iu" or not data.rank_is_static:
        return None
    picked = _in_range(axes.reshape(-1).tolist(), data.rank)
    if not picked or any(not (data[i].is_static and data[i].min == 1) for i in picked):
        return None
    keep = [i for i in range(data.rank) if i not in picked]

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = values[0]
        return [x.reshape(tuple(x.shape[i] for i in keep))]

    return kernel


def bind_unsqueeze(
    attrs: NoAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Folded axes, every one in range (as the kernel's usual case): 1s inserted, a view."""
    axes = folded(inputs[1])
    if axes is None:
        return None
    if outputs[0].shape.is_static:
        return _reshaping(outputs)
    if not inputs[0].shape.rank_is_static or axes.ndim > 1 or axes.dtype.kind not in "iu" or not axes.size:
        return None
    values = set(axes.reshape(-1).tolist())
    picked = _in_range(list(values), inputs[0].shape.rank + len(values))
    if picked is None:
        return None
    where = tuple(sorted(picked))

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.expand_dims(values[0], where)]

    return kernel


def bind_concat(
    attrs: ConcatAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Inputs of one static rank (at least 1): ``np.concatenate`` on the axis, which refuses
    dims that differ off the axis (and the kernel words it)."""
    ranks = {t.shape.rank if t.shape.rank_is_static else -1 for t in inputs}
    if len(ranks) != 1 or min(ranks) < 1 or not -min(ranks) <= attrs.axis < min(ranks):
        return None
    if len({dtype_of(t) for t in inputs}) != 1:
        return None
    axis = attrs.axis % min(ranks)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.concatenate(values, axis=axis)]

    return kernel


SPECS = (
    OpSpec(
        type="ShapeOf",
        version=1,
        since=1,
        inputs=1,
        parse=parse_shape_of_1,
        infer=infer_shape_of,
        evaluate=evaluate_shape_of,
        specialize=mode_independent(bind_shape_of),
        bounds=shape_of_bounds,
    ),
    OpSpec(
        type="ShapeOf",
        version=3,
        since=3,
        inputs=1,
        parse=parse_shape_of_3,
        infer=infer_shape_of,
        evaluate=evaluate_shape_of,
        specialize=mode_independent(bind_shape_of),
        bounds=shape_of_bounds,
    ),
    OpSpec(
        type="Gather",
        version=1,
        since=1,
        inputs=3,
        parse=parse_gather_1,
        infer=infer_gather,
        evaluate=evaluate_gather,
        specialize=mode_independent(bind_gather),
        bounds=kernel_bounds(exact=(1, 2)),
        evaluate_types=(_GATHER_DATA_TYPES, _GATHER_INDEX_TYPES),
        copies_values=True,
    ),
    OpSpec(
        type="Gather",
        version=7,
        since=7,
        inputs=3,
        parse=parse_gather_7,
        infer=infer_gather,
        evaluate=evaluate_gather,
        specialize=mode_independent(bind_gather),
        bounds=kernel_bounds(exact=(1, 2)),
        evaluate_types=(_GATHER_DATA_TYPES, _GATHER_INDEX_TYPES),
        copies_values=True,
    ),
    OpSpec(
        type="Gather",
        version=8,
        since=8,
        inputs=3,
        parse=parse_gather_7,
        infer=infer_gather,
        evaluate=evaluate_gather,
        specialize=mode_independent(bind_gather),
        bounds=kernel_bounds(exact=(1, 2)),
        evaluate_types=(_GATHER_DATA_TYPES, _GATHER_INDEX_TYPES),
        copies_values=True,
    ),
    OpSpec(
        type="Squeeze",
        version=0,
        since=1,
        inputs=(1, 2),
        parse=parse_squeeze_0,
        infer=infer_squeeze,
        evaluate=evaluate_squeeze,
        specialize=mode_independent(bind_squeeze),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="Squeeze",
        version=15,
        since=15,
        inputs=(1, 2),
        parse=parse_squeeze_15,
        infer=infer_squeeze,
        evaluate=evaluate_squeeze,
        specialize=mode_independent(bind_squeeze),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="Unsqueeze",
        version=0,
        since=1,
        inputs=2,
        parse=parse_no_attrs,
        infer=infer_unsqueeze,
        evaluate=evaluate_unsqueeze,
        specialize=mode_independent(bind_unsqueeze),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="Concat",
        version=0,
        since=1,
        inputs=(1, 1 << 20),
        parse=parse_concat,
        infer=infer_concat,
        evaluate=evaluate_concat,
        specialize=mode_independent(bind_concat),
        shapes_only=True,
        bounds=kernel_bounds(exact=()),
        copies_values=True,
    ),
    OpSpec(
        type="Reshape",
        version=1,
        since=1,
        inputs=2,
        parse=parse_reshape,
        infer=infer_reshape,
        evaluate=evaluate_reshape,
        specialize=mode_independent(bind_reshape),
        bounds=kernel_bounds(exact=(1,)),
        copies_values=True,
        sizes_within_inputs=True,
    ),
    OpSpec(
        type="StridedSlice",
        version=1,
        since=1,
        inputs=(3, 4),
        parse=parse_strided_slice,
        infer=infer_strided_slice,
        evaluate=evaluate_strided_slice,
        bounds=strided_slice_bounds,
        copies_values=True,
    ),
)
