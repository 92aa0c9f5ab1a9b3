"""StringTensorUnpack-15 and StringTensorPack-15 against OpenVINO.

OpenVINO 2026.4's core has no ``evaluate`` for either op; its CPU plugin runs both and is the
oracle (byte offsets and bytes are exact: integers and copied bytes).  Shapes and refusals:
OpenVINO's own inference of the same node, and IR written by ``ov.save_model`` (a string
Constant's payload included, read by ovonehot's reader).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops.common.attrs import NoAttrs
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.string_tensor import infer_pack
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")
ov_op = pytest.importorskip("openvino.op")

WORDS = {
    "2d": np.array([["ab", "", "héllo"], ["x", "yz", "\u00e9\u00e8\u4e2d"]]),
    "1d": np.array(["one", "two", "three", ""]),
    "0d": np.array("scalar string"),
    "empty": np.empty((2, 0), dtype="<U1"),
    "all-empty-strings": np.array(["", "", ""]),
}


@pytest.mark.parametrize("case", list(WORDS))
def test_unpack_matches_cpu(tmp_path: Any, case: str) -> None:
    words = WORDS[case]
    node, params = build(o15.string_tensor_unpack, [P(words)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([words]).values())
    if words.size:
        theirs = cpu_outputs(node, params, [words])
        for k in range(3):
            np.testing.assert_array_equal(ours[k], theirs[k])
            assert ours[k].dtype == theirs[k].dtype
    encoded = [w.encode() for w in words.reshape(-1).tolist()]
    assert ours[2].tobytes() == b"".join(encoded)
    assert [
        ours[2][b:e].tobytes() for b, e in zip(ours[0].reshape(-1), ours[1].reshape(-1), strict=True)
    ] == encoded


def test_unpack_of_a_constant_has_a_static_symbols_length(tmp_path: Any) -> None:
    """OpenVINO counts a Constant's bytes in inference (u8[8]); through ovonehot's string payload reader too."""
    words = np.array(["ab", "", "héllo"])
    node = o15.string_tensor_unpack(ov_op.Constant(ov.Tensor(words)).output(0))
    model = export(tmp_path, node, [])
    assert_inferred(model, node)
    assert str(model.outputs[2].shape) == "[8]"
    ours = list(model.run([]).values())
    assert ours[2].tobytes() == "abhéllo".encode()


PACKS = [
    pytest.param([0, 2, 2], [2, 2, 7], b"abhello", id="plain"),
    pytest.param([[0, 1], [3, 3]], [[1, 3], [7, 3]], b"abcdefg", id="2d"),
    pytest.param([1, 2, 0], [4, 3, 7], b"abhello", id="overlapping"),
    pytest.param(3, 10, "héllo wörld".encode(), id="0d-utf8"),
    pytest.param(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64), b"", id="empty"),
]


@pytest.mark.parametrize("index", [np.int32, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize(("begins", "ends", "symbols"), PACKS)
def test_pack_matches_cpu(tmp_path: Any, begins: Any, ends: Any, symbols: bytes, index: Any) -> None:
    feeds = [np.asarray(begins, index), np.asarray(ends, index), np.frombuffer(symbols, np.uint8).copy()]
    node, params = build(o15.string_tensor_pack, [P(f) for f in feeds])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(feeds).values()
    assert ours.dtype == object and ours.shape == feeds[0].shape
    if feeds[0].size and feeds[2].size:
        (theirs,) = cpu_outputs(node, params, feeds)
        assert ours.tolist() == theirs.tolist()
    expected = [
        symbols[b:e].decode() if b < e else ""
        for b, e in zip(feeds[0].reshape(-1), feeds[1].reshape(-1), strict=True)
    ]
    assert ours.reshape(-1).tolist() == expected


def test_pack_of_unpack_round_trips(tmp_path: Any) -> None:
    words = WORDS["2d"]
    node, params = build(lambda w: o15.string_tensor_pack(*o15.string_tensor_unpack(w).outputs()), [P(words)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([words]).values()
    assert ours.tolist() == words.tolist()


def test_pack_of_a_reversed_range_is_empty(tmp_path: Any) -> None:
    """begin >= end: the empty string (the CPU plugin gives '' there, but garbage for the strings after
    it: no oracle for this case)."""
    feeds = [
        np.array([1, 5, 0], np.int32),
        np.array([4, 3, 7], np.int32),
        np.frombuffer(b"abhello", np.uint8).copy(),
    ]
    node, params = build(o15.string_tensor_pack, [P(f) for f in feeds])
    (ours,) = export(tmp_path, node, params).run(feeds).values()
    assert ours.tolist() == ["bhe", "", "abhello"]


def test_pack_refuses_a_range_outside_the_symbols(tmp_path: Any) -> None:
    feeds = [np.array([0, 2], np.int32), np.array([2, 9], np.int32), np.frombuffer(b"abcd", np.uint8).copy()]
    node, params = build(o15.string_tensor_pack, [P(f) for f in feeds])
    model = export(tmp_path, node, params)
    with pytest.raises(InputError, match=r"StringTensorPack.*\[2, 9\) is outside the 4 symbols"):
        model.run(feeds)


def _type(name: str) -> Any:
    return getattr(ov.Type, name)


# (begins, ends, symbols shapes; begins, ends, symbols types)
PACK_SHAPES = [
    ("2,3", "2,3", "10", "i32", "i32", "u8"), ("2,3", "2,?", "10", "i32", "i32", "u8"),
    ("2,3", "3,2", "10", "i32", "i32", "u8"), ("...", "2,3", "?", "i64", "i64", "u8"),
    ("2,3", "2,3", "2,5", "i32", "i32", "u8"), ("2,3", "2,3", "", "i32", "i32", "u8"),
    ("2", "2", "4", "i64", "i32", "u8"), ("2", "2", "4", "u8", "u8", "u8"), ("2", "2", "4", "i32", "i32", "i8"),
    ("2", "2", "4", "i32", "i32", "string"), ("2,1..3", "?,2", "...", "i32", "i32", "u8"), ("", "", "3", "i32", "i32", "u8"),
    ("2", "2", "4", "dynamic", "dynamic", "u8"), ("2", "2", "4", "i32", "i32", "dynamic"),
]  # fmt: skip


def test_pack_shapes_match_openvino() -> None:
    differ = {}
    for bs, es, ss, bt, et, st in PACK_SHAPES:
        params = [
            o15.parameter(ov.PartialShape(f"[{s}]"), _type(t)) for s, t in ((bs, bt), (es, et), (ss, st))
        ]
        try:
            node = o15.string_tensor_pack(*params)
            theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
        except RuntimeError:
            theirs = "refused"
        infos = [
            TensorInfo(ElementType.from_name(t), PartialShape.parse(s))
            for s, t in ((bs, bt), (es, et), (ss, st))
        ]
        try:
            (out,) = infer_pack(NoAttrs(), infos)
            ours = f"{out.element_type}{out.shape}"
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(bs, es, ss, bt, et, st)] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"


@pytest.mark.parametrize(("shape", "et"), [("2,3", "string"), ("", "string"), ("...", "string"), ("?,2..4", "string"),
                                           ("0", "string"), ("2,0,?", "string"), ("2", "u8"), ("2", "dynamic")])  # fmt: skip
def test_unpack_shapes_match_openvino(shape: str, et: str) -> None:
    from ovonehot.ops.string_tensor import infer_unpack

    try:
        node = o15.string_tensor_unpack(o15.parameter(ov.PartialShape(f"[{shape}]"), _type(et)))
        theirs = [
            f"{node.get_output_element_type(k).to_string()}{node.get_output_partial_shape(k)}"
            for k in range(3)
        ]
    except RuntimeError:
        theirs = ["refused"]
    try:
        ours = [
            f"{o.element_type}{o.shape}"
            for o in infer_unpack(
                NoAttrs(), [TensorInfo(ElementType.from_name(et), PartialShape.parse(shape))]
            )
        ]
    except ValidationError:
        ours = ["refused"]
    assert ours == theirs
