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
  set, so a limited process refuses instead of dying in ``MemoryError``.
"""

from __future__ import annotations

import math
import os

from .errors import ResourceLimitError

MAX_OUTPUT_BYTES = 16 * 2**30
MAX_RANK = 64  # NumPy's NPY_MAXDIMS


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
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
        with open("/proc/self/statm", encoding="ascii") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return max(limit - used, 0)
    except (ImportError, OSError, ValueError, IndexError):
        return None


def memory_budget(available: int | None = None) -> int:
    """The largest single output allowed now: the fixed cap, half the memory available, the room left."""
    available = available_memory() if available is None else available
    budget = MAX_OUTPUT_BYTES if available is None else min(MAX_OUTPUT_BYTES, available // 2)
    left = address_space_left()
    return budget if left is None else min(budget, left // 2)


def check_allocation(shape: tuple[int, ...], itemsize: int, what: str) -> None:
    """ResourceLimitError (an InputError) when an array of ``shape`` and ``itemsize`` does not fit."""
    if len(shape) > MAX_RANK:
        raise ResourceLimitError(f"{what} has rank {len(shape)}; NumPy holds at most {MAX_RANK} dimensions")
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
