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

    def factory(*a):  # type: ignore[no-untyped-def]
        return o15.rnn_cell(*a, HIDDEN, [activation], [], [], clip)

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

    def factory(*a):  # type: ignore[no-untyped-def]
        return o15.gru_cell(*a, HIDDEN, clip=clip, linear_before_reset=lbr)

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

    def factory(*a):  # type: ignore[no-untyped-def]
        return o15.lstm_cell(*a, HIDDEN, acts, [], [], clip)

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


# -- LSTMCell-1 --------------------------------------------------------------------------------
o1 = pytest.importorskip("openvino.opset1")


def _lstm1(arrays, peepholes, input_forget, weights_format):  # type: ignore[no-untyped-def]
    """An opset1 LSTMCell with P as a Parameter and the attributes set on the node."""
    params = [o1.parameter(list(a.shape), ov.Type(a.dtype)) for a in arrays]
    node = o1.lstm_cell(*params, HIDDEN)
    p = o1.parameter([3 * HIDDEN], ov.Type(arrays[0].dtype))
    node.input(6).replace_source_output(p.output(0))
    node.set_attribute("input_forget", input_forget)
    node.set_attribute("weights_format", weights_format)
    node.validate_and_infer_types()
    return node, [*params, p], [*arrays, peepholes.astype(arrays[0].dtype)]


def _lstm1_oracle(a, p, input_forget, fmt):  # type: ignore[no-untyped-def]
    x, h, c0, w, r, b = a
    order = [fmt.index(g) for g in "fico"]
    w, r, b = (np.concatenate([np.split(m, 4)[k] for k in order]) for m in (w, r, b))
    fz, iz, cz, oz = np.split(x @ w.T + h @ r.T + b, 4, axis=1)
    f = _sigmoid(fz + p[:HIDDEN] * c0)
    i = 1 - f if input_forget else _sigmoid(iz + p[HIDDEN : 2 * HIDDEN] * c0)
    c = f * c0 + i * np.tanh(cz)
    o = _sigmoid(oz + p[2 * HIDDEN :] * c)
    return [o * np.tanh(c), c]


def _export_with_p(tmp_path, node, params):  # type: ignore[no-untyped-def]
    """Save as IR and put P back: 2026.4's ``save_model`` writes LSTMCell-1 with six input ports
    (output ports numbered from 7) and no edge from P, dropping the peepholes."""
    import re

    import ovonehot

    xml = tmp_path / "lstm_cell_1.xml"
    ov.save_model(ov.Model(node.outputs(), params), str(xml), compress_to_fp16=False)
    text = xml.read_text()
    cell_id = re.search(r'<layer id="(\d+)" name="[^"]*" type="LSTMCell"', text).group(1)  # type: ignore[union-attr]
    p_name = params[-1].get_friendly_name()
    p_id = re.search(rf'<layer id="(\d+)" name="{p_name}"', text).group(1)  # type: ignore[union-attr]
    start = text.index(f'<layer id="{cell_id}"')
    end = text.index("</input>", start)
    precision = "FP64" if node.get_output_element_type(0) == ov.Type.f64 else "FP32"
    port = f'<port id="6" precision="{precision}"><dim>{3 * HIDDEN}</dim></port>\n'
    text = text[:end] + port + text[end:]
    edge = f'<edge from-layer="{p_id}" from-port="0" to-layer="{cell_id}" to-port="6" />\n'
    text = text.replace("</edges>", edge + "</edges>")
    xml.write_text(text)
    return ovonehot.load(xml)


@pytest.mark.parametrize("fmt", ["fico", "ifco", "iofc"])
@pytest.mark.parametrize("input_forget", [False, True], ids=["separate", "input-forget"])
@pytest.mark.parametrize("peep", [False, True], ids=["no-peepholes", "peepholes"])
def test_lstm_cell_1_against_float64_oracle(tmp_path, peep, input_forget, fmt):  # type: ignore[no-untyped-def]
    arrays = _arrays(4, states=2, dtype=np.float64)
    p = RNG.standard_normal(3 * HIDDEN) if peep else np.zeros(3 * HIDDEN)
    node, params, feeds = _lstm1(arrays, p, input_forget, fmt)
    model = _export_with_p(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    for k, e in enumerate(_lstm1_oracle(arrays, p, input_forget, fmt)):
        np.testing.assert_allclose(ours[k], e, rtol=1e-12, atol=1e-12, err_msg=f"output {k}")


def test_lstm_cell_1_default_matches_cpu(tmp_path):  # type: ignore[no-untyped-def]
    arrays = _arrays(4, states=2)
    node, params, feeds = _lstm1(arrays, np.zeros(3 * HIDDEN), False, "fico")
    ours = list(export(tmp_path, node, params).run(feeds).values())
    for k, theirs in enumerate(cpu_outputs(node, params, feeds)):
        np.testing.assert_allclose(ours[k], theirs, rtol=CPU_RTOL, atol=CPU_ATOL, err_msg=f"output {k}")


def test_cpu_plugin_ignores_lstm_cell_1_peepholes(tmp_path):  # type: ignore[no-untyped-def]
    """A deviation pinned: the CPU plugin's result does not change with P or input_forget."""
    arrays = _arrays(4, states=2)
    plain = cpu_outputs(
        *_lstm1(arrays, np.zeros(3 * HIDDEN), False, "fico")[:2], [*arrays, np.zeros(3 * HIDDEN, np.float32)]
    )
    node, params, feeds = _lstm1(arrays, np.ones(3 * HIDDEN), True, "fico")
    theirs = cpu_outputs(node, params, feeds)
    np.testing.assert_array_equal(theirs[0], plain[0])
    (ours_h, _) = _export_with_p(tmp_path, node, params).run(feeds).values()
    assert not np.allclose(ours_h, theirs[0], atol=1e-3)
