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

import pytest

from ovonehot.ops import OpSpec
from tests.conformance.generate import Case
from tests.conformance.harness import Harness, Verdict
from tests.conformance.sample import known_cases, known_failure, known_params, sample

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
