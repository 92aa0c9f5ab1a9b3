"""``ovonehot run`` without inputs (issue 23): inputs generated as ``diff`` makes them
(``--seed``, ``--val-range``, ``--shape``), kept with ``--save-inputs``; per-output statistics
and a histogram for large outputs; ``-o`` writes what its extension says; ``--steps`` needs a
stateful model and names the step that fails."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main
from ovonehot.differential.gen_inputs import InputSettings, generate_inputs

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"  # indices i64 [3,4] -> onehot f32 [3,4,5]
INTERVAL = ROOT / "ir" / "onehot" / "v16_interval_dims.xml"  # indices i32 [1..4,2..]
GPT2 = ROOT / "ir" / "corpus" / "llm" / "gpt2" / "model.xml"  # stateful (KV cache), logits [?,?,64]
GPT2_STEP = [GPT2.parent / f"generate.step{k}.inputs.npz" for k in (1, 2)]


def one_line_error(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"


def test_generated_inputs_are_diffs_and_are_saved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = ovonehot.load(MODEL)
    saved, out = tmp_path / "in.npz", tmp_path / "out.npz"
    argv = ["run", str(MODEL), "--seed", "3", "--save-inputs", str(saved), "-o", str(out)]
    assert main(argv) == 0
    printed, err = capsys.readouterr()
    assert err == "" and "generated inputs (--seed 3" in printed and "indices: i64[3,4]" in printed
    expected = generate_inputs(model, 3, settings=InputSettings(3))
    with np.load(saved) as inputs, np.load(out) as outputs:
        assert list(inputs.files) == ["indices"]
        assert inputs["indices"].tobytes() == expected["indices"].tobytes()
        assert outputs["onehot"].tobytes() == model.run(expected)["onehot"].tobytes()
    # the saved inputs run again give the same outputs; another seed other inputs
    assert main(["run", str(MODEL), "--inputs", str(saved), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["inputs"] == {"generated": False, "seed": None}
    assert (
        np.array(again["outputs"][0]["values"], np.float32).tobytes()
        == model.run(expected)["onehot"].tobytes()
    )
    assert main(["run", str(MODEL), "--seed", "4", "--save-inputs", str(saved)]) == 0
    with np.load(saved) as inputs:
        assert inputs["indices"].tobytes() != expected["indices"].tobytes()


def test_val_range_and_shape_for_dynamic_dims(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "in.npz"
    argv = [
        "run",
        str(INTERVAL),
        "--shape",
        "indices=3,7",
        "--val-range",
        "indices:1,2",
        "--save-inputs",
        str(saved),
    ]
    assert main(argv) == 0
    with np.load(saved) as inputs:
        assert inputs["indices"].shape == (3, 7)
        assert set(np.unique(inputs["indices"])) <= {1, 2}
    capsys.readouterr()
    # generation options with given inputs: refused, as diff refuses them
    assert main(["run", str(INTERVAL), "--inputs", str(saved), "--seed", "1"]) == 2
    one_line_error(capsys.readouterr().err, "for generated inputs")


def test_stats_and_histogram_of_a_large_output(capsys: pytest.CaptureFixture[str]) -> None:
    """logits [1,6,64] (384 elements): stats as NumPy computes them, a histogram of every value."""
    assert main(["run", str(GPT2), "--inputs", str(GPT2_STEP[0]), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["outputs"][0]
    with np.load(GPT2_STEP[0]) as z:
        logits = ovonehot.load(GPT2).run({k: z[k] for k in z.files})["logits"].astype(np.float64)
    stats = row["stats"]
    assert (stats["min"], stats["max"]) == (logits.min(), logits.max())
    assert stats["mean"] == pytest.approx(logits.mean(), rel=1e-12)
    assert stats["std"] == pytest.approx(logits.std(), rel=1e-9)
    assert (stats["nan"], stats["posinf"], stats["neginf"]) == (0, 0, 0) and "values" not in row
    assert main(["run", str(GPT2), "--inputs", str(GPT2_STEP[0])]) == 0
    printed = capsys.readouterr().out
    assert f"stats: min {logits.min():.6g} max {logits.max():.6g}" in printed
    bars = [line.split() for line in printed.splitlines() if line.startswith("    [")]
    assert len(bars) == 10 and sum(int(b[2]) for b in bars) == logits.size


def test_stats_count_nan_and_infinities(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """on/off values NaN and inf (v1_all_params_f32: on_value, off_value are inputs)."""
    four = ROOT / "ir" / "onehot" / "v1_all_params_f32.xml"
    with np.load(four.with_suffix(".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["on_value"], arrays["off_value"] = np.float32(np.nan), np.float32(-np.inf)
    arrays["indices"] = np.zeros_like(arrays["indices"])  # every index in range: some NaN
    np.savez(tmp_path / "in.npz", **arrays)
    assert main(["run", str(four), "--inputs", str(tmp_path / "in.npz"), "--json"]) == 0
    out = ovonehot.load(four).run(arrays)["onehot"]
    stats = json.loads(capsys.readouterr().out)["outputs"][0]["stats"]
    assert stats["nan"] == int(np.isnan(out).sum()) > 0
    assert stats["neginf"] == int(np.isneginf(out).sum()) > 0 and stats["min"] is None


@pytest.mark.parametrize(
    ("model", "name", "fragment"),
    [
        (MODEL, "out.bin", "name an .npz"),
        (GPT2.parent.parent / "gpt2" / "model.xml", "out.npy", "name an .npz"),
    ],
    ids=["other-extension", "npy-of-several-steps"],
)
def test_output_writes_what_its_extension_says(
    model: Path, name: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / name
    steps = ["--inputs", str(GPT2_STEP[0]), "--steps", "2"] if model == GPT2 else []
    assert main(["run", str(model), *steps, "-o", str(target)]) == 2
    one_line_error(capsys.readouterr().err, fragment)
    assert not target.exists()


def test_npy_output_is_an_npy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.npy"
    assert main(["run", str(MODEL), "--inputs", str(MODEL.with_suffix(".npz")), "-o", str(target)]) == 0
    with np.load(MODEL.with_suffix(".npz")) as z:
        expected = ovonehot.load(MODEL).run({k: z[k] for k in z.files})["onehot"]
    assert target.read_bytes()[:6] == b"\x93NUMPY"  # not a zip
    assert np.load(target).tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    "option", [["--steps", "2"], ["--steps", "1000000000"], ["--step-inputs", "{i}"] * 2]
)
def test_steps_on_a_stateless_model_are_refused(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", str(MODEL), *(o.format(i=MODEL.with_suffix(".npz")) for o in option)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    one_line_error(err, "the model has no state (no ReadValue/Assign)")


def test_steps_keep_the_state_and_a_failing_step_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.npz"
    assert main(["run", str(GPT2), "--inputs", str(GPT2_STEP[0]), "--steps", "3", "-o", str(out)]) == 0
    request = ovonehot.load(GPT2).create_request()
    with np.load(GPT2_STEP[0]) as z:
        feed = {k: z[k] for k in z.files}
    with np.load(out) as written:
        for k in (1, 2, 3):
            assert written[f"step{k}/logits"].tobytes() == request.run(feed)["logits"].tobytes()
    capsys.readouterr()
    with np.load(GPT2_STEP[1]) as z:
        bad = {k: z[k].astype(np.float32) if k == "input_ids" else z[k] for k in z.files}
    np.savez(tmp_path / "bad.npz", **bad)
    argv = ["run", str(GPT2), "--step-inputs", str(GPT2_STEP[0]), "--step-inputs", str(tmp_path / "bad.npz")]
    assert main(argv) == 2
    printed, err = capsys.readouterr()
    assert "step 1:" in printed and "logits" in printed  # the first step ran before the second was read
    one_line_error(err, "step 2 of 2: ", "input_ids")
