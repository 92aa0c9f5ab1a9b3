"""IR writer: :class:`ovonehot.graph.Graph` -> model.xml + model.bin (fixtures, fuzzing, replays).

The mirror of :mod:`ovonehot.ir.reader`, and like it op-agnostic: layers are
written with their raw ``<data>`` attributes, Constant payloads are packed with
:func:`ovonehot.ir.payload.encode` (``offset``/``size`` are assigned here, in
layer order, without alignment), and edges come from ``Graph.sources``.

Ports keep their ids, precisions, ``<dim>`` lists and names as the Graph holds
them; when an :class:`~ovonehot.infer.Inference` is given, every output port's
``precision`` and ``<dim>`` list are written from it instead (a static dim as its
length, any dynamic or interval dim as -1, no ``<dim>`` for a scalar or a dynamic
rank), and input ports copy the port that feeds them, as OpenVINO serializes.
The ``<rt_info>`` sections of a file that was read are not kept (ovonehot's Graph
does not hold them), except a ``decompression`` mark (``Node.decompression``), which
changes what OpenVINO's shape inference finds.

>>> from ovonehot.graph import Graph, Node, Port, Source
>>> p = Node(0, "x", "Parameter", "opset1", (("shape", "2"), ("element_type", "f32")),
...          outputs=(Port(0, "FP32", (2,), ("x",)),))
>>> r = Node(1, "out", "Result", "opset1", inputs=(Port(0, "FP32", (2,)),))
>>> xml, weights = to_bytes(Graph("g", 11, (p, r), ((), (Source(0, 0),))))
>>> b'<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>' in xml, weights
(True, b'')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

from ..graph import Element, Graph, Port
from ..types import ElementType, PartialShape
from . import payload as _payload

if TYPE_CHECKING:
    from ..infer import Inference


def to_bytes(
    graph: Graph, inference: Inference | None = None, version: int | None = None
) -> tuple[bytes, bytes]:
    """The IR as (xml bytes, bin bytes); ``version`` defaults to the graph's own IR version."""
    version = graph.ir_version if version is None else version
    if version not in (10, 11):
        raise ValueError(f"IR version {version}: only 10 and 11 exist")
    weights = bytearray()
    root = etree.Element("net", name=graph.name or "model", version=str(version))
    _write_graph(root, graph, _ports(graph, inference), weights)
    xml = etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)
    return xml, bytes(weights)


def _write_graph(
    parent: etree._Element,
    graph: Graph,
    ports: list[tuple[tuple[Port, ...], tuple[Port, ...]]],
    weights: bytearray,
) -> None:
    """``<layers>`` and ``<edges>`` of ``graph`` under ``parent`` (the ``<net>`` or a layer's body)."""
    layers = etree.SubElement(parent, "layers")
    for i in graph.document_order:
        node = graph.nodes[i]
        layer = etree.SubElement(
            layers, "layer", id=str(node.id), name=node.name, type=node.type, version=node.version
        )
        if node.output_names:  # a Result's names for the model output
            layer.set("output_names", ",".join(n.replace(",", "\\,") for n in node.output_names))
        attrs = dict(node.attrs)
        if node.payload is not None and node.type.lower() in ("const", "constant"):
            et = ElementType.from_name(attrs.get("element_type", ""))
            raw = _payload.encode(et, node.payload)
            attrs["offset"] = str(len(weights))
            attrs["size"] = str(len(raw))
            attrs.setdefault("shape", ",".join(str(n) for n in node.payload.shape))
            weights.extend(raw)
        if attrs or node.type.lower() in ("parameter", "const", "constant"):
            etree.SubElement(layer, "data", attrs)
        if node.decompression:
            rt_info = etree.SubElement(layer, "rt_info")
            etree.SubElement(rt_info, "attribute", name="decompression", version="0")
        for extra in node.extras:  # port maps, back edges: as they were read
            _write_element(layer, extra)
        ins, outs = ports[i]
        if ins:
            _write_ports(etree.SubElement(layer, "input"), ins)
        if outs:
            _write_ports(etree.SubElement(layer, "output"), outs)
        for tag, body in node.bodies:  # sub-graphs, with the ports they declare
            _write_graph(
                etree.SubElement(layer, tag), body, [(n.inputs, n.outputs) for n in body.nodes], weights
            )
    edges = etree.SubElement(parent, "edges")
    for i in graph.document_order:
        for k, src in enumerate(graph.sources[i]):
            etree.SubElement(
                edges,
                "edge",
                {
                    "from-layer": str(graph.nodes[src.node].id),
                    "from-port": str(graph.nodes[src.node].outputs[src.output].id),
                    "to-layer": str(graph.nodes[i].id),
                    "to-port": str(graph.nodes[i].inputs[k].id),
                },
            )


def _write_element(parent: etree._Element, element: Element) -> None:
    el = etree.SubElement(parent, element.tag, dict(element.attrs))
    for child in element.children:
        _write_element(el, child)


def write_ir(
    graph: Graph,
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    inference: Inference | None = None,
    version: int | None = None,
) -> tuple[Path, Path]:
    """Write ``graph`` as an IR; the .bin goes beside the .xml unless ``bin_path`` is given."""
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")
    xml, weights = to_bytes(graph, inference, version)
    xml_path.write_bytes(xml)
    bin_path.write_bytes(weights)
    return xml_path, bin_path


def port_dims(shape: PartialShape) -> tuple[int, ...]:
    """The ``<dim>`` list OpenVINO writes for a partial shape (-1 for any non-static dim)."""
    if shape.dims is None:
        return ()
    return tuple(d.min if d.is_static else -1 for d in shape.dims)


def _ports(graph: Graph, inference: Inference | None) -> list[tuple[tuple[Port, ...], tuple[Port, ...]]]:
    if inference is None:
        return [(n.inputs, n.outputs) for n in graph.nodes]
    outs: list[tuple[Port, ...]] = []
    for node, infos in zip(graph.nodes, inference.outputs, strict=True):
        outs.append(
            tuple(
                Port(p.id, info.element_type.precision, port_dims(info.shape), p.names)
                for p, info in zip(node.outputs, infos, strict=True)
            )
        )
    result = []
    for i, node in enumerate(graph.nodes):
        ins = tuple(
            Port(p.id, outs[s.node][s.output].precision, outs[s.node][s.output].dims, p.names)
            for p, s in zip(node.inputs, graph.sources[i], strict=True)
        )
        result.append((ins, outs[i]))
    return result


def _write_ports(parent: etree._Element, ports: tuple[Port, ...]) -> None:
    for port in ports:
        attrs = {"id": str(port.id)}
        if port.precision is not None:
            attrs["precision"] = port.precision
        if port.names:
            attrs["names"] = ",".join(n.replace(",", "\\,") for n in port.names)
        el = etree.SubElement(parent, "port", attrs)
        for d in port.dims:
            etree.SubElement(el, "dim").text = str(d)
