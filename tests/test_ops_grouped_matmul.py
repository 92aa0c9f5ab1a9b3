"""GroupedMatMul-17 (opset17) against OpenVINO's inference and a float64 oracle.

OpenVINO 2026.4 has no ``evaluate`` for the op and its CPU plugin refuses to compile it
("Unsupported operation of type: GroupedMatMul"), so the expected values come from the
definition its Python API documents (``mat_b`` is ``[G, N, K]``: each group multiplies by the
transposed weights), computed here group by group in float64; ovonehot rounds that once to
the data type (exact for f32 against the rounded oracle, integers exact).  Models are built with
``openvino.opset17`` and written by ``ov.save_model`` (``version="opset17"`` layers); shapes and
refusals are OpenVINO's own inference of the same node.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_inferred, build, export

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops.common.attrs import NoAttrs
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.grouped_matmul import infer_grouped_matmul
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o17 = pytest.importorskip("openvino.opset17")
o16 = pytest.importorskip("openvino.opset16")

RNG = np.random.default_rng(17)
BF16 = np.dtype(ml_dtypes.bfloat16)


def _oracle(a: np.ndarray, b: np.ndarray, offsets: np.ndarray | None) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if a.ndim == 3:
        return (
            np.stack([a64[g] @ b64[g].T for g in range(a.shape[0])])
            if a.shape[0]
            else np.zeros((0, a.shape[1], b.shape[1]))
        )
    out = np.zeros((a.shape[0], b.shape[1]))
    start = 0
    for g, end in enumerate(np.asarray(offsets).tolist()):
        for row in range(start, end):
            out[row] = [sum(a64[row, k] * b64[g, n, k] for k in range(a.shape[1])) for n in range(b.shape[1])]
        start = end
    return out


CASES = [
    pytest.param((7, 4), (3, 5, 4), [2, 2, 6], id="2d-3d-empty-group-and-tail"),
    pytest.param((6, 3), (2, 4, 3), [3, 6], id="2d-3d"),
    pytest.param((0, 3), (2, 4, 3), [0, 0], id="2d-3d-no-tokens"),
    pytest.param((3, 2, 4), (3, 5, 4), None, id="3d-3d"),
    pytest.param((2, 3, 4), (2, 5, 4), [1, 2], id="3d-3d-offsets-unread"),
    pytest.param((2, 3, 0), (2, 5, 0), None, id="3d-3d-k-0"),
]


@pytest.mark.parametrize("offsets_type", [np.int32, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize(("ashape", "bshape", "offsets"), CASES)
def test_values_match_float64(tmp_path: Any, ashape: tuple[int, ...], bshape: tuple[int, ...],
                              offsets: list[int] | None, offsets_type: Any) -> None:  # fmt: skip
    a = RNG.standard_normal(ashape).astype(np.float32)
    b = RNG.standard_normal(bshape).astype(np.float32)
    ins = [P(a), P(b)] + ([P(np.array(offsets, offsets_type))] if offsets is not None else [])
    node, params = build(lambda *x: o17.grouped_matmul(*x), ins)
    model = export(tmp_path, node, params)
    assert 'version="opset17"' in model.path.read_text()
    assert_inferred(model, node)
    feeds = [i.array for i in ins]
    (ours,) = model.run(feeds).values()
    np.testing.assert_array_equal(ours, _oracle(a, b, np.asarray(offsets)).astype(np.float32))


@pytest.mark.parametrize(
    "dtype", [np.float16, BF16, np.float64, np.int32, np.int64], ids=["f16", "bf16", "f64", "i32", "i64"]
)
def test_types_keep_their_type(tmp_path: Any, dtype: Any) -> None:
    a = (RNG.standard_normal((5, 3)) * 4).astype(np.float32).astype(dtype)
    b = (RNG.standard_normal((2, 4, 3)) * 4).astype(np.float32).astype(dtype)
    off = np.array([2, 5], np.int64)
    node, params = build(lambda *x: o17.grouped_matmul(*x), [P(a), P(b), P(off)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([a, b, off]).values()
    expected = _oracle(a.astype(np.float64), b.astype(np.float64), off)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(ours, expected.astype(dtype))
    elif dtype == np.float64:
        np.testing.assert_allclose(ours, expected, rtol=1e-14)
    else:  # rounded once from float64 (through f32, exact here: the products are small)
        np.testing.assert_array_equal(ours, expected.astype(np.float32).astype(dtype))


@pytest.mark.parametrize(("offsets", "message"), [([3, 2, 7], "non-decreasing"), ([2, 2, 9], "within the 7 rows"),
                                                  ([2, 7], "2 offsets for 3 groups")])  # fmt: skip
def test_bad_offsets_are_refused(tmp_path: Any, offsets: list[int], message: str) -> None:
    a, b = np.ones((7, 4), np.float32), np.ones((3, 5, 4), np.float32)
    off = np.array(offsets, np.int32)
    node, params = build(lambda *x: o17.grouped_matmul(*x), [P(a), P(b), P(off, shape="?")])
    model = export(tmp_path, node, params)
    with pytest.raises(InputError, match=message):
        model.run([a, b, off])


# (mat_a, mat_b, offsets or None; types)
SHAPES = [
    ("2,3,4", "2,4,5", None), ("2,3,4", "2,5,4", None), ("6,4", "3,4,5", "3"), ("6,4", "3,5,4", "3"), ("4,6", "5,6", "3"),
    ("6,4", "3,4,5", None), ("...", "3,4,5", None), ("2,3,4", "3,4,5", None), ("6,4", "3,5,4", "3,1"), ("3", "3,4,5", "3"),
    ("?,?", "?,?,?", "?"), ("4,?", "?", "2"), ("2,3,4", "2,5,4", "2"), ("?,3,1..4", "2,?,2..6", None), ("2..5,4", "3,5,?", "..."),
    ("6,4", "3,5,4", None),
]  # fmt: skip


def test_shapes_match_openvino() -> None:
    differ = {}
    for sa, sb, so in SHAPES:
        params = [o16.parameter(ov.PartialShape(f"[{s}]"), ov.Type.f32) for s in (sa, sb)]
        infos = [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in (sa, sb)]
        if so is not None:
            params.append(o16.parameter(ov.PartialShape(f"[{so}]"), ov.Type.i32))
            infos.append(TensorInfo(ElementType.i32, PartialShape.parse(so)))
        try:
            theirs = str(o17.grouped_matmul(*params).get_output_partial_shape(0))
        except RuntimeError:
            theirs = "refused"
        try:
            ours = str(infer_grouped_matmul(NoAttrs(), infos)[0].shape)
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(sa, sb, so)] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"


@pytest.mark.parametrize(("ta", "tb", "to"), [("f32", "f16", "i32"), ("f32", "f32", "f32"), ("i8", "i8", "i64"), ("dynamic", "f16", "i32"),
                                              ("f32", "f32", "u8"), ("boolean", "boolean", "i32")])  # fmt: skip
def test_types_match_openvino(ta: str, tb: str, to: str) -> None:
    params = [o16.parameter([6, 4], getattr(ov.Type, ta)), o16.parameter([3, 5, 4], getattr(ov.Type, tb)),
              o16.parameter([3], getattr(ov.Type, to))]  # fmt: skip
    try:
        theirs = o17.grouped_matmul(*params).get_output_element_type(0).to_string()
    except RuntimeError:
        theirs = "refused"
    infos = [
        TensorInfo(ElementType.from_name(t), PartialShape.parse(s))
        for t, s in ((ta, "6,4"), (tb, "3,5,4"), (to, "3"))
    ]
    try:
        ours = str(infer_grouped_matmul(NoAttrs(), infos)[0].element_type)
    except ValidationError:
        ours = "refused"
    assert ours == theirs
