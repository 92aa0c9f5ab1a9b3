"""Generate ir/corpus/paddle/ detection models whose post-processing is Paddle's multiclass_nms3 / matrix_nms.

Runs in the paddlepaddle 2.6.2 venv (see generate_paddle.py for why not Paddle 3). Static programs
(``paddle.static``, ``paddle.seed(0)``, fixed NumPy seeds, nothing downloaded) saved with
``paddle.static.save_inference_model``, converted by OpenVINO's Paddle frontend
(``ov.convert_model("<x>.pdmodel")``) and saved with ``ov.save_model`` (f16-compressed weights):

* ``paddle/multiclass_nms``: a PaddleDetection-style head on per-anchor features (a matmul to class
  logits and one to box deltas, anchors + deltas decoding, softmax over 4 classes, transpose to
  [N, C, M]) followed by ``multiclass_nms3`` (class 0 is background, pixel coordinates:
  ``normalized=False``, IoU 0.45, nms_top_k 12, keep_top_k 10) appended the way PaddleDetection's
  ``ppdet.modeling.ops.multiclass_nms`` does (Paddle 2.6 has no public Python API for it) ->
  MulticlassNms-9; outputs the detections [K, 6], their indices [K, 1] and per-image counts;
* ``paddle/matrix_nms``: the same head with ``paddle.vision.ops.matrix_nms`` (gaussian decay,
  sigma 2, normalized boxes, no background class, post threshold 0.1) -> MatrixNms-8.

Expected outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG); Paddle's
outputs are compared at generation time and the largest differences go into the notes.

    /work/gen/paddle26/bin/python ir/corpus/generate_paddle_detection.py [--only REGEX]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paddle
import paddle.nn.functional as F
from corpus_common import Folder, max_diff
from paddle.base.layer_helper import LayerHelper

GENERATOR = "ir/corpus/generate_paddle_detection.py"
ANCHORS, FEATURES, CLASSES = 24, 8, 4
TOL = (
    "Tolerance: the head's matmuls and softmax in the CPU plugin's order vs the reference's (FACTS: ~1e-6 of "
    "the output's magnitude; boxes up to ~64 pixels); indices and counts exact. Random scores: no two "
    "candidates tie, so which boxes survive does not hinge on an ulp."
)
Made = tuple[Path, dict[str, dict[str, np.ndarray]], Callable[[dict[str, np.ndarray]], list[np.ndarray]]]


def multiclass_nms3(bboxes: Any, scores: Any, **attrs: Any) -> tuple[Any, Any, Any]:
    """Paddle's multiclass_nms3 op, appended as PaddleDetection's ``ops.multiclass_nms`` does."""
    helper = LayerHelper("multiclass_nms3")
    out = helper.create_variable_for_type_inference(dtype=bboxes.dtype)
    index = helper.create_variable_for_type_inference(dtype="int32")
    rois_num = helper.create_variable_for_type_inference(dtype="int32")
    helper.append_op(
        type="multiclass_nms3",
        inputs={"BBoxes": bboxes, "Scores": scores},
        attrs=attrs,
        outputs={"Out": out, "Index": index, "NmsRoisNum": rois_num},
    )
    for v in (out, index, rois_num):
        v.stop_gradient = True
    return out, index, rois_num


def head(anchors: Any, feats: Any, scale: float) -> tuple[Any, Any]:
    """Per-anchor class logits and box deltas; decoded boxes [N, M, 4] and scores [N, C, M]."""
    w_cls = paddle.static.create_parameter([FEATURES, CLASSES], "float32", name="w_cls")
    w_box = paddle.static.create_parameter([FEATURES, 4], "float32", name="w_box")
    b_cls = paddle.static.create_parameter([CLASSES], "float32", name="b_cls", is_bias=True)
    boxes = anchors + paddle.tanh(paddle.matmul(feats, w_box)) * scale
    scores = paddle.transpose(F.softmax(paddle.matmul(feats, w_cls) * 2.0 + b_cls, axis=-1), [0, 2, 1])
    return boxes, scores


def program(tmp: Path, name: str, nms: Callable[[Any, Any], list[Any]], scale: float) -> tuple[Path, Any]:
    paddle.enable_static()
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        anchors = paddle.static.data("anchors", [-1, ANCHORS, 4], "float32")
        feats = paddle.static.data("feats", [-1, ANCHORS, FEATURES], "float32")
        outputs = nms(*head(anchors, feats, scale))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    prefix = tmp / name
    paddle.static.save_inference_model(str(prefix), [anchors, feats], outputs, exe, program=main)

    def run(inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        return [np.array(r) for r in exe.run(main, feed=inputs, fetch_list=outputs, return_numpy=False)]

    return prefix.with_suffix(".pdmodel"), run


def anchors(batch: int, seed: int, extent: float, crowded: bool = False) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    if crowded:  # a few objects, each covered by several near-duplicate anchors
        centers = np.repeat(rng.uniform(0.3, 0.7, (batch, ANCHORS // 8, 2)), 8, axis=1)
        xy = centers + rng.normal(0, 0.02, (batch, ANCHORS, 2)) - 0.1
        wh = np.full((batch, ANCHORS, 2), 0.2) + rng.normal(0, 0.01, (batch, ANCHORS, 2))
    else:
        xy = rng.uniform(0.0, 0.75, (batch, ANCHORS, 2))
        wh = rng.uniform(0.08, 0.25, (batch, ANCHORS, 2))
    boxes = (np.concatenate([xy, xy + wh], axis=-1) * extent).astype(np.float32)
    feats = rng.standard_normal((batch, ANCHORS, FEATURES)).astype(np.float32)
    return {"anchors": boxes, "feats": feats}


def multiclass_nms(tmp: Path) -> Made:
    def nms(boxes: Any, scores: Any) -> list[Any]:
        attrs = {
            "background_label": 0,
            "score_threshold": 0.05,
            "nms_top_k": 12,
            "nms_threshold": 0.45,
            "keep_top_k": 10,
            "nms_eta": 1.0,
            "normalized": False,
        }
        return list(multiclass_nms3(boxes, scores, **attrs))

    path, run = program(tmp, "multiclass_nms", nms, 1.0)
    cases = {
        "typical": anchors(1, 1, 64.0),
        "batch2": anchors(2, 2, 64.0),
        "crowded": anchors(1, 3, 64.0, crowded=True),
    }
    return path, cases, run


def matrix_nms(tmp: Path) -> Made:
    def nms(boxes: Any, scores: Any) -> list[Any]:
        out, rois_num, index = paddle.vision.ops.matrix_nms(
            boxes,
            scores,
            score_threshold=0.05,
            post_threshold=0.1,
            nms_top_k=12,
            keep_top_k=10,
            use_gaussian=True,
            gaussian_sigma=2.0,
            background_label=-1,
            normalized=True,
            return_index=True,
            return_rois_num=True,
        )
        return [out, index, rois_num]

    path, run = program(tmp, "matrix_nms", nms, 0.05)
    cases = {
        "typical": anchors(1, 4, 1.0),
        "batch2": anchors(2, 5, 1.0),
        "crowded": anchors(1, 6, 1.0, crowded=True),
    }
    return path, cases, run


MODELS: dict[str, tuple[Callable[[Path], Made], str]] = {
    "multiclass_nms": (
        multiclass_nms,
        (
            "head on 24 anchors (matmul class logits, tanh box deltas, softmax over 4 classes) -> multiclass_nms3 "
            "(background class 0, normalized=False, score 0.05, IoU 0.45, nms_top_k 12, keep_top_k 10) as "
            "MulticlassNms-9; outputs detections [K, 6] (class, score, box), indices [K, 1] and per-image counts; "
            "batch2: two images; crowded: 3 objects under 8 near-duplicate anchors each"
        ),
    ),
    "matrix_nms": (
        matrix_nms,
        (
            "the same head on normalized boxes -> paddle.vision.ops.matrix_nms (gaussian decay, sigma 2, no "
            "background, score 0.05, post threshold 0.1, nms_top_k 12, keep_top_k 10) as MatrixNms-8; outputs "
            "detections, indices and counts; batch2, crowded as for multiclass_nms"
        ),
    ),
}


def generate(name: str, make: Callable[[Path], Made], what: str, tmp: Path) -> None:
    import openvino as ov

    path, cases, run = make(tmp)
    converted = ov.convert_model(str(path))
    folder = Folder("paddle", name, GENERATOR)
    folder.save(converted)
    names = folder.input_names()
    worst = 0.0
    ints_equal = True
    for case, inputs in cases.items():
        out = folder.cpu_case(case, {n: inputs[n] for n in names})
        theirs = run(inputs)
        for ours, their in zip(out.values(), theirs, strict=True):
            if ours.dtype.kind in "iu":
                ints_equal &= ours.shape == their.shape and np.array_equal(ours, their.astype(ours.dtype))
            elif ours.shape == their.shape:
                worst = max(worst, max_diff({"o": ours}, {"o": their}))
            else:
                ints_equal = False
    folder.meta(
        source=(
            "PaddlePaddle 2.6.2 static program saved with paddle.static.save_inference_model (random init, seed 0), "
            "ov.convert_model(.pdmodel), f16-compressed"
        ),
        expected_from="cpu",
        atol=1e-5,
        rtol=1e-5,
        notes=(
            f"{what}. Cases: {', '.join(cases)}. {TOL} OpenVINO CPU vs Paddle at generation (Paddle with f32 "
            f"weights, the IR's are f16): detections <= {worst:.2g}, indices and counts "
            f"{'equal' if ints_equal else 'DIFFER'}."
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for name, (make, what) in MODELS.items():
        if re.search(args.only, name):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    generate(name, make, what, Path(tmp))
                except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                    print(f"{name}: FAILED {type(exc).__name__}: {str(exc)[:600]}", flush=True)


if __name__ == "__main__":
    main()
