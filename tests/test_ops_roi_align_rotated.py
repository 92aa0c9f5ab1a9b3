"""ROIAlignRotated-15 against OpenVINO's CPU plugin (the core has no evaluate) and its shape inference.

Every case saves the one-op model as IR with OpenVINO, loads it with ovonehot (inferred shape
compared with OpenVINO's), runs it and compares with the CPU plugin bit for bit in f32 (``ULP``
0: measured equal on every case here; f16 is rounded once, one unit allowed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovref import In, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import roi_align_rotated as rar
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops15 = pytest.importorskip("openvino.opset15")

ULP = 0
DATA = np.random.default_rng(0).uniform(-2, 2, (2, 3, 7, 9)).astype(np.float32)
# centre x, y, width, height, angle: axis-aligned, turned both ways, past the map's edge, small
ROIS = np.array(
    [
        [3, 2, 4, 3, 0],
        [4.5, 3.5, 5, 2, 0.6],
        [4.5, 3.5, 5, 2, -2.0],
        [8, 6, 6, 4, 1.2],
        [1, 1, 0.5, 0.7, 3.0],
        [-1, 2, 3, 3, 0.3],
    ],
    np.float32,
)
INDICES = np.array([0, 1, 0, 1, 1, 0], np.int32)


def compare_cpu(tmp_path: Path, factory: Any, inputs: list[In], ulp: int = ULP) -> list[np.ndarray]:
    node, params = build(factory, inputs)
    feeds = [i.array for i in inputs if not i.const]
    theirs = cpu_outputs(node, params, feeds)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run(feeds).values())
    assert_same(ours[0], theirs[0], ulp=ulp, where="output")
    return ours


def _rar(**attrs: Any) -> Any:
    base = {"pooled_h": 2, "pooled_w": 3, "sampling_ratio": 2, "spatial_scale": 1.0, "clockwise_mode": False}
    return lambda *args: ops15.roi_align_rotated(*args, **{**base, **attrs})


CASES = [
    pytest.param({}, id="basic"),
    pytest.param({"clockwise_mode": True}, id="clockwise"),
    pytest.param({"sampling_ratio": 0}, id="adaptive-sampling"),
    pytest.param({"spatial_scale": 0.5, "pooled_h": 3, "pooled_w": 1}, id="scaled"),
    pytest.param({"sampling_ratio": 1, "pooled_h": 1, "pooled_w": 1}, id="one-sample"),
    pytest.param({"spatial_scale": 2.0, "sampling_ratio": 3}, id="scale-two"),
]


@pytest.mark.parametrize("attrs", CASES)
def test_matches_cpu_plugin(tmp_path, attrs):  # type: ignore[no-untyped-def]
    compare_cpu(tmp_path, _rar(**attrs), [P(DATA), P(ROIS), P(INDICES)])


@pytest.mark.parametrize("index_type", [np.int64, np.int32], ids=["i64", "i32"])
def test_index_types(tmp_path, index_type):  # type: ignore[no-untyped-def]
    compare_cpu(tmp_path, _rar(), [P(DATA), P(ROIS), P(INDICES.astype(index_type))])


def test_f16(tmp_path):  # type: ignore[no-untyped-def]
    """f16: computed in f32 and rounded once; the plugin likewise (1 unit of f16 allowed)."""
    compare_cpu(tmp_path, _rar(), [P(DATA.astype(np.float16)), P(ROIS.astype(np.float16)), P(INDICES)], ulp=1)


def test_no_rois(tmp_path):  # type: ignore[no-untyped-def]
    compare_cpu(tmp_path, _rar(), [P(DATA), P(np.zeros((0, 5), np.float32)), P(np.zeros(0, np.int32))])


def test_random_rois(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    rois = np.concatenate(
        [rng.uniform(0, 9, (12, 2)), rng.uniform(0.5, 6, (12, 2)), rng.uniform(-3.2, 3.2, (12, 1))], axis=1
    ).astype(np.float32)
    indices = rng.integers(0, 2, 12).astype(np.int64)
    compare_cpu(tmp_path, _rar(sampling_ratio=0, pooled_h=3, pooled_w=2), [P(DATA), P(rois), P(indices)])


def test_rotation_by_pi_reverses_the_bins():  # type: ignore[no-untyped-def]
    """A box turned by pi samples the same points in reverse bin order (the spec's geometry)."""
    attrs = rar.ROIAlignRotatedAttrs(2, 3, 2, 1.0)
    boxes = np.array([[4, 3, 4, 2, 0], [4, 3, 4, 2, np.pi]], np.float32)
    out = rar.evaluate_roi_align_rotated(attrs, [DATA, boxes, np.array([0, 0])])[0]
    np.testing.assert_allclose(out[1], out[0][:, ::-1, ::-1], rtol=1e-5, atol=1e-5)


INFER = [
    pytest.param("1,3,8,8", "4,5", "4", {}, id="static"),
    pytest.param("?,3,8,8", "?,5", "2..5", {}, id="rois-from-indices"),
    pytest.param("...", "4,5", "?", {}, id="data-dynamic-rank"),
    pytest.param("1,3,8,8", "...", "...", {}, id="rois-dynamic-rank"),
    pytest.param("1,3,8,8", "4,?", "4", {}, id="box-size-dynamic"),
    pytest.param(
        "1,3,8,8", "4,5", "4", {"pooled_h": 0, "sampling_ratio": -1, "spatial_scale": 0.0}, id="unchecked"
    ),
    pytest.param("1,3,8,8", "4,5", "4", {"pooled_w": -1}, id="pooled-minus-one"),
]


@pytest.mark.parametrize(("data", "rois", "indices", "attrs"), INFER)
def test_inference_agrees(tmp_path, data, rois, indices, attrs):  # type: ignore[no-untyped-def]
    z = np.zeros((), np.float32)
    inputs = [P(z, shape=data), P(z, shape=rois), P(np.int32(0), shape=indices)]
    ours, theirs = infer_shapes(tmp_path, _rar(**attrs), inputs)
    assert ours == theirs


def _info(shape: str, et: ElementType = ElementType.f32) -> TensorInfo:
    return TensorInfo(et, PartialShape.parse(shape))


REFUSALS = [
    pytest.param(
        [_info("[1,3,8,8]"), _info("[4,4]"), _info("[4]", ElementType.i32)], "equal to 5", id="box-size"
    ),
    pytest.param(
        [_info("[1,3,8,8]"), _info("[4,5]"), _info("[3]", ElementType.i32)], "first dimension", id="count"
    ),
    pytest.param([_info("[1,3,8]"), _info("[4,5]"), _info("[4]", ElementType.i32)], "4D", id="data-rank"),
    pytest.param(
        [_info("[1,3,8,8]"), _info("[4,5]", ElementType.f16), _info("[4]", ElementType.i32)],
        "same",
        id="mixed",
    ),
    pytest.param(
        [
            _info("[1,3,8,8]", ElementType.dynamic),
            _info("[4,5]", ElementType.dynamic),
            _info("[4]", ElementType.i32),
        ],
        "floating point",
        id="dynamic-type",
    ),
    pytest.param(
        [_info("[1,3,8,8]"), _info("[4,5]"), _info("[4]", ElementType.f32)], "integer", id="index-type"
    ),
]


@pytest.mark.parametrize(("inputs", "match"), REFUSALS)
def test_refusals(inputs, match):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        rar.infer_roi_align_rotated(rar.ROIAlignRotatedAttrs(2, 2, 2, 1.0), inputs)


def test_negative_sampling_ratio_refused_at_run_time():  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="non-negative"):
        rar.evaluate_roi_align_rotated(rar.ROIAlignRotatedAttrs(2, 2, -1, 1.0), [DATA, ROIS, INDICES])
