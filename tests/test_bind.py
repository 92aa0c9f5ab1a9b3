"""Kernels ``OpSpec.specialize`` makes for a folded signature give exactly the bytes of the op's
own ``evaluate``: per op on chosen cases (special values, broadcasting, value-dependent
shapes), and on every exported model with its stored inputs against the same run unbound."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ovonehot
from ovonehot import evaluate as ev
from ovonehot.evaluate import RunMode
from ovonehot.infer import Inference, NodePlan, infer
from ovonehot.model import Model
from ovonehot.ops import OpSpec
from ovonehot.ops.common.numeric import c_cast
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape
from tests.exact import assert_same
from tests.graph_builder import GraphBuilder

ROOT = Path(__file__).resolve().parent.parent
F32_SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3.4e38, 1e-45, -7.0], np.float32)


def _values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, -1 if dt.kind == "i" else 2, 7], dtype=dt)
        return (
            np.where(
                rng.random(n) < 0.5,
                rng.choice(pool, n),
                rng.integers(info.min // 2, info.max // 2, n, dtype=dt),
            )
            .astype(dt)
            .reshape(shape)
        )
    pool = F32_SPECIAL.astype(dt)
    normal = (rng.standard_normal(n) * 10).astype(dt)
    return np.where(rng.random(n) < 0.4, rng.choice(pool, n), normal).astype(dt).reshape(shape)


def bound_run(
    type_name: str,
    version: str,
    runtime: Sequence[np.ndarray],
    folded: Sequence[np.ndarray] = (),
    attrs: dict[str, str] | None = None,
    outputs: int = 1,
    declared: Sequence[str] | None = None,
    fast: bool = False,
    expect_bound: bool = True,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The op run by a folded plan (third run of one signature) and by its own kernel on the same
    inputs: runtime inputs are Parameters (``declared`` partial shapes, default static), folded
    ones Constants. Asserts the plan really ran the bound kernel (or, ``expect_bound=False``,
    the op's own)."""
    b = GraphBuilder()
    ins = []
    for k, a in enumerate(runtime):
        shape = declared[k] if declared else "[" + ",".join(map(str, a.shape)) + "]"
        ins.append(b.parameter(f"p{k}", ovonehot.ElementType.from_numpy(a.dtype).name, shape))
    ins += [b.const(f"c{k}", a) for k, a in enumerate(folded)]
    op = b.op(type_name, version, ins, attrs, outputs, name="op")
    results = [b.op("Result", "opset1", [(op, k)], outputs=0) for k in range(outputs)]
    graph = b.graph()
    model = Model(graph, infer(graph))
    feeds = dict(enumerate(runtime))
    mode = RunMode(exact=not fast)
    for _ in range(2):
        ev.evaluate(model.inference, feeds, mode)
    got = ev.evaluate(model.inference, feeds, mode)
    plan = ev.plan_of(model.inference, feeds, mode)
    assert plan.folded
    assert (plan.kernel_of(op) == "specialized") == expect_bound, (
        f"{type_name} was {'not ' * expect_bound}bound"
    )
    spec, attrs = model.inference.plans[op].spec, model.inference.plans[op].attrs
    expected = (unbound_fast(spec, attrs) if fast else spec.evaluate)(attrs, [*runtime, *folded])
    return [got[(r, 0)] for r in results], list(expected)


def unbound_fast(
    spec: OpSpec[Any], attrs: Any
) -> Callable[[Any, Sequence[np.ndarray]], Sequence[np.ndarray]]:
    """The kernel a fast plan runs where it knows nothing of the op's inputs (a first run of
    dynamic shapes), or ``evaluate`` for an op without a fast variant."""
    assert spec.evaluate is not None

    def run(attrs: Any, inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        unknown = [TensorInfo(ElementType.dynamic, PartialShape.dynamic()) for _ in inputs]
        kernel = (
            spec.specialize(attrs, unknown, unknown[:1], RunMode(exact=False)) if spec.specialize else None
        )
        return kernel(inputs) if kernel is not None else spec.evaluate(attrs, list(inputs))  # type: ignore[misc]

    return run


def check(type_name: str, version: str, *args: object, **kwargs: object) -> None:
    got, expected = bound_run(type_name, version, *args, **kwargs)  # type: ignore[arg-type]
    assert len(got) == len(expected)
    for k, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert_same(g, e, f"{type_name} output {k}")


BINARY = [
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
]
SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 7, 16), (2, 7, 1)), ((4,), (3, 1)), ((1, 5), ())]


# (integer Divide is not bound: C++ truncation and division by zero are the kernel's)
BINARY_CASES = [
    (op, dtype)
    for op in BINARY
    for dtype in ("float32", "float64", "int32", "int64", "uint8", "int8", "uint64")
    if op != "Divide" or dtype[0] == "f"
]


@pytest.mark.parametrize(("op", "dtype"), BINARY_CASES)
def test_binary_ops_bound_give_their_kernels_bytes(op: str, dtype: str) -> None:
    for k, (sa, sb) in enumerate(SHAPES):
        a, b = _values(dtype, sa, k), _values(dtype, sb, k + 10)
        check(op, "opset1", [a, b])
        check(op, "opset1", [a], [b])  # one input folded


@pytest.mark.parametrize("op", ["LogicalAnd", "LogicalOr", "LogicalXor", "Equal"])
def test_logical_ops_bound_on_booleans(op: str) -> None:
    check(op, "opset1", [_values("bool", (3, 4), 1), _values("bool", (4,), 2)])


def test_a_bound_op_on_value_dependent_shapes_raises_the_kernels_error_with_the_layer() -> None:
    """Shapes the signature leaves open (NonZero's): the bound Multiply runs on whatever comes;
    where NumPy refuses to broadcast, the op's own error is raised, naming the layer."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[4]")
    y = b.parameter("y", "f32", "[4]")
    nx = b.op("NonZero", "opset3", [x], {"output_type": "i64"})
    ny = b.op("NonZero", "opset3", [y], {"output_type": "i64"})
    mul = b.op("Multiply", "opset1", [nx, ny], name="product")
    b.op("Result", "opset1", [mul], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    same = {0: np.array([1, 0, 2, 0], np.float32), 1: np.array([0, 3, 0, 4], np.float32)}
    for _ in range(3):
        (value,) = ev.evaluate(model.inference, same).values()
    assert ev.plan_of(model.inference, same).kernel_of(mul) == "specialized"
    assert_same(value, np.array(np.nonzero(same[0])) * np.array(np.nonzero(same[1])))
    with pytest.raises(
        ovonehot.Error, match=r"name='product' type=Multiply.*Argument shapes are inconsistent"
    ):
        ev.evaluate(model.inference, {0: np.array([1, 2, 3, 0], np.float32), 1: same[1]})


def exported_cases() -> list[tuple[Path, Path]]:
    cases = []
    for xml in sorted((ROOT / "ir" / "exports").rglob("*.xml")):
        found = sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))
        if found:
            cases.append((xml, found[0]))
    return cases


def _runs(xml: Path, inputs: dict[str, np.ndarray], mode: RunMode) -> tuple[list[np.ndarray], int]:
    """A folded run's outputs (the third of its signature) and how many nodes it ran by a kernel
    ``specialize`` made."""
    model = ovonehot.load(xml)
    feeds = dict(zip(model._params, model.bind(inputs), strict=True))
    for _ in range(2):
        ev.evaluate(model.inference, feeds, mode)
    got = list(ev.evaluate(model.inference, feeds, mode).values())
    plan = ev.plan_of(model.inference, feeds, mode)
    return got, sum(plan.kernel_of(i) == "specialized" for i in range(len(model.graph.nodes)))


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_exported_models_run_bound_give_the_same_bytes_as_unbound(exact: bool) -> None:
    """Exact runs: the kernels ``specialize`` makes give the ops' own bytes (a run with
    ``specialized=False``).  Fast runs: a folded plan's kernels give the bytes of the fast
    kernels a first run of unknown shapes makes, so a fast result does not depend on folding."""
    total = 0
    for xml, inputs_file in exported_cases():
        with np.load(inputs_file, allow_pickle=False) as archive:
            inputs = {k: archive[k] for k in archive.files}
        got, bound = _runs(xml, inputs, RunMode(exact=exact))
        if exact:
            expected, none = _runs(xml, inputs, RunMode(specialized=False))
            assert none == 0
        else:
            fresh = ovonehot.load(xml)  # a first run: a plan of the model's declared shapes
            feeds = dict(zip(fresh._params, fresh.bind(inputs), strict=True))
            expected = list(ev.evaluate(fresh.inference, feeds, RunMode(exact=False)).values())
        total += bound
        assert len(got) == len(expected)
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_same(g, e, f"{xml.name} output {k}")
    assert total > 100, f"only {total} bound kernels ran over the exported models"


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


SHAPE_CASES = [
    # (id, op, version, runtime inputs, folded inputs, attrs, declared runtime shapes)
    (
        "gather-axis0",
        "Gather",
        "opset8",
        [_values("float32", (5, 3), 1), i64(4, 0, -1, 2)],
        [i64(0)],
        {"batch_dims": "0"},
        None,
    ),
    (
        "gather-axis1-i32",
        "Gather",
        "opset8",
        [_values("float32", (2, 6, 3), 2), np.array([[5, -6], [1, 1]], np.int32)],
        [np.array(1, np.int32)],
        {"batch_dims": "0"},
        None,
    ),
    (
        "gather-out-of-range",
        "Gather",
        "opset8",
        [_values("int64", (4,), 3), i64(1, 7, -9)],
        [i64(0)],
        {"batch_dims": "0"},
        None,
    ),
    (
        "gather-scalar",
        "Gather",
        "opset8",
        [_values("int32", (3,), 4), np.array(2, np.int64)],
        [i64(0)],
        {"batch_dims": "0"},
        None,
    ),
    (
        "gather-folded-indices",
        "Gather",
        "opset8",
        [_values("float32", (4, 64, 2), 5)],
        [i64(3), i64(0)],
        {"batch_dims": "0"},
        None,
    ),
    (
        "gather-dynamic",
        "Gather",
        "opset8",
        [_values("float32", (14, 16), 6), np.array([3, 0, 13], np.int32)],
        [np.array(0, np.int32)],
        {"batch_dims": "0"},
        ["[14,16]", "[?]"],
    ),
    (
        "reshape-static",
        "Reshape",
        "opset1",
        [_values("float32", (2, 7, 8), 7)],
        [i64(2, 7, 2, 4)],
        {"special_zero": "true"},
        None,
    ),
    (
        "reshape-zero",
        "Reshape",
        "opset1",
        [_values("float32", (2, 7, 8), 7)],
        [i64(0, 0, -1)],
        {"special_zero": "true"},
        None,
    ),
    (
        "reshape-dynamic",
        "Reshape",
        "opset1",
        [_values("int32", (9,), 8)],
        [i64(-1, 1)],
        {"special_zero": "false"},
        ["[?]"],
    ),
    (
        "reshape-dynamic-empty",
        "Reshape",
        "opset1",
        [np.zeros((0,), np.int32)],
        [i64(-1, 1)],
        {"special_zero": "false"},
        ["[?]"],
    ),
    ("squeeze-axes", "Squeeze", "opset1", [_values("float32", (1, 3, 1), 9)], [i64(0, -1)], None, None),
    ("squeeze-dynamic", "Squeeze", "opset1", [_values("int64", (1, 9), 61)], [i64(0)], None, ["[1,..28]"]),
    ("squeeze-all", "Squeeze", "opset1", [_values("float32", (1, 3, 1), 9)], [], None, None),
    ("unsqueeze", "Unsqueeze", "opset1", [_values("float32", (3, 4), 10)], [i64(0, -1)], None, None),
    ("unsqueeze-dynamic", "Unsqueeze", "opset1", [_values("int64", (5,), 11)], [i64(1)], None, ["[?]"]),
    (
        "concat",
        "Concat",
        "opset1",
        [_values("float32", (2, 3), 12), _values("float32", (2, 1), 13)],
        [],
        {"axis": "-1"},
        None,
    ),
    (
        "concat-folded",
        "Concat",
        "opset1",
        [_values("int32", (1,), 14)],
        [np.array([7, 8], np.int32)],
        {"axis": "0"},
        None,
    ),
]


@pytest.mark.parametrize(
    ("op", "version", "runtime", "folded", "attrs", "declared"),
    [c[1:] for c in SHAPE_CASES],
    ids=[c[0] for c in SHAPE_CASES],
)
def test_shape_ops_bound_give_their_kernels_bytes(
    op: str,
    version: str,
    runtime: list[np.ndarray],
    folded: list[np.ndarray],
    attrs: dict[str, str] | None,
    declared: list[str] | None,
) -> None:
    check(op, version, runtime, folded, attrs, declared=declared)


MOVEMENT_CASES = [
    (
        "split",
        "Split",
        "opset1",
        [_values("float32", (2, 6, 3), 20)],
        [np.array(1, np.int64)],
        {"num_splits": "3"},
        None,
        3,
    ),
    (
        "split-dynamic",
        "Split",
        "opset1",
        [_values("int64", (2, 10), 21)],
        [np.array(-1, np.int32)],
        {"num_splits": "2"},
        ["[2,?]"],
        2,
    ),
    (
        "variadic",
        "VariadicSplit",
        "opset1",
        [_values("float32", (5, 64), 22)],
        [i64(1), np.array([16, -1, 8], np.int32)],
        None,
        None,
        3,
    ),
    (
        "variadic-dynamic",
        "VariadicSplit",
        "opset1",
        [_values("float32", (7, 64), 23)],
        [i64(-1), np.array([32, 32], np.int32)],
        None,
        ["[..28,64]"],
        2,
    ),
    (
        "transpose",
        "Transpose",
        "opset1",
        [_values("float32", (2, 7, 2, 4), 24)],
        [np.array([0, 2, 1, 3], np.int32)],
        None,
        None,
        1,
    ),
    (
        "transpose-reverse",
        "Transpose",
        "opset1",
        [_values("int64", (3, 4, 5), 25)],
        [np.zeros(0, np.int64)],
        None,
        None,
        1,
    ),
    (
        "broadcast-numpy",
        "Broadcast",
        "opset3",
        [_values("float32", (2, 2, 1, 7, 4), 26)],
        [i64(2, 2, 2, 7, 4)],
        {"mode": "numpy"},
        None,
        1,
    ),
    (
        "broadcast-dynamic",
        "Broadcast",
        "opset3",
        [_values("int32", (5, 1), 27)],
        [np.array([5, 16], np.int32)],
        {"mode": "numpy"},
        ["[..28,1]"],
        1,
    ),
    (
        "broadcast-bidirectional",
        "Broadcast",
        "opset3",
        [_values("bool", (2, 1, 7, 1), 28)],
        [i64(1, 3, 1, 7)],
        {"mode": "bidirectional"},
        None,
        1,
    ),
    (
        "slice",
        "Slice",
        "opset8",
        [_values("float32", (14, 16), 29)],
        [
            np.array([3, 0], np.int32),
            np.array([4, 99], np.int32),
            np.array([1, 1], np.int32),
            np.array([0, 1], np.int32),
        ],
        None,
        None,
        1,
    ),
    (
        "slice-negative-step",
        "Slice",
        "opset8",
        [_values("float32", (2, 4, 7, 4), 30)],
        [i64(-1), i64(-100), i64(-2), i64(3)],
        None,
        None,
        1,
    ),
    (
        "slice-no-axes",
        "Slice",
        "opset8",
        [_values("int64", (6, 3), 31)],
        [i64(1), i64(5), i64(2)],
        None,
        ["[?,3]"],
        1,
    ),
    (
        "convert-i64-i32",
        "Convert",
        "opset1",
        [_values("int64", (9,), 32)],
        [],
        {"destination_type": "i32"},
        ["[?]"],
        1,
    ),
    (
        "convert-bool-f32",
        "Convert",
        "opset1",
        [_values("bool", (2, 3), 33)],
        [],
        {"destination_type": "f32"},
        None,
        1,
    ),
    (
        "convert-f32-bool",
        "Convert",
        "opset1",
        [_values("float32", (10,), 34)],
        [],
        {"destination_type": "boolean"},
        None,
        1,
    ),
    (
        "convert-f64-f32",
        "Convert",
        "opset1",
        [_values("float64", (10,), 35)],
        [],
        {"destination_type": "f32"},
        None,
        1,
    ),
    (
        "convert-f32-f64",
        "Convert",
        "opset1",
        [_values("float32", (10,), 35)],
        [],
        {"destination_type": "f64"},
        None,
        1,
    ),
    (
        "convert-u8-i8",
        "Convert",
        "opset1",
        [_values("uint8", (10,), 36)],
        [],
        {"destination_type": "i8"},
        None,
        1,
    ),
    (
        "convert-f32-i64",
        "Convert",
        "opset1",
        [_values("float32", (40,), 38)],
        [],
        {"destination_type": "i64"},
        None,
        1,
    ),
    (
        "convert-f32-i8",
        "Convert",
        "opset1",
        [(np.random.default_rng(39).standard_normal(40) * 1e3).astype(np.float32)],
        [],
        {"destination_type": "i8"},
        None,
        1,
    ),
    (
        "convert-f64-i32-in-range",
        "Convert",
        "opset1",
        [np.array([-2147483648.0, 2147483647.9, -0.5, 3.7], np.float64)],
        [],
        {"destination_type": "i32"},
        None,
        1,
    ),
    (
        "convert-f64-u8-in-range",
        "Convert",
        "opset1",
        [np.array([-1.5, 255.9, 256.0, 1e9], np.float64)],
        [],
        {"destination_type": "u8"},
        None,
        1,
    ),
    (
        "convert-f32-i16-empty",
        "Convert",
        "opset1",
        [np.zeros((0, 3), np.float32)],
        [],
        {"destination_type": "i16"},
        None,
        1,
    ),
    (
        "convert-same",
        "Convert",
        "opset1",
        [_values("float32", (4,), 37)],
        [],
        {"destination_type": "f32"},
        None,
        1,
    ),
]


UNARY = [
    "Relu",
    "Sigmoid",
    "Tanh",
    "Erf",
    "Floor",
    "Ceiling",
    "Sign",
    "Abs",
    "Negative",
    "Exp",
    "Log",
    "Sqrt",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", UNARY)
def test_unary_ops_bound_give_their_kernels_bytes(op: str, dtype: str) -> None:
    check(op, "opset1", [_values(dtype, (3, 7), 40)])
    check(op, "opset1", [_values(dtype, (50,), 41)], declared=["[?]"])


def scalar(value: object, dtype: str) -> np.ndarray:
    return np.array(value, dtype=dtype)


ONE_HOT_CASES = [
    (
        "f32-axis-last",
        "opset1",
        np.array([[0, 3], [5, -1]], np.int64),
        [scalar(4, "int64"), scalar(1.0, "float32"), scalar(0.0, "float32")],
        {"axis": "-1"},
        None,
    ),
    (
        "f32-axis0-nan-off",
        "opset1",
        np.array([2, 0, 1], np.int32),
        [scalar(3, "int32"), scalar(-0.0, "float32"), scalar(np.nan, "float32")],
        {"axis": "0"},
        None,
    ),
    (
        "i64-middle",
        "opset1",
        np.arange(-3, 9, dtype=np.int64).reshape(3, 4),
        [scalar(5, "int64"), scalar(7, "int64"), scalar(-2, "int64")],
        {"axis": "1"},
        None,
    ),
    (
        "bool",
        "opset1",
        np.array([1, 1, 0], np.int64),
        [scalar(2, "int64"), scalar(True, "bool"), scalar(False, "bool")],
        {"axis": "-1"},
        None,
    ),
    (
        "u64-indices",
        "opset1",
        np.array([2**63 + 1, 1, 0], np.uint64),
        [scalar(3, "int64"), scalar(1, "int32"), scalar(0, "int32")],
        {"axis": "-1"},
        None,
    ),
    (
        "normalize-16",
        "opset16",
        np.array([-1, -4, 2, 9], np.int64),
        [scalar(4, "int64"), scalar(1.0, "float64"), scalar(0.5, "float64")],
        {"axis": "-1", "negative_indices_mode": "normalize"},
        None,
    ),
    (
        "ignore-16",
        "opset16",
        np.array([-1, -4, 2, 9], np.int64),
        [scalar(4, "int64"), scalar(1.0, "float32"), scalar(0.0, "float32")],
        {"axis": "-1", "negative_indices_mode": "ignore_negative"},
        None,
    ),
    (
        "dynamic-indices",
        "opset1",
        np.array([3, 0, 2, 2, 1], np.int32),
        [scalar(4, "int32"), scalar(1, "int32"), scalar(0, "int32")],
        {"axis": "-1"},
        ["[..28]"],
    ),
    (
        "empty-indices",
        "opset1",
        np.zeros((0, 2), np.int64),
        [scalar(4, "int64"), scalar(1.0, "float32"), scalar(0.0, "float32")],
        {"axis": "1"},
        None,
    ),
    (
        "zero-depth",
        "opset1",
        np.array([0, 1], np.int64),
        [scalar(0, "int64"), scalar(1.0, "float32"), scalar(0.0, "float32")],
        {"axis": "-1"},
        None,
    ),
    (
        "past-small-output",
        "opset1",
        np.arange(70, dtype=np.int64),
        [scalar(300, "int64"), scalar(1.0, "float32"), scalar(0.0, "float32")],
        {"axis": "-1"},
        None,
    ),
]


@pytest.mark.parametrize(
    ("version", "indices", "folded", "attrs", "declared"),
    [c[1:] for c in ONE_HOT_CASES],
    ids=[c[0] for c in ONE_HOT_CASES],
)
def test_one_hot_bound_gives_its_kernels_bytes(
    version: str,
    indices: np.ndarray,
    folded: list[np.ndarray],
    attrs: dict[str, str],
    declared: list[str] | None,
) -> None:
    check("OneHot", version, [indices], folded, attrs, declared=declared)


def test_a_bound_kernel_giving_a_wrong_shape_is_caught_as_an_ovonehot_bug() -> None:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[3]")
    relu = b.op("Relu", "opset1", [x])
    b.op("Result", "opset1", [relu], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    feeds = {0: np.array([1.0, -2.0, 3.0], np.float32)}
    for _ in range(3):
        ev.evaluate(model.inference, feeds)
    assert ev.plan_of(model.inference, feeds).kernel_of(relu) == "specialized"
    # the same model with Relu's specialize planted with a bug (a fixture, not a patched global)
    spec, attrs = model.inference.plans[relu].spec, model.inference.plans[relu].attrs
    assert spec.specialize is not None
    real = spec.specialize

    def short(attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo], mode: RunMode) -> Any:
        kernel = real(attrs, ins, outs, mode)
        assert kernel is not None
        return lambda values: [kernel(values)[0][:2]]

    plans = list(model.inference.plans)
    plans[relu] = NodePlan(plans[relu].node, dataclasses.replace(spec, specialize=short), attrs)
    buggy = Inference(graph, tuple(plans), model.inference.outputs)
    with pytest.raises(AssertionError, match="ovonehot bug"):
        ev.evaluate(buggy, feeds)


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


FAST_CASES = [
    ("matmul-narrow-output", "MatMul", "opset1", [f32(5, 7), f32(7, 2, seed=4)], [], None, None),
    ("matmul-long-k", "MatMul", "opset1", [f32(3, 300), f32(300, 6, seed=5)], [], None, None),
    (
        "reduce-max-all-int",
        "ReduceMax",
        "opset1",
        [_values("int64", (1, 4, 4), 62)],
        [np.array([0, 1, 2], np.int32)],
        {"keep_dims": "false"},
        None,
    ),
    (
        "reduce-min-f32-keep",
        "ReduceMin",
        "opset1",
        [np.stack([F32_SPECIAL] * 3)],
        [i64(1)],
        {"keep_dims": "true"},
        None,
    ),
    (
        "reduce-mean-all",
        "ReduceMean",
        "opset1",
        [f32(1, 3)],
        [np.array([0, 1], np.int32)],
        {"keep_dims": "false"},
        None,
    ),
    ("reduce-prod", "ReduceProd", "opset1", [f32(3, 4)], [i64(0)], {"keep_dims": "false"}, None),
    (
        "reduce-sum-int",
        "ReduceSum",
        "opset1",
        [_values("int32", (3, 40), 60)],
        [i64(1)],
        {"keep_dims": "false"},
        ["[?,40]"],
    ),
    ("matmul", "MatMul", "opset1", [f32(2, 7, 16), f32(16, 32, seed=1)], [], None, None),
    (
        "matmul-transposes",
        "MatMul",
        "opset1",
        [f32(2, 4, 7, 8), f32(2, 1, 5, 8, seed=1)],
        [],
        {"transpose_a": "false", "transpose_b": "true"},
        None,
    ),
    (
        "matmul-f64-folded",
        "MatMul",
        "opset1",
        [f32(3, 6).astype(np.float64)],
        [f32(5, 6, seed=2).astype(np.float64)],
        {"transpose_b": "true"},
        None,
    ),
    (
        "matmul-dynamic",
        "MatMul",
        "opset1",
        [f32(5, 16), f32(16, 8, seed=3)],
        [],
        None,
        ["[..28,16]", "[16,8]"],
    ),
    ("reduce-mean-last", "ReduceMean", "opset1", [f32(2, 7, 16)], [i64(-1)], {"keep_dims": "true"}, None),
    ("reduce-sum-two", "ReduceSum", "opset1", [f32(3, 4, 5)], [i64(0, 2)], {"keep_dims": "false"}, None),
    (
        "reduce-mean-dynamic",
        "ReduceMean",
        "opset1",
        [f32(9, 32)],
        [i64(1)],
        {"keep_dims": "true"},
        ["[?,32]"],
    ),
    (
        "mvn-inside",
        "MVN",
        "opset6",
        [f32(2, 7, 16)],
        [i64(-1)],
        {"normalize_variance": "true", "eps": "1e-5", "eps_mode": "inside_sqrt"},
        None,
    ),
    (
        "mvn-outside-two",
        "MVN",
        "opset6",
        [f32(2, 3, 4, 5)],
        [i64(2, 3)],
        {"normalize_variance": "true", "eps": "1e-3", "eps_mode": "outside_sqrt"},
        None,
    ),
    (
        "mvn-mean-only",
        "MVN",
        "opset6",
        [f32(4, 6)],
        [i64(1)],
        {"normalize_variance": "false", "eps": "1e-5", "eps_mode": "inside_sqrt"},
        None,
    ),
    (
        "mvn-leading",
        "MVN",
        "opset6",
        [f32(3, 5, 4)],
        [i64(0, 1)],
        {"normalize_variance": "true", "eps": "1e-5", "eps_mode": "inside_sqrt"},
        None,
    ),
    ("softmax", "SoftMax", "opset8", [f32(2, 4, 7, 7)], [], {"axis": "-1"}, None),
    ("softmax-axis1", "SoftMax", "opset8", [f32(2, 5, 3)], [], {"axis": "1"}, None),
    ("logsoftmax", "LogSoftmax", "opset5", [f32(3, 9)], [], {"axis": "-1"}, None),
    (
        "sdpa-mask-scale",
        "ScaledDotProductAttention",
        "opset13",
        [f32(1, 4, 4, 4), f32(1, 4, 4, 4, seed=1), f32(1, 4, 4, 4, seed=2), f32(1, 1, 4, 4, seed=3)],
        [np.array(0.25, np.float32)],
        {"causal": "false"},
        None,
    ),
    (
        "sdpa-bool-mask-folded",
        "ScaledDotProductAttention",
        "opset13",
        [f32(1, 2, 5, 4), f32(1, 2, 6, 4, seed=1), f32(1, 2, 6, 3, seed=2)],
        [np.tril(np.ones((5, 6), bool))],
        {"causal": "false"},
        None,
    ),
    (
        "sdpa-default-scale",
        "ScaledDotProductAttention",
        "opset13",
        [f32(3, 5, 8), f32(3, 5, 8, seed=1), f32(3, 5, 2, seed=2)],
        [],
        {"causal": "false"},
        None,
    ),
    (
        "sdpa-causal",
        "ScaledDotProductAttention",
        "opset13",
        [f32(2, 2, 7, 8), f32(2, 2, 7, 8, seed=1), f32(2, 2, 7, 8, seed=2)],
        [],
        {"causal": "true"},
        None,
    ),
]


@pytest.mark.parametrize("fast", [False, True], ids=["exact", "fast"])
@pytest.mark.parametrize(
    ("op", "version", "runtime", "folded", "attrs", "declared"),
    [c[1:] for c in FAST_CASES],
    ids=[c[0] for c in FAST_CASES],
)
def test_summing_ops_bound_give_their_kernels_bytes(
    op: str,
    version: str,
    runtime: list[np.ndarray],
    folded: list[np.ndarray],
    attrs: dict[str, str] | None,
    declared: list[str] | None,
    fast: bool,
) -> None:
    """Exact: ``bind`` where the op has one (MatMul, Softmax, attention, the reductions, MVN over
    trailing axes), else the plan keeps the kernel; fast:
    the fast kernel made for the signature gives the bytes of the one made for unknown inputs."""
    rank = runtime[0].ndim
    trailing = op != "MVN" or sorted(int(a) % rank for a in folded[0].reshape(-1)) == list(
        range(rank - folded[0].size, rank)
    )
    spec_binds = fast or trailing  # (exact MVN over other axes keeps its kernel)
    got, expected = bound_run(
        op, version, runtime, folded, attrs, declared=declared, fast=fast, expect_bound=spec_binds
    )
    for g, e in zip(got, expected, strict=True):
        assert_same(g, e, op)


POWER_X = np.concatenate(
    [F32_SPECIAL, np.array([1.1e19, 1.9e19, 3e-23, 1e-40, -1e-20, 65504.0, 1 + 2**-23], np.float32), f32(40)]
)


@pytest.mark.parametrize(
    ("exponent", "declared"),
    [
        (np.array(2.0, np.float32), None),
        (np.array([2.0], np.float32), None),
        (np.array(0.5, np.float32), None),
        (np.array([3.0, -1.5], np.float32), ["[?,2]"]),
    ],
    ids=["square", "square-1d", "sqrt", "pair"],
)
def test_power_bound_gives_its_kernels_bytes(exponent: np.ndarray, declared: list[str] | None) -> None:
    """A folded exponent 2 runs as ``x * x``: the same bytes as the f64 power rounded to f32,
    over specials, overflow past f32 (1.9e19 squared), subnormal squares (3e-23) and underflow."""
    x = POWER_X[:56].reshape(28, 2) if exponent.size == 2 else POWER_X
    check("Power", "opset1", [x], [exponent], declared=declared)
    check("Power", "opset1", [x, np.broadcast_to(exponent, x.shape).copy()])  # runtime exponent


MORE_CASES = [
    (
        "scatter-prod-int",
        "ScatterElementsUpdate",
        "opset12",
        [
            _values("int32", (4, 3), 63),
            np.array([[1, 1, 2], [1, 0, -1]], np.int64),
            _values("int32", (2, 3), 64),
        ],
        [np.array(0, np.int64)],
        {"reduction": "prod"},
        None,
        1,
    ),
    (
        "scatter-sum",
        "ScatterElementsUpdate",
        "opset12",
        [f32(14, 16), np.array([[3, -1], [0, 13], [3, 3]], np.int32).repeat(8, axis=1), f32(3, 16, seed=1)],
        [np.array(0, np.int64)],
        {"reduction": "sum", "use_init_values": "true"},
        ["[14,16]", "[..28,16]", "[..28,16]"],
        1,
    ),
    (
        "scatter-none-axis1",
        "ScatterElementsUpdate",
        "opset12",
        [
            _values("int64", (3, 5), 50),
            np.array([[4, 0], [-2, 1], [0, 0]], np.int64),
            _values("int64", (3, 2), 51),
        ],
        [np.array(1, np.int32)],
        {"reduction": "none"},
        None,
        1,
    ),
    (
        "scatter-max-no-init",
        "ScatterElementsUpdate",
        "opset12",
        [f32(4, 3), np.array([[1, 1, 2], [1, 0, 2]], np.int64), f32(2, 3, seed=2)],
        [np.array(0, np.int64)],
        {"reduction": "max", "use_init_values": "false"},
        None,
        1,
    ),
    (
        "scatter-v3",
        "ScatterElementsUpdate",
        "opset3",
        [f32(5, 4), np.array([[0, 1, 2, 3]], np.int64), f32(1, 4, seed=3)],
        [np.array(-2, np.int64)],
        None,
        None,
        1,
    ),
    ("swish", "Swish", "opset4", [f32(5, 32) * 30], [], None, ["[..28,32]"], 1),
    ("swish-beta", "Swish", "opset4", [POWER_X], [np.array(0.75, np.float32)], None, None, 1),
    (
        "broadcast-bidirectional-dynamic",
        "Broadcast",
        "opset3",
        [_values("int32", (5, 1), 53)],
        [np.array([1, 16], np.int64)],
        {"mode": "bidirectional"},
        ["[..28,1]"],
        1,
    ),
]


def test_bound_kernels_hand_unusual_values_to_the_ops_kernel() -> None:
    """A ScatterElementsUpdate index out of range (a value the bound kernel does not decide)
    raises the op's own error through the folded plan, naming the layer."""
    b = GraphBuilder()
    data = b.parameter("data", "f32", "[4,2]")
    idx = b.parameter("idx", "i64", "[1,2]")
    upd = b.parameter("upd", "f32", "[1,2]")
    axis = b.const("axis", np.array(0, np.int64))
    scatter = b.op(
        "ScatterElementsUpdate", "opset12", [data, idx, upd, axis], {"reduction": "sum"}, name="scatter"
    )
    b.op("Result", "opset1", [scatter], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    good = {0: f32(4, 2), 1: np.array([[1, -1]], np.int64), 2: f32(1, 2, seed=1)}
    for _ in range(3):
        ev.evaluate(model.inference, good)
    assert ev.plan_of(model.inference, good).kernel_of(scatter) == "specialized"
    with pytest.raises(ovonehot.Error, match=r"name='scatter'.*out of bounds"):
        ev.evaluate(model.inference, {**good, 1: np.array([[4, 0]], np.int64)})


def _info(a: np.ndarray, shape: str | None = None, value: np.ndarray | None = None) -> TensorInfo:
    text = shape or "[" + ",".join(map(str, a.shape)) + "]"
    return TensorInfo(ovonehot.ElementType.from_numpy(a.dtype), PartialShape.parse(text), value)


@pytest.mark.parametrize(
    ("data", "lengths", "axis", "shape"),
    [
        (f32(7, 64), np.array([16, -1, 8], np.int32), 1, "[..28,64]"),
        (_values("int64", (2, 9), 52), np.array([2, 7], np.int64), -1, "[2,?]"),
        (f32(5, 3), np.array([0, 5, 0], np.int64), 0, "[?,3]"),
    ],
    ids=["runtime-lengths", "runtime-dim", "empty-parts"],
)
def test_variadic_split_with_runtime_lengths_binds_to_the_kernels_bytes(
    data: np.ndarray, lengths: np.ndarray, axis: int, shape: str
) -> None:
    """VariadicSplit whose lengths (or split dimension) a run decides: the bound kernel splits
    them by the kernel's own rule, and raises its error for lengths that do not fit."""
    from ovonehot.ops.movement import VariadicSplitAttrs, bind_variadic_split, evaluate_variadic_split

    attrs = VariadicSplitAttrs(len(lengths))
    axis_value = np.array(axis, np.int64)
    infos = [_info(data, shape), _info(axis_value, value=axis_value), _info(lengths)]
    kernel = bind_variadic_split(attrs, infos, [])
    assert kernel is not None
    inputs = [data, axis_value, lengths]
    for got, expected in zip(kernel(inputs), evaluate_variadic_split(attrs, inputs), strict=True):
        assert_same(got, expected, "VariadicSplit")
    for bad in (
        np.array([-1, -1, 3][: len(lengths)], lengths.dtype),
        np.full(len(lengths), 9, lengths.dtype),
    ):
        with pytest.raises(ovonehot.InputError, match=r"split lengths|must match the length"):
            kernel([data, axis_value, bad])
        with pytest.raises(ovonehot.InputError):
            evaluate_variadic_split(attrs, [data, axis_value, bad])


def test_shape_of_a_value_dependent_shape_binds() -> None:
    from ovonehot.ops.shape_ops import ShapeOfAttrs, bind_shape_of, evaluate_shape_of

    for output_type in (ovonehot.ElementType.i32, ovonehot.ElementType.i64):
        attrs = ShapeOfAttrs(output_type)
        kernel = bind_shape_of(attrs, [_info(f32(5, 3), "[?,3]")], [])
        assert kernel is not None
        for x in (f32(5, 3), f32(0, 3)):
            assert_same(kernel([x])[0], evaluate_shape_of(attrs, [x])[0], "ShapeOf")


@pytest.mark.parametrize(
    "depth",
    [np.array(5, np.int64), np.array(0, np.int32), np.array(-2, np.int64)],
    ids=["5", "0", "negative"],
)
def test_one_hot_with_a_depth_a_run_decides_binds(depth: np.ndarray) -> None:
    """A depth that is a run's value (a max of the labels + 1): bound, read per run; a negative
    one goes to the kernel, which raises OpenVINO's error with the layer named."""
    indices = np.array([[0, 3], [4, -1]], np.int64)
    folded = [np.array(1.0, np.float32), np.array(0.0, np.float32)]
    if depth < 0:
        with pytest.raises(ovonehot.Error, match=r"name='op' type=OneHot.*can't be negative"):
            check("OneHot", "opset1", [indices, depth], folded, {"axis": "-1"})
        return
    check("OneHot", "opset1", [indices, depth], folded, {"axis": "-1"})


def test_a_sized_bound_kernel_is_refused_an_output_past_the_budget_first() -> None:
    """A bound step whose output size a run decides (OneHot's depth) still has it checked before
    the kernel runs: a depth of 10**12 is refused with the layer named, nothing allocated."""
    b = GraphBuilder()
    idx = b.parameter("idx", "i64", "[2]")
    depth = b.parameter("depth", "i64", "[]")
    on, off = b.const("on", np.array(1.0, np.float32)), b.const("off", np.array(0.0, np.float32))
    node = b.op("OneHot", "opset1", [idx, depth, on, off], {"axis": "-1"}, name="hot")
    b.op("Result", "opset1", [node], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    feeds = {0: np.array([1, 2], np.int64), 1: np.array(3, np.int64)}
    for _ in range(3):
        ev.evaluate(model.inference, feeds)
    assert ev.plan_of(model.inference, feeds).kernel_of(node) == "specialized"
    with pytest.raises(ovonehot.Error, match=r"name='hot'.*bytes"):
        ev.evaluate(model.inference, {**feeds, 1: np.array(10**12, np.int64)})


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int8", "uint64"])
@pytest.mark.parametrize("op", ["Divide", "Mod"])
@pytest.mark.parametrize("pythondiv", ["true", "false"])
def test_integer_divide_and_mod_bound_give_their_kernels_bytes(op: str, dtype: str, pythondiv: str) -> None:
    """C++ truncation (pythondiv false) and floor division, INT_MIN / -1, mixed signs; a zero
    divisor a run brings goes to the kernel (Divide's error, the layer named; Mod's value)."""
    attrs = {"m_pythondiv": pythondiv} if op == "Divide" else None
    for k, (sa, sb) in enumerate(SHAPES):
        a, b = _values(dtype, sa, k), _values(dtype, sb, k + 10)
        b = np.where(b == 0, np.array(3, b.dtype), b)
        check(op, "opset1", [a, b], attrs=attrs)
    b = GraphBuilder()
    x, y = b.parameter("x", dtype_name(dtype), "[3]"), b.parameter("y", dtype_name(dtype), "[3]")
    node = b.op(op, "opset1", [x, y], attrs, name="division")
    b.op("Result", "opset1", [node], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    feeds = {0: np.array([7, 8, 9], dtype), 1: np.array([2, 3, 4], dtype)}
    for _ in range(3):
        ev.evaluate(model.inference, feeds)
    zero = {**feeds, 1: np.array([2, 0, 4], dtype)}
    if op == "Divide":
        with pytest.raises(ovonehot.Error, match=r"name='division'.*division by zero"):
            ev.evaluate(model.inference, zero)
    else:  # Mod by zero: the cast of NaN (ops/elementwise.py), the same bytes bound or not
        want = np.fmod(np.array([7, 8, 9], dtype), np.array([2, 1, 4], dtype))
        want[1] = c_cast(np.asarray(np.nan), np.dtype(dtype))
        assert_same(next(iter(ev.evaluate(model.inference, zero).values())), want)


def dtype_name(dtype: str) -> str:
    return ovonehot.ElementType.from_numpy(np.dtype(dtype)).name


@pytest.mark.parametrize(
    ("attrs", "k"),
    [
        ({"axis": "-1", "mode": "max", "sort": "value", "index_element_type": "i64"}, 2),
        ({"axis": "0", "mode": "min", "sort": "index", "index_element_type": "i32"}, 3),
        ({"axis": "1", "mode": "max", "sort": "none", "index_element_type": "i32"}, 0),
    ],
    ids=["max-value", "min-index-axis0", "k0"],
)
def test_top_k_bound_gives_its_kernels_bytes(attrs: dict[str, str], k: int) -> None:
    x = np.array(
        [
            [1.0, np.nan, 3.0, 3.0, -0.0],
            [0.0, 2.0, 2.0, -np.inf, 5.0],
            [7.0, 7.0, 1.0, 0.5, 0.0],
            [1, 2, 3, 4, 5],
        ],
        np.float32,
    )
    check("TopK", "opset11", [x], [np.array(k, np.int64)], attrs, outputs=2)


LOGIC_CASES = [
    ("and-last", "ReduceLogicalAnd", [_values("bool", (4, 6), 70)], [i64(-1)], {"keep_dims": "false"}),
    (
        "or-all-keep",
        "ReduceLogicalOr",
        [_values("bool", (2, 3, 4), 71)],
        [i64(0, 1, 2)],
        {"keep_dims": "true"},
    ),
    ("or-all", "ReduceLogicalOr", [np.zeros((2, 5), bool)], [i64(0, 1)], {"keep_dims": "false"}),
    ("bitwise-and-bool", "BitwiseAnd", [_values("bool", (2, 5), 72), _values("bool", (5,), 73)], [], None),
    ("bitwise-or-int", "BitwiseOr", [_values("int32", (3, 4), 74), _values("int32", (3, 1), 75)], [], None),
    ("bitwise-xor-u8", "BitwiseXor", [_values("uint8", (6,), 76), _values("uint8", (6,), 77)], [], None),
    ("select", "Select", [_values("bool", (2, 5), 78), np.array(-np.inf, np.float32), f32(2, 5)], [], None),
]


@pytest.mark.parametrize(
    ("op", "runtime", "folded", "attrs"), [c[1:] for c in LOGIC_CASES], ids=[c[0] for c in LOGIC_CASES]
)
def test_logic_ops_bound_give_their_kernels_bytes(
    op: str, runtime: list[np.ndarray], folded: list[np.ndarray], attrs: dict[str, str] | None
) -> None:
    check(op, "opset13" if op.startswith("Bitwise") else "opset1", runtime, folded, attrs)


@pytest.mark.parametrize("axis", ["-1", "0"])
def test_top_k_on_the_last_axis_and_others_gives_openvinos_layout(axis: str) -> None:
    """``_top`` skips moving the axis when it is the last: both paths against the bound one."""
    x = f32(3, 6)
    check(
        "TopK",
        "opset11",
        [x],
        [np.array(2, np.int64)],
        {"axis": axis, "mode": "max", "sort": "value", "index_element_type": "i32"},
        outputs=2,
    )


@pytest.mark.parametrize("op", ["Add", "Mod", "Divide", "Greater", "Multiply"])
def test_scalar_operands_bind_to_arrays(op: str) -> None:
    """0-d operands (a MoE router's counts): bound, and the result an array as the kernel's."""
    a, b = np.array(17, np.int32), np.array(-5, np.int32)
    got, expected = bound_run(op, "opset1", [a, b])
    assert isinstance(got[0], np.ndarray)
    assert_same(got[0], expected[0], op)


@pytest.mark.parametrize(
    ("op", "version", "runtime", "folded", "attrs", "declared", "outputs"),
    [c[1:] for c in MOVEMENT_CASES + MORE_CASES],
    ids=[c[0] for c in MOVEMENT_CASES + MORE_CASES],
)
def test_ops_bound_give_their_kernels_bytes(
    op: str,
    version: str,
    runtime: list[np.ndarray],
    folded: list[np.ndarray],
    attrs: dict[str, str] | None,
    declared: list[str] | None,
    outputs: int,
) -> None:
    check(op, version, runtime, folded, attrs, outputs=outputs, declared=declared)


def test_random_graphs_run_bound_and_unbound_give_the_same_outcomes() -> None:
    """A small run of scripts/bind_campaign.py: random graphs around OneHot, each run with new
    values of one signature (out-of-range indices and special values included), exact and fast:
    the same bytes, or the same error, bound and unbound."""
    spec = importlib.util.spec_from_file_location("bind_campaign", ROOT / "scripts" / "bind_campaign.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    models, runs, bound, divergences = module.campaign(graphs=25, seeds=4, seed=3, irs=False)
    assert divergences == []
    assert models == 25 and runs == 200 and bound > 40, (models, runs, bound)
