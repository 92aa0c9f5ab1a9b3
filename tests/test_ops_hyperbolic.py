"""Acos, Asin, Acosh, Asinh, Atanh, Cosh, Sinh against OpenVINO's core reference (``Node.evaluate``).

Integers are compared exactly (the rounding rule differs per op: see ``ops/hyperbolic.py``);
floats within ``FLOAT_ULP``: OpenVINO calls glibc's float functions (``asinhf``...), which are
not correctly rounded; ovonehot rounds the float64 result once.  Measured on 300k random f32
inputs: Acos, Asin, Cosh differ by at most 1 ulp (4-9% of inputs), Acosh, Asinh, Atanh, Sinh
by at most 2 ulp (3-20% of inputs).  The core has no f64 kernel for these ops; f64 is compared with
NumPy's float64 functions on the float values.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_same, compare_op

ops = pytest.importorskip("openvino.opset15")

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_ULP = 2
RNG = np.random.default_rng(4)

OPS = {
    "Acos": (ops.acos, np.arccos),
    "Asin": (ops.asin, np.arcsin),
    "Acosh": (ops.acosh, np.arccosh),
    "Asinh": (ops.asinh, np.arcsinh),
    "Atanh": (ops.atanh, np.arctanh),
    "Cosh": (ops.cosh, np.cosh),
    "Sinh": (ops.sinh, np.sinh),
}
INTS = [-(2**31), -100, -20, -5, -3, -2, -1, 0, 1, 2, 3, 4, 5, 10, 20, 21, 22, 50, 100, 2**31 - 1]
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.0, 10.0, 88.0, 89.0, -89.5, 1e-30, np.inf, -np.inf, np.nan]


def _floats(dtype: np.dtype) -> np.ndarray:
    body = np.concatenate([RNG.uniform(-1, 1, 40), RNG.standard_normal(20) * 20, RNG.uniform(1, 50, 20)])
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(EDGES), body]).astype(dtype)


def _ints(dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.array([v for v in INTS if info.min <= v <= info.max] + [int(info.max)], dtype=dtype)


CASES = [
    pytest.param(name, dt, id=f"{name}-{np.dtype(dt).name}")
    for name in OPS
    for dt in [np.float32, np.float16, BF16, np.int32, np.int64, np.uint32, np.uint64]
]


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_matches_reference(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    dtype = np.dtype(dtype)
    x = _ints(dtype) if dtype.kind in "iu" else _floats(dtype)
    compare_op(tmp_path, OPS[name][0], [P(x)], ulp=0 if dtype.kind in "iu" else FLOAT_ULP)


@pytest.mark.parametrize("name", list(OPS))
def test_f64_is_float64_math(tmp_path, name):  # type: ignore[no-untyped-def]
    """No core kernel for f64 (``Node.evaluate`` refuses); the values are the float64 functions."""
    x = _floats(np.dtype(np.float64))
    outcome = compare_op(tmp_path, OPS[name][0], [P(x)], require_reference=False)
    assert outcome.theirs is None
    assert outcome.ours is not None
    with np.errstate(all="ignore"):
        assert_same(outcome.ours[0], OPS[name][1](x))
