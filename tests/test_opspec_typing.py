"""An OpSpec whose parts disagree on the attribute type is a mypy error, not a runtime surprise.

``OpSpec[A]`` ties ``parse`` (returns ``A``) to ``infer`` and ``evaluate`` (take ``A``), and
its fields are keyword-only.  mypy (pinned in pyproject, as in tests/test_lint.py) checks a
small snippet: the matched spec is clean, the mismatched and the positional ones are not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SNIPPET = """\
from ovonehot.ops.one_hot import infer_one_hot
from ovonehot.ops.shape_ops import evaluate_gather
from ovonehot.ops.softmax import evaluate_softmax, infer_softmax, parse_softmax_1
from ovonehot.ops.common.spec import OpSpec

MATCHED = OpSpec(type="Softmax", version=1, since=1, inputs=1, parse=parse_softmax_1, infer=infer_softmax, evaluate=evaluate_softmax)
MIXED = OpSpec(type="Mixed", version=1, since=1, inputs=1, parse=parse_softmax_1, infer=infer_one_hot, evaluate=evaluate_gather)
POSITIONAL = OpSpec("Softmax", 1, 1, 1, parse_softmax_1, infer_softmax, evaluate_softmax)
"""


def _error_lines(path: Path) -> dict[int, str]:
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--no-incremental",
        "--config-file",
        str(ROOT / "pyproject.toml"),
    ]
    done = subprocess.run(
        [*command, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    errors: dict[int, str] = {}
    for line in done.stdout.splitlines():
        m = re.match(rf"{re.escape(str(path))}:(\d+): error: (.*)", line)
        if m:
            errors.setdefault(int(m.group(1)), m.group(2))
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 2: mypy itself failed
    return errors


def test_mismatched_spec_is_a_mypy_error(tmp_path: Path) -> None:
    path = tmp_path / "specs.py"
    path.write_text(SNIPPET)
    lines = {name: i for i, text in enumerate(SNIPPET.splitlines(), 1) for name in [text.split(" =")[0]]}
    errors = _error_lines(path)
    assert lines["MATCHED"] not in errors, errors
    # mypy finds no A that parse returns and infer/evaluate take
    assert re.search(
        "Cannot infer value of type parameter|incompatible type", errors.get(lines["MIXED"], "")
    ), errors
    assert "positional" in errors.get(lines["POSITIONAL"], ""), errors
    assert set(errors) == {lines["MIXED"], lines["POSITIONAL"]}, errors
