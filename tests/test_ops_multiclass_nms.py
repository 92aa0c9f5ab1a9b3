"""MulticlassNms-8/-9 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot (attribute
parsing and the inferred ``[0..M, 6]`` shapes compared with OpenVINO's), runs it, and compares
all three outputs with the CPU plugin's, bit for bit.  Box data avoids IoUs equal to the
threshold except where a test is about that (the spec and the plugin differ there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import multiclass_nms as mc
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops8 = pytest.importorskip("openvino.opset8")
ops9 = pytest.importorskip("openvino.opset9")

# Two images, three classes, six boxes (x1, y1, x2, y2): overlapping pairs (IoU 0.82, 0.67 and
# 0.33), a box with its corners swapped (area < 0: overlaps nothing), tied scores, a zero score.
BOXES = np.array(
    [
        [[0, 0, 1, 1], [0.1, 0, 1.1, 1], [1, 1, 0, 0], [10, 0, 11, 1], [10.5, 0, 11.5, 1], [100, 0, 101, 1]],
        [[0, 0, 2, 2], [0.5, 0, 2.5, 2], [5, 5, 6, 6], [5.2, 5, 6.2, 6], [9, 9, 9.5, 9.5], [20, 20, 21, 21]],
    ],
    np.float32,
)
SCORES = np.array(
    [
        [[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.8, 0.85, 0.2, 0.7, 0.99], [0.4, 0.4, 0.4, 0.4, 0.0, 0.45]],
        [[0.5, 0.55, 0.8, 0.7, 0.0, 0.4], [0.3, 0.9, 0.35, 0.6, 0.65, 0.05], [0.2, 0.25, 0.9, 0.1, 0.3, 0.5]],
    ],
    np.float32,
)


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In]) -> list[np.ndarray]:
    """ovonehot (through saved IR) vs the CPU plugin on every output, exactly; returns ovonehot's.

    When nothing at all is selected the plugin leaves ``selected_num`` unwritten (whatever its
    buffer held, as for NonMaxSuppression): then only the two empty outputs are compared and
    ovonehot's counts must be zeros."""
    node, params = build(factory, inputs)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    if ours[0].dtype == ml_dtypes.bfloat16:  # (the plugin's bf16 comes back as f16-typed raw bits)
        theirs[0] = theirs[0].view(ml_dtypes.bfloat16)
    if theirs[0].shape[0] == 0:
        assert not ours[2].any(), ours[2]
        ours, theirs = ours[:2], theirs[:2]
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert_same(a, b, where=f"output {k}")
    return ours


def _mc(version: Any, **attrs: Any) -> Any:
    return lambda *args: version.multiclass_nms(*args, **attrs)


ATTRS = [
    pytest.param({}, id="defaults"),
    pytest.param({"sort_result_type": "score"}, id="score"),
    pytest.param({"sort_result_type": "classid"}, id="classid"),
    pytest.param({"sort_result_type": "score", "sort_result_across_batch": True}, id="score-across"),
    pytest.param({"sort_result_type": "classid", "sort_result_across_batch": True}, id="classid-across"),
    pytest.param({"sort_result_type": "none", "sort_result_across_batch": True}, id="none-across"),
    pytest.param({"nms_top_k": 2}, id="nms-top-k"),
    pytest.param({"keep_top_k": 3, "sort_result_type": "classid"}, id="keep-top-k"),
    pytest.param({"nms_top_k": 0}, id="nms-top-k-0"),
    pytest.param({"background_class": 1, "output_type": "i32"}, id="background-i32"),
    pytest.param({"background_class": 5}, id="background-beyond"),
    pytest.param({"normalized": False}, id="unnormalized"),
    pytest.param({"score_threshold": 0.4}, id="score-threshold-tie"),
    pytest.param({"iou_threshold": 0.9, "nms_eta": 0.5}, id="eta"),
    pytest.param({"iou_threshold": 0.7, "nms_eta": 0.9}, id="eta-stops-at-half"),
    pytest.param({"score_threshold": 2.0}, id="nothing-selected"),
]


@pytest.mark.parametrize("attrs", ATTRS)
def test_matches_cpu_plugin(tmp_path, attrs):  # type: ignore[no-untyped-def]
    attrs = {"iou_threshold": 0.5, **attrs}
    compare_cpu(tmp_path, _mc(ops9, **attrs), [P(BOXES), P(SCORES)])


@pytest.mark.parametrize("attrs", [{}, {"sort_result_type": "classid", "keep_top_k": 4}, {"nms_eta": 0.5}])
def test_v8_matches_cpu_plugin(tmp_path, attrs):  # type: ignore[no-untyped-def]
    """MulticlassNms-8: the same kernel without roisnum."""
    compare_cpu(tmp_path, _mc(ops8, iou_threshold=0.5, **attrs), [P(BOXES), P(SCORES)])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_half_precision(tmp_path, dtype):  # type: ignore[no-untyped-def]
    inputs = [P(BOXES.astype(dtype)), P(SCORES.astype(dtype))]
    compare_cpu(tmp_path, _mc(ops9, iou_threshold=0.5, sort_result_type="classid"), inputs)


# roisnum: boxes [C, N, 4] and scores [C, N] per class, image b owns roisnum[b] boxes.
ROIS_BOXES = np.concatenate([BOXES[0][None], BOXES[1][None], BOXES[0][None, ::-1]], axis=0)
ROIS_SCORES = SCORES[0].copy()


@pytest.mark.parametrize(
    ("rois", "attrs"),
    [
        pytest.param([2, 4], {}, id="two-images"),
        pytest.param([6], {"sort_result_type": "classid"}, id="one-image"),
        pytest.param(
            [1, 0, 3], {"sort_result_type": "score", "sort_result_across_batch": True}, id="empty-image"
        ),
        pytest.param(
            [3, 3], {"sort_result_type": "classid", "sort_result_across_batch": True}, id="classid-across"
        ),
        pytest.param([4, 2], {"keep_top_k": 2, "background_class": 0}, id="keep-background"),
    ],
)
@pytest.mark.parametrize("rois_type", [np.int32, np.int64], ids=["i32", "i64"])
def test_roisnum_matches_cpu_plugin(tmp_path, rois, attrs, rois_type):  # type: ignore[no-untyped-def]
    inputs = [P(ROIS_BOXES), P(ROIS_SCORES), P(np.array(rois, rois_type))]
    compare_cpu(tmp_path, _mc(ops9, iou_threshold=0.5, **attrs), inputs)


def test_random_boxes(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    corner = rng.uniform(0, 10, (2, 30, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + rng.uniform(0.5, 4, (2, 30, 2)).astype(np.float32)], axis=-1)
    scores = rng.uniform(0, 1, (2, 4, 30)).astype(np.float32)
    for attrs in ({"nms_top_k": 10, "keep_top_k": 25}, {"sort_result_type": "classid", "nms_eta": 0.8}):
        compare_cpu(
            tmp_path, _mc(ops9, iou_threshold=0.6, score_threshold=0.1, **attrs), [P(boxes), P(scores)]
        )


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize(
    ("iou", "ours_expected", "cpu_expected"),
    [pytest.param(0.5, [0, 1, 2], [0, 2], id="half"), pytest.param(0.0, [0, 2], [0], id="zero")],
)
def test_iou_equal_to_the_threshold_keeps_the_box(tmp_path, iou, ours_expected, cpu_expected):  # type: ignore[no-untyped-def]
    """Box 1 overlaps box 0 with IoU exactly 0.5, box 2 overlaps nothing (IoU 0): the spec (and
    PaddlePaddle) suppress at ``iou > iou_threshold`` and keep a box at the threshold; OpenVINO's
    reference and CPU plugin suppress at ``>=`` (with threshold 0, every box after the first)."""
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [5, 5, 6, 6]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7]]], np.float32)
    node, params = build(_mc(ops9, iou_threshold=iou), [P(boxes), P(scores)])
    theirs = cpu_outputs(node, params, [boxes, scores])
    ours = list(export(tmp_path, node, params).run([boxes, scores]).values())
    assert ours[1].ravel().tolist() == ours_expected
    assert theirs[1].ravel().tolist() == cpu_expected


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize(("eta", "cpu_expected"), [(0.7, [0, 1, 2]), (1.0, [0, 1])])
def test_score_at_the_threshold_is_compared_with_every_kept_box(tmp_path, eta, cpu_expected):  # type: ignore[no-untyped-def]
    """Box 2 repeats box 0 with a score equal to score_threshold.  The spec compares it with every
    kept box (suppressed by box 0); the reference, and the CPU plugin when nms_eta < 1, stop
    comparing as soon as the score is ``<= score_threshold``, after the newest kept box (box 1,
    disjoint), and keep it."""
    boxes = np.array([[[0, 0, 1, 1], [5, 5, 6, 6], [0, 0, 1, 1]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.5]]], np.float32)
    node, params = build(
        _mc(ops9, iou_threshold=0.3, score_threshold=0.5, nms_eta=eta), [P(boxes), P(scores)]
    )
    theirs = cpu_outputs(node, params, [boxes, scores])
    ours = list(export(tmp_path, node, params).run([boxes, scores]).values())
    assert ours[1].ravel().tolist() == [0, 1]
    assert theirs[1].ravel().tolist() == cpu_expected


INFER = [
    pytest.param("1,6,4", "1,2,6", {}, id="static"),
    pytest.param("2,6,4", "2,3,6", {"nms_top_k": 3, "keep_top_k": 4}, id="top-k"),
    pytest.param("2,6,4", "2,3,6", {"keep_top_k": 40}, id="keep-above"),
    pytest.param("2,6,4", "2,3,6", {"background_class": 1}, id="background-not-counted"),
    pytest.param("2..4,6,4", "1..3,3,6", {"nms_top_k": 3, "keep_top_k": 4}, id="intervals"),
    pytest.param("1,?,4", "1,2,?", {"keep_top_k": 3}, id="unbounded-keep-ignored"),
    pytest.param("1,?,4", "1,2,?", {"nms_top_k": 3}, id="unbounded-top-k-ignored"),
    pytest.param("?,6,4", "?,2,6", {}, id="dynamic-batch"),
    pytest.param("1,6,4", "1,?,6", {}, id="dynamic-classes"),
    pytest.param("...", "1,2,6", {}, id="boxes-dynamic-rank"),
    pytest.param("1,6,?", "1,2,6", {}, id="dynamic-last"),
    pytest.param("1,0,4", "1,2,0", {}, id="no-boxes"),
]


@pytest.mark.parametrize(("boxes", "scores", "attrs"), INFER)
@pytest.mark.parametrize("version", [ops8, ops9], ids=["v8", "v9"])
def test_inference_agrees(tmp_path, version, boxes, scores, attrs):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    ours, theirs = infer_shapes(tmp_path, _mc(version, **attrs), [P(z, shape=boxes), P(z, shape=scores)])
    assert ours == theirs


@pytest.mark.parametrize(
    ("boxes", "scores", "rois"),
    [
        pytest.param("3,6,4", "3,6", "2", id="static"),
        pytest.param("3,6,4", "3,6", "?", id="dynamic-images"),
        pytest.param("3,6,4", "3,6", "...", id="rois-dynamic-rank"),
        pytest.param("?,6,4", "3..5,?", "1..4", id="intervals"),
    ],
)
def test_roisnum_inference_agrees(tmp_path, boxes, scores, rois):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    inputs = [P(z, shape=boxes), P(z, shape=scores), P(np.int32(0), shape=rois)]
    ours, theirs = infer_shapes(tmp_path, _mc(ops9, nms_top_k=4), inputs)
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.f32) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape))


REFUSALS = [
    pytest.param([_info("[1,6,3]"), _info("[1,2,6]")], {}, "equal to 4", id="last-dim"),
    pytest.param([_info("[1,6]"), _info("[1,2,6]")], {}, "3D tensor for the 'boxes'", id="boxes-rank"),
    pytest.param([_info("[1,6,4]"), _info("[1,2]")], {}, "3D tensor for the 'scores'", id="scores-rank"),
    pytest.param([_info("[1,6,4]"), _info("...")], {}, "dynamic rank", id="scores-dynamic-rank"),
    pytest.param([_info("[2,6,4]"), _info("[1,2,6]")], {}, "first dimension", id="batches"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,5]")], {}, "second and third", id="boxes-count"),
    pytest.param(
        [_info("[3,6,4]"), _info("[3,5]"), _info("[2]", ElementType.i32)],
        {},
        "second dimension",
        id="rois-boxes-count",
    ),
    pytest.param(
        [_info("[3,6,4]"), _info("[3,6,1]"), _info("[2]", ElementType.i32)],
        {},
        "2D tensor",
        id="rois-scores-rank",
    ),
    pytest.param(
        [_info("[3,6,4]"), _info("[3,6]"), _info("[2]", ElementType.u8)], {}, "'roisnum'", id="rois-type"
    ),
    pytest.param(
        [_info("[1,6,4]", ElementType.f64), _info("[1,2,6]", ElementType.f64)], {}, "'boxes'", id="f64"
    ),
    pytest.param([_info("[1,6,4]", ElementType.dynamic), _info("[1,2,6]")], {}, "'boxes'", id="dynamic-type"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]", ElementType.f16)], {}, "same", id="mixed-types"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]")], {"nms_eta": 1.5}, "nms_eta", id="eta"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]")], {"keep_top_k": -2}, "keep_top_k", id="keep"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]")], {"nms_top_k": -2}, "nms_top_k", id="top-k"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]")], {"background_class": -3}, "background", id="bg"),
    pytest.param(
        [_info("[1,6,4]"), _info("[1,2,6]")], {"output_type": ElementType.f32}, "i32 or i64", id="output-type"
    ),
]


@pytest.mark.parametrize(("inputs", "attrs", "match"), REFUSALS)
def test_refusals(inputs, attrs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        mc.infer_multiclass_nms(mc.MulticlassNmsAttrs(**attrs), inputs)


def test_roisnum_beyond_the_boxes_is_refused():  # type: ignore[no-untyped-def]
    from ovonehot.errors import InputError

    with pytest.raises(InputError, match="roisnum"):
        mc.evaluate_multiclass_nms(
            mc.MulticlassNmsAttrs(), [ROIS_BOXES, ROIS_SCORES, np.array([4, 3], np.int64)]
        )
