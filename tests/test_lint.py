"""The code stays lint-clean (ruff) and type-checks (mypy), the project's settings in pyproject.toml."""

from __future__ import annotations

import ast
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


# Functions longer than this are split into named steps (issue 10, item 7).
MAX_FUNCTION_LINES = 80


def _long_functions(path: Path) -> list[tuple[str, int]]:
    """(qualified name, line count) of each function in ``path`` longer than MAX_FUNCTION_LINES;
    a nested function counts on its own and inside its parent."""
    found: list[tuple[str, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                assert child.end_lineno is not None
                lines = child.end_lineno - child.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append((prefix + child.name, lines))
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_functions_are_short() -> None:
    package = ROOT / "src" / "ovonehot"
    too_long = [
        f"{path.relative_to(package).as_posix()}: {name} ({lines} lines)"
        for path in sorted(package.rglob("*.py"))
        for name, lines in _long_functions(path)
    ]
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines (split them):\n" + "\n".join(too_long)
