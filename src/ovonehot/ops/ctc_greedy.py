"""CTCGreedyDecoder-0 and CTCGreedyDecoderSeqLen-6: best-path CTC decoding (argmax per frame).

CTCGreedyDecoder-0: ``data [T, N, C]`` and ``sequence_mask [T, N]`` (a frame with mask 0 ends
the sequence); the last class is the blank; attribute ``ctc_merge_repeated``.  Output
``[N, T, 1, 1]`` of the data's type.
CTCGreedyDecoderSeqLen-6: ``data [N, T, C]``, ``sequence_length [N]`` and optional
``blank_index`` (default ``C - 1``); attributes ``merge_repeated``, ``classes_index_type`` and
``sequence_length_type`` (i32/i64).  Outputs the classes ``[N, T]`` and their counts ``[N]``.

Shapes (``ctc_greedy_decoder*_shape_inference.hpp``): the batch and time dims merged across the
inputs; OpenVINO checks no element types.  Values (``reference/ctc_greedy_decoder*.hpp``): per
frame the first largest class (``std::max_element``: a NaN wins only as the first element); it
is written unless it is the blank or, with merging, equals the previous frame's class (the
previous class is updated on every frame, blanks included); the rest of the row is -1.  The
core ops have no ``evaluate``; the CPU plugin is the oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, element_type_attr
from .common.numeric import widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class GreedyAttrs:
    merge_repeated: bool = True
    classes_index_type: ElementType = ElementType.i32
    sequence_length_type: ElementType = ElementType.i32


def parse_greedy_0(node: Node) -> GreedyAttrs:
    return GreedyAttrs(bool_attr(node, "ctc_merge_repeated", True))


def parse_greedy_6(node: Node) -> GreedyAttrs:
    return GreedyAttrs(
        bool_attr(node, "merge_repeated", True),
        element_type_attr(node, "classes_index_type", ElementType.i32),
        element_type_attr(node, "sequence_length_type", ElementType.i32),
    )


def _merge(a: Dimension, b: Dimension, which: str) -> Dimension:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(f"The {which} dimensions of input tensors must match.")
    return merged


def infer_greedy_0(attrs: GreedyAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, mask = inputs
    time, batch = Dimension(), Dimension()
    if data.shape.rank_is_static:
        if data.shape.rank != 3:
            raise ValidationError("The rank of logits tensor must be equal to 3.")
        time, batch = data.shape[0], data.shape[1]
    if mask.shape.rank_is_static:
        if mask.shape.rank != 2:
            raise ValidationError("The rank of sequence mask tensor must be equal to 2.")
        time = _merge(time, mask.shape[0], "first")
        batch = _merge(batch, mask.shape[1], "second")
    one = Dimension.static(1)
    return [TensorInfo(data.element_type, PartialShape((batch, time, one, one)))]


def infer_greedy_6(attrs: GreedyAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, lengths = inputs[:2]
    if len(inputs) > 2:
        blank = inputs[2].shape
        if blank.is_static and not (blank.rank == 0 or (blank.rank == 1 and blank[0].min == 1)):
            raise ValidationError(f"Expected 0D or 1D tensor for the 'blank_index' input. Got: {blank}")
    batch, time = Dimension(), Dimension()
    if data.shape.rank_is_static:
        if data.shape.rank != 3:
            raise ValidationError("The rank of logits tensor must be equal to 3.")
        batch, time = data.shape[0], data.shape[1]
    if lengths.shape.rank_is_static:
        if lengths.shape.rank != 1:
            raise ValidationError("The rank of sequence len tensor must be equal to 1.")
        batch = _merge(batch, lengths.shape[0], "first")
    for et in (attrs.classes_index_type, attrs.sequence_length_type):
        if et not in (ElementType.i32, ElementType.i64):
            raise ValidationError(f"The index types must be i32 or i64, got {et}")
    return [
        TensorInfo(attrs.classes_index_type, PartialShape((batch, time))),
        TensorInfo(attrs.sequence_length_type, PartialShape((batch,))),
    ]


def _best_classes(frames: np.ndarray) -> np.ndarray:
    """``std::max_element`` per frame of [T, C]: the first largest; a NaN only when first."""
    if frames.dtype.kind != "f" or frames.shape[-1] == 0:
        result: np.ndarray = (
            np.argmax(frames, axis=-1) if frames.shape[-1] else np.zeros(frames.shape[:-1], np.int64)
        )
        return result
    scan = np.where(np.isnan(frames), -np.inf, frames)
    return np.where(np.isnan(frames[..., 0]), 0, np.argmax(scan, axis=-1))


def _decode(best: Sequence[int], blank: int, merge: bool) -> list[int]:
    out, previous = [], -1
    for k in best:
        if k != blank and not (merge and k == previous):
            out.append(k)
        previous = k
    return out


def evaluate_greedy_0(attrs: GreedyAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, mask = np.asarray(inputs[0]), np.asarray(inputs[1])
    if data.ndim != 3 or mask.shape != data.shape[:2]:
        raise InputError(
            f"data {list(data.shape)} and sequence_mask {list(mask.shape)} do not fit [T, N, C], [T, N]"
        )
    frames, batches, classes = data.shape
    # -1 as the reference's T(-1) gives it: an unsigned type's largest value (NumPy refuses -1 there)
    out = np.full((batches, frames, 1, 1), np.array(-1).astype(data.dtype), data.dtype)
    best = _best_classes(widen(data))
    for b in range(batches):
        live = np.flatnonzero(mask[:, b] == 0)
        length = int(live[0]) if live.size else frames
        decoded = _decode(best[:length, b].tolist(), classes - 1, attrs.merge_repeated)
        out[b, : len(decoded), 0, 0] = decoded
    return [out]


def evaluate_greedy_6(attrs: GreedyAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, lengths = np.asarray(inputs[0]), np.asarray(inputs[1]).astype(np.int64)
    if data.ndim != 3 or lengths.shape != (data.shape[0],):
        raise InputError(
            f"data {list(data.shape)} and sequence_length {list(lengths.shape)} do not fit [N, T, C], [N]"
        )
    batches, frames, classes = data.shape
    blank = int(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 else classes - 1
    if np.any((lengths < 0) | (lengths > frames)):
        raise InputError(f"sequence_length must lie in [0, {frames}], got {lengths.tolist()}")
    class_type = attrs.classes_index_type.numpy_dtype or np.dtype(np.int32)
    out = np.full((batches, frames), -1, class_type)
    counts = np.zeros(batches, attrs.sequence_length_type.numpy_dtype or np.dtype(np.int32))
    best = _best_classes(widen(data))
    for b in range(batches):
        decoded = _decode(best[b, : lengths[b]].tolist(), blank, attrs.merge_repeated)
        out[b, : len(decoded)] = decoded
        counts[b] = len(decoded)
    return [out, counts]


def _spec(
    type_name: str,
    version: int,
    inputs: int | tuple[int, int],
    parse: Callable[[Node], GreedyAttrs],
    infer: Callable[[GreedyAttrs, Sequence[TensorInfo]], list[TensorInfo]],
    evaluate: Callable[[GreedyAttrs, Sequence[np.ndarray]], list[np.ndarray]],
) -> OpSpec[GreedyAttrs]:
    return OpSpec(
        type=type_name,
        version=version,
        since=max(version, 1),
        inputs=inputs,
        parse=parse,
        infer=infer,
        evaluate=evaluate,
        evaluate_types=(frozenset(),),  # OpenVINO's core ops have no evaluate: they never fold
    )


SPECS = (
    _spec("CTCGreedyDecoder", 0, 2, parse_greedy_0, infer_greedy_0, evaluate_greedy_0),
    _spec("CTCGreedyDecoderSeqLen", 6, (2, 3), parse_greedy_6, infer_greedy_6, evaluate_greedy_6),
)
