"""ROIPooling-2 against OpenVINO: values against the CPU plugin (its core op has no
``evaluate``) bit for bit for ``max``, and within BILINEAR_ATOL for ``bilinear`` (the CPU
plugin interpolates in another order than the reference's ``top + (bottom - top) * dy``: up to
3.2e-7 measured on values of magnitude ~1); shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_same, build, cpu_outputs

import ovonehot

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

BILINEAR_ATOL = 1e-6


def export(tmp_path, node, params):  # type: ignore[no-untyped-def]
    """ovref's export, but through ``node.outputs()``: ROIPooling's Python node answers
    ``get_output_size()`` with its ``output_size`` attribute."""
    xml = tmp_path / "roi_pooling.xml"
    ov.save_model(ov.Model(node.outputs(), list(params), "op"), str(xml), compress_to_fp16=False)
    return ovonehot.load(xml)


def assert_inferred(model, node):  # type: ignore[no-untyped-def]
    (desc,) = model.outputs
    assert str(desc.shape) == str(node.output(0).get_partial_shape())
    assert str(desc.element_type) == node.output(0).get_element_type().to_string()


RNG = np.random.default_rng(2)
X = RNG.standard_normal((2, 3, 8, 9)).astype(np.float32)
MAX_ROIS = np.array(
    [
        [0, 0, 0, 8, 7],
        [1, 1.3, 2.2, 5.7, 6.1],
        [1, -2, -3, 3, 2],
        [0, 6, 5, 12, 11],
        [1, 2, 2, 2.5, 2.2],
        [0, 4, 4, 2, 2],
    ],
    np.float32,
)
BILINEAR_ROIS = np.array(
    [
        [0, 0, 0, 1, 1],
        [1, 0.1, 0.2, 0.7, 0.9],
        [1, 0.5, 0.5, 0.5, 0.5],
        [0, 0.9, 0.1, 0.2, 0.3],
        [0, -0.1, 0.2, 1.2, 0.8],
    ],
    np.float32,
)


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.0625])
@pytest.mark.parametrize("size", [(2, 2), (3, 4), (1, 1), (7, 5)])
def test_roi_pooling_max_matches_cpu(tmp_path, size, scale):  # type: ignore[no-untyped-def]
    rois = (
        MAX_ROIS * np.array([1, 1 / scale, 1 / scale, 1 / scale, 1 / scale], np.float32)
        if scale < 1
        else MAX_ROIS
    )
    node, params = build(
        lambda a, b: o15.roi_pooling(a, b, output_roi=list(size), spatial_scale=scale, method="max"),
        [P(X), P(rois)],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([X, rois]).values()
    assert_same(ours, cpu_outputs(node, params, [X, rois])[0])


@pytest.mark.parametrize("size", [(2, 2), (3, 4), (1, 1), (1, 3), (6, 1)])
def test_roi_pooling_bilinear_matches_cpu(tmp_path, size):  # type: ignore[no-untyped-def]
    node, params = build(
        lambda a, b: o15.roi_pooling(a, b, output_roi=list(size), spatial_scale=1.0, method="bilinear"),
        [P(X), P(BILINEAR_ROIS)],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([X, BILINEAR_ROIS]).values()
    np.testing.assert_allclose(
        ours, cpu_outputs(node, params, [X, BILINEAR_ROIS])[0], rtol=0, atol=BILINEAR_ATOL
    )


SHAPES = [
    ("1,2,6,6", "3,5", "max"),
    ("1,2,6", "3,5", "max"),
    ("1,2,6,6", "3,4", "max"),
    ("1,2,6,6", "?,?", "bilinear"),
    ("...", "...", "max"),
    ("1,2,6,6", "3,5,1", "max"),
    ("?,?,?,?", "2..4,5", "bilinear"),
]


@pytest.mark.parametrize(("feat", "rois", "method"), SHAPES)
def test_roi_pooling_inference_matches_openvino(feat, rois, method):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.roi_pooling import PoolMethod, ROIPoolingAttrs, infer_roi_pooling
    from ovonehot.types import ElementType, PartialShape

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    try:
        node = o15.roi_pooling(
            o15.parameter(ps(feat), ov.Type.f32),
            o15.parameter(ps(rois), ov.Type.f32),
            output_roi=[2, 3],
            spatial_scale=1.0,
            method=method,
        )
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in (feat, rois)]
    try:
        (out,) = infer_roi_pooling(ROIPoolingAttrs(2, 3, 1.0, PoolMethod(method)), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
