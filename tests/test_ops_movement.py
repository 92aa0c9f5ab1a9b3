"""Split, VariadicSplit, Transpose, Broadcast, Tile, Slice against OpenVINO.

Values against the core reference (``Node.evaluate``), bit for bit; inferred output
shapes and types against OpenVINO's own inference, also for dynamic and interval
inputs (see ``ovref``).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_same, build, compare_op, infer_shapes, reference

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import movement
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ops = pytest.importorskip("openvino.opset15")
ops3 = pytest.importorskip("openvino.opset3")
ops1 = pytest.importorskip("openvino.opset1")

DTYPES = [np.float32, np.int64, np.int8, np.uint8, np.float16, np.dtype(ml_dtypes.bfloat16), np.bool_]


def _data(shape, dtype=np.float32):  # type: ignore[no-untyped-def]
    return (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)


# -- Split -----------------------------------------------------------------------------------
SPLIT_CASES = [
    pytest.param((6, 4), 0, 3, id="axis0"),
    pytest.param((2, 6), -1, 2, id="negative-axis"),
    pytest.param((2, 3, 4), 1, 3, id="into-ones"),
    pytest.param((0, 4), 0, 2, id="empty"),
    pytest.param((5,), 0, 1, id="one-split"),
]


@pytest.mark.parametrize(("shape", "axis", "n"), SPLIT_CASES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_split_matches_reference(tmp_path, shape, axis, n, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda d, a: ops.split(d, a, n), [P(_data(shape, dtype)), C(np.int64(axis))])


@pytest.mark.parametrize(
    ("shape", "n"),
    [("2,4..10,?", 3), ("2,?,3", 3), ("2,7..7,1", 7), ("...", 2), ("2,1..,3", 2), ("2,3..5,1", 3)],
    ids=["interval", "dynamic", "static", "dyn-rank", "half-open", "float-rounding"],
)
def test_split_infer_agrees(tmp_path, shape, n):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path, lambda d, a: ops.split(d, a, n), [P(np.zeros((), np.float32), shape=shape), C(np.int64(1))]
    )
    assert ours == theirs


def test_split_refusals():  # type: ignore[no-untyped-def]
    data = TensorInfo(ElementType.f32, PartialShape.of((5, 2)))
    axis = TensorInfo(ElementType.i64, PartialShape.of(()), value=np.array(0))
    with pytest.raises(ValidationError, match="evenly divisible"):
        movement.infer_split(movement.SplitAttrs(2), [data, axis])
    with pytest.raises(ValidationError, match="greater than zero"):
        movement.infer_split(movement.SplitAttrs(0), [data, axis])
    with pytest.raises(ValidationError, match="out of the tensor rank range"):
        movement.infer_split(
            movement.SplitAttrs(1), [data, TensorInfo(ElementType.i64, axis.shape, value=np.array(2))]
        )


# -- VariadicSplit -----------------------------------------------------------------------------
VSPLIT_CASES = [
    pytest.param((2, 7, 3), 1, [2, -1, 3], id="minus-one"),
    pytest.param((2, 7, 3), -2, [7], id="whole"),
    pytest.param((6,), 0, [0, 6, 0], id="empty-parts"),
    pytest.param((4, 2), 0, [1, 1, 2], id="axis0"),
]


@pytest.mark.parametrize(("shape", "axis", "lengths"), VSPLIT_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_variadic_split_matches_reference(tmp_path, shape, axis, lengths, dtype):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        ops.variadic_split,
        [P(_data(shape, dtype)), C(np.int64(axis)), C(np.array(lengths, np.int64))],
    )


@pytest.mark.parametrize(
    ("shape", "lengths"),
    [("2,4..9,3", [2, -1, 3]), ("2,?,3", [2, -1]), ("2,?,3", [2, 3]), ("...", [1, 2]), ("2,3..,3", [-1, 1])],
    ids=["interval-minus-one", "dynamic-minus-one", "dynamic", "dyn-rank", "half-open"],
)
def test_variadic_split_infer_agrees(tmp_path, shape, lengths):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        ops.variadic_split,
        [P(np.zeros((), np.float32), shape=shape), C(np.int64(1)), C(np.array(lengths, np.int64))],
    )
    assert ours == theirs


def test_variadic_split_with_lengths_from_a_parameter(tmp_path):  # type: ignore[no-untyped-def]
    x = _data((2, 7))
    compare_op(tmp_path, ops.variadic_split, [P(x), C(np.int32(1)), P(np.array([3, -1], np.int32))])


# -- Transpose -------------------------------------------------------------------------------
TRANSPOSE_CASES = [
    pytest.param((2, 3), [1, 0], id="2d"),
    pytest.param((2, 3, 4), [2, 0, 1], id="3d"),
    pytest.param((2, 3, 4), [], id="empty-order-reverses"),
    pytest.param((1, 4, 4, 3), [0, 3, 1, 2], id="nhwc-to-nchw"),
    pytest.param((), [], id="scalar"),
    pytest.param((0, 3), [1, 0], id="empty-dim"),
]


@pytest.mark.parametrize(("shape", "order"), TRANSPOSE_CASES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_transpose_matches_reference(tmp_path, shape, order, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, ops.transpose, [P(_data(shape, dtype)), C(np.array(order, np.int64))])


def test_transpose_order_from_a_parameter(tmp_path):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, ops.transpose, [P(_data((2, 3, 4))), P(np.array([1, 2, 0], np.int32))])


@pytest.mark.parametrize(
    ("shape", "order"),
    [("?,3,1..4", [2, 0, 1]), ("...", [1, 0]), ("2,?", None), ("...", None)],
    ids=["interval", "dyn-rank", "unknown-order", "unknown-both"],
)
def test_transpose_infer_agrees(tmp_path, shape, order):  # type: ignore[no-untyped-def]
    order_in = C(np.array(order, np.int64)) if order is not None else P(np.zeros(2, np.int64))
    ours, theirs = infer_shapes(tmp_path, ops.transpose, [P(np.zeros((), np.float32), shape=shape), order_in])
    assert ours == theirs


def test_transpose_refuses_bad_permutations():  # type: ignore[no-untyped-def]
    data = TensorInfo(ElementType.f32, PartialShape.of((2, 3)))
    for order in ([0, 0], [-1, 0], [0, 2]):
        info = TensorInfo(ElementType.i64, PartialShape.of((2,)), value=np.array(order))
        with pytest.raises(ValidationError, match="not valid"):
            movement.infer_transpose(movement.NoAttrs(), [data, info])
        with pytest.raises(Exception, match="not valid"):  # OpenVINO refuses them too
            ops.transpose(ops.parameter([2, 3]), ops.constant(np.array(order, np.int64)))


# -- Broadcast ---------------------------------------------------------------------------------
BROADCAST_CASES = [
    pytest.param("numpy", (3, 1), [2, 3, 4], None, id="numpy"),
    pytest.param("numpy", (), [2, 3], None, id="numpy-scalar"),
    pytest.param("numpy", (1,), [0, 3, 1], None, id="numpy-empty"),
    pytest.param("bidirectional", (3, 1), [2, 1, 4], None, id="bidirectional"),
    pytest.param("bidirectional", (2, 3, 4), [3, 1], None, id="bidirectional-smaller-target"),
    pytest.param("explicit", (3,), [2, 3, 4], [1], id="explicit"),
    pytest.param("explicit", (2, 4), [2, 3, 4], [0, 2], id="explicit-2d"),
    pytest.param("explicit", (1, 4), [2, 3, 4], [1, 2], id="explicit-ones"),
]


@pytest.mark.parametrize(("mode", "shape", "target", "axes"), BROADCAST_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.uint8], ids=lambda d: np.dtype(d).name)
def test_broadcast_v3_matches_reference(tmp_path, mode, shape, target, axes, dtype):  # type: ignore[no-untyped-def]
    inputs = [P(_data(shape, dtype)), C(np.array(target, np.int64))]
    if axes is not None:
        inputs.append(C(np.array(axes, np.int64)))
    compare_op(tmp_path, lambda *a: ops3.broadcast(*a, broadcast_spec=mode), inputs)


@pytest.mark.parametrize(
    ("mode", "shape", "target", "axes"), [c for c in BROADCAST_CASES if "bidir" not in c.id]
)
def test_broadcast_v1_matches_reference(tmp_path, mode, shape, target, axes):  # type: ignore[no-untyped-def]
    inputs = [P(_data(shape)), C(np.array(target, np.int64))]
    if axes is not None:
        inputs.append(C(np.array(axes, np.int64)))
    compare_op(tmp_path, lambda *a: ops1.broadcast(*a, mode=mode), inputs)


def test_broadcast_target_from_a_parameter(tmp_path):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, ops3.broadcast, [P(_data((3, 1))), P(np.array([2, 3, 5], np.int32))])
    compare_op(
        tmp_path,
        lambda d, t: ops3.broadcast(d, t, broadcast_spec="bidirectional"),
        [P(_data((3, 1))), P(np.array([4], np.int64))],
    )


BROADCAST_INFER = [
    pytest.param("numpy", "?,1", [2, 3, 4], id="numpy-dyn"),
    pytest.param("bidirectional", "?,1", [3, 4], id="bidir-dyn"),
    pytest.param("bidirectional", "1..3,1", [1, 5], id="bidir-interval"),
    pytest.param("bidirectional", "...", [3, 4], id="bidir-dyn-rank"),
    pytest.param("numpy", "...", [3, 4], id="numpy-dyn-rank"),
]


@pytest.mark.parametrize(("mode", "shape", "target"), BROADCAST_INFER)
def test_broadcast_infer_agrees(tmp_path, mode, shape, target):  # type: ignore[no-untyped-def]
    def factory(d, t):  # type: ignore[no-untyped-def]
        return ops3.broadcast(d, t, broadcast_spec=mode)

    for target_in in (C(np.array(target, np.int64)), P(np.array(target, np.int64))):
        ours, theirs = infer_shapes(tmp_path, factory, [P(np.zeros((), np.float32), shape=shape), target_in])
        assert ours == theirs


def test_broadcast_target_from_shape_of_keeps_intervals(tmp_path):  # type: ignore[no-untyped-def]
    # target = ShapeOf(y) for y of shape [2..5, 3]: OpenVINO reads the bounds.
    def factory(x, y):  # type: ignore[no-untyped-def]
        return ops3.broadcast(x, ops3.shape_of(y))

    ours, theirs = infer_shapes(
        tmp_path,
        factory,
        [P(np.zeros((), np.float32), shape="1,3"), P(np.zeros((), np.float32), shape="2..5,3")],
    )
    assert ours == theirs == ["f32[2..5,3]"]


def test_broadcast_refusals():  # type: ignore[no-untyped-def]
    attrs = movement.BroadcastAttrs(movement.BroadcastMode.NUMPY, 3)
    data = TensorInfo(ElementType.f32, PartialShape.of((3, 2)))
    target = TensorInfo(ElementType.i64, PartialShape.of((2,)), value=np.array([3, 4]))
    with pytest.raises(ValidationError, match="cannot be broadcasted"):
        movement.infer_broadcast(attrs, [data, target])
    with pytest.raises(InputError, match="cannot broadcast"):
        movement.evaluate_broadcast(attrs, [np.zeros((3, 2)), np.array([3, 4])])


# -- Tile ------------------------------------------------------------------------------------
TILE_CASES = [
    pytest.param((2, 3), [2, 1], id="same-rank"),
    pytest.param((2, 3), [3], id="fewer-repeats"),
    pytest.param((3,), [2, 2, 1], id="more-repeats"),
    pytest.param((2, 3), [0, 2], id="zero"),
    pytest.param((2, 3), [-1, 2], id="negative-is-zero"),
    pytest.param((), [3], id="scalar"),
    pytest.param((2, 2), [], id="no-repeats"),
]


@pytest.mark.parametrize(("shape", "repeats"), TILE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_tile_matches_reference(tmp_path, shape, repeats, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, ops.tile, [P(_data(shape, dtype)), C(np.array(repeats, np.int64))])


@pytest.mark.parametrize(
    ("shape", "repeats"),
    [("?,3", [2, 2]), ("1..4,3", [3, 1, 2]), ("...", [2]), ("2,?", None)],
    ids=["dyn", "interval", "dyn-rank", "unknown-repeats"],
)
def test_tile_infer_agrees(tmp_path, shape, repeats):  # type: ignore[no-untyped-def]
    rep = C(np.array(repeats, np.int64)) if repeats is not None else P(np.zeros(3, np.int64))
    ours, theirs = infer_shapes(tmp_path, ops.tile, [P(np.zeros((), np.float32), shape=shape), rep])
    assert ours == theirs


# -- Slice -----------------------------------------------------------------------------------
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)
SLICE_CASES = [
    pytest.param((10,), [2], [8], [3], None, id="basic"),
    pytest.param((10,), [-3], [I64_MAX], [1], None, id="negative-start-to-end"),
    pytest.param((10,), [I64_MAX], [I64_MIN], [-1], None, id="reverse-all"),
    pytest.param((10,), [8], [1], [-3], None, id="reverse-step"),
    pytest.param((4, 6), [1, -4], [100, -1], [2, 1], None, id="2d"),
    pytest.param((4, 6), [5], [0], [1], [-1], id="axes-empty-result"),
    pytest.param((2, 3, 4), [1, 0], [3, 1], [1, 1], [2, 0], id="axes-unordered"),
    pytest.param((3, 0), [0], [5], [1], [1], id="empty-dim"),
    pytest.param((10,), [-100], [100], [4], None, id="clamped"),
]


@pytest.mark.parametrize(("shape", "start", "stop", "step", "axes"), SLICE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_slice_matches_reference(tmp_path, shape, start, stop, step, axes, dtype):  # type: ignore[no-untyped-def]
    inputs = [P(_data(shape, dtype))] + [C(np.array(v, np.int64)) for v in (start, stop, step)]
    if axes is not None:
        compare_op(tmp_path, ops.slice, [*inputs, C(np.array(axes, np.int64))])
        return
    # Node.evaluate of a 4-input Slice crashes OpenVINO 2026.4 (it reads a 5th input);
    # the expected values come from the same Slice with axes = 0..n-1, its documented default.
    out = compare_op(tmp_path, ops.slice, inputs, evaluate=False)
    default_axes = C(np.arange(len(start), dtype=np.int64))
    node, _ = build(ops.slice, [*inputs, default_axes])
    expected = reference(node, [i.array for i in [*inputs, default_axes]])
    assert expected is not None and out.ours is not None
    assert_same(out.ours[0], expected[0])


def test_slice_with_parameter_bounds(tmp_path):  # type: ignore[no-untyped-def]
    x = _data((5, 6))
    compare_op(
        tmp_path,
        ops.slice,
        [
            P(x),
            P(np.array([1, -2], np.int32)),
            P(np.array([4, 0], np.int32)),
            C(np.array([1, -1], np.int32)),
            C(np.array([0, 1], np.int32)),
        ],
    )


SLICE_INFER = [
    pytest.param("?,6", [1], [4], [1], None, id="dyn-other"),
    pytest.param("2..8", [1], [-1], [1], None, id="interval"),
    pytest.param("?", [-3], [I64_MAX], [1], None, id="dyn-tail"),
    pytest.param("1..10,3", [0], [5], [2], [0], id="interval-step"),
    pytest.param("...", [0], [1], [1], None, id="dyn-rank"),
    pytest.param("?,?", [2], [I64_MIN], [-1], [1], id="reverse-dyn"),
]


@pytest.mark.parametrize(("shape", "start", "stop", "step", "axes"), SLICE_INFER)
def test_slice_infer_agrees(tmp_path, shape, start, stop, step, axes):  # type: ignore[no-untyped-def]
    inputs = [P(np.zeros((), np.float32), shape=shape)] + [
        C(np.array(v, np.int64)) for v in (start, stop, step)
    ]
    if axes is not None:
        inputs.append(C(np.array(axes, np.int64)))
    ours, theirs = infer_shapes(tmp_path, ops.slice, inputs)
    assert ours == theirs


def test_slice_infer_with_unknown_start(tmp_path):  # type: ignore[no-untyped-def]
    z = np.zeros(1, np.int64)
    inputs = [P(np.zeros((), np.float32), shape="4,5"), P(z), C(np.array([3])), C(np.array([1]))]
    ours, theirs = infer_shapes(tmp_path, ops.slice, inputs)
    assert ours == theirs


def test_slice_refuses_zero_step():  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="non-zero"):
        movement.evaluate_slice(
            movement.NoAttrs(), [np.zeros(4), np.array([0]), np.array([2]), np.array([0])]
        )
