"""diff as a library, split as Polygraphy splits it: runners, a comparator, verdicts.

The oracles named on the command line become runner objects once (``parse_oracles`` then
``oracle_runners``), each carrying the facts the verdicts read; saved outputs are keyed by any
name of an output; the comparator reports per output without judging; the verdict on saved
outputs that differ says whose outputs they are.  Saved outputs here are ovonehot's own with
one element changed: what is checked is the plumbing (keys, positions, verdict words), not
values, which the OpenVINO tests (test_diff*.py) check.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential.comparator import Tolerances, compare_run, compared_tolerances
from ovonehot.differential.diff import DiffOptions, diff_model, oracle_runners
from ovonehot.differential.gen_inputs import generate_inputs
from ovonehot.differential.report import render
from ovonehot.differential.runners import ExpectedRunner, OracleRun
from ovonehot.differential.verdicts import Verdict
from ovonehot.errors import ParameterError, UsageError
from ovonehot.model import Model
from ovonehot.oracle.common import OracleKind, PluginSettings, parse_oracles

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_named_output.xml"  # one f32 output 'a,b', tensor names and a Result
CHANGED = (2, 3)  # the element changed in the saved outputs
Case = tuple[Model, dict[str, np.ndarray], dict[str, np.ndarray]]  # the model, its inputs, ovonehot's outputs


@pytest.fixture(scope="module")
def case() -> Case:
    model = load(MODEL)
    inputs = generate_inputs(model, seed=0)
    return model, inputs, model.run(inputs)


def _changed(ours: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    theirs = {k: v.copy() for k, v in ours.items()}
    theirs["a,b"][CHANGED] += 0.5
    return theirs


def test_oracle_names_become_runners_with_the_facts_verdicts_read() -> None:
    model = load(MODEL)
    kinds = parse_oracles(["both", "expected"])
    runners = oracle_runners(
        kinds, model, str(MODEL), expected={}, plugin=PluginSettings(preset="openvino-defaults")
    )
    facts = [
        (r.name, r.kind, r.defines_semantics, r.keeps_intermediates, r.deterministic, r.simulated)
        for r in runners
    ]
    assert facts == [
        ("reference", OracleKind.REFERENCE, True, True, True, OracleKind.REFERENCE),
        ("cpu", OracleKind.CPU, False, True, False, OracleKind.CPU),
        ("expected", OracleKind.EXPECTED, False, False, True, None),
    ]


def test_unknown_oracle_and_expected_without_outputs_are_usage_errors() -> None:
    model = load(MODEL)
    with pytest.raises(UsageError, match="unknown oracle 'gpu'; expected one of: reference, cpu"):
        oracle_runners(["gpu"], model, str(MODEL))
    with pytest.raises(ParameterError, match="expected is needed by the expected oracle"):
        oracle_runners([OracleKind.EXPECTED], model, str(MODEL))


@pytest.mark.parametrize(
    "key", ["a,b", "one_hot:0", "result"], ids=["output name", "tensor name", "Result layer"]
)
def test_saved_outputs_are_keyed_by_any_name_of_the_output(case: Case, key: str) -> None:
    model, inputs, ours = case
    out = ExpectedRunner(model, {key: ours["a,b"]}, "saved.npz").run(inputs)
    assert list(out) == ["a,b"] and np.array_equal(out["a,b"], ours["a,b"])


def test_a_saved_key_that_names_no_output_is_a_parameter_error(
    case: Case,
) -> None:
    model, inputs, ours = case
    runner = ExpectedRunner(model, {"a,b": ours["a,b"], "logits": ours["a,b"]}, "saved.npz")
    with pytest.raises(ParameterError, match="'logits' names no output of the model; its outputs are: 'a,b'"):
        runner.run(inputs)


def test_the_comparator_reports_each_output_without_a_verdict(
    case: Case,
) -> None:
    model, _, ours = case
    tolerances = compared_tolerances(model, Tolerances())
    assert tolerances["a,b"].is_exact  # OneHot's values are copies of on/off: bit for bit
    (differs,) = compare_run(["a,b"], ours, OracleRun("expected", _changed(ours)), tolerances)
    assert not differs.equal and differs.comparison is not None
    assert (differs.comparison.kind, differs.comparison.count, differs.comparison.positions) == (
        "values",
        1,
        (CHANGED,),
    )
    (missing,) = compare_run(["a,b"], ours, OracleRun("expected", {}), tolerances)
    assert missing.comparison is None and missing.refusal is not None
    assert (missing.refusal.cause, missing.refusal.message) == (
        "unavailable",
        "expected gave no output 'a,b'",
    )
    (refused,) = compare_run(["a,b"], None, OracleRun("expected", dict(ours)), tolerances)
    assert refused.ours_missing and not refused.equal


@pytest.mark.parametrize(
    ("change", "verdict", "exit_code"),
    [(False, Verdict.PASS, 0), (True, Verdict.UNEXPLAINED, 1)],
    ids=["equal", "one element changed"],
)
def test_saved_outputs_are_judged_as_a_third_party(
    case: Case, change: bool, verdict: Verdict, exit_code: int
) -> None:
    model, inputs, ours = case
    saved = _changed(ours) if change else ours
    runners = [ExpectedRunner(model, saved, "saved.npz")]
    report = diff_model(model, inputs, runners, DiffOptions(source=str(MODEL)))
    (v,) = report.verdicts
    assert (v.oracle, v.verdict, report.exit_code) == ("expected", verdict, exit_code), render(report)
    if change:
        assert v.reason == "ovonehot differs from the expected outputs (saved.npz)"
        assert v.comparison is not None and v.comparison.positions == (CHANGED,)
        assert v.origin and "index value" in v.origin[0]  # the OneHot index behind the position
    assert report.oracle_notes == {"expected": "saved outputs from saved.npz"}
