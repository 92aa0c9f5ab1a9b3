"""CumSum-3 and NonZero-3 against OpenVINO's core reference and shape inference.

CumSum: the reference evaluates only f32, compared bit for bit; integer CumSum is
checked against Python's exact integers wrapped to the type.  NonZero exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_same, compare_op, infer_shapes

from ovonehot.ops import cumsum

ops = pytest.importorskip("openvino.opset15")

CUMSUM_CASES = [
    pytest.param((2, 5), -1, False, False, id="last-axis"),
    pytest.param((2, 5), 0, True, False, id="exclusive"),
    pytest.param((3, 4), 1, False, True, id="reverse"),
    pytest.param((3, 4, 2), 1, True, True, id="exclusive-reverse"),
    pytest.param((0, 4), 1, False, False, id="empty"),
]


@pytest.mark.parametrize(("shape", "axis", "exclusive", "reverse"), CUMSUM_CASES)
def test_cumsum_matches_reference(tmp_path, shape, axis, exclusive, reverse):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)
    compare_op(tmp_path, lambda a, b: ops.cumsum(a, b, exclusive, reverse), [P(x), C(np.int64(axis))])


def test_cumsum_integers_wrap(tmp_path):  # type: ignore[no-untyped-def]
    x = np.array([[2**31 - 2, 1, 1, 5], [-(2**31), -1, 3, 0]], np.int32)
    out = compare_op(tmp_path, lambda a, b: ops.cumsum(a, b), [P(x), C(np.int32(1))], require_reference=False)
    assert out.ours is not None
    want = [[int(v) for v in np.cumsum(row.astype(object))] for row in x]
    assert_same(out.ours[0], np.array([[(v + 2**31) % 2**32 - 2**31 for v in row] for row in want], np.int32))
    (default_axis,) = cumsum.evaluate_cumsum(cumsum.CumSumAttrs(), [x.astype(np.int64)])
    assert_same(default_axis, np.cumsum(x.astype(np.int64), axis=0))


@pytest.mark.parametrize("shape", ["?,3", "...", "2..5"], ids=["dyn", "dyn-rank", "interval"])
def test_cumsum_infer_agrees(tmp_path, shape):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path, ops.cumsum, [P(np.zeros((), np.float32), shape=shape), C(np.int64(0))]
    )
    assert ours == theirs


NONZERO_CASES = [
    pytest.param(np.array([[1, 0, 2], [0, 0, 3]], np.float32), id="2d"),
    pytest.param(np.array([0, -0.0, np.nan, 1e-30], np.float32), id="nan-and-minus-zero"),
    pytest.param(np.zeros((0, 3), np.int32), id="empty"),
    pytest.param(np.array([[[True, False]], [[False, True]]]), id="bool-3d"),
    pytest.param(np.zeros((2, 2), np.int64), id="all-zero"),
    pytest.param(np.array(5, np.int32), id="scalar"),
    pytest.param(np.array(0, np.int32), id="zero-scalar"),
]


@pytest.mark.parametrize("x", NONZERO_CASES)
@pytest.mark.parametrize("out_type", ["i32", "i64"])
def test_non_zero_matches_reference(tmp_path, x, out_type):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda a: ops.non_zero(a, out_type), [P(x)])


@pytest.mark.parametrize("shape", ["2,3", "?,3", "1..4,3", "...", "", "0,3", "2,3.."], ids=str)
def test_non_zero_infer_agrees(tmp_path, shape):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path, lambda a: ops.non_zero(a, "i64"), [P(np.zeros((), np.float32), shape=shape)]
    )
    assert ours == theirs


NONZERO_CONSTANTS = [
    pytest.param(np.array([1, 0, 2, 0, 3], np.float32), id="1d"),
    pytest.param(np.array([[1, 0], [0, 0]], np.int64), id="2d"),
    pytest.param(np.array(5.0, np.float32), id="scalar"),
    pytest.param(np.array(0, np.int32), id="zero-scalar"),
    pytest.param(np.zeros((2, 0), np.float32), id="empty"),
]


@pytest.mark.parametrize("value", NONZERO_CONSTANTS)
def test_non_zero_of_a_constant_has_its_exact_shape(tmp_path, value):  # type: ignore[no-untyped-def]
    # OpenVINO's NonZero reads a constant input and infers the exact output shape (found on an
    # ONNX Compress converted by OpenVINO: NonZero over a constant condition).
    ours, theirs = infer_shapes(
        tmp_path, lambda c: ops.multiply(ops.non_zero(c), ops.constant(np.int64(1))), [C(value)]
    )
    assert ours == theirs
