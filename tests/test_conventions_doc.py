"""docs/conventions.md: every example in it runs, and prints what the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "conventions.md"


def test_every_example_in_the_conventions_page_runs() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE,
                              verbose=False, report=True)
    assert result.attempted >= 30, f"only {result.attempted} examples found in {DOC}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {DOC} fail (see above)"
