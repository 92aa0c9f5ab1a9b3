"""Model Explorer's JSON formats: an IR graph to look at, and per-layer errors to colour it by.

Google's Model Explorer (``pip install ai-edge-model-explorer``) has no OpenVINO IR adapter,
but its built-in JSON loader opens a *graph collection* file, the structure its adapters return
(``model_explorer/graph_builder.py``): ``{"label": ..., "graphs": [{"id": ..., "nodes":
[{"id", "label", "namespace", "attrs": [{"key", "value"}], "incomingEdges": [{"sourceNodeId",
"sourceNodeOutputId", "targetNodeInputId"}], "outputsMetadata": [{"id", "attrs"}],
"subgraphIds"}]}]}``.  :func:`graph_collection` writes one from a :class:`~ovonehot.graph.Graph`:

- a node per layer, its id the IR layer id (a string), its label the op type (``Const``
  nodes are then hidden by Model Explorer's default "hide op nodes" setting);
- its namespace the layer name's ``/``-separated components but the last
  (``__module.bert.encoder.layer.0/aten::add/Add`` lies in the nested groups
  ``__module.bert.encoder.layer.0`` > ``aten::add``), so the groups follow the framework's modules;
- its attributes: name, type, opset, id, every ``<data>`` attribute; per output: the port's
  declared element type and shape (``dtype``, ``shape``: Model Explorer can write the shape on
  the edges), and tensor names;
- an edge per input, output and input numbered by position (as ``--all-layers`` rows count ports);
- a sub-graph (TensorIterator, Loop, If bodies) as another graph of the collection, linked from
  its layer (``subgraphIds``), with the id ``<graph id>/<layer id>/<body tag>``.

Node data (``model_explorer/node_data_builder.py``, ``ModelNodeData``) is ``{graph id:
{"results": {node id: {"value": number, "bgColor"?, "textColor"?}}, "thresholds": [{"value",
"bgColor", "textColor"?}]}}``: Model Explorer paints a node with the colour of the first threshold
at or above its value, and a result's own ``bgColor``/``textColor`` win over the thresholds.
:func:`node_data` writes one oracle's ``diff --all-layers`` rows so: the value is the node's
largest absolute error over its output ports (:class:`~.differential.layers.LayerRow`
``max_abs``); the thresholds colour it by decade (exact: green, then yellow to orange, above 1:
red); a node that differs beyond its tolerance has dark red text, and the first divergent layer
(:func:`~.differential.layers.first_divergence`) a dark red background with white text.
Node outputs that were not compared, or that a known deviation of the oracle explains (the CPU
plugin holding i64 as int32), have no entry (Model Explorer leaves them uncoloured).  JSON
has no infinity or NaN, and a mismatch of shapes or element types has no size: such an error is
written as the largest double, ``1.7976931348623157e+308``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from .differential.layers import LayerRow, LayerVerdict, first_divergence
from .graph import Graph, Node, Port

# An error that is no finite number (inf, NaN, a shape mismatch): JSON has nothing larger.
UNMEASURED = sys.float_info.max

# (largest value, background colour): green for exact through yellow to red by decade.
THRESHOLDS: tuple[tuple[float, str], ...] = (
    (0.0, "#c8e6c9"),
    (1e-7, "#dcedc8"),
    (1e-6, "#f0f4c3"),
    (1e-5, "#fff9c4"),
    (1e-4, "#ffecb3"),
    (1e-3, "#ffe0b2"),
    (1e-2, "#ffccbc"),
    (1.0, "#ffab91"),
    (UNMEASURED, "#ef5350"),
)
DIFFERS_TEXT = "#b71c1c"  # the text of a node that differs beyond its tolerance
FIRST_DIVERGENT_BACKGROUND = "#b71c1c"  # the first divergent layer
FIRST_DIVERGENT_TEXT = "#ffffff"
MAIN_GRAPH = "main"  # the graph id of an IR whose <net> has no name


def graph_id(graph: Graph) -> str:
    """The id of the IR's main graph in both files: the ``<net name>``."""
    return graph.name or MAIN_GRAPH


def graph_collection(graph: Graph, label: str) -> dict[str, Any]:
    """Model Explorer's graph collection for ``graph`` (its JSON loader opens it); ``label``
    names the collection in Model Explorer's graph selector (the model's file name)."""
    graphs: list[dict[str, Any]] = []
    _add_graph(graph, graph_id(graph), graphs)
    return {"label": label, "graphs": graphs}


def _add_graph(graph: Graph, gid: str, graphs: list[dict[str, Any]]) -> None:
    """Append ``graph`` as ``gid``, then each of its sub-graphs, depth first."""
    entry: dict[str, Any] = {"id": gid, "nodes": []}
    graphs.append(entry)
    for i, node in enumerate(graph.nodes):
        bodies = [(f"{gid}/{node.id}/{tag}", body) for tag, body in node.bodies]
        entry["nodes"].append(_node(graph, i, [sub for sub, _ in bodies]))
        for sub, body in bodies:
            _add_graph(body, sub, graphs)


def _node(graph: Graph, i: int, subgraphs: Sequence[str]) -> dict[str, Any]:
    node = graph.nodes[i]
    parts = [p for p in node.name.split("/") if p]
    out: dict[str, Any] = {
        "id": str(node.id),
        "label": node.type,
        "namespace": "/".join(parts[:-1]),
        "attrs": [_kv(k, v) for k, v in _attributes(node)],
        "incomingEdges": [
            {
                "sourceNodeId": str(graph.nodes[s.node].id),
                "sourceNodeOutputId": str(s.output),
                "targetNodeInputId": str(k),
            }
            for k, s in enumerate(graph.sources[i])
        ],
        "outputsMetadata": [{"id": str(k), "attrs": _port_attrs(p)} for k, p in enumerate(node.outputs)],
    }
    if subgraphs:
        out["subgraphIds"] = list(subgraphs)
    return out


def _attributes(node: Node) -> list[tuple[str, str]]:
    """The layer's name, type, opset and id, then its ``<data>`` attributes (``data.KEY`` where
    KEY is one of the four)."""
    head = [("name", node.name), ("type", node.type), ("opset", node.version), ("id", str(node.id))]
    taken = {k for k, _ in head}
    return head + [(f"data.{k}" if k in taken else k, v) for k, v in node.attrs]


def _port_attrs(port: Port) -> list[dict[str, str]]:
    attrs = [_kv("port", str(port.id))]
    if port.precision:
        attrs.append(_kv("dtype", port.precision))
    attrs.append(_kv("shape", "[" + ",".join("?" if d < 0 else str(d) for d in port.dims) + "]"))
    if port.names:
        attrs.append(_kv("tensor_name", ", ".join(port.names)))
    return attrs


def _kv(key: str, value: str) -> dict[str, str]:
    return {"key": key, "value": value}


def node_data(graph: Graph, rows: Sequence[LayerRow]) -> dict[str, Any]:
    """Model Explorer's node data for one oracle's ``--all-layers`` rows (see the module doc):
    ``{graph id: {"results": ..., "thresholds": ...}}``, results keyed by the layer ids that
    :func:`graph_collection` gives its nodes."""
    results: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.node < 0 or row.verdict in (LayerVerdict.NOT_COMPARED, LayerVerdict.DEVIATION):
            continue  # (a known deviation of the oracle is no error of the model's to color)
        key = str(graph.nodes[row.node].id)
        value = error_value(row)
        entry = results.setdefault(key, {"value": value})
        entry["value"] = max(entry["value"], value)  # a node's largest error over its ports
        if row.verdict is LayerVerdict.DIFFERS:
            entry["textColor"] = DIFFERS_TEXT
    first = first_divergence(rows)
    if first is not None and first.row.node >= 0:
        marked = results[str(graph.nodes[first.row.node].id)]
        marked["bgColor"] = FIRST_DIVERGENT_BACKGROUND
        marked["textColor"] = FIRST_DIVERGENT_TEXT
    thresholds = [{"value": v, "bgColor": c} for v, c in THRESHOLDS]
    return {graph_id(graph): {"results": results, "thresholds": thresholds}}


def error_value(row: LayerRow) -> float:
    """A compared row's value in the node data: its largest absolute error; the largest double
    when that is no finite number (inf, NaN, or no size: shapes or element types differ); 0 for
    a row without a size that passed (values that are no numbers, compared as equal)."""
    if row.max_abs is None:
        return 0.0 if row.verdict is LayerVerdict.PASS else UNMEASURED
    return row.max_abs if math.isfinite(row.max_abs) else UNMEASURED
