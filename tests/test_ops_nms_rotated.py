"""NMSRotated-13 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot (inferred shapes
compared with OpenVINO's), runs it and compares the three outputs with the CPU plugin's, exactly
(hard NMS: the scores are copies).  Box data keeps IoUs away from the threshold (ovonehot
computes the intersection polygon in f64, OpenVINO in f32) and scores away from the score
threshold, except where a test is about that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovref import C, In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import nms_rotated as nr
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops13 = pytest.importorskip("openvino.opset13")

# x, y, w, h, angle: two images, six boxes: a box and its copy turned by 0.3 and by pi/4 (IoU
# 0.76 and 0.71), a long thin box crossing them, a disjoint pair, a zero-width box.
BOXES = np.array(
    [
        [
            [0, 0, 2, 2, 0],
            [0, 0, 2, 2, 0.3],
            [0, 0, 2, 2, 0.785398],
            [0.5, 0, 4, 0.5, -0.4],
            [9, 9, 1, 2, 1.2],
            [20, 0, 0, 3, 0],
        ],
        [
            [0, 0, 4, 2, 0.1],
            [1, 0, 4, 2, 0.2],
            [6, 6, 3, 3, 2.0],
            [6.5, 6, 3, 3, 2.5],
            [-5, -5, 1, 1, 0],
            [0, 0, 8, 8, 0],
        ],
    ],
    np.float32,
)
SCORES = np.array(
    [
        [[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.8, 0.85, 0.2, 0.7, 0.99]],
        [[0.5, 0.55, 0.8, 0.7, 0.0, 0.4], [0.3, 0.9, 0.35, 0.6, 0.65, 0.05]],
    ],
    np.float32,
)


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In]) -> list[np.ndarray]:
    """ovonehot (through saved IR) vs the CPU plugin; returns ovonehot's.  When nothing is selected
    the plugin leaves ``valid_outputs`` unwritten (as for NonMaxSuppression): ovonehot's must be 0."""
    node, params = build(factory, inputs)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    compared = 2 if theirs[0].shape[0] == 0 else 3
    for k in range(compared):
        assert_same(ours[k], theirs[k], where=f"output {k}")
    return ours


def _nr(**attrs: Any) -> Any:
    return lambda *args: ops13.nms_rotated(*args, **attrs)


CASES = [
    pytest.param(10, 0.5, 0.04, {}, id="basic"),
    pytest.param(10, 0.5, 0.04, {"sort_result_descending": False}, id="unsorted"),
    pytest.param(10, 0.5, 0.04, {"clockwise": False}, id="counterclockwise"),
    pytest.param(2, 0.3, 0.05, {"output_type": "i32"}, id="two-per-class-i32"),
    pytest.param(10, 0.8, 0.45, {}, id="high-iou"),
    pytest.param(10, 0.1, 0.05, {"clockwise": False, "sort_result_descending": False}, id="low-iou"),
    pytest.param(0, 0.5, 0.05, {}, id="none-per-class"),
    pytest.param(10, 0.5, 1.5, {}, id="nothing-above-threshold"),
]


@pytest.mark.parametrize(("max_out", "iou", "score", "attrs"), CASES)
def test_matches_cpu_plugin(tmp_path, max_out, iou, score, attrs):  # type: ignore[no-untyped-def]
    inputs = [P(BOXES), P(SCORES), C(np.int64(max_out)), C(np.float32(iou)), C(np.float32(score))]
    ours = compare_cpu(tmp_path, _nr(**attrs), inputs)
    assert ours[2][0] == ours[0].shape[0]


def test_inputs_from_parameters_and_one_element_tensors(tmp_path):  # type: ignore[no-untyped-def]
    inputs = [
        P(BOXES),
        P(SCORES),
        P(np.array([3], np.int32)),
        P(np.array([0.4], np.float32)),
        P(np.float32(0.04)),
    ]
    compare_cpu(tmp_path, _nr(), inputs)


def test_half_precision(tmp_path):  # type: ignore[no-untyped-def]
    inputs = [P(BOXES.astype(np.float16)), P(SCORES.astype(np.float16)), C(np.int64(4))]
    inputs += [C(np.float16(0.5)), C(np.float16(0.04))]
    compare_cpu(tmp_path, _nr(), inputs)


def test_random_boxes(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    boxes = np.concatenate(
        [rng.uniform(0, 8, (2, 40, 2)), rng.uniform(0.5, 4, (2, 40, 2)), rng.uniform(-3.2, 3.2, (2, 40, 1))],
        axis=-1,
    ).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 3, 40)).astype(np.float32)
    inputs = [P(boxes), P(scores), C(np.int64(12)), C(np.float32(0.35)), C(np.float32(0.1))]
    compare_cpu(tmp_path, _nr(), inputs)


@pytest.mark.held_for("openvino==2026.4.1")
def test_score_equal_to_the_threshold_is_a_candidate(tmp_path):  # type: ignore[no-untyped-def]
    """The spec takes boxes with ``score >= score_threshold``; the reference and the CPU plugin
    take ``score > score_threshold``."""
    inputs = [P(BOXES), P(SCORES), C(np.int64(10)), C(np.float32(0.5)), C(np.float32(0.5))]
    node, params = build(_nr(sort_result_descending=False), inputs)
    theirs = cpu_outputs(node, params, [BOXES, SCORES])
    ours = list(export(tmp_path, node, params).run([BOXES, SCORES]).values())
    assert [0, 0, 4] in ours[0].tolist()  # (score exactly 0.5, overlapping nothing)
    assert [0, 0, 4] not in theirs[0].tolist()
    assert ours[0].shape[0] == theirs[0].shape[0] + 1


INFER = [
    pytest.param("1,6,5", "1,2,6", 3, id="static"),
    pytest.param("2..3,6,5", "1..3,2,6", 10, id="intervals"),
    pytest.param("1,?,5", "1,2,?", 3, id="dynamic-boxes"),
    pytest.param("1,6,?", "1,2,6", 3, id="dynamic-last"),
    pytest.param("1,6,5", "...", 3, id="scores-dynamic-rank"),
    pytest.param("...", "1,2,6", 3, id="boxes-dynamic-rank"),
    pytest.param("1,6,5", "1,2,6", -2, id="negative-limit"),
    pytest.param("1,6,5", "1,2,6", None, id="unknown-limit"),
]


@pytest.mark.parametrize(("boxes", "scores", "max_out"), INFER)
def test_inference_agrees(tmp_path, boxes, scores, max_out):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    limit = C(np.int64(max_out)) if max_out is not None else P(np.int64(1))
    inputs = [P(z, shape=boxes), P(z, shape=scores), limit, C(np.float32(0.5)), C(np.float32(0))]
    ours, theirs = infer_shapes(tmp_path, _nr(output_type="i32"), inputs)
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.f32) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape))


def _inputs(
    boxes: str = "[1,6,5]",
    scores: str = "[1,2,6]",
    box_type: ElementType = ElementType.f32,
    limit_type: ElementType = ElementType.i64,
    iou_shape: str = "[]",
) -> list[TensorInfo]:
    return [_info(boxes, box_type), _info(scores), _info("[]", limit_type), _info(iou_shape), _info("[]")]


REFUSALS = [
    pytest.param(_inputs(boxes="[1,6,4]"), "equal to 5", id="last-dim"),
    pytest.param(_inputs(boxes="[1,6]"), "3D tensor for the 'boxes'", id="boxes-rank"),
    pytest.param(_inputs(boxes="[2,6,5]"), "first dimension", id="batches"),
    pytest.param(_inputs(scores="[1,2,5]"), "second and third", id="boxes-count"),
    pytest.param(_inputs(box_type=ElementType.i32), "floating point type", id="boxes-type"),
    pytest.param(_inputs(limit_type=ElementType.f32), "integer type", id="limit-type"),
    pytest.param(_inputs(limit_type=ElementType.boolean), "integer type", id="limit-boolean"),
    pytest.param(_inputs(iou_shape="[2]"), "'iou_threshold'", id="iou-shape"),
]


@pytest.mark.parametrize(("inputs", "match"), REFUSALS)
def test_refusals(inputs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        nr.infer_nms_rotated(nr.NMSRotatedAttrs(), inputs)


def test_output_type_refused():  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match="i32 or i64"):
        nr.infer_nms_rotated(nr.NMSRotatedAttrs(output_type=ElementType.f32), _inputs())


@pytest.mark.parametrize("angle", [0.0, 0.3, np.pi / 4, 1.0, 2.5])
def test_intersection_area_against_polygon_clipping(angle):  # type: ignore[no-untyped-def]
    """The intersection polygon's area against an independent float64 oracle: Sutherland-Hodgman
    clipping of one rectangle by the other's four half-planes."""
    one = np.array([0, 0, 2, 1, 0.2], np.float32)
    rng = np.random.default_rng(int(angle * 10))
    many = np.concatenate(
        [rng.uniform(-2, 2, (20, 2)), rng.uniform(0.2, 3, (20, 2)), np.full((20, 1), angle)], axis=1
    ).astype(np.float32)
    ours = nr.intersection_areas(nr.corners(one), nr.corners(many))
    expected = [_clipped_area(nr.corners(one), nr.corners(m)) for m in many]
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-12)


def _clipped_area(subject: np.ndarray, clip: np.ndarray) -> float:
    poly = [tuple(p) for p in subject]
    u, v = clip[1] - clip[0], clip[2] - clip[1]
    orient = np.sign(u[0] * v[1] - u[1] * v[0])
    for i in range(4):
        a, b = clip[i], clip[(i + 1) % 4]

        def side(p: Any, a: Any = a, b: Any = b) -> float:
            return float(orient * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])))

        out = []
        for j, p in enumerate(poly):
            q = poly[(j + 1) % len(poly)]
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
        poly = out
        if not poly:
            return 0.0
    xs, ys = np.array([p[0] for p in poly]), np.array([p[1] for p in poly])
    return float(abs(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))) / 2)
