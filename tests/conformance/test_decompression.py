"""Fused weight decompression (:mod:`ovonehot.decompression`) against OpenVINO and against the
unfused chain, on generated cases.

Each case is a small model as NNCF writes a compressed weight -- an integer Constant (u4, i4,
u8, i8), Convert to the scale's type (f16 or f32), with or without a zero point (Subtract of a
Converted integer Constant), Multiply by the scale, per group (then a Reshape) or per channel,
then Convert to f32 -- feeding a MatMul (the weight on either input, transposed or not) or a
Gather (an embedding), or both (a tied embedding and LM head).  Sizes include a contracted
axis that is odd (a u4 weight whose rows end mid-byte), a single output row, and an empty
batch.  For every case:

* the plan runs the consumer fused (``Plan.kernel_of`` says so);
* exact: the fused run's outputs have the bits of the unfused run (every node, as a run with
  an observer does) and of OpenVINO's core reference (``Node.evaluate``, in a child process);
* fast: a Gather gives exact's bits; a MatMul is within the summation bound of
  tests/test_fast_mode.py (``(2K + 1) * eps * sum |x| |w|`` + rounding) of exact, ``w`` the
  decompressed weight as the unfused run computes it.

Scales are drawn where f16 products stay normal (the in-place rounding path) and, in named
cases, where they reach f16's subnormals or overflow to infinity (NumPy's own cast).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import ovonehot
from ovonehot import grouped, threads
from ovonehot.decompression import round_to_f16
from ovonehot.evaluate import plan_of
from ovonehot.infer import infer
from ovonehot.ir.builder import GraphBuilder, Out
from ovonehot.ir.payload import PACKED_MIN_ELEMENTS
from ovonehot.ir.writer import write_ir
from ovonehot.ops.matmul import evaluate_matmul
from ovonehot.oracle.process import IsolatedOracle
from ovonehot.packed import Packed
from ovonehot.types import ElementType, PartialShape
from tests.exact import assert_same

_RANGES = {"u4": (0, 15), "i4": (-8, 7), "u8": (0, 255), "i8": (-128, 127)}
_HOLD = {"u4": ml_dtypes.uint4, "i4": ml_dtypes.int4, "u8": np.uint8, "i8": np.int8}


@dataclass(frozen=True, slots=True)
class Case:
    source: str  # u4, i4, u8, i8
    scale: str  # f16, f32: the type the chain computes in
    zero: bool
    group: int | None  # None: per channel
    consumer: str  # matmul, gather, tied
    port: int = 1  # the MatMul input the weight feeds
    transpose: bool = True  # transpose_b (port 1) / transpose_a (port 0)
    n: int = 6  # output channels (vocabulary for a gather)
    k: int = 8  # contracted size (hidden size for a gather)
    m: int = 3  # rows of the other input (0: an empty batch)
    scale_range: tuple[float, float] = (1e-3, 0.2)
    lead: tuple[int, ...] = ()  # batch dims of the other input

    @property
    def label(self) -> str:
        parts = [self.consumer, self.source, self.scale, "zp" if self.zero else "sym"]
        parts.append(f"g{self.group}" if self.group else "channel")
        if self.consumer == "matmul":
            parts.append(f"port{self.port}{'T' if self.transpose else ''}")
        parts.append(f"n{self.n}k{self.k}m{self.m}")
        if self.scale_range != (1e-3, 0.2):
            parts.append(f"scale{self.scale_range[1]:g}")
        if self.lead:
            parts.append("lead" + "x".join(map(str, self.lead)))
        return "-".join(parts)


def _cases() -> list[Case]:
    out = []
    for source in ("u4", "i4", "u8", "i8"):
        for scale in ("f16", "f32"):
            for zero in (True, False):
                out.append(Case(source, scale, zero, 4, "matmul"))
                out.append(Case(source, scale, zero, None, "matmul", port=0, transpose=False))
            out.append(Case(source, scale, True, None, "gather", n=10, k=6))
    for port in (0, 1):
        for transpose in (True, False):
            out.append(Case("u4", "f16", True, 4, "matmul", port, transpose, n=5, k=12))
            out.append(Case("u4", "f16", True, None, "matmul", port, transpose, n=7, k=9))  # odd K
    out += [
        Case("u4", "f16", True, None, "matmul", n=1, k=5, m=1),  # one output channel, odd K
        Case("u4", "f16", True, 4, "matmul", m=0),  # an empty batch
        Case("i4", "f16", True, None, "matmul", n=1100, k=1000, m=2),  # two blocks of BLOCK_ELEMENTS
        # Packed in memory (more than 65536 values): blocks of rows, and a transposed layout
        Case("u4", "f16", True, 128, "matmul", n=1030, k=1024, m=2),
        Case("u4", "f16", True, None, "matmul", transpose=False, n=301, k=333, m=2),
        Case("u4", "f32", False, None, "tied", n=4099, k=33, m=3),
        Case("u8", "f16", True, None, "tied", n=9, k=6, m=2),
        Case("u4", "f16", True, 2, "tied", n=9, k=6, m=2),
        Case("u4", "f16", True, 4, "matmul", scale_range=(1e-7, 1e-5)),  # subnormal f16 products
        Case("u8", "f16", True, None, "matmul", scale_range=(100.0, 3000.0)),  # products overflow f16
        Case("u8", "f16", False, None, "gather", n=10, k=6, scale_range=(1e-7, 3000.0)),
        # The group algebra (fast): packed i4 groups, packed f32 scales, batch dims, a packed
        # weight whose rows end mid-byte (not taken), groups of one byte
        Case("i4", "f16", True, 64, "matmul", n=700, k=192, m=3),
        Case("u4", "f32", False, 128, "matmul", n=600, k=256, m=1),
        Case("u4", "f16", True, 16, "matmul", n=5, k=32, m=2, lead=(2, 3)),
        Case("u8", "f16", True, None, "matmul", port=0, transpose=False, n=4, k=8, m=2, lead=(3,)),
        Case("u4", "f16", True, None, "matmul", n=331, k=333, m=2),
        Case("u4", "f16", True, 2, "matmul", n=9000, k=16, m=2),
        # blocks whose bytes are not a whole number of u64 words: the nibbles split byte by byte
        Case("u4", "f16", True, 2, "matmul", n=30001, k=6, m=2),
        Case("i4", "f32", False, 2, "matmul", n=30001, k=6, m=1),
        # beyond grouped.DENSE_WEIGHTS, unpacked codes by blocks (an int8 LM head)
        Case("u8", "f16", True, None, "matmul", n=300, k=256, m=2),
        Case("i8", "f32", False, 32, "matmul", n=260, k=256, m=1, lead=(2,)),
    ]
    return out


CASES = _cases()


def _weight_layout(case: Case) -> tuple[int, int, int]:
    """(rows, cols, output axis) of the 2-D weight the consumer reads."""
    rows_are_outputs = case.consumer != "matmul" or (case.port == 1) == case.transpose
    if rows_are_outputs:
        return case.n, case.k, 0
    return case.k, case.n, 1


@dataclass(frozen=True, slots=True)
class Weight:
    """The drawn weight in float64, unrounded: ``(q - z) * s`` and ``(|q| + |z|) |s|``, as the
    consumer reads it (2-D)."""

    value: np.ndarray
    magnitude: np.ndarray


def _build(case: Case, rng: np.random.Generator) -> tuple[GraphBuilder, dict[str, np.ndarray], Weight]:
    b = GraphBuilder("decompression")
    rows, cols, out_axis = _weight_layout(case)
    # Groups run along the contracted axis, the other one keeps its length.
    grouped = case.group is not None and (cols if out_axis == 0 else rows) % case.group == 0
    if grouped and out_axis == 0:
        q_shape: tuple[int, ...] = (rows, cols // case.group, case.group)  # type: ignore[operator]
        s_shape: tuple[int, ...] = (rows, cols // case.group, 1)  # type: ignore[operator]
    elif grouped:
        q_shape = (rows // case.group, case.group, cols)  # type: ignore[operator]
        s_shape = (rows // case.group, 1, cols)  # type: ignore[operator]
    else:
        q_shape = (rows, cols)
        s_shape = (rows, 1) if out_axis == 0 else (1, cols)
    lo, hi = _RANGES[case.source]
    et, t = ElementType(case.source), ElementType(case.scale)
    q = rng.integers(lo, hi + 1, q_shape).astype(_HOLD[case.source])
    w = b.op("Convert", "opset1", [b.constant(et, q)], {"destination_type": case.scale})
    z64 = np.zeros(s_shape)
    if case.zero:
        z = rng.integers(lo, hi + 1, s_shape).astype(_HOLD[case.source])
        z64 = z.astype(np.float64)
        zc = b.op("Convert", "opset1", [b.constant(et, z)], {"destination_type": case.scale})
        w = b.op("Subtract", "opset1", [w, zc], {"auto_broadcast": "numpy"})
    a, c = case.scale_range
    s = (rng.uniform(a, c, s_shape) * rng.choice([-1.0, 1.0], s_shape)).astype(t.numpy_dtype)
    w = b.op("Multiply", "opset1", [w, b.constant(t, s)], {"auto_broadcast": "numpy"})
    q64, s64 = q.astype(np.float64), s.astype(np.float64)
    weight = Weight(
        ((q64 - z64) * s64).reshape(rows, cols),
        ((np.abs(q64) + np.abs(z64)) * np.abs(s64)).reshape(rows, cols),
    )
    if grouped:
        target = b.constant(ElementType.i64, np.array([rows, cols], np.int64))
        w = b.op("Reshape", "opset1", [w, target], {"special_zero": "false"})
    if case.scale != "f32":
        w = b.op("Convert", "opset1", [w], {"destination_type": "f32"})
    return b, _consumers(b, case, w, rng), weight


def _consumers(b: GraphBuilder, case: Case, w: Out, rng: np.random.Generator) -> dict[str, np.ndarray]:
    feeds: dict[str, np.ndarray] = {}
    if case.consumer in ("gather", "tied"):
        ids = rng.integers(-case.n, case.n, (2, max(case.m, 1))).astype(np.int64)
        feeds["ids"] = ids
        param = b.parameter("ids", ElementType.i64, PartialShape.of(ids.shape))
        axis = b.constant(ElementType.i64, np.array(0, np.int64))
        h = b.op("Gather", "opset8", [w, param, axis], {"batch_dims": "0"})
        b.result(h, "gathered")
        if case.consumer == "tied":
            logits = b.op("MatMul", "opset1", [h, w], {"transpose_a": "false", "transpose_b": "true"})
            b.result(logits, "logits")
        return feeds
    shape = (*case.lead, case.m, case.k) if case.port == 1 else (*case.lead, case.k, case.m)
    x = rng.standard_normal(shape).astype(np.float32)
    feeds["x"] = x
    param = b.parameter("x", ElementType.f32, PartialShape.of(shape))
    t = "true" if case.transpose else "false"
    if case.port == 1:
        attrs = {"transpose_a": "false", "transpose_b": t}
        y = b.op("MatMul", "opset1", [param, w], attrs)
    else:
        attrs = {"transpose_a": t, "transpose_b": "false"}
        y = b.op("MatMul", "opset1", [w, param], attrs)
    b.result(y, "y")
    return feeds


@contextmanager
def _written(case: Case, rng: np.random.Generator) -> Iterator[tuple[Path, dict[str, np.ndarray], Weight]]:
    """The case's model written as IR (an .xml in a folder removed afterwards), its feeds and
    the drawn weight."""
    b, feeds, weight = _build(case, rng)
    graph = b.build()
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "case.xml"
        write_ir(graph, xml, inference=infer(graph))
        yield xml, feeds, weight


@pytest.fixture(scope="module")
def oracle() -> Iterator[IsolatedOracle]:
    o = IsolatedOracle()
    yield o
    o.close()


def _quiet(key: Any, plan: Any, outs: Sequence[np.ndarray], seconds: float) -> None:
    """An observer: a run with one runs every node (the plan fuses nothing)."""


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_fused_decompression(case: Case, oracle: IsolatedOracle, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(abs(hash(case.label)) % (1 << 32))
    with _written(case, rng) as (xml, feeds, weight):
        model = ovonehot.load(xml)
        expected = oracle.run("reference", xml, feeds)
    consumers = [i for i, n in enumerate(model.graph.nodes) if n.type in ("MatMul", "Gather")]
    packed = [n for n in model.graph.nodes if isinstance(n.payload, Packed)]  # (kept packed by the reader)
    assert bool(packed) == (case.source in ("u4", "i4") and case.n * case.k > PACKED_MIN_ELEMENTS)
    index_feeds = {i: feeds[n.name] for i, n in enumerate(model.graph.nodes) if n.type == "Parameter"}
    plan = plan_of(model.inference, index_feeds)
    assert [plan.kernel_of(i) for i in consumers] == ["fused"] * len(consumers), case.label
    exact = model.run(feeds)
    unfused = model.run(feeds, observer=_quiet)
    for name, value in exact.items():
        assert_same(value, unfused[name], f"{case.label} {name}: fused vs unfused")
        assert_same(value, expected[name], f"{case.label} {name}: fused vs OpenVINO's reference")
    products: list[int] = []
    monkeypatch.setattr(grouped, "product", lambda *a: products.append(1) or _PRODUCT(*a))
    fast = [model.run(feeds, exact=False) for _ in range(3)]  # (unfolded, then folded plans)
    assert len(products) == 3 * _grouped_expected(case), case.label
    for name, value in fast[0].items():
        for other in fast[1:]:
            assert_same(other[name], value, f"{case.label} {name}: every fast run the same")
        if name == "gathered":
            assert_same(value, exact[name], f"{case.label} {name}: fast vs exact")
        elif products:
            _assert_grouped_bound(model, case, feeds, weight, value)
        else:
            _assert_within_bound(model, case, feeds, name, exact[name], value)


_PRODUCT = grouped.product


def _grouped_expected(case: Case) -> bool:
    """Fast mode takes the group algebra (:mod:`ovonehot.grouped`): a MatMul whose weight rows
    are its outputs, every f16 product zero or normal (not the named subnormal and overflow
    cases), and a packed weight's groups a whole number of bytes."""
    if case.consumer == "gather" or _weight_layout(case)[2] != 0 or case.scale_range != (1e-3, 0.2):
        return False
    packed = case.source in ("u4", "i4") and case.n * case.k > PACKED_MIN_ELEMENTS
    grouped_rows = case.group is not None and case.k % case.group == 0
    return not packed or (case.group if grouped_rows else case.k) % 2 == 0  # type: ignore[operator]


def _assert_grouped_bound(
    model: ovonehot.Model, case: Case, feeds: dict[str, np.ndarray], weight: Weight, f: np.ndarray
) -> None:
    """The group algebra against a float64 oracle of the unrounded weight ``(q - z) s``:
    |fast - x W^T| <= (2K + 1) eps32 sum|x| (|q| + |z|) |s| + eps32 |fast|."""
    if case.consumer == "tied":  # (x: the rows the Gather picked, the exact ones)
        x = np.asarray(model.run(feeds)["gathered"], np.float64).reshape(-1, case.k)
        w, mag = weight.value, weight.magnitude
        truth, magnitude = x @ w.T, np.abs(x) @ mag.T
        f = f.reshape(truth.shape)
    else:
        x = feeds["x"].astype(np.float64)
        w, mag = weight.value, weight.magnitude
        if case.port == 1:
            truth, magnitude = x @ w.T, np.abs(x) @ mag.T
        else:
            truth, magnitude = w @ x, mag @ np.abs(x)
    eps = float(np.finfo(np.float32).eps)
    bound = (2 * case.k + 1) * eps * magnitude + eps * np.abs(f.astype(np.float64))
    diff = np.abs(f.astype(np.float64) - truth)
    assert (diff <= bound + float(np.finfo(np.float32).smallest_subnormal)).all(), (
        f"{case.label}: |fast - x W^T| {diff.max()} beyond the group algebra's bound"
    )


def _assert_within_bound(
    model: ovonehot.Model, case: Case, feeds: dict[str, np.ndarray], name: str, e: np.ndarray, f: np.ndarray
) -> None:
    """|fast - exact| <= (2K + 1) eps32 sum|x||w| + rounding, with w and x as the unfused run
    computes them (a tied head's x is the gathered rows)."""
    matmul = next(i for i, n in enumerate(model.graph.nodes) if n.type == "MatMul")
    seen: dict[int, list[np.ndarray]] = {}

    def observe(key: Any, plan: Any, outs: Sequence[np.ndarray], seconds: float) -> None:
        seen[key] = [np.array(o) for o in outs]

    model.run(feeds, observer=observe)
    srcs = model.graph.sources[matmul]
    a, w = (seen[s.node][s.output] for s in srcs)
    attrs = model.inference.plans[matmul].attrs
    (magnitude,) = evaluate_matmul(attrs, [np.abs(a.astype(np.float64)), np.abs(w.astype(np.float64))])
    k = case.k
    eps = float(np.finfo(np.float32).eps)
    bound = (2 * k + 1) * eps * magnitude + eps * (
        np.abs(e.astype(np.float64)) + np.abs(f.astype(np.float64))
    )
    bound = np.where(np.isnan(bound), np.inf, bound)  # (an infinite weight: inf * 0 in the bound)
    finite = np.isfinite(e)
    np.testing.assert_array_equal(np.isfinite(f), finite)
    diff = np.abs(np.where(finite, f.astype(np.float64) - np.where(finite, e, 0), 0))
    assert (diff <= bound + float(np.finfo(np.float32).smallest_subnormal)).all(), (
        f"{case.label} {name}: |fast - exact| {diff.max()} beyond the summation bound"
    )


CACHED = [c for c in CASES if c.consumer in ("matmul", "tied") and c.source == "u4"][:4]


@pytest.mark.parametrize("case", CACHED, ids=lambda c: c.label)
def test_weight_cache_keeps_the_bits(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``OVONEHOT_WEIGHT_CACHE`` the blocks a fused MatMul decompressed are kept: later
    runs read them, and every run's outputs keep the uncached bits, exact and fast."""
    rng = np.random.default_rng(7)
    with _written(case, rng) as (xml, feeds, _):
        plain = ovonehot.load(xml)
        cached = ovonehot.load(xml)
    monkeypatch.delenv("OVONEHOT_WEIGHT_CACHE", raising=False)
    want = {exact: plain.run(feeds, exact=exact) for exact in (True, False)}  # (plans made now)
    monkeypatch.setenv("OVONEHOT_WEIGHT_CACHE", str(1 << 24))
    for exact in (True, False):
        for _ in range(2):
            got = cached.run(feeds, exact=exact)
            for name, value in want[exact].items():
                assert_same(got[name], value, f"{case.label} {name} exact={exact}")
    assert cached.inference.cache["decompressed weights"].used > 0
    assert "decompressed weights" not in plain.inference.cache


def test_veltkamp_rounds_as_f16() -> None:
    """``round_to_f16`` (the fused decompression's f16 rounding) is NumPy's f32 -> f16 cast on
    every product of a positive normal f16 scale and an integer 1..1279 that is an f16 normal
    number, and on zeros of both signs (negative products mirror positive ones)."""
    scales = np.arange(0x0400, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)
    for m in range(1, 1280):
        x = scales * np.float32(m)
        x = x[(x >= 2.0**-14) & (x <= 65504.0)]
        want = x.astype(np.float16).astype(np.float32)
        got = round_to_f16(x.copy(), np.empty_like(x))
        assert_same(got, want, f"scale * {m}")
        assert_same(round_to_f16(-x, np.empty_like(x)), -want, f"scale * -{m}")
    zeros = np.array([0.0, -0.0], np.float32)
    assert_same(round_to_f16(zeros.copy(), np.empty_like(zeros)), zeros, "zeros")


@pytest.mark.skipif(threads.cores() < 2, reason="one core: a run never splits a product")
def test_group_algebra_on_two_threads_keeps_the_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A product of more than ``grouped.THREADED_WEIGHTS`` weights splits its rows between the
    run's threads (BLAS on one thread meanwhile): every row is the same sum, so the same bits."""
    case = Case("u4", "f16", True, 128, "matmul", n=1030, k=1024, m=2)
    assert case.n * case.k >= grouped.THREADED_WEIGHTS
    with _written(case, np.random.default_rng(3)) as (xml, feeds, _):
        model = ovonehot.load(xml)
    one = model.run(feeds, exact=False, threads=1)["y"]
    parts: list[int] = []
    split = threads.run_parts
    monkeypatch.setattr(threads, "run_parts", lambda p, n, fn: parts.append(p) or split(p, n, fn))
    two = model.run(feeds, exact=False, threads=2)["y"]
    assert parts == [2]  # (of its blocks)
    assert_same(two, one, "threads=2 vs threads=1")


@pytest.mark.parametrize(
    "case",
    [
        Case("u4", "f16", True, 4, "matmul", m=3),  # a dense (small) weight
        Case("u4", "f16", True, 128, "matmul", n=1030, k=1024, m=3),  # by blocks
    ],
    ids=lambda c: c.label,
)
def test_group_algebra_keeps_non_finite_inputs_where_exact_has_them(case: Case) -> None:
    """An inf or a NaN in ``x``: fast mode's outputs are non-finite exactly where exact's are
    (the blocks hand such an ``x`` to the block path, whose z * sum x_g would make an inf a
    NaN), and NaN exactly where exact's are NaN."""
    with _written(case, np.random.default_rng(5)) as (xml, feeds, _):
        model = ovonehot.load(xml)
    x = feeds["x"].copy()
    x[0, 1], x[1, 2], x[2, 0] = np.inf, -np.inf, np.nan
    feeds = {"x": x}
    exact, fast = model.run(feeds)["y"], model.run(feeds, exact=False)["y"]
    np.testing.assert_array_equal(np.isfinite(fast), np.isfinite(exact))
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(exact))
    assert not np.isfinite(exact).any(), "every row meets an inf or a NaN: nothing finite to compare"


@pytest.mark.parametrize("et", [ElementType.u4, ElementType.i4], ids=str)
@pytest.mark.parametrize(
    "layout",
    [(4, 2, 32, 0), (1, 1, 257, 0), (2, 4, 32, 1)],
    ids=["u64-words", "odd-bytes", "unaligned"],
)
def test_group_algebra_splits_every_byte_as_the_reader(et: ElementType, layout: tuple[int, ...]) -> None:
    """Every byte value's two nibbles, as the reader unpacks them (low nibble first): eight
    bytes at a time when the block is a whole number of aligned u64 words, byte by byte when
    it is not (an odd count, an unaligned start)."""
    c, groups, width, offset = layout
    count = c * groups * width
    store = np.empty(count + 8, np.uint8)
    start = offset + (-store.ctypes.data) % 8  # an aligned start, moved by ``offset``
    raw = store[start : start + count]
    raw[:] = np.arange(count) % 256
    expected = Packed(et, (2 * count,), raw).unpack().astype(np.int8).reshape(c, groups, width, 2)
    got = grouped._nibbles(et, raw.reshape(c, groups, width), grouped.Scratch())
    assert got.dtype == (np.int8 if et is ElementType.i4 else np.uint8)
    np.testing.assert_array_equal(got[0].astype(np.int8), expected[..., 0])
    np.testing.assert_array_equal(got[1].astype(np.int8), expected[..., 1])
