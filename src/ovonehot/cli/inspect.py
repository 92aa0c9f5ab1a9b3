"""``ovonehot inspect MODEL.xml [--json]``: the layers, their shapes and types, at a glance.

One row per layer (id, name, Type-version, inputs as ``source_id:port``, output
shapes and element types as OpenVINO infers them, key attributes), then the model's
inputs and outputs.  Layers ovonehot cannot infer show their declared dims and
precision, marked ``(declared)``; ``ovonehot validate`` says why.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

import numpy as np
from tabulate import tabulate

from ..check.validate import Analysis, analyze, declared_type, read_for_validation
from ..errors import UsageError
from ..graph import Graph, Node
from ..jsondata import dims_json, shape_json
from ..npyio import check_model_paths
from ..suggest import did_you_mean
from ._json import add_json_options, check_json_out, emit, human_output
from ._paths import model_files, refuse_writing_over

# Attribute values longer than this are shortened in the table.
WIDTH = 48
# Const values with at most this many elements are shown.
SMALL = 8


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "inspect",
        help="list the layers with their inferred shapes and types, and the model's I/O",
        description="A summary of the model (op types with counts, weight bytes by element type, "
        "variables, inputs and outputs), then one row per layer with its inferred output shapes.",
    )
    p.add_argument("model", help="model .xml or .onnx (an .xml's .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--filter",
        metavar="TYPE_OR_NAME",
        action="append",
        help="list only the layers of this op type (MatMul, MatMul-opset1) or with this name; repeatable",
    )
    p.add_argument("--summary", action="store_true", help="print the summary only, not the layer table")
    add_json_options(p, "the listing (summary, layers, inputs, outputs)")
    p.set_defaults(func=inspect_command)


def inspect_command(args: argparse.Namespace) -> int:
    with human_output(args):
        check_model_paths(args.model, args.bin_path)
        check_json_out(args)
        refuse_writing_over(model_files(args.model, args.bin_path), ("--json-out", args.json_out))
        analysis = analyze(read_for_validation(args.model, args.bin_path).graph)
        listing = describe(analysis)
        listing["summary"] = summarize(analysis.graph)
        if args.filter:
            listing["filter"] = list(args.filter)
            listing["layers"] = select(listing["layers"], args.filter)
        print_summary(listing)
        if not args.summary:
            print_table(listing)
        emit(args, listing)
        return 0


def select(layers: list[dict[str, Any]], wanted: list[str]) -> list[dict[str, Any]]:
    """The layers whose type, Type-version or name is one of ``wanted`` (case-insensitive for
    types); a word that matches nothing is a usage error with the nearest types and names."""
    keys = [{la["type"].lower(), f"{la['type']}-{la['version']}".lower()} for la in layers]
    for word in wanted:
        if not any(word.lower() in k or word == la["name"] for k, la in zip(keys, layers, strict=True)):
            known = sorted({la["type"] for la in layers}) + [la["name"] for la in layers]
            raise UsageError(f"--filter {word!r}: no layer has this type or name{did_you_mean(word, known)}")
    return [
        la
        for k, la in zip(keys, layers, strict=True)
        if any(w.lower() in k or w == la["name"] for w in wanted)
    ]


def summarize(graph: Graph) -> dict[str, Any]:
    """Op types with counts, weight bytes by element type (each range of the weights file
    once), and the variables (ReadValue/Assign)."""
    ops: Counter[tuple[str, str]] = Counter()
    weights: Counter[str] = Counter()
    constants: Counter[str] = Counter()
    variables: dict[str, dict[str, list[dict[str, Any]]]] = {}
    ranges: set[tuple[str, str]] = set()
    for i in graph.document_order:
        node = graph.nodes[i]
        ops[(node.type, node.version)] += 1
        attrs = dict(node.attrs)
        kind = node.type.lower()
        if kind in ("const", "constant"):
            et = attrs.get("element_type", "?")
            weights[et] += _const_bytes(node, attrs, ranges)
            constants[et] += 1
        elif kind in ("readvalue", "assign"):
            var = variables.setdefault(attrs.get("variable_id", ""), {"read_value": [], "assign": []})
            var["read_value" if kind == "readvalue" else "assign"].append(layer_ref(node))
    return {
        "layer_count": sum(ops.values()),
        "op_types": op_types(ops),
        "weights": [
            {"element_type": et, "bytes": weights[et], "constants": constants[et]} for et in sorted(weights)
        ],
        "weight_bytes": sum(weights.values()),
        "variables": [{"id": vid, **uses} for vid, uses in sorted(variables.items())],
    }


def op_types(counts: Counter[tuple[str, str]]) -> list[dict[str, Any]]:
    """Layer counts by (type, version) as JSON: ``[{"type", "version", "count"}]``, the most
    frequent first (``inspect``'s summary, ``convert``'s layers)."""
    return [
        {"type": t, "version": v, "count": n}
        for (t, v), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _const_bytes(node: Node, attrs: dict[str, str], seen: set[tuple[str, str]]) -> int:
    """A Const's bytes in the weights file (its ``size``; a range another Const already uses
    counts once), else its value's."""
    size = attrs.get("size", "")
    if size.isdigit():
        key = (attrs.get("offset", ""), size)
        if key in seen:
            return 0
        seen.add(key)
        return int(size)
    return int(node.payload.nbytes) if node.payload is not None else 0


def layer_ref(node: Node) -> dict[str, Any]:
    """A layer as JSON: ``{"id", "name", "type", "version"}``."""
    return {"id": node.id, "name": node.name, "type": node.type, "version": node.version}


def _outputs(analysis: Analysis, index: int) -> list[dict[str, Any]]:
    node = analysis.graph.nodes[index]
    infos = analysis.outputs[index]
    rows: list[dict[str, Any]] = []
    for k, port in enumerate(node.outputs):
        if infos is not None:
            rows.append(
                {
                    "port": port.id,
                    "shape": shape_json(infos[k].shape),
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
                    "shape": dims_json(port.dims),
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
                    "source": {**layer_ref(producer), "port": out["port"]},
                    "element_type": out["element_type"],
                    "shape": out["shape"],
                }
            )
    return {"layers": layers, "inputs": inputs, "outputs": outputs}


def _short(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 3] + "..."


def shape_text(shape: list[Any] | None) -> str:
    """A JSON shape in OpenVINO's notation: ``[2,?,1..8]``, ``[...]`` for a dynamic rank."""
    if shape is None:
        return "[...]"
    dims = []
    for d in shape:
        if isinstance(d, dict):
            dims.append(f"{d['min']}..{'' if d['max'] is None else d['max']}")
        else:
            dims.append("?" if d is None else str(d))
    return "[" + ",".join(dims) + "]"


def print_summary(listing: dict[str, Any]) -> None:
    summary = listing["summary"]
    print(f"{summary['layer_count']} layers, {summary['weight_bytes']} weight bytes")
    ops = [(f"{o['type']}-{o['version']}", o["count"]) for o in summary["op_types"]]
    print(tabulate(ops, headers=("op type", "count"), tablefmt="simple"))
    if summary["weights"]:
        print()
        rows = [(w["element_type"], w["constants"], w["bytes"]) for w in summary["weights"]]
        print(tabulate(rows, headers=("weights", "constants", "bytes"), tablefmt="simple"))
    if summary["variables"]:
        print()
        rows = [(v["id"], _ids(v["read_value"]), _ids(v["assign"])) for v in summary["variables"]]
        print(tabulate(rows, headers=("variable", "ReadValue", "Assign"), tablefmt="simple"))
    print()
    print("inputs:")
    for x in listing["inputs"]:
        print(f"  {x['name']}: {x['element_type']}{shape_text(x['shape'])}")
    print("outputs:")
    for x in listing["outputs"]:
        src = x["source"]
        print(f"  {x['name']} <- {src['name']}:{src['port']}: {x['element_type']}{shape_text(x['shape'])}")


def _ids(refs: list[dict[str, Any]]) -> str:
    return " ".join(f"{r['id']}:{r['name']}" for r in refs)


def print_table(listing: dict[str, Any]) -> None:
    rows: list[tuple[Any, ...]] = []
    for layer in listing["layers"]:
        outs = " ".join(
            f"{o['element_type']}{shape_text(o['shape'])}" + (" (declared)" if o["declared"] else "")
            for o in layer["outputs"]
        )
        ins = " ".join(f"{x['layer']}:{x['port']}" for x in layer["inputs"])
        attrs = " ".join(f"{k}={_short(v)}" for k, v in layer["attributes"].items())
        rows.append((layer["id"], layer["name"], f"{layer['type']}-{layer['version']}", ins, outs, attrs))
    print()
    headers = ("id", "name", "type", "inputs", "outputs", "attributes")
    print(tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True))
