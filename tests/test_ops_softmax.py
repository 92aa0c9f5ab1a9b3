"""Softmax-1/-8 against OpenVINO's core reference; LogSoftmax-5 against a float64 oracle and the CPU plugin.

Tolerances: Softmax within 2 ulp of ``Node.evaluate`` (ovonehot repeats the reference's
max / exp / Kahan sum / divide in order; only ``exp`` may round differently from glibc's
``expf``).  OpenVINO's ``Node.evaluate`` has no LogSoftmax kernel, so LogSoftmax is
checked against float64 math (within 4 f32 ulp of the value, or 1e-6 absolute near 0)
and against the CPU plugin in f32 accuracy mode (1e-5 absolute: its own exp/log).
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, compare_op, export, infer_shapes

from ovonehot.errors import UnsupportedError, ValidationError
from ovonehot.ops import softmax

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")
ops1 = pytest.importorskip("openvino.opset1")
ops5 = pytest.importorskip("openvino.opset5")

SOFTMAX_ULP = 2


def _logits(shape, dtype=np.float32, seed=0):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 4).astype(dtype)


SOFTMAX_CASES = [
    pytest.param((4, 10), 1, id="rows"),
    pytest.param((4, 10), -1, id="negative-axis"),
    pytest.param((3, 5, 2), 0, id="first-axis"),
    pytest.param((3, 5, 2), -2, id="middle-axis"),
    pytest.param((2, 1000), 1, id="long-axis"),
    pytest.param((6,), 0, id="vector"),
    pytest.param((0, 4), 1, id="empty"),
]


@pytest.mark.parametrize(("shape", "axis"), SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=lambda d: np.dtype(d).name)
def test_softmax8_matches_reference(tmp_path, shape, axis, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda x: ops.softmax(x, axis), [P(_logits(shape, dtype))], ulp=SOFTMAX_ULP)


@pytest.mark.parametrize(
    ("shape", "axis"), [c for c in SOFTMAX_CASES if "negative" not in c.id and "middle" not in c.id]
)
def test_softmax1_matches_reference(tmp_path, shape, axis):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda x: ops1.softmax(x, axis), [P(_logits(shape))], ulp=SOFTMAX_ULP)


def test_softmax_special_values(tmp_path):  # type: ignore[no-untyped-def]
    x = np.array(
        [
            [0.0, -np.inf, 1.0],
            [1e30, 1e30, -1e30],
            [-np.inf, -np.inf, 0.0],
            [np.inf, 0.0, 1.0],
            [np.nan, 0, 1],
        ],
        np.float32,
    )
    compare_op(tmp_path, lambda v: ops.softmax(v, 1), [P(x)], ulp=SOFTMAX_ULP)


def _log_softmax64(x: np.ndarray, axis: int) -> np.ndarray:
    x64 = x.astype(np.float64)
    m = x64.max(axis=axis, keepdims=True)
    return (x64 - m) - np.log(np.exp(x64 - m).sum(axis=axis, keepdims=True))


LOG_SOFTMAX_CASES = [
    pytest.param((4, 10), 1, id="rows"),
    pytest.param((4, 10), -1, id="negative-axis"),
    pytest.param((3, 5, 2), 0, id="first-axis"),
    pytest.param((2, 300), 1, id="long-axis"),
]


@pytest.mark.parametrize(("shape", "axis"), LOG_SOFTMAX_CASES)
def test_log_softmax_against_float64_and_cpu(tmp_path, shape, axis):  # type: ignore[no-untyped-def]
    x = _logits(shape)
    node = ops5.log_softmax(ops.parameter(list(shape), ov.Type.f32, name="x"), axis)
    model = export(tmp_path, node, [node.input_value(0).get_node()])
    ours = next(iter(model.run([x]).values()))
    assert ours.shape == x.shape and ours.dtype == np.float32
    want = _log_softmax64(x, axis)
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(ours - want) <= np.maximum(4 * ulp, 1e-6))
    compiled = ov.Core().compile_model(
        ov.Model([node], [node.input_value(0).get_node()]),
        "CPU",
        {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY", "INFERENCE_NUM_THREADS": 1},
    )
    cpu = compiled({0: x})[0]
    np.testing.assert_allclose(ours, cpu, rtol=0, atol=1e-5)


def test_log_softmax_keeps_f16(tmp_path):  # type: ignore[no-untyped-def]
    x = _logits((3, 7), np.float16)
    node = ops5.log_softmax(ops.parameter([3, 7], ov.Type.f16, name="x"), 1)
    model = export(tmp_path, node, [node.input_value(0).get_node()])
    ours = next(iter(model.run([x]).values()))
    assert ours.dtype == np.float16
    np.testing.assert_allclose(ours.astype(np.float64), _log_softmax64(x, 1), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize(
    "shape", ["?,10", "...", "2..5,?", "1,2,3"], ids=["dyn", "dyn-rank", "interval", "static"]
)
def test_softmax_infer_agrees(tmp_path, shape):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    for factory in (
        lambda v: ops.softmax(v, -1),
        lambda v: ops5.log_softmax(v, 1),
        lambda v: ops1.softmax(v, 1),
    ):
        ours, theirs = infer_shapes(tmp_path, factory, [P(z, shape=shape)])
        assert ours == theirs


def test_softmax_axis_checks():  # type: ignore[no-untyped-def]
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    x = TensorInfo(ElementType.f32, PartialShape.of((2, 3)))
    with pytest.raises(ValidationError, match="18446744073709551615"):
        softmax.infer_softmax(softmax.SoftmaxAttrs(-1, negative_axis=False), [x])
    with pytest.raises(ValidationError, match=r"out of the tensor rank range \[-2, 1\]"):
        softmax.infer_softmax(softmax.SoftmaxAttrs(2), [x])
    with pytest.raises(UnsupportedError, match="i32"):
        softmax.evaluate_softmax(softmax.SoftmaxAttrs(1), [np.zeros((2, 3), np.int32)])
