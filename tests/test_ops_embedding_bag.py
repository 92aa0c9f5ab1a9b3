"""EmbeddingBagOffsets-15/-Sum-3, EmbeddingBagPacked-15/-Sum-3 and EmbeddingSegmentsSum-3 against OpenVINO.

The core ops have no ``evaluate``; the CPU plugin (deterministic config) sums each bag's rows in
index order as the reference does, so values must match it bit for bit (f32, f16 via f32, i32,
i8, u8 tables; i32 and i64 indices; empty bags with and without a default row; weights; sum and
mean).  Shapes, types and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")
o3 = pytest.importorskip("openvino.opset3")

RNG = np.random.default_rng(15)
TABLE_TYPES = [np.float32, np.float16, np.int32, np.int8, np.uint8]


def _table(shape, dtype):  # type: ignore[no-untyped-def]
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    return RNG.integers(0, 20, shape).astype(dtype)


def _run(tmp_path, factory, inputs):  # type: ignore[no-untyped-def]
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    (ours,) = model.run(feeds).values()
    assert_same(ours, cpu_outputs(node, params, feeds)[0])


OFFSET_CASES = [
    pytest.param([0, 2, 5], None, id="three-bags"),
    pytest.param([0, 3, 3, 6], None, id="empty-middle-bag"),
    pytest.param([0, 3, 3, 6], 4, id="empty-bag-default-4"),
    pytest.param([0, 0, 3, 6], -1, id="empty-first-bag-default-neg"),
    pytest.param([0], 2, id="one-bag"),
]


# Every case with f32 and i32 indices; every table type and i64 indices on the richest case.
OFFSET_MATRIX = [
    pytest.param(*case.values, np.float32, np.int32, id=f"{case.id}-f32-i32") for case in OFFSET_CASES
] + [
    pytest.param(
        [0, 3, 3, 6], 4, dtype, index_type, id=f"default-{np.dtype(dtype).name}-{np.dtype(index_type).name}"
    )
    for dtype, index_type in zip(TABLE_TYPES, [np.int64, np.int32, np.int64, np.int32, np.int64], strict=True)
]


@pytest.mark.parametrize(("offsets", "default", "dtype", "index_type"), OFFSET_MATRIX)
@pytest.mark.parametrize("version", ["v3", "v15-sum", "v15-mean"])
def test_offsets_match_cpu(tmp_path, version, offsets, default, dtype, index_type):  # type: ignore[no-untyped-def]
    table = _table((8, 3), dtype)
    indices = RNG.integers(0, 8, 7).astype(index_type)
    inputs = [P(table), P(indices), P(np.array(offsets, index_type))]
    if default is not None:
        inputs.append(C(np.array(default, index_type)))

    def factory(*a):  # type: ignore[no-untyped-def]
        if version == "v3":
            return o3.embedding_bag_offsets_sum(*a)
        return o15.embedding_bag_offsets(*a, reduction=version.split("-")[1])

    _run(tmp_path, factory, inputs)


@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["f32", "i32"])
@pytest.mark.parametrize("version", ["v3", "v15"])
def test_offsets_weighted_match_cpu(tmp_path, version, dtype):  # type: ignore[no-untyped-def]
    table = _table((6, 2, 2), dtype)
    indices = np.array([5, 0, 1, 1, 3, 2], np.int64)
    weights = _table((6,), dtype)
    inputs = [P(table), P(indices), P(np.array([0, 2, 2, 4], np.int64)), C(np.array(1, np.int64)), P(weights)]
    factory = o3.embedding_bag_offsets_sum if version == "v3" else o15.embedding_bag_offsets
    _run(tmp_path, factory, inputs)


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.uint8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("version", ["v3", "v15-sum", "v15-mean"])
def test_packed_match_cpu(tmp_path, version, dtype, weighted):  # type: ignore[no-untyped-def]
    if weighted and version == "v15-mean":
        pytest.skip("per_sample_weights are refused with reduction=mean (checked in the inference test)")
    table = _table((7, 4), dtype)
    indices = RNG.integers(0, 7, (3, 4)).astype(np.int32)
    inputs = [P(table), P(indices)] + ([P(_table((3, 4), dtype))] if weighted else [])

    def factory(*a):  # type: ignore[no-untyped-def]
        if version == "v3":
            return o3.embedding_bag_packed_sum(*a)
        return o15.embedding_bag_packed(*a, reduction=version.split("-")[1])

    _run(tmp_path, factory, inputs)


SEGMENT_CASES = [
    pytest.param([0, 0, 1, 2, 2, 2], 3, None, id="all-filled"),
    pytest.param([0, 0, 2, 2, 4, 4], 6, None, id="empty-segments"),
    pytest.param([0, 0, 2, 2, 4, 4], 6, 3, id="empty-segments-default"),
    pytest.param([1, 1, 1, 3, 3, 3], 5, 0, id="empty-first-and-last"),
]


@pytest.mark.parametrize("weighted", [False, True], ids=["plain", "weighted"])
@pytest.mark.parametrize("dtype", [np.float16, np.int8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("segment_ids", "count", "default"), SEGMENT_CASES)
def test_segments_match_cpu(tmp_path, segment_ids, count, default, dtype, weighted):  # type: ignore[no-untyped-def]
    if weighted and default is None:  # the Python API takes per_sample_weights only after default_index;
        default = 1  # a negative one makes the CPU plugin read before the table (ovonehot: zeros)
    table = _table((6, 3), dtype)
    indices = RNG.integers(0, 6, 6).astype(np.int64)
    inputs = [P(table), P(indices), P(np.array(segment_ids, np.int64)), C(np.array(count, np.int64))]
    if default is not None:
        inputs.append(C(np.array(default, np.int64)))
    if weighted:
        inputs.append(P(_table((6,), dtype)))
    _run(tmp_path, o3.embedding_segments_sum, inputs)


def test_unsorted_segment_ids_follow_the_reference(tmp_path):  # type: ignore[no-untyped-def]
    """The spec asks for sorted ids; the reference sums each segment's rows wherever they are,
    the CPU plugin sums a contiguous run from the first (a deviation pinned here)."""
    table = _table((6, 3), np.float64)
    indices, ids = np.array([0, 1, 2, 3, 4, 5], np.int64), np.array([1, 0, 1, 0, 2, 1], np.int64)
    inputs = [P(table), P(indices), P(ids), C(np.array(3, np.int64))]
    node, params = build(o3.embedding_segments_sum, inputs)
    (ours,) = export(tmp_path, node, params).run([table, indices, ids]).values()
    expected = [table[[1, 3]].sum(axis=0), table[[0, 2, 5]].sum(axis=0), table[4]]
    np.testing.assert_allclose(ours, expected, rtol=1e-15)
    cpu = cpu_outputs(node, params, [table.astype(np.float32), indices, ids])[0]
    assert not np.allclose(cpu, expected, rtol=1e-5)


def test_offsets_against_numpy_oracle(tmp_path):  # type: ignore[no-untyped-def]
    """PyTorch's embedding_bag meaning, independently of OpenVINO: mean of the picked rows."""
    table = _table((8, 3), np.float64)
    indices = np.array([1, 2, 4, 5, 4, 3, 2, 9 % 8], np.int64)
    offsets = np.array([0, 3, 5], np.int64)
    node, params = build(
        lambda *a: o15.embedding_bag_offsets(*a, reduction="mean"), [P(table), P(indices), P(offsets)]
    )
    (ours,) = export(tmp_path, node, params).run([table, indices, offsets]).values()
    bags = [indices[0:3], indices[3:5], indices[5:]]
    np.testing.assert_allclose(ours, [table[b].mean(axis=0) for b in bags], rtol=1e-15)


def test_out_of_range_index_is_an_error(tmp_path):  # type: ignore[no-untyped-def]
    from ovonehot.errors import InputError

    table = _table((4, 2), np.float32)
    indices, offsets = np.array([1, 4], np.int32), np.array([0], np.int32)
    node, params = build(o3.embedding_bag_offsets_sum, [P(table), P(indices), P(offsets)])
    with pytest.raises(InputError, match="indices must lie in"):
        export(tmp_path, node, params).run([table, indices, offsets])


# -- inference ----------------------------------------------------------------------------------
def _infer(factory, shapes_types):  # type: ignore[no-untyped-def]
    params = [
        o15.parameter(
            ov.PartialShape(f"[{s}]") if s != "..." else ov.PartialShape.dynamic(), getattr(ov.Type, t)
        )
        for s, t in shapes_types
    ]
    try:
        node = factory(*params)
        return f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        return "error: " + str(exc).strip().splitlines()[-1].strip()


def _ours(spec_name, shapes_types, version):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops import lookup
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.embedding_bag import BagKind, EmbeddingBagAttrs, Reduction
    from ovonehot.types import ElementType, PartialShape

    spec = lookup(spec_name, version)
    assert spec is not None
    kind = {"Offsets": BagKind.OFFSETS, "Packed": BagKind.PACKED, "Segment": BagKind.SEGMENTS}
    attrs = EmbeddingBagAttrs(next(v for k, v in kind.items() if k in spec_name), Reduction.SUM)
    infos = [TensorInfo(ElementType.from_name(t), PartialShape.parse(s)) for s, t in shapes_types]
    try:
        (out,) = spec.infer(attrs, infos)
    except ValidationError as exc:
        return f"error: {exc}"
    return f"{out.element_type}{out.shape}"


OFFSETS_SHAPES = [
    [("8,3", "f32"), ("7", "i32"), ("3", "i32")],
    [("?,2,3", "f16"), ("?", "i64"), ("?", "i64"), ("", "i64")],
    [("...", "f32"), ("7", "i64"), ("2..4", "i64")],
    [("8,3", "f32"), ("7", "i64"), ("...", "i64"), ("", "i64"), ("7", "f32")],
    [("8,3", "f32"), ("7", "i32"), ("3", "i64")],
    [("8,3", "f32"), ("7", "f32"), ("3", "f32")],
    [("8,3", "f32"), ("7,1", "i32"), ("3", "i32")],
    [("8,3", "f32"), ("7", "i32"), ("3", "i32"), ("1", "i32")],
    [("8,3", "f32"), ("7", "i32"), ("3", "i32"), ("", "i32"), ("6", "f32")],
    [("8,3", "f32"), ("7", "i32"), ("3", "i32"), ("", "i32"), ("7", "f16")],
    [("", "f32"), ("7", "i32"), ("3", "i32")],
]


@pytest.mark.parametrize("version", ["v3", "v15"])
@pytest.mark.parametrize("shapes", OFFSETS_SHAPES, ids=lambda s: "|".join(f"{a}:{b}" for a, b in s))
def test_offsets_inference_matches_openvino(version, shapes):  # type: ignore[no-untyped-def]
    factory = o3.embedding_bag_offsets_sum if version == "v3" else o15.embedding_bag_offsets
    name, opset = (
        ("EmbeddingBagOffsetsSum", "opset3") if version == "v3" else ("EmbeddingBagOffsets", "opset15")
    )
    assert _ours(name, shapes, opset) == _infer(factory, shapes)


PACKED_SHAPES = [
    [("8,3", "f32"), ("2,4", "i32")],
    [("...", "f32"), ("?,4", "i64"), ("?,4", "f32")],
    [("8,3", "f32"), ("2,4", "i32"), ("2,3", "f32")],
    [("8,3", "f32"), ("4", "i32")],
    [("8,3", "f32"), ("2,4", "u8")],
    [("8,?", "bf16"), ("2..5,4", "i64")],
]


@pytest.mark.parametrize("version", ["v3", "v15"])
@pytest.mark.parametrize("shapes", PACKED_SHAPES, ids=lambda s: "|".join(f"{a}:{b}" for a, b in s))
def test_packed_inference_matches_openvino(version, shapes):  # type: ignore[no-untyped-def]
    factory = o3.embedding_bag_packed_sum if version == "v3" else o15.embedding_bag_packed
    name, opset = (
        ("EmbeddingBagPackedSum", "opset3") if version == "v3" else ("EmbeddingBagPacked", "opset15")
    )
    assert _ours(name, shapes, opset) == _infer(factory, shapes)


def test_mean_with_weights_is_refused() -> None:
    shapes = [("8,3", "f32"), ("2,4", "i32"), ("2,4", "f32")]
    theirs = _infer(lambda *a: o15.embedding_bag_packed(*a, reduction="mean"), shapes)
    assert theirs.startswith("error")
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.embedding_bag import BagKind, EmbeddingBagAttrs, Reduction, infer_packed
    from ovonehot.types import ElementType, PartialShape

    infos = [TensorInfo(ElementType.from_name(t), PartialShape.parse(s)) for s, t in shapes]
    with pytest.raises(ValidationError) as exc:
        infer_packed(EmbeddingBagAttrs(BagKind.PACKED, Reduction.MEAN), infos)
    assert str(exc.value) in theirs


SEGMENT_SHAPES = [
    [("8,3", "f32"), ("6", "i32"), ("6", "i32"), ("", "i32")],
    [("8,3", "f32"), ("6", "i64"), ("?", "i64"), ("", "i64"), ("", "i64"), ("6", "f32")],
    [("8,3", "f32"), ("6", "i32"), ("5", "i32"), ("", "i32")],
    [("8,3", "f32"), ("6", "i32"), ("6", "i64"), ("", "i32")],
    [("8,3", "f32"), ("6", "i32"), ("6", "i32"), ("1", "i32")],
    [("...", "f32"), ("6", "i32"), ("6", "i32"), ("", "i32")],
]


@pytest.mark.parametrize("shapes", SEGMENT_SHAPES, ids=lambda s: "|".join(f"{a}:{b}" for a, b in s))
def test_segments_inference_matches_openvino(shapes):  # type: ignore[no-untyped-def]
    assert _ours("EmbeddingSegmentsSum", shapes, "opset3") == _infer(o3.embedding_segments_sum, shapes)


def test_segments_count_from_a_constant(tmp_path):  # type: ignore[no-untyped-def]
    table, indices, ids = _table((8, 3), np.float32), np.array([1, 2], np.int32), np.array([0, 3], np.int32)
    node, params = build(o3.embedding_segments_sum, [P(table), P(indices), P(ids), C(np.array(5, np.int32))])
    assert_inferred(export(tmp_path, node, params), node)
