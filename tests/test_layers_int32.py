"""``diff --all-layers`` against the CPU plugin names its int32 holding of i64 values.

The CPU plugin holds i64/u32/u64 values as int32: constants saturated (``int32-saturation``),
values computed or fed at run time wrapped (``int32-wrap``; docs/openvino-behaviour.md).  A
PyTorch slice with an open end (``x[:, 1:]``) has the end INT64_MAX, so wherever the ends are
computed (a dynamic shape), the ends' Concat is 2147483647 in the plugin.  The per-layer rows
called that Concat the first divergent layer of a correct model (torchvision's Swin3D: 11 such
rows).  Corpus: ``ir/corpus/regressions/torch_slice_open_ends``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ovonehot import cli
from ovonehot.differential import layers
from ovonehot.differential.compare import Tolerance
from ovonehot.differential.layers import LayerVerdict
from ovonehot.model import load

CASE = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "regressions" / "torch_slice_open_ends"
I64_MAX, I32_MAX = np.iinfo(np.int64).max, np.iinfo(np.int32).max


def test_the_slice_ends_concat_is_a_named_deviation_not_the_first_divergent_layer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    out = tmp_path / "r.json"
    argv = ["diff", str(CASE / "model.xml"), "--inputs", str(CASE / "normal.inputs.npz"), "--oracle", "cpu"]
    code = cli.main([*argv, "--all-layers", "--json-out", str(out)])
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert code == 0, text
    rows = data["layers"]
    known = [r for r in rows if r["verdict"] == "plugin deviation"]
    assert [r["layer"]["type"] for r in known] == ["Concat"], rows
    assert "int32-saturation" in known[0]["note"] and "2147483647" in known[0]["note"]
    assert not [r for r in rows if r["verdict"] == "differs"]
    assert data["first_divergent_layers"].get("cpu") is None
    assert "1 by a known cpu deviation" in text and "first divergent layer" not in text


@pytest.mark.parametrize(
    ("ours", "theirs", "named"),
    [
        ([5, I64_MAX, -(2**40)], [5, I32_MAX, -(2**31)], ["int32-saturation"]),
        ([5, 2**32 + 7, -(2**32) - 1], [5, 7, -1], ["int32-wrap"]),
        ([I64_MAX, 2**32 + 7], [I32_MAX, 7], ["int32-saturation", "int32-wrap"]),
    ],
)
def test_int32_holding_is_named_by_what_explains_it(
    ours: list[int], theirs: list[int], named: list[str]
) -> None:
    said = layers._held_as_int32(np.array(ours, np.int64), np.array(theirs, np.int64))
    assert said is not None and said.startswith("plugin deviation")
    assert [c for c in ("int32-saturation", "int32-wrap") if c in said] == named


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (np.array([5, I64_MAX], np.int64), np.array([6, I32_MAX], np.int64)),  # an in-range value differs
        (np.array([I64_MAX], np.int64), np.array([I32_MAX - 1], np.int64)),  # neither rule gives it
        (np.array([1, 2], np.int32), np.array([1, 3], np.int32)),  # i32 itself: nothing is held
        (np.array([1.0, 2.0]), np.array([1.0, 3.0])),
        (np.array([I64_MAX, 1], np.int64), np.array([I32_MAX], np.int64)),  # shapes differ
    ],
)
def test_other_differences_are_not_taken(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert layers._held_as_int32(ours, theirs) is None


def test_unsigned_values_saturate_from_zero() -> None:
    said = layers._held_as_int32(np.array([3, 2**40], np.uint64), np.array([3, I32_MAX], np.int64))
    assert said is not None and "int32-saturation" in said
    assert layers._held_as_int32(np.array([2**31], np.uint32), np.array([I32_MAX], np.int64)) is not None


def test_only_the_cpu_plugin_s_rows_are_explained_so() -> None:
    """The reference keeps i64: the same difference there differs."""
    model = load(CASE / "model.xml")
    concat = next(i for i, p in enumerate(model.inference.plans) if p.node.type == "Concat")
    name = model.graph.nodes[concat].name
    mine = {(concat, 0): np.array([1, 2, I64_MAX], np.int64)}
    theirs = {(name, 0): np.array([1, 2, I32_MAX], np.int64)}
    tolerances = {(concat, 0): Tolerance.exact()}
    verdicts = {
        int32: layers._node_rows(model, "x", mine, theirs, {}, tolerances, None, concat, int32)[0].verdict
        for int32 in (True, False)
    }
    assert verdicts == {True: LayerVerdict.DEVIATION, False: LayerVerdict.DIFFERS}
