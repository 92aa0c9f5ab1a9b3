"""Families of signatures (``evaluate.Family``): a generation loop's steps, each a new signature
differing from the last only in the dims that grow, run one plan folded for the dims they share.

Expected values: the same loop run without families (every step through the unfolded plan,
which tests/test_plan.py and the corpus check against the reference), bit for bit, exact and
fast; the corpus's stored outputs are OpenVINO's (test_regression_corpus)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovonehot
from ovonehot import evaluate
from ovonehot.evaluate import program

CORPUS = Path(__file__).resolve().parents[1] / "ir" / "corpus"
LOOPS = ["llm/llama", "llm/gpt2", "nncf/llama_int4_sym"]


def _first(folder: str) -> dict[str, np.ndarray]:
    with np.load(CORPUS / folder / "generate.step1.inputs.npz") as archive:
        return {k: archive[k] for k in archive.files}


def _next(feeds: dict[str, np.ndarray], logits: np.ndarray) -> dict[str, np.ndarray]:
    """The next greedy step: one token a row, the mask one column longer, positions + 1."""
    rows = feeds["attention_mask"].shape[0]
    return {
        "input_ids": logits[:, -1].argmax(-1).astype(np.int64)[:, None],
        "attention_mask": np.concatenate([feeds["attention_mask"], np.ones((rows, 1), np.int64)], axis=1),
        "position_ids": feeds["position_ids"][:, -1:] + 1,
        "beam_idx": feeds["beam_idx"],
    }


def _loop(model: ovonehot.Model, folder: str, exact: bool, steps: int) -> Iterator[tuple[Any, ...]]:
    """(feeds, outputs) of a greedy loop: the prefill, then ``steps`` steps."""
    request, feeds = model.create_request(), _first(folder)
    for _ in range(steps + 1):
        out = request.run(feeds, exact=exact)
        yield feeds, {k: v.copy() for k, v in out.items()}
        feeds = _next(feeds, next(iter(out.values())))


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
@pytest.mark.parametrize("folder", LOOPS)
def test_a_generation_loop_runs_its_family_plan_with_the_same_bits(
    folder: str, exact: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ovonehot.load(CORPUS / folder / "model.xml")
    with_families = list(_loop(model, folder, exact, 6))
    prog = program(model.inference)
    (family,) = prog.families.values()
    assert family.folded is not None and family.folded.known, "the family folded nothing"
    assert family.plans, "no step ran the family's plan"
    monkeypatch.setattr(evaluate, "FAMILY_AFTER", 10**9)
    without = list(_loop(ovonehot.load(CORPUS / folder / "model.xml"), folder, exact, 6))
    for step, ((_, a), (_, b)) in enumerate(zip(with_families, without, strict=True)):
        for name in a:
            assert a[name].tobytes() == b[name].tobytes(), f"step {step} {name}"


def test_the_family_plan_serves_a_loop_from_its_third_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The prefill starts in the initial state (no KV cache in its signature) and the first step
    has none before it to share a pattern with; from the second step the steps share one
    (the KV cache and the mask open), planned once the program met ``FAMILY_AFTER`` of them;
    then a step of two tokens leaves the pattern and runs through the unfolded plan, as a loop
    without families does."""
    folder = "llm/llama"
    used: list[bool] = []
    family_plan = evaluate._family_plan

    def spy(*args: Any) -> Any:
        plan = family_plan(*args)
        used.append(plan is not None)
        return plan

    def run(families: bool) -> list[dict[str, np.ndarray]]:
        monkeypatch.setattr(evaluate, "FAMILY_AFTER", 2 if families else 10**9)
        model = ovonehot.load(CORPUS / folder / "model.xml")
        request, feeds, outs = model.create_request(), _first(folder), []
        for _ in range(6):
            outs.append({k: v.copy() for k, v in request.run(feeds).items()})
            feeds = _next(feeds, next(iter(outs[-1].values())))
        two = {**feeds, "input_ids": np.concatenate([feeds["input_ids"]] * 2, axis=1)}
        two["attention_mask"] = np.concatenate(
            [feeds["attention_mask"], feeds["attention_mask"][:, -1:]], axis=1
        )
        two["position_ids"] = np.concatenate([feeds["position_ids"], feeds["position_ids"] + 1], axis=1)
        outs.append({k: v.copy() for k, v in request.run(two).items()})
        return outs

    monkeypatch.setattr(evaluate, "_family_plan", spy)
    with_families = run(True)
    assert used == [False, True, True, True, False]  # (steps 2-5, then the two tokens)
    without = run(False)
    for step, (a, b) in enumerate(zip(with_families, without, strict=True)):
        assert all(a[n].tobytes() == b[n].tobytes() for n in a), f"step {step}"


def test_an_observer_sees_every_node_of_a_family_plan() -> None:
    folder = "llm/gpt2"
    model = ovonehot.load(CORPUS / folder / "model.xml")
    for _ in _loop(model, folder, True, 4):
        pass
    prog = program(model.inference)
    assert any(f.plans for f in prog.families.values())
    seen: set[int] = set()
    request = model.create_request()
    feeds = _first(folder)
    outs = []
    for _ in range(5):
        outs.append(request.run(feeds, observer=lambda key, *_: seen.add(key)))
        feeds = _next(feeds, next(iter(outs[-1].values())))
    running = {i for i, n in enumerate(model.graph.nodes) if n.type not in ("Parameter", "Result")}
    assert running <= seen


@pytest.mark.parametrize(
    ("now", "last", "expected"),
    [
        ((1, (2, 5), "i8"), (1, (2, 4), "i8"), (1, (2, None), "i8")),
        ((1, (2, 5), "i8"), (1, (2, 5, 1), "i8"), None),  # ranks differ
        ((1, (2, 5), "i8"), (1, (2, 4), "f4"), None),  # dtypes differ
        ((1, (3, 5), "i8"), (1, (2, 4), "i8"), None),  # nothing shared
    ],
)
def test_the_pattern_of_two_signatures(now: Any, last: Any, expected: Any) -> None:
    def sig(entry: Any) -> Any:
        i, shape, dtype = entry
        return ((i, shape, np.dtype(dtype)),)

    assert evaluate._pattern(sig(now), sig(last)) == (None if expected is None else sig(expected))
