"""GatherElements, GatherND, ScatterElementsUpdate, ScatterNDUpdate, ScatterUpdate against OpenVINO.

The scatters have a core reference (``Node.evaluate``): compared bit for bit via
``ovref.compare_op``.  GatherElements and GatherND have none in OpenVINO 2026.4's core;
they are compared with the CPU plugin (deterministic config, f32/i32 data inside its
exact envelope) and with PyTorch's ``gather`` as an independent oracle.  Inferred
types and shapes are compared with OpenVINO's in every case.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export, infer_shapes

import ovonehot
from ovonehot.ops import gather_scatter
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")
opset3 = pytest.importorskip("openvino.opset3")
opset4 = pytest.importorskip("openvino.opset4")
opset5 = pytest.importorskip("openvino.opset5")
opset12 = pytest.importorskip("openvino.opset12")

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(11)


def _cpu(tmp_path, factory, inputs):  # type: ignore[no-untyped-def]
    """(ovonehot's, CPU plugin's) first output of a one-op model; inferred types/shapes compared."""
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    (theirs,) = cpu_outputs(node, params, feeds)
    (ours,) = model.run(feeds).values()
    return ours, theirs


# -- GatherElements ---------------------------------------------------------------------------
GATHER_ELEMENTS_CASES = [
    pytest.param((3, 4), (3, 2), 1, id="2d-axis1"),
    pytest.param((3, 4), (5, 4), 0, id="2d-axis0-more-rows"),
    pytest.param((2, 3, 4), (2, 3, 6), -1, id="3d-negative-axis"),
    pytest.param((2, 3, 4), (2, 1, 4), 1, id="3d-one-row"),
    pytest.param((4,), (7,), 0, id="1d"),
    pytest.param((2, 0, 3), (2, 0, 3), 2, id="empty"),
]


@pytest.mark.parametrize(("data_shape", "idx_shape", "axis"), GATHER_ELEMENTS_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["f32", "i32"])
def test_gather_elements_matches_cpu(tmp_path, data_shape, idx_shape, axis, dtype):  # type: ignore[no-untyped-def]
    data = (
        RNG.standard_normal(data_shape).astype(dtype)
        if dtype == np.float32
        else RNG.integers(-100, 100, data_shape).astype(dtype)
    )
    size = data_shape[axis]
    idx = RNG.integers(-size, size, idx_shape).astype(np.int32) if size else np.zeros(idx_shape, np.int32)
    ours, theirs = _cpu(tmp_path, lambda a, b: ops.gather_elements(a, b, axis), [P(data), P(idx)])
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", [np.int64, np.float16, BF16, np.bool_, np.uint8], ids=str)
def test_gather_elements_other_types_match_the_definition(tmp_path, dtype):  # type: ignore[no-untyped-def]
    # The CPU plugin computes in i32/f32: these types are checked against the spec's formula,
    # out[i][j] = data[i][idx[i][j]] (negative idx from the end), element by element.
    data = RNG.integers(-50, 50, (3, 5)).astype(dtype)
    idx = RNG.integers(-5, 5, (3, 4)).astype(np.int64)
    node, params = build(lambda a, b: ops.gather_elements(a, b, 1), [P(data), P(idx)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data, idx]).values()
    want = np.empty(idx.shape, dtype)
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            k = int(idx[i, j])
            want[i, j] = data[i, k + 5 if k < 0 else k]
    assert_same(ours, want)


def test_gather_elements_out_of_range_is_an_error(tmp_path):  # type: ignore[no-untyped-def]
    node, params = build(
        lambda a, b: ops.gather_elements(a, b, 1),
        [P(np.zeros((2, 3), np.float32)), P(np.zeros((2, 2), np.int32))],
    )
    model = export(tmp_path, node, params)
    with pytest.raises(ovonehot.Error, match="index 3 is out of bounds for the axis of size 3"):
        model.run([np.zeros((2, 3), np.float32), np.array([[0, 3], [1, 1]], np.int32)])


# -- GatherND ---------------------------------------------------------------------------------
GATHER_ND_CASES = [
    pytest.param((3, 4), (2, 2), 0, id="elements"),
    pytest.param((3, 4), (2, 1), 0, id="rows"),
    pytest.param((2, 3, 4), (5, 3), 0, id="3d-elements"),
    pytest.param((2, 3, 4), (2, 5, 1), 1, id="batch1-rows"),
    pytest.param((2, 3, 4), (2, 3, 1), 2, id="batch2"),
    pytest.param((2, 3, 4, 2), (2, 3, 2, 1), 2, id="batch2-slices"),
    pytest.param((4, 3), (2, 3, 2), 0, id="nested-indices"),
]


@pytest.mark.parametrize(("data_shape", "idx_shape", "batch_dims"), GATHER_ND_CASES)
@pytest.mark.parametrize("version", [5, 8])
def test_gather_nd_matches_cpu(tmp_path, data_shape, idx_shape, batch_dims, version):  # type: ignore[no-untyped-def]
    data = RNG.standard_normal(data_shape).astype(np.float32)
    k = idx_shape[-1]
    sizes = data_shape[batch_dims : batch_dims + k]
    idx = np.stack([RNG.integers(-s, s, idx_shape[:-1]) for s in sizes], axis=-1).astype(np.int32)
    op = opset5.gather_nd if version == 5 else ops.gather_nd
    ours, theirs = _cpu(tmp_path, lambda a, b: op(a, b, batch_dims), [P(data), P(idx)])
    assert_same(ours, theirs)


GATHER_ND_SHAPES = [
    pytest.param("?,4", "2,2", 0, id="dyn-data"),
    pytest.param("2,3,4", "2,?,1", 1, id="dyn-indices"),
    pytest.param("2..5,3,4", "?,3,1", 2, id="interval-batch"),
    pytest.param("2,3,4", "...", 0, id="dyn-rank-indices"),
    pytest.param("2,3,4", "2,?", 0, id="dyn-tuple-length"),
]


@pytest.mark.parametrize(("data", "indices", "batch_dims"), GATHER_ND_SHAPES)
@pytest.mark.parametrize("version", [5, 8])
def test_gather_nd_infer_agrees(tmp_path, data, indices, batch_dims, version):  # type: ignore[no-untyped-def]
    op = opset5.gather_nd if version == 5 else ops.gather_nd
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: op(a, b, batch_dims),
        [P(np.zeros((), np.float32), shape=data), P(np.zeros((), np.int32), shape=indices)],
    )
    assert ours == theirs


GATHER_ELEMENTS_SHAPES = [
    pytest.param("?,4", "3,2", 1, id="dyn-data"),
    pytest.param("3,4", "?,?", 1, id="dyn-indices"),
    pytest.param("2..5,4", "3..7,2", 1, id="intervals"),
    pytest.param("3,4", "...", 0, id="dyn-rank-indices"),
    pytest.param("...", "3,?", 0, id="dyn-rank-data"),
]


@pytest.mark.parametrize(("data", "indices", "axis"), GATHER_ELEMENTS_SHAPES)
def test_gather_elements_infer_agrees(tmp_path, data, indices, axis):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: ops.gather_elements(a, b, axis),
        [P(np.zeros((), np.float32), shape=data), P(np.zeros((), np.int32), shape=indices)],
    )
    assert ours == theirs


# -- ScatterElementsUpdate --------------------------------------------------------------------
REDUCTIONS_12 = ["none", "sum", "prod", "min", "max", "mean"]
SCATTER_TYPES = [np.float32, np.float16, BF16, np.int32, np.int64, np.bool_]  # the types the reference has


def _data(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    if np.dtype(dtype) == np.bool_:
        return RNG.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-9, 9, shape).astype(dtype)
    return (RNG.standard_normal(shape) * 4).astype(dtype)


@pytest.mark.parametrize("use_init_val", [True, False], ids=["init", "no-init"])
@pytest.mark.parametrize("reduction", REDUCTIONS_12)
@pytest.mark.parametrize("dtype", SCATTER_TYPES, ids=lambda d: np.dtype(d).name)
def test_scatter_elements_12_matches_reference(tmp_path, dtype, reduction, use_init_val):  # type: ignore[no-untyped-def]
    if np.dtype(dtype) == np.bool_ and reduction == "mean":
        with pytest.raises(RuntimeError, match="'mean' reduction type is not supported for boolean"):
            opset12.scatter_elements_update(
                *(ops.parameter([2], t) for t in (ov.Type.boolean, ov.Type.i32, ov.Type.boolean)),
                ops.constant(np.int32(0)),
                "mean",
            )
        spec = ovonehot.ops.lookup("ScatterElementsUpdate", "opset12")
        assert spec is not None
        with pytest.raises(ovonehot.Error, match="'mean' reduction type is not supported for boolean"):
            spec.infer(
                gather_scatter.ScatterElementsAttrs(gather_scatter.Reduction.MEAN),
                [
                    TensorInfo(ElementType.boolean, PartialShape.of([2])),
                    TensorInfo(ElementType.i32, PartialShape.of([2])),
                    TensorInfo(ElementType.boolean, PartialShape.of([2])),
                    TensorInfo(ElementType.i32, PartialShape.of([])),
                ],
            )
        return
    data = _data(dtype, (3, 5))
    idx = RNG.integers(-5, 5, (3, 7)).astype(np.int64)  # duplicates on purpose
    upd = _data(dtype, (3, 7))
    compare_op(
        tmp_path,
        lambda a, b, c, d: opset12.scatter_elements_update(a, b, c, d, reduction, use_init_val),
        [P(data), P(idx), P(upd), C(np.int64(1))],
    )


SCATTER_ELEMENTS_LAYOUTS = [
    pytest.param((4, 3), (2, 3), 0, id="axis0"),
    pytest.param((2, 3, 4), (2, 2, 4), -2, id="3d-negative-axis"),
    pytest.param((5,), (3,), 0, id="1d"),
    pytest.param((2, 3), (2, 0), 1, id="empty-updates"),
    pytest.param((3, 4), (1, 2), 1, id="smaller-updates"),
]


@pytest.mark.parametrize(("data_shape", "idx_shape", "axis"), SCATTER_ELEMENTS_LAYOUTS)
@pytest.mark.parametrize("index_type", [np.int32, np.int64], ids=["i32", "i64"])
def test_scatter_elements_3_matches_reference(tmp_path, data_shape, idx_shape, axis, index_type):  # type: ignore[no-untyped-def]
    size = data_shape[axis]
    data = _data(np.float32, data_shape)
    idx = RNG.integers(-size, size, idx_shape).astype(index_type)
    upd = _data(np.float32, idx_shape)
    compare_op(tmp_path, opset3.scatter_elements_update, [P(data), P(idx), P(upd), C(np.int64(axis))])


def test_scatter_elements_out_of_range_is_an_error(tmp_path):  # type: ignore[no-untyped-def]
    node, params = build(
        opset3.scatter_elements_update,
        [
            P(np.zeros((1, 4), np.int32)),
            P(np.zeros((1, 2), np.int32)),
            P(np.zeros((1, 2), np.int32)),
            C(np.int32(1)),
        ],
    )
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for the axis of size 4"):
        node.evaluate(
            [ov.Tensor(ov.Type.i32, ov.Shape([0]))],
            [
                ov.Tensor(np.zeros((1, 4), np.int32)),
                ov.Tensor(np.array([[0, 4]], np.int32)),
                ov.Tensor(np.ones((1, 2), np.int32)),
                ov.Tensor(np.array(1, np.int32)),
            ],
        )
    model = export(tmp_path, node, params)
    with pytest.raises(ovonehot.Error, match="index 4 is out of bounds for the axis of size 4"):
        model.run([np.zeros((1, 4), np.int32), np.array([[0, 4]], np.int32), np.ones((1, 2), np.int32)])


# -- ScatterNDUpdate, ScatterUpdate -----------------------------------------------------------
SCATTER_ND_LAYOUTS = [
    pytest.param((3, 4), (5, 1), id="rows-with-duplicates"),
    pytest.param((3, 4), (6, 2), id="elements"),
    pytest.param((2, 3, 4), (2, 2, 2), id="nested-slices"),
    pytest.param((4,), (0, 1), id="no-updates"),
]
REDUCTIONS_15 = ["none", "sum", "sub", "prod", "min", "max"]


@pytest.mark.parametrize(("data_shape", "idx_shape"), SCATTER_ND_LAYOUTS)
@pytest.mark.parametrize("reduction", REDUCTIONS_15)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16], ids=lambda d: np.dtype(d).name)
def test_scatter_nd_15_matches_reference(tmp_path, data_shape, idx_shape, reduction, dtype):  # type: ignore[no-untyped-def]
    k = idx_shape[-1]
    idx = np.stack([RNG.integers(-s, s, idx_shape[:-1]) for s in data_shape[:k]], axis=-1).astype(np.int64)
    idx = idx.reshape(idx_shape)
    data = _data(dtype, data_shape)
    upd = _data(dtype, idx_shape[:-1] + data_shape[k:])
    compare_op(tmp_path, lambda a, b, c: ops.scatter_nd_update(a, b, c, reduction), [P(data), P(idx), P(upd)])


@pytest.mark.parametrize(("data_shape", "idx_shape"), SCATTER_ND_LAYOUTS)
def test_scatter_nd_3_matches_reference(tmp_path, data_shape, idx_shape):  # type: ignore[no-untyped-def]
    k = idx_shape[-1]
    idx = np.stack([RNG.integers(-s, s, idx_shape[:-1]) for s in data_shape[:k]], axis=-1).astype(np.int32)
    idx = idx.reshape(idx_shape)
    data = _data(np.float32, data_shape)
    upd = _data(np.float32, idx_shape[:-1] + data_shape[k:])
    compare_op(tmp_path, opset4.scatter_nd_update, [P(data), P(idx), P(upd)])


SCATTER_UPDATE_LAYOUTS = [
    pytest.param((4, 3), (2,), 0, id="rows"),
    pytest.param((2, 5, 3), (2, 2), 1, id="2d-indices-axis1"),
    pytest.param((2, 5), (3,), -1, id="negative-axis"),
]


@pytest.mark.parametrize(("data_shape", "idx_shape", "axis"), SCATTER_UPDATE_LAYOUTS)
def test_scatter_update_matches_reference(tmp_path, data_shape, idx_shape, axis):  # type: ignore[no-untyped-def]
    size = data_shape[axis]
    idx = RNG.permutation(size)[: int(np.prod(idx_shape))].reshape(idx_shape).astype(np.int64)
    a = axis % len(data_shape)
    upd = _data(np.float32, data_shape[:a] + idx_shape + data_shape[a + 1 :])
    compare_op(
        tmp_path, opset3.scatter_update, [P(_data(np.float32, data_shape)), P(idx), P(upd), C(np.int64(axis))]
    )


SCATTER_SHAPES = [
    pytest.param("?,4", "?,?", "2,?", id="dynamic"),
    pytest.param("...", "2,3", "2,3", id="dyn-rank-data"),
    pytest.param("2..5,4", "1,4", "1,4", id="interval"),
]


@pytest.mark.parametrize(("data", "indices", "updates"), SCATTER_SHAPES)
def test_scatter_elements_infer_agrees(tmp_path, data, indices, updates):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c, d: opset12.scatter_elements_update(a, b, c, d, "sum"),
        [
            P(np.zeros((), np.float32), shape=data),
            P(np.zeros((), np.int32), shape=indices),
            P(np.zeros((), np.float32), shape=updates),
            C(np.int64(0)),
        ],
    )
    assert ours == theirs


SPECIAL_FLOATS = np.array([0.0, -0.0, np.nan, 1.5, -1.5, np.inf, -np.inf, 2.0], np.float32)


@pytest.mark.parametrize("use_init_val", [True, False], ids=["init", "no-init"])
@pytest.mark.parametrize("reduction", REDUCTIONS_12)
def test_scatter_elements_special_floats_and_many_duplicates(tmp_path, reduction, use_init_val):  # type: ignore[no-untyped-def]
    # NaN never wins a min/max comparison, equal -0.0/+0.0 keep the earliest, sums and products
    # accumulate in update order: 40 updates onto 4 positions per row.
    data = RNG.choice(SPECIAL_FLOATS, (3, 4)).astype(np.float32)
    idx = RNG.integers(-4, 4, (3, 40)).astype(np.int64)
    upd = RNG.choice(SPECIAL_FLOATS, (3, 40)).astype(np.float32)
    compare_op(
        tmp_path,
        lambda a, b, c, d: opset12.scatter_elements_update(a, b, c, d, reduction, use_init_val),
        [P(data), P(idx), P(upd), C(np.int64(1))],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS_15)
def test_scatter_nd_special_floats_and_many_duplicates(tmp_path, reduction):  # type: ignore[no-untyped-def]
    data = RNG.choice(SPECIAL_FLOATS, (3, 5)).astype(np.float32)
    idx = RNG.integers(-3, 3, (30, 1)).astype(np.int64)
    upd = RNG.choice(SPECIAL_FLOATS, (30, 5)).astype(np.float32)
    compare_op(tmp_path, lambda a, b, c: ops.scatter_nd_update(a, b, c, reduction), [P(data), P(idx), P(upd)])


def test_scatter_sum_of_many_small_floats_keeps_the_update_order(tmp_path):  # type: ignore[no-untyped-def]
    data = np.zeros((1, 3), np.float32)
    idx = RNG.integers(0, 3, (1, 2000)).astype(np.int64)
    upd = (RNG.standard_normal((1, 2000)) * 10.0 ** RNG.integers(-6, 6, (1, 2000))).astype(np.float32)
    compare_op(
        tmp_path,
        lambda a, b, c, d: opset12.scatter_elements_update(a, b, c, d, "sum"),
        [P(data), P(idx), P(upd), C(np.int64(1))],
    )


I64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("dtype", "data", "updates", "use_init_val"),
    [
        (
            np.int64,
            [I64_MAX - 1, 0, -I64_MAX, 5],
            [I64_MAX - 1, 3, -I64_MAX + 1, 2**60 + 1, 2**62 - 1],
            False,
        ),
        (np.int64, [I64_MAX - 1, 0, -I64_MAX, 5], [I64_MAX - 1, 3, -I64_MAX + 1, -5, 2**62 - 1], True),
        (np.uint64, [2**64 - 3, 0, 7, 5], [2**64 - 3, 3, 9, 2**60 + 1, 2**62 - 1], False),
    ],
    ids=["i64", "i64-init", "u64"],
)
def test_scatter_elements_12_mean_of_a_sum_beyond_double_rounds_down_as_the_reference(  # type: ignore[no-untyped-def]
    tmp_path, dtype, data, updates, use_init_val
):
    """reference/scatter_elements_update.hpp divides double(sum) / N under FE_DOWNWARD, so a sum
    beyond 2**53 is rounded down to a double first (2**63 - 2 -> 2**63 - 1024): ovonehot took the
    exact floor (conformance net, ScatterElementsUpdate-12 boundary values)."""
    indices = [0, 0, 2, 3, 3] if use_init_val else [0, 1, 2, 3, 3]
    compare_op(
        tmp_path,
        lambda d, i, u, a: opset12.scatter_elements_update(d, i, u, a, "mean", use_init_val),
        [
            P(np.array(data, dtype)),
            P(np.array(indices, np.int64)),
            P(np.array(updates, dtype)),
            C(np.int64(0)),
        ],
    )
