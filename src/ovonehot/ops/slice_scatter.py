"""SliceScatter-15: ``data`` with ``updates`` written into the slice Slice-8 would take (``torch.slice_scatter``).

Inputs: ``data``, ``updates``, and Slice-8's ``start``, ``stop``, ``step`` and optional ``axes``
(1-D integers).  The output has the data's type and shape (``slice_scatter_shape_inference.hpp``:
data and updates of compatible rank, not scalars; ``updates`` compatible with the shape the slice
would have, computed from the values or bounds of start/stop as Slice-8 does; OpenVINO checks no
element type between data and updates: updates of another type are converted).

Values: a copy of ``data`` whose slice (Python's slice semantics, which are Slice-8's) is
replaced by ``updates``; data movement only, exact for every type.  The core op has no
``evaluate`` (nothing folds); the CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import Dimension, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.shape_util import input_bounds, known_ints, normalize_axis
from .common.slicing import make_dim
from .common.spec import OpSpec, TensorInfo
from .movement import _ints, _slice_index

_NAMES = ("start", "stop", "step", "axes")


def _check_index_inputs(inputs: Sequence[TensorInfo], rank: int | None) -> None:
    for name, info in zip(_NAMES, inputs[2:], strict=False):
        et = info.element_type
        if not (et.is_dynamic or et.is_integral_number):
            raise ValidationError(f"SliceScatter `{name}` input type must be integer.")
    for name, info in zip(_NAMES, inputs[2:], strict=False):
        s = info.shape
        if s.rank_is_static and s.rank != 1:
            raise ValidationError(f"SliceScatter `{name}` input must be a 1D tensor. Got rank: {s.rank}")
        if rank is not None and s.rank_is_static and s[0].min > rank:
            raise ValidationError(
                f"SliceScatter `{name}` input dim size can't be bigger than `data` or `updates` rank."
            )
    start_s, stop_s, step_s = (i.shape for i in inputs[2:5])
    if not (start_s.compatible(stop_s) and start_s.compatible(step_s) and stop_s.compatible(step_s)):
        raise ValidationError("SliceScatter `start`, `stop`, `step` inputs must have compatible shapes.")


def _expected_updates(inputs: Sequence[TensorInfo], out: PartialShape) -> PartialShape:
    rank = out.rank
    start, stop, steps = input_bounds(inputs[2]), input_bounds(inputs[3]), known_ints(inputs[4])
    if steps is not None and inputs[4].shape.is_static and 0 in steps:
        raise ValidationError("SliceScatter step values must be non-zero.")
    axes_map: dict[int, int] | None = None
    if len(inputs) > 5:
        if not inputs[5].shape.compatible(inputs[2].shape):
            raise ValidationError(
                "SliceScatter `axes` input must have compatible shape with `start`, `stop`, `step` inputs."
            )
        axes = known_ints(inputs[5])
        if axes is not None:
            normalized = [normalize_axis(a, rank) for a in axes]
            if len(set(normalized)) != len(normalized):
                raise ValidationError("SliceScatter values in `axes` input must be unique.")
            axes_map = {a: i for i, a in enumerate(normalized)}
    elif start is not None:
        axes_map = {i: i for i in range(len(start))}
    dims = []
    for k, d in enumerate(out):
        if axes_map is not None and k not in axes_map:
            dims.append(d)
        elif axes_map is not None and start is not None and stop is not None and steps is not None:
            i = axes_map[k]
            dims.append(make_dim(d, start[i], stop[i], steps[i]))
        else:
            dims.append(Dimension(0, d.max))
    return PartialShape(tuple(dims))


def infer_slice_scatter(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, updates = inputs[:2]
    out = data.shape
    if out.rank_is_static and updates.shape.rank_is_static and out.rank != updates.shape.rank:
        raise ValidationError("SliceScatter `data` and `updates` need to have compatible rank.")
    if not out.rank_is_static and updates.shape.rank_is_static:
        out = PartialShape((Dimension(),) * updates.shape.rank)
    if out.rank_is_static and out.rank == 0:
        raise ValidationError("SliceScatter `data` and `updates` input can't be a scalar.")
    _check_index_inputs(inputs, out.rank if out.rank_is_static else None)
    if out.rank_is_static:
        expected = _expected_updates(inputs, out)
        if not updates.shape.compatible(expected):
            raise ValidationError(
                f"SliceScatter updates at index 1 are not compatible with expected slice shape {expected}"
            )
    return [TensorInfo(data.element_type, out)]


def evaluate_slice_scatter(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, updates = np.asarray(inputs[0]), np.asarray(inputs[1])
    if data.ndim == 0:
        raise InputError("SliceScatter `data` input can't be a scalar")
    index = _slice_index(data.ndim, [_ints(np.asarray(a)) for a in inputs[2:]])
    out = np.array(data, copy=True)
    target = out[index]
    if target.shape != updates.shape:
        raise InputError(f"updates of shape {list(updates.shape)} do not fit the slice {list(target.shape)}")
    out[index] = updates.astype(data.dtype, copy=False)
    return [out]


SPECS = (
    OpSpec(
        type="SliceScatter",
        version=15,
        since=15,
        inputs=(5, 6),
        parse=parse_no_attrs,
        infer=infer_slice_scatter,
        evaluate=evaluate_slice_scatter,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
        copies_values=True,
    ),
)
