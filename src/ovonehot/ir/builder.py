"""Build a :class:`~ovonehot.graph.Graph` in code (fuzzing, tests), the way the IR would hold it.

Like the reader, the builder knows no op semantics: it records layers with raw
string attributes, numbers ports as serialized IR does (inputs first, then
outputs), and wires edges.  Port precisions and dims are left for the writer to
fill from inference (``write_ir(graph, path, inference=...)``).

>>> from ovonehot.types import ElementType, PartialShape
>>> b = GraphBuilder("g")
>>> x = b.parameter("x", ElementType.i32, PartialShape.parse("?"))
>>> b.result(b.op("Convert", "opset1", [x], {"destination_type": "i64"}))
>>> [n.type for n in b.build().nodes]
['Parameter', 'Convert', 'Result']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..graph import Graph, Node, Port, Source
from ..types import ElementType, PartialShape


@dataclass(frozen=True, slots=True)
class Out:
    """Output ``output`` of the builder's node number ``node``."""

    node: int
    output: int = 0


def shape_attr(shape: PartialShape) -> str:
    """A Parameter's ``shape`` attribute: ``2,?,1..10``; ``...`` for a dynamic rank; ``""`` for a scalar."""
    if shape.dims is None:
        return "..."
    return ",".join(str(d) for d in shape.dims)


class GraphBuilder:
    """Accumulates layers in topological order; ``build()`` freezes them into a Graph."""

    def __init__(self, name: str = "model") -> None:
        self.name = name
        self._nodes: list[Node] = []
        self._sources: list[tuple[Source, ...]] = []
        self._names: dict[tuple[int, int], tuple[str, ...]] = {}

    def _add(
        self,
        type_name: str,
        version: str,
        inputs: Sequence[Out],
        attrs: Mapping[str, str],
        n_outputs: int,
        name: str | None,
        payload: np.ndarray | None = None,
    ) -> int:
        index = len(self._nodes)
        layer_id = index
        in_ports = tuple(Port(k) for k in range(len(inputs)))
        out_ports = tuple(Port(len(inputs) + k) for k in range(n_outputs))
        node = Node(
            layer_id,
            name or f"{type_name}_{layer_id}",
            type_name,
            version,
            tuple((k, str(v)) for k, v in attrs.items()),
            in_ports,
            out_ports,
            payload,
        )
        self._nodes.append(node)
        self._sources.append(tuple(Source(o.node, o.output) for o in inputs))
        return index

    @property
    def count(self) -> int:
        """How many layers were added so far (the next layer's index)."""
        return len(self._nodes)

    def parameter(self, name: str, element_type: ElementType, shape: PartialShape) -> Out:
        i = self._add(
            "Parameter",
            "opset1",
            (),
            {"shape": shape_attr(shape), "element_type": element_type.value},
            1,
            name,
        )
        self._names[(i, 0)] = (name,)
        return Out(i)

    def constant(self, element_type: ElementType, value: np.ndarray, name: str | None = None) -> Out:
        value = np.asarray(value)
        attrs = {"element_type": element_type.value, "shape": ",".join(str(n) for n in value.shape)}
        return Out(self._add("Const", "opset1", (), attrs, 1, name, payload=value))

    def op(
        self,
        type_name: str,
        version: str,
        inputs: Sequence[Out],
        attrs: Mapping[str, str] | None = None,
        name: str | None = None,
    ) -> Out:
        return self.ops(type_name, version, inputs, attrs, 1, name)[0]

    def ops(
        self,
        type_name: str,
        version: str,
        inputs: Sequence[Out],
        attrs: Mapping[str, str] | None = None,
        n_outputs: int = 1,
        name: str | None = None,
    ) -> list[Out]:
        i = self._add(type_name, version, inputs, attrs or {}, n_outputs, name)
        return [Out(i, k) for k in range(n_outputs)]

    def result(self, out: Out, tensor_name: str | None = None, name: str | None = None) -> None:
        if tensor_name:
            self._names[(out.node, out.output)] = (*self._names.get((out.node, out.output), ()), tensor_name)
        self._add("Result", "opset1", (out,), {}, 0, name)

    def build(self) -> Graph:
        nodes = []
        for i, node in enumerate(self._nodes):
            outs = tuple(
                Port(p.id, p.precision, p.dims, self._names.get((i, k), ()))
                for k, p in enumerate(node.outputs)
            )
            nodes.append(
                Node(node.id, node.name, node.type, node.version, node.attrs, node.inputs, outs, node.payload)
            )
        return Graph(self.name, 11, tuple(nodes), tuple(self._sources))
