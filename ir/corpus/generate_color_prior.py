"""Regression corpus: camera colour conversion and SSD prior boxes, built with OpenVINO's own API.

* ``vision/nv12_ppp_conv``: a tiny NCHW convolution whose input OpenVINO's PrePostProcessor turns
  into an NV12 two-plane camera input (Y ``[1, 8, 8, 1]``, UV ``[1, 4, 4, 2]``, f32) converted to
  RGB and transposed to NCHW: the PrePostProcessor inserts NV12toRGB-8.
* ``vision/ssd_prior_box``: an SSD-style head built with the opset8 API: two feature maps from
  strided convolutions, a PriorBox-8 and a PriorBoxClustered-1 on ``ShapeOf`` slices of the feature
  maps and the image (folded by OpenVINO), and the box regression output.

Run with any Python that has OpenVINO (deterministic: fixed seeds, fixed-timestamp .npz files)::

    /work/main/.venv/bin/python ir/corpus/generate_color_prior.py

Expected values: the CPU plugin compiled deterministically.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from corpus_common import Folder, max_diff  # type: ignore[import-not-found]

GENERATOR = "ir/corpus/generate_color_prior.py"


def _conv(x: Any, channels_in: int, channels_out: int, stride: int, rng: np.random.Generator) -> Any:
    from openvino import opset8 as ops

    w = rng.normal(0, 0.2, (channels_out, channels_in, 3, 3)).astype(np.float32)
    b = rng.normal(0, 0.1, (1, channels_out, 1, 1)).astype(np.float32)
    y = ops.convolution(x, ops.constant(w), [stride, stride], [1, 1], [1, 1], [1, 1])
    return ops.relu(ops.add(y, ops.constant(b)))


def nv12_ppp_conv() -> None:
    import openvino as ov
    from openvino import opset8 as ops
    from openvino.preprocess import ColorFormat, PrePostProcessor

    rng = np.random.default_rng(22)
    image = ops.parameter([1, 3, 8, 8], ov.Type.f32, name="image")
    y = _conv(image, 3, 4, 1, rng)
    model = ov.Model([ops.result(y)], [image], "nv12_ppp_conv")
    model.output(0).get_tensor().set_names({"features"})
    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_color_format(ColorFormat.NV12_TWO_PLANES).set_layout(ov.Layout("NHWC"))
    ppp.input().preprocess().convert_color(ColorFormat.RGB).convert_layout(ov.Layout("NCHW"))
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    model = ppp.build()
    for port, name in zip(
        model.inputs, ("y", "uv"), strict=True
    ):  # (the new Parameters have no tensor names)
        port.get_tensor().set_names({name})

    folder = Folder("vision", "nv12_ppp_conv", GENERATOR)
    saved = folder.save(model)
    names = [p.get_any_name() for p in saved.inputs]  # y, uv
    for case, seed in (("typical", 0), ("other", 1)):
        r = np.random.default_rng(seed)
        inputs = {
            names[0]: r.integers(0, 256, (1, 8, 8, 1)).astype(np.float32),
            names[1]: r.integers(0, 256, (1, 4, 4, 2)).astype(np.float32),
        }
        folder.cpu_case(case, inputs)
    folder.meta(
        source="opset8 conv (seed 22) behind OpenVINO's PrePostProcessor: NV12_TWO_PLANES f32 NHWC input "
        "converted to RGB and NCHW (NV12toRGB-8 + Transpose), ov.save_model, f16-compressed weights",
        expected_from="cpu",
        atol=1e-5,
        rtol=1e-5,
        notes="Integer-valued f32 planes (camera bytes). NV12toRGB in f32 is bit-exact between ovonehot "
        "and the CPU plugin (1.1M YUV triples measured); the tolerance covers the convolution's summation "
        "order (FACTS: ~1e-6 of the output's magnitude).",
    )


def _prior_box_model() -> Any:
    import openvino as ov
    from openvino import opset1, opset8

    rng = np.random.default_rng(7)
    image = opset8.parameter([1, 3, 32, 32], ov.Type.f32, name="image")
    f1 = _conv(image, 3, 8, 4, rng)  # [1, 8, 8, 8]
    f2 = _conv(f1, 8, 8, 2, rng)  # [1, 8, 4, 4]
    start, stop = opset8.constant(np.array([2], np.int64)), opset8.constant(np.array([4], np.int64))
    one = opset8.constant(np.array([1], np.int64))

    def hw(x: Any) -> Any:
        return opset8.slice(opset8.shape_of(x), start, stop, one)

    attrs = {
        "min_size": [8.0],
        "max_size": [16.0],
        "aspect_ratio": [2.0, 3.0],
        "flip": True,
        "clip": False,
        "step": 4.0,
        "offset": 0.5,
        "variance": [0.1, 0.1, 0.2, 0.2],
        "scale_all_sizes": True,
        "min_max_aspect_ratios_order": False,
    }
    priors = opset8.prior_box(hw(f1), hw(image), attrs)
    clustered_attrs = {  # the node's own attribute names: the wrapper's documented ones are ignored
        "width": [6.0, 12.0, 20.0],
        "height": [6.0, 20.0, 12.0],
        "clip": True,
        "step_w": 8.0,
        "step_h": 8.0,
        "step": 0.0,
        "offset": 0.5,
        "variance": [0.1, 0.1, 0.2, 0.2],
    }
    clustered = opset1.prior_box_clustered(hw(f2), hw(image), clustered_attrs)
    head = opset8.convolution(
        f2,
        opset8.constant(rng.normal(0, 0.2, (12, 8, 3, 3)).astype(np.float32)),
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
    )
    outputs = [opset8.result(priors), opset8.result(clustered), opset8.result(head)]
    model = ov.Model(outputs, [image], "ssd_prior_box")
    for port, name in zip(model.outputs, ("priors", "clustered_priors", "box_deltas"), strict=True):
        port.get_tensor().set_names({name})
    return model


def ssd_prior_box() -> None:
    folder = Folder("vision", "ssd_prior_box", GENERATOR)
    folder.save(_prior_box_model())
    outs = {}
    for case, seed in (("typical", 0), ("other", 1)):
        inputs = {"image": np.random.default_rng(seed).normal(0, 1, (1, 3, 32, 32)).astype(np.float32)}
        outs[case] = folder.cpu_case(case, inputs)
    print("prior boxes equal across cases:", max_diff(outs["typical"], {"priors": outs["other"]["priors"]}))
    folder.meta(
        source="SSD-style head built with openvino.opset8 (seed 7): PriorBox-8 and PriorBoxClustered-1 on "
        "Slice(ShapeOf) of two feature maps and the image, conv box deltas; ov.save_model, f16 weights",
        expected_from="cpu",
        atol=1e-5,
        rtol=1e-5,
        notes="The prior boxes are folded from the shapes (OpenVINO folds them with its reference; "
        "ovonehot's infer folds them too) and are exact; the tolerance covers the convolutions' summation "
        "order.",
    )


if __name__ == "__main__":
    nv12_ppp_conv()
    ssd_prior_box()
