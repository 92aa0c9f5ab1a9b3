"""Random valid OneHot graphs for ``ovonehot fuzz``.

One case = one small graph, drawn from a seeded generator, in one of these families:

* ``single``: Parameter indices -> OneHot (v1, or v16 with either mode) with
  Const depth and on/off; every legal index and value type, ranks 0..6, static,
  dynamic (``?``), interval (``2..5``, ``1..``) dims and, rarely, a dynamic rank;
* ``convert``: the indices reach the OneHot through one or two Converts (from
  integer, boolean or float Parameters), and on/off through ``Const(f16) ->
  Convert`` like compressed IR;
* ``multi``: two OneHots on one indices tensor, or a OneHot whose integer output
  is the indices of a second one;
* ``depth-param``: the depth is a scalar Parameter;
* ``depth-shape``: the depth is computed from the shape of another Parameter
  (ShapeOf -> Gather / ReduceProd / Squeeze), with interval dims;
* ``elementwise``: indices shifted by Add/Subtract of a Const, OneHot outputs
  combined by Multiply/Add/Select (only when those ops are registered).

Graphs are checked by ovonehot's own inference (the same rules as OpenVINO's)
before use; a draw the rules refuse is redrawn.  Op families that are not (yet)
registered in ``ovonehot.ops`` are skipped, so the generator grows with the
registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from ..errors import Error
from ..graph import Graph
from ..infer import Inference, infer
from ..ir.builder import GraphBuilder, Out
from ..ops import lookup
from ..types import Dimension, ElementType, PartialShape
from .gen_inputs import special_scalar

T = ElementType
C = TypeVar("C")  # what _choose picks
# Index types, weighted towards what real models use.  nf4 is integral for OpenVINO but NumPy
# cannot hold it, so no inputs can be fed.
INDEX_TYPES = (
    (T.i32, 6),
    (T.i64, 6),
    (T.i8, 1),
    (T.i16, 1),
    (T.u8, 1),
    (T.u16, 1),
    (T.u32, 2),
    (T.u64, 2),
    (T.boolean, 1),
    (T.i4, 0.3),
    (T.u4, 0.3),
    (T.u1, 0.2),
    (T.u2, 0.2),
    (T.u3, 0.2),
    (T.u6, 0.2),
)
VALUE_TYPES = (
    (T.f32, 6),
    (T.f16, 2),
    (T.bf16, 2),
    (T.f64, 2),
    (T.i32, 3),
    (T.i64, 3),
    (T.i8, 1),
    (T.i16, 1),
    (T.u8, 1),
    (T.u16, 1),
    (T.u32, 1),
    (T.u64, 1),
    (T.boolean, 1),
    (T.f8e4m3, 0.5),
    (T.f8e5m2, 0.5),
    (T.f8e8m0, 0.5),
    (T.u1, 0.1),
    (T.u4, 0.1),
    (T.i4, 0.1),
    (T.string, 0.1),
)
DEPTH_TYPES = ((T.i64, 4), (T.i32, 4), (T.i8, 1), (T.i16, 1), (T.u8, 1), (T.u16, 1), (T.u32, 1), (T.u64, 1))
FAMILIES = (
    ("single", 5),
    ("convert", 2),
    ("multi", 2),
    ("depth-param", 1),
    ("depth-shape", 1.5),
    ("elementwise", 2),
)
MAX_ELEMENTS = 48


@dataclass
class FuzzCase:
    """A generated graph with its inference and the concrete shapes to feed its inputs."""

    index: int
    family: str
    graph: Graph
    inference: Inference
    shapes: dict[str, tuple[int, ...]]
    notes: list[str] = field(default_factory=list)

    @property
    def description(self) -> str:
        return f"{self.family}: " + "; ".join(self.notes)


def _choose(rng: np.random.Generator, table: tuple[tuple[C, float], ...]) -> C:
    weights = np.array([w for _, w in table], dtype=np.float64)
    k = int(rng.choice(len(table), p=weights / weights.sum()))
    return table[k][0]


def _has(type_name: str, version: str) -> bool:
    return lookup(type_name, version) is not None


class _Draw:
    """One graph being drawn: the builder, the rng, and the concrete input shapes."""

    def __init__(self, rng: np.random.Generator, name: str) -> None:
        self.rng = rng
        self.b = GraphBuilder(name)
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.notes: list[str] = []
        self._n = 0

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"{stem}{self._n}"

    # -- shapes ------------------------------------------------------------------------
    def partial_shape(self, rank: int | None = None) -> tuple[PartialShape, tuple[int, ...]]:
        """A declared shape and a concrete shape inside it (at most MAX_ELEMENTS elements)."""
        rng = self.rng
        if rank is None:
            rank = int(rng.choice(7, p=[0.12, 0.3, 0.25, 0.14, 0.09, 0.05, 0.05]))
        concrete = [int(rng.choice([1, 2, 3, 4], p=[0.25, 0.35, 0.25, 0.15])) for _ in range(rank)]
        if rank and rng.random() < 0.04:
            concrete[int(rng.integers(rank))] = 0  # an empty tensor
        while math.prod(concrete) > MAX_ELEMENTS:
            k = int(np.argmax(concrete))
            concrete[k] = max(1, concrete[k] // 2)
        dims = []
        for n in concrete:
            u = rng.random()
            if u < 0.6:
                dims.append(Dimension.static(n))
            elif u < 0.78:
                dims.append(Dimension())
            elif u < 0.93:
                lo = int(rng.integers(0, n + 1))
                dims.append(Dimension(lo, n + int(rng.integers(0, 4))))
            else:
                dims.append(Dimension(int(rng.integers(0, n + 1)), None))
        if rng.random() < 0.03:
            return PartialShape.dynamic(), tuple(concrete)
        return PartialShape(tuple(dims)), tuple(concrete)

    def parameter(self, stem: str, et: ElementType, rank: int | None = None) -> tuple[Out, int]:
        name = self.fresh(stem)
        shape, concrete = self.partial_shape(rank)
        out = self.b.parameter(name, et, shape)
        if not shape.is_static:
            self.shapes[name] = concrete
        self.notes.append(f"{name}: {et}{shape}")
        return out, len(concrete)

    # -- OneHot pieces -----------------------------------------------------------------
    def values(self, et: ElementType | None = None) -> tuple[Out, Out, ElementType]:
        rng = self.rng
        et = et or _choose(rng, VALUE_TYPES)
        if et in (T.f32, T.f64, T.bf16) and rng.random() < 0.3 and _has("Convert", "opset1"):
            # Compressed-IR pattern: f16 constants decompressed by a Convert.
            on = self.b.op(
                "Convert",
                "opset1",
                [self.b.constant(T.f16, special_scalar(rng, T.f16))],
                {"destination_type": et.value},
            )
            off = self.b.op(
                "Convert",
                "opset1",
                [self.b.constant(T.f16, special_scalar(rng, T.f16))],
                {"destination_type": et.value},
            )
            self.notes.append(f"on/off f16->{et}")
            return on, off, et
        if et is not T.string and et.bitwidth >= 8 and rng.random() < 0.1:
            on = self.b.parameter(self.fresh("on"), et, PartialShape(()))
            off = self.b.parameter(self.fresh("off"), et, PartialShape(()))
            self.notes.append(f"on/off Parameters {et}")
            return on, off, et
        on_v, off_v = special_scalar(rng, et), special_scalar(rng, et)
        self.notes.append(f"on/off {et} {_short(on_v)}/{_short(off_v)}")
        return self.b.constant(et, on_v), self.b.constant(et, off_v), et

    def depth_const(self, value: int | None = None) -> Out:
        rng = self.rng
        et = _choose(rng, DEPTH_TYPES)
        n = int(rng.integers(0, 7)) if value is None else value
        self.notes.append(f"depth {n} {et}")
        return self.b.constant(et, np.array(n, dtype=et.numpy_dtype))

    def one_hot(
        self, indices: Out, rank: int | None, depth: Out, on: Out, off: Out, axis: int | None = None
    ) -> Out:
        rng = self.rng
        version = 16 if rng.random() < 0.6 else 1
        attrs: dict[str, str] = {}
        if axis is None:
            axis = int(rng.integers(-1, 1)) if rank is None else int(rng.integers(-(rank + 1), rank + 1))
        attrs["axis"] = str(axis)
        note = f"OneHot-{version} axis {axis}"
        if version == 16:
            mode = str(rng.choice(["ignore_negative", "normalize"]))
            if rng.random() < 0.8:  # the default is ignore_negative when absent
                attrs["negative_indices_mode"] = mode
                note += f" {mode}"
        self.notes.append(note)
        return self.b.op("OneHot", f"opset{version}", [indices, depth, on, off], attrs)


def _short(value: np.ndarray) -> str:
    item = value.item() if value.dtype != object else str(value)
    return repr(float(item)) if isinstance(item, float) else repr(item)


# -- families -----------------------------------------------------------------------------


def _single(d: _Draw) -> None:
    et = _choose(d.rng, INDEX_TYPES)
    idx, rank = d.parameter("indices", et)
    on, off, _ = d.values()
    d.b.result(d.one_hot(idx, _rank_of(d, idx, rank), d.depth_const(), on, off), "out")


def _rank_of(d: _Draw, out: Out, rank: int) -> int | None:
    node = d.b._nodes[out.node]
    if node.type == "Parameter" and node.attr("shape") == "...":
        return None
    return rank


def _convert(d: _Draw) -> None:
    rng = d.rng
    src_types = (
        (T.i32, 2),
        (T.i64, 2),
        (T.f32, 2),
        (T.f16, 1),
        (T.bf16, 0.5),
        (T.f64, 1),
        (T.boolean, 1),
        (T.u8, 1),
        (T.i8, 1),
        (T.u32, 1),
        (T.u64, 1),
        (T.i16, 0.5),
    )
    et = _choose(rng, src_types)
    idx, rank = d.parameter("x", et)
    hops = 1 if rng.random() < 0.7 else 2
    for _ in range(hops):
        to = _choose(rng, ((T.i32, 4), (T.i64, 4), (T.u8, 1), (T.i8, 1), (T.u32, 1), (T.u16, 1), (T.i16, 1)))
        idx = d.b.op("Convert", "opset1", [idx], {"destination_type": to.value})
        d.notes.append(f"Convert -> {to}")
    on, off, _ = d.values()
    d.b.result(d.one_hot(idx, _rank_of(d, Out(0), rank), d.depth_const(), on, off), "out")


def _multi(d: _Draw) -> None:
    rng = d.rng
    et = _choose(rng, ((T.i32, 3), (T.i64, 3), (T.u32, 1), (T.i16, 1)))
    idx, rank = d.parameter("indices", et, rank=int(rng.integers(0, 4)))
    r = _rank_of(d, idx, rank)
    if rng.random() < 0.5:
        on, off, _ = d.values()
        d.b.result(d.one_hot(idx, r, d.depth_const(), on, off), "out1")
        on2, off2, _ = d.values()
        d.b.result(d.one_hot(idx, r, d.depth_const(), on2, off2), "out2")
        return
    # A OneHot whose integer output feeds a second OneHot's indices.
    inner_type = _choose(rng, ((T.i32, 3), (T.i64, 3), (T.u8, 1), (T.i16, 1)))
    lo, hi = (-3, 4) if inner_type.kind.value == "signed" else (0, 5)
    on_v = np.array(int(rng.integers(lo, hi)), dtype=inner_type.numpy_dtype)
    off_v = np.array(int(rng.integers(lo, hi)), dtype=inner_type.numpy_dtype)
    d.notes.append(f"inner on/off {inner_type} {on_v.item()}/{off_v.item()}")
    first = d.one_hot(
        idx,
        r,
        d.depth_const(int(rng.integers(1, 5))),
        d.b.constant(inner_type, on_v),
        d.b.constant(inner_type, off_v),
    )
    on, off, _ = d.values()
    second = d.one_hot(first, None if r is None else r + 1, d.depth_const(int(rng.integers(1, 5))), on, off)
    d.b.result(second, "out")
    if rng.random() < 0.5:
        d.b.result(first, "inner")


def _depth_param(d: _Draw) -> None:
    rng = d.rng
    et = _choose(rng, ((T.i32, 3), (T.i64, 3), (T.u32, 1)))
    idx, rank = d.parameter("indices", et)
    depth_type = _choose(rng, DEPTH_TYPES)
    depth = d.b.parameter(d.fresh("depth"), depth_type, PartialShape(()))
    d.notes.append(f"depth Parameter {depth_type}")
    on, off, _ = d.values()
    d.b.result(d.one_hot(idx, _rank_of(d, idx, rank), depth, on, off), "out")


def _depth_shape(d: _Draw) -> None:
    rng = d.rng
    if not (_has("ShapeOf", "opset3") and _has("Gather", "opset8")):
        _depth_param(d)
        return
    et = _choose(rng, ((T.i32, 3), (T.i64, 3)))
    idx, rank = d.parameter("indices", et)
    aux_name = d.fresh("aux")
    n = int(rng.integers(1, 6))
    lo = int(rng.integers(0, n + 1))
    aux_shape = PartialShape((Dimension(lo, n + int(rng.integers(0, 3))), Dimension.static(2)))
    aux = d.b.parameter(aux_name, T.f32, aux_shape)
    d.shapes[aux_name] = (n, 2)
    shape_type = T.i64 if rng.random() < 0.6 else T.i32
    shape = d.b.op("ShapeOf", "opset3", [aux], {"output_type": shape_type.value})
    how = rng.random()
    if how < 0.5 or not _has("ReduceProd", "opset1"):
        depth = d.b.op(
            "Gather",
            "opset8",
            [shape, d.b.constant(T.i64, np.array(0, np.int64)), d.b.constant(T.i64, np.array(0, np.int64))],
            {"batch_dims": "0"},
        )
        d.notes.append(f"depth = Gather(ShapeOf({aux_name}: f32{aux_shape}), 0), {n} fed")
    else:
        depth = d.b.op(
            "ReduceProd",
            "opset1",
            [shape, d.b.constant(T.i64, np.array([0], np.int64))],
            {"keep_dims": "false"},
        )
        d.notes.append(f"depth = ReduceProd(ShapeOf({aux_name}: f32{aux_shape})), {2 * n} fed")
    if rng.random() < 0.3 and _has("Add", "opset1"):
        depth = d.b.op(
            "Add", "opset1", [depth, d.b.constant(shape_type, np.array(1, shape_type.numpy_dtype))]
        )
        d.notes.append("depth + 1")
    on, off, _ = d.values()
    d.b.result(d.one_hot(idx, _rank_of(d, idx, rank), depth, on, off), "out")


def _elementwise(d: _Draw) -> None:
    rng = d.rng
    if not (_has("Add", "opset1") and _has("Multiply", "opset1") and _has("Subtract", "opset1")):
        _convert(d)
        return
    et = _choose(rng, ((T.i32, 3), (T.i64, 3), (T.u32, 1), (T.i16, 1)))
    idx, rank = d.parameter("indices", et)
    op = "Add" if rng.random() < 0.5 else "Subtract"
    k = int(rng.integers(0, 4))
    shifted = d.b.op(op, "opset1", [idx, d.b.constant(et, np.array(k, dtype=et.numpy_dtype))])
    d.notes.append(f"indices {op} {k}")
    on, off, vt = d.values(_choose(rng, ((T.f32, 3), (T.i32, 2), (T.i64, 1), (T.f16, 1))))
    n = int(rng.integers(1, 6))
    r = _rank_of(d, idx, rank)
    axis = int(rng.integers(-1, 1)) if r is None else int(rng.integers(-(r + 1), r + 1))
    hot = d.one_hot(shifted, r, d.depth_const(n), on, off, axis)
    post = rng.random()
    if post < 0.4:
        scale = special_scalar(rng, vt) if vt.is_real else np.array(int(rng.integers(-3, 4)), vt.numpy_dtype)
        hot = d.b.op("Multiply", "opset1", [hot, d.b.constant(vt, scale)])
        d.notes.append(f"output * {_short(scale)}")
    elif post < 0.7:
        on2, off2, _ = d.values(vt)
        other = d.one_hot(idx, r, d.depth_const(n), on2, off2, axis)
        hot = d.b.op("Add", "opset1", [hot, other])
        d.notes.append("sum of two OneHots")
    d.b.result(hot, "out")


_FAMILIES: dict[str, Callable[[_Draw], None]] = {
    "single": _single,
    "convert": _convert,
    "multi": _multi,
    "depth-param": _depth_param,
    "depth-shape": _depth_shape,
    "elementwise": _elementwise,
}


def generate(seed: int, index: int, attempts: int = 20) -> FuzzCase:
    """Case ``index`` of the campaign seeded ``seed`` (the same pair always gives the same graph)."""
    rng = np.random.default_rng([seed, index])
    last: Exception | None = None
    for _ in range(attempts):
        family = _choose(rng, FAMILIES)
        d = _Draw(rng, f"fuzz_{seed}_{index}")
        _FAMILIES[family](d)
        graph = d.b.build()
        try:
            inference = infer(graph)
        except Error as exc:  # a draw OpenVINO's rules refuse (e.g. depth 0 feeding a sum): redraw
            last = exc
            continue
        return FuzzCase(index, family, graph, inference, d.shapes, [n for n in d.notes if n])
    raise RuntimeError(f"fuzz case {seed}/{index}: no valid graph in {attempts} draws (last: {last})")
