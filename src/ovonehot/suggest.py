""" "Did you mean": the nearest known names to a mistyped one, for error messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# How many suggestions a message names, and how close (difflib's ratio) they must be.
COUNT = 3
CUTOFF = 0.6


def nearest(word: str, known: Iterable[str]) -> list[str]:
    """The known names closest to ``word`` (case-insensitive), best first, at most :data:`COUNT`."""
    names = list(dict.fromkeys(known))
    by_lower: dict[str, str] = {}
    for name in names:
        by_lower.setdefault(name.lower(), name)
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=COUNT, cutoff=CUTOFF)
    return [by_lower[c] for c in close]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'a' or 'b'?)"`` for the known names near ``word``, else ``""``."""
    close = nearest(word, known)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"
