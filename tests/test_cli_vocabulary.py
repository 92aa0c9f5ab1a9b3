"""One vocabulary across commands (issue 23): a file written is ``-o/--output``, a folder written
``--out-dir``, output tensor names ``--outputs``; the old spellings are refused in one line that
names the new one (exit 2, nothing written); ``--inputs`` takes one SPEC each, so it never
swallows the model after it; no option is taken by a prefix of its name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"  # indices i64 [3,4] -> onehot f32 [3,4,5]
INPUTS = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.npz"
FOUR_INPUTS = ROOT / "ir" / "onehot" / "v1_all_params_f32.xml"  # indices, depth, on_value, off_value


def one_line_error(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"


# (command line with {d} for a folder that must not appear, the old spelling, the new one)
RENAMED = [
    (["run", str(MODEL), "--output-dir", "{d}"], "--output-dir", "--out-dir"),
    (["diff", str(MODEL), "--save", "{d}"], "--save", "--out-dir"),
    (["diff", str(MODEL), "--out", "{d}"], "--out", "--out-dir"),
    (["fuzz", "--cases", "1", "--out", "{d}"], "--out", "--out-dir"),
    (["reduce", str(MODEL), "--out", "{d}"], "--out", "--out-dir"),
    (["reduce", str(MODEL), "--output", "onehot", "--out-dir", "{d}"], "--output", "--outputs"),
]


@pytest.mark.parametrize(
    ("argv", "old", "new"),
    RENAMED,
    ids=["run-output-dir", "diff-save", "diff-out", "fuzz-out", "reduce-out", "reduce-output"],
)
def test_old_spellings_are_refused_naming_the_new_one(
    argv: list[str], old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "d"
    code = main([a.format(d=folder) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    one_line_error(err, f"{old} is now {new}")
    assert not folder.exists()


def test_no_option_is_taken_by_a_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--save-in`` is no ``--save-inputs``: a prefix is an unknown option, never a guess."""
    code = main(["run", str(MODEL), "--save-in", str(tmp_path / "x.npz")])
    assert code == 2
    one_line_error(capsys.readouterr().err, "unrecognized arguments: --save-in")
    assert not (tmp_path / "x.npz").exists()


def test_inputs_before_the_model_do_not_swallow_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--inputs", str(INPUTS), str(MODEL), "--json"]) == 0
    before = capsys.readouterr().out
    assert main(["run", str(MODEL), "--inputs", str(INPUTS), "--json"]) == 0
    assert before == capsys.readouterr().out and '"generated": false' in before


def test_inputs_take_one_spec_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with np.load(FOUR_INPUTS.with_suffix(".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    specs = []
    for name, value in arrays.items():
        np.save(tmp_path / f"{name}.npy", value)
        specs.append(f"{name}={tmp_path / f'{name}.npy'}")
    # several SPECs after one --inputs: the second is not taken for an input, and the error says how
    code = main(["run", str(FOUR_INPUTS), "--inputs", *specs])
    assert code == 2
    one_line_error(capsys.readouterr().err, f"--inputs takes one SPEC each: repeat it (--inputs {specs[1]})")
    code = main(["diff", str(FOUR_INPUTS), "--inputs", *specs[:2]])
    assert code == 2
    one_line_error(capsys.readouterr().err, "--inputs takes one SPEC each")
    # repeated: one set of inputs
    out = tmp_path / "out.npz"
    assert main(["run", str(FOUR_INPUTS), *(a for s in specs for a in ("--inputs", s)), "-o", str(out)]) == 0
    expected = ovonehot.load(FOUR_INPUTS).run(arrays)["onehot"]
    with np.load(out) as written:
        assert written["onehot"].tobytes() == expected.tobytes()


def test_fuzz_takes_oracles_as_diff_does_and_refuses_those_it_cannot_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["fuzz", "--cases", "1", "--oracle", "reference,onnxruntime", "--out-dir", str(tmp_path / "f")]
    )
    assert code == 2
    one_line_error(capsys.readouterr().err, "fuzz --oracle onnxruntime", "reference, cpu")
    code = main(["fuzz", "--cases", "1", "--oracle", "nope"])
    assert code == 2
    one_line_error(capsys.readouterr().err, "unknown oracle 'nope'")
    assert not (tmp_path / "f").exists()
