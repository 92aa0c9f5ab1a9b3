"""ONNX DFT, NonMaxSuppression and RandomUniform(Like) through OpenVINO's ONNX frontend, run by ovonehot.

Each model is built with ``onnx.helper``, loaded with ``ovonehot.load(model.onnx)``
(OpenVINO's frontend converts it: DFT-17/20 become DFT-7, IDFT-7 or RDFT-9 with
ShapeOf/Broadcast/Concat or Reshape around them, NonMaxSuppression-11 becomes
NonMaxSuppression-9, RandomUniform(Like) becomes RandomUniform-8 with
``op_seed`` = the bits of the f32 seed) and compared with the same ONNX model compiled
by OpenVINO's CPU plugin (deterministic config).  Tolerances are the per-op ones
measured in test_ops_fft.py and test_ops_random_uniform.py; NMS indices are exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot

onnx = pytest.importorskip("onnx")
ov = pytest.importorskip("openvino")
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(11)
FFT_ULPS_OF_MAX = 16


def _save(tmp_path: Path, name: str, nodes, inputs, outputs, inits=(), opset: int = 17) -> Path:  # type: ignore[no-untyped-def]
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = 8
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def _both(path: Path, feeds: dict[str, np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    ours = list(ovonehot.load(path).run(feeds).values())
    compiled = ov.Core().compile_model(str(path), "CPU", CPU_CONFIG)
    result = compiled(feeds)
    return ours, [np.array(result[o]) for o in compiled.outputs]


def _vi(name: str, elem: int, shape: list[int] | None) -> object:
    return h.make_tensor_value_info(name, elem, shape)


DFT_CASES = [
    pytest.param({"axis": 1, "onesided": 0}, (2, 8, 1), None, 17, id="real-input-full"),
    pytest.param({"axis": 1, "onesided": 1}, (2, 8, 1), 6, 17, id="onesided-cropped"),
    pytest.param({"axis": 1, "inverse": 1}, (2, 6, 2), None, 17, id="inverse"),
    pytest.param({"axis": 2, "onesided": 0}, (2, 3, 10, 2), 12, 17, id="complex-padded"),
]


@pytest.mark.parametrize(("attrs", "shape", "length", "opset"), DFT_CASES)
def test_onnx_dft(tmp_path, attrs, shape, length, opset):  # type: ignore[no-untyped-def]
    inputs = ["x"] + (["n"] if length is not None else [])
    inits = [nh.from_array(np.array(length, np.int64), "n")] if length is not None else []
    nodes = [h.make_node("DFT", inputs, ["y"], **attrs)]
    path = _save(
        tmp_path, "dft", nodes, [_vi("x", TP.FLOAT, list(shape))], [_vi("y", TP.FLOAT, None)], inits, opset
    )
    x = RNG.standard_normal(shape).astype(np.float32)
    (ours,), (theirs,) = _both(path, {"x": x})
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    allowed = FFT_ULPS_OF_MAX * float(np.spacing(np.float32(np.abs(theirs).max())))
    assert np.abs(ours.astype(np.float64) - theirs).max() <= allowed


def test_onnx_dft20_axis_input(tmp_path):  # type: ignore[no-untyped-def]
    nodes = [h.make_node("DFT", ["x", "", "ax"], ["y"])]
    inits = [nh.from_array(np.array(-2, np.int64), "ax")]
    path = _save(
        tmp_path, "dft20", nodes, [_vi("x", TP.FLOAT, [2, 8, 2])], [_vi("y", TP.FLOAT, None)], inits, 20
    )
    x = RNG.standard_normal((2, 8, 2)).astype(np.float32)
    (ours,), (theirs,) = _both(path, {"x": x})
    expected = np.fft.fft(x[..., 0].astype(np.float64) + 1j * x[..., 1], axis=1)
    assert np.abs(ours[..., 0] + 1j * ours[..., 1] - expected).max() <= 1e-5 * np.abs(expected).max()
    assert np.abs(ours - theirs).max() <= FFT_ULPS_OF_MAX * float(
        np.spacing(np.float32(np.abs(theirs).max()))
    )


NMS_CASES = [
    pytest.param(0, 3, 0.5, 0.1, id="corner"),
    pytest.param(1, 3, 0.5, 0.1, id="center"),
    pytest.param(0, 10, 0.3, 0.0, id="many-low-iou"),
]


@pytest.mark.parametrize(("center", "max_out", "iou", "score"), NMS_CASES)
def test_onnx_nms(tmp_path, center, max_out, iou, score):  # type: ignore[no-untyped-def]
    corner = RNG.uniform(0, 6, (2, 12, 2)).astype(np.float32)
    size = RNG.uniform(1, 3, (2, 12, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + size], axis=-1)
    if center:
        boxes = np.concatenate([corner + size / 2, size], axis=-1)
    scores = RNG.uniform(0, 1, (2, 3, 12)).astype(np.float32)
    inits = [
        nh.from_array(np.array([max_out], np.int64), "m"),
        nh.from_array(np.array([iou], np.float32), "iou"),
        nh.from_array(np.array([score], np.float32), "st"),
    ]
    nodes = [h.make_node("NonMaxSuppression", ["b", "s", "m", "iou", "st"], ["y"], center_point_box=center)]
    ins = [_vi("b", TP.FLOAT, [2, 12, 4]), _vi("s", TP.FLOAT, [2, 3, 12])]
    path = _save(tmp_path, "nms", nodes, ins, [_vi("y", TP.INT64, None)], inits, 11)
    (ours,), (theirs,) = _both(path, {"b": boxes, "s": scores})
    assert ours.dtype == theirs.dtype == np.int64
    assert np.array_equal(ours, theirs)
    assert ours.shape[0] > 0


def _reference_random_uniform(path: Path) -> np.ndarray:
    """The converted RandomUniform node evaluated by OpenVINO's core reference (its first sequence)."""
    model = ov.Core().read_model(str(path))
    (node,) = [n for n in model.get_ordered_ops() if n.get_type_name() == "RandomUniform"]
    args = [ov.Tensor(np.array(n.get_node().get_data())) for n in (node.input_value(i) for i in range(3))]
    out = [ov.Tensor(node.get_output_element_type(0), ov.Shape([0]))]
    assert node.evaluate(out, args)
    return np.array(out[0].data)


@pytest.mark.parametrize("seed", [3.0, 0.25, 1234.5])
def test_onnx_random_uniform(tmp_path, seed):  # type: ignore[no-untyped-def]
    nodes = [h.make_node("RandomUniform", [], ["y"], shape=[4, 5], low=-1.0, high=2.0, seed=seed)]
    path = _save(tmp_path, "ru", nodes, [], [_vi("y", TP.FLOAT, None)], opset=13)
    (ours,), (theirs,) = _both(path, {})
    assert np.array_equal(ours.view(np.uint32), _reference_random_uniform(path).view(np.uint32))
    assert np.abs(ours.astype(np.float64) - theirs).max() <= np.spacing(np.float32(3.0))  # the CPU's FMA


def test_onnx_random_uniform_like(tmp_path):  # type: ignore[no-untyped-def]
    nodes = [h.make_node("RandomUniformLike", ["x"], ["y"], low=0.0, high=5.0, seed=7.5)]
    path = _save(tmp_path, "rul", nodes, [_vi("x", TP.FLOAT, [2, 3])], [_vi("y", TP.FLOAT, None)], opset=13)
    x = np.zeros((2, 3), np.float32)
    (ours,), (theirs,) = _both(path, {"x": x})
    assert ours.shape == (2, 3) and ((ours >= 0) & (ours < 5)).all()
    assert np.abs(ours.astype(np.float64) - theirs).max() <= np.spacing(np.float32(5.0))


@pytest.mark.held_for("openvino==2026.4.1")
def test_onnx_nms_without_iou_threshold(tmp_path):  # type: ignore[no-untyped-def]
    """ONNX's default iou_threshold is 0: only overlapping boxes (IoU > 0) are suppressed, and with
    no score threshold a zero score is selected too.  ovonehot gives onnxruntime's answer; the CPU
    plugin, suppressing at IoU >= threshold, keeps only the first box of the class."""
    ort = pytest.importorskip("onnxruntime")
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [5, 5, 6, 6], [8, 8, 9, 9]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7, 0.0]]], np.float32)
    nodes = [h.make_node("NonMaxSuppression", ["b", "s", "m"], ["y"])]
    ins = [_vi("b", TP.FLOAT, [1, 4, 4]), _vi("s", TP.FLOAT, [1, 1, 4])]
    inits = [nh.from_array(np.array([10], np.int64), "m")]
    path = _save(tmp_path, "nms_defaults", nodes, ins, [_vi("y", TP.INT64, None)], inits, 11)
    feeds = {"b": boxes, "s": scores}
    (ours,), (theirs,) = _both(path, feeds)
    (expected,) = ort.InferenceSession(str(path)).run(None, feeds)
    assert ours.tolist() == expected.tolist() == [[0, 0, 0], [0, 0, 2], [0, 0, 3]]
    assert theirs.tolist() == [[0, 0, 0]]
