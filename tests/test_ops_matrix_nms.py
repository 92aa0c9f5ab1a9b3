"""MatrixNms-8 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot, compares the
inferred shapes with OpenVINO's, runs it and compares the three outputs with the CPU plugin's:
indices and counts exactly, decayed scores within ``SCORE_ULP`` (the plugin's own ``exp`` and
division in f32; measured: at most 2 ulp on these cases).  Scores within a class are distinct: the
candidate order of tied scores is unspecified in OpenVINO (``std::partial_sort``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops import matrix_nms as mx
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops8 = pytest.importorskip("openvino.opset8")

SCORE_ULP = 2
# Two images, three classes, six boxes (x1, y1, x2, y2): overlapping pairs, a box with its
# corners swapped (area 0), a box touching another only at an edge, distinct scores per class.
BOXES = np.array(
    [
        [[0, 0, 1, 1], [0.1, 0, 1.1, 1], [1, 1, 0, 0], [10, 0, 11, 1], [10.5, 0, 11.5, 1], [11.5, 0, 12, 1]],
        [[0, 0, 2, 2], [0.5, 0, 2.5, 2], [5, 5, 6, 6], [5.2, 5, 6.2, 6], [9, 9, 9.5, 9.5], [20, 20, 21, 21]],
    ],
    np.float32,
)
SCORES = np.array(
    [
        [
            [0.9, 0.75, 0.6, 0.95, 0.5, 0.3],
            [0.1, 0.8, 0.85, 0.2, 0.7, 0.99],
            [0.31, 0.37, 0.43, 0.34, 0.0, 0.47],
        ],
        [[0.5, 0.55, 0.8, 0.7, 0.0, 0.4], [0.3, 0.9, 0.35, 0.6, 0.65, 0.05], [0.2, 0.25, 0.9, 0.1, 0.3, 0.5]],
    ],
    np.float32,
)


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In]) -> list[np.ndarray]:
    """ovonehot (through saved IR) vs the CPU plugin on every output; returns ovonehot's.  When
    nothing is selected the plugin leaves ``selected_num`` unwritten: ovonehot's must be zeros."""
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
    assert_same(ours[0][:, [0, 2, 3, 4, 5]], theirs[0][:, [0, 2, 3, 4, 5]], where="classes and boxes")
    assert_same(ours[0][:, 1], theirs[0][:, 1], ulp=SCORE_ULP, where="decayed scores")
    for k in range(1, len(ours)):
        assert_same(ours[k], theirs[k], where=f"output {k}")
    return ours


def _mx(**attrs: Any) -> Any:
    return lambda *args: ops8.matrix_nms(*args, **attrs)


ATTRS = [
    pytest.param({}, id="defaults"),
    pytest.param({"decay_function": "gaussian"}, id="gaussian"),
    pytest.param(
        {"decay_function": "gaussian", "gaussian_sigma": 0.5, "post_threshold": 0.3}, id="gaussian-post"
    ),
    pytest.param({"post_threshold": 0.4, "score_threshold": 0.3}, id="thresholds"),
    pytest.param({"sort_result_type": "score", "sort_result_across_batch": True}, id="score-across"),
    pytest.param({"sort_result_type": "classid", "sort_result_across_batch": True}, id="classid-across"),
    pytest.param({"nms_top_k": 3, "keep_top_k": 5, "output_type": "i32"}, id="top-k"),
    pytest.param({"background_class": 0, "normalized": False}, id="background-unnormalized"),
    pytest.param({"keep_top_k": 0}, id="keep-none"),
    pytest.param({"score_threshold": 0.92}, id="first-image-only"),
]


@pytest.mark.parametrize("attrs", ATTRS)
def test_matches_cpu_plugin(tmp_path, attrs):  # type: ignore[no-untyped-def]
    compare_cpu(tmp_path, _mx(**attrs), [P(BOXES), P(SCORES)])


def test_empty_first_image_keeps_the_others(tmp_path):  # type: ignore[no-untyped-def]
    """An image without selections does not stop the others (the reference's loop breaks there;
    the spec and the CPU plugin go on)."""
    scores = SCORES.copy()
    scores[0] = 0.0
    ours = compare_cpu(tmp_path, _mx(score_threshold=0.05), [P(BOXES), P(scores)])
    assert ours[2][0] == 0 and ours[2][1] > 0


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_half_precision(tmp_path, dtype):  # type: ignore[no-untyped-def]
    """f16 against the plugin's f16; bf16 (the plugin refuses a bf16 MatrixNms: 'precList') against
    the plugin's f32 run on the same values, rounded to bf16.  Decayed scores are computed in f32
    and rounded once: one unit of the narrow type."""
    boxes, scores = BOXES.astype(dtype), SCORES.astype(dtype)
    oracle = np.float16 if dtype == np.float16 else np.float32
    node, params = build(_mx(decay_function="gaussian"), [P(boxes.astype(oracle)), P(scores.astype(oracle))])
    theirs = cpu_outputs(node, params, [boxes.astype(oracle), scores.astype(oracle)])
    ours_node, ours_params = build(_mx(decay_function="gaussian"), [P(boxes), P(scores)])
    model = export(tmp_path, ours_node, ours_params)
    assert_inferred(model, ours_node)
    ours = list(model.run([boxes, scores]).values())
    expected = theirs[0].astype(dtype)
    assert_same(ours[0][:, [0, 2, 3, 4, 5]], expected[:, [0, 2, 3, 4, 5]], where="classes and boxes")
    assert_same(ours[0][:, 1], expected[:, 1], ulp=1, where="decayed scores")
    assert_same(ours[1], theirs[1], where="indices")


def test_random_boxes(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(11)
    corner = rng.uniform(0, 10, (2, 30, 2)).astype(np.float32)
    boxes = np.concatenate([corner, corner + rng.uniform(0.5, 4, (2, 30, 2)).astype(np.float32)], axis=-1)
    scores = rng.uniform(0, 1, (2, 4, 30)).astype(np.float32)
    for attrs in ({"nms_top_k": 12, "keep_top_k": 30, "post_threshold": 0.2}, {"decay_function": "gaussian"}):
        compare_cpu(tmp_path, _mx(score_threshold=0.1, **attrs), [P(boxes), P(scores)])


@pytest.mark.held_for("openvino==2026.4.1")
def test_classid_sorts_within_the_image(tmp_path):  # type: ignore[no-untyped-def]
    """The spec: ``classid`` sorts the selected boxes by class; OpenVINO (reference and CPU plugin)
    keeps an image's score order unless ``sort_result_across_batch``."""
    node, params = build(_mx(sort_result_type="classid"), [P(BOXES), P(SCORES)])
    theirs = cpu_outputs(node, params, [BOXES, SCORES])
    ours = list(export(tmp_path, node, params).run([BOXES, SCORES]).values())
    n0 = int(ours[2][0])
    assert (np.diff(ours[0][:n0, 0]) >= 0).all()
    assert (np.diff(theirs[0][:n0, 1]) <= 0).all() and not (np.diff(theirs[0][:n0, 0]) >= 0).all()
    assert sorted(ours[1].ravel().tolist()) == sorted(theirs[1].ravel().tolist())


INFER = [
    pytest.param("1,6,4", "1,2,6", {}, id="static"),
    pytest.param("2,6,4", "2,3,6", {"nms_top_k": 3, "keep_top_k": 4}, id="top-k"),
    pytest.param("2,6,4", "2,3,6", {"keep_top_k": 40, "background_class": 1}, id="keep-above"),
    pytest.param("2..4,6,4", "1..3,3,6", {"nms_top_k": 3, "keep_top_k": 4}, id="intervals"),
    pytest.param("1,?,4", "1,2,?", {"keep_top_k": 3}, id="unbounded-keep-ignored"),
    pytest.param("?,6,4", "?,2,6", {}, id="dynamic-batch"),
    pytest.param("1,6,4", "...", {}, id="scores-dynamic-rank"),
    pytest.param("...", "1,2,6", {"nms_top_k": -3}, id="boxes-dynamic-rank-skips-checks"),
    pytest.param("1,0,4", "1,2,0", {}, id="no-boxes"),
]


@pytest.mark.parametrize(("boxes", "scores", "attrs"), INFER)
def test_inference_agrees(tmp_path, boxes, scores, attrs):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    ours, theirs = infer_shapes(tmp_path, _mx(**attrs), [P(z, shape=boxes), P(z, shape=scores)])
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.f32) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape))


OK = [_info("[1,6,4]"), _info("[1,2,6]")]
REFUSALS = [
    pytest.param([_info("[1,6,3]"), _info("[1,2,6]")], {}, "equal to 4", id="last-dim"),
    pytest.param([_info("[1,6]"), _info("[1,2,6]")], {}, "3D tensor for the 'boxes'", id="boxes-rank"),
    pytest.param([_info("[1,6,4]"), _info("[1,2]")], {}, "3D tensor for the 'scores'", id="scores-rank"),
    pytest.param([_info("[2,6,4]"), _info("[1,2,6]")], {}, "first dimension", id="batches"),
    pytest.param([_info("[1,6,4]"), _info("[1,2,5]")], {}, "second and third", id="boxes-count"),
    pytest.param(
        [_info("[1,6,4]", ElementType.f64), _info("[1,2,6]", ElementType.f64)], {}, "'boxes'", id="f64"
    ),
    pytest.param([_info("[1,6,4]"), _info("[1,2,6]", ElementType.bf16)], {}, "same", id="mixed-types"),
    pytest.param(OK, {"keep_top_k": -2}, "keep_top_k", id="keep"),
    pytest.param(OK, {"nms_top_k": -2}, "nms_top_k", id="top-k"),
    pytest.param(OK, {"background_class": -3}, "background", id="bg"),
    pytest.param(OK, {"output_type": ElementType.u8}, "i32 or i64", id="output-type"),
]


@pytest.mark.parametrize(("inputs", "attrs", "match"), REFUSALS)
def test_refusals(inputs, attrs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        mx.infer_matrix_nms(mx.MatrixNmsAttrs(**attrs), inputs)
