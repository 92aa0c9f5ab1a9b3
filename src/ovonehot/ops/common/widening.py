"""The float64 truth run of ``diff``'s rounding envelope (:mod:`ovonehot.differential.envelope`)
widens every f16/bf16/f32 tensor of a model to f64.  A few ops take only the narrow float types
in OpenVINO (NonMaxSuppression: "Expected bf16, fp16 or fp32"); while :func:`widened` is on,
their type checks let f64 through as the narrow type it stands for (:func:`is_narrow_float`),
so the truth run reaches them.  Off (the default) everywhere else: a model is read and
validated as OpenVINO reads it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Collection, Iterator

from ...types import ElementType

_WIDENED: contextvars.ContextVar[bool] = contextvars.ContextVar("ovonehot_widened", default=False)


@contextlib.contextmanager
def widened() -> Iterator[None]:
    """Let f64 pass the checks that take only the narrow float types (the truth run only)."""
    token = _WIDENED.set(True)
    try:
        yield
    finally:
        _WIDENED.reset(token)


def is_narrow_float(et: ElementType, allowed: Collection[ElementType]) -> bool:
    """``et`` is one of ``allowed`` (the op's float types), or f64 standing for one in the truth run."""
    return et in allowed or (et is ElementType.f64 and _WIDENED.get())
