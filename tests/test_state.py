"""Stateful models (ReadValue/Assign) run step by step against OpenVINO's CPU plugin.

Each model is built with OpenVINO's Python API and saved as IR; ovonehot's
``Model.create_request()`` runs the steps OpenVINO's ``InferRequest`` runs, and outputs
and ``query_state()`` are compared after every step, then again after ``reset_state()``.
The models compute exactly (concatenations, adds of small integers), so bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main
from ovonehot.oracle.openvino_runtime import CPU_CONFIG

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")
opset3 = pytest.importorskip("openvino.opset3")
util = pytest.importorskip("openvino.op.util")

F32 = np.float32


def variable(variable_id: str, shape: list[int], element_type: Any = None) -> Any:
    info = util.VariableInfo()
    info.data_shape = ov.PartialShape(shape)
    info.data_type = element_type or ov.Type.f32
    info.variable_id = variable_id
    return util.Variable(info)


def kv_cache(with_init: bool) -> Any:
    """past = ReadValue(kv) (init: a [1,0,4] zeros Constant, or none); present = Concat(past, x)
    along the sequence axis; Assign(kv, present); outputs present and present * 2."""
    x = ops.parameter([1, -1, 4], F32, name="x")
    kv = variable("kv", [1, -1, 4])
    past = ops.read_value(ops.constant(np.zeros((1, 0, 4), F32)), kv) if with_init else ops.read_value(kv)
    present = ops.concat([past, x], 1)
    doubled = ops.multiply(present, ops.constant(np.array(2, F32)))
    return ov.Model([ops.result(present), ops.result(doubled)], [ops.assign(present, kv)], [x], "kv")


def two_accumulators() -> Any:
    """Two variables: a static [2,3] sum with no init (zeros), and a ReadValue-3/Assign-3
    counter with a Constant init."""
    x = ops.parameter([2, 3], F32, name="x")
    acc = variable("acc", [2, 3])
    total = ops.add(ops.read_value(acc), x)
    count = opset3.read_value(ops.constant(np.array([10], np.int64)), "count")
    counted = ops.add(count, ops.constant(np.array([1], np.int64)))
    sinks = [ops.assign(total, acc), opset3.assign(counted, "count")]
    return ov.Model([ops.result(total), ops.result(counted)], sinks, [x], "acc")


def _save(tmp_path: Path, model: Any) -> Path:
    xml = tmp_path / "model.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return xml


def _their_state(request: Any) -> dict[str, np.ndarray]:
    return {s.name: np.array(s.state.data) for s in request.query_state()}


def _steps(
    ours: ovonehot.Request, theirs: Any, feeds: Sequence[np.ndarray], compare_state: bool = True
) -> None:
    for step, x in enumerate(feeds):
        got = list(ours.run([x]).values())
        theirs.infer([x])
        expected = [np.array(theirs.get_output_tensor(k).data) for k in range(len(got))]
        for k, (a, b) in enumerate(zip(got, expected, strict=True)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"step {step} output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"step {step} output {k}")
        if compare_state:
            state, their_state = ours.query_state(), _their_state(theirs)
            assert sorted(state) == sorted(their_state)
            for name, value in their_state.items():
                np.testing.assert_array_equal(state[name], value, err_msg=f"step {step} variable {name}")


def _sequence_feeds(lengths: Sequence[int], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-9, 9, size=(1, n, 4)).astype(F32) for n in lengths]


@pytest.mark.parametrize("with_init", [True, False], ids=["init-constant", "no-init"])
def test_kv_cache_three_steps_then_reset(with_init: bool, tmp_path: Path) -> None:
    xml = _save(tmp_path, kv_cache(with_init))
    model = ovonehot.load(xml)
    assert [str(v) for v in model.variables] == ["kv: f32[1,?,4]"]
    ours = model.create_request()
    theirs = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG).create_infer_request()
    _steps(ours, theirs, _sequence_feeds([3, 1, 1], seed=1))
    assert ours.query_state()["kv"].shape == (1, 5, 4)
    ours.reset_state()
    theirs.reset_state()
    _steps(ours, theirs, _sequence_feeds([2, 1], seed=2))


def test_two_variables_no_init_and_readvalue3(tmp_path: Path) -> None:
    xml = _save(tmp_path, two_accumulators())
    model = ovonehot.load(xml)
    assert {v.variable_id for v in model.variables} == {"acc", "count"}
    ours = model.create_request()
    theirs = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG).create_infer_request()
    feeds = [np.arange(6, dtype=F32).reshape(2, 3) * k for k in (1, -2, 5)]
    _steps(ours, theirs, feeds)
    # Reset one variable only: OpenVINO's VariableState.reset() of "acc".
    ours.reset_state("acc")
    next(s for s in theirs.query_state() if s.name == "acc").reset()
    _steps(ours, theirs, feeds[:1])


def test_set_state_as_openvino_does(tmp_path: Path) -> None:
    xml = _save(tmp_path, kv_cache(True))
    ours = ovonehot.load(xml).create_request()
    theirs = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG).create_infer_request()
    past = np.arange(8, dtype=F32).reshape(1, 2, 4)
    ours.set_state("kv", past)
    next(s for s in theirs.query_state() if s.name == "kv").state = ov.Tensor(past)
    _steps(ours, theirs, _sequence_feeds([1, 2], seed=3))


def test_model_run_is_stateless(tmp_path: Path) -> None:
    model = ovonehot.load(_save(tmp_path, kv_cache(True)))
    x = np.ones((1, 2, 4), F32)
    first, second = model.run([x]), model.run([x])
    for a, b in zip(first.values(), second.values(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert next(iter(first.values())).shape == (1, 2, 4)  # the empty init and x only


def test_a_failed_step_changes_no_variable(tmp_path: Path) -> None:
    request = ovonehot.load(_save(tmp_path, kv_cache(True))).create_request()
    request.run([np.ones((1, 2, 4), F32)])
    before = request.query_state()["kv"]
    with pytest.raises(ovonehot.InputError, match="input 'x'"):
        request.run([np.ones((1, 2, 5), F32)])
    np.testing.assert_array_equal(request.query_state()["kv"], before)


@pytest.mark.parametrize(
    ("variable_id", "value", "message"),
    [
        ("nope", np.zeros((1, 1, 4), F32), "the model has no variable 'nope'; its variables: 'kv'"),
        (
            "kv",
            np.zeros((1, 1, 5), F32),
            r"^variable 'kv' \(f32\[1,\?,4\]\): got an array of shape \[1, 1, 5\]$",
        ),
        ("kv", np.zeros((1, 1, 4), np.int32), "got int32 values, expected f32"),
    ],
    ids=["unknown-variable", "wrong-shape", "wrong-type"],
)
def test_set_state_refuses(variable_id: str, value: np.ndarray, message: str, tmp_path: Path) -> None:
    request = ovonehot.load(_save(tmp_path, kv_cache(True))).create_request()
    with pytest.raises(ovonehot.InputError, match=message):
        request.set_state(variable_id, value)


def test_cli_runs_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = _save(tmp_path, kv_cache(True))
    feeds = _sequence_feeds([2, 1], seed=4)
    paths = []
    for k, x in enumerate(feeds):
        paths.append(tmp_path / f"x{k}.npy")
        np.save(paths[-1], x)
    out = tmp_path / "out.npz"
    code = main(
        [
            "run",
            str(xml),
            "--step-inputs",
            str(paths[0]),
            "--step-inputs",
            str(paths[1]),
            "--output",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "step 1:" in printed and "step 2:" in printed
    request = ovonehot.load(xml).create_request()
    expected = [request.run([x]) for x in feeds]
    with np.load(out) as stored:
        assert len(stored.files) == 4
        for k, results in enumerate(expected, start=1):
            for name, value in results.items():
                np.testing.assert_array_equal(stored[f"step{k}/{name}"], value)
    # --steps repeats one input: the cache grows by two rows a step
    code = main(["run", str(xml), "--inputs", str(paths[0]), "--steps", "3"])
    assert code == 0
    assert "shape [1, 6, 4]" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [
        ["--steps", "0"],
        ["--inputs", "x.npy", "--steps", "2"],
        ["--inputs", "x.npy", "--dump-intermediates", "d"],
    ],
    ids=["zero-steps", "steps-with-two-inputs", "dump-with-two-steps"],
)
def test_cli_step_usage_errors(extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = _save(tmp_path, kv_cache(True))
    np.save(tmp_path / "x.npy", np.ones((1, 1, 4), F32))
    extra = [str(tmp_path / e) if e.endswith(".npy") or e == "d" else e for e in extra]
    code = main(["run", str(xml), "--inputs", str(tmp_path / "x.npy"), *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1


# -- an LLM export with a KV cache ----------------------------------------------------------

LLAMA = Path(__file__).resolve().parents[1] / "ir" / "exports" / "stateful" / "tiny_llama"
# Logits and cache entries are |x| <= 0.3 after dot products of length 8..32 (MatMul, Softmax,
# RMSNorm): NumPy and the CPU plugin sum in other orders.  Measured: <= 3.0e-8 absolute.
LLAMA_ATOL = 1e-6


def _llama_step(k: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    with (
        np.load(LLAMA / f"tiny_llama.step{k}.inputs.npz") as inputs,
        np.load(LLAMA / f"tiny_llama.step{k}.openvino.npz") as outputs,
    ):
        return {n: inputs[n] for n in inputs.files}, outputs["logits"]


def test_tiny_llama_three_decode_steps_as_openvino() -> None:
    """ir/exports/generate_stateful.py: transformers' Llama (2 layers, GQA, RoPE, eager
    attention) made stateful by OpenVINO's MakeStateful (ReadValue-6 without init), f16
    weights; a 3-token prefill then two 1-token steps against OpenVINO's CPU InferRequest."""
    model = ovonehot.load(LLAMA / "tiny_llama.xml")
    assert sorted(v.variable_id for v in model.variables) == [
        "past.0.keypresent.0.key",
        "past.0.valuepresent.0.value",
        "past.1.keypresent.1.key",
        "past.1.valuepresent.1.value",
    ]
    assert all(str(v.shape) == "[1,1,?,8]" for v in model.variables)
    request = model.create_request()
    for k in (1, 2, 3):
        inputs, expected = _llama_step(k)
        logits = request.run(inputs)["logits"]
        assert logits.shape == expected.shape == (1, len(inputs["input_ids"][0]), 64)
        np.testing.assert_allclose(logits, expected, rtol=0, atol=LLAMA_ATOL, err_msg=f"step {k}")
    with np.load(LLAMA / "tiny_llama.state.openvino.npz") as state:
        held = request.query_state()
        assert sorted(held) == sorted(state.files)
        for name in state.files:
            assert held[name].shape == (1, 1, 5, 8)
            np.testing.assert_allclose(held[name], state[name], rtol=0, atol=LLAMA_ATOL, err_msg=name)
    request.reset_state()
    inputs, expected = _llama_step(1)
    np.testing.assert_allclose(request.run(inputs)["logits"], expected, rtol=0, atol=LLAMA_ATOL)
