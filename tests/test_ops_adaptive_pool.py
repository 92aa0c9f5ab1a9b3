"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8 against OpenVINO.

The core ops have no ``evaluate``; the CPU plugin (deterministic config) pools in f32 with
the reference's bins and summation order (raster order from 0), so f32 values and both
index types must match it bit for bit; f16 (computed in f32, rounded once) too.  Bins that
overlap (sizes that do not divide), 1-D/2-D/3-D, output sizes 1 and larger than the input,
ties (the first maximum wins).  Shapes, types and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino")
o8 = pytest.importorskip("openvino.opset8")

RNG = np.random.default_rng(8)
GLOBAL_ULP = 4

CASES = [
    pytest.param((2, 3, 7), (3,), id="1d-7to3"),
    pytest.param((1, 2, 5), (5,), id="1d-identity"),
    pytest.param((1, 2, 4), (7,), id="1d-upsample"),
    pytest.param((2, 3, 7, 5), (3, 2), id="2d-7x5to3x2"),
    pytest.param((1, 4, 10, 9), (4, 4), id="2d-10x9to4x4"),
    pytest.param((1, 1, 6, 6), (1, 1), id="2d-global"),
    pytest.param((1, 2, 3, 3), (5, 4), id="2d-upsample"),
    pytest.param((1, 2, 5, 6, 7), (2, 3, 4), id="3d"),
    pytest.param((2, 1, 4, 4, 4), (1, 1, 1), id="3d-global"),
]


def _data(shape: tuple[int, ...], ties: bool) -> np.ndarray:
    if ties:  # few distinct values: many equal maxima in one bin
        return RNG.integers(-2, 3, shape).astype(np.float32)
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize(("shape", "sizes"), CASES)
def test_adaptive_avg_pool_matches_cpu(tmp_path, shape, sizes, ties):  # type: ignore[no-untyped-def]
    x = _data(shape, ties)
    node, params = build(o8.adaptive_avg_pool, [P(x), C(np.array(sizes, np.int64))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    # A global pool (every size 1) the CPU plugin turns into ReduceMean, which sums in its own
    # order: within GLOBAL_ULP of the reference's sequential sum there, bit for bit elsewhere.
    assert_same(ours, cpu_outputs(node, params, [x])[0], ulp=GLOBAL_ULP if set(sizes) == {1} else 0)


@pytest.mark.parametrize("index_type", ["i32", "i64"])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize(("shape", "sizes"), CASES)
def test_adaptive_max_pool_matches_cpu(tmp_path, shape, sizes, ties, index_type):  # type: ignore[no-untyped-def]
    x = _data(shape, ties)
    node, params = build(
        lambda a, b: o8.adaptive_max_pool(a, b, index_type), [P(x), C(np.array(sizes, np.int32))]
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([x]).values())
    # The CPU plugin refuses i64 indices ("does not support i64 for use with oneDNN"): the
    # oracle for them is the same op with i32 indices.
    oracle = build(lambda a, b: o8.adaptive_max_pool(a, b, "i32"), [P(x), C(np.array(sizes, np.int32))])
    theirs = cpu_outputs(*oracle, [x])
    assert_same(ours[0], theirs[0], where="values")
    assert_same(ours[1], theirs[1].astype(ours[1].dtype), where="indices")


@pytest.mark.parametrize("op", ["avg", "max"])
def test_adaptive_pool_f16_matches_cpu(tmp_path, op):  # type: ignore[no-untyped-def]
    x = _data((2, 3, 9, 7), False).astype(np.float16)

    def factory(a, b):  # type: ignore[no-untyped-def]
        return o8.adaptive_avg_pool(a, b) if op == "avg" else o8.adaptive_max_pool(a, b, "i32")

    node, params = build(factory, [P(x), C(np.array([4, 3], np.int64))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([x]).values())
    for k, theirs in enumerate(cpu_outputs(node, params, [x])):
        assert_same(ours[k], theirs, where=f"output {k}")


def test_adaptive_pool_with_runtime_sizes(tmp_path):  # type: ignore[no-untyped-def]
    """The sizes as a Parameter: '?' spatial dims in inference, the values at run time."""
    x = _data((1, 2, 9, 8), False)
    sizes = np.array([4, 5], np.int64)
    node, params = build(o8.adaptive_avg_pool, [P(x), P(sizes)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x, sizes]).values()
    assert_same(ours, cpu_outputs(node, params, [x, sizes])[0])


def test_adaptive_avg_pool_against_float64_oracle(tmp_path):  # type: ignore[no-untyped-def]
    """The bins of the spec (PyTorch's adaptive pooling), independently of OpenVINO."""
    x = _data((1, 1, 7, 5), False)
    node, params = build(o8.adaptive_avg_pool, [P(x), C(np.array([3, 2], np.int64))])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    x64 = x.astype(np.float64)[0, 0]
    for i, (h0, h1) in enumerate([(0, 3), (2, 5), (4, 7)]):
        for j, (w0, w1) in enumerate([(0, 3), (2, 5)]):
            assert abs(ours[0, 0, i, j] - x64[h0:h1, w0:w1].mean()) < 1e-6


SHAPES = [
    ("1,3,7,5", "2"),
    ("1,3,7,5", "3"),
    ("1,3,7", "1"),
    ("?,?,7,5", "2"),
    ("2..4,3,?,?", "2"),
    ("...", "2"),
    ("1,3,7,5", "?"),
    ("1,3,7,5", "..."),
    ("1,3", "2"),
    ("1,3,4,5,6,7", "4"),
    ("?,3,?,?,?", "3"),
]


@pytest.mark.parametrize("op", ["avg", "max"])
@pytest.mark.parametrize(("data", "sizes"), SHAPES)
def test_adaptive_pool_inference_with_parameter_sizes(tmp_path, op, data, sizes):  # type: ignore[no-untyped-def]
    factory = o8.adaptive_avg_pool if op == "avg" else o8.adaptive_max_pool
    x = np.zeros([1] * (data.count(",") + 1), np.float32)
    try:
        ours, theirs = infer_shapes(
            tmp_path, factory, [P(x, shape=data), P(np.zeros(2, np.int64), shape=sizes)]
        )
    except RuntimeError as exc:  # OpenVINO refuses the op: so must ovonehot
        from ovonehot.errors import ValidationError
        from ovonehot.ops.adaptive_pool import AdaptivePoolAttrs, infer_adaptive_pool
        from ovonehot.ops.common.spec import TensorInfo
        from ovonehot.types import ElementType, PartialShape

        message = str(exc).strip().splitlines()[-1].strip()
        infos = [
            TensorInfo(ElementType.f32, PartialShape.parse(data)),
            TensorInfo(ElementType.i64, PartialShape.parse(sizes)),
        ]
        with pytest.raises(ValidationError) as ours_exc:
            infer_adaptive_pool(AdaptivePoolAttrs(op == "max"), infos)
        assert str(ours_exc.value) in message
        return
    assert ours == theirs


@pytest.mark.parametrize("sizes_shape", ["2..5", "1..3,4"], ids=["interval-from-shapeof", "interval-2d"])
def test_adaptive_pool_sizes_from_bounds(tmp_path, sizes_shape):  # type: ignore[no-untyped-def]
    """Sizes from ShapeOf of a dynamic Parameter: their intervals become the spatial dims."""
    ops = pytest.importorskip("openvino.opset15")
    x = np.zeros((1, 2, 6, 6), np.float32)
    y = np.zeros([2] * (sizes_shape.count(",") + 1), np.float32)
    rank = sizes_shape.count(",") + 1

    def factory(a, b):  # type: ignore[no-untyped-def]
        shape = ops.shape_of(b)
        if rank == 1:
            shape = ops.concat([shape, shape], 0)
        return o8.adaptive_max_pool(a, shape)

    ours, theirs = infer_shapes(tmp_path, factory, [P(x), P(y, shape=sizes_shape)])
    assert ours == theirs


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8], ids=["i32", "i8", "u8"])
def test_adaptive_max_pool_integers_match_cpu(tmp_path, dtype):  # type: ignore[no-untyped-def]
    x = RNG.integers(0, 100, (2, 3, 7, 5)).astype(dtype)
    node, params = build(
        lambda a, b: o8.adaptive_max_pool(a, b, "i32"), [P(x), C(np.array([3, 2], np.int64))]
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([x]).values())
    for k, theirs in enumerate(cpu_outputs(node, params, [x])):
        assert_same(ours[k], theirs, where=f"output {k}")


def test_adaptive_avg_pool_integers_follow_the_reference(tmp_path):  # type: ignore[no-untyped-def]
    """Integer averages as ``reference/adaptive_avg_pool.hpp`` computes them (no OpenVINO oracle:
    no core evaluate, and the CPU plugin averages in f32 and rounds): i32 truncates
    ``sum / count``; u8 rounds half to even (``nearbyint``)."""
    x = np.array([[[1, 2, 2, 3, 7]]], np.int32)  # bins of 5 -> 2: [0, 3), [2, 5)
    node, params = build(o8.adaptive_avg_pool, [P(x), C(np.array([2], np.int64))])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    assert ours.tolist() == [[[5 // 3, 12 // 3]]]
    u = np.array([[[1, 2, 5, 6]]], np.uint8)  # bins of 4 -> 2: [0, 2) = 1.5 -> 2, [2, 4) = 5.5 -> 6
    node, params = build(o8.adaptive_avg_pool, [P(u), C(np.array([2], np.int64))])
    (ours,) = export(tmp_path, node, params).run([u]).values()
    assert ours.tolist() == [[[2, 6]]]
