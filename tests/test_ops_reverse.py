"""Reverse-1 and ReverseSequence-1 against OpenVINO.

Reverse: values against ``Node.evaluate`` (bit for bit), both modes.  ReverseSequence has no
core ``evaluate``; its values are compared with the CPU plugin (exact: data movement only).
Types, shapes and error messages against OpenVINO's node construction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export

from ovonehot.errors import InputError

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")
node_factory = pytest.importorskip("openvino.utils.node_factory")

RNG = np.random.default_rng(21)


def reverse(mode: str) -> Any:
    factory = node_factory.NodeFactory("opset1")
    return lambda data, axes: factory.create("Reverse", [data, axes], {"mode": mode})


REVERSE_CASES = [
    pytest.param("index", (2, 3, 4), np.array([1], np.int64), id="index-one-axis"),
    pytest.param("index", (2, 3, 4), np.array([0, 2], np.int32), id="index-two-axes-i32"),
    pytest.param("index", (2, 3, 4), np.array([-1], np.int64), id="index-negative"),
    pytest.param("index", (2, 3, 4), np.array([2, -1], np.int8), id="index-repeated-i8"),
    pytest.param("index", (2, 3), np.array([], np.int64), id="index-none"),
    pytest.param("index", (5,), np.array([0], np.uint8), id="index-1d-u8"),
    pytest.param("mask", (2, 3, 4), np.array([True, False, True]), id="mask"),
    pytest.param("mask", (2, 3), np.array([False, False]), id="mask-none"),
]


@pytest.mark.parametrize("const_axes", [True, False], ids=["const-axes", "parameter-axes"])
@pytest.mark.parametrize(("mode", "shape", "axes"), REVERSE_CASES)
def test_reverse_matches_reference(tmp_path, mode, shape, axes, const_axes):  # type: ignore[no-untyped-def]
    data = RNG.standard_normal(shape).astype(np.float32)
    compare_op(tmp_path, reverse(mode), [P(data), C(axes) if const_axes else P(axes)])


def test_reverse_integer_data(tmp_path):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path, reverse("index"), [P(np.arange(24, dtype=np.int64).reshape(2, 3, 4)), P(np.array([0, 1]))]
    )


def test_reverse_negative_axis_out_of_range_fails_at_run_time(tmp_path):  # type: ignore[no-untyped-def]
    """Inference clips -5 to 0 and accepts it (OpenVINO too); running it is an error."""
    node, params = build(reverse("index"), [P(np.zeros((2, 3), np.float32)), P(np.array([-5]))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    with pytest.raises(InputError, match="out of the tensor rank range"):
        model.run([np.zeros((2, 3), np.float32), np.array([-5])])


# data shape, lengths, batch_axis, seq_axis
SEQUENCE_CASES = [
    pytest.param((3, 5, 2), [5, 2, 0], 0, 1, id="batch0-seq1"),
    pytest.param((4, 3, 2), [1, 3, 2], 1, 0, id="batch1-seq0"),
    pytest.param((2, 3, 4), [4, 1], 0, -1, id="negative-seq-axis"),
    pytest.param((2, 3, 4), [3, 2, 1, 0], -1, 1, id="negative-batch-axis"),
    pytest.param((4, 3), [2, 3, 4, 1], 0, 0, id="same-axis"),
]


@pytest.mark.parametrize("lengths_type", [np.int32, np.int64, np.float32], ids=["i32", "i64", "f32"])
@pytest.mark.parametrize(("shape", "lengths", "batch_axis", "seq_axis"), SEQUENCE_CASES)
def test_reverse_sequence_matches_cpu(tmp_path, shape, lengths, batch_axis, seq_axis, lengths_type):  # type: ignore[no-untyped-def]
    data = RNG.standard_normal(shape).astype(np.float32)
    seq = np.array(lengths, lengths_type)
    node, params = build(lambda d, s: ops.reverse_sequence(d, s, batch_axis, seq_axis), [P(data), P(seq)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data, seq]).values()
    (theirs,) = cpu_outputs(node, params, [data, seq])
    assert_same(ours, theirs)


def test_reverse_sequence_length_beyond_the_axis_is_an_error(tmp_path):  # type: ignore[no-untyped-def]
    node, params = build(
        lambda d, s: ops.reverse_sequence(d, s, 0, 1), [P(np.zeros((2, 3), np.float32)), P(np.array([1, 4]))]
    )
    model = export(tmp_path, node, params)
    with pytest.raises(InputError, match="greater than sequence axis dimension"):
        model.run([np.zeros((2, 3), np.float32), np.array([1, 4])])


# -- shapes and errors -------------------------------------------------------------------------


def _param(shape: str, et: Any = ov.Type.f32) -> Any:
    return ops.parameter(ov.PartialShape(shape), et)


def _const(value: Any, dtype: Any = np.int64) -> Any:
    return ops.constant(np.array(value, dtype))


SHAPE_CASES = {
    "reverse-index": lambda: reverse("index")(_param("2,3"), _const([1])),
    "reverse-index-out-of-bounds": lambda: reverse("index")(_param("2,3"), _const([0, 3])),
    "reverse-index-negative-clipped": lambda: reverse("index")(_param("2,3"), _const([-5])),
    "reverse-index-2d": lambda: reverse("index")(_param("2,3"), _const([[1]])),
    "reverse-index-scalar": lambda: reverse("index")(_param("2,3"), _const(1)),
    "reverse-index-float": lambda: reverse("index")(_param("2,3"), _const([1.0], np.float32)),
    "reverse-index-boolean": lambda: reverse("index")(_param("2,3"), _const([True], bool)),
    "reverse-index-dynamic": lambda: reverse("index")(_param("?,2..5"), _param("?", ov.Type.i64)),
    "reverse-mask": lambda: reverse("mask")(_param("2,3"), _const([True, False], bool)),
    "reverse-mask-length": lambda: reverse("mask")(_param("2,3"), _const([True, False, True], bool)),
    "reverse-mask-integers": lambda: reverse("mask")(_param("2,3"), _const([1, 0])),
    "reverse-mask-dynamic-rank": lambda: reverse("mask")(_param("..."), _const([True, False, True], bool)),
    "reverse-mask-interval": lambda: reverse("mask")(_param("2,3"), _param("1..3", ov.Type.boolean)),
    "sequence": lambda: ops.reverse_sequence(_param("2,3,4"), _const([1, 2]), 0, 1),
    "sequence-length-mismatch": lambda: ops.reverse_sequence(_param("2,3,4"), _const([1, 2, 3]), 0, 1),
    "sequence-negative-axes": lambda: ops.reverse_sequence(_param("2,3,4"), _const([1, 2, 3, 1]), -1, -2),
    "sequence-batch-axis-out-of-range": lambda: ops.reverse_sequence(_param("2,3,4"), _const([1, 2]), 3, 1),
    "sequence-seq-axis-out-of-range": lambda: ops.reverse_sequence(_param("2,3,4"), _const([1, 2]), 0, -4),
    "sequence-rank-1": lambda: ops.reverse_sequence(_param("2"), _const([1, 2]), 0, 0),
    "sequence-lengths-2d": lambda: ops.reverse_sequence(_param("2,3"), _const([[1, 2]]), 0, 1),
    "sequence-lengths-boolean": lambda: ops.reverse_sequence(
        _param("2,3"), _const([True, False], bool), 0, 1
    ),
    "sequence-merges-batch": lambda: ops.reverse_sequence(_param("?,3"), _param("2..5", ov.Type.i32), 0, 1),
    "sequence-merges-intervals": lambda: ops.reverse_sequence(
        _param("1..3,3"), _param("2..5", ov.Type.i32), 0, 1
    ),
    "sequence-dynamic-rank": lambda: ops.reverse_sequence(_param("..."), _param("4", ov.Type.i32), 0, 1),
}


def _describe(node: Any) -> str:
    return f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"


@pytest.mark.parametrize("case", list(SHAPE_CASES))
def test_inference_matches_openvino(tmp_path, case):  # type: ignore[no-untyped-def]
    from ovonehot.ops import resolve  # noqa: F401  (the registry must know both ops)

    try:
        node = SHAPE_CASES[case]()
    except RuntimeError as exc:
        expected = str(exc).strip().splitlines()[-1].strip()
        _assert_ovonehot_refuses(case, expected)
        return
    params = [i.get_source_output().get_node() for i in node.inputs()]
    params = [p for p in params if p.get_type_name() == "Parameter"]
    model = export(tmp_path, node, params)
    (desc,) = model.outputs
    assert f"{desc.element_type}{desc.shape}" == _describe(node)


def _assert_ovonehot_refuses(case: str, expected: str) -> None:
    """OpenVINO refused to build the node; ovonehot's inference on the same inputs says the same."""
    from ovonehot.errors import ValidationError
    from ovonehot.ops.reverse import (
        ReverseAttrs,
        ReverseMode,
        ReverseSequenceAttrs,
        infer_reverse,
        infer_reverse_sequence,
    )

    infos = ERROR_INPUTS[case]
    with pytest.raises(ValidationError) as ours:
        if case.startswith("reverse-"):
            mode = ReverseMode.MASK if case.startswith("reverse-mask") else ReverseMode.INDEX
            infer_reverse(ReverseAttrs(mode), infos)
        else:
            batch_axis, seq_axis = ERROR_AXES.get(case, (0, 1))
            infer_reverse_sequence(ReverseSequenceAttrs(batch_axis, seq_axis), infos)
    assert str(ours.value) == expected


def _info(et: str, shape: str, value: Any = None) -> Any:
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    element_type = ElementType.from_name(et)
    array = None if value is None else np.array(value, element_type.numpy_dtype)
    return TensorInfo(element_type, PartialShape.parse(shape), value=array)


F23 = _info("f32", "2,3")
F234 = _info("f32", "2,3,4")
ERROR_INPUTS = {
    "reverse-index-out-of-bounds": [F23, _info("i64", "2", [0, 3])],
    "reverse-index-2d": [F23, _info("i64", "1,1", [[1]])],
    "reverse-index-scalar": [F23, _info("i64", "", 1)],
    "reverse-index-float": [F23, _info("f32", "1", [1.0])],
    "reverse-index-boolean": [F23, _info("boolean", "1", [True])],
    "reverse-mask-length": [F23, _info("boolean", "3", [True, False, True])],
    "reverse-mask-integers": [F23, _info("i64", "2", [1, 0])],
    "sequence-length-mismatch": [F234, _info("i64", "3", [1, 2, 3])],
    "sequence-batch-axis-out-of-range": [F234, _info("i64", "2", [1, 2])],
    "sequence-seq-axis-out-of-range": [F234, _info("i64", "2", [1, 2])],
    "sequence-rank-1": [_info("f32", "2"), _info("i64", "2", [1, 2])],
    "sequence-lengths-2d": [F23, _info("i64", "1,2", [[1, 2]])],
    "sequence-lengths-boolean": [F23, _info("boolean", "2", [True, False])],
}
ERROR_AXES = {
    "sequence-batch-axis-out-of-range": (3, 1),
    "sequence-seq-axis-out-of-range": (0, -4),
    "sequence-rank-1": (0, 0),
}
