"""SegmentMax-16: the largest row of each segment (``tf.math.segment_max``, ``torch.segment_reduce``).

Inputs: ``data`` (rank >= 1), sorted 1-D integer ``segment_ids`` (one per row) and optional scalar
``num_segments``; attribute ``fill_mode`` (``zero`` or ``lowest``: the value of an empty segment).
Output ``data``'s shape with the first dim ``num_segments`` (its value), else ``max(segment_ids) + 1``
when the ids are known, else ``?`` (``segment_max_shape_inference.hpp``; known ids must be
sorted).

Values (``reference/segment_max.hpp``): each segment starts at the type's lowest value and takes
``std::max`` with its rows in order (a NaN never replaces a value); rows whose id is not below
``num_segments`` end the scan (the ids are sorted); a segment without rows is ``fill_mode``'s
value, the data type's own lowest for ``lowest`` (f16: -65504; the CPU plugin, computing in f32,
gives -inf there).  The core op has no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import enum_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import known_ints
from .common.spec import OpSpec, TensorInfo


class FillMode(enum.Enum):
    ZERO = "zero"
    LOWEST = "lowest"


@dataclass(frozen=True, slots=True)
class SegmentMaxAttrs:
    fill_mode: FillMode


def parse_segment_max(node: Node) -> SegmentMaxAttrs:
    return SegmentMaxAttrs(enum_attr(node, "fill_mode", FillMode))


def infer_segment_max(attrs: SegmentMaxAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, ids = inputs[:2]
    shape = data.shape
    if shape.rank_is_static and shape.rank == 0:
        raise ValidationError("The data input cannot be a scalar.")
    if ids.shape.rank_is_static and ids.shape.rank != 1:
        raise ValidationError(f"segment_ids must be a 1D input. Got: {ids.shape}")
    values = known_ints(ids)
    if ids.shape.rank_is_static and shape.rank_is_static and not shape[0].compatible(ids.shape[0]):
        raise ValidationError("The number of elements in segment_ids must match the first dimension of data.")
    if values is not None and values != sorted(values):
        raise ValidationError("segment_ids must be sorted.")
    first: Dimension | None = None
    if len(inputs) > 2:
        if inputs[2].shape.rank_is_static and inputs[2].shape.rank != 0:
            raise ValidationError(f"num_segments must be a scalar input. Got: {inputs[2].shape}")
        count = known_ints(inputs[2])
        if count is not None:
            first = Dimension.static(max(count[0], 0))
    if first is None and values:
        first = Dimension.static(max(values) + 1)
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape.dynamic() if first is None else shape)]
    return [TensorInfo(data.element_type, PartialShape((first or Dimension(), *list(shape)[1:])))]


def evaluate_segment_max(attrs: SegmentMaxAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    ids = np.asarray(inputs[1]).astype(np.int64).reshape(-1)
    if data.ndim == 0 or ids.shape[0] != data.shape[0]:
        raise InputError(f"segment_ids {list(ids.shape)} must hold one id per row of data {list(data.shape)}")
    if np.any(ids[1:] < ids[:-1]) or np.any(ids < 0):
        raise InputError(f"segment_ids must be sorted and non-negative, got {ids.tolist()}")
    count = (
        int(np.asarray(inputs[2]).reshape(-1)[0])
        if len(inputs) > 2
        else (int(ids.max()) + 1 if ids.size else 0)
    )
    wide = widen(data)
    # the data type's own lowest (f16: -65504, exact in the f32 the narrow floats are computed in)
    if wide.dtype == np.bool_:  # (numeric_limits<bool>::lowest(); NumPy's iinfo has no bool)
        lowest = np.bool_(False)
    else:
        # (ml_dtypes' finfo knows bf16, NumPy's does not)
        kind_info = ml_dtypes.finfo(data.dtype) if wide.dtype.kind == "f" else np.iinfo(data.dtype)
        lowest = wide.dtype.type(kind_info.min)
    empty = wide.dtype.type(0) if attrs.fill_mode is FillMode.ZERO else lowest
    out = np.full((max(count, 0), *data.shape[1:]), empty, wide.dtype)
    with quiet():
        for s in range(max(count, 0)):
            rows = wide[ids == s]
            if rows.shape[0]:
                best = np.full(rows.shape[1:], lowest, wide.dtype)
                for row in rows:  # std::max(best, row): a NaN never wins
                    best = np.where(best < row, row, best)
                out[s] = best
    return [narrow(out, data.dtype)]


SPECS = (
    OpSpec(
        type="SegmentMax",
        version=16,
        since=16,
        inputs=(2, 3),
        parse=parse_segment_max,
        infer=infer_segment_max,
        evaluate=evaluate_segment_max,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
