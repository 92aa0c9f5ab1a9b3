"""ShapeOf, Gather, Squeeze, Unsqueeze, Concat, Reshape, StridedSlice against OpenVINO.

Values: each case is built with OpenVINO's Python API, evaluated by the core
reference (``Node.evaluate``), saved as IR and run by ovonehot; shape, dtype and
bits must agree, and so must the inferred output type and partial shape (``ovref``).
Shape rules: seeded random partial shapes (intervals, ``?``, dynamic rank, scalars)
and attributes, ovonehot's rule against the output OpenVINO's node infers, refusals
included.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, compare_op

from ovonehot.errors import Error, InputError
from ovonehot.ops import shape_ops as S
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset1, opset3, opset7, opset8, opset15
from openvino.utils.node_factory import NodeFactory

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.float32, np.float16, BF16, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.bool_]
# Gather's reference takes only these data types (and f16/bf16 through f32).
GATHER_DTYPES = [
    np.float32,
    np.float16,
    np.int8,
    np.uint8,
    np.int32,
    np.int64,
    np.uint32,
    np.uint64,
    np.bool_,
]


def data(shape: tuple[int, ...], dtype: object = np.float32) -> np.ndarray:
    return ((np.arange(int(np.prod(shape))) * 7) % 11 - 3).reshape(shape).astype(dtype)


# -- ShapeOf ------------------------------------------------------------------------------------
SHAPE_OF_CASES = [
    pytest.param((2, 3, 4), id="rank3"),
    pytest.param((), id="scalar"),
    pytest.param((0, 5), id="empty-dim"),
]


@pytest.mark.parametrize("shape", SHAPE_OF_CASES)
@pytest.mark.parametrize(
    "factory",
    [opset1.shape_of, lambda x: opset3.shape_of(x, "i32"), lambda x: opset3.shape_of(x, "i64")],
    ids=["v1", "v3-i32", "v3-i64"],
)
def test_shape_of_matches_reference(tmp_path, shape, factory):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, factory, [P(data(shape))])


# -- Gather --------------------------------------------------------------------------------------
GATHER_CASES = [
    pytest.param((5,), [0, 4, 2], 0, 0, id="vector"),
    pytest.param((3, 4), [[1, -1], [0, 3]], 1, 0, id="matrix-indices-axis1"),
    pytest.param((3, 4), [-1, -3, 2], -2, 0, id="negative-axis-and-indices"),
    pytest.param((3, 4), [5, -5, 1], 0, 0, id="out-of-range-gives-zero"),
    pytest.param((3, 4), 2, 1, 0, id="scalar-index"),
    pytest.param((2, 3, 4), [[0, 2], [1, 1]], 2, 1, id="batch-dims"),
    pytest.param((2, 3, 4), [[0, 2], [1, 1]], -1, -1, id="negative-batch-dims"),
    pytest.param((0, 4), [0, 1], 1, 0, id="empty-data"),
    pytest.param((3, 4), np.zeros((0,), np.int64), 0, 0, id="empty-indices"),
]


@pytest.mark.parametrize("shape, indices, axis, batch_dims", GATHER_CASES)
@pytest.mark.parametrize("dtype", GATHER_DTYPES, ids=str)
def test_gather_matches_reference(tmp_path, shape, indices, axis, batch_dims, dtype):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda d, i, a: opset8.gather(d, i, a, batch_dims),
        [P(data(shape, dtype)), P(np.asarray(indices, np.int64)), C(np.int64(axis))],
    )


@pytest.mark.parametrize("version", ["v1", "v7", "v8"])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_versions_agree_on_negative_indices(tmp_path, version, index_dtype):  # type: ignore[no-untyped-def]
    factory = {"v1": opset1.gather, "v7": opset7.gather, "v8": opset8.gather}[version]
    compare_op(tmp_path, factory, [P(data((4, 3))), P(np.array([-1, 3, 9, -9], index_dtype)), C(np.int64(0))])


# -- Squeeze, Unsqueeze --------------------------------------------------------------------------
SQUEEZE_CASES = [
    pytest.param((1, 3, 1), [0], id="first"),
    pytest.param((1, 3, 1), [-1, 0], id="negative-and-repeat"),
    pytest.param((2, 3), [0], id="axis-on-non-one-is-ignored"),
    pytest.param((1,), [0], id="to-scalar"),
    pytest.param((), [0], id="scalar-axis-0"),
    pytest.param((), [-1], id="scalar-axis-minus-1"),
    pytest.param((1, 0, 1), np.zeros((0,), np.int64), id="empty-axes"),
]


@pytest.mark.parametrize("shape, axes", SQUEEZE_CASES)
@pytest.mark.parametrize(
    "factory", [opset1.squeeze, lambda x, a: opset15.squeeze(x, a, True)], ids=["v0", "v15-skip"]
)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, BF16], ids=str)
def test_squeeze_matches_reference(tmp_path, shape, axes, factory, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, factory, [P(data(shape, dtype)), C(np.asarray(axes, np.int64))])


@pytest.mark.parametrize("shape", [(1, 3, 1), (2, 1), (1,), ()], ids=str)
def test_squeeze_without_axes_matches_reference(tmp_path, shape):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda x: NodeFactory("opset1").create("Squeeze", [x]), [P(data(shape))])


UNSQUEEZE_CASES = [
    pytest.param((3,), [0], id="front"),
    pytest.param((3, 4), [-1], id="back"),
    pytest.param((3, 4), [0, 3, -2], id="several"),
    pytest.param((3,), [1, 1], id="repeated"),
    pytest.param((), [0], id="scalar"),
    pytest.param((0, 2), [1], id="empty-data"),
]


@pytest.mark.parametrize("shape, axes", UNSQUEEZE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.bool_], ids=str)
def test_unsqueeze_matches_reference(tmp_path, shape, axes, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, opset1.unsqueeze, [P(data(shape, dtype)), C(np.asarray(axes, np.int64))])


# -- Concat ------------------------------------------------------------------------------------------
CONCAT_CASES = [
    pytest.param([(2, 3), (4, 3)], 0, id="axis0"),
    pytest.param([(2, 3), (2, 1), (2, 0)], -1, id="negative-axis-with-empty"),
    pytest.param([(5,)], 0, id="one-input"),
    pytest.param([(0, 2), (0, 2)], 1, id="all-empty"),
]


@pytest.mark.parametrize("shapes, axis", CONCAT_CASES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_concat_matches_reference(tmp_path, shapes, axis, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda *xs: opset1.concat(list(xs), axis), [P(data(s, dtype)) for s in shapes])


# -- Reshape ---------------------------------------------------------------------------------------
RESHAPE_CASES = [
    pytest.param((2, 3, 4), [6, -1], False, id="minus-one"),
    pytest.param((2, 3, 4), [0, -1], True, id="special-zero"),
    pytest.param((2, 3, 4), [0, 0, 4], True, id="special-zero-twice"),
    pytest.param((2, 3), [3, 2], False, id="plain"),
    pytest.param((1, 1), [], False, id="to-scalar"),
    pytest.param((0, 3), [3, 0], False, id="empty"),
    pytest.param((2, 0), [0, 0], True, id="zero-kept-and-empty"),
]


@pytest.mark.parametrize("shape, pattern, special_zero", RESHAPE_CASES)
@pytest.mark.parametrize("pattern_dtype", [np.int64, np.int32, np.int8], ids=str)
def test_reshape_matches_reference(tmp_path, shape, pattern, special_zero, pattern_dtype):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda x, p: opset1.reshape(x, p, special_zero),
        [P(data(shape)), C(np.asarray(pattern, pattern_dtype))],
    )


# -- StridedSlice ------------------------------------------------------------------------------------
STRIDED_SLICE_CASES = [
    # shape, begin, end, strides, begin_mask, end_mask, new_axis, shrink, ellipsis
    pytest.param((5,), [1], [4], [1], [0], [0], [], [], [], id="plain"),
    pytest.param((5,), [-1], [0], [-1], [0], [1], [], [], [], id="reverse-to-start"),
    pytest.param((5,), [4], [-7], [-2], [0], [0], [], [], [], id="reverse-step-2-clamped"),
    pytest.param((3, 4), [0, 1], [0, 3], [1, 1], [1, 0], [1, 0], [], [], [], id="masks"),
    pytest.param((3, 4), [1, 0], [2, 0], [1, 1], [0, 1], [0, 1], [], [1, 0], [], id="shrink"),
    pytest.param((3, 4), [0, 0], [1, 2], [1, 1], [0, 0], [0, 0], [1, 0], [], [], id="new-axis"),
    pytest.param((2, 3, 4), [0, 1], [0, 3], [1, 2], [0, 0], [0, 0], [], [], [1, 0], id="ellipsis-first"),
    pytest.param(
        (2, 3, 4), [1, 0], [2, 0], [1, 1], [0, 0], [0, 0], [], [1, 0], [0, 1], id="shrink-then-ellipsis"
    ),
    pytest.param((3, 4), [-100], [100], [3], [0], [0], [], [], [], id="out-of-range-clamped"),
    pytest.param((3, 4), [2], [1], [1], [0], [0], [], [], [], id="empty-result"),
]


@pytest.mark.parametrize("shape, b, e, s, bm, em, nm, sm, elm", STRIDED_SLICE_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16], ids=str)
def test_strided_slice_matches_reference(tmp_path, shape, b, e, s, bm, em, nm, sm, elm, dtype):  # type: ignore[no-untyped-def]
    compare_op(
        tmp_path,
        lambda x, b_, e_, s_: opset1.strided_slice(x, b_, e_, s_, bm, em, nm, sm, elm),
        [P(data(shape, dtype)), C(np.array(b, np.int64)), C(np.array(e, np.int64)), C(np.array(s, np.int64))],
    )


def test_strided_slice_refuses_ellipsis_with_new_axis_on_one_index():  # type: ignore[no-untyped-def]
    # OpenVINO's plan is inconsistent here and reads outside its buffers: no defined result
    attrs = S.StridedSliceAttrs((0,), (0,), (1,), (0,), (1,))
    with pytest.raises(InputError, match="ellipsis"):
        S.evaluate_strided_slice(
            attrs, [np.zeros(3), np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1, np.int64)]
        )


# =================================================================================================
# Shape rules on random partial shapes, against the output OpenVINO's node infers
# =================================================================================================
def _ps(ov_shape: object) -> PartialShape:
    return PartialShape.parse(str(ov_shape))


def _dim(r: random.Random) -> object:
    k = r.random()
    if k < 0.5:
        return r.choice([0, 1, 1, 2, 3, 4, 5])
    if k < 0.7:
        return -1
    lo = r.choice([0, 1, 2, 3])
    return ov.Dimension(lo, r.choice([lo, lo + 1, lo + 3, -1]))


def _shape(r: random.Random, max_rank: int = 4, dynamic_rank: float = 0.1) -> object:
    if r.random() < dynamic_rank:
        return ov.PartialShape.dynamic()
    return ov.PartialShape([_dim(r) for _ in range(r.randint(0, max_rank))])


def _param(shape: object, et: object = None) -> object:
    return opset15.parameter(shape, et or ov.Type.f32)


def _c(values: object) -> object:
    return opset15.constant(np.array(values, np.int64))


def _f32(shape: object) -> TensorInfo:
    return TensorInfo(ElementType.f32, _ps(shape))


def _known(values: object) -> TensorInfo:
    a = np.array(values, np.int64)
    return TensorInfo(ElementType.i64, PartialShape.of(a.shape), value=a)


def _unknown(shape: list[int]) -> TensorInfo:
    return TensorInfo(ElementType.i64, PartialShape.of(shape))


def _case_gather(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    ds, idx = _shape(r), _shape(r, 3)
    axis, bd, known, version = (
        r.randint(-4, 4),
        r.choice([0, 0, 1, -1, 2]),
        r.random() < 0.85,
        r.choice([1, 7, 8]),
    )

    def theirs() -> object:
        a = _c(axis) if known else _param(ov.PartialShape([]), ov.Type.i64)
        d, i = _param(ds), _param(idx, ov.Type.i64)
        return opset1.gather(d, i, a) if version == 1 else {7: opset7, 8: opset8}[version].gather(d, i, a, bd)

    def ours() -> TensorInfo:
        attrs = S.GatherAttrs() if version == 1 else S.GatherAttrs(bd, True)
        a = _known(axis) if known else _unknown([])
        return S.infer_gather(attrs, [_f32(ds), TensorInfo(ElementType.i64, _ps(idx)), a])[0]

    return theirs, ours


def _case_squeeze(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    ds = _shape(r)
    axes = [r.randint(-4, 3) for _ in range(r.choice([0, 1, 1, 2]))]
    known, version = r.random() < 0.85, r.choice([0, 15])
    skip = version == 15 and r.random() < 0.5

    def theirs() -> object:
        a = _c(axes) if known else _param(ov.PartialShape([len(axes)]), ov.Type.i64)
        return opset1.squeeze(_param(ds), a) if version == 0 else opset15.squeeze(_param(ds), a, skip)

    def ours() -> TensorInfo:
        a = _known(axes) if known else _unknown([len(axes)])
        return S.infer_squeeze(S.SqueezeAttrs(version, skip), [_f32(ds), a])[0]

    return theirs, ours


def _case_unsqueeze(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    ds, axes = _shape(r), [r.randint(-5, 4) for _ in range(r.randint(0, 3))]
    return (
        lambda: opset1.unsqueeze(_param(ds), _c(axes)),
        lambda: S.infer_unsqueeze(S.NoAttrs(), [_f32(ds), _known(axes)])[0],
    )


def _case_concat(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    base = _shape(r, 3, 0)
    shapes = []
    for _ in range(r.randint(1, 3)):
        if r.random() < 0.15:
            shapes.append(ov.PartialShape.dynamic())
        elif r.random() < 0.7:
            shapes.append(
                ov.PartialShape(
                    [base[j] if r.random() < 0.6 else _dim(r) for j in range(base.rank.get_length())]
                )
            )
        else:
            shapes.append(_shape(r, 3, 0))
    axis = r.randint(-3, 3)
    return (
        lambda: opset1.concat([_param(s) for s in shapes], axis),
        lambda: S.infer_concat(S.ConcatAttrs(axis), [_f32(s) for s in shapes])[0],
    )


def _case_reshape(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    ds = _shape(r, 3)
    pattern = [r.choice([-1, 0, 0, 1, 2, 3, 4, 6, 12]) for _ in range(r.randint(1, 3))]
    special_zero = r.random() < 0.5
    return (
        lambda: opset1.reshape(_param(ds), _c(pattern), special_zero),
        lambda: S.infer_reshape(S.ReshapeAttrs(special_zero), [_f32(ds), _known(pattern)])[0],
    )


def _case_strided_slice(r: random.Random) -> tuple[Callable[[], object], Callable[[], TensorInfo]]:
    ds = _shape(r, 4, 0.05)
    k = r.randint(1, 4)
    b = [r.randint(-6, 6) for _ in range(k)]
    e = [r.choice([r.randint(-6, 6), 2**63 - 1, -(2**63)]) for _ in range(k)]
    st = [r.choice([1, 1, 2, -1, -2, 3]) for _ in range(k)]
    bm, em = [int(r.random() < 0.3) for _ in range(k)], [int(r.random() < 0.3) for _ in range(k)]
    nm, sm = [int(r.random() < 0.15) for _ in range(k)], [int(r.random() < 0.2) for _ in range(k)]
    elm = [0] * k
    if r.random() < 0.2:
        elm[r.randrange(k)] = 1
    attrs = S.StridedSliceAttrs(tuple(bm), tuple(em), tuple(nm), tuple(sm), tuple(elm))
    return (
        lambda: opset1.strided_slice(_param(ds), _c(b), _c(e), _c(st), bm, em, nm, sm, elm),
        lambda: S.infer_strided_slice(attrs, [_f32(ds), _known(b), _known(e), _known(st)])[0],
    )


RULES = {
    "gather": _case_gather,
    "squeeze": _case_squeeze,
    "unsqueeze": _case_unsqueeze,
    "concat": _case_concat,
    "reshape": _case_reshape,
    "strided_slice": _case_strided_slice,
}
CASES_PER_SEED = 60


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("op", RULES)
def test_shape_rule_agrees_with_openvino(op, seed):  # type: ignore[no-untyped-def]
    r = random.Random(f"{op}-{seed}")
    for _ in range(CASES_PER_SEED):
        theirs_fn, ours_fn = RULES[op](r)
        try:
            node = theirs_fn()
            theirs = f"{node.get_output_element_type(0).get_type_name()}{node.get_output_partial_shape(0)}"
        except (RuntimeError, ValueError):  # a failed check, or a C++ exception OpenVINO lets through
            theirs = "refused"
        try:
            out = ours_fn()
            ours = f"{out.element_type.value}{out.shape}"
        except Error:
            ours = "refused"
        assert ours == theirs, f"{op}: ovonehot {ours}, OpenVINO {theirs} ({theirs_fn.__code__.co_freevars})"
