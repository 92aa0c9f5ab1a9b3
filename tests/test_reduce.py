"""ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd against OpenVINO's core reference.

Each case runs through ``ovref.compare_op``: values bit for bit against
``Node.evaluate`` (Kahan sums, NaN handling, empty reductions, integer wrap-around
and truncating means included) and the inferred output against OpenVINO's.  Element
types are those the reference evaluates (``bounds._DATA_TYPES``).  The shape rule
on partial shapes, unknown axes and dynamic ranks is checked on seeded random cases.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from ovref import C, P, compare_op

from ovonehot.errors import Error
from ovonehot.ops import reduce as R
from ovonehot.ops.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset1, opset15

FACTORIES = {
    "ReduceSum": opset1.reduce_sum,
    "ReduceMean": opset1.reduce_mean,
    "ReduceMax": opset1.reduce_max,
    "ReduceMin": opset1.reduce_min,
    "ReduceProd": opset1.reduce_prod,
}
# The element types OpenVINO's reference reduces (measured; f16 goes through f32).
TYPES = {
    "ReduceSum": [np.float32, np.float16, np.int32, np.int64, np.uint32, np.uint64],
    "ReduceMean": [np.float32, np.float16, np.int32, np.int64, np.uint32, np.uint64],
    "ReduceMax": [np.float32, np.float16, np.int8, np.uint8, np.int32, np.int64, np.uint32, np.uint64],
    "ReduceMin": [np.float32, np.float16, np.int8, np.uint8, np.int32, np.int64, np.uint32, np.uint64],
    "ReduceProd": [np.float32, np.float16, np.int32, np.int64, np.uint32, np.uint64],
}
OPS_AND_TYPES = [
    pytest.param(op, t, id=f"{op}-{np.dtype(t).name}") for op, types in TYPES.items() for t in types
]

AXES_CASES = [
    pytest.param((3, 4), [1], False, id="last"),
    pytest.param((3, 4), [-2], True, id="negative-keep"),
    pytest.param((2, 3, 4), [0, 2], False, id="two-axes"),
    pytest.param((2, 3, 4), [2, -1], True, id="repeated-axis-keep"),
    pytest.param((3, 4), [], False, id="no-axes"),
    pytest.param((3, 4), 0, False, id="scalar-axis"),
    pytest.param((), [0], False, id="scalar-data"),
    pytest.param((0, 4), [0], False, id="empty-reduction"),
    pytest.param((4, 0), [0], True, id="empty-output"),
]


def values(shape: tuple[int, ...], dtype: object, r: random.Random) -> np.ndarray:
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        pool = [0.1, -0.3, 1e3, 2.5, -7.0, 3.3e-3, 0.7, -0.0]
    else:
        info = np.iinfo(dt)
        pool = [0, 1, 2, 3, 7, 100, int(info.max), int(info.min), int(info.max) // 3]
    return np.array([r.choice(pool) for _ in range(n)], dtype=dt).reshape(shape)


@pytest.mark.parametrize("shape, axes, keep_dims", AXES_CASES)
@pytest.mark.parametrize("op, dtype", OPS_AND_TYPES)
def test_reduce_matches_reference(tmp_path, op, dtype, shape, axes, keep_dims):  # type: ignore[no-untyped-def]
    r = random.Random(f"{op}{dtype}{shape}{axes}")
    compare_op(
        tmp_path,
        lambda x, a: FACTORIES[op](x, a, keep_dims),
        [P(values(shape, dtype, r)), C(np.asarray(axes, np.int64))],
    )


SPECIAL_FLOATS = [
    pytest.param([np.nan, 1.0, 2.0], id="nan-first"),
    pytest.param([1.0, np.nan, -2.0], id="nan-middle"),
    pytest.param([np.inf, -np.inf, 1.0], id="infinities"),
    pytest.param([3e4, 1.0, -3e4, 1e-3], id="kahan-cancellation"),
    pytest.param([0.1] * 37, id="kahan-many"),
    pytest.param([-0.0, -0.0], id="negative-zeros"),
]


@pytest.mark.parametrize("vals", SPECIAL_FLOATS)
@pytest.mark.parametrize("op", FACTORIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=str)
def test_reduce_special_floats(tmp_path, op, vals, dtype):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda x, a: FACTORIES[op](x, a, False),
        [P(np.array(vals, dtype).reshape(1, -1)), C(np.array([1], np.int64))],
    )


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceProd"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32], ids=str)
def test_reduce_integer_overflow_wraps(tmp_path, op, dtype):  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    x = np.array([[info.max, 3, info.max // 2], [info.min, -1 if info.min < 0 else 9, 5]], dtype=dtype)
    compare_op(tmp_path, lambda d, a: FACTORIES[op](d, a, False), [P(x), C(np.array(1, np.int64))])


# -- the shape rule -----------------------------------------------------------------------------
def _dim(r: random.Random) -> object:
    k = r.random()
    if k < 0.6:
        return r.choice([0, 1, 2, 3])
    if k < 0.8:
        return -1
    return ov.Dimension(r.choice([0, 1, 2]), r.choice([3, 5, -1]))


@pytest.mark.parametrize("seed", range(3))
def test_reduce_shape_rule_agrees_with_openvino(seed):  # type: ignore[no-untyped-def]
    r = random.Random(seed)
    for _ in range(120):
        shape = (
            ov.PartialShape.dynamic()
            if r.random() < 0.1
            else ov.PartialShape([_dim(r) for _ in range(r.randint(0, 4))])
        )
        axes = [r.randint(-4, 3) for _ in range(r.randint(0, 3))]
        keep, scalar_axis, known = r.random() < 0.5, r.random() < 0.2 and len(axes) == 1, r.random() < 0.8
        axes_shape = [] if scalar_axis else [len(axes)]
        try:
            a = (
                opset15.constant(np.array(axes[0] if scalar_axis else axes, np.int64))
                if known
                else opset1.parameter(axes_shape, ov.Type.i64)
            )
            node = opset1.reduce_sum(opset1.parameter(shape, ov.Type.f32), a, keep)
            theirs = str(node.get_output_partial_shape(0))
        except RuntimeError:
            theirs = "refused"
        value = np.array(axes[0] if scalar_axis else axes, np.int64) if known else None
        axes_info = TensorInfo(ElementType.i64, PartialShape.of(axes_shape), value=value)
        try:
            data = TensorInfo(ElementType.f32, PartialShape.parse(str(shape)))
            ours = str(R.infer_reduce(R.ReduceAttrs(R.Reduction.SUM, keep), [data, axes_info])[0].shape)
        except Error:
            ours = "refused"
        assert ours == theirs, f"{shape} axes={axes} keep={keep} known={known}"


def test_reduce_refuses_boolean_data():  # type: ignore[no-untyped-def]
    data = TensorInfo(ElementType.boolean, PartialShape.of([2]))
    axes = TensorInfo(ElementType.i64, PartialShape.of([]), value=np.array(0))
    with pytest.raises(Error, match="must be numeric"):
        R.infer_reduce(R.ReduceAttrs(R.Reduction.MAX), [data, axes])
