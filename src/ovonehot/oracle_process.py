"""OpenVINO's oracles in a child process: a crash inside OpenVINO becomes an OpenVINOError.

OpenVINO can kill the process that runs it: its CPU plugin segfaults on some
valid models (``OneHot(f8e4m3) -> Convert(boolean)`` of dynamic shape, once the
OneHot output is made visible), and the crashes the oracle module knows of are
refused before they happen, but not the unknown ones.  ``ovonehot diff`` runs its
oracles through :class:`IsolatedOracle`, so such a model gets a verdict and a
report instead of ending the command with a signal.

One child is started lazily (``spawn``: no OpenVINO state is forked) and serves
runs over a pipe; after a crash the next run starts a new one.  :func:`shared`
gives the process one such child for all its diffs (closed at exit), so its
start-up (importing OpenVINO, about half a second) is paid once.
This module does not import openvino; the child does (through
:mod:`ovonehot.openvino_oracle`).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import traceback
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from . import errors
from .errors import OpenVINOError
from .openvino_oracle import OracleOutputs


class IsolatedOracle:
    """``openvino_oracle.run`` in a child process; ``close`` it when done."""

    def __init__(self) -> None:
        self._proc: Any = None  # multiprocessing.process.BaseProcess
        self._conn: Connection | None = None
        self._served = 0  # runs answered by the current child

    def run(
        self,
        oracle: str,
        xml_path: str | os.PathLike[str],
        inputs: Mapping[str, np.ndarray],
        bin_path: str | os.PathLike[str] | None = None,
        keep_intermediates: bool = False,
    ) -> OracleOutputs:
        """What ``openvino_oracle.run`` returns or raises; OpenVINOError when OpenVINO kills the child.

        A child that dies after serving earlier runs may have been corrupted by one of them
        (OpenVINO bugs that write out of bounds crash a *later* compile): the run is retried
        once in a fresh child, and only a crash there is this run's.
        """
        request = (oracle, str(xml_path), dict(inputs), None if bin_path is None else str(bin_path),
                   keep_intermediates)
        while True:
            conn = self._connection()
            try:
                conn.send(request)
                reply = conn.recv()
                self._served += 1
                break
            except (EOFError, OSError):
                fresh = self._served == 0
                death = self._death()
                if fresh:
                    raise OpenVINOError(f"OpenVINO crashed the process running the {oracle} oracle "
                                        f"({death})") from None
        kind = reply[0]
        if kind == "ok":
            return OracleOutputs(reply[1], reply[2])
        if kind == "error":
            cls = getattr(errors, reply[1], None)
            if not (isinstance(cls, type) and issubclass(cls, errors.Error)):
                cls = OpenVINOError
            raise cls(reply[2])
        raise RuntimeError(f"ovonehot bug in the oracle process:\n{reply[1]}")

    def close(self) -> None:
        """Stop the child, if one is running."""
        if self._conn is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            self._proc.join(timeout=10)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
            self._proc = None

    def _connection(self) -> Connection:
        if self._conn is None:
            ctx = multiprocessing.get_context("spawn")
            parent, child = ctx.Pipe()
            self._proc = ctx.Process(target=_serve, args=(child,), daemon=True, name="ovonehot-oracle")
            self._proc.start()
            child.close()
            self._conn = parent
            self._served = 0
        return self._conn

    def _death(self) -> str:
        """How the child ended (and forget it: the next run starts a new one)."""
        proc, self._proc = self._proc, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if proc is None:
            return "no process"
        proc.join(timeout=10)
        code = proc.exitcode
        if code is not None and code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"


_SHARED: IsolatedOracle | None = None


def shared() -> IsolatedOracle:
    """The process's one IsolatedOracle, started on first use and closed at exit."""
    global _SHARED
    if _SHARED is None:
        _SHARED = IsolatedOracle()
        atexit.register(_SHARED.close)
    return _SHARED


def _serve(conn: Connection) -> None:
    """The child: run each requested oracle, send back the outputs or the error."""
    from . import openvino_oracle

    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        oracle, xml, inputs, bin_path, keep = request
        try:
            out = openvino_oracle.run(oracle, xml, inputs, bin_path, keep)
            reply: tuple[Any, ...] = ("ok", dict(out), out.intermediates)
        except errors.Error as exc:
            reply = ("error", type(exc).__name__, str(exc))
        except Exception:  # noqa: BLE001 - a bug in ovonehot: sent back to be raised loudly
            reply = ("bug", traceback.format_exc())
        conn.send(reply)
