"""bfloat16 ONNX tensors stored in ``int32_data`` (what ``onnx.helper.make_tensor`` writes).

OpenVINO 2026.4's ONNX frontend reads their bit patterns as numbers (the bits of 1.0,
16256, become 16256.0); ``ovonehot`` re-encodes such tensors as ``raw_data`` before
handing the model to OpenVINO (docs/conventions.md, finding 6).  Expected values:
``conventions.onnx_one_hot`` (the ONNX spec) and onnx.reference, which reads the
storage right.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main
from ovonehot.conventions import onnx_one_hot

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

BF16 = np.dtype(ml_dtypes.bfloat16)
VALUES = [0.5, -3.0]  # [off, on]
INDICES = np.array([0, -1, 4, 2])


def _model(tmp_path: Path, where: str) -> Path:
    values = h.make_tensor("v", TP.BFLOAT16, [2], VALUES)
    assert list(values.int32_data) and not values.raw_data  # the storage this test is about
    nodes = [h.make_node("OneHot", ["t", "d", "v"], ["y"])]
    inits = [nh.from_array(np.array(4, np.int64), "d")]
    if where == "initializer":
        inits.append(values)
    else:
        nodes.insert(0, h.make_node("Constant", [], ["v"], value=values))
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("t", TP.INT64, [4])],
        [h.make_tensor_value_info("y", TP.BFLOAT16, [4, 4])],
        initializer=inits,
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 28)])
    model.ir_version = 10
    path = tmp_path / f"bf16_{where}.onnx"
    onnx.save(model, str(path))
    return path


@pytest.mark.parametrize("where", ["initializer", "constant"])
def test_bf16_int32_data_values_are_read_as_onnx_says(tmp_path, where):  # type: ignore[no-untyped-def]
    path = _model(tmp_path, where)
    expected = onnx_one_hot(INDICES, 4, np.array(VALUES, BF16), opset=28)
    (ours,) = ovonehot.load(path).run({"t": INDICES}).values()
    assert ours.dtype == BF16
    np.testing.assert_array_equal(ours.view(np.uint16), expected.view(np.uint16))
    from onnx.reference import ReferenceEvaluator

    (reference,) = ReferenceEvaluator(onnx.load(str(path))).run(None, {"t": INDICES})
    np.testing.assert_array_equal(ours.astype(np.float32), reference.astype(np.float32))
    np.savez(tmp_path / "all.npz", t=INDICES)
    assert (
        main(["run", str(path), "--inputs", str(tmp_path / "all.npz"), "--output", str(tmp_path / "out.npz")])
        == 0
    )
    with np.load(tmp_path / "out.npz") as archive:
        np.testing.assert_array_equal(archive["y"].view(np.uint16), expected.view(np.uint16))


@pytest.mark.held_for("openvino==2026.4.1")
def test_finding_openvino_reads_bf16_int32_data_as_numbers(tmp_path):  # type: ignore[no-untyped-def]
    # The evidence for finding 6: OpenVINO itself, on the unmodified file.
    path = _model(tmp_path, "initializer")
    compiled = ov.Core().compile_model(ov.Core().read_model(str(path)), "CPU")
    out = np.array(compiled([INDICES])[0]).view(np.uint16)
    as_f32 = (out.astype(np.uint32) << 16).view(np.float32)
    bits = np.array(VALUES, BF16).view(np.uint16).astype(np.float32)  # 16128 and 49216: the bits as numbers
    assert as_f32[0, 0] != -3.0
    assert as_f32[1, 3] == np.float32(np.array(bits[1], BF16)), (
        "OpenVINO reads bf16 int32_data right now: update docs"
    )
