"""RNNCell-0, GRUCell-3 and LSTMCell-4: one time step of the recurrent sequences.

Inputs: ``X [batch, input]``, ``H [batch, hidden]`` (LSTM also ``C``), ``W [gates*hidden,
input]``, ``R [gates*hidden, hidden]``, ``B [gates*hidden]`` (GRU with ``linear_before_reset``:
``4*hidden``); gate order as in the sequences (LSTM ``f, i, c, o``; GRU ``z, r, h``).
Attributes as the sequences' (``hidden_size``, ``activations``, ``clip``,
``linear_before_reset``), no direction.  Outputs ``Ho [batch, hidden]`` (LSTM also ``Co``).

Shapes (``rnn_base_shape_inference.hpp``, ``cell_base_shape_infer``): batch merged from X and
the states, hidden from the states and R's second dim (the ``hidden_size`` attribute plays no
part), then W/R/B's first dims checked against gates times it, or lending it when it is
unknown (LSTMCell then takes the ``hidden_size`` attribute).  Values: the step of :mod:`ovonehot.ops.recurrent` (float64, rounded once to the data
type); the core ops have no ``evaluate`` and the CPU plugin works in f32 (the tests state the
tolerance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo
from .recurrent import _ACTIVATIONS, Cell, SequenceAttrs, _divided, _parser, _stepper, _weights


def _cell_parser(cell: Cell) -> Callable[[Node], SequenceAttrs]:
    """The sequence's attribute parser; a cell has no ``direction`` (forward, one step)."""
    parse_sequence = _parser(cell)

    def parse(node: Node) -> SequenceAttrs:
        attrs = tuple(a for a in node.attrs if a[0] != "direction") + (("direction", "forward"),)
        return parse_sequence(replace(node, attrs=attrs))

    return parse


def _dim(info: TensorInfo, k: int) -> Dimension:
    return info.shape[k] if info.shape.rank_is_static else Dimension()


def _merge_into(into: Dimension, other: Dimension, what: str) -> Dimension:
    merged = into.merge(other)
    if merged is None:
        raise ValidationError(f"Dimension `{what}` is not matched between inputs.")
    return merged


def _check_weight_dims(
    attrs: SequenceAttrs, hidden: Dimension, w: TensorInfo, r: TensorInfo, b: TensorInfo
) -> Dimension:
    gates = attrs.cell.gates
    if hidden.is_static:
        bias_gates = gates + (1 if attrs.linear_before_reset else 0)
        for info, label, times in ((w, "First dimension of W", gates), (r, "Fisrt dimension of R", gates),
                                   (b, "First dimension of B", bias_gates)):  # fmt: skip
            expected = hidden.min * times
            if info.shape.rank_is_static and not info.shape[0].contains(expected):
                raise ValidationError(
                    f"{label} input shape is required to be compatible with {expected}. Got shape: {info.shape[0]}."
                )
        return hidden
    for info in (w, r):
        if info.shape.rank_is_static and info.shape[0].is_static:
            part = _divided(info.shape[0], gates)
            if part is None:
                raise ValidationError("Dimension `hidden_size` is not matched between inputs.")
            hidden = _merge_into(hidden, part, "hidden_size")
    return hidden


def infer_cell(attrs: SequenceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x, states = inputs[0], inputs[1 : 1 + n_states]
    w, r, b = inputs[1 + n_states : 4 + n_states]
    for i, (info, rank) in enumerate(zip(inputs, [2] * (1 + n_states) + [2, 2, 1], strict=False)):
        if info.shape.rank_is_static and info.shape.rank != rank:
            raise ValidationError(
                f"Shape rank of input at {i} is incompatible. Expected rank: {rank}, actual shape: {info.shape}."
            )
    et = x.element_type
    for info in (*states, w, r, b):
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError(f"Element types of inputs do not match: {et} and {info.element_type}")
        et = merged
    if not (et.is_dynamic or et.is_real):
        raise ValidationError(f"The element type of the inputs must be a float type. Got: {et}")
    batch, hidden = _dim(x, 0), _dim(states[0], 1)
    for s in states:
        batch = _merge_into(batch, _dim(s, 0), "batch_size")
    for s in states[1:]:
        hidden = _merge_into(hidden, _dim(s, 1), "hidden_size")
    if r.shape.rank_is_static:
        hidden = _merge_into(hidden, r.shape[1], "hidden_size")
    hidden = _check_weight_dims(attrs, hidden, w, r, b)
    if attrs.cell is Cell.LSTM and hidden.is_dynamic:  # LSTMCell alone falls back on the attribute
        hidden = Dimension.static(attrs.hidden_size)
    return [TensorInfo(et, PartialShape((batch, hidden)))] * n_states


def evaluate_cell(attrs: SequenceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x = np.asarray(inputs[0])
    if not is_float(x.dtype) or x.ndim != 2:
        raise InputError(f"{attrs.cell.name} cell takes 2-D float data, got {x.dtype}{list(x.shape)}")
    states = [widen(np.asarray(s)).astype(np.float64) for s in inputs[1 : 1 + n_states]]
    w, r, b = (np.asarray(a)[None] for a in inputs[1 + n_states : 4 + n_states])
    acts = [_ACTIVATIONS[a] for a in attrs.activations]
    with quiet():
        (weights,) = _weights(attrs, [w, r, b])
        step = _stepper(attrs, acts, weights)
        h, c = step(widen(x).astype(np.float64), states[0], states[1] if n_states == 2 else None)
    cast = np.float64 if x.dtype == np.float64 else np.float32
    outs = [h] if c is None else [h, c]
    return [narrow(o.astype(cast), x.dtype) for o in outs]


def _spec(type_name: str, version: int, cell: Cell) -> OpSpec[SequenceAttrs]:
    n_states = 2 if cell is Cell.LSTM else 1
    return OpSpec(
        type=type_name,
        version=version,
        since=max(version, 1),
        inputs=4 + n_states,
        parse=_cell_parser(cell),
        infer=infer_cell,
        evaluate=evaluate_cell,
        evaluate_types=(frozenset(),),  # OpenVINO's core ops have no evaluate: they never fold
    )


SPECS = (
    _spec("RNNCell", 0, Cell.RNN),
    _spec("GRUCell", 3, Cell.GRU),
    _spec("LSTMCell", 4, Cell.LSTM),
)
