"""The code stays lint-clean (ruff) and type-checks (mypy), the project's settings in pyproject.toml."""

from __future__ import annotations

import ast
import re
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


# The rule families the gate must keep (issue 20, item 5): bugbear, simplify, complexity, pyupgrade,
# pathlib, the noqa checks (RUF100 unused, PGH004 blanket), bandit, imports, pyflakes, pycodestyle.
REQUIRED_FAMILIES = {"E", "W", "F", "I", "B", "SIM", "C90", "UP", "PTH", "RUF", "PGH", "S"}
_RULE = re.compile(r'"([A-Z]+[0-9]*)"')
_IGNORE_LIST = re.compile(r"^(extend-)?ignore\s*=")
_PER_FILE_TABLE = re.compile(r"^\[tool\.ruff\.lint\.(extend-)?per-file-ignores\]$")


def ruff_ignore_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, rule code, the line) for every rule code that pyproject's ruff settings ignore:
    in ``ignore``/``extend-ignore`` of [tool.ruff.lint] and in the per-file-ignores table."""
    found: list[tuple[int, str, str]] = []
    table = ""
    in_list = False
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0].strip()
        if not in_list and code.startswith("["):
            table = code
            continue
        if table == "[tool.ruff.lint]" and _IGNORE_LIST.match(code):
            in_list = True
        listed = in_list or bool(_PER_FILE_TABLE.match(table))
        if listed:
            rules = _RULE.findall(code.split("=", 1)[1] if "=" in code else code)
            found.extend((number, rule, line) for rule in rules)
        if in_list and "]" in code:
            in_list = False
    return found


def test_every_ignored_ruff_rule_says_why() -> None:
    """Each rule pyproject ignores carries its reason on its own line (a comment after it)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    entries = ruff_ignore_lines(text)
    assert entries, "no ignored ruff rule found: has [tool.ruff.lint] moved?"
    silent = [
        f"pyproject.toml:{number}: {rule}"
        for number, rule, line in entries
        if "#" not in line or not line.split("#", 1)[1].strip()
    ]
    assert not silent, "ignored ruff rules without a reason comment:\n" + "\n".join(silent)


def test_ruff_ignore_parser_sees_what_ruff_reads() -> None:
    """The line parser above finds exactly the rules pyproject ignores (read with tomllib), so a rule
    cannot slip past the reason check by being written on a line the parser does not look at."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lint = tomllib.loads(text)["tool"]["ruff"]["lint"]
    expected = [*lint.get("ignore", []), *lint.get("extend-ignore", [])]
    for table in ("per-file-ignores", "extend-per-file-ignores"):
        for rules in lint.get(table, {}).values():
            expected.extend(rules)
    assert sorted(rule for _, rule, _ in ruff_ignore_lines(text)) == sorted(expected)
    missing = REQUIRED_FAMILIES - set(lint["select"])
    assert not missing, f"the lint gate lost the rule families {sorted(missing)}"
    assert "RUF100" not in expected and "PGH004" not in expected, "the noqa checks must stay on"


def test_ruff_ignore_parser_flags_a_silent_rule() -> None:
    """The reason check fails for an ignored rule without a comment (ignore list and per-file table)."""
    text = (
        "[tool.ruff.lint]\n"
        'ignore = [\n    "E501",  # a reason\n    "B008",\n]\n'
        "[tool.ruff.lint.per-file-ignores]\n"
        '"tests/**" = ["S101"]\n'
        '"x.py" = ["F401"]  # a reason\n'
    )
    entries = ruff_ignore_lines(text)
    assert [rule for _, rule, _ in entries] == ["E501", "B008", "S101", "F401"]
    silent = [rule for _, rule, line in entries if "#" not in line]
    assert silent == ["B008", "S101"]


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
