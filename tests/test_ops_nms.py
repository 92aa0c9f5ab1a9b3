"""NonMaxSuppression-5/-9 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR, loads it with ovonehot (so attribute parsing
and the inferred ``[0..M, 3]`` shapes are compared with OpenVINO's), runs it, and
compares all three outputs with the CPU plugin's, bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import C, In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import nms
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops9 = pytest.importorskip("openvino.opset9")
ops5 = pytest.importorskip("openvino.opset5")

# Two batches, two classes, six boxes: overlapping pairs (IoU 0.82, 0.67), disjoint boxes, a box
# given with its corners swapped, tied scores and a zero score.
BOXES = np.array(
    [
        [
            [0, 0, 1, 1],
            [0, 0.1, 1, 1.1],
            [1, 0.9, 0, -0.1],
            [0, 10, 1, 11],
            [0, 10.1, 1, 11.1],
            [0, 100, 1, 101],
        ],
        [[0, 0, 2, 2], [0, 0.5, 2, 2.5], [5, 5, 6, 6], [5, 5.2, 6, 6.2], [9, 9, 9.5, 9.5], [20, 20, 21, 21]],
    ],
    np.float32,
)
SCORES = np.array(
    [
        [[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.8, 0.85, 0.2, 0.7, 0.99]],
        [[0.5, 0.5, 0.8, 0.7, 0.0, 0.4], [0.3, 0.9, 0.3, 0.6, 0.65, 0.05]],
    ],
    np.float32,
)
# Centre encoding of the same first batch: x, y, w, h.
CENTER = np.stack(
    [
        (BOXES[..., 1] + BOXES[..., 3]) / 2,
        (BOXES[..., 0] + BOXES[..., 2]) / 2,
        BOXES[..., 3] - BOXES[..., 1],
        BOXES[..., 2] - BOXES[..., 0],
    ],
    axis=-1,
).astype(np.float32)


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In], score_ulp: int = 0) -> list[np.ndarray]:
    """ovonehot (through saved IR) vs the CPU plugin on every output; returns ovonehot's.

    ``score_ulp`` allows soft-NMS scores to differ: the plugin's JIT computes the decay with
    its own ``exp`` and multiplies the weights of 4/8/16 selected boxes as a vector, the
    reference (and ovonehot) with ``expf`` one by one.  Measured on 90 random soft-NMS runs
    (up to 30 decays per score): at most 6 ulp, indices always equal; allowed: 8.
    """
    node, params = build(factory, inputs)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert_same(a, b, ulp=score_ulp if k == 1 else 0, where=f"output {k}")
    return ours


SOFT_ULP = 8


def _nms(version: Any, **attrs: Any) -> Any:
    return lambda *args: version.non_max_suppression(*args, **attrs)


NMS_CASES = [
    pytest.param(ops9, 3, 0.5, 0.0, 0.0, {}, id="basic"),
    pytest.param(ops9, 3, 0.5, 0.0, 0.0, {"sort_result_descending": False}, id="unsorted"),
    pytest.param(ops9, 2, 0.5, 0.55, 0.0, {}, id="score-threshold"),
    pytest.param(ops9, 10, 0.7, 0.0, 0.0, {"output_type": "i32"}, id="i32-high-iou"),
    pytest.param(ops9, 1, 0.5, 0.0, 0.0, {}, id="one-per-class"),
    pytest.param(ops9, 6, 1.0, -1.0, 0.0, {}, id="iou-one-keeps-all"),
    pytest.param(ops9, 4, 0.5, 0.0, 0.5, {}, id="soft-nms"),
    pytest.param(ops9, 4, 0.3, 0.35, 1.0, {"sort_result_descending": False}, id="soft-nms-threshold"),
    pytest.param(ops5, 3, 0.5, 0.0, 0.0, {}, id="v5"),
    pytest.param(
        ops5, 3, 0.5, 0.2, 0.0, {"sort_result_descending": False, "output_type": "i32"}, id="v5-unsorted-i32"
    ),
]


@pytest.mark.parametrize(("version", "max_out", "iou", "score", "sigma", "attrs"), NMS_CASES)
def test_matches_cpu_plugin(tmp_path, version, max_out, iou, score, sigma, attrs):  # type: ignore[no-untyped-def]
    inputs = [
        P(BOXES),
        P(SCORES),
        C(np.int64(max_out)),
        C(np.float32(iou)),
        C(np.float32(score)),
        C(np.float32(sigma)),
    ]
    compare_cpu(tmp_path, _nms(version, **attrs), inputs, score_ulp=SOFT_ULP if sigma else 0)


@pytest.mark.held_for("openvino==2026.4.1")
def test_iou_equal_to_the_threshold_keeps_the_box(tmp_path):  # type: ignore[no-untyped-def]
    """The reference suppresses at ``iou > iou_threshold``; the CPU plugin at ``>=`` (its JIT's
    _CMP_GE_OS), so disjoint boxes (IoU 0) with threshold 0 survive in ovonehot, not on the CPU."""
    boxes, scores = BOXES[:1], SCORES[:1, :1]
    inputs = [P(boxes), P(scores), C(np.int64(6)), C(np.float32(0.0)), C(np.float32(0.0))]
    node, params = build(_nms(ops9, sort_result_descending=False), inputs)
    theirs = cpu_outputs(node, params, [boxes, scores])
    ours = list(export(tmp_path, node, params).run([boxes, scores]).values())
    # Reference semantics: 0 and 3 overlap nothing selected before them except each other's pairs.
    assert ours[0][:, 2].tolist() == [3, 0, 5]
    assert theirs[0][:, 2].tolist() == [3]


@pytest.mark.parametrize("limit", [0, -1], ids=["zero", "negative"])
def test_no_boxes_per_class(tmp_path, limit):  # type: ignore[no-untyped-def]
    """max_output_boxes_per_class <= 0 selects nothing.  The CPU plugin then leaves valid_outputs
    unwritten (whatever its buffer held: 134 of 200 runs in one process returned garbage), so
    only the two empty outputs are compared with it."""
    inputs = [P(BOXES), P(SCORES), C(np.int64(limit)), C(np.float32(0.5)), C(np.float32(0.0))]
    node, params = build(_nms(ops9), inputs)
    theirs = cpu_outputs(node, params, [BOXES, SCORES])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([BOXES, SCORES]).values())
    for k in (0, 1):
        assert_same(ours[k], theirs[k], where=f"output {k}")
    assert ours[2].tolist() == [0]


def test_center_encoding(tmp_path):  # type: ignore[no-untyped-def]
    inputs = [P(CENTER), P(SCORES), C(np.int64(3)), C(np.float32(0.5)), C(np.float32(0.0))]
    compare_cpu(tmp_path, _nms(ops9, box_encoding="center"), inputs)


def test_thresholds_from_parameters_and_one_element_tensors(tmp_path):  # type: ignore[no-untyped-def]
    inputs = [
        P(BOXES),
        P(SCORES),
        P(np.array([2], np.int32)),
        P(np.array([0.5], np.float32)),
        P(np.float32(0.1)),
    ]
    compare_cpu(tmp_path, _nms(ops9), inputs)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_half_precision_inputs(tmp_path, dtype):  # type: ignore[no-untyped-def]
    inputs = [
        P(BOXES.astype(dtype)),
        P(SCORES.astype(dtype)),
        C(np.int64(3)),
        C(np.float32(0.5).astype(dtype)),
    ]
    compare_cpu(tmp_path, _nms(ops9), inputs)


def test_random_boxes(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    corner = rng.uniform(0, 10, (2, 40, 2)).astype(np.float32)
    size = rng.uniform(0.5, 4, (2, 40, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + size], axis=-1)[..., [0, 1, 2, 3]]
    scores = rng.uniform(0, 1, (2, 3, 40)).astype(np.float32)
    for sigma in (0.0, 0.4):
        inputs = [
            P(boxes),
            P(scores),
            C(np.int64(15)),
            C(np.float32(0.4)),
            C(np.float32(0.2)),
            C(np.float32(sigma)),
        ]
        compare_cpu(tmp_path, _nms(ops9), inputs, score_ulp=SOFT_ULP if sigma else 0)


def test_more_boxes_than_one_block_of_overlaps(tmp_path):  # type: ignore[no-untyped-def]
    """150 crowded candidates per class (hard NMS computes their overlaps 64 rows at a time), with a
    limit reached and not reached: the CPU plugin's selection, bit for bit."""
    rng = np.random.default_rng(11)
    corner = rng.uniform(0, 12, (1, 150, 2)).astype(np.float32)
    size = rng.uniform(0.5, 3, (1, 150, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + size], axis=-1)
    scores = rng.uniform(0, 1, (1, 2, 150)).astype(np.float32)
    for limit, iou in ((1000, 0.3), (70, 0.6), (5, 0.5)):
        inputs = [P(boxes), P(scores), C(np.int64(limit)), C(np.float32(iou)), C(np.float32(0.05))]
        ours = compare_cpu(tmp_path, _nms(ops9), inputs)
        assert 0 < int(ours[2][0]) <= 2 * limit


# Box 1 overlaps box 0 with IoU exactly 0.5; box 2 overlaps nothing.
EDGE_BOXES = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [5, 5, 6, 6]]], np.float32)
EDGE_SCORES = np.array([[[0.9, 0.8, 0.7]]], np.float32)

EDGE_CASES = [
    # (version, iou_threshold, sigma, ovonehot = reference/spec, CPU plugin)
    pytest.param(ops9, 0.5, 0.0, [0, 1, 2], [0, 2], id="v9-iou-equal-keeps"),
    pytest.param(ops5, 0.5, 0.0, [0, 2], [0, 2], id="v5-iou-equal-suppresses"),
    pytest.param(ops9, 0.4, 0.5, [0, 2, 1], [0, 2, 1], id="v9-soft-decays-above-threshold"),
    pytest.param(ops5, 0.4, 0.5, [0, 2], [0, 2, 1], id="v5-soft-zero-above-threshold"),
]


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize(("version", "iou", "sigma", "ours_expected", "cpu_expected"), EDGE_CASES)
def test_reference_semantics_at_the_threshold(tmp_path, version, iou, sigma, ours_expected, cpu_expected):  # type: ignore[no-untyped-def]
    """The NMS-9 spec keeps ``iou <= iou_threshold`` (its reference suppresses at ``>``), NMS-5's
    reference suppresses at ``>=`` and zeroes the soft weight above the threshold; the CPU plugin
    suppresses at ``>=`` and runs NMS-5 as NMS-9.  Selected box indices, unsorted."""
    inputs = [
        P(EDGE_BOXES),
        P(EDGE_SCORES),
        C(np.int64(3)),
        C(np.float32(iou)),
        C(np.float32(0)),
        C(np.float32(sigma)),
    ]
    node, params = build(_nms(version, sort_result_descending=False), inputs)
    theirs = cpu_outputs(node, params, [EDGE_BOXES, EDGE_SCORES])
    ours = list(export(tmp_path, node, params).run([EDGE_BOXES, EDGE_SCORES]).values())
    assert ours[0][:, 2].tolist() == ours_expected
    assert theirs[0][:, 2].tolist() == cpu_expected


NMS_INFER = [
    pytest.param("1,6,4", "1,2,6", 3, id="static"),
    pytest.param("2,6,4", "2,3,6", 10, id="max-above-boxes"),
    pytest.param("1..3,6,4", "1..3,2,6", 3, id="interval-batch"),
    pytest.param("1,2..5,4", "1,2,2..5", 3, id="interval-boxes"),
    pytest.param("1,?,4", "1,2,?", 3, id="dynamic-boxes"),
    pytest.param("?,6,4", "?,2,6", 3, id="dynamic-batch"),
    pytest.param("1,6,4", "1,?,6", 3, id="dynamic-classes"),
    pytest.param("1,6,4", "...", 3, id="scores-dynamic-rank"),
    pytest.param("...", "1,1,6", 3, id="boxes-dynamic-rank"),
    pytest.param("1,6,4", "1,1,6", -5, id="negative-max"),
    pytest.param("1,6,4", "1,1,6", 0, id="zero-max"),
    pytest.param("1,6,4", "1,1,6", None, id="unknown-max"),
    pytest.param("1,6,?", "1,1,6", 3, id="dynamic-last-dim"),
    pytest.param("1..3,6,4", "2,1,6", 3, id="batch-from-scores"),
]


@pytest.mark.parametrize(("boxes", "scores", "max_out"), NMS_INFER)
@pytest.mark.parametrize("version", [ops9, ops5], ids=["v9", "v5"])
def test_inference_agrees(tmp_path, version, boxes, scores, max_out):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    max_in = C(np.int64(max_out)) if max_out is not None else P(np.int64(1))
    inputs = [P(z, shape=boxes), P(z, shape=scores), max_in, C(np.float32(0.5))]
    ours, theirs = infer_shapes(tmp_path, _nms(version, output_type="i32"), inputs)
    assert ours == theirs


@pytest.mark.parametrize("dims", ["3", "2..5"], ids=["static", "interval"])
def test_max_output_from_a_shape(tmp_path, dims):  # type: ignore[no-untyped-def]
    """A limit computed from a shape counts when its value is known, not from bounds."""
    ops = pytest.importorskip("openvino.opset15")

    def factory(b, s, x):  # type: ignore[no-untyped-def]
        limit = ops.squeeze(ops.shape_of(x, "i64"), ops.constant(np.int64(0)))
        return ops9.non_max_suppression(b, s, limit, ops.constant(np.float32(0.5)))

    z = np.zeros((), np.float32)
    inputs = [P(z, shape="1,6,4"), P(z, shape="1,2,6"), P(z, shape=dims)]
    ours, theirs = infer_shapes(tmp_path, factory, inputs)
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.f32, value: object = None) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape), value=None if value is None else np.asarray(value))


REFUSALS = [
    pytest.param([_info("[1,6,3]"), _info("[1,1,6]")], "equal to 4", id="last-dim"),
    pytest.param([_info("[1,6]"), _info("[1,1,6]")], "3D tensor for the 'boxes'", id="boxes-rank"),
    pytest.param([_info("[2,6,4]"), _info("[1,1,6]")], "first dimension", id="batches"),
    pytest.param([_info("[1,6,4]"), _info("[1,1,5]")], "second and third", id="boxes-count"),
    pytest.param([_info("[1,6,4]", ElementType.f64), _info("[1,1,6]")], "'boxes' input", id="boxes-type"),
    pytest.param(
        [_info("[1,6,4]"), _info("[1,1,6]"), _info("[2]", ElementType.i64)], "max_output", id="max-shape"
    ),
    pytest.param(
        [_info("[1,6,4]"), _info("[1,1,6]"), _info("[]", ElementType.i64), _info("[]", ElementType.i32)],
        "'iou_threshold'",
        id="iou-type",
    ),
]


@pytest.mark.parametrize(("inputs", "match"), REFUSALS)
def test_refusals(inputs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        nms.infer_nms(nms.NMSAttrs(), inputs)
    with pytest.raises(ValidationError, match="i32 or i64"):
        nms.infer_nms(nms.NMSAttrs(output_type=ElementType.f32), inputs[:2])


@pytest.mark.parametrize("version", [5, 9])
def test_hard_nms_shortcut_equals_the_queue_loop(version):  # type: ignore[no-untyped-def]
    """Hard NMS selects greedily in one vector step per selected box; it must pick exactly what
    OpenVINO's priority-queue loop (``_select_queue``, soft NMS's path) picks: tied scores,
    zero-area boxes, negative thresholds, limits from 0 to 19."""
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 40))
        corner = rng.uniform(0, 10, (n, 2)).astype(np.float32)
        boxes = np.concatenate([corner, corner + rng.uniform(0, 4, (n, 2)).astype(np.float32)], axis=-1)
        if seed % 5 == 0:
            boxes[:, 2] = boxes[:, 0]  # zero areas: IoU 0
        scores = np.round(rng.uniform(-0.2, 1, n), 1).astype(np.float32)  # many ties
        for iou in (0.0, 0.3, 0.5):
            limit = int(rng.integers(0, 20))
            threshold = np.float32(rng.choice([-0.1, 0.0, 0.2]))
            params = nms._Params(limit, np.float32(iou), threshold, np.float32(0), False, version == 5)
            hard = nms._select_hard(boxes, scores, params)
            assert hard is not None
            queue = nms._select_queue(boxes, scores, params)
            np.testing.assert_array_equal(hard[0], queue[0])
            np.testing.assert_array_equal(hard[1].view(np.uint32), queue[1].view(np.uint32))
