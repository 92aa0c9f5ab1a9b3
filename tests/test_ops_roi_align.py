"""ROIAlign-3 and ROIAlign-9 against OpenVINO.

ROIAlign-3 against the core reference (``Node.evaluate``, given pre-shaped outputs:
it does not set the output shape itself), bit for bit.  ROIAlign-9 has no core
evaluate in the Python API: compared with the CPU plugin (deterministic config) within
``CPU_RTOL`` (its own f32 kernel; the sums are short, the largest difference measured
here is a few ulp).  Boxes cover the map, sit inside it, cross its top-left and
bottom-right edges, are smaller than a pixel, and lie wholly outside it.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino")
o9 = pytest.importorskip("openvino.opset9")
o3 = pytest.importorskip("openvino.opset3")

CPU_RTOL = 1e-5
RNG = np.random.default_rng(71)
X = RNG.standard_normal((2, 3, 8, 9)).astype(np.float32)
ROIS = np.array(
    [[0, 0, 8, 7], [1.3, 2.2, 5.7, 6.1], [-2, -3, 3, 2], [6, 5, 12, 11], [2, 2, 2.5, 2.2], [-5, -5, -3, -2]],
    np.float32,
)
BATCH = np.array([0, 1, 1, 0, 1, 0], np.int32)


@pytest.mark.parametrize("scale", [1.0, 0.625])
@pytest.mark.parametrize("sampling_ratio", [0, 2], ids=["adaptive", "ratio-2"])
@pytest.mark.parametrize("aligned_mode", ["asymmetric", "half_pixel_for_nn", "half_pixel"])
@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_9_matches_cpu(tmp_path, mode, aligned_mode, sampling_ratio, scale):  # type: ignore[no-untyped-def]
    node, params = build(
        lambda a, b, c: o9.roi_align(a, b, c, 3, 4, sampling_ratio, scale, mode, aligned_mode),
        [P(X), P(ROIS), P(BATCH)],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = next(iter(model.run([X, ROIS, BATCH]).values()))
    np.testing.assert_allclose(
        ours, cpu_outputs(node, params, [X, ROIS, BATCH])[0], rtol=CPU_RTOL, atol=CPU_RTOL
    )


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_3_matches_reference(tmp_path, mode):  # type: ignore[no-untyped-def]
    rois = ROIS * 2
    node, params = build(lambda a, b, c: o3.roi_align(a, b, c, 2, 3, 0, 0.5, mode), [P(X), P(rois), P(BATCH)])
    out = [ov.Tensor(ov.Type.f32, ov.Shape(list(node.get_output_shape(0))))]
    assert node.evaluate(out, [ov.Tensor(X), ov.Tensor(rois), ov.Tensor(BATCH)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    assert_same(next(iter(model.run([X, rois, BATCH]).values())), np.array(out[0].data, copy=True))


def test_roi_align_max_pools_from_zero(tmp_path):  # type: ignore[no-untyped-def]
    # The reference's max starts at 0: an all-negative map pools to +0.0.  The CPU plugin
    # agrees on the value but gives -0.0 where a box reaches outside the map.
    x = -np.abs(X) - 1
    node, params = build(
        lambda a, b, c: o3.roi_align(a, b, c, 2, 2, 2, 1.0, "max"), [P(x), P(ROIS), P(BATCH)]
    )
    out = [ov.Tensor(ov.Type.f32, ov.Shape(list(node.get_output_shape(0))))]
    assert node.evaluate(out, [ov.Tensor(x), ov.Tensor(ROIS), ov.Tensor(BATCH)])
    model = export(tmp_path, node, params)
    ours = next(iter(model.run([x, ROIS, BATCH]).values()))
    assert_same(ours, np.array(out[0].data, copy=True))
    assert not ours.any()
    np.testing.assert_array_equal(ours, cpu_outputs(node, params, [x, ROIS, BATCH])[0])


@pytest.mark.parametrize(
    ("data", "rois", "batch"),
    [("?,3,8,9", "?,4", "6"), ("...", "5,4", "?"), ("2,3,?,?", "...", "..."), ("2,?,8,9", "2..7,4", "3..9")],
    ids=["dynamic-dims", "dynamic-data-rank", "dynamic-rois-rank", "intervals"],
)
def test_roi_align_infer_agrees(tmp_path, data, rois, batch):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, c: o9.roi_align(a, b, c, 3, 4, 0, 1.0, "avg"),
        [P(X, shape=data), P(ROIS, shape=rois), P(BATCH, shape=batch)],
    )
    assert ours == theirs
