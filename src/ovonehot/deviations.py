"""Known, named ways OpenVINO departs from its own op semantics, and models that predict them.

A difference between ovonehot and an OpenVINO oracle is only called a *known
deviation* when it is explained: :func:`simulate` recomputes the model the way
the oracle is known to compute it (ovonehot's own kernels on a graph rewritten
to the oracle's precisions, with the oracle's conversions applied), and the
observed output must equal that prediction exactly.  Refusals (the oracle will
not compile or evaluate the model) are explained by checking the model for the
property the oracle is known to refuse, not by matching "some error happened".

The CPU model (FACTS.md, and docs/FINDINGS.md for what fuzzing found):
  * i64/u32/u64 are computed as i32 and f64 as f32.  Values fed at run time are
    converted like a C cast (ints wrap: OneHot index 2**32+1 hits position 1);
    constants are converted with saturation (an i64 on_value 2**40 becomes
    2147483647, an f64 1e300 or inf becomes the f32 maximum); outputs are
    converted back to the declared type.
  * f32 constants holding subnormals are flushed to +0.0 when compiled.
  * A negative OneHot depth fed at run time is not caught and corrupts the
    plugin's heap (the next compile crashes the process): it is never run.
  * Refusals: OneHot indices other than i16/i32/i64/u16/u32/u64 ("Only I32 is
    supported!"), OneHot of scalar indices whose depth is unknown at compile
    time, u1/u3/u6 Parameters, dynamic-rank Parameters.
Both oracles:
  * an IR v10 converts its outputs to the legacy precisions (i32 for i32/i64/
    u32/u64, f32 for everything else) through an inserted Convert;
  * OneHot with string values aborts the process and OneHot with sub-byte values
    writes past its buffer: the oracle module refuses to run them.
The core reference has no ``evaluate`` for OneHot with indices other than
i32/i64, and fails on a negative axis when the indices rank is dynamic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .errors import Error
from .graph import Graph, Node
from .infer import Inference, infer, parameter_infos
from .model import Model
from .openvino_oracle import NEGATIVE_DEPTH
from .ops.convert import convert_array
from .types import ElementType


@dataclass(frozen=True, slots=True)
class Deviation:
    """A known way one oracle departs from OpenVINO's op semantics."""

    code: str
    oracle: str  # "cpu", "reference" or "both"
    summary: str


KNOWN: dict[str, Deviation] = {
    d.code: d
    for d in (
        Deviation("int32-wrap", "cpu",
                  "i64/u32/u64 values fed at run time are wrapped to int32 (index 2**32+1 acts as 1)"),
        Deviation("int32-saturation", "cpu",
                  "i64/u32/u64 constants (OneHot on/off) are saturated to the int32 range"),
        Deviation("f64-through-f32", "cpu",
                  "f64 is computed as f32 (constants saturate to +-f32 max, inf included)"),
        Deviation("subnormal-flush", "cpu", "f32 constants holding subnormals are flushed to +0.0"),
        Deviation("negative-depth-unchecked", "cpu",
                  "a negative OneHot depth fed at run time is not caught and corrupts the heap "
                  "(the next compile crashes): not run"),
        Deviation("refused-index-type", "cpu",
                  "OneHot indices must be i16/i32/i64/u16/u32/u64 (\"Only I32 is supported!\")"),
        Deviation("refused-sub-byte-input", "cpu", "u1/u3/u6 Parameters are refused"),
        Deviation("refused-dynamic-rank", "cpu", "dynamic-rank Parameters are refused at compile time"),
        Deviation("refused-scalar-indices", "cpu",
                  "OneHot of scalar indices with a depth unknown at compile time is refused "
                  "(\"incorrect number of input/output dimensions\")"),
        Deviation("no-reference-evaluate", "reference",
                  "OneHot's reference evaluate supports only i32/i64 indices"),
        Deviation("negative-axis-dynamic-rank", "reference",
                  "a negative OneHot axis stays unnormalized when the indices rank is dynamic, and "
                  "evaluate then fails (\"Invalid axis value.\")"),
        Deviation("sub-byte-one-hot", "both",
                  "OneHot with sub-byte values writes one byte per element past its buffer (not run)"),
        Deviation("string-one-hot", "both", "OneHot with string values aborts the process (not run)"),
        Deviation("v10-legacy-outputs", "both",
                  "IR v10 outputs are converted to legacy precisions (i32 or f32) by an inserted Convert"),
    )
}

CPU_INDEX_TYPES = frozenset({ElementType.i16, ElementType.i32, ElementType.i64,
                             ElementType.u16, ElementType.u32, ElementType.u64})
REFERENCE_INDEX_TYPES = frozenset({ElementType.i32, ElementType.i64})
WIDE_INTS = frozenset({ElementType.i64, ElementType.u32, ElementType.u64})
SUB_BYTE_PARAMS = frozenset({ElementType.u1, ElementType.u3, ElementType.u6})
SUB_BYTE = frozenset(t for t in ElementType if 0 < t.bitwidth < 8)

_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1
_F32_MAX = float(np.finfo(np.float32).max)


@dataclass(frozen=True, slots=True)
class Event:
    """One occurrence of a known deviation in one run: where, and what it changed."""

    code: str
    node: int  # node index in the model's graph (-1: the model as a whole)
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.code} at {self.where}: {self.detail}" if self.detail else f"{self.code} at {self.where}"


@dataclass(frozen=True, slots=True)
class Simulation:
    """What an oracle is predicted to output under its known deviations."""

    outputs: dict[str, np.ndarray]
    events: tuple[Event, ...]


# -- refusals -----------------------------------------------------------------------------


def explain_refusal(model: Model, oracle: str, message: str) -> list[Event]:
    """The known deviations that make ``oracle`` refuse ``model``; empty when unexplained.

    Each explanation requires the model to have the refused property *and* the
    message to be the one OpenVINO gives for it.
    """
    graph, inference = model.graph, model.inference
    events: list[Event] = []
    for i in graph.kind_indices("OneHot"):
        node = graph.nodes[i]
        infos = inference.input_infos(i)
        out_type = infos[2].element_type
        if out_type is ElementType.string and "string values" in message:
            events.append(Event("string-one-hot", i, node.describe(), "OneHot values are string"))
        if oracle == "cpu" and NEGATIVE_DEPTH in message and node.name in message:
            events.append(Event("negative-depth-unchecked", i, node.describe(), "a negative depth is fed"))
        if out_type in SUB_BYTE and "past the packed output buffer" in message:
            events.append(Event("sub-byte-one-hot", i, node.describe(), f"OneHot values are {out_type}"))
        idx_type = infos[0].element_type
        if oracle == "cpu" and idx_type not in CPU_INDEX_TYPES and "Only I32 is supported" in message:
            events.append(Event("refused-index-type", i, node.describe(), f"indices are {idx_type}"))
        if (oracle == "cpu" and infos[0].shape.rank_is_static and infos[0].shape.rank == 0
                and not inference.outputs[i][0].shape.is_static
                and "incorrect number of input/output dimensions" in message):
            events.append(Event("refused-scalar-indices", i, node.describe(),
                                f"scalar indices, output {inference.outputs[i][0].shape}"))
        if (oracle == "reference" and idx_type not in REFERENCE_INDEX_TYPES and "no evaluate" in message
                and node.name in message):
            events.append(Event("no-reference-evaluate", i, node.describe(), f"indices are {idx_type}"))
        axis = getattr(inference.plans[i].attrs, "axis", 0)
        if (oracle == "reference" and axis < 0 and not infos[0].shape.rank_is_static
                and "Invalid axis value" in message and node.name in message):
            events.append(Event("negative-axis-dynamic-rank", i, node.describe(),
                                f"axis {axis}, indices rank dynamic"))
    if oracle == "cpu":
        for node, et, shape in parameter_infos(inference):
            i = graph.index_of(node.id)
            if et in SUB_BYTE_PARAMS and f"Input image format {et} is not supported" in message:
                events.append(Event("refused-sub-byte-input", i, node.describe(), f"the Parameter is {et}"))
            if not shape.rank_is_static and "dynamic rank" in message.lower():
                events.append(Event("refused-dynamic-rank", i, node.describe(), "the Parameter has a dynamic rank"))
    return events


# -- the CPU model: rewrite precisions, run ovonehot's kernels, convert back ---------------


def _cpu_type(et: ElementType) -> ElementType:
    if et in WIDE_INTS:
        return ElementType.i32
    if et is ElementType.f64:
        return ElementType.f32
    return et


def _with_attr(node: Node, name: str, value: str, payload: np.ndarray | None = None) -> Node:
    attrs = tuple((k, value if k == name else v) for k, v in node.attrs)
    return dataclasses.replace(node, attrs=attrs, payload=payload if payload is not None else node.payload)


def _saturate_constant(et: ElementType, value: np.ndarray) -> np.ndarray:
    if et in WIDE_INTS:
        wide = value.astype(np.float64) if et is ElementType.u64 else value.astype(np.int64)
        return np.clip(wide, _I32_MIN, _I32_MAX).astype(np.int32)
    if et is ElementType.f64:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.clip(value, -_F32_MAX, _F32_MAX).astype(np.float32)
    return value


def _flush_subnormals(value: np.ndarray) -> np.ndarray:
    bits = value.reshape(-1).view(np.uint32)
    sub = ((bits & 0x7F800000) == 0) & ((bits & 0x007FFFFF) != 0)
    if not sub.any():
        return value
    out = value.copy()
    out.reshape(-1)[sub] = np.float32(0.0)
    return out


def _changed(before: np.ndarray, after: np.ndarray) -> tuple[int, str]:
    """How many values changed and an example, comparing as numbers (and bits for floats)."""
    a = before.reshape(-1)
    b = after.reshape(-1)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        same = (fa == fb) & (np.signbit(fa) == np.signbit(fb)) | (np.isnan(fa) & np.isnan(fb))
    else:
        same = a.astype(object) == b.astype(object)
    changed = np.flatnonzero(~np.asarray(same, dtype=bool))
    if changed.size == 0:
        return 0, ""
    k = int(changed[0])
    return int(changed.size), f"{changed.size} of {a.size} values changed, e.g. {_show(a[k])} -> {_show(b[k])}"


def _show(value: object) -> str:
    item = value.item() if isinstance(value, np.generic) else value
    return repr(float(item)) if isinstance(value, np.floating) else repr(item)


def _rewrite(graph: Graph, events: list[Event]) -> Graph:
    """The graph as the CPU plugin computes it (i64/u32/u64 -> i32, f64 -> f32)."""
    nodes = []
    for i, node in enumerate(graph.nodes):
        kind = node.type.lower()
        if kind == "parameter":
            et = ElementType.from_name(node.attr("element_type") or "")
            if _cpu_type(et) is not et:
                node = _with_attr(node, "element_type", _cpu_type(et).value)
        elif kind in ("const", "constant") and node.payload is not None:
            et = ElementType.from_name(node.attr("element_type") or "")
            value = np.asarray(node.payload)
            new = _saturate_constant(et, value)
            if new is not value:
                n, detail = _changed(value, new)
                if n:
                    code = "f64-through-f32" if et is ElementType.f64 else "int32-saturation"
                    events.append(Event(code, i, node.describe(), detail))
            if new.dtype == np.float32:
                flushed = _flush_subnormals(new)
                if flushed is not new:
                    n, detail = _changed(new, flushed)
                    events.append(Event("subnormal-flush", i, node.describe(), detail))
                    new = flushed
            if new is not value:
                node = _with_attr(node, "element_type", _cpu_type(et).value, new)
        elif kind == "convert":
            et = ElementType.from_name(node.attr("destination_type") or "")
            if _cpu_type(et) is not et:
                node = _with_attr(node, "destination_type", _cpu_type(et).value)
        nodes.append(node)
    return dataclasses.replace(graph, nodes=tuple(nodes))


def simulate(model: Model, inputs: Mapping[str, np.ndarray], oracle: str) -> Simulation:
    """Predict ``oracle``'s outputs under its known deviations (raises ovonehot.Error if it cannot)."""
    events: list[Event] = []
    if oracle == "cpu":
        outputs = _simulate_cpu(model, inputs, events)
    else:
        outputs = _run_plain(model, inputs)
    if model.graph.ir_version == 10:
        outputs = _legacy_outputs(model, outputs, events)
    return Simulation(outputs, tuple(events))


def _run_plain(model: Model, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return model.run(inputs)


def _simulate_cpu(model: Model, inputs: Mapping[str, np.ndarray], events: list[Event]) -> dict[str, np.ndarray]:
    graph = model.graph
    rewritten = _rewrite(graph, events)
    shapes = {n.name: s for n, _, s in parameter_infos(model.inference)}
    inference = infer(rewritten, shapes=shapes)
    # Keep the model's own kernels (a model may carry a replaced one: tests judge wrong kernels).
    inference = dataclasses.replace(inference, plans=tuple(
        dataclasses.replace(p, spec=own.spec) for p, own in zip(inference.plans, model.inference.plans, strict=True)
    ))
    arrays = model.bind(inputs)
    params = [graph.index_of(n.id) for n, _, _ in parameter_infos(model.inference)]
    feeds: dict[int, np.ndarray] = {}
    for i, arr in zip(params, arrays, strict=True):
        target = inference.outputs[i][0].element_type
        if target.numpy_dtype is not None and arr.dtype != target.numpy_dtype:
            with np.errstate(over="ignore", invalid="ignore"):
                new = arr.astype(target.numpy_dtype)
            n, detail = _changed(arr, new)
            if n:
                code = "int32-wrap" if target is ElementType.i32 else "f64-through-f32"
                events.append(Event(code, i, graph.nodes[i].describe(), detail))
            arr = new
        feeds[i] = arr
    values = _evaluate(inference, feeds, events)
    outputs = {}
    for desc, r in zip(model.outputs, graph.kind_indices("Result"), strict=True):
        value = values[r]
        declared = desc.element_type.numpy_dtype
        if declared is not None and value.dtype != declared:
            with np.errstate(over="ignore", invalid="ignore"):
                value = value.astype(declared)
        outputs[desc.name] = value
    return outputs


def _evaluate(inference: Inference, feeds: Mapping[int, np.ndarray], events: list[Event]) -> dict[int, np.ndarray]:
    """A plain walk over the plans (small graphs): Result node index -> its input value."""
    graph = inference.graph
    values: dict[tuple[int, int], np.ndarray] = {}
    results: dict[int, np.ndarray] = {}
    for i, plan in enumerate(inference.plans):
        args = [values[(s.node, s.output)] for s in graph.sources[i]]
        if i in feeds:
            outs: Sequence[np.ndarray] = [feeds[i]]
        elif plan.node.type.lower() == "result":
            results[i] = args[0]
            continue
        else:
            assert plan.spec.evaluate is not None
            try:
                outs = plan.spec.evaluate(plan.attrs, args)
            except Error as exc:
                raise type(exc)(f"{plan.node.describe()}: {exc}") from None
        for k, out in enumerate(outs):
            values[(i, k)] = out
    return results


# -- IR v10: legacy output precisions -----------------------------------------------------

_LEGACY_I32 = frozenset({ElementType.i32, ElementType.i64, ElementType.u32, ElementType.u64})


def legacy_output_type(et: ElementType) -> ElementType:
    """The precision OpenVINO gives an IR v10 output of type ``et``."""
    return ElementType.i32 if et in _LEGACY_I32 else ElementType.f32


def _legacy_outputs(model: Model, outputs: dict[str, np.ndarray], events: list[Event]) -> dict[str, np.ndarray]:
    converted = {}
    for desc in model.outputs:
        value = outputs[desc.name]
        target = legacy_output_type(desc.element_type)
        if desc.element_type is not target:
            new = convert_array(value, target)
            events.append(Event("v10-legacy-outputs", -1, f"output {desc.name!r}",
                                f"{desc.element_type} converted to {target}"))
            value = new
        converted[desc.name] = value
    return converted


def describe_deviation(code: str) -> str:
    dev = KNOWN.get(code)
    return f"{code} ({dev.summary})" if dev else code

