"""Test helper: build small ovonehot graphs in memory, without an IR file or OpenVINO.

>>> b = GraphBuilder()
>>> x = b.parameter("x", "i64", "[2,?]")
>>> s = b.op("ShapeOf", "opset3", [x], {"output_type": "i64"})
>>> g = b.graph()
>>> [n.type for n in g.nodes]
['Parameter', 'ShapeOf']
"""

from __future__ import annotations

import numpy as np

from ovonehot.graph import Graph, Node, Port, Source
from ovonehot.types import ElementType


class GraphBuilder:
    """Nodes are added in topological order; ``op`` inputs are node indices or (index, output)."""

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._sources: list[tuple[Source, ...]] = []

    def _add(self, node: Node, sources: tuple[Source, ...] = ()) -> int:
        self._nodes.append(node)
        self._sources.append(sources)
        return len(self._nodes) - 1

    def parameter(self, name: str, element_type: str, shape: str) -> int:
        text = shape.strip().removeprefix("[").removesuffix("]")
        attrs = (("shape", text), ("element_type", element_type))
        return self._add(Node(len(self._nodes), name, "Parameter", "opset1", attrs, outputs=(Port(0),)))

    def const(self, name: str, value: object, element_type: str | None = None) -> int:
        et = (
            ElementType.from_name(element_type)
            if element_type
            else ElementType.from_numpy(np.asarray(value).dtype)
        )
        dtype = et.numpy_dtype
        array = np.asarray(value, dtype=dtype)
        attrs = (("element_type", et.value), ("shape", ",".join(str(n) for n in array.shape)))
        node = Node(len(self._nodes), name, "Const", "opset1", attrs, outputs=(Port(0),), payload=array)
        return self._add(node)

    def op(
        self,
        type_name: str,
        version: str,
        inputs: list[int | tuple[int, int]],
        attrs: dict[str, str] | None = None,
        outputs: int = 1,
        name: str | None = None,
    ) -> int:
        sources = tuple(Source(i, 0) if isinstance(i, int) else Source(*i) for i in inputs)
        in_ports = tuple(Port(k) for k in range(len(inputs)))
        out_ports = tuple(Port(len(inputs) + k) for k in range(outputs))
        index = len(self._nodes)
        node = Node(
            index,
            name or f"{type_name}_{index}",
            type_name,
            version,
            tuple((attrs or {}).items()),
            in_ports,
            out_ports,
        )
        return self._add(node, sources)

    def graph(self) -> Graph:
        return Graph("built", 11, tuple(self._nodes), tuple(self._sources))
