"""Progress bars on stderr for long operations (tqdm), decided in one place.

Every long operation (a corpus ``diff``, the per-layer comparison of ``diff --all-layers``,
``reduce``'s candidate diffs, loading a large IR, ``fuzz``'s cases, a chunked output) asks
:func:`bar` for its bar.  A bar is drawn when:

* stderr is a terminal (a pipe, a file or a test's captured stderr gets none), and
* the command line did not turn bars off: ``-q`` and ``--json`` do (:func:`policy`, set by
  ``ovonehot.cli.main``), so stdout's JSON and a quiet run stay clean, and
* the operation lasts more than :data:`DELAY` seconds (a quick one draws nothing).

The environment variable ``OVONEHOT_PROGRESS`` overrides the terminal test: ``1`` draws bars
on any stderr at once (no delay: what tests and logs use), ``0`` never draws them.  ``-q`` and
``--json`` still win over it.  Without a bar, :meth:`Bar.write` prints its line on stderr, so
the lines an operation says (``reduce``'s diffs) read the same with or without one.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

# The environment variable that forces bars on (1) or off (0).
ENV = "OVONEHOT_PROGRESS"
# Seconds an operation runs before its bar is drawn (on a terminal, not forced).
DELAY = 1.0


class Mode(enum.Enum):
    """Whether bars may be drawn: ``AUTO`` by the rules above, ``OFF`` never (``-q``, ``--json``)."""

    AUTO = "auto"
    OFF = "off"


_MODE: ContextVar[Mode] = ContextVar("ovonehot_progress", default=Mode.AUTO)


@contextlib.contextmanager
def policy(mode: Mode) -> Iterator[None]:
    """Bars follow ``mode`` inside the block (the command line's ``-q``/``--json``)."""
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def _forced() -> bool | None:
    """``OVONEHOT_PROGRESS``: True (1), False (0), else None."""
    value = os.environ.get(ENV, "").strip()
    return {"1": True, "0": False}.get(value)


def enabled(force: bool | None = None) -> bool:
    """Whether a bar asked for now is drawn (``force``: a caller's own yes or no, else the rules)."""
    if _MODE.get() is Mode.OFF or sys.stderr is None:
        return False
    if force is not None:
        return force
    forced = _forced()
    if forced is not None:
        return forced
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


class Bar:
    """A bar, or nothing drawn: the same calls either way."""

    def __init__(self, drawn: Any = None) -> None:
        self._drawn = drawn

    @property
    def drawn(self) -> bool:
        return self._drawn is not None

    def update(self, n: int = 1) -> None:
        if self._drawn is not None:
            self._drawn.update(n)

    def note(self, text: str) -> None:
        """A short status after the counts (the last case, the candidate's size)."""
        if self._drawn is not None:
            self._drawn.set_postfix_str(text, refresh=False)

    def restart(self) -> None:
        """Back to zero (the work starts over another way)."""
        if self._drawn is not None:
            self._drawn.reset()

    def write(self, line: str) -> None:
        """A line on stderr above the bar (or on its own without one)."""
        if self._drawn is not None:
            self._drawn.write(line, file=sys.stderr)
        elif sys.stderr is not None:  # (None: no stderr at all; print would take stdout)
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._drawn is not None:
            self._drawn.close()
            self._drawn = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def bar(total: int | None, desc: str, unit: str, *, force: bool | None = None, scale: bool = False) -> Bar:
    """A bar of ``total`` steps (None: a counter) named ``desc``, counting ``unit`` ("layer");
    drawn only as the module docstring says (``force``: the caller's own yes or no instead of the
    terminal test; ``scale``: counts as "1.2MB", for bytes)."""
    if not enabled(force):
        return Bar()
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no annotations

    at_once = force is True or _forced() is True
    drawn = tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=scale,
        # A counter (no total): "reduce: 12 diffs [00:31, 2.60s/diff, ...]".
        bar_format=None if total is not None else "{desc}: {n_fmt} {unit}s [{elapsed}, {rate_fmt}{postfix}]",
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
        delay=0.0 if at_once else DELAY,
    )
    return Bar(drawn)
