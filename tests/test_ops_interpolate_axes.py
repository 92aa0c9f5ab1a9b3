"""Interpolate-11 ``linear_onnx`` on axes the core reference refuses, against the CPU plugin.

TensorFlow's ``tf.image.resize(..., "bilinear")`` (ResizeBilinear) converts to Interpolate-11
``linear_onnx`` on axes ``[1, 2]`` of NHWC data.  The spec's note and the core reference take only
all axes or all but the first two ("Axes are not correct!"); the CPU plugin runs any axes, each
listed axis interpolated by the ONNX linear formula with its own coordinate rule.  ovonehot does
the same (it refused these before, issue 18).  Values of order 1; the plugin sums the corners in
another order: within 4 ulp of 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ovref import P, build, cpu_outputs, export, ov

o11 = pytest.importorskip("openvino.opset11")

# (data shape, axes, sizes, coordinate_transformation_mode)
CASES = {
    "nhwc-tf-resize": ((1, 4, 6, 3), [1, 2], [5, 7], "half_pixel"),
    "nhwc-align-corners": ((1, 4, 6, 3), [1, 2], [2, 9], "align_corners"),
    "nhwc-asymmetric": ((2, 4, 6, 3), [1, 2], [3, 9], "asymmetric"),
    "one-inner-axis": ((2, 4, 6, 3), [2], [9], "half_pixel"),
    "first-and-last": ((2, 4, 6, 3), [0, 3], [3, 5], "pytorch_half_pixel"),
    "axes-reversed": ((2, 4, 6, 3), [2, 1], [9, 3], "tf_half_pixel_for_nn"),
    "rank-5-middle": ((2, 4, 6, 3, 2), [1, 2, 3], [3, 8, 4], "half_pixel"),
    "rank-1": ((5,), [0], [8], "half_pixel"),
}


def _node(
    shape: tuple[int, ...], axes: list[int], sizes: list[int], mode: str
) -> tuple[object, list[object]]:
    def factory(x: object) -> object:
        return o11.interpolate(
            x,
            o11.constant(np.array(sizes, np.int64)),
            "linear_onnx",
            "sizes",
            axes=o11.constant(np.array(axes, np.int64)),
            coordinate_transformation_mode=mode,
        )

    return build(factory, [P(np.zeros(shape, np.float32))])


@pytest.mark.parametrize("case", CASES)
def test_linear_onnx_any_axes_matches_cpu_plugin(tmp_path: Path, case: str) -> None:
    shape, axes, sizes, mode = CASES[case]
    x = np.random.default_rng(len(case)).standard_normal(shape).astype(np.float32)
    node, params = _node(shape, axes, sizes, mode)
    expected = cpu_outputs(node, params, [x])[0]
    model = export(tmp_path, node, params)
    for exact in (True, False):
        ours = next(iter(model.run([x], exact=exact).values()))
        assert ours.shape == expected.shape and ours.dtype == np.float32
        np.testing.assert_allclose(ours, expected, rtol=0, atol=4 * np.finfo(np.float32).eps)


def test_reference_refuses_these_axes() -> None:
    """What makes the CPU plugin the oracle here: the core reference has no value for them."""
    node, _ = _node(*CASES["nhwc-tf-resize"])
    out = [ov.Tensor(ov.Type.f32, ov.Shape([1, 5, 7, 3]))]
    with pytest.raises(RuntimeError, match="Axes are not correct"):
        node.evaluate(
            out,
            [ov.Tensor(np.zeros((1, 4, 6, 3), np.float32))]
            + [ov.Tensor(np.array(v, np.int64)) for v in ([5, 7], [1, 2])],
        )
