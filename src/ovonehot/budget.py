"""The memory budget: every allocation a model drives is checked against it first.

A model decides how much memory running it takes (a Broadcast's target shape, a Tile's
repeats, a Range's count, a OneHot's depth, a Parameter's declared shape), and NumPy
allocates lazily: an output the machine cannot hold is not refused by ``np.empty``,
the process is killed while filling it.  So the evaluator checks each node's output
size before running its kernel (``evaluate``), against:

* ``MAX_OUTPUT_BYTES`` (16 GiB), a fixed cap per output;
* half of the memory available now (Linux ``MemAvailable``): the consumers of an
  output need room too;
* the room left under the process's address-space limit (``RLIMIT_AS``), when one is
  set, so a limited process refuses instead of dying in ``MemoryError``;
* ``OVONEHOT_MEMORY_BUDGET`` bytes, when set (a cap: it never raises the budget).

What a model grows step by step is checked before each step, against the same budget:
a Loop or TensorIterator's concatenated outputs (:class:`Growth`), and its iteration
count (:func:`max_loop_iterations`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .errors import ResourceLimitError, UsageError

MAX_OUTPUT_BYTES = 16 * 2**30
BUDGET_ENV = "OVONEHOT_MEMORY_BUDGET"
# The most iterations one Loop/TensorIterator run may take (OVONEHOT_MAX_LOOP_ITERATIONS).
# OpenVINO's reference (src/core/reference/src/op/loop.cpp) takes a negative trip count as
# INT64_MAX ("infinity") and runs until the body's condition says stop, keeping every
# iteration's value for a concatenated output: forever, and growing, when it never does.  ovonehot's interpreter
# takes about 20 microseconds per iteration of a three-op body (measured: 100 000
# iterations in 2.0 s of CPU), so 2**20 (about a million) iterations are some 20 s of work for
# the smallest body, while the loops of real models (RNN and decoder steps, beam search,
# sequence scans) take thousands.  A count beyond the limit is refused with the layer named,
# before the first iteration when it is known (a constant-true condition) and on reaching
# it otherwise; the variable raises it for the rare model that needs more.
LOOP_ENV = "OVONEHOT_MAX_LOOP_ITERATIONS"
DEFAULT_MAX_LOOP_ITERATIONS = 2**20
MAX_RANK = 64  # NumPy's NPY_MAXDIMS
# Bytes of decompressed weights a model may keep between runs (see ``weight_cache_bytes``).
WEIGHT_CACHE_ENV = "OVONEHOT_WEIGHT_CACHE"


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux MemAvailable), or None."""
    try:
        with Path("/proc/meminfo").open(encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def address_space_left() -> int | None:
    """Bytes left under RLIMIT_AS (None when unlimited or unknown)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return None
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[0])
        used = pages * os.sysconf("SC_PAGE_SIZE")
        return max(limit - used, 0)
    except (ImportError, OSError, ValueError, IndexError):
        return None


def _positive_env(name: str) -> int | None:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return None
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{name}={text[:80]!r} is not a whole number") from None
    if value <= 0:
        raise UsageError(f"{name}={text[:80]!r} must be positive")
    return value


def memory_budget(available: int | None = None) -> int:
    """The largest single output allowed now: the fixed cap, half the memory available, the room
    left, ``OVONEHOT_MEMORY_BUDGET``."""
    available = available_memory() if available is None else available
    budget = MAX_OUTPUT_BYTES if available is None else min(MAX_OUTPUT_BYTES, available // 2)
    left = address_space_left()
    budget = budget if left is None else min(budget, left // 2)
    cap = _positive_env(BUDGET_ENV)
    return budget if cap is None else min(budget, cap)


def weight_cache_bytes() -> int:
    """Bytes of decompressed weights a model may keep between runs (``WEIGHT_CACHE_ENV``; 0,
    the default: none), never more than half the memory available now: a fused MatMul
    (:mod:`ovonehot.decompression`) keeps the blocks it decompressed while they fit, trading
    memory for time per run."""
    wanted = _positive_env(WEIGHT_CACHE_ENV) if os.environ.get(WEIGHT_CACHE_ENV, "").strip() != "0" else None
    if not wanted:
        return 0
    available = available_memory()
    return wanted if available is None else min(wanted, available // 2)


def max_loop_iterations() -> int:
    """The most iterations one Loop/TensorIterator run may take (see ``LOOP_ENV``)."""
    return _positive_env(LOOP_ENV) or DEFAULT_MAX_LOOP_ITERATIONS


class Growth:
    """Bytes a run accumulates step by step (a Loop's concatenated outputs), checked against the
    budget taken once at the start before each step is kept.  The parts and their concatenation
    are both held at the end, so twice the parts' total must fit."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.budget = memory_budget()
        self.total = 0

    def add(self, nbytes: int, step: int) -> None:
        self.total += nbytes
        if 2 * self.total > self.budget:
            raise ResourceLimitError(
                f"{self.what} grows past the memory budget at iteration {step}: its parts hold "
                f"{self.total} bytes, and they and their concatenation need {2 * self.total}, more than "
                f"the {self.budget} allowed (half the memory available, or {BUDGET_ENV})"
            )


def check_rank(rank: int, what: str) -> None:
    """ResourceLimitError (an InputError) when NumPy cannot hold an array of ``rank`` dimensions."""
    if rank > MAX_RANK:
        raise ResourceLimitError(f"{what} has rank {rank}; NumPy holds at most {MAX_RANK} dimensions")


def check_allocation(shape: tuple[int, ...], itemsize: int, what: str) -> None:
    """ResourceLimitError (an InputError) when an array of ``shape`` and ``itemsize`` does not fit."""
    check_rank(len(shape), what)
    if not numpy_can_hold(shape, itemsize):
        raise ResourceLimitError(f"{what} {_dims(shape)}: NumPy cannot hold a shape this large, even empty")
    nbytes = math.prod(shape) * max(itemsize, 1)
    if nbytes <= 1 << 20:  # below 1 MiB: not worth reading /proc
        return
    if nbytes > MAX_OUTPUT_BYTES:
        raise ResourceLimitError(
            f"{what} {_dims(shape)} needs {nbytes} bytes, more than the {MAX_OUTPUT_BYTES} allowed"
        )
    budget = memory_budget()
    if nbytes > budget:
        raise ResourceLimitError(
            f"{what} {_dims(shape)} needs {nbytes} bytes, more than the {budget} allowed "
            "(half the memory available)"
        )


def numpy_can_hold(shape: tuple[int, ...], itemsize: int) -> bool:
    """Whether NumPy can make an array of ``shape``: its non-zero dims times the item size fit in
    a signed 64-bit size, even when a zero dim makes it empty ("array is too big" otherwise)."""
    return len(shape) <= MAX_RANK and math.prod(d for d in shape if d) * max(itemsize, 1) < 2**63


def _dims(shape: tuple[int, ...]) -> str:
    return (
        str(list(shape))
        if len(shape) <= 8
        else f"[{', '.join(map(str, shape[:8]))}, ...] (rank {len(shape)})"
    )
