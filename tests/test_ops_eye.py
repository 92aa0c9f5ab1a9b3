"""Eye-9 against OpenVINO: values against ``Node.evaluate``, types and shapes against its inference.

The cases follow XLNet's use (``torch.eye`` through the PyTorch frontend) and the op's inputs:
Parameters and Constants, diagonals inside and outside the matrix, batch shapes, i32/i64.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_same, build, compare_op, export

from ovonehot.errors import ValidationError
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.eye import EyeAttrs, infer_eye
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset9")


def eye(output_type: str) -> Any:
    return lambda rows, cols, diag, *batch: ops.eye(rows, cols, diag, output_type, *batch)


VALUE_CASES = [
    pytest.param("f32", 3, 4, 0, None, id="square-ish"),
    pytest.param("f32", 4, 3, 1, None, id="upper-diagonal"),
    pytest.param("f16", 4, 3, -2, None, id="lower-diagonal-f16"),
    pytest.param("bf16", 2, 2, 0, None, id="bf16"),
    pytest.param("i32", 3, 5, 4, None, id="last-column"),
    pytest.param("i64", 3, 5, 5, None, id="diagonal-past-the-end"),
    pytest.param("i8", 3, 5, -3, None, id="diagonal-below-the-end"),
    pytest.param("u8", 3, 2, -1, [2], id="batch-1d"),
    pytest.param("f64", 2, 3, 1, [2, 1, 3], id="batch-3d"),
    pytest.param("f32", 0, 3, 0, None, id="no-rows"),
    pytest.param("f32", 3, 3, 0, [0], id="empty-batch-dim"),
]


@pytest.mark.parametrize("index_type", [np.int32, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize(("output_type", "rows", "cols", "diag", "batch"), VALUE_CASES)
def test_matches_reference(tmp_path, output_type, rows, cols, diag, batch, index_type):  # type: ignore[no-untyped-def]
    inputs = [P(np.array(rows, index_type)), P(np.array(cols, index_type)), P(np.array(diag, index_type))]
    if batch is not None:
        inputs.append(P(np.array(batch, index_type)))
    node, params = build(eye(output_type), inputs)
    if output_type in ("f32", "f16", "bf16", "i32", "i64", "i8", "u8", "f64"):
        # The reference needs its output shape up front here (the inputs are Parameters).
        shape = (*(batch or []), rows, cols)
        out = ov.Tensor(node.get_output_element_type(0), ov.Shape(list(shape)))
        assert node.evaluate([out], [ov.Tensor(i.array) for i in inputs])
        expected = np.array(out.data, copy=True)
        if output_type == "bf16":
            expected = expected.view(np.uint16).view(ml_dtypes.bfloat16)
    model = export(tmp_path, node, params)
    (ours,) = model.run([i.array for i in inputs]).values()
    assert_same(ours, expected)


def test_constant_inputs_give_a_static_shape(tmp_path):  # type: ignore[no-untyped-def]
    inputs = [C(np.array(3)), C(np.array([4])), C(np.array(-1)), C(np.array([2], np.int32))]
    compare_op(tmp_path, eye("f32"), inputs)


def test_boolean_output_has_no_core_kernel(tmp_path):  # type: ignore[no-untyped-def]
    """OpenVINO's evaluate refuses boolean Eye; ovonehot's values are the same diagonal."""
    outcome = compare_op(
        tmp_path, eye("boolean"), [C(np.array(2)), C(np.array(3)), C(np.array(1))], require_reference=False
    )
    assert outcome.theirs is None
    assert outcome.ours is not None
    assert_same(outcome.ours[0], np.eye(2, 3, 1, dtype=bool))


# -- shapes ------------------------------------------------------------------------------------

I64, I32 = ov.Type.i64, ov.Type.i32


def _param(shape: str, et: Any = I64) -> Any:
    return ops.parameter(ov.PartialShape(shape), et)


def _const(value: Any, dtype: Any = np.int64) -> Any:
    return ops.constant(np.array(value, dtype))


def _dim_of(shape: str, et: Any = I64) -> Any:
    """A scalar holding the bounds of a Parameter's only dim (Squeeze(ShapeOf))."""
    return ops.squeeze(ops.shape_of(_param(shape, ov.Type.f32), et.to_string()), _const([0]))


SHAPE_CASES = {
    "constants": lambda: (_const(3), _const(4), _const(1)),
    "constant-batch": lambda: (_const(3), _const(4), _const(1), _const([2, 5])),
    "rows-parameter": lambda: (_param("[]"), _const(4), _const(0)),
    "rows-bounded": lambda: (_dim_of("[2..7]"), _const(4), _const(0)),
    "rows-bounded-i32": lambda: (_dim_of("[2..7]", I32), _const(4, np.int32), _const(0)),
    "rows-unbounded": lambda: (_dim_of("[3..]"), _const(4), _const(0)),
    "rows-one-element": lambda: (_const([3]), _const(4), _const(0)),
    "rows-dynamic-rank": lambda: (_param("[...]"), _const(4), _const(0)),
    "rows-unknown-length": lambda: (_param("[?]"), _const(4), _const(0)),
    "batch-shape-of": lambda: (
        _const(3),
        _const(4),
        _const(0),
        ops.shape_of(_param("[2,?,3..5]", ov.Type.f32)),
    ),
    "batch-parameter": lambda: (_const(3), _const(4), _const(0), _param("[2]")),
    "batch-unknown-length": lambda: (_const(3), _const(4), _const(0), _param("[?]")),
    "batch-interval-length": lambda: (_const(3), _const(4), _const(0), _param("[2..3]")),
    "batch-dynamic-rank": lambda: (_const(3), _const(4), _const(0), _param("[...]")),
    "batch-minus-one": lambda: (_const(3), _const(4), _const(0), _const([2, -1])),
    "batch-minus-two": lambda: (_const(3), _const(4), _const(0), _const([2, -2, -7])),
    "batch-bounded": lambda: (
        _const(3),
        _const(4),
        _const(0),
        ops.concat([ops.shape_of(_param("[2..4]", ov.Type.f32)), _const([5])], 0),
    ),
}


def _parameters(outputs: Any) -> list[Any]:
    """Every Parameter upstream of ``outputs``, once each."""
    found: list[Any] = []
    stack = [o.get_node() for o in outputs]
    while stack:
        node = stack.pop()
        if node.get_type_name() == "Parameter" and not any(node is f for f in found):
            found.append(node)
        stack.extend(i.get_source_output().get_node() for i in node.inputs())
    return found


@pytest.mark.parametrize("case", list(SHAPE_CASES))
def test_inference_matches_openvino(tmp_path, case):  # type: ignore[no-untyped-def]
    args = [a.output(0) for a in SHAPE_CASES[case]()]
    node = eye("f32")(*args)
    model = export(tmp_path, node, _parameters(args))
    (desc,) = model.outputs
    assert f"{desc.element_type}{desc.shape}" == f"f32{node.get_output_partial_shape(0)}"


def _info(et: str, shape: str, value: Any = None, bounds: tuple[Any, Any] | None = None) -> TensorInfo:
    element_type = ElementType.from_name(et)
    dtype = element_type.numpy_dtype
    return TensorInfo(
        element_type,
        PartialShape.parse(shape),
        value=None if value is None else np.array(value, dtype),
        lower=None if bounds is None else np.array(bounds[0], dtype),
        upper=None if bounds is None else np.array(bounds[1], dtype),
    )


FOUR, ZERO = _info("i64", "", 4), _info("i64", "", 0)
# id -> (OpenVINO's inputs, the same inputs as ovonehot's inference sees them)
ERROR_CASES = {
    "rows-two-elements": (
        lambda: (_const([3, 3]), _const(4), _const(0)),
        [_info("i64", "2", [3, 3]), FOUR, ZERO],
    ),
    "rows-matrix": (lambda: (_param("[1,1]"), _const(4), _const(0)), [_info("i64", "1,1"), FOUR, ZERO]),
    "rows-negative": (lambda: (_const(-1), _const(4), _const(0)), [_info("i64", "", -1), FOUR, ZERO]),
    "columns-negative": (
        lambda: (_const(2), _const(-4), _const(0)),
        [_info("i64", "", 2), _info("i64", "", -4), ZERO],
    ),
    "rows-bounded-negative": (
        lambda: (ops.subtract(_dim_of("[2..7]"), _const(3)), _const(4), _const(0)),
        [_info("i64", "", bounds=(-1, 4)), FOUR, ZERO],
    ),
    "rows-f32": (
        lambda: (_const(3.0, np.float32), _const(4), _const(0)),
        [_info("f32", "", 3.0), FOUR, ZERO],
    ),
    "rows-i8": (lambda: (_const(3, np.int8), _const(4), _const(0)), [_info("i8", "", 3), FOUR, ZERO]),
    "diagonal-two-elements": (
        lambda: (_const(3), _const(4), _param("[2]")),
        [_info("i64", "", 3), FOUR, _info("i64", "2")],
    ),
    "diagonal-u8": (
        lambda: (_const(3), _const(4), _const(0, np.uint8)),
        [_info("i64", "", 3), FOUR, _info("u8", "", 0)],
    ),
    "batch-matrix": (
        lambda: (_const(3), _const(4), _const(0), _const([[2]])),
        [_info("i64", "", 3), FOUR, ZERO, _info("i64", "1,1", [[2]])],
    ),
    "batch-f32": (
        lambda: (_const(3), _const(4), _const(0), _const([2.0], np.float32)),
        [_info("i64", "", 3), FOUR, ZERO, _info("f32", "1", [2.0])],
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors_match_openvino(case):  # type: ignore[no-untyped-def]
    make, infos = ERROR_CASES[case]
    with pytest.raises(RuntimeError) as theirs:
        eye("f32")(*make())
    with pytest.raises(ValidationError) as ours:
        infer_eye(EyeAttrs(ElementType.f32), infos)
    assert str(ours.value) == str(theirs.value).strip().splitlines()[-1].strip()
