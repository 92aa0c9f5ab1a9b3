"""A run's mode reaches every sub-graph body: fast mode, an override and an observer inside a
Loop, an If and a TensorIterator body, as at the top level.

Each model is written by OpenVINO's own ``save_model`` (its ``<body>``/``<port_map>`` layout)
and holds one f32 MatMul inside its body, with a row length (k = 64) where summing in k order
(the reference's, ``exact=True``) and by BLAS (``exact=False``) give different bits.  Expected
values are computed here, independently: the body's steps iterated in NumPy, the products
summed one k at a time in f32 (the exact kernel's order) or by ``np.matmul`` (the fast one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovonehot
from ovonehot.evaluate import RunMode, evaluate
from ovonehot.infer import NodePlan

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset8")

F32 = np.float32
K = 64
RNG = np.random.default_rng(7)
W = (RNG.standard_normal((K, K)) / 8).astype(F32)
X0 = RNG.standard_normal((2, K)).astype(F32)
SLICES = RNG.standard_normal((3, 2, K)).astype(F32)


def sequential(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w summed in k order, each step rounded to f32 (the reference's MatMul)."""
    acc = np.zeros((x.shape[0], w.shape[1]), F32)
    for k in range(x.shape[1]):
        acc = (acc + x[:, k : k + 1] * w[k : k + 1, :]).astype(F32)
    return acc


def loop_model() -> tuple[Any, Callable[[Callable[..., np.ndarray]], np.ndarray]]:
    """h <- h @ W three times (Loop-5, trip count 3)."""
    h = ops.parameter([2, K], F32, name="h")
    hi = ops.parameter([2, K], F32, name="hi")
    body_out = ops.result(ops.matmul(hi, ops.constant(W), False, False))
    cond = ops.result(ops.constant(np.array(True)))
    loop = ops.loop(ops.constant(np.array(3, np.int64)), ops.constant(np.array(True)))
    loop.set_function(ov.Model([body_out, cond], [hi]))
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(hi, h.output(0), body_out.output(0))
    out = loop.get_iter_value(body_out.output(0), -1)

    def expected(mm: Callable[..., np.ndarray]) -> np.ndarray:
        x = X0
        for _ in range(3):
            x = mm(x, W)
        return x

    return ov.Model([out], [h]), expected


def tensor_iterator_model() -> tuple[Any, Callable[[Callable[..., np.ndarray]], np.ndarray]]:
    """h <- (h + s) @ W for each slice s of xs[3, 2, K] along axis 0 (TensorIterator)."""
    h = ops.parameter([2, K], F32, name="h")
    xs = ops.parameter([3, 2, K], F32, name="xs")
    hi = ops.parameter([2, K], F32, name="hi")
    si = ops.parameter([1, 2, K], F32, name="si")
    step = ops.add(hi, ops.squeeze(si, ops.constant(np.array([0], np.int64))))
    body_out = ops.result(ops.matmul(step, ops.constant(W), False, False))
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([body_out], [hi, si]))
    ti.set_merged_input(hi, h.output(0), body_out.output(0))
    ti.set_sliced_input(si, xs.output(0), 0, 1, 1, -1, 0)
    out = ti.get_iter_value(body_out.output(0), -1)

    def expected(mm: Callable[..., np.ndarray]) -> np.ndarray:
        x = X0
        for s in SLICES:
            x = mm((x + s).astype(F32), W)
        return x

    return ov.Model([out], [h, xs]), expected


def if_model() -> tuple[Any, Callable[[Callable[..., np.ndarray]], np.ndarray]]:
    """then: x @ W; else: x (If-8 on a Parameter condition, fed True)."""
    cond = ops.parameter([], bool, name="cond")
    x = ops.parameter([2, K], F32, name="h")
    tx = ops.parameter([2, K], F32)
    ex = ops.parameter([2, K], F32)
    node = ops.if_op(cond)
    node.set_then_body(ov.Model([ops.result(ops.matmul(tx, ops.constant(W), False, False))], [tx]))
    node.set_else_body(ov.Model([ops.result(ops.relu(ex))], [ex]))
    node.set_input(x.output(0), tx, ex)
    out = node.set_output(node.get_then_body().get_results()[0], node.get_else_body().get_results()[0])
    return ov.Model([out], [cond, x]), lambda mm: mm(X0, W)


MODELS = {"Loop": loop_model, "TensorIterator": tensor_iterator_model, "If": if_model}


def _load(
    tmp_path: Path, kind: str
) -> tuple[ovonehot.Model, dict[str, np.ndarray], Callable[..., np.ndarray]]:
    model, expected = MODELS[kind]()
    xml = tmp_path / "model.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    loaded = ovonehot.load(xml)
    feeds = {"h": X0}
    if kind == "TensorIterator":
        feeds["xs"] = SLICES
    if kind == "If":
        feeds["cond"] = np.array(True)
    return loaded, feeds, expected


def _body_op(model: ovonehot.Model) -> int:
    """The index of the model's one sub-graph op."""
    return next(i for i, n in enumerate(model.graph.nodes) if n.type in MODELS)


@pytest.mark.parametrize("kind", list(MODELS))
def test_fast_mode_reaches_the_body(tmp_path: Path, kind: str) -> None:
    model, feeds, expected = _load(tmp_path, kind)
    exact_want, fast_want = expected(sequential), expected(lambda a, b: np.matmul(a, b))
    assert exact_want.tobytes() != fast_want.tobytes()  # (else this test could not tell them apart)
    for _ in range(3):  # the first run, and folded plans from the second on
        (exact,) = model.run(feeds).values()
        (fast,) = model.run(feeds, exact=False).values()
        np.testing.assert_array_equal(exact, exact_want)
        np.testing.assert_array_equal(fast, fast_want)


@pytest.mark.parametrize("kind", list(MODELS))
def test_an_observer_sees_the_body_nodes_keyed_by_path(tmp_path: Path, kind: str) -> None:
    model, feeds, expected = _load(tmp_path, kind)
    outer = _body_op(model)
    seen: dict[object, list[np.ndarray]] = {}

    def observe(key: object, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        if plan.node.type == "MatMul":
            seen[key] = [o.copy() for o in outs]

    model.run(feeds, observer=observe)
    iterations = 1 if kind == "If" else 3
    assert len(seen) == iterations
    x = X0
    for k, key in enumerate(sorted(seen, key=str)):
        assert isinstance(key, tuple) and key[:3] == (outer, 0, k) and len(key) == 4, key
        x = sequential(x if kind != "TensorIterator" else (x + SLICES[k]).astype(F32), W)
        np.testing.assert_array_equal(seen[key][0], x)
    np.testing.assert_array_equal(x, expected(sequential))


@pytest.mark.parametrize("kind", list(MODELS))
def test_an_override_replaces_a_body_node(tmp_path: Path, kind: str) -> None:
    """An override (``diff``'s model of the CPU plugin runs this way) is asked for the body's
    nodes too: replacing the body's MatMul by x @ W summed in float64 changes the result."""
    model, feeds, expected = _load(tmp_path, kind)
    asked: list[object] = []

    def in_f64(key: object, plan: NodePlan, args: list[np.ndarray]) -> Sequence[np.ndarray] | None:
        if plan.node.type != "MatMul":
            return None
        asked.append(key)
        return [(args[0].astype(np.float64) @ args[1].astype(np.float64)).astype(F32)]

    params = {d.name: model.input_index(d.name) for d in model.inputs}
    indices = [i for i, n in enumerate(model.graph.nodes) if n.type == "Parameter"]
    fed = {indices[params[name]]: value for name, value in feeds.items()}
    (value,) = evaluate(model.inference, fed, RunMode(override=in_f64)).values()
    want = expected(lambda a, b: (a.astype(np.float64) @ b.astype(np.float64)).astype(F32))
    np.testing.assert_array_equal(value, want)
    assert asked and all(isinstance(k, tuple) for k in asked)
