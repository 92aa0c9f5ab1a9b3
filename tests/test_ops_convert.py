"""Convert-0 against OpenVINO's core reference (``Node.evaluate``), through real IR.

Every (source, destination) pair of the table below is run on seeded values that
include the edge cases of both types: integer wrap-around, float truncation toward
zero, NaN/inf/-0.0 between floats, OpenVINO's own f32 -> bf16 rounding.  Float ->
integer values outside the destination's range (undefined in C++, fixed by the
compiler's code path: see ``ovonehot/ops/convert.py``) have their own table.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from ovref import P, compare_op, ov

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


@pytest.mark.parametrize(("source", "destination"), PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_convert_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    x = values_for(source, destination)
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
    ours, theirs = model.run({"x": x})["y"], reference_run(xml, {"x": x})["y"]
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


def test_f32_to_bf16_rounding_is_openvinos_not_nearest_even(tmp_path: Path) -> None:
    """0x40E08001 keeps 0x40E0 in OpenVINO (round-to-nearest-even would give 0x40E1)."""
    bits = np.array([0x40E08001, 0x40E18000, 0x40E08000, 0x7F800001, 0x7FC00001], dtype=np.uint32)
    out = compare_op(tmp_path, lambda a: ops.convert(a, ov.Type.bf16), [P(bits.view(np.float32))])
    assert out.ours is not None
    assert out.ours[0].view(np.uint16)[0] == 0x40E0


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
