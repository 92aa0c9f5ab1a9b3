"""Kernels bound to a folded signature (``OpSpec.bind``) give exactly the bytes of the op's
own ``evaluate``: per op on chosen cases (special values, broadcasting, value-dependent
shapes), and on every exported model with its stored inputs against the same run unbound."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot import evaluate as ev
from ovonehot.infer import infer
from ovonehot.model import Model
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
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The op run by a folded plan (third run of one signature) and by its own kernel on the same
    inputs: runtime inputs are Parameters (``declared`` partial shapes, default static), folded
    ones Constants. Asserts the plan really ran the bound kernel."""
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
    for _ in range(2):
        ev.evaluate(model.inference, feeds)
    got = ev.evaluate(model.inference, feeds)
    record = next(iter(ev.program(model.inference).signatures.values()))
    assert record.folded is not None
    kinds = {entry[1]: entry[0] for entry in record.folded.loop}
    assert kinds[op] == ev._BOUND, f"{type_name} was not bound"
    plan = model.inference.plans[op]
    expected = plan.spec.evaluate(plan.attrs, [*runtime, *folded])
    return [got[(r, 0)] for r in results], list(expected)


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
    record = next(iter(ev.program(model.inference).signatures.values()))
    assert record.folded is not None and {e[1]: e[0] for e in record.folded.loop}[mul] == ev._BOUND
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


def _runs(xml: Path, inputs: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], int]:
    model = ovonehot.load(xml)
    for _ in range(2):
        model.run(inputs)
    got = model.run(inputs)
    bound = sum(
        entry[0] == ev._BOUND
        for record in ev.program(model.inference).signatures.values()
        if record.folded is not None
        for entry in record.folded.loop
    )
    return got, bound


def test_exported_models_run_bound_give_the_same_bytes_as_unbound(monkeypatch: pytest.MonkeyPatch) -> None:
    total = 0
    for xml, inputs_file in exported_cases():
        with np.load(inputs_file, allow_pickle=False) as archive:
            inputs = {k: archive[k] for k in archive.files}
        got, bound = _runs(xml, inputs)
        monkeypatch.setattr(ev, "BIND", False)
        expected, none = _runs(xml, inputs)
        monkeypatch.setattr(ev, "BIND", True)
        assert none == 0
        total += bound
        assert got.keys() == expected.keys()
        for name in got:
            assert_same(got[name], expected[name], f"{xml.name} {name}")
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


@pytest.mark.parametrize(
    ("op", "version", "runtime", "folded", "attrs", "declared", "outputs"),
    [c[1:] for c in MOVEMENT_CASES],
    ids=[c[0] for c in MOVEMENT_CASES],
)
def test_movement_and_convert_bound_give_their_kernels_bytes(
    op: str,
    version: str,
    runtime: list[np.ndarray],
    folded: list[np.ndarray],
    attrs: dict[str, str] | None,
    declared: list[str] | None,
    outputs: int,
) -> None:
    check(op, version, runtime, folded, attrs, outputs=outputs, declared=declared)


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
