"""AvgPool-16 (AvgPool with ``dilations``) against OpenVINO's CPU plugin and its inference.

AvgPool has no core ``evaluate``; the CPU plugin is the oracle (deterministic config), within
``CPU_RTOL`` (oneDNN sums in f32 in its own order, ovonehot in float64).  The ONNX case is what
users meet: ONNX AveragePool-19 with ``dilations`` becomes AvgPool-16 in OpenVINO's ONNX
frontend; ovonehot used to read it as AvgPool-14 and drop the dilations (wrong output shape).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovref import P, build, cpu_outputs, export, infer_shapes

import ovonehot

ov = pytest.importorskip("openvino")
node_factory = pytest.importorskip("openvino.utils.node_factory")

CPU_RTOL = 1e-5
RNG = np.random.default_rng(16)


def avg_pool_16(strides, pb, pe, kernel, dilations, exclude_pad, rounding="floor", auto_pad="explicit"):  # type: ignore[no-untyped-def]
    factory = node_factory.NodeFactory("opset16")
    attrs = {
        "strides": strides,
        "pads_begin": pb,
        "pads_end": pe,
        "kernel": kernel,
        "dilations": dilations,
        "exclude-pad": exclude_pad,
        "rounding_type": rounding,
        "auto_pad": auto_pad,
    }
    return lambda a: factory.create("AvgPool", [a], attrs)


# data shape, kernel, strides, dilations, pads_begin, pads_end, rounding, auto_pad
CASES = [
    pytest.param(
        (1, 1, 7, 7), [3, 3], [1, 1], [2, 2], [0, 0], [0, 0], "floor", "explicit", id="2d-dilation-2"
    ),
    pytest.param((1, 2, 9, 8), [2, 3], [1, 2], [2, 1], [1, 0], [0, 1], "floor", "explicit", id="2d-pads"),
    pytest.param((2, 2, 10), [3], [2], [3], [2], [2], "ceil", "explicit", id="1d-ceil-pads"),
    pytest.param(
        (1, 2, 8, 8), [2, 2], [2, 2], [2, 2], [1, 1], [1, 1], "ceil_torch", "explicit", id="ceil-torch"
    ),
    pytest.param(
        (1, 2, 6, 5), [2, 2], [1, 2], [2, 2], [0, 0], [0, 0], "floor", "same_upper", id="same-upper"
    ),
    pytest.param(
        (1, 2, 6, 5), [3, 2], [2, 1], [2, 3], [0, 0], [0, 0], "floor", "same_lower", id="same-lower"
    ),
    pytest.param(
        (1, 1, 5, 6, 7), [2, 2, 2], [1, 2, 1], [2, 1, 3], [0, 1, 0], [1, 0, 1], "floor", "explicit", id="3d"
    ),
]


@pytest.mark.parametrize("exclude_pad", [True, False], ids=["exclude-pad", "include-pad"])
@pytest.mark.parametrize(
    ("shape", "kernel", "strides", "dilations", "pb", "pe", "rounding", "auto_pad"), CASES
)
def test_matches_cpu(tmp_path, shape, kernel, strides, dilations, pb, pe, rounding, auto_pad, exclude_pad):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal(shape).astype(np.float32)
    node, params = build(
        avg_pool_16(strides, pb, pe, kernel, dilations, exclude_pad, rounding, auto_pad), [P(x)]
    )
    model = export(tmp_path, node, params)
    assert model.outputs[0].shape.to_shape() == tuple(node.get_output_shape(0))
    (ours,) = model.run([x]).values()
    (theirs,) = cpu_outputs(node, params, [x])
    np.testing.assert_allclose(ours, theirs, rtol=CPU_RTOL, atol=CPU_RTOL)


@pytest.mark.parametrize("shape", ["?,3,9,9", "1,3,?,9", "1,3,4..12,9", "..."])
@pytest.mark.parametrize("rounding", ["floor", "ceil"])
def test_inference_agrees(tmp_path, shape, rounding):  # type: ignore[no-untyped-def]
    factory = avg_pool_16([2, 1], [0, 1], [1, 0], [3, 2], [2, 3], True, rounding)
    ours, theirs = infer_shapes(tmp_path, factory, [P(np.zeros((), np.float32), shape=shape)])
    assert ours == theirs


def _onnx_average_pool(tmp_path: Path, **attrs: Any) -> Path:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    node = helper.make_node("AveragePool", ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "avg",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 8
    path = tmp_path / "avg.onnx"
    onnx.save(model, str(path))
    return path


ONNX_CASES = [
    pytest.param(  # ONNX's backend case test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True
        {
            "kernel_shape": [5, 5],
            "dilations": [2, 2],
            "strides": [3, 3],
            "count_include_pad": 1,
            "ceil_mode": 1,
        },
        id="dilations-ceil-no-pads-include",
    ),
    pytest.param({"kernel_shape": [3, 3], "dilations": [2, 2]}, id="dilations"),
    pytest.param(
        {
            "kernel_shape": [2, 3],
            "dilations": [3, 2],
            "strides": [2, 1],
            "pads": [1, 0, 1, 2],
            "count_include_pad": 0,
        },
        id="dilations-pads-exclude",
    ),
    pytest.param(
        {
            "kernel_shape": [2, 2],
            "dilations": [2, 2],
            "pads": [1, 1, 1, 1],
            "count_include_pad": 1,
            "ceil_mode": 1,
        },
        id="dilations-pads-include-ceil",
    ),
]


@pytest.mark.parametrize("attrs", ONNX_CASES)
def test_onnx_average_pool_with_dilations(tmp_path, attrs):  # type: ignore[no-untyped-def]
    path = _onnx_average_pool(tmp_path, **attrs)
    converted = ov.Core().read_model(str(path))
    (pool,) = [op for op in converted.get_ordered_ops() if op.get_type_name() == "AvgPool"]
    assert pool.get_type_info().version_id == "opset16" and "dilations" in pool.get_attributes()
    x = RNG.standard_normal((1, 2, 9, 9)).astype(np.float32)
    compiled = ov.Core().compile_model(converted, "CPU", _cpu_config())
    theirs = compiled([x])[compiled.outputs[0]]
    (ours,) = ovonehot.load(path).run({"x": x}).values()
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=CPU_RTOL, atol=CPU_RTOL)


def _cpu_config() -> dict[str, Any]:
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    return dict(CPU_CONFIG)
