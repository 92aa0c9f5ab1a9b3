"""Known, named ways OpenVINO departs from its own op semantics, and models that predict them.

A difference between ovonehot and an OpenVINO oracle is only called a *known
deviation* when it is explained: :func:`simulate` recomputes the model the way
the oracle is known to compute it (ovonehot's own kernels on a graph rewritten
to the oracle's precisions, with the oracle's conversions applied), and the
observed output must equal that prediction exactly.  Refusals (the oracle will
not compile or evaluate the model) are explained by checking the model for the
property the oracle is known to refuse, not by matching "some error happened".

The CPU model (docs/openvino-behaviour.md, and docs/FINDINGS.md for what fuzzing found):
  * i64/u32/u64 are computed as i32 and f64 as f32.  Values fed at run time are
    converted like a C cast (ints wrap: OneHot index 2**32+1 hits position 1);
    constants are converted with saturation (an i64 on_value 2**40 becomes
    2147483647, an f64 1e300 or inf becomes the f32 maximum); outputs are
    converted back to the declared type.
  * f32 constants holding subnormals are flushed to +0.0 when compiled.
  * Likewise i16/u16 are computed as i32 and f16 as f32 (inference precision f32):
    a Convert to them inside the graph does not narrow, f16 signalling NaNs are
    quieted.
  * A negative OneHot depth fed at run time is not caught and corrupts the
    plugin's heap (the next compile crashes the process): it is never run.
  * Refusals: OneHot indices other than i16/i32/i64/u16/u32/u64 ("Only I32 is
    supported!"), OneHot of scalar indices whose depth is unknown at compile
    time, u1/u3/u6 Parameters, dynamic-rank Parameters.
Both oracles:
  * OneHot with string values aborts the process and OneHot with sub-byte values
    writes past its buffer: the oracle module refuses to run them.
The core reference has no ``evaluate`` for OneHot with indices other than
i32/i64, and fails on a negative axis when the indices rank is dynamic.  It rounds f32 to bf16
its own way (``bf16-reference-rounding``: ovonehot rounds to nearest even, as IEEE and the CPU
plugin at run time do), and so does the constant folding every device compiles with:
:mod:`.reference_model` predicts both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Error
from ..evaluate import RunMode, evaluate
from ..graph import Graph, Node
from ..infer import Inference, NodePlan, infer, parameter_infos
from ..model import Model
from ..ops.common.spec import NodeKey, TensorInfo
from ..ops.convert import convert_array
from ..ops.interpolate import InterpolateAttrs, Mode
from ..oracle.common import OracleKind, Refusal
from ..types import ElementType
from .reference_model import BF16_CODE, folded_changes, has_bf16, reference_inference, simulate_reference

_CPU = (OracleKind.CPU,)
_REFERENCE = (OracleKind.REFERENCE,)
_BOTH = (OracleKind.REFERENCE, OracleKind.CPU)


@dataclass(frozen=True, slots=True)
class Deviation:
    """A known way one oracle departs from OpenVINO's op semantics."""

    code: str
    oracles: tuple[OracleKind, ...]  # the OpenVINO oracles that depart this way
    summary: str


KNOWN: dict[str, Deviation] = {
    d.code: d
    for d in (
        Deviation(
            "int32-wrap",
            _CPU,
            "i64/u32/u64 values (fed at run time or computed) are held as int32, wrapped "
            "(OneHot index 2**32+1 acts as 1)",
        ),
        Deviation(
            "int32-saturation",
            _CPU,
            "i64/u32/u64 constants (OneHot on/off, a slice's open end INT64_MAX) are saturated to the int32 range",
        ),
        Deviation(
            "f64-through-f32", _CPU, "f64 is computed as f32 (constants saturate to +-f32 max, inf included)"
        ),
        Deviation(
            "subnormal-flush",
            _CPU,
            "f32 constants holding subnormals (OneHot on/off) are flushed to +0.0 when compiled",
        ),
        Deviation(
            "negative-depth-unchecked",
            _CPU,
            "a negative OneHot depth fed at run time is not caught and corrupts the heap "
            "(the next compile crashes): not run",
        ),
        Deviation(
            "i16-as-i32",
            _CPU,
            "i16/u16 are computed as i32: a Convert to i16/u16 inside the graph does not narrow "
            "(i32 -> Convert(i16) -> OneHot: 65536 is not 0)",
        ),
        Deviation(
            "f16-decompression-in-f32",
            _CPU,
            "weights the IR decompresses in f16 (NNCF: scale x (w - zero point), from int8/int4/nf4/"
            "f8/... constants) are computed in f32: the f16 rounding of the decompressed weights is "
            "skipped, which moves outputs by more than the plugin's summation order does",
        ),
        Deviation(
            "f16-as-f32",
            _CPU,
            "f16 is computed as f32: a Convert to f16 inside the graph neither rounds nor overflows, "
            "and f16 signalling NaNs come out quieted",
        ),
        Deviation(
            "nondeterministic-output",
            _CPU,
            "the output changes between identical runs (the plugin reads memory it never wrote; "
            "seen after Eltwise -> OneHot -> Eltwise with a rank-7 dynamic OneHot output): every "
            "stable value is checked against the prediction",
        ),
        Deviation(
            "float-convert-saturates",
            _CPU,
            "a Convert from a float to an integer saturates when the source is f64 or has a dynamic "
            "shape (-2.5 -> u8 gives 0; the reference wraps through int32 and gives 254)",
        ),
        Deviation(
            "stateful-attention-mask-lowest",
            _CPU,
            "ScaledDotProductAttention over a KV cache (ReadValue) with a boolean mask: the fused "
            "stateful kernel masks with the type's lowest finite value, not -inf, so a row with "
            "every key masked (a left-padded position) attends to all keys evenly where the spec's "
            "softmax gives NaN (and the NaN then reaches the whole row through the next layer)",
        ),
        Deviation(
            "bicubic-pillow-coefficient",
            _CPU,
            "Interpolate-11 bicubic_pillow uses Pillow's cube_coeff -0.5 whatever the attribute "
            "says (PyTorch's antialiased bicubic exports -0.75)",
        ),
        Deviation(
            "integer-arithmetic-in-f32",
            _CPU,
            "signed integer Divide and FloorMod are computed in f32: operands beyond 2**24 lose "
            "their low bits (FloorMod(16777217, 7) gives 1, not 2; 2147483647 / 7 gives 306783392)",
        ),
        Deviation(
            "divide-truncates",
            _CPU,
            "an integer Divide with m_pythondiv=true (floor division, the default; PyTorch's and "
            "ONNX's integer Div become it) truncates toward zero: -7 / 2 gives -3, not -4",
        ),
        Deviation(
            "bf16-subnormal-flush",
            _CPU,
            "at run time a Convert from f32 to bf16 flushes subnormal inputs to zero of their sign "
            "(0x00400000 gives 0x0000; rounding to nearest even gives 0x0040)",
        ),
        Deviation(
            BF16_CODE,
            _BOTH,
            "OpenVINO's reference rounds f32 to bf16 as (bits + ((bits & 0x10000) >> 1)) >> 16, not "
            "to nearest even as its bfloat16 type, IEEE, ONNX and the CPU plugin at run time do: it "
            "truncates when the kept last bit is even (1.0029297 gives 1.0, not 1.0078125) and turns "
            "NaNs with a low payload into inf; the CPU plugin's constant folding uses it",
        ),
        Deviation(
            "refused-index-type",
            _CPU,
            'OneHot indices must be i16/i32/i64/u16/u32/u64 ("Only I32 is supported!")',
        ),
        Deviation("refused-sub-byte-input", _CPU, "u1/u3/u6 Parameters are refused"),
        Deviation(
            "refused-nonconst-values",
            _CPU,
            "OneHot whose on/off values are not constants runs on the reference's evaluate, "
            "which takes only i32/i64 indices: otherwise refused (\"Only const 'on_value' input is "
            "supported\", or 'off_value')",
        ),
        Deviation("refused-dynamic-rank", _CPU, "dynamic-rank Parameters are refused at compile time"),
        Deviation(
            "f16-convert-clamps",
            _CPU,
            "an f16 -> integer Convert to 16 bits or wider clamps to the f16 range first "
            "(inf -> i32 gives 65504 where the reference gives -2147483648)",
        ),
        Deviation(
            "refused-convert-type",
            _CPU,
            "a Convert from f8e8m0 to anything but f16/bf16/f32/f64, or to f8e8m0 from another f8 "
            'type, is refused ("cpu_convert can\'t convert from: f8e8m0 precision to: i32"); '
            'from f8e4m3/f8e5m2 to boolean too, with static shapes ("unsupported src_prc")',
        ),
        Deviation(
            "refused-scalar-indices",
            _CPU,
            "OneHot of scalar indices with a depth unknown at compile time is refused "
            '("incorrect number of input/output dimensions")',
        ),
        Deviation(
            "no-reference-evaluate",
            _REFERENCE,
            "OpenVINO's core reference has no evaluate for this op with these input types",
        ),
        Deviation(
            "negative-axis-dynamic-rank",
            _REFERENCE,
            "a negative OneHot axis stays unnormalized when the indices rank is dynamic, and "
            'evaluate then fails ("Invalid axis value.")',
        ),
        Deviation(
            "sub-byte-one-hot",
            _BOTH,
            "OneHot with sub-byte values writes one byte per element past its buffer (not run)",
        ),
        Deviation("string-one-hot", _BOTH, "OneHot with string values aborts the process (not run)"),
        Deviation(
            "reference-stateful",
            _REFERENCE,
            "ReadValue's evaluate fails outside an inference request (\"VariableContext not "
            'found"): the reference cannot run a stateful model',
        ),
    )
}

CPU_INDEX_TYPES = frozenset(
    {ElementType.i16, ElementType.i32, ElementType.i64, ElementType.u16, ElementType.u32, ElementType.u64}
)
REFERENCE_INDEX_TYPES = frozenset({ElementType.i32, ElementType.i64})
WIDE_INTS = frozenset({ElementType.i64, ElementType.u32, ElementType.u64})
NARROW_INTS = frozenset({ElementType.i16, ElementType.u16})
SUB_BYTE_PARAMS = frozenset({ElementType.u1, ElementType.u3, ElementType.u6})
SUB_BYTE = frozenset(t for t in ElementType if 0 < t.bitwidth < 8)
# Float sources whose Convert to an integer can saturate on the CPU plugin (_cpu_convert_saturates);
# from f8 types it goes through int32 like the reference (measured on 2026.4.1).
SATURATING_FLOAT_SOURCES = frozenset({ElementType.f64, ElementType.f32, ElementType.f16, ElementType.bf16})

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
        return (
            f"{self.code} at {self.where}: {self.detail}" if self.detail else f"{self.code} at {self.where}"
        )


@dataclass(frozen=True, slots=True)
class Simulation:
    """What an oracle is predicted to output under its known deviations."""

    outputs: dict[str, np.ndarray]
    events: tuple[Event, ...]


# -- refusals -----------------------------------------------------------------------------


def explain_refusal(model: Model, oracle: OracleKind, refusal: Refusal) -> list[Event]:
    """The known deviations that make ``oracle`` refuse ``model``; empty when unexplained.

    Refusals ovonehot's oracle modules make themselves carry their deviation code and
    layer (``Refusal.code``, ``Refusal.layer``): they are matched by those.  OpenVINO's
    own refusals (the CPU plugin's compile errors, the reference's evaluate failing)
    carry what OpenVINO's message said as structured complaints
    (:mod:`ovonehot.oracle.openvino_messages` reads the text, in one place); each
    explanation requires the model to have the refused property *and* OpenVINO to have
    made the complaint that goes with it.
    """
    graph = model.graph
    if refusal.code == "no-reference-evaluate" or refusal.code in KNOWN:
        return [
            Event(refusal.code, i, graph.nodes[i].describe(), refusal.detail)
            for i in _refusing_nodes(model, refusal)
        ]
    events: list[Event] = []
    for i in graph.kind_indices("OneHot"):
        events.extend(_one_hot_refusals(model, oracle, refusal, i))
    if oracle is OracleKind.CPU:
        events.extend(_parameter_refusals(model, refusal))
        events.extend(_convert_refusals(model, refusal))
    if oracle is OracleKind.REFERENCE and refusal.complains("variable-context"):
        events.extend(
            Event("reference-stateful", i, graph.nodes[i].describe(), "a stateful model")
            for i in graph.kind_indices("ReadValue")
            if graph.nodes[i].name == refusal.layer
        )
    return events


def _one_hot_refusals(model: Model, oracle: OracleKind, refusal: Refusal, i: int) -> list[Event]:
    """What OpenVINO's complaints explain about OneHot node ``i``."""
    inference = model.inference
    node = model.graph.nodes[i]
    infos = inference.input_infos(i)
    idx_type = infos[0].element_type
    events = []
    if oracle is OracleKind.CPU:
        if idx_type not in CPU_INDEX_TYPES and refusal.complains("only-i32-indices"):
            events.append(Event("refused-index-type", i, node.describe(), f"indices are {idx_type}"))
        output = inference.outputs[i][0].shape
        if (
            infos[0].shape.rank_is_static
            and infos[0].shape.rank == 0
            and not output.is_static
            and refusal.complains("dimension-count")
        ):
            events.append(
                Event("refused-scalar-indices", i, node.describe(), f"scalar indices, output {output}")
            )
        named = {c.args[0] for c in refusal.complains("const-input-only")}  # the first the plugin meets
        for port, label in ((2, "on_value"), (3, "off_value")):
            if label in named and infos[port].value is None and idx_type not in REFERENCE_INDEX_TYPES:
                detail = f"{label} is not a constant and indices are {idx_type}"
                events.append(Event("refused-nonconst-values", i, node.describe(), detail))
    axis = getattr(inference.plans[i].attrs, "axis", 0)
    if (
        oracle is OracleKind.REFERENCE
        and i in _refusing_nodes(model, refusal)
        and axis < 0
        and not infos[0].shape.rank_is_static
        and refusal.complains("invalid-axis")
    ):
        detail = f"axis {axis}, indices rank dynamic"
        events.append(Event("negative-axis-dynamic-rank", i, node.describe(), detail))
    return events


def _parameter_refusals(model: Model, refusal: Refusal) -> list[Event]:
    """The CPU plugin refusing a Parameter: a sub-byte element type, a dynamic rank."""
    events = []
    formats = {c.args[0] for c in refusal.complains("input-format-unsupported")}
    for node, et, shape in parameter_infos(model.inference):
        i = model.graph.index_of(node.id)
        if et in SUB_BYTE_PARAMS and str(et) in formats:
            events.append(Event("refused-sub-byte-input", i, node.describe(), f"the Parameter is {et}"))
        if not shape.rank_is_static and refusal.complains("dynamic-rank"):
            events.append(
                Event("refused-dynamic-rank", i, node.describe(), "the Parameter has a dynamic rank")
            )
    return events


def _convert_refusals(model: Model, refusal: Refusal) -> list[Event]:
    """The CPU plugin refusing a Convert of a precision pair it has no conversion for."""
    inference = model.inference
    unsupported = {c.args for c in refusal.complains("unsupported-operation")}
    pairs = {c.args for c in refusal.complains("cpu-convert")}
    sources = {c.args[0] for c in refusal.complains("unsupported-src-precision")}
    events = []
    for i in model.graph.kind_indices("Convert"):
        node = model.graph.nodes[i]
        src, dst = inference.input_infos(i)[0].element_type, inference.outputs[i][0].element_type
        if (("Convert", node.name) in unsupported and (str(src), str(dst)) in pairs) or (
            dst is ElementType.boolean and str(src) in sources
        ):
            events.append(Event("refused-convert-type", i, node.describe(), f"Convert {src} -> {dst}"))
    return events


def refusing_node(model: Model, refusal: Refusal) -> int | None:
    """The index of the node that refused (by its layer name), or None when unknown."""
    nodes = _refusing_nodes(model, refusal)
    return nodes[0] if len(nodes) == 1 else None


def _refusing_nodes(model: Model, refusal: Refusal) -> list[int]:
    """Nodes named by the refusal.  In an IR v10 OpenVINO renames a node whose output it converts
    (the inserted Convert takes its name): then the nodes of the refusing op's type."""
    graph = model.graph
    if not refusal.layer:
        return []
    named = [i for i, n in enumerate(graph.nodes) if n.name == refusal.layer]
    if named and (
        graph.ir_version != 10
        or not refusal.op
        or any(f"{graph.nodes[i].type}-{graph.nodes[i].version}".lower() == refusal.op.lower() for i in named)
    ):
        return named
    if graph.ir_version == 10 and refusal.op:
        kind = refusal.op.rsplit("-", 1)[0]
        return list(graph.kind_indices(kind))
    return named


# -- the CPU model: rewrite precisions, run ovonehot's kernels, convert back ---------------


def _cpu_type(et: ElementType) -> ElementType:
    """The type the CPU plugin (f32 inference precision) computes ``et`` in."""
    if et in WIDE_INTS or et in NARROW_INTS:
        return ElementType.i32
    if et in (ElementType.f64, ElementType.f16):
        return ElementType.f32
    return et


def _to_f32(value: np.ndarray) -> np.ndarray:
    """f16 -> f32 as x86 converts (signalling NaNs quieted, payload kept); f64 -> f32 saturated
    to the f32 range (inf included)."""
    value = np.asarray(value)
    with np.errstate(over="ignore", invalid="ignore"):
        if value.dtype == np.float64:
            return np.asarray(np.clip(value, -_F32_MAX, _F32_MAX)).astype(np.float32)
        out = value.astype(np.float32)
    nan = np.isnan(out)
    if nan.any():
        out.reshape(-1).view(np.uint32)[nan.reshape(-1)] |= np.uint32(0x00400000)
    return out


def _with_attr(node: Node, name: str, value: str, payload: np.ndarray | None = None) -> Node:
    attrs = tuple((k, value if k == name else v) for k, v in node.attrs)
    return dataclasses.replace(node, attrs=attrs, payload=payload if payload is not None else node.payload)


def saturate_constant(et: ElementType, value: np.ndarray) -> np.ndarray:
    """A constant as the CPU plugin converts it when compiled: i64/u32/u64 saturated to int32,
    i16/u16 widened to it, f64/f16 to f32 (``int32-saturation``, ``f64-through-f32``)."""
    if et in WIDE_INTS:
        wide = value.astype(np.float64) if et is ElementType.u64 else value.astype(np.int64)
        return np.asarray(np.clip(wide, _I32_MIN, _I32_MAX)).astype(np.int32)
    if et in NARROW_INTS:
        return np.asarray(value).astype(np.int32)
    if et in (ElementType.f64, ElementType.f16):
        return _to_f32(value)
    return value


def _flush_subnormals(value: np.ndarray) -> np.ndarray:
    value = np.asarray(value)
    bits = value.reshape(-1).view(np.uint32)
    sub = ((bits & 0x7F800000) == 0) & ((bits & 0x007FFFFF) != 0)
    if not sub.any():
        return value
    out: np.ndarray = value.copy()
    out.reshape(-1)[sub] = np.float32(0.0)
    return out


def _changed(before: np.ndarray, after: np.ndarray) -> tuple[int, str]:
    """How many values changed and an example, comparing as numbers (and bits for floats)."""
    a = before.reshape(-1)
    b = after.reshape(-1)
    if _is_float(a) or _is_float(b):
        with np.errstate(invalid="ignore"):  # (widening a signalling NaN)
            fa, fb = a.astype(np.float64), b.astype(np.float64)
        same = ((fa == fb) & (np.signbit(fa) == np.signbit(fb))) | (np.isnan(fa) & np.isnan(fb))
    elif a.dtype == np.uint64 or b.dtype == np.uint64:
        same = a.astype(object) == b.astype(object)
    else:
        same = a.astype(np.int64) == b.astype(np.int64)
    changed = np.flatnonzero(~np.asarray(same, dtype=bool))
    if changed.size == 0:
        return 0, ""
    k = int(changed[0])
    return int(
        changed.size
    ), f"{changed.size} of {a.size} values changed, e.g. {_show(a[k])} -> {_show(b[k])}"


def _is_float(a: np.ndarray) -> bool:
    try:
        return ElementType.from_numpy(a.dtype).is_real
    except Error:
        return False


def _show(value: object) -> str:
    if isinstance(value, np.floating):
        return repr(float(value))
    return repr(value.item() if isinstance(value, np.generic) else value)


_TYPE_ATTRS = ("element_type", "destination_type", "output_type")


def _rewrite(graph: Graph) -> Graph:
    """The graph as the CPU plugin computes it: every i64/u32/u64 type attribute becomes i32 and
    every f64 one f32 (Parameter/Const ``element_type``, Convert ``destination_type``, ShapeOf
    ``output_type``, ...); constants are converted with saturation."""
    nodes = []
    for node in graph.nodes:
        attrs = dict(node.attrs)
        changed = {}
        for key in _TYPE_ATTRS:
            if key in attrs:
                try:
                    et = ElementType.from_name(attrs[key])
                except Error:
                    continue
                if _cpu_type(et) is not et:
                    changed[key] = _cpu_type(et).value
        if not changed:
            nodes.append(node)
            continue
        payload = node.payload
        if payload is not None and "element_type" in changed:
            payload = _cpu_constant(ElementType.from_name(attrs["element_type"]), np.asarray(payload))
        new_attrs = tuple((k, changed.get(k, v)) for k, v in node.attrs)
        nodes.append(dataclasses.replace(node, attrs=new_attrs, payload=payload))
    return dataclasses.replace(graph, nodes=tuple(nodes))


def _cpu_constant(et: ElementType, value: np.ndarray, flush: bool = True) -> np.ndarray:
    """A constant as the CPU plugin holds it: wide ints saturated to i32, f64 saturated to f32,
    (with ``flush``) subnormal f32 flushed to +0.0."""
    new = saturate_constant(et, value)
    return _flush_subnormals(new) if flush and new.dtype == np.float32 else new


def simulate(model: Model, inputs: Mapping[str, np.ndarray], oracle: OracleKind) -> Simulation:
    """Predict ``oracle``'s outputs under its known deviations (raises ovonehot.Error if it cannot)."""
    events: list[Event] = []
    if oracle is OracleKind.CPU:
        outputs = _simulate_cpu(model, inputs, events)
    else:
        outputs, changes = simulate_reference(model, inputs, _changed)
        events.extend(Event(BF16_CODE, c.node, c.where, c.detail) for c in changes)
    return Simulation(outputs, tuple(events))


def _simulate_cpu(
    model: Model, inputs: Mapping[str, np.ndarray], events: list[Event]
) -> dict[str, np.ndarray]:
    graph = model.graph
    rewritten = _rewrite(graph)
    shapes = {n.name: s for n, _, s in parameter_infos(model.inference)}
    inference = infer(rewritten, shapes=shapes)
    # Keep the model's own kernels (a model may carry a replaced one: tests judge wrong kernels).
    inference = dataclasses.replace(
        inference,
        plans=tuple(
            dataclasses.replace(p, spec=own.spec)
            for p, own in zip(inference.plans, model.inference.plans, strict=True)
        ),
    )
    arrays = model.bind(inputs)
    # IR v10 f16 inputs are taken as f32 and converted, as Model.run does.
    params = [graph.index_of(n.id) for n, _, _ in parameter_infos(model.inference)]
    # IR v10 takes f16 inputs as f32: Model.run rounds them to f16 as OpenVINO's reference does,
    # but the CPU computes f16 as f32 and keeps every bit of the f32 input.
    casts = getattr(model, "_input_casts", [None] * len(arrays))
    for i, a, c in zip(params, arrays, casts, strict=True):
        if c is not None:
            n, detail = _changed(convert_array(a, c), a)
            if n:
                events.append(
                    Event(
                        "f16-as-f32",
                        i,
                        graph.nodes[i].describe(),
                        f"the f32 input is not rounded to f16: {detail}",
                    )
                )
    exact_arrays = [a if c is None else convert_array(a, c) for a, c in zip(arrays, casts, strict=True)]
    feeds: dict[int, np.ndarray] = {}
    for i, arr in zip(params, arrays, strict=True):
        target = inference.outputs[i][0].element_type
        if target.numpy_dtype is not None and arr.dtype != target.numpy_dtype:
            # Run-time values: integers wrap like a C cast; f64 saturates to the f32 range
            # (inf included: an f64 inf fed in comes out as the f32 maximum).
            with np.errstate(over="ignore", invalid="ignore"):
                new = _to_f32(arr) if target is ElementType.f32 else arr.astype(target.numpy_dtype)
            n, detail = _changed(arr, new)
            if arr.dtype == np.float16 and _signalling_f16(arr):
                n, detail = n + 1, _signalling_f16(arr) + (f"; {detail}" if detail else "")
            if n:
                code = _code_for(ElementType.from_numpy(arr.dtype))
                events.append(Event(code, i, graph.nodes[i].describe(), detail))
            arr = new
        feeds[i] = arr
    folded = _folded(model, events)
    values = _evaluate(inference, feeds, folded, events, model.inference)
    _attribute(model, inference, values, exact_arrays, params, set(folded), events)
    outputs = {}
    for desc, r in zip(model.outputs, graph.kind_indices("Result"), strict=True):
        value = values[(r, 0)]
        declared = desc.element_type.numpy_dtype
        if declared is not None and value.dtype != declared:
            with np.errstate(over="ignore", invalid="ignore"):
                value = value.astype(declared)
        outputs[desc.name] = value
    return outputs


def _folded(model: Model, events: list[Event]) -> dict[int, tuple[np.ndarray, ...]]:
    """Nodes whose values are known before running (constants and what folds from them), with
    their exact values: OpenVINO folds these with its reference before the plugin sees them
    (bf16 rounded the reference's way, ``bf16-reference-rounding``)."""
    inference = model.inference
    if has_bf16(inference):
        inference = reference_inference(model)
        changes = folded_changes(model, inference, _changed)
        events.extend(Event(BF16_CODE, c.node, c.where, c.detail) for c in changes)
    out = {}
    for i, infos in enumerate(inference.outputs):
        kind = model.graph.nodes[i].type.lower()
        if kind in ("parameter", "result") or not infos or any(t.value is None for t in infos):
            continue
        out[i] = tuple(np.asarray(t.value) for t in infos)
    return out


def _evaluate(
    inference: Inference,
    feeds: Mapping[int, np.ndarray],
    folded: Mapping[int, tuple[np.ndarray, ...]],
    events: list[Event],
    original: Inference,
) -> dict[tuple[int, int], np.ndarray]:
    """Run the rewritten graph with the evaluator, keeping every value (small graphs); a
    Result's is (index, 0).  The CPU plugin's ways replace the kernel (``evaluate``'s
    ``override`` hook) where they differ from the reference:

    * a folded node takes its exact value converted the way the CPU plugin converts
      constants; where a folded value meets a computed node (the frontier), what that
      conversion changed is recorded as an event;
    * a Convert from f16 clamps first, to bf16 flushes subnormal inputs, from a float to an
      integer saturates where the plugin does; an integer Divide truncates.
    """
    graph = inference.graph
    frontier = {s.node for i, srcs in enumerate(graph.sources) if i not in folded for s in srcs} & set(folded)
    # Nodes the IR computes in f16 (the CPU plugin computes them in f32), and the weight
    # decompression subgraphs the plugin keeps (instead of folding them) and computes in f32.
    f16 = {i for i, outs in enumerate(original.outputs) if outs and outs[0].element_type is ElementType.f16}
    decompression = _decompression(original)
    # Subnormal flushing happens where a constant stays a plugin Input node, as OneHot's on/off
    # do; a scalar an eltwise op fuses keeps its subnormal (seen with Multiply by 1.4e-45).
    one_hot_inputs = {s.node for i in graph.kind_indices("OneHot") for s in graph.sources[i]}
    stateful_attention = _over_kv_cache(graph)

    def cpu(i: NodeKey, plan: NodePlan, args: list[np.ndarray]) -> Sequence[np.ndarray] | None:
        if not isinstance(i, int):
            return None  # (a node of a sub-graph body: the reference's)
        if i in decompression:  # (not folded by the plugin: computed in f32 from the constants)
            return _cpu_f16_as_f32(i, plan, args, i in f16, True, events)
        if i in folded:
            return _folded_as_held(i, plan.node, folded[i], i in one_hot_inputs, i in frontier, events)
        kind = plan.node.type.lower()
        if kind == "convert":
            return _cpu_convert(i, plan, args, original, events)
        if kind == "divide":
            return _cpu_divide(i, plan, args, events)
        if kind == "floormod":
            return _cpu_floor_mod(i, plan, args, events)
        if kind == "interpolate":
            return _cpu_interpolate(i, plan, args, events)
        if kind == "scaleddotproductattention" and i in stateful_attention:
            return _cpu_stateful_attention(i, plan, args, events)
        if i in f16:
            return _cpu_f16_as_f32(i, plan, args, True, False, events)
        return None

    keep = [(i, k) for i, outs in enumerate(inference.outputs) for k in range(len(outs))]
    return evaluate(inference, feeds, RunMode(override=cpu), keep=keep)


def _decompression(original: Inference) -> set[int]:
    """The weight decompression subgraphs the CPU plugin keeps and computes in f32 (instead of
    folding them in f16 with the reference): a Convert of a compressed constant (int8/int4/nf4/
    f8/f4...), Subtract/Multiply with such a value (zero points, scales), and the reshapes and
    Converts that carry it to its consumer."""
    graph = original.graph
    marked: set[int] = set()
    for i, node in enumerate(graph.nodes):
        kind, srcs = node.type.lower(), graph.sources[i]
        if not srcs or kind == "const":
            continue
        first = srcs[0].node
        decompressed = (
            (kind == "convert" and (first in marked or _compressed_constant(original, first)))
            or (kind in ("subtract", "multiply") and any(s.node in marked for s in srcs))
            or (kind in ("reshape", "transpose", "unsqueeze", "squeeze") and first in marked)
        )
        if decompressed:
            marked.add(i)
    return marked


_COMPRESSED = frozenset(
    ElementType.from_name(n)
    for n in ("i8", "u8", "i4", "u4", "u2", "u3", "u6", "u1", "nf4", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1")
)


def _compressed_constant(original: Inference, i: int) -> bool:
    node = original.graph.nodes[i]
    outs = original.outputs[i]
    return node.type.lower() == "const" and bool(outs) and outs[0].element_type in _COMPRESSED


def _cpu_f16_as_f32(
    i: int, plan: NodePlan, args: list[np.ndarray], in_f16: bool, decompression: bool, events: list[Event]
) -> Sequence[np.ndarray]:
    """A node computed in f32 as the CPU plugin does (the rewritten graph's f32): where the IR
    computes it in f16 (``in_f16``) and f32 keeps precision f16 would round away, the deviation
    is recorded -- as weight decompression when the node decompresses weights."""
    if plan.spec.evaluate is None:
        return []
    outs = plan.spec.evaluate(plan.attrs, args)
    for out in outs if in_f16 else ():
        if isinstance(out, np.ndarray) and out.dtype == np.float32:
            with np.errstate(over="ignore", invalid="ignore"):
                rounded = out.astype(np.float16).astype(np.float32)
            n, detail = _changed(rounded, out)
            if n:
                code = "f16-decompression-in-f32" if decompression else "f16-as-f32"
                events.append(Event(code, i, plan.node.describe(), f"kept in f32 where f16 rounds: {detail}"))
                break
    return outs


def _folded_as_held(
    i: int,
    node: Node,
    exact_values: tuple[np.ndarray, ...],
    flush: bool,
    frontier: bool,
    events: list[Event],
) -> list[np.ndarray]:
    """A folded node's exact values as the CPU plugin holds them (see :func:`_cpu_constant`)."""
    outs = []
    for exact in exact_values:
        et = ElementType.from_numpy(exact.dtype) if exact.dtype != object else ElementType.string
        held = _cpu_constant(et, exact, flush) if exact.dtype != object else exact
        if frontier:
            _constant_events(i, node, et, exact, events, flush)
        outs.append(held)
    return outs


def _cpu_convert(
    i: int, plan: NodePlan, args: list[np.ndarray], original: Inference, events: list[Event]
) -> Sequence[np.ndarray]:
    args = _f16_clamped(i, plan.node, original, args, events)
    outs = plan.spec.reference(plan.attrs, args)
    if outs[0].dtype == ElementType.bf16.numpy_dtype and args[0].dtype == np.float32:
        return [_bf16_flushes_subnormals(i, plan.node, args[0], outs[0], events)]
    if outs[0].dtype.kind in "iu" and _cpu_convert_saturates(
        original.input_infos(i)[0], original.outputs[i][0].element_type
    ):
        return [_saturating_from_float(i, plan.node, args[0], outs[0], events)]
    return outs


def _cpu_divide(i: int, plan: NodePlan, args: list[np.ndarray], events: list[Event]) -> Sequence[np.ndarray]:
    outs = plan.spec.reference(plan.attrs, args)
    if outs[0].dtype.kind in "iu" and getattr(plan.attrs, "pythondiv", False):
        outs = [_truncating_divide(i, plan.node, args, outs[0], events)]
    if outs[0].dtype.kind == "i":
        return [_integer_in_f32(i, plan.node, args, outs[0], _divide_in_f32, events)]
    return outs


def _cpu_floor_mod(
    i: int, plan: NodePlan, args: list[np.ndarray], events: list[Event]
) -> Sequence[np.ndarray]:
    outs = plan.spec.reference(plan.attrs, args)
    if outs[0].dtype.kind == "i":
        return [_integer_in_f32(i, plan.node, args, outs[0], _floor_mod_in_f32, events)]
    return outs


def _cpu_interpolate(
    i: int, plan: NodePlan, args: list[np.ndarray], events: list[Event]
) -> Sequence[np.ndarray] | None:
    """The CPU plugin's ``bicubic_pillow`` takes Pillow's filter, ``cube_coeff`` -0.5, whatever the
    attribute says (docs/openvino-behaviour.md); the reference and ovonehot use the attribute."""
    attrs = plan.attrs
    if (
        not isinstance(attrs, InterpolateAttrs)
        or attrs.mode is not Mode.BICUBIC_PILLOW
        or attrs.cube_coeff == -0.5
    ):
        return None
    outs = plan.spec.reference(dataclasses.replace(attrs, cube_coeff=-0.5), args)
    _record(events, "bicubic-pillow-coefficient", i, plan, args, outs, f"cube_coeff={attrs.cube_coeff:g}")
    return outs


def _record(
    events: list[Event],
    code: str,
    i: int,
    plan: NodePlan,
    args: Sequence[np.ndarray],
    outs: Sequence[np.ndarray],
    what: str,
) -> None:
    """An event of ``code`` at node ``i`` when the plugin's ``outs`` differ from the op's own on
    ``args`` (its reference kernel), saying ``what`` and what changed."""
    n, detail = _changed(plan.spec.reference(plan.attrs, args)[0], outs[0])
    if n:
        events.append(Event(code, i, plan.node.describe(), f"{what}: {detail}"))


def _over_kv_cache(graph: Graph) -> set[int]:
    """The ScaledDotProductAttention nodes whose key input is computed from a ReadValue (a KV
    cache, as optimum-intel's stateful exports hold it): the CPU plugin runs those fused."""
    found = set()
    for i in graph.kind_indices("ScaledDotProductAttention"):
        if len(graph.sources[i]) < 2:
            continue
        seen: set[int] = set()
        todo = [graph.sources[i][1].node]
        while todo:
            j = todo.pop()
            if j in seen or len(seen) > 64:
                continue
            seen.add(j)
            if graph.nodes[j].type.lower() == "readvalue":
                found.add(i)
                break
            todo.extend(s.node for s in graph.sources[j])
    return found


def _cpu_stateful_attention(
    i: int, plan: NodePlan, args: list[np.ndarray], events: list[Event]
) -> Sequence[np.ndarray] | None:
    """``stateful-attention-mask-lowest``: a boolean mask as the type's lowest finite value where
    it is False (0 where True), added to the scores; a change only where a row masks every key."""
    if len(args) < 4 or args[3].dtype != np.bool_ or not np.issubdtype(args[0].dtype, np.floating):
        return None
    mask = args[3]
    lowest = np.array(np.finfo(args[0].dtype).min, args[0].dtype)
    bias = np.where(mask, np.zeros((), args[0].dtype), lowest)
    outs = plan.spec.reference(plan.attrs, [*args[:3], bias, *args[4:]])
    _record(
        events,
        "stateful-attention-mask-lowest",
        i,
        plan,
        args,
        outs,
        "rows with every key masked attend evenly",
    )
    return outs


def _divide_in_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The CPU plugin's signed integer Divide: both operands as f32, the quotient rounded to f32,
    truncated (measured: 2147483647 / 7 gives 306783392)."""
    quotient: np.ndarray = np.trunc(a.astype(np.float32) / b.astype(np.float32))
    return quotient


def _floor_mod_in_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The CPU plugin's signed integer FloorMod: ``a - floor(a / b) * b`` with every step rounded
    to f32, no fused multiply-add (measured: FloorMod(16777217, 7) gives 1, (2147483647, 7) 0,
    (123456789, 7) 8)."""
    af, bf = a.astype(np.float32), b.astype(np.float32)
    remainder: np.ndarray = af - np.floor(af / bf) * bf
    return remainder


def _integer_in_f32(
    i: int,
    node: Node,
    args: Sequence[np.ndarray],
    reference: np.ndarray,
    f32: Callable[[np.ndarray, np.ndarray], np.ndarray],
    events: list[Event],
) -> np.ndarray:
    """A signed integer op the CPU plugin computes in f32 where an operand is beyond 2**24 (below,
    f32 holds every operand and the result exactly and the integer result stands)."""
    a, b = np.broadcast_arrays(*(np.asarray(x) for x in args))
    big = (np.abs(a.astype(np.float64)) > 2**24) | (np.abs(b.astype(np.float64)) > 2**24)
    if not big.any() or (b == 0).any():
        return reference
    with np.errstate(all="ignore"):
        held = f32(a, b).astype(np.float64)
        info = np.iinfo(reference.dtype)
        out = np.where(big, np.clip(held, info.min, info.max), reference).astype(reference.dtype)
    n, detail = _changed(reference, out)
    if n:
        events.append(Event("integer-arithmetic-in-f32", i, node.describe(), detail))
    return out


def _f16_clamped(
    i: int, node: Node, original: Inference, args: list[np.ndarray], events: list[Event]
) -> list[np.ndarray]:
    """The CPU plugin's f16 -> integer Convert to 16 bits or wider first clamps to the f16 range
    (measured: f16 inf -> i32 gives 65504, -> i16 gives -32; NaN stays NaN); other Converts as given."""
    source, destination = original.input_infos(i)[0].element_type, original.outputs[i][0].element_type
    if source is not ElementType.f16 or not destination.is_integral_number or destination.bitwidth < 16:
        return args
    x = np.asarray(args[0])
    clamped = np.clip(x, -65504.0, 65504.0).astype(x.dtype)
    n, detail = _changed(x, clamped)
    if n:
        events.append(Event("f16-convert-clamps", i, node.describe(), detail))
    return [clamped]


def _cpu_convert_saturates(source: TensorInfo, destination: ElementType) -> bool:
    """Whether the CPU plugin's float -> integer Convert saturates (measured on 2026.4.1, Parameter
    -> Convert -> Result and inside OneHot graphs): always from f64; from f32/f16/bf16 only with a
    dynamic shape and an 8-bit destination (inf -> u8 gives 255).  To i16/u16/i32 it goes through
    int32 like the reference (inf and NaN -> -2**31), to i64/u32/u64 the same, held as i32; f8
    sources never saturate."""
    if source.element_type is ElementType.f64:
        return True
    return (
        source.element_type in SATURATING_FLOAT_SOURCES
        and not source.shape.is_static
        and destination in (ElementType.u8, ElementType.i8)
    )


def _saturating_from_float(
    i: int, node: Node, x: np.ndarray, reference: np.ndarray, events: list[Event]
) -> np.ndarray:
    """A float -> integer Convert where the CPU plugin saturates (:func:`_cpu_convert_saturates`): to
    the target's range (i16 and wider, held as i32, to the i32 range); NaN gives 0 for 8-bit
    targets and the i32 minimum for the others (measured)."""
    info = np.iinfo(reference.dtype)
    nan = 0 if reference.dtype.itemsize == 1 else info.min
    with np.errstate(invalid="ignore"):
        clipped = np.clip(np.trunc(np.asarray(x, dtype=np.float64)), info.min, info.max)
        out = np.where(np.isnan(clipped), nan, clipped).astype(reference.dtype)
    n, detail = _changed(reference, out)
    if n:
        events.append(Event("float-convert-saturates", i, node.describe(), detail))
    return out


def _truncating_divide(
    i: int, node: Node, args: Sequence[np.ndarray], reference: np.ndarray, events: list[Event]
) -> np.ndarray:
    """The CPU plugin ignores ``m_pythondiv`` on integers: C's ``/``, truncating toward zero."""
    a, b = np.broadcast_arrays(*(np.asarray(x) for x in args))
    if a.dtype.kind == "u" or not a.size:
        return reference
    with np.errstate(all="ignore"):
        q = np.floor_divide(a, b)
        out: np.ndarray = np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q).astype(
            reference.dtype
        )
    n, detail = _changed(reference, out)
    if n:
        events.append(Event("divide-truncates", i, node.describe(), detail))
    return out


def _bf16_flushes_subnormals(
    i: int, node: Node, x: np.ndarray, nearest: np.ndarray, events: list[Event]
) -> np.ndarray:
    """At run time the CPU plugin converts f32 to bf16 rounding to nearest even, as ovonehot does,
    but takes subnormal f32 inputs as zeros of their sign (measured: 0x00018000 gives 0x0000,
    0x807FFFFF gives 0x8000, where nearest-even gives 0x0002 and 0x8080)."""
    x = np.asarray(x)
    subnormal = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
    if not subnormal.any():
        return nearest
    flushed = np.array(nearest, copy=True)
    flushed[subnormal] = np.where(np.signbit(x[subnormal]), -0.0, 0.0).astype(flushed.dtype)
    _, detail = _changed(nearest, flushed)
    if detail:
        events.append(Event("bf16-subnormal-flush", i, node.describe(), detail))
    return flushed


def _code_for(et: ElementType) -> str:
    """The deviation that computing a value of type ``et`` in the CPU's type stands for."""
    if et is ElementType.f64:
        return "f64-through-f32"
    if et is ElementType.f16:
        return "f16-as-f32"
    if et in NARROW_INTS:
        return "i16-as-i32"
    return "int32-wrap"


def _signalling_f16(value: np.ndarray) -> str:
    """How many f16 signalling NaNs ``value`` holds (the CPU quiets them), as an event detail."""
    bits = np.asarray(value).reshape(-1).view(np.uint16)
    snan = ((bits & 0x7C00) == 0x7C00) & ((bits & 0x03FF) != 0) & ((bits & 0x0200) == 0)
    n = int(snan.sum())
    if not n:
        return ""
    k = int(np.flatnonzero(snan)[0])
    return f"{n} signalling NaN(s) quieted, e.g. 0x{int(bits[k]):04X} -> 0x{int(bits[k]) | 0x0200:04X}"


def _constant_events(
    i: int, node: Node, et: ElementType, exact: np.ndarray, events: list[Event], flush: bool = True
) -> None:
    if et is ElementType.f16 and _signalling_f16(exact):
        events.append(Event("f16-as-f32", i, node.describe(), _signalling_f16(exact)))
    saturated = saturate_constant(et, exact)
    if saturated is not exact:
        n, detail = _changed(exact, saturated)
        if n:
            code = "int32-saturation" if et in WIDE_INTS else _code_for(et)
            events.append(Event(code, i, node.describe(), detail))
    if flush and saturated.dtype == np.float32:
        flushed = _flush_subnormals(saturated)
        if flushed is not saturated:
            events.append(Event("subnormal-flush", i, node.describe(), _changed(saturated, flushed)[1]))


def _attribute(
    model: Model,
    sim: Inference,
    values: Mapping[tuple[int, int], np.ndarray],
    arrays: Sequence[np.ndarray],
    params: Sequence[int],
    folded: set[int],
    events: list[Event],
) -> None:
    """Name the nodes where computing in i32/f32 first changes a value.

    The exact graph runs beside the simulation; a node whose inputs still agree with the
    exact run but whose (rewritten) output does not is where the deviation acts: an
    i64/u32/u64 result held as i32 (``int32-wrap``) or an f64 result held as f32.
    """
    exact: dict[tuple[int, int], np.ndarray] = {}

    def observe(index: NodeKey, plan: object, outs: Sequence[np.ndarray], seconds: float) -> None:
        if not isinstance(index, int):
            return  # (a node of a sub-graph body)
        for k, out in enumerate(outs):
            exact[(index, k)] = out

    try:
        evaluate(model.inference, dict(zip(params, arrays, strict=True)), RunMode(observer=observe))
    except Error:
        return  # ovonehot refuses the inputs: nothing exact to compare with
    graph = model.graph
    noted = {e.node for e in events}
    for i, plan in enumerate(sim.plans):
        kind = plan.node.type.lower()
        if i in noted or i in folded or kind in ("parameter", "const", "constant", "result"):
            continue
        srcs = graph.sources[i]
        if not all(_same_numbers(values[(s.node, s.output)], exact[(s.node, s.output)]) for s in srcs):
            continue
        for k, info in enumerate(model.inference.outputs[i]):
            if (i, k) not in exact or _same_numbers(values[(i, k)], exact[(i, k)]):
                continue
            if _cpu_type(info.element_type) is not info.element_type:
                _, detail = _changed(exact[(i, k)], values[(i, k)])
                code = _code_for(info.element_type)
                events.append(
                    Event(
                        code,
                        i,
                        plan.node.describe(),
                        f"{info.element_type} result computed as {_cpu_type(info.element_type)}: {detail}",
                    )
                )
                break


def _same_numbers(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as numbers (ints exactly, floats with NaN == NaN and the sign of zero), whatever the dtypes."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype == object or b.dtype == object:
        return bool(np.all(a == b))
    return _changed(a, b)[0] == 0


def describe_deviation(code: str) -> str:
    dev = KNOWN.get(code)
    return f"{code} ({dev.summary})" if dev else code
