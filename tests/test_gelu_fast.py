"""Fast mode's f32 Gelu (``evaluate_gelu_fast``, in blocks of ``GELU_BLOCK`` values: erf mode by
an erfc polynomial in f32, tanh mode by its formula with NumPy's f32 tanh) against independent
float64 oracles (C's ``erfc`` through ``math``; the tanh formula in float64) over a sweep of
every f32 exponent and sign: within ``1.25 (ulp(y) + 2^-24 max(1, |x|))``, the absolute part
being where ``1 + erf`` or ``1 + tanh`` cancels (docs/envelope.md's cancelling formulas;
measured 1.10 at most for erf, 0.91 for tanh).  Non-finite outputs exactly where the exact
kernel's are, and each value independent of the block it falls in."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ovonehot.ops import activations
from ovonehot.ops.activations import GeluAttrs, evaluate_gelu, evaluate_gelu_fast
from tests.exact import assert_same

ERF = GeluAttrs(False)
BOUND = 1.25


def _sweep(stride: int) -> np.ndarray:
    """Every ``stride``-th f32 bit pattern (both signs, subnormals to the largest, inf, NaN)."""
    return np.arange(0, 1 << 32, stride, dtype=np.uint64).astype(np.uint32).view(np.float32)


def _truth(x: np.ndarray, tanh: bool) -> np.ndarray:
    """Gelu in float64: ``x/2 * erfc(-x/sqrt 2)`` (no cancellation on either side), or the tanh
    approximation's formula."""
    w = x.astype(np.float64)
    if tanh:
        with np.errstate(over="ignore", invalid="ignore"):
            approx: np.ndarray = 0.5 * w * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (w + 0.044715 * w**3)))
        return approx
    erfc = np.fromiter(map(math.erfc, (-w / math.sqrt(2.0)).tolist()), np.float64, w.size)
    out: np.ndarray = 0.5 * w * erfc
    return out


@pytest.mark.parametrize("tanh", [False, True], ids=["erf", "tanh"])
def test_fast_gelu_within_its_bound_of_float64(tanh: bool) -> None:
    attrs = GeluAttrs(tanh)
    x = _sweep(4099)
    x = np.concatenate([x, np.float32([3.4028235e38, -3.4028235e38, 1.7014118e38, 0.0, -0.0, 1e-45, -1e-45])])
    with np.errstate(all="ignore"):
        fast = evaluate_gelu_fast(attrs, [x])[0]
        exact = evaluate_gelu(attrs, [x])[0]
    assert fast.dtype == np.float32 and fast.shape == x.shape
    np.testing.assert_array_equal(np.isfinite(fast), np.isfinite(exact))
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(exact))
    finite = np.isfinite(x)
    truth = _truth(x[finite], tanh)
    with np.errstate(over="ignore"):  # (the largest f32's spacing)
        ulp = np.spacing(np.abs(truth).astype(np.float32)).astype(np.float64)
    allowed = BOUND * (ulp + 2.0**-24 * np.maximum(1.0, np.abs(x[finite].astype(np.float64))))
    error = np.abs(fast[finite].astype(np.float64) - truth)
    worst = int(np.argmax(error / allowed))
    assert (error <= allowed).all(), (
        f"Gelu({x[finite][worst]!r}, tanh={tanh}) = {fast[finite][worst]!r}, float64 {truth[worst]!r}: "
        f"{error[worst] / allowed[worst] * BOUND:.2f} of (ulp + 2^-24 max(1, |x|))"
    )
    big = x[finite] > 1e38  # 2x would overflow: Gelu(x) = x there
    assert_same(fast[finite][big], x[finite][big], "Gelu of huge x")


@pytest.mark.parametrize("tanh", [False, True], ids=["erf", "tanh"])
@pytest.mark.parametrize(
    "shape", [(0,), (3, 0, 2), (1,), (2 * activations.GELU_BLOCK + 7,), (3, 5, 41)], ids=str
)
def test_fast_gelu_values_do_not_depend_on_their_block(shape: tuple[int, ...], tanh: bool) -> None:
    """Each value as Gelu of it alone (the blocks and their scratch buffers, reused between calls
    and blocks of other sizes, carry nothing over); a strided view as its copy."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(shape) * rng.choice([0.5, 4.0, 30.0], shape)).astype(np.float32)
    attrs = GeluAttrs(tanh)
    with np.errstate(all="ignore"):
        whole = evaluate_gelu_fast(attrs, [x])[0]
        assert whole.shape == x.shape
        alone = np.array([evaluate_gelu_fast(attrs, [v.reshape(1)])[0][0] for v in x.reshape(-1)], np.float32)
        assert_same(whole.reshape(-1), alone, "Gelu by blocks vs one value at a time")
        if x.ndim == 3 and x.size:
            view = x[:, ::2, 1:]
            assert_same(
                evaluate_gelu_fast(attrs, [view])[0], evaluate_gelu_fast(attrs, [view.copy()])[0], "view"
            )


def test_fast_gelu_leaves_other_cases_to_the_exact_kernel() -> None:
    """0-d, f64 and f16, in either mode, are ``evaluate_gelu``'s values, bit for bit."""
    cases = [
        (attrs, x)
        for attrs in (ERF, GeluAttrs(True))
        for x in (
            np.float32(0.75).reshape(()),
            np.linspace(-6, 6, 13),
            np.linspace(-6, 6, 13).astype(np.float16),
        )
    ]
    for attrs, x in cases:
        assert_same(evaluate_gelu_fast(attrs, [x])[0], evaluate_gelu(attrs, [x])[0], f"{x.dtype}{x.shape}")
