"""Generate ir/corpus/paddle/: PaddlePaddle models with one_hot, converted by OpenVINO's Paddle frontend.

Runs in a venv with **paddlepaddle 2.6.2** (``pip install paddlepaddle==2.6.2 "numpy<2"
openvino==2026.4.1 ml_dtypes``): Paddle 3 saves inference models as PIR ``.json``, which OpenVINO
2026.4's Paddle frontend cannot read ("Cannot recognize input model"; PIR support was proposed in
openvinotoolkit/openvino PRs 32723/34734/34736, none merged), and Paddle 3.3's legacy static mode
(FLAGS_enable_pir_api=0) fails on most ops (``sum(): argument (position 1) must be Value``). Paddle 2.6
writes the ``.pdmodel`` protobuf users have.

Random-init models (``paddle.seed(0)``, nothing downloaded), ``ov.convert_model("<x>.pdmodel")``, saved
with ``ov.save_model`` (f16-compressed weights):

* ``paddle/static_one_hot``: a static program (``paddle.static``): ``F.one_hot(ids, 6)`` (one_hot_v2),
  Reshape, MatMul + bias, ReLU, mean, softmax; outputs the probabilities and the one-hot tensor;
  saved with ``paddle.static.save_inference_model``;
* ``paddle/jit_label_smoothing``: a dygraph ``nn.Layer`` saved with ``paddle.jit.save`` (dynamic
  batch): Embedding + mean pooling + Linear logits, and a label-smoothed cross entropy built from
  ``F.one_hot(labels, C) * 0.9 + 0.1 / C`` (``F.label_smooth`` has no creator in OpenVINO's Paddle
  frontend: "No creator found for label_smooth node"; nor has ``log_softmax``: ``log(softmax)``);
  outputs loss and probabilities;
* ``paddle/jit_cnn``: a dygraph CNN (Conv2D, BatchNorm2D, ReLU, MaxPool2D, AdaptiveAvgPool2D,
  Linear) saved with ``paddle.jit.save``.

Expected outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG).

    /work/gen/paddle26/bin/python ir/corpus/generate_paddle.py [--only REGEX]
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
from paddle import nn

GENERATOR = "ir/corpus/generate_paddle.py"
ATOL, RTOL = 1e-6, 1e-5
TOL = (
    "Tolerance: float sums (MatMul, reductions, convolutions) in the CPU plugin's order vs the reference's "
    "(FACTS: ~1e-6 of the output's magnitude); measured |ovonehot - CPU| at commit time in "
    "ir/corpus/README.md, tolerance ~10x that."
)
Made = tuple[Path, dict[str, dict[str, np.ndarray]], Callable[[dict[str, np.ndarray]], list[np.ndarray]]]


def static_one_hot(tmp: Path) -> Made:
    paddle.enable_static()
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        ids = paddle.static.data("ids", [-1, 4], "int64")
        encoded = F.one_hot(ids, num_classes=6)
        flat = paddle.reshape(encoded, [-1, 24])
        w = paddle.static.create_parameter([24, 3], "float32", name="w")
        b = paddle.static.create_parameter([3], "float32", name="b", is_bias=True)
        h = paddle.matmul(flat, w) + b
        probs = F.softmax(F.relu(h) * 2.0 + paddle.mean(h), axis=-1)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    prefix = tmp / "static_one_hot"
    paddle.static.save_inference_model(str(prefix), [ids], [probs, encoded], exe, program=main)

    def run(inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        return list(exe.run(main, feed=inputs, fetch_list=[probs, encoded]))

    cases = {
        "typical": {"ids": np.random.default_rng(1).integers(0, 6, size=(3, 4)).astype(np.int64)},
        "one_row": {"ids": np.array([[5, 0, 0, 2]], np.int64)},
    }
    return prefix.with_suffix(".pdmodel"), cases, run


class LabelSmoothing(nn.Layer):
    def __init__(self, vocab: int = 20, classes: int = 5) -> None:
        super().__init__()
        self.classes = classes
        self.embedding = nn.Embedding(vocab, 8)
        self.head = nn.Linear(8, classes)

    def forward(self, tokens: paddle.Tensor, labels: paddle.Tensor) -> tuple[paddle.Tensor, paddle.Tensor]:
        logits = self.head(self.embedding(tokens).mean(axis=1))
        # written out: Paddle's label_smooth op has no creator in OpenVINO's Paddle frontend
        target = F.one_hot(labels, self.classes) * 0.9 + 0.1 / self.classes
        probs = F.softmax(logits, axis=-1)
        loss = -(target * paddle.log(probs)).sum(axis=-1).mean()  # log_softmax has no creator either
        return loss, probs


class SmallCNN(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(3, 8, 3, padding=1),
            nn.BatchNorm2D(8),
            nn.ReLU(),
            nn.MaxPool2D(2),
            nn.Conv2D(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2D(1),
        )
        self.classifier = nn.Linear(16, 4)

    def forward(self, image: paddle.Tensor) -> paddle.Tensor:
        return self.classifier(paddle.flatten(self.features(image), 1))


def _jit(
    layer: nn.Layer, specs: list[Any], prefix: Path
) -> Callable[[dict[str, np.ndarray]], list[np.ndarray]]:
    layer.eval()
    paddle.jit.save(layer, str(prefix), input_spec=specs)

    def run(inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
        out = layer(*[paddle.to_tensor(v) for v in inputs.values()])
        return [o.numpy() for o in (out if isinstance(out, tuple | list) else [out])]

    return run


def jit_label_smoothing(tmp: Path) -> Made:
    paddle.disable_static()
    paddle.seed(0)
    specs = [
        paddle.static.InputSpec([None, 6], "int64", "tokens"),
        paddle.static.InputSpec([None], "int64", "labels"),
    ]
    run = _jit(LabelSmoothing(), specs, tmp / "label_smoothing")
    rng = np.random.default_rng(2)
    cases = {
        "typical": {
            "tokens": rng.integers(0, 20, size=(4, 6)).astype(np.int64),
            "labels": np.array([0, 4, 2, 2]),
        },
        "one_row": {"tokens": rng.integers(0, 20, size=(1, 6)).astype(np.int64), "labels": np.array([3])},
    }
    return tmp / "label_smoothing.pdmodel", cases, run


def jit_cnn(tmp: Path) -> Made:
    paddle.disable_static()
    paddle.seed(0)
    model = SmallCNN()
    with paddle.no_grad():
        bn = model.features[1]
        bn._mean.set_value(paddle.uniform([8], min=-0.5, max=0.5, seed=1))
        bn._variance.set_value(paddle.uniform([8], min=0.5, max=2.0, seed=2))
    run = _jit(model, [paddle.static.InputSpec([None, 3, 16, 16], "float32", "image")], tmp / "cnn")
    rng = np.random.default_rng(3)
    cases = {
        "typical": {"image": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)},
        "batch2": {"image": rng.standard_normal((2, 3, 16, 16)).astype(np.float32)},
    }
    return tmp / "cnn.pdmodel", cases, run


MODELS: dict[str, tuple[Callable[[Path], Made], str, str]] = {
    "static_one_hot": (
        static_one_hot,
        "paddle.static program saved with paddle.static.save_inference_model",
        (
            "F.one_hot (one_hot_v2, depth 6) -> Reshape -> MatMul + bias -> ReLU, mean -> softmax; outputs "
            "the probabilities and the one-hot tensor"
        ),
    ),
    "jit_label_smoothing": (
        jit_label_smoothing,
        "dygraph nn.Layer saved with paddle.jit.save",
        (
            "Embedding + mean pooling + Linear; label-smoothed cross entropy from F.one_hot(labels, 5) * 0.9 + "
            "0.02 (F.label_smooth has no creator in OpenVINO's Paddle frontend), log(softmax) (log_softmax has none "
            "either); outputs loss (0-d) and probabilities"
        ),
    ),
    "jit_cnn": (
        jit_cnn,
        "dygraph nn.Layer saved with paddle.jit.save",
        "Conv2D, BatchNorm2D (inference), ReLU, MaxPool2D, strided Conv2D, AdaptiveAvgPool2D, Linear",
    ),
}


def generate(name: str, make: Callable[[Path], Made], how: str, what: str, tmp: Path) -> None:
    import openvino as ov

    path, cases, run = make(tmp)
    converted = ov.convert_model(str(path))
    folder = Folder("paddle", name, GENERATOR)
    folder.save(converted)
    names = folder.input_names()
    worst = 0.0
    for case, inputs in cases.items():
        out = folder.cpu_case(case, {n: inputs[n] for n in names})
        theirs = run(inputs)
        if len(theirs) == len(out):
            worst = max(worst, max_diff(dict(enumerate(out.values())), dict(enumerate(theirs))))
    folder.meta(
        source=f"PaddlePaddle 2.6.2 {how} (random init, seed 0), ov.convert_model(.pdmodel), f16-compressed",
        expected_from="cpu",
        atol=ATOL,
        rtol=RTOL,
        notes=f"{what}. Cases: {', '.join(cases)}. {TOL} OpenVINO CPU vs Paddle at generation: <= {worst:.2g}.",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for name, (make, how, what) in MODELS.items():
        if re.search(args.only, name):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    generate(name, make, how, what, Path(tmp))
                except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                    print(f"{name}: FAILED {type(exc).__name__}: {str(exc)[:400]}", flush=True)


if __name__ == "__main__":
    main()
