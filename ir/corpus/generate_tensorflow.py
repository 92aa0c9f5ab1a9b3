"""Generate ir/corpus/tensorflow/ and ir/corpus/tflite/: TensorFlow, Keras and TFLite models with one-hot.

Random-init models (``tf.keras.utils.set_random_seed(0)``, nothing downloaded), converted by OpenVINO's
TensorFlow / TensorFlow Lite frontends and saved with ``ov.save_model`` (f16-compressed weights):

* ``tensorflow/tf_function_one_hot``: a ``tf.function`` (input signature with a dynamic batch) doing
  ``tf.one_hot`` of ids (depth 7, on 2.0, off -0.5, axis -1) then a matmul with a weight table and a
  softmax; converted with ``ov.convert_model(tf.function)``;
* ``tensorflow/savedmodel_one_hot_axis0``: a ``tf.Module`` saved with ``tf.saved_model.save``: one-hot
  on axis 0 (i32 ids, negative and out-of-range ones included), a reduction and ``tf.argmax``;
  converted from the SavedModel directory;
* ``tensorflow/keras_category_encoding``: a Keras 3 functional model exported as a SavedModel: an
  integer column through ``CategoryEncoding(output_mode="one_hot")``, a multi-hot of tags as
  ``max(one_hot(...))`` (CategoryEncoding's multi_hot/count modes, and tf_keras's CategoryEncoding,
  go through DenseBincount, which OpenVINO's TF frontend cannot convert), a numeric column,
  Dense + ReLU + Dense + softmax;
* ``tensorflow/keras_embedding_lstm``: Keras 2 Embedding -> LSTM -> Dense over token ids;
* ``tflite/one_hot_dense``: ``tf.lite.TFLiteConverter`` of a concrete function (one_hot + dense +
  softmax, float32, no quantization), then ``ov.convert_model("model.tflite")``; model.tflite kept;
* ``tflite/keras_cnn``: a small Keras 2 CNN (Conv2D, DepthwiseConv2D, MaxPool, GlobalAveragePool,
  Dense) through the TFLite converter.

Expected outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG).

    /work/gen/tf/bin/python ir/corpus/generate_tensorflow.py [--only REGEX]
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
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.keras is tf_keras (Keras 2), as OpenVINO's docs use
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tensorflow as tf
import tf_keras as keras
from corpus_common import Folder, max_diff

GENERATOR = "ir/corpus/generate_tensorflow.py"
ATOL, RTOL = 1e-6, 1e-5
TOL = (
    "Tolerance: float sums (MatMul, reductions, convolutions, LSTM gates) in the CPU plugin's order vs the "
    "reference's (FACTS: ~1e-6 of the output's magnitude); measured |ovonehot - CPU| at commit time in "
    "ir/corpus/README.md, tolerance ~10x that."
)


def seed() -> None:
    keras.utils.set_random_seed(0)
    tf.random.set_seed(0)


def ids(shape: tuple[int, ...], low: int, high: int, seed_: int, dtype: Any = np.int32) -> np.ndarray:
    return np.random.default_rng(seed_).integers(low, high, size=shape).astype(dtype)


# -- the models -------------------------------------------------------------------------------------


def tf_function_one_hot(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    seed()
    table = tf.constant(np.random.default_rng(1).standard_normal((7, 5)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.int32, name="ids")])
    def f(ids_: tf.Tensor) -> tf.Tensor:
        encoded = tf.one_hot(ids_, depth=7, on_value=2.0, off_value=-0.5, axis=-1)
        return tf.nn.softmax(tf.reduce_sum(tf.matmul(encoded, table), axis=1))

    cases = {
        "typical": {"ids": ids((3, 6), 0, 7, 1)},
        "out_of_range": {"ids": np.array([[0, 6, 7, -1, 100, 3]], np.int32)},
    }
    return f, cases, f


def savedmodel_one_hot_axis0(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    class Counts(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32, name="labels")])
        def __call__(self, labels: tf.Tensor) -> dict[str, tf.Tensor]:
            encoded = tf.one_hot(labels, depth=5, axis=0, dtype=tf.float32)  # [5, n]
            counts = tf.reduce_sum(encoded, axis=1)
            return {"encoded": encoded, "counts": counts, "mode": tf.argmax(counts, output_type=tf.int32)}

    module = Counts()
    path = tmp / "savedmodel"
    tf.saved_model.save(module, str(path))
    cases = {
        "typical": {"labels": np.array([0, 1, 1, 4, 2, 1, 3], np.int32)},
        "negative_and_large": {"labels": np.array([-1, 5, 2, 2, -7, 4], np.int32)},
    }
    return str(path), cases, module.__call__


def keras_category_encoding(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    """Keras 3 (tf_keras's CategoryEncoding, and Keras 3's in multi_hot/count mode, compute through
    DenseBincount, which OpenVINO's TensorFlow frontend cannot convert): exported as a SavedModel."""
    import keras as keras3

    keras3.utils.set_random_seed(0)
    color = keras3.Input(shape=(1,), dtype="int32", name="color")
    tags = keras3.Input(shape=(3,), dtype="int32", name="tags")
    numeric = keras3.Input(shape=(2,), dtype="float32", name="numeric")
    one_hot = keras3.layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")(color)
    # multi-hot the way one writes it when CategoryEncoding's multi_hot does not convert
    multi_hot = keras3.ops.max(keras3.ops.one_hot(tags, 6), axis=1)
    x = keras3.layers.Concatenate()([one_hot, multi_hot, numeric])
    x = keras3.layers.Dense(8, activation="relu")(x)
    out = keras3.layers.Dense(3, activation="softmax", name="probabilities")(x)
    model = keras3.Model([color, tags, numeric], out)
    path = tmp / "keras3_savedmodel"
    model.export(str(path), format="tf_saved_model", verbose=False)
    cases = {
        "typical": {
            "color": ids((4, 1), 0, 4, 2),
            "tags": ids((4, 3), 0, 6, 3),
            "numeric": np.random.default_rng(4).standard_normal((4, 2)).astype(np.float32),
        },
        "repeated_tags": {
            "color": np.array([[3]], np.int32),
            "tags": np.array([[5, 5, 0]], np.int32),
            "numeric": np.array([[0.5, -2.0]], np.float32),
        },
    }
    return str(path), cases, model


def keras_embedding_lstm(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    seed()
    tokens = keras.Input(shape=(None,), dtype="int32", name="tokens")
    x = keras.layers.Embedding(20, 8)(tokens)
    x = keras.layers.LSTM(8)(x)
    out = keras.layers.Dense(4, name="logits")(x)
    model = keras.Model(tokens, out)
    cases = {"typical": {"tokens": ids((2, 6), 0, 20, 5)}, "short": {"tokens": ids((1, 2), 0, 20, 6)}}
    return model, cases, model


def tflite_one_hot_dense(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    seed()
    weights = tf.constant(np.random.default_rng(7).standard_normal((6, 4)).astype(np.float32))
    bias = tf.constant(np.random.default_rng(8).standard_normal((4,)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.int32, name="ids")])
    def f(ids_: tf.Tensor) -> tf.Tensor:
        encoded = tf.one_hot(ids_, depth=6)
        pooled = tf.reduce_mean(encoded, axis=1)
        return tf.nn.softmax(tf.matmul(pooled, weights) + bias)

    converter = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    path = tmp / "model.tflite"
    path.write_bytes(converter.convert())
    cases = {
        "typical": {"ids": ids((2, 5), 0, 6, 9)},
        "out_of_range": {"ids": np.array([[0, 5, 6, -1, 2]] * 2, np.int32)},
    }
    return str(path), cases, f


def tflite_keras_cnn(tmp: Path) -> tuple[Any, dict[str, dict[str, np.ndarray]], Callable[..., Any]]:
    seed()
    model = keras.Sequential(
        [
            keras.Input(shape=(16, 16, 3), batch_size=1, name="image"),
            keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Conv2D(16, 3, strides=2, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(5, activation="softmax"),
        ]
    )
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    path = tmp / "model.tflite"
    path.write_bytes(converter.convert())
    image = np.random.default_rng(10).standard_normal((1, 16, 16, 3)).astype(np.float32)
    return str(path), {"typical": {"image": image}}, model


MODELS: dict[str, tuple[str, Callable[[Path], Any], str]] = {
    "tensorflow/tf_function_one_hot": (
        "tf.function",
        tf_function_one_hot,
        (
            "tf.one_hot (depth 7, on 2.0, off -0.5) -> MatMul -> ReduceSum -> Softmax; out_of_range: ids 7, -1, "
            "100 give all-off rows"
        ),
    ),
    "tensorflow/savedmodel_one_hot_axis0": (
        "tf.saved_model.save of a tf.Module",
        savedmodel_one_hot_axis0,
        (
            "tf.one_hot on axis 0 of i32 labels, class counts (ReduceSum) and the most frequent class (ArgMax, "
            "i32 output); negative and out-of-range labels are all-off columns"
        ),
    ),
    "tensorflow/keras_category_encoding": (
        "Keras 3 functional model exported with model.export(format='tf_saved_model')",
        keras_category_encoding,
        (
            "Keras 3 CategoryEncoding one_hot (num_tokens 4) of an int column, a multi-hot of 3 tags written "
            "as max(one_hot(tags, 6)) (CategoryEncoding's multi_hot and count modes, and tf_keras's "
            "CategoryEncoding, compute through DenseBincount, which OpenVINO's TF frontend cannot convert), "
            "Concatenate with a numeric column, Dense/ReLU/Dense/softmax; repeated_tags: a tag twice is still 1"
        ),
    ),
    "tensorflow/keras_embedding_lstm": (
        "tf_keras functional model",
        keras_embedding_lstm,
        "Keras Embedding -> LSTM (8 units) -> Dense over a dynamic number of tokens",
    ),
    "tflite/one_hot_dense": (
        "tf.lite.TFLiteConverter.from_concrete_functions, then ov.convert_model('model.tflite')",
        tflite_one_hot_dense,
        "TFLite ONE_HOT (depth 6) -> MEAN -> FULLY_CONNECTED -> SOFTMAX, static [2,5] i32 ids",
    ),
    "tflite/keras_cnn": (
        "tf.lite.TFLiteConverter.from_keras_model, then ov.convert_model('model.tflite')",
        tflite_keras_cnn,
        "TFLite CONV_2D, DEPTHWISE_CONV_2D (relu6), MAX_POOL_2D, MEAN, FULLY_CONNECTED, SOFTMAX (NHWC)",
    ),
}


def framework_outputs(run: Callable[..., Any], inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    if hasattr(run, "inputs") and hasattr(run, "layers"):  # a Keras model (tf_keras or Keras 3)
        names = [getattr(i, "name", "").split(":")[0] for i in run.inputs]
        out = run([inputs[n] for n in names]) if len(names) > 1 else run(next(iter(inputs.values())))
    else:
        out = run(*[tf.constant(v) for v in inputs.values()])
    if isinstance(out, dict):
        return [np.asarray(out[k]) for k in sorted(out)]
    return [np.asarray(o) for o in (out if isinstance(out, list | tuple) else [out])]


def feed(names: list[str], inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inputs keyed by the IR's names (TFLite and SavedModel prefix and suffix them)."""
    if len(names) == 1 and len(inputs) == 1:
        return {names[0]: next(iter(inputs.values()))}
    fed = {}
    for n in names:
        bare = n.split(":")[0].removeprefix("serving_default_")
        fed[n] = inputs[n] if n in inputs else inputs[bare]
    return fed


def generate(rel: str, how: str, make: Callable[[Path], Any], what: str, tmp: Path) -> None:
    import openvino as ov

    source, cases, run = make(tmp)
    converted = ov.convert_model(source)
    group, name = rel.split("/")
    folder = Folder(group, name, GENERATOR)
    folder.save(converted)
    if isinstance(source, str) and source.endswith(".tflite"):
        (folder.path / "model.tflite").write_bytes(Path(source).read_bytes())
    names = folder.input_names()
    worst = 0.0
    for case, inputs in cases.items():
        fed = feed(names, inputs)
        out = folder.cpu_case(case, fed)
        theirs = framework_outputs(run, inputs)
        if len(theirs) == len(out):
            ours = [out[k] for k in sorted(out)] if len(out) > 1 else list(out.values())
            worst = max(worst, max_diff(dict(enumerate(ours)), dict(enumerate(theirs))))
    folder.meta(
        source=f"{what.split(';')[0]} (random init, seed 0): {how}, converted by ov.convert_model, f16-compressed",
        expected_from="cpu",
        atol=ATOL,
        rtol=RTOL,
        notes=f"{what}. Cases: {', '.join(cases)}. {TOL} OpenVINO CPU vs TensorFlow at generation: <= {worst:.2g}.",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for rel, (how, make, what) in MODELS.items():
        if re.search(args.only, rel):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    generate(rel, how, make, what, Path(tmp))
                except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                    print(f"{rel}: FAILED {type(exc).__name__}: {str(exc)[:400]}", flush=True)


if __name__ == "__main__":
    main()
