"""The package's layering: every import of openvino or onnxruntime is under oracle/, and only the
command line (cli/) imports the command line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "ovonehot"
IMPORT = re.compile(r"^\s*(import|from)\s+(openvino|onnxruntime)\b", re.MULTILINE)


def test_openvino_and_onnxruntime_are_imported_only_in_the_oracle_package() -> None:
    outside = [
        f"{path.relative_to(PACKAGE)}: {m.group(0).strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "oracle" not in path.relative_to(PACKAGE).parts[:1]
        for m in IMPORT.finditer(path.read_text())
    ]
    assert outside == []


def test_the_check_sees_the_oracle_imports() -> None:
    """The pattern is not vacuous: it finds the lazy imports inside oracle/."""
    inside = [p for p in (PACKAGE / "oracle").glob("*.py") if IMPORT.search(p.read_text())]
    assert {p.name for p in inside} >= {"common.py", "onnxruntime_runner.py"}


def _imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports (relative imports resolved against its package), at any depth."""
    parts = ["ovonehot", *path.relative_to(PACKAGE).with_suffix("").parts]
    package = parts[:-1]  # a module's package; for __init__.py the package itself
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            # ``from .. import cli`` imports the module ovonehot.cli itself.
            found.extend([module, *(f"{module}.{alias.name}" for alias in node.names)])
    return found


def _cli_imports(path: Path) -> list[str]:
    return sorted(
        {m for m in _imported_modules(path) if m == "ovonehot.cli" or m.startswith("ovonehot.cli.")}
    )


def test_only_the_cli_imports_the_cli() -> None:
    """The library never reaches into the command line (no differential -> cli cycle): only modules
    under cli/ (and the console script's entry points) import ovonehot.cli."""
    entry_points = {"__main__.py", "_console.py"}
    outside = [
        f"{path.relative_to(PACKAGE)}: {', '.join(_cli_imports(path))}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "cli"
        and path.name not in entry_points
        and _cli_imports(path)
    ]
    assert outside == []


def test_the_cli_import_check_sees_imports_of_the_cli() -> None:
    """Not vacuous: the same walk finds the CLI's relative imports of itself, and the console
    script's (exempt: it is the command line's entry point) from outside cli/."""
    assert "ovonehot.cli._options" in _cli_imports(PACKAGE / "cli" / "diff.py")
    assert _cli_imports(PACKAGE / "_console.py") == ["ovonehot.cli", "ovonehot.cli.main"]
