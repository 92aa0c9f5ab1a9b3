"""Output ports nothing reads (``RunMode.unused``): MaxPool-8/14's indices, which the PyTorch
frontend writes beside every max_pool2d and nothing reads.  A plan whose runs see no node's
outputs computes the values alone (MaxPool-1's kernel); the values keep their bits, and
every run that can see the indices (an observer, kept outputs, a consumer, a Result) gets
the real ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from ovonehot import evaluate as ev
from ovonehot.infer import infer
from ovonehot.model import Model
from ovonehot.ops import pooling
from ovonehot.ops.common.spec import RunMode
from tests.exact import assert_same
from tests.graph_builder import GraphBuilder

ATTRS = {
    "strides": "2,2",
    "dilations": "1,1",
    "pads_begin": "1,1",
    "pads_end": "1,1",
    "kernel": "3,3",
    "rounding_type": "floor",
    "auto_pad": "explicit",
    "index_element_type": "i64",
    "axis": "0",
}


def _model(version: str, read_indices: bool) -> tuple[Model, int]:
    """x -> MaxPool -> Relu -> Result, the indices read by a Convert -> Result or by nothing."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[2,3,9,8]")
    pool = b.op("MaxPool", version, [x], ATTRS, 2, name="pool")
    b.op("Result", "opset1", [b.op("Relu", "opset1", [(pool, 0)])], outputs=0)
    if read_indices:
        converted = b.op("Convert", "opset1", [(pool, 1)], {"destination_type": "i32"})
        b.op("Result", "opset1", [converted], outputs=0)
    graph = b.graph()
    return Model(graph, infer(graph)), pool


def _x() -> np.ndarray:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    x[0, 1, :3, :3] = np.nan
    x[1, 2, 4:, 2:5] = -0.0
    return x


@pytest.mark.parametrize("version", ["opset8", "opset14"])
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_unread_indices_are_not_computed_and_the_values_keep_their_bits(
    version: str, exact: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound: list[int] = []  # (the versions MaxPool's kernels are made for)
    bind = pooling.bind_max_pool
    monkeypatch.setattr(pooling, "bind_max_pool", lambda a, *rest: bound.append(a.version) or bind(a, *rest))
    model, _ = _model(version, read_indices=False)
    feeds = {0: _x()}
    mode = RunMode(exact=exact)
    runs = [ev.evaluate(model.inference, feeds, mode) for _ in range(3)]  # (unfolded, then folded)
    assert bound and set(bound) == {1}, bound  # (the values alone, every plan)
    reading, _ = _model(version, read_indices=True)
    full = ev.evaluate(reading.inference, feeds, mode)
    for run in runs:
        (relu,) = run.values()
        assert_same(relu, full[min(full)], "MaxPool values through Relu")


@pytest.mark.parametrize("version", ["opset8", "opset14"])
def test_indices_are_real_wherever_a_run_can_see_them(version: str) -> None:
    """An observer, a kept output and a consumer each get the indices ``evaluate`` computes."""
    model, pool = _model(version, read_indices=False)
    x = _x()
    spec, attrs = model.inference.plans[pool].spec, model.inference.plans[pool].attrs
    _, indices = spec.evaluate(attrs, [x])  # type: ignore[misc]
    assert indices.any()
    feeds = {0: x}
    for _ in range(3):  # (the folded plan that skips them exists by now)
        ev.evaluate(model.inference, feeds, RunMode(exact=False))
    seen: dict[Any, Sequence[np.ndarray]] = {}

    def observe(key: Any, plan: Any, outs: Sequence[np.ndarray], seconds: float) -> None:
        seen[key] = outs

    ev.evaluate(model.inference, feeds, RunMode(exact=False, observer=observe))
    assert_same(seen[pool][1], indices, "observed indices")
    kept = ev.evaluate(model.inference, feeds, RunMode(exact=False), keep=[(pool, 1)])
    assert_same(kept[(pool, 1)], indices, "kept indices")
    reading, _ = _model(version, read_indices=True)
    for _ in range(3):
        out = ev.evaluate(reading.inference, feeds, RunMode(exact=False))
    assert_same(out[max(out)], indices.astype(np.int32), "indices read by a Convert")
