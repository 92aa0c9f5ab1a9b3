"""SparseFillEmptyRows-16 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot (inferred shapes
compared with OpenVINO's, Constant inputs included), runs it and compares the three outputs with
the CPU plugin's bit for bit (the values are copies).  Indices stay inside the dense shape: the
plugin corrupts its heap on one outside (ovonehot refuses it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import C, In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes, to_tensor

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import sparse_fill_empty_rows as sf
from ovonehot.ops.common.attrs import NoAttrs
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops16 = pytest.importorskip("openvino.opset16")

# The spec's example (rows 1 and 4 empty), given out of order, a duplicate position among them.
INDICES = np.array([[3, 1], [0, 3], [0, 1], [2, 0], [3, 1]], np.int64)
VALUES = np.array([1.5, -2.0, 3.25, np.nan, -0.0], np.float32)
DENSE = np.array([5, 6], np.int64)


def compare_cpu(tmp_path: Path, inputs: list[In]) -> list[np.ndarray]:
    node, params = build(lambda *a: ops16.sparse_fill_empty_rows(*a), inputs)
    feeds = [i.array for i in inputs if not i.const]
    # (a 0-d bf16 array reaches the plugin as f16: hand bf16 over as an OpenVINO tensor)
    theirs = cpu_outputs(node, params, [to_tensor(f) if f.dtype == ml_dtypes.bfloat16 else f for f in feeds])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    if ours[1].dtype == ml_dtypes.bfloat16:  # (the plugin's bf16 comes back as f16-typed raw bits)
        theirs[1] = theirs[1].view(ml_dtypes.bfloat16)
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert_same(a, b, where=f"output {k}")
    return ours


VALUE_TYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.int32, np.int8, np.uint8, np.int64]


@pytest.mark.parametrize("dtype", VALUE_TYPES, ids=lambda t: np.dtype(t).name)
def test_value_types(tmp_path, dtype):  # type: ignore[no-untyped-def]
    values = VALUES if np.dtype(dtype).kind == "f" else np.array([1, 2, 3, 4, 5])
    inputs = [P(values.astype(dtype)), P(DENSE), P(INDICES), P(np.array(7, dtype))]
    ours = compare_cpu(tmp_path, inputs)
    assert ours[2].tolist() == [False, True, False, False, True]


@pytest.mark.parametrize("index_type", [np.int32, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("const", [False, True], ids=["params", "constants"])
def test_index_types_and_constants(tmp_path, index_type, const):  # type: ignore[no-untyped-def]
    """With Constant dense_shape and indices both infer the output sizes (7 entries, 5 rows)."""
    make = C if const else P
    inputs = [P(VALUES), make(DENSE.astype(index_type)), make(INDICES.astype(index_type)), P(np.float32(0))]
    compare_cpu(tmp_path, inputs)


CASES = [
    pytest.param(np.zeros((0, 2), np.int64), [4, 3], id="no-entries"),
    pytest.param(np.array([[0, 0], [1, 2], [2, 1]]), [3, 3], id="no-empty-row"),
    pytest.param(np.array([[2, 2]]), [3, 3], id="last-cell"),
    pytest.param(np.zeros((0, 2), np.int64), [0, 3], id="no-rows"),
    pytest.param(np.array([[1, 0], [1, 0]]), [4, 1], id="one-column-duplicates"),
]


@pytest.mark.parametrize(("indices", "dense"), CASES)
def test_edges(tmp_path, indices, dense):  # type: ignore[no-untyped-def]
    values = np.arange(len(indices), dtype=np.float32) + 1
    compare_cpu(
        tmp_path, [P(values), P(np.array(dense, np.int64)), P(indices.astype(np.int64)), P(np.float32(-1))]
    )


def test_default_of_another_type_is_converted(tmp_path):  # type: ignore[no-untyped-def]
    """OpenVINO does not check the default value's type; the CPU plugin converts it."""
    compare_cpu(tmp_path, [P(VALUES), P(DENSE), P(INDICES), P(np.int32(9))])


def test_dense_shape_from_a_shape_of(tmp_path):  # type: ignore[no-untyped-def]
    """A dense shape OpenVINO can compute (ShapeOf of a static input) sizes the indicator."""
    ops = pytest.importorskip("openvino.opset15")

    def factory(values, x, indices, default):  # type: ignore[no-untyped-def]
        return ops16.sparse_fill_empty_rows(values, ops.shape_of(x, "i64"), indices, default)

    z = np.zeros((), np.float32)
    inputs = [P(z, shape="4"), P(z, shape="5,6"), P(np.int64(0), shape="4,2"), P(z, shape="")]
    ours, theirs = infer_shapes(tmp_path, factory, inputs)
    assert ours == theirs


INFER = [
    pytest.param("?", "2", "?,2", "", id="dynamic"),
    pytest.param("...", "...", "...", "...", id="dynamic-ranks"),
    pytest.param("4", "2", "4,2", "", id="static-unknown-values"),
    pytest.param("3..5", "?", "?,?", "", id="intervals"),
]


@pytest.mark.parametrize(("values", "dense", "indices", "default"), INFER)
def test_inference_agrees(tmp_path, values, dense, indices, default):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    inputs = [
        P(z, shape=values),
        P(np.int64(0), shape=dense),
        P(np.int64(0), shape=indices),
        P(z, shape=default),
    ]
    ours, theirs = infer_shapes(tmp_path, lambda *a: ops16.sparse_fill_empty_rows(*a), inputs)
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.i64, value: object = None) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape), value=None if value is None else np.asarray(value))


def _four(
    values: str = "[4]", dense: str = "[2]", indices: str = "[4,2]", default: str = "[]", **kw: Any
) -> list[TensorInfo]:
    return [
        _info(values, ElementType.f32),
        _info(dense, kw.get("dense_type", ElementType.i64), kw.get("dense_value")),
        _info(indices, kw.get("index_type", ElementType.i64), kw.get("index_value")),
        _info(default, ElementType.f32),
    ]


REFUSALS = [
    pytest.param(_four(values="[4,1]"), "values input must be a 1D", id="values-rank"),
    pytest.param(_four(dense="[3]"), "exactly 2 elements", id="dense-size"),
    pytest.param(_four(indices="[3,2]"), "first dimension matching", id="indices-count"),
    pytest.param(_four(indices="[4,3]"), "2 elements", id="indices-width"),
    pytest.param(_four(default="[1]"), "scalar", id="default-rank"),
    pytest.param(_four(index_type=ElementType.i32), "must match", id="mixed-index-types"),
    pytest.param(_four(dense_type=ElementType.u8, index_type=ElementType.u8), "i32 or i64", id="u8"),
    pytest.param(
        _four(dense_value=[3, 3], index_value=[[0, 0], [1, 1], [3, 0], [2, 2]]), "row 3 is outside", id="row"
    ),
    pytest.param(
        _four(dense_value=[3, 3], index_value=[[0, 0], [1, -1], [2, 0], [2, 2]]),
        "column -1 is outside",
        id="col",
    ),
]


@pytest.mark.parametrize(("inputs", "match"), REFUSALS)
def test_refusals(inputs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        sf.infer_sparse_fill_empty_rows(NoAttrs(), inputs)


@pytest.mark.parametrize("bad", [[5, 0], [0, 6], [-1, 0]], ids=["row", "column", "negative"])
def test_index_outside_refused_at_run_time(bad):  # type: ignore[no-untyped-def]
    indices = np.concatenate([INDICES[:4], [bad]])
    with pytest.raises(InputError, match="outside the dense shape"):
        sf.evaluate_sparse_fill_empty_rows(NoAttrs(), [VALUES, DENSE, indices, np.float32(0)])


def test_huge_dense_shape_refused():  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="empty_row_indicator"):
        sf.evaluate_sparse_fill_empty_rows(NoAttrs(), [VALUES, np.array([2**45, 6]), INDICES, np.float32(0)])
