"""Convert-0 against OpenVINO's core reference (``Node.evaluate``), through real IR.

Every (source, destination) pair of the table below is run on seeded values that
include the edge cases of both types: integer wrap-around, float truncation toward
zero, NaN/inf/-0.0 between floats.  To bf16 ovonehot rounds to nearest even (IEEE, the CPU
plugin, ONNX) where the reference rounds its own way: those pairs are compared with ovonehot
reproducing the reference's rounding (the named deviation ``bf16-reference-rounding``), and
ovonehot's own rounding with ml_dtypes, an exact oracle and the CPU plugin at the end.  Float ->
integer values outside the destination's range (undefined in C++, fixed by the
compiler's code path: see ``ovonehot/ops/convert.py``) have their own table.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from ovref import P, compare_op, ov

from ovonehot.ops.common.bf16 import Bf16Rounding, bf16_rounding

ops = pytest.importorskip("openvino.opset1")

FLOATS = ["f16", "bf16", "f32", "f64"]
INTS = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"]
DTYPES = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "u8": np.uint8,
    "i16": np.int16,
    "u16": np.uint16,
    "i32": np.int32,
    "u32": np.uint32,
    "i64": np.int64,
    "u64": np.uint64,
    "boolean": np.bool_,
}


def values_for(source: str, destination: str) -> np.ndarray:
    """Seeded source values, restricted to where OpenVINO's result is defined."""
    rng = np.random.default_rng(abs(hash((source, destination))) % 2**32)
    dtype = np.dtype(DTYPES[source])
    if source == "boolean":
        return np.array([True, False, True, True, False])
    if source in INTS:
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, info.max // 2 + 1], dtype=dtype)
        return np.concatenate([edges, rng.integers(info.min, info.max, size=200, dtype=dtype, endpoint=True)])
    floats = np.concatenate(
        [
            rng.standard_normal(200) * 100,
            rng.standard_normal(50) * 1e6,
            [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 1e-8, -1e-8],
        ]
    )
    if destination in INTS:  # only values whose truncation fits the destination
        info = np.iinfo(np.dtype(DTYPES[destination]))
        floats = floats[(np.trunc(floats) >= info.min) & (np.trunc(floats) <= info.max)]
        # f16/bf16 rounding of the value must not push it out of range either
        with np.errstate(over="ignore"):
            held = floats.astype(dtype).astype(np.float64)
        floats = floats[(np.trunc(held) >= info.min) & (np.trunc(held) <= info.max)]
    else:
        floats = np.concatenate([floats, [np.inf, -np.inf, np.nan, 3.4e38, 1e300, 6.1e-5, 1e-40]])
    with np.errstate(over="ignore"):
        return floats.astype(dtype)


PAIRS = [(s, d) for s in FLOATS + INTS + ["boolean"] for d in FLOATS + INTS + ["boolean"] if s != d]


def rounded_as(destination: str) -> contextlib.AbstractContextManager[None]:
    """Where ovonehot knowingly departs from the reference (bf16: nearest-even against its own
    rounding, the named deviation ``bf16-reference-rounding``), the reference's way, which
    ovonehot reproduces under :func:`bf16_rounding` (its own rounding: the tests further down)."""
    if destination == "bf16":
        return bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE)
    return contextlib.nullcontext()


@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_convert_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    x = values_for(source, destination)
    with rounded_as(destination):
        compare_op(tmp_path, lambda a: ops.convert(a, getattr(ov.Type, destination)), [P(x)])


# Float -> integer outside the destination's range (or NaN): undefined in C++, but OpenVINO's x86
# reference gives fixed results, through int32 / int64 or, for u64 and f32 -> u32, the compiler's
# unsigned sequence (+inf -> 0, NaN -> 2**(n-1)).  Compared bit for bit with Node.evaluate.
OUT_OF_RANGE = [
    np.inf,
    -np.inf,
    np.nan,
    1e10,
    -1e10,
    3e9,
    2.0**31,
    2.0**32,
    2.0**32 - 256,
    2.0**63,
    2.0**63 + 2.0**40,
    2.0**64,
    1e20,
    -1e30,
    -(2.0**31) - 256,
    70000.0,
    -70000.0,
    -1.0,
    65504.0,
]
OUT_OF_RANGE_PAIRS = [(s, d) for s in FLOATS for d in INTS]


@pytest.mark.parametrize(
    ("source", "destination"), OUT_OF_RANGE_PAIRS, ids=[f"{s}->{d}" for s, d in OUT_OF_RANGE_PAIRS]
)
def test_float_to_int_out_of_range_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(OUT_OF_RANGE, np.float64).astype(DTYPES[source])
    compare_op(tmp_path, lambda a: ops.convert(a, getattr(ov.Type, destination)), [P(x)])


# Float -> float bit patterns where NumPy/ml_dtypes and OpenVINO part ways: NaN payloads (quiet or
# signalling, both signs) and, to f8e8m0, zero, negatives, ties, overflow.  Every 8-bit code of the
# f8 types; chosen codes for the wider ones.  Bits compared with OpenVINO's reference.
FLOAT_CODES: dict[str, list[int]] = {
    "f16": [
        0x7C01,
        0x7D00,
        0x7E00,
        0x7FFF,
        0xFC01,
        0xFE00,
        0xFFFF,
        0x4200,
        0xC200,
        0x0000,
        0x8000,
        0x7C00,
        0xFC00,
        0x0001,
        0x3E00,
        0x4500,
    ],
    "bf16": [
        0x7F81,
        0x7FC0,
        0x7FFF,
        0xFF81,
        0xFFC1,
        0x4040,
        0xC040,
        0x0000,
        0x8000,
        0x7F80,
        0xFF80,
        0x7F7F,
        0x0041,
        0x0061,
    ],  # subnormals either side of 0.75 * 2**-126
    # ... and values OpenVINO rounds twice (to f8 through f16: 0xC0E80406 -> f8e4m3 0xCE, not 0xCF)
    "f32": [
        0x7F800001,
        0x7FC00000,
        0x7FC00001,
        0xFFC12345,
        0xFF800001,
        0x7FBFFFFF,
        0x40400000,
        0xC0400000,
        0x00000000,
        0x80000000,
        0x7F800000,
        0xFF800000,
        0x7F7FFFFF,
        0x00000001,
        0x3FC00000,
        0x40A00000,
        0x00571F87,
        0x007DA7EB,
        0xC0E80406,
        0x40A806AF,
        0x4550012B,
        0xB9AFFB2E,
    ],
    "f64": [
        0x7FF0000000000001,
        0x7FF8000000000000,
        0xFFF8000012345678,
        0x7FF7FFFFFFFFFFFF,
        0x7FF0040000000000,
        0xFFF0200000000000,
        0x4008000000000000,
        0x0000000000000000,
        0x8000000000000000,
        0x3FEF9A000D9A3BB9,
        0x3FB2FF15B6959214,
        0x400201FEDEBE8759,
    ],  # (f16 through f32, f8 through f16)
    "f8e4m3": list(range(256)),
    "f8e5m2": list(range(256)),
    "f8e8m0": list(range(256)),
}
BITS = {
    "f16": np.uint16,
    "bf16": np.uint16,
    "f32": np.uint32,
    "f64": np.uint64,
    "f8e4m3": np.uint8,
    "f8e5m2": np.uint8,
    "f8e8m0": np.uint8,
}
# OpenVINO has no reference Convert between these.
NO_REFERENCE = {
    ("f8e5m2", "f8e8m0"),
    ("f8e4m3", "f8e8m0"),
    ("f8e8m0", "f64"),
    ("f8e8m0", "f8e5m2"),
    ("f8e8m0", "f8e4m3"),
    ("f64", "f8e8m0"),
}
FLOAT_PAIRS = [(s, d) for s in FLOAT_CODES for d in FLOAT_CODES if s != d and (s, d) not in NO_REFERENCE]


@pytest.mark.parametrize(("source", "destination"), FLOAT_PAIRS, ids=[f"{s}->{d}" for s, d in FLOAT_PAIRS])
def test_float_bit_patterns_match_reference(tmp_path: Path, source: str, destination: str) -> None:
    import ovonehot
    from ovonehot.oracle.openvino_runtime import reference_run

    p = ops.parameter([len(FLOAT_CODES[source])], getattr(ov.Type, source), name="x")
    node = ops.convert(p, getattr(ov.Type, destination))
    node.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    model = ovonehot.load(xml)
    x = np.array(FLOAT_CODES[source], dtype=BITS[source]).view(model.inputs[0].element_type.numpy_dtype)
    with rounded_as(destination):
        ours = model.run({"x": x})["y"]
    theirs = reference_run(xml, {"x": x})["y"]
    assert ours.dtype == theirs.dtype
    width = BITS[destination]
    bad = [
        (hex(c), hex(int(a)), hex(int(b)))
        for c, a, b in zip(FLOAT_CODES[source], ours.view(width), theirs.view(width), strict=True)
        if a != b
    ]
    assert not bad, f"(source code, ours, OpenVINO's): {bad[:8]}"


# Integers -> f8 round twice in OpenVINO (through f32 and f16): i16 26629 -> f8e5m2 0x76, not 0x77.
INT_TO_F8_VALUES = [
    26629,
    2305,
    7678,
    22522,
    -3839,
    45055,
    36875,
    61437,
    -61425,
    448,
    464,
    57344,
    61440,
    65504,
    0,
    1,
    -1,
    255,
    127,
    -128,
    2**31 - 1,
    -(2**31),
    2**40 + 3,
]
INT_TO_F8_PAIRS = [(s, d) for s in INTS for d in ("f8e4m3", "f8e5m2")]


@pytest.mark.parametrize(
    ("source", "destination"), INT_TO_F8_PAIRS, ids=[f"{s}->{d}" for s, d in INT_TO_F8_PAIRS]
)
def test_int_to_f8_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    import ovonehot
    from ovonehot.oracle.openvino_runtime import reference_run

    info = np.iinfo(DTYPES[source])
    x = np.array(
        sorted({min(max(v, int(info.min)), int(info.max)) for v in INT_TO_F8_VALUES}), dtype=DTYPES[source]
    )
    p = ops.parameter([x.size], getattr(ov.Type, source), name="x")
    node = ops.convert(p, getattr(ov.Type, destination))
    node.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    ours, theirs = ovonehot.load(xml).run({"x": x})["y"], reference_run(xml, {"x": x})["y"]
    assert ours.view(np.uint8).tolist() == theirs.view(np.uint8).tolist()


# f32 -> bf16 boundary values: ties either way, near-ties, the last finite bf16 and what rounds past
# it, inf, NaNs with a payload only in the low 16 bits, in the top bits, all ones, both signs.
BF16_BOUNDARY = [
    0x3F808000,
    0x3F818000,
    0x3F80C000,
    0x3F814000,
    0x3F80FFFF,
    0x3F817FFF,
    0x3F818001,
    0xBF80C000,
    0x7F7EFFFF,
    0x7F7F7FFF,
    0x7F7F8000,
    0x7F7FFFFF,
    0xFF7FFFFF,
    0x7F800000,
    0xFF800000,
    0x7F800001,
    0x7F80FFFF,
    0xFF808000,
    0x7FA00000,
    0x7F810000,
    0x7FC00001,
    0x7FFFFFFF,
    0xFFFFFFFF,
    0x00800000,
    0x80800000,
    0x00000000,
    0x80000000,
]
BF16_SUBNORMAL = [0x00000001, 0x00008000, 0x00018000, 0x0000C000, 0x00400000, 0x007FFFFF, 0x807FFFFF]


def _bf16_of(bits: list[int] | np.ndarray) -> np.ndarray:
    import ovonehot.ops.convert as convert
    from ovonehot.types import ElementType

    return convert.convert_array(np.asarray(bits, np.uint32).view(np.float32), ElementType.bf16)


def _nan_as_the_cpu(bits: np.ndarray) -> np.ndarray:
    """A NaN to bf16 as IEEE recommends and the CPU plugin gives: sign and top payload bits, quiet."""
    return ((bits | 0x00400000) >> 16).astype(np.uint16)


def test_bf16_is_nearest_even_against_ml_dtypes() -> None:
    """ml_dtypes' bfloat16 cast (IEEE round-to-nearest-even, an independent oracle) on the boundary
    values and 10**6 random f32 bit patterns; NaNs stay NaNs, quieted, with sign and payload top."""
    rng = np.random.default_rng(21)
    bits = np.concatenate(
        [np.array(BF16_BOUNDARY + BF16_SUBNORMAL, np.uint32), rng.integers(0, 2**32, 10**6, np.uint32)]
    )
    x = bits.view(np.float32)
    ours = _bf16_of(bits).view(np.uint16)
    with np.errstate(invalid="ignore"):
        theirs = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    nan = np.isnan(x)
    assert nan.sum() > 1000 and np.array_equal(ours[~nan], theirs[~nan])
    assert np.array_equal(ours[nan], _nan_as_the_cpu(bits[nan]))


def _nearest_even_exact(v: float) -> float:
    """The bf16 nearest to ``v`` (ties to even), by exact rational arithmetic (finite results)."""
    import math
    from fractions import Fraction

    if v == 0.0:
        return v
    quantum = Fraction(2) ** (max(math.frexp(abs(v))[1] - 1, -126) - 7)  # the bf16 ulp at |v|
    steps = Fraction(abs(v)) / quantum
    low = math.floor(steps)
    rest = steps - low
    up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and low % 2 == 1)
    return math.copysign(float((low + up) * quantum), v)


def test_f64_and_wide_ints_to_bf16_round_once() -> None:
    """f64 (and i32/i64) -> bf16 rounds once from the exact value: 1 + 2**-8 + 2**-40 is past the
    tie and gives 1.0078125 (through the nearest f32 it would land on the tie and give 1.0)."""
    from ovonehot.ops.convert import convert_array
    from ovonehot.types import ElementType

    rng = np.random.default_rng(7)
    ties = 1.0 + 2.0**-8 + np.array([2.0**-40, -(2.0**-40), 0.0, 2.0**-30])
    x = np.concatenate([ties, rng.standard_normal(5000) * np.exp2(rng.integers(-130, 120, 5000))])
    ours = convert_array(x, ElementType.bf16).astype(np.float64)
    assert ours[0] == 1.0078125
    assert [float(o) for o in ours] == [_nearest_even_exact(float(v)) for v in x]
    ints = np.array([2**24 + 2**16 + 1, 2**31 - 1, -(2**24) - 2**16 - 1, 2**40 + 2**32 + 1], np.int64)
    for dtype in (np.int64, np.int32):
        fits = ints[(ints >= np.iinfo(dtype).min) & (ints <= np.iinfo(dtype).max)].astype(dtype)
        got = convert_array(fits, ElementType.bf16).astype(np.float64)
        assert [float(g) for g in got] == [_nearest_even_exact(float(v)) for v in fits]


def _convert_model(tmp_path: Path, n: int, constant: np.ndarray | None = None) -> Path:
    """Parameter f32[n] -> Convert bf16 -> Result, or Constant -> Convert bf16 -> Result (the
    Parameter kept, unused, so the model has an input)."""
    p = ops.parameter([n], ov.Type.f32, name="x")
    node = ops.convert(p if constant is None else ops.constant(constant), ov.Type.bf16)
    node.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    return xml


def test_bf16_convert_is_the_cpu_plugins_at_run_time(tmp_path: Path) -> None:
    """The CPU plugin (deterministic configuration, measured now) converts f32 to bf16 at run time
    exactly as ovonehot does, NaN payloads included; subnormal inputs it flushes to zero of their
    sign (the CPU deviation ``bf16-subnormal-flush``)."""
    import ovonehot
    from ovonehot.oracle.openvino_runtime import cpu_run

    bits = np.array(BF16_BOUNDARY + BF16_SUBNORMAL, np.uint32)
    x = bits.view(np.float32)
    xml = _convert_model(tmp_path, x.size)
    ours = ovonehot.load(xml).run({"x": x})["y"].view(np.uint16)
    theirs = cpu_run(xml, {"x": x})["y"].view(np.uint16)
    normal = np.arange(x.size) < len(BF16_BOUNDARY)
    assert np.array_equal(ours[normal], theirs[normal]), [
        (hex(b), hex(o), hex(t)) for b, o, t in zip(bits, ours, theirs, strict=True) if o != t
    ]
    assert np.array_equal(theirs[~normal], np.where(np.signbit(x[~normal]), 0x8000, 0).astype(np.uint16))


def test_reference_rounds_its_own_way_even_when_folded(tmp_path: Path) -> None:
    """OpenVINO's reference -- and the constant folding the CPU plugin compiles with -- give what
    ovonehot gives under the named deviation's rounding, and not its own nearest-even."""
    import ovonehot
    from ovonehot.oracle.openvino_runtime import cpu_run, reference_run

    x = np.array(BF16_BOUNDARY, np.uint32).view(np.float32)
    run = np.zeros(x.size, np.float32)
    for constant in (None, x):
        xml = _convert_model(tmp_path, x.size, constant)
        model = ovonehot.load(xml)
        feeds = {"x": x if constant is None else run}
        ours = model.run(feeds)["y"].view(np.uint16)
        with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE):
            as_reference = ovonehot.load(xml).run(feeds)["y"].view(np.uint16)
        assert np.array_equal(reference_run(xml, feeds)["y"].view(np.uint16), as_reference)
        # (0x3F80C000 -> 0x3F81 / 0x3F80, 0x7FFFFFFF -> 0x7FFF / -0.0, ...; OpenVINO's Constant
        # quiets the signalling NaNs it is built from, so fewer differ when folded)
        assert (ours != as_reference).sum() >= (8 if constant is None else 5)
        if constant is not None:  # folded at compile time, by the reference
            nonzero = as_reference & 0x7FFF != 0  # (the plugin's constants lose the sign of zero)
            got = cpu_run(xml, feeds)["y"].view(np.uint16)
            assert np.array_equal(got[nonzero], as_reference[nonzero])


# Regression: a 0-d Convert to boolean gave NumPy's bool scalar (`x != 0` on a 0-d array), which
# the evaluator refuses as "not an array"; every transformers model converted by the PyTorch
# frontend alone (aten::new_ones -> Convert) crashed on it.  Every source type, 0-d.
ZERO_D_SOURCES = FLOATS + INTS + ["boolean"]


@pytest.mark.parametrize("source", ZERO_D_SOURCES)
@pytest.mark.parametrize("destination", ["boolean", "f32", "i64"])
def test_convert_0d_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    if source == destination:
        pytest.skip("same type: a copy, covered by the identity cases")
    x = np.asarray(values_for(source, destination).reshape(-1)[1])
    compare_op(tmp_path, lambda a: ops.convert(a, getattr(ov.Type, destination)), [P(x)])
