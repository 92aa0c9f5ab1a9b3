"""Exit statuses exactly as the README's table (issue 23), per command and class of failure:
0 success, 1 a difference, 2 a usage error or a bad input file (a missing model and a missing
inputs file alike; a ``--device`` that is not here, a ``--config`` the plugin refuses), 3 an
invalid or unsupported model (an ONNX op OpenVINO's frontend cannot convert), 4 OpenVINO
missing or failing (fuzz with a broken ``openvino`` import).  One ``error:`` line each, and
NumPy's RuntimeWarnings never reach stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"
INPUTS = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.npz"

onnx = pytest.importorskip("onnx", reason="the ONNX models here are built with onnx")
pytest.importorskip("openvino", reason="ONNX models are converted by OpenVINO's frontend")
helper, TensorProto = onnx.helper, onnx.TensorProto


def one_line_error(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"


def _onnx(path: Path, nodes: list[object], outputs: list[str]) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    outs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [4]) for name in outputs]
    graph = helper.make_graph(nodes, "g", [x], outs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.fixture(scope="module")
def unconvertible(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ONNX model with an op no ONNX opset has: OpenVINO's frontend cannot convert it."""
    folder = tmp_path_factory.mktemp("onnx")
    return _onnx(folder / "m.onnx", [helper.make_node("NoSuchOpAnywhere", ["x"], ["y"])], ["y"])


@pytest.fixture(scope="module")
def ieee(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Log, Sqrt, Exp, Div, Mul and Pow of 0, -1, 1e30 and 3e38: NaN, infinities, overflow."""
    folder = tmp_path_factory.mktemp("ieee")
    ops = {"Log": ["x"], "Sqrt": ["x"], "Exp": ["x"], "Div": ["x", "x"], "Mul": ["x", "x"], "Pow": ["x", "x"]}
    nodes = [helper.make_node(op, args, [op.lower()]) for op, args in ops.items()]
    path = _onnx(folder / "ieee.onnx", nodes, [op.lower() for op in ops])
    np.savez(folder / "ieee.npz", x=np.array([0, -1, 1e30, 3e38], np.float32))
    return path


# (command line with {m}: a missing model, {i}: a missing inputs file, {d}: a new folder)
MISSING = [
    ["run", "{m}"],
    ["run", str(MODEL), "--inputs", "{i}"],
    ["diff", "{m}"],
    ["diff", str(MODEL), "--inputs", "{i}"],
    ["reduce", "{m}", "--out-dir", "{d}"],
    ["reduce", str(MODEL), "--inputs", "{i}", "--out-dir", "{d}"],
    ["validate", "{m}"],
    ["inspect", "{m}"],
    ["convert", "{o}"],
]


@pytest.mark.parametrize("argv", MISSING, ids=lambda a: "-".join(w.strip("{}-") for w in a if "/" not in w))
def test_a_missing_model_and_a_missing_inputs_file_are_both_bad_input_files(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = {"m": tmp_path / "missing.xml", "i": tmp_path / "missing.npz", "o": tmp_path / "missing.onnx"}
    code = main([a.format(**names, d=tmp_path / "d") for a in argv])
    assert code == 2
    one_line_error(capsys.readouterr().err, "missing.", "no such file")


@pytest.mark.parametrize(
    "argv",
    [
        ["run"],
        ["diff"],
        ["validate"],
        ["inspect"],
        ["convert", "-o", "{t}/out.xml"],
        ["reduce", "--out-dir", "{t}/r"],
    ],
    ids=lambda a: a[0],
)
def test_an_onnx_op_openvino_cannot_convert_is_an_unsupported_model(
    argv: list[str], unconvertible: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = [argv[0], str(unconvertible), *(a.format(t=tmp_path) for a in argv[1:])]
    assert main(words) == 3
    one_line_error(capsys.readouterr().err, "ONNX frontend cannot convert it", "NoSuchOpAnywhere")
    assert not (tmp_path / "out.xml").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("options", "fragments"),
    [
        (["--config", "BOGUS=1"], ["--config 'BOGUS=1'", "Unsupported property BOGUS"]),
        (["--config", "INFERENCE_PRECISION_HINT=f13"], ["--config", "Wrong value f13"]),
        (["--device", "NOSUCHDEVICE"], ["--device 'NOSUCHDEVICE'", "no such device here"]),
    ],
    ids=["unknown-property", "wrong-value", "no-device"],
)
@pytest.mark.parametrize("command", ["diff", "reduce"])
def test_plugin_settings_the_plugin_refuses_are_usage_errors(
    command: str, options: list[str], fragments: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "not compared; try another --oracle" (exit 1): the command line is wrong, whatever the
    oracles (the default ones would not even have used the plugin here)."""
    extra = ["--out-dir", str(tmp_path / "r")] if command == "reduce" else []
    assert main([command, str(MODEL), "--inputs", str(INPUTS), *options, *extra]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    one_line_error(err, *fragments)
    assert not (tmp_path / "r").exists()


def test_fuzz_with_a_broken_openvino_import_is_an_openvino_failure(tmp_path: Path) -> None:
    """An ``openvino`` that fails to import (its shared library gone): exit 4 before any case,
    not every case failing as if it were a finding (exit 1)."""
    broken = tmp_path / "site" / "openvino"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text(
        'raise ImportError("libopenvino.so.2600: cannot open shared object file")\n'
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(broken.parent), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "ovonehot", "fuzz", "--cases", "2", "--out-dir", str(tmp_path / "f")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 4, proc.stderr
    one_line_error(proc.stderr, "openvino cannot be imported", "libopenvino.so.2600")
    assert not (tmp_path / "f").exists()


def test_no_runtime_warning_leaves_a_command(ieee: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NaN, infinities and overflow are what the model computes; NumPy's RuntimeWarnings about
    them are never shown (in-process: none escapes ``main``)."""
    inputs = ieee.with_suffix(".npz")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["run", str(ieee), "--inputs", str(inputs)]) == 0
        assert main(["run", str(ieee), "--inputs", str(inputs), "--fast"]) == 0
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []
    out, err = capsys.readouterr()
    assert err == "" and "nan 1" in out  # (Log(-1), Sqrt(-1): NaN counted in the stats)


def test_no_warning_on_stderr_of_a_diff(ieee: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-W",
            "always",
            "-m",
            "ovonehot",
            "diff",
            str(ieee),
            "--inputs",
            str(ieee.with_suffix(".npz")),
            "--oracle",
            "reference,cpu",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
