"""Value and bound propagation: OneHot's depth dimension wherever OpenVINO finds one.

Each graph is built with OpenVINO's Python API, saved as IR and read by both
OpenVINO and ovonehot; every layer's inferred type and partial shape must agree
(``ovcompare``).  The named cases are docs/openvino-behaviour.md's examples and the rules of
``ovonehot.ops.common.bounds`` one by one; the seeded random cases chain ShapeOf (i32 and
i64, of interval, unbounded and static dims) through Gather, Reduce*, Squeeze,
Unsqueeze, Concat, StridedSlice, Reshape, Convert, binary arithmetic and issue 5's
Transpose, Tile, Slice, Abs, Clamp, Mod, Select, Broadcast, VariadicSplit into a depth.
Graphs OpenVINO refuses (a depth that may be negative) are rebuilt in memory and
must be refused by ovonehot too.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from graph_builder import GraphBuilder
from ovcompare import assert_layers_agree, save

from ovonehot import load
from ovonehot.check.validate import validate
from ovonehot.errors import ValidationError
from ovonehot.infer import infer
from ovonehot.ir.reader import read_ir
from ovonehot.ir.writer import write_ir
from ovonehot.types import PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset8 as o8
from openvino import opset16 as o

D = ov.Dimension


def c(value: object, dtype: object = np.int64) -> Any:
    return o.constant(np.array(value, dtype=dtype))


class Graph:
    """Collects the Parameters a depth expression creates."""

    def __init__(self) -> None:
        self.params: list[Any] = []

    def p(self, *dims: object, et: Any = None) -> Any:
        param = o.parameter(ov.PartialShape(list(dims)), et or ov.Type.f32, name=f"p{len(self.params)}")
        self.params.append(param)
        return param

    def model(self, depth: Any) -> Any:
        indices = o.parameter([3], ov.Type.i64, name="indices")
        onehot = o.one_hot(indices, depth, c(1.0, np.float32), c(0.0, np.float32), -1, name="onehot")
        return ov.Model([onehot], [indices, *self.params], "bounds")


def sq(x: Any) -> Any:
    return o.squeeze(x, c([0]))


# name -> (depth builder, the depth dimension OpenVINO gives)
NAMED: dict[str, tuple[Callable[[Graph], Any], str]] = {
    # docs/openvino-behaviour.md
    "facts-squeeze-shape-of": (lambda g: sq(o.shape_of(g.p(D(2, 7)))), "2..7"),
    "facts-add-one": (lambda g: o.add(sq(o.shape_of(g.p(D(2, 7)))), c(1)), "3..8"),
    "facts-reduce-prod": (lambda g: o.reduce_prod(o.shape_of(g.p(D(2, 4), 3)), c(0)), "6..12"),
    "facts-gather": (lambda g: o.gather(o.shape_of(g.p(3, D(2, 8))), c(1), c(0)), "2..8"),
    "facts-parameter": (lambda g: g.p(et=ov.Type.i64), "?"),
    "facts-reduce-max-of-data": (lambda g: o.reduce_max(g.p(4, et=ov.Type.i64), c(0)), "?"),
    # ShapeOf
    "static-dim-is-a-value": (lambda g: o.gather(o.shape_of(g.p(3, D(2, 8))), c(0), c(0)), "3"),
    "i32-shape-of-unbounded": (lambda g: sq(o.shape_of(g.p(D(2, -1)), "i32")), "2.."),
    "i32-unbounded-plus-one": (lambda g: o.add(sq(o.shape_of(g.p(D(2, -1)), "i32")), c(1, np.int32)), "?"),
    "i64-unbounded-plus-one": (lambda g: o.add(sq(o.shape_of(g.p(D(2, -1)))), c(1)), "?"),
    # arithmetic over the four bound combinations
    "subtract": (lambda g: o.subtract(sq(o.shape_of(g.p(D(2, 7)))), c(1)), "1..6"),
    "subtract-reversed": (lambda g: o.subtract(c(10), sq(o.shape_of(g.p(D(2, 7))))), "3..8"),
    "multiply": (lambda g: o.multiply(sq(o.shape_of(g.p(D(2, 7)))), c(3)), "6..21"),
    "divide": (lambda g: o.divide(sq(o.shape_of(g.p(D(2, 7)))), c(2)), "1..3"),
    "divide-by-range": (lambda g: o.divide(c(20), sq(o.shape_of(g.p(D(2, 8))))), "2..10"),
    "maximum": (lambda g: o.maximum(sq(o.shape_of(g.p(D(2, 8)))), c(5)), "5..8"),
    "minimum": (lambda g: o.minimum(sq(o.shape_of(g.p(D(2, 8)))), c(5)), "2..5"),
    "floor-mod-of-ends": (lambda g: o.floor_mod(sq(o.shape_of(g.p(D(2, 8)))), c(5)), "2..3"),
    "divide-unbounded": (lambda g: o.divide(sq(o.shape_of(g.p(D(2, -1)))), c(2)), "?"),
    # Convert
    "convert-i32": (lambda g: o.convert(sq(o.shape_of(g.p(D(2, 7)))), "i32"), "2..7"),
    "convert-keeps-unbounded": (lambda g: o.convert(sq(o.shape_of(g.p(D(2, -1)))), "i32"), "2.."),
    "convert-u8-wraps": (lambda g: o.convert(sq(o.shape_of(g.p(D(2, 300)))), "u8"), "2..44"),
    "through-f32": (
        lambda g: o.convert(
            o.multiply(o.convert(sq(o.shape_of(g.p(D(2, 8)))), "f32"), c(1.5, np.float32)), "i64"
        ),
        "3..12",
    ),
    # reductions
    "reduce-max": (lambda g: o.reduce_max(o.shape_of(g.p(D(2, 4), 3)), c(0)), "3..4"),
    "reduce-min": (lambda g: o.reduce_min(o.shape_of(g.p(D(2, 4), 3)), c(0)), "2..3"),
    "reduce-sum-has-no-bounds": (lambda g: o.reduce_sum(o.shape_of(g.p(D(2, 4), 3)), c(0)), "?"),
    "reduce-mean-has-no-bounds": (lambda g: o.reduce_mean(o.shape_of(g.p(D(2, 4), 4)), c(0)), "?"),
    "reduce-prod-unbounded": (lambda g: o.reduce_prod(o.shape_of(g.p(D(2, -1), 3)), c(0)), "6.."),
    "reduce-prod-with-zero": (lambda g: o.reduce_prod(o.shape_of(g.p(D(2, -1), 0)), c(0)), "0"),
    "reduce-sum-of-static-folds": (lambda g: o.reduce_sum(o.shape_of(g.p(3, 4)), c(0)), "7"),
    # data movement
    "concat-then-reduce-max": (
        lambda g: o.reduce_max(o.concat([o.shape_of(g.p(D(2, 4))), c([3])], 0), c(0)),
        "3..4",
    ),
    "concat-with-parameter": (
        lambda g: o.gather(o.concat([o.shape_of(g.p(D(2, 4))), g.p(1, et=ov.Type.i64)], 0), c(0), c(0)),
        "?",
    ),
    "reshape": (lambda g: sq(o.reshape(o.shape_of(g.p(D(2, 4))), c([1]), False)), "2..4"),
    "unsqueeze-squeeze": (lambda g: sq(o.unsqueeze(sq(o.shape_of(g.p(D(2, 4)))), c(0))), "2..4"),
    "strided-slice-shrink": (
        lambda g: o.strided_slice(o.shape_of(g.p(3, D(2, 4), 5)), c([1]), c([2]), c([1]), [0], [0], [], [1]),
        "2..4",
    ),
    "strided-slice-masked-parameter-begin": (
        lambda g: sq(
            o.strided_slice(
                o.shape_of(g.p(3, D(2, 4), 5)), g.p(1, et=ov.Type.i64), c([2]), c([1]), [1], [0], [], []
            )
        ),
        "?",
    ),
    # the ops of issue 5 that OpenVINO bounds too
    "transpose": (lambda g: o.gather(o.transpose(o.shape_of(g.p(D(2, 7), 3)), c([0])), c(0), c(0)), "2..7"),
    "transpose-unknown-order": (
        lambda g: o.gather(o.transpose(o.shape_of(g.p(D(2, 7), 3)), g.p(1, et=ov.Type.i64)), c(0), c(0)),
        "?",
    ),
    "tile": (lambda g: o.gather(o.tile(o.shape_of(g.p(D(2, 7), 3)), c([2])), c(2), c(0)), "2..7"),
    "slice": (
        lambda g: o.gather(o8.slice(o.shape_of(g.p(3, D(2, 7))), c([1]), c([2]), c([1])), c(0), c(0)),
        "2..7",
    ),
    "broadcast": (lambda g: o.gather(o.broadcast(sq(o.shape_of(g.p(D(2, 7)))), c([3])), c(1), c(0)), "2..7"),
    "split": (lambda g: sq(o.split(o.shape_of(g.p(3, D(2, 7))), c(0), 2).output(1)), "2..7"),
    "variadic-split": (
        lambda g: sq(o.variadic_split(o.shape_of(g.p(D(2, 7), 3)), c(0), c([1, 1])).output(0)),
        "2..7",
    ),
    "select-known-condition": (
        lambda g: o.gather(
            o.select(c([True, False], np.bool_), o.shape_of(g.p(D(2, 7), 3)), c([9, 9])), c(0), c(0)
        ),
        "2..7",
    ),
    "select-unknown-condition": (
        lambda g: o.gather(
            o.select(g.p(2, et=ov.Type.boolean), o.shape_of(g.p(D(2, 7), 3)), c([9, 9])), c(0), c(0)
        ),
        "?",
    ),
    "abs-of-a-range-over-zero": (
        lambda g: o.absolute(o.subtract(sq(o.shape_of(g.p(D(2, 7)))), c(5))),
        "2..3",
    ),
    "clamp": (lambda g: o.clamp(sq(o.shape_of(g.p(D(2, 9)))), 3, 5), "3..5"),
    "mod": (lambda g: o.mod(sq(o.shape_of(g.p(D(2, 7)))), c(4)), "..3"),
    "mod-by-a-range": (lambda g: o.mod(c(13), sq(o.shape_of(g.p(D(2, 7))))), "..6"),
    "reduce-prod-of-negative-bounds": (
        lambda g: o.maximum(o.reduce_prod(o.subtract(o.shape_of(g.p(D(3, 5))), c(4)), c(0), False), c(0)),
        "..1",
    ),
    # Equal, and issue 5's ops that OpenVINO bounds (their index inputs known)
    "equal-may-hold": (
        lambda g: o.add(o.convert(o.equal(sq(o.shape_of(g.p(D(2, 7)))), c(3)), "i64"), c(2)),
        "2..3",
    ),
    "equal-cannot-hold": (
        lambda g: o.add(o.convert(o.equal(sq(o.shape_of(g.p(D(2, 7)))), c(9)), "i64"), c(2)),
        "2",
    ),
    "select-of-equal-to-zero": (  # ONNX Reshape's "0 keeps the dim" pattern
        lambda g: o.select(o.equal(sq(o.shape_of(g.p(D(2, 7)))), c(0)), c(5), sq(o.shape_of(g.p(D(2, 7))))),
        "2..7",
    ),
    "scatter-update": (
        lambda g: o.gather(o.scatter_update(o.shape_of(g.p(D(2, 7), 3)), c([1]), c([5]), c(0)), c(0), c(0)),
        "2..7",
    ),
    "scatter-update-replaces": (
        lambda g: o.gather(o.scatter_update(o.shape_of(g.p(D(2, 7), 3)), c([0]), c([5]), c(0)), c(0), c(0)),
        "5",
    ),
    "scatter-nd-update": (
        lambda g: o.gather(o.scatter_nd_update(o.shape_of(g.p(D(2, 7), 3)), c([[1]]), c([5])), c(0), c(0)),
        "2..7",
    ),
    "scatter-elements-update": (
        lambda g: o.gather(
            o.scatter_elements_update(o.shape_of(g.p(D(2, 7), 3)), c([1]), c([5]), c(0)), c(0), c(0)
        ),
        "2..7",
    ),
    "pad": (
        lambda g: o.gather(o.pad(o.shape_of(g.p(D(2, 7), 3)), c([1]), c([0]), "constant", c(0)), c(1), c(0)),
        "2..7",
    ),
    # exact values OpenVINO takes from the lower-bound evaluator, where an input is its type's max
    # (ReduceMin of the empty shape of a scalar is int max)
    "convert-keeps-a-max-value": (
        lambda g: o.convert(o.reduce_min(o.shape_of(g.p()), c(0)), "i32"),
        "2147483647",
    ),
    "divide-of-a-max-value-is-zero": (lambda g: o.divide(c(2**31 - 1, np.int32), c(4, np.int32)), "0"),
    "mod-of-a-max-value-is-zero": (lambda g: o.mod(c(2**31 - 1, np.int32), c(5, np.int32)), "0"),
    "reshape-to-a-max-value-is-dynamic": (
        lambda g: o.gather(
            o.shape_of(o.reshape(g.p(D(1, 9)), o.reduce_min(o.shape_of(g.p()), c([0]), True), False)),
            c(0),
            c(0),
        ),
        "?",
    ),
    "gather-of-i16-is-not-evaluated": (
        lambda g: o.gather(
            o.concat([c([5], np.int16), o.convert(o.shape_of(g.p(3, 4)), "i16")], 0), c(0), c(0)
        ),
        "?",
    ),
}


@pytest.mark.parametrize("name", NAMED)
def test_named_depth(tmp_path, name):  # type: ignore[no-untyped-def]
    build, expected = NAMED[name]
    g = Graph()
    xml = save(g.model(build(g)), tmp_path, name)
    report = assert_layers_agree(xml)
    (onehot,) = [layer for layer in report.layers if layer.name == "onehot"]
    assert str(onehot.outputs[0].shape) == f"[3,{expected}]"


# -- refusals: bounds that may be negative ---------------------------------------------------------
def _refused(depth_from: Callable[[GraphBuilder, int], int], shape: str) -> Any:
    b = GraphBuilder()
    x = b.parameter("x", "f32", shape)
    depth = depth_from(b, b.op("Squeeze", "opset1", [b.op("ShapeOf", "opset3", [x], {"output_type": "i64"})]))
    indices = b.parameter("indices", "i64", "[3]")
    b.op(
        "OneHot",
        "opset16",
        [indices, depth, b.const("on", np.float32(1)), b.const("off", np.float32(0))],
        {"axis": "-1"},
    )
    return b.graph()


REFUSED = {
    "subtract-below-zero": (
        lambda b, d: b.op("Subtract", "opset1", [d, b.const("k", np.int64(5))]),
        "[2..7]",
        lambda g: o.subtract(sq(o.shape_of(g.p(D(2, 7)))), c(5)),
    ),
    "negate": (
        lambda b, d: b.op("Multiply", "opset1", [d, b.const("k", np.int64(-1))]),
        "[2..7]",
        lambda g: o.multiply(sq(o.shape_of(g.p(D(2, 7)))), c(-1)),
    ),
    "i16-wraps-unbounded-to-minus-one": (
        lambda b, d: b.op("Convert", "opset1", [d], {"destination_type": "i16"}),
        "[2..]",
        lambda g: o.convert(sq(o.shape_of(g.p(D(2, -1)))), "i16"),
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_negative_depth_bounds_are_refused(name):  # type: ignore[no-untyped-def]
    ours, shape, theirs = REFUSED[name]
    message = "lower than zero"
    with pytest.raises(RuntimeError, match=message):
        g = Graph()
        g.model(theirs(g))
    with pytest.raises(ValidationError, match=message):
        infer(_refused(ours, shape))


# -- random shape subgraphs ----------------------------------------------------------------------
def _dim(r: random.Random) -> Any:
    k = r.random()
    if k < 0.35:
        return r.choice([1, 2, 3, 4, 5])
    if k < 0.5:
        return -1
    lo = r.choice([0, 1, 2, 3])
    return D(lo, r.choice([lo + 1, lo + 3, -1]))


def _length(x: Any) -> int | None:
    ps = x.get_output_partial_shape(0)
    if ps.rank.is_static and ps.rank.get_length() == 1 and ps[0].is_static:
        return ps[0].get_length()
    return None


def _rank(x: Any) -> int | None:
    ps = x.get_output_partial_shape(0)
    return ps.rank.get_length() if ps.rank.is_static else None


def _leaf(r: random.Random, g: Graph) -> Any:
    return o.shape_of(g.p(*[_dim(r) for _ in range(r.randint(1, 3))]), r.choice(["i64", "i64", "i32"]))


def _step(r: random.Random, g: Graph, x: Any) -> Any:
    n, rank, dt = _length(x), _rank(x), x.get_output_element_type(0).to_dtype()
    k = r.random()
    if k < 0.12 and rank == 1 and n:
        index = (
            r.randint(-n, n - 1)
            if r.random() < 0.5
            else [r.randint(-n, n - 1) for _ in range(r.randint(1, 3))]
        )
        return o.gather(x, c(index), c(0))
    if k < 0.22 and rank == 1:
        return r.choice([o.reduce_prod, o.reduce_max, o.reduce_min, o.reduce_sum])(x, c(0), r.random() < 0.5)
    if k < 0.3 and rank == 1 and n == 1:
        return o.squeeze(x, c([0]))
    if k < 0.36 and rank == 0:
        return o.unsqueeze(x, c([0]))
    if k < 0.44 and rank == 1:
        other = c([r.randint(0, 6) for _ in range(r.randint(1, 2))], dt)
        return o.concat([x, other] if r.random() < 0.5 else [other, x], 0)
    if k < 0.54 and rank == 1 and n:
        b, e, s = r.randint(-n, n), r.randint(-n, n + 1), r.choice([1, 1, 2, -1])
        return o.strided_slice(
            x,
            c([b]),
            c([e]),
            c([s]),
            [int(r.random() < 0.3)],
            [int(r.random() < 0.3)],
            [],
            [1] if r.random() < 0.3 else [0],
        )
    if k < 0.6 and rank == 1:
        return o.reshape(x, c(r.choice([[-1], [1, -1], [-1, 1]])), False)
    if k < 0.64:
        return o.convert(x, r.choice(["i32", "i64", "i64", "u8", "f32", "i16", "u32"]))
    if k < 0.7:
        return _step_movement(r, x, n, rank, dt)
    f = r.choice([o.add, o.subtract, o.multiply, o.divide, o.maximum, o.minimum, o.floor_mod])
    other = c(r.choice([1, 2, 3, 5]), dt)
    return f(x, other) if r.random() < 0.7 else f(other, x)


def _step_movement(r: random.Random, x: Any, n: int | None, rank: int | None, dt: Any) -> Any:
    k = r.random()
    if rank == 1 and n and k < 0.15:
        return o.transpose(x, c([0]))
    if rank == 1 and n and k < 0.3:
        return o.tile(x, c([r.randint(1, 2)]))
    if rank == 1 and n and k < 0.45:
        return o8.slice(x, c([r.randint(-n, n)]), c([r.randint(-n, n + 1)]), c([r.choice([1, 2, -1])]))
    if k < 0.55:
        return o.absolute(x)
    if k < 0.65:
        return o.clamp(x, r.choice([-1, 0, 2]), r.choice([3, 5, 100]))
    if k < 0.75 and dt.kind in "iu":
        return o.mod(x, c(r.choice([1, 2, 3, 5]), dt))
    if rank == 1 and n and k < 0.85:
        return o.select(c([r.random() < 0.5 for _ in range(n)], np.bool_), x, c([r.randint(0, 9)] * n, dt))
    if rank == 0 and k < 0.9:
        return o.broadcast(x, c([r.randint(1, 3)]))
    if rank == 1 and n and n >= 2:
        return o.concat([o.variadic_split(x, c(0), c([1, n - 1])).output(r.randint(0, 1))], 0)
    return x


def _random_model(r: random.Random) -> Any | None:
    g = Graph()
    x = _leaf(r, g)
    for _ in range(r.randint(1, 5)):
        # OpenVINO may refuse this step: then try the next one on the same input
        with contextlib.suppress(RuntimeError, ValueError, OverflowError):
            x = _step(r, g, x)
    try:
        if _rank(x) == 1:
            x = o.gather(x, c(0), c(0))
        if x.get_output_element_type(0).is_real():
            x = o.convert(x, "i64")
        return g.model(x)
    except (RuntimeError, ValueError):
        return None  # e.g. a depth that may be negative: covered by the refusal tests


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "f16-compressed"])
@pytest.mark.parametrize("seed", range(3))
def test_random_shape_subgraphs_agree(tmp_path, seed, compress):  # type: ignore[no-untyped-def]
    r = random.Random(seed)
    checked = 0
    while checked < 25:
        model = _random_model(r)
        if model is None:
            continue
        assert_layers_agree(save(model, tmp_path, f"s{seed}_{checked}", compress_to_fp16=compress))
        checked += 1


def _through_floats(g: Graph) -> Any:
    as_float = o.convert(sq(o.shape_of(g.p(D(2, 8)))), "f32")
    return o.convert(o.multiply(as_float, c(1.5, np.float32)), "i64")


@pytest.mark.parametrize(
    "compress, expected", [(False, "3..12"), (True, "?")], ids=["plain", "f16-compressed"]
)
def test_no_bounds_through_a_decompression_convert(tmp_path, compress, expected):  # type: ignore[no-untyped-def]
    # save_model compresses the f32 constant 1.5 to f16 behind a Convert marked "decompression"
    # in rt_info; OpenVINO propagates no bound through such a Convert.
    g = Graph()
    xml = save(g.model(_through_floats(g)), tmp_path, "floats", compress_to_fp16=compress)
    assert ("decompression" in xml.read_text()) is compress
    report = assert_layers_agree(xml)
    (onehot,) = [layer for layer in report.layers if layer.name == "onehot"]
    assert str(onehot.outputs[0].shape) == f"[3,{expected}]"


# name -> (depth builder, its value when run with p0 of 4 elements); saved f16-compressed, the
# depth goes through a decompression Convert
THROUGH_DECOMPRESSION: dict[str, tuple[Callable[[Graph], Any], int]] = {
    "shape-subgraph-times-float": (_through_floats, 6),
    "float-constant-depth": (lambda g: o.convert(c(5.0, np.float32), "i64"), 5),  # ONNX's float depth
}


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "f16-compressed"])
@pytest.mark.parametrize("name", THROUGH_DECOMPRESSION)
def test_loaded_model_outputs_are_what_read_model_reports(tmp_path, name, compress):  # type: ignore[no-untyped-def]
    # ovonehot.load's Model.outputs, not only validate, stop values at a decompression Convert
    # (OpenVINO's read_model gives [3,?]); the folded value stays for running.
    g = Graph()
    build, depth = THROUGH_DECOMPRESSION[name]
    xml = save(g.model(build(g)), tmp_path, name, compress_to_fp16=compress)
    model = load(xml)
    theirs = [
        f"{t.get_element_type().get_type_name()}{t.get_partial_shape()}"
        for t in ov.Core().read_model(str(xml)).outputs
    ]
    assert [f"{d.element_type.value}{d.shape}" for d in model.outputs] == theirs
    assert theirs[0].endswith(",?]") is compress
    assert any(n.decompression for n in model.graph.nodes) is compress
    feeds = {d.name: np.zeros(4, np.float32) for d in model.inputs if d.name != "indices"}
    (out,) = model.run({"indices": np.array([0, 2, 9], np.int64), **feeds}).values()
    assert out.shape == (3, depth)


def test_writer_keeps_the_decompression_mark(tmp_path):  # type: ignore[no-untyped-def]
    g = Graph()
    xml = save(
        g.model(THROUGH_DECOMPRESSION["float-constant-depth"][0](g)), tmp_path, "w", compress_to_fp16=True
    )
    graph = load(xml).graph
    write_ir(graph, tmp_path / "again.xml")
    assert read_ir(tmp_path / "again.xml") == graph
    assert sum(n.decompression for n in graph.nodes) == 3  # depth, on and off


# -- a value OpenVINO cannot compute refuses only the layer that reads it ---------------------------
def _shrunk_out_of_range(x_shape: list[Any], read: bool) -> Any:
    """StridedSlice shrinking index 3 of ShapeOf(x): fine for x of rank 4, throws for rank 2;
    ``read``: a Reshape takes it as its pattern."""
    x = o.parameter(x_shape, ov.Type.f32, name="x")
    picked = o.strided_slice(o.shape_of(x), c([3]), c([4]), c([1]), [0], [0], [], [1], name="picked")
    if not read:
        return ov.Model([picked], [x], "lazy")
    data = o.parameter([4], ov.Type.f32, name="data")
    return ov.Model([o.reshape(data, o.unsqueeze(picked, c(0)), False)], [x, data], "lazy")


@pytest.mark.parametrize("x_shape", [[2, 3], [D(2, 3), 3]], ids=["static", "interval"])
def test_a_value_nobody_reads_is_not_computed(tmp_path, x_shape):  # type: ignore[no-untyped-def]
    xml = save(_shrunk_out_of_range(x_shape, read=False), tmp_path, "unread")
    assert assert_layers_agree(xml).exit_code == 0  # OpenVINO reads it; so must validate


@pytest.mark.parametrize("new_x", ["[4,6]", "[4..6,6]"], ids=["static", "interval"])
def test_a_value_read_by_a_reshape_refuses_the_reshape(tmp_path, new_x):  # type: ignore[no-untyped-def]
    xml = save(_shrunk_out_of_range([2, 5, 1, 4], read=True), tmp_path, "read")
    model = ov.Core().read_model(str(xml))
    with pytest.raises(RuntimeError, match="begin >= "):
        model.reshape({"x": ov.PartialShape(new_x)})
    report = validate(xml, shapes={"x": PartialShape.parse(new_x)})
    assert report.exit_code == 1
    (problem,) = report.errors
    assert problem.code == "inference-failed" and problem.layer.startswith("Reshape")
    assert "StridedSlice shrinks axis 0 of size 2 at index 3" in problem.message


def test_variadic_split_of_an_empty_axis_clips_the_inferred_length(tmp_path):  # type: ignore[no-untyped-def]
    # lengths [3, -1] of ShapeOf(scalar) = []: the -1 comes out -3, which OpenVINO's Dimension
    # clips to 0; its evaluate reads past the buffer (a segfault), so nothing may read the values
    x = o.parameter([], ov.Type.f32, name="x")
    split = o.variadic_split(o.shape_of(x), c(0), c([3, -1]), name="split")
    xml = save(ov.Model(list(split.outputs()), [x], "empty_split"), tmp_path, "empty_split")
    report = assert_layers_agree(xml)
    (layer,) = [layer for layer in report.layers if layer.name == "split"]
    assert [str(out.shape) for out in layer.outputs] == ["[3]", "[0]"]
