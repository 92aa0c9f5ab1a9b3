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
    "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
    "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
    "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "boolean": np.bool_,
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
    floats = np.concatenate([
        rng.standard_normal(200) * 100,
        rng.standard_normal(50) * 1e6,
        [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 1e-8, -1e-8],
    ])
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
OUT_OF_RANGE = [np.inf, -np.inf, np.nan, 1e10, -1e10, 3e9, 2.0**31, 2.0**32, 2.0**32 - 256, 2.0**63,
                2.0**63 + 2.0**40, 2.0**64, 1e20, -1e30, -(2.0**31) - 256, 70000.0, -70000.0, -1.0, 65504.0]
OUT_OF_RANGE_PAIRS = [(s, d) for s in FLOATS for d in INTS]


@pytest.mark.parametrize(("source", "destination"), OUT_OF_RANGE_PAIRS,
                         ids=[f"{s}->{d}" for s, d in OUT_OF_RANGE_PAIRS])
def test_float_to_int_out_of_range_matches_reference(tmp_path: Path, source: str, destination: str) -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(OUT_OF_RANGE, np.float64).astype(DTYPES[source])
    compare_op(tmp_path, lambda a: ops.convert(a, getattr(ov.Type, destination)), [P(x)])


def test_f32_to_bf16_rounding_is_openvinos_not_nearest_even(tmp_path: Path) -> None:
    """0x40E08001 keeps 0x40E0 in OpenVINO (round-to-nearest-even would give 0x40E1)."""
    bits = np.array([0x40E08001, 0x40E18000, 0x40E08000, 0x7F800001, 0x7FC00001], dtype=np.uint32)
    out = compare_op(tmp_path, lambda a: ops.convert(a, ov.Type.bf16), [P(bits.view(np.float32))])
    assert out.ours is not None
    assert out.ours[0].view(np.uint16)[0] == 0x40E0
