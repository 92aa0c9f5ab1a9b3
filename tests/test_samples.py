"""samples/: every run.sh passes, fails when the expected output is wrong, and its expected
output is still what OpenVINO computes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p.parent for p in (ROOT / "samples").glob("*/run.sh"))


def run_sample(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(directory / "run.sh")],  # noqa: S607 - the shell the README tells users to run
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
    )


def test_there_is_a_sample() -> None:
    assert SAMPLES


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_runs_and_matches(sample: Path) -> None:
    proc = run_sample(sample)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "identical to OpenVINO's output, bit for bit" in proc.stdout


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_fails_on_a_wrong_expected_output(sample: Path, tmp_path: Path) -> None:
    copy = tmp_path / sample.name
    shutil.copytree(sample, copy)
    with np.load(copy / "expected.npz") as z:
        arrays = {k: z[k].copy() for k in z.files}
    first = next(iter(arrays))
    arrays[first].reshape(-1).view(np.uint8)[0] ^= 1
    np.savez(copy / "expected.npz", **arrays)
    proc = run_sample(copy)
    assert proc.returncode == 1, proc.stdout + proc.stderr


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_expected_output_is_openvinos(sample: Path) -> None:
    pytest.importorskip("openvino", reason="the expected output comes from OpenVINO")
    from ovonehot.oracle.openvino_runtime import reference_run

    inputs_path = next(p for p in sample.glob("*.npz") if p.name != "expected.npz")
    with np.load(inputs_path) as z:
        inputs = {k: z[k] for k in z.files}
    theirs = reference_run(sample / "model.xml", inputs)
    with np.load(sample / "expected.npz") as z:
        assert list(z.files) == list(theirs)
        for key, value in theirs.items():
            assert z[key].dtype == value.dtype and z[key].tobytes() == value.tobytes(), key
