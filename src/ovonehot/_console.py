"""The ``ovonehot`` command's entry point, and Ctrl-C before and after its work.

Loading ovonehot, NumPy and lxml takes most of a second, and a Ctrl-C in that time used
to end the console script with a traceback (``KeyboardInterrupt`` raised inside whatever
module was being imported).  When the process is the ``ovonehot`` command (the console
script, or ``python -m ovonehot``), :func:`guard_startup` runs first thing in
``ovonehot/__init__.py`` and makes SIGINT end the process at once with the one line
``error: interrupted`` and exit status 130 (nothing has been written yet: there is
nothing to keep).  ``ovonehot.cli.main`` hands SIGINT back to Python
(:func:`release`) when the work starts, so Ctrl-C during a command keeps what finished
as before; :func:`run`, the console script's entry point, guards the exit the same way
once ``main`` has returned.

During the work SIGINT raises ``KeyboardInterrupt`` and is also remembered until a caller
that keeps what finished has handled it (:func:`handled`).  Python drops an exception raised
inside a ``__del__`` or a weakref callback (it prints "Exception ignored in" and goes on):
Dask's ``Future.__del__`` is one, and a Ctrl-C landing there was lost (the campaign ran to
its end).  The engines call :func:`check_interrupt` between items, which raises it again,
and the dropped exception is not printed.  A program importing ovonehot as a library keeps its own
SIGINT handling: nothing here runs for it.

This module imports only small standard-library modules (``os``, ``signal``, ``sys``,
``contextlib``, ``threading``), not even ``pathlib``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

INTERRUPTED = 130


def is_command() -> bool:
    """Whether this process is the ``ovonehot`` command (not a program importing ovonehot),
    from the interpreter's own command line: the console script or ``-m ovonehot``.  (Not
    ``sys.argv``: multiprocessing's spawned children, Dask's workers, get the parent's.)"""
    words: Iterator[str] = iter(list(getattr(sys, "orig_argv", []))[1:])
    for word in words:
        if word in ("-X", "-W"):  # options with a value
            next(words, None)
        elif word == "-m":
            return next(words, None) == "ovonehot"
        elif word == "-c" or word == "-":
            return False
        elif not word.startswith("-"):
            return os.path.basename(word) == "ovonehot"  # noqa: PTH119 - runs before pathlib is loaded
    return False


def _quit(signum: int, frame: FrameType | None) -> None:
    """SIGINT while there is nothing to keep: one line, exit 130, no traceback from anywhere."""
    _flush_streams()
    try:
        os.write(2, b"error: interrupted\n")
    finally:
        os._exit(INTERRUPTED)


_pending = False


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGINT during the command's work: KeyboardInterrupt, remembered until :func:`handled`."""
    global _pending
    _pending = True
    raise KeyboardInterrupt


def _unraisable(info: sys.UnraisableHookArgs) -> None:
    """A Ctrl-C that Python dropped (raised in a ``__del__``): remembered by :func:`_interrupt`,
    raised again by :func:`check_interrupt`, not printed.  Anything else: Python's own report."""
    if info.exc_type is KeyboardInterrupt and _pending:
        return
    sys.__unraisablehook__(info)


def check_interrupt() -> None:
    """Raise ``KeyboardInterrupt`` again if a Ctrl-C came and nothing has handled it yet."""
    if _pending:
        raise KeyboardInterrupt


def handled() -> None:
    """The Ctrl-C has been handled (the work stopped, what finished is kept)."""
    global _pending
    _pending = False


def catch_interrupts() -> None:
    """SIGINT to :func:`_interrupt` and dropped Ctrl-Cs unprinted (main thread only)."""
    if threading.current_thread() is threading.main_thread():
        handled()
        signal.signal(signal.SIGINT, _interrupt)
        sys.unraisablehook = _unraisable


def _flush_streams() -> None:
    """Flush stdout and stderr; a closed, broken or replaced stream is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def guard_startup() -> None:
    """Make SIGINT quit at once, when this process is the command (see the module doc)."""
    if is_command() and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _quit)


def release() -> None:
    """SIGINT back to a KeyboardInterrupt (:func:`catch_interrupts`), if :func:`guard_startup` had taken it."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _quit:
        catch_interrupts()


def run() -> None:
    """The console script: ``ovonehot.cli.main``, then exit with its status.

    A Ctrl-C after the command's work changes nothing: one line, 130.  The exit does not go
    through the interpreter's own shutdown, where CPython puts SIGINT back to the default
    action, so a Ctrl-C landing there killed the finished command by the signal (status -2,
    nothing printed): the exit functions run and the streams are flushed here, then the process
    ends at once."""
    guard_startup()
    from .cli import main

    status = main()
    guard_startup()
    _exit(status)


def _exit(status: object) -> None:
    import atexit

    code = 0 if status is None else status if isinstance(status, int) else 1
    if not isinstance(status, int) and status is not None:
        print(status, file=sys.stderr)
    atexit._run_exitfuncs()
    _flush_streams()
    os._exit(code)
