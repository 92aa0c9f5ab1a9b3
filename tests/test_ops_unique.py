"""Unique-10 against OpenVINO: inferred types/shapes from its inference, values from its CPU plugin.

OpenVINO's core cannot evaluate Unique (``Model.evaluate`` fails on it in 2026.4); the
CPU plugin (deterministic config) is the oracle, exact.  NaN is left out: the CPU
plugin returns inconsistent outputs for it.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")

DATA = {
    "ints-2d": np.array([[3, 1, 3], [0, 1, 3]], np.int64),
    "ints-i32": np.array([5, -2, 5, 5, 0, -2, 9], np.int32),
    "floats-signed-zero": np.array([2.0, -0.0, 1.0, 0.0, 2.0, -3.5], np.float32),
    "rows": np.array([[1, 2], [0, 5], [1, 2], [0, 4], [0, 5]], np.int32),
    "3d": np.random.default_rng(3).integers(0, 3, (2, 3, 4)).astype(np.int64),
}
AXES = [None, 0, -1]
CASES = [
    pytest.param(name, axis, sort, id=f"{name}-axis{axis}-{'sorted' if sort else 'unsorted'}")
    for name in DATA
    for axis in AXES
    for sort in (True, False)
]


@pytest.mark.parametrize(("name", "axis", "sort"), CASES)
@pytest.mark.parametrize("index_type", ["i32", "i64"])
def test_unique_matches_cpu(tmp_path, name, axis, sort, index_type):  # type: ignore[no-untyped-def]
    x = DATA[name]
    inputs = [P(x)] + ([] if axis is None else [C(np.int64(axis))])
    node, params = build(
        lambda *a: ops.unique(a[0], a[1] if len(a) > 1 else None, sort, index_type, "i64"), inputs
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    theirs = cpu_outputs(node, params, [x])
    ours = list(model.run([x]).values())
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert_same(a, b, where=f"output {k}")


@pytest.mark.parametrize(
    "shape", ["?,3", "2,?", "...", "4"], ids=["dyn-rows", "dyn-cols", "dyn-rank", "static"]
)
@pytest.mark.parametrize("axis", [None, 1])
def test_unique_infer_agrees(tmp_path, shape, axis):  # type: ignore[no-untyped-def]
    if shape in ("...", "4") and axis == 1:
        axis = 0
    inputs = [P(np.zeros((), np.float32), shape=shape)] + ([] if axis is None else [C(np.int64(axis))])
    ours, theirs = infer_shapes(tmp_path, lambda *a: ops.unique(a[0], a[1] if len(a) > 1 else None), inputs)
    assert ours == theirs
