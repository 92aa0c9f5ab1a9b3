"""The rounding envelope of ScaledDotProductAttention (``envelope._attention``).

The envelope estimated an attention by random-sign draws of its inputs' errors.  Where a few
keys carry nearly equal values (LeViT's attention downsampling: 4 keys), the draws cancel and
many outputs got no error at all: ``diff --all-layers --oracle cpu`` called the attentions of
LeViT, TinyViT and DaViT divergent (1.4 x to 106 x their envelope) on correct runs.  The values'
errors now go through the probabilities exactly, and the sums over the keys add their own
rounding.  Corpus: ``ir/corpus/regressions/sdpa_few_keys``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential import envelope
from ovonehot.differential.envelope import LAMBDA, carry, truth
from ovonehot.types import ElementType

CASE = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "regressions" / "sdpa_few_keys"


def _inputs() -> dict[str, np.ndarray]:
    return dict(np.load(CASE / "normal.inputs.npz"))


def _attention_node(model: object) -> int:
    return next(i for i, p in enumerate(model.inference.plans) if p.node.type == "ScaledDotProductAttention")


def test_the_cpu_plugin_s_attention_is_inside_its_envelope_layer_by_layer() -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    from ovonehot.differential.diff import DiffOptions, diff_model, oracle_runners

    model = load(CASE / "model.xml")
    runners = oracle_runners(("cpu",), model, str(CASE / "model.xml"))
    report = diff_model(model, _inputs(), runners, DiffOptions(all_layers=True))
    rows = report.layers or []
    attention = [r for r in rows if r.type.startswith("ScaledDotProductAttention")]
    assert attention and all("rounding envelope" in r.tolerance for r in attention)
    assert all(r.verdict.value == "PASS" for r in rows), [
        (r.layer, r.note) for r in rows if r.verdict.value != "PASS"
    ]


def test_every_output_carries_its_values_errors() -> None:
    """No output's sigma is below what its values' errors give through the probabilities
    (``sqrt(p^2 . sigma_v^2)``): the draws' cancellation left 14-16% of LeViT's under a tenth of it."""
    model = load(CASE / "model.xml")
    t = truth(model, _inputs())
    carried = carry(model, t)
    i = _attention_node(model)
    srcs = [(s.node, s.output) for s in model.graph.sources[i]]
    q, k, v = (np.asarray(t.values[s]) for s in srcs[:3])
    sigma_v = np.broadcast_to(carried.sigma[srcs[2]], v.shape)
    assert np.all(sigma_v > 0)
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    through = np.sqrt((p * p) @ sigma_v**2)  # (float64: an oracle of its own, not the op's kernel)
    sigma = np.broadcast_to(carried.sigma[(i, 0)], through.shape)
    assert np.all(sigma >= 0.999 * through), float((sigma / through).min())
    # not vacuous: a few times the values' part, and a 1e-4 relative error is outside
    assert float(np.max(sigma / through)) < 4.0
    env = carried.at(i, 0)
    assert env is not None and env.ratio(env.truth * (1 + 1e-4)) > 1.0


def test_a_mean_of_values_of_both_signs_keeps_its_sums_rounding() -> None:
    """Exact inputs (no error carried in): the sums over the keys still round, by Higham and Mary's
    ``sqrt(S) u p . |v|``, however small the output."""
    rng = np.random.default_rng(0)
    keys = 64
    q = np.zeros((1, 1, 2, 8))  # (equal probabilities: the output is the values' mean)
    k = rng.standard_normal((1, 1, keys, 8))
    v = rng.standard_normal((1, 1, keys, 4))
    v -= v.mean(axis=-2, keepdims=True)  # (a mean of zero: the output is ~0, the terms are not)
    run = _reference_attention()
    outs = run([q, k, v])
    (sigma,) = envelope._attention(
        run, [q, k, v], [None, None, None], outs, [ElementType.f32], [np.zeros(outs[0].shape)]
    )
    own = math.sqrt(keys) * 2.0**-24 * np.abs(v).mean(axis=-2)[:, :, None, :]
    np.testing.assert_allclose(sigma, np.broadcast_to(own, sigma.shape), rtol=1e-9)
    assert float(np.max(np.abs(outs[0]))) < 1e-12 < float(LAMBDA * sigma.min())


def _reference_attention():  # type: ignore[no-untyped-def]
    from ovonehot.ops.attention import SDPAAttrs, evaluate_sdpa

    def run(args):  # type: ignore[no-untyped-def]
        return [np.asarray(o, dtype=np.float64) for o in evaluate_sdpa(SDPAAttrs(), list(args))]

    return run
