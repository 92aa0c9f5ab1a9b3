"""Inverse-14: the inverse (or, with ``adjoint``, the adjoint: the inverse transposed) of square matrices.

Data ``[..., n, n]`` of a real type; the output has its type and shape
(``inverse_shape_inference.hpp``: rank >= 2, the last two dims equal when both are static;
a dynamic rank stays dynamic).

Values (``reference/inverse.hpp`` and ``reference/inverse.cpp`` of 2025+, which the CPU
plugin's ``nodes/inverse.cpp`` repeats): every type is converted to f32 (f64 too: the spec's
"any type other than f32 will be converted to f32"), then LU decomposition with partial
pivoting and one forward and one backward substitution per column of the identity, in the
reference's order: the pivot is the first row whose ``|U[i][k]|`` is strictly larger than
the current one's; ``U[i][j] = U[i][j] - L[i][k] * U[k][j]``; ``y[i] = [P[i] == c] - L[i][0] y[0]
- ...`` in increasing ``j``; ``x[i] = (y[i] - U[i][i+1] x[i+1] - ...) / U[i][i]``.  ``adjoint``
decomposes the transposed matrix instead (``inv(A^T) = inv(A)^T``, the spec's conjugate
transpose; an older reference multiplied by the determinant instead).  The result is converted
back to the data's type.  A singular matrix gives infinities/NaNs, as the reference does; a
batch of 0 x 0 matrices or an empty batch gives an empty output.

OpenVINO's core op has no ``evaluate`` (``Node.evaluate`` is false, nothing folds): the CPU
plugin (same algorithm) is the oracle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import PartialShape
from .common.attrs import bool_attr
from .common.numeric import narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class InverseAttrs:
    adjoint: bool = False


def parse_inverse(node: Node) -> InverseAttrs:
    return InverseAttrs(bool_attr(node, "adjoint", False))


def infer_inverse(attrs: InverseAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    shape = data.shape
    if shape.rank_is_static:
        if shape.rank < 2:
            raise ValidationError("Input must be at least a 2D matrix.")
        rows, cols = shape[shape.rank - 2], shape[shape.rank - 1]
        if rows.is_static and cols.is_static and rows.min != cols.min:
            raise ValidationError("Input must contain square matrices of the same shape.")
    else:
        shape = PartialShape.dynamic()
    et = data.element_type
    if not (et.is_real or et.is_dynamic):
        raise ValidationError("Expected floating point type as element type for the 'data' input.")
    return [TensorInfo(et, shape)]


def _decompose(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In-place LU of ``u`` [B, n, n] (rows swapped as pivoted): returns (L, P)."""
    b, n, _ = u.shape
    t = u.dtype.type
    lower = np.zeros_like(u)
    lower[:, np.arange(n), np.arange(n)] = t(1)
    perm = np.tile(np.arange(n), (b, 1))
    batch = np.arange(b)
    for k in range(n):
        pivot = np.full(b, k)
        for i in range(k + 1, n):  # strictly larger wins; a NaN never does
            pivot = np.where(np.abs(u[:, i, k]) > np.abs(u[batch, pivot, k]), i, pivot)
        for arr in (u, lower, perm):
            row_k, row_p = arr[batch, k].copy(), arr[batch, pivot].copy()
            arr[batch, pivot] = row_k
            arr[batch, k] = row_p
        for i in range(k + 1, n):
            lower[:, i, k] = u[:, i, k] / u[:, k, k]
            u[:, i, k:] = u[:, i, k:] - lower[:, i, k : k + 1] * u[:, k, k:]
    return lower, perm


def _solve(u: np.ndarray, lower: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """The inverse from the LU factors: column c solves L U x = P e_c; [B, n, n]."""
    n = u.shape[1]
    eye = np.eye(n, dtype=u.dtype)
    y = np.zeros_like(u)  # [B, row, column]
    for i in range(n):
        y[:, i, :] = eye[perm[:, i], :]
        for j in range(i):
            y[:, i, :] = y[:, i, :] - lower[:, i, j : j + 1] * y[:, j, :]
    x = np.zeros_like(u)
    for i in reversed(range(n)):
        x[:, i, :] = y[:, i, :]
        for j in range(i + 1, n):
            x[:, i, :] = x[:, i, :] - u[:, i, j : j + 1] * x[:, j, :]
        x[:, i, :] = x[:, i, :] / u[:, i, i : i + 1]
    return x


def evaluate_inverse(attrs: InverseAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    if data.ndim < 2 or data.shape[-1] != data.shape[-2]:
        raise InputError(f"Inverse needs square matrices [..., n, n], got {list(data.shape)}")
    if widen(data).dtype.kind != "f":
        raise InputError(f"Inverse needs a real type, got {data.dtype}")
    n = data.shape[-1]
    if data.size == 0:
        return [np.zeros(data.shape, data.dtype)]
    u = widen(data).astype(np.float32).reshape(-1, n, n)
    u = np.ascontiguousarray(np.swapaxes(u, 1, 2) if attrs.adjoint else u.copy())
    with quiet():
        lower, perm = _decompose(u)
        out = _solve(u, lower, perm)
    return [narrow(out.reshape(data.shape), data.dtype)]


SPECS = (
    OpSpec(
        type="Inverse",
        version=14,
        since=14,
        inputs=1,
        parse=parse_inverse,
        infer=infer_inverse,
        evaluate=evaluate_inverse,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
