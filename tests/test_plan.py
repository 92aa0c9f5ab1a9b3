"""The evaluator's compiled plan, ``Model.run(share_outputs=True)`` and the OneHot kernel's
``out=`` and threaded paths.

Expected values come from an independent slow oracle (one Python loop per index, the spec's
definition of OneHot) or from the same model run without the feature under test; the export
models' values themselves are checked against OpenVINO in test_exports.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.evaluate import RunMode, plan_of, program
from ovonehot.infer import Inference, NodePlan, infer
from ovonehot.model import Model
from ovonehot.ops import one_hot as one_hot_module
from ovonehot.ops.common.spec import Kernel
from ovonehot.ops.one_hot import NegativeIndicesMode, one_hot
from tests.graph_builder import GraphBuilder

EXPORTS = Path(__file__).resolve().parents[1] / "ir" / "exports"


def slow_one_hot(
    indices: np.ndarray, depth: int, on: object, off: object, axis: int, dtype: type, normalize: bool = False
) -> np.ndarray:
    """The spec's definition, one index at a time."""
    shape = (*indices.shape[:axis], depth, *indices.shape[axis:])
    out = np.full(shape, off, dtype=dtype)
    for pos in np.ndindex(*indices.shape):
        v = int(indices[pos])
        if normalize and v < 0:
            v += depth
        if 0 <= v < depth:
            out[(*pos[:axis], v, *pos[axis:])] = on
    return out


def onehot_model(shape: str = "[?]", element_type: str = "i64", extra_relu: bool = False) -> Model:
    b = GraphBuilder()
    x = b.parameter("indices", element_type, shape)
    depth = b.const("depth", np.int64(5))
    on = b.const("on", np.float32(2.5))
    off = b.const("off", np.float32(-1.0))
    oh = b.op("OneHot", "opset1", [x, depth, on, off], {"axis": "-1"}, name="oh")
    b.op("Result", "opset1", [oh], outputs=0, name="out")
    if extra_relu:
        relu = b.op("Relu", "opset1", [oh], name="relu")
        b.op("Result", "opset1", [relu], outputs=0, name="relu_out")
    graph = b.graph()
    return Model(graph, infer(graph))


def test_share_outputs_reuses_and_overwrites_the_buffers() -> None:
    model = onehot_model(extra_relu=True)
    a = np.array([0, 4, -1, 2], np.int64)
    b = np.array([1, 1, 5, 3], np.int64)
    first = model.run({"indices": a}, share_outputs=True)
    kept = {k: v.copy() for k, v in first.items()}
    second = model.run({"indices": b}, share_outputs=True)
    for name in first:
        assert second[name] is first[name], name  # the same buffer object
    oh_name, relu_name = (d.name for d in model.outputs)
    expected_b = slow_one_hot(b, 5, 2.5, -1.0, 1, np.float32)
    np.testing.assert_array_equal(second[oh_name], expected_b)
    np.testing.assert_array_equal(first[oh_name], expected_b)  # overwritten in place
    np.testing.assert_array_equal(second[relu_name], np.maximum(expected_b, 0))
    np.testing.assert_array_equal(kept[oh_name], slow_one_hot(a, 5, 2.5, -1.0, 1, np.float32))
    fresh = model.run({"indices": b})
    for name in fresh:
        assert fresh[name] is not second[name]
        assert fresh[name].tobytes() == second[name].tobytes()
    assert model.run({"indices": b})[oh_name] is not fresh[oh_name]  # unshared runs stay fresh


def test_share_outputs_replaces_a_buffer_whose_shape_changes() -> None:
    model = onehot_model()
    first = model.run({"indices": np.array([0, 1], np.int64)}, share_outputs=True)["out"]
    second = model.run({"indices": np.array([3, 2, 1], np.int64)}, share_outputs=True)["out"]
    assert second.shape == (3, 5) and first.shape == (2, 5)
    np.testing.assert_array_equal(first, slow_one_hot(np.array([0, 1]), 5, 2.5, -1.0, 1, np.float32))
    np.testing.assert_array_equal(second, slow_one_hot(np.array([3, 2, 1]), 5, 2.5, -1.0, 1, np.float32))
    third = model.run({"indices": np.array([4, 4, 4], np.int64)}, share_outputs=True)["out"]
    assert third is second


def test_plan_is_reused_while_the_signature_holds_and_compiled_again_when_it_changes() -> None:
    model = onehot_model(element_type="dynamic")
    prog = program(model.inference)
    assert program(model.inference) is prog  # one program per inference
    x = np.array([0, 2, 9], np.int64)
    model.run({"indices": x})
    model.run({"indices": x + 1})
    assert prog.compiles == 1
    model.run({"indices": np.array([1, 2, 3, 4], np.int64)})  # shape change
    assert prog.compiles == 2
    out = model.run({"indices": np.array([1, 2, 3, 4], np.int32)})["out"]  # dtype change
    assert prog.compiles == 3
    np.testing.assert_array_equal(out, slow_one_hot(np.array([1, 2, 3, 4]), 5, 2.5, -1.0, 1, np.float32))
    model.run({"indices": x})  # an old signature is still known
    assert prog.compiles == 3


def with_kernels(model: Model, wrap: Callable[[int, Kernel], Kernel]) -> Model:
    """``model`` with each op's reference kernel wrapped by ``wrap(node index, kernel)`` and no
    ``specialize`` (a fixture: a planted bug, a call counter), built through public constructors."""
    plans = []
    for i, p in enumerate(model.inference.plans):
        spec = p.spec
        if spec.evaluate is not None:
            evaluate = spec.evaluate
            wrapped = wrap(
                i, functools.partial(lambda f, attrs, inputs: f(attrs, list(inputs)), evaluate, p.attrs)
            )
            spec = dataclasses.replace(
                spec, evaluate=lambda attrs, inputs, k=wrapped: k(inputs), specialize=None
            )
        plans.append(NodePlan(p.node, spec, p.attrs))
    inference = Inference(model.graph, tuple(plans), model.inference.outputs)
    return Model(model.graph, inference)


def test_a_wrong_output_shape_is_caught_after_the_plan_recorded_the_right_one() -> None:
    """The per-signature record must not hide a kernel bug: a shape differing from the record is
    checked against the inferred partial shape again (a bound kernel's too: tests/test_bind.py)."""
    model = onehot_model(shape="[3]")
    x = np.array([0, 1, 2], np.int64)
    model.run({"indices": x})
    oh = node_index(model, "oh")
    planted = {"on": False}

    def wrong_shape_when_planted(i: int, kernel: Kernel) -> Kernel:
        if i != oh:
            return kernel
        return lambda inputs: [kernel(inputs)[0][:2]] if planted["on"] else kernel(inputs)

    buggy = with_kernels(model, wrong_shape_when_planted)
    buggy.run({"indices": x})  # the record holds the right shape
    planted["on"] = True
    with pytest.raises(AssertionError, match="ovonehot bug"):
        buggy.run({"indices": x})


CASES = [
    ("axis-1", (3, 4), -1, False, np.float32),
    ("axis0", (3, 4), 0, False, np.float32),
    ("axis1-normalize", (3, 4), 1, True, np.float32),
    ("i8-axis2", (2, 3, 5), 2, False, np.int8),
    ("f64-axis1", (7, 2), 1, True, np.float64),
]


@pytest.mark.parametrize(
    ("shape", "axis", "normalize", "dtype"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize("threads", [False, True], ids=["serial", "threads"])
@pytest.mark.parametrize("into", [False, True], ids=["fresh", "out"])
def test_kernel_fresh_out_and_threaded_agree_with_the_slow_oracle(
    shape: tuple[int, ...],
    axis: int,
    normalize: bool,
    dtype: type,
    threads: bool,
    into: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if threads:  # every output takes the threaded path, split in parts of a few indices
        monkeypatch.setattr(one_hot_module, "THREADED_OUTPUT_BYTES", 0)
        monkeypatch.setattr(one_hot_module, "_parts", lambda nbytes: 3)
        monkeypatch.setattr(one_hot_module, "FUSED_CHUNK_BYTES", 1)  # fill and scatter a row at a time
    depth = 6
    rng = np.random.default_rng(len(shape) + axis)
    indices = rng.integers(-depth - 2, depth + 2, size=shape).astype(np.int64)
    on, off = np.array(3, dtype), np.array(0 if dtype is np.int8 else -2, dtype)
    mode = NegativeIndicesMode.NORMALIZE if normalize else NegativeIndicesMode.IGNORE_NEGATIVE
    norm_axis = axis % (len(shape) + 1)
    expected = slow_one_hot(indices, depth, 3, off[()], norm_axis, dtype, normalize)
    buffer = np.full(expected.shape, 77, dtype) if into else None
    got = one_hot(indices, depth, on, off, norm_axis, mode, out=buffer)
    if into:
        assert got is buffer
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_kernel_ignores_an_unfit_out_buffer() -> None:
    indices = np.array([0, 1], np.int64)
    on, off = np.float32(1), np.float32(0)
    for bad in (np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float64), np.zeros((4, 2), np.float32).T):
        got = one_hot(indices, 4, np.asarray(on), np.asarray(off), 1, out=bad)
        assert got is not bad
        np.testing.assert_array_equal(got, np.eye(4, dtype=np.float32)[:2])


def export_cases() -> list[tuple[Path, Path]]:
    cases = []
    for xml in sorted(EXPORTS.glob("*/*.xml")):
        inputs = sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))
        if inputs:
            cases.append((xml, inputs[0]))
    return cases


@pytest.mark.parametrize(("xml", "inputs_file"), export_cases(), ids=lambda p: p.stem)
def test_export_results_are_bit_identical_fresh_planned_and_shared(xml: Path, inputs_file: Path) -> None:
    """The first run (compiling the signature's record), a repeat (running on it), a shared run
    and a run after the plan is dropped give the same bytes."""
    model = ovonehot.load(xml)
    with np.load(inputs_file, allow_pickle=False) as archive:
        inputs = {k: archive[k] for k in archive.files}
    runs = [
        model.run(inputs),
        model.run(inputs),
        model.run(inputs, share_outputs=True),
        model.run(inputs, share_outputs=True),
    ]
    model.inference.cache.clear()
    runs.append(model.run(inputs))
    for run in runs[1:]:
        assert list(run) == list(runs[0])
        for name, value in runs[0].items():
            assert run[name].dtype == value.dtype and run[name].shape == value.shape, name
            assert run[name].tobytes() == value.tobytes(), name


def test_a_stateful_request_shares_outputs_too() -> None:
    """ReadValue/Assign through a Request with share_outputs: the state advances as without it."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[2]")
    init = b.const("init", np.zeros(2, np.float32))
    read = b.op("ReadValue", "opset6", [init], {"variable_id": "acc"}, name="read")
    add = b.op("Add", "opset1", [read, x], {"auto_broadcast": "numpy"}, name="add")
    b.op("Assign", "opset6", [add], {"variable_id": "acc"}, name="assign")
    b.op("Result", "opset1", [add], outputs=0, name="sum")
    graph = b.graph()
    model = Model(graph, infer(graph))
    shared, plain = model.create_request(), model.create_request()
    step = np.array([1.5, -2.0], np.float32)
    first = shared.run({"x": step}, share_outputs=True)["sum"]
    for k in range(2, 5):
        got = shared.run({"x": step}, share_outputs=True)["sum"]
        assert got is first
        np.testing.assert_array_equal(got, step * k)
        np.testing.assert_array_equal(plain.run({"x": step})["sum"], step * (k - 1))


def test_threaded_kernel_works_in_a_forked_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child forked after the pool's threads started makes its own (else its tasks would wait forever)."""
    import multiprocessing

    monkeypatch.setattr(one_hot_module, "THREADED_OUTPUT_BYTES", 0)
    monkeypatch.setattr(one_hot_module, "_parts", lambda nbytes: 2)
    x = np.array([[0, 3], [1, 2]], np.int64)
    args = (x, 4, np.array(1, np.float32), np.array(0, np.float32), 2)
    expected = slow_one_hot(x, 4, 1, 0, 2, np.float32)
    # Given buffers take the threaded path (a fresh output is filled by one thread).
    buffer = np.empty(expected.shape, np.float32)
    np.testing.assert_array_equal(one_hot(*args, out=buffer), expected)  # the parent's pool exists now
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(one_hot, args, {"out": np.empty(expected.shape, np.float32)}).get(timeout=60)
    np.testing.assert_array_equal(got, expected)


def test_override_replaces_a_kernel_and_its_outputs_are_checked() -> None:
    from ovonehot.errors import IRError
    from ovonehot.evaluate import evaluate

    model = onehot_model(extra_relu=True)
    params = [i for i, n in enumerate(model.graph.nodes) if n.type == "Parameter"]
    relu = next(i for i, n in enumerate(model.graph.nodes) if n.name == "relu")
    relu_out = next(i for i, n in enumerate(model.graph.nodes) if n.name == "relu_out")
    feeds = {params[0]: np.array([0, 4, 1], np.int64)}
    seen: list[int] = []

    def negate_relu(index: int, plan: object, args: list[np.ndarray]) -> list[np.ndarray] | None:
        seen.append(index)
        return [-args[0]] if index == relu else None

    values = evaluate(model.inference, feeds, RunMode(override=negate_relu))
    expected = -slow_one_hot(feeds[params[0]], 5, 2.5, -1.0, 1, np.float32)
    np.testing.assert_array_equal(values[(relu_out, 0)], expected)
    assert relu in seen and params[0] not in seen  # asked for every node that is not fed

    def wrong_dtype(index: int, plan: object, args: list[np.ndarray]) -> list[np.ndarray] | None:
        return [args[0].astype(np.float64)] if index == relu else None

    with pytest.raises(AssertionError, match=r"relu.*float64"):
        evaluate(model.inference, feeds, RunMode(override=wrong_dtype))

    def refusing(index: int, plan: object, args: list[np.ndarray]) -> list[np.ndarray] | None:
        if index == relu:
            raise IRError("refused here")
        return None

    with pytest.raises(IRError, match=r"name='relu'.*refused here"):
        evaluate(model.inference, feeds, RunMode(override=refusing))


# -- the per-signature folded plan --------------------------------------------------------------


def shape_model() -> Model:
    """x: f32[?,?] -> Reshape(x, Concat(Gather(ShapeOf(x), 1) * 2, [-1])) and ShapeOf(x) as outputs:
    a shape subgraph the signature decides, a data node that reads it, and a shape as an output."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[?,?]")
    shape = b.op("ShapeOf", "opset3", [x], {"output_type": "i64"}, name="shape")
    rows = b.op(
        "Gather", "opset8", [shape, b.const("i1", np.array([1], np.int64)), b.const("ax", np.int64(0))]
    )
    doubled = b.op("Multiply", "opset1", [rows, b.const("two", np.array([2], np.int64))], name="doubled")
    target = b.op("Concat", "opset1", [doubled, b.const("m1", np.array([-1], np.int64))], {"axis": "0"})
    reshaped = b.op("Reshape", "opset1", [x, target], {"special_zero": "false"}, name="reshape")
    b.op("Result", "opset1", [reshaped], outputs=0, name="out")
    b.op("Result", "opset1", [shape], outputs=0, name="shape_out")
    graph = b.graph()
    return Model(graph, infer(graph))


def node_index(model: Model, name: str) -> int:
    return next(i for i, n in enumerate(model.graph.nodes) if n.name == name)


def test_a_signature_folds_its_shape_subgraph_on_its_second_run_and_skips_it() -> None:
    calls: list[int] = []
    model = with_kernels(shape_model(), lambda i, kernel: _counting(kernel, i, calls))  # by node
    prog = program(model.inference)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    first = model.run({"x": x})
    assert prog.folds == 0 and node_index(model, "doubled") in calls  # the first run folds nothing
    calls.clear()
    second = model.run({"x": x})  # folds: the shape subgraph runs once, at compile time
    assert prog.folds == 1
    calls.clear()
    third = model.run({"x": x + 1})
    reshape, doubled, shape = (node_index(model, n) for n in ("reshape", "doubled", "shape"))
    assert calls == [reshape]  # only the data node runs (the Results' kernels do nothing)
    for got in (first, second):
        np.testing.assert_array_equal(got["out"], x.reshape(6, -1))
        np.testing.assert_array_equal(got["shape_out"], np.array([4, 3]))
    np.testing.assert_array_equal(third["out"], (x + 1).reshape(6, -1))
    plan = plan_of(model.inference, {node_index(model, "x"): x})
    assert plan.kernel_of(doubled) == plan.kernel_of(shape) == "folded"
    assert plan.kernel_of(reshape) == "evaluate"


def _counting(kernel: Kernel, index: int, calls: list[int]) -> Kernel:
    def counted(inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        calls.append(index)
        return kernel(inputs)

    return counted


def test_a_new_signature_compiles_and_folds_its_own_plan() -> None:
    model = shape_model()
    prog = program(model.inference)
    a, b = np.ones((4, 3), np.float32), np.arange(10, dtype=np.float32).reshape(2, 5)
    for _ in range(2):
        assert model.run({"x": a})["out"].shape == (6, 2)
    assert (prog.compiles, prog.folds) == (1, 1)
    got = model.run({"x": b})  # a new signature: its first run folds nothing (the old plan is not used)
    assert (prog.compiles, prog.folds) == (2, 1)
    np.testing.assert_array_equal(got["out"], b.reshape(10, -1))
    got = model.run({"x": b})
    assert (prog.compiles, prog.folds) == (2, 2)
    np.testing.assert_array_equal(got["out"], b.reshape(10, -1))
    np.testing.assert_array_equal(got["shape_out"], [2, 5])
    np.testing.assert_array_equal(model.run({"x": a})["out"], a.reshape(6, -1))  # the old one still holds


def test_folded_outputs_are_fresh_arrays_each_run() -> None:
    model = shape_model()
    x = np.ones((2, 2), np.float32)
    model.run({"x": x})
    got = model.run({"x": x})["shape_out"]
    got[:] = 99  # the caller owns what it got: the folded value must not change
    again = model.run({"x": x})
    assert again["shape_out"] is not got
    np.testing.assert_array_equal(again["shape_out"], [2, 2])
    shared = model.run({"x": x}, share_outputs=True)["shape_out"]
    shared[:] = 7
    np.testing.assert_array_equal(model.run({"x": x})["shape_out"], [2, 2])


def test_an_observer_sees_every_node_of_a_folded_plan_and_an_override_skips_nothing() -> None:
    model = shape_model()
    x = np.arange(8, dtype=np.float32).reshape(4, 2)

    def observed() -> dict[int, list[bytes]]:
        seen: dict[int, list[bytes]] = {}
        model.run({"x": x}, observer=lambda i, p, outs, s: seen.setdefault(i, [o.tobytes() for o in outs]))
        return seen

    unfolded = observed()
    model.run({"x": x})
    assert program(model.inference).folds == 1
    assert observed() == unfolded and len(unfolded) == len(model.graph.nodes)
    from ovonehot.evaluate import evaluate

    asked: list[int] = []
    feeds = {node_index(model, "x"): x}
    evaluate(model.inference, feeds, RunMode(override=lambda i, p, args: asked.append(i)))
    assert sorted(asked) == [i for i in range(len(model.graph.nodes)) if i not in feeds]


def test_a_random_uniform_without_seeds_is_never_folded() -> None:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[?]")
    shape = b.op("ShapeOf", "opset3", [x], {"output_type": "i64"})
    lo, hi = b.const("lo", np.float32(0)), b.const("hi", np.float32(1))
    ru = b.op("RandomUniform", "opset8", [shape, lo, hi], {"output_type": "f32"}, name="ru")
    b.op("Result", "opset1", [ru], outputs=0, name="out")
    graph = b.graph()
    model = Model(graph, infer(graph))
    x = np.zeros(64, np.float32)
    runs = [model.run({"x": x})["out"] for _ in range(3)]
    record = next(iter(program(model.inference).signatures.values()))
    assert record.folded is not None and node_index(model, "ru") not in record.folded.known
    assert not np.array_equal(runs[1], runs[2])  # fresh numbers each run (64 floats alike: never)


def test_folded_export_runs_match_the_unfolded_run_node_by_node() -> None:
    """Every export with its stored inputs: what an observer sees of every node on a folded run is
    what it saw on the first (unfolded) run, byte for byte; the folded plan skips nodes."""
    skipped = 0
    for xml, inputs_file in export_cases():
        model = ovonehot.load(xml)
        with np.load(inputs_file, allow_pickle=False) as archive:
            inputs = {k: archive[k] for k in archive.files}
        before: dict[int, list[tuple[tuple[int, ...], str, bytes]]] = {}
        after: dict[int, list[tuple[tuple[int, ...], str, bytes]]] = {}

        def capture(into: dict[int, list[tuple[tuple[int, ...], str, bytes]]]) -> object:
            return lambda i, p, outs, s: into.setdefault(
                i,
                [
                    (o.shape, o.dtype.str, o.tobytes() if o.dtype != object else repr(o).encode())
                    for o in outs
                ],
            )

        model.run(inputs, observer=capture(before))
        model.run(inputs)
        model.run(inputs, observer=capture(after))
        assert after == before, xml.stem
        record = next(iter(program(model.inference).signatures.values()))
        if record.folded is not None:
            skipped += len(record.folded.known)
    assert skipped > 1000


def test_stateful_nodes_and_large_outputs_are_never_folded() -> None:
    """ReadValue/Assign run every time (the state advances on a folded plan), and so does a node
    whose output has more than FOLD_LIMIT elements, even when its inputs are all constants."""
    from ovonehot.infer import FOLD_LIMIT

    b = GraphBuilder()
    x = b.parameter("x", "f32", "[2]")
    init = b.const("init", np.zeros(2, np.float32))
    read = b.op("ReadValue", "opset6", [init], {"variable_id": "acc"}, name="read")
    add = b.op("Add", "opset1", [read, x], {"auto_broadcast": "numpy"}, name="add")
    b.op("Assign", "opset6", [add], {"variable_id": "acc"}, name="assign")
    b.op("Result", "opset1", [add], outputs=0, name="sum")
    big = b.const("big", np.full(FOLD_LIMIT + 1, 2, np.int32))
    doubled = b.op("Add", "opset1", [big, big], {"auto_broadcast": "numpy"}, name="doubled")
    b.op("Result", "opset1", [doubled], outputs=0, name="big_out")
    graph = b.graph()
    model = Model(graph, infer(graph))
    request = model.create_request()
    step = np.array([1.0, -3.0], np.float32)
    for k in range(1, 5):
        got = request.run({"x": step})
        np.testing.assert_array_equal(got["sum"], step * k)
        np.testing.assert_array_equal(got["big_out"], np.full(FOLD_LIMIT + 1, 4, np.int32))
    # (the first run reads the initial state, the others the held one: two signatures)
    record = max(program(model.inference).signatures.values(), key=lambda r: r.runs)
    assert record.folded is not None
    folded = record.folded.known.keys()
    assert {node_index(model, n) for n in ("read", "assign", "add", "doubled")}.isdisjoint(folded)
    assert node_index(model, "init") in folded


def kv_cache_model() -> Model:
    """A KV cache as LLM exports hold one: ReadValue (init: an empty [1, 0] from the feed's
    batch), the new tokens concatenated, Assign; the output is the cache plus a Broadcast of 1
    to the cache's ShapeOf (a shape subgraph on the state: static once the state's shape is)."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[1,?]")
    init = b.const("init", np.zeros((1, 0), np.float32))
    read = b.op("ReadValue", "opset6", [init], {"variable_id": "kv", "variable_type": "f32",
                "variable_shape": "1,?"}, name="read")  # fmt: skip
    cache = b.op("Concat", "opset1", [read, x], {"axis": "1"}, name="cache")
    b.op("Assign", "opset6", [cache], {"variable_id": "kv"}, name="assign")
    shape = b.op("ShapeOf", "opset3", [cache], {"output_type": "i64"}, name="shape")
    one = b.const("one", np.float32(1.0))
    ones = b.op("Broadcast", "opset3", [one, shape], {"mode": "numpy"}, name="ones")
    out = b.op("Add", "opset1", [cache, ones], {"auto_broadcast": "numpy"}, name="out")
    b.op("Result", "opset1", [out], outputs=0, name="y")
    b.op("Result", "opset1", [shape], outputs=0, name="cache_shape")
    graph = b.graph()
    return Model(graph, infer(graph))


def test_a_stateful_run_is_planned_for_the_shapes_its_variables_hold() -> None:
    """The variables' shapes are part of the signature: the nodes after the cache get static
    shapes and the shape subgraph on it folds; a cache that grows is a new signature each step,
    and every step's values are the cache's (checked against NumPy's concatenation)."""
    model = kv_cache_model()
    request = model.create_request()
    held = np.zeros((1, 0), np.float32)
    steps = [np.array([[1.0]], np.float32), np.array([[2.0, 3.0]], np.float32), np.array([[4.0]], np.float32)]
    for x in steps:
        got = request.run({"x": x})
        held = np.concatenate([held, x], axis=1)
        np.testing.assert_array_equal(got["y"], held + 1)
        np.testing.assert_array_equal(got["cache_shape"], held.shape)
        np.testing.assert_array_equal(request.query_state()["kv"], held)
    for _ in range(2):  # the last step again from the state before it: its signature folds
        request.set_state("kv", held[:, :-1])
        got = request.run({"x": steps[-1]})
        np.testing.assert_array_equal(got["y"], held + 1)
        np.testing.assert_array_equal(got["cache_shape"], held.shape)
        np.testing.assert_array_equal(request.query_state()["kv"], held)
    folded = [r.folded for r in program(model.inference).signatures.values() if r.folded is not None]
    assert len(folded) == 1
    assert {node_index(model, n) for n in ("shape", "ones")} <= folded[0].known.keys()
    assert {node_index(model, n) for n in ("read", "cache", "assign", "out")}.isdisjoint(folded[0].known)
    assert all(t.shape.is_static for t in folded[0].infos[node_index(model, "out")])


def test_a_stateful_run_in_the_initial_state_is_planned_for_its_init_input() -> None:
    """A variable in its initial state reads its init input: the plan takes that input's shape
    (the variable's own declared shape is [1, ?]), so the second run of a reset request folds."""
    model = kv_cache_model()
    request = model.create_request()
    x = np.array([[1.0, 2.0]], np.float32)
    for _ in range(3):
        request.reset_state()
        got = request.run({"x": x})
        np.testing.assert_array_equal(got["y"], x + 1)
        np.testing.assert_array_equal(got["cache_shape"], x.shape)
    (record,) = program(model.inference).signatures.values()
    assert record.folded is not None
    assert node_index(model, "ones") in record.folded.known
    assert record.folded.infos[node_index(model, "read")][0].shape.to_shape() == (1, 0)


def test_values_folded_from_constants_alone_are_kept_once_for_every_signature() -> None:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[?]")
    weight = b.const("w", np.arange(4, dtype=np.float16))
    widened = b.op("Convert", "opset1", [weight], {"destination_type": "f32"}, name="widened")
    summed = b.op("ReduceSum", "opset1", [x, b.const("ax", np.int64(0))], {"keep_dims": "true"})
    out = b.op("Add", "opset1", [widened, summed], {"auto_broadcast": "numpy"}, name="add")
    b.op("Result", "opset1", [out], outputs=0, name="out")
    graph = b.graph()
    model = Model(graph, infer(graph))
    prog = program(model.inference)
    for n in (3, 5):
        x = np.arange(n, dtype=np.float32)
        for _ in range(2):
            np.testing.assert_array_equal(model.run({"x": x})["out"], np.arange(4) + x.sum())
    assert prog.folds == 2
    records = [r.folded for r in prog.signatures.values()]
    converted = node_index(model, "widened")
    assert records[0] is not None and records[1] is not None
    assert records[0].known[converted] is records[1].known[converted] is prog.constants[converted]


def test_signatures_share_the_unfolded_plan() -> None:
    """A signature's first run runs the plan made once for the model from its own infos (a
    generation loop's steps each have a signature of their own), and each runs right; a
    signature run twice still gets a folded plan of its own."""
    model = onehot_model("[?]")
    plans = [plan_of(model.inference, {0: np.arange(n, dtype=np.int64) % 7 - 1}) for n in (3, 4, 9)]
    for plan in plans[1:]:
        assert not plan.folded
        assert plan is plans[0]
    for n in (3, 4, 9):
        indices = np.arange(n, dtype=np.int64) % 7 - 1
        np.testing.assert_array_equal(
            model.run({"indices": indices})["out"], slow_one_hot(indices, 5, 2.5, -1.0, 1, np.float32)
        )
    again = np.arange(4, dtype=np.int64) % 7 - 1
    np.testing.assert_array_equal(
        model.run({"indices": again})["out"], slow_one_hot(again, 5, 2.5, -1.0, 1, np.float32)
    )
    assert plan_of(model.inference, {0: again}).folded


def test_after_a_first_run_every_new_signature_skips_what_the_model_alone_decides() -> None:
    """Once the model has completed a run, the plan every new signature's first run shares
    starts from the Constants (and what they alone compute) instead of running them, and its
    values stay the slow oracle's."""
    model = onehot_model("[?]")
    depth = node_index(model, "depth")
    first = np.array([0, 4, -1], np.int64)
    np.testing.assert_array_equal(
        model.run({"indices": first})["out"], slow_one_hot(first, 5, 2.5, -1.0, 1, np.float32)
    )
    for n in (2, 6, 11):  # each a new signature, run once
        indices = np.arange(n, dtype=np.int64) % 7 - 1
        plan = plan_of(model.inference, {0: indices})
        assert plan.folded
        assert plan.kernel_of(depth) == "folded"
        np.testing.assert_array_equal(
            model.run({"indices": indices})["out"], slow_one_hot(indices, 5, 2.5, -1.0, 1, np.float32)
        )


def test_f16_convolution_filters_fold_past_fold_limit_other_converts_do_not() -> None:
    """An f16-compressed CNN's filters (Constant f16 -> Convert f32 -> Convolution input 1) and
    MatMul weights fold on the second run although larger than FOLD_LIMIT (they would be
    decompressed on every call otherwise); a Convert as large feeding anything else still runs.
    Same values either way."""
    from ovonehot.infer import FOLD_LIMIT

    rng = np.random.default_rng(3)
    c_out, c_in = 64, FOLD_LIMIT // 64 + 8  # one filter tensor of more than FOLD_LIMIT elements
    b = GraphBuilder()
    x = b.parameter("x", "f32", f"[1,{c_in},3,3]")
    w16 = b.const("w16", rng.standard_normal((c_out, c_in, 1, 1)).astype(np.float16))
    w = b.op("Convert", "opset1", [w16], {"destination_type": "f32"}, name="filters")
    conv = b.op(
        "Convolution",
        "opset1",
        [x, w],
        {
            "strides": "1,1",
            "pads_begin": "0,0",
            "pads_end": "0,0",
            "dilations": "1,1",
            "auto_pad": "explicit",
        },
        name="conv",
    )
    b.op("Result", "opset1", [conv], outputs=0, name="y")
    m16 = b.const("m16", rng.standard_normal((c_in, 3)).astype(np.float16))
    m = b.op("Convert", "opset1", [m16], {"destination_type": "f32"}, name="matmul_weight")
    flat = b.op(
        "Reshape", "opset1", [x, b.const("row", np.array([9, c_in], np.int64))], {"special_zero": "false"}
    )
    b.op("Result", "opset1", [b.op("MatMul", "opset1", [flat, m], {}, name="mm")], outputs=0, name="z")
    other16 = b.const("other16", rng.standard_normal(FOLD_LIMIT + 1).astype(np.float16))
    other = b.op("Convert", "opset1", [other16], {"destination_type": "f32"}, name="other")
    b.op("Result", "opset1", [other], outputs=0, name="other_out")
    graph = b.graph()
    model = Model(graph, infer(graph))
    feed = rng.standard_normal((1, c_in, 3, 3)).astype(np.float32)
    for exact in (True, False):
        runs = [model.run({"x": feed}, exact=exact) for _ in range(3)]  # (the second run folds)
        for got in runs[1:]:
            np.testing.assert_array_equal(got["y"], runs[0]["y"])
            np.testing.assert_array_equal(got["z"], runs[0]["z"])
            np.testing.assert_array_equal(got["other_out"], runs[0]["other_out"])
        plan = plan_of(model.inference, {node_index(model, "x"): feed}, RunMode(exact=exact))
        assert plan.kernel_of(node_index(model, "filters")) == "folded"
        assert plan.kernel_of(node_index(model, "matmul_weight")) == "folded"
        assert plan.kernel_of(node_index(model, "other")) != "folded"
