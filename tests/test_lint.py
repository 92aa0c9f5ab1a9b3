"""The code stays lint-clean (ruff) and type-checks (mypy), the project's settings in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command",
    [
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "src",
            "tests",
            "ir",
            "samples",
            "benchmarks",
            "scripts",
        ],
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--check",
            "--no-cache",
            "src",
            "tests",
            "ir",
            "samples",
            "benchmarks",
            "scripts",
        ],
        [sys.executable, "-m", "mypy", "--no-incremental", "src/ovonehot"],
    ],
    ids=["ruff", "ruff-format", "mypy"],
)
def test_clean(command: list[str]) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
