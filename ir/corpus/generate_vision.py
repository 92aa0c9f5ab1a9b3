"""Generate ir/corpus/vision/: tiny random-init vision models (classifiers, a detector, segmentation).

Every model is random-init from a fixed seed (``torch.manual_seed(0)``), nothing downloaded, with
widths cut down so each IR is a few hundred KB; converted by ``ov.convert_model(model,
example_input=...)`` and saved with ``ov.save_model`` (f16-compressed weights). Expected outputs:
the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG).

* ``resnet_timm``: timm ``ResNet`` (BasicBlock, layers [2,2,2,2], channels 8/16/32/64, stem 8);
* ``convnext_timm``: timm ``ConvNeXt`` (depths 1,1,1,1, dims 8/16/32/64: 7x7 depthwise convs,
  LayerNorm2d, GELU, layer scale);
* ``vit_timm``: timm ``VisionTransformer`` (32 x 32 images, 8 x 8 patches, width 16, depth 2);
* ``mobilenet_v3_torchvision``: torchvision ``mobilenet_v3_small(width_mult=0.25)`` (hardswish,
  squeeze-excitation, depthwise convs);
* ``detector_nms_roialign``: a tiny two-stage detector: conv backbone, an anchor head (box deltas and
  objectness), box decoding, ``torchvision::nms`` then ``torchvision::roi_align`` on the kept boxes and
  a classification head on the pooled features (NonMaxSuppression-9, ROIAlign-9 in the IR);
* ``unet``: a tiny UNet (two levels: Conv/BatchNorm/ReLU, MaxPool, ConvTranspose2d, skip concat) with
  logits and the argmax class map;
* ``fcn_bilinear``: an FCN-style net whose logits are upsampled by ``F.interpolate(bilinear,
  align_corners=False)`` (Interpolate-11), with a softmax output;
* ``onnx/resnet_timm``, ``onnx/unet``, ``onnx/fcn_bilinear``: the same three through
  ``torch.onnx.export`` (TorchScript exporter, opset 17, dynamic batch and spatial dims) and
  ``ov.convert_model(model.onnx)`` (ONNX Resize becomes Interpolate linear_onnx); model.onnx kept.

torchvision's C++ ops do not load in /work/gen/torch (a CUDA wheel beside the CPU torch): the
detector traces ``torch.ops.torchvision.nms``/``roi_align`` declared here with ``torch.library``
(schemas as torchvision declares them; their Python bodies only give the tracer outputs of the right
type: the IR holds OpenVINO's own NonMaxSuppression/ROIAlign, and the expectation is OpenVINO's).

    /work/gen/torch/bin/python ir/corpus/generate_vision.py [--only REGEX]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_common import Folder, hide_broken_torchvision, max_diff

hide_broken_torchvision()

import torch  # noqa: E402 - after hide_broken_torchvision(), which must run before torch loads
import torch.nn.functional as F  # noqa: E402 - as above
from torch import nn  # noqa: E402 - as above

GENERATOR = "ir/corpus/generate_vision.py"


def register_torchvision_ops() -> None:
    """Declare torchvision::nms and torchvision::roi_align (torchvision's schemas) when its C++ library
    did not load, with stand-in bodies that only give the tracer outputs of the right shape and type."""
    if hasattr(torch.ops.torchvision, "nms") and hasattr(torch.ops.torchvision, "roi_align"):
        try:
            torch.ops.torchvision.nms(torch.zeros(1, 4), torch.zeros(1), 0.5)
        except Exception:  # noqa: BLE001, S110 - declared but without a kernel: declare ours
            pass
        else:
            return
    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define(
        "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor"
    )

    def nms(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
        return torch.argsort(scores, descending=True)

    def roi_align(
        x: torch.Tensor, rois: torch.Tensor, scale: float, ph: int, pw: int, ratio: int, aligned: bool
    ) -> torch.Tensor:
        return x.new_zeros(rois.shape[0], x.shape[1], ph, pw)

    lib.impl("nms", nms, "CPU")
    lib.impl("roi_align", roi_align, "CPU")
    register_torchvision_ops.lib = lib  # type: ignore[attr-defined]  # kept alive


class Detector(nn.Module):
    """Conv backbone (stride 4) -> per-cell box deltas and objectness for one anchor of size 8 ->
    decoded xyxy boxes -> NMS (IoU 0.5) -> the 6 best kept boxes -> ROIAlign 3 x 3 on the feature map
    -> a linear classifier. Outputs: kept indices, their boxes and scores, class logits per box."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.deltas = nn.Conv2d(16, 4, 1)
        self.objectness = nn.Conv2d(16, 1, 1)
        self.classifier = nn.Linear(16 * 3 * 3, 5)

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, ...]:
        features = self.backbone(images)
        h, w = features.shape[2], features.shape[3]
        ys = (torch.arange(h, dtype=torch.float32) + 0.5) * 4
        xs = (torch.arange(w, dtype=torch.float32) + 0.5) * 4
        cy = ys.view(-1, 1).expand(h, w).reshape(-1)
        cx = xs.view(1, -1).expand(h, w).reshape(-1)
        d = self.deltas(features)[0].flatten(1).t()  # [h*w, 4]
        x = cx + d[:, 0] * 8
        y = cy + d[:, 1] * 8
        half_w = torch.exp(d[:, 2].clamp(max=2)) * 4
        half_h = torch.exp(d[:, 3].clamp(max=2)) * 4
        boxes = torch.stack([x - half_w, y - half_h, x + half_w, y + half_h], dim=1)
        scores = torch.sigmoid(self.objectness(features)[0].flatten())
        keep = torch.ops.torchvision.nms(boxes, scores, 0.5)[:6]
        kept = boxes[keep]
        rois = torch.cat([torch.zeros(kept.shape[0], 1), kept], dim=1)
        pooled = torch.ops.torchvision.roi_align(features, rois, 0.25, 3, 3, 2, True)
        logits = self.classifier(pooled.flatten(1))
        return keep, kept, scores[keep], logits


def block(cin: int, cout: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1),
        nn.ReLU(),
    )


class UNet(nn.Module):
    def __init__(self, classes: int = 4) -> None:
        super().__init__()
        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 32)
        self.up2, self.dec2 = nn.ConvTranspose2d(32, 16, 2, stride=2), block(32, 16)
        self.up1, self.dec1 = nn.ConvTranspose2d(16, 8, 2, stride=2), block(16, 8)
        self.head = nn.Conv2d(8, classes, 1)

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e1 = self.enc1(image)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        logits = self.head(d1)
        return logits, logits.argmax(dim=1)


class FCN(nn.Module):
    def __init__(self, classes: int = 3) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=2, dilation=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
        )
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = F.interpolate(
            self.head(self.body(image)), size=image.shape[2:], mode="bilinear", align_corners=False
        )
        return logits, torch.softmax(logits, dim=1)


def timm_resnet() -> nn.Module:
    from timm.models.resnet import BasicBlock, ResNet

    return ResNet(BasicBlock, [2, 2, 2, 2], num_classes=10, channels=(8, 16, 32, 64), stem_width=8)


def timm_convnext() -> nn.Module:
    from timm.models.convnext import ConvNeXt

    return ConvNeXt(depths=(1, 1, 1, 1), dims=(8, 16, 32, 64), num_classes=10)


def timm_vit() -> nn.Module:
    from timm.models.vision_transformer import VisionTransformer

    return VisionTransformer(img_size=32, patch_size=8, embed_dim=16, depth=2, num_heads=2, num_classes=10)


def tv_mobilenet() -> nn.Module:
    import torchvision

    return torchvision.models.mobilenet_v3_small(num_classes=10, width_mult=0.25)


def images(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@dataclass(frozen=True)
class Vision:
    name: str
    build: Callable[[], nn.Module]
    cases: dict[str, tuple[int, ...]]
    what: str
    onnx: bool = False  # also onnx/<name>: torch.onnx.export, then ov.convert_model(model.onnx)


CLASSIFIER_CASES = {"typical": (1, 3, 32, 32), "batch2": (2, 3, 32, 32)}
MODELS = [
    Vision("resnet_timm", timm_resnet, CLASSIFIER_CASES, "timm ResNet-18 layout with tiny widths", onnx=True),
    Vision("convnext_timm", timm_convnext, CLASSIFIER_CASES, "timm ConvNeXt with tiny widths"),
    Vision("vit_timm", timm_vit, CLASSIFIER_CASES, "timm VisionTransformer, 16 patches + class token"),
    Vision(
        "mobilenet_v3_torchvision",
        tv_mobilenet,
        CLASSIFIER_CASES,
        "torchvision MobileNetV3-small, width 0.25",
    ),
    Vision(
        "detector_nms_roialign",
        Detector,
        {"typical": (1, 3, 32, 32), "other_image": (1, 3, 32, 32), "larger_image": (1, 3, 48, 40)},
        "tiny two-stage detector with torchvision::nms and torchvision::roi_align",
    ),
    Vision("unet", UNet, {"typical": (1, 3, 16, 16), "batch2_32x24": (2, 3, 32, 24)}, "tiny UNet", onnx=True),
    Vision(
        "fcn_bilinear",
        FCN,
        {"typical": (1, 3, 16, 16), "odd_size": (1, 3, 17, 23)},
        "FCN with bilinear upsampling",
        onnx=True,
    ),
]

ATOL, RTOL = 1e-6, 1e-5


def write(folder: Folder, converted: Any, v: Vision, model: nn.Module, source: str) -> None:
    folder.save(converted)
    name = folder.input_names()[0]
    worst = 0.0
    for k, (case, shape) in enumerate(v.cases.items()):
        x = images(shape, k)
        out = folder.cpu_case(case, {name: x})
        if v.name != "detector_nms_roialign":  # the detector's torch ops are tracing stand-ins
            with torch.no_grad():
                ref = model(torch.from_numpy(x))
            ref = ref if isinstance(ref, tuple) else (ref,)
            worst = max(
                worst, max_diff(dict(enumerate(out.values())), dict(enumerate(r.numpy() for r in ref)))
            )
    torch_note = (
        f"OpenVINO CPU vs PyTorch at generation: <= {worst:.2g} (f16 weights)."
        if v.name != "detector_nms_roialign"
        else "No PyTorch comparison: the torchvision ops are tracing stand-ins here (see the generator)."
    )
    folder.meta(
        source=source,
        expected_from="cpu",
        atol=ATOL,
        rtol=RTOL,
        notes=(
            f"Cases: {', '.join(f'{c} {list(s)}' for c, s in v.cases.items())}. Tolerance: the CPU plugin's "
            "convolutions and GEMMs sum in another order than the reference (FACTS: ~1e-6 of the output's "
            "magnitude); measured |ovonehot - CPU| at commit time in ir/corpus/README.md, tolerance ~10x that. "
            + torch_note
        ),
    )


def generate(v: Vision, tmp: Path) -> None:
    import openvino as ov

    torch.manual_seed(0)
    model = v.build().eval()
    with torch.no_grad():  # BatchNorm statistics away from 0/1, as a trained net has them
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    first = next(iter(v.cases.values()))
    example = torch.from_numpy(images(first, 0))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = ov.convert_model(model, example_input=example)
    source = f"{v.what} (random init, seed 0), ov.convert_model(model, example_input=...), f16-compressed"
    write(Folder("vision", v.name, GENERATOR), converted, v, model, source)
    if v.onnx:
        path = tmp / f"{v.name}.onnx"
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model,
                (example,),
                str(path),
                input_names=["image"],
                opset_version=17,
                dynamo=False,
                dynamic_axes={"image": {0: "batch", 2: "height", 3: "width"}},
            )
        folder = Folder("onnx", v.name, GENERATOR)
        source = (
            f"{v.what} (random init, seed 0), torch.onnx.export (TorchScript exporter, opset 17, dynamic batch "
            "and spatial dims) then ov.convert_model(model.onnx), f16-compressed"
        )
        write(folder, ov.convert_model(str(path)), v, model, source)
        if path.stat().st_size < 400_000:
            (folder.path / "model.onnx").write_bytes(path.read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    register_torchvision_ops()
    for v in MODELS:
        if re.search(args.only, v.name):
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    generate(v, Path(tmp))
            except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                print(f"{v.name}: FAILED {type(exc).__name__}: {str(exc)[:300]}", flush=True)


if __name__ == "__main__":
    main()
