"""``conventions.directml_one_hot``: DirectML's DML_ONE_HOT as its DML_ONE_HOT_OPERATOR_DESC page writes it.

Expected values: the page's four worked examples, copied exactly (sizes, data
types, values); everything else is checked against the written rules, one rule
per refusal, or against ``onnx_one_hot`` where the page says the two agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.conventions import DIRECTML_FEATURE_LEVELS, directml_one_hot, onnx_one_hot
from ovonehot.errors import Error, InputError, UsageError


def assert_bits(ours: np.ndarray, expected: np.ndarray) -> None:
    """Shape, then dtype, then every bit."""
    assert ours.shape == expected.shape
    assert ours.dtype == expected.dtype
    assert ours.tobytes() == expected.tobytes(), f"\n{ours}\n!=\n{expected}"


# The four examples of the DML_ONE_HOT_OPERATOR_DESC page, as printed there.
# (name, indices, indices dtype, values, output sizes, axis, expected output)
EXAMPLES = [
    (
        "1",
        [[[[0], [3], [2]]]],
        np.uint32,
        [[[[0, 1]]]],
        (1, 1, 3, 4),
        3,
        [[[[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]]],
    ),
    (
        "2-different-axis",
        [[[[0, 2, 1, 0]]]],
        np.uint32,
        [[[[0, 1]]]],
        (1, 1, 3, 4),
        2,
        [[[[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]]]],
    ),
    (
        "3-different-on-off",
        [[[[0], [3], [2]]]],
        np.uint32,
        [[[[4], [2], [9]]]],
        (1, 1, 3, 4),
        3,
        [[[[2, 4, 4, 4], [4, 4, 4, 2], [4, 4, 2, 4]]]],
    ),
    (
        "4-negative-out-of-bounds",
        [[[[-3], [100], [3]]]],
        np.int32,
        [[[[0, 1]]]],
        (1, 1, 3, 4),
        3,
        [[[[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]]],
    ),
]


@pytest.mark.parametrize(
    "name,indices,index_type,values,sizes,axis,expected", EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_documented_examples(name, indices, index_type, values, sizes, axis, expected) -> None:
    out = directml_one_hot(np.array(indices, index_type), np.array(values, np.float32), sizes, axis)
    assert_bits(out, np.array(expected, np.float32))


def test_examples_1_to_3_hold_at_every_feature_level() -> None:
    # UINT32 indices, 4 dimensions and FLOAT32 values are in every table, 2.0 included.
    for level in DIRECTML_FEATURE_LEVELS[1:]:
        for _name, indices, index_type, values, sizes, axis, expected in EXAMPLES[:3]:
            out = directml_one_hot(
                np.array(indices, index_type), np.array(values, np.float32), sizes, axis, level
            )
            assert_bits(out, np.array(expected, np.float32))


# Where the on value is read: element 1 along the fastest-changing dimension of size > 1.
# (values sizes, the index of the on value in row-major order)
VALUES_LAYOUTS = [
    ((2,), (1,)),
    ((1, 2), (0, 1)),
    ((2, 1), (1, 0)),
    ((3, 1, 1), (1, 0, 0)),
    ((2, 3), (0, 1)),  # the last dimension changes fastest: on = [0][1], not [1][0]
    ((3, 2, 1), (0, 1, 0)),
    ((1, 1, 5), (0, 0, 1)),
]


@pytest.mark.parametrize("shape,on_at", VALUES_LAYOUTS, ids=[str(s) for s, _ in VALUES_LAYOUTS])
def test_on_value_is_element_1_along_the_fastest_dimension_of_size_over_1(shape, on_at) -> None:
    rank = len(shape)
    values = np.arange(10, 10 + np.prod(shape), dtype=np.float32).reshape(shape)
    indices = np.array([0, 2, 5]).reshape((3,) + (1,) * (rank - 1)).astype(np.int64)
    sizes = (3, 3) + (1,) * (rank - 2) if rank > 1 else None
    if sizes is None:  # rank 1: the output is one sequence of 3
        out = directml_one_hot(np.array([2], np.uint32), values, (3,), 0)
        assert out.tolist() == [values[0], values[0], values[on_at]]
        return
    out = directml_one_hot(indices, values, sizes, 1)
    on, off = values[on_at], values[(0,) * rank]
    hot = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], bool).reshape(sizes)
    assert_bits(out, np.where(hot, on, off).astype(np.float32))


# Negative indices from 3.0 (signed types): [-S, -1] counts from the end; below -S is ignored
# (interpretation, see the function's docstring and docs/conventions.md).
def test_negative_indices_count_from_the_end_and_below_minus_size_are_ignored() -> None:
    indices = np.array([-1, -4, -5, -100, 4, 3], np.int64).reshape(6, 1)
    out = directml_one_hot(indices, np.array([[0, 1]], np.uint8), (6, 4), 1, "3.0")
    assert out.tolist() == [
        [0, 0, 0, 1],
        [1, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 1],
    ]


def test_unsigned_indices_holding_negative_bit_patterns_are_large_and_ignored() -> None:
    as_u32 = np.array([-1, -3, 1], np.int32).view(np.uint32).reshape(1, 1, 3, 1)
    out = directml_one_hot(as_u32, np.array([[[[0, 1]]]], np.float16), (1, 1, 3, 4), 3, "2.0")
    assert out.reshape(3, 4).tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    u64 = np.array([2**64 - 1, 2**63, 3], np.uint64).reshape(3, 1)
    out = directml_one_hot(u64, np.array([[0, 1]], np.int16), (3, 4), 1, "3.0")
    assert out.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]


def test_index_equal_to_the_axis_size_is_out_of_bounds() -> None:
    out = directml_one_hot(np.array([[4], [3]], np.uint32), np.array([[5, 7]], np.int32), (2, 4), 1, "3.0")
    assert out.tolist() == [[5, 5, 5, 5], [5, 5, 5, 7]]


def test_values_bits_are_copied_exactly() -> None:
    nan = np.array([0x7FC00123], np.uint32).view(np.float32)[0]
    values = np.array([[-0.0, nan]], np.float32)
    out = directml_one_hot(np.array([[1], [0]], np.uint32), values, (2, 2), 1, "3.0")
    bits = out.view(np.uint32)
    assert bits.tolist() == [[0x80000000, 0x7FC00123], [0x7FC00123, 0x80000000]]


def test_same_as_onnx_11_for_the_matching_layout() -> None:
    rng = np.random.default_rng(6)
    indices = rng.integers(-7, 7, size=(3, 4, 5)).astype(np.int32)
    values = np.array([3.5, -2.25], np.float64)
    for axis in range(4):
        sizes = list(indices.shape)
        sizes.insert(axis, 5)
        dml = directml_one_hot(np.expand_dims(indices, axis), values.reshape(1, 1, 1, 2), sizes, axis)
        assert_bits(dml, onnx_one_hot(indices, 5, values, axis=axis, opset=11))


# One row per written rule; the refusal message must name it.
# (id, indices, values, output sizes, axis, feature level, words the message must hold)
REFUSALS = [
    (
        "dimension-counts-differ",
        np.zeros((2, 1), np.uint32),
        np.zeros((2,), np.float32),
        (2, 3),
        1,
        "4.1",
        "same DimensionCount",
    ),
    (
        "output-count-differs",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 3, 1),
        1,
        "4.1",
        "same DimensionCount",
    ),
    (
        "fl2.0-needs-4-dims",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 3),
        1,
        "2.0",
        "dimension counts 4",
    ),
    (
        "fl2.1-needs-4-dims",
        np.zeros((2, 1, 1), np.uint32),
        np.zeros((1, 1, 2), np.float32),
        (2, 3, 1),
        1,
        "2.1",
        "dimension counts 4",
    ),
    (
        "more-than-8-dims",
        np.zeros((1,) * 9, np.uint32),
        np.zeros((1,) * 8 + (2,), np.float32),
        (1,) * 8 + (2,),
        0,
        "4.1",
        "dimension counts 1 to 8",
    ),
    ("zero-dims", np.zeros((), np.uint32), np.zeros((), np.float32), (), 0, "4.1", "dimension counts 1 to 8"),
    (
        "fl2.1-signed-indices",
        np.zeros((1, 1, 1, 1), np.int32),
        np.zeros((1, 1, 1, 2), np.float32),
        (1, 1, 1, 2),
        3,
        "2.1",
        "IndicesTensor supports UINT32, got INT32",
    ),
    (
        "fl2.0-uint64-indices",
        np.zeros((1, 1, 1, 1), np.uint64),
        np.zeros((1, 1, 1, 2), np.float32),
        (1, 1, 1, 2),
        3,
        "2.0",
        "IndicesTensor supports UINT32, got UINT64",
    ),
    (
        "int16-indices",
        np.zeros((1, 1), np.int16),
        np.zeros((1, 2), np.float32),
        (1, 2),
        1,
        "4.1",
        "IndicesTensor supports INT64, INT32, UINT64, UINT32, got INT16",
    ),
    (
        "float-indices",
        np.zeros((1, 1), np.float32),
        np.zeros((1, 2), np.float32),
        (1, 2),
        1,
        "4.1",
        "got FLOAT32",
    ),
    (
        "fl2.0-int32-values",
        np.zeros((1, 1, 1, 1), np.uint32),
        np.zeros((1, 1, 1, 2), np.int32),
        (1, 1, 1, 2),
        3,
        "2.0",
        "support FLOAT32, FLOAT16, got INT32",
    ),
    (
        "fl3.0-float64-values",
        np.zeros((1, 1), np.int64),
        np.zeros((1, 2), np.float64),
        (1, 2),
        1,
        "3.0",
        "got FLOAT64",
    ),
    (
        "fl3.1-int64-values",
        np.zeros((1, 1), np.int64),
        np.zeros((1, 2), np.int64),
        (1, 2),
        1,
        "3.1",
        "got INT64",
    ),
    (
        "fl4.0-uint64-values",
        np.zeros((1, 1), np.int64),
        np.zeros((1, 2), np.uint64),
        (1, 2),
        1,
        "4.0",
        "got UINT64",
    ),
    (
        "bool-values",
        np.zeros((1, 1), np.int64),
        np.zeros((1, 2), bool),
        (1, 2),
        1,
        "4.1",
        "no DirectML tensor data type",
    ),
    (
        "axis-not-below-count",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 1),
        2,
        "4.1",
        "less than the DimensionCount",
    ),
    (
        "axis-negative-uint",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 3),
        -1,
        "4.1",
        "Axis is a UINT",
    ),
    (
        "axis-size-zero",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 0),
        1,
        "4.1",
        "greater than 0",
    ),
    (
        "indices-axis-size-not-1",
        np.zeros((2, 3), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 3),
        1,
        "4.1",
        "except 1 on Axis 1: expected [2, 1], got [2, 3]",
    ),
    (
        "indices-other-size-differs",
        np.zeros((3, 1), np.uint32),
        np.zeros((1, 2), np.float32),
        (2, 4),
        1,
        "4.1",
        "expected [2, 1], got [3, 1]",
    ),
    (
        "one-value",
        np.zeros((2, 1), np.uint32),
        np.zeros((1, 1), np.float32),
        (2, 4),
        1,
        "4.1",
        "at least two elements",
    ),
]


@pytest.mark.parametrize(
    "indices,values,sizes,axis,level,words", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusals_name_the_rule(indices, values, sizes, axis, level, words) -> None:
    with pytest.raises(InputError, match=None) as info:
        directml_one_hot(indices, values, sizes, axis, level)
    assert words in str(info.value)
    assert isinstance(info.value, Error)


@pytest.mark.parametrize("level", ["1.0", "DML_FEATURE_LEVEL_1_0"])
def test_the_operator_does_not_exist_before_2_0(level) -> None:
    with pytest.raises(UsageError, match="introduced in DML_FEATURE_LEVEL_2_0"):
        directml_one_hot(
            np.zeros((1, 1, 1, 1), np.uint32), np.zeros((1, 1, 1, 2), np.float32), (1, 1, 1, 2), 3, level
        )


@pytest.mark.parametrize("level", ["7.0", "2", "3.5", 3, 3.5, (3,), "", "four", None])
def test_unknown_feature_levels_are_refused(level) -> None:
    with pytest.raises(UsageError, match="feature level"):
        directml_one_hot(np.zeros((1, 1), np.uint32), np.zeros((1, 2), np.float32), (1, 2), 1, level)


@pytest.mark.parametrize(
    "level,table",
    [
        ("3.1", "3.0"),
        ("4.0", "3.0"),
        ("DML_FEATURE_LEVEL_5_0", "4.1"),
        ("6.4", "4.1"),
        ("2.1", "2.1"),
        (3.0, "3.0"),
        ((4, 1), "4.1"),
        ("dml_feature_level_2_1", "2.1"),
    ],
)
def test_a_level_uses_the_newest_table_at_or_below_it(level, table) -> None:
    """INT8 values need 2.1; INT64 values need 4.1; 1-D tensors need 3.0."""
    values = np.array([[[[0, 1]]]], np.int8)
    out = directml_one_hot(np.array([[[[1]]]], np.uint32), values, (1, 1, 1, 2), 3, level)
    assert out.reshape(-1).tolist() == [0, 1]
    big, zero = np.array([[[[0, 2**40]]]], np.int64), np.zeros((1, 1, 1, 1), np.uint32)
    if table == "4.1":
        assert directml_one_hot(zero, big, (1, 1, 1, 2), 3, level).reshape(-1).tolist() == [2**40, 0]
    else:
        with pytest.raises(InputError, match="got INT64"):
            directml_one_hot(zero, big, (1, 1, 1, 2), 3, level)
    one_d_ok = table != "2.1"
    if one_d_ok:
        assert directml_one_hot(np.array([1], np.uint32), values.reshape(2), (2,), 0, level).tolist() == [
            0,
            1,
        ]
    else:
        with pytest.raises(InputError, match="dimension counts 4, got 1"):
            directml_one_hot(np.array([1], np.uint32), values.reshape(2), (2,), 0, level)
