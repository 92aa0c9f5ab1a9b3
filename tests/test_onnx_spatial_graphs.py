"""ONNX Resize, GridSample, RoiAlign, Col2Im and ConvTranspose through OpenVINO's ONNX frontend, run by ovonehot.

``ovonehot.load(model.onnx)`` converts with OpenVINO's frontend (Interpolate-11,
GridSample-9, ROIAlign-9, Col2Im-15, ConvolutionBackpropData-1 / GroupConvolution-
BackpropData-1 as it emits them) and runs ovonehot's kernels on the result.

* ONNX's own Resize backend cases (``collect_testcases("Resize")``): every case the
  frontend converts runs in ovonehot and matches ONNX's expected output, except the
  ``OV_DEVIATES`` cases where OpenVINO's conversion itself changes the semantics: there
  ovonehot matches OpenVINO's CPU plugin (deterministic config) within ``FLOAT_RTOL``.
  ``NOT_CONVERTED`` lists the cases the frontend refuses.
* Hand-built one-node models against onnxruntime, within ``FLOAT_RTOL`` (f32 sums in
  other orders).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest

import ovonehot

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino", reason="ONNX input goes through OpenVINO's ONNX frontend")
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

FLOAT_RTOL = 1e-5
RNG = np.random.default_rng(91)

# OpenVINO 2026.4's Resize conversion gives other values than ONNX's reference here:
OV_DEVIATES = {
    "test_resize_downsample_scales_linear_align_corners": "align_corners divides by the integer output size - 1, ONNX by size * scale - 1",
    "test_resize_downsample_scales_cubic_align_corners": "align_corners divides by the integer output size - 1, ONNX by size * scale - 1",
    "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside": "exclude_outside is dropped",
    "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside": "exclude_outside is dropped",
    "test_resize_downsample_scales_linear_antialias": "antialias is set, but the linear_onnx kernel ignores it",
    "test_resize_downsample_sizes_linear_antialias": "antialias is set, but the linear_onnx kernel ignores it",
    "test_resize_downsample_scales_cubic_antialias": "antialias is set, but the cubic kernel ignores it",
    "test_resize_downsample_sizes_cubic_antialias": "antialias is set, but the cubic kernel ignores it",
    "test_resize_upsample_sizes_nearest_not_larger": "keep_aspect_ratio_policy is dropped: the sizes are used as given",
    "test_resize_upsample_sizes_nearest_not_smaller": "keep_aspect_ratio_policy is dropped: the sizes are used as given",
    "test_resize_downsample_sizes_nearest_not_larger": "keep_aspect_ratio_policy is dropped: the sizes are used as given",
    "test_resize_downsample_sizes_nearest_not_smaller": "keep_aspect_ratio_policy is dropped: the sizes are used as given",
}
# ... and refuses these (tf_crop_and_resize, half_pixel_symmetric):
NOT_CONVERTED = {
    "test_resize_tf_crop_and_resize",
    "test_resize_tf_crop_and_resize_extrapolation_value",
    "test_resize_tf_crop_and_resize_axes_2_3",
    "test_resize_tf_crop_and_resize_axes_3_2",
    "test_resize_downsample_scales_linear_half_pixel_symmetric",
    "test_resize_upsample_scales_linear_half_pixel_symmetric",
}


@functools.cache
def _resize_cases() -> dict[str, tuple[object, list[np.ndarray], np.ndarray]]:
    """ONNX's Resize backend cases, made by running its generator (``Resize.export_*``) directly.

    ``collect_testcases`` fills one process-wide list on its first call (whatever op it
    was asked for), so it cannot be asked again for another op.  The generators run when
    their module is first imported (``expect`` appends to that package's globals), so the
    globals are swapped for fresh ones around the import -- or around calling the
    exports again, each after ``np.random.seed(0)`` as the import does, when an earlier
    ``collect_testcases`` imported the module already -- and restored after.
    """
    import importlib
    import sys

    import onnx.backend.test.case.node as node_cases

    module = "onnx.backend.test.case.node.resize"
    saved = (node_cases._NodeTestCases, node_cases._existing_names, node_cases._TargetOpType)
    random_state = np.random.get_state()
    node_cases._NodeTestCases, node_cases._existing_names, node_cases._TargetOpType = [], {}, "Resize"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if module in sys.modules:
                resize = sys.modules[module].Resize
                for name in [k for k in vars(resize) if k.startswith("export")]:
                    np.random.seed(seed=0)
                    getattr(resize, name)()
            else:
                importlib.import_module(module)
        collected = list(node_cases._NodeTestCases)
    finally:
        node_cases._NodeTestCases, node_cases._existing_names, node_cases._TargetOpType = saved
        np.random.set_state(random_state)
    cases = {}
    for case in collected:
        ((ins, outs),) = case.data_sets
        cases[case.name] = (case.model, [np.asarray(a) for a in ins], np.asarray(outs[0]))
    assert cases, "onnx ships no Resize backend cases: check the onnx installation"
    return cases


def _cpu(path: Path, feeds: list[np.ndarray]) -> np.ndarray:
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", CPU_CONFIG)
    return np.array(compiled(feeds)[0])


RESIZE_NAMES = sorted(_resize_cases()) if onnx is not None else []


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.held_for("onnx==1.23.2")
@pytest.mark.parametrize("name", RESIZE_NAMES)
def test_onnx_resize_backend_case(tmp_path, name):  # type: ignore[no-untyped-def]
    model, ins, expected = _resize_cases()[name]
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    if name in NOT_CONVERTED:
        with pytest.raises(ovonehot.Error, match="cannot convert"):
            ovonehot.load(path)
        return
    loaded = ovonehot.load(path)
    assert any(n.type == "Interpolate" for n in loaded.graph.nodes)
    feeds = ins[: len(loaded.inputs)]  # the frontend folds constant roi/scales/sizes inputs away
    ours = next(iter(loaded.run(feeds).values()))
    agrees = ours.shape == expected.shape and np.allclose(ours, expected, rtol=1e-4, atol=1e-5)
    assert agrees == (name not in OV_DEVIATES), OV_DEVIATES.get(name, "should match ONNX's expected output")
    if name in OV_DEVIATES:  # OpenVINO's own values, then: its CPU plugin
        np.testing.assert_allclose(ours, _cpu(path, feeds), rtol=FLOAT_RTOL, atol=FLOAT_RTOL)


def _save(tmp_path: Path, name: str, node, inputs, inits, opset: int) -> Path:  # type: ignore[no-untyped-def]
    out = onnx.ValueInfoProto(name="y", type=h.make_tensor_type_proto(TP.FLOAT, shape=None))
    graph = h.make_graph([node], name, inputs, [out], initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = 8  # onnxruntime 1.31 refuses newer IR versions (docs/openvino-behaviour.md)
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def _vi(name: str, a: np.ndarray) -> object:
    return h.make_tensor_value_info(name, TP.FLOAT, list(a.shape))


X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)


def _grid_sample(tmp_path: Path, mode: str, padding: str, align: int) -> tuple[Path, dict[str, np.ndarray]]:
    grid = (RNG.random((2, 4, 7, 2)) * 2.6 - 1.3).astype(np.float32)
    node = h.make_node(
        "GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding, align_corners=align
    )
    path = _save(tmp_path, f"grid_{mode}_{padding}_{align}", node, [_vi("x", X), _vi("grid", grid)], [], 16)
    return path, {"x": X, "grid": grid}


def _roi_align(tmp_path: Path, mode: str, ctm: str) -> tuple[Path, dict[str, np.ndarray]]:
    rois = np.array([[0, 0, 5, 4], [1.5, 0.5, 4.2, 3.9], [-1, 2, 3, 7]], np.float32)
    node = h.make_node(
        "RoiAlign", ["x", "rois", "idx"], ["y"], mode=mode, coordinate_transformation_mode=ctm,
        output_height=3, output_width=2, sampling_ratio=2, spatial_scale=0.9,
    )  # fmt: skip
    idx = nh.from_array(np.array([0, 1, 1], np.int64), "idx")
    path = _save(tmp_path, f"roi_{mode}_{ctm}", node, [_vi("x", X), _vi("rois", rois)], [idx], 16)
    return path, {"x": X, "rois": rois}


def _col2im(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    cols = RNG.standard_normal((2, 3 * 2 * 3, 4 * 3)).astype(
        np.float32
    )  # image 5x6 (+1 left), kernel 2x3, stride 1x2
    inits = [
        nh.from_array(np.array([5, 6], np.int64), "size"),
        nh.from_array(np.array([2, 3], np.int64), "k"),
    ]
    node = h.make_node("Col2Im", ["x", "size", "k"], ["y"], strides=[1, 2], pads=[0, 1, 0, 0])
    path = _save(tmp_path, "col2im", node, [_vi("x", cols)], inits, 18)
    return path, {"x": cols}


def _conv_transpose(
    tmp_path: Path, name: str, group: int, **attrs: object
) -> tuple[Path, dict[str, np.ndarray]]:
    x = RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)
    w = nh.from_array(RNG.standard_normal((4, 6 // group, 3, 2)).astype(np.float32), "w")
    b = nh.from_array(RNG.standard_normal(6).astype(np.float32), "b")
    node = h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], group=group, **attrs)
    path = _save(tmp_path, f"convt_{name}", node, [_vi("x", x)], [w, b], 13)
    return path, {"x": x}


MODELS = {
    "grid-sample-bilinear-zeros": lambda p: _grid_sample(p, "bilinear", "zeros", 0),
    "grid-sample-bicubic-border-align": lambda p: _grid_sample(p, "bicubic", "border", 1),
    "grid-sample-nearest-reflection": lambda p: _grid_sample(p, "nearest", "reflection", 0),
    "roi-align-avg-half-pixel": lambda p: _roi_align(p, "avg", "half_pixel"),
    "roi-align-max-output-half-pixel": lambda p: _roi_align(p, "max", "output_half_pixel"),
    "col2im": _col2im,
    "conv-transpose-strides-pads": lambda p: _conv_transpose(p, "pads", 1, strides=[2, 1], pads=[1, 0, 0, 1]),
    "conv-transpose-output-padding-dilations": lambda p: _conv_transpose(
        p, "outpad", 1, strides=[2, 3], output_padding=[1, 2], dilations=[1, 2]
    ),
    "conv-transpose-group-output-shape": lambda p: _conv_transpose(
        p, "group", 2, strides=[2, 2], output_shape=[10, 13], auto_pad="SAME_UPPER"
    ),
    "conv-transpose-group-same-lower": lambda p: _conv_transpose(
        p, "g", 2, strides=[2, 2], auto_pad="SAME_LOWER"
    ),
}


# onnxruntime's RoiAlign max takes the largest of the four *weighted corners* of each
# sample, not the largest bilinear sample as the ONNX spec and OpenVINO's ROIAlign do:
# compared with OpenVINO's CPU plugin instead.
AGAINST_CPU = {"roi-align-max-output-half-pixel"}


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize("name", list(MODELS))
def test_onnx_spatial_model_matches_onnxruntime(tmp_path, name):  # type: ignore[no-untyped-def]
    path, feeds = MODELS[name](tmp_path)
    if name in AGAINST_CPU:
        want = _cpu(path, list(feeds.values()))
    else:
        (want,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)
    loaded = ovonehot.load(path)
    got = next(iter(loaded.run(feeds).values()))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=FLOAT_RTOL, atol=FLOAT_RTOL)
