"""The rounding envelope of Col2Im: a sum of overlapping patches (``envelope.LINEAR``).

Col2Im had no rule and was estimated by random-sign draws of its inputs' errors, which cancel
over patches carrying nearly equal errors: ``diff --all-layers --oracle cpu`` called VOLO's
Col2Im divergent (7 x its envelope) on a correct run, with ovonehot itself at 1.6 x.  It is a sum
now: its inputs' variances summed over the patches, each output's own rounding by its number of
patches.  Corpus: ``ir/corpus/regressions/col2im_overlapping`` (VOLO's fold: each channel's
value in all 9 patch positions, from nearly equal rows)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential.envelope import carry, truth

CASE = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "regressions" / "col2im_overlapping"
U32 = 2.0**-24


def _fold(columns: np.ndarray, side: int, pad: int = 1, k: int = 3) -> np.ndarray:
    """Col2Im of ``(N, C * k * k, side * side)`` columns, stride 1, in float64 by loops (an oracle
    of its own, not the op's kernel)."""
    n, ck, _ = columns.shape
    c = ck // (k * k)
    out = np.zeros((n, c, side + 2 * pad, side + 2 * pad))
    blocks = columns.reshape(n, c, k, k, side, side)
    for i in range(k):
        for j in range(k):
            out[:, :, i : i + side, j : j + side] += blocks[:, :, i, j]
    return out[:, :, pad : pad + side, pad : pad + side]


def test_every_output_carries_its_patches_errors_and_own_rounding() -> None:
    model = load(CASE / "model.xml")
    inputs = dict(np.load(CASE / "normal.inputs.npz"))
    t = truth(model, inputs)
    carried = carry(model, t)
    i = next(k for k, p in enumerate(model.inference.plans) if p.node.type == "Col2Im")
    src = model.graph.sources[i][0]
    columns = np.asarray(t.values[(src.node, src.output)])
    sigma_in = np.broadcast_to(carried.sigma[(src.node, src.output)], columns.shape)
    side = math.isqrt(columns.shape[-1])
    propagated = np.sqrt(_fold(sigma_in**2, side))
    counts = _fold(np.ones_like(columns), side)
    own = np.sqrt(counts) * U32 * _fold(np.abs(columns), side)
    expected = np.sqrt(propagated**2 + own**2)
    sigma = np.broadcast_to(carried.sigma[(i, 0)], expected.shape)
    assert np.all(sigma >= 0.999 * expected), float((sigma / expected).min())
    assert float(np.max(sigma / expected)) < 1.5  # (beside them only the output's own half ulp)
    env = carried.at(i, 0)
    assert env is not None and env.ratio(env.truth * (1 + 1e-4)) > 1.0


def test_the_cpu_plugin_s_col2im_is_inside_its_envelope_layer_by_layer() -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    from ovonehot.differential.diff import DiffOptions, diff_model, oracle_runners

    model = load(CASE / "model.xml")
    runners = oracle_runners(("cpu",), model, str(CASE / "model.xml"))
    report = diff_model(
        model, dict(np.load(CASE / "normal.inputs.npz")), runners, DiffOptions(all_layers=True)
    )
    rows = report.layers or []
    assert any(r.type.startswith("Col2Im") and "rounding envelope" in r.tolerance for r in rows)
    assert all(r.verdict.value == "PASS" for r in rows), [
        (r.layer, r.note) for r in rows if r.verdict.value != "PASS"
    ]
