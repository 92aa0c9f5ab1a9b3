"""Generate ir/corpus/tensorflow/ models that use CTC decoding/loss, SpaceToBatch and ExtractImagePatches.

Random-init TensorFlow graphs (fixed NumPy seeds, nothing downloaded), converted by OpenVINO's
TensorFlow frontend (``ov.convert_model``) and saved with ``ov.save_model`` (f16-compressed weights):

* ``tensorflow/ctc_greedy_decoder``: a ``tf.Module`` saved with ``tf.saved_model.save`` (dynamic
  time and batch): a per-frame Dense projection of features to 6 classes, log-softmax, and
  ``tf.nn.ctc_greedy_decoder`` (merge_repeated); outputs the decoded SparseTensor's indices, values
  and dense shape, the dense decoded labels (``tf.sparse.to_dense``, -1 padded) and the negative sum
  of the best logits -> CTCGreedyDecoderSeqLen-6, NonZero, GatherND, ScatterNDUpdate;
* ``tensorflow/ctc_loss``: a ``tf.function``: ``tf.nn.ctc_loss`` with SparseTensor labels built from
  0-padded dense labels (``tf.sparse.from_dense``) -> CTCLoss-4. With dense labels TF 2.21 computes
  the loss with a While loop (MatrixDiagV3, Empty) that OpenVINO's frontend cannot convert;
* ``tensorflow/dilated_conv_space_to_batch``: a SavedModel with a dynamic image size:
  Conv2D, ``tf.nn.atrous_conv2d`` (rate 2), a dilated ``tf.nn.depthwise_conv2d`` (rate 3), 1x1
  Conv2D. TF writes the dilated ones as SpaceToBatchND -> conv -> BatchToSpaceND with paddings
  computed from the input shape; OpenVINO keeps SpaceToBatch-2/BatchToSpace-2 (with a static image
  size its transformations fuse them back into a dilated Convolution, so the size is dynamic);
* ``tensorflow/extract_patches``: ``tf.image.extract_patches`` (3x3 SAME stride 2; 2x2 VALID
  stride 3 rate 2) on a dynamic NHWC image -> ExtractImagePatches-3.

Expected outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG); TensorFlow's
outputs are compared at generation time and the largest difference goes into the notes.

    /work/gen/tf/bin/python ir/corpus/generate_tf_ops.py [--only REGEX]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tensorflow as tf
from corpus_common import Folder, max_diff

GENERATOR = "ir/corpus/generate_tf_ops.py"
TOL = (
    "Tolerance: float sums (MatMul, convolutions, log-softmax, CTC's log-sum-exp) in the CPU plugin's "
    "order vs the reference's (FACTS: ~1e-6 of the output's magnitude); integer outputs exact."
)
Made = tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]


def normal(shape: tuple[int, ...], seed: int, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def saved(module: Any, f: Any, tmp: Path) -> str:
    """``module`` (holding f's variables) saved as a SavedModel whose serving signature is ``f``."""
    module.f = f
    path = tmp / "savedmodel"
    tf.saved_model.save(module, str(path), signatures=f)
    return str(path)


# -- the models -------------------------------------------------------------------------------------


def ctc_greedy_decoder(tmp: Path) -> Made:
    module = tf.Module()
    module.w = tf.Variable(normal((8, 6), 1, 0.8))
    module.b = tf.Variable(normal((6,), 2, 0.3))

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, None, 8], tf.float32, name="features"),  # [time, batch, features]
            tf.TensorSpec([None], tf.int32, name="seq_len"),
        ]
    )
    def f(features: tf.Tensor, seq_len: tf.Tensor) -> dict[str, tf.Tensor]:
        logits = tf.nn.log_softmax(tf.einsum("tbf,fc->tbc", features, module.w) + module.b)
        decoded, neg_sum_logits = tf.nn.ctc_greedy_decoder(logits, seq_len, merge_repeated=True)
        sparse = decoded[0]
        return {
            "indices": sparse.indices,
            "values": sparse.values,
            "dense_shape": sparse.dense_shape,
            "dense": tf.sparse.to_dense(sparse, default_value=-1),
            "neg_sum_logits": neg_sum_logits,
        }

    path = saved(module, f, tmp)
    cases = {
        "typical": {"features": normal((10, 3, 8), 3), "seq_len": np.array([10, 7, 4], np.int32)},
        "one_frame": {"features": normal((1, 2, 8), 4), "seq_len": np.array([1, 1], np.int32)},
        "long": {"features": normal((24, 1, 8), 5, 0.5), "seq_len": np.array([24], np.int32)},
    }
    return path, cases, f


def ctc_loss(tmp: Path) -> Made:
    @tf.function(
        input_signature=[
            tf.TensorSpec([None, None], tf.int32, name="labels"),  # [batch, max label length], 0-padded
            tf.TensorSpec([None, None, 5], tf.float32, name="logits"),  # [batch, time, classes]
            tf.TensorSpec([None], tf.int32, name="logit_length"),
        ]
    )
    def f(labels: tf.Tensor, logits: tf.Tensor, logit_length: tf.Tensor) -> tf.Tensor:
        sparse = tf.sparse.from_dense(labels)  # the 0 padding drops out; classes 1..3, blank 4
        return tf.nn.ctc_loss(sparse, logits, None, logit_length, logits_time_major=False, blank_index=-1)

    cases = {
        "typical": {
            "labels": np.array([[1, 2, 2, 3], [3, 1, 0, 0]], np.int32),
            "logits": normal((2, 8, 5), 6),
            "logit_length": np.array([8, 5], np.int32),
        },
        "repeats_need_blanks": {
            "labels": np.array([[2, 2, 2]], np.int32),
            "logits": normal((1, 6, 5), 7, 2.0),
            "logit_length": np.array([6], np.int32),
        },
    }
    return f, cases, f


def dilated_conv_space_to_batch(tmp: Path) -> Made:
    m = tf.Module()
    m.w1 = tf.Variable(normal((3, 3, 3, 8), 11, 0.4))
    m.w2 = tf.Variable(normal((3, 3, 8, 8), 12, 0.2))
    m.b2 = tf.Variable(normal((8,), 13, 0.1))
    m.dw = tf.Variable(normal((3, 3, 8, 1), 14, 0.3))
    m.w3 = tf.Variable(normal((1, 1, 8, 4), 15, 0.4))

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32, name="image")])
    def f(image: tf.Tensor) -> tf.Tensor:
        x = tf.nn.relu(tf.nn.conv2d(image, m.w1, 1, "SAME"))
        x = tf.nn.relu(tf.nn.atrous_conv2d(x, m.w2, rate=2, padding="SAME") + m.b2)
        x = tf.nn.relu6(tf.nn.depthwise_conv2d(x, m.dw, [1, 1, 1, 1], "SAME", dilations=[3, 3]))
        return tf.nn.conv2d(x, m.w3, 1, "VALID")

    path = saved(m, f, tmp)
    cases = {
        "typical": {"image": normal((1, 16, 16, 3), 16)},
        "odd_size": {"image": normal((1, 13, 11, 3), 17)},
        "batch2": {"image": normal((2, 9, 14, 3), 18)},
    }
    return path, cases, f


def extract_patches(tmp: Path) -> Made:
    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32, name="image")])
    def f(image: tf.Tensor) -> dict[str, tf.Tensor]:
        same = tf.image.extract_patches(image, [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        valid = tf.image.extract_patches(image, [1, 2, 2, 1], [1, 3, 3, 1], [1, 2, 2, 1], "VALID")
        return {"same": same, "valid_dilated": valid}

    cases = {
        "typical": {"image": normal((1, 8, 8, 3), 21)},
        "odd_size": {"image": normal((2, 7, 10, 3), 22)},
    }
    return f, cases, f


MODELS: dict[str, tuple[str, Callable[[Path], Made], str]] = {
    "ctc_greedy_decoder": (
        "tf.saved_model.save of a tf.Module",
        ctc_greedy_decoder,
        (
            "Dense projection (einsum) + log_softmax over 6 classes, tf.nn.ctc_greedy_decoder (merge_repeated, "
            "blank = last class); outputs the SparseTensor's indices/values/dense_shape, tf.sparse.to_dense "
            "(-1 padded) and neg_sum_logits; dynamic time and batch; sequence lengths shorter than the time axis. "
            "Converter deviation: OpenVINO's TF frontend computes neg_sum_logits as -ReduceSum(ReduceMax(logits)) "
            "over every frame, ignoring seq_len (TF sums the first seq_len frames only), so rows with seq_len < "
            "time differ from TF by the dropped frames' maxima; the expected values are OpenVINO's (what the IR "
            "says), the decoded labels equal TF's"
        ),
    ),
    "ctc_loss": (
        "tf.function",
        ctc_loss,
        (
            "tf.nn.ctc_loss (logits [batch, time, 5], blank_index -1) with SparseTensor labels from "
            "tf.sparse.from_dense of 0-padded labels (dense labels make TF compute the loss in a While loop "
            "with MatrixDiagV3/Empty, which OpenVINO's frontend cannot convert); repeats_need_blanks: a label "
            "2,2,2 in 6 frames"
        ),
    ),
    "dilated_conv_space_to_batch": (
        "tf.saved_model.save of a tf.Module",
        dilated_conv_space_to_batch,
        (
            "Conv2D, tf.nn.atrous_conv2d rate 2 (+bias, ReLU), dilated depthwise_conv2d rate 3 (ReLU6), 1x1 Conv2D "
            "on a dynamic NHWC image: TF's SpaceToBatchND/BatchToSpaceND with shape-computed paddings stay "
            "SpaceToBatch-2/BatchToSpace-2 (a static size is fused into dilated convolutions); odd sizes need "
            "padding and crops"
        ),
    ),
    "extract_patches": (
        "tf.function",
        extract_patches,
        (
            "tf.image.extract_patches 3x3 stride 2 SAME and 2x2 stride 3 rate 2 VALID on a dynamic NHWC image "
            "(ExtractImagePatches-3)"
        ),
    ),
}


def framework_outputs(run: Callable[..., Any], inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = run(*[tf.constant(v) for v in inputs.values()])
    if isinstance(out, dict):
        return {k: np.asarray(v) for k, v in out.items()}
    return {"0": np.asarray(out)}


def generate(name: str, how: str, make: Callable[[Path], Made], what: str, tmp: Path) -> None:
    import openvino as ov

    source, cases, run = make(tmp)
    converted = ov.convert_model(source)
    key = ["conversion_parameters", "input_model"]
    if converted.has_rt_info(key):  # the temporary directory's name would make every run's .xml differ
        converted.set_rt_info(f"DIR/{Path(str(source)).name}", key)
    folder = Folder("tensorflow", name, GENERATOR)
    folder.save(converted)
    names = folder.input_names()
    worst: dict[str, float] = {}
    for case, inputs in cases.items():
        fed = {n: inputs[n.split(":")[0].removeprefix("serving_default_")] for n in names}
        out = folder.cpu_case(case, fed)
        theirs = framework_outputs(run, inputs)
        ours = {k.split(":")[0]: v for k, v in out.items()}
        if len(out) == 1 and len(theirs) == 1:
            ours, theirs = {"0": next(iter(out.values()))}, {"0": next(iter(theirs.values()))}
        for k, v in theirs.items():
            if k in ours and np.asarray(v).dtype.kind in "iu":
                same = np.array_equal(np.asarray(ours[k]).astype(np.int64), v.astype(np.int64))
                assert same, f"{name}/{case}: integer output {k} differs from TensorFlow's"
        for k in theirs:
            worst[k] = max(worst.get(k, 0.0), max_diff({k: ours.get(k, theirs[k])}, {k: theirs[k]}))
    diffs = ", ".join(f"{k} {v:.2g}" for k, v in sorted(worst.items()))
    folder.meta(
        source=f"{what.split(';')[0]} (random init): {how}, converted by ov.convert_model, f16-compressed",
        expected_from="cpu",
        atol=1e-5,
        rtol=1e-5,
        notes=(
            f"{what}. Cases: {', '.join(cases)}. {TOL} OpenVINO CPU vs TensorFlow at generation (TF with f32 weights, "
            f"the IR's are f16): {diffs} (integer outputs equal)."
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for name, (how, make, what) in MODELS.items():
        if re.search(args.only, name):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    generate(name, how, make, what, Path(tmp))
                except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                    print(f"{name}: FAILED {type(exc).__name__}: {str(exc)[:600]}", flush=True)


if __name__ == "__main__":
    main()
