"""The generator's promises, without OpenVINO: every op-version that is not excluded with a
reason gets cases; a long enough run covers every element-type combination its spec accepts
(no type is skipped); the CI sample holds 0-d, empty, dynamic and boundary cases."""

from __future__ import annotations

from typing import Any

import pytest

from ovonehot.ops import OpSpec, specs
from tests.conformance.generate import cases, ordered_plans
from tests.conformance.sample import SEED, sample
from tests.conformance.table import entry

GENERATED = [pytest.param(s, id=s.name) for s in specs() if not entry(s).not_generated]


@pytest.mark.parametrize("spec", GENERATED)
def test_every_type_combination_the_spec_accepts_gets_a_case(spec: OpSpec[Any]) -> None:
    combos = {p.types for p in ordered_plans(spec, SEED)}
    assert combos, f"{spec.name}: its seeds give no signature its infer accepts"
    covered = {c.types for c in cases(spec, len(combos), SEED)}
    assert covered == combos, f"{spec.name}: no case for {sorted(map(str, combos - covered))}"


def test_the_ci_sample_covers_every_generated_op_and_the_special_signatures() -> None:
    ops = {c.spec.name for c in sample()}
    assert ops == {s.values[0].name for s in GENERATED}  # type: ignore[union-attr]
    assert any(i.value.ndim == 0 for c in sample() for i in c.inputs[:1])
    assert any(i.value.size == 0 for c in sample() for i in c.inputs[:1])
    assert any(i.dynamic for c in sample() for i in c.inputs)
    assert {c.values for c in sample()} == {"random", "boundary", "out-of-range"}
