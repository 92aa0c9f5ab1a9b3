"""The examples in docs/conventions.md and in ovonehot.conventions' docstrings run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

from ovonehot import conventions

DOC = Path(__file__).resolve().parent.parent / "docs" / "conventions.md"


def test_every_example_in_the_conventions_page_runs() -> None:
    result = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False, report=True
    )
    assert result.attempted >= 30, f"only {result.attempted} examples found in {DOC}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {DOC} fail (see above)"


def test_every_docstring_example_of_the_module_runs() -> None:
    result = doctest.testmod(
        conventions, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False, report=True
    )
    assert result.attempted >= 15, f"only {result.attempted} docstring examples in ovonehot.conventions"
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples fail (see above)"
