"""The in-memory graph: nodes, ports, connections, topological order.

Knows nothing of the IR file format (that is :mod:`ovonehot.ir.reader`) and
nothing of op semantics (that is :mod:`ovonehot.ops`).  Records are frozen;
``Graph.nodes`` is in topological order, so the interpreters walk it once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from .errors import quote, shorten
from .packed import Packed


@dataclass(frozen=True, slots=True)
class Port:
    """A port as the IR declares it: its id, precision, ``<dim>`` list and tensor names."""

    id: int
    precision: str | None = None
    dims: tuple[int, ...] = ()
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LayerRef:
    """A layer as reports name it: its IR id, friendly name, op type and opset version."""

    id: int
    name: str
    type: str
    version: str

    def as_json(self) -> dict[str, int | str]:
        """``{"id", "name", "type", "version"}``: the layer object of every JSON document."""
        return {"id": self.id, "name": self.name, "type": self.type, "version": self.version}

    def describe(self) -> str:
        """``layer id=4 name='OneHot_5' type=OneHot-opset1``: the prefix of every error about it."""
        return f"layer id={self.id} name={quote(self.name)} type={shorten(f'{self.type}-{self.version}')}"


@dataclass(frozen=True, slots=True)
class Source:
    """Where an input comes from: output number ``output`` of node number ``node`` (indices, not ids)."""

    node: int
    output: int


@dataclass(frozen=True, slots=True)
class Element:
    """A child element of a layer that is neither ``<data>`` nor a port list nor a body, kept
    as written: ``<port_map>``, ``<back_edges>``, ``<then_port_map>`` (tag, attributes, children).

    The reader keeps these without knowing what they mean; the op that owns them parses them.
    """

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    children: tuple[Element, ...] = ()

    def attr(self, name: str, default: str | None = None) -> str | None:
        for key, value in self.attrs:
            if key == name:
                return value
        return default


@dataclass(frozen=True, slots=True)
class Node:
    """One layer.  ``attrs`` holds the raw ``<data>`` strings; ops parse them into typed attributes.

    ``payload`` is a Constant's decoded value (None for other nodes), a large u4/i4 one kept
    packed (:class:`~ovonehot.packed.Packed`); it is left out of equality and hashing.
    """

    id: int
    name: str
    type: str
    version: str
    attrs: tuple[tuple[str, str], ...] = ()
    inputs: tuple[Port, ...] = ()
    outputs: tuple[Port, ...] = ()
    payload: np.ndarray | Packed | None = field(default=None, compare=False, hash=False, repr=False)
    # A Result layer's ``output_names`` attribute: when present, OpenVINO uses these tensor
    # names for the model output instead of the producer port's ``names``.
    output_names: tuple[str, ...] = ()
    # The layer's rt_info marks it ``decompression`` (the Convert after an f16-compressed
    # Const that ``save_model`` inserts): OpenVINO's shape inference passes no value or
    # bound through it (``could_propagate`` in ``bound_evaluate.cpp``).
    decompression: bool = False
    # Sub-graphs a layer holds (TensorIterator/Loop ``body``, If ``then_body``/``else_body``),
    # keyed by the element's tag, and its other child elements (port maps, back edges).
    bodies: tuple[tuple[str, Graph], ...] = field(default=(), compare=False, hash=False, repr=False)
    extras: tuple[Element, ...] = field(default=(), compare=False, hash=False, repr=False)
    # A Const whose payload the .bin does not hold (too small a ``size``, or outside the file),
    # read by the tolerant reader (``ir.reader.read_tolerant``): its value is unknown and its
    # ``payload`` None; ``validate`` reports it and does not check what depends on it.
    value_unknown: bool = False

    def body(self, tag: str) -> Graph | None:
        """The sub-graph written in the child element ``<tag>``, or None."""
        for key, graph in self.bodies:
            if key == tag:
                return graph
        return None

    def extra(self, tag: str) -> Element | None:
        """The child element ``<tag>`` (``port_map``, ``back_edges``), or None."""
        for element in self.extras:
            if element.tag == tag:
                return element
        return None

    def attr(self, name: str, default: str | None = None) -> str | None:
        for key, value in self.attrs:
            if key == name:
                return value
        return default

    @property
    def attr_map(self) -> Mapping[str, str]:
        return dict(self.attrs)

    @property
    def type_version(self) -> str:
        return f"{self.type}-{self.version}"

    @property
    def ref(self) -> LayerRef:
        return LayerRef(self.id, self.name, self.type, self.version)

    def describe(self) -> str:
        """``layer id=4 name='OneHot_5' type=OneHot-opset1``: the prefix of every error about it."""
        return f"layer id={self.id} name={quote(self.name)} type={shorten(self.type_version)}"


@dataclass(frozen=True, slots=True)
class Graph:
    """Nodes in topological order and, per node, the source of each of its inputs.

    ``document_order`` lists node indices in the order the file wrote them: OpenVINO
    orders a model's Parameters and Results that way.
    """

    name: str
    ir_version: int
    nodes: tuple[Node, ...]
    sources: tuple[tuple[Source, ...], ...]
    document_order: tuple[int, ...] = ()
    _index: dict[int, int] = field(init=False, repr=False, compare=False, hash=False)
    # Lower-case type -> node indices in document order, made at the first kind_indices.
    _kinds: dict[str, list[int]] | None = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.nodes) != len(self.sources):
            raise ValueError("one tuple of sources per node")
        if not self.document_order:
            object.__setattr__(self, "document_order", tuple(range(len(self.nodes))))
        index: dict[int, int] = {}
        for i, node in enumerate(self.nodes):
            index.setdefault(node.id, i)  # the first node with an id, as the linear scan found
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_kinds", None)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def index_of(self, node_id: int) -> int:
        """The position of the node with layer id ``node_id`` (KeyError when none): O(1)."""
        return self._index[node_id]

    def kind_indices(self, type_name: str) -> list[int]:
        """Indices of the nodes of one type (case-insensitive), in document order."""
        kinds = self._kinds
        if kinds is None:
            kinds = {}
            lower: dict[str, str] = {}
            nodes = self.nodes
            for i in self.document_order:
                t = nodes[i].type
                k = lower.get(t)
                if k is None:
                    k = lower[t] = t.lower()
                kinds.setdefault(k, []).append(i)
            object.__setattr__(self, "_kinds", kinds)
        return list(kinds.get(type_name.lower(), ()))

    def ancestors(self, roots: Iterable[int], within: Collection[int] | None = None) -> set[int]:
        """Node indices ``roots`` depend on, themselves included; only inside ``within`` when given."""
        allowed = None if within is None else set(within)
        seen: set[int] = set()
        stack = [r for r in roots if allowed is None or r in allowed]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            stack.extend(s.node for s in self.sources[i] if allowed is None or s.node in allowed)
        return seen

    def consumers(self) -> list[list[tuple[int, int, int]]]:
        """Per node: (output index, consumer node index, consumer input index) triples."""
        result: list[list[tuple[int, int, int]]] = [[] for _ in self.nodes]
        for ci, srcs in enumerate(self.sources):
            for ii, src in enumerate(srcs):
                result[src.node].append((src.output, ci, ii))
        return result
