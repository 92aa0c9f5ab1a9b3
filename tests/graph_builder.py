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

from ovonehot.graph import Graph
from ovonehot.ir import builder
from ovonehot.types import ElementType, PartialShape


class GraphBuilder:
    """Nodes are added in topological order; ``op`` inputs are node indices or (index, output).

    The short spelling the tests use (element types and shapes as text, nodes as indices)
    over the library's :class:`ovonehot.ir.builder.GraphBuilder`, which builds the graph.
    """

    def __init__(self) -> None:
        self._builder = builder.GraphBuilder("built")

    def parameter(self, name: str, element_type: str, shape: str) -> int:
        return self._builder.parameter(
            name, ElementType.from_name(element_type), PartialShape.parse(shape)
        ).node

    def const(self, name: str, value: object, element_type: str | None = None) -> int:
        et = (
            ElementType.from_name(element_type)
            if element_type
            else ElementType.from_numpy(np.asarray(value).dtype)
        )
        return self._builder.constant(et, np.asarray(value, dtype=et.numpy_dtype), name).node

    def op(
        self,
        type_name: str,
        version: str,
        inputs: list[int | tuple[int, int]],
        attrs: dict[str, str] | None = None,
        outputs: int = 1,
        name: str | None = None,
    ) -> int:
        index = self._builder.count
        sources = [builder.Out(i) if isinstance(i, int) else builder.Out(*i) for i in inputs]
        self._builder.ops(type_name, version, sources, attrs, outputs, name)
        return index

    def graph(self) -> Graph:
        return self._builder.build()
