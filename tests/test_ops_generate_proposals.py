"""GenerateProposals-9 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot (inferred shapes
compared with OpenVINO's), runs it and compares the outputs with the CPU plugin's: counts and
scores (copies) exactly, box coordinates within ``BOX_TOLERANCE`` f32 ulp of the image size: the
plugin's own ``exp`` differs from ``expf`` by an ulp now and then, and ``centre + w/2`` cancels
(measured on 500 random cases: 3 differ, by at most 1.9e-6 on 8..40-pixel images).  Scores
are distinct (OpenVINO leaves the order of tied scores open).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import generate_proposals as gp
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops9 = pytest.importorskip("openvino.opset9")

BOX_TOLERANCE = 8  # f32 ulps of the largest image side
B, A, H, W = 2, 3, 4, 5


def _inputs(seed: int = 0, info_width: int = 3) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    ys, xs = np.meshgrid(np.arange(H) * 8.0, np.arange(W) * 8.0, indexing="ij")
    sizes = np.array([8.0, 16.0, 24.0])
    anchors = np.zeros((H, W, A, 4), np.float32)
    anchors[..., 0] = xs[..., None] - sizes / 2
    anchors[..., 1] = ys[..., None] - sizes / 2
    anchors[..., 2] = xs[..., None] + sizes / 2
    anchors[..., 3] = ys[..., None] + sizes / 2
    deltas = rng.normal(0, 0.3, (B, A * 4, H, W)).astype(np.float32)
    deltas[0, 2, 0, 0] = 9.0  # (above log(1000/16): clipped)
    scores = rng.permutation(B * A * H * W).reshape(B, A, H, W).astype(np.float32) / (B * A * H * W)
    info = np.array([[30, 38, 1.0, 1.5][:info_width], [25, 40, 0.5, 1.0][:info_width]], np.float32)
    return info, anchors, deltas, scores


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In], narrow: bool = False) -> list[np.ndarray]:
    """``narrow``: f16/bf16 boxes, computed in f32 and rounded once, within one unit of the type."""
    node, params = build(factory, inputs)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    if ours[0].dtype == ml_dtypes.bfloat16:  # (the plugin's bf16 comes back as f16-typed raw bits)
        theirs[:2] = [t.view(ml_dtypes.bfloat16) for t in theirs[:2]]
    assert_same(ours[2], theirs[2], where="rpnroisnum")
    assert_same(ours[1], theirs[1], where="rpnscores")
    if narrow:
        assert_same(ours[0], theirs[0], ulp=1, where="rpnrois")
    else:
        assert ours[0].shape == theirs[0].shape and ours[0].dtype == theirs[0].dtype
        side = float(np.abs(feeds[0][:, :2]).max())
        tolerance = BOX_TOLERANCE * float(np.finfo(np.float32).eps) * side
        np.testing.assert_allclose(ours[0], theirs[0], rtol=0, atol=tolerance, err_msg="rpnrois")
    return ours


def _gp(**attrs: Any) -> Any:
    base = {"min_size": 1.0, "nms_threshold": 0.5, "pre_nms_count": 40, "post_nms_count": 12}
    return lambda *args: ops9.generate_proposals(*args, **{**base, **attrs})


CASES = [
    pytest.param({}, 3, id="basic"),
    pytest.param({"normalized": False}, 3, id="unnormalized"),
    pytest.param({"min_size": 9.0, "roi_num_type": "i32"}, 4, id="min-size-scale-hw-i32"),
    pytest.param({"pre_nms_count": 5, "post_nms_count": 3}, 3, id="small-counts"),
    pytest.param({"pre_nms_count": 1000, "post_nms_count": 1000, "nms_threshold": 0.9}, 3, id="all"),
    pytest.param({"nms_threshold": 0.0}, 4, id="threshold-zero"),
    pytest.param({"min_size": 100.0}, 3, id="nothing-big-enough"),
]


@pytest.mark.parametrize(("attrs", "info_width"), CASES)
def test_matches_cpu_plugin(tmp_path, attrs, info_width):  # type: ignore[no-untyped-def]
    compare_cpu(tmp_path, _gp(**attrs), [P(x) for x in _inputs(1, info_width)])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
def test_half_precision(tmp_path, dtype):  # type: ignore[no-untyped-def]
    """Computed in f32 from the narrow inputs, rounded once at the end (as the reference); the
    plugin likewise: one unit of the narrow type allowed."""
    compare_cpu(tmp_path, _gp(), [P(x.astype(dtype)) for x in _inputs(2)], narrow=True)


def test_random_seeds(tmp_path):  # type: ignore[no-untyped-def]
    for seed in (3, 4):
        compare_cpu(tmp_path, _gp(nms_threshold=0.3, min_size=0.0), [P(x) for x in _inputs(seed)])


INFER = [
    pytest.param("2,3", "4,5,3,4", "2,12,4,5", "2,3,4,5", {}, id="static"),
    pytest.param("?,4", "...", "...", "?,3,4,5", {}, id="dynamic"),
    pytest.param("...", "...", "...", "...", {}, id="all-dynamic-rank"),
    pytest.param("2..4,3", "4,5,3,4", "?,12,4,5", "1..3,3,4,5", {}, id="intervals"),
    pytest.param("3,3", "4,5,3,4", "...", "2,3,4,5", {}, id="failed-merge-kept"),
    pytest.param("2,3", "4,5,3,4", "2,12,4,5", "2,3,4,5", {"roi_num_type": "i32"}, id="i32"),
]


@pytest.mark.parametrize(("info", "anchors", "deltas", "scores", "attrs"), INFER)
@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["f32", "i32-unchecked"])
def test_inference_agrees(tmp_path, info, anchors, deltas, scores, attrs, dtype):  # type: ignore[no-untyped-def]
    z = np.zeros((), dtype)
    inputs = [P(z, shape=s) for s in (info, anchors, deltas, scores)]
    ours, theirs = infer_shapes(tmp_path, _gp(**attrs), inputs)
    assert ours == theirs


def _info(shape: str) -> TensorInfo:
    return TensorInfo(ElementType.f32, PartialShape.parse(shape))


OK = ("[2,3]", "[4,5,3,4]", "[2,12,4,5]", "[2,3,4,5]")
REFUSALS = [
    pytest.param(("[2,5]", *OK[1:]), {}, "compatible with \\[3\\] or \\[4\\]", id="im-info-width"),
    pytest.param(("[2]", *OK[1:]), {}, "2D", id="im-info-rank"),
    pytest.param((OK[0], "[4,5,3,5]", *OK[2:]), {}, "fourth dimension", id="anchor-width"),
    pytest.param((*OK[:2], "[2,11,4,5]", OK[3]), {}, "Anchor number", id="deltas-anchors"),
    pytest.param((*OK[:2], "[3,12,4,5]", OK[3]), {}, "Batch for inputs 'input_deltas'", id="batches"),
    pytest.param(("[3,3]", *OK[1:]), {}, "Batch for inputs 'im_info'", id="im-info-batch"),
    pytest.param((OK[0], "[4,6,3,4]", *OK[2:]), {}, "Width for inputs 'input_anchors'", id="anchors-width"),
    pytest.param(OK, {"post_nms_count": 0}, "post_nms_count", id="post"),
    pytest.param(OK, {"pre_nms_count": -1}, "pre_nms_count", id="pre"),
    pytest.param(OK, {"nms_eta": 0.5}, "nms_eta", id="eta"),
    pytest.param(OK, {"roi_num_type": ElementType.f32}, "int64 or int32", id="roi-num-type"),
]


@pytest.mark.parametrize(("shapes", "attrs", "match"), REFUSALS)
def test_refusals(shapes, attrs, match):  # type: ignore[no-untyped-def]
    base = {"min_size": 0.0, "nms_threshold": 0.5, "pre_nms_count": 10, "post_nms_count": 5}
    with pytest.raises(ValidationError, match=match):
        gp.infer_generate_proposals(
            gp.GenerateProposalsAttrs(**{**base, **attrs}), [_info(s) for s in shapes]
        )


def test_integer_data_refused_at_run_time():  # type: ignore[no-untyped-def]
    attrs = gp.GenerateProposalsAttrs(0.0, 0.5, 10, 5)
    with pytest.raises(InputError, match="fp32, fp16, or bf16"):
        gp.evaluate_generate_proposals(attrs, [x.astype(np.int32) for x in _inputs()])
