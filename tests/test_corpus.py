"""Every model in ir/onehot/, run by ovonehot, equals OpenVINO's result bit for bit.

Expected values come from OpenVINO itself: its core reference (every node's
``Node.evaluate``, through :func:`ovonehot.oracle.openvino_runtime.reference_run`) and,
inside the envelope docs/openvino-behaviour.md measured, its CPU plugin.  Each model runs with the
seeded inputs the generator wrote beside it (``<name>.npz``), through the Python
API (``ovonehot.load(...).run(...)``) and through the CLI (``ovonehot run X.xml
--inputs X.npz --output out.npz``).  The corpus itself must be what
ir/generate_onehot.py writes, and ir/README.md must describe every model.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO")

from exact import assert_same, assert_same_outputs, cpu_envelope_refusal, npz_inputs

import ovonehot
from ovonehot.cli import main as cli_main
from ovonehot.oracle import openvino_runtime as oracle

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "ir" / "onehot"
MODELS = sorted(CORPUS.glob("*.xml"))
IDS = [p.stem for p in MODELS]


def test_corpus_is_not_empty() -> None:
    assert len(MODELS) >= 30
    assert any(p.stem.endswith("_plain") for p in MODELS)


@pytest.mark.parametrize("xml", MODELS, ids=IDS)
def test_run_equals_openvino_reference(xml: Path) -> None:
    inputs = npz_inputs(xml.with_suffix(".npz"))
    ours = ovonehot.load(xml).run(inputs)
    theirs = oracle.reference_run(xml, inputs)
    assert_same_outputs(ours, theirs, xml.stem)


@pytest.mark.parametrize("xml", MODELS, ids=IDS)
def test_output_names_are_openvinos(xml: Path) -> None:
    """The result keys are the names OpenVINO gives the outputs (``any_name``), in Result order."""
    model = ovonehot.load(xml)
    ov_model = ov.Core().read_model(str(xml))
    assert [d.name for d in model.outputs] == [o.any_name for o in ov_model.outputs]
    assert [d.name for d in model.inputs] == [p.get_friendly_name() for p in ov_model.get_parameters()]


@pytest.mark.parametrize("xml", MODELS, ids=IDS)
def test_cli_output_equals_openvino_reference(
    xml: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.npz"
    assert cli_main(["run", str(xml), "--inputs", str(xml.with_suffix(".npz")), "--output", str(out)]) == 0
    assert capsys.readouterr().err == ""
    theirs = oracle.reference_run(xml, npz_inputs(xml.with_suffix(".npz")))
    saved = npz_inputs(out)
    assert list(saved) == list(theirs)
    for key, expected in theirs.items():
        # .npz has no bf16/f8 dtypes: NumPy stores those as raw bytes (|V2, |V1); compare bits.
        got = saved[key]
        if got.dtype.kind == "V":
            got = got.view(expected.dtype)
        assert_same(got, expected, f"{xml.stem} {key}")


@pytest.mark.parametrize("xml", MODELS, ids=IDS)
def test_run_equals_cpu_plugin_inside_its_envelope(xml: Path) -> None:
    inputs = npz_inputs(xml.with_suffix(".npz"))
    model = ovonehot.load(xml)
    reason = cpu_envelope_refusal(model, inputs)
    if reason is not None:
        pytest.skip(f"outside the CPU plugin's exact envelope: {reason}")
    assert_same_outputs(model.run(inputs), oracle.cpu_run(xml, inputs), xml.stem)


def test_console_script_writes_the_same_npz(tmp_path: Path) -> None:
    """The installed entry point (python -m ovonehot), in a fresh process, on two models."""
    for name in ("v1_axis-1_i64_f32", "v1_bf16_values"):
        xml = CORPUS / f"{name}.xml"
        out = tmp_path / f"{name}.npz"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "ovonehot",
                "run",
                str(xml),
                "--inputs",
                str(xml.with_suffix(".npz")),
                "--output",
                str(out),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        theirs = oracle.reference_run(xml, npz_inputs(xml.with_suffix(".npz")))
        saved = npz_inputs(out)
        for key, expected in theirs.items():
            got = saved[key].view(expected.dtype) if saved[key].dtype.kind == "V" else saved[key]
            assert_same(got, expected, f"{name} {key}")


def test_corpus_is_what_the_generator_writes(tmp_path: Path) -> None:
    """Regenerating into a scratch directory gives the committed files, byte for byte."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "ir" / "generate_onehot.py"), "--out", str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    committed = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".xml", ".bin", ".npz"))
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert _without_runtime_version(tmp_path / name) == _without_runtime_version(CORPUS / name), name


def _without_runtime_version(path: Path) -> bytes:
    """The file's bytes, minus the writer's version stamp (another 2026.4.x patch release may differ)."""
    return re.sub(rb'<info name="OpenVINO Runtime" value="[^"]*"', b"", path.read_bytes())


def test_readme_describes_every_model() -> None:
    readme = (ROOT / "ir" / "README.md").read_text(encoding="utf-8")
    stems = {p.stem.removesuffix("_plain") for p in MODELS}
    missing = sorted(s for s in stems if f"`{s}`" not in readme)
    assert not missing, f"ir/README.md does not mention: {missing}"


def test_every_model_has_inputs_for_every_parameter() -> None:
    for xml in MODELS:
        model = ovonehot.load(xml)
        inputs = npz_inputs(xml.with_suffix(".npz"))
        assert sorted(inputs) == sorted(d.name for d in model.inputs), xml.stem
        assert all(isinstance(v, np.ndarray) for v in inputs.values())
