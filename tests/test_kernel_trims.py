"""Kernels trimmed to fewer NumPy calls give the bits of the formulas they replace (issue 24
item 2): each test runs the old formula, written out here as it stood, against the kernel on
generated inputs with NaN, inf, -0, subnormals and huge values, every bit compared (NaN
payloads too).  The conformance harness checks the same kernels against OpenVINO."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from ovonehot.ops.activations import GeluAttrs, bind_gelu, bind_swish, evaluate_gelu
from ovonehot.ops.attention import (
    SDPAAttrs,
    default_scale,
    evaluate_sdpa,
    evaluate_sdpa_fast,
    specialize_sdpa,
)
from ovonehot.ops.common.spec import Kernel, RunMode, TensorInfo
from ovonehot.ops.matmul import MatMulAttrs, bind_matmul_fast, sequential_product
from ovonehot.ops.normalization import MVNAttrs, MVNEpsMode, specialize_mvn
from ovonehot.ops.reduce import SPECS as REDUCE_SPECS
from ovonehot.ops.reduce import ReduceAttrs, Reduction
from ovonehot.ops.softmax import SoftmaxAttrs, kahan_sum, softmax, softmax_values
from ovonehot.types import ElementType, PartialShape
from tests.exact import assert_same

SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, -1e-45, 1e-40, 88.7, -104.0]


def _floats(dtype: type, shape: tuple[int, ...], seed: int, special: float = 0.3) -> np.ndarray:
    """Normal values of several scales with ``special`` of the entries from SPECIAL (and, for
    f32, arbitrary bit patterns: NaN payloads of both signs, subnormals)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = (rng.standard_normal(n) * rng.choice([0.1, 3.0, 40.0], n)).astype(dtype)
    values = np.where(rng.random(n) < special, rng.choice(np.array(SPECIAL, dtype), n), values)
    if dtype is np.float32:
        bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
        values = np.where(rng.random(n) < special / 2, bits, values)
    return values.astype(dtype).reshape(shape)


def _info(array: np.ndarray, folded: bool = False) -> TensorInfo:
    et = ElementType.from_numpy(array.dtype)
    return TensorInfo(et, PartialShape.of(array.shape), array if folded else None)


# -- Swish: the bound f32 kernel, beta absent or folded ---------------------------------------


def _old_swish(w: np.ndarray, b: np.ndarray) -> np.ndarray:
    e = np.exp((-w * b).astype(np.float64)).astype(np.float32)
    out: np.ndarray = (w.astype(np.float64) / (1.0 + e.astype(np.float64))).astype(np.float32)
    return out


@pytest.mark.parametrize("beta", [None, 1.0, 0.5, -2.0, 0.0])
def test_swish_kernel_bits(beta: float | None) -> None:
    """Sampled bit patterns here; every one of the 2**32 f32 inputs was compared once for beta 1
    (beta absent): no difference."""
    w = _floats(np.float32, (64, 257), seed=1)
    patterns = np.arange(0, 2**32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    b = np.asarray(np.float32(1.0 if beta is None else beta))
    inputs = [_info(w)] if beta is None else [_info(w), _info(b, folded=True)]
    kernel = bind_swish(None, inputs, [_info(w)])  # type: ignore[arg-type]
    assert kernel is not None
    with np.errstate(all="ignore"):
        for x in (w, patterns.reshape(1, -1), w[:, ::3]):
            assert_same(kernel([x])[0], _old_swish(x, b), f"Swish beta={beta}")


# -- Softmax: the shared values function (Softmax kernels and attention) ---------------------


def _old_softmax(w: np.ndarray, axis: int, log: bool, exact: bool) -> np.ndarray:
    """(Fast mode's f32 exp and log are NumPy's own since a later, deliberate change: its
    accuracy is tests/test_softmax_fast.py's.)"""
    m = np.max(w, axis=axis, keepdims=True)
    shifted = w - m
    wide = shifted.astype(np.float64) if exact else shifted
    e = np.exp(wide).astype(w.dtype)
    s = kahan_sum(e, axis) if exact else np.add.reduce(e, axis=axis, keepdims=True)
    if not log:
        out: np.ndarray = e / s
        return out
    return shifted - (np.log(s.astype(np.float64)).astype(s.dtype) if exact else np.log(s))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_values_bits(dtype: type, exact: bool, log: bool) -> None:
    for seed, (shape, special) in enumerate((((3, 4, 7), 0.0), ((2, 5, 6), 0.15), ((4, 1, 9), 0.5))):
        w = _floats(dtype, shape, seed, special)
        with np.errstate(all="ignore"):
            for axis in range(w.ndim):
                for x in (w, np.swapaxes(w, 0, -1)):
                    want = _old_softmax(x, axis, log, exact)
                    assert_same(softmax_values(x, axis, log, exact), want, f"softmax {shape} axis {axis}")


# -- attention: the fast bound kernels (folded scale and mask, causal, a mask given each run) --


def _old_fast_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: np.ndarray, bias: np.ndarray | None
) -> np.ndarray:
    qk = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if bias is not None:
        qk = qk + bias
    probabilities = _old_softmax(qk, qk.ndim - 1, False, False) if qk.size else qk
    out: np.ndarray = np.matmul(probabilities, v)
    return out


def _old_exact_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: np.ndarray, bias: np.ndarray | None
) -> np.ndarray:
    qk = sequential_product(q, np.swapaxes(k, -1, -2)) * scale
    if bias is not None:
        qk = qk + bias
    (probabilities,) = softmax(SoftmaxAttrs(-1), [qk], True)
    return sequential_product(probabilities, v)


def _kernel(attrs: SDPAAttrs, arrays: Sequence[np.ndarray], folded: Sequence[bool], exact: bool) -> Kernel:
    infos = [_info(a, f) for a, f in zip(arrays, folded, strict=True)]
    out = TensorInfo(infos[0].element_type, PartialShape.of(arrays[0].shape[:-1] + arrays[2].shape[-1:]))
    kernel = specialize_sdpa(attrs, infos, [out], RunMode(exact=exact))
    assert kernel is not None
    return kernel


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", [1, 5])
@pytest.mark.parametrize("exact", [False, True])
def test_attention_bits(dtype: type, length: int, exact: bool) -> None:
    """The bound kernels and ``evaluate`` (exact) or the fast general kernel, against the old steps."""
    rng = np.random.default_rng(length)
    source = 6
    q = _floats(dtype, (2, 4, length, 8), 10 + length, 0.05)
    k = _floats(dtype, (2, 4, source, 8), 20 + length, 0.05)
    v = _floats(dtype, (2, 4, source, 3), 30 + length, 0.05)
    scale = default_scale(8, np.dtype(dtype))
    boolean = rng.random((2, 1, length, source)) < 0.7
    float_mask = np.where(boolean, 0.0, -np.inf).astype(dtype)
    rows, cols = np.arange(length)[:, None], np.arange(source)[None, :]
    causal_bias = np.where(cols <= rows, 0.0, -np.inf).astype(dtype)
    given = np.asarray(dtype(0.3))
    cases: list[tuple[SDPAAttrs, list[np.ndarray], list[bool], np.ndarray, np.ndarray | None]] = [
        (SDPAAttrs(), [q, k, v], [False] * 3, scale, None),
        (SDPAAttrs(causal=True), [q, k, v], [False] * 3, scale, causal_bias),
        (SDPAAttrs(), [q, k, v, boolean], [False] * 3 + [True], scale, float_mask),
        (SDPAAttrs(), [q, k, v, float_mask], [False] * 3 + [True], scale, float_mask),
        (SDPAAttrs(), [q, k, v, float_mask], [False] * 4, scale, float_mask),  # a mask each run
        (SDPAAttrs(), [q, k, v, float_mask, given], [False] * 3 + [True, True], given, float_mask),
    ]
    with np.errstate(all="ignore"):
        for attrs, arrays, folded, s, bias in cases:
            old = _old_exact_attention if exact else _old_fast_attention
            want = old(q, k, v, s, bias)
            got = _kernel(attrs, arrays, folded, exact)(arrays)[0]
            assert_same(got, want, f"attention {attrs} {len(arrays)} inputs")
            unbound = (evaluate_sdpa if exact else evaluate_sdpa_fast)(attrs, arrays)[0]
            assert_same(unbound, want, f"attention {attrs} {len(arrays)} inputs, evaluate")


# -- ReduceMean and MVN: the fast kernels of a static shape (the count made once) -------------


specialize_reduce_mean = next(s.specialize for s in REDUCE_SPECS if s.type == "ReduceMean")
assert specialize_reduce_mean is not None


def _old_mean(w: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    total = np.add.reduce(w, axis=axes, dtype=w.dtype, keepdims=keep)
    out: np.ndarray = total / np.array(w.size // max(total.size, 1)).astype(w.dtype)
    return out


def _old_mvn(w: np.ndarray, axes: tuple[int, ...], attrs: MVNAttrs) -> np.ndarray:
    centered = w - _old_mean(w, axes, True)
    if attrs.normalize_variance:
        var = _old_mean(centered * centered, axes, True)
        eps = w.dtype.type(attrs.eps)
        inside = attrs.eps_mode is MVNEpsMode.INSIDE_SQRT
        centered = centered / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    return centered


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_static_mean_and_mvn_bits(dtype: type) -> None:
    mvn_attrs = [
        MVNAttrs(True, 1e-12, MVNEpsMode.INSIDE_SQRT),
        MVNAttrs(True, 1e-5, MVNEpsMode.OUTSIDE_SQRT),
        MVNAttrs(False, 1e-5, MVNEpsMode.INSIDE_SQRT),
    ]
    for seed, (shape, special) in enumerate((((2, 7, 16), 0.0), ((3, 1, 5), 0.2), ((2, 3, 4, 5), 0.05))):
        w = _floats(dtype, shape, seed, special)
        for axes in ((w.ndim - 1,), (1, w.ndim - 1), (0,)):
            folded_axes = np.array(axes, np.int64)
            inputs = [_info(w), _info(folded_axes, folded=True)]
            with np.errstate(all="ignore"):
                for keep in (False, True):
                    out = np.add.reduce(w, axis=axes, keepdims=keep)
                    attrs = ReduceAttrs(Reduction.MEAN, keep)
                    mean = specialize_reduce_mean(attrs, inputs, [_info(out)], RunMode(exact=False))
                    assert mean is not None
                    assert_same(mean([w, folded_axes])[0], _old_mean(w, axes, keep), f"mean {shape} {axes}")
                for mvn_attr in mvn_attrs:
                    kernel = specialize_mvn(mvn_attr, inputs, [_info(w)], RunMode(exact=False))
                    assert kernel is not None
                    assert_same(
                        kernel([w, folded_axes])[0], _old_mvn(w, axes, mvn_attr), f"MVN {shape} {axes}"
                    )


# -- Gelu: the bound f32/f64 kernel against ``evaluate`` ---------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("tanh", [False, True])
def test_gelu_kernel_bits(dtype: type, tanh: bool) -> None:
    w = _floats(dtype, (3, 5, 41), seed=7)
    kernel = bind_gelu(GeluAttrs(tanh), [_info(w)], [_info(w)])
    assert kernel is not None
    with np.errstate(all="ignore"):
        for x in (w, w[:, ::2, 1:]):
            assert_same(kernel([x])[0], evaluate_gelu(GeluAttrs(tanh), [x])[0], f"Gelu tanh={tanh}")


# -- MatMul: the fast kernel of a folded transposed weight ------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_matmul_folded_weight_bits(dtype: type) -> None:
    """The weight's swapped view made once gives what swapping it each call gives; another
    array at that input (not the folded one) is swapped as before."""
    x = _floats(dtype, (2, 5, 16), seed=3, special=0.05)
    weight = _floats(dtype, (24, 16), seed=4, special=0.05)
    out = TensorInfo(_info(x).element_type, PartialShape.of((2, 5, 24)))
    kernel = bind_matmul_fast(MatMulAttrs(transpose_b=True), [_info(x), _info(weight, folded=True)], [out])
    assert kernel is not None
    with np.errstate(all="ignore"):
        for y in (weight, weight.copy(), weight * 2):
            assert_same(kernel([x, y])[0], np.matmul(x, np.swapaxes(y, -1, -2)), "MatMul folded weight")
