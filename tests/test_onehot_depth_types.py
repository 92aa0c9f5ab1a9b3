"""OneHot depth of every integral type: OpenVINO's inferred dim, or its refusal, in ovonehot.

OpenVINO accepts any non-float depth type in OneHot's type check, but its shape inference
cannot read a boolean, u1, u2, u3 or u6 value ("Element not supported"): a Constant depth of
those types is refused when the model is built.  The IR is written with ovonehot's own
writer (OpenVINO cannot build such a model) and read by both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import ovonehot
from ovonehot.errors import ValidationError
from ovonehot.ir.builder import GraphBuilder
from ovonehot.ir.writer import to_bytes
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")

DEPTH_TYPES = ["boolean", "u1", "u2", "u3", "u4", "u6", "i4", "u8", "i8", "i16", "u16", "u32", "u64"]


def write_model(tmp_path: Path, depth_type: str) -> Path:
    b = GraphBuilder("depth")
    x = b.parameter("x", ElementType.i64, PartialShape.of([3]))
    et = ElementType.from_name(depth_type)
    depth = b.constant(et, np.array(1, dtype=et.numpy_dtype))
    on = b.constant(ElementType.f32, np.array(1, np.float32))
    off = b.constant(ElementType.f32, np.array(0, np.float32))
    b.result(b.op("OneHot", "opset1", [x, depth, on, off], {"axis": "-1"}), tensor_name="y")
    xml, weights = to_bytes(b.build(), version=11)
    # Without an inference the writer leaves port precisions out, and OpenVINO requires them.
    tree = etree.fromstring(xml)
    precisions = {"x": "I64", "on": "FP32", "off": "FP32", "depth": et.precision}
    for layer in tree.iter("layer"):
        if layer.get("type") == "Const":
            key = "depth" if layer.find("data").get("element_type") == depth_type else "on"
            layer.find("output/port").set("precision", precisions[key])
        elif layer.get("type") == "Parameter":
            layer.find("output/port").set("precision", "I64")
        elif layer.get("type") == "OneHot":
            for port, precision in zip(
                layer.iter("port"), ["I64", et.precision, "FP32", "FP32", "FP32"], strict=True
            ):
                port.set("precision", precision)
        elif layer.get("type") == "Result":
            layer.find("input/port").set("precision", "FP32")
    path = tmp_path / "m.xml"
    path.write_bytes(etree.tostring(tree))
    path.with_suffix(".bin").write_bytes(weights)
    return path


@pytest.mark.parametrize("depth_type", DEPTH_TYPES)
def test_constant_depth_type_as_openvino(tmp_path: Path, depth_type: str) -> None:
    path = write_model(tmp_path, depth_type)
    try:
        theirs = ov.Core().read_model(str(path))
    except RuntimeError as exc:
        assert "Element not supported" in str(exc)
        with pytest.raises(ValidationError, match="Element not supported"):
            ovonehot.load(path)
        return
    ours = ovonehot.load(path)
    assert str(ours.outputs[0].shape) == str(theirs.outputs[0].get_partial_shape())
    got = ours.run({"x": np.array([0, 1, -1])})["y"]
    assert got.tolist() == [[1.0], [0.0], [0.0]]


def test_refused_depth_types_are_exactly_the_ones_openvino_refuses(tmp_path: Path) -> None:
    refused = []
    for t in DEPTH_TYPES:
        path = write_model(tmp_path, t)
        try:
            ov.Core().read_model(str(path))
        except RuntimeError:
            refused.append(t)
    assert refused == ["boolean", "u1", "u2", "u3", "u6"]
