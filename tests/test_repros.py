"""docs/repros: the standalone upstream reproducers of docs/FINDINGS.md.

Each is what ``ovonehot repro ir/replays/NAME`` writes today (so a change to the replay or to
the script template shows up here), and each, run as a plain script in an isolated
interpreter (``python -I``: no ovonehot on the path), still shows its difference against
OpenVINO, the version the findings hold for.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ovonehot import cli

ROOT = Path(__file__).resolve().parent.parent
REPROS = sorted((ROOT / "docs" / "repros").glob("*.py"))
REPLAYS = ROOT / "ir" / "replays"


def test_every_replay_with_outputs_has_a_repro() -> None:
    with_outputs = sorted(p.name for p in REPLAYS.iterdir() if (p / "ours.npz").is_file())
    assert with_outputs == [p.stem for p in REPROS]


@pytest.mark.parametrize("script", REPROS, ids=[p.stem for p in REPROS])
def test_repro_is_what_ovonehot_repro_writes(script: Path, tmp_path: Path) -> None:
    assert cli.main(["repro", str(REPLAYS / script.stem), "--output", str(tmp_path / "now.py")]) == 0
    assert (tmp_path / "now.py").read_text() == script.read_text(), (
        f"{script.name} is stale: python ir/replays/generate.py {script.stem}, or ovonehot repro"
    )


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize("script", REPROS, ids=[p.stem for p in REPROS])
def test_repro_shows_the_difference_with_openvino_alone(script: Path, tmp_path: Path) -> None:
    pytest.importorskip("openvino", reason="the reproducers run OpenVINO")
    run = subprocess.run(
        [sys.executable, "-I", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    # exit 1: the difference (or the refusal of a valid model) reproduces; a crash is the
    # finding for cpu-f8-to-boolean-empty-output only when OpenVINO dies after printing it
    assert run.returncode == 1 or (run.returncode < 0 and "differ" in run.stdout), run.stdout + run.stderr
    assert "reproduces" in run.stdout or "refuses" in run.stdout, run.stdout
