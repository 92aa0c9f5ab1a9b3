"""GatherTree-1: back-tracking beam search (TF's ``gather_tree``): the full beams from step ids and parents.

Inputs of one numeric type: ``step_ids`` and ``parent_idx`` ``[T, B, W]``, ``max_seq_len``
``[B]`` and the scalar ``end_token``.  The output has the step ids' type and shape (merged with
the parents', the batch with ``max_seq_len``'s length; ``gather_tree_shape_inference.hpp``).

Values (``reference/gather_tree.cpp``, TF 1.5's algorithm): everything starts as
``end_token``; for each batch and beam, with ``L = min(max_seq_len[b], T)``, the last step is
copied and the beam followed back through the parents (``out[t] = step_ids[t, b, parent]``,
``parent = parent_idx[t, b, parent]``); then every step after the first ``end_token`` becomes
``end_token``.  Indices and the end-token comparison read the values as the reference's
``static_cast<size_t>`` does (floats truncated).  A parent outside ``[0, W)`` is an error.  The
core op has no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import ElementType, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.spec import OpSpec, TensorInfo


def _merged_type(inputs: Sequence[TensorInfo]) -> ElementType:
    et = inputs[0].element_type
    for info in inputs[1:]:
        merged = et.merge(info.element_type)
        if merged is None:
            names = ("step_ids", "parent_idx_et", "max_seq_len", "end_token")
            got = ", ".join(f"{n} ({i.element_type})" for n, i in zip(names, inputs, strict=True))
            raise ValidationError(f"Inputs must have the same element type. Got: {got}")
        et = merged
    if et is ElementType.boolean or et is ElementType.string:
        raise ValidationError(f"Element type of inputs must be numeric. Got: {et}")
    return et


def infer_gather_tree(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    step, parent, lengths, end = inputs
    et = _merged_type(inputs)
    merged = step.shape.merge(parent.shape)
    if merged is None or (merged.rank_is_static and merged.rank != 3):
        raise ValidationError(
            "step_ids and parent_idx inputs must have the same shape with rank 3. Got: "
            f"{step.shape} and {parent.shape}, respectively"
        )
    if lengths.shape.rank_is_static and lengths.shape.rank != 1:
        raise ValidationError(f"max_seq_len input must have rank 1. Got: {lengths.shape}")
    if end.shape.rank_is_static and end.shape.rank != 0:
        raise ValidationError(f"end_token input must be scalar. Got: {end.shape}")
    if not merged.rank_is_static:
        return [TensorInfo(et, merged)]
    out = merged
    if lengths.shape.rank_is_static:
        batch = out[1].merge(lengths.shape[0])
        if batch is None:
            raise ValidationError(
                "Number of elements of max_seq_len input must match BATCH_SIZE dimension of step_ids/parent_idx "
                f"inputs. Got: {out[1]} and {lengths.shape[0]}, respectively"
            )
        out = PartialShape((out[0], batch, out[2]))
    return [TensorInfo(et, out)]


def _as_index(values: np.ndarray) -> np.ndarray:
    """``static_cast<size_t>`` of each value (floats truncated), as int64."""
    return np.trunc(values).astype(np.int64) if values.dtype.kind == "f" else values.astype(np.int64)


def evaluate_gather_tree(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    step, parent, lengths, end = (np.asarray(a) for a in inputs)
    if step.ndim != 3 or parent.shape != step.shape or lengths.shape != (step.shape[1],) or end.size != 1:
        raise InputError(
            f"step_ids {list(step.shape)}, parent_idx {list(parent.shape)}, max_seq_len {list(lengths.shape)} "
            "and end_token do not fit [T, B, W], [T, B, W], [B], []"
        )
    frames, batches, beams = step.shape
    out = np.full(step.shape, end.reshape(()), step.dtype)
    parents = _as_index(parent)
    end_index = int(_as_index(end.reshape(-1))[0])
    for b in range(batches):
        length = min(frames, max(int(_as_index(lengths[b : b + 1])[0]), 0))
        if length == 0:
            continue
        beam = np.arange(beams)
        out[length - 1, b] = step[length - 1, b]
        track = parents[length - 1, b]
        for t in range(length - 2, -1, -1):
            if np.any((track < 0) | (track >= beams)):
                raise InputError(f"parent_idx holds a beam outside [0, {beams}): {track.tolist()}")
            out[t, b, beam] = step[t, b, track]
            track = parents[t, b, track]
        ended = np.cumsum(_as_index(out[:length, b]) == end_index, axis=0) > 0
        after = np.concatenate([np.zeros((1, beams), bool), ended[:-1]], axis=0)  # steps after the first end
        out[:length, b] = np.where(after, end.reshape(()), out[:length, b])
    return [out]


SPECS = (
    OpSpec(
        type="GatherTree",
        version=1,
        since=1,
        inputs=4,
        parse=parse_no_attrs,
        infer=infer_gather_tree,
        evaluate=evaluate_gather_tree,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
