"""``--json`` and ``--json-out FILE``, the same for every command.

``--json`` prints the command's report as JSON on stdout and nothing else there (the
human output is dropped: ``ovonehot X ... --json | python -m json.tool`` always
parses); ``--json-out FILE`` writes the same JSON to FILE atomically and keeps the
human output on stdout.  Errors stay one line ``error: ...`` on stderr either way.
Every document starts with ``schema_version`` and ``command`` (docs/json.md; the JSON Schema
files are ``ovonehot/schemas/<command>.schema.json``).  The JSON is strict: NaN and infinities become the strings ``"nan"``, ``"inf"``,
``"-inf"`` (``allow_nan=False`` guarantees no bare ``NaN`` token).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TextIO

from ..atomic import check_output_file
from ..errors import UsageError
from ..jsondata import SCHEMA_VERSION, array_values, plain
from ..npyio import write_text

__all__ = ["array_values", "plain"]  # (re-exported: the commands use them beside the options)

# The file name that means stdout where an option takes it.
STDOUT = "-"


def add_json_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json", action="store_true", help=f"print {what} as JSON on stdout, and nothing else there"
    )
    p.add_argument(
        "--json-out",
        metavar="FILE",
        help=f"also write {what} as JSON to FILE (the usual output stays on stdout); "
        "'-' writes it to stdout instead of the usual output, as --json does",
    )


def check_json_out(args: argparse.Namespace, *others: tuple[str, str | None]) -> None:
    """Refuse a bad ``--json-out`` path before any work starts ('' is a usage error, a device or
    FIFO an input error), and the same file named by ``--json-out`` and another output option
    (``others``: (option, path) pairs): one of the two would silently replace the other.
    ``--json-out -`` never gets here: :func:`stdout_json_out` made it ``--json``."""
    if args.json_out is not None:
        check_output_file(args.json_out, "--json-out")
        check_distinct(("--json-out", args.json_out), *others)


def stdout_json_out(args: argparse.Namespace) -> None:
    """``--json-out -``: the JSON on stdout, which is what ``--json`` does (so the human
    output goes nowhere and stdout parses)."""
    if getattr(args, "json_out", None) == STDOUT:
        args.json_out = None
        args.json = True


def check_distinct(*outputs: tuple[str, str | None]) -> None:
    """Two output options naming one file (also through a link or another spelling) are a
    usage error: the second write would replace the first."""
    seen: dict[str, str] = {}
    for option, path in outputs:
        if path is None or path == STDOUT:
            continue
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} name the same file {path!r}: give each its own file")
        seen[key] = option


@contextlib.contextmanager
def human_output(args: argparse.Namespace) -> Iterator[None]:
    """Run a command body: with ``--json`` its prints to stdout go nowhere, and :func:`emit`
    prints the JSON on the real stdout."""
    if not getattr(args, "json", False):
        yield
        return
    args._json_stdout = sys.stdout
    with contextlib.redirect_stdout(_Null()):
        yield


def emit(args: argparse.Namespace, data: Mapping[str, Any] | Callable[[], Mapping[str, Any]]) -> None:
    """The command's report: to stdout with ``--json``, to the ``--json-out`` file; nothing, and
    nothing built, without either (``data`` may be a function that builds it: a 1e6-layer
    ``validate`` report is gigabytes as JSON)."""
    if args.json_out is None and not getattr(args, "json", False):
        return
    if callable(data):
        data = data()
    document = {"schema_version": SCHEMA_VERSION, "command": getattr(args, "command", None), **data}
    text = json.dumps(plain(document), indent=2, allow_nan=False) + "\n"
    if args.json_out is not None:
        write_text(args.json_out, text)
    if getattr(args, "json", False):
        out: TextIO = getattr(args, "_json_stdout", sys.stdout)
        out.write(text)
        out.flush()


class _Null(io.TextIOBase):
    """A text stream that forgets what is written."""

    def write(self, text: str) -> int:
        return len(text)
