"""Range-4 and Range-0 against OpenVINO's core reference: lengths, casts, value formulas, inference."""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, compare_op, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import range as range_op
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ops = pytest.importorskip("openvino.opset15")
ops1 = pytest.importorskip("openvino.opset1")

RANGE4_CASES = [
    pytest.param((0, 5, 1), np.int64, "i64", id="basic"),
    pytest.param((0.5, 5.0, 1.5), np.float32, "i32", id="float-inputs-truncated"),
    pytest.param((0.5, 5.0, 1.5), np.float32, "f32", id="float"),
    pytest.param((1.0, 0.0, -0.3), np.float32, "f32", id="descending"),
    pytest.param((0.0, 1.0, 0.1), np.float32, "f32", id="start-plus-i-step"),
    pytest.param((2, -7, -2), np.int32, "i32", id="negative-step"),
    pytest.param((5, 2, 1), np.int64, "i64", id="empty"),
    pytest.param((0.1, 2.0, 0.3), np.float32, "f16", id="f16-output"),
    pytest.param((-3, 3, 2), np.int64, "f32", id="int-to-float"),
    pytest.param((0, 10, 3), np.int32, "u8", id="u8-output"),
    pytest.param((100, 1000, 50), np.int32, "i8", id="i8-wraps"),
    pytest.param((-1.9, 2.9, 0.9), np.float64, "i64", id="truncation-changes-count"),
    pytest.param((0.0, 1e-3, 1e-4), np.float64, "f64", id="f64"),
]


@pytest.mark.parametrize(("values", "in_type", "out_type"), RANGE4_CASES)
def test_range4_matches_reference(tmp_path, values, in_type, out_type):  # type: ignore[no-untyped-def]
    start, stop, step = (np.array(v, dtype=in_type) for v in values)

    def factory(a, b, c):  # type: ignore[no-untyped-def]
        return ops.range(a, b, c, out_type)

    compare_op(tmp_path, factory, [C(start), C(stop), C(step)])
    compare_op(tmp_path, factory, [P(start), P(stop), P(step)])  # computed at run time


RANGE0_CASES = [
    pytest.param((0, 5, 1), np.int32, id="i32"),
    pytest.param((0.5, 3.0, 0.7), np.float32, id="f32"),
    pytest.param((10, 0, -3), np.int64, id="i64-descending"),
]


@pytest.mark.parametrize(("values", "dtype"), RANGE0_CASES)
def test_range0_matches_reference(tmp_path, values, dtype):  # type: ignore[no-untyped-def]
    start, stop, step = (np.array(v, dtype=dtype) for v in values)
    compare_op(tmp_path, ops1.range, [P(start), P(stop), P(step)])


def test_range_infer_with_one_unknown_input(tmp_path):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c: ops.range(a, b, c, "i64"),
        [C(np.int64(0)), P(np.int64(4)), C(np.int64(1))],
    )
    assert ours == theirs == ["i64[?]"]


def test_range_refusals():  # type: ignore[no-untyped-def]
    def scalar(et, v=None):  # type: ignore[no-untyped-def]
        return TensorInfo(et, PartialShape.of(()), value=None if v is None else np.array(v))

    attrs = range_op.RangeAttrs(ElementType.i64)
    with pytest.raises(ValidationError, match="'step' cannot be zero"):
        range_op.infer_range(
            attrs, [scalar(ElementType.i64, 0), scalar(ElementType.i64, 5), scalar(ElementType.i64, 0)]
        )
    with pytest.raises(ValidationError, match="numeric"):
        range_op.infer_range(
            attrs, [scalar(ElementType.boolean), scalar(ElementType.i64), scalar(ElementType.i64)]
        )
    with pytest.raises(ValidationError, match="not a scalar"):
        range_op.infer_range(
            attrs,
            [
                TensorInfo(ElementType.i64, PartialShape.of((1,))),
                scalar(ElementType.i64),
                scalar(ElementType.i64),
            ],
        )
    with pytest.raises(ValidationError, match="'stop' cannot be nan"):
        range_op.infer_range(
            range_op.RangeAttrs(ElementType.f32),
            [scalar(ElementType.f32, 0.0), scalar(ElementType.f32, np.inf), scalar(ElementType.f32, 1.0)],
        )
