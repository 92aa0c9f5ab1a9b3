"""OpenVINO's oracles in a child process: a crash inside OpenVINO becomes an OpenVINOError.

OpenVINO can kill the process that runs it: its CPU plugin segfaults on some
valid models (``OneHot(f8e4m3) -> Convert(boolean)`` of dynamic shape corrupts
the heap and a later compile crashes), and the crashes the oracle module knows
of are refused before they happen, but not the unknown ones.  ``ovonehot diff``
runs its oracles through :class:`IsolatedOracle`, so such a model gets a verdict
and a report instead of ending the command with a signal.

The child (:mod:`ovonehot.child`: a fresh interpreter, not ``multiprocessing``)
is started lazily and answers over a socket pair.  After a crash the next run
starts a new child.  :func:`shared` gives the process one
child for all its diffs (closed at exit), so its start-up (importing OpenVINO,
about half a second) is paid once.  This module does not import openvino; the
child does (through :mod:`ovonehot.oracle.openvino_runtime`).
"""

from __future__ import annotations

import atexit
import errno
import os
import traceback
from collections.abc import Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from .. import child, errors
from ..child import Child
from ..errors import OracleRefusal
from .common import OracleOutputs

# The request that checks a plugin's settings instead of running an oracle.
PLUGIN_CHECK = "plugin-check"
# How long one run may take before its child is killed (OVONEHOT_ORACLE_TIMEOUT, seconds): heap
# corruption inside OpenVINO can deadlock the child instead of crashing it (seen once on an OPT
# export, in free() under MVN's evaluate), and diff then waited for ever.  An hour is far more
# than the compile and inference of the models this tool is for take on one core.
TIMEOUT_ENV = "OVONEHOT_ORACLE_TIMEOUT"
DEFAULT_TIMEOUT = 3600.0


def timeout() -> float:
    """The seconds one oracle run may take (``OVONEHOT_ORACLE_TIMEOUT``, a positive number)."""
    text = os.environ.get(TIMEOUT_ENV, "")
    try:
        value = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise errors.UsageError(f"{TIMEOUT_ENV}={text!r}: give a number of seconds") from None
    if not value > 0:
        raise errors.UsageError(f"{TIMEOUT_ENV}={text!r}: give a positive number of seconds")
    return value


class IsolatedOracle:
    """``openvino_runtime.run`` in a child process; ``close`` it when done."""

    def __init__(self) -> None:
        self._child: Child | None = None
        self._served = 0  # runs answered by the current child
        # What the child printed on stderr during the last run (and a child that died before it
        # was retried): the reports show it (it never reaches the terminal).
        self.printed = ""

    @property
    def pid(self) -> int | None:
        """The current child's process id (None before the first run or after a crash)."""
        return None if self._child is None else self._child.proc.pid

    def run(
        self,
        oracle: str,
        xml_path: str | os.PathLike[str],
        inputs: Mapping[str, np.ndarray],
        bin_path: str | os.PathLike[str] | None = None,
        keep_intermediates: bool = False,
        **options: Any,
    ) -> OracleOutputs:
        """What ``openvino_runtime.run`` returns or raises (``onnxruntime_runner.run`` for the
        ``"onnxruntime"`` oracle; ``options`` are theirs); OracleRefusal (cause ``crashed``) when
        the runtime kills the child.

        A child that dies after serving earlier runs may have been corrupted by one of them
        (OpenVINO bugs that write out of bounds crash a *later* compile): the run is retried
        once in a fresh child, and only a crash there is this run's.
        """
        # Absolute paths: the child keeps the working directory it started in, which a library
        # caller may have left since (os.chdir between two diffs).
        request = (
            oracle,
            str(Path(xml_path).absolute()) if str(xml_path) else "",
            dict(inputs),
            None if bin_path is None else str(Path(bin_path).absolute()),
            keep_intermediates,
            options,
        )
        self.printed = ""
        limit = timeout()
        while True:
            worker = self._started()
            try:
                worker.conn.send(request)
                if not worker.conn.poll(limit):
                    self.kill()
                    runtime = "onnxruntime" if oracle == "onnxruntime" else "OpenVINO"
                    raise OracleRefusal(
                        f"{runtime} did not answer within {limit:g} s: the process running the "
                        f"{oracle} oracle was killed ({TIMEOUT_ENV} sets the limit)",
                        "crashed",
                    )
                reply = worker.conn.recv()
                self.printed = _joined(self.printed, worker.answered())
                self._served += 1
                break
            except (EOFError, OSError):
                fresh = self._served == 0
                self._child = None
                words = worker.last_words()
                death = worker.death()
                self.printed = _joined(
                    self.printed,
                    words if fresh else f"a child that had served earlier runs died on this one ({death})",
                )
                if fresh:
                    runtime = "onnxruntime" if oracle == "onnxruntime" else "OpenVINO"
                    what = (
                        f"the process running the {oracle} oracle was killed ({death}: the kernel's "
                        "out-of-memory killer sends it; --all-layers keeps every node's output)"
                        if "SIGKILL" in death
                        else f"{runtime} crashed the process running the {oracle} oracle ({death})"
                    )
                    raise OracleRefusal(what, "crashed") from None
        kind = reply[0]
        if kind == "ok":
            return OracleOutputs(reply[1], reply[2], reply[3], reply[4])
        if kind == "error":
            cls = getattr(errors, reply[1], None)
            if not (isinstance(cls, type) and issubclass(cls, errors.Error)):
                cls = errors.OpenVINOError
            if issubclass(cls, OracleRefusal):
                raise cls(reply[2], **reply[3])
            if issubclass(cls, errors.ParameterError):
                raise cls(**reply[3])
            raise cls(reply[2])
        raise RuntimeError(f"ovonehot bug in the oracle process:\n{reply[1]}")

    def check_plugin(self, device: str, overrides: Mapping[str, Any]) -> None:
        """``openvino_runtime.check_plugin`` in the child: a ParameterError for a device that is
        not here or a property override the device refuses."""
        self.run(PLUGIN_CHECK, "", {}, device=device, config=dict(overrides))

    def kill(self) -> None:
        """End the child now, abandoning its current request (after Ctrl-C)."""
        if self._child is not None:
            self._child.kill()
            self._child = None

    def close(self) -> None:
        """Stop the child, if one is running."""
        if self._child is not None:
            self._child.stop()
            self._child = None

    def _started(self) -> Child:
        if self._child is None:
            self._child = child.start("ovonehot.oracle.process", "serve")
            self._served = 0
        return self._child


def _joined(before: str, words: str) -> str:
    return " | ".join(w for w in (before, words) if w)


_SHARED: IsolatedOracle | None = None


def shared() -> IsolatedOracle:
    """The process's one IsolatedOracle, started on first use and closed at exit."""
    global _SHARED
    if _SHARED is None:
        _SHARED = IsolatedOracle()
        atexit.register(_SHARED.close)
    return _SHARED


def abandon() -> None:
    """Kill the shared child, if any, without waiting for its answer."""
    if _SHARED is not None:
        _SHARED.kill()


def _error_fields(exc: errors.Error) -> dict[str, Any]:
    """The structured fields of ``exc`` that the parent rebuilds it with (its message aside)."""
    if isinstance(exc, OracleRefusal):
        return {
            "cause": exc.cause,
            "layer": exc.layer,
            "op": exc.op,
            "code": exc.code,
            "detail": exc.detail,
            "complaints": exc.complaints,
        }
    if isinstance(exc, errors.ParameterError):
        return {
            "parameter": exc.parameter,
            "problem": exc.problem,
            "value": exc.value,
            "mentions": exc.mentions,
        }
    return {}


def serve(conn: Connection) -> None:
    """The child: run each requested oracle, send back the outputs or the error."""
    from . import openvino_runtime

    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        oracle, xml, inputs, bin_path, keep, options = request
        try:
            if oracle == PLUGIN_CHECK:
                openvino_runtime.check_plugin(options["device"], options["config"])
                conn.send(("ok", {}, {}, {}, {}))
                continue
            if oracle == "onnxruntime":
                from . import onnxruntime_runner

                out = onnxruntime_runner.run(xml, inputs, **options)
            else:
                out = openvino_runtime.run(oracle, xml, inputs, bin_path, keep, **options)
            reply: tuple[Any, ...] = ("ok", dict(out), out.intermediates, out.missing, out.blocked)
        except errors.Error as exc:
            reply = ("error", type(exc).__name__, str(exc), _error_fields(exc))
        except MemoryError:  # std::bad_alloc in OpenVINO (pybind11 makes it MemoryError) or NumPy
            reply = ("error", "OpenVINOResourceError", f"{xml}: the {oracle} oracle ran out of memory")
        except OSError as exc:  # ENOMEM from mmap of a huge .bin, an unreadable file
            kind = "OpenVINOResourceError" if exc.errno == errno.ENOMEM else "OpenVINOError"
            reply = ("error", kind, f"{xml}: the {oracle} oracle failed: {exc.strerror or exc}")
        except Exception:  # noqa: BLE001 - a bug in ovonehot: sent back to be raised loudly
            reply = ("bug", traceback.format_exc())
        try:
            try:
                conn.send(reply)
            except MemoryError:  # the outputs cannot be pickled back: an error instead
                conn.send(
                    (
                        "error",
                        "OpenVINOResourceError",
                        f"{xml}: the {oracle} oracle's outputs do not fit in memory",
                    )
                )
        except OSError:  # the parent is gone (interrupted): nothing to answer
            return
