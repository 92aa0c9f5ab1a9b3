"""Write ir/invalid/: IR files with exactly one wrong declaration each.

Each file starts as a valid model written by OpenVINO (``openvino.save_model``,
``compress_to_fp16=False``); the script then edits one thing in the XML (a
``<dim>``, a ``precision``, an attribute) or in the .bin (a Const's value), and
records in ``ir/invalid/MANIFEST.json`` what it broke: the ``ovonehot validate``
problem code expected, the layer it names and the port.  ``tests/test_validate.py``
checks every file against its entry.

Some edits give a file OpenVINO itself refuses (a depth of shape [1], a negative
depth, the spec's ``ignore-negative`` spelling); the others read fine in OpenVINO,
which never compares declarations with its inference: that is the gap ``validate``
fills.  The manifest says which (``openvino_reads``), and the tests check that too.

Run from the repository root::

    python ir/generate_invalid.py            # rewrites ir/invalid/
    python ir/generate_invalid.py --out DIR

This script imports openvino, numpy and lxml only; it never uses ovonehot.
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
from lxml import etree
from openvino import opset1, opset16

HERE = Path(__file__).resolve().parent


# -- the valid models ------------------------------------------------------------------------------
def basic_model() -> ov.Model:
    """indices i64 [3,4] -> OneHot-16(depth Const 5, on 1.0, off 0.0, axis -1) -> f32 [3,4,5]."""
    indices = opset16.parameter([3, 4], ov.Type.i64, name="indices")
    depth = opset16.constant(np.int64(5), name="depth")
    on = opset16.constant(np.float32(1.0), name="on_value")
    off = opset16.constant(np.float32(0.0), name="off_value")
    onehot = opset16.one_hot(indices, depth, on, off, -1, name="onehot")
    onehot.output(0).get_tensor().set_names({"onehot"})
    result = opset16.result(onehot, name="result")
    return ov.Model([result], [indices], "basic")


def interval_model() -> ov.Model:
    """depth = Squeeze(ShapeOf(sizes [2..7])): OneHot-1 output [2,2..7,?], written as [2,-1,-1]."""
    indices = opset1.parameter(ov.PartialShape([2, -1]), ov.Type.i32, name="indices")
    sizes = opset1.parameter(ov.PartialShape([ov.Dimension(2, 7)]), ov.Type.f32, name="sizes")
    shape = opset16.shape_of(sizes, "i64", name="shape")
    depth = opset1.squeeze(shape, opset1.constant(np.array([0], np.int64), name="axes"), name="depth")
    on = opset1.constant(np.float32(1.0), name="on_value")
    off = opset1.constant(np.float32(0.0), name="off_value")
    onehot = opset1.one_hot(indices, depth, on, off, 1, name="onehot")
    result = opset1.result(onehot, name="result")
    return ov.Model([result], [indices, sizes], "interval")


# -- editing helpers -------------------------------------------------------------------------------
class Ir:
    """A saved IR opened for editing: its XML tree and its weights."""

    def __init__(self, xml: Path) -> None:
        self.xml = xml
        self.tree = etree.parse(str(xml))
        self.weights = bytearray(xml.with_suffix(".bin").read_bytes())

    def layer(self, name: str) -> etree._Element:
        found = self.tree.getroot().findall(f"layers/layer[@name='{name}']")
        assert len(found) == 1, f"no single layer named {name!r}"
        return found[0]

    def port(self, name: str, port_id: int) -> etree._Element:
        found = self.layer(name).findall(f"*/port[@id='{port_id}']")
        assert len(found) == 1, f"layer {name!r} has no single port {port_id}"
        return found[0]

    def save(self, out: Path) -> None:
        self.tree.write(str(out), xml_declaration=True, encoding="utf-8")
        out.with_suffix(".bin").write_bytes(bytes(self.weights))


def set_dims(port: etree._Element, dims: list[int]) -> None:
    for d in port.findall("dim"):
        port.remove(d)
    for d in dims:
        etree.SubElement(port, "dim").text = str(d)


def const_offset(ir: Ir, name: str) -> int:
    return int(ir.layer(name).find("data").get("offset"))


# -- the cases ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    name: str
    base: Callable[[], ov.Model]
    edit: Callable[[Ir], None]
    code: str
    layer: str
    port: int | None
    openvino_reads: bool
    why: str


def _onehot_dim(ir: Ir) -> None:
    set_dims(ir.port("onehot", 4), [3, 4, 6])


def _onehot_rank(ir: Ir) -> None:
    set_dims(ir.port("onehot", 4), [3, 4, 5, 1])


def _onehot_precision(ir: Ir) -> None:
    ir.port("onehot", 4).set("precision", "FP16")


def _interval_dim_outside(ir: Ir) -> None:
    # (a declared 7 would refine the interval 2..7: compatible, as exporters write it)
    set_dims(ir.port("onehot", 4), [2, 8, -1])
    set_dims(ir.port("result", 0), [2, 8, -1])


def _parameter_dim(ir: Ir) -> None:
    set_dims(ir.port("indices", 0), [3, 5])


def _parameter_precision(ir: Ir) -> None:
    ir.port("indices", 0).set("precision", "I32")


def _const_dim(ir: Ir) -> None:
    set_dims(ir.port("on_value", 0), [1])


def _const_size_small(ir: Ir) -> None:
    ir.layer("depth").find("data").set("size", "4")


def _const_outside_bin(ir: Ir) -> None:
    ir.layer("depth").find("data").set("offset", str(len(ir.weights)))


def _edge_dim(ir: Ir) -> None:
    set_dims(ir.port("result", 0), [3, 4, 7])


def _edge_precision(ir: Ir) -> None:
    ir.port("onehot", 0).set("precision", "I32")


def _depth_vector(ir: Ir) -> None:
    ir.layer("depth").find("data").set("shape", "1")
    set_dims(ir.port("depth", 0), [1])
    set_dims(ir.port("onehot", 1), [1])


def _negative_depth(ir: Ir) -> None:
    at = const_offset(ir, "depth")
    ir.weights[at : at + 8] = struct.pack("<q", -3)


def _axis_out_of_range(ir: Ir) -> None:
    ir.layer("onehot").find("data").set("axis", "3")


def _on_off_mismatch(ir: Ir) -> None:
    ir.layer("off_value").find("data").set("element_type", "i32")
    ir.port("off_value", 0).set("precision", "I32")
    ir.port("onehot", 3).set("precision", "I32")


def _float_indices(ir: Ir) -> None:
    ir.layer("indices").find("data").set("element_type", "f32")
    ir.port("indices", 0).set("precision", "FP32")
    ir.port("onehot", 0).set("precision", "FP32")


def _ignore_negative_spelling(ir: Ir) -> None:
    ir.layer("onehot").find("data").set("negative_indices_mode", "ignore-negative")


CASES = [
    Case(
        "onehot_output_dim",
        basic_model,
        _onehot_dim,
        "output-shape",
        "onehot",
        4,
        True,
        "OneHot output declared [3,4,6], inferred [3,4,5]",
    ),
    Case(
        "onehot_output_rank",
        basic_model,
        _onehot_rank,
        "output-shape",
        "onehot",
        4,
        True,
        "OneHot output declared with an extra dim",
    ),
    Case(
        "onehot_output_precision",
        basic_model,
        _onehot_precision,
        "output-type",
        "onehot",
        4,
        True,
        "OneHot output declared FP16, on_value is f32",
    ),
    Case(
        "interval_dim_outside",
        interval_model,
        _interval_dim_outside,
        "output-shape",
        "onehot",
        4,
        True,
        "the depth dim is 2..7; declared 8, outside the interval",
    ),
    Case(
        "parameter_port_dim",
        basic_model,
        _parameter_dim,
        "parameter-shape",
        "indices",
        0,
        True,
        "Parameter port dims [3,5] against shape=3,4",
    ),
    Case(
        "parameter_port_precision",
        basic_model,
        _parameter_precision,
        "parameter-type",
        "indices",
        0,
        True,
        "Parameter port precision I32 against element_type=i64",
    ),
    Case(
        "const_port_dim",
        basic_model,
        _const_dim,
        "const-shape",
        "on_value",
        0,
        True,
        "scalar Const declares a dim",
    ),
    Case(
        "const_size_small",
        basic_model,
        _const_size_small,
        "const-size",
        "depth",
        None,
        False,
        "i64 depth with size=4 (8 bytes needed)",
    ),
    Case(
        "const_outside_bin",
        basic_model,
        _const_outside_bin,
        "const-size",
        "depth",
        None,
        False,
        "depth offset at the end of the .bin",
    ),
    Case(
        "edge_dim",
        basic_model,
        _edge_dim,
        "edge-shape",
        "result",
        0,
        True,
        "Result input port disagrees with the OneHot output port",
    ),
    Case(
        "edge_precision",
        basic_model,
        _edge_precision,
        "edge-type",
        "onehot",
        0,
        True,
        "OneHot input port 0 declares I32, the indices Parameter I64",
    ),
    Case(
        "onehot_depth_vector",
        basic_model,
        _depth_vector,
        "onehot-depth-not-scalar",
        "onehot",
        1,
        False,
        "depth Const of shape [1]: OpenVINO refuses it",
    ),
    Case(
        "onehot_negative_depth",
        basic_model,
        _negative_depth,
        "onehot-negative-depth",
        "onehot",
        1,
        False,
        "depth Const -3",
    ),
    Case(
        "onehot_axis_out_of_range",
        basic_model,
        _axis_out_of_range,
        "onehot-axis-out-of-range",
        "onehot",
        None,
        False,
        "axis 3 for indices of rank 2 (valid: -3..2)",
    ),
    Case(
        "onehot_on_off_mismatch",
        basic_model,
        _on_off_mismatch,
        "onehot-on-off-type-mismatch",
        "onehot",
        3,
        False,
        "off_value i32, on_value f32",
    ),
    Case(
        "onehot_float_indices",
        basic_model,
        _float_indices,
        "onehot-indices-not-integral",
        "onehot",
        0,
        False,
        "indices Parameter of f32",
    ),
    Case(
        "onehot_ignore_negative_spelling",
        basic_model,
        _ignore_negative_spelling,
        "onehot-ignore-negative-spelling",
        "onehot",
        None,
        False,
        "the spec page's 'ignore-negative'",
    ),
]


def openvino_reads(xml: Path) -> bool:
    try:
        ov.Core().read_model(str(xml))
    except RuntimeError:
        return False
    return True


def generate(out: Path) -> list[dict[str, object]]:
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        bases: dict[str, Path] = {}
        for case in CASES:
            key = case.base.__name__
            if key not in bases:
                bases[key] = Path(tmp) / f"{key}.xml"
                ov.save_model(case.base(), str(bases[key]), compress_to_fp16=False)
            ir = Ir(bases[key])
            case.edit(ir)
            target = out / f"{case.name}.xml"
            ir.save(target)
            reads = openvino_reads(target)
            assert reads == case.openvino_reads, f"{case.name}: OpenVINO reads it: {reads}"
            manifest.append(
                {
                    "file": target.name,
                    "code": case.code,
                    "layer": case.layer,
                    "port": case.port,
                    "openvino_reads": case.openvino_reads,
                    "why": case.why,
                }
            )
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "invalid")
    args = parser.parse_args()
    if args.out.exists() and args.out == HERE / "invalid":
        shutil.rmtree(args.out)
    manifest = generate(args.out)
    print(f"wrote {len(manifest)} files to {args.out}")


if __name__ == "__main__":
    main()
