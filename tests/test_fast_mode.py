"""``exact=False``: the fast kernels (what ``OpSpec.specialize`` makes for ``RunMode(exact=False)``) against the exact ones.

The exact kernels are bit-exact with OpenVINO's reference (their own tests hold that); the
fast ones sum in NumPy's order and multiply by BLAS.  So each fast kernel is checked against
its exact kernel, not against OpenVINO: same shape and dtype, and values within a bound
derived from the data (each test's docstring states it), on random finite inputs; integer
inputs bit for bit; non-finite inputs non-finite in the same positions; bad inputs the same
error.  Then whole models (``ir/exports``): same outputs up to rounding, with a count of the
fast calls so the comparison cannot pass without a fast kernel having run.

The summation bound used throughout: a float sum of ``n`` terms computed in any order (and
Kahan's too) is within ``n * eps * sum(|terms|)`` of the true sum (Higham, *Accuracy and
Stability of Numerical Algorithms*, 4.2 and 4.3), so the fast and the exact sum are within
``2n * eps * sum(|terms|)`` of each other; ``(2n + 1)`` covers the final rounding.  ``eps``
is the working type's (f32 for f16/bf16 data), and a result rounded back to a narrow type
adds that type's ``eps * (|exact| + |fast|)`` plus its smallest subnormal.  Bounds are
computed in float64.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import ovonehot
from ovonehot import evaluate as evaluate_module
from ovonehot.cli import main
from ovonehot.errors import Error
from ovonehot.evaluate import RunMode
from ovonehot.ops import TensorInfo, attention, lookup, matmul
from ovonehot.ops.matmul import MatMulAttrs
from ovonehot.ops.normalization import MVNAttrs, MVNEpsMode, NormalizeEpsMode, NormalizeL2Attrs
from ovonehot.ops.reduce import ReduceAttrs, Reduction
from ovonehot.ops.reduce_norms import NormReduceAttrs, NormReduction
from ovonehot.ops.softmax import SoftmaxAttrs
from ovonehot.types import ElementType, PartialShape

ROOT = Path(__file__).resolve().parent.parent
EXPORTS = ROOT / "ir" / "exports"
CORPUS = ROOT / "ir" / "corpus"
# Corpus models run fast against exact too: those holding the ops whose fast kernels sum
# windows (Convolution, GroupConvolution, AvgPool by BLAS / in f32) or scan them (MaxPool).
WINDOW_OPS = ('type="Convolution"', 'type="GroupConvolution"', 'type="AvgPool"', 'type="MaxPool"')
BF16 = np.dtype(ml_dtypes.bfloat16)


def kernels(type_name: str, version: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The registry's exact kernel of one op and the fast kernel its ``specialize`` makes for a
    plan that knows the inputs' types and shapes (so the wiring is what is tested)."""
    spec = lookup(type_name, version)
    assert spec is not None and spec.evaluate is not None and spec.specialize is not None

    def fast(attrs: Any, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        infos = [TensorInfo(ElementType.from_numpy(x.dtype), PartialShape.of(x.shape)) for x in inputs]
        try:
            outs = list(spec.infer(attrs, infos))
        except Error:  # (inputs the rules refuse: a plan that knows nothing of the output)
            outs = [TensorInfo(ElementType.dynamic, PartialShape.dynamic())]
        kernel = spec.specialize(attrs, infos, outs, RunMode(exact=False))
        assert kernel is not None, f"{spec.name} has no fast kernel"
        with np.errstate(all="ignore"):  # (as a plan runs its kernels)
            return kernel(inputs)

    return spec.evaluate, fast


def both(
    type_name: str, version: str, attrs: Any, inputs: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    exact, fast = kernels(type_name, version)
    (e,) = exact(attrs, inputs)
    (f,) = fast(attrs, inputs)
    assert f.shape == e.shape and f.dtype == e.dtype
    return e, f


def eps(dtype: np.dtype) -> float:
    return float(ml_dtypes.finfo(dtype).eps)


def working_eps(dtype: np.dtype) -> float:
    """The eps of the type the kernels compute in (f32 for f16/bf16)."""
    return eps(np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32))


def rounding(e: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Both results' rounding to their own type: eps * (|exact| + |fast|) + the smallest subnormal."""
    info = ml_dtypes.finfo(e.dtype)
    return float(info.eps) * (np.abs(f64(e)) + np.abs(f64(f))) + float(info.smallest_subnormal)


def f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


def assert_within(e: np.ndarray, f: np.ndarray, bound: np.ndarray) -> None:
    """|fast - exact| <= bound element-wise; any non-finite value where the other is the same."""
    finite = np.isfinite(f64(e))
    np.testing.assert_array_equal(np.isfinite(f64(f)), finite)
    np.testing.assert_array_equal(f64(f)[~finite], f64(e)[~finite])
    diff = np.abs(np.where(finite, f64(f) - f64(np.where(finite, e, 0)), 0))
    bound = np.broadcast_to(bound, diff.shape)
    worst = np.unravel_index(np.argmax(diff - bound), diff.shape) if diff.size else ()
    assert (diff <= bound).all(), f"|fast - exact| {diff[worst]} > bound {bound[worst]} at {worst}"


def random(shape: Sequence[int], dtype: Any, seed: int, spread: bool = True) -> np.ndarray:
    """Normal values; ``spread`` scales them over six decades (three for f16/bf16, whose
    products would overflow) so that summation order shows."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if spread:
        low, high = (-3, 3) if np.dtype(dtype).itemsize >= 4 else (-2, 1)
        x = x * 10.0 ** rng.integers(low, high, shape)
    return x.astype(dtype)


FLOAT_TYPES = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16), BF16]
FLOAT_IDS = ["f32", "f64", "f16", "bf16"]

# -- MatMul ------------------------------------------------------------------------------------

# Shapes and transposes of OpenVINO's op_reference/matmul.cpp, then longer sums and broadcasts.
MATMUL_CASES = [
    pytest.param((2, 2), (2, 2), False, False, id="2x2_2x2"),
    pytest.param((2, 3), (3, 3), False, False, id="2x3_3x3"),
    pytest.param((3, 2), (3, 3), True, False, id="3x2_3x3_transpose_a"),
    pytest.param((3, 2), (2, 3), True, True, id="3x2_2x3_transpose_both"),
    pytest.param((2, 3, 2), (3, 3), True, False, id="2x3x2_3x3_transpose_a"),
    pytest.param((3,), (3,), False, False, id="3_3_dot"),
    pytest.param((3,), (3,), True, True, id="3_3_dot_transposes_ignored"),
    pytest.param((1, 3), (3,), False, False, id="1x3_3"),
    pytest.param((3, 1), (3,), True, False, id="3x1_3_transpose_a"),
    pytest.param((3,), (1, 3), False, True, id="3_1x3_transpose_b"),
    pytest.param((1, 1, 3), (3,), False, False, id="1x1x3_3"),
    pytest.param((2, 1, 5, 300), (3, 300, 7), False, False, id="batch-broadcast_k300"),
    pytest.param((4, 70, 64), (4, 70, 64), False, True, id="attention-scores_k64"),
    pytest.param((600,), (3, 600, 4), False, False, id="vector-batch_k600"),
    pytest.param((2, 0), (0, 3), False, False, id="empty-k"),
]


@pytest.mark.parametrize(("sa", "sb", "ta", "tb"), MATMUL_CASES)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=FLOAT_IDS)
def test_matmul_fast_within_the_summation_bound(sa, sb, ta, tb, dtype) -> None:  # type: ignore[no-untyped-def]
    """out[i, j] = sum over k of a[i, k] * b[k, j]: a dot product of K terms, in any order, its
    products rounded (exact) or fused (BLAS may), is within ``K * eps * sum_k |a[i, k] b[k, j]|``
    of the true one (Higham 3.1), so fast and exact differ by ``(2K + 1) * eps * sum_k |a b|``
    at most, plus the rounding to a narrow output type."""
    a, b = random(sa, dtype, 1), random(sb, dtype, 2)
    attrs = MatMulAttrs(ta, tb)
    e, f = both("MatMul", "opset1", attrs, [a, b])
    (magnitude,) = matmul.evaluate_matmul(attrs, [np.abs(f64(a)), np.abs(f64(b))])  # sum |a| |b|
    k = a.shape[-2] if ta and a.ndim > 1 else a.shape[-1]
    assert_within(e, f, (2 * k + 1) * working_eps(dtype) * magnitude + rounding(e, f))


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int32, np.int64, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name
)
def test_matmul_fast_is_exact_on_integers(dtype) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, (3, 4, 50)).astype(dtype)  # (int8 sums wrap: the same in any order)
    b = rng.integers(-100, 100, (50, 6)).astype(dtype)
    e, f = both("MatMul", "opset1", MatMulAttrs(), [a, b])
    assert e.tobytes() == f.tobytes()


def test_matmul_fast_non_finite_positions() -> None:
    """NaN and inf inputs: NaN where the exact kernel gives NaN, inf (of the same sign) where it
    gives inf, including inf * 0 (NaN) and inf - inf (NaN)."""
    a = random((6, 40), np.float32, 4)
    b = random((40, 5), np.float32, 5)
    a[0, 3] = np.nan
    a[1, 7] = np.inf
    a[2, 7], a[2, 8] = np.inf, -np.inf
    b[9, :] = 0.0
    a[3, 9] = np.inf  # times zeros: NaN
    b[11, 4] = -np.inf
    e, f = both("MatMul", "opset1", MatMulAttrs(), [a, b])
    assert not np.isfinite(e).all()
    np.testing.assert_array_equal(np.isnan(f), np.isnan(e))
    np.testing.assert_array_equal(np.isposinf(f), np.isposinf(e))
    np.testing.assert_array_equal(np.isneginf(f), np.isneginf(e))


# -- ReduceSum, ReduceMean, ReduceL1, ReduceL2 ---------------------------------------------------

REDUCE_CASES = [
    pytest.param((3, 2, 2), [0], id="3x2x2_axis0"),
    pytest.param((3, 2, 2), [1, 2], id="3x2x2_axes12"),
    pytest.param((3, 2, 2), [0, 1, 2], id="3x2x2_all"),
    pytest.param((3, 2, 2), [], id="3x2x2_no_axes"),
    pytest.param((4, 1000), [-1], id="4x1000_last"),
    pytest.param((700, 3), [0], id="700x3_first"),
    pytest.param((5, 40, 6), [0, 2], id="5x40x6_outer_axes"),
    pytest.param((2, 0, 3), [1], id="empty"),
]


@pytest.mark.parametrize(("shape", "axes"), REDUCE_CASES)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=FLOAT_IDS)
@pytest.mark.parametrize("kind", [Reduction.SUM, Reduction.MEAN], ids=["sum", "mean"])
def test_reduce_sum_mean_fast_within_the_summation_bound(kind, dtype, shape, axes) -> None:  # type: ignore[no-untyped-def]
    """Sum of n terms: ``(2n + 1) * eps * sum|x|``; a mean divides that by n (its own rounding
    is in the output rounding term)."""
    x = random(shape, dtype, 6)
    ax = np.array(axes, np.int64)
    e, f = both(kind.value, "opset1", ReduceAttrs(kind, keep_dims=True), [x, ax])
    n = math.prod(shape[a] for a in axes)
    magnitude = np.abs(f64(x)).sum(axis=tuple(axes), keepdims=True)
    if kind is Reduction.MEAN:
        magnitude = magnitude / max(n, 1)
    assert_within(e, f, (2 * n + 1) * working_eps(dtype) * magnitude + rounding(e, f))


@pytest.mark.parametrize(("shape", "axes"), REDUCE_CASES)
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16)], ids=["f32", "f16"])
@pytest.mark.parametrize("kind", [NormReduction.L1, NormReduction.L2], ids=["l1", "l2"])
def test_reduce_l1_l2_fast_within_the_summation_bound(kind, dtype, shape, axes) -> None:  # type: ignore[no-untyped-def]
    """L1: a sum of |x|, bound ``D = (2n + 1) * eps * sum|x|``.  L2: sqrt of a sum of x^2 with
    ``D = (2n + 1) * eps * sum(x^2)``; |sqrt(s) - sqrt(t)| = |s - t| / (sqrt(s) + sqrt(t)), so
    the outputs differ by at most ``D / (exact + fast)`` plus their rounding."""
    x = random(shape, dtype, 7, spread=False)
    ax = np.array(axes, np.int64)
    e, f = both(kind.value, "opset4", NormReduceAttrs(kind, keep_dims=False), [x, ax])
    n = math.prod(shape[a] for a in axes)
    terms = np.abs(f64(x)) if kind is NormReduction.L1 else f64(x) ** 2
    d = (2 * n + 1) * working_eps(dtype) * terms.sum(axis=tuple(axes))
    if kind is NormReduction.L2:
        total = f64(e) + f64(f)
        d = np.divide(d, total, out=np.zeros_like(d), where=total > 0)
    assert_within(e, f, d + rounding(e, f))


@pytest.mark.parametrize(
    ("type_name", "version", "attrs"),
    [
        pytest.param("ReduceSum", "opset1", ReduceAttrs(Reduction.SUM), id="sum"),
        pytest.param("ReduceMean", "opset1", ReduceAttrs(Reduction.MEAN), id="mean"),
        pytest.param("ReduceL1", "opset4", NormReduceAttrs(NormReduction.L1), id="l1"),
        pytest.param("ReduceL2", "opset4", NormReduceAttrs(NormReduction.L2), id="l2"),
    ],
)
@pytest.mark.parametrize(
    "dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64], ids=lambda d: np.dtype(d).name
)
def test_reductions_fast_are_exact_on_integers(type_name, version, attrs, dtype) -> None:  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    rng = np.random.default_rng(8)
    x = rng.integers(info.min, info.max, (3, 300, 4), dtype=dtype, endpoint=True)  # sums wrap
    for axes in ([1], [0, 2], []):
        e, f = both(type_name, version, attrs, [x, np.array(axes, np.int64)])
        assert e.tobytes() == f.tobytes(), axes


@pytest.mark.parametrize(
    ("type_name", "version", "attrs"),
    [
        pytest.param("ReduceSum", "opset1", ReduceAttrs(Reduction.SUM), id="sum"),
        pytest.param("ReduceMean", "opset1", ReduceAttrs(Reduction.MEAN), id="mean"),
        pytest.param("ReduceL1", "opset4", NormReduceAttrs(NormReduction.L1), id="l1"),
        pytest.param("ReduceL2", "opset4", NormReduceAttrs(NormReduction.L2), id="l2"),
    ],
)
def test_reductions_fast_non_finite_positions(type_name, version, attrs) -> None:  # type: ignore[no-untyped-def]
    x = random((6, 50), np.float32, 9, spread=False)
    x[0, 3] = np.nan
    x[1, 7] = np.inf
    x[2, 7], x[2, 40] = np.inf, -np.inf
    x[3, 0] = -np.inf
    e, f = both(type_name, version, attrs, [x, np.array([1], np.int64)])
    assert not np.isfinite(e[:4]).any() and np.isfinite(e[4:]).all()
    np.testing.assert_array_equal(np.isnan(f), np.isnan(e))
    np.testing.assert_array_equal(np.isposinf(f), np.isposinf(e))
    np.testing.assert_array_equal(np.isneginf(f), np.isneginf(e))


def test_reduce_max_min_prod_have_no_fast_kernel() -> None:
    # No sum in them: a fast plan makes the kernel an exact plan makes.
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    axes = np.array([1], np.int64)
    infos = [
        TensorInfo(ElementType.f32, PartialShape.of(x.shape)),
        TensorInfo(ElementType.i64, PartialShape.of([1]), axes),
    ]
    for type_name in ("ReduceMax", "ReduceMin", "ReduceProd"):
        spec = lookup(type_name, "opset1")
        assert spec is not None and spec.specialize is not None
        attrs = ReduceAttrs(Reduction(type_name), False)
        outs = spec.infer(attrs, infos)
        (want,) = spec.evaluate(attrs, [x, axes])  # type: ignore[misc]
        for exact in (True, False):
            kernel = spec.specialize(attrs, infos, outs, RunMode(exact=exact))
            got = kernel([x, axes]) if kernel is not None else spec.evaluate(attrs, [x, axes])  # type: ignore[misc]
            assert got[0].tobytes() == want.tobytes(), (type_name, exact)


# -- Softmax, LogSoftmax ------------------------------------------------------------------------

SOFTMAX_CASES = [
    pytest.param((2, 3), 0, id="2x3_axis0"),
    pytest.param((2, 3), 1, id="2x3_axis1"),
    pytest.param((2, 2, 3), -1, id="2x2x3_last"),
    pytest.param((3, 500), -1, id="3x500_last"),
    pytest.param((400, 2, 3), 0, id="400x2x3_first"),
]


@pytest.mark.parametrize(("shape", "axis"), SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=FLOAT_IDS)
@pytest.mark.parametrize(
    ("type_name", "version", "log"),
    [("Softmax", "opset1", False), ("Softmax", "opset8", False), ("LogSoftmax", "opset5", True)],
    ids=["softmax1", "softmax8", "logsoftmax5"],
)
def test_softmax_fast_within_the_summation_bound(type_name, version, log, dtype, shape, axis) -> None:  # type: ignore[no-untyped-def]
    """Both kernels compute the same ``e = exp(x - max)``; only ``s = sum(e)`` differs, by a
    relative ``d = (2n + 1) * eps`` at most (the terms are positive: sum|e| = s).  Softmax
    ``e / s`` then differs by ``|out| * (d / (1 - d) + 2 eps)`` (the two divisions' rounding);
    LogSoftmax ``(x - max) - log(s)`` by ``d / (1 - d)`` (log's change) plus the rounding of
    log(s) (|log s| <= log n, as 1 <= s <= n) and of the subtraction, ``eps * (log n + |out|)``."""
    if type_name == "Softmax" and version == "opset1" and axis < 0:
        axis += len(shape)
    x = random(shape, dtype, 10, spread=False) * 4
    attrs = SoftmaxAttrs(axis, log=log, negative_axis=version != "opset1")
    e, f = both(type_name, version, attrs, [x.astype(dtype)])
    n = shape[axis]
    w = working_eps(dtype)
    d = (2 * n + 1) * w
    if log:
        bound = d / (1 - d) + 2 * w * (math.log(n) + np.abs(f64(e)))
    else:
        bound = np.abs(f64(e)) * (d / (1 - d) + 2 * w)
    assert_within(e, f, bound + rounding(e, f))


def test_softmax_fast_non_finite_positions() -> None:
    x = random((5, 30), np.float32, 11, spread=False)
    x[0, 3] = np.nan
    x[1, 7] = np.inf
    x[2, 7], x[2, 8] = np.inf, np.inf
    x[3, :] = -np.inf
    for type_name, version, log in (("Softmax", "opset8", False), ("LogSoftmax", "opset5", True)):
        e, f = both(type_name, version, SoftmaxAttrs(-1, log=log), [x])
        assert not np.isfinite(e[:4]).all()
        np.testing.assert_array_equal(np.isnan(f), np.isnan(e))
        np.testing.assert_array_equal(np.isposinf(f), np.isposinf(e))
        np.testing.assert_array_equal(np.isneginf(f), np.isneginf(e))


# -- MVN, NormalizeL2 --------------------------------------------------------------------------

# Shapes and axes of OpenVINO's op_reference/mvn.cpp (MVN-6), then a layer norm's.
MVN_CASES = [
    pytest.param((1, 3, 3, 3), [2, 3], True, MVNEpsMode.OUTSIDE_SQRT, id="1x3x3x3_axes23_outside"),
    pytest.param((1, 3, 3, 3), [2, 3], True, MVNEpsMode.INSIDE_SQRT, id="1x3x3x3_axes23_inside"),
    pytest.param((1, 3, 3, 3), [1, 2, 3], True, MVNEpsMode.OUTSIDE_SQRT, id="1x3x3x3_axes123"),
    pytest.param((1, 3, 3, 3), [2, 3], False, MVNEpsMode.OUTSIDE_SQRT, id="1x3x3x3_no_variance"),
    pytest.param((2, 16, 768), [-1], True, MVNEpsMode.INSIDE_SQRT, id="layer-norm_768"),
    pytest.param((2, 8, 5, 6), [1, 2, 3], True, MVNEpsMode.INSIDE_SQRT, id="instance-norm_240"),
]


@pytest.mark.parametrize(("shape", "axes", "variance", "mode"), MVN_CASES)
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=FLOAT_IDS)
def test_mvn_fast_within_the_propagated_bound(dtype, shape, axes, variance, mode) -> None:  # type: ignore[no-untyped-def]
    """Only the two means differ between the kernels.  The mean ``m`` by at most
    ``dm = (2n + 1) eps mean|x| + eps |m|``; ``c = x - m`` then by ``dm`` plus its rounding;
    the variance ``v = mean(c^2)`` by ``dv = (2n + 1) eps mean(c^2) + 2 mean|c| dm + dm^2 + eps v``.
    Without variance the output is c: ``dm + eps |c|``.  With it, ``c / sigma`` moves by
    ``dm / sigma + |out| dv / (2 (sigma^2))`` to first order, plus the rounding of the four
    element-wise steps (4 eps |out|); the first-order bound is doubled for the terms it drops."""
    x = random(shape, dtype, 12, spread=False) * 3 + 1
    attrs = MVNAttrs(variance, 1e-9, mode)
    e, f = both("MVN", "opset6", attrs, [x, np.array(axes, np.int64)])
    w = working_eps(dtype)
    xs = f64(x)
    ax = tuple(a % x.ndim for a in axes)
    n = math.prod(shape[a] for a in ax)
    m = xs.mean(axis=ax, keepdims=True)
    dm = (2 * n + 1) * w * np.abs(xs).mean(axis=ax, keepdims=True) + w * np.abs(m)
    c = xs - m
    if not variance:
        assert_within(e, f, dm + w * np.abs(c) + rounding(e, f))
        return
    v = (c * c).mean(axis=ax, keepdims=True)
    dv = (2 * n + 1) * w * v + 2 * np.abs(c).mean(axis=ax, keepdims=True) * dm + dm**2 + w * v
    sigma2 = v + attrs.eps if mode is MVNEpsMode.INSIDE_SQRT else v
    out = np.abs(f64(e))
    bound = 2 * (dm / np.sqrt(sigma2) + out * dv / (2 * sigma2)) + 4 * w * out
    assert_within(e, f, bound + rounding(e, f))


NORMALIZE_CASES = [
    pytest.param((2, 3, 4), [1], id="2x3x4_axis1"),
    pytest.param((2, 3, 4), [1, 2], id="2x3x4_axes12"),
    pytest.param((4, 1000), [-1], id="4x1000_last"),
    pytest.param((2, 3, 4), [], id="no_axes"),
]


@pytest.mark.parametrize(("shape", "axes"), NORMALIZE_CASES)
@pytest.mark.parametrize("mode", [NormalizeEpsMode.ADD, NormalizeEpsMode.MAX], ids=["add", "max"])
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=FLOAT_IDS)
def test_normalize_l2_fast_within_the_propagated_bound(dtype, mode, shape, axes) -> None:  # type: ignore[no-untyped-def]
    """``x / sqrt(S + eps)`` (or max): S = sum(x^2) differs by ``dS = (2n + 1) eps S``, which moves
    the output by a relative ``dS / (2 (S + eps_attr))`` (1 / sqrt's derivative) at most;
    plus the rounding of the add, sqrt and divide (3 eps |out|)."""
    x = random(shape, dtype, 13, spread=False)
    attrs = NormalizeL2Attrs(1e-6, mode)
    e, f = both("NormalizeL2", "opset1", attrs, [x, np.array(axes, np.int64)])
    w = working_eps(dtype)
    ax = tuple(a % x.ndim for a in axes)
    n = math.prod(shape[a] for a in ax)
    s = (f64(x) ** 2).sum(axis=ax, keepdims=True)
    out = np.abs(f64(e))
    bound = out * ((2 * n + 1) * w * s / (2 * (s + attrs.eps)) + 3 * w)
    assert_within(e, f, bound + rounding(e, f))


# -- ScaledDotProductAttention ----------------------------------------------------------------


def _attention_bound(q, k, v, scale, bias, out, dtype) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The fast kernel's MatMuls and softmax sum against the exact ones', first order, doubled:
    scores ``z = scale * q k^T + bias`` differ by ``dz = |scale| (2E + 1) eps (|q| |k|^T) + eps |z|``;
    softmax moves each probability by ``p * (2 max_row(dz) + (2S + 3) eps)`` (d log p_i =
    dz_i - sum_j p_j dz_j, and its own sum and division); ``out = p v`` then by
    ``dp |v| + (2S + 1) eps p |v|``, plus its rounding."""
    w = working_eps(dtype)
    qs, ks, vs = f64(q), f64(k), f64(v)
    z = scale * (qs @ np.swapaxes(ks, -1, -2))
    if bias is not None:
        z = z + bias
    magnitude = abs(scale) * (np.abs(qs) @ np.abs(np.swapaxes(ks, -1, -2)))
    dz = (2 * q.shape[-1] + 1) * w * magnitude + w * np.abs(np.where(np.isfinite(z), z, 0))
    dz = np.where(np.isfinite(z), dz, 0)
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    s = k.shape[-2]
    dp = p * (2 * dz.max(axis=-1, keepdims=True) + (2 * s + 3) * w)
    bound = dp @ np.abs(vs) + (2 * s + 1) * w * (p @ np.abs(vs))
    return 2 * bound + w * np.abs(f64(out))  # type: ignore[no-any-return]


SDPA_CASES = [
    pytest.param((1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 5), "none", id="no-mask"),
    pytest.param((2, 4, 7, 16), (2, 4, 7, 16), (2, 4, 7, 16), "causal", id="causal"),
    pytest.param((1, 3, 5, 32), (1, 3, 9, 32), (1, 3, 9, 32), "float", id="float-mask"),
    pytest.param((2, 1, 5, 64), (2, 1, 80, 64), (2, 1, 80, 64), "bool", id="bool-mask_s80"),
]


@pytest.mark.parametrize(("sq", "sk", "sv", "mask"), SDPA_CASES)
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16)], ids=["f32", "f16"])
def test_attention_fast_within_the_propagated_bound(dtype, sq, sk, sv, mask) -> None:  # type: ignore[no-untyped-def]
    """See ``_attention_bound``; for f16 the inputs are f16 values computed in f32 by both."""
    q, k, v = random(sq, dtype, 14, False), random(sk, dtype, 15, False), random(sv, dtype, 16, False)
    inputs = [q, k, v]
    bias = None
    if mask == "causal":
        rows, cols = np.arange(sq[-2])[:, None], np.arange(sk[-2])[None, :]
        bias = np.where(cols <= rows, 0.0, -np.inf)
    elif mask == "float":
        m = random((sq[-2], sk[-2]), dtype, 17, False)
        inputs.append(m)
        bias = f64(m)
    elif mask == "bool":
        m = np.random.default_rng(18).random((sq[-2], sk[-2])) < 0.7
        m[:, 0] = True  # every row keeps a key (an all-masked row is NaN in both)
        inputs.append(m)
        bias = np.where(m, 0.0, -np.inf)
    attrs = attention.SDPAAttrs(causal=mask == "causal")
    e, f = both("ScaledDotProductAttention", "opset13", attrs, inputs)
    scale = float(attention.default_scale(sq[-1], np.dtype(np.float32)))
    assert_within(e, f, _attention_bound(q, k, v, scale, bias, e, dtype) + rounding(e, f))


def test_attention_fast_all_masked_rows_are_nan_as_exact() -> None:
    q, k, v = (random((1, 1, 3, 4), np.float32, s, False) for s in (19, 20, 21))
    m = np.ones((3, 3), bool)
    m[1] = False
    e, f = both("ScaledDotProductAttention", "opset13", attention.SDPAAttrs(), [q, k, v, m])
    assert np.isnan(e[0, 0, 1]).all()
    np.testing.assert_array_equal(np.isnan(f), np.isnan(e))


# -- errors: the fast kernels share the exact ones' checks -------------------------------------

ERROR_CASES = [
    pytest.param(
        "MatMul",
        "opset1",
        MatMulAttrs(),
        [np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)],
        id="matmul-k",
    ),
    pytest.param(
        "MatMul",
        "opset1",
        MatMulAttrs(),
        [np.ones((), np.float32), np.ones((2,), np.float32)],
        id="matmul-scalar",
    ),
    pytest.param(
        "MatMul",
        "opset1",
        MatMulAttrs(),
        [np.ones((2, 2, 3), np.float32), np.ones((3, 3, 2), np.float32)],
        id="matmul-batch",
    ),
    pytest.param(
        "ReduceSum", "opset1", ReduceAttrs(Reduction.SUM), [np.ones(3, bool), np.array([0])], id="sum-bool"
    ),
    pytest.param(
        "ReduceMean",
        "opset1",
        ReduceAttrs(Reduction.MEAN, True),
        [np.float32(1), np.array([0])],
        id="mean-scalar-keep",
    ),
    pytest.param(
        "ReduceL2",
        "opset4",
        NormReduceAttrs(NormReduction.L2),
        [np.ones(3, bool), np.array([0])],
        id="l2-bool",
    ),
    pytest.param("Softmax", "opset8", SoftmaxAttrs(1), [np.ones((2, 3), np.int32)], id="softmax-int"),
    pytest.param("Softmax", "opset8", SoftmaxAttrs(5), [np.ones((2, 3), np.float32)], id="softmax-axis"),
    pytest.param(
        "ScaledDotProductAttention",
        "opset13",
        attention.SDPAAttrs(),
        [np.ones((2, 3), np.float32)] * 3,
        id="sdpa-rank",
    ),
]


@pytest.mark.parametrize(("type_name", "version", "attrs", "inputs"), ERROR_CASES)
def test_fast_kernels_raise_the_exact_kernels_errors(type_name, version, attrs, inputs) -> None:  # type: ignore[no-untyped-def]
    exact, fast = kernels(type_name, version)
    errors = []
    for kernel in (exact, fast):
        with pytest.raises(Error) as info:
            kernel(attrs, inputs)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


# -- whole models -----------------------------------------------------------------------------


def _cases() -> list[Any]:
    params = []
    for xml in sorted(EXPORTS.glob("**/*.xml")):
        steps = sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))
        if not steps:
            continue
        if "stateful" not in xml.parts:
            steps = steps[:1]  # the first stored case; a stateful model's steps all run
        params.append(pytest.param(xml, steps, id=xml.relative_to(EXPORTS).with_suffix("").as_posix()))
    for xml in sorted(CORPUS.glob("*/*/model.xml")):
        text = xml.read_text(encoding="utf-8", errors="replace")
        if any(op in text for op in WINDOW_OPS):
            first = sorted(xml.parent.glob("*.inputs.npz"))[:1]
            params.append(pytest.param(xml, first, id=xml.parent.relative_to(ROOT).as_posix()))
    return params


def _bytes(outputs: dict[str, np.ndarray]) -> list[bytes]:
    return [v.tobytes() for v in outputs.values()]


# Float outputs: each fast kernel is within its derived bound of the exact one (tests above);
# through a whole model those differences pass through further layers, so a fixed tolerance
# is used here.  The largest difference measured over these models is 1.1e-6 on logits of
# order 1 (tiny_t5, f32): rtol 1e-4 with atol 1e-5 (for values near 0) leaves a margin of
# about 10x over that and still catches any real mistake (a wrong sum or a skipped bias moves
# logits by 1e-3 or more).  The corpus CNNs (convolutions by BLAS in f32 against float64 sums)
# measured at most 0.13 of it (vision/nv12_ppp_conv: 6e-5 on outputs of order 100; the others
# 0.016 or less, 2026-11-26).  f16/bf16 outputs may round to the neighbouring value: 2 eps.
TOLERANCES = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-9, 1e-12)}


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    if dtype in TOLERANCES:
        return TOLERANCES[dtype]
    return 2 * eps(dtype), float(ml_dtypes.finfo(dtype).smallest_subnormal)


def _same_up_to_rounding(e: dict[str, np.ndarray], f: dict[str, np.ndarray]) -> None:
    assert list(f) == list(e)
    for name, a in e.items():
        b = f[name]
        assert (b.shape, b.dtype) == (a.shape, a.dtype), name
        if a.dtype.kind == "f" or a.dtype == BF16:
            rtol, atol = _tolerance(a.dtype)
            assert np.allclose(f64(b), f64(a), rtol=rtol, atol=atol, equal_nan=True), (
                f"{name}: max |fast - exact| {np.nanmax(np.abs(f64(b) - f64(a)))}"
            )
            np.testing.assert_array_equal(np.isnan(b), np.isnan(a))
        else:
            assert a.tobytes() == b.tobytes(), name


@pytest.mark.parametrize(("xml", "steps"), _cases())
def test_model_fast_run_matches_exact(xml: Path, steps: list[Path]) -> None:
    model = ovonehot.load(xml)
    differs = False  # some fast output differs from the exact one (so fast kernels ran)
    exact_request, fast_request = model.create_request(), model.create_request()
    for step in steps:
        with np.load(step, allow_pickle=False) as archive:
            inputs = {name: archive[name] for name in archive.files}
        if len(steps) > 1:  # a stateful model's steps, each once (its variables move on)
            exact, fast_step = exact_request.run(inputs), fast_request.run(inputs, exact=False)
            _same_up_to_rounding(exact, fast_step)
            differs |= _bytes(exact) != _bytes(fast_step)
            continue
        fast = []
        for _ in range(2):  # the second run of a signature goes through its folded plan
            fast.append(model.run(inputs, exact=False))
            exact = model.run(inputs)
            _same_up_to_rounding(exact, fast[-1])
            differs |= _bytes(exact) != _bytes(fast[-1])
        # every loop runs the same fast kernels: the first run's (every hook), the folded
        # plan's, an observed run's and a run into shared buffers give the same bytes
        fast.append(model.run(inputs, observer=lambda *_: None, exact=False))
        fast.append(model.run(inputs, share_outputs=True, exact=False))
        for other in fast[1:]:
            assert [v.tobytes() for v in other.values()] == [v.tobytes() for v in fast[0].values()]
    # (the corpus's vision and ONNX CNNs: sums of hundreds of terms; tflite/keras_cnn's small
    # convolution happens to round to the exact bytes)
    sums = CORPUS in xml.parents and xml.parent.parent.name in ("vision", "onnx")
    if xml.parent.name == "transformers" or "stateful" in xml.parts or sums:
        assert differs, "every fast output has the exact bytes: did a fast kernel run?"


def test_exact_runs_give_the_reference_kernels_bytes() -> None:
    """Exact runs (first, folded) give the bytes of every op's reference ``evaluate`` (a run with
    ``RunMode(specialized=False)``); a fast run does not."""
    xml = EXPORTS / "transformers" / "tiny_gpt2.xml"
    model = ovonehot.load(xml)
    with np.load(_cases_of(xml)[0], allow_pickle=False) as archive:
        inputs = {name: archive[name] for name in archive.files}
    feeds = dict(zip(model._params, model.bind(inputs), strict=True))
    reference = evaluate_module.evaluate(model.inference, feeds, RunMode(specialized=False))
    for _ in range(3):
        assert _bytes(model.run(inputs)) == [v.tobytes() for v in reference.values()]
    assert _bytes(model.run(inputs, exact=False)) != [v.tobytes() for v in reference.values()]


def _cases_of(xml: Path) -> list[Path]:
    return sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))


# -- the CLI ------------------------------------------------------------------------------------


def test_cli_run_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = EXPORTS / "transformers" / "tiny_bert.xml"
    case = _cases_of(xml)[0]
    outputs = {}
    for flag in ([], ["--fast"]):
        out = tmp_path / f"out{len(flag)}.npz"
        code = main(["run", str(xml), "--inputs", str(case), "--output", str(out), *flag])
        stdout, stderr = capsys.readouterr()
        assert (code, stderr) == (0, ""), stderr
        assert "logits: shape [1, 4, 64] element_type f32" in stdout
        with np.load(out) as archive:
            outputs[len(flag)] = archive["logits"]
    model = ovonehot.load(xml)
    with np.load(case) as archive:
        inputs = {name: archive[name] for name in archive.files}
    assert outputs[0].tobytes() == model.run(inputs)["logits"].tobytes()
    assert outputs[1].tobytes() == model.run(inputs, exact=False)["logits"].tobytes()
    assert outputs[1].tobytes() != outputs[0].tobytes()  # (so the flag made a difference)
    assert np.allclose(outputs[1], outputs[0], rtol=1e-4, atol=1e-5)
    for flag, exact in (([], True), (["--fast"], False)):  # the JSON report says which it was
        assert main(["run", str(xml), "--inputs", str(case), "--json", *flag]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["exact"] is exact and report["outputs"][0]["name"] == "logits"


def test_cli_run_fast_steps_of_a_stateful_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = EXPORTS / "stateful" / "tiny_llama" / "tiny_llama.xml"
    steps = _cases_of(xml)
    out = tmp_path / "out.npz"
    argv = ["run", str(xml), *(a for step in steps for a in ("--step-inputs", str(step))), "--fast"]
    code = main([*argv, "--output", str(out)])
    _, stderr = capsys.readouterr()
    assert (code, stderr) == (0, ""), stderr
    request, exact_request = ovonehot.load(xml).create_request(), ovonehot.load(xml).create_request()
    differs = False
    with np.load(out) as written:
        for k, step in enumerate(steps, start=1):
            with np.load(step) as archive:
                inputs = {name: archive[name] for name in archive.files}
            expected = request.run(inputs, exact=False)
            differs |= _bytes(expected) != _bytes(exact_request.run(inputs))
            for name, value in expected.items():
                assert written[f"step{k}/{name}"].tobytes() == value.tobytes()
    assert differs  # (a fast kernel ran: some step's bytes are not the exact ones)
