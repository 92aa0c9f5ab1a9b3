"""``conventions.onnx_one_hot``: ONNX OneHot-9/11/28 as the ONNX operator page writes it.

Expected values come from three places: ONNX's own backend test cases for OneHot
(model, inputs and the outputs ONNX ships); onnxruntime, on the type combinations
it implements; and ``slow_onnx`` below, an element-by-element transcription of the
spec text (Python ints, ``math.trunc`` for the int64 cast) used as an independent
oracle.  The ``test_finding_*`` tests pin down where onnx.reference and onnxruntime
depart from the spec (docs/conventions.md, "Findings"): if one starts failing, the
upstream behaviour changed and the document must follow.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from onnx_cases import assert_bits, backend_cases, backend_ids, for_onnxruntime, one_hot_model

from ovonehot.conventions import ONNX_ONE_HOT_VERSIONS, onnx_one_hot
from ovonehot.errors import Error, InputError, UsageError

ml_dtypes = pytest.importorskip("ml_dtypes")


def slow_onnx(
    indices: np.ndarray, depth: object, values: np.ndarray, axis: int = -1, opset: int = 11
) -> np.ndarray:
    """The spec, one element at a time: cast non-integers to int64 (truncation), wrap [-depth, -1]
    from OneHot-11 on, leave everything outside the range off."""
    indices = np.asarray(indices)
    d = math.trunc(float(np.asarray(depth).reshape(())))
    r = indices.ndim
    ax = axis + r + 1 if axis < 0 else axis
    out = np.empty((*indices.shape[:ax], d, *indices.shape[ax:]), dtype=values.dtype)
    out[...] = values[0]
    for pos in np.ndindex(indices.shape):
        raw = indices[pos]
        v = math.trunc(float(raw)) if indices.dtype.kind == "f" else int(raw)
        if opset >= 11 and -d <= v < 0:
            v += d
        if 0 <= v < d:
            out[(*pos[:ax], v, *pos[ax:])] = values[1]
    return out


# -- ONNX's backend test cases --------------------------------------------------------------


@pytest.mark.parametrize("case", backend_cases(), ids=backend_ids())
def test_backend_case(case) -> None:
    indices, depth, values = case.inputs
    assert_bits(onnx_one_hot(indices, depth, values, case.axis, case.opset), case.expected, case.name)


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize("case", backend_cases(), ids=backend_ids())
def test_backend_case_through_onnxruntime(case) -> None:
    ort = pytest.importorskip("onnxruntime", reason="cross-check with onnxruntime (test extra)")
    if case.expected.dtype == ml_dtypes.bfloat16:
        pytest.skip("bfloat16 values need OneHot-28; onnxruntime 1.31 loads opsets up to 26 only")
    session = ort.InferenceSession(for_onnxruntime(case.model).SerializeToString())
    (theirs,) = session.run(None, case.feeds())
    assert_bits(theirs, case.expected, "onnxruntime vs ONNX's expected output")
    indices, depth, values = case.inputs
    assert_bits(onnx_one_hot(indices, depth, values, case.axis, case.opset), theirs, case.name)


# -- onnxruntime on the type combinations it implements (probed on onnxruntime 1.31) -------

# (indices type, depth type, values type)
ORT_COMBOS = [
    (np.int64, np.int64, np.float32),
    (np.int64, np.int64, np.int64),
    (np.int64, np.int64, object),
    (np.int64, np.float32, np.int32),
    (np.int64, np.float16, np.float16),
    (np.int32, np.int32, np.float32),
    (np.int32, np.float32, np.float16),
    (np.float32, np.int64, np.int64),
    (np.float32, np.float32, np.float32),
    (np.float16, np.int64, object),
]


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize(
    "index_type,depth_type,value_type",
    ORT_COMBOS,
    ids=["-".join(np.dtype(t).name for t in c) for c in ORT_COMBOS],
)
@pytest.mark.parametrize("axis", [-3, -1, 0, 1])
def test_agrees_with_onnxruntime(index_type, depth_type, value_type, axis) -> None:
    """Integer-valued indices in [-2 depth, 2 depth): onnxruntime and the spec agree there
    (non-integer float indices are a finding, below)."""
    ort = pytest.importorskip("onnxruntime", reason="cross-check with onnxruntime (test extra)")
    rng = np.random.default_rng(11 + axis)
    depth = np.array(6, depth_type)
    indices = rng.integers(-12, 12, size=(2, 5)).astype(index_type)
    if value_type is object:
        values = np.array(["off", "on"], dtype=object)
    else:
        values = np.array([rng.integers(0, 50), rng.integers(50, 100)]).astype(value_type)
    model = one_hot_model(indices, depth, values, axis)
    (theirs,) = ort.InferenceSession(model.SerializeToString()).run(
        None, {"indices": indices, "depth": depth, "values": values}
    )
    if value_type is object:
        theirs = theirs.astype(object)
    ours = onnx_one_hot(indices, depth, values, axis)
    assert_bits(ours, theirs)
    assert_bits(ours, slow_onnx(indices, depth, values, axis))


# -- the written rules, against the slow transcription --------------------------------------

# (id, indices, depth, opset, axis)
RULES = [
    ("float-indices-truncate", np.array([1.9, -0.7, -1.5, 2.5, -3.99, 3.0]), np.int64(4), 11, -1),
    ("float16-indices", np.array([0.5, 1.5, -2.5], np.float16), np.float16(3), 11, 0),
    ("float-depth-truncates", np.array([0, 2, 3, -3]), np.float32(3.7), 11, -1),
    ("depth-rank1", np.array([[0, 2], [1, -1]]), np.array([3], np.uint8), 11, 1),
    ("opset9-ignores-negatives", np.array([-1, -3, 0, 2, 3]), np.int64(3), 9, -1),
    ("opset10-is-onehot9", np.array([-1, 1]), np.int64(3), 10, -1),
    ("opset11-wraps-once", np.array([-1, -3, -4, 2, 3]), np.int64(3), 11, -1),
    ("opset27-is-onehot11", np.array([-1, 1]), np.int64(3), 27, -1),
    ("opset28", np.array([-1, 1, -9]), np.int64(3), 28, 0),
    ("axis-minus-r-minus-1", np.array([[0, 1, 2]]), np.int64(3), 11, -3),
    ("axis-r", np.array([[0, 1, 2]]), np.int64(3), 11, 2),
    ("scalar-indices", np.array(2), np.int64(3), 11, 0),
    ("depth-0", np.array([0, 1, -1]), np.int64(0), 11, -1),
    ("uint64-beyond-int64", np.array([2**64 - 1, 2**63, 1], np.uint64), np.int64(3), 11, -1),
    ("uint8-indices", np.array([255, 2], np.uint8), np.uint16(3), 11, -1),
    ("int8-negatives", np.array([-128, -3, 127], np.int8), np.int8(3), 11, -1),
    ("huge-depth-type-u64", np.array([5]), np.uint64(6), 11, -1),
]


@pytest.mark.parametrize("indices,depth,opset,axis", [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_written_rules(indices, depth, opset, axis) -> None:
    values = np.array([-1.5, 7.25], np.float32)
    assert_bits(
        onnx_one_hot(indices, depth, values, axis, opset), slow_onnx(indices, depth, values, axis, opset)
    )


def test_truncation_toward_zero_by_example() -> None:
    out = onnx_one_hot(np.array([1.9, -0.7, -1.5]), 3, np.array([0, 1], np.int8))
    assert out.tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]


# Every T3 type: values are copied bit for bit. (id, values)
VALUE_TYPES = [
    ("bool", np.array([False, True])),
    ("uint8-on-below-off", np.array([200, 7], np.uint8)),
    ("uint64-max", np.array([0, 2**64 - 1], np.uint64)),
    ("int64-min", np.array([-(2**63), 2**63 - 1], np.int64)),
    ("float16", np.array([0.5, -2], np.float16)),
    ("float64-inexact", np.array([0.3, 0.1], np.float64)),
    ("float32-inf", np.array([0, np.inf], np.float32)),
    ("float32-nan-payload-neg-zero", np.array([0x80000000, 0x7FC00ABC], np.uint32).view(np.float32)),
    ("complex64", np.array([1 + 2j, np.nan - 0j], np.complex64)),
    ("complex128", np.array([-0.0 + 1e300j, 3 - 4j], np.complex128)),
    ("str", np.array(["off", "on"])),
    ("bytes", np.array([b"\x00", b"hot"], dtype=object)),
    ("object-str", np.array(["", "é"], dtype=object)),
]


@pytest.mark.parametrize("values", [v for _, v in VALUE_TYPES], ids=[i for i, _ in VALUE_TYPES])
def test_values_of_every_onnx_type_are_copied_exactly(values) -> None:
    indices = np.array([[0, 1], [-1, 5]])
    out = onnx_one_hot(indices, np.int64(2), values, axis=1)
    expected_values = values.astype(object) if values.dtype.kind in "US" else values
    expected = slow_onnx(indices, 2, expected_values, axis=1)
    assert out.dtype == expected.dtype
    if out.dtype == object:
        assert out.tolist() == expected.tolist()
    else:  # bits, so NaN payloads and -0.0 count
        assert out.tobytes() == expected.tobytes()


def test_bfloat16_values_need_onehot_28() -> None:
    values = np.array([1, 3], ml_dtypes.bfloat16)
    with pytest.raises(InputError, match="bfloat16 needs OneHot-28"):
        onnx_one_hot(np.array([0]), 2, values, opset=27)
    assert onnx_one_hot(np.array([0]), 2, values, opset=28).astype(np.float32).tolist() == [[3, 1]]


# (id, indices, depth, values, axis, opset, error type, words)
REFUSALS = [
    ("opset-8", np.array([0]), 2, np.array([0, 1]), -1, 8, UsageError, "opset 8 has no OneHot"),
    ("opset-not-int", np.array([0]), 2, np.array([0, 1]), -1, 11.0, UsageError, "opset must be an integer"),
    ("axis-not-int", np.array([0]), 2, np.array([0, 1]), 1.0, 11, UsageError, "axis must be an integer"),
    (
        "axis-too-big",
        np.array([[0]]),
        2,
        np.array([0, 1]),
        3,
        11,
        InputError,
        "axis 3 is outside the accepted range [-3, 2]",
    ),
    (
        "axis-too-small",
        np.array([0]),
        2,
        np.array([0, 1]),
        -3,
        9,
        InputError,
        "axis -3 is outside the accepted range [-2, 1]",
    ),
    ("bool-indices", np.array([True]), 2, np.array([0, 1]), -1, 11, InputError, "indices of type bool"),
    (
        "bf16-indices",
        np.array([1], ml_dtypes.bfloat16),
        2,
        np.array([0, 1]),
        -1,
        11,
        InputError,
        "indices of type bfloat16",
    ),
    ("string-indices", np.array(["1"]), 2, np.array([0, 1]), -1, 11, InputError, "indices of type object"),
    ("nan-index", np.array([np.nan]), 2, np.array([0, 1]), -1, 11, InputError, "nan has no int64 value"),
    ("inf-index", np.array([-np.inf], np.float32), 2, np.array([0, 1]), -1, 11, InputError, "no int64 value"),
    ("index-1e19", np.array([1e19]), 2, np.array([0, 1]), -1, 11, InputError, "no int64 value"),
    ("depth-nan", np.array([1]), np.float32(np.nan), np.array([0, 1]), -1, 11, InputError, "depth: nan"),
    (
        "depth-negative",
        np.array([1]),
        -2,
        np.array([0, 1]),
        -1,
        11,
        InputError,
        "must not be negative, got -2",
    ),
    ("depth-negative-float", np.array([1]), -1.5, np.array([0, 1]), -1, 11, InputError, "got -1"),
    (
        "depth-two-elements",
        np.array([1]),
        np.array([2, 3]),
        np.array([0, 1]),
        -1,
        11,
        InputError,
        "got shape [2]",
    ),
    ("depth-1x1", np.array([1]), np.array([[2]]), np.array([0, 1]), -1, 11, InputError, "got shape [1, 1]"),
    ("depth-bool", np.array([1]), True, np.array([0, 1]), -1, 11, InputError, "depth of type bool"),
    (
        "depth-beyond-int64",
        np.array([1]),
        np.uint64(2**63),
        np.array([0, 1]),
        -1,
        11,
        InputError,
        "does not fit in int64",
    ),
    ("values-three", np.array([1]), 2, np.array([0, 1, 2]), -1, 11, InputError, "got shape [3]"),
    ("values-1x2", np.array([1]), 2, np.array([[0, 1]]), -1, 11, InputError, "got shape [1, 2]"),
    ("values-scalar", np.array([1]), 2, np.array(1), -1, 11, InputError, "got shape []"),
    (
        "values-objects",
        np.array([1]),
        2,
        np.array([0, None], dtype=object),
        -1,
        11,
        InputError,
        "must be strings",
    ),
    (
        "values-float8",
        np.array([1]),
        2,
        np.array([0, 1], ml_dtypes.float8_e4m3fn),
        -1,
        28,
        InputError,
        "values of type float8_e4m3fn are not allowed",
    ),
    (
        "values-longdouble",
        np.array([1]),
        2,
        np.array([0, 1], np.longdouble),
        -1,
        11,
        InputError,
        "are not allowed",
    ),
]


@pytest.mark.parametrize(
    "indices,depth,values,axis,opset,error,words", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusals(indices, depth, values, axis, opset, error, words) -> None:
    with pytest.raises(error) as info:
        onnx_one_hot(indices, depth, values, axis, opset)
    assert words in str(info.value)
    assert isinstance(info.value, Error)


def test_versions_table_is_onnxs() -> None:
    onnx = pytest.importorskip("onnx")
    history = sorted(
        {s.since_version for s in onnx.defs.get_all_schemas_with_history() if s.name == "OneHot"}
    )
    assert tuple(history) == ONNX_ONE_HOT_VERSIONS


# -- findings: where onnx.reference and onnxruntime depart from the spec ----------------------


def reference_run(indices, depth, values, axis=-1, opset=11):
    from onnx.reference import ReferenceEvaluator

    model = one_hot_model(np.asarray(indices), np.asarray(depth), np.asarray(values), axis, opset)
    (out,) = ReferenceEvaluator(model).run(
        None, {"indices": np.asarray(indices), "depth": np.asarray(depth), "values": np.asarray(values)}
    )
    return out


def ort_run(indices, depth, values, axis=-1, opset=11):
    ort = pytest.importorskip("onnxruntime", reason="cross-check with onnxruntime (test extra)")
    model = one_hot_model(np.asarray(indices), np.asarray(depth), np.asarray(values), axis, opset)
    (out,) = ort.InferenceSession(model.SerializeToString()).run(
        None, {"indices": np.asarray(indices), "depth": np.asarray(depth), "values": np.asarray(values)}
    )
    return out


F01 = np.array([0, 1], np.float32)


@pytest.mark.held_for("onnx==1.23.2")
def test_finding_reference_never_turns_on_non_integer_float_indices() -> None:
    indices = np.array([1.9, -0.7, 2.0], np.float32)
    assert onnx_one_hot(indices, np.float32(3), F01).tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    assert reference_run(indices, np.float32(3), F01).tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 1]]


@pytest.mark.held_for("onnx==1.23.2")
def test_finding_reference_keeps_a_fractional_depth() -> None:
    """np.arange(3.7) has 4 elements: onnx.reference makes a depth-4 axis where ONNX says 3."""
    assert onnx_one_hot(np.array([3]), np.float32(3.7), F01).shape == (1, 3)
    assert reference_run(np.array([3]), np.float32(3.7), F01).tolist() == [[0, 0, 0, 1]]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # onnx.reference's own overflow/invalid warnings
@pytest.mark.parametrize(
    "values",
    [
        np.array([0, np.inf], np.float32),  # 0 * (inf - 0) + 0 = nan at the off positions
        np.array([-0.0, np.nan], np.float32),  # every position becomes nan
        np.array([-1e308, 1e308]),  # on - off overflows to inf, then 0 * inf = nan
    ],
    ids=["inf-on", "nan-on", "overflow"],
)
@pytest.mark.held_for("onnx==1.23.2")
def test_finding_reference_computes_values_arithmetically(values) -> None:
    ours = onnx_one_hot(np.array([1]), 2, values)
    theirs = reference_run(np.array([1]), np.int64(2), values)
    assert ours[0, 0].tobytes() == values[0].tobytes()
    assert ours[0, 1].tobytes() == values[1].tobytes()
    assert np.isnan(theirs[0, 0]) and not np.isnan(values[0])


@pytest.mark.held_for("onnx==1.23.2")
@pytest.mark.parametrize(
    "values", [np.array([False, True]), np.array(["off", "on"], dtype=object)], ids=["bool", "string"]
)
def test_finding_reference_cannot_run_bool_or_string_values(values) -> None:
    assert onnx_one_hot(np.array([1]), 2, values).tolist() == [[values[0], values[1]]]
    with pytest.raises(Exception):  # noqa: B017 - whatever onnx.reference raises, it does not run
        reference_run(np.array([1]), np.int64(2), values)


@pytest.mark.held_for("onnx==1.23.2")
@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize("run", [reference_run, ort_run], ids=["onnx.reference", "onnxruntime"])
def test_finding_opset_9_negative_indices_are_wrapped_by_others(run) -> None:
    """OneHot-9: "outside the range [0, depth) ... all off_value"; both wrap -1 like OneHot-11."""
    assert onnx_one_hot(np.array([-1]), 3, F01, opset=9).tolist() == [[0, 0, 0]]
    assert run(np.array([-1]), np.int64(3), F01, opset=9).tolist() == [[0, 0, 1]]


@pytest.mark.held_for("onnxruntime==1.31.1")
def test_finding_onnxruntime_never_turns_on_non_integer_float_indices() -> None:
    indices = np.array([1.9, -0.7, 2.0], np.float32)
    assert ort_run(indices, np.float32(3), F01).tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 1]]


@pytest.mark.held_for("onnxruntime==1.31.1")
def test_finding_onnxruntime_refuses_depth_0_as_negative() -> None:
    assert onnx_one_hot(np.array([0, 1]), 0, F01).shape == (2, 0)
    with pytest.raises(Exception, match="Depth is negative"):
        ort_run(np.array([0, 1]), np.int64(0), F01)
