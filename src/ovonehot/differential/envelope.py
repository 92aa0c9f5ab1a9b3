"""The rounding envelope: how far from the float64 truth a correct run of a model may land.

``diff`` needs to know whether two float outputs that differ only disagree on rounding.  A fixed
tolerance cannot say: a logit summed from a million products may move by 1e-5 in a correct run,
a Relu's output may not move at all.  So the model is run once more with every float tensor held
in float64 (:func:`truth`: the graph's f16/bf16/f32 element types widened to f64, its kernels the
registry's reference ``evaluate``), and an error scale ``sigma`` is carried through the graph
beside the values (:func:`propagate`), op by op:

* a copy (Reshape, Gather, Concat...) moves its inputs' sigma as it moves their values;
* an element-wise op: ``sigma_out^2 = sum_j (f(x_j + sigma_j) - f(x))^2`` (each input perturbed
  alone, the larger side), plus its own rounding: ``c_op`` ulps of the declared output type
  (``c_op``: 0.5 for the correctly rounded operations, more for transcendentals, whose
  implementations in NumPy, glibc and oneDNN are a few ulps off);
* a sum or dot product of ``n`` terms (MatMul, the convolutions, ReduceSum/Mean, AvgPool):
  propagated errors add in quadrature (``sqrt(op(a^2, sigma_b^2) + op(sigma_a^2, b^2))``), and
  its own rounding is Higham and Mary's probabilistic bound ``sqrt(n) u op(|a|, |b|)``;
* any other op (Softmax, MVN, NormalizeL2, attention, ...): its inputs perturbed with random
  signs by their sigma plus a backward error of ``sqrt(n) u |x|`` (``n`` the op's reduction
  length), the output's change measured (the op is marked *estimated*).

The envelope of an output is ``LAMBDA * sigma``: both a correct ovonehot and a correct runtime
land inside it at every element (the verdicts: :mod:`.verdicts`).  An envelope is a model of
rounding, not a proof: its parameters are stated in every report that uses it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Error
from ..evaluate import RunMode, evaluate
from ..graph import Graph, Node
from ..infer import Inference, infer
from ..model import Model
from ..ops.common.shape_util import normalize_axis
from ..ops.common.widening import widened
from ..ops.interpolate import InterpolateAttrs, Mode
from ..types import ElementType, PartialShape

LAMBDA = 6.0  # the envelope is LAMBDA standard deviations of the propagated rounding error
WIDENED = frozenset({ElementType.f16, ElementType.bf16, ElementType.f32})
# Precision (significand bits, with the implicit one) and the smallest normal exponent.
_FORMAT = {
    ElementType.f64: (53, -1022),
    ElementType.f32: (24, -126),
    ElementType.f16: (11, -14),
    ElementType.bf16: (8, -126),
    ElementType.f8e4m3: (4, -6),
    ElementType.f8e5m2: (3, -14),
}
# Whole-tensor budget of the truth run (float64 values of every node output are kept).
MAX_TRUTH_BYTES = 2 << 30

# Element-wise ops: output element k depends on input elements k (after broadcasting) only.


@dataclass(frozen=True, slots=True)
class Accuracy:
    """How far from the exact result a correct implementation of an element-wise op lands:
    ``ulps`` of the output plus ``absolute`` times ``u * max(1, |x|)`` (x its first input: the
    formulas that cancel, ``log(1 + exp(x))``, ``x * (1 + erf(x))``, lose digits at that scale,
    and the CPU plugin's Erf is a polynomial with an absolute error near zero).
    ``rounded``: correctly rounded, so exact wherever the truth is held by the type.
    ``flushes``: a result below f32's smallest normal may come out as zero (the CPU plugin's
    vectorized exp: its Sigmoid of -95 is 0, not 5.5e-42), so the reach has that much more."""

    ulps: float
    absolute: float = 0.0
    rounded: bool = False
    flushes: bool = False


# Correctly rounded (IEEE): +, -, *, sqrt, conversions, and the ops that only select.
_ROUNDED = Accuracy(0.5, rounded=True)
# Division and two-rounding formulas: the CPU plugin's division lands up to 1.34 ulps away
# (measured on 20,000 values, OpenVINO 2026.4).
_NEARLY = Accuracy(1.5)
# exp, tanh, sigmoid...: measured on 20,000 values per op (uniform over each op's useful range
# and normal), the CPU plugin lands up to 4.8 ulps from the float64 value (Exp), NumPy's kernels
# up to 1.9 ulps; results below f32's smallest normal the plugin may flush to zero.
_TRANSCENDENTAL = Accuracy(6.0, flushes=True)
# Formulas that cancel (Gelu, Mish, SoftPlus, Elu, Selu, HSwish) and the CPU plugin's Erf: it lands
# up to 6.8 u * max(1, |x|) beyond 4 ulps (where 1 + erf(x), log(1 + exp(x)), exp(x) - 1 lose
# digits; its Erf near zero), NumPy's kernels up to 1 u * max(1, |x|).
_CANCELLING = Accuracy(6.0, absolute=8.0, flushes=True)
# Any other op (Softmax, MVN...): a few ulps of its own, beside the perturbation's estimate.
_OTHER = Accuracy(6.0, flushes=True)
# f32's smallest normal: what a flushed subnormal result is off by at most.
F32_TINY = float(np.finfo(np.float32).tiny)
ELEMENTWISE: dict[str, Accuracy] = {
    **dict.fromkeys(
        [
            "add",
            "subtract",
            "multiply",
            "sqrt",
            "convert",
            "abs",
            "negative",
            "relu",
            "clamp",
            "floor",
            "ceiling",
            "round",
            "sign",
            "prelu",
            "select",
            "maximum",
            "minimum",
            "greater",
            "greaterequal",
            "less",
            "lessequal",
            "equal",
            "notequal",
            "logicaland",
            "logicalor",
            "logicalxor",
            "logicalnot",
            "convertlike",
            "isnan",
            "isinf",
            "isfinite",
        ],
        _ROUNDED,
    ),
    **dict.fromkeys(["divide", "squareddifference", "floormod", "mod"], _NEARLY),
    **dict.fromkeys(
        [
            "exp",
            "log",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "asinh",
            "acosh",
            "atanh",
            "sigmoid",
            "swish",
            "hsigmoid",
            "softsign",
            "hardsigmoid",
            "power",
        ],
        _TRANSCENDENTAL,
    ),
    **dict.fromkeys(["erf", "gelu", "mish", "softplus", "elu", "selu", "hswish"], _CANCELLING),
}
# (a, b) -> sum over products: the envelope's own rounding is a dot product's.
BILINEAR = frozenset(
    ["matmul", "convolution", "groupconvolution", "convolutionbackpropdata", "groupconvolutionbackpropdata"]
)
LINEAR = frozenset(["reducesum", "reducemean", "avgpool", "cumsum", "col2im"])
NOT_COMPUTED = frozenset({"parameter", "constant", "const", "result"})  # node types with nothing to compare
SHAPE_ONLY = frozenset({"shapeof"})  # outputs that depend on shapes alone
PASS_THROUGH = frozenset({"readvalue", "assign", "identity"})  # output 0 is input 0


class EnvelopeError(Error):
    """The truth run cannot be made (an op refuses f64, a budget): the envelope is unavailable."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """One float output's truth and envelope: ``|x - truth| <= bound`` at every element for a
    correct run ``x`` (both arrays float64, the output's shape)."""

    truth: np.ndarray
    bound: np.ndarray
    element_type: ElementType
    estimated: tuple[str, ...] = ()  # op types of the layers whose rule is the perturbation estimate

    def within(self, values: np.ndarray) -> np.ndarray:
        """Per element: ``values`` inside the envelope (NaN where the truth is NaN; inf equal)."""
        x = np.asarray(values, dtype=np.float64)
        t = self.truth
        same = (x == t) | (np.isnan(x) & np.isnan(t))
        with np.errstate(invalid="ignore"):
            inside: np.ndarray = same | (np.abs(x - t) <= self.bound)
        return inside

    def ratio(self, values: np.ndarray) -> float:
        """The largest ``|x - truth| / bound`` over elements (0 when equal; inf outside a 0 bound,
        and inf where one of them is NaN and the other is not: no rounding makes a number NaN)."""
        x = np.asarray(values, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            err = np.array(np.abs(x - self.truth), dtype=np.float64, ndmin=1)
            err[np.array((x == self.truth) | (np.isnan(x) & np.isnan(self.truth)), ndmin=1)] = 0.0
            r = np.where(err == 0, 0.0, err / np.array(self.bound, ndmin=1))
        r[np.array(np.isnan(x) != np.isnan(self.truth), ndmin=1)] = np.inf
        r = r[~np.isnan(r)]
        return float(r.max()) if r.size else 0.0

    def fits(self, *values: np.ndarray) -> bool:
        """Whether every one of ``values`` has the envelope's shape (it can judge them)."""
        return all(np.shape(v) == self.truth.shape for v in values)

    def between(self, a: np.ndarray, b: np.ndarray) -> float:
        """The largest ``|a - b| / bound`` over elements: how far two runs are apart, in bounds."""
        return Envelope(np.asarray(b, dtype=np.float64), self.bound, self.element_type).ratio(a)

    def ulps(self, values: np.ndarray) -> float:
        """The largest distance from the truth in ulps of the output's scale (its type's spacing
        at the largest finite magnitude of the truth: a value near zero has a tiny ulp of its own,
        which would make any rounding elsewhere look enormous)."""
        x = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(self.truth) & np.isfinite(x)
        if not finite.any():
            return 0.0
        scale = float(np.max(np.abs(self.truth[finite])))
        return float(np.max(np.abs(x[finite] - self.truth[finite])) / ulp(np.array(scale), self.element_type))

    def describe(self) -> str:
        """The envelope's parameters, as a report states them."""
        finite = self.bound[np.isfinite(self.bound)]
        top = f"{float(finite.max()):.3g}" if finite.size else "inf"
        how = f"rounding envelope: {LAMBDA:g} sigma of the rounding error carried from a float64 run; largest bound {top}"
        if self.estimated:
            counts: dict[str, int] = {}
            for kind in self.estimated:
                counts[kind] = counts.get(kind, 0) + 1
            kinds = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in counts.items())
            how += f"; estimated by perturbation at {len(self.estimated)} layer(s): {kinds}"
        return how


def ulp(values: np.ndarray, et: ElementType) -> np.ndarray:
    """The spacing of ``et`` at ``|values|`` (float64; subnormal spacing below the normals)."""
    p, emin = _FORMAT.get(et, _FORMAT[ElementType.f32])
    a = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        _, e = np.frexp(a)
    e = np.where(a > 0, np.maximum(e - 1, emin), emin)  # (frexp(0) says exponent 0)
    spacing: np.ndarray = np.ldexp(1.0, e - (p - 1)).astype(np.float64)
    return spacing


def unit_roundoff(et: ElementType) -> float:
    return math.ldexp(1.0, -_FORMAT.get(et, _FORMAT[ElementType.f32])[0])


# -- the truth run -------------------------------------------------------------------------------


def _widened_type(text: str) -> str | None:
    try:
        et = ElementType.from_name(text)
    except Error:
        return None
    return "f64" if et in WIDENED else None


def _widen_node(node: Node) -> Node:
    attrs = tuple(
        (k, _widened_type(v) or v) if k.endswith("type") or k == "precision" else (k, v)
        for k, v in node.attrs
    )
    payload = node.payload
    if node.type.lower() in ("constant", "const") and payload is not None and attrs != node.attrs:
        payload = np.asarray(payload).astype(np.float64)
    bodies = tuple((tag, widen(g)) for tag, g in node.bodies)
    return dataclasses.replace(node, attrs=attrs, payload=payload, bodies=bodies)


def widen(graph: Graph) -> Graph:
    """``graph`` with every f16/bf16/f32 element type (Parameters, Constants, Convert's
    destination, ops' output types, variables; in bodies too) made f64."""
    return dataclasses.replace(graph, nodes=tuple(_widen_node(n) for n in graph.nodes))


@dataclass(frozen=True, slots=True)
class Truth:
    """The float64 run: its inference and every node output's value, keyed (node, port)."""

    inference: Inference
    values: Mapping[tuple[int, int], np.ndarray]


def truth(
    model: Model, inputs: Mapping[str, np.ndarray], held: Mapping[tuple[int, int], np.ndarray] | None = None
) -> Truth:
    """Run ``model`` with every float tensor in float64 on ``inputs`` (raises EnvelopeError).

    ``held``: integer and boolean node outputs given, by (node, port), not computed: a float32
    run's decisions (a TopK's indices, a threshold's mask, a box rounded to pixels), which the
    float64 run could decide otherwise at a near tie.  The envelope then says how far a run may
    land *given those decisions* (:mod:`.choices`).  A TopK holding its indices gives the
    float64 data at them as its values."""
    bound = model.bind(inputs)
    params = [model.graph.index_of(d_node) for d_node in _parameter_ids(model)]
    with np.errstate(all="ignore"):  # (NaN payloads of bf16/f16 inputs widen to NaN)
        feeds = {
            i: np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
            for i, a in zip(params, bound, strict=True)
        }
    graph = widen(model.graph)
    shapes = {model.graph.nodes[i].name: PartialShape.of(a.shape) for i, a in feeds.items()}
    try:
        with widened():
            inference = infer(graph, shapes=shapes)
            _check_budget(inference)
            keep = [(i, k) for i, outs in enumerate(inference.outputs) for k in range(len(outs))]
            override = None if not held else _holding(held, inference)
            values = evaluate(inference, feeds, RunMode(specialized=False, override=override), keep=keep)
    except Error as exc:
        raise EnvelopeError(f"the float64 run fails: {exc}") from None
    return Truth(inference, values)


# Ops whose float outputs are whole numbers a rounding may move discretely: held, with the
# integer and boolean outputs, by the float64 run given a run's decisions.
DISCRETE = frozenset({"floor", "ceiling", "round", "sign"})
# Ops with bodies: estimated with their bodies' decisions held (``_body_runner``), up to this
# many bytes of them (every iteration's; more: moved as any other op).
BODIES = frozenset({"loop", "tensoriterator", "if"})
MAX_HELD_BYTES = 256 << 20


def decision(node: Node, value: np.ndarray) -> bool:
    """An output of ``node`` that is a decision: an integer, a boolean, a whole number of a
    ``DISCRETE`` op (what the float64 run given a run's decisions holds)."""
    return node.type.lower() in DISCRETE or np.asarray(value).dtype.kind in "biu"


def _holding(
    held: Mapping[tuple[int, int], np.ndarray], inference: Inference
) -> Callable[..., Sequence[np.ndarray] | None]:
    """The float64 run's override: a node's held outputs are the given values (see :func:`truth`)."""
    nodes = {i for i, _ in held}

    def hook(key: object, plan: Any, args: list[np.ndarray]) -> Sequence[np.ndarray] | None:
        if not isinstance(key, int) or key not in nodes:
            return None
        given = {k: held[(key, k)] for k in range(len(inference.outputs[key])) if (key, k) in held}
        return _held_outputs(plan, args, given, len(inference.outputs[key]))

    return hook


def _held_outputs(
    plan: Any, args: list[np.ndarray], given: Mapping[int, np.ndarray], ports: int
) -> list[np.ndarray]:
    """A node's outputs with those of ``given`` (port -> value) held: the rest computed (a TopK
    holding its indices gives the data at them as its values)."""
    if len(given) == ports:
        return [_wide(given[k]) for k in range(ports)]
    if plan.node.type.lower() == "topk" and 1 in given:
        idx = np.asarray(given[1])
        axis = normalize_axis(plan.attrs.axis, args[0].ndim)
        return [np.take_along_axis(args[0], idx.astype(np.int64), axis=axis), idx]
    outs = [np.asarray(o) for o in plan.spec.reference(plan.attrs, args)]
    return [_wide(given[k]) if k in given else o for k, o in enumerate(outs)]


def _wide(value: np.ndarray) -> np.ndarray:
    """A held value as the float64 run holds it: floats widened (as every float there is)."""
    value = np.asarray(value)
    return value.astype(np.float64) if value.dtype.kind == "f" and value.dtype != np.float64 else value


def _parameter_ids(model: Model) -> list[int]:
    from ..infer import parameter_infos

    return [n.id for n, _, _ in parameter_infos(model.inference)]


def _check_budget(inference: Inference) -> None:
    total = 0
    for outs in inference.outputs:
        for t in outs:
            if t.shape.is_static:
                total += 8 * math.prod(t.shape.to_shape())
    if total > MAX_TRUTH_BYTES:
        raise EnvelopeError(
            f"the float64 run would keep {total / 2**30:.1f} GiB of values "
            f"(limit {MAX_TRUTH_BYTES / 2**30:.0f} GiB)"
        )


# -- propagation ---------------------------------------------------------------------------------

Sigma = np.ndarray | None  # None: exactly zero


@dataclass
class _Walk:
    model: Model
    truth: Truth
    sigma: dict[tuple[int, int], Sigma]
    estimated: list[str]
    rng: np.random.Generator
    held: frozenset[tuple[int, int]] = frozenset()


def propagate(
    model: Model, t: Truth, held: frozenset[tuple[int, int]] = frozenset()
) -> tuple[dict[tuple[int, int], Sigma], list[str]]:
    """Each node output's error scale ``sigma`` (float64, the output's shape; None: exact), and
    the layers whose rule was the perturbation estimate; ``held``: the node outputs the truth
    run was given (:func:`truth`): exact."""
    walk = _Walk(model, t, {}, [], np.random.default_rng(0), held)
    graph = model.graph
    for i, node in enumerate(graph.nodes):
        kind = node.type.lower()
        if kind in NOT_COMPUTED:
            if kind == "result":
                walk.sigma[(i, 0)] = walk.sigma.get(_src(graph, i, 0))
            else:
                walk.sigma[(i, 0)] = None
            continue
        ports = range(len(node.outputs))
        if walk.held and all((i, k) in walk.held for k in ports):
            walk.sigma.update({(i, k): None for k in ports})
            continue
        with np.errstate(all="ignore"):  # (inf and NaN are values here: sigma says what they mean)
            for k, s in enumerate(_node_sigma(walk, i)):
                walk.sigma[(i, k)] = None if (i, k) in walk.held else s
    return walk.sigma, walk.estimated


@dataclass(frozen=True, slots=True)
class Carried:
    """The truth run and the sigma carried through it: any node output's envelope."""

    model: Model
    truth: Truth
    sigma: Mapping[tuple[int, int], Sigma]
    estimated: tuple[str, ...]

    def at(self, node: int, port: int) -> Envelope | None:
        """The envelope of one node output (float), None when unbounded somewhere or unknown."""
        et = self.model.inference.outputs[node][port].element_type
        value = self.truth.values.get((node, port))
        if value is None or not et.is_real:
            return None
        truth_value = np.asarray(value, dtype=np.float64)
        s = self.sigma.get((node, port))
        base = np.zeros_like(truth_value) if s is None else np.broadcast_to(s, truth_value.shape)
        # The value's own final rounding to its type is in sigma already (its producer's rule).
        bound = LAMBDA * base + 0.5 * ulp(truth_value, et)
        if not np.isfinite(bound[np.isfinite(truth_value)]).all():
            return None  # unbounded somewhere (an index that may change): it would pass anything
        return Envelope(truth_value, bound, et, self.estimated)


def carry(model: Model, t: Truth, held: frozenset[tuple[int, int]] = frozenset()) -> Carried:
    sigma, estimated = propagate(model, t, held)
    return Carried(model, t, sigma, tuple(estimated))


def envelopes(model: Model, t: Truth) -> tuple[dict[str, Envelope], tuple[str, ...]]:
    """Each float output's envelope, by output name, and the layers whose rule was estimated."""
    return output_envelopes(carry(model, t))


def output_envelopes(carried: Carried) -> tuple[dict[str, Envelope], tuple[str, ...]]:
    model = carried.model
    out: dict[str, Envelope] = {}
    for desc, r in zip(model.outputs, model.graph.kind_indices("Result"), strict=True):
        if not desc.element_type.is_real:
            continue
        env = carried.at(*_src(model.graph, r, 0))
        if env is not None:
            out[desc.name] = dataclasses.replace(env, element_type=desc.element_type)
    return out, carried.estimated


def _src(graph: Graph, i: int, port: int) -> tuple[int, int]:
    s = graph.sources[i][port]
    return (s.node, s.output)


def _node_sigma(walk: _Walk, i: int) -> list[Sigma]:
    model, t = walk.model, walk.truth
    plan = t.inference.plans[i]
    node = model.graph.nodes[i]
    kind = node.type.lower()
    srcs = [(s.node, s.output) for s in model.graph.sources[i]]
    ins = [np.asarray(t.values[s]) for s in srcs]
    sig = [_where_finite(walk.sigma.get(s), x) for s, x in zip(srcs, ins, strict=True)]
    out_types = [info.element_type for info in model.inference.outputs[i]]
    outs = [np.asarray(t.values[(i, k)]) for k in range(len(out_types))]
    if all(s is None for s in sig) and not any(et.is_real for et in out_types):
        return [None] * len(outs)
    if kind in SHAPE_ONLY:
        return [None] * len(outs)
    if kind in PASS_THROUGH:  # (a stateless run: ReadValue gives its init value, Assign passes it)
        s0 = sig[0] if sig else None
        return [s0 if s0 is None or o.shape == ins[0].shape else np.full(o.shape, np.inf) for o in outs]
    try:
        if kind == "multiclassnms":
            return _selected_rows(ins, sig, outs)
        if plan.spec.copies_values or _scatter_copies(plan.attrs, kind):
            return _copy_rule(plan, ins, sig, model.inference.input_infos(i))
        run = _runner(plan)
        if kind == "fakequantize" and len(ins) == 5 and len(outs) == 1:
            found = _elementwise(run, ins, sig, outs, out_types, _ROUNDED)
            own = _fake_quantize_rounding(plan.attrs.levels, ins, outs[0], out_types[0])
            return [_quadrature([np.asarray(found[0]), own], outs[0].shape)]
        if kind in ELEMENTWISE:
            return _elementwise(run, ins, sig, outs, out_types, ELEMENTWISE[kind])
        # (magnitudes only: the fast kernels, which may sum in f32, are precise enough)
        if kind in BILINEAR and len(ins) >= 2:
            return _bilinear(_runner(plan, t.inference, i), ins, sig, outs, out_types)
        if kind in LINEAR:
            return _linear(_runner(plan, t.inference, i), ins, sig, outs, out_types)
        if not plan.spec.deterministic:
            return [
                np.full(o.shape, np.inf) if et.is_real else None
                for o, et in zip(outs, out_types, strict=True)
            ]
        walk.estimated.append(node.type)
        return _estimated(walk, i, run, ins, sig, outs, out_types)
    except (Error, ValueError, TypeError, IndexError, FloatingPointError):
        return [np.full(o.shape, np.inf) for o in outs]


def _estimated(
    walk: _Walk,
    i: int,
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
) -> list[Sigma]:
    """Any other op: the perturbation estimate (a sub-graph op with its bodies' decisions held),
    and what it misses of the op added: an attention's sums over its keys, an Interpolate's
    coordinates."""
    plan = walk.truth.inference.plans[i]
    kind = plan.node.type.lower()
    if kind in BODIES:
        run = _body_runner(plan, walk.truth.inference, i, ins) or run
    found = _perturbed(walk.rng, run, ins, sig, outs, out_types, walk.model.inference.input_infos(i))
    if kind == "scaleddotproductattention":
        return _attention(run, ins, sig, outs, out_types, found)
    return _with_coordinates(plan, ins, outs, out_types, found) if kind == "interpolate" else found


def _with_coordinates(
    plan: Any, ins: list[np.ndarray], outs: list[np.ndarray], out_types: list[ElementType], found: list[Sigma]
) -> list[Sigma]:
    """An interpolating Interpolate's sigma with its source coordinates' rounding added: each
    output moves with its coordinate ``c`` (``|c| <`` the axis's size), which OpenVINO's kernels
    compute in f32 in their own order (the CPU plugin's pytorch_half_pixel differs from the
    reference's by an ulp of ``c``: 1.5 ulps of a 160 -> 320 resize's output); ``3 u n`` per
    resized axis of ``n`` values times the data's step along it next to the output's source, in
    quadrature (nearest mode picks, not moves)."""
    x, y = (ins[0], outs[0]) if ins and outs else (None, None)
    sigma = found[0] if found else None
    attrs = plan.attrs
    if (
        x is None
        or y is None
        or sigma is None
        or not isinstance(attrs, InterpolateAttrs)
        or attrs.mode is Mode.NEAREST
        or x.ndim != y.ndim
        or x.dtype.kind != "f"
    ):
        return found
    u = unit_roundoff(out_types[0]) if out_types[0].is_real else unit_roundoff(ElementType.f32)
    resized = [ax for ax in range(x.ndim) if x.shape[ax] != y.shape[ax]]
    total = np.zeros(y.shape)
    for ax in resized:
        if x.shape[ax] < 2:
            continue
        steps = np.abs(np.diff(x.astype(np.float64), axis=ax))
        steps = np.maximum(np.pad(steps, [(1, 0) if a == ax else (0, 0) for a in range(x.ndim)]),
                           np.pad(steps, [(0, 1) if a == ax else (0, 0) for a in range(x.ndim)]))  # fmt: skip
        for a in resized:  # (the steps near each output's source: nearest source index, per axis)
            n, m = x.shape[a], y.shape[a]
            steps = np.take(steps, np.minimum((np.arange(m) + 0.5) * n // m, n - 1).astype(np.intp), axis=a)
        total += (3.0 * u * x.shape[ax] * np.where(np.isfinite(steps), steps, 0.0)) ** 2
    return [np.sqrt(np.asarray(sigma) ** 2 + total), *found[1:]] if resized else found


# An attention's probabilities are computed (``_attention``) when they hold at most this many values.
ATTENTION_WEIGHTS = 1 << 24


def _attention(
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
    found: list[Sigma],
) -> list[Sigma]:
    """ScaledDotProductAttention's sigma: the perturbation estimate, and in quadrature what it
    misses of the output's being a weighted sum ``sum_j p_j v_j`` over the ``S`` keys (``p``
    the probabilities, the attention of an identity for the values):

    * the values' errors, exactly: ``sqrt(p^2 . sigma_v^2)``.  Random-sign draws cancel where a
      few keys carry nearly equal values (LeViT's 4-key attentions: 14-16% of their outputs got
      under a tenth of the error their values carry, and the CPU plugin landed 106 x outside);
    * the sums' own rounding, Higham and Mary's ``sqrt(S) u p . |v|``: a mean of values of both
      signs can be far below them."""
    if (
        len(ins) < 3
        or not outs
        or found[0] is None
        or ins[2].dtype.kind != "f"
        or min(ins[1].ndim, ins[2].ndim) < 2
    ):
        return found
    q, k, v = ins[:3]
    keys = k.shape[-2]
    u = unit_roundoff(out_types[0]) if out_types[0].is_real else unit_roundoff(ElementType.f32)
    parts = [np.asarray(found[0])]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if sig[2] is not None and math.prod(batch) * q.shape[-2] * keys <= ATTENTION_WEIGHTS:
        eye = np.broadcast_to(np.eye(keys), (*v.shape[:-2], keys, keys))
        p = np.asarray(run([q, k, eye, *ins[3:]])[0])  # (..., L, S)
        from_values = np.sqrt(np.abs(np.matmul(p * p, np.broadcast_to(sig[2], v.shape) ** 2)))
        if from_values.shape == outs[0].shape:
            parts.append(np.where(np.isfinite(from_values), from_values, 0.0))  # (masked rows: NaN)
    magnitude = np.abs(np.asarray(run([q, k, np.abs(v), *ins[3:]])[0]))
    parts.append(math.sqrt(max(keys, 1)) * u * np.where(np.isfinite(magnitude), magnitude, 0.0))
    return [_quadrature(parts, outs[0].shape), *found[1:]]


def _where_finite(s: Sigma, x: np.ndarray) -> Sigma:
    """An input's sigma, 0 where its value is NaN or infinite (an error scale means nothing there,
    and the op's output is not finite there either: a fully masked attention row's NaN)."""
    if s is None or x.dtype.kind != "f" or np.isfinite(x).all():
        return s
    return np.where(np.isfinite(x), np.broadcast_to(s, x.shape), 0.0)


def _body_runner(
    plan: Any, inference: Inference, i: int, ins: list[np.ndarray]
) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]] | None:
    """A sub-graph op (Loop, TensorIterator, If) as a function of its inputs with its bodies'
    decisions (integer, boolean and whole-number outputs of the nodes inside, per iteration)
    held at the values of a run on ``ins``: moving its float inputs by their errors then moves
    what it computes from them, not which keypoint a heatmap's TopK picks or how many pixels a
    box is wide (Keypoint R-CNN's and Mask R-CNN's post-processing), which would leave it
    unbounded.  None when the op cannot be run so."""
    spec = plan.spec
    if spec.specialize is None:
        return None
    infos, out_infos = inference.input_infos(i), inference.outputs[i]
    recorded: dict[tuple[Any, int], np.ndarray] = {}
    size = 0

    def observe(key: Any, inner: Any, outs: Sequence[np.ndarray], seconds: float) -> None:
        nonlocal size
        for k, o in enumerate(outs):
            if decision(inner.node, o):
                size += np.asarray(o).nbytes
                if size > MAX_HELD_BYTES:
                    raise EnvelopeError("the body's decisions are too many to hold")
                recorded[(key, k)] = np.array(o, copy=True)

    def hold(key: Any, inner: Any, args: list[np.ndarray]) -> Sequence[np.ndarray] | None:
        ports = len(inner.node.outputs)
        given = {k: recorded[(key, k)] for k in range(ports) if (key, k) in recorded}
        return _held_outputs(inner, args, given, ports) if given else None

    try:
        record = spec.specialize(
            plan.attrs, infos, out_infos, RunMode(specialized=False, observer=observe, scope=(i,))
        )
        held = spec.specialize(
            plan.attrs, infos, out_infos, RunMode(specialized=False, override=hold, scope=(i,))
        )
        if record is None or held is None:
            return None
        with np.errstate(all="ignore"):
            record(list(ins))
    except (Error, ValueError, TypeError, IndexError):  # (too many decisions: an EnvelopeError)
        return None

    def run(args: Sequence[np.ndarray]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            return [np.asarray(o) for o in held(list(args))]

    return run


def _runner(
    plan: Any, inference: Inference | None = None, i: int = -1
) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]:
    """The op as a function of its inputs: with ``inference``, its fast kernel where it has one
    (for the magnitudes of sums, which need neither an order nor float64: ``specialize`` for this
    node's infos, which the arguments keep), else ``evaluate``; a fast kernel that raises falls
    back to it.  Perturbations (a change of f(x) by f(x + sigma) - f(x)) use ``evaluate``."""
    reference = plan.spec.reference
    fast = None
    if inference is not None and plan.spec.specialize is not None and not plan.spec.uses_run:
        infos = inference.input_infos(i)
        plain = [dataclasses.replace(info, value=None, lower=None, upper=None) for info in infos]
        try:
            fast = plan.spec.specialize(plan.attrs, plain, inference.outputs[i], RunMode(exact=False))
        except (Error, ValueError, TypeError):
            fast = None

    def run(args: Sequence[np.ndarray]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            if fast is not None:
                try:
                    return [np.asarray(o) for o in fast(list(args))]
                except Error:
                    raise
                except Exception:  # noqa: BLE001, S110 - a fast kernel may refuse what evaluate words
                    pass
            return [np.asarray(o) for o in reference(plan.attrs, list(args))]

    return run


# FakeQuantize's own rounding, in units of the output range's ulp: a level dequantized as
# ``q / (levels - 1) * (oh - ol) + ol`` (the reference) or ``q * scale + shift`` with a scale
# computed first (the CPU plugin) lands a few roundings of max(|ol|, |oh|) away, however small
# the value: the level nearest zero comes out as 0 in one and 6.4e-10 in the other on a range of
# 0.12 (1.5 ulps of the range; measured, OpenVINO 2026.4).
FQ_RANGE_ULPS = 4.0


def _fake_quantize_rounding(
    levels: int, ins: list[np.ndarray], out: np.ndarray, et: ElementType
) -> np.ndarray:
    """FakeQuantize's own error (a standard deviation): ``FQ_RANGE_ULPS`` ulps of its output
    range's magnitude; and a whole level step where the input sits within a few roundings of a
    level boundary (half-way between two levels), where an implementation that scales the input
    in another order may round to the neighbouring level."""
    if not et.is_real or levels < 2:
        return np.zeros(out.shape)
    x, il, ih, ol, oh = (np.broadcast_to(np.asarray(a, dtype=np.float64), out.shape) for a in ins[:5])
    u = unit_roundoff(et)
    reach = FQ_RANGE_ULPS * ulp(np.maximum(np.abs(ol), np.abs(oh)), et)
    with np.errstate(all="ignore"):
        t = (x - il) / (ih - il) * (levels - 1)  # (the level, before rounding)
        inside = (x > np.minimum(il, ih)) & (x <= np.maximum(il, ih)) & np.isfinite(t)
        near = np.abs(t - np.floor(t) - 0.5) <= 4.0 * u * np.maximum(np.abs(t), levels - 1)
        step = np.abs(oh - ol) / (levels - 1)
    reach = np.where(inside & near, np.maximum(reach, step), reach)
    own: np.ndarray = reach / math.sqrt(3.0)
    return own


def _own_rounding(out: np.ndarray, et: ElementType, acc: Accuracy, x: np.ndarray | None = None) -> np.ndarray:
    """An op's own error as a standard deviation (uniform within ``acc``'s reach).

    A correctly rounded op on exact inputs gives a value the type holds exactly where the truth
    is one: no rounding there (a Convert from f16 to f32, a Relu)."""
    if not et.is_real:
        return np.zeros(out.shape)
    reach = acc.ulps * ulp(out, et)
    if acc.absolute and x is not None and x.dtype.kind == "f":
        try:
            scale = np.maximum(1.0, np.abs(np.broadcast_to(x, out.shape)))
        except ValueError:  # (an op that broadcasts otherwise: PRelu's slope) its largest
            scale = np.full(out.shape, max(1.0, float(np.max(np.abs(x), initial=0.0))))
        reach = reach + acc.absolute * unit_roundoff(et) * scale
    if acc.flushes:
        reach = reach + F32_TINY
    own = reach / math.sqrt(3.0)
    dtype = et.numpy_dtype
    if acc.rounded and dtype is not None and out.dtype.kind == "f":
        with np.errstate(all="ignore"):
            held = out.astype(dtype).astype(np.float64) == out
        own = np.where(held, 0.0, own)
    return own


def _perturb(x: np.ndarray, s: np.ndarray, sign: float) -> np.ndarray:
    if x.dtype == np.bool_:
        return np.where(np.broadcast_to(s, x.shape) > 0, ~x, x)
    if x.dtype.kind in "iu":
        step = np.ceil(np.broadcast_to(s, x.shape))
        with np.errstate(all="ignore"):
            moved: np.ndarray = (x + sign * step).astype(x.dtype)
        return moved
    return x + sign * s


def _quadrature(parts: Sequence[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    total = np.zeros(shape)
    for p in parts:
        total = total + np.broadcast_to(p, shape) ** 2
    return np.sqrt(total)


def _elementwise(
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
    acc: Accuracy,
) -> list[Sigma]:
    parts: list[list[np.ndarray]] = [[] for _ in outs]
    for j, s in enumerate(sig):
        if s is None or not np.any(s):
            continue
        if not np.all(np.isfinite(s)):
            return [np.full(o.shape, np.inf) for o in outs]
        moved = (_perturb(ins[j], s, sign) for sign in (1.0, -1.0))
        worst = _largest_change(run, ins, j, moved, outs, one_sided=True)
        for k in range(len(outs)):
            parts[k].append(np.full(outs[k].shape, np.inf) if worst is None else worst[k])
    result: list[Sigma] = []
    for k, (o, et) in enumerate(zip(outs, out_types, strict=True)):
        own = _own_rounding(o, et, acc, ins[0] if ins else None)
        result.append(_quadrature([*parts[k], own], o.shape))
    return result


def _largest_change(
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    j: int,
    moved_inputs: Iterable[np.ndarray],
    outs: list[np.ndarray],
    one_sided: bool = False,
) -> list[np.ndarray] | None:
    """Per output, the largest change (NaN: infinite) when input ``j`` is each of ``moved_inputs``;
    None when a moved input changes an output's shape.  ``one_sided`` (an element-wise op moved
    both ways): where one way leaves the op's domain (a number becomes NaN: the square root of
    an area of 0 moved below 0) the other way's change counts; infinite only when both leave it."""
    worst = [np.zeros(o.shape) for o in outs]
    left: list[np.ndarray | None] = [None] * len(outs)  # (one_sided: left the domain every way so far)
    for moved_input in moved_inputs:
        args = list(ins)
        args[j] = moved_input
        for k, moved in enumerate(run(args)):
            if moved.shape != outs[k].shape:
                return None
            m, o = moved.astype(np.float64), outs[k].astype(np.float64)
            d = np.abs(m - o)
            # (NaN: an infinite change, unless the value stays NaN: a fully masked attention row)
            out_of_domain = np.isnan(m) & ~np.isnan(o)
            d = np.where(np.isnan(d), np.where(np.isnan(m) & np.isnan(o), 0.0, np.inf), d)
            if one_sided:
                d = np.where(out_of_domain, 0.0, d)
                before = left[k]
                left[k] = out_of_domain if before is None else before & out_of_domain
            worst[k] = np.fmax(worst[k], d)
    for k, gone in enumerate(left):
        if gone is not None and gone.any():
            worst[k] = np.where(gone, np.inf, worst[k])
    return worst


def _bilinear(
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
) -> list[Sigma]:
    a, b = ins[0], ins[1]
    rest = ins[2:]
    out, et = outs[0], out_types[0]
    u = unit_roundoff(et)
    ones = run([np.ones_like(a), np.ones_like(b), *rest])[0]  # the number of terms per element
    magnitude = run([np.abs(a), np.abs(b), *rest])[0]
    parts = [np.sqrt(np.maximum(ones, 1.0)) * u * magnitude, _own_rounding(out, et, _ROUNDED)]
    sa, sb = sig[0], sig[1]
    if sa is not None:
        parts.append(np.sqrt(np.abs(run([np.broadcast_to(sa, a.shape) ** 2, b * b, *rest])[0])))
    if sb is not None:
        parts.append(np.sqrt(np.abs(run([a * a, np.broadcast_to(sb, b.shape) ** 2, *rest])[0])))
    return [_quadrature(parts, out.shape)]


def _linear(
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
) -> list[Sigma]:
    x, rest = ins[0], ins[1:]
    out, et = outs[0], out_types[0]
    n = max(1.0, x.size / max(out.size, 1))
    sum_of_ones = run([np.ones_like(x), *rest])[0]  # the mean ops scale by 1/n: n per element
    scale = np.abs(sum_of_ones)  # sum: its terms per element (Col2Im's overlapping patches), mean: 1
    sums = bool(np.any(scale > 1.5))
    terms = np.maximum(scale, 1.0) if sums else n
    magnitude = run([np.abs(x), *rest])[0]
    parts = [np.sqrt(terms) * unit_roundoff(et) * np.abs(magnitude), _own_rounding(out, et, _ROUNDED)]
    if sig[0] is not None:
        sx = np.broadcast_to(sig[0], x.shape)
        # Independent errors: the variance of a weighted sum, weights 1 (a sum: the op of the
        # variances) or 1/n (a mean: the op of the variances over n; n at most the size ratio,
        # overlapping pooling windows are longer, so this errs large).
        var = np.abs(run([sx**2, *rest])[0])
        parts.append(np.sqrt(var if sums else var / n))
    return [_quadrature(parts, out.shape), *[None] * (len(outs) - 1)]


def _scatter_copies(attrs: Any, kind: str) -> bool:
    """A ScatterElementsUpdate-12 or ScatterNDUpdate-15 without a reduction copies, as version 3."""
    reduction = getattr(attrs, "reduction", None)
    return kind.startswith("scatter") and reduction is not None and reduction.value == "none"


def _copy_rule(plan: Any, ins: list[np.ndarray], sig: list[Sigma], infos: Sequence[Any]) -> list[Sigma]:
    """A copy moves its data inputs' sigma as it moves their values (float data inputs only)."""
    run = _runner(plan)
    outs = run(ins)
    if all(s is None for s in sig):
        return [None] * len(outs)
    args = []
    for x, s, info in zip(ins, sig, infos, strict=True):
        if info.element_type.is_real:
            args.append(np.zeros(x.shape) if s is None else np.broadcast_to(s, x.shape).astype(np.float64))
        elif s is not None and np.any(s):  # an index or a shape that may change: no bound
            return [np.full(o.shape, np.inf) for o in outs]
        else:
            args.append(x)
    if plan.node.type.lower() in _CONVERTS:  # (output k converts input k: an integer stays exact)
        return [
            _as_sigma(s, o.shape) if infos[k].element_type.is_real and o.dtype.kind == "f" else None
            for k, (s, o) in enumerate(zip(sig, outs, strict=False))
        ]
    moved = run(args)
    return [m.astype(np.float64) if m.dtype.kind == "f" else None for m in moved]


# Copies whose output k is input k converted: run on sigma, an integer input's values would come
# out as the float output's "sigma" (a TopK's indices converted to f32 had a sigma of 7).
_CONVERTS = frozenset({"convert", "convertlike", "convertpromotetypes"})


def _as_sigma(s: Sigma, shape: tuple[int, ...]) -> Sigma:
    return None if s is None else np.broadcast_to(np.asarray(s, dtype=np.float64), shape)


def _selected_rows(ins: list[np.ndarray], sig: list[Sigma], outs: list[np.ndarray]) -> list[Sigma]:
    """MulticlassNms copies the selected boxes' scores and coordinates into its rows (which ones
    the values decide, so the copy rule cannot run the op on sigma): each row carries the sigma
    of the score and box it copied, found by the truth run's selected indices."""
    boxes, scores, rows = ins[0], ins[1], outs[0]
    s_boxes = np.zeros(boxes.shape) if sig[0] is None else np.broadcast_to(sig[0], boxes.shape)
    s_scores = np.zeros(scores.shape) if sig[1] is None else np.broadcast_to(sig[1], scores.shape)
    flat = outs[1].reshape(-1).astype(np.int64)
    klass = rows[:, 0].astype(np.int64)
    out = np.zeros(rows.shape)
    if scores.ndim == 3:  # boxes [B, N, 4], scores [B, C, N]: index = image * N + box
        image, box = np.divmod(flat, boxes.shape[1])
        out[:, 1], out[:, 2:] = s_scores[image, klass, box], s_boxes[image, box]
    else:  # boxes [C, N, 4], scores [C, N] (with roisnum): index = box * C + class
        box = flat // boxes.shape[0]
        out[:, 1], out[:, 2:] = s_scores[klass, box], s_boxes[klass, box]
    return [out, None, None]


def _perturbed(
    rng: np.random.Generator,
    run: Callable[[Sequence[np.ndarray]], list[np.ndarray]],
    ins: list[np.ndarray],
    sig: list[Sigma],
    outs: list[np.ndarray],
    out_types: list[ElementType],
    infos: Sequence[Any],
) -> list[Sigma]:
    """Any other op: its inputs moved with random signs by their sigma plus a backward error of
    ``sqrt(n) u |x|``, the largest change of two draws per input, in quadrature."""
    data = next((x for x in ins if x.dtype.kind == "f"), None)
    size_out = max((o.size for o in outs), default=1)
    # The op's reduction length: its size ratio, or the last axis (Softmax, MVN, normalizations
    # over the last axis keep the size).
    n = (
        1.0
        if data is None
        else max(1.0, data.size / max(size_out, 1), float(data.shape[-1] if data.ndim else 1))
    )
    u = max((unit_roundoff(et) for et in out_types if et.is_real), default=unit_roundoff(ElementType.f32))
    parts: list[list[np.ndarray]] = [[] for _ in outs]
    for j, (x, s, info) in enumerate(zip(ins, sig, infos, strict=True)):
        if x.dtype.kind != "f" or not info.element_type.is_real:
            if s is not None and np.any(s):
                return [np.full(o.shape, np.inf) for o in outs]
            continue
        radius = math.sqrt(n) * u * np.abs(x)
        if s is not None:
            radius = np.sqrt(radius**2 + np.broadcast_to(s, x.shape) ** 2)
        if not np.any(radius):
            continue
        draws = (x + rng.choice(np.array([-1.0, 1.0]), size=x.shape) * radius for _ in range(2))
        worst = _largest_change(run, ins, j, draws, outs)
        if worst is None:
            return [np.full(o.shape, np.inf) for o in outs]
        for k in range(len(outs)):
            parts[k].append(worst[k])
    return [
        _quadrature([*parts[k], _own_rounding(o, et, _OTHER)], o.shape) if et.is_real or parts[k] else None
        for k, (o, et) in enumerate(zip(outs, out_types, strict=True))
    ]


@dataclass(frozen=True, slots=True)
class Figures:
    """Where two runs of one output land against its envelope (a verdict's evidence)."""

    description: str
    ours_ratio: float  # largest |ours - truth| / bound
    theirs_ratio: float
    between_ratio: float  # largest |ours - theirs| / bound
    ours_ulps: float
    theirs_ulps: float
    worst: tuple[int, ...]  # the element furthest outside (or nearest the edge)
    truth_at_worst: float
    bound_at_worst: float

    def as_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "lambda": LAMBDA,
            "ours_over_bound": self.ours_ratio,
            "theirs_over_bound": self.theirs_ratio,
            "difference_over_bound": self.between_ratio,
            "ours_ulps": self.ours_ulps,
            "theirs_ulps": self.theirs_ulps,
            "worst_position": list(self.worst),
            "truth_at_worst": self.truth_at_worst,
            "bound_at_worst": self.bound_at_worst,
        }

    def lines(self, oracle: str) -> list[str]:
        return [
            f"    {self.description}",
            (
                f"      ovonehot at {self.ours_ratio:.3g} x the bound ({self.ours_ulps:.3g} ulps of the output's "
                f"scale) of the float64 truth; {oracle} at {self.theirs_ratio:.3g} x ({self.theirs_ulps:.3g} ulps); "
                f"their difference at {self.between_ratio:.3g} x"
            ),
            f"      worst at {list(self.worst)}: truth {self.truth_at_worst:.9g}, bound {self.bound_at_worst:.3g}",
        ]


def figures(env: Envelope, ours: np.ndarray, theirs: np.ndarray) -> Figures:
    """Both runs against the envelope, and their difference against it."""
    o = np.asarray(ours, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        worst_of = np.abs(o - env.truth) / env.bound
    worst_of = np.where(np.isnan(worst_of), -1.0, worst_of)
    flat = int(np.argmax(worst_of)) if worst_of.size else 0
    pos = tuple(int(p) for p in np.unravel_index(flat, env.truth.shape)) if env.truth.size else ()
    return Figures(
        env.describe(),
        env.ratio(ours),
        env.ratio(theirs),
        env.between(ours, theirs),
        env.ulps(ours),
        env.ulps(theirs),
        pos,
        float(env.truth[pos]) if env.truth.size else 0.0,
        float(env.bound[pos]) if env.truth.size else 0.0,
    )
