"""DepthToSpace-1 and SpaceToDepth-1 against OpenVINO: values against ``Node.evaluate`` (exact),
types, partial shapes and error messages against OpenVINO's inference.

``Node.evaluate`` of these ops writes into the output tensor without resizing it: given
``ovref``'s empty output tensors it aborts the process, so the outputs are pre-shaped here.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, export

from ovonehot.errors import ValidationError
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.space_depth import SpaceDepthAttrs, SpaceDepthMode, infer_space_depth
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

MODES = ["blocks_first", "depth_first"]


def _compare(tmp_path, factory, x):  # type: ignore[no-untyped-def]
    """ovonehot vs ``Node.evaluate`` with a pre-shaped output tensor; returns ovonehot's output."""
    node, params = build(factory, [P(x)])
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([out], [ov.Tensor(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, np.array(out.data, copy=True))
    return ours


D2S_CASES = [
    pytest.param((1, 8, 2, 3), 2, np.float32, id="2d-bs2"),
    pytest.param((2, 18, 2, 1), 3, np.float32, id="2d-bs3"),
    pytest.param((1, 8, 3), 2, np.int64, id="1d-i64"),
    pytest.param((1, 16, 2, 1, 2), 2, np.float16, id="3d-f16"),
    pytest.param((2, 4, 2, 2), 1, np.int8, id="bs1-i8"),
]
S2D_CASES = [
    pytest.param((1, 2, 4, 6), 2, np.float32, id="2d-bs2"),
    pytest.param((2, 1, 6, 3), 3, np.float32, id="2d-bs3"),
    pytest.param((1, 3, 4), 2, np.int64, id="1d-i64"),
    pytest.param((1, 2, 2, 4, 2), 2, np.float16, id="3d-f16"),
    pytest.param((1, 3, 2, 2), 1, np.uint8, id="bs1-u8"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "block", "dtype"), D2S_CASES)
def test_depth_to_space_matches_reference(tmp_path, shape, block, dtype, mode):  # type: ignore[no-untyped-def]
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    _compare(tmp_path, lambda a: ops.depth_to_space(a, mode, block), x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("shape", "block", "dtype"), S2D_CASES)
def test_space_to_depth_matches_reference(tmp_path, shape, block, dtype, mode):  # type: ignore[no-untyped-def]
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    _compare(tmp_path, lambda a: ops.space_to_depth(a, mode, block), x)


@pytest.mark.parametrize("mode", MODES)
def test_round_trip(tmp_path, mode):  # type: ignore[no-untyped-def]
    """SpaceToDepth then DepthToSpace with the same mode is the identity (the spec's promise)."""
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 6)).astype(np.float32)
    node, params = build(lambda a: ops.depth_to_space(ops.space_to_depth(a, mode, 2), mode, 2), [P(x)])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    assert_same(ours, x)


SHAPES = [
    "1,8,2,3",
    "1,5,2,3",
    "1,3..9,2,3",
    "1,3..,2,3",
    "1,..9,2,3",
    "1,?,2..3,3",
    "...",
    "2,3",
    "1,16,2,3,4",
    "1,8,2",
    "1,0,2,3",
    "1,6,2,3",
    "1,5..7,2,3",
    "1,3,4,6",
    "1,3,5,6",
    "1,3,3..9,6",
    "1,3..5,4,?",
    "1,3,..7,6",
    "1,2,4,4,4",
    "1,3,0,6",
    "1,3,5..7,6",
    "1,3..,4,4",
    "1,3..,2",
    "1,3..100000000000000000,2",
]
FACTORIES = {
    "d2s-bs2": lambda a, m: ops.depth_to_space(a, m, 2),
    "d2s-bs0": lambda a, m: ops.depth_to_space(a, m, 0),
    "d2s-bs1": lambda a, m: ops.depth_to_space(a, m, 1),
    "d2s-bs3": lambda a, m: ops.depth_to_space(a, m, 3),
    "s2d-bs2": lambda a, m: ops.space_to_depth(a, m, 2),
    "s2d-bs0": lambda a, m: ops.space_to_depth(a, m, 0),
}


@pytest.mark.parametrize("factory", list(FACTORIES))
@pytest.mark.parametrize("shape", SHAPES)
def test_inference_matches_openvino(shape, factory):  # type: ignore[no-untyped-def]
    mode = "blocks_first"
    try:
        node = FACTORIES[factory](ops.parameter(ov.PartialShape(f"[{shape}]"), ov.Type.f32), mode)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    attrs = SpaceDepthAttrs(SpaceDepthMode(mode), int(factory[-1]), to_space=factory.startswith("d2s"))
    try:
        (out,) = infer_space_depth(attrs, [TensorInfo(ElementType.f32, PartialShape.parse(shape))])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
