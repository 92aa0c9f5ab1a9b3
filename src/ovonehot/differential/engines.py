"""Where ``fuzz`` cases and a corpus ``diff``'s models run: one small interface, three engines.

A :class:`Job` names two functions of ovonehot (by module and name, never user input):

* ``handler(settings, work, item) -> result`` does one item (a fuzz case index, a model path).
  It runs in an *isolated child* (:mod:`ovonehot.child`, a fresh interpreter), so an OpenVINO
  crash inside it costs that item, not the campaign;
* ``crashed(settings, work, item, returncode, death) -> result`` describes an item whose child
  died (``work`` is the child's work directory, ``None`` when it is out of reach).

What a child prints on stderr never reaches the terminal: a result that is a dict gets what the
child printed for its item as ``stderr``; a crash's ``death`` ends with it.

Engines:

* :class:`InProcess` (``jobs=0``): the handler runs in this process, one item after the other
  (no crash isolation beyond what the handler does itself);
* :class:`ProcessPool` (``jobs=N``): N children on this machine, each fed one item at a time;
* :class:`DaskEngine`: items are Dask distributed tasks, on an embedded ``LocalCluster``
  (loopback only, no dashboard) or on a running scheduler (``address``).  A task runs in a Dask
  worker, which keeps its own isolated child (one per worker thread) and runs the item there, so
  a crash costs one item and neither the Dask worker nor the campaign.  ``dask`` is imported
  only here, only when this engine is chosen.

Every engine yields ``(item, result)`` as items finish (in no fixed order: callers sort), feeds
new items only while ``keep_going()`` holds, and on Ctrl-C (KeyboardInterrupt) abandons the
items in flight, kills its children, removes their work directories and re-raises.  Before
feeding the next item each raises a Ctrl-C again that Python dropped (``ovonehot._console.check_interrupt``).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from .. import _console, child
from ..atomic import scratch_directory
from ..child import Child
from ..errors import OpenVINOError, ParameterError

ENGINES = ("process", "dask")


@dataclass(frozen=True)
class Job:
    """What to run on each item: ``handler`` and ``crashed`` as ``"module:function"``."""

    handler: str
    crashed: str
    settings: Any  # picklable; the same for every item
    work_prefix: str = "ovonehot-work-"  # each child's work directory, under the system temp


class Engine(Protocol):
    name: str

    def run(
        self, job: Job, items: Iterator[Any], keep_going: Callable[[], bool]
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, result)`` as items finish; feed new ones while ``keep_going()``."""
        ...


def _function(name: str) -> Callable[..., Any]:
    module, _, function = name.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), function)
    return found


def serve(conn: Connection) -> None:
    """An isolated child (ovonehot.child): ``(handler, settings, work)`` first, then items."""
    try:
        handler_name, settings, work = conn.recv()
    except (EOFError, OSError):
        return
    # What the handler and its own children leave in the temporary directory (a killed child
    # removes nothing) is inside the work directory, which the engine removes.
    os.environ["TMPDIR"] = tempfile.tempdir = work
    handler = _function(handler_name)
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):  # the campaign is gone (interrupted, killed): end quietly
            return
        if item is None:
            return
        result = handler(settings, work, item)
        try:
            conn.send(result)
        except OSError:
            return


class _Worker:
    """One isolated child with its own work directory."""

    def __init__(self, job: Job) -> None:
        self.work = scratch_directory(job.work_prefix)
        try:
            self.child: Child = child.start("ovonehot.differential.engines", "serve")
            self.child.conn.send((job.handler, job.settings, self.work))
        except BaseException:
            shutil.rmtree(self.work, ignore_errors=True)
            raise
        self.item: Any = None
        self.busy = False

    def send(self, item: Any) -> None:
        self.child.conn.send(item)
        self.item, self.busy = item, True

    def receive(self, job: Job) -> Any:
        """The busy item's result, or its crash description when the child died on it."""
        try:
            data = self.child.conn.recv()
        except (EOFError, OSError):
            data = None
        return self.settle(job, data)

    def settle(self, job: Job, data: Any) -> Any:
        """``data`` received (``None``: end of file, the child died on the item).  What the child
        printed on stderr for the item joins a result that is a dict, as its ``stderr``."""
        self.busy = False
        if data is not None:
            printed = self.child.answered()
            if printed and isinstance(data, dict):
                return {**data, "stderr": printed}
            return data
        death = self.child.death()
        result = _function(job.crashed)(job.settings, self.work, self.item, self.child.proc.returncode, death)
        self.close(kill=True)
        return result

    @property
    def alive(self) -> bool:
        return self.child.proc.returncode is None and not self.child.conn.closed

    def close(self, kill: bool = False) -> None:
        if self.child.proc.poll() is None:
            if kill:
                self.child.kill()
            else:
                self.child.stop(timeout=5)
        else:
            self.child.conn.close()
        shutil.rmtree(self.work, ignore_errors=True)


class InProcess:
    """Items one after the other in this process (``jobs=0``)."""

    name = "in-process"

    def run(
        self, job: Job, items: Iterator[Any], keep_going: Callable[[], bool]
    ) -> Iterator[tuple[Any, Any]]:
        handler = _function(job.handler)
        work = scratch_directory(job.work_prefix)
        try:
            while keep_going():
                _console.check_interrupt()
                item = next(items, None)
                if item is None:
                    return
                yield item, handler(job.settings, work, item)
        finally:
            shutil.rmtree(work, ignore_errors=True)


class _Feed:
    """The items one at a time, until they run out or ``keep_going`` says stop (then None, always)."""

    def __init__(self, items: Iterator[Any], keep_going: Callable[[], bool]) -> None:
        self.items = items
        self.keep_going = keep_going
        self.exhausted = False

    def take(self) -> Any:
        """The next item, None when there is none or the time is up."""
        _console.check_interrupt()
        if not self.exhausted and self.keep_going():
            item = next(self.items, None)
            if item is not None:
                return item
        self.exhausted = True
        return None


class ProcessPool:
    """``jobs`` isolated children on this machine, one item at a time each."""

    name = "process"

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)

    def run(
        self, job: Job, items: Iterator[Any], keep_going: Callable[[], bool]
    ) -> Iterator[tuple[Any, Any]]:
        workers: list[_Worker] = []
        feed = _Feed(items, keep_going)

        def start(item: Any) -> None:  # a child is started only when there is an item for it
            if item is not None:
                worker = _Worker(job)
                workers.append(worker)
                worker.send(item)

        take = feed.take
        try:
            for _ in range(self.jobs):
                start(take())
            while any(w.busy for w in workers):
                busy = {w.child.conn: w for w in workers if w.busy}
                for conn in wait(list(busy)):  # a dead child's connection is ready too (end of file)
                    worker = busy[conn]  # type: ignore[index]
                    item = worker.item
                    result = worker.receive(job)
                    yield item, result
                    _console.check_interrupt()
                    if worker.alive:
                        nxt = take()
                        if nxt is not None:
                            worker.send(nxt)
                    else:  # it died on that item: a fresh child takes the next one
                        workers.remove(worker)
                        start(take())
        except BaseException:  # Ctrl-C or an error here: a busy child's item is abandoned, not waited for
            for worker in workers:
                if worker.busy:
                    worker.close(kill=True)
            raise
        finally:
            for worker in workers:
                worker.close()


# -- Dask -----------------------------------------------------------------------------------

# In a Dask worker process: the isolated child of each (campaign, worker thread), kept between
# tasks, and the campaigns that have ended (their late tasks do nothing).
_CHILDREN: dict[tuple[str, int], _Worker] = {}
_ENDED: set[str] = set()
_LOCK = threading.Lock()


def dask_task(job: Job, campaign: str, item: Any) -> Any:
    """A Dask task: run ``item`` in this worker thread's isolated child (started on first use,
    restarted after a crash).  The result is what the handler returned, the crash description,
    or ``None`` when the campaign has ended (interrupted)."""
    key = (campaign, threading.get_ident())
    with _LOCK:
        if campaign in _ENDED:
            return None
        worker = _CHILDREN.get(key)
    if worker is None or not worker.alive:
        worker = _Worker(job)
        with _LOCK:
            _CHILDREN[key] = worker
    worker.send(item)
    try:
        data = worker.child.conn.recv()
    except (EOFError, OSError):
        data = None
    if data is None and campaign in _ENDED:  # killed by dask_cleanup: no verdict on the item
        return None
    return worker.settle(job, data)


def dask_cleanup(campaign: str, kill: bool = False) -> int:
    """On every Dask worker once the campaign ends: stop its isolated children, remove their work
    directories.  ``kill``: the campaign was interrupted, busy children are not waited for."""
    with _LOCK:
        _ENDED.add(campaign)
        keys = [k for k in _CHILDREN if k[0] == campaign]
        workers = [_CHILDREN.pop(k) for k in keys]
    for worker in workers:
        worker.close(kill=kill)
    return len(workers)


@contextlib.contextmanager
def _main_script_hidden() -> Iterator[None]:
    """While the LocalCluster spawns its worker processes: multiprocessing's spawn re-runs the
    caller's main script in each of them (as ``__mp_main__``), which breaks a script that calls
    ovonehot without an ``if __name__ == "__main__"`` guard (it would start a cluster in every
    worker).  The workers need nothing from that script, so they are not told about it."""
    main = sys.modules.get("__main__")
    saved: dict[str, Any] = {
        k: main.__dict__[k] for k in ("__spec__", "__file__") if main is not None and k in main.__dict__
    }
    try:
        if main is not None:
            main.__dict__["__spec__"] = None
            main.__dict__.pop("__file__", None)
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


class DaskEngine:
    """Items as Dask distributed tasks: an embedded LocalCluster of ``workers`` processes, or the
    scheduler at ``address``."""

    name = "dask"

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        self.workers = workers
        self.address = address
        self.scratch = ""
        self._config: Any = None

    def _client(self) -> tuple[Any, Any]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise OpenVINOError(
                "the Dask engine needs Dask distributed: pip install 'ovonehot[dask]' "
                "(or 'dask[distributed]')"
            ) from None
        if self.address is not None:
            try:
                return Client(self.address, timeout=30), None
            except (OSError, TimeoutError, ValueError) as exc:
                raise ParameterError(
                    "scheduler", f"cannot reach a Dask scheduler ({exc})", self.address
                ) from None
        import dask

        n = self.workers or os.cpu_count() or 1
        # Dask's scratch space (the workers' and this process's), removed when the cluster closes.
        self.scratch = scratch_directory("ovonehot-dask-")
        self._config = dask.config.set({"temporary-directory": self.scratch})
        # Without a dashboard the scheduler still serves /health on loopback, port 8787 when free
        # (another port, with a warning, when not): the port does not matter here.
        warnings.filterwarnings("ignore", message="Port 8787 is already in use", category=UserWarning)
        # Loopback only, no dashboard; one thread per worker (the case work runs in its child).
        # The worker processes start with SIGINT ignored (inherited): a terminal's Ctrl-C reaches
        # the whole process group, and it is this process's to handle (stop, keep what finished).
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            with _main_script_hidden():
                cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=logging.CRITICAL,
                    local_directory=self.scratch,
                )
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        return Client(cluster), cluster

    def run(
        self, job: Job, items: Iterator[Any], keep_going: Callable[[], bool]
    ) -> Iterator[tuple[Any, Any]]:
        import uuid

        client, cluster = self._client()
        from distributed import as_completed

        campaign = uuid.uuid4().hex
        pending: dict[Any, Any] = {}
        submitted = 0
        exhausted = False
        interrupted = False

        def submit() -> Any:
            nonlocal exhausted, submitted
            _console.check_interrupt()
            if exhausted or not keep_going():
                exhausted = True
                return None
            item = next(items, None)
            if item is None:
                exhausted = True
                return None
            submitted += 1
            future = client.submit(
                dask_task, job, campaign, item, key=f"ovonehot-{campaign}-{submitted}", pure=False, retries=0
            )
            pending[future] = item
            return future

        try:
            capacity = max(1, sum(client.nthreads().values()))
            queue = as_completed([f for f in (submit() for _ in range(capacity)) if f is not None])
            for future in queue:
                item = pending.pop(future)
                try:
                    result = future.result()
                except Exception as exc:  # noqa: BLE001 - the task failed outside the child (worker lost)
                    result = _function(job.crashed)(
                        job.settings, None, item, None, f"the Dask task failed ({type(exc).__name__}: {exc})"
                    )
                yield item, result
                _console.check_interrupt()  # a Ctrl-C that a Future's __del__ dropped
                nxt = submit()
                if nxt is not None:
                    queue.add(nxt)
        except BaseException:
            interrupted = True
            raise
        finally:
            try:
                for future in pending:
                    future.cancel()
                client.run(dask_cleanup, campaign, interrupted)
            except Exception:  # noqa: BLE001, S110 - best effort: the cluster may be gone already
                pass
            client.close()
            if cluster is not None:
                cluster.close()
                self._config.__exit__(None, None, None)
                shutil.rmtree(self.scratch, ignore_errors=True)


def make(
    engine: str = "process", jobs: int | None = None, scheduler: str | None = None, default_jobs: int = 1
) -> InProcess | ProcessPool | DaskEngine:
    """The engine asked for: ``engine`` by name (``scheduler`` implies ``dask``), ``jobs`` workers, else ``default_jobs``."""
    if scheduler is not None:
        engine = "dask"
    if jobs is not None and jobs < 0:
        raise ParameterError("jobs", "must be >= 0")
    if engine == "dask":
        if scheduler is not None and jobs is not None:
            raise ParameterError(
                "jobs",
                "sizes the embedded Dask cluster; with {scheduler} the cluster has its own",
                mentions=("scheduler",),
            )
        if jobs == 0:
            raise ParameterError("jobs", "0 runs in this process; the Dask engine needs at least one worker")
        return DaskEngine(jobs, scheduler)
    if engine != "process":
        raise ParameterError("engine", f"expected one of {', '.join(ENGINES)}", repr(engine))
    n = default_jobs if jobs is None else jobs
    return InProcess() if n == 0 else ProcessPool(n)
