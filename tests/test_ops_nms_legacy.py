"""NonMaxSuppression-1/-3/-4 against OpenVINO.

The core ops have no ``evaluate``.  The CPU plugin (deterministic config) returns every
selection in NMS-9's order and ignores the static ``[K, 3]`` shape OpenVINO infers (pinned in
``test_cpu_plugin_ignores_the_static_shape``); ovonehot writes the selections into K rows as
the spec says (the rest -1, the surplus of v1/v3 dropped), so its rows are compared with the
CPU plugin's first rows bit for bit, its -1 padding and K checked, and K against OpenVINO's
inference.  Boxes overlap (suppressions), scores straddle the threshold.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
OPSETS = {
    1: pytest.importorskip("openvino.opset1"),
    3: pytest.importorskip("openvino.opset3"),
    4: pytest.importorskip("openvino.opset4"),
}

RNG = np.random.default_rng(4)


def _boxes(batches: int, n: int) -> np.ndarray:
    corner = RNG.random((batches, n, 2)) * 4
    return np.concatenate([corner, corner + 1 + RNG.random((batches, n, 2))], axis=2).astype(np.float32)


CASES = [
    pytest.param(1, 1, 6, 3, id="one-batch-one-class"),
    pytest.param(2, 3, 6, 3, id="two-batches-three-classes"),
    pytest.param(2, 2, 8, 1, id="one-per-class"),
    pytest.param(1, 2, 5, 10, id="max-above-boxes"),
    pytest.param(3, 1, 7, 0, id="max-zero"),
]


@pytest.mark.parametrize("sort", [True, False], ids=["sorted", "grouped"])
@pytest.mark.parametrize("version", [1, 3, 4])
@pytest.mark.parametrize(("batches", "classes", "n", "max_out"), CASES)
def test_nms_legacy_against_cpu(tmp_path, batches, classes, n, max_out, version, sort):  # type: ignore[no-untyped-def]
    ops = OPSETS[version]
    boxes, scores = _boxes(batches, n), RNG.random((batches, classes, n)).astype(np.float32)
    thresholds = [C(np.int64(max_out)), C(np.float32(0.3)), C(np.float32(0.2))]
    node, params = build(
        lambda *a: ops.non_max_suppression(*a, sort_result_descending=sort),
        [P(boxes), P(scores), *thresholds],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([boxes, scores]).values()
    theirs = cpu_outputs(node, params, [boxes, scores])[0]
    k = min(n, max_out) * batches * classes if version == 4 else min(n, max_out * classes)
    assert ours.shape == (k, 3)
    kept = min(k, theirs.shape[0])
    np.testing.assert_array_equal(ours[:kept], theirs[:kept])
    assert (ours[kept:] == -1).all()


def test_cpu_plugin_ignores_the_static_shape(tmp_path):  # type: ignore[no-untyped-def]
    """A deviation pinned: OpenVINO infers [6, 3] for NMS-3 over 2 batches x 3 classes of 6 boxes
    with at most 3 per class; its CPU plugin returns all 18 selections."""
    ops = OPSETS[3]
    boxes, scores = _boxes(2, 6) * 10, RNG.random((2, 3, 6)).astype(np.float32)  # far apart: all kept
    node, params = build(
        ops.non_max_suppression, [P(boxes), P(scores), C(np.int64(3)), C(np.float32(0.5)), C(np.float32(0.0))]
    )
    assert str(node.get_output_partial_shape(0)) == "[6,3]"
    (ours,) = export(tmp_path, node, params).run([boxes, scores]).values()
    theirs = cpu_outputs(node, params, [boxes, scores])[0]
    assert ours.shape == (6, 3) and theirs.shape[0] > 6
    np.testing.assert_array_equal(ours, theirs[:6])


def test_padding_with_minus_one(tmp_path):  # type: ignore[no-untyped-def]
    """Fewer selections than K rows: the rest is -1 (the spec)."""
    ops = OPSETS[4]
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]]], np.float32)  # identical: one survives
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    node, params = build(
        ops.non_max_suppression, [P(boxes), P(scores), C(np.int64(3)), C(np.float32(0.5)), C(np.float32(0.0))]
    )
    (ours,) = export(tmp_path, node, params).run([boxes, scores]).values()
    assert ours.tolist() == [[0, 0, 0], [-1, -1, -1], [-1, -1, -1]]


SHAPES = [
    ("1,6,4", "1,1,6", 3),
    ("2,6,4", "2,3,6", 3),
    ("?,6,4", "?,1,6", 3),
    ("2,?,4", "2,3,?", 3),
    ("...", "...", 3),
    ("2,6,4", "...", 3),
    ("2..4,6,4", "2..4,3,6", 2),
    ("1,6,4", "1,1,6", -3),
    ("1,6,4", "1,1,6", None),
    ("1,6,4", "2,1,6", 3),
    ("1,6,5", "1,1,6", 3),
    ("1,6", "1,1,6", 3),
    ("1,6,4", "1,1,7", 3),
]


@pytest.mark.parametrize("version", [1, 3, 4])
@pytest.mark.parametrize(("boxes", "scores", "max_out"), SHAPES)
def test_nms_legacy_inference_matches_openvino(boxes, scores, max_out, version):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.nms_legacy import LegacyNMSAttrs, infer_legacy_nms
    from ovonehot.types import ElementType, PartialShape

    ops = OPSETS[version]

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    if max_out is None:
        max_node = ops.parameter([], ov.Type.i64)
        max_info = TensorInfo(ElementType.i64, PartialShape.parse(""))
    else:
        max_node = ops.constant(np.int64(max_out))
        max_info = TensorInfo(ElementType.i64, PartialShape.parse(""), value=np.array(max_out, np.int64))
    try:
        node = ops.non_max_suppression(
            ops.parameter(ps(boxes), ov.Type.f32), ops.parameter(ps(scores), ov.Type.f32), max_node
        )
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in (boxes, scores)] + [max_info]
    infos += [TensorInfo(ElementType.f32, PartialShape.parse(""), value=np.array(0, np.float32))] * 2
    try:
        (out,) = infer_legacy_nms(LegacyNMSAttrs(version), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
