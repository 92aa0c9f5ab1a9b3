"""RNNSequence-5, GRUSequence-5, LSTMSequence-5: character RNNs over one-hot inputs (``nn.GRU(F.one_hot(t))``).

Inputs (OpenVINO's opset5 specs): ``X [batch, seq, input]``, the initial hidden state
``H0 [batch, dirs, hidden]`` (LSTM also ``C0``), ``sequence_lengths [batch]``, and per
direction the weights ``W [dirs, gates*hidden, input]``, ``R [dirs, gates*hidden,
hidden]`` and biases ``B [dirs, gates*hidden]`` (GRU with ``linear_before_reset``:
``4*hidden``).  Gate order in W/R/B: LSTM ``f, i, c, o``; GRU ``z, r, h``; RNN one gate.

Attributes: ``hidden_size``, ``direction`` (forward, reverse, bidirectional: dirs 1 or
2, the second running backwards), ``activations`` (default sigmoid/tanh/tanh for LSTM,
sigmoid/tanh for GRU, tanh for RNN; sigmoid, tanh and relu are supported),
``clip`` (when > 0, gate pre-activations are clipped to [-clip, clip]) and, for GRU,
``linear_before_reset``.

Per step (f, g, h the activations):
  LSTM: ``f,i,o = f(X W + H R + B)``, ``c~ = g(...)``, ``C = f*C + i*c~``, ``H = o*h(C)``;
  GRU: ``z, r = f(X W + H R + B)``; ``h~ = g(X Wh + (r*H) Rh + Bh)``, or with
  ``linear_before_reset`` ``g(X Wh + Wbh + r*(H Rh + Rbh))``; ``H = (1-z)*h~ + z*H``;
  RNN: ``H = f(X W + H R + B)``.
A sequence stops at its length: later ``Y`` entries are 0 and ``Ho``/``Co`` hold the
state after the last real step (the reverse direction starts at ``length - 1``); a
length of 0 gives zero states (the CPU plugin's behaviour; the spec is silent).

Outputs: ``Y [batch, dirs, seq, hidden]``, ``Ho [batch, dirs, hidden]`` (LSTM also
``Co``).  Arithmetic is float64, rounded once to the element type; OpenVINO's core has
no evaluate for these ops and its CPU plugin works in f32 (tests state the tolerance).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UnsupportedError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr, enum_attr, float_attr, int_attr, str_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


class Cell(enum.Enum):
    RNN = ("RNNSequence", 1, ("tanh",))
    GRU = ("GRUSequence", 3, ("sigmoid", "tanh"))
    LSTM = ("LSTMSequence", 4, ("sigmoid", "tanh", "tanh"))

    @property
    def gates(self) -> int:
        gates: int = self.value[1]
        return gates

    @property
    def default_activations(self) -> tuple[str, ...]:
        names: tuple[str, ...] = self.value[2]
        return names


class Direction(enum.Enum):
    FORWARD = "forward"
    REVERSE = "reverse"
    BIDIRECTIONAL = "bidirectional"


_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


@dataclass(frozen=True, slots=True)
class SequenceAttrs:
    cell: Cell
    hidden_size: int
    direction: Direction
    activations: tuple[str, ...]
    clip: float = 0.0
    linear_before_reset: bool = False

    @property
    def dirs(self) -> int:
        return 2 if self.direction is Direction.BIDIRECTIONAL else 1


def _parser(cell: Cell) -> Callable[[Node], SequenceAttrs]:
    def parse(node: Node) -> SequenceAttrs:
        text = str_attr(node, "activations", "")
        names = tuple(a.strip().lower() for a in text.split(",") if a.strip()) or cell.default_activations
        unknown = [a for a in names if a not in _ACTIVATIONS]
        if unknown:
            raise UnsupportedError(
                f"{node.describe()}: activation {unknown[0]!r} is not supported (supported: sigmoid, tanh, relu)"
            )
        alpha, beta = str_attr(node, "activations_alpha", ""), str_attr(node, "activations_beta", "")
        if alpha.strip() or beta.strip():
            raise UnsupportedError(f"{node.describe()}: activations_alpha/beta are not supported")
        return SequenceAttrs(
            cell,
            int_attr(node, "hidden_size"),
            enum_attr(node, "direction", Direction),
            names,
            float_attr(node, "clip", 0.0),
            bool_attr(node, "linear_before_reset", False) if cell is Cell.GRU else False,
        )

    return parse


def _merge(dims: Sequence[Dimension], what: str) -> Dimension:
    out = Dimension()
    for d in dims:
        merged = out.merge(d)
        if merged is None:
            raise ValidationError(
                f"Dimension {what} is not consistent across inputs: {', '.join(map(str, dims))}"
            )
        out = merged
    return out


def _divided(d: Dimension, k: int) -> Dimension | None:
    """OpenVINO's ``Dimension / k``: [ceil(min / k), floor(max / k)]; None when that is empty."""
    lo = -(-d.min // k)
    hi = None if d.max is None else d.max // k
    return None if hi is not None and hi < lo else Dimension(lo, hi)


def _hidden_dim(
    attrs: SequenceAttrs,
    states: Sequence[TensorInfo],
    w: TensorInfo,
    r: TensorInfo,
    b: TensorInfo,
    dim: Callable[[TensorInfo, int, int], Dimension],
) -> Dimension:
    """The outputs' hidden dim as OpenVINO infers it (``rnn_base_shape_inference.hpp``, seq_base).

    The ``hidden_size`` attribute plays no part ("not used for backward compatibility"):
    the dim is merged from the states' and R's last dims; when that is static, W, R and B
    must be compatible with gates times it; otherwise a W or R whose first dim is static
    lends its second dim divided by the gates.  All dynamic gives ``?`` (ONNX RNN/GRU/LSTM
    cases with every input dynamic), whatever ``hidden_size`` says.
    """
    hidden = Dimension()
    for d in (*(dim(s, 2, 3) for s in states), dim(r, 2, 3)):
        merged = hidden.merge(d)
        if merged is None:
            raise ValidationError("Dimension `hidden_size` is not matched between inputs.")
        hidden = merged
    gates = attrs.cell.gates
    if hidden.is_static:
        bias_gates = gates + (1 if attrs.linear_before_reset else 0)
        for name, info, rank, times in (("W", w, 3, gates), ("R", r, 3, gates), ("B", b, 2, bias_gates)):
            expected = Dimension.static(hidden.min * times)
            got = dim(info, 1, rank)
            if not got.compatible(expected):
                raise ValidationError(
                    f"Second dimension of {name} input shape is required to be compatible "
                    f"with {expected}. Got shape: {got}."
                )
        return hidden
    for info in (w, r):
        if info.shape.rank_is_static and dim(info, 0, 3).is_static:
            part = _divided(dim(info, 1, 3), gates)
            merged = None if part is None else hidden.merge(part)
            if merged is None:
                raise ValidationError("Dimension `hidden_size` is not matched between inputs.")
            hidden = merged
    return hidden


def infer_sequence(attrs: SequenceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x, states, lengths = inputs[0], inputs[1 : 1 + n_states], inputs[1 + n_states]
    w, r, b = inputs[2 + n_states : 5 + n_states]
    et = x.element_type
    for info in (*states, w, r, b):
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError(f"Element types of inputs do not match: {et} and {info.element_type}")
        et = merged
    if not (et.is_dynamic or et.is_real):
        raise ValidationError(f"The element type of the inputs must be a float type. Got: {et}")
    if not (lengths.element_type.is_dynamic or lengths.element_type.is_integral_number):
        raise ValidationError(f"sequence_lengths must be integers. Got: {lengths.element_type}")
    if attrs.hidden_size <= 0:
        raise ValidationError(f"hidden_size must be positive. Got: {attrs.hidden_size}")

    def dim(info: TensorInfo, k: int, rank: int) -> Dimension:
        if not info.shape.rank_is_static:
            return Dimension()
        if info.shape.rank != rank:
            raise ValidationError(f"Input of shape {info.shape} must have rank {rank}.")
        return info.shape[k]

    batch = _merge([dim(x, 0, 3), *(dim(s, 0, 3) for s in states), dim(lengths, 0, 1)], "batch_size")
    seq = dim(x, 1, 3)
    _merge([dim(x, 2, 3), dim(w, 2, 3)], "input_size")
    _merge(
        [
            Dimension.static(attrs.dirs),
            *(dim(s, 1, 3) for s in states),
            dim(w, 0, 3),
            dim(r, 0, 3),
            dim(b, 0, 2),
        ],
        "num_directions",
    )
    hidden = _hidden_dim(attrs, states, w, r, b, dim)
    dirs = Dimension.static(attrs.dirs)
    y = TensorInfo(et, PartialShape((batch, dirs, seq, hidden)))
    state = TensorInfo(et, PartialShape((batch, dirs, hidden)))
    return [y] + [state] * n_states


def _clip(x: np.ndarray, clip: float) -> np.ndarray:
    return np.clip(x, -clip, clip) if clip > 0 else x


def evaluate_sequence(attrs: SequenceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x = np.asarray(inputs[0])
    if not is_float(x.dtype):
        raise InputError(f"{attrs.cell.value[0]} takes float data, got {x.dtype}")
    states = [widen(np.asarray(s)).astype(np.float64) for s in inputs[1 : 1 + n_states]]
    lengths = np.asarray(inputs[1 + n_states]).astype(np.int64)
    w, r, b = (widen(np.asarray(a)).astype(np.float64) for a in inputs[2 + n_states : 5 + n_states])
    xs = widen(x).astype(np.float64)
    batch, seq = xs.shape[0], xs.shape[1]
    hid = attrs.hidden_size
    if np.any((lengths < 0) | (lengths > seq)):
        raise InputError(f"sequence_lengths must lie in [0, {seq}], got {lengths.tolist()}")
    acts = [_ACTIVATIONS[a] for a in attrs.activations]
    y = np.zeros((batch, attrs.dirs, seq, hid))
    outs = [np.zeros((batch, attrs.dirs, hid)) for _ in range(n_states)]
    with quiet():
        for d in range(attrs.dirs):
            reverse = attrs.direction is Direction.REVERSE or d == 1
            h = states[0][:, d].copy()
            c = states[1][:, d].copy() if n_states == 2 else None
            for step in range(seq):
                # position per batch row: forward runs 0..len-1, reverse len-1..0
                t = lengths - 1 - step if reverse else np.full(batch, step)
                live = step < lengths
                if not live.any():
                    break
                xt = xs[np.arange(batch), np.clip(t, 0, seq - 1)]
                new_h, new_c = _step(attrs, acts, xt, h, c, w[d], r[d], b[d])
                h = np.where(live[:, None], new_h, h)
                if c is not None and new_c is not None:
                    c = np.where(live[:, None], new_c, c)
                rows = np.flatnonzero(live)
                y[rows, d, t[rows]] = new_h[rows]
            empty = lengths == 0  # no step at all: zero states, as the CPU plugin gives (not H0/C0)
            outs[0][:, d] = np.where(empty[:, None], 0.0, h)
            if c is not None:
                outs[1][:, d] = np.where(empty[:, None], 0.0, c)
    dtype = x.dtype
    cast = np.float64 if dtype == np.float64 else np.float32
    return [narrow(a.astype(cast), dtype) for a in (y, *outs)]


def _step(
    attrs: SequenceAttrs,
    acts: Sequence[Callable[[np.ndarray], np.ndarray]],
    xt: np.ndarray,
    h: np.ndarray,
    c: np.ndarray | None,
    w: np.ndarray,
    r: np.ndarray,
    b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    hid = attrs.hidden_size
    clip = attrs.clip
    if attrs.cell is Cell.RNN:
        return acts[0](_clip(xt @ w.T + h @ r.T + b, clip)), None
    if attrs.cell is Cell.LSTM:
        assert c is not None
        gates = xt @ w.T + h @ r.T + b
        f_g, i_g, c_g, o_g = (_clip(gates[:, k * hid : (k + 1) * hid], clip) for k in range(4))
        f, i, o = acts[0](f_g), acts[0](i_g), acts[0](o_g)
        new_c = f * c + i * acts[1](c_g)
        return o * acts[2](new_c), new_c
    xw = xt @ w.T
    zr = xw[:, : 2 * hid] + h @ r[: 2 * hid].T + b[: 2 * hid]
    z = acts[0](_clip(zr[:, :hid], clip))
    rg = acts[0](_clip(zr[:, hid:], clip))
    rh = r[2 * hid :]
    if attrs.linear_before_reset:
        cand = xw[:, 2 * hid :] + b[2 * hid : 3 * hid] + rg * (h @ rh.T + b[3 * hid : 4 * hid])
    else:
        cand = xw[:, 2 * hid :] + (rg * h) @ rh.T + b[2 * hid : 3 * hid]
    hh = acts[1](_clip(cand, clip))
    return (1.0 - z) * hh + z * h, None


SPECS = (
    OpSpec(
        type="RNNSequence",
        version=5,
        since=5,
        inputs=6,
        parse=_parser(Cell.RNN),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
    ),
    OpSpec(
        type="GRUSequence",
        version=5,
        since=5,
        inputs=6,
        parse=_parser(Cell.GRU),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
    ),
    OpSpec(
        type="LSTMSequence",
        version=5,
        since=5,
        inputs=7,
        parse=_parser(Cell.LSTM),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
    ),
)
