"""Fast mode's Softmax and LogSoftmax on f32 (``softmax_values(exact=False)``: NumPy's f32
``exp`` and ``log``, the sum by ``np.add.reduce``), which attention's fast kernel shares,
against a float64 oracle (from the f32 shift) on rows of many lengths and scales, masked entries (-inf) included:

* Softmax: ``|p - P| <= (n + 6) eps32 P + 2^-149`` per entry (exp within 2.5 ulps, the sum's
  ``n`` roundings, the division's one);
* LogSoftmax: ``|l - L| <= (n + 6) eps32 + 2 eps32 |L|`` (log of the sum, the subtraction);
* non-finite outputs exactly where the exact kernel's are.
"""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.ops.softmax import softmax_values

EPS = float(np.finfo(np.float32).eps)


def _rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scales = np.array([0.01, 1.0, 8.0, 40.0], np.float64)[:, None, None]
    w = rng.standard_normal((4, 25, n)) * scales
    w = w.reshape(-1, n).astype(np.float32)
    w[::7, : max(1, n // 3)] = -np.inf  # masked positions (a causal or padding mask's)
    return w


def _oracle(w: np.ndarray, log: bool) -> np.ndarray:
    """In float64 from the f32 shift ``x - max x`` (rounded in f32 as the reference and both
    kernels do: what the op computes from, not an error of fast mode)."""
    shifted = (w - w.max(axis=-1, keepdims=True)).astype(np.float64)
    if log:
        out: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        return out
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]


@pytest.mark.parametrize("n", [1, 2, 7, 64, 197, 1000])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "logsoftmax"])
def test_fast_softmax_within_its_bound(n: int, log: bool) -> None:
    w = _rows(n, n)
    with np.errstate(all="ignore"):
        fast = softmax_values(w.copy(), 1, log, False).astype(np.float64)
        truth = _oracle(w, log)
    finite = np.isfinite(truth)
    np.testing.assert_array_equal(np.isfinite(fast), finite)
    error = np.abs(fast[finite] - truth[finite])
    allowed = (n + 6) * EPS * (2 * np.abs(truth[finite]) + 1 if log else np.abs(truth[finite])) + 2.0**-149
    worst = int(np.argmax(error / allowed))
    assert (error <= allowed).all(), f"n={n}: error {error[worst]:.3g} beyond {allowed[worst]:.3g}"


def test_fast_softmax_non_finite_where_exact_has_them() -> None:
    w = _rows(9, 3)
    w[1, 2], w[2, 4], w[3, :] = np.nan, np.inf, -np.inf
    with np.errstate(all="ignore"):
        for log in (False, True):
            fast = softmax_values(w.copy(), 1, log, False)
            exact = softmax_values(w.copy(), 1, log, True)
            np.testing.assert_array_equal(np.isfinite(fast), np.isfinite(exact))
            np.testing.assert_array_equal(np.isnan(fast), np.isnan(exact))
