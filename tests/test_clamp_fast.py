"""Fast mode's Clamp (``evaluate_clamp_fast``, one ``np.clip`` pass) gives the exact kernel's
numbers on f32 and f64: NaN where it has NaN, every other value equal (a zero's sign may differ
where it equals a bound, the docstring's one liberty), over special values and random ones."""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.ops.unary import ClampAttrs, evaluate_clamp, evaluate_clamp_fast

SPECIAL = [0.0, -0.0, 1.0, -1.0, 6.0, 6.000001, -1e-45, 1e-45, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bounds", [(0.0, 6.0), (-1.0, 1.0), (-np.inf, 0.5), (0.25, 0.25), (-3.4e38, 3.4e38)])
def test_fast_clamp_gives_the_exact_numbers(dtype: type, bounds: tuple[float, float]) -> None:
    rng = np.random.default_rng(7)
    x = np.concatenate([np.array(SPECIAL), rng.standard_normal(1001) * 4]).astype(dtype).reshape(-1, 13)
    attrs = ClampAttrs(*bounds)
    fast = evaluate_clamp_fast(attrs, [x])[0]
    exact = evaluate_clamp(attrs, [x])[0]
    assert fast.dtype == exact.dtype and fast.shape == exact.shape
    np.testing.assert_array_equal(fast, exact)  # (NaN equal to NaN; -0.0 equal to 0.0)
