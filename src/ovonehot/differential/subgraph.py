"""A subgraph of a model as a model of its own: the nodes kept, each input they read from a node
left out fed as a Parameter with a recorded value (a Constant left out is copied in, so weights
stay weights), the chosen outputs made Results.  What ``ovonehot reduce`` searches over
(:mod:`.reduce`) and what ``diff`` runs one layer alone with (:mod:`.isolate`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..graph import Graph, Node, Port, Source
from ..infer import infer
from ..ir.writer import write_ir
from ..model import Model

Value = tuple[int, int]  # (node index, output index) in the original graph

_NOT_OPS = ("parameter", "constant", "const", "result")


@dataclass(frozen=True)
class Candidate:
    """A subgraph of the original: op node indices kept, and the values it outputs."""

    keep: tuple[int, ...]
    outputs: tuple[Value, ...]


def _is_op(node: Node) -> bool:
    return node.type.lower() not in _NOT_OPS


def _is_constant(node: Node) -> bool:
    return node.type.lower() in ("constant", "const")


def extract(
    model: Model, values: Mapping[Value, np.ndarray], candidate: Candidate
) -> tuple[Graph, dict[str, np.ndarray]]:
    """The candidate as a standalone graph, and the feeds of its Parameters (by Parameter name)."""
    graph, inference = model.graph, model.inference
    keep = sorted(set(candidate.keep))
    kept = set(keep)
    nodes: list[Node] = []
    sources: list[tuple[Source, ...]] = []
    new_index: dict[int, int] = {}
    fed: dict[Value, int] = {}
    feeds: dict[str, np.ndarray] = {}
    names = {n.name for n in graph.nodes}

    def add(node: Node, srcs: tuple[Source, ...]) -> int:
        nodes.append(dataclasses.replace(node, id=len(nodes)))
        sources.append(srcs)
        return len(nodes) - 1

    def source_for(src: Source) -> Source:
        if src.node in kept:
            return Source(new_index[src.node], src.output)
        producer = graph.nodes[src.node]
        if _is_constant(producer):
            if src.node not in new_index:
                new_index[src.node] = add(producer, ())
            return Source(new_index[src.node], src.output)
        key = (src.node, src.output)
        if key not in fed:
            value = values[key]
            info = inference.outputs[src.node][src.output]
            port_names = producer.outputs[src.output].names if src.output < len(producer.outputs) else ()
            name = port_names[0] if port_names else f"{producer.name}.{src.output}"
            if name in feeds:
                name = f"{name}#{src.node}.{src.output}"
            shape = ",".join(str(d) for d in value.shape)
            param = Node(
                0,
                name if name not in names or _is_param_of(graph, name, src.node) else f"{name}.cut",
                "Parameter",
                "opset1",
                (("shape", shape), ("element_type", info.element_type.value)),
                outputs=(Port(0, info.element_type.precision, tuple(value.shape), (name,)),),
            )
            fed[key] = add(param, ())
            feeds[nodes[fed[key]].name] = value
        return Source(fed[key], 0)

    for i in keep:
        node = graph.nodes[i]
        srcs = tuple(source_for(s) for s in graph.sources[i])
        new_index[i] = add(node, srcs)
    for node_index, port in candidate.outputs:
        producer = graph.nodes[node_index]
        names_ = producer.outputs[port].names if port < len(producer.outputs) else ()
        result = Node(
            0,
            f"{producer.name}/result.{port}",
            "Result",
            "opset1",
            inputs=(Port(0),),
            output_names=names_ or (f"{producer.name}.{port}",),
        )
        add(result, (source_for(Source(node_index, port)),))
    return Graph(f"{graph.name}-reduced", 11, tuple(nodes), tuple(sources)), feeds


def _is_param_of(graph: Graph, name: str, index: int) -> bool:
    return graph.nodes[index].name == name and graph.nodes[index].type.lower() == "parameter"


def write_candidate(graph: Graph, folder: Path) -> Path:
    """Write a candidate graph as ``folder/model.xml`` (+ .bin) with ovonehot's writer."""
    xml = folder / "model.xml"
    write_ir(graph, xml, inference=infer(graph))
    return xml
