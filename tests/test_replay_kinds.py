"""Issue 21, item 5: every kind of replay folder a command writes replays (``ovonehot diff DIR``)
and turns into a script (``ovonehot repro DIR``) whose exit status means what it says when it
runs in an isolated interpreter (``python -I``: numpy and openvino only): 0 no difference,
1 the difference reproduces, 2 the script could not run (one line, no traceback).

Kinds: an IR, an IR whose output has no tensor name, an ONNX model (the folder holds the .onnx
and the IR OpenVINO ran), a stateful model (ReadValue/Assign), a model ``reduce`` cut down.
The fuzzer's replay of a failing case goes through ``repro`` in tests/test_fuzz.py (it needs a
planted kernel to fail).  The models are built here with OpenVINO's Python API.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ovonehot import cli

ov = pytest.importorskip("openvino", reason="replays run OpenVINO")
ops = pytest.importorskip("openvino.opset13")
opset6 = pytest.importorskip("openvino.opset6")

ROOT = Path(__file__).resolve().parent.parent
UNTITLED = ROOT / "ir" / "exports" / "torch" / "dice_loss.xml"  # its Result's tensor has no name
ONNX = ROOT / "ir" / "exports" / "onnx" / "backend_with_axis.onnx"


def saturating_model(folder: Path) -> tuple[Path, Path]:
    """labels -> OneHot(on=2**40, i64) -> Convert f32 -> + x: the CPU plugin saturates the
    on value to int32 (docs/openvino-behaviour.md), a named deviation that repro shows."""
    x = ops.parameter([4, 8], ov.Type.f32, name="x")
    labels = ops.parameter([4], ov.Type.i64, name="labels")
    node = ops.relu(ops.add(x, ops.constant(np.float32(-0.1))))
    one_hot = ops.one_hot(labels, np.int64(8), np.int64(2**40), np.int64(0), axis=-1)
    node = ops.add(node, ops.convert(one_hot, ov.Type.f32))
    xml = folder / "saturating.xml"
    ov.save_model(ov.Model([ops.result(node)], [x, labels], "saturating"), str(xml), compress_to_fp16=False)
    inputs = folder / "inputs.npz"
    np.savez(inputs, x=np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8), labels=np.array([0, 3, 7, 5]))
    return xml, inputs


def stateful_model(folder: Path) -> Path:
    """out = state + x, state <- out (ReadValue-6 / Assign-6)."""
    from openvino.op.util import Variable, VariableInfo

    x = ops.parameter([2, 3], ov.Type.f32, name="x")
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([2, 3]), ov.Type.f32, "state"
    variable = Variable(info)
    total = ops.add(opset6.read_value(ops.constant(np.ones([2, 3], np.float32)), variable), x)
    model = ov.Model([ops.result(total)], [opset6.assign(total, variable)], [x], "stateful")
    xml = folder / "stateful.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return xml


def script_status(folder: Path, *flags: str) -> tuple[int, str]:
    """``ovonehot repro FOLDER``, then the script run as a plain program: (exit status, stdout)."""
    assert cli.main(["repro", str(folder)]) == 0
    run = subprocess.run(
        [sys.executable, "-I", *flags, str(folder / "repro.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=folder.parent,
    )
    assert "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
    return run.returncode, run.stdout


def replayed(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``ovonehot diff FOLDER``: (exit status, stdout), every saved output set reproduced."""
    capsys.readouterr()
    code = cli.main(["diff", str(folder)])
    out = capsys.readouterr().out
    assert "DIFFER from the saved ones" not in out and "identical to the saved ones" in out, out
    return code, out


def test_an_ir_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, inputs = saturating_model(tmp_path)
    folder = tmp_path / "ir"
    assert (
        cli.main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(folder)])
        == 0
    )
    assert json.loads((folder / "manifest.json").read_text())["model_format"] == "ir"
    assert replayed(folder, capsys)[0] == 0  # a named plugin deviation exits 0
    status, out = script_status(folder)
    assert status == 1 and "the difference reproduces" in out, out
    assert "2.1474836e+09" in out and "1.0995116e+12" in out  # 2**31 (saturated) vs 2**40


def test_outputs_without_tensor_names_are_addressed_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    untitled = ov.Core().read_model(str(UNTITLED)).outputs
    assert [sorted(o.get_names()) for o in untitled] == [[]]  # what this test is about
    folder = tmp_path / "untitled"
    code = cli.main(["diff", str(UNTITLED), "--oracle", "cpu", "--out-dir", str(folder)])
    assert replayed(folder, capsys)[0] == code
    status, out = script_status(folder)
    # the plugin's f32 sum differs from ovonehot's (a deviation diff names): it reproduces
    assert status == 1 and "differ from expected (ovonehot)" in out, out


def test_an_onnx_replay_holds_the_onnx_and_the_ir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "onnx"
    code = cli.main(["diff", str(ONNX), "--oracle", "onnxruntime,reference", "--out-dir", str(folder)])
    assert code == 1  # onnxruntime and OpenVINO disagree on OneHot-9's negative indices
    assert (folder / "model.onnx").read_bytes() == ONNX.read_bytes()
    assert (folder / "model.xml").read_bytes().lstrip().startswith(b"<?xml")
    assert json.loads((folder / "manifest.json").read_text())["model_format"] == "onnx"
    code, out = replayed(folder, capsys)
    assert code == 1 and "replay: onnxruntime outputs identical" in out, out
    # OpenVINO's reference computes what ovonehot computes: nothing reproduces with OpenVINO alone
    status, out = script_status(folder)
    assert status == 0 and "does not reproduce" in out, out


def test_a_stateful_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "stateful"
    assert cli.main(["diff", str(stateful_model(tmp_path)), "--oracle", "cpu", "--out-dir", str(folder)]) == 0
    assert replayed(folder, capsys)[0] == 0
    status, out = script_status(folder)
    assert status == 0 and "no difference" in out, out


def test_a_reduced_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, inputs = saturating_model(tmp_path)
    folder = tmp_path / "reduced"
    code = cli.main(
        ["reduce", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(folder)]
    )
    assert code == 0  # the kept difference is a named plugin deviation: diff exits 0 on it
    assert "reduced_from" in json.loads((folder / "manifest.json").read_text())
    assert replayed(folder, capsys)[0] == 0
    status, out = script_status(folder)
    assert status == 1 and "the difference reproduces" in out, out


def test_a_script_that_cannot_run_exits_2_with_one_line(tmp_path: Path) -> None:
    xml, inputs = saturating_model(tmp_path)
    folder = tmp_path / "ir"
    assert (
        cli.main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(folder)])
        == 0
    )
    # -S: no site-packages, so no numpy or openvino
    status, out = script_status(folder, "-S")
    assert status == 2 and out.startswith("could not run: ") and len(out.splitlines()) == 1, out
    # a damaged embedded model: OpenVINO cannot read it
    script = folder / "repro.py"
    text = script.read_text()
    start = text.index('MODEL_XML = base64.b64decode("""\n') + len('MODEL_XML = base64.b64decode("""\n')
    script.write_text(text[:start] + "AAAA" + text[start + 4 :])
    run = subprocess.run(
        [sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout.startswith("could not run: ") and "Traceback" not in run.stdout + run.stderr


@pytest.mark.parametrize(
    ("model_format", "fragment"),
    [("../model.onnx", "expected a model format (ir, onnx)"), ("onnx", "model.onnx is missing")],
)
def test_a_replays_model_format_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model_format: str, fragment: str
) -> None:
    """The manifest's model_format is untrusted: a known word only, and an ONNX folder must hold
    its own model.onnx (one error line, exit 2)."""
    xml, inputs = saturating_model(tmp_path)
    folder = tmp_path / "ir"
    assert (
        cli.main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "cpu", "--out-dir", str(folder)])
        == 0
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["model_format"] = model_format
    (folder / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    for command in (["diff", str(folder)], ["repro", str(folder)]):
        assert cli.main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ") and fragment in err, err
