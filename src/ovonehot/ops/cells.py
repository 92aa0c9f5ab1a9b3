"""RNNCell-0, GRUCell-3, LSTMCell-4 and LSTMCell-1: one time step of the recurrent sequences.

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

LSTMCell-1 (opset1..3) adds an optional 7th input ``P [3*hidden]`` (peepholes ``Pf, Pi, Po``),
``input_forget`` and ``weights_format`` (the gate order of W/R/B; default ``fico``).  Values as
``reference/lstm_cell.hpp``'s ``lstm_cell_v1`` in float64: ``f = f(zf + Pf*C)``, ``i = 1 - f``
with ``input_forget`` else ``f(zi + Pi*C)``, ``C' = f*C + i*g(zc)``, ``o = f(zo + Po*C')``,
``H' = o*h(C')``.  Another ``weights_format`` is reordered to ``fico`` (the spec's meaning; the
reference refuses it).  The 2026.4 CPU plugin ignores P, ``input_forget`` and ``weights_format``
(its results do not change with them): the tests use a float64 oracle there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo
from .recurrent import _ACTIVATIONS, Cell, SequenceAttrs, _divided, _parser, _stepper, _weights, float_type_of


def _cell_parser(cell: Cell) -> Callable[[Node], SequenceAttrs]:
    """The sequence's attribute parser; a cell has no ``direction`` (forward, one step)."""
    parse_sequence = _parser(cell)

    def parse(node: Node) -> SequenceAttrs:
        attrs = (*(a for a in node.attrs if a[0] != "direction"), ("direction", "forward"))
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
    et = float_type_of(x, (*states, w, r, b))
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
        blas=True,
        evaluate_types=(frozenset(),),  # OpenVINO's core ops have no evaluate: they never fold
    )


# -- LSTMCell-1 (opset1..3): peepholes, input_forget, weights_format ---------------------------
_GATE_ORDERS = ("fico", "icof", "ifco", "ifoc", "iofc")


@dataclass(frozen=True, slots=True)
class LSTMCell1Attrs:
    cell: SequenceAttrs  # hidden_size, activations, clip (LSTM, forward)
    input_forget: bool = False
    weights_format: str = "fico"


def parse_lstm_cell_1(node: Node) -> LSTMCell1Attrs:
    fmt = node.attr("weights_format")
    fmt = "fico" if fmt is None else fmt.strip().lower()
    if fmt not in _GATE_ORDERS:
        raise ValidationError(
            f"{node.describe()}: weights_format {fmt!r} is not one of {', '.join(_GATE_ORDERS)}"
        )
    return LSTMCell1Attrs(_cell_parser(Cell.LSTM)(node), bool_attr(node, "input_forget", False), fmt)


def infer_lstm_cell_1(attrs: LSTMCell1Attrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    outs = infer_cell(attrs.cell, inputs[:6])
    hidden = outs[0].shape[1]
    if len(inputs) > 6:
        p = inputs[6]
        if (
            p.shape.rank_is_static
            and p.shape[0].is_static
            and hidden.is_static
            and p.shape[0].min != 3 * hidden.min
        ):
            raise ValidationError(
                f"Parameter hidden_size mistmatched in P input. Current value is: {p.shape[0].min}, "
                f"expected: {3 * hidden.min}."
            )
    return outs


def _to_fico(a: np.ndarray, fmt: str) -> np.ndarray:
    """Gate blocks (along axis 0) from ``fmt``'s order to OpenVINO's f, i, c, o."""
    blocks = dict(zip(fmt, np.split(a, 4, axis=0), strict=True))
    return np.concatenate([blocks[g] for g in "fico"], axis=0)


def evaluate_lstm_cell_1(attrs: LSTMCell1Attrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The reference's ``lstm_cell_v1`` in float64: peepholes P = [Pf, Pi, Po] on C (Po on the new C)."""
    x = np.asarray(inputs[0])
    if not is_float(x.dtype) or x.ndim != 2:
        raise InputError(f"LSTMCell takes 2-D float data, got {x.dtype}{list(x.shape)}")
    h, c, w, r, b = (widen(np.asarray(a)).astype(np.float64) for a in inputs[1:6])
    hid = h.shape[1]
    p = widen(np.asarray(inputs[6])).astype(np.float64) if len(inputs) > 6 else np.zeros(3 * hid)
    w, r, b = (_to_fico(a, attrs.weights_format) for a in (w, r, b))
    f_act, g_act, h_act = (_ACTIVATIONS[a] for a in attrs.cell.activations)
    clip = attrs.cell.clip

    def gate(v: np.ndarray, act: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        return act(np.clip(v, -clip, clip) if clip > 0 else v)

    with quiet():
        z = widen(x).astype(np.float64) @ w.T + (h @ r.T + b)
        zf, zi, zc, zo = np.split(z, 4, axis=1)
        forget = gate(zf + p[:hid] * c, f_act)
        inp = 1.0 - forget if attrs.input_forget else gate(zi + p[hid : 2 * hid] * c, f_act)
        new_c = forget * c + inp * gate(zc, g_act)
        out = gate(zo + p[2 * hid :] * new_c, f_act)
        new_h = out * h_act(new_c)
    cast = np.float64 if x.dtype == np.float64 else np.float32
    return [narrow(a.astype(cast), x.dtype) for a in (new_h, new_c)]


LSTM_CELL_1 = OpSpec(
    type="LSTMCell",
    version=1,
    since=1,
    inputs=(6, 7),
    parse=parse_lstm_cell_1,
    infer=infer_lstm_cell_1,
    evaluate=evaluate_lstm_cell_1,
    blas=True,
    evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
)
SPECS: tuple[OpSpec[Any], ...] = (
    _spec("RNNCell", 0, Cell.RNN),
    _spec("GRUCell", 3, Cell.GRU),
    _spec("LSTMCell", 4, Cell.LSTM),
    LSTM_CELL_1,
)
