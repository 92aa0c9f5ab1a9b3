"""Slicing shared by StridedSlice and Slice: sliced dimensions and OpenVINO's slice plan.

Two halves, restated from OpenVINO (never copied):

* shape inference: :func:`make_dim` and :func:`sliced_value` are OpenVINO's
  ``slice::make_dim`` / ``slice::get_sliced_value``
  (``src/core/shape_inference/include/slice_shape_inference_utils.hpp``): the interval a
  dimension becomes when sliced by bounded start/stop values; :func:`strided_slice_dim`
  first puts StridedSlice's begin/end masks in.
* evaluation: :func:`make_slice_plan` is OpenVINO's ``make_slice_plan``
  (``src/core/src/runtime/...slice_plan.cpp``): from StridedSlice's begin/end/strides and
  masks to one plain forward slice per input axis, the shape to reshape the slice to
  (new axes in, shrunk axes out) and the output axes to reverse (negative strides);
  :func:`apply_slice_plan` carries it out on an array.

Knows no op's attributes or inputs: callers hand it plain integers and index sets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...types import Dimension
from .shape_util import INT64_MAX, INT64_MIN, wrap64

# -- shape inference ----------------------------------------------------------------------


def _max_len(d: Dimension) -> int:
    """``get_max_length``: -1 for unbounded."""
    return -1 if d.max is None else d.max


def strided_slice_dim(
    dim: Dimension,
    begin_masked: bool,
    begin: tuple[int, int],
    end_masked: bool,
    end: tuple[int, int],
    stride: int,
) -> Dimension:
    """A StridedSlice axis: a masked begin (end) starts (stops) at the dimension's edge."""
    norm_dim = INT64_MAX if dim.max is None else dim.max
    if stride < 0:
        start = (norm_dim, norm_dim) if begin_masked else begin
        stop = (-1 - norm_dim, -1 - norm_dim) if end_masked else end
    else:
        start = (0, 0) if begin_masked else begin
        stop = (norm_dim, norm_dim) if end_masked else end
    return make_dim(dim, start, stop, stride)


def make_dim(dim: Dimension, start: tuple[int, int], stop: tuple[int, int], step: int) -> Dimension:
    """OpenVINO's ``slice::make_dim``: the sliced dimension from (lower, upper) bounds of start and stop."""
    max_len = _max_len(dim)

    def crossing(b: tuple[int, int]) -> bool:
        return b[0] < 0 <= b[1]

    def lb_within(lb: int) -> bool:
        return max_len == -1 or lb + max_len >= 0

    def ub_within(ub: int) -> bool:
        return max_len == -1 or ub < max_len

    start_lb = 0 if crossing(start) and lb_within(start[0]) else start[0]
    start_ub = -1 if crossing(start) and ub_within(start[1]) else start[1]
    stop_lb = 0 if crossing(stop) and lb_within(stop[0]) else stop[0]
    stop_ub = -1 if crossing(stop) and ub_within(stop[1]) else stop[1]
    if step > 0:
        lb = sliced_value(dim.min, start_ub, stop_lb, step)
        ub = sliced_value(max_len, start_lb, stop_ub, step)
    else:
        lb = sliced_value(dim.min, start_lb, stop_ub, step)
        ub = sliced_value(max_len, start_ub, stop_lb, step)
    lo = 0 if lb == -1 else max(lb, 0)
    hi = None if ub == -1 or ub >= INT64_MAX else max(ub, 0)
    if hi is not None and hi < lo:
        return Dimension()  # OpenVINO makes an empty interval here; ovonehot cannot hold one
    return Dimension(lo, hi)


def _c_div(a: int, b: int) -> int:
    """C++ integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _clamped_bounds(norm_dim: int, start: int, stop: int, reverse: bool) -> tuple[int, int]:
    """(lower, upper) element positions a slice of a dimension ``norm_dim`` long covers."""
    dim_is_max = norm_dim == INT64_MAX
    start_neg = start < 0
    start_max = start == INT64_MAX
    start_limit = start_max or start == INT64_MIN
    stop_max = stop == INT64_MAX
    any_max = start_max or stop_max
    if dim_is_max and (start_neg != (stop < 0) or any_max or start_limit):
        if reverse:
            ub = -1 if (start_neg or any_max) else wrap64(-1 - start)
        elif start_neg and not start_limit:
            ub = wrap64(-start) if stop_max else stop
        else:
            ub = -1
        return 0, ub
    lower_max = norm_dim - 1 if reverse else norm_dim
    upper_min = -1 if reverse else 0
    lb = min(max(wrap64(start + norm_dim) if start < 0 else start, 0), lower_max)
    ub = min(max(wrap64(stop + norm_dim) if stop < 0 else stop, upper_min), norm_dim)
    return lb, ub


def sliced_value(dim: int, start: int, stop: int, step: int) -> int:
    """OpenVINO's ``slice::get_sliced_value``: the length a slice leaves of ``dim``; -1 means unbounded
    (for ``dim`` as for the answer)."""
    reverse = step < 0
    norm_dim = INT64_MAX if dim == -1 else dim
    lb, ub = _clamped_bounds(norm_dim, start, stop, reverse)
    if norm_dim == INT64_MAX and lb == 0 and ub == -1:
        return -1
    sliced = min(0, ub - lb) if reverse else max(0, ub - lb)
    if step == -1:
        sliced = -sliced
    elif sliced != 0 and step != 1:
        sliced = sliced + 1 if reverse else sliced - 1
        sliced = _c_div(sliced, step) + 1
    return sliced


# -- evaluation: the slice plan -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SliceMasks:
    """StridedSlice's masks as sets of the indices whose bit is 1."""

    begin: frozenset[int]
    end: frozenset[int]
    new_axis: frozenset[int]
    shrink_axis: frozenset[int]
    ellipsis: frozenset[int]


@dataclass(frozen=True, slots=True)
class SlicePlan:
    """OpenVINO's ``SlicePlan``: a forward slice per input axis, then reshape, then reverse.

    ``begins``/``ends``/``strides`` are per input axis, non-negative, ``strides`` positive;
    ``reshape_in_shape`` is the shape the slice has, ``reshape_out_shape`` the output's
    (new axes added, shrunk axes gone); ``reverse_axes`` are output axes read backwards.
    """

    begins: tuple[int, ...]
    ends: tuple[int, ...]
    strides: tuple[int, ...]
    reshape_in_shape: tuple[int, ...]
    reshape_out_shape: tuple[int, ...]
    reverse_axes: tuple[int, ...]


@dataclass(slots=True)
class _PlanBuilder:
    """The plan being built, one StridedSlice index after another."""

    shape: tuple[int, ...]
    begins: list[int]
    ends: list[int]
    strides: list[int]
    in_shape: list[int]
    out_shape: list[int]
    reverse: list[int]
    k: int = 0  # input axis
    o: int = 0  # output axis

    def keep(self, n_axes: int) -> None:
        """The next ``n_axes`` input axes, whole (what an ellipsis stands for)."""
        for _ in range(n_axes):
            size = self.shape[self.k]
            self.begins[self.k], self.ends[self.k], self.strides[self.k] = 0, size, 1
            self.in_shape[self.k] = self.out_shape[self.o] = size
            self.k += 1
            self.o += 1

    def new_axis(self) -> None:
        self.out_shape[self.o] = 1
        self.o += 1

    def shrink(self, begin: int) -> None:
        size = self.shape[self.k]
        if not -size <= begin < size:
            raise InputError(f"StridedSlice shrinks axis {self.k} of size {size} at index {begin}")
        begin = begin + size if begin < 0 else begin
        self.begins[self.k], self.ends[self.k], self.strides[self.k] = begin, begin + 1, 1
        self.in_shape[self.k] = 1
        self.k += 1

    def slice(self, begin: int | None, end: int | None, stride: int) -> None:
        """A sliced axis; ``None`` for a masked begin or end (the axis' edge)."""
        size = self.shape[self.k]
        if stride == 0:
            raise InputError("Stride must be non-zero")
        rev = stride < 0
        b = (size - 1 if rev else 0) if begin is None else begin + size if begin < 0 else begin
        b = max(0, min(size - (1 if rev else 0), b))
        e = (-1 if rev else size) if end is None else end + size if end < 0 else end
        e = max(-1 if rev else 0, min(size, e))
        step = abs(stride)
        if rev:  # the same elements read forward from the last one the backward slice reaches
            e += max(0, b - e - 1) % step
            b, e = e + 1, b + 1
            self.reverse.append(self.o)
        e = max(e, b)
        length = 0 if e <= b else (e - b - 1) // step + 1
        self.in_shape[self.k] = self.out_shape[self.o] = length
        self.begins[self.k], self.ends[self.k], self.strides[self.k] = b, e, step
        self.k += 1
        self.o += 1


def _count_axes(n: int, masks: SliceMasks) -> tuple[int, int, int]:
    """(real, shrunk, new) axes among ``n`` indices; refuses a second ellipsis."""
    n_real = n_shrink = n_new = 0
    found_ellipsis = False
    for i in range(n):
        if i in masks.ellipsis:
            if found_ellipsis:
                raise InputError("At most one ellipsis is allowed.")
            found_ellipsis = True
        elif i in masks.new_axis:
            n_new += 1
        else:
            n_shrink += i in masks.shrink_axis
            n_real += 1
    return n_real, n_shrink, n_new


def make_slice_plan(
    shape: Sequence[int],
    begins: Sequence[int],
    ends: Sequence[int],
    strides: Sequence[int],
    masks: SliceMasks,
) -> SlicePlan:
    """OpenVINO's ``make_slice_plan`` for StridedSlice on an input of ``shape``.

    An index setting the ellipsis bit together with new_axis or shrink_axis is refused:
    OpenVINO's plan is inconsistent there and its output is undefined (garbage memory).
    """
    if not len(begins) == len(ends) == len(strides):
        raise InputError("StridedSlice begin, end and strides differ in length")
    n = len(begins)
    conflict = sorted(i for i in masks.ellipsis & (masks.new_axis | masks.shrink_axis) if i < n)
    if conflict:
        # OpenVINO counts such an index as the ellipsis but applies it as a new or shrunk
        # axis, then reads or writes outside its buffers: its result is undefined
        raise InputError(
            f"StridedSlice index {conflict[0]} sets the ellipsis bit with new_axis or shrink_axis"
        )
    n_real, n_shrink, n_new = _count_axes(n, masks)
    if n_real > len(shape):
        raise InputError(f"StridedSlice slices {n_real} axes of a rank-{len(shape)} input")
    ellipsis_size = len(shape) - n_real
    n_in = len(shape)
    plan = _PlanBuilder(
        tuple(shape), [0] * n_in, [0] * n_in, [0] * n_in, [0] * n_in, [0] * (n_new + n_in - n_shrink), []
    )
    for i in range(n):
        if i in masks.new_axis:
            plan.new_axis()
        elif i in masks.shrink_axis:
            plan.shrink(begins[i])
        elif i in masks.ellipsis:
            plan.keep(ellipsis_size)
        else:
            begin = None if i in masks.begin else begins[i]
            end = None if i in masks.end else ends[i]
            plan.slice(begin, end, strides[i])
    if not masks.ellipsis & set(range(n)):
        plan.keep(ellipsis_size)  # no ellipsis: the axes after the last index stay whole
    return SlicePlan(
        tuple(plan.begins),
        tuple(plan.ends),
        tuple(plan.strides),
        tuple(plan.in_shape),
        tuple(plan.out_shape),
        tuple(plan.reverse),
    )


def apply_slice_plan(x: np.ndarray, plan: SlicePlan) -> np.ndarray:
    """``reference::strided_slice``: slice ``x`` by the plan, reshape, reverse; a fresh C-order array."""
    out_shape = list(plan.reshape_out_shape)
    if 0 in plan.reshape_in_shape or math.prod(out_shape) == 0:
        return (
            np.zeros(out_shape, dtype=x.dtype) if x.dtype != object else np.full(out_shape, "", dtype=object)
        )
    index = tuple(slice(b, e, st) for b, e, st in zip(plan.begins, plan.ends, plan.strides, strict=True))
    sliced = x[index]
    if sliced.size != math.prod(out_shape):
        # a reversed slice of an empty axis: OpenVINO's plan reads outside the input
        raise InputError(f"StridedSlice of {list(x.shape)} reads outside its input (OpenVINO does too)")
    out = sliced.reshape(out_shape)
    if plan.reverse_axes:
        out = np.flip(out, axis=plan.reverse_axes)
    result: np.ndarray = out.copy(order="C")
    return result
