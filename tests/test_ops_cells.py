"""RNNCell-0, GRUCell-3 and LSTMCell-4 against OpenVINO.

The core ops have no ``evaluate``; values against the CPU plugin (deterministic config, f32)
within CPU_RTOL/CPU_ATOL (ovonehot computes the step in float64 and rounds once, as for the
sequences), and against a float64 oracle written here from the spec's formulas within 1e-12.
Shapes, types and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")
o3 = pytest.importorskip("openvino.opset3")

CPU_RTOL = 1e-5
CPU_ATOL = 1e-6
RNG = np.random.default_rng(3)
BATCH, INPUT, HIDDEN = 3, 5, 4


def _arrays(gates: int, bias_gates: int | None = None, states: int = 1, dtype=np.float32):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((BATCH, INPUT))
    hs = [RNG.standard_normal((BATCH, HIDDEN)) for _ in range(states)]
    w = RNG.standard_normal((gates * HIDDEN, INPUT)) * 0.5
    r = RNG.standard_normal((gates * HIDDEN, HIDDEN)) * 0.5
    b = RNG.standard_normal(((bias_gates or gates) * HIDDEN,)) * 0.5
    return [a.astype(dtype) for a in (x, *hs, w, r, b)]


def _check(tmp_path, factory, arrays, oracle):  # type: ignore[no-untyped-def]
    node, params = build(factory, [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(arrays).values())
    if arrays[0].dtype == np.float32:
        for k, theirs in enumerate(cpu_outputs(node, params, arrays)):
            np.testing.assert_allclose(ours[k], theirs, rtol=CPU_RTOL, atol=CPU_ATOL, err_msg=f"output {k}")
    expected = oracle([a.astype(np.float64) for a in arrays])
    for k, e in enumerate(expected):
        tol = 1e-12 if arrays[0].dtype == np.float64 else 1e-6
        np.testing.assert_allclose(ours[k], e, rtol=tol, atol=tol, err_msg=f"output {k} vs float64 oracle")


def _sigmoid(v):  # type: ignore[no-untyped-def]
    return 1 / (1 + np.exp(-v))


_ACTS = {"sigmoid": _sigmoid, "tanh": np.tanh, "relu": lambda v: np.maximum(v, 0)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("clip", [0.0, 0.7], ids=["no-clip", "clip"])
@pytest.mark.parametrize("activation", ["tanh", "relu", "sigmoid"])
def test_rnn_cell(tmp_path, activation, clip, dtype):  # type: ignore[no-untyped-def]
    f = _ACTS[activation]
    bound = float(np.float32(clip))  # OpenVINO holds clip as an f32 attribute

    def oracle(a):  # type: ignore[no-untyped-def]
        x, h, w, r, b = a
        pre = x @ w.T + h @ r.T + b
        return [f(np.clip(pre, -bound, bound) if clip else pre)]

    factory = lambda *a: o15.rnn_cell(*a, HIDDEN, [activation], [], [], clip)
    _check(tmp_path, factory, _arrays(1, dtype=dtype), oracle)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("clip", [0.0, 0.5], ids=["no-clip", "clip"])
@pytest.mark.parametrize("lbr", [False, True], ids=["default", "linear-before-reset"])
def test_gru_cell(tmp_path, lbr, clip, dtype):  # type: ignore[no-untyped-def]
    def oracle(a):  # type: ignore[no-untyped-def]
        x, h, w, r, b = a
        bound = float(np.float32(clip))  # OpenVINO holds clip as an f32 attribute
        c = (lambda v: np.clip(v, -bound, bound)) if clip else (lambda v: v)
        wz, wr, wh = np.split(w, 3)
        rz, rr, rh = np.split(r, 3)
        bz, br, bh = b[:HIDDEN], b[HIDDEN : 2 * HIDDEN], b[2 * HIDDEN : 3 * HIDDEN]
        z = _sigmoid(c(x @ wz.T + h @ rz.T + bz))
        rg = _sigmoid(c(x @ wr.T + h @ rr.T + br))
        if lbr:
            hh = np.tanh(c(x @ wh.T + bh + rg * (h @ rh.T + b[3 * HIDDEN :])))
        else:
            hh = np.tanh(c(x @ wh.T + (rg * h) @ rh.T + bh))
        return [(1 - z) * hh + z * h]

    factory = lambda *a: o15.gru_cell(*a, HIDDEN, clip=clip, linear_before_reset=lbr)
    _check(tmp_path, factory, _arrays(3, 4 if lbr else 3, dtype=dtype), oracle)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("clip", [0.0, 0.5], ids=["no-clip", "clip"])
@pytest.mark.parametrize(
    "acts", [["sigmoid", "tanh", "tanh"], ["sigmoid", "relu", "tanh"]], ids=["default", "relu"]
)
def test_lstm_cell(tmp_path, acts, clip, dtype):  # type: ignore[no-untyped-def]
    f, g, hfun = (_ACTS[a] for a in acts)

    def oracle(a):  # type: ignore[no-untyped-def]
        x, h, c0, w, r, b = a
        pre = x @ w.T + h @ r.T + b
        if clip:
            bound = float(np.float32(clip))  # OpenVINO holds clip as an f32 attribute
            pre = np.clip(pre, -bound, bound)
        fg, ig, cg, og = np.split(pre, 4, axis=1)
        c = f(fg) * c0 + f(ig) * g(cg)
        return [f(og) * hfun(c), c]

    factory = lambda *a: o15.lstm_cell(*a, HIDDEN, acts, [], [], clip)
    _check(tmp_path, factory, _arrays(4, states=2, dtype=dtype), oracle)


def test_gru_cell_f16(tmp_path):  # type: ignore[no-untyped-def]
    arrays = _arrays(3, dtype=np.float16)
    node, params = build(lambda *a: o15.gru_cell(*a, HIDDEN), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    assert ours.dtype == np.float16
    np.testing.assert_allclose(ours, cpu_outputs(node, params, arrays)[0], rtol=2e-3, atol=2e-3)


CELL_SHAPES = {
    "rnn": (lambda *a: o15.rnn_cell(*a, 4, ["tanh"], [], []), 1, 1),
    "gru": (lambda *a: o15.gru_cell(*a, 4), 3, 1),
    "gru-lbr": (lambda *a: o15.gru_cell(*a, 4, linear_before_reset=True), 3, 1),
    "lstm": (lambda *a: o15.lstm_cell(*a, 4), 4, 2),
}
SHAPES = [
    ("3,5", "3,4", "{g},5", "{g},4", "{b}"),
    ("?,5", "?,?", "?,5", "?,?", "?"),
    ("...", "...", "...", "...", "..."),
    ("?,5", "?,?", "{g},5", "?,?", "?"),
    ("2..6,5", "3..8,4", "{g},5", "{g},4", "{b}"),
    ("3,5", "2,4", "{g},5", "{g},4", "{b}"),
    ("3,5", "3,4", "7,5", "{g},4", "{b}"),
    ("3,5", "3,4", "{g},5", "{g},4", "5"),
    ("3,5", "3,4", "{g},5", "{g},3", "{b}"),
    ("3,5,1", "3,4", "{g},5", "{g},4", "{b}"),
    ("?,5", "?,?", "7,5", "?,?", "?"),
]


@pytest.mark.parametrize("cell", list(CELL_SHAPES))
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "|".join(s))
def test_cell_inference_matches_openvino(cell, shapes):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops import lookup
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.recurrent import Cell, Direction, SequenceAttrs
    from ovonehot.types import ElementType, PartialShape

    factory, gates, n_states = CELL_SHAPES[cell]
    bias = gates + 1 if cell == "gru-lbr" else gates
    x, h, w, r, b = (s.format(g=gates * 4, b=bias * 4) for s in shapes)
    all_shapes = [x, *([h] * n_states), w, r, b]
    params = [
        o15.parameter(ov.PartialShape(f"[{s}]") if s != "..." else ov.PartialShape.dynamic(), ov.Type.f32)
        for s in all_shapes
    ]
    try:
        node = factory(*params)
        theirs = [
            f"{node.get_output_element_type(k).to_string()}{node.get_output_partial_shape(k)}"
            for k in range(node.get_output_size())
        ]
    except RuntimeError as exc:
        theirs = ["error: " + str(exc).strip().splitlines()[-1].strip()]
    kind = {"rnn": Cell.RNN, "gru": Cell.GRU, "gru-lbr": Cell.GRU, "lstm": Cell.LSTM}[cell]
    attrs = SequenceAttrs(kind, 4, Direction.FORWARD, kind.default_activations, 0.0, cell == "gru-lbr")
    spec = lookup({"rnn": "RNNCell", "lstm": "LSTMCell"}.get(cell, "GRUCell"), "opset15")
    assert spec is not None
    try:
        outs = spec.infer(attrs, [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in all_shapes])
        ours = [f"{o.element_type}{o.shape}" for o in outs]
    except ValidationError as exc:
        ours = [f"error: {exc}"]
    assert ours == theirs
