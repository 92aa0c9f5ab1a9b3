"""Model Explorer files from the command line: ``convert MODEL --to model-explorer`` (the graph)
and ``diff MODEL --all-layers --node-data FILE.json`` (each layer's error against an oracle).

The formats are :mod:`ovonehot.explorer`'s.  With several oracles compared layer by layer
(``--oracle reference,cpu``), each gets its own file: ``FILE-reference.json``,
``FILE-cpu.json``; with one, the file is ``FILE.json`` itself.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..atomic import check_output_file
from ..differential.layers import by_oracle, first_divergence
from ..differential.report import DiffReport
from ..errors import UsageError
from ..explorer import graph_collection, graph_id, node_data
from ..graph import Graph
from ..ir.reader import read_ir, read_ir_bytes
from ..npyio import check_input_file, write_text
from ..oracle.onnx_frontend import convert_onnx, is_onnx_path


def add_node_data_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--node-data",
        metavar="FILE.json",
        help="with --all-layers: write each layer's largest error as Model Explorer node data, "
        "keyed by the layer ids of `ovonehot convert MODEL --to model-explorer` (several oracles: "
        "FILE-ORACLE.json each)",
    )


def check_node_data(args: argparse.Namespace) -> None:
    """Refuse ``--node-data`` without ``--all-layers``, or a path ovonehot cannot write, before
    any model runs."""
    path = getattr(args, "node_data", None)
    if path is None:
        return
    if not args.all_layers:
        raise UsageError("--node-data needs --all-layers: it holds the per-layer errors")
    if Path(path).suffix.lower() != ".json":
        raise UsageError(f"--node-data {path}: Model Explorer opens node data from a .json file")
    check_output_file(path, "--node-data")


def write_node_data(path: str, graph: Graph, report: DiffReport) -> dict[str, str]:
    """Write one node data file per oracle compared layer by layer; {oracle: file}.  Says which
    files it wrote, and where the first divergent layer is."""
    per_oracle = by_oracle(report.layers or [])
    if not per_oracle:
        print(f"--node-data: no layer was compared, {path} not written")
        return {}
    written: dict[str, str] = {}
    for oracle, rows in per_oracle.items():
        target = path if len(per_oracle) == 1 else _per_oracle_path(path, oracle)
        check_output_file(target, "--node-data")
        write_text(target, json.dumps(node_data(graph, rows), indent=1, allow_nan=False) + "\n")
        first = first_divergence(rows)
        where = f"first divergent layer id={graph.nodes[first.row.node].id}" if first else "no layer differs"
        print(f"wrote Model Explorer node data {target} (against {oracle}: {where})")
        written[oracle] = target
    return written


def _per_oracle_path(path: str, oracle: str) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{oracle}{p.suffix}"))


def convert_to_explorer(model: str, output: str | None) -> dict[str, Any]:
    """``ovonehot convert MODEL(.xml|.onnx) --to model-explorer [-o GRAPH.json]``: write the
    graph collection; what was written, for --json."""
    source = Path(model)
    target = Path(output) if output is not None else source.with_suffix(".explorer.json")
    if target.suffix.lower() != ".json":
        raise UsageError(f"{target}: Model Explorer's JSON loader opens a .json file")
    check_input_file(source, "model")
    check_output_file(target, "--output")
    graph = read_ir_bytes(*convert_onnx(source)) if is_onnx_path(source) else read_ir(source)
    collection = graph_collection(graph, source.name)
    write_text(target, json.dumps(collection, indent=1, allow_nan=False) + "\n")
    nodes = sum(len(g["nodes"]) for g in collection["graphs"])
    print(f"wrote the Model Explorer graph {target}: graph {graph_id(graph)!r}, {nodes} nodes")
    return {"model": str(source), "output": str(target), "graph_id": graph_id(graph), "nodes": nodes}
