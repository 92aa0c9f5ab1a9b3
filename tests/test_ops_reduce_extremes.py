"""ReduceMax/ReduceMin: vectorized (``fmax``/``fmin`` from the reference's start value, the
first zero's sign) and checked two ways: against the reference's loop written out element by
element, and against OpenVINO's core reference ``Node.evaluate`` on the same special values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ovref import C, P, compare_op

from ovonehot.ops.reduce import Reduction, reduce_array

ops = pytest.importorskip("openvino.opset15")


def _fold(row: np.ndarray, is_max: bool, start: object) -> object:
    """The reference's loop: ``acc = v > acc ? v : acc`` (``<`` for min), from ``start``."""
    acc = start
    for v in row:
        if (v > acc) if is_max else (v < acc):
            acc = v
    return acc


def _rows(dt: np.dtype, seed: int, width: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dt.kind == "f":
        info = np.finfo(dt)
        pool = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, info.min, info.max, 1.5, -1.5], dt)
        zeros_and_nan = pool[:3]
    else:
        iinfo = np.iinfo(dt)
        pool = np.array([iinfo.min, iinfo.max, 0, 1, 7], dt)
        zeros_and_nan = pool
    rows = rng.choice(pool, size=(400, width)).astype(dt)
    rows[:60] = rng.choice(zeros_and_nan, size=(60, width))  # rows of signed zeros and NaN only
    return rows


DTYPES = ["float32", "float64", "float16", "int32", "uint8", "int64"]


@pytest.mark.parametrize("width", [6, 67], ids=["short", "long"])  # (long rows: NumPy's SIMD loops)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", [Reduction.MAX, Reduction.MIN], ids=["max", "min"])
def test_max_and_min_match_the_references_loop_bit_for_bit(dtype: str, kind: Reduction, width: int) -> None:
    dt = np.dtype(dtype)
    rows = _rows(dt, 7, width)
    if dt.kind == "f":
        start = np.finfo(dt).min if kind is Reduction.MAX else dt.type(np.inf)
    else:
        start = np.iinfo(dt).min if kind is Reduction.MAX else np.iinfo(dt).max
    got = reduce_array(rows, [1], kind)
    expected = np.array([_fold(r, kind is Reduction.MAX, dt.type(start)) for r in rows], dt)
    assert got.dtype == dt
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("factory", [ops.reduce_max, ops.reduce_min], ids=["max", "min"])
@pytest.mark.parametrize("axes", [[1], [0], [0, 1]], ids=["rows", "columns", "all"])
def test_max_and_min_match_openvinos_reference(
    tmp_path: Path, dtype: str, factory: object, axes: list[int]
) -> None:
    rows = _rows(np.dtype(dtype), 11)[:80]
    compare_op(tmp_path, lambda x, a: factory(x, a, keep_dims=False), [P(rows), C(np.array(axes, np.int64))])  # type: ignore[operator]
