"""CTCLoss-4: the connectionist temporal classification loss per batch item.

Inputs: ``logits`` ``[N, T, C]`` (real), ``logit_length`` ``[N]``, ``labels`` ``[N, T]``,
``label_length`` ``[N]`` and optionally ``blank_index`` (a scalar; default ``C - 1``), all
integers.  Attributes ``preprocess_collapse_repeated``, ``ctc_merge_repeated`` (default true)
and ``unique``.  Output ``[N]`` of the logits' type (``ctc_loss_shape_inference.hpp``: the
batch dim merged from every input that has one, the time dims of logits and labels must be
compatible).

Values: the labels of an item (its first ``label_length`` entries) are decoded (``unique``:
first occurrences only; else ``preprocess_collapse_repeated``: runs merged) and interleaved
with blanks (``b l1 b l2 ... b``); per frame, ``log_softmax`` of the logits as the CPU plugin
computes it (the ``expf`` of each logit summed in double, ``logit - log(sum)`` rounded to
f32); then the backward recursion of Graves et al. (2006, eq. 10) in f32, over the frames of
``logit_length``, adding log-probabilities with ``a + log1p(exp(b - a))`` (``a`` the larger;
``-inf`` the neutral element) in the CPU plugin's order: stay on the same symbol (only for
blanks unless ``ctc_merge_repeated``), step to the next, skip a blank between two different
labels (or any two labels unless ``ctc_merge_repeated``).  The loss is minus the log-sum of
the two starting paths.

OpenVINO's core op has no ``evaluate``.  Its ``reference/ctc_loss.hpp`` sums the same paths by
enumerating them one by one (exponential in the length); the CPU plugin's
``nodes/ctc_loss.cpp`` uses this recursion, and ovonehot follows it (f16/bf16 computed in
f32 and rounded once; f64 in f64).  A label length above the logit length, a logit length
above ``T`` or a negative length is an error, as in both.  Empty labels (``label_length`` 0)
read outside the recursion's table in the CPU plugin; ovonehot gives the loss of the
all-blank path, the spec's value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr
from .common.numeric import libm, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class CTCLossAttrs:
    preprocess_collapse_repeated: bool = False
    ctc_merge_repeated: bool = True
    unique: bool = False


def parse_ctc_loss(node: Node) -> CTCLossAttrs:
    return CTCLossAttrs(
        bool_attr(node, "preprocess_collapse_repeated", False),
        bool_attr(node, "ctc_merge_repeated", True),
        bool_attr(node, "unique", False),
    )


_TYPE_CHECKS = (
    (1, "The logit length type is expected to be an integer type. Got: "),
    (2, "The labels type is expected to be an integer type. Got: "),
    (3, "The label length type is expected to be an integer type. Got: "),
    (4, "The blank index type is expected to be an integer type. Got: "),
)
_RANKS = (
    (0, 3, "Expected a 3D tensor for logits. Got: "),
    (1, 1, "Expected a 1D tensor for logit length. Got: "),
    (2, 2, "Expected a 2D tensor for labels. Got: "),
    (3, 1, "Expected a 1D tensor for label length. Got: "),
    (4, 0, "Expected a scalar for blank index. Got: "),
)


def _check(inputs: Sequence[TensorInfo]) -> None:
    logits = inputs[0].element_type
    if not (logits.is_real or logits.is_dynamic):
        raise ValidationError(
            f"The data type for logits is expected to be a floating point type. Got: {logits}"
        )
    for port, message in _TYPE_CHECKS:
        if port < len(inputs):
            et = inputs[port].element_type
            if not (et.is_integral_number or et.is_dynamic):
                raise ValidationError(f"{message}{et}")
    for port, rank, message in _RANKS:
        if port < len(inputs):
            shape = inputs[port].shape
            if shape.rank_is_static and shape.rank != rank:
                raise ValidationError(f"{message}{shape}")


def infer_ctc_loss(attrs: CTCLossAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    _check(inputs)
    logits, logit_length, labels, label_length = (i.shape for i in inputs[:4])
    batch, time = Dimension(), Dimension()
    if logits.rank_is_static:
        batch, time = logits[0], logits[1]
    first_dim = "The first dimension of"
    checks = (
        (logit_length, f"{first_dim} logit length must be equal to the first dimension of the logits."),
        (labels, f"{first_dim} labels must be equal to the first dimension of the logits and the logit length."),
        (label_length, (f"{first_dim} label length must be equal to the first dimension of the logits, "
                        "the logit length and labels.")),
    )  # fmt: skip
    for shape, message in checks:
        if not shape.rank_is_static:
            continue
        merged = batch.merge(shape[0])
        if merged is None:
            raise ValidationError(f"{message} Got: {shape[0]} and: {batch}")
        batch = merged
        if shape is labels:
            merged_time = time.merge(shape[1])
            if merged_time is None:
                raise ValidationError(
                    "The second dimension of labels must be equal to the second dimension of logits. "
                    f"Got: {shape[1]} and: {time}"
                )
            time = merged_time
    return [TensorInfo(inputs[0].element_type, PartialShape((batch,)))]


def _decoded(attrs: CTCLossAttrs, target: Sequence[int], blank: int) -> list[int]:
    """The item's labels decoded, with blanks before, between and after them."""
    symbols: list[int] = []
    if attrs.unique:
        for v in target:
            if v not in symbols:
                symbols.append(v)
    elif attrs.preprocess_collapse_repeated:
        for v in target:
            if not symbols or v != symbols[-1]:
                symbols.append(v)
    else:
        symbols = list(target)
    out = [blank]
    for v in symbols:
        out += [v, blank]
    return out


def _log_add(a: np.ndarray, b: np.ndarray, t: np.dtype) -> np.ndarray:
    """The CPU plugin's ``sumLogs``: -inf neutral, else larger + log1p(exp(smaller - larger))."""
    hi, lo = np.where(a > b, a, b), np.where(a > b, b, a)
    step = np.log1p(np.exp((lo - hi).astype(np.float64)).astype(t).astype(np.float64)).astype(t)
    summed = (hi + step).astype(t)
    result: np.ndarray = np.where(a == -np.inf, b, np.where(b == -np.inf, a, summed))
    return result


def _log_probs(logits: np.ndarray, symbols: Sequence[int], t: np.dtype) -> np.ndarray:
    """[frames, symbols]: logit - log(sum of exp), the sum in double of each exp in ``t``."""
    exps = np.exp(logits.astype(np.float64)).astype(t).astype(np.float64)
    total = np.add.accumulate(exps, axis=1)[:, -1]  # left to right, as the CPU plugin's loop
    log_total = libm("log", total)
    result: np.ndarray = (logits[:, symbols].astype(np.float64) - log_total[:, None]).astype(t)
    return result


def _loss(attrs: CTCLossAttrs, lp: np.ndarray, symbols: Sequence[int], blank: int, t: np.dtype) -> float:
    frames, length = lp.shape
    neg_inf = t.type(-np.inf)
    beta = np.full(length, neg_inf, t)
    beta[max(length - 2, 0) :] = 0
    sym = np.array(symbols)
    is_blank = sym == blank
    stay = np.full(length, True) if attrs.ctc_merge_repeated else is_blank
    skip = np.zeros(length, bool)
    if length > 2:
        skip[:-2] = ~is_blank[:-2] & (~np.full(length - 2, attrs.ctc_merge_repeated) | (sym[:-2] != sym[2:]))
    index = np.arange(length)
    for f in range(frames - 2, -1, -1):
        nxt = (beta + lp[f + 1]).astype(t)
        shift1 = np.concatenate([nxt[1:], [neg_inf]]).astype(t)
        shift2 = np.concatenate([nxt[2:], [neg_inf, neg_inf]]).astype(t)
        value = np.full(length, neg_inf, t)
        value = np.where(stay, _log_add(value, nxt, t), value)
        value = np.where(index + 1 < length, _log_add(value, shift1, t), value)
        value = np.where(skip, _log_add(value, shift2, t), value)
        live = (index >= max(0, length - 2 * (frames - f))) & (index < min(length, 2 * (f + 1)))
        beta = np.where(live, value, neg_inf).astype(t)
    first = (beta[0] + lp[0, 0]).astype(t)
    second = (beta[1] + lp[0, 1]).astype(t) if length > 1 else neg_inf
    return float(-_log_add(np.array(first, t), np.array(second, t), t))  # exact: f32 and f64 fit a float


def evaluate_ctc_loss(attrs: CTCLossAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    logits_in = np.asarray(inputs[0])
    logit_length, labels, label_length = (np.asarray(a).astype(np.int64) for a in inputs[1:4])
    if logits_in.ndim != 3:
        raise InputError(f"logits must be [N, T, C], got {list(logits_in.shape)}")
    n, frames_max, classes = logits_in.shape
    blank = int(np.asarray(inputs[4]).reshape(-1)[0]) if len(inputs) > 4 else classes - 1
    t = np.dtype(np.float64) if logits_in.dtype == np.float64 else np.dtype(np.float32)
    logits = widen(logits_in).astype(t)
    out = np.zeros(n, t)
    with quiet():
        for b in range(n):
            frames, count = int(logit_length[b]), int(label_length[b])
            if frames < 0 or count < 0 or frames > frames_max or count > frames:
                raise InputError(
                    "Logit length cannot be greater than max sequence length. Label length cannot be greater "
                    f"than a logit length and both cannot be negative. MaxSeqLen: {frames_max}; Logit len: "
                    f"{frames}; Label len: {count}"
                )
            target = [int(v) for v in labels[b, :count]]
            if any(not 0 <= v < classes for v in [*target, blank]):
                raise InputError(f"labels and blank_index must lie in [0, {classes}), got {target}, {blank}")
            if frames == 0:
                out[b] = np.inf if count else 0
                continue
            symbols = _decoded(attrs, target, blank)
            out[b] = _loss(attrs, _log_probs(logits[b, :frames], symbols, t), symbols, blank, t)
    return [narrow(out, logits_in.dtype)]


SPECS = (
    OpSpec(
        type="CTCLoss",
        version=4,
        since=4,
        inputs=(4, 5),
        parse=parse_ctc_loss,
        infer=infer_ctc_loss,
        evaluate=evaluate_ctc_loss,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
