"""The ``ovonehot`` command line: argparse subcommands, errors turned into exit codes.

Each subcommand lives in ``ovonehot.cli.<name>`` and provides
``add_parser(subparsers)`` (which sets ``func``) ; ``main`` dispatches and turns
every ``ovonehot.Error`` into one line ``error: ...`` on stderr and the error's
exit status.  Exit statuses: 0 success, 1 a difference was found, 2 usage or bad
input file, 3 invalid or unsupported IR, 4 OpenVINO missing or failing, 130
interrupted (Ctrl-C: no traceback; what finished is kept, every output file is
complete or absent).

``-q`` (before or after the command) silences stderr while the command runs (progress,
notes); the ``error: ...`` line is still printed.  Progress bars (:mod:`ovonehot.progress`)
are drawn on a terminal's stderr, never with ``-q`` or ``--json``.  ``-v`` adds the error's
causes, ``-vv`` the Python traceback.  An unknown command gets "did you mean".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from .. import __version__, _console, progress
from ..errors import Error, UsageError
from ..suggest import did_you_mean
from . import convert, diff, fuzz, inspect, reduce, repro, run, validate
from ._help import add_verbosity_options, finish
from ._json import stdout_json_out
from ._options import error_message, input_spec_hint

# The subcommands, one module each, in help order (one per line).
COMMANDS = (
    run,
    convert,
    diff,
    fuzz,
    validate,
    inspect,
    reduce,
    repro,
)

# The longest error line printed, in characters.
MAX_MESSAGE = 2000


class UnrecognizedArgumentsError(UsageError):
    """Words on the command line that no option takes (``arguments``)."""

    def __init__(self, message: str, arguments: Sequence[str]) -> None:
        super().__init__(message)
        self.arguments = tuple(arguments)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line ``error: ...`` and exit status 2, and no option is
    taken by a prefix of its name (``--save`` is not ``--save-inputs``; old spellings are refused)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        choice = re.match(r"argument \S+: invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if choice is not None:
            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        raise UsageError(f"{self.prog}: {message} (see --help)")

    def parse_args(  # type: ignore[override]  # always a Namespace here
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """argparse's own, but words no option takes are an :class:`UnrecognizedArgumentsError`."""
        words = list(sys.argv[1:] if args is None else args)
        self._refuse_options_before_command(words)
        parsed, extra = self.parse_known_args(words, namespace)
        if extra:
            hint = self._option_hint(parsed, extra) or input_spec_hint(extra)
            message = f"{self.prog}: unrecognized arguments: {' '.join(extra)}{hint} (see --help)"
            raise UnrecognizedArgumentsError(message, extra)
        return parsed

    def _refuse_options_before_command(self, words: Sequence[str]) -> None:
        """``ovonehot --inputs x.npz run m.xml``: a command's option before the command is said so,
        not taken for a command named ``x.npz``."""
        if not words or not words[0].startswith("--") or self._subcommands() is None:
            return
        option = words[0].partition("=")[0]
        if option not in self._option_string_actions:
            raise UsageError(
                f"{self.prog}: {option} comes before the command: a command's options follow it "
                f"(ovonehot COMMAND MODEL {option} ...) (see --help)"
            )

    def _subcommands(self) -> dict[str, argparse.ArgumentParser] | None:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return None

    def _option_hint(self, parsed: argparse.Namespace, extra: Sequence[str]) -> str:
        """For an unknown ``--option`` left on the command line: the command's options near it."""
        commands = self._subcommands() or {}
        name = getattr(parsed, "command", None) or ""
        unknown = next((w.partition("=")[0] for w in extra if w.startswith("--")), None)
        if name not in commands or unknown is None:
            return ""
        others = [other for other in commands if other != name and unknown in _options(commands[other])]
        if others:
            return f" ({unknown} is an option of {', '.join(others)}, not of {name})"
        return did_you_mean(unknown, _options(commands[name]))


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """A command's long options, not the old spellings it refuses."""
    return [
        option
        for option, action in parser._option_string_actions.items()
        if option.startswith("--") and action.help != argparse.SUPPRESS
    ]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ovonehot",
        description="Read, check, run and cross-check OpenVINO IR graphs built around OneHot.",
        epilog="examples:\n  ovonehot inspect model.xml\n  ovonehot run model.xml --inputs inputs.npz\n"
        "  ovonehot diff model.xml\n  ovonehot COMMAND --help     each command's options and examples",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ovonehot {__version__}")
    add_verbosity_options(parser, 0)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in COMMANDS:
        module.add_parser(sub)
    finish(sub, {m.__name__.rsplit(".", 1)[1]: m.__doc__ for m in COMMANDS})
    return parser


def _causes(exc: BaseException, verbosity: int) -> list[str]:
    """With -v, the error's causes (one line each); with -vv, the traceback too."""
    if verbosity <= 0:
        return []
    if verbosity > 1:
        return "".join(traceback.format_exception(exc)).rstrip().splitlines()
    lines: list[str] = []
    seen = {str(exc)}
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(lines) < 10:
        if str(cause) not in seen:
            lines.append(f"  caused by {type(cause).__name__}: {cause}")
            seen.add(str(cause))
        cause = cause.__cause__ or cause.__context__
    return lines


def _run(args: argparse.Namespace) -> int:
    """The command, with stderr silenced under -q; no progress bars under -q or --json."""
    quiet = bool(getattr(args, "quiet", 0))
    bars = progress.Mode.OFF if quiet or getattr(args, "json", False) else progress.Mode.AUTO
    with progress.policy(bars):
        if not quiet:
            return int(args.func(args))
        with contextlib.redirect_stderr(io.StringIO()):
            return int(args.func(args))


def _stop_children() -> None:
    """After Ctrl-C: end the OpenVINO child now instead of letting it finish its request (its
    answer is no longer wanted).  Children ignore SIGINT themselves (ovonehot.child)."""
    oracle_process = sys.modules.get("ovonehot.oracle.process")
    if oracle_process is not None:
        oracle_process.abandon()


def main(argv: Sequence[str] | None = None) -> int:
    _console.release()  # Ctrl-C from here on keeps what finished (KeyboardInterrupt below)
    args = argparse.Namespace()
    try:
        args = build_parser().parse_args(argv, args)
        stdout_json_out(args)
        with warnings.catch_warnings():
            # NumPy's RuntimeWarnings (overflow, invalid value, division by zero) are how IEEE
            # arithmetic goes, what a model computes, not news for the user's terminal: the
            # stats and reports count NaN and infinities where they matter.
            warnings.simplefilter("ignore", RuntimeWarning)
            status = _run(args)
        _console.check_interrupt()  # a Ctrl-C that Python dropped (in a __del__) on the way: 130
        return status  # noqa: TRY300 - inside the try: the KeyboardInterrupt above is handled below
    except Error as exc:
        message = " ".join(error_message(exc).split("\n"))
        if isinstance(exc, UnrecognizedArgumentsError) and "--json" in (
            sys.argv[1:] if argv is None else argv
        ):
            message += "; --json takes no file name now: --json-out FILE writes the JSON to a file"
        if len(message) > MAX_MESSAGE:  # a hostile file's 5 MB attribute must not become a 5 MB line
            message = f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE} more characters)"
        print(f"error: {message}", file=sys.stderr)
        for line in _causes(exc, getattr(args, "verbose_errors", 0) or 0):
            print(line, file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        _console.handled()
        _stop_children()
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system refused a read or write (permissions, full disk): no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: out of memory", file=sys.stderr)
        return 2
