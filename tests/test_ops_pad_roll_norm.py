"""Pad-1/12, Roll-7, Bucketize-3, MVN-6 and NormalizeL2 against OpenVINO.

Pad and MVN have a core reference (``Node.evaluate``): Pad exact, MVN within
``MVN_ULP``.  Roll, Bucketize and NormalizeL2 have none in OpenVINO 2026.4: they are
compared with the CPU plugin (deterministic config; exact for Roll/Bucketize,
``NORMALIZE_RTOL`` for NormalizeL2).  Inferred types and shapes are OpenVINO's.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export, infer_shapes

import ovonehot

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")
opset1 = pytest.importorskip("openvino.opset1")

BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(8)
MVN_ULP = 4  # f32 mean/variance chains; measured at most 2
NORMALIZE_RTOL = 1e-6


def _cpu(tmp_path, factory, inputs):  # type: ignore[no-untyped-def]
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    (ours,) = model.run(feeds).values()
    return ours, cpu_outputs(node, params, feeds)[0]


# -- Pad --------------------------------------------------------------------------------------
PAD_CASES = [
    pytest.param((3, 4), [1, 0], [0, 2], id="grow"),
    pytest.param((3, 4), [0, 3], [2, 3], id="up-to-limit"),
    pytest.param((4, 5), [-1, 0], [0, -2], id="crop"),
    pytest.param((4, 5), [-2, 2], [1, -1], id="crop-one-side-pad-other"),
    pytest.param((2, 3, 4), [0, 0, 0], [0, 0, 0], id="zero"),
    pytest.param((1, 2, 3), [0, 1, 2], [1, 1, 2], id="3d"),
]
PAD_MODES = ["constant", "edge", "reflect", "symmetric"]
# reflect needs pads below the dimension (a wider one is refused: tested below)
PAD_MODE_CASES = [
    pytest.param(*case.values, mode, id=f"{case.id}-{mode}")
    for case in PAD_CASES
    for mode in PAD_MODES
    if not (
        mode == "reflect"
        and any(
            p >= n for p, n in zip(case.values[1] + case.values[2], list(case.values[0]) * 2, strict=True)
        )
    )
]


@pytest.mark.parametrize(("shape", "begin", "end", "mode"), PAD_MODE_CASES)
@pytest.mark.parametrize("version", [1, 12])
def test_pad_matches_reference(tmp_path, shape, begin, end, mode, version):  # type: ignore[no-untyped-def]
    data = RNG.integers(-50, 50, shape).astype(np.int32)
    op = opset1.pad if version == 1 else ops.pad
    args = [P(data), C(np.array(begin, np.int64)), C(np.array(end, np.int64))]
    if mode == "constant":
        args.append(C(np.int32(-7)))
    compare_op(tmp_path, lambda *xs: op(xs[0], xs[1], xs[2], mode, xs[3] if len(xs) == 4 else None), args)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.uint8, np.bool_], ids=str)
def test_pad_types_default_value(tmp_path, dtype):  # type: ignore[no-untyped-def]
    data = RNG.integers(0, 2, (2, 3)).astype(dtype)
    compare_op(
        tmp_path,
        lambda a, b, c: ops.pad(a, b, c, "constant"),
        [P(data), C(np.array([1, 1])), C(np.array([0, 2]))],
    )


def test_reflect_pad_too_wide_is_refused(tmp_path):  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError, match="REFLECT padding mode requires"):
        ops.pad(ops.parameter([3], ov.Type.f32), np.array([3]), np.array([0]), "reflect")
    spec = ovonehot.ops.lookup("Pad", "opset12")
    assert spec is not None
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.pad import PadAttrs, PadMode
    from ovonehot.types import ElementType, PartialShape

    infos = [
        TensorInfo(ElementType.f32, PartialShape.of([3])),
        TensorInfo(ElementType.i64, PartialShape.of([1]), value=np.array([3])),
        TensorInfo(ElementType.i64, PartialShape.of([1]), value=np.array([0])),
    ]
    with pytest.raises(ovonehot.Error, match="REFLECT padding mode requires"):
        spec.infer(PadAttrs(PadMode.REFLECT), infos)


PAD_SHAPES = [
    pytest.param("?,4", [1, 0], [0, 2], id="dynamic"),
    pytest.param("2..5,4", [-1, 0], [3, 0], id="interval"),
    pytest.param("...", [1], [1], id="dynamic-rank"),
]


@pytest.mark.parametrize(("shape", "begin", "end"), PAD_SHAPES)
def test_pad_infer_agrees(tmp_path, shape, begin, end):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c: ops.pad(a, b, c, "constant"),
        [P(np.zeros((), np.float32), shape=shape), C(np.array(begin)), C(np.array(end))],
    )
    assert ours == theirs


def test_pad_unknown_pads_infer_agrees(tmp_path):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c: ops.pad(a, b, c, "edge"),
        [P(np.zeros((3, 4), np.float32)), P(np.zeros(2, np.int64)), P(np.zeros(2, np.int64))],
    )
    assert ours == theirs


# -- Roll, Bucketize (CPU plugin) -----------------------------------------------------------
ROLL_CASES = [
    pytest.param(np.int64(2), np.int64(1), id="scalar"),
    pytest.param(np.array([1, -2]), np.array([0, -1]), id="two-axes"),
    pytest.param(np.array([3, 4]), np.array([1, 1]), id="repeated-axis"),
    pytest.param(np.array([100]), np.array([2]), id="large-shift"),
]


@pytest.mark.parametrize(("shift", "axes"), ROLL_CASES)
def test_roll_matches_cpu(tmp_path, shift, axes):  # type: ignore[no-untyped-def]
    data = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    ours, theirs = _cpu(tmp_path, ops.roll, [P(data), C(shift), C(axes)])
    assert_same(ours, theirs)


def test_roll_scalar_shift_over_many_axes_matches_the_definition(tmp_path):  # type: ignore[no-untyped-def]
    # The CPU plugin refuses a scalar shift with several axes ("'shift' and 'axes' dimensions
    # mismatch"); the spec applies it to each axis: out[(i + s) % n] = data[i] along every axis.
    data = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    node, params = build(ops.roll, [P(data), C(np.int64(-7)), C(np.array([0, 1, 2]))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data]).values()
    want = np.empty_like(data)
    for i, j, k in np.ndindex(data.shape):
        want[(i - 7) % 2, (j - 7) % 3, (k - 7) % 5] = data[i, j, k]
    assert_same(ours, want)


@pytest.mark.parametrize("right", [True, False], ids=["right-bound", "left-bound"])
@pytest.mark.parametrize("out_type", ["i32", "i64"])
def test_bucketize_matches_cpu(tmp_path, right, out_type):  # type: ignore[no-untyped-def]
    data = np.array([[-2.0, -1.0, -0.5, 0.0], [0.5, 1.0, 1.5, 9.0]], np.float32)
    buckets = np.array([-1.0, 0.0, 1.0], np.float32)
    ours, theirs = _cpu(tmp_path, lambda a, b: ops.bucketize(a, b, out_type, right), [P(data), C(buckets)])
    assert_same(ours, theirs)


def test_bucketize_integer_data_float_buckets_matches_cpu(tmp_path):  # type: ignore[no-untyped-def]
    ours, theirs = _cpu(
        tmp_path,
        lambda a, b: ops.bucketize(a, b),
        [P(np.array([-3, 0, 1, 2, 7], np.int32)), C(np.array([0.5, 1.0, 6.5], np.float32))],
    )
    assert_same(ours, theirs)


# -- MVN, NormalizeL2 ---------------------------------------------------------------------------
MVN_CASES = [
    pytest.param((2, 3, 4), [2], id="last-axis"),
    pytest.param((2, 3, 4), [1, 2], id="two-axes"),
    pytest.param((2, 3, 4), [-1, 0], id="negative"),
    pytest.param((5,), [0], id="1d"),
]


@pytest.mark.parametrize(("shape", "axes"), MVN_CASES)
@pytest.mark.parametrize("normalize_variance", [True, False], ids=["var", "no-var"])
@pytest.mark.parametrize("eps_mode", ["inside_sqrt", "outside_sqrt"])
@pytest.mark.parametrize("dtype", [np.float32], ids=["f32"])  # the only type MVN evaluates
def test_mvn_matches_reference(tmp_path, shape, axes, normalize_variance, eps_mode, dtype):  # type: ignore[no-untyped-def]
    data = (RNG.standard_normal(shape) * 3 + 1).astype(dtype)
    node, params = build(
        lambda a, b: ops.mvn(a, b, normalize_variance, 1e-5, eps_mode), [P(data), C(np.array(axes, np.int64))]
    )
    # MVN's evaluate leaves an unshaped output tensor empty: give it its shape.
    out = ov.Tensor(node.get_output_element_type(0), ov.Shape(list(shape)))
    assert node.evaluate([out], [ov.Tensor(data), ov.Tensor(np.array(axes, np.int64))])
    theirs = np.array(out.data, copy=True)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data]).values()
    from ovref import ulp_distance

    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert int(ulp_distance(ours, theirs).max()) <= MVN_ULP


@pytest.mark.parametrize("eps_mode", ["add", "max"])
@pytest.mark.parametrize("axes", [[1], [0, 1], []], ids=["last", "all", "none"])
def test_normalize_l2_matches_cpu(tmp_path, eps_mode, axes):  # type: ignore[no-untyped-def]
    data = (RNG.standard_normal((3, 4)) * 2).astype(np.float32)
    data[0] = 0.0
    ours, theirs = _cpu(
        tmp_path, lambda a, b: ops.normalize_l2(a, b, 1e-3, eps_mode), [P(data), C(np.array(axes, np.int64))]
    )
    np.testing.assert_allclose(ours, theirs, rtol=NORMALIZE_RTOL, atol=1e-7)


def test_mvn_f16_matches_cpu(tmp_path):  # type: ignore[no-untyped-def]
    data = (RNG.standard_normal((2, 3, 8)) * 3 + 1).astype(np.float16)
    ours, theirs = _cpu(
        tmp_path, lambda a, b: ops.mvn(a, b, True, 1e-5, "inside_sqrt"), [P(data), C(np.array([2], np.int64))]
    )
    assert ours.dtype == theirs.dtype == np.float16
    np.testing.assert_allclose(ours.astype(np.float32), theirs.astype(np.float32), rtol=1e-3, atol=1e-3)


GROUP_NORM_CASES = [
    pytest.param((2, 4, 7), 2, id="1d-two-groups"),
    pytest.param((1, 6, 3, 3), 3, id="2d"),
    pytest.param((2, 4, 5), 4, id="instance-norm"),
    pytest.param((2, 4, 5), 1, id="layer-norm"),
    pytest.param((0, 4, 3), 2, id="empty-batch"),
    pytest.param((2, 4, 0), 2, id="empty-groups"),
]


@pytest.mark.parametrize(("shape", "groups"), GROUP_NORM_CASES)
def test_group_normalization_matches_cpu(tmp_path, shape, groups):  # type: ignore[no-untyped-def]
    data = (RNG.standard_normal(shape) * 2 + 0.5).astype(np.float32)
    scale = RNG.standard_normal(shape[1]).astype(np.float32)
    bias = RNG.standard_normal(shape[1]).astype(np.float32)
    ours, theirs = _cpu(
        tmp_path, lambda a, b, c: ops.group_normalization(a, b, c, groups, 1e-5), [P(data), C(scale), C(bias)]
    )
    np.testing.assert_allclose(ours, theirs, rtol=NORMALIZE_RTOL * 10, atol=1e-6)


def test_group_normalization_infer_agrees(tmp_path):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c: ops.group_normalization(a, b, c, 2, 1e-5),
        [
            P(np.zeros((), np.float32), shape="?,4,2..9"),
            C(np.ones(4, np.float32)),
            C(np.zeros(4, np.float32)),
        ],
    )
    assert ours == theirs
