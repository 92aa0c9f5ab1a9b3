"""MatMul-0 against OpenVINO's core reference: shapes, 1-D rules, transposes, batch broadcast.

f32 values are bit-exact (ovonehot sums in the reference's order); integers are exact.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_same, compare_op, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import matmul
from ovonehot.types import PartialShape

ops = pytest.importorskip("openvino.opset15")

MATMUL_CASES = [
    pytest.param((2, 3), (3, 4), False, False, id="2d"),
    pytest.param((3, 2), (3, 4), True, False, id="transpose-a"),
    pytest.param((2, 3), (4, 3), False, True, id="transpose-b"),
    pytest.param((3, 2), (4, 3), True, True, id="transpose-both"),
    pytest.param((3,), (3, 4), False, False, id="vector-left"),
    pytest.param((2, 3), (3,), False, False, id="vector-right"),
    pytest.param((3,), (3,), False, False, id="dot"),
    pytest.param((3,), (4, 3), True, True, id="vector-transposes-ignored"),
    pytest.param((2, 1, 2, 3), (5, 3, 4), False, False, id="batch-broadcast"),
    pytest.param((4, 2, 3), (3,), False, False, id="batch-vector"),
    pytest.param((3,), (2, 3, 4), False, False, id="vector-batch"),
    pytest.param((2, 0), (0, 3), False, False, id="empty-k"),
    pytest.param((0, 3), (3, 2), False, False, id="empty-m"),
]


def _operand(shape, dtype, seed):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize(("sa", "sb", "ta", "tb"), MATMUL_CASES)
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int32, np.int64, np.float16], ids=lambda d: np.dtype(d).name
)
def test_matmul_matches_reference(tmp_path, sa, sb, ta, tb, dtype):  # type: ignore[no-untyped-def]
    a, b = _operand(sa, dtype, 1), _operand(sb, dtype, 2)
    compare_op(tmp_path, lambda x, y: ops.matmul(x, y, ta, tb), [P(a), C(b)])


def test_long_f32_sums_are_bit_exact(tmp_path):  # type: ignore[no-untyped-def]
    # K = 300 with values of mixed magnitude: any other summation order shows.
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((4, 300)) * 10.0 ** rng.integers(-3, 4, (4, 300))).astype(np.float32)
    b = rng.standard_normal((300, 5)).astype(np.float32)
    compare_op(tmp_path, lambda x, y: ops.matmul(x, y, False, False), [P(a), P(b)])


@pytest.mark.parametrize(
    ("sa", "sb", "block"),
    [
        pytest.param((2, 3, 300), (300, 6), None, id="one-block"),
        pytest.param((3, 2, 7, 200), (2, 200, 9), 40, id="batch-five-blocks"),
    ],
)
def test_blocked_f32_sums_are_bit_exact(tmp_path, monkeypatch, sa, sb, block):  # type: ignore[no-untyped-def]
    # The blocked sum (rows of >= 4 outputs) adds whole rows in k order: any other order shows.
    if block is not None:
        monkeypatch.setattr(matmul, "BLOCK_ELEMENTS", block * 3 * 2 * 7 * 9)
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(sa) * 10.0 ** rng.integers(-3, 4, sa)).astype(np.float32)
    a.flat[[3, 50]] = [-0.0, np.inf]
    b = rng.standard_normal(sb).astype(np.float32)
    compare_op(tmp_path, lambda x, y: ops.matmul(x, y, False, False), [P(a), P(b)])


def test_one_hot_embedding_pattern(tmp_path):  # type: ignore[no-untyped-def]
    # What PyTorch's one_hot(x).float() @ W becomes: exact, a row gather.
    hot = np.eye(5, dtype=np.float32)[[0, 3, 4, 3]]
    w = np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)
    out = compare_op(tmp_path, lambda x, y: ops.matmul(x, y, False, False), [P(hot), C(w)])
    assert out.ours is not None
    assert_same(out.ours[0], w[[0, 3, 4, 3]])


def test_bf16_goes_through_f32(tmp_path):  # type: ignore[no-untyped-def]
    bf16 = np.dtype(ml_dtypes.bfloat16)
    a, b = _operand((2, 7), bf16, 3), _operand((7, 3), bf16, 4)
    compare_op(tmp_path, lambda x, y: ops.matmul(x, y, False, False), [P(a), P(b)])


MATMUL_INFER = [
    pytest.param("?,3", "3,4", False, False, id="dyn-m"),
    pytest.param("2,?", "?,4", False, False, id="dyn-k"),
    pytest.param("1..4,2,3", "5,3,4", False, False, id="interval-batch"),
    pytest.param("...", "3,4", False, False, id="dyn-rank"),
    pytest.param("3", "?,3,4", True, False, id="vector-dyn-batch"),
    pytest.param("2..3,5", "4..6,1", True, True, id="intervals-transposed"),
    pytest.param("?,2,3", "5,3,4", False, False, id="dyn-batch"),
    pytest.param("2..3,2,3", "4,3,4", False, False, id="batch-no-merge"),
]


@pytest.mark.parametrize(("sa", "sb", "ta", "tb"), MATMUL_INFER)
def test_matmul_infer_agrees(tmp_path, sa, sb, ta, tb):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    ours, theirs = infer_shapes(
        tmp_path, lambda x, y: ops.matmul(x, y, ta, tb), [P(z, shape=sa), P(z, shape=sb)]
    )
    assert ours == theirs


def test_matmul_refusals():  # type: ignore[no-untyped-def]
    attrs = matmul.MatMulAttrs()
    with pytest.raises(ValidationError, match="Incompatible MatMul matrix dimension"):
        matmul.matmul_shape(attrs, PartialShape.of((2, 3)), PartialShape.of((4, 5)))
    with pytest.raises(ValidationError, match="Incompatible MatMul batch dimension"):
        matmul.matmul_shape(attrs, PartialShape.of((2, 2, 3)), PartialShape.of((3, 3, 5)))
    with pytest.raises(ValidationError, match="Scalars"):
        matmul.matmul_shape(attrs, PartialShape.of(()), PartialShape.of((3,)))
