"""ovonehot vs OpenVINO's CPU plugin, bit for bit, inside the envelope where the plugin is exact.

docs/openvino-behaviour.md measured that OpenVINO's CPU plugin, compiled deterministically
(``openvino_runtime.CPU_CONFIG``: one thread, one stream, f32, accuracy mode), equals
the core reference for OneHot when: indices are i32, or i64 within int32; on/off are
f32/f16/bf16/8..32-bit integers/boolean; no input has a dynamic rank; the IR is v11.
Seeded random single-OneHot models inside that envelope are written with
``ov.save_model`` (f16-compressed or plain), compiled on the CPU and run by ovonehot.

Outside the envelope the plugin is known to differ, and a test pins each difference,
so a change in OpenVINO's behaviour (or a wrong docs/openvino-behaviour.md line) shows up here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO")

from exact import CPU_VALUE_TYPES, assert_same, cpu_envelope_refusal
from onehot_cases import Case, make_cases, write_model

import ovonehot
from ovonehot.errors import OpenVINOError
from ovonehot.oracle import openvino_runtime as oracle

N_CASES = 150
CASES = make_cases(N_CASES, seed=7, value_types=tuple(sorted(CPU_VALUE_TYPES, key=str)), beyond_int32=False)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_hot_equals_cpu_plugin(case: Case, tmp_path: Path) -> None:
    xml = tmp_path / "m.xml"
    inputs = write_model(case, xml)
    model = ovonehot.load(xml)
    reason = cpu_envelope_refusal(model, inputs)
    if reason is not None:
        pytest.skip(f"outside the CPU plugin's exact envelope: {reason}")
    ours = model.run(inputs)
    theirs = oracle.cpu_run(xml, inputs)
    assert list(ours) == list(theirs)
    for key in ours:
        assert_same(ours[key], theirs[key], case.id)


# -- outside the envelope: the known differences, pinned ------------------------------------


def _model(tmp_path: Path, index_type: str, on: np.ndarray, off: np.ndarray, shape: object = (3,)) -> Path:
    from openvino import opset1

    p = opset1.parameter(
        ov.PartialShape(list(shape)) if shape is not None else ov.PartialShape.dynamic(),
        getattr(ov.Type, index_type),
        name="indices",
    )
    node = opset1.one_hot(
        p, ov.op.Constant(np.array(4, np.int64)), ov.op.Constant(on), ov.op.Constant(off), 0
    )
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    return xml


def test_cpu_wraps_i64_indices_beyond_int32(tmp_path: Path) -> None:
    xml = _model(tmp_path, "i64", np.array(1, np.int32), np.array(0, np.int32))
    x = {"indices": np.array([2**32 + 1, 2, -1], np.int64)}
    ours = next(iter(ovonehot.load(xml).run(x).values()))
    cpu = next(iter(oracle.cpu_run(xml, x).values()))
    ref = next(iter(oracle.reference_run(xml, x).values()))
    assert_same(ours, ref, "reference")
    assert ours[1, 0] == 0 and cpu[1, 0] == 1  # the CPU sees 2**32 + 1 as 1


def test_cpu_saturates_i64_values_and_rounds_f64_through_f32(tmp_path: Path) -> None:
    x = {"indices": np.array([0, 1, 5], np.int32)}
    xml = _model(tmp_path, "i32", np.array(2**40, np.int64), np.array(-3, np.int64))
    ours = next(iter(ovonehot.load(xml).run(x).values()))
    cpu = next(iter(oracle.cpu_run(xml, x).values()))
    assert ours[0, 0] == 2**40 and cpu[0, 0] == 2**31 - 1
    xml = _model(tmp_path, "i32", np.array(0.1, np.float64), np.array(1e300, np.float64))
    ours = next(iter(ovonehot.load(xml).run(x).values()))
    cpu = next(iter(oracle.cpu_run(xml, x).values()))
    assert ours[0, 0] == 0.1 and cpu[0, 0] == np.float64(np.float32(0.1))
    assert ours[1, 0] == 1e300 and cpu[1, 0] == np.finfo(np.float32).max


@pytest.mark.parametrize("index_type", ["i8", "u8", "boolean"])
def test_cpu_refuses_narrow_indices(index_type: str, tmp_path: Path) -> None:
    xml = _model(tmp_path, index_type, np.array(1, np.float32), np.array(0, np.float32))
    dtype = ovonehot.ElementType(index_type).numpy_dtype
    with pytest.raises(OpenVINOError, match="I32"):
        oracle.cpu_run(xml, {"indices": np.zeros(3, dtype)})


def test_cpu_refuses_scalar_indices_with_depth_parameter(tmp_path: Path) -> None:
    from openvino import opset1

    p = opset1.parameter([], ov.Type.i32, name="indices")
    d = opset1.parameter([], ov.Type.i32, name="depth")
    node = opset1.one_hot(
        p, d, ov.op.Constant(np.array(1, np.float32)), ov.op.Constant(np.array(0, np.float32)), 0
    )
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p, d], "m"), str(xml))
    inputs = {"indices": np.array(2, np.int32), "depth": np.array(3, np.int32)}
    assert cpu_envelope_refusal(ovonehot.load(xml), inputs) is not None
    with pytest.raises(OpenVINOError, match="incorrect number of input/output dimensions"):
        oracle.cpu_run(xml, inputs)
    assert_same(
        next(iter(ovonehot.load(xml).run(inputs).values())),
        next(iter(oracle.reference_run(xml, inputs).values())),
        "reference",
    )


def test_cpu_refuses_dynamic_rank(tmp_path: Path) -> None:
    xml = _model(tmp_path, "i32", np.array(1, np.float32), np.array(0, np.float32), shape=None)
    with pytest.raises(OpenVINOError, match="dynamic rank"):
        oracle.cpu_run(xml, {"indices": np.zeros((2, 2), np.int32)})
