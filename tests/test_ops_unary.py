"""Unary ops (Abs, Negative, Exp, Log, Sqrt, Clamp) against OpenVINO's core reference.

Exact comparisons except Exp and Log on floats: OpenVINO calls glibc's ``expf``/``logf``
and ovonehot rounds the float64 result once; they differ by 1 ulp on about 0.06% (exp)
and 0.3% (log) of random f32 inputs (measured on 2M values), never more.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_same, compare_op, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import unary
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ops = pytest.importorskip("openvino.opset15")

BF16 = np.dtype(ml_dtypes.bfloat16)
TRANSCENDENTAL_ULP = 1

INT_VALUES = [0, 1, 2, 3, 4, 5, 6, 8, 15, 16, 24, 99, 100, 2**20 + 3, -1, -4, -(2**31), 2**31 - 1]
FLOAT_VALUES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    2.25,
    1e-30,
    -3.75,
    88.0,
    89.0,
    -104.0,
    1e4,
    np.inf,
    -np.inf,
    np.nan,
    0.1,
    7e-39,
]


def _values(dtype: np.dtype, seed: int = 0) -> np.ndarray:
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [v for v in INT_VALUES if info.min <= v <= info.max] + [int(info.min), int(info.max)]
        body = rng.integers(max(int(info.min), -(10**6)), min(int(info.max), 10**6), 48 - len(edges))
        return np.concatenate([np.array(edges, dtype=object), body.astype(object)]).astype(dtype)
    body = rng.standard_normal(30) * 10.0 ** rng.integers(-3, 3, 30)
    with np.errstate(over="ignore"):
        return np.concatenate([np.array(FLOAT_VALUES), body]).astype(dtype)


UNARY = {
    "Abs": (ops.absolute, [np.int32, np.int64, np.uint32, np.uint64, np.float16, BF16, np.float32]),
    "Negative": (ops.negative, [np.int32, np.int64, np.float16, BF16, np.float32]),
    "Exp": (ops.exp, [np.int32, np.int64, np.uint32, np.uint64, np.float16, BF16, np.float32]),
    "Log": (ops.log, [np.int32, np.int64, np.uint32, np.uint64, np.float16, BF16, np.float32]),
    "Sqrt": (ops.sqrt, [np.int32, np.int64, np.uint32, np.uint64, np.float16, BF16, np.float32, np.float64]),
}
UNARY_CASES = [
    pytest.param(name, dt, id=f"{name}-{np.dtype(dt).name}")
    for name, (_, types) in UNARY.items()
    for dt in types
]


@pytest.mark.parametrize(("name", "dtype"), UNARY_CASES)
def test_unary_matches_reference(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    x = _values(dtype)
    if name == "Exp" and np.dtype(dtype).kind in "iu":
        x = np.clip(x.astype(np.int64), -50, 40).astype(dtype)  # keep exp() within the type
    ulp = TRANSCENDENTAL_ULP if name in ("Exp", "Log") and np.dtype(dtype).kind not in "iu" else 0
    compare_op(tmp_path, UNARY[name][0], [P(x.reshape(6, -1))], ulp=ulp)


def test_exp_of_large_integers_is_the_cast_of_the_double(tmp_path):  # type: ignore[no-untyped-def]
    x = np.array([44, 45, 100, 710, -745], np.int64)  # beyond int64, inf, underflow
    compare_op(tmp_path, ops.exp, [P(x)])
    compare_op(tmp_path, ops.exp, [P(x.astype(np.int32))])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.uint16], ids=lambda d: np.dtype(d).name)
def test_narrow_integers_wrap_without_reference(dtype):  # type: ignore[no-untyped-def]
    # The core reference has no Abs/Negative kernel for these types; C++ wraps.
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, 0, 1, info.max], dtype)
    wide = x.astype(np.int64)
    spec_abs = next(s for s in unary.SPECS if s.type == "Abs")
    spec_neg = next(s for s in unary.SPECS if s.type == "Negative")
    (a,) = spec_abs.evaluate(unary.NoAttrs(), [x])
    (n,) = spec_neg.evaluate(unary.NoAttrs(), [x])
    assert_same(a, (np.abs(wide) if info.min < 0 else wide).astype(dtype))
    assert_same(n, (-wide).astype(dtype))


CLAMP_TYPES = [
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    BF16,
    np.float32,
]
CLAMP_BOUNDS = [
    pytest.param(-2.5, 4.5, id="fractional"),
    pytest.param(0.0, 1.0, id="unit"),
    pytest.param(-1e30, 1e30, id="beyond-every-type"),
    pytest.param(3.0, 3.0, id="min-equals-max"),
    pytest.param(-0.1, 0.7, id="no-integer-inside"),
]


@pytest.mark.parametrize(("lo", "hi"), CLAMP_BOUNDS)
@pytest.mark.parametrize("dtype", CLAMP_TYPES, ids=lambda d: np.dtype(d).name)
def test_clamp_matches_reference(tmp_path, dtype, lo, hi):  # type: ignore[no-untyped-def]
    x = _values(dtype)
    compare_op(tmp_path, lambda v: ops.clamp(v, lo, hi), [P(x)])


def test_clamp_attribute_checks():  # type: ignore[no-untyped-def]
    f32 = TensorInfo(ElementType.f32, PartialShape.of((2,)))
    with pytest.raises(ValidationError, match="'min' must be less or equal than 'max'"):
        unary.infer_clamp(unary.ClampAttrs(3.0, 2.0), [f32])
    with pytest.raises(ValidationError, match="numeric"):
        unary.infer_clamp(unary.ClampAttrs(0.0, 1.0), [TensorInfo(ElementType.boolean, f32.shape)])
    with pytest.raises(ValidationError, match="element type: boolean"):
        unary.infer_unary(unary.NoAttrs(), [TensorInfo(ElementType.boolean, f32.shape)])


@pytest.mark.parametrize("shape", ["?,3", "...", "1..4,?", ""], ids=["dyn", "dyn-rank", "interval", "scalar"])
def test_unary_infer_keeps_the_shape(tmp_path, shape):  # type: ignore[no-untyped-def]
    for factory in (ops.exp, ops.absolute, lambda v: ops.clamp(v, 0, 1), ops.logical_not):
        ours, theirs = infer_shapes(tmp_path, factory, [P(np.zeros((), np.float32), shape=shape)])
        assert ours == theirs


def test_empty_tensor(tmp_path):  # type: ignore[no-untyped-def]
    x = np.zeros((0, 3), np.float32)
    for factory in (ops.exp, ops.sqrt, lambda v: ops.clamp(v, 0, 1)):
        compare_op(tmp_path, factory, [P(x)])


# -- activations and rounding ------------------------------------------------------------------
ACTIVATIONS = {
    "Relu": (ops.relu, [np.int32, np.int64, np.uint32, np.float16, BF16, np.float32], 0),
    "Sigmoid": (
        ops.sigmoid,
        [np.int32, np.int64, np.uint32, np.float16, BF16, np.float32],
        TRANSCENDENTAL_ULP,
    ),
    "Tanh": (ops.tanh, [np.int32, np.int64, np.uint32, np.float16, BF16, np.float32], TRANSCENDENTAL_ULP),
    "Erf": (ops.erf, [np.int32, np.int64, np.uint32, np.float16, BF16, np.float32], TRANSCENDENTAL_ULP),
    "Floor": (ops.floor, [np.int8, np.uint8, np.int32, np.int64, np.uint32, np.float16, BF16, np.float32], 0),
    "Ceiling": (ops.ceiling, [np.int8, np.uint8, np.int32, np.int64, np.uint32, np.float16, np.float32], 0),
    "Sign": (ops.sign, [np.int32, np.int64, np.uint32, np.float16, BF16, np.float32], 0),
}
ACTIVATION_CASES = [
    pytest.param(name, dt, id=f"{name}-{np.dtype(dt).name}")
    for name, (_, types, _) in ACTIVATIONS.items()
    for dt in types
]


@pytest.mark.parametrize(("name", "dtype"), ACTIVATION_CASES)
def test_activation_matches_reference(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    factory, _, ulp = ACTIVATIONS[name]
    x = _values(dtype)
    if np.dtype(dtype).kind in "iu":
        x = np.clip(x.astype(np.int64), -60, 60).astype(dtype)  # the interesting range of sigmoid/tanh/erf
        ulp = 0
    compare_op(tmp_path, factory, [P(x.reshape(6, -1))], ulp=ulp)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_integer_sigmoid_negates_in_the_type_as_the_reference(tmp_path, dtype) -> None:  # type: ignore[no-untyped-def]
    """Integer Sigmoid is 1 / (1 + T(exp(-x))) with C's ``-x``, which wraps in int/long and the
    unsigned types (-INT_MIN == INT_MIN, -UINT_MAX == 1): ovonehot negated in float64 and gave
    0 for INT_MIN and 1 for UINT_MAX where the reference gives 1 and 0 (conformance net)."""
    info = np.iinfo(dtype)
    values = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3, 40, 50]
    x = np.array([v for v in values if info.min <= v <= info.max], dtype=dtype)
    compare_op(tmp_path, ops.sigmoid, [P(x)])
