"""Every op-version of the registry, a few generated cases each (seeded), against OpenVINO:
every kernel variant the spec has, on 0-d, empty and dynamic signatures and boundary values.
``scripts/conformance.py`` runs thousands of the same cases; docs/conformance.md has its table.

A failure the table knows (``Conformance.known``: the net found it, nobody fixed it yet) is an
xfail with its reason; each known failure is also a strict xfail of its own
(``test_known_failure_still_fails``), so fixing the kernel turns the suite red until the
table's entry goes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from ovonehot.ops import OpSpec, specs
from tests.conformance.generate import Case, cases
from tests.conformance.harness import Harness, Verdict
from tests.conformance.sample import SEED, known_cases, known_failure, known_params, sample

pytest.importorskip("openvino", reason="the conformance oracle is OpenVINO")


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    h.close()


@pytest.mark.parametrize("case", [pytest.param(c, id=c.label) for c in sample()])
def test_case_matches_openvino(harness: Harness, case: Case) -> None:
    outcome = harness.run(case)
    if outcome.verdict is Verdict.FAILED and known_failure(case):
        pytest.xfail(f"known: {known_failure(case)} ({outcome.detail.splitlines()[0][:200]})")
    assert outcome.verdict is not Verdict.FAILED, outcome.detail


@pytest.mark.parametrize(("spec", "k"), known_params())
def test_known_failure_still_fails(harness: Harness, spec: OpSpec[Any], k: int) -> None:
    """Strict xfail: every case the known failure applies to passes (XPASS: remove the entry)."""
    found = known_cases(spec, k)
    assert found, "no generated case matches this known failure: remove or correct the entry"
    for case in found:
        outcome = harness.run(case)
        assert outcome.verdict is not Verdict.FAILED, f"{case.label}: {outcome.detail}"


# Fast-kernel paths that the sample's few cases per op may not draw, each checked on every CI
# run on its seed's generated cases against the exact kernel within the bound of its own sums
# (the harness's bound, made for any op, is too loose to see a 1% error on these sizes).
def _depthwise_taps_cases() -> list[Case]:
    (spec,) = [s for s in specs() if s.type == "GroupConvolution" and s.version == 1]
    return [
        c for c in cases(spec, 40, SEED) if c.inputs[0].value.ndim == 4 and c.inputs[0].value.shape[1] == 320
    ]


def test_depthwise_taps_within_their_summation_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """``convolution._depthwise_taps`` (a depthwise layer of few positions and many channels):
    |fast - exact| <= (2 K + 1) eps32 (|x| * |w|) + eps(T) |exact|, K the kernel's taps."""
    from ovonehot.ops import convolution

    found = _depthwise_taps_cases()
    ran: list[int] = []
    taps = convolution._depthwise_taps
    monkeypatch.setattr(convolution, "_depthwise_taps", lambda *a: ran.append(1) or taps(*a))
    assert found, "no generated case reaches the depthwise taps"
    for case in found:
        attrs = case.spec.parse(case.node())
        x, w = (i.value for i in case.inputs)
        (fast,) = convolution.evaluate_convolution_fast(attrs, [x, w])
        (exact,) = convolution.evaluate_convolution(attrs, [x, w])
        wide = [np.abs(v.astype(np.float64)) for v in (x, w)]
        (magnitude,) = convolution.evaluate_convolution(attrs, wide)
        k = w.shape[-1] * w.shape[-2]
        e, f = exact.astype(np.float64), fast.astype(np.float64)
        with np.errstate(invalid="ignore"):
            diff = np.abs(f - e)
        bound = (2 * k + 1) * float(np.finfo(np.float32).eps) * magnitude + eps_of(x.dtype) * np.abs(e)
        finite = np.isfinite(e) & np.isfinite(bound)
        assert (diff[finite] <= bound[finite] + 1e-30).all(), case.label
    assert len(ran) == len(found)


def eps_of(dtype: np.dtype) -> float:
    return float(ml_dtypes.finfo(dtype).eps)
