"""``ovonehot reduce`` and ``ovonehot repro``: a planted difference in a large graph ends as a replay
of a few layers, and the standalone script shows it with nothing but numpy and openvino.

Two plantings:

* a real OpenVINO CPU deviation (i64 on/off values saturated to int32: docs/openvino-behaviour.md)
  inside a graph of ~150 ops, on one branch of two;
* a wrong ovonehot kernel (ReLU returning its input), swapped into the op registry for the
  test, so every model ovonehot loads, the reduced candidates included, computes it wrongly:
  the reference oracle must call it "ours wrong" and the reduction must end at that ReLU.

``extract`` is checked against the full model's own run: a cut-out subgraph fed with the
recorded values computes exactly the values the full run computed there.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot import cli
from ovonehot import ops as op_registry
from ovonehot.differential.reduce import Candidate, extract, record_values

ov = pytest.importorskip("openvino", reason="reduce diffs against OpenVINO")
ops = pytest.importorskip("openvino.opset13")


def planted_model(folder: Path, saturating: bool = True) -> tuple[Path, Path]:
    """x-branch: 60 f32 ops; label branch: OneHot(i64 on=2**40) -> Convert -> scaled into x; then 40 ops."""
    x = ops.parameter([4, 8], ov.Type.f32, name="x")
    labels = ops.parameter([4], ov.Type.i64, name="labels")
    node = x
    for i in range(60):
        if i % 3 == 0:  # some values turn negative before each ReLU, so every ReLU matters
            node = ops.add(node, ops.constant(np.full([4, 8], -0.1, np.float32)))
        elif i % 3 == 1:
            node = ops.multiply(node, ops.constant(np.float32(1.1)))
        else:
            node = ops.relu(node)
    on = np.int64(2**40 if saturating else 3)
    one_hot = ops.one_hot(labels, np.int64(8), on, np.int64(0), axis=-1)
    scaled = ops.multiply(ops.convert(one_hot, ov.Type.f32), ops.constant(np.float32(1e-12)))
    node = ops.add(node, scaled)
    for _ in range(40):
        node = ops.add(ops.multiply(node, ops.constant(np.float32(0.9))), ops.constant(np.float32(0.1)))
    xml = folder / "planted.xml"
    ov.save_model(ov.Model([ops.result(node)], [x, labels], "planted"), str(xml), compress_to_fp16=False)
    inputs = folder / "inputs.npz"
    rng = np.random.default_rng(0)
    np.savez(inputs, x=rng.standard_normal([4, 8]).astype(np.float32), labels=np.array([0, 3, 7, 5]))
    return xml, inputs


def manifest(folder: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((folder / "manifest.json").read_text())


def test_cpu_deviation_reduces_to_the_one_hot_and_repro_shows_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    xml, inputs = planted_model(tmp_path)
    out = tmp_path / "reduced"
    # a named plugin deviation kept: diff exits 0 on the reduced model, and so does reduce
    assert (
        cli.main(["reduce", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(out)]) == 0
    )
    captured = capsys.readouterr()
    assert "summary: 1 plugin deviation -> exit 0" in captured.out
    progress = [line for line in captured.err.splitlines() if line.startswith("  diff ")]
    assert (
        progress[0].startswith("  diff 1: ") and len(progress) <= manifest(out)["reduced_from"]["diffs_run"]
    )
    reduced = manifest(out)["reduced_from"]
    assert reduced["ops_before"] > 140
    assert reduced["ops_after"] == 1
    layers = ovonehot.load(out / "model.xml").graph.nodes
    assert [n.type for n in layers if n.type not in ("Parameter", "Const", "Result")] == ["OneHot"]
    verdicts = manifest(out)["verdicts"]
    assert [v["verdict"] for v in verdicts] == ["plugin deviation"]
    assert [d["code"] for d in verdicts[0]["deviations"]] == ["int32-saturation"]

    capsys.readouterr()
    assert cli.main(["diff", str(out)]) == 0  # the replay reproduces (a named deviation exits 0)
    assert "identical to the saved ones" in capsys.readouterr().out

    assert cli.main(["repro", str(out), "--output", str(tmp_path / "bug.py")]) == 0
    script = (tmp_path / "bug.py").read_text()
    assert "import ovonehot" not in script
    run = subprocess.run(
        [sys.executable, "-I", str(tmp_path / "bug.py")],  # -I: no ovonehot on the path, no cwd
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "the difference reproduces" in run.stdout
    assert "2147483647" in run.stdout and "1099511627776" in run.stdout
    assert "differ from OpenVINO core reference" in run.stdout


def test_repro_of_a_passing_replay_says_it_does_not_reproduce(tmp_path: Path) -> None:
    xml, inputs = planted_model(tmp_path, saturating=False)
    folder = tmp_path / "replay"
    assert (
        cli.main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(folder)])
        == 0
    )
    assert cli.main(["repro", str(folder)]) == 0
    run = subprocess.run(
        [sys.executable, "-I", str(folder / "repro.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "does not reproduce" in run.stdout


def test_nothing_to_reduce_exits_as_diff(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Nothing differs: diff exits 0 on the model, and so does reduce, its summary saying so."""
    xml, inputs = planted_model(tmp_path, saturating=False)
    argv = [str(xml), "--inputs", str(inputs), "--oracle", "cpu"]
    assert cli.main(["diff", *argv]) == 0
    capsys.readouterr()
    assert cli.main(["reduce", *argv, "--out-dir", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "nothing to reduce" in out and "-> exit 0" in out
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("case", ["a-file", "unwritable", "no-parent"])
def test_a_bad_out_is_refused_before_the_search(tmp_path: Path, capsys, case: str) -> None:  # type: ignore[no-untyped-def]
    xml, inputs = planted_model(tmp_path)
    (tmp_path / "a-file").write_text("x")
    out = {
        "a-file": tmp_path / "a-file",
        "unwritable": Path("/proc/ovonehot-reduce"),  # procfs: nobody, root included, makes files there
        "no-parent": tmp_path / "a-file" / "r",  # a file where its parent directory would be
    }[case]
    code = cli.main(["reduce", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(out)])
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == "" and "reducing" not in captured.err and captured.err.count("\n") == 1, captured


def test_wrong_kernel_is_ours_wrong_and_reduces_to_that_layer(tmp_path: Path) -> None:
    relu = op_registry.lookup("Relu", "opset1")
    assert relu is not None
    xml, inputs = planted_model(tmp_path, saturating=False)
    out = tmp_path / "reduced"
    with op_registry.overlay(dataclasses.replace(relu, evaluate=lambda a, xs: [xs[0]], specialize=None)):
        # ours wrong is what diff exits 1 for: reduce too, on the reduced model
        assert cli.main(["reduce", str(xml), "--inputs", str(inputs), "--out-dir", str(out)]) == 1
    m = manifest(out)
    assert m["reduced_from"]["verdict"] == "ours wrong"
    layers = ovonehot.load(out / "model.xml").graph.nodes
    assert [n.type for n in layers if n.type not in ("Parameter", "Const", "Result")] == ["ReLU"]


def test_reduce_takes_diffs_input_and_oracle_options(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Generated inputs (per-input seed and range) and a plugin property, as diff takes them."""
    xml, _ = planted_model(tmp_path)
    out = tmp_path / "reduced"
    options = ["--seed", "labels:3", "--val-range", "x:-2,2", "--oracle", "cpu"]
    options += ["--config", "INFERENCE_PRECISION_HINT=f32"]
    assert cli.main(["reduce", str(xml), *options, "--out-dir", str(out)]) == 0
    m = manifest(out)
    assert m["reduced_from"]["ops_after"] == 1 and m["plugin"]["config"]["INFERENCE_PRECISION_HINT"] == "f32"
    capsys.readouterr()
    assert cli.main(["diff", str(out)]) == 0
    assert "cpu outputs identical to the saved ones" in capsys.readouterr().out


def test_unknown_output_name_is_a_usage_error(tmp_path: Path) -> None:
    xml, inputs = planted_model(tmp_path)
    assert (
        cli.main(
            [
                "reduce",
                str(xml),
                "--inputs",
                str(inputs),
                "--oracle",
                "cpu",
                "--outputs",
                "nope",
                "--out-dir",
                str(tmp_path / "r"),
            ]
        )
        == 2
    )


def test_extract_computes_what_the_full_run_computed(tmp_path: Path) -> None:
    xml, inputs_file = planted_model(tmp_path, saturating=False)
    model = ovonehot.load(xml)
    with np.load(inputs_file) as archive:
        inputs = {k: archive[k] for k in archive.files}
    values = record_values(model, inputs)
    order = [i for i, n in enumerate(model.graph.nodes) if n.type not in ("Parameter", "Const", "Result")]
    for lo, hi in [(0, 10), (20, 70), (len(order) - 15, len(order))]:
        keep = tuple(order[lo:hi])
        outputs = tuple((i, 0) for i in keep)
        graph, feeds = extract(model, values, Candidate(keep, outputs))
        sub_xml = tmp_path / f"sub_{lo}.xml"
        ovonehot.ir.writer.write_ir(graph, sub_xml)
        sub = ovonehot.load(sub_xml)
        got = sub.run(feeds)
        assert len(got) == len(outputs)
        for (node, port), value in zip(outputs, got.values(), strict=True):
            np.testing.assert_array_equal(value, values[(node, port)])


def test_reduce_makes_refused_generated_inputs_again_as_diff_does(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A 4x4 convolution over dynamic spatial dims refuses the first generated 3x3 image: diff makes
    the inputs again (32x32) and compares, and so does reduce (before: exit 3 on the 3x3 image, and
    with the default oracle 'nothing was compared' where diff falls back to the CPU plugin)."""
    x = ops.parameter([1, 3, -1, -1], ov.Type.f32, name="x")
    w = ops.constant(np.random.default_rng(0).standard_normal((4, 3, 4, 4)).astype(np.float32))
    y = ops.relu(ops.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1]))
    xml = tmp_path / "conv.xml"
    ov.save_model(ov.Model([y.output(0)], [x], "conv"), str(xml))
    code = cli.main(["reduce", str(xml), "--out-dir", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "made again" in out and "x: f32[1, 3, 32, 32]" in out
    assert "[cpu] " in out and "instead of: reference could not compute it" in out
    assert "nothing to reduce" in out
