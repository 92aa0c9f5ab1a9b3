"""Child interpreters for work OpenVINO may crash (``ovonehot diff``'s oracles, ``ovonehot fuzz``'s workers).

A child is a fresh ``python -c`` running one function of ovonehot with a
:class:`~multiprocessing.connection.Connection` over a socket pair.  Not
``multiprocessing``'s spawn: that re-runs the caller's main script in the child
when it lacks an ``if __name__ == "__main__"`` guard (a script calling
``ovonehot.cli.main`` then fails, or runs twice), and no OpenVINO state is
forked either.  The child imports this very ovonehot, installed or not.

Children ignore SIGINT and run in a session of their own: a Ctrl-C on the terminal reaches the
foreground process group, the parent, which handles it (it stops its children, keeps what finished and
exits 130); a child must not die half way with a traceback of its own.

A child's stderr goes to an anonymous file, not the terminal: what a dying runtime prints (glibc's
"double free or corruption (out)", a fatal Python error) becomes part of how the child ended
(:meth:`Child.death`), which the reports show, instead of noise on the user's terminal; what it
prints while answering a request (a runtime's warning) is handed to the caller with the answer
(:meth:`Child.answered`), which the reports show too.  The file is emptied after each request a
child answers, so it holds what one request printed, and only its last ``LAST_WORDS`` characters
are read.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO

from . import progress
from .errors import OpenVINOError, shorten

# The characters of a dead child's stderr its death's description quotes (the end of it).
LAST_WORDS = 600


@dataclass
class Child:
    """A running child: its process and the parent's end of the connection."""

    proc: subprocess.Popen[bytes]
    conn: Connection
    log: IO[bytes]  # the child's stderr (opened for appending: emptying it is safe while it runs)

    def stop(self, timeout: float = 10) -> None:
        """Ask the child to end (a ``None`` message), then wait; kill it if it does not."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.conn.close()
        try:
            self.proc.wait(timeout=timeout)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):  # Ctrl-C while waiting: do not wait
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def kill(self) -> None:
        """End the child now (its work is abandoned), without waiting for it to finish a request."""
        self.conn.close()
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def answered(self) -> str:
        """A request was answered: what the child printed for it (:meth:`last_words`), forgotten here."""
        words = self.last_words()
        with contextlib.suppress(OSError, ValueError):
            self.log.truncate(0)
        return words

    def last_words(self) -> str:
        """The end of what the child printed on stderr since its last answer, on one line."""
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - 4 * LAST_WORDS))
            text = self.log.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        words = " | ".join(lines)
        return words if len(words) <= LAST_WORDS else "..." + words[-LAST_WORDS:]

    def death(self, timeout: float = 10) -> str:
        """How the child ended, once its connection has closed: "killed by SIGSEGV", "exit status 1",
        with the end of what it printed: "killed by SIGABRT (it printed: double free or corruption (out))"."""
        self.conn.close()
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit status {code}"
        words = self.last_words()
        self.log.close()
        return f"{how} (it printed: {shorten(words, LAST_WORDS + 3)})" if words else how


# Linux: the child is killed when the parent dies (prctl PR_SET_PDEATHSIG, SIGKILL): a child stuck
# inside OpenVINO never reads its socket's end, and outlived a parent killed while waiting for it.
_DIE_WITH_PARENT = (
    "import sys, ctypes\n"
    "if sys.platform.startswith('linux'):\n"
    "    try: ctypes.CDLL(None).prctl(1, 9)\n"
    "    except (OSError, AttributeError): pass\n"
)


def start(module: str, function: str) -> Child:
    """Start ``python -c "from <module> import <function>; <function>(conn)"`` (ovonehot's own
    module and function names, never user input)."""
    mine, theirs = socket.socketpair()
    fd = theirs.fileno()
    code = (
        f"import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); {_DIE_WITH_PARENT}"
        f"from multiprocessing.connection import Connection; from {module} import {function}; "
        f"{function}(Connection({fd}))"
    )
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env[progress.ENV] = "0"  # no bars: its stderr is a log the reports quote (even when bars are forced)
    log = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 - the Child owns it and closes it
    # Python opens a temporary file without O_APPEND whatever the mode says: without it the child
    # would go on writing at its old offset after ``answered`` empties the file (a run of NUL bytes,
    # then its words).
    fcntl.fcntl(log.fileno(), fcntl.F_SETFL, fcntl.fcntl(log.fileno(), fcntl.F_GETFL) | os.O_APPEND)
    try:
        # A session of its own: a terminal Ctrl-C (sent to the foreground process group) never
        # reaches the child, not even while its interpreter is still starting, before the
        # SIG_IGN above runs ("Fatal Python error: init_import_site" otherwise).  The parent
        # handles Ctrl-C and stops its children; a child whose parent is gone sees its socket
        # close and ends.
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            pass_fds=(fd,),
            stdin=subprocess.DEVNULL,
            stderr=log,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        mine.close()
        log.close()
        raise OpenVINOError(f"cannot start a child process for OpenVINO ({exc})") from None
    finally:
        theirs.close()
    return Child(proc, Connection(mine.detach()), log)
