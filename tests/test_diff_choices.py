"""diff's *choice difference* (ovonehot.differential.choices): a selection op picks otherwise in
the CPU plugin and in ovonehot, and both picks are right.

Two corpus models, converted from PyTorch by ``ov.convert_model`` (ir/corpus/regressions, made by
generate_regressions.py), reproduce what the sweep of torchvision's detectors found:

* ``torch_topk_tied_boxes``: TopK-11 with ``stable=false`` over tied scores (SSDlite's
  post-process): the CPU plugin orders the tied elements otherwise than OpenVINO's reference;
* ``torch_topk_rounding_flip``: the CPU plugin sums a MatMul in another order and a near tie
  goes the other way (Faster/Mask/Keypoint R-CNN's region proposals).

Both were "unexplained" before.  The rules that make a pick right are checked here on answers
built to break each one (a wrong pick must never be called a choice), and on the CPU plugin's
real picks.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="diff compares against OpenVINO")

from ovonehot import cli
from ovonehot.cli.html_report import _VERDICT_CLASS
from ovonehot.differential import choices
from ovonehot.differential.comparator import Tolerances
from ovonehot.differential.diff import Verdict, diff_model, oracle_runners
from ovonehot.differential.envelope import carry, truth
from ovonehot.differential.layers import layer_tolerances
from ovonehot.model import Model, load
from ovonehot.ops.topk import TopKAttrs, TopKMode, TopKSort
from tests.test_cli_json import conforms

CORPUS = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "regressions"
TIED = CORPUS / "torch_topk_tied_boxes"
FLIP = CORPUS / "torch_topk_rounding_flip"


def case(folder: Path) -> tuple[Model, dict[str, np.ndarray]]:
    (inputs,) = folder.glob("*.inputs.npz")
    return load(folder / "model.xml"), dict(np.load(inputs))


def cpu_intermediates(
    model: Model, folder: Path, inputs: dict[str, np.ndarray]
) -> dict[tuple[str, int], np.ndarray]:
    (runner,) = oracle_runners(("cpu",), model, str(folder / "model.xml"))
    return dict(runner.run(inputs, keep_intermediates=True).intermediates)


def topk_node(model: Model) -> int:
    (i,) = model.graph.kind_indices("TopK")
    return i


# -- the CPU plugin's real picks -----------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "rounding"), [(TIED, False), (FLIP, True)], ids=["ties", "rounding"])
def test_a_detectors_topk_picks_are_a_choice_difference(folder: Path, rounding: bool) -> None:
    model, inputs = case(folder)
    report = diff_model(model, inputs, oracle_runners(("cpu",), model, str(folder / "model.xml")))
    by_name = {v.name: v for v in report.verdicts}
    index = by_name["index"]
    assert index.comparison is not None and not index.comparison.equal  # (the CPU really picks otherwise)
    assert index.verdict is Verdict.CHOICE, index.reason
    (choice,) = index.choices
    assert choice.rounding is rounding and choice.layer == model.graph.nodes[topk_node(model)].id
    boxes = next(v for v in report.verdicts if v.name != "index" and v.verdict is not Verdict.PASS)
    assert boxes.verdict is Verdict.CHOICE and boxes.choices == index.choices
    assert ("rounding" in index.reason) is rounding and ("tied elements" in index.reason) is not rounding
    assert report.exit_code == 0 and Verdict.CHOICE.ok and not Verdict.CHOICE.failing


def test_json_and_html_carry_the_choices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    (inputs,) = TIED.glob("*.inputs.npz")
    code = cli.main(
        ["diff", str(TIED / "model.xml"), "--inputs", str(inputs), "--oracle", "cpu", "--json-out", str(out)]
    )
    capsys.readouterr()
    assert code == 0
    doc = json.loads(out.read_text())
    conforms(doc)  # (the diff schema, "choices" included)
    verdicts = [v for v in doc["verdicts"] if v["verdict"] == "choice difference"]
    assert len(verdicts) == 2
    assert all(
        v["choices"][0]["why"] == "tied elements" and "TopK" in v["choices"][0]["layer"] for v in verdicts
    )
    assert _VERDICT_CLASS["choice difference"] == _VERDICT_CLASS["rounding difference"] == "known"


# -- a wrong pick is never a choice ----------------------------------------------------------------------


def substituted(
    model: Model, inputs: dict[str, np.ndarray], theirs: dict[tuple[str, int], np.ndarray]
) -> choices.Substituted:
    found = choices.substitute(model, inputs, theirs, layer_tolerances(model, Tolerances()), None)
    assert found is not None
    return found


def test_the_cpus_own_picks_are_taken_and_corrupted_ones_are_not() -> None:
    model, inputs = case(TIED)
    theirs = cpu_intermediates(model, TIED, inputs)
    name = model.graph.nodes[topk_node(model)].name
    taken = substituted(model, inputs, theirs)
    assert len(taken.choices) == 1 and not taken.choices[0].rounding
    assert np.array_equal(taken.outputs["index"], theirs[(name, 1)])
    # The same picks held as i32 (as the CPU plugin holds i64 indices): taken in ovonehot's type.
    narrow = substituted(model, inputs, {**theirs, (name, 1): theirs[(name, 1)].astype(np.int32)})
    assert len(narrow.choices) == 1 and narrow.outputs["index"].dtype == taken.outputs["index"].dtype
    values, index = theirs[(name, 0)], theirs[(name, 1)]
    scores = inputs["scores"]
    left_out = np.setdiff1d(np.arange(scores.size), index)
    worse = left_out[scores[left_out] < values[-1]][0]
    better = left_out[scores[left_out] > values[-1]] if (scores[left_out] > values[-1]).any() else None
    assert better is None  # (the CPU's answer itself is a right one)
    wrong = {
        "an index picked twice": (values, np.r_[index[:-1], index[0]]),
        "a value that is not the data's": (np.r_[values[:-1], values[-1] + 0.5].astype(values.dtype), index),
        "a worse element kept": (
            np.r_[values[:-1], scores[worse]].astype(values.dtype),
            np.r_[index[:-1], worse],
        ),
        "out of the value order": (values[::-1].copy(), index[::-1].copy()),
        "out of range": (values, np.r_[index[:-1], scores.size]),
    }
    for why, (v, i) in wrong.items():
        planted = {**theirs, (name, 0): v, (name, 1): i.astype(index.dtype)}
        got = substituted(model, inputs, planted)
        assert got.choices == (), why
        assert not np.array_equal(got.outputs["index"], i), why


def test_inputs_moved_by_more_than_rounding_are_not_a_choice() -> None:
    model, inputs = case(FLIP)
    theirs = cpu_intermediates(model, FLIP, inputs)
    i = topk_node(model)
    src = model.graph.sources[i][0]
    key = (model.graph.nodes[src.node].name, src.output)
    assert len(substituted(model, inputs, theirs).choices) == 1
    # The scores left out lowered by 1 (far beyond rounding): the same picks, on inputs that are
    # no rounding of ovonehot's.
    picked = theirs[(model.graph.nodes[i].name, 1)]
    lowered = theirs[key] - np.float32(1.0)
    lowered[picked] = theirs[key][picked]
    assert substituted(model, inputs, {**theirs, key: lowered}).choices == ()
    # The same picks on the same inputs as ovonehot's: TopK-11 stable=true has one right answer.
    stable = dataclasses.replace(model.inference.plans[i].attrs, stable=True)
    assert not choices._tied(
        stable, [theirs[key], np.int64(32)], [theirs[(model.graph.nodes[i].name, k)] for k in (0, 1)]
    )


@pytest.mark.parametrize("sort", list(TopKSort))
@pytest.mark.parametrize("mode", list(TopKMode))
def test_the_tie_rules_from_the_data_alone(sort: TopKSort, mode: TopKMode) -> None:
    """Every right answer over ties passes, each broken rule fails: answers built by hand."""
    data = np.array([[3, 1, 3, 2, 1, 3], [0, 0, 5, 5, 0, 1]], np.float32)
    attrs = TopKAttrs(axis=1, mode=mode, sort=sort)
    k = np.int64(3)

    def answer(idx: np.ndarray) -> list[np.ndarray]:
        idx = np.asarray(idx, np.int64)
        if sort is TopKSort.INDEX:
            idx = np.sort(idx, axis=1)
        elif sort is TopKSort.VALUE:
            key = np.take_along_axis(data, idx, 1) * (-1 if mode is TopKMode.MAX else 1)
            idx = np.take_along_axis(idx, np.argsort(key, axis=1, kind="stable"), 1)
        return [np.take_along_axis(data, idx, 1), idx]

    # Every set of 3 whose worst kept element is no worse than the best left out, in every tie order.
    right = 0
    for first in ([0, 2, 5], [2, 5, 0], [5, 0, 2]) if mode is TopKMode.MAX else ([1, 4, 3], [4, 1, 3]):
        for second in ([2, 3, 5], [3, 2, 5]) if mode is TopKMode.MAX else ([0, 1, 4], [4, 0, 1], [1, 4, 0]):
            got = answer(np.array([first, second]))
            assert choices._tied(attrs, [data, k], got), (first, second)
            right += 1
    assert right >= 4
    base = answer(
        np.array([[0, 2, 5], [2, 3, 5]]) if mode is TopKMode.MAX else np.array([[1, 4, 3], [0, 1, 4]])
    )
    values, idx = base
    broken = {
        "picked twice": answer(np.where(np.arange(3) == 2, idx[:, :1], idx)),
        "value not the data's": [values + np.float32(0.25), idx],
        "worse kept": None,
        "negative index": [values, np.where(np.arange(3) == 0, -1, idx)],
    }
    worse = np.array([[3, 0, 2], [4, 2, 3]]) if mode is TopKMode.MAX else np.array([[5, 1, 4], [2, 0, 1]])
    broken["worse kept"] = answer(worse)
    if sort is not TopKSort.NONE:
        broken["order"] = [values[:, ::-1].copy(), idx[:, ::-1].copy()]
    for why, got in broken.items():
        assert got is not None
        if why == "order" and np.array_equal(got[1], idx):
            continue
        assert not choices._tied(attrs, [data, k], got), why
    # NaN in the data: the reference's order is the only one taken; stable=true: no freedom.
    nan = data.copy()
    nan[0, 1] = np.nan
    assert not choices._tied(attrs, [nan, k], base)
    assert not choices._tied(dataclasses.replace(attrs, stable=True), [data, k], base)


# -- the envelope given the picks -----------------------------------------------------------------------


def test_the_float64_run_holds_the_given_decisions() -> None:
    """Held integer outputs are the given ones and exact; a TopK holding its indices gives the
    float64 data at them; without held values the float64 run makes its own picks."""
    model, inputs = case(FLIP)
    theirs = cpu_intermediates(model, FLIP, inputs)
    sub = substituted(model, inputs, theirs)
    i = topk_node(model)
    assert (i, 1) in sub.decided and np.array_equal(sub.decided[(i, 1)], sub.outputs["index"])
    held = truth(model, inputs, held=sub.decided)
    free = truth(model, inputs)
    data = np.asarray(held.values[(model.graph.sources[i][0].node, model.graph.sources[i][0].output)])
    idx = np.asarray(held.values[(i, 1)])
    assert np.array_equal(idx, sub.decided[(i, 1)]) and not np.array_equal(idx, free.values[(i, 1)])
    assert held.values[(i, 0)].dtype == np.float64
    assert np.array_equal(held.values[(i, 0)], data[idx])
    # Given indices in the reverse order, the values follow them (not the float64 run's own sort).
    backwards = truth(model, inputs, held={**sub.decided, (i, 1): idx[::-1].copy()})
    assert np.array_equal(backwards.values[(i, 0)], data[idx[::-1]])
    sigma = carry(model, held, frozenset(sub.decided)).sigma
    assert sigma[(i, 1)] is None and sigma[(i, 0)] is not None


def test_whole_numbers_a_run_decided_are_held_too(tmp_path: Path) -> None:
    """A Floor's float output (an image size floored from a scale: Keypoint R-CNN's transform) is a
    decision like an integer: held in the float64 run given the decisions, and exact there; the
    free float64 run gives it a sigma (a perturbation may cross an integer)."""
    opset11 = pytest.importorskip("openvino.opset11")
    x = opset11.parameter([8], ov.Type.f32, name="x")
    top = opset11.topk(x, np.int64(3), -1, "max", "value", "i64")
    size = opset11.floor(opset11.multiply(opset11.add(x, np.float32(0.1)), np.float32(3.0)))
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([top.output(1), size.output(0)], [x], "m"), str(xml), compress_to_fp16=False)
    model = load(xml)
    inputs = {"x": np.float32([0.9, 2.9, 1.9, 0.2, 3.9, 1.1, 0.4, 2.2])}
    sub = substituted(model, inputs, {})  # (no plugin picks given: ovonehot's own decisions)
    assert sub.choices == ()
    (floor,) = model.graph.kind_indices("Floor")
    assert (floor, 0) in sub.decided and sub.decided[(floor, 0)].dtype == np.float32
    held = truth(model, inputs, held=sub.decided)
    assert held.values[(floor, 0)].dtype == np.float64
    assert carry(model, held, frozenset(sub.decided)).sigma[(floor, 0)] is None
    assert carry(model, truth(model, inputs)).sigma[(floor, 0)] is not None
