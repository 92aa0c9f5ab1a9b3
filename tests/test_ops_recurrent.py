"""RNNSequence-5, GRUSequence-5, LSTMSequence-5 against OpenVINO (inference) and its CPU plugin (values).

OpenVINO's core has no evaluate for the sequence ops; the CPU plugin (deterministic
config) computes in f32, ovonehot in float64 rounded once: compared within
``CPU_RTOL``/``CPU_ATOL``.  Cases cover the three directions, sequence lengths shorter
than the sequence (zeros after the end, states from the last real step), clip, relu
activations and GRU's ``linear_before_reset``; a PyTorch GRU over a one-hot input is
checked against PyTorch itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
opset5 = pytest.importorskip("openvino.opset5")

CPU_RTOL = 1e-5
CPU_ATOL = 1e-6
RNG = np.random.default_rng(9)
BATCH, SEQ, INPUT, HIDDEN = 3, 5, 4, 6


def _weights(gates: int, dirs: int, bias_gates: int | None = None) -> list[np.ndarray]:
    w = RNG.standard_normal((dirs, gates * HIDDEN, INPUT)).astype(np.float32) * 0.7
    r = RNG.standard_normal((dirs, gates * HIDDEN, HIDDEN)).astype(np.float32) * 0.7
    b = RNG.standard_normal((dirs, (bias_gates or gates) * HIDDEN)).astype(np.float32) * 0.3
    return [w, r, b]


def _compare(tmp_path, factory, inputs):  # type: ignore[no-untyped-def]
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    ours = list(model.run(feeds).values())
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a.dtype == b.dtype and a.shape == b.shape, k
        np.testing.assert_allclose(a, b, rtol=CPU_RTOL, atol=CPU_ATOL, err_msg=f"output {k}")


DIRECTIONS = ["forward", "reverse", "bidirectional"]
LENGTHS = {"full": [SEQ, SEQ, SEQ], "ragged": [SEQ, 2, 1], "with-empty": [0, SEQ, 3]}


def _common(dirs: int, lengths: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = RNG.standard_normal((BATCH, SEQ, INPUT)).astype(np.float32)
    h0 = RNG.standard_normal((BATCH, dirs, HIDDEN)).astype(np.float32) * 0.5
    return x, h0, np.array(LENGTHS[lengths], np.int32)


@pytest.mark.parametrize("lengths", list(LENGTHS))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("clip", [0.0, 0.8], ids=["no-clip", "clip"])
def test_lstm_sequence_matches_cpu(tmp_path, direction, lengths, clip):  # type: ignore[no-untyped-def]
    dirs = 2 if direction == "bidirectional" else 1
    x, h0, sl = _common(dirs, lengths)
    c0 = RNG.standard_normal((BATCH, dirs, HIDDEN)).astype(np.float32) * 0.5
    w, r, b = _weights(4, dirs)
    _compare(
        tmp_path,
        lambda *a: opset5.lstm_sequence(*a, HIDDEN, direction, clip=clip),
        [P(x), P(h0), P(c0), P(sl), C(w), C(r), C(b)],
    )


@pytest.mark.parametrize("lengths", list(LENGTHS))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("lbr", [False, True], ids=["reset-first", "linear-before-reset"])
def test_gru_sequence_matches_cpu(tmp_path, direction, lengths, lbr):  # type: ignore[no-untyped-def]
    dirs = 2 if direction == "bidirectional" else 1
    x, h0, sl = _common(dirs, lengths)
    w, r, b = _weights(3, dirs, 4 if lbr else 3)
    _compare(
        tmp_path,
        lambda *a: opset5.gru_sequence(*a, HIDDEN, direction, linear_before_reset=lbr),
        [P(x), P(h0), P(sl), C(w), C(r), C(b)],
    )


@pytest.mark.parametrize("activation", ["tanh", "relu", "sigmoid"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_rnn_sequence_matches_cpu(tmp_path, activation, direction):  # type: ignore[no-untyped-def]
    dirs = 2 if direction == "bidirectional" else 1
    x, h0, sl = _common(dirs, "ragged")
    w, r, b = _weights(1, dirs)
    _compare(
        tmp_path,
        lambda *a: opset5.rnn_sequence(*a, HIDDEN, direction, activations=[activation]),
        [P(x), P(h0), P(sl), C(w), C(r), C(b)],
    )


@pytest.mark.parametrize(
    "shape", ["?,5,4", "3,?,4", "...", "2..4,5,4"], ids=["batch", "seq", "rank", "interval"]
)
def test_sequence_infer_agrees(tmp_path, shape):  # type: ignore[no-untyped-def]
    w, r, b = _weights(4, 1)
    ours, theirs = infer_shapes(
        tmp_path,
        lambda *a: opset5.lstm_sequence(*a, HIDDEN, "forward"),
        [
            P(np.zeros((), np.float32), shape=shape),
            P(np.zeros((), np.float32), shape="?,1,6"),
            P(np.zeros((), np.float32), shape="?,1,6"),
            P(np.zeros((), np.int32), shape="?"),
            C(w),
            C(r),
            C(b),
        ],
    )
    assert ours == theirs
