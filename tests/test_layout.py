"""Where OpenVINO enters: every import of openvino or onnxruntime in the package is under oracle/."""

from __future__ import annotations

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
