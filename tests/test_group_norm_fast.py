"""Fast mode's GroupNormalization (``evaluate_group_norm_fast``: f32, pairwise sums) against the
float64 kernel (``evaluate_group_norm``, rounded once), per element within

    (4 log2(M) + 16) eps32 |scale| (|z| + A / sigma) + 2 ulp(y)

for a group of ``M`` values with mean absolute value ``A`` and ``sigma = sqrt(var + epsilon)``,
``z`` the normalized value: the mean's pairwise sum (its error ``log2(M) eps A`` shifts every
``z`` by that over sigma), the variance's, the subtraction and the scaling.  Non-finite values
where the float64 kernel has them; other types and empty data are that kernel's bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ovonehot.ops.normalization import GroupNormAttrs, evaluate_group_norm, evaluate_group_norm_fast
from tests.exact import assert_same

EPS = float(np.finfo(np.float32).eps)


@pytest.mark.parametrize(
    ("shape", "groups", "offset"),
    [((1, 64, 28, 28), 1, 0.0), ((2, 32, 9, 7), 8, 3.0), ((3, 6), 3, -50.0), ((1, 12, 5, 4, 3), 4, 1000.0)],
    ids=str,
)
def test_fast_group_norm_within_its_bound(shape: tuple[int, ...], groups: int, offset: float) -> None:
    rng = np.random.default_rng(len(shape) + groups)
    x = (rng.standard_normal(shape) * rng.choice([0.01, 1.0, 30.0], shape) + offset).astype(np.float32)
    scale = rng.standard_normal(shape[1]).astype(np.float32)
    bias = rng.standard_normal(shape[1]).astype(np.float32)
    attrs = GroupNormAttrs(groups, 1e-5)
    fast = evaluate_group_norm_fast(attrs, [x, scale, bias])[0]
    exact = evaluate_group_norm(attrs, [x, scale, bias])[0]
    assert fast.dtype == np.float32 and fast.shape == x.shape
    g = x.astype(np.float64).reshape(shape[0], groups, -1)
    m = g.shape[2]
    sigma = np.sqrt(g.var(axis=2, keepdims=True) + 1e-5)
    z = (g - g.mean(axis=2, keepdims=True)) / sigma
    a = np.abs(g).mean(axis=2, keepdims=True)
    per_channel = np.abs(scale.astype(np.float64)).reshape(1, shape[1], *(1,) * (len(shape) - 2))
    reach = ((np.abs(z) + a / sigma) * np.ones_like(g)).reshape(shape) * per_channel
    allowed = (4 * math.log2(m) + 16) * EPS * reach + 2 * np.spacing(np.abs(exact)).astype(np.float64)
    error = np.abs(fast.astype(np.float64) - exact.astype(np.float64))
    worst = np.unravel_index(int(np.argmax(error / allowed)), shape)
    assert (error <= allowed).all(), f"at {worst}: {error[worst]:.3g} beyond {allowed[worst]:.3g}"


def test_fast_group_norm_non_finite_where_float64_has_them() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 8, 3, 3)).astype(np.float32)
    x[0, 1, 0, 0], x[1, 6, 2, 1] = np.nan, np.inf
    scale, bias = np.ones(8, np.float32), np.zeros(8, np.float32)
    attrs = GroupNormAttrs(4, 1e-5)
    with np.errstate(all="ignore"):
        fast = evaluate_group_norm_fast(attrs, [x, scale, bias])[0]
        exact = evaluate_group_norm(attrs, [x, scale, bias])[0]
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(exact))
    np.testing.assert_array_equal(np.isfinite(fast), np.isfinite(exact))
    assert np.isfinite(exact).any() and not np.isfinite(exact).all()


def test_fast_group_norm_leaves_other_cases_to_the_float64_kernel() -> None:
    """f16 and f64 data and empty data: ``evaluate_group_norm``'s bytes."""
    rng = np.random.default_rng(3)
    attrs = GroupNormAttrs(2, 1e-5)
    for dtype, shape in ((np.float16, (2, 4, 3)), (np.float64, (2, 4, 3)), (np.float32, (0, 4, 3))):
        x = rng.standard_normal(shape).astype(dtype)
        scale, bias = rng.standard_normal(4).astype(dtype), rng.standard_normal(4).astype(dtype)
        want = evaluate_group_norm(attrs, [x, scale, bias])[0]
        assert_same(evaluate_group_norm_fast(attrs, [x, scale, bias])[0], want, f"{np.dtype(dtype)}{shape}")
