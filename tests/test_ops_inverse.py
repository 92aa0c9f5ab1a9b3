"""Inverse-14 against OpenVINO.

OpenVINO's core op has no ``evaluate``; its CPU plugin (deterministic config) runs the
reference's algorithm (``nodes/inverse.cpp`` = ``reference/inverse.hpp``: LU with partial
pivoting, substitutions in the same order) in f32, so f32 (and f16/bf16, computed in f32 and
rounded once) must match it bit for bit.  f64 is computed in f64, which the CPU plugin does
not do: checked against NumPy's ``linalg.inv`` in f64 within 1e-12 relative.  Shapes, types and
messages against OpenVINO's inference.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

from ovonehot.errors import ValidationError
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.inverse import InverseAttrs, infer_inverse
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o14 = pytest.importorskip("openvino.opset14")

RNG = np.random.default_rng(14)
BF16_CPU_ULP = 2


def _matrices(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


PIVOTING = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 4.0]], np.float32)  # row swaps needed
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
CASES = {
    "1x1": _matrices((1, 1)),
    "3x3": _matrices((3, 3)),
    "batch-2x4x4": _matrices((2, 4, 4)),
    "batch-2x3x5x5": _matrices((2, 3, 5, 5)),
    "8x8": _matrices((8, 8)),
    "pivoting": PIVOTING,
    "singular": SINGULAR,
    "identity": np.eye(4, dtype=np.float32),
    "ties": np.array([[1.0, 2.0], [-1.0, 3.0]], np.float32),  # equal |pivots|: the first row stays
    "tiny": _matrices((3, 3)) * np.float32(1e-20),
}


@pytest.mark.parametrize("adjoint", [False, True], ids=["inverse", "adjoint"])
@pytest.mark.parametrize("name", list(CASES))
def test_inverse_matches_cpu_plugin(tmp_path, name, adjoint):  # type: ignore[no-untyped-def]
    x = CASES[name]
    node, params = build(lambda a: o14.inverse(a, adjoint), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, cpu_outputs(node, params, [x])[0])


@pytest.mark.parametrize("adjoint", [False, True], ids=["inverse", "adjoint"])
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float64], ids=["f16", "bf16", "f64"])
def test_inverse_other_floats_match_cpu_plugin(tmp_path, dtype, adjoint):  # type: ignore[no-untyped-def]
    """Every type goes through f32 (the spec; the reference and the CPU plugin): f64 too."""
    x = _matrices((2, 3, 3)).astype(dtype)
    node, params = build(lambda a: o14.inverse(a, adjoint), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    theirs = cpu_outputs(node, params, [x])[0]
    if dtype == ml_dtypes.bfloat16:  # the Python API hands bf16 back as raw bits in an f16 array
        theirs = theirs.view(np.uint16).view(ml_dtypes.bfloat16)
    assert ours.dtype == np.dtype(dtype)
    # bf16: the CPU plugin's result differs by up to BF16_CPU_ULP (its bf16 path is its own).
    assert_same(ours, theirs.astype(dtype), ulp=BF16_CPU_ULP if dtype == ml_dtypes.bfloat16 else 0)


@pytest.mark.parametrize("adjoint", [False, True], ids=["inverse", "adjoint"])
def test_inverse_against_float64_oracle(tmp_path, adjoint):  # type: ignore[no-untyped-def]
    """The spec's meaning, independently of OpenVINO: inv(A), and its transpose for ``adjoint``."""
    x = _matrices((4, 5, 5))
    node, params = build(lambda a: o14.inverse(a, adjoint), [P(x)])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    expected = np.linalg.inv(x.astype(np.float64))
    if adjoint:
        expected = np.swapaxes(expected, -1, -2)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_inverse_of_empty_batch(tmp_path):  # type: ignore[no-untyped-def]
    x = np.zeros((0, 3, 3), np.float32)
    node, params = build(lambda a: o14.inverse(a, False), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert ours.shape == (0, 3, 3)


SHAPES = ["3,3", "2,4,4", "?,3,3", "2,?,3", "2,3,?", "..., ", "3", "2,3", "2..5,3,3", "1,?,?", "0,0"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("et", ["f32", "f16", "f64", "i32"])
def test_inverse_inference_matches_openvino(shape, et):  # type: ignore[no-untyped-def]
    shape = shape.replace(", ", "")
    try:
        node = o14.inverse(o14.parameter(ov.PartialShape(f"[{shape}]"), getattr(ov.Type, et)), False)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    try:
        info = TensorInfo(ElementType.from_name(et), PartialShape.parse(shape))
        (out,) = infer_inverse(InverseAttrs(), [info])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs


def test_inverse_dynamic_dims_through_ir(tmp_path):  # type: ignore[no-untyped-def]
    x = _matrices((2, 3, 3))
    ours, theirs = infer_shapes(tmp_path, lambda a: o14.inverse(a, True), [P(x, shape="?,3,?")])
    assert ours == theirs
