"""Interpreter 1: element types and partial shapes for every output of every node.

Walks the graph once in topological order, asking each op's spec for its output
infos.  Values are propagated too (constant folding of small tensors through
ops whose inputs are all known), which is how a depth computed from constants
becomes a number, as in OpenVINO.  Errors get the layer context here, once.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np

from .budget import numpy_can_hold
from .errors import Error, IRError, UnknownParameterError, UnsupportedError, ValidationError, shorten
from .graph import Graph, Node
from .ops import OpSpec, TensorInfo, lookup, resolve, supported_names, unsupported_types
from .ops.basic import ParameterAttrs
from .ops.common.bounds import propagate as propagate_bounds
from .problems import Problem, Severity, problem
from .suggest import nearest
from .types import ElementType, PartialShape

# Fold values only for tensors this small: shape subgraphs are tiny, data tensors are not.
FOLD_LIMIT = 1 << 16


@dataclass(frozen=True, slots=True)
class NodePlan:
    """A node with its resolved spec and parsed attributes."""

    node: Node
    spec: OpSpec[Any]
    attrs: Any = field(compare=False)


@dataclass(frozen=True, slots=True)
class Inference:
    """The result of shape inference: per node (graph order) its plan and output infos."""

    graph: Graph
    plans: tuple[NodePlan, ...]
    outputs: tuple[tuple[TensorInfo, ...], ...]
    # What the evaluator compiles from this inference once and reuses (evaluate.program).
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def input_infos(self, index: int) -> list[TensorInfo]:
        return [self.outputs[s.node][s.output] for s in self.graph.sources[index]]


def plan(graph: Graph) -> tuple[NodePlan, ...]:
    """Resolve every node's op and parse its attributes.

    Unsupported ops are refused all at once, with the list of every unsupported type.
    """
    missing = unsupported_types(graph)
    if missing:
        raise UnsupportedError(unsupported_message(missing))
    plans = []
    specs: dict[tuple[str, str], OpSpec[Any]] = {}
    # Attributes parsed, by what a parser reads of a node (its <data>, ports and names, the
    # very tuples, which the reader shares between layers written alike); not for a node with
    # a payload or sub-graphs.  Parsed attributes are immutable, so layers can share them.
    parsed: dict[tuple[int, int, int, int, tuple[str, ...], bool], Any] = {}
    for i, node in enumerate(graph.nodes):
        spec = specs.get((node.type, node.version))  # (resolve, once per type and version)
        if spec is None:
            spec = specs[node.type, node.version] = resolve(node)
        n_in = len(graph.sources[i])
        if not spec.accepts_input_count(n_in):
            raise IRError(f"{node.describe()}: has {n_in} inputs, {spec.name} takes {spec.inputs}")
        if node.payload is None and not node.bodies and not node.extras and not node.value_unknown:
            key = (
                id(spec),
                id(node.attrs),
                id(node.inputs),
                id(node.outputs),
                node.output_names,
                node.decompression,
            )
            attrs = parsed.get(key, _UNPARSED)
            if attrs is _UNPARSED:
                attrs = parsed[key] = spec.parse(node)
        else:
            attrs = spec.parse(node)
        plans.append(NodePlan(node, spec, attrs))
    return tuple(plans)


_UNPARSED = object()


def unsupported_message(missing: list[str]) -> str:
    """The model's unsupported ``Type-version``s (each with the nearest supported ones), and
    where the whole list is: not the 170-odd supported names on one line."""
    supported = supported_names()
    by_type: dict[str, list[str]] = {}
    for name in supported:
        by_type.setdefault(name.rsplit("-", 1)[0].lower(), []).append(name)
    shown = []
    for m in missing[:20]:
        same_type = by_type.get(m.rsplit("-", 1)[0].lower())
        close = same_type or nearest(m, supported)
        shown.append(shorten(m) + (f" (ovonehot has {', '.join(close)})" if close else ""))
    more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
    return (
        f"unsupported ops in the model: {', '.join(shown)}{more}; "
        f"ovonehot.ops.supported_names() lists the {len(supported)} supported op versions"
    )


class Checker:
    """Per-node hooks of the record policy: how ``validate`` adds its findings to the one walk.

    Every hook may append problems to ``found`` (the node's, in the order they are found).
    ``before_resolve``, ``before_parse`` and ``after_parse`` can stop a node: it then fails
    (no outputs; every node depending on it is marked with it as the root cause and not
    inferred).  The defaults find nothing and stop nothing.
    """

    def visit(self, index: int, node: Node, found: list[Problem]) -> None:
        """Called first for every node, inferred or not (edge checks)."""

    def before_resolve(self, index: int, node: Node, found: list[Problem]) -> bool:
        """Before the op is looked up (opset membership, unreadable Consts); False stops the node."""
        return True

    def before_parse(
        self, index: int, node: Node, spec: OpSpec[Any], ins: Sequence[TensorInfo], found: list[Problem]
    ) -> bool:
        """The op is known and takes this many inputs; False stops the node."""
        return True

    def after_parse(
        self, index: int, p: NodePlan, ins: Sequence[TensorInfo], found: list[Problem]
    ) -> NodePlan | None:
        """The plan to infer (possibly with other attributes), or None to stop the node."""
        return p

    def after_infer(
        self,
        index: int,
        p: NodePlan,
        ins: Sequence[TensorInfo],
        outs: tuple[TensorInfo, ...],
        found: list[Problem],
    ) -> None:
        """The node's outputs, as ``infer`` keeps them."""


@dataclass(frozen=True, slots=True)
class Record:
    """The record policy: a node that cannot be inferred gets a problem instead of an exception.

    Its problems (codes ``not-checked`` for an op ovonehot does not implement, ``input-count``,
    ``bad-attribute``, ``inference-failed`` for what OpenVINO refuses, ``output-count``) and
    the checker's are kept in node order; then one ``not-checked`` warning per failing node
    counts the nodes that depend on it.
    """

    checker: Checker = field(default_factory=Checker)


@dataclass(frozen=True, slots=True)
class PartialInference:
    """What ``infer`` finds under the record policy: per node (graph order) its plan and outputs,
    None where the node failed or depends on a node that failed."""

    graph: Graph
    plans: tuple[NodePlan | None, ...]
    outputs: tuple[tuple[TensorInfo, ...] | None, ...]
    problems: tuple[Problem, ...]
    failed_at: Mapping[int, int]  # node index -> the failing node it depends on (itself when it failed)


@overload
def infer(
    graph: Graph,
    plans: Sequence[NodePlan] | None = None,
    shapes: Mapping[str, PartialShape] | None = None,
    as_read_model: bool = False,
    parameters: Mapping[int, TensorInfo] | None = None,
    *,
    policy: Literal["raise"] = "raise",
) -> Inference: ...


@overload
def infer(
    graph: Graph,
    plans: None = None,
    shapes: Mapping[str, PartialShape] | None = None,
    as_read_model: bool = False,
    parameters: Mapping[int, TensorInfo] | None = None,
    *,
    policy: Record,
) -> PartialInference: ...


def infer(
    graph: Graph,
    plans: Sequence[NodePlan] | None = None,
    shapes: Mapping[str, PartialShape] | None = None,
    as_read_model: bool = False,
    parameters: Mapping[int, TensorInfo] | None = None,
    *,
    policy: Literal["raise"] | Record = "raise",
) -> Inference | PartialInference:
    """Infer every node's outputs.  ``shapes`` overrides Parameter shapes by name (a reshape).

    Values fold through every node, as OpenVINO's constant folding does when it compiles.
    ``as_read_model`` gives what ``read_model`` reports instead: no value or bound passes a
    Convert marked ``decompression`` (``Node.decompression``), so a depth computed from an
    f16-compressed constant is ``?`` there (and static once compiled).
    ``parameters`` gives Parameters (by node index) their info outright: how a TensorIterator,
    Loop or If infers its body (``ops.subgraph``), with the outer inputs' types and shapes.

    ``policy``: ``"raise"`` (an unsupported op, refused all at once, or the first node that cannot
    be inferred raises) or a :class:`Record` (problems are recorded, see :class:`PartialInference`;
    its checker's hooks run on every node).  Either way a name in ``shapes`` that is no Parameter
    raises :class:`UnknownParameterError`.
    """
    record = policy if isinstance(policy, Record) else None
    planned: tuple[NodePlan, ...] = ()  # (a Record plans each node as it goes)
    if record is None:
        planned = tuple(plans) if plans is not None else plan(graph)
    overrides = dict(shapes or {})
    kept: list[NodePlan | None] = []
    outputs: list[tuple[TensorInfo, ...] | None] = []
    found: list[Problem] = []
    failed_at: dict[int, int] = {}
    memo: dict[tuple[object, ...], tuple[TensorInfo, ...]] = {}  # (see _infer_memoized)
    for i, node in enumerate(graph.nodes):
        srcs = graph.sources[i]
        p: NodePlan | None
        if record is None:
            p = planned[i]
            node = p.node  # (the plans' node: a caller's plans may carry a changed one)
            ins = [outputs[s.node][s.output] for s in srcs]  # type: ignore[index]
        else:
            record.checker.visit(i, node, found)
            upstream = [failed_at[s.node] for s in srcs if outputs[s.node] is None]
            if upstream:
                failed_at[i] = upstream[0]
                kept.append(None)
                outputs.append(None)
                continue
            ins = [outputs[s.node][s.output] for s in srcs]  # type: ignore[index]
            p = _plan_recorded(record.checker, i, node, ins, found)
        p = _reshaped(p, node, overrides)
        ins = _concat_target(graph, i, node, ins, outputs)
        outs: tuple[TensorInfo, ...] | None
        if record is not None and p is not None:
            p = record.checker.after_parse(i, p, ins, found)
        if p is None:
            outs = None
        else:
            outs = _node_outputs(i, p, ins, parameters, memo, found if record is not None else None)
        if outs is not None and as_read_model and node.decompression:
            outs = tuple(TensorInfo(t.element_type, t.shape) for t in outs)
        if record is not None and p is not None and outs is not None:
            record.checker.after_infer(i, p, ins, outs, found)
        if outs is None:
            failed_at[i] = i
        kept.append(p)
        outputs.append(outs)
    if overrides:
        names = tuple(sorted(overrides))
        raise UnknownParameterError(f"shapes name no Parameter: {', '.join(names)}", names)
    if record is None:
        return Inference(graph, planned, tuple(outputs))  # type: ignore[arg-type]
    found.extend(_downstream_warnings(graph, failed_at))
    return PartialInference(graph, tuple(kept), tuple(outputs), tuple(found), failed_at)


def _concat_target(
    graph: Graph,
    i: int,
    node: Node,
    ins: list[TensorInfo],
    outputs: Sequence[tuple[TensorInfo, ...] | None],
) -> list[TensorInfo]:
    """A Broadcast's target shape as OpenVINO reads it when it cannot evaluate it
    (``broadcast_base_shape_infer``): from the Concat that makes it, one element per input,
    a Constant's value, any other input's dimension dynamic.  So ``zeros(n, 3, k)`` with ``n``
    and ``k`` read from tensors is ``[?,3,?]`` (torchvision's keypoints), where bounds, which
    stop at the tensors' values, give ``[?,?,?]``.  (Only Broadcast reads it so: a Reshape of
    the same pattern, or the Concat plus 1, is ``[?,?]`` in OpenVINO too.)"""
    if node.type != "Broadcast" or len(ins) < 2:
        return ins
    target = ins[1]
    if target.value is not None or target.lower is not None or target.error is not None:
        return ins
    src = graph.sources[i][1]
    parts = graph.sources[src.node]
    if (
        graph.nodes[src.node].type != "Concat"
        or not target.shape.is_static
        or target.shape.to_shape() != (len(parts),)
    ):
        return ins
    values = []
    for part in parts:
        made = outputs[part.node]
        value = (
            made[part.output].value if made is not None and graph.nodes[part.node].type == "Const" else None
        )
        values.append(
            -1 if value is None or np.asarray(value).size == 0 else int(np.asarray(value).reshape(-1)[0])
        )
    known = np.array(values, dtype=np.int64)  # (-1: unbounded, as bounds say it)
    return [ins[0], dataclasses.replace(target, lower=known, upper=known), *ins[2:]]


def _node_outputs(
    i: int,
    p: NodePlan,
    ins: Sequence[TensorInfo],
    parameters: Mapping[int, TensorInfo] | None,
    memo: dict[tuple[object, ...], tuple[TensorInfo, ...]],
    found: list[Problem] | None,
) -> tuple[TensorInfo, ...] | None:
    """Node ``i``'s outputs: given (a body's Parameter), else inferred (problems recorded in
    ``found`` when given, else raised)."""
    if parameters is not None and i in parameters:
        return (parameters[i],)
    return _infer_memoized(p, ins, memo) if found is None else _infer_recorded(p, ins, found)


def _reshaped(p: NodePlan | None, node: Node, overrides: dict[str, PartialShape]) -> NodePlan | None:
    """A Parameter's plan with the shape ``overrides`` gives it by one of its names (taken out of
    ``overrides``); any other plan as it is."""
    if p is None or not isinstance(p.attrs, ParameterAttrs):
        return p
    key = next((k for k in _parameter_keys(node) if k in overrides), None)
    if key is None:
        return p
    return NodePlan(node, p.spec, ParameterAttrs(p.attrs.element_type, overrides.pop(key)))


def _plan_recorded(
    checker: Checker, index: int, node: Node, ins: Sequence[TensorInfo], found: list[Problem]
) -> NodePlan | None:
    """The node's plan, or None (and a problem) when it cannot be resolved or parsed."""
    if not checker.before_resolve(index, node, found):
        return None
    spec = lookup(node.type, node.version)
    if spec is None:
        found.append(
            problem(
                "not-checked",
                Severity.WARNING,
                node,
                None,
                f"ovonehot does not implement {node.type} in {node.version}: "
                "its output shapes and types are not checked",
            )
        )
        return None
    if not spec.accepts_input_count(len(ins)):
        found.append(
            problem(
                "input-count",
                Severity.ERROR,
                node,
                None,
                f"has {len(ins)} inputs, {spec.name} takes {spec.inputs}",
            )
        )
        return None
    if not checker.before_parse(index, node, spec, ins, found):
        return None
    try:
        attrs = spec.parse(node)
    except IRError as exc:
        found.append(problem("bad-attribute", Severity.ERROR, node, None, bare_message(node, exc)))
        return None
    return NodePlan(node, spec, attrs)


def _infer_recorded(
    p: NodePlan, ins: Sequence[TensorInfo], found: list[Problem]
) -> tuple[TensorInfo, ...] | None:
    node = p.node
    try:
        return infer_node(p, ins)
    except ValidationError as exc:
        found.append(
            problem(
                "inference-failed",
                Severity.ERROR,
                node,
                None,
                f"OpenVINO would refuse this layer: {bare_message(node, exc)}",
            )
        )
    except IRError as exc:  # (an output count that differs from the ports, mostly)
        found.append(problem("output-count", Severity.ERROR, node, None, bare_message(node, exc)))
    return None


def bare_message(node: Node, exc: Error) -> str:
    """The error's message without the ``node.describe()`` prefix the interpreter gave it."""
    return str(exc).removeprefix(node.describe() + ": ")


def _downstream_warnings(graph: Graph, failed_at: Mapping[int, int]) -> list[Problem]:
    counts: dict[int, int] = {}
    for i, root in failed_at.items():
        if i != root:
            counts[root] = counts.get(root, 0) + 1
    return [
        problem(
            "not-checked",
            Severity.WARNING,
            graph.nodes[root],
            None,
            f"{n} layer(s) depending on this one are not checked",
        )
        for root, n in sorted(counts.items())
    ]


def _infer_memoized(
    p: NodePlan, ins: Sequence[TensorInfo], memo: dict[tuple[object, ...], tuple[TensorInfo, ...]]
) -> tuple[TensorInfo, ...]:
    """:func:`infer_node`, or the outputs of a node inferred before with the same memo key: a layer
    repeated with the same attributes and inputs of the same types, shapes and (small) values is
    inferred once."""
    key = _memo_key(p, ins)
    if key is None:
        return infer_node(p, ins)
    outs = memo.get(key)
    if outs is None:
        outs = infer_node(p, ins)
        if _plain(outs):
            memo[key] = outs
    return outs


def _memo_key(p: NodePlan, ins: Sequence[TensorInfo]) -> tuple[object, ...] | None:
    """What :func:`infer_node` reads of a node and its inputs, when its outputs can be shared
    with another node's: the spec and the very attributes object (``plan`` gives layers written
    alike one object), the number of output ports, each input's type, shape and value (when
    small; no bounds, no error).  None: infer this node itself."""
    if not ins:
        return None
    key: list[object] = [id(p.spec), id(p.attrs), len(p.node.outputs)]
    for t in ins:
        if t.lower is not None or t.upper is not None or t.error is not None:
            return None
        v = t.value
        if v is None:
            key.append((t.element_type, t.shape))
        elif isinstance(v, np.ndarray) and v.size <= 64 and v.dtype.kind != "O":
            key.append((t.element_type, t.shape, v.dtype.str, v.shape, v.tobytes()))
        else:
            return None
    return tuple(key)  # (the plans hold spec and attributes while infer runs: their ids stay theirs)


def _plain(outs: Sequence[TensorInfo]) -> bool:
    """No output carries a value, bound or error (such outputs are never shared)."""
    return all(t.value is None and t.lower is None and t.upper is None and t.error is None for t in outs)


def _parameter_keys(node: Node) -> list[str]:
    names = [node.name]
    for port in node.outputs:
        names.extend(port.names)
    return names


def infer_node(p: NodePlan, ins: Sequence[TensorInfo]) -> tuple[TensorInfo, ...]:
    node = p.node
    try:
        outs = tuple(p.spec.infer(p.attrs, ins))
    except Error as exc:
        raise exc.at(node) from None
    if len(outs) != len(node.outputs):
        raise IRError(
            f"{node.describe()}: declares {len(node.outputs)} output ports, {p.spec.name} has {len(outs)}"
        )
    foldable = (
        p.spec.foldable and p.spec.evaluate is not None and ins and all(t.value is not None for t in ins)
    )
    if foldable and p.spec.evaluates_types([t.element_type for t in ins]):  # OpenVINO folds these types too
        outs = _fold(p, ins, outs)
    return propagate_bounds(p.spec, p.attrs, ins, outs)  # values/bounds of shape subgraphs


def _fold(p: NodePlan, ins: Sequence[TensorInfo], outs: tuple[TensorInfo, ...]) -> tuple[TensorInfo, ...]:
    if any(
        not t.shape.is_static
        or math.prod(t.shape.to_shape()) > FOLD_LIMIT
        or not numpy_can_hold(t.shape.to_shape(), 8)  # [0, 2**62, 4] is empty, and still too big for NumPy
        for t in outs
    ):
        return outs
    try:
        values = p.spec.reference(p.attrs, [t.value for t in ins])  # type: ignore[misc]
    except Error as exc:  # OpenVINO throws only when a layer reads this value: see TensorInfo.error
        return tuple(TensorInfo(t.element_type, t.shape, error=f"{p.node.describe()}: {exc}") for t in outs)
    return tuple(
        TensorInfo(t.element_type, t.shape, value=np.asarray(v)) for t, v in zip(outs, values, strict=True)
    )


def parameter_infos(inference: Inference) -> list[tuple[Node, ElementType, PartialShape]]:
    """(node, element type, shape) of every Parameter, in the IR's order."""
    result = []
    for i in inference.graph.document_order:
        p = inference.plans[i]
        if isinstance(p.attrs, ParameterAttrs):
            info = inference.outputs[i][0]
            result.append((p.node, info.element_type, info.shape))
    return result
