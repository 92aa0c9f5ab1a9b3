"""A Broadcast whose target shape OpenVINO cannot evaluate reads it from the Concat that makes it,
one element per input: a Constant's value, any other input's dimension dynamic
(``broadcast_base_shape_infer``).  torchvision's keypoint post-processing builds
``zeros(len(rois), 3, keypoints)`` so: OpenVINO says ``[?,3,?]``, ovonehot said ``[?,?,?]``
(``ir/corpus/regressions/torch_keypoints_loop``).  Only Broadcast reads a Concat so: the same
pattern plus 1, gathered, or as a Reshape's pattern stays unknown in both.  Each case is compared
with OpenVINO's own shape inference on the IR it saves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovcompare import assert_layers_agree, save

ov = pytest.importorskip("openvino", reason="OpenVINO's shape inference is the expectation")
from openvino import opset1
from openvino import opset13 as ops


def _zero() -> Any:
    return ops.constant(np.float32(0))


def _cases() -> dict[str, tuple[Any, list[Any]]]:
    p64 = ops.parameter([1], np.int64, name="p")
    p32 = ops.parameter([1], np.int32, name="q")
    x = ops.parameter([-1, 4], np.float32, name="x")
    s = ops.parameter([5, 4], np.float32, name="s")
    r = ops.parameter([6, 5], np.float32, name="r")
    dim = ops.gather(ops.shape_of(x), np.int64([0]), np.int64(0))  # (bounds: 0..max)
    static = ops.gather(ops.shape_of(s), np.int64([1]), np.int64(0))  # (a known value, computed)
    value = ops.concat([p64, ops.constant(np.int64([3]))], 0)
    three = ops.concat([p64, ops.constant(np.int64([3])), ops.reduce_sum(dim, np.int32([0]), True)], 0)
    return {
        "a value and a constant": (ops.broadcast(_zero(), value), [p64]),
        "i32": (ops.broadcast(_zero(), ops.concat([p32, ops.constant(np.int32([3]))], 0)), [p32]),
        "three parts": (ops.broadcast(_zero(), three), [p64, x]),
        "a known computed part": (ops.broadcast(_zero(), ops.concat([p64, static], 0)), [p64, s]),
        "bounds from a shape": (
            ops.broadcast(_zero(), ops.concat([dim, ops.constant(np.int64([3]))], 0)),
            [x],
        ),
        "bidirectional": (
            ops.broadcast(ops.constant(np.zeros((1, 1), np.float32)), value, "bidirectional"),
            [p64],
        ),
        "opset1 numpy": (opset1.broadcast(_zero(), value), [p64]),
        "plus one": (ops.broadcast(_zero(), ops.add(value, np.int64(1))), [p64]),
        "gathered": (ops.broadcast(_zero(), ops.gather(value, np.int64([1, 1]), np.int64(0))), [p64]),
        "reshape": (ops.reshape(r, value, False), [r, p64]),
        "a two-element part": (
            ops.broadcast(_zero(), ops.concat([ops.constant(np.int64([2, 3])), p64], 0)),
            [p64],
        ),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_broadcast_targets_agree_with_openvino(tmp_path: Path, name: str) -> None:
    out, params = _cases()[name]
    model = ov.Model([out.output(0)], params, name.replace(" ", "_"))
    report = assert_layers_agree(save(model, tmp_path))
    assert report.layers  # (the comparison covered every layer)


def test_the_fallback_gives_the_constant_parts() -> None:
    """Not vacuous: OpenVINO itself keeps the constant part there."""
    out, _ = _cases()["three parts"]
    assert str(out.get_output_partial_shape(0)) == "[?,3,?]"
