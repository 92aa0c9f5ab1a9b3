"""ConvertLike-1 against OpenVINO.

The op has no ``Node.evaluate``; OpenVINO defines its values by folding it into a
Convert to ``like``'s type (``ConvertLike::constant_fold``), so the expected values
are Convert's core reference on the same data.  Types and shapes are OpenVINO's
inference; that the value does not reach shape inference is checked through Reshape.
"""

from __future__ import annotations

import contextlib

import ml_dtypes
import numpy as np
import pytest
from exact import assert_bf16_rounding_only
from ovref import (
    C,
    P,
    assert_inferred,
    assert_same,
    build,
    cpu_outputs,
    export,
    infer_shapes,
    ov_type,
    reference,
)

import ovonehot
from ovonehot.ops.common.bf16 import Bf16Rounding, bf16_rounding

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = np.array([0.0, -0.0, 0.4, -0.6, 1.5, -2.5, 126.9, -129.7, 3e4, -7e4, 1e10, np.inf, -np.inf, np.nan])
INTS = np.array([0, 1, -1, 127, 128, -129, 255, 256, 65535, 2**31 - 1, -(2**31)], dtype=np.int64)

PAIRS = [
    pytest.param(FLOATS.astype(np.float32), np.int64, id="f32-to-i64"),
    pytest.param(FLOATS.astype(np.float32), np.int32, id="f32-to-i32"),
    pytest.param(FLOATS.astype(np.float32), np.uint8, id="f32-to-u8"),
    pytest.param(FLOATS.astype(np.float32), np.float16, id="f32-to-f16"),
    pytest.param(FLOATS.astype(np.float32), BF16, id="f32-to-bf16"),
    pytest.param(FLOATS.astype(np.float32), np.bool_, id="f32-to-boolean"),
    pytest.param(np.delete(FLOATS, [9, 10]).astype(np.float16), np.float32, id="f16-to-f32"),
    pytest.param(INTS, np.float32, id="i64-to-f32"),
    pytest.param(INTS, np.int8, id="i64-to-i8-wraps"),
    pytest.param(INTS.astype(np.int32), np.float16, id="i32-to-f16-saturates"),
    pytest.param(INTS.astype(np.int32), np.int64, id="i32-to-i64"),
    pytest.param(np.array([True, False]), np.float32, id="boolean-to-f32"),
]


@pytest.mark.parametrize(("data", "like_dtype"), PAIRS)
def test_values_are_converts(tmp_path, data, like_dtype):  # type: ignore[no-untyped-def]
    like = np.zeros((2, 1), dtype=like_dtype)
    node, params = build(ops.convert_like, [P(data), C(like)])
    # to bf16 the reference rounds its own way (the named deviation bf16-reference-rounding):
    # compared under that rounding, and ovonehot's nearest-even differs only as it predicts
    to_bf16 = np.dtype(like_dtype) == ml_dtypes.bfloat16
    with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE) if to_bf16 else contextlib.nullcontext():
        model = export(tmp_path, node, params)
        (ours,) = model.run([data]).values()
    assert_inferred(model, node)
    convert = ops.convert(ops.parameter(list(data.shape), ov_type(data.dtype)), ov_type(np.dtype(like_dtype)))
    expected = reference(convert, [data])
    assert expected is not None
    assert_same(ours, expected[0])
    if to_bf16:
        (nearest,) = ovonehot.load(model.path).run([data]).values()
        assert_bf16_rounding_only(nearest, expected[0])


def test_matches_cpu_in_range(tmp_path):  # type: ignore[no-untyped-def]
    """The ONNX CastLike shape: both inputs Parameters; values the CPU plugin converts as the reference."""
    data = np.array([[0.4, -0.6, 1.5, -2.5, 126.9, -129.7]], dtype=np.float32)
    like = np.zeros(3, dtype=np.int32)
    node, params = build(ops.convert_like, [P(data), P(like)])
    model = export(tmp_path, node, params)
    (ours,) = model.run([data, like]).values()
    assert_same(ours, cpu_outputs(node, params, [data, like])[0])


SHAPES = [
    pytest.param(
        P(np.zeros((2, 3), np.float32), shape="?,2..5"), P(np.zeros(1, np.int64)), id="dynamic-data"
    ),
    pytest.param(P(np.zeros((2, 3), np.float32), shape="..."), C(np.zeros(4, np.int8)), id="dynamic-rank"),
    pytest.param(P(np.zeros((), np.float32)), P(np.zeros((7, 7), np.float16)), id="scalar-data"),
]


@pytest.mark.parametrize(("data", "like"), SHAPES)
def test_inference(tmp_path, data, like):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(tmp_path, ops.convert_like, [data, like])
    assert ours == theirs


def test_value_does_not_reach_shape_inference(tmp_path):  # type: ignore[no-untyped-def]
    """A Reshape pattern through ConvertLike stays unknown in OpenVINO: no evaluate, no bounds."""

    def reshape(x, pattern, like):  # type: ignore[no-untyped-def]
        return ops.reshape(x, ops.convert_like(pattern, like), False)

    x = P(np.zeros(6, np.float32))
    ours, theirs = infer_shapes(
        tmp_path, reshape, [x, C(np.array([2, 3], np.int32)), C(np.zeros(1, np.int64))]
    )
    assert ours == theirs == ["f32[?,?]"]
