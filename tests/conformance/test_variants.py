"""Every kernel variant a spec has is exercised by its generated cases: adding a ``bind``,
``bind_fast``, ``evaluate_fast``, ``evaluate_into`` or ``evaluate_stateful`` that no case reaches
(``bind`` always None on them, say) turns this red.  Read from the harness's own record of what
ran (``Outcome.variants``), on the CI sample's cases, plus more of the spec's cases if needed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ovonehot.ops import OpSpec, specs
from tests.conformance.generate import cases
from tests.conformance.harness import Harness
from tests.conformance.sample import SEED, sample

VARIANTS = ("evaluate_fast", "bind", "bind_fast", "evaluate_into", "evaluate_stateful")


def required(spec: OpSpec[Any]) -> frozenset[str]:
    return frozenset(v for v in VARIANTS if getattr(spec, v) is not None)


WITH_VARIANTS = [pytest.param(s, id=s.name) for s in specs() if required(s)]


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    h.close()


@pytest.mark.parametrize("spec", WITH_VARIANTS)
def test_every_kernel_variant_has_a_case(harness: Harness, spec: OpSpec[Any]) -> None:
    ran: set[str] = set()
    for case in [c for c in sample() if c.spec is spec]:
        ran |= harness.kernels(case).variants
    if not required(spec) <= ran:  # (the sample's few cases missed one: the spec's others)
        for case in cases(spec, 32, SEED):
            ran |= harness.kernels(case).variants
    missing = required(spec) - ran
    assert not missing, f"{spec.name}: no generated case exercises {sorted(missing)}"
