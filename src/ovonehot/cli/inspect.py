"""``ovonehot inspect MODEL.xml [--json]``: the layers, their shapes and types, at a glance.

One row per layer (id, name, Type-version, inputs as ``source_id:port``, output
shapes and element types as OpenVINO infers them, key attributes), then the model's
inputs and outputs.  Layers ovonehot cannot infer show their declared dims and
precision, marked ``(declared)``; ``ovonehot validate`` says why.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..check.validate import Analysis, analyze, declared_shape, declared_type, read_for_validation
from ..graph import Graph, Node
from ..npyio import check_model_paths
from ._json import add_json_options, check_json_out, emit, human_output

# Attribute values longer than this are shortened in the table.
WIDTH = 48
# Const values with at most this many elements are shown.
SMALL = 8


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "inspect", help="list the layers with their inferred shapes and types, and the model's I/O"
    )
    p.add_argument("model", help="model .xml (the .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    add_json_options(p, "the listing (layers, inputs, outputs)")
    p.set_defaults(func=inspect_command)


def inspect_command(args: argparse.Namespace) -> int:
    with human_output(args):
        check_model_paths(args.model, args.bin_path)
        check_json_out(args)
        analysis = analyze(read_for_validation(args.model, args.bin_path).graph)
        listing = describe(analysis)
        print_table(listing)
        emit(args, listing)
        return 0


def _outputs(analysis: Analysis, index: int) -> list[dict[str, Any]]:
    node = analysis.graph.nodes[index]
    infos = analysis.outputs[index]
    rows = []
    for k, port in enumerate(node.outputs):
        if infos is not None:
            rows.append(
                {
                    "port": port.id,
                    "shape": str(infos[k].shape),
                    "element_type": infos[k].element_type.value,
                    "declared": False,
                }
            )
        else:
            try:
                et = declared_type(port)
            except Exception:  # noqa: BLE001 - an unknown precision is shown as written
                et = None
            rows.append(
                {
                    "port": port.id,
                    "shape": declared_shape(port),
                    "element_type": et.value if et is not None else port.precision,
                    "declared": True,
                }
            )
    return rows


def _attributes(node: Node) -> dict[str, str]:
    attrs = dict(node.attrs)
    if node.type.lower() in ("const", "constant"):
        attrs.pop("offset", None)
        attrs.pop("size", None)
        if node.payload is not None and node.payload.size <= SMALL:
            attrs["value"] = np.array2string(np.asarray(node.payload), separator=",").replace("\n", "")
    return attrs


def describe(analysis: Analysis) -> dict[str, Any]:
    """The listing as plain data (the JSON form)."""
    graph: Graph = analysis.graph
    layers = []
    for i in graph.document_order:
        node = graph.nodes[i]
        layers.append(
            {
                "id": node.id,
                "name": node.name,
                "type": node.type,
                "version": node.version,
                "inputs": [
                    {"layer": graph.nodes[s.node].id, "port": graph.nodes[s.node].outputs[s.output].id}
                    for s in graph.sources[i]
                ],
                "outputs": _outputs(analysis, i),
                "attributes": _attributes(node),
            }
        )
    inputs = []
    outputs = []
    for i in graph.document_order:
        node = graph.nodes[i]
        t = node.type.lower()
        if t == "parameter" and node.outputs:
            out = _outputs(analysis, i)[0]
            inputs.append(
                {
                    "name": node.name,
                    "names": list(node.outputs[0].names),
                    "element_type": out["element_type"],
                    "shape": out["shape"],
                }
            )
        elif (
            t == "result" and len(graph.sources[i]) == 1
        ):  # (a Result without its input is reported by validate)
            src = graph.sources[i][0]
            out = _outputs(analysis, src.node)[src.output]
            producer = graph.nodes[src.node]
            outputs.append(
                {
                    "name": node.name,
                    "names": list(producer.outputs[src.output].names),
                    "source": f"{producer.name}:{out['port']}",
                    "element_type": out["element_type"],
                    "shape": out["shape"],
                }
            )
    return {"layers": layers, "inputs": inputs, "outputs": outputs}


def _short(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 3] + "..."


def print_table(listing: dict[str, Any]) -> None:
    header = ("id", "name", "type", "inputs", "outputs", "attributes")
    rows = [header]
    for layer in listing["layers"]:
        outs = " ".join(
            f"{o['element_type']}{o['shape']}" + (" (declared)" if o["declared"] else "")
            for o in layer["outputs"]
        )
        ins = " ".join(f"{x['layer']}:{x['port']}" for x in layer["inputs"])
        attrs = " ".join(f"{k}={_short(v)}" for k, v in layer["attributes"].items())
        rows.append(
            (str(layer["id"]), layer["name"], f"{layer['type']}-{layer['version']}", ins, outs, attrs)
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(header) - 1)]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1])
    print()
    print("inputs:")
    for x in listing["inputs"]:
        print(f"  {x['name']}: {x['element_type']}{x['shape']}")
    print("outputs:")
    for x in listing["outputs"]:
        print(f"  {x['name']} <- {x['source']}: {x['element_type']}{x['shape']}")
