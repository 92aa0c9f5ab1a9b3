"""The reference's Kahan sums (ReduceSum/ReduceMean, MVN, Softmax): each of ``kahan_sum_leading``'s
loops (Python floats for a few sums, NumPy's calls on rows otherwise, the checked loop when a
value is not finite) gives the bits of the reference's loop, written out here one scalar at a
time in the element type, and of OpenVINO's core reference ``Node.evaluate`` (ReduceSum and
ReduceMean here; MVN, Softmax and attention through the conformance harness's cases, which run
OpenVINO in a child: its MVN reference aborts the process on some inputs).

The values are built to make the order and the compensation matter: large terms cancelling
around small ones, subnormals, sums that pass near f32's largest value (and past it: the checked
loop), signed zeros."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ovref import C, P, compare_op

from ovonehot.ops.common import numeric
from ovonehot.ops.common.numeric import kahan_sum_leading

ops = pytest.importorskip("openvino.opset15")


def _loop(column: np.ndarray) -> np.generic:
    """``details::kahan_summation`` over one column, in the element type (NumPy scalars)."""
    t = column.dtype.type
    total, comp = t(0), t(0)
    with np.errstate(all="ignore"):
        for x in column:
            if np.isfinite(x) and np.isfinite(total):
                y = x - comp
                temp = total + y
                comp = (temp - total) - y
                total = temp
            else:
                total = x + total
    return total


def _terms(dtype: str, k: int, sums: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    info = np.finfo(dt)
    pool = np.array(
        [1.0, -1.0, 3.0e-8, -7.0e-9, 1.0e8, -1.0e8, 0.0, -0.0, info.tiny / 4, -info.tiny / 3, info.max / 3],
        dtype=dt,
    )
    terms = rng.standard_normal((k, sums)).astype(dt) * dt.type(10) ** rng.integers(-6, 7, (k, sums)).astype(
        dt
    )
    special = rng.random((k, sums)) < 0.4
    terms[special] = rng.choice(pool, size=int(special.sum()))
    return terms


# (terms, sums): the Python-float loop takes up to numeric._SCALAR_KAHAN sums, NumPy's above.
SIZES = [
    (1, 1),
    (7, 1),
    (64, 2),
    (33, 3),
    (50, numeric._SCALAR_KAHAN),
    (40, numeric._SCALAR_KAHAN + 3),
    (0, 2),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("k", "sums"), SIZES, ids=[f"{k}x{n}" for k, n in SIZES])
def test_every_kahan_loop_gives_the_references_loops_bits(dtype: str, k: int, sums: int) -> None:
    for seed in range(20):
        terms = _terms(dtype, k, sums, seed)
        got = kahan_sum_leading(terms)
        expected = np.array([_loop(terms[:, j]) for j in range(sums)], dtype=terms.dtype)
        assert got.dtype == terms.dtype
        assert got.tobytes() == expected.tobytes(), f"seed {seed}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sums_through_overflow_and_nan_take_the_checked_loop(dtype: str) -> None:
    """A running sum that overflows (finite terms), an inf or NaN term: the checked loop's bits."""
    big = np.finfo(dtype).max
    for column in ([big, big, -big, 1.0], [1.0, np.inf, -1.0], [np.nan, 2.0], [big, -big, 2.5, -0.0]):
        terms = np.array(column, dtype=dtype)[:, None].repeat(2, axis=1)
        got = kahan_sum_leading(terms)
        expected = np.array([_loop(terms[:, j]) for j in range(2)], dtype=dtype)
        assert got.tobytes() == expected.tobytes(), column


@pytest.mark.parametrize("rows", [1, 2, numeric._SCALAR_KAHAN, numeric._SCALAR_KAHAN + 5])
@pytest.mark.parametrize("factory", [ops.reduce_sum, ops.reduce_mean], ids=["sum", "mean"])
def test_sums_of_few_rows_match_openvinos_reference(tmp_path: Path, rows: int, factory: object) -> None:
    terms = _terms("float32", 48, rows, seed=rows).T.copy()  # (rows, terms): reduced over axis 1
    compare_op(tmp_path, lambda x, a: factory(x, a, keep_dims=False), [P(terms), C(np.array([1], np.int64))])  # type: ignore[operator]
