"""Per-thread scratch buffers for the kernels that work block by block (the fused weight
decompression, the group algebra): one buffer per name, grown to the largest block asked for,
reused by every later block of the same thread instead of a fresh allocation per block."""

from __future__ import annotations

import math
import threading

import numpy as np

__all__ = ["Scratch", "scratch"]


class Scratch:
    """One thread's buffers, by name."""

    __slots__ = ("_buffers",)

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def take(self, name: str, shape: tuple[int, ...], dtype: type | np.dtype, least: int = 0) -> np.ndarray:
        """A buffer of ``shape`` and ``dtype`` (contents undefined; at least ``least`` elements
        allocated), valid until this thread takes ``name`` again."""
        n = math.prod(shape)
        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < n or buffer.dtype != dtype:
            buffer = self._buffers[name] = np.empty(max(n, least), dtype)
        return buffer[:n].reshape(shape)


_LOCAL = threading.local()


def scratch() -> Scratch:
    """This thread's buffers."""
    found = getattr(_LOCAL, "scratch", None)
    if found is None:
        found = _LOCAL.scratch = Scratch()
    return found
