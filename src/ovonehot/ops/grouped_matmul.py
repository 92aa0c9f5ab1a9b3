"""GroupedMatMul-17: per-group matrix products of Mixture-of-Experts layers (opset17).

Inputs ``mat_a``, ``mat_b`` (one element type, which the output keeps) and ``offsets`` (1-D
i32/i64), in the two combinations OpenVINO 2026.4 accepts (its Python API's definition; the
shape rule is ``grouped_matmul_shape_inference.hpp`` as the wheel has it):

* 2-D x 3-D (the MoE forward pass; ``offsets`` required): ``mat_a`` ``[T, K]`` holds the tokens
  sorted by expert, ``mat_b`` ``[G, N, K]`` the experts' weights and ``offsets`` ``[G]`` the
  cumulative end row of each expert's tokens; rows ``offsets[g-1]:offsets[g]`` are multiplied by
  ``mat_b[g]`` transposed.  Output ``[T, N]``; rows past ``offsets[-1]`` are 0.
* 3-D x 3-D (uniform groups): ``mat_a`` ``[G, M, K]`` times ``mat_b`` ``[G, N, K]`` transposed,
  group by group: ``[G, M, N]``.  An ``offsets`` input is accepted and not read.

Every other rank combination is refused by inference ("Supported: 2Dx3D, 3Dx3D.").  At run time
the offsets must be non-decreasing, end within ``T`` and number ``G`` (the reference reads one
per group without checking).

OpenVINO 2026.4 has no ``evaluate`` for the op and its CPU plugin does not compile it, so no
OpenVINO oracle exists: ovonehot computes in float64 and rounds once (integers in int64,
wrapped to the type), and tests/test_ops_grouped_matmul.py checks it against a float64 oracle
written from the definition.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import NoAttrs, parse_no_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo

_INDEX = (ElementType.i32, ElementType.i64)


def _merge(a: Dimension, b: Dimension, message: str) -> Dimension:
    merged = a.merge(b)
    if merged is None:
        raise ValidationError(message)
    return merged


def infer_grouped_matmul(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    a, b = inputs[0], inputs[1]
    et = a.element_type.merge(b.element_type)
    if et is None:
        raise ValidationError(
            f"Arguments do not have the same element type (mat_a element type: {a.element_type}, "
            f"mat_b element type: {b.element_type})."
        )
    offsets = inputs[2] if len(inputs) == 3 else None
    if offsets is not None and not (offsets.element_type.is_dynamic or offsets.element_type in _INDEX):
        raise ValidationError(f"Offsets element type must be i32 or i64. Got: {offsets.element_type}")
    if not (a.shape.rank_is_static and b.shape.rank_is_static):
        return [TensorInfo(et, PartialShape.dynamic())]
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) == 3 and len(sb) == 3:
        g = _merge(
            sa[0], sb[0], f"GroupedMatMul 3Dx3D: batch dimension mismatch mat_a: {sa[0]}, mat_b: {sb[0]}"
        )
        _merge(sa[2], sb[2], f"GroupedMatMul 3Dx3D: inner dimension mismatch mat_a: {sa[2]}, mat_b: {sb[2]}")
        return [TensorInfo(et, PartialShape((g, sa[1], sb[1])))]
    if len(sa) == 2 and len(sb) == 3:
        if offsets is None:
            raise ValidationError("GroupedMatMul 2Dx3D case requires offsets input.")
        if offsets.shape.rank_is_static and offsets.shape.rank != 1:
            raise ValidationError(f"GroupedMatMul offsets must be 1D tensor, got {offsets.shape}.")
        _merge(sa[1], sb[2], f"GroupedMatMul 2Dx3D: inner dimension mismatch mat_a: {sa[1]}, mat_b: {sb[2]}")
        return [TensorInfo(et, PartialShape((sa[0], sb[1])))]
    raise ValidationError(
        f"GroupedMatMul unsupported combination: mat_a {len(sa)}D x mat_b {len(sb)}D. Supported: 2Dx3D, 3Dx3D."
    )


def _groups(offsets: np.ndarray, groups: int, rows: int) -> list[tuple[int, int]]:
    """Each group's row range [start, end) from the cumulative end offsets, checked."""
    ends = [int(v) for v in offsets.reshape(-1)]
    if len(ends) != groups:
        raise InputError(
            f"GroupedMatMul: {len(ends)} offsets for {groups} groups (expected one end row per group)"
        )
    ranges, start = [], 0
    for end in ends:
        if end < start or end > rows:
            raise InputError(
                f"GroupedMatMul: offsets {ends} must be non-decreasing end rows within the {rows} rows of mat_a"
            )
        ranges.append((start, end))
        start = end
    return ranges


def evaluate_grouped_matmul(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    dtype = a.dtype
    infos = [TensorInfo(ElementType.from_numpy(x.dtype), PartialShape.of(x.shape)) for x in (a, b)]
    if len(inputs) == 3:
        infos.append(
            TensorInfo(
                ElementType.from_numpy(np.asarray(inputs[2]).dtype), PartialShape.of(np.shape(inputs[2]))
            )
        )
    try:
        infer_grouped_matmul(attrs, infos)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    acc = np.float64 if is_float(dtype) else np.int64
    wa, wb = widen(a).astype(acc), widen(b).astype(acc)
    with quiet():
        if a.ndim == 3:
            out = np.matmul(wa, np.swapaxes(wb, 1, 2))
        else:
            out = np.zeros((a.shape[0], b.shape[1]), acc)
            for g, (start, end) in enumerate(_groups(np.asarray(inputs[2]), b.shape[0], a.shape[0])):
                if end > start:
                    out[start:end] = wa[start:end] @ wb[g].T
    if is_float(dtype):
        return [narrow(out if dtype == np.float64 else out.astype(np.float32), dtype)]
    return [out.astype(dtype)]


SPECS = (
    OpSpec(
        type="GroupedMatMul",
        version=17,
        since=17,
        inputs=(2, 3),
        parse=parse_no_attrs,
        infer=infer_grouped_matmul,
        evaluate=evaluate_grouped_matmul,
        foldable=False,
    ),
)
