"""Regression corpus: the classic detection heads, built with OpenVINO's own opset API.

* ``vision/ssd_detection_output``: an SSD head: strided convolutions, box and class convolutions
  (softmax over 3 classes), PriorBox-8 on ``ShapeOf`` slices, DetectionOutput-8 (CENTER_SIZE,
  top_k, keep_top_k).
* ``vision/yolo_region``: YOLOv2 and YOLOv3 output layers: RegionYolo-0 with ``do_softmax`` (a
  flattened ``[1, 7*2*4*4]`` output) and with a mask (``[1, 14, 4, 4]``) after one convolution.
* ``vision/rfcn_proposal_psroi``: an R-FCN head: an RPN (Proposal-4 on softmax scores and box
  deltas), PSROIPooling-0 (average) of a position-sensitive score map at the proposals, and
  DeformablePSROIPooling-1 of another one.

Run with any Python that has OpenVINO (deterministic: fixed seeds, fixed-timestamp .npz files)::

    /work/main/.venv/bin/python ir/corpus/generate_detection_heads.py

Expected values: the CPU plugin compiled deterministically (the core ops have no ``evaluate``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from corpus_common import Folder  # type: ignore[import-not-found]

GENERATOR = "ir/corpus/generate_detection_heads.py"


def _conv(
    x: Any, channels_in: int, channels_out: int, stride: int, rng: np.random.Generator, relu: bool = True
) -> Any:
    from openvino import opset8 as ops

    w = rng.normal(0, 0.3, (channels_out, channels_in, 3, 3)).astype(np.float32)
    b = rng.normal(0, 0.1, (1, channels_out, 1, 1)).astype(np.float32)
    y = ops.add(
        ops.convolution(x, ops.constant(w), [stride, stride], [1, 1], [1, 1], [1, 1]), ops.constant(b)
    )
    return ops.relu(y) if relu else y


def _flat(x: Any) -> Any:
    """NCHW -> [N, H*W*C] (SSD's permute + flatten)."""
    from openvino import opset8 as ops

    t = ops.transpose(x, ops.constant(np.array([0, 2, 3, 1], np.int64)))
    return ops.reshape(t, ops.constant(np.array([0, -1], np.int64)), special_zero=True)


def _ssd_model() -> Any:
    import openvino as ov
    from openvino import opset8 as ops

    rng = np.random.default_rng(31)
    image = ops.parameter([1, 3, 32, 32], ov.Type.f32, name="image")
    feat = _conv(_conv(image, 3, 8, 2, rng), 8, 8, 2, rng)  # [1, 8, 8, 8]
    priors_per_cell = 4  # min + max size, aspect ratio 2 flipped
    loc = _flat(_conv(feat, 8, priors_per_cell * 4, 1, rng, relu=False))
    conf = _conv(feat, 8, priors_per_cell * 3, 1, rng, relu=False)
    # small logits: softmax scores that do not saturate at 1.0 (ties there are 1-ulp races)
    conf = _flat(ops.multiply(conf, ops.constant(np.array(0.05, np.float32))))
    scores = ops.reshape(
        ops.softmax(ops.reshape(conf, ops.constant(np.array([0, -1, 3], np.int64)), True), 2),
        ops.constant(np.array([0, -1], np.int64)),
        True,
    )
    start, stop, one = (ops.constant(np.array([v], np.int64)) for v in (2, 4, 1))
    hw = ops.slice(ops.shape_of(feat), start, stop, one)
    image_hw = ops.slice(ops.shape_of(image), start, stop, one)
    prior_attrs = {
        "min_size": [8.0],
        "max_size": [16.0],
        "aspect_ratio": [2.0],
        "flip": True,
        "clip": False,
        "step": 4.0,
        "offset": 0.5,
        "variance": [0.1, 0.1, 0.2, 0.2],
        "scale_all_sizes": True,
    }
    priors = ops.prior_box(hw, image_hw, prior_attrs)
    priors = ops.unsqueeze(priors, ops.constant(np.array([0], np.int64)))
    attrs = {
        "background_label_id": 0,
        "top_k": 40,
        "keep_top_k": [20],
        "code_type": "caffe.PriorBoxParameter.CENTER_SIZE",
        "nms_threshold": 0.45,
        "confidence_threshold": 0.2,
        "share_location": True,
        "normalized": True,
        "clip_after_nms": True,
    }
    detections = ops.detection_output(loc, scores, priors, attrs)
    model = ov.Model([ops.result(detections)], [image], "ssd_detection_output")
    model.output(0).get_tensor().set_names({"detections"})
    return model


def _yolo_model() -> Any:
    import openvino as ov
    from openvino import opset1, opset8

    rng = np.random.default_rng(32)
    image = opset8.parameter([1, 3, 16, 16], ov.Type.f32, name="image")
    feat = _conv(image, 3, 8, 4, rng)  # [1, 8, 4, 4]
    head = _conv(feat, 8, 14, 1, rng, relu=False)  # 2 regions x (2 classes + 4 coords + 1)
    v2 = opset1.region_yolo(head, 4, 2, 2, True, [], 1, 3, [1.0, 1.5, 2.0, 2.5])
    v3 = opset1.region_yolo(head, 4, 2, 6, False, [0, 1], 1, 3, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
    model = ov.Model([opset8.result(v2), opset8.result(v3)], [image], "yolo_region")
    for port, name in zip(model.outputs, ("region_v2", "yolo_v3"), strict=True):
        port.get_tensor().set_names({name})
    return model


def _rfcn_model() -> Any:
    import openvino as ov
    from openvino import opset1, opset4, opset8

    rng = np.random.default_rng(33)
    image = opset8.parameter([1, 3, 32, 32], ov.Type.f32, name="image")
    info = opset8.parameter([3], ov.Type.f32, name="image_info")
    feat = _conv(_conv(image, 3, 8, 2, rng), 8, 8, 2, rng)  # [1, 8, 8, 8]
    anchors = 3
    logits = _conv(feat, 8, 2 * anchors, 1, rng, relu=False)
    probs = opset8.reshape(
        opset8.softmax(opset8.reshape(logits, opset8.constant(np.array([1, 2, -1], np.int64)), False), 1),
        opset8.constant(np.array([1, 2 * anchors, 8, 8], np.int64)),
        False,
    )
    deltas = opset8.multiply(
        _conv(feat, 8, 4 * anchors, 1, rng, relu=False), opset8.constant(np.array(0.2, np.float32))
    )
    attrs = {
        "base_size": np.uint32(8),
        "pre_nms_topn": np.uint32(60),
        "post_nms_topn": np.uint32(12),
        "nms_thresh": 0.6,
        "feat_stride": np.uint32(4),
        "min_size": np.uint32(2),
        "ratio": np.array([0.5, 1.0, 2.0], np.float32),
        "scale": np.array([2.0], np.float32),
        "clip_before_nms": True,
    }
    proposal = opset4.proposal(probs, deltas, info, attrs)
    rois = proposal.output(0)
    score_map = _conv(feat, 8, 2 * 3 * 3, 1, rng, relu=False)  # output_dim 2, group 3
    pooled = opset1.psroi_pooling(score_map, rois, 2, 3, 0.25, 1, 1, "average")
    deformable = opset1.deformable_psroi_pooling(
        score_map, rois, output_dim=2, spatial_scale=0.25, group_size=3, spatial_bins_x=2, spatial_bins_y=2
    )
    outputs = [
        opset8.result(rois),
        opset8.result(proposal.output(1)),
        opset8.result(pooled),
        opset8.result(deformable),
    ]
    model = ov.Model(outputs, [image, info], "rfcn_proposal_psroi")
    for port, name in zip(model.outputs, ("rois", "roi_scores", "psroi", "deformable_psroi"), strict=True):
        port.get_tensor().set_names({name})
    return model


def _save(name: str, model: Any, feeds: Any, source: str, notes: str, atol: float) -> None:
    folder = Folder("vision", name, GENERATOR)
    folder.save(model)
    for case, seed in (("typical", 0), ("other", 1)):
        folder.cpu_case(case, feeds(np.random.default_rng(seed)))
    folder.meta(source=source, expected_from="cpu", atol=atol, rtol=1e-5, notes=notes)


def main() -> None:
    image = (1, 3, 32, 32)
    _save(
        "ssd_detection_output",
        _ssd_model(),
        lambda r: {"image": r.normal(0, 1, image).astype(np.float32)},
        "SSD head built with openvino.opset8 (seed 31): conv box/class heads, softmax, PriorBox-8 on "
        "Slice(ShapeOf), DetectionOutput-8 (CENTER_SIZE, top_k 40, keep_top_k 20); ov.save_model, f16 weights",
        "DetectionOutput sorts and filters by scores: the tolerance covers the convolutions' summation order "
        "(~1e-6) and the boxes' exp; the scores are far enough apart that the order does not flip.",
        1e-5,
    )
    _save(
        "yolo_region",
        _yolo_model(),
        lambda r: {"image": r.normal(0, 1, (1, 3, 16, 16)).astype(np.float32)},
        "YOLO heads built with openvino.opset1/8 (seed 32): one conv, RegionYolo-0 with do_softmax (v2) and "
        "with mask [0, 1] (v3); ov.save_model, f16 weights",
        "The CPU plugin's exp is within an ulp of ovonehot's f32 logistic; the tolerance covers that and the "
        "convolution's summation order.",
        1e-5,
    )
    _save(
        "rfcn_proposal_psroi",
        _rfcn_model(),
        lambda r: {
            "image": r.normal(0, 1, image).astype(np.float32),
            "image_info": np.array([32, 32, 1], np.float32),
        },
        "R-FCN head built with openvino.opset1/4/8 (seed 33): RPN convs, softmax, Proposal-4, PSROIPooling-0 "
        "(average) and DeformablePSROIPooling-1 of a position-sensitive score map at the proposals; "
        "ov.save_model, f16 weights",
        "Proposals in pixels: the tolerance covers the convolutions' summation order carried through exp and "
        "the boxes (~1e-5 of 32 pixels); PSROIPooling itself is bit-exact with the plugin.",
        1e-4,
    )


if __name__ == "__main__":
    main()
