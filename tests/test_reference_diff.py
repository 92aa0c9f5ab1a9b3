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

Excluded value types, with the reason (docs/openvino-behaviour.md, openvino_runtime.refusal):
string (OpenVINO's OneHot reference aborts the process) and sub-byte types
u1/u2/u3/u4/u6/i4/nf4/f4e2m1 (its kernel writes one byte per element past the packed
output).  Float on/off Constants in the f16-compressed half are drawn from values f16
holds exactly, so the file holds the very values the reference was given (plain
models take any bits).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO")

from exact import assert_same
from onehot_cases import (
    DEPTH_TYPES,
    INDEX_TYPES,
    MODES,
    VALUE_TYPES,
    Case,
    expected,
    make_cases,
    write_model,
)

import ovonehot
from ovonehot.types import ElementType

SEED = 20260401
N_CASES = 1500
CASES = make_cases(N_CASES, SEED)


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
    assert {(c.indices.ndim, c.axis) for c in CASES} == {
        (r, a) for r in range(6) for a in range(-r - 1, r + 1)
    }
    assert {c.value_type for c in CASES} == set(VALUE_TYPES)
    assert {ElementType.from_numpy(c.depth.dtype) for c in CASES} == set(DEPTH_TYPES)
    assert {ElementType.from_numpy(c.indices.dtype) for c in CASES} == set(INDEX_TYPES)
    assert any(int(c.depth) == 0 for c in CASES)
    assert any(
        c.indices.dtype == np.int64 and c.indices.size and np.abs(c.indices).max() > 2**31 for c in CASES
    )
    assert any(c.indices.size and c.indices.min() < 0 for c in CASES)
    assert any(c.indices.size and c.indices.max() >= int(c.depth) for c in CASES)
    assert any("?" in c.param_shape or ".." in c.param_shape for c in CASES)
    assert {(c.depth_is_param, c.values_are_params, c.compress) for c in CASES} == {
        (a, b, z) for a in (False, True) for b in (False, True) for z in (False, True)
    }
    for et in (ElementType.f16, ElementType.f32, ElementType.f64, ElementType.bf16):
        with np.errstate(invalid="ignore"):
            values = [v.astype(np.float64) for c in CASES if c.value_type is et for v in (c.on, c.off)]
        assert any(np.isnan(v) for v in values) and any(np.isinf(v) for v in values), et
        assert any(v == 0 and np.signbit(v) for v in values), et


# f16 on/off decompressed by a Convert, as in f16-compressed IR, with NaN payloads: OpenVINO's
# f16 -> f32/f64 Convert quiets signalling NaNs (keeping sign and payload).
F16_NAN_BITS = [0x7C01, 0x7D00, 0x7DFF, 0xFC01, 0xFD55, 0x7E00, 0x7FFF, 0xFE01]


@pytest.mark.parametrize("target", ["f32", "f64"])
@pytest.mark.parametrize("bits", F16_NAN_BITS, ids=[hex(b) for b in F16_NAN_BITS])
def test_decompressed_nan_values_are_openvinos(bits: int, target: str, tmp_path: Path) -> None:
    from openvino import opset1

    from ovonehot.oracle.openvino_runtime import reference_run

    half = np.array([bits, 0x8000], np.uint16).view(np.float16)
    p = opset1.parameter([3], ov.Type.i64, name="indices")
    on, off = (opset1.convert(ov.op.Constant(np.array(v)), target) for v in half)
    node = opset1.one_hot(p, ov.op.Constant(np.array(2, np.int64)), on, off, -1)
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml))
    inputs = {"indices": np.array([1, 0, 5], np.int64)}
    (ours,) = ovonehot.load(xml).run(inputs).values()
    (theirs,) = reference_run(xml, inputs).values()
    assert_same(ours, theirs, hex(bits))
