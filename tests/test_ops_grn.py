"""GRN-0 against OpenVINO: values against the CPU plugin bit for bit (the core op has no
``evaluate``), against a float64 oracle within 1e-6 relative; shapes and messages against
OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(1)


@pytest.mark.parametrize("bias", [1e-6, 0.5, 3.0])
@pytest.mark.parametrize(
    "shape", [(2, 5), (2, 7, 3), (1, 16, 4, 5), (2, 1, 3, 3)], ids=["2d", "3d", "4d", "one-channel"]
)
def test_grn_matches_cpu(tmp_path, shape, bias):  # type: ignore[no-untyped-def]
    x = (RNG.standard_normal(shape) * 3).astype(np.float32)
    node, params = build(lambda a: o15.grn(a, bias), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, cpu_outputs(node, params, [x])[0])
    x64 = x.astype(np.float64)
    expected = x64 / np.sqrt((x64**2).sum(axis=1, keepdims=True) + float(np.float32(bias)))
    np.testing.assert_allclose(ours, expected, rtol=1e-6)


def test_grn_f16_matches_cpu(tmp_path):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((2, 6, 3)).astype(np.float16)
    node, params = build(lambda a: o15.grn(a, 0.25), [P(x)])
    model = export(tmp_path, node, params)
    (ours,) = model.run([x]).values()
    assert_same(ours, cpu_outputs(node, params, [x])[0])


@pytest.mark.parametrize("shape", ["2,3", "1,2,3,4", "3", "1,2,3,4,5", "...", "?,?", ""])
def test_grn_inference_matches_openvino(shape):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.grn import GRNAttrs, infer_grn
    from ovonehot.types import ElementType, PartialShape

    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    try:
        node = o15.grn(o15.parameter(ps, ov.Type.f32), 0.5)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    try:
        (out,) = infer_grn(GRNAttrs(0.5), [TensorInfo(ElementType.f32, PartialShape.parse(shape))])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
