"""Conformance cases generated from the registry: every spec, its seeds expanded across element
types, ranks (0-d and empty dims included), values (random, boundary, out of range) and static or
dynamic (``?``) Parameter declarations, each candidate kept only when the spec's own ``infer``
accepts it (and its ``evaluate_types``, where it has them, the input types).

``cases(spec, n, seed)`` is deterministic in ``seed``.  Its order is a priority: the first
cases of an op are a boundary case (f32 where the op takes it), a 0-d boundary one, an empty
dynamic one, an out-of-range one (where a seed has index inputs)...,
rotating the element-type combinations so that a long enough run covers every combination the
spec accepts (:func:`plans`) at least once before any twice.
"""

from __future__ import annotations

import functools
import itertools
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

from ovonehot.errors import Error
from ovonehot.graph import Node, Port
from ovonehot.ops import OpSpec, TensorInfo
from ovonehot.types import ElementType, PartialShape
from tests.conformance.seeds import Conformance, Data, Fixed, In, Ints, Positive, Seed
from tests.conformance.table import entry

# The element types every data input is tried with (others where a seed names them).
TYPES = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "boolean")
# Ranks 0 to 4, empty dims included; 15 and 16 elements hold every boundary value.
SHAPES: tuple[tuple[int, ...], ...] = ((), (0,), (6,), (3, 5), (3, 0), (2, 1, 3), (1, 2, 2, 4))
ATTR_COMBINATIONS = 24  # attribute variant combinations kept per seed (sampled beyond that)

RANDOM, BOUNDARY, OUT_OF_RANGE = "random", "boundary", "out-of-range"
# What the i-th case of an op prefers: (shape, values, dynamic declaration).
SLOTS = (
    ("any", BOUNDARY, False),
    ("rank0", BOUNDARY, False),
    ("empty", RANDOM, True),
    ("any", OUT_OF_RANGE, False),
    ("any", RANDOM, True),
    ("rank0", RANDOM, False),
    ("any", BOUNDARY, True),
    ("any", RANDOM, False),
)


@dataclass(frozen=True, slots=True)
class CaseInput:
    """One input of a case: a Constant, or a Parameter declared static or with ``?`` dims."""

    element_type: ElementType
    value: np.ndarray = field(compare=False)
    const: bool
    dynamic: bool

    @property
    def declared(self) -> PartialShape:
        if self.dynamic:
            return PartialShape.parse(",".join("?" for _ in self.value.shape))
        return PartialShape.of(self.value.shape)

    def info(self, static: bool = False) -> TensorInfo:
        """What inference knows about this input (a Constant's value; ``static``: the fed shape)."""
        shape = PartialShape.of(self.value.shape) if static or self.const else self.declared
        return TensorInfo(self.element_type, shape, self.value if self.const else None)


@dataclass(frozen=True, slots=True)
class Case:
    """One generated case of one spec."""

    spec: OpSpec[Any] = field(compare=False)
    attrs: tuple[tuple[str, str], ...]
    inputs: tuple[CaseInput, ...]
    values: str  # RANDOM, BOUNDARY or OUT_OF_RANGE
    label: str
    outputs: int = 1  # the layer's output ports (a VariadicSplit's count is the IR's)

    @property
    def types(self) -> tuple[ElementType, ...]:
        return tuple(i.element_type for i in self.inputs)

    def node(self) -> Node:
        """The op's layer as the reader would hold it (for ``spec.parse``)."""
        n = len(self.inputs)
        return Node(
            n,
            "op",
            self.spec.type,
            f"opset{self.spec.since}",
            self.attrs,
            tuple(Port(k) for k in range(n)),
            tuple(Port(n + k) for k in range(self.outputs)),
        )


@dataclass(frozen=True, slots=True)
class Plan:
    """A seed with one attribute combination and one element-type combination."""

    seed: Seed
    attrs: tuple[tuple[str, str], ...]
    types: tuple[ElementType, ...]


def cases(spec: OpSpec[Any], n: int, seed: int) -> list[Case]:
    """Up to ``n`` cases of ``spec`` (fewer when the spec accepts fewer distinct ones)."""
    if entry(spec).not_generated:
        return []
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode()), 1])
    ordered = ordered_plans(spec, seed)
    if not ordered:
        return []
    found: list[Case] = []
    labels: set[str] = set()
    attempts = 0
    for i in itertools.count():
        if len(found) >= n or attempts > 4 * n + 2 * len(ordered):
            break
        attempts += 1
        plan = ordered[i % len(ordered)]
        case = _case(spec, plan, SLOTS[i % len(SLOTS)], rng)
        if case is None:
            continue
        label = case.label
        k = 2
        while label in labels:
            label, k = f"{case.label}#{k}", k + 1
        labels.add(label)
        found.append(Case(spec, case.attrs, case.inputs, case.values, label, case.outputs))
    return found


@functools.cache
def ordered_plans(spec: OpSpec[Any], seed: int) -> tuple[Plan, ...]:
    """The spec's plans in the order cases take them (every type combination first), once per seed."""
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
    return tuple(_rotation(plans(spec, entry(spec), rng), rng))


def plans(spec: OpSpec[Any], conformance: Conformance, rng: np.random.Generator) -> list[Plan]:
    """Every (seed, attributes, element types) the spec accepts on the seed's base shapes."""
    out = [
        Plan(seed, attrs, types)
        for seed in conformance.seeds or (derived_seed(spec),)
        for attrs in _attr_combinations(seed, rng)
        for types in _type_combinations(seed, conformance)
        if _accepted_somewhere(spec, seed, attrs, types, rng)
    ]
    evaluated = [p for p in out if spec.evaluates_types(p.types)]
    return evaluated or out  # (OpenVINO evaluates none: the CPU plugin or no oracle, kernels still run)


def derived_seed(spec: OpSpec[Any]) -> Seed:
    """Every input data of one type and one shape (or one broadcasting to it)."""
    count = spec.inputs if isinstance(spec.inputs, int) else spec.inputs[0]
    return Seed(tuple(In() if k == 0 else In(like=0) for k in range(count)))


def _rotation(found: list[Plan], rng: np.random.Generator) -> list[Plan]:
    """Plans ordered so that consecutive ones differ in element types: every type combination
    once (in a random order), then again with other attributes."""
    groups: dict[tuple[ElementType, ...], list[Plan]] = {}
    for p in found:
        groups.setdefault(p.types, []).append(p)
    keys = list(groups)
    rng.shuffle(keys)  # type: ignore[arg-type]
    f32 = [k for k in keys if k and all(t is ElementType.f32 for t in k)]
    keys = f32 + [k for k in keys if k not in f32]  # (the first case: f32, where the op takes it)
    for k in keys:
        rng.shuffle(groups[k])  # type: ignore[arg-type]
    ordered = []
    for rank in range(max((len(g) for g in groups.values()), default=0)):
        ordered.extend(groups[k][rank] for k in keys if rank < len(groups[k]))
    return ordered


def _attr_combinations(seed: Seed, rng: np.random.Generator) -> list[tuple[tuple[str, str], ...]]:
    names = [name for name, _ in seed.attrs]
    combos = [
        tuple(zip(names, values, strict=True)) for values in itertools.product(*(v for _, v in seed.attrs))
    ]
    if len(combos) > ATTR_COMBINATIONS:
        keep = rng.choice(len(combos), ATTR_COMBINATIONS, replace=False)
        combos = [combos[int(k)] for k in sorted(keep)]
    return combos


def _type_combinations(seed: Seed, conformance: Conformance) -> Iterator[tuple[ElementType, ...]]:
    choices: list[tuple[str, ...]] = []
    for inp in seed.inputs:
        if inp.like is not None:
            choices.append(("",))  # tied: filled in below
        else:
            choices.append(inp.types if inp.types is not None else TYPES + conformance.extra_types)
    for names in itertools.product(*choices):
        resolved = list(names)
        for k, inp in enumerate(seed.inputs):
            if inp.like is not None:
                resolved[k] = resolved[inp.like]
        yield tuple(ElementType.from_name(t) for t in resolved)


def _accepted_somewhere(
    spec: OpSpec[Any],
    seed: Seed,
    attrs: tuple[tuple[str, str], ...],
    types: tuple[ElementType, ...],
    rng: np.random.Generator,
) -> bool:
    """Whether ``infer`` accepts these attributes and types for some shape of the rank table."""
    for choice in ("any", "rank0", "empty"):
        if _case(spec, Plan(seed, attrs, types), (choice, RANDOM, False), rng) is not None:
            return True
    return False


def _case(
    spec: OpSpec[Any], plan: Plan, slot: tuple[str, str, bool], rng: np.random.Generator
) -> Case | None:
    """A case of ``plan`` close to what ``slot`` prefers, or None when ``infer`` refuses them all."""
    shape_pref, values, dynamic = slot
    if values == OUT_OF_RANGE and not any(isinstance(i.values, Ints) for i in plan.seed.inputs):
        values = BOUNDARY
    free = [
        k
        for k, i in enumerate(plan.seed.inputs)
        if i.shape is None and i.like is None and i.shape_like is None and not _fixed(i)
    ]
    for shapes in _shape_choices(shape_pref, len(free), rng):
        chosen = dict(zip(free, shapes, strict=True))
        inputs = _inputs(plan, chosen, values, dynamic, rng)
        if inputs is None:
            continue
        try:
            node = Case(spec, plan.attrs, inputs, values, "", plan.seed.outputs).node()
            attrs = spec.parse(node)
            spec.infer(attrs, [i.info() for i in inputs])
            spec.infer(attrs, [i.info(static=True) for i in inputs])
        except Error:
            continue
        return Case(
            spec, plan.attrs, inputs, values, _label(spec, plan, inputs, values, dynamic), plan.seed.outputs
        )
    return None


def _fixed(inp: In) -> bool:
    return isinstance(inp.values, Fixed)


def _shape_choices(pref: str, n: int, rng: np.random.Generator) -> Iterator[tuple[tuple[int, ...], ...]]:
    """Shapes for ``n`` free inputs: the preferred kind first, then the rest of the table."""
    if n == 0:
        yield ()
        return
    first = {"rank0": [()], "empty": [s for s in SHAPES if 0 in s]}.get(
        pref, [s for s in SHAPES if s and 0 not in s]
    )
    order = [first[int(k)] for k in rng.permutation(len(first))]
    order += [SHAPES[int(k)] for k in rng.permutation(len(SHAPES)) if SHAPES[int(k)] not in order]
    for shape in order:
        yield (shape,) * n  # (free inputs of one seed share a shape: they are usually alike)


def _inputs(
    plan: Plan,
    chosen: dict[int, tuple[int, ...]],
    values: str,
    dynamic: bool,
    rng: np.random.Generator,
) -> tuple[CaseInput, ...] | None:
    made: list[CaseInput] = []
    for k, inp in enumerate(plan.seed.inputs):
        et = plan.types[k]
        dtype = et.numpy_dtype
        if dtype is None:
            return None
        tied = inp.like if inp.like is not None else inp.shape_like
        if tied is not None and inp.shape is None:
            shape = _broadcasting(made[tied].value.shape, rng)
        elif inp.shape is not None:
            shape = inp.shape
        elif _fixed(inp):
            shape = np.shape(inp.values.value)  # type: ignore[union-attr]
        else:
            shape = chosen[k]
        offset = _offset(made, inp, shape, rng)
        value = make_values(inp.values, et, shape, values, rng, offset)
        made.append(CaseInput(et, value, inp.const, dynamic and not inp.const))
    return tuple(made)


def _offset(made: Sequence[CaseInput], inp: In, shape: tuple[int, ...], rng: np.random.Generator) -> int:
    """Where the boundary pool starts: 0 for a first input of several elements (so every boundary
    value appears), random for a scalar; an input tied to another starts where that one did."""
    tied = inp.like if inp.like is not None else inp.shape_like
    if tied is not None:
        return 0 if int(np.prod(made[tied].value.shape)) > 1 else int(rng.integers(0, 64))
    return 0 if int(np.prod(shape)) > 1 else int(rng.integers(0, 64))


def _broadcasting(shape: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
    """The same shape mostly; else a scalar or the trailing dim (numpy broadcasting)."""
    r = rng.random()
    if r < 0.7 or not shape:
        return shape
    if r < 0.85:
        return ()
    return shape[-1:]


def float_pool(dtype: np.dtype) -> np.ndarray:
    """NaN, +-inf, -0.0, 0, +-1, max, lowest, the smallest normal and subnormal, halves."""
    info = ml_dtypes.finfo(dtype)
    values = [
        np.nan,
        np.inf,
        -np.inf,
        -0.0,
        0.0,
        1.0,
        -1.0,
        float(info.max),
        float(info.min),
        float(info.tiny),
        float(info.smallest_subnormal),
        -float(info.smallest_subnormal),
        0.5,
        -2.5,
        3.0,
    ]
    with np.errstate(all="ignore"):
        return np.array(values, dtype=np.float64).astype(dtype)


def int_range(et: ElementType) -> tuple[int, int]:
    """The values an integer type holds (u1/u3/u6 are held unpacked, one per uint8)."""
    if et.numpy_dtype == np.uint8 and et.bitwidth < 8:
        return 0, 2**et.bitwidth - 1
    info = ml_dtypes.iinfo(et.numpy_dtype)
    return int(info.min), int(info.max)


def int_pool(et: ElementType) -> np.ndarray:
    lo, hi = int_range(et)
    values = list(dict.fromkeys(v for v in (lo, hi, 0, 1, -1, lo + 1, hi - 1, 2, 3) if lo <= v <= hi))
    return np.array(values, dtype=np.int64 if lo < 0 else np.uint64).astype(et.numpy_dtype)


def make_values(
    kind: object,
    et: ElementType,
    shape: tuple[int, ...],
    values: str,
    rng: np.random.Generator,
    offset: int = 0,
) -> np.ndarray:
    """An input's values of element type ``et``."""
    dtype = et.numpy_dtype
    assert dtype is not None
    size = int(np.prod(shape))
    if isinstance(kind, Fixed):
        with np.errstate(all="ignore"):
            return np.asarray(np.asarray(kind.value).astype(dtype)).reshape(shape)
    if isinstance(kind, Ints):
        return _ints(kind, et, shape, values, rng)
    if dtype == np.bool_:
        return np.asarray(rng.random(size) < 0.5).reshape(shape)
    floating = dtype.kind == "f" or et.is_real
    if isinstance(kind, Positive):
        out = rng.uniform(0.1, 4.0, size)
        return np.asarray(out.astype(dtype) if floating else np.ceil(out).astype(dtype)).reshape(shape)
    assert isinstance(kind, Data)
    if values == RANDOM:
        if floating:
            return np.asarray((rng.standard_normal(size) * 3).astype(dtype)).reshape(shape)
        lo, hi = int_range(et)
        return np.asarray(rng.integers(max(lo, -5), min(hi, 5) + 1, size).astype(dtype)).reshape(shape)
    pool = float_pool(dtype) if floating else int_pool(et)
    picks = [(offset + j) % len(pool) for j in range(size)]
    return np.asarray(pool[picks]).reshape(shape)


def _ints(
    kind: Ints, et: ElementType, shape: tuple[int, ...], values: str, rng: np.random.Generator
) -> np.ndarray:
    dtype = et.numpy_dtype
    assert dtype is not None
    size = int(np.prod(shape))
    lo, hi = kind.lo, kind.hi
    out = rng.integers(lo, hi + 1, size) if hi >= lo else np.zeros(size, np.int64)
    if size and values == BOUNDARY and hi >= lo:
        out[0], out[-1] = lo, hi
    if size and values == OUT_OF_RANGE:
        out[int(rng.integers(0, size))] = hi + 1 if rng.random() < 0.5 else lo - 1
    if not et.is_real and et is not ElementType.boolean:
        out = np.clip(out, *int_range(et))
    return np.asarray(out.astype(dtype)).reshape(shape)


def _label(spec: OpSpec[Any], plan: Plan, inputs: Sequence[CaseInput], values: str, dynamic: bool) -> str:
    """``Add-1[f32,f32;rank0;boundary;dyn;axis=1]``."""
    types = ",".join(str(t) for t in plan.types)
    first = inputs[0].value.shape if inputs else ()
    shape = "rank0" if not first else "x".join(map(str, first))
    parts = [types, shape, values]
    if dynamic and any(not i.const for i in inputs):
        parts.append("dyn")
    parts.extend(f"{k}={v}" for k, v in plan.attrs)
    return f"{spec.name}[{';'.join(parts)}]"
