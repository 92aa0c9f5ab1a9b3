"""Bitwise ops (opset13) and ReduceLogicalAnd/Or, ReduceL1/L2 against OpenVINO's core reference.

Every case builds the op with OpenVINO's Python API, evaluates it with
``Node.evaluate`` and runs the saved IR with ovonehot (``ovref.compare_op``):
exact for integers and booleans; the float norms within the stated ulp.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export, infer_shapes

import ovonehot
from ovonehot.ops import lookup
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.elementwise import NoAttrs
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")

BF16 = np.dtype(ml_dtypes.bfloat16)


def _ints(dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.random.default_rng(seed).integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    body = rng.integers(int(info.min), int(info.max), shape, dtype=np.int64 if info.min < 0 else np.uint64)
    flat = body.reshape(-1).astype(dtype)
    edges = np.array([info.min, info.max, 0, 1][: flat.size], dtype=dtype)
    flat[: edges.size] = edges
    return flat.reshape(shape)


# The core reference has no evaluate for the bitwise ops (only the template plugin has
# kernels): the expectation is OpenVINO's CPU plugin for the types it computes natively
# (docs/openvino-behaviour.md: i16/u16 go through i32, exact for bitwise ops; i64/u32/u64 are narrowed to
# i32, outside its exact envelope) and Python's own integers for the wide types.
CPU_TYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32]
WIDE_TYPES = [np.int64, np.uint32, np.uint64]
BITWISE_BINARY = {"and": ops.bitwise_and, "or": ops.bitwise_or, "xor": ops.bitwise_xor}
PYTHON_BINARY = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}
SHAPES = {"same": ((3, 4), (3, 4)), "broadcast": ((2, 1, 4), (3, 1))}


def _cpu(tmp_path, factory, arrays):  # type: ignore[no-untyped-def]
    """The CPU plugin's outputs and ovonehot's for a one-op model; types and shapes compared too."""
    node, params = build(factory, [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (theirs,) = cpu_outputs(node, params, list(arrays))
    (ours,) = model.run(list(arrays)).values()
    return ours, theirs


@pytest.mark.parametrize("shapes", list(SHAPES.values()), ids=list(SHAPES))
@pytest.mark.parametrize("dtype", CPU_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(BITWISE_BINARY))
def test_bitwise_binary_matches_cpu(tmp_path, name, dtype, shapes):  # type: ignore[no-untyped-def]
    a, b = _ints(dtype, shapes[0], 1), _ints(dtype, shapes[1], 2)
    ours, theirs = _cpu(tmp_path, BITWISE_BINARY[name], [a, b])
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", CPU_TYPES, ids=lambda d: np.dtype(d).name)
def test_bitwise_not_matches_cpu(tmp_path, dtype):  # type: ignore[no-untyped-def]
    ours, theirs = _cpu(tmp_path, ops.bitwise_not, [_ints(dtype, (3, 5))])
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", WIDE_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", [*BITWISE_BINARY, "not"])
def test_bitwise_wide_types_match_python_integers(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    a, b = _ints(dtype, (2, 1, 4), 1), _ints(dtype, (3, 1), 2)
    arrays = [a] if name == "not" else [a, b]
    factory = ops.bitwise_not if name == "not" else BITWISE_BINARY[name]
    node, params = build(factory, [P(x) for x in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    if name == "not":  # ~v on the type's bits: the two's complement -v - 1, wrapped to the type
        want = [(~int(v) - int(info.min)) % 2**bits + int(info.min) for v in a.reshape(-1)]
        expected = np.array(want, dtype=object).reshape(a.shape).astype(dtype)
    else:
        ba, bb = np.broadcast_arrays(a.astype(object), b.astype(object))
        expected = np.vectorize(PYTHON_BINARY[name], otypes=[object])(ba, bb).astype(dtype)
    assert_same(ours, expected)


def test_bitwise_refuses_floats():  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError, match="integer or boolean"):
        ops.bitwise_not(ops.parameter([2], ov.Type.f32))
    spec = lookup("BitwiseNot", "opset13")
    assert spec is not None
    with pytest.raises(ovonehot.Error, match="integer or boolean"):
        spec.infer(NoAttrs(), [TensorInfo(ElementType.f32, PartialShape.of([2]))])


REDUCE_OPS = {
    "ReduceLogicalAnd": ops.reduce_logical_and,
    "ReduceLogicalOr": ops.reduce_logical_or,
    "ReduceL1": ops.reduce_l1,
    "ReduceL2": ops.reduce_l2,
}
NORM_TYPES = [np.float32, np.float16, BF16, np.int32, np.int64]
REDUCE_SHAPES = [
    pytest.param((3, 4), [1], id="last"),
    pytest.param((2, 3, 4), [0, 2], id="outer-inner"),
    pytest.param((2, 3, 4), [-1, -3], id="negative"),
    pytest.param((2, 0, 3), [1], id="empty-axis"),
    pytest.param((4,), [], id="no-axes"),
    pytest.param((), [], id="scalar"),
]
NORM_ULP = 1  # f32 square root of a sum rounded the same way; f16/bf16 round from f32


@pytest.mark.parametrize(("shape", "axes"), REDUCE_SHAPES)
@pytest.mark.parametrize("keep_dims", [False, True], ids=["drop", "keep"])
@pytest.mark.parametrize("name", ["ReduceLogicalAnd", "ReduceLogicalOr"])
def test_logical_reduce_matches_reference(tmp_path, name, shape, axes, keep_dims):  # type: ignore[no-untyped-def]
    x = np.random.default_rng(len(shape)).random(shape) < 0.7
    compare_op(
        tmp_path,
        lambda a, b: REDUCE_OPS[name](a, b, keep_dims),
        [P(x), C(np.array(axes, np.int64))],
    )


# The core reference has ReduceL2 for floats only; integer L2 is checked against the CPU plugin.
NORM_CASES = [
    pytest.param(name, dt, id=f"{name}-{np.dtype(dt).name}")
    for name in ("ReduceL1", "ReduceL2")
    for dt in NORM_TYPES
    if name == "ReduceL1" or np.dtype(dt).kind not in "iu"
]


@pytest.mark.parametrize(("shape", "axes"), REDUCE_SHAPES)
@pytest.mark.parametrize(("name", "dtype"), NORM_CASES)
def test_norm_reduce_matches_reference(tmp_path, name, dtype, shape, axes):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-50, 50, shape).astype(dtype)
    else:
        x = (rng.standard_normal(shape) * 3).astype(dtype)
    ulp = NORM_ULP if np.dtype(dtype).kind not in "iu" else 0
    compare_op(
        tmp_path, lambda a, b: REDUCE_OPS[name](a, b, True), [P(x), C(np.array(axes, np.int64))], ulp=ulp
    )


@pytest.mark.parametrize("name", list(REDUCE_OPS))
@pytest.mark.parametrize("shape", ["?,3", "...", "2..5,4"], ids=["dyn", "dyn-rank", "interval"])
def test_norm_reduce_infer_agrees(tmp_path, name, shape):  # type: ignore[no-untyped-def]
    dtype = np.bool_ if "Logical" in name else np.float32
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: REDUCE_OPS[name](a, b, False),
        [P(np.zeros((), dtype), shape=shape), C(np.int64(-1))],
    )
    assert ours == theirs


def test_integer_l2_truncates_like_the_cpu_plugin(tmp_path):  # type: ignore[no-untyped-def]
    x = np.array([[3, 4, 1], [1, 1, 1], [5, 5, 0], [-7, 0, 0]], np.int32)  # sqrt: 5.1, 1.7, 7.07, 7
    ours, theirs = _cpu(tmp_path, lambda a: ops.reduce_l2(a, ops.constant(np.array([1])), False), [x])
    assert_same(ours, theirs)
