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
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr, enum_attr, float_attr, int_attr, str_attr
from .common.binding import dtype_of, folded, mode_independent, shape_of
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import Kernel, OpSpec, TensorInfo


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


def float_type_of(x: TensorInfo, others: Sequence[TensorInfo]) -> ElementType:
    """The one element type of a recurrent op's X, states and weights (OpenVINO's merge), a float."""
    et = x.element_type
    for info in others:
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError(f"Element types of inputs do not match: {et} and {info.element_type}")
        et = merged
    if not (et.is_dynamic or et.is_real):
        raise ValidationError(f"The element type of the inputs must be a float type. Got: {et}")
    return et


def infer_sequence(attrs: SequenceAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x, states, lengths = inputs[0], inputs[1 : 1 + n_states], inputs[1 + n_states]
    w, r, b = inputs[2 + n_states : 5 + n_states]
    et = float_type_of(x, (*states, w, r, b))
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


@dataclass(frozen=True, slots=True)
class _Weights:
    """One direction's W, R, B in float64, sliced and transposed as a step multiplies them."""

    w_t: np.ndarray  # W.T
    r_t: np.ndarray  # R.T (GRU: of the z and r gates)
    b: np.ndarray  # B (GRU: of the z and r gates)
    rh_t: np.ndarray | None = None  # GRU: the candidate's R.T
    bh: np.ndarray | None = None  # GRU: the candidate's bias (with linear_before_reset: Wbh)
    rbh: np.ndarray | None = None  # GRU with linear_before_reset: Rbh


def _weights(attrs: SequenceAttrs, arrays: Sequence[np.ndarray]) -> list[_Weights]:
    """Per direction, the step's operands (views of one float64 copy of each of W, R, B)."""
    w, r, b = (widen(np.asarray(a)).astype(np.float64) for a in arrays)
    hid = attrs.hidden_size
    out = []
    for d in range(attrs.dirs):
        if attrs.cell is not Cell.GRU:
            out.append(_Weights(w[d].T, r[d].T, b[d]))
            continue
        rbh = b[d][3 * hid : 4 * hid] if attrs.linear_before_reset else None
        rd, bd = r[d], b[d]
        out.append(
            _Weights(w[d].T, rd[: 2 * hid].T, bd[: 2 * hid], rd[2 * hid :].T, bd[2 * hid : 3 * hid], rbh)
        )
    return out


@dataclass(frozen=True, slots=True)
class _Tick:
    """One time step of one direction over the batch: forward runs 0..len-1, reverse len-1..0."""

    at: int | tuple[np.ndarray, np.ndarray]  # X's rows: one position for all, or (rows, positions)
    live: np.ndarray | None  # [batch, 1]: the rows still running (the others keep their state); None: all
    rows: tuple[np.ndarray, np.ndarray] | None  # the (rows, positions) of Y written; None: all, at ``at``


@dataclass(frozen=True, slots=True)
class _Schedule:
    """The steps of one direction, from the sequence lengths."""

    ticks: tuple[_Tick, ...]
    empty: np.ndarray | None  # [batch, 1]: rows of length 0 (zero states out); None: none


def _lengths_ok(lengths: np.ndarray, seq: int) -> bool:
    return not np.any((lengths < 0) | (lengths > seq))


def _schedules(attrs: SequenceAttrs, lengths: np.ndarray, seq: int) -> list[_Schedule]:
    batch = lengths.shape[0]
    everyone = np.arange(batch)
    out = []
    for d in range(attrs.dirs):
        reverse = attrs.direction is Direction.REVERSE or d == 1
        ticks = []
        for step in range(seq):
            t = lengths - 1 - step if reverse else np.full(batch, step)
            live = step < lengths
            if not live.any():
                break
            if live.all() and (t == t[0]).all():
                ticks.append(_Tick(int(t[0]), None, None))
                continue
            rows = np.flatnonzero(live)
            at = (everyone, np.clip(t, 0, seq - 1))
            ticks.append(_Tick(at, None if live.all() else live[:, None], (rows, t[rows])))
        empty = lengths == 0  # no step at all: zero states, as the CPU plugin gives (not H0/C0)
        out.append(_Schedule(tuple(ticks), empty[:, None] if empty.any() else None))
    return out


def _run(
    attrs: SequenceAttrs,
    acts: Sequence[Callable[[np.ndarray], np.ndarray]],
    x: np.ndarray,
    initial: Sequence[np.ndarray],
    weights: Sequence[_Weights],
    schedules: Sequence[_Schedule],
) -> list[np.ndarray]:
    xs = widen(x).astype(np.float64)
    states = [widen(np.asarray(s)).astype(np.float64) for s in initial]
    batch, seq = xs.shape[0], xs.shape[1]
    hid = attrs.hidden_size
    y = np.zeros((batch, attrs.dirs, seq, hid))
    outs = [np.zeros((batch, attrs.dirs, hid)) for _ in states]
    for d, (dw, plan) in enumerate(zip(weights, schedules, strict=True)):
        step = _stepper(attrs, acts, dw)
        h = states[0][:, d].copy()
        c = states[1][:, d].copy() if len(states) == 2 else None
        for tick in plan.ticks:
            xt = xs[:, tick.at].copy() if isinstance(tick.at, int) else xs[tick.at]
            new_h, new_c = step(xt, h, c)
            if tick.live is None:
                h, c = new_h, new_c
            else:
                h = np.where(tick.live, new_h, h)
                if c is not None and new_c is not None:
                    c = np.where(tick.live, new_c, c)
            if tick.rows is None:
                y[:, d, tick.at] = new_h
            else:
                rows, t = tick.rows
                y[rows, d, t] = new_h[rows]
        outs[0][:, d] = h if plan.empty is None else np.where(plan.empty, 0.0, h)
        if c is not None:
            outs[1][:, d] = c if plan.empty is None else np.where(plan.empty, 0.0, c)
    dtype = x.dtype
    cast = np.float64 if dtype == np.float64 else np.float32
    return [narrow(a.astype(cast), dtype) for a in (y, *outs)]


def evaluate_sequence(attrs: SequenceAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x = np.asarray(inputs[0])
    if not is_float(x.dtype):
        raise InputError(f"{attrs.cell.value[0]} takes float data, got {x.dtype}")
    lengths = np.asarray(inputs[1 + n_states]).astype(np.int64)
    seq = x.shape[1]
    if not _lengths_ok(lengths, seq):
        raise InputError(f"sequence_lengths must lie in [0, {seq}], got {lengths.tolist()}")
    acts = [_ACTIVATIONS[a] for a in attrs.activations]
    with quiet():
        weights = _weights(attrs, inputs[2 + n_states : 5 + n_states])
        schedules = _schedules(attrs, lengths, seq)
        return _run(attrs, acts, x, inputs[1 : 1 + n_states], weights, schedules)


def bind_sequence(
    attrs: SequenceAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Float data of a static shape: the weights' float64 gate slices once when W, R and B are
    folded (the usual case), the time steps once when the sequence lengths are (a model's
    lengths from the input's shape); each run steps through the same per-step arithmetic."""
    n_states = 2 if attrs.cell is Cell.LSTM else 1
    x_info, len_info = inputs[0], inputs[1 + n_states]
    if not is_float(dtype_of(x_info)) or not x_info.shape.is_static or len(x_info.shape) != 3:
        return None
    seq = shape_of(x_info)[1]
    acts = [_ACTIVATIONS[a] for a in attrs.activations]
    params = [p for p in (folded(t) for t in inputs[2 + n_states : 5 + n_states]) if p is not None]
    fixed_weights = _weights(attrs, params) if len(params) == 3 else None
    given = folded(len_info)
    fixed_plan = None
    if given is not None:
        lengths = np.asarray(given).astype(np.int64)
        if lengths.ndim != 1 or not _lengths_ok(lengths, seq):
            return None  # (the kernel words it)
        fixed_plan = _schedules(attrs, lengths, seq)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        weights = fixed_weights or _weights(attrs, values[2 + n_states : 5 + n_states])
        schedules = fixed_plan
        if schedules is None:
            lengths = np.asarray(values[1 + n_states]).astype(np.int64)
            if not _lengths_ok(lengths, seq):
                raise ValueError("sequence lengths out of range")  # (the kernel words it)
            schedules = _schedules(attrs, lengths, seq)
        return _run(attrs, acts, values[0], values[1 : 1 + n_states], weights, schedules)

    return kernel


Step = Callable[[np.ndarray, np.ndarray, np.ndarray | None], tuple[np.ndarray, np.ndarray | None]]


def _stepper(attrs: SequenceAttrs, acts: Sequence[Callable[[np.ndarray], np.ndarray]], dw: _Weights) -> Step:
    """One time step of one direction: (X rows, H, C) -> (new H, new C), its operands bound."""
    hid, h2 = attrs.hidden_size, 2 * attrs.hidden_size
    clip = attrs.clip
    w_t, r_t, b = dw.w_t, dw.r_t, dw.b
    f = acts[0]
    if attrs.cell is Cell.RNN:

        def rnn(xt: np.ndarray, h: np.ndarray, c: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
            return f(_clip(xt @ w_t + h @ r_t + b, clip)), None

        return rnn
    g = acts[1]
    if attrs.cell is Cell.LSTM:
        act_h = acts[2]

        def lstm(xt: np.ndarray, h: np.ndarray, c: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
            gates = xt @ w_t + h @ r_t + b
            f_g, i_g, c_g, o_g = (_clip(gates[:, k * hid : (k + 1) * hid], clip) for k in range(4))
            forget, inp, out = f(f_g), f(i_g), f(o_g)
            new_c = forget * c + inp * g(c_g)
            return out * act_h(new_c), new_c

        return lstm
    rh_t, bh, rbh = dw.rh_t, dw.bh, dw.rbh

    def gru(xt: np.ndarray, h: np.ndarray, c: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        xw = xt @ w_t
        zr = xw[:, :h2] + h @ r_t + b
        z = f(_clip(zr[:, :hid], clip))
        rg = f(_clip(zr[:, hid:], clip))
        cand = (
            xw[:, h2:] + bh + rg * (h @ rh_t + rbh)  # linear_before_reset
            if rbh is not None
            else xw[:, h2:] + (rg * h) @ rh_t + bh
        )
        hh = g(_clip(cand, clip))
        return (1.0 - z) * hh + z * h, None

    return gru


SPECS = (
    OpSpec(
        type="RNNSequence",
        version=5,
        since=5,
        inputs=6,
        parse=_parser(Cell.RNN),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
        blas=True,
        specialize=mode_independent(bind_sequence),
    ),
    OpSpec(
        type="GRUSequence",
        version=5,
        since=5,
        inputs=6,
        parse=_parser(Cell.GRU),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
        blas=True,
        specialize=mode_independent(bind_sequence),
    ),
    OpSpec(
        type="LSTMSequence",
        version=5,
        since=5,
        inputs=7,
        parse=_parser(Cell.LSTM),
        infer=infer_sequence,
        evaluate=evaluate_sequence,
        blas=True,
        specialize=mode_independent(bind_sequence),
    ),
)
