"""What the ops' ``bind`` functions share (``OpSpec.bind``: a kernel specialised to one input
signature of a folded plan, see :mod:`ovonehot.evaluate`).

A bound kernel must give exactly the bytes the op's ``evaluate`` gives for inputs of the
signature's shapes and types: it may only drop what the signature settles (shape checks,
attribute decoding, the reading of folded index inputs), never change how a value is
computed.  ``tests/test_bind.py`` runs every bound kernel against its ``evaluate``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .spec import Bound, TensorInfo

# NumPy's own types whose arithmetic is OpenVINO's (no narrow float rounded by hand, no
# sub-byte integer held wide, no string).
PLAIN_INTEGERS = frozenset(np.dtype(t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"))
PLAIN_FLOATS = frozenset(np.dtype(t) for t in ("f4", "f8"))
PLAIN_NUMBERS = PLAIN_INTEGERS | PLAIN_FLOATS


def dtype_of(info: TensorInfo) -> np.dtype:
    dtype = info.element_type.numpy_dtype
    assert dtype is not None  # (bind is only asked with typed infos)
    return dtype


def shape_of(info: TensorInfo) -> tuple[int, ...]:
    return info.shape.to_shape()


def folded(info: TensorInfo) -> np.ndarray | None:
    """The value every call gets at this input (a folded one), or None."""
    return info.value


def bind_ufunc(
    f: np.ufunc, dtypes: frozenset[np.dtype], a: TensorInfo, b: TensorInfo, out: TensorInfo
) -> Bound | None:
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
