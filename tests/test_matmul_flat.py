"""Fast MatMul of an activation with leading dims times one weight matrix (``blas_product``: the
leading dims as the rows of one BLAS product from ``FLAT_BATCHES`` leading indices on): within
the summation bound ``(2K + 1) eps32 sum |x| |w|`` of a float64 oracle, and the same bytes from
every kernel a plan may run (the weight folded or given each call, and the unbound kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.ops.common.spec import RunMode, TensorInfo
from ovonehot.ops.matmul import FLAT_BATCHES, MatMulAttrs, evaluate_matmul_fast, specialize_matmul
from ovonehot.types import ElementType, PartialShape

EPS = float(np.finfo(np.float32).eps)
SHAPES = [(1, 56, 5, 12), (FLAT_BATCHES, 3, 12), (FLAT_BATCHES - 1, 3, 12), (2, 3, 0, 12), (7, 12)]


def _info(a: np.ndarray, folded: bool) -> TensorInfo:
    return TensorInfo(ElementType.f32, PartialShape.of(a.shape), a if folded else None)


@pytest.mark.parametrize("transpose_b", [True, False])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_flattened_product_within_its_bound_and_plan_free(shape: tuple[int, ...], transpose_b: bool) -> None:
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((9, 12) if transpose_b else (12, 9)).astype(np.float32)
    attrs = MatMulAttrs(False, transpose_b)
    weight = w.T if transpose_b else w
    truth = x.astype(np.float64) @ weight.astype(np.float64)
    reach = np.abs(x.astype(np.float64)) @ np.abs(weight.astype(np.float64))
    results = [evaluate_matmul_fast(attrs, [x, w])[0]]
    for folded in (True, False):
        infos = [_info(x, False), _info(w, folded)]
        out = TensorInfo(ElementType.f32, PartialShape.of(truth.shape))
        kernel = specialize_matmul(attrs, infos, [out], RunMode(exact=False))
        assert kernel is not None
        results.append(np.asarray(kernel([x, w])[0]))
    for got in results:
        assert got.shape == truth.shape and got.dtype == np.float32
        assert got.tobytes() == results[0].tobytes()
    error = np.abs(results[0].astype(np.float64) - truth)
    assert (error <= (2 * 12 + 1) * EPS * reach + 2.0**-149).all(), error.max()
