"""MVN-0 (opset2..opset5) against OpenVINO.

The core op has no ``evaluate``.  Oracles: MVN-6's ``Node.evaluate`` over the same axes with
``inside_sqrt`` (the same reference arithmetic: bit for bit), and the CPU plugin's MVN-0
(deterministic config) within CPU_RTOL (its own summation order), which also settles that MVN-0
puts eps inside the square root.  Shapes and types against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino")
o2 = pytest.importorskip("openvino.opset2")
o6 = pytest.importorskip("openvino.opset6")

CPU_RTOL = 1e-5
RNG = np.random.default_rng(6)


@pytest.mark.parametrize("eps", [1e-9, 1e-3, 0.5])
@pytest.mark.parametrize("variance", [False, True], ids=["mean-only", "variance"])
@pytest.mark.parametrize("across", [False, True], ids=["per-channel", "across-channels"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 7), (3, 4)], ids=["4d", "3d", "2d"])
def test_mvn0_matches_mvn6_reference_and_cpu(tmp_path, shape, across, variance, eps):  # type: ignore[no-untyped-def]
    from ovonehot.ops.mvn0 import MVN0Attrs, reduction_axes

    x = (RNG.standard_normal(shape) * 2 + 1).astype(np.float32)
    node, params = build(lambda a: o2.mvn(a, across, variance, eps), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    axes = np.array(reduction_axes(MVN0Attrs(across, variance, eps), x.ndim), np.int64)
    six, _ = build(lambda a, b: o6.mvn(a, b, variance, eps, "inside_sqrt"), [P(x), P(axes)])
    six_out = ov.Tensor(ov.Type.f32, ov.Shape(list(shape)))  # MVN-6 evaluate needs a pre-shaped output
    assert six.evaluate([six_out], [ov.Tensor(x), ov.Tensor(axes)])
    assert_same(ours, np.array(six_out.data, copy=True))
    np.testing.assert_allclose(ours, cpu_outputs(node, params, [x])[0], rtol=CPU_RTOL, atol=CPU_RTOL)


def test_mvn0_f16(tmp_path):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((2, 3, 4)).astype(np.float16)
    node, params = build(lambda a: o2.mvn(a, True, True, 1e-5), [P(x)])
    model = export(tmp_path, node, params)
    (ours,) = model.run([x]).values()
    assert ours.dtype == np.float16
    np.testing.assert_allclose(ours, cpu_outputs(node, params, [x])[0], rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("shape", ["2,3,4", "?,?,?", "...", "5", ""])
def test_mvn0_inference_matches_openvino(tmp_path, shape):  # type: ignore[no-untyped-def]
    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    node = o2.mvn(o2.parameter(ps, ov.Type.f32), False, True, 1e-5)
    x = np.zeros([1] * (shape.count(",") + 1) if shape else [], np.float32)
    ours, theirs = infer_shapes(tmp_path, lambda a: o2.mvn(a, False, True, 1e-5), [P(x, shape=shape)])
    assert ours == theirs == [f"f32{node.get_output_partial_shape(0)}"]
