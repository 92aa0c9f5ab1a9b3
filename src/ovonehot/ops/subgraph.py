"""Sub-graph ops: TensorIterator-1, Loop-5, If-8.

Their bodies are ordinary graphs (the reader puts them in ``Node.bodies``) run by the
same two interpreters as the model: ``infer.infer`` with the body Parameters' infos given
(``parameters=``) and ``evaluate.evaluate`` with the body Parameters fed.  This module
only reads the port maps and does the iteration bookkeeping.

The port maps, as OpenVINO's IR reader reads them (``ir_deserializer.cpp``):

* ``<port_map><input external_port_id internal_layer_id [axis start end stride
  part_size]>``: an outer input port feeding a body Parameter (by layer id), sliced
  along ``axis`` when ``axis`` is given, else the whole tensor; a body Parameter that a
  ``<back_edges><edge from-layer to-layer>`` feeds is *merged*: the outer input for the
  first iteration, the body Result ``from-layer`` after each.
* ``<output external_port_id internal_layer_id [axis ...]>``: a body Result giving an
  outer output port: with ``axis`` the iterations' values concatenated, else the last
  iteration's value.
* Loop: ``external_port_id="-1"`` with ``purpose="current_iteration"`` (a body Parameter
  that receives the iteration number) or ``purpose="execution_condition"`` (the body
  Result that says whether to go on).
* If: ``<then_port_map>``/``<else_port_map>`` with plain inputs and outputs for
  ``<then_body>``/``<else_body>``; input 0 is the condition.

Shape rules follow ``src/core/src/op/tensor_iterator.cpp``, ``loop.cpp`` and ``if.cpp``
(quirks kept: TensorIterator concatenations are ``num_iterations * part_size`` long and a
TensorIterator without sliced inputs counts ``|end - start| / part_size`` iterations;
Loop widens a back-edge Parameter only for Results that are also Loop outputs; If
merges its branches into intervals when the condition is unknown).  Running follows the
references (``src/core/reference/src/op/{tensor_iterator,loop,if}.cpp``): slices of
``part_size`` taken every ``stride`` from ``start`` (a negative stride walks backwards
from ``start``), concatenations in iteration order (reversed for a TensorIterator
output with a negative stride).  Each iteration infers the body for its actual input
shapes (cached by signature), so bodies whose shapes change across iterations run.

What a loop grows is checked before it grows (:mod:`ovonehot.budget`): every part kept for
a concatenated output is counted against the memory budget before it is kept (a Loop whose
body computes its own condition grew past 6 GiB in 19 s before), and the iteration count
is bounded by ``OVONEHOT_MAX_LOOP_ITERATIONS`` (2**20 by default, see :mod:`ovonehot.budget`; a count known to exceed it,
a constant-true condition with a trip count of 2**62, is refused before the first
iteration; otherwise on reaching it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..budget import Growth, max_loop_iterations
from ..errors import Error, InputError, IRError, ResourceLimitError, ValidationError
from ..graph import Element, Graph, Node
from ..types import Dimension, ElementType, PartialShape
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo

# The interpreters import the op registry, which imports this module: they are imported
# where a body is planned, inferred or run, not at module load.


@dataclass(frozen=True, slots=True)
class Body:
    """One body graph with its planned nodes and its Parameters/Results by layer id."""

    graph: Graph
    plans: tuple[Any, ...] = field(compare=False)  # infer.NodePlan
    parameter_by_id: Mapping[int, int] = field(compare=False)
    result_by_id: Mapping[int, int] = field(compare=False)
    # Inferences by input signature, for running (a body is re-inferred per shape set).
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False)

    def declared(self, index: int) -> TensorInfo:
        """What a body Parameter declares (its ``element_type`` and ``shape``)."""
        attrs = self.plans[index].attrs
        return TensorInfo(attrs.element_type, attrs.shape)


@dataclass(frozen=True, slots=True)
class Slicing:
    axis: int
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1


@dataclass(frozen=True, slots=True)
class InputMap:
    input: int  # outer input index
    parameter: int  # body node index
    slicing: Slicing | None = None
    back_edge: int | None = None  # body Result node index feeding the Parameter after each iteration


@dataclass(frozen=True, slots=True)
class OutputMap:
    output: int  # outer output index
    result: int  # body Result node index
    slicing: Slicing | None = None  # concatenation


@dataclass(frozen=True, slots=True)
class LoopAttrs:
    """TensorIterator and Loop: one body, its port map and, for Loop, the special ports."""

    body: Body
    inputs: tuple[InputMap, ...]
    outputs: tuple[OutputMap, ...]
    is_loop: bool
    current_iteration: int | None = None  # body Parameter node index
    condition: int | None = None  # body Result node index

    @property
    def condition_result(self) -> int:
        """A Loop's execution condition (parse requires it): an ovonehot bug to ask a TensorIterator."""
        if self.condition is None:
            raise AssertionError("ovonehot bug: a TensorIterator has no execution condition")
        return self.condition


@dataclass(frozen=True, slots=True)
class IfAttrs:
    then_body: Body
    else_body: Body
    then_inputs: tuple[InputMap, ...]
    else_inputs: tuple[InputMap, ...]
    then_outputs: tuple[OutputMap, ...]
    else_outputs: tuple[OutputMap, ...]


# -- parsing -------------------------------------------------------------------------------


def _body(node: Node, tag: str) -> Body:
    from ..infer import plan

    graph = node.body(tag)
    if graph is None:
        raise IRError(f"{node.describe()}: has no <{tag}> sub-graph")
    try:
        plans = plan(graph)
    except Error as exc:
        raise exc.at(f"{node.describe()} <{tag}>") from None
    params = {graph.nodes[i].id: i for i in graph.kind_indices("Parameter")}
    results = {graph.nodes[i].id: i for i in graph.kind_indices("Result")}
    return Body(graph, plans, params, results)


def _int(node: Node, el: Element, name: str, default: int | None = None) -> int:
    text = el.attr(name)
    if text is None:
        if default is None:
            raise IRError(f"{node.describe()}: <{el.tag}> in the port map has no {name!r}")
        return default
    try:
        return int(text)
    except ValueError:
        raise IRError(f"{node.describe()}: <{el.tag} {name}={text!r}> is not an integer") from None


def _slicing(node: Node, el: Element) -> Slicing | None:
    if el.attr("axis") is None:
        return None
    slicing = Slicing(
        _int(node, el, "axis"),
        _int(node, el, "start", 0),
        _int(node, el, "end", -1),
        _int(node, el, "stride", 1),
        _int(node, el, "part_size", 1),
    )
    if slicing.axis < 0:  # ir_deserializer.cpp reads axis as an unsigned integer
        raise IRError(
            f"{node.describe()}: port map axis={slicing.axis} must be a non-negative integer "
            "(OpenVINO's IR reader refuses a negative axis)"
        )
    if slicing.part_size <= 0 or slicing.stride == 0:
        raise IRError(
            f"{node.describe()}: port map part_size must be positive and stride non-zero, got {el.attrs}"
        )
    return slicing


def _port_index(node: Node, el: Element, outputs: bool) -> int:
    port_id = _int(node, el, "external_port_id")
    ports = node.outputs if outputs else node.inputs
    for k, port in enumerate(ports):
        if port.id == port_id:
            return k
    kind = "output" if outputs else "input"
    raise IRError(
        f"{node.describe()}: port map names external_port_id={port_id}, which is no {kind} port "
        f"(its {kind} ports: {[p.id for p in ports]})"
    )


def _body_index(node: Node, el: Element, table: Mapping[int, int], what: str) -> int:
    layer_id = _int(node, el, "internal_layer_id")
    if layer_id not in table:
        raise IRError(f"{node.describe()}: port map internal_layer_id={layer_id} is no body {what}")
    return table[layer_id]


def _back_edges(node: Node, body: Body) -> dict[int, int]:
    """Body Parameter node index -> body Result node index."""
    edges: dict[int, int] = {}
    section = node.extra("back_edges")
    for el in section.children if section is not None else ():
        if el.tag != "edge":
            continue
        param = _int(node, el, "to-layer")
        result = _int(node, el, "from-layer")
        if param not in body.parameter_by_id or result not in body.result_by_id:
            raise IRError(
                f"{node.describe()}: back edge {result} -> {param} must join a body Result to a body Parameter"
            )
        edges[body.parameter_by_id[param]] = body.result_by_id[result]
    return edges


def _port_map(
    node: Node, body: Body, tag: str, back_edges: Mapping[int, int]
) -> tuple[list[InputMap], list[OutputMap], dict[str, int]]:
    section = node.extra(tag)
    if section is None:
        raise IRError(f"{node.describe()}: has no <{tag}>")
    inputs: list[InputMap] = []
    outputs: list[OutputMap] = []
    special: dict[str, int] = {}
    for el in section.children:
        purpose = el.attr("purpose")
        if el.tag == "input":
            param = _body_index(node, el, body.parameter_by_id, "Parameter")
            if purpose is not None:
                special[purpose] = param
                continue
            inputs.append(
                InputMap(_port_index(node, el, False), param, _slicing(node, el), back_edges.get(param))
            )
        elif el.tag == "output":
            result = _body_index(node, el, body.result_by_id, "Result")
            if purpose is not None:
                special[purpose] = result
                continue
            outputs.append(OutputMap(_port_index(node, el, True), result, _slicing(node, el)))
    covered = sorted(o.output for o in outputs)
    if covered != list(range(len(node.outputs))):
        raise IRError(f"{node.describe()}: <{tag}> must map each output port once, maps outputs {covered}")
    return inputs, outputs, special


def parse_tensor_iterator(node: Node) -> LoopAttrs:
    body = _body(node, "body")
    inputs, outputs, _ = _port_map(node, body, "port_map", _back_edges(node, body))
    if sorted(m.input for m in inputs) != list(range(len(node.inputs))):
        raise IRError(f"{node.describe()}: the port map must map each input port once")
    return LoopAttrs(body, tuple(inputs), tuple(outputs), is_loop=False)


def parse_loop(node: Node) -> LoopAttrs:
    body = _body(node, "body")
    inputs, outputs, special = _port_map(node, body, "port_map", _back_edges(node, body))
    unknown = set(special) - {"current_iteration", "execution_condition"}
    if unknown:
        raise IRError(f"{node.describe()}: unknown port map purpose {sorted(unknown)}")
    if "execution_condition" not in special:
        raise IRError(f"{node.describe()}: the port map names no execution_condition body Result")
    return LoopAttrs(
        body,
        tuple(inputs),
        tuple(outputs),
        is_loop=True,
        current_iteration=special.get("current_iteration"),
        condition=special["execution_condition"],
    )


def parse_if(node: Node) -> IfAttrs:
    then_body, else_body = _body(node, "then_body"), _body(node, "else_body")
    then_in, then_out, _ = _port_map(node, then_body, "then_port_map", {})
    else_in, else_out, _ = _port_map(node, else_body, "else_port_map", {})
    for m in then_in + else_in:
        if m.input == 0:
            raise IRError(f"{node.describe()}: the condition (input 0) cannot feed a body")
    return IfAttrs(then_body, else_body, tuple(then_in), tuple(else_in), tuple(then_out), tuple(else_out))


# -- inference -----------------------------------------------------------------------------


def _infer_body(body: Body, parameters: Mapping[int, TensorInfo]) -> Any:
    from ..infer import infer

    given = dict(parameters)
    for i in body.parameter_by_id.values():
        if i not in given:  # a Parameter nothing feeds keeps what it declares
            given[i] = body.declared(i)
    return infer(body.graph, body.plans, parameters=given)


def _result_info(inference: Any, result: int) -> TensorInfo:
    info: TensorInfo = inference.input_infos(result)[0]
    return info


def _normalize(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValidationError(f"port map axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def _with_dim(shape: PartialShape, axis: int, dim: Dimension) -> PartialShape:
    dims = list(shape)  # (a known rank: a ValueError otherwise)
    dims[axis] = dim
    return PartialShape(tuple(dims))


def _sliced_parameter(info: TensorInfo, slicing: Slicing, declared: ElementType) -> TensorInfo:
    if not info.shape.rank_is_static:
        return TensorInfo(declared, PartialShape.dynamic())
    axis = _normalize(slicing.axis, info.shape.rank)
    return TensorInfo(declared, _with_dim(info.shape, axis, Dimension.static(slicing.part_size)))


def _ti_iterations(slicing: Slicing, dim: int) -> int:
    """tensor_iterator.cpp: ``(|end - start| + 1) / part_size``, negatives counted from ``dim``."""
    start = slicing.start + dim if slicing.start < 0 else slicing.start
    end = slicing.end + dim if slicing.end < 0 else slicing.end
    return (abs(end - start) + 1) // slicing.part_size


def infer_loop(attrs: LoopAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    if attrs.is_loop:
        return _infer_loop5(attrs, inputs)
    return _infer_tensor_iterator(attrs, inputs)


def _infer_tensor_iterator(attrs: LoopAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    body = attrs.body
    params: dict[int, TensorInfo] = {}
    iterations = -1
    for m in attrs.inputs:
        info = inputs[m.input]
        declared = body.declared(m.parameter).element_type  # TensorIterator sets shapes only
        if m.slicing is not None:
            params[m.parameter] = _sliced_parameter(info, m.slicing, declared)
            if info.shape.rank_is_static:
                dim = info.shape[_normalize(m.slicing.axis, info.shape.rank)]
                if dim.is_static:
                    iterations = _ti_iterations(m.slicing, dim.length)
        else:
            params[m.parameter] = TensorInfo(declared, info.shape)
    inference = _infer_body(body, params)
    if iterations == -1 and not any(m.slicing is not None for m in attrs.inputs):
        concat = next((o.slicing for o in attrs.outputs if o.slicing is not None), None)
        if concat is not None:
            iterations = abs(concat.end - concat.start) // concat.part_size
    outs: list[TensorInfo | None] = [None] * len(attrs.outputs)
    for o in attrs.outputs:
        value = _result_info(inference, o.result)
        shape = value.shape
        if o.slicing is not None and shape.rank_is_static:
            if shape.rank == 0:
                if o.slicing.axis != 0:
                    raise ValidationError(
                        f"axis must be 0 when concatenated output slices are scalars (output {o.output})"
                    )
                shape = PartialShape((Dimension(),))
            axis = _normalize(o.slicing.axis, shape.rank)
            dim = Dimension.static(iterations * o.slicing.part_size) if iterations != -1 else Dimension()
            shape = _with_dim(shape, axis, dim)
        outs[o.output] = TensorInfo(value.element_type, shape)
    return [o for o in outs if o is not None]


def _known_bool(info: TensorInfo) -> bool | None:
    if info.value is None:
        return None
    if np.asarray(info.value).size != 1:
        raise ValidationError(f"a condition must hold one value, got shape {list(np.shape(info.value))}")
    return bool(np.asarray(info.value).reshape(-1)[0])


def _check_rank01(info: TensorInfo, what: str) -> None:
    if info.shape.rank_is_static and info.shape.rank not in (0, 1):
        raise ValidationError(f"rank of {what} must be 0 or 1, got shape {info.shape}")


def _infer_loop5(attrs: LoopAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    body = attrs.body
    if attrs.current_iteration is not None:
        _check_rank01(body.declared(attrs.current_iteration), "the current_iteration body Parameter")
    _check_rank01(inputs[1], "the execution condition input")
    _check_rank01(inputs[0], "the trip count input")
    zero_iterations = _known_bool(inputs[1]) is False
    params: dict[int, TensorInfo] = {}
    for m in attrs.inputs:
        info = inputs[m.input]
        if m.slicing is not None:
            params[m.parameter] = _sliced_parameter(info, m.slicing, info.element_type)
        else:
            params[m.parameter] = TensorInfo(info.element_type, info.shape)
    inference = _infer_body(body, params)
    iterations = _known_loop_iterations(attrs, inputs, inference)
    inference = _widen_back_edges(attrs, params, inference, iterations)
    return _loop_output_infos(attrs, inference, iterations, zero_iterations)


def _known_loop_iterations(attrs: LoopAttrs, inputs: Sequence[TensorInfo], inference: Any) -> int:
    """How many times the Loop runs, when known before running it; -1 when not."""
    condition = _known_bool(_result_info(inference, attrs.condition_result))
    if condition is None:  # Const(true/false) -> Loop input -> body Parameter -> condition Result
        src = attrs.body.graph.sources[attrs.condition_result][0]
        for m in attrs.inputs:
            if m.parameter == src.node:
                condition = _known_bool(inputs[m.input])
    if condition is False:
        return 1  # do-while: the body runs once
    trip = inputs[0].value
    if condition is True and trip is not None:
        count = int(np.asarray(trip).reshape(-1)[0])
        return count if count >= 0 else -1  # (any negative count: no limit, as in the core reference)
    return -1


def _widened(produced: PartialShape, current: PartialShape) -> PartialShape | None:
    """What a back-edge Parameter of shape ``current`` becomes when its Result gives ``produced``;
    None when it stays."""
    if not current.rank_is_static:
        return None
    if not produced.rank_is_static:
        return produced
    if produced.rank != current.rank:
        return PartialShape.dynamic()
    if all(d.compatible(c) for d, c in zip(produced, current, strict=True)):
        return None
    return PartialShape(
        tuple(d if d.compatible(c) else Dimension() for d, c in zip(produced, current, strict=True))
    )


def _widen_back_edges(
    attrs: LoopAttrs, params: dict[int, TensorInfo], inference: Any, iterations: int
) -> Any:
    """Widen back-edge Parameters whose Result shape differs (only Results that are outputs),
    re-inferring the body until nothing changes; the last inference."""
    outputs_of = {o.result for o in attrs.outputs if o.slicing is None}
    edges = [
        (m.parameter, m.back_edge)
        for m in attrs.inputs
        if m.back_edge is not None and m.back_edge in outputs_of
    ]
    rounds = iterations if iterations != -1 else 1 << 31
    for _ in range(rounds):
        changed = False
        for param, result in edges:
            new = _widened(_result_info(inference, result).shape, params[param].shape)
            if new is not None:
                params[param] = TensorInfo(params[param].element_type, new)
                changed = True
        if not changed:
            break
        inference = _infer_body(attrs.body, params)
    return inference


def _loop_output_infos(
    attrs: LoopAttrs, inference: Any, iterations: int, zero_iterations: bool
) -> list[TensorInfo]:
    outs: list[TensorInfo | None] = [None] * len(attrs.outputs)
    for o in attrs.outputs:
        value = _result_info(inference, o.result)
        shape = value.shape
        if o.slicing is not None:
            if zero_iterations:
                shape = PartialShape.of([0])
            elif shape.rank_is_static:
                axis = _normalize(o.slicing.axis, max(shape.rank, 1))
                if shape.rank == 0:
                    shape = PartialShape.of([1])
                d = shape[axis]
                shape = _with_dim(
                    shape,
                    axis,
                    Dimension.static(d.length * iterations)
                    if d.is_static and iterations != -1
                    else Dimension(),
                )
        elif shape.is_static and zero_iterations:
            shape = _with_dim(shape, 0, Dimension.static(0))
        outs[o.output] = TensorInfo(value.element_type, shape)
    return [o for o in outs if o is not None]


def _merge_branches(a: PartialShape, b: PartialShape) -> PartialShape:
    """if.cpp's resolve_shape: equal dims stay, differing static dims become an interval."""
    if a.dims is None or b.dims is None or len(a.dims) != len(b.dims):
        return PartialShape.dynamic()
    dims = []
    for x, y in zip(a.dims, b.dims, strict=True):
        if x.is_dynamic or y.is_dynamic:
            dims.append(Dimension())
        elif x == y:
            dims.append(x)
        else:
            dims.append(Dimension(min(x.min, y.min), max(x.min, y.min)))
    return PartialShape(tuple(dims))


def _branch_outputs(
    body: Body, maps: Sequence[InputMap], outputs: Sequence[OutputMap], inputs: Sequence[TensorInfo]
) -> dict[int, TensorInfo]:
    params = {m.parameter: TensorInfo(inputs[m.input].element_type, inputs[m.input].shape) for m in maps}
    inference = _infer_body(body, params)
    return {o.output: _result_info(inference, o.result) for o in outputs}


def infer_if(attrs: IfAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    cond = inputs[0]
    _check_rank01(cond, "the condition")
    if cond.shape.is_static and int(np.prod(cond.shape.to_shape())) != 1:
        raise ValidationError(f"the condition must hold one value, got shape {cond.shape}")
    then = _branch_outputs(attrs.then_body, attrs.then_inputs, attrs.then_outputs, inputs)
    other = _branch_outputs(attrs.else_body, attrs.else_inputs, attrs.else_outputs, inputs)
    known = _known_bool(cond)
    outs = []
    for k in range(len(then)):
        if known is True:
            outs.append(TensorInfo(then[k].element_type, then[k].shape))
        elif known is False:
            outs.append(TensorInfo(other[k].element_type, other[k].shape))
        else:
            et = then[k].element_type.merge(other[k].element_type)
            if et is None:
                raise ValidationError(
                    f"output {k}: then_body gives {then[k].element_type}, else_body {other[k].element_type}"
                )
            outs.append(TensorInfo(et, _merge_branches(then[k].shape, other[k].shape)))
    return outs


# -- running -------------------------------------------------------------------------------


def _run_body(
    body: Body, feeds: Mapping[int, np.ndarray], mode: RunMode, where: tuple[int, int]
) -> dict[int, np.ndarray]:
    """Run a body on arrays (Parameter node index -> array); Result node index -> value.

    It runs as the graph around it runs (``mode``: exactness, variables, hooks), its nodes
    keyed for the hooks by the body op's key then ``where``: (body, iteration)."""
    from ..evaluate import evaluate

    unfed = [body.graph.nodes[i] for i in body.parameter_by_id.values() if i not in feeds]
    if unfed:
        raise ValidationError(f"the body Parameter {unfed[0].describe()} is fed by no input")
    key = tuple((i, a.dtype.str, a.shape) for i, a in sorted(feeds.items()))
    inference = body.cache.get(key)
    if inference is None:
        infos = {
            i: TensorInfo(ElementType.from_numpy(a.dtype), PartialShape.of(a.shape)) for i, a in feeds.items()
        }
        inference = _infer_body(body, infos)
        if len(body.cache) < 64:
            body.cache[key] = inference
    values = evaluate(inference, dict(feeds), replace(mode, scope=(*mode.scope, *where), out=None))
    return {r: values[(r, 0)] for r in body.result_by_id.values()}


def _slices(array: np.ndarray, slicing: Slicing, limit: int | None) -> list[np.ndarray]:
    """The parts a sliced input gives, in iteration order."""
    axis = _normalize(slicing.axis, array.ndim)
    dim = array.shape[axis]
    count = _ti_iterations(slicing, dim)
    if limit is not None:
        count = min(count, limit)
    start = slicing.start + dim if slicing.start < 0 else slicing.start
    parts = []
    for k in range(count):
        begin = (
            start + k * slicing.stride
            if slicing.stride > 0
            else start - slicing.part_size + 1 + k * slicing.stride
        )
        if begin < 0 or begin + slicing.part_size > dim:
            raise InputError(
                f"iteration {k} slices [{begin}, {begin + slicing.part_size}) of axis {axis}, "
                f"which has {dim} elements"
            )
        index = [slice(None)] * array.ndim
        index[axis] = slice(begin, begin + slicing.part_size)
        parts.append(array[tuple(index)])
    return parts


def _scalar_int(array: np.ndarray, what: str) -> int:
    if array.size != 1:
        raise InputError(f"{what} must hold one value, got shape {list(array.shape)}")
    return int(array.reshape(-1)[0])


def evaluate_loop(
    attrs: LoopAttrs,
    inputs: Sequence[np.ndarray],
    mode: RunMode = RunMode(),  # noqa: B008 - frozen: one shared default
) -> list[np.ndarray]:
    if attrs.is_loop:
        trip = _scalar_int(inputs[0], "the trip count")
        if not bool(inputs[1].reshape(-1)[0]) or trip == 0:
            return _zero_iterations(attrs, inputs, by_condition=trip != 0)
    feeds: dict[int, np.ndarray] = {}
    sliced: dict[int, list[np.ndarray]] = {}
    for m in attrs.inputs:
        if m.slicing is not None:
            sliced[m.parameter] = _slices(inputs[m.input], m.slicing, None)
        else:
            feeds[m.parameter] = inputs[m.input]
    if attrs.is_loop:
        iterations = _loop_iterations(attrs, inputs, trip, sliced)
        if iterations == 0:  # a sliced input with no slice
            return _zero_iterations(attrs, inputs, by_condition=False)
    else:
        iterations = _tensor_iterator_iterations(attrs, sliced)
    results, concat = _iterate(attrs, feeds, sliced, iterations, mode)
    outs: list[np.ndarray] = [np.empty(0)] * len(attrs.outputs)
    for o in attrs.outputs:
        if o.slicing is None:
            outs[o.output] = results[o.result]
            continue
        parts = [p.reshape(1) if p.ndim == 0 else p for p in concat[o.output]]
        if not attrs.is_loop and o.slicing.stride < 0:
            parts.reverse()
        axis = _normalize(o.slicing.axis, parts[0].ndim)
        outs[o.output] = np.concatenate(parts, axis=axis)
    return outs


def _loop_iterations(
    attrs: LoopAttrs, inputs: Sequence[np.ndarray], trip: int, sliced: Mapping[int, list[np.ndarray]]
) -> int:
    """The most iterations a Loop runs (its body's condition may end it sooner)."""
    given, unlimited = trip, trip < 0
    if unlimited:
        trip = 1 << 62  # negative (-1 by the spec): no limit; the body's condition ends the loop
    if sliced:  # the inputs' slices run out: the loop stops there
        return min([trip] + [len(s) for s in sliced.values()])
    limit = max_loop_iterations()
    if trip <= limit:
        return trip
    endless = attrs.condition is None or (
        _known_bool(_result_info(_first_inference(attrs, inputs), attrs.condition)) is True
    )
    if unlimited and endless:
        raise InputError(
            f"the trip count is {given} (negative: no limit) and the body's execution condition is the "
            "constant true: the Loop would never end"
        )
    if endless:
        raise ResourceLimitError(_too_many(trip, limit))
    return trip


def _too_many(iterations: int, limit: int) -> str:
    return (
        f"{iterations} iterations are more than the {limit} allowed (OVONEHOT_MAX_LOOP_ITERATIONS; "
        "its body's condition does not end it sooner)"
    )


def _tensor_iterator_iterations(attrs: LoopAttrs, sliced: Mapping[int, list[np.ndarray]]) -> int:
    """The TensorIterator's count: its sliced inputs', else the one inferred from a concatenation."""
    if sliced:
        iterations = len(sliced[[m.parameter for m in attrs.inputs if m.slicing is not None][-1]])
    else:
        first = next((o.slicing for o in attrs.outputs if o.slicing is not None), None)
        iterations = abs(first.end - first.start) // first.part_size if first is not None else 1
    if iterations == 0:
        raise InputError("the TensorIterator runs zero iterations: its outputs would have no value")
    limit = max_loop_iterations()
    if iterations > limit:
        raise ResourceLimitError(_too_many(iterations, limit))
    return iterations


@dataclass(frozen=True, slots=True)
class _IterationCounter:
    """Loop's current_iteration body Parameter: what to feed it on iteration ``k``."""

    parameter: int
    fed: bool  # an outer input gives its first value
    merged: bool  # a back edge gives its next values
    dtype: np.dtype
    shape: tuple[int, ...]

    @classmethod
    def of(cls, attrs: LoopAttrs) -> _IterationCounter | None:
        counter = attrs.current_iteration
        if counter is None:
            return None
        declared = attrs.body.declared(counter)
        dtype = declared.element_type.numpy_dtype
        if declared.element_type not in (ElementType.i32, ElementType.i64) or dtype is None:
            raise ValidationError(
                f"the current_iteration body Parameter must be i32 or i64, not {declared.element_type}"
            )
        return cls(
            counter,
            any(m.parameter == counter for m in attrs.inputs),
            any(m.parameter == counter and m.back_edge is not None for m in attrs.inputs),
            dtype,
            # loop.cpp: a current_iteration Parameter of dynamic shape becomes [1]
            () if declared.shape.rank_is_static and declared.shape.rank == 0 else (1,),
        )

    def feed(self, feeds: dict[int, np.ndarray], k: int) -> None:
        """The iteration number, unless an input gives the first and a back edge the next ones."""
        if not (k == 0 and self.fed) and not (k > 0 and self.merged):
            feeds[self.parameter] = np.full(self.shape, k, dtype=self.dtype)


def _iterate(
    attrs: LoopAttrs,
    feeds: dict[int, np.ndarray],
    sliced: Mapping[int, list[np.ndarray]],
    iterations: int,
    mode: RunMode,
) -> tuple[dict[int, np.ndarray], dict[int, list[np.ndarray]]]:
    """Run the body up to ``iterations`` times: the last results, and each concatenated output's parts."""
    counter = _IterationCounter.of(attrs)
    concat: dict[int, list[np.ndarray]] = {o.output: [] for o in attrs.outputs if o.slicing is not None}
    growth = Growth("the concatenation of its outputs") if concat else None
    limit = max_loop_iterations()
    results: dict[int, np.ndarray] = {}
    for k in range(iterations):
        if k == limit:  # (a count known to be larger was refused before the first iteration)
            raise ResourceLimitError(
                f"the body's condition still holds after {limit} iterations, the most allowed "
                "(OVONEHOT_MAX_LOOP_ITERATIONS)"
            )
        for param, parts in sliced.items():
            feeds[param] = parts[k]
        if counter is not None:
            counter.feed(feeds, k)
        results = _run_body(attrs.body, feeds, mode, (0, k))
        if growth is not None:  # (some output is concatenated)
            for o in attrs.outputs:
                if o.slicing is not None:
                    growth.add(results[o.result].nbytes, k)  # before it is kept
                    concat[o.output].append(results[o.result])
        for m in attrs.inputs:
            if m.back_edge is not None:
                feeds[m.parameter] = results[m.back_edge]
        if attrs.condition is not None and not bool(results[attrs.condition].reshape(-1)[0]):
            break
    return results, concat


def _first_inference(attrs: LoopAttrs, inputs: Sequence[np.ndarray]) -> Any:
    """The body inferred for the Loop's actual inputs (what the first iteration sees)."""
    params: dict[int, TensorInfo] = {}
    for m in attrs.inputs:
        info = TensorInfo(
            ElementType.from_numpy(inputs[m.input].dtype), PartialShape.of(inputs[m.input].shape)
        )
        params[m.parameter] = _sliced_parameter(info, m.slicing, info.element_type) if m.slicing else info
    return _infer_body(attrs.body, params)


def _zero_iterations(attrs: LoopAttrs, inputs: Sequence[np.ndarray], by_condition: bool) -> list[np.ndarray]:
    """A Loop that runs no iteration (trip count 0 or execution condition false), as the CPU
    plugin runs it: a back-edge output is its initial value, a concatenation is empty.  (The
    core reference refuses: "Zero count of iteration not supported".)

    A false execution condition with a body condition known in advance is refused: OpenVINO
    then infers the concatenations from the trip count alone (``[3,2]`` for three iterations)
    and its CPU plugin returns that shape filled with uninitialized memory.
    """
    inference = _first_inference(attrs, inputs)
    known = _result_info(inference, attrs.condition_result).value is not None
    if by_condition and known and any(o.slicing is not None for o in attrs.outputs):
        raise InputError(
            "the execution condition is false, so the Loop runs no iteration, but its concatenated "
            "outputs have the length OpenVINO infers from the trip count (OpenVINO's CPU plugin "
            "returns uninitialized memory there)"
        )
    outs: list[np.ndarray] = [np.empty(0)] * len(attrs.outputs)
    for o in attrs.outputs:
        if o.slicing is None:
            init = next((m.input for m in attrs.inputs if m.back_edge == o.result), None)
            if init is None:
                raise InputError(
                    f"the Loop runs zero iterations, and output {o.output} is no back-edge value"
                )
            outs[o.output] = inputs[init]
            continue
        info = _result_info(inference, o.result)
        shape = PartialShape.of([1]) if info.shape.rank_is_static and info.shape.rank == 0 else info.shape
        dtype = info.element_type.numpy_dtype
        axis = _normalize(o.slicing.axis, shape.rank) if shape.rank_is_static else 0
        dims = [d.length if d.is_static else None for d in shape] if shape.rank_is_static else None
        if dims is None or dtype is None or any(d is None for k, d in enumerate(dims) if k != axis):
            raise InputError(f"the Loop runs zero iterations, and the shape of output {o.output} is unknown")
        dims[axis] = 0
        outs[o.output] = np.zeros(tuple(int(d or 0) for d in dims), dtype=dtype)
    return outs


def evaluate_if(
    attrs: IfAttrs,
    inputs: Sequence[np.ndarray],
    mode: RunMode = RunMode(),  # noqa: B008 - frozen: one shared default
) -> list[np.ndarray]:
    if inputs[0].size != 1:
        raise InputError(f"the condition must hold one value, got shape {list(inputs[0].shape)}")
    branch = 0 if bool(inputs[0].reshape(-1)[0]) else 1
    if branch == 0:
        body, maps, outputs = attrs.then_body, attrs.then_inputs, attrs.then_outputs
    else:
        body, maps, outputs = attrs.else_body, attrs.else_inputs, attrs.else_outputs
    results = _run_body(body, {m.parameter: inputs[m.input] for m in maps}, mode, (branch, 0))
    outs: list[np.ndarray] = [np.empty(0)] * len(outputs)
    for o in outputs:
        outs[o.output] = results[o.result]
    return outs


def specialize_loop(
    attrs: LoopAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """The Loop/TensorIterator run with ``mode`` reaching its body (None: the default run)."""
    if _default(mode):
        return None
    return lambda arrays: evaluate_loop(attrs, arrays, mode)


def specialize_if(
    attrs: IfAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """The If run with ``mode`` reaching the branch it takes (None: the default run)."""
    if _default(mode):
        return None
    return lambda arrays: evaluate_if(attrs, arrays, mode)


def _default(mode: RunMode) -> bool:
    """A body run in ``mode`` runs as ``evaluate`` runs it (exact, no state, no hooks)."""
    return replace(mode, scope=(), out=None) == RunMode()


SPECS = (
    OpSpec(
        type="TensorIterator",
        version=0,
        since=1,
        inputs=(0, 1 << 16),
        parse=parse_tensor_iterator,
        infer=infer_loop,
        evaluate=evaluate_loop,
        blas=True,
        specialize=specialize_loop,
        uses_run=True,
        foldable=False,
    ),
    OpSpec(
        type="Loop",
        version=5,
        since=5,
        inputs=(2, 1 << 16),
        parse=parse_loop,
        infer=infer_loop,
        evaluate=evaluate_loop,
        blas=True,
        specialize=specialize_loop,
        uses_run=True,
        foldable=False,
    ),
    OpSpec(
        type="If",
        version=8,
        since=8,
        inputs=(1, 1 << 16),
        parse=parse_if,
        infer=infer_if,
        evaluate=evaluate_if,
        blas=True,
        specialize=specialize_if,
        uses_run=True,
        foldable=False,
    ),
)
