"""SearchSorted-15 against OpenVINO: values against the CPU plugin (its core op has no
``evaluate``; positions are exact), and against NumPy's ``searchsorted``; shapes, types and
messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(15)

CASES = [
    pytest.param((8,), (5,), id="1d-1d"),
    pytest.param((8,), (2, 3), id="1d-2d"),
    pytest.param((8,), (), id="1d-scalar"),
    pytest.param((3, 6), (3, 4), id="rows"),
    pytest.param((2, 2, 5), (2, 2, 7), id="3d"),
    pytest.param((1,), (4,), id="one-element"),
]


def _data(seq_shape, val_shape, dtype):  # type: ignore[no-untyped-def]
    seq = np.sort(RNG.integers(-5, 5, seq_shape), axis=-1).astype(dtype)  # repeats: ties on both sides
    values = RNG.integers(-7, 7, val_shape).astype(dtype)
    return seq, values


@pytest.mark.parametrize(
    "dtype", [np.float32, np.int32, np.int64, np.float16], ids=["f32", "i32", "i64", "f16"]
)
@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
@pytest.mark.parametrize(("seq_shape", "val_shape"), CASES)
def test_search_sorted_matches_cpu(tmp_path, seq_shape, val_shape, right, dtype):  # type: ignore[no-untyped-def]
    seq, values = _data(seq_shape, val_shape, dtype)
    node, params = build(lambda a, b: o15.search_sorted(a, b, right), [P(seq), P(values)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([seq, values]).values()
    assert_same(ours, cpu_outputs(node, params, [seq, values])[0].astype(ours.dtype))
    rows_s, rows_v = (
        seq.reshape(-1, seq.shape[-1]),
        values.reshape(-1, values.shape[-1] if values.ndim else 1),
    )
    side = "right" if right else "left"
    if seq.ndim == 1:
        expected = np.searchsorted(seq, values, side=side)
    else:
        expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_s, rows_v, strict=True)])
    np.testing.assert_array_equal(ours.reshape(-1), np.asarray(expected).reshape(-1))


SHAPES = [
    ("8", "5"),
    ("8", ""),
    ("3,8", "3,5"),
    ("3,8", "4,5"),
    ("3,8", "5"),
    ("", "5"),
    ("3,8", ""),
    ("?,8", "3,?"),
    ("2..5,8", "3..9,2"),
    ("3,8", "..."),
    ("...", "3,2"),
    ("...", "..."),
]


@pytest.mark.parametrize("types", [("f32", "f32"), ("i32", "f32")])
@pytest.mark.parametrize(("seq", "values"), SHAPES)
def test_search_sorted_inference_matches_openvino(seq, values, types):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.search_sorted import SearchSortedAttrs, infer_search_sorted
    from ovonehot.types import ElementType, PartialShape

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    try:
        node = o15.search_sorted(
            o15.parameter(ps(seq), getattr(ov.Type, types[0])),
            o15.parameter(ps(values), getattr(ov.Type, types[1])),
        )
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [
        TensorInfo(ElementType.from_name(t), PartialShape.parse(s))
        for s, t in zip((seq, values), types, strict=True)
    ]
    try:
        (out,) = infer_search_sorted(SearchSortedAttrs(), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs


@pytest.mark.parametrize("right", [False, True], ids=["left", "right"])
def test_nan_values_land_first(tmp_path, right):  # type: ignore[no-untyped-def]
    """lower_bound's comparisons with a NaN are all false: position 0 (NumPy says N)."""
    seq = np.array([1.0, 2.0, 3.0], np.float32)
    values = np.array([np.nan, 2.0, np.inf, -np.inf], np.float32)
    node, params = build(lambda a, b: o15.search_sorted(a, b, right), [P(seq), P(values)])
    (ours,) = export(tmp_path, node, params).run([seq, values]).values()
    assert ours[0] == 0
    assert_same(ours, cpu_outputs(node, params, [seq, values])[0].astype(ours.dtype))
