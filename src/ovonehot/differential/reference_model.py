"""OpenVINO's reference as it computes, where it departs from the op semantics ovonehot follows.

ovonehot computes what OpenVINO's specification, IEEE 754 and the CPU plugin agree on; where the
core reference (``Node.evaluate``, and the constant folding every device compiles with) departs
from them, the departure is a *reference deviation*, named and predicted here with ovonehot's own
kernels.  One today: ``bf16-reference-rounding`` (f32 -> bf16 as ``(bits + ((bits & 0x10000)
>> 1)) >> 16``, docs/openvino-behaviour.md): the graph is inferred and run again under
:func:`~ovonehot.ops.common.bf16.bf16_rounding`, and each node where the rounding changes a value
while its inputs still agree is named.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..evaluate import RunMode, evaluate
from ..graph import Graph
from ..infer import Inference, infer, parameter_infos
from ..model import Model
from ..ops.common.bf16 import Bf16Rounding, bf16_rounding
from ..ops.convert import convert_array
from ..types import ElementType

BF16_CODE = "bf16-reference-rounding"

Values = dict[tuple[int, int], np.ndarray]
Changed = Callable[[np.ndarray, np.ndarray], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class RoundingChange:
    """A node whose output the reference's bf16 rounding changes while its inputs agree."""

    node: int
    where: str
    detail: str


def has_bf16(inference: Inference) -> bool:
    """Whether any tensor of the model (its top-level graph) is bf16."""
    return any(t.element_type is ElementType.bf16 for outs in inference.outputs for t in outs) or any(
        et is ElementType.bf16 for _, et, _ in parameter_infos(inference)
    )


def reference_inference(model: Model) -> Inference:
    """``model``'s graph inferred (its constants folded) with the reference's bf16 rounding, its
    own kernels kept (a model may carry a replaced one: tests judge planted kernels)."""
    shapes = {n.name: s for n, _, s in parameter_infos(model.inference)}
    with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE):
        inference = infer(model.graph, shapes=shapes)
    plans = tuple(
        dataclasses.replace(p, spec=own.spec)
        for p, own in zip(inference.plans, model.inference.plans, strict=True)
    )
    return dataclasses.replace(inference, plans=plans)


def folded_changes(model: Model, reference: Inference, changed: Changed) -> list[RoundingChange]:
    """The folded nodes whose value the reference's rounding changes (where it starts)."""
    ours = {
        (i, k): np.asarray(t.value)
        for i, outs in enumerate(model.inference.outputs)
        for k, t in enumerate(outs)
        if t.value is not None
    }
    theirs = {
        (i, k): np.asarray(t.value)
        for i, outs in enumerate(reference.outputs)
        for k, t in enumerate(outs)
        if t.value is not None
    }
    return _origins(model.graph, ours, theirs, changed, "folded as a constant")


def simulate_reference(
    model: Model, inputs: Mapping[str, np.ndarray], changed: Changed
) -> tuple[dict[str, np.ndarray], list[RoundingChange]]:
    """The reference's predicted outputs and where its bf16 rounding changes a value."""
    if not has_bf16(model.inference):
        return model.run(inputs), []
    casts = getattr(model, "_input_casts", None) or [None] * len(model.inputs)
    arrays = [a if c is None else convert_array(a, c) for a, c in zip(model.bind(inputs), casts, strict=True)]
    params = [model.graph.index_of(n.id) for n, _, _ in parameter_infos(model.inference)]
    feeds = dict(zip(params, arrays, strict=True))
    keep = _bf16_and_their_inputs(model.inference)
    ours = evaluate(model.inference, feeds, RunMode(), keep=keep)
    reference = reference_inference(model)
    with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE):
        theirs = evaluate(reference, feeds, RunMode(), keep=keep)
    outputs = {}
    for desc, r in zip(model.outputs, model.graph.kind_indices("Result"), strict=True):
        value = theirs[(r, 0)]
        declared = desc.element_type
        if declared.numpy_dtype is not None and value.dtype != declared.numpy_dtype:
            value = convert_array(value, declared)
        outputs[desc.name] = value
    return outputs, _origins(model.graph, ours, theirs, changed, "")


def _bf16_and_their_inputs(inference: Inference) -> list[tuple[int, int]]:
    """The outputs the events need: every bf16 output, and the inputs of the nodes making them
    (not every value: a large model's intermediates would all be held at once)."""
    graph = inference.graph
    keep: set[tuple[int, int]] = set()
    for i, outs in enumerate(inference.outputs):
        bf16 = [(i, k) for k, t in enumerate(outs) if t.element_type is ElementType.bf16]
        if bf16 and graph.nodes[i].type.lower() != "result":
            keep.update(bf16)
            keep.update((s.node, s.output) for s in graph.sources[i])
    return sorted(keep)


def _origins(graph: Graph, ours: Values, theirs: Values, changed: Changed, how: str) -> list[RoundingChange]:
    """Nodes with a bf16 output that differs between the two runs while every input agrees (an
    input neither run kept is taken to agree)."""
    found = []
    by_node: dict[int, list[int]] = {}
    for j, k in sorted(theirs):
        by_node.setdefault(j, []).append(k)
    for i, node in enumerate(graph.nodes):
        outputs = by_node.get(i, [])
        if node.type.lower() in ("parameter", "result") or not outputs:
            continue
        sources = [(s.node, s.output) for s in graph.sources[i]]
        if any(_differ(ours.get(s), theirs.get(s), changed) for s in sources):
            continue
        for k in outputs:
            value = theirs[(i, k)]
            if value.dtype != _BF16 or not _differ(ours.get((i, k)), value, changed):
                continue
            _, detail = changed(np.asarray(ours[(i, k)]), value)
            found.append(RoundingChange(i, node.describe(), f"{how}: {detail}" if how else detail))
            break
    return found


def _differ(a: np.ndarray | None, b: np.ndarray | None, changed: Changed) -> bool:
    if a is None or b is None:
        return a is not b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object or a.shape != b.shape:
        return a.shape != b.shape or not bool(np.all(a == b))
    return changed(a, b)[0] > 0


_BF16 = ElementType.bf16.numpy_dtype
