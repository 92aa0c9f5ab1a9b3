"""How many threads a run's kernels use: one number for every pool ovonehot's kernels reach.

Two pools run ovonehot's work besides the calling thread: NumPy's BLAS (OpenBLAS, MKL, ...:
MatMul, the convolutions, Einsum, attention and the cells call it), which starts one thread per
core by default, and OneHot's fill-and-scatter workers (``ops/one_hot.py``).  A run limits both to
its ``threads`` (``Model.run(..., threads=N)``; default ``OVONEHOT_NUM_THREADS``, else 1), never
more than the cores this process may run on; BLAS's setting is put back when the run ends.

Why one thread by default: OpenBLAS's threads spin after each call, waiting for the next, and
on a machine whose cores are busy (the 2-core benchmark VM with other jobs) they take the core
from the very thread that goes on with the next node.  Measured there (2026-11-26): small f32
products (a convolution of a 32x32 image, 1024x72 by 72x16) 4x slower with OpenBLAS's 2 threads
than with one, a 512x512x512 product 6x slower, and the corpus CNNs in fast mode 1.3-5x slower;
issue 24's swin took 5.1 s instead of 0.2 s.  One thread also makes a fast run's values
independent of the machine's core count.  Ask for more where cores are free and products large.

The BLAS libraries are found once per process by ``threadpoolctl`` (a runtime dependency), and
only runs whose plans hold an op that calls BLAS (``OpSpec.blas``) touch them: a few microseconds
per run.  BLAS's thread count is process-wide: runs in several Python threads at once should ask
for the same number.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .errors import UsageError

THREADS_ENV = "OVONEHOT_NUM_THREADS"
DEFAULT_THREADS = 1

# The threads of the run in progress (0: no run in progress in this context).
_RUN_THREADS: ContextVar[int] = ContextVar("ovonehot_run_threads", default=0)
# (pid, BLAS library controllers) found by threadpoolctl: a forked child finds its own again.
_BLAS: list[tuple[int, list[Any]]] = []
# The kernels' worker threads, made on first use, with the pid that made them: a forked child
# (multiprocessing's fork start method) inherits the executor but not its threads.
_POOL: list[tuple[int, ThreadPoolExecutor]] = []
MAX_WORKERS = 4


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve(threads: int | None) -> int:
    """The threads a run with ``threads`` uses: the number given, else ``OVONEHOT_NUM_THREADS``,
    else 1; at most the cores available.  A number below 1 is a usage error."""
    if threads is None:
        text = os.environ.get(THREADS_ENV, "").strip()
        if not text:
            return DEFAULT_THREADS
        try:
            threads = int(text)
        except ValueError:
            raise UsageError(f"{THREADS_ENV}={text[:80]!r} is not a whole number") from None
        where = f"{THREADS_ENV}={text[:80]!r}"
    else:
        where = f"threads={threads!r}"
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise UsageError(f"{where}: the number of threads must be a whole number of at least 1")
    return min(threads, cores())


def running() -> bool:
    """A run is in progress in this context (its threads are set)."""
    return _RUN_THREADS.get() != 0


def current() -> int:
    """The threads of the run in progress (a kernel's pool size), else of a run starting now."""
    return _RUN_THREADS.get() or resolve(None)


@contextmanager
def limited(threads: int, blas: bool) -> Iterator[None]:
    """A run on ``threads`` threads (already ``resolve``d): the kernels' pools read it from
    :func:`current`; with ``blas``, NumPy's BLAS libraries are limited to it until the block ends."""
    token = _RUN_THREADS.set(threads)
    changed: list[tuple[Any, int]] = []
    try:
        if blas:
            for lib in _blas_libraries():
                before = lib.get_num_threads()
                if before != threads:
                    lib.set_num_threads(threads)
                    changed.append((lib, before))
        yield
    finally:
        for lib, before in changed:
            lib.set_num_threads(before)
        _RUN_THREADS.reset(token)


def run_parts(parts: int, n: int, fn: Callable[[int, int], None]) -> None:
    """``fn(lo, hi)`` over ``parts`` (at most ``MAX_WORKERS``) contiguous ranges of
    ``range(n)``, the first in the calling thread, the others in the kernels' pool."""
    parts = min(parts, MAX_WORKERS)
    if parts <= 1 or n < parts:
        fn(0, n)
        return
    if not _POOL or _POOL[0][0] != os.getpid():
        _POOL[:] = [(os.getpid(), ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="ovonehot"))]
    step = -(-n // parts)
    futures = [_POOL[0][1].submit(fn, lo, min(lo + step, n)) for lo in range(step, n, step)]
    fn(0, min(step, n))
    for f in futures:
        f.result()


@contextmanager
def blas_single() -> Iterator[None]:
    """BLAS on one thread until the block ends: for a kernel whose own threads each call BLAS
    (``run_parts``), so that the run's threads are never multiplied by BLAS's."""
    changed: list[tuple[Any, int]] = []
    try:
        for lib in _blas_libraries():
            before = lib.get_num_threads()
            if before != 1:
                lib.set_num_threads(1)
                changed.append((lib, before))
        yield
    finally:
        for lib, before in changed:
            lib.set_num_threads(before)


def _blas_libraries() -> list[Any]:
    """threadpoolctl's controllers of the BLAS libraries loaded in this process (NumPy's)."""
    if not _BLAS or _BLAS[0][0] != os.getpid():
        try:  # (imported by the first run that calls BLAS)
            from threadpoolctl import ThreadpoolController
        except ImportError:
            # A declared dependency, missing from a hand-made environment: runs go on with BLAS's
            # own thread count (slower, the same values); tests/test_threads.py fails there.
            libraries = []
        else:
            libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        _BLAS[:] = [(os.getpid(), libraries)]
    return _BLAS[0][1]
