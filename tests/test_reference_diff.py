"""Differential test: ovonehot vs OpenVINO's core reference over seeded random OneHot models.

Each case is one OneHot built with ``openvino.opset1`` / ``openvino.opset16``:

* expected: ``Node.evaluate`` of that OneHot with Constant inputs (OpenVINO's
  reference, the code its constant folding runs; shape and type from OpenVINO's own
  shape inference);
* ours: the same op in a model (indices a Parameter, possibly with dynamic or
  interval dims; depth, on and off each a Constant or a Parameter) written with
  ``ov.save_model`` (f16-compressed or plain), read back by ``ovonehot.load`` and run.

Compared shape, then dtype, then bits.  The cases cover both versions and modes, ranks
0..5, every legal axis, i32/i64 indices (i64 beyond int32 too), every depth integer
type, depth 0, out-of-range and negative indices, every value type whose OpenVINO
OneHot kernel is sound, and on/off drawn as raw bit patterns (NaN payloads, -0.0,
inf, subnormals, integer extremes).

Excluded value types, with the reason (FACTS.md, openvino_oracle.refusal):
string (OpenVINO's OneHot reference aborts the process) and sub-byte types
u1/u2/u3/u4/u6/i4/nf4/f4e2m1 (its kernel writes one byte per element past the packed
output).  Float on/off Constants in the f16-compressed half are drawn from values f16
holds exactly, so the file holds the very values the reference was given (plain
models take any bits).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO")
from openvino import opset1, opset16  # noqa: E402

import ovonehot  # noqa: E402
from exact import assert_same  # noqa: E402
from ovonehot.openvino_oracle import from_tensor, to_tensor  # noqa: E402
from ovonehot.types import ElementType  # noqa: E402

SEED = 20260401
N_CASES = 1500

VALUE_TYPES = tuple(ElementType(t) for t in (
    "boolean", "bf16", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "f8e4m3", "f8e5m2", "f8e8m0",
))
DEPTH_TYPES = tuple(ElementType(t) for t in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"))
INDEX_TYPES = (ElementType.i32, ElementType.i64)
MODES = (None, "ignore_negative", "normalize", "NORMALIZE")  # None: OneHot-1; case-insensitive enum
BEYOND_INT32 = (2**32, 2**32 + 1, -(2**32) + 1, 2**31, -(2**31) - 1, 2**40 + 2, 2**63 - 1, -(2**63))


@dataclass(frozen=True)
class Case:
    """One OneHot to build, save, run and compare."""

    index: int
    version: int
    mode: str | None
    indices: np.ndarray
    param_shape: str  # the indices Parameter's declared shape, OpenVINO notation
    axis: int
    depth: np.ndarray  # 0-d, of the depth type
    on: np.ndarray  # 0-d, of the value type
    off: np.ndarray
    value_type: ElementType
    depth_is_param: bool
    values_are_params: bool
    compress: bool

    @property
    def id(self) -> str:
        mode = {None: "", "ignore_negative": "-ign", "normalize": "-norm", "NORMALIZE": "-NORM"}[self.mode]
        where = ("dP" if self.depth_is_param else "dC") + ("vP" if self.values_are_params else "vC")
        return (f"{self.index:03d}-v{self.version}{mode}-r{self.indices.ndim}-ax{self.axis}-"
                f"{ElementType.from_numpy(self.indices.dtype)}-d{int(self.depth)}{ElementType.from_numpy(self.depth.dtype)}"
                f"-{self.value_type}-{where}-{'f16c' if self.compress else 'plain'}")


def _bits_of(et: ElementType, rng: np.random.Generator, f16_exact: bool) -> np.ndarray:
    """One 0-d value of ``et``: random bits, with specials and extremes over-represented."""
    dtype = et.numpy_dtype
    assert dtype is not None
    if et is ElementType.boolean:
        return np.array(bool(rng.integers(2)))
    if et.is_integral_number:
        info = np.iinfo(dtype)
        pick = rng.integers(4)
        if pick < 3:
            return np.array([info.min, info.max, 0][pick], dtype=dtype)
        return np.array(rng.integers(info.min, info.max, dtype=dtype, endpoint=True))
    if rng.random() < 0.35:  # a special value, or a signalling NaN with a payload
        specials = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 65504.0, 2.0**-24]
        pick = int(rng.integers(len(specials) + 1))
        if pick < len(specials):
            with np.errstate(invalid="ignore", over="ignore"):
                return np.array(specials[pick]).astype(dtype)
        if dtype.itemsize >= 2:
            source = np.float16 if f16_exact and et in (ElementType.f32, ElementType.f64) else dtype
            snan = np.array(-1, dtype=np.int64).astype(f"u{np.dtype(source).itemsize}")
            bits = np.array(snan).view(source)  # all ones: a negative NaN with a full payload
            with np.errstate(invalid="ignore"):
                return bits.astype(dtype)
    if f16_exact and et in (ElementType.f32, ElementType.f64):
        half = np.array(rng.integers(0, 2**16), dtype=np.uint16).view(np.float16)
        with np.errstate(invalid="ignore"):
            return half.astype(dtype)
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return np.array(rng.integers(0, 2 ** (8 * dtype.itemsize), dtype=np.uint64, endpoint=False)
                    .astype(width)).view(dtype)


def _param_shape(shape: tuple[int, ...], rng: np.random.Generator) -> str:
    """Static most of the time; else some dims '?', 'a..b', 'a..' or '..b' around the real size."""
    if rng.random() < 0.6:
        return ",".join(str(n) for n in shape)
    parts = []
    for n in shape:
        kind = rng.integers(5)
        parts.append([str(n), "?", f"{max(n - 1, 0)}..{n + 2}", f"{n}..", f"..{n + 1}"][kind])
    return ",".join(parts)


def make_cases(n: int, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n):
        mode = MODES[rng.integers(len(MODES))]
        version = 1 if mode is None else 16
        rank = int(rng.integers(0, 6))
        shape = tuple(int(d) for d in rng.integers(0 if rng.random() < 0.05 else 1, 4, size=rank))
        axis = int(rng.integers(-(rank + 1), rank + 1))
        index_type = INDEX_TYPES[rng.integers(2)]
        depth_type = DEPTH_TYPES[rng.integers(len(DEPTH_TYPES))]
        depth = int(rng.choice([0, 1, 2, 3, 4, 5, 7, 17])) if rng.random() < 0.9 else 0
        indices = rng.integers(-depth - 3, depth + 3, size=shape).astype(index_type.numpy_dtype)
        if index_type is ElementType.i64 and indices.size and rng.random() < 0.4:
            flat = indices.reshape(-1)
            for j in rng.integers(0, flat.size, size=max(1, flat.size // 3)):
                flat[j] = np.int64(BEYOND_INT32[rng.integers(len(BEYOND_INT32))])
        value_type = VALUE_TYPES[rng.integers(len(VALUE_TYPES))]
        compress = bool(rng.integers(2))
        values_are_params = rng.random() < 0.25
        exact = compress and not values_are_params
        cases.append(Case(
            index=k, version=version, mode=mode, indices=indices, param_shape=_param_shape(shape, rng),
            axis=axis, depth=np.array(depth, dtype=depth_type.numpy_dtype),
            on=_bits_of(value_type, rng, exact), off=_bits_of(value_type, rng, exact),
            value_type=value_type, depth_is_param=rng.random() < 0.3, values_are_params=values_are_params,
            compress=compress,
        ))
    return cases


CASES = make_cases(N_CASES, SEED)


def _const(et: ElementType, value: np.ndarray) -> object:
    return ov.op.Constant(to_tensor(et, value), shared_memory=False)


def _one_hot(case: Case, indices: object, depth: object, on: object, off: object) -> object:
    if case.version == 1:
        return opset1.one_hot(indices, depth, on, off, case.axis)
    return opset16.one_hot(indices, depth, on, off, case.axis, negative_indices_mode=case.mode)


def expected(case: Case) -> np.ndarray:
    """OpenVINO's reference: Node.evaluate of the OneHot on Constant inputs."""
    args = [
        (ElementType.from_numpy(case.indices.dtype), case.indices),
        (ElementType.from_numpy(case.depth.dtype), case.depth),
        (case.value_type, case.on),
        (case.value_type, case.off),
    ]
    node = _one_hot(case, *(_const(et, v) for et, v in args))
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([out], [to_tensor(et, v) for et, v in args]), "OpenVINO has no evaluate for this case"
    return from_tensor(out)


def write_model(case: Case, path: Path) -> dict[str, np.ndarray]:
    """The case as an IR file written by OpenVINO; returns ovonehot's inputs for it."""
    idx_t = ElementType.from_numpy(case.indices.dtype)
    dep_t = ElementType.from_numpy(case.depth.dtype)
    params = [opset1.parameter(ov.PartialShape(f"[{case.param_shape}]"), getattr(ov.Type, idx_t.value),
                               name="indices")]
    inputs = {"indices": case.indices}

    def maybe_param(name: str, et: ElementType, value: np.ndarray, is_param: bool) -> object:
        if not is_param:
            return _const(et, value)
        p = opset1.parameter([], getattr(ov.Type, et.value), name=name)
        params.append(p)
        inputs[name] = value
        return p

    depth = maybe_param("depth", dep_t, case.depth, case.depth_is_param)
    on = maybe_param("on_value", case.value_type, case.on, case.values_are_params)
    off = maybe_param("off_value", case.value_type, case.off, case.values_are_params)
    node = _one_hot(case, params[0], depth, on, off)
    ov.save_model(ov.Model([node.output(0)], params, "diff"), str(path), compress_to_fp16=case.compress)
    return inputs


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_hot_equals_openvino_reference(case: Case, tmp_path: Path) -> None:
    xml = tmp_path / "m.xml"
    inputs = write_model(case, xml)
    (ours,) = ovonehot.load(xml).run(inputs).values()
    assert_same(ours, expected(case), case.id)


def test_cases_cover_the_space() -> None:
    """The seeded draw reaches every version/mode, rank, axis, type and special input."""
    assert {c.mode for c in CASES} == set(MODES)
    assert {c.indices.ndim for c in CASES} == set(range(6))
    assert {(c.indices.ndim, c.axis) for c in CASES} == {(r, a) for r in range(6) for a in range(-r - 1, r + 1)}
    assert {c.value_type for c in CASES} == set(VALUE_TYPES)
    assert {ElementType.from_numpy(c.depth.dtype) for c in CASES} == set(DEPTH_TYPES)
    assert {ElementType.from_numpy(c.indices.dtype) for c in CASES} == set(INDEX_TYPES)
    assert any(int(c.depth) == 0 for c in CASES)
    assert any(c.indices.dtype == np.int64 and c.indices.size and np.abs(c.indices).max() > 2**31 for c in CASES)
    assert any(c.indices.size and c.indices.min() < 0 for c in CASES)
    assert any(c.indices.size and c.indices.max() >= int(c.depth) for c in CASES)
    assert any("?" in c.param_shape or ".." in c.param_shape for c in CASES)
    assert {(c.depth_is_param, c.values_are_params, c.compress) for c in CASES} == {
        (a, b, z) for a in (False, True) for b in (False, True) for z in (False, True)}
    for et in (ElementType.f16, ElementType.f32, ElementType.f64, ElementType.bf16):
        with np.errstate(invalid="ignore"):
            values = [v.astype(np.float64) for c in CASES if c.value_type is et for v in (c.on, c.off)]
        assert any(np.isnan(v) for v in values) and any(np.isinf(v) for v in values), et
        assert any(v == 0 and np.signbit(v) for v in values), et
