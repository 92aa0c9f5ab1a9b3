"""ShuffleChannels-0 and BitwiseLeftShift/BitwiseRightShift-15 against OpenVINO.

ShuffleChannels: values against ``Node.evaluate`` (exact, every data type), shapes and
messages against OpenVINO's inference.  Shifts: i32 against ``Node.evaluate`` (its only type)
bit for bit, counts out of range included (taken modulo 32); the other integer types against
the CPU plugin (deterministic config; 8- and 16-bit types: it computes in i32, so u32 right
shifts come out arithmetic there) for counts within the type's width, and against Python's
integers (C's promotion rules written out), counts beyond the width included.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

ALL_TYPES = [
    np.float32,
    np.float16,
    ml_dtypes.bfloat16,
    np.float64,
    np.int8,
    np.uint8,
    np.int32,
    np.int64,
    np.bool_,
]


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    ("shape", "axis", "group"),
    [
        ((1, 6, 2, 2), 1, 3),
        ((2, 4, 3), -2, 2),
        ((12,), 0, 4),
        ((2, 3, 8), 2, 8),
        ((1, 5, 2), 1, 1),
        ((2, 0, 3), 1, 3),
    ],
    ids=["nchw", "neg-axis", "1d", "last-axis", "group-1", "empty"],
)
def test_shuffle_channels_matches_reference(tmp_path, shape, axis, group, dtype):  # type: ignore[no-untyped-def]
    x = np.arange(int(np.prod(shape))).reshape(shape)
    x = (x % 2).astype(bool) if dtype == np.bool_ else x.astype(dtype)
    node, params = build(lambda a: o15.shuffle_channels(a, axis, group), [P(x)])
    out = ov.Tensor(node.get_output_element_type(0), ov.Shape(list(shape)))
    assert node.evaluate([out], [ov.Tensor(x) if dtype != ml_dtypes.bfloat16 else _bf16(x)])
    theirs = np.array(out.data, copy=True)
    if dtype == ml_dtypes.bfloat16:
        theirs = theirs.view(np.uint16).view(ml_dtypes.bfloat16)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, theirs)


def _bf16(x):  # type: ignore[no-untyped-def]
    t = ov.Tensor(ov.Type.bf16, ov.Shape(list(x.shape)))
    np.copyto(t.data.view(np.uint16), x.view(np.uint16))
    return t


SHUFFLE_SHAPES = ["1,6,2,2", "1,?,2,2", "1,2..6,2", "...", "", "1,5,2", "1,0,2", "3..,4"]


@pytest.mark.parametrize(("axis", "group"), [(1, 3), (-1, 2), (4, 2), (1, 0), (0, 1)])
@pytest.mark.parametrize("shape", SHUFFLE_SHAPES)
def test_shuffle_channels_inference_matches_openvino(shape, axis, group):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.shuffle_channels import ShuffleChannelsAttrs, infer_shuffle_channels
    from ovonehot.types import ElementType, PartialShape

    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    try:
        node = o15.shuffle_channels(o15.parameter(ps, ov.Type.f32), axis, group)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    try:
        info = TensorInfo(ElementType.f32, PartialShape.parse(shape))
        (out,) = infer_shuffle_channels(ShuffleChannelsAttrs(axis, group), [info])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs


SHIFTS = {"left": o15.bitwise_left_shift, "right": o15.bitwise_right_shift}


@pytest.mark.parametrize("op", list(SHIFTS))
def test_i32_shifts_match_reference(tmp_path, op):  # type: ignore[no-untyped-def]
    a = np.array([1, -1, 5, -128, 3, 7, 2**31 - 1, -(2**31), 0, 12345], np.int32)
    b = np.array([1, 3, 31, 32, 33, -1, 5, 1, 40, -33], np.int32)
    compare_op(tmp_path, SHIFTS[op], [P(a), P(b)])


@pytest.mark.parametrize("op", list(SHIFTS))
def test_i32_shifts_broadcast(tmp_path, op):  # type: ignore[no-untyped-def]
    a = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    b = np.array([0, 1, 2, 3], np.int32)
    compare_op(tmp_path, SHIFTS[op], [P(a), P(b)])


def _c_shift(a: int, b: int, left: bool, dtype: np.dtype) -> int:
    """C's shift on x86: promotion to (unsigned) int below 64 bits, count modulo the width."""
    bits = 64 if dtype.itemsize == 8 else 32
    count = b % (1 << 64) % bits
    if left:
        value = (a << count) % (1 << bits)
    else:
        value = a >> count if a >= 0 or dtype.kind == "i" else (a % (1 << bits)) >> count
    return int(np.array(value % (1 << 64), np.uint64).astype(dtype))


@pytest.mark.parametrize("op", list(SHIFTS))
@pytest.mark.parametrize(
    "dtype",
    [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64, np.uint64],
    ids=lambda d: np.dtype(d).name,
)
def test_other_types_match_cpu_and_c(tmp_path, dtype, op):  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    a = np.array([1, info.max, 5, info.min, 3, 7, info.max // 3, 0], dtype)
    width = np.dtype(dtype).itemsize * 8
    b = np.array([1, 3, width - 1, 2, 0, 4, 1, width - 2], dtype)
    node, params = build(SHIFTS[op], [P(a), P(b)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([a, b]).values()
    expected = [_c_shift(int(x), int(y), op == "left", np.dtype(dtype)) for x, y in zip(a, b, strict=True)]
    assert ours.tolist() == expected
    if np.dtype(dtype).itemsize < 4:  # the CPU plugin computes in i32: u32/i64/u64 it gets wrong
        assert_same(ours, cpu_outputs(node, params, [a, b])[0].astype(dtype))
    far = np.array([width, width + 1, 2 * width + 3], dtype)
    (beyond,) = export(tmp_path, *build(SHIFTS[op], [P(a[:3]), P(far)])).run([a[:3], far]).values()
    assert beyond.tolist() == [
        _c_shift(int(x), int(y), op == "left", np.dtype(dtype)) for x, y in zip(a[:3], far, strict=True)
    ]


@pytest.mark.parametrize("types", [("f32", "f32"), ("i32", "i64"), ("boolean", "boolean"), ("u8", "u8")])
def test_shift_types_inference(types):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.bit_shift import infer_shift
    from ovonehot.ops.common.autobroadcast import NUMPY
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.elementwise import BinaryAttrs
    from ovonehot.types import ElementType, PartialShape

    params = [o15.parameter([2], getattr(ov.Type, t)) for t in types]
    try:
        node = o15.bitwise_left_shift(*params)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [TensorInfo(ElementType.from_name(t), PartialShape.parse("2")) for t in types]
    try:
        (out,) = infer_shift(BinaryAttrs(NUMPY), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
