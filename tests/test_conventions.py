"""``conventions.openvino_one_hot``: OpenVINO OneHot-1/-16 through the public convention function.

Expected values: the OpenVINO OneHot-1 spec's two worked examples, and
OpenVINO's core reference (``Node.evaluate`` of an opset1/opset16 OneHot built with
OpenVINO's Python API) for a table of types, axes and modes.  Refusal messages are
OpenVINO's (docs/openvino-behaviour.md lists them).
"""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.conventions import openvino_one_hot
from ovonehot.errors import Error, UsageError, ValidationError
from ovonehot.ops.one_hot import NegativeIndicesMode


def assert_bits(ours: np.ndarray, expected: np.ndarray) -> None:
    assert ours.shape == expected.shape
    assert ours.dtype == expected.dtype
    assert ours.tobytes() == expected.tobytes(), f"\n{ours}\n!=\n{expected}"


# The OneHot-1 spec's examples: (axis, indices, depth, on, off, expected)
SPEC_EXAMPLES = [
    (-1, [0, 3, 1, 2], 3, 1, 2, [[1, 2, 2], [2, 2, 2], [2, 1, 2], [2, 2, 1]]),
    (
        1,
        [[0, 3, 1], [1, 2, 4]],
        3,
        1,
        0,
        [[[1, 0, 0], [0, 0, 1], [0, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]],
    ),
]


@pytest.mark.parametrize("axis,indices,depth,on,off,expected", SPEC_EXAMPLES, ids=["axis-1", "axis1"])
@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_spec_examples(axis, indices, depth, on, off, expected, index_type) -> None:
    out = openvino_one_hot(
        np.array(indices, index_type), index_type(depth), np.int32(on), np.int32(off), axis
    )
    assert_bits(out, np.array(expected, np.int32))


# (mode, expected hot position of index -1 with depth 3, or None)
MODES = [
    (None, None),
    ("ignore_negative", None),
    (NegativeIndicesMode.IGNORE_NEGATIVE, None),
    ("normalize", 2),
    ("NORMALIZE", 2),  # OpenVINO's enum parsing is case-insensitive
    (NegativeIndicesMode.NORMALIZE, 2),
]


@pytest.mark.parametrize("mode,position", MODES, ids=[str(m) for m, _ in MODES])
def test_negative_indices_modes(mode, position) -> None:
    out = openvino_one_hot(np.array([-1, -4, 3]), np.int64(3), np.int8(1), np.int8(0), -1, mode)
    expected = np.zeros((3, 3), np.int8)
    if position is not None:
        expected[0, position] = 1
    assert_bits(out, expected)


@pytest.mark.parametrize("mode", ["ignore-negative", " normalize", "wrap", 1])
def test_unknown_modes_are_refused(mode) -> None:
    with pytest.raises(UsageError, match="negative_indices_mode"):
        openvino_one_hot(np.array([0]), np.int64(2), np.int8(1), np.int8(0), -1, mode)


# OpenVINO's own messages (docs/openvino-behaviour.md). (id, indices, depth, on, off, axis, message start)
REFUSALS = [
    (
        "float-indices",
        np.array([1.0], np.float32),
        np.int64(3),
        np.int8(1),
        np.int8(0),
        -1,
        "Indices must be integral element type",
    ),
    (
        "float-depth",
        np.array([1]),
        np.float32(3),
        np.int8(1),
        np.int8(0),
        -1,
        "Depth must be integral element type",
    ),
    (
        "on-off-types",
        np.array([1]),
        np.int64(3),
        np.int8(1),
        np.int16(0),
        -1,
        "on_value element type must be compatible with off_value element type",
    ),
    ("depth-[1]", np.array([1]), np.array([3]), np.int8(1), np.int8(0), -1, "depth input must be scalar"),
    (
        "on-[1]",
        np.array([1]),
        np.int64(3),
        np.array([1], np.int8),
        np.int8(0),
        -1,
        "on_value input must be scalar",
    ),
    (
        "off-[1]",
        np.array([1]),
        np.int64(3),
        np.int8(1),
        np.array([0], np.int8),
        -1,
        "off_value input must be scalar",
    ),
    (
        "axis-3-rank-1",
        np.array([1]),
        np.int64(3),
        np.int8(1),
        np.int8(0),
        2,
        "Axis 2 out of the tensor rank range",
    ),
    (
        "axis-minus-3",
        np.array([1]),
        np.int64(3),
        np.int8(1),
        np.int8(0),
        -3,
        "Axis -3 out of the tensor rank range",
    ),
    (
        "negative-depth",
        np.array([1]),
        np.int64(-1),
        np.int8(1),
        np.int8(0),
        -1,
        "OneHot depth value can't be negative",
    ),
]


@pytest.mark.parametrize(
    "indices,depth,on,off,axis,message", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusals_carry_openvinos_message(indices, depth, on, off, axis, message) -> None:
    with pytest.raises(ValidationError) as info:
        openvino_one_hot(indices, depth, on, off, axis)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, Error)


def test_integral_in_openvinos_sense_accepts_bool_and_u8_indices() -> None:
    out = openvino_one_hot(np.array([True, False]), np.uint8(2), np.float32(1), np.float32(0))
    assert out.tolist() == [[0, 1], [1, 0]]


def test_string_values() -> None:
    out = openvino_one_hot(np.array([1, 5]), np.int64(2), np.array("on"), np.array("off"))
    assert out.dtype == object
    assert out.tolist() == [["off", "on"], ["off", "off"]]


# -- against OpenVINO's core reference -----------------------------------------------------

# (index type, value type, axis, version, mode)
REFERENCE_TABLE = [
    (np.int32, np.float32, -1, 1, None),
    (np.int64, np.float32, 0, 1, None),
    (np.int64, np.float16, 1, 16, "ignore_negative"),
    (np.int32, np.int8, -2, 16, "normalize"),
    (np.int64, np.uint8, 2, 16, "normalize"),
    (np.int64, np.int64, -3, 1, None),
    (np.int32, np.float64, 0, 16, "normalize"),
    (np.int64, np.bool_, -1, 16, "normalize"),
]


@pytest.mark.parametrize(
    "index_type,value_type,axis,version,mode",
    REFERENCE_TABLE,
    ids=[f"{np.dtype(r[0])}-{np.dtype(r[1])}-axis{r[2]}-v{r[3]}-{r[4]}" for r in REFERENCE_TABLE],
)
def test_matches_openvinos_core_reference(index_type, value_type, axis, version, mode) -> None:
    ov = pytest.importorskip("openvino", reason="the core reference is OpenVINO's")
    from openvino import opset1, opset16

    rng = np.random.default_rng(abs(hash((axis, version))) % 2**32)
    depth = 5
    indices = rng.integers(-2 * depth, 2 * depth, size=(3, 4)).astype(index_type)
    on, off = np.array(rng.integers(1, 100), value_type), np.array(0, value_type)
    if value_type == np.bool_:
        on, off = np.array(True), np.array(False)
    args = [
        opset16.parameter(indices.shape, ov.Type(indices.dtype)),
        opset16.constant(np.int64(depth)),
        opset16.parameter([], ov.Type(on.dtype)),
        opset16.parameter([], ov.Type(off.dtype)),
    ]
    node = (
        opset1.one_hot(*args, axis)
        if version == 1
        else opset16.one_hot(*args, axis, negative_indices_mode=mode)
    )
    result = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([result], [ov.Tensor(a) for a in (indices, np.array(depth, np.int64), on, off)])
    ours = openvino_one_hot(indices, np.int64(depth), on, off, axis, mode)
    assert_bits(ours, np.asarray(result.data).copy())
