"""What the ops' ``specialize`` functions share (``OpSpec.specialize``: a kernel made for one
plan, see :mod:`ovonehot.evaluate`).

Most ops run alike in every mode: their ``specialize`` is a *binder* (``mode_independent``), a
kernel for the plan's input and output infos that gives exactly the bytes the op's ``evaluate``
gives for inputs the infos allow: it may only drop what the infos settle (shape checks,
attribute decoding, the reading of folded index inputs), never change how a value is computed.
The ops with a fast variant (MatMul, the sums) branch on ``mode.exact`` in their own
``specialize``.  ``tests/test_bind.py`` and the conformance harness run every kernel
``specialize`` makes against ``evaluate``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ...types import numpy_dtype_of
from .spec import Kernel, RunMode, SpecializeFn, TensorInfo

A = TypeVar("A")
# A kernel for one plan's infos, the same in every mode (see the module docstring).
Binder = Callable[[A, Sequence[TensorInfo], Sequence[TensorInfo]], Kernel | None]

# NumPy's own types whose arithmetic is OpenVINO's (no narrow float rounded by hand, no
# sub-byte integer held wide, no string).
PLAIN_INTEGERS = frozenset(np.dtype(t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"))
PLAIN_FLOATS = frozenset(np.dtype(t) for t in ("f4", "f8"))
PLAIN_NUMBERS = PLAIN_INTEGERS | PLAIN_FLOATS


def typed(inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> bool:
    """Every element type is known (what a binder needs to pick its arithmetic)."""
    return all(t.element_type.numpy_dtype is not None for t in (*inputs, *outputs))


def mode_independent(bind: Binder[A]) -> SpecializeFn[A]:
    """The ``specialize`` of an op that runs alike in every mode: ``bind``, asked when every
    element type is known."""

    @functools.wraps(bind)
    def specialize(
        attrs: A, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
    ) -> Kernel | None:
        return bind(attrs, inputs, outputs) if typed(inputs, outputs) else None

    return specialize


def with_attrs(kernel: Callable[[A, list[np.ndarray]], Sequence[np.ndarray]], attrs: A) -> Kernel:
    """``kernel`` (an ``evaluate``-like function, a fast variant) as a kernel of the inputs alone."""

    def run(inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return kernel(attrs, list(inputs))

    return run


def fast_kernel(bound: Kernel | None, general: Kernel) -> Kernel:
    """A fast variant for a plan: ``bound`` (made for the plan's infos) where it decides the
    inputs, else ``general`` (the op's fast kernel for any inputs), so a fast run's values do
    not depend on which plan runs it (an exact kernel's refusal goes to ``evaluate`` instead)."""
    if bound is None:
        return general

    def kernel(inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        try:
            return bound(inputs)
        except Exception:  # noqa: BLE001 - not decided by the bound kernel: the general one words it
            return general(inputs)

    return kernel


def dtype_of(info: TensorInfo) -> np.dtype:
    return numpy_dtype_of(info.element_type)  # (binders are only asked with typed infos)


def shape_of(info: TensorInfo) -> tuple[int, ...]:
    return info.shape.to_shape()


def folded(info: TensorInfo) -> np.ndarray | None:
    """The value every call gets at this input (a folded one), or None."""
    return info.value


def bind_ufunc(
    f: np.ufunc, dtypes: frozenset[np.dtype], a: TensorInfo, b: TensorInfo, out: TensorInfo
) -> Kernel | None:
    """``f(x, y)`` for two inputs of one dtype in ``dtypes`` whose NumPy broadcast is the op's
    (the caller checked the broadcast rule: shapes that do not broadcast make NumPy raise
    ValueError, and the op's kernel words the error) and whose result has ``out``'s dtype
    (a 0-d one made an array: NumPy gives a scalar there)."""
    dtype = dtype_of(a)
    if dtype != dtype_of(b) or dtype not in dtypes or not out.shape.rank_is_static:
        return None
    if f(np.empty(0, dtype), np.empty(0, dtype)).dtype != dtype_of(out):
        return None
    if not out.shape.rank:

        def scalar(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.asarray(f(inputs[0], inputs[1]))]

        return scalar

    def kernel(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [f(inputs[0], inputs[1])]

    return kernel
