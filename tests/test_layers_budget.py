"""``diff --all-layers`` keeps every node's output twice (ovonehot's run and the oracle's child, which
sends them over): on a 5,171-layer MViT-v2 that was 17 GB, and the kernel's OOM killer ended the
child.  Past a third of the memory budget neither keeps them: the layer table says why in one row,
and the verdicts on the outputs stand."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot import cli, load
from ovonehot.differential.diff import DiffOptions, diff_model, oracle_runners
from ovonehot.differential.layers import LayerVerdict
from ovonehot.differential.runners import LayersOverBudget, OvonehotRunner

CASE = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "vision" / "resnet_timm"
# (its 140 node outputs take 1.4 MB on this input, the largest 147 KB)
BUDGET = 600_000


def _inputs() -> dict[str, np.ndarray]:
    return dict(np.load(CASE / "typical.inputs.npz"))


def test_ovonehot_s_every_node_run_stops_keeping_past_the_budget() -> None:
    model = load(CASE / "model.xml")
    kept = OvonehotRunner(model).intermediates(_inputs())
    total = sum(v.nbytes for v in kept.values())
    within = OvonehotRunner(model).intermediates(_inputs(), budget=total)
    assert within.keys() == kept.keys() and all(np.array_equal(within[k], kept[k]) for k in kept)
    with pytest.raises(LayersOverBudget) as caught:
        OvonehotRunner(model).intermediates(_inputs(), budget=total - 1)
    assert caught.value.total == total and "GiB" in str(caught.value)


def test_over_the_budget_the_table_says_why_and_the_plugin_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    monkeypatch.setenv("OVONEHOT_MEMORY_BUDGET", str(BUDGET))
    model = load(CASE / "model.xml")
    (runner,) = oracle_runners(("cpu",), model, str(CASE / "model.xml"))
    asked: list[bool] = []
    run = runner.run

    def recording(inputs: Mapping[str, np.ndarray], keep_intermediates: bool = False) -> Any:
        asked.append(keep_intermediates)
        return run(inputs, keep_intermediates=keep_intermediates)

    monkeypatch.setattr(runner, "run", recording)
    report = diff_model(model, _inputs(), [runner], DiffOptions(all_layers=True))
    assert [v.verdict.value for v in report.verdicts] == ["PASS"]
    (row,) = report.layers or []
    assert row.verdict is LayerVerdict.NOT_COMPARED and row.layer == "(the whole model)"
    assert (
        row.note.startswith("not run: keeping every layer's output takes")
        and "OVONEHOT_MEMORY_BUDGET" in row.note
    )
    assert asked == [False]  # (the plugin ran once, for the outputs, keeping nothing)


def test_the_cli_reports_it_and_exits_as_the_verdicts_say(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    monkeypatch.setenv("OVONEHOT_MEMORY_BUDGET", str(BUDGET))
    out = tmp_path / "r.json"
    argv = ["diff", str(CASE / "model.xml"), "--inputs", str(CASE / "typical.inputs.npz"), "--oracle", "cpu"]
    code = cli.main([*argv, "--all-layers", "--json-out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "first not compared: (the whole model): not run: keeping every layer's output" in text
    assert json.loads(out.read_text())["layers"][0]["verdict"] == "not compared"
    monkeypatch.delenv("OVONEHOT_MEMORY_BUDGET")
    assert cli.main([*argv, "--all-layers", "--json-out", str(out)]) == 0
    rows = json.loads(out.read_text())["layers"]
    assert len(rows) > 100 and all(r["verdict"] == "PASS" for r in rows)
