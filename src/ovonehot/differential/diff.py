"""Differential testing: ovonehot's evaluator against oracles on the same model and inputs.

``diff_model`` runs ovonehot and each requested oracle (:mod:`ovonehot.oracle.common`:
OpenVINO's core reference, an OpenVINO plugin, onnxruntime, saved expected
outputs), compares every output (shape, element type, values; see
:mod:`ovonehot.differential.compare`) and gives each a verdict:

* ``PASS``: equal (or both refuse the inputs, at the same layer);
* ``plugin deviation``: the oracle differs exactly as one of its known, named
  deviations predicts (:mod:`ovonehot.differential.deviations` recomputes its output under the
  deviation, and the observed output must equal that prediction);
* ``precision difference``: the plugin compiled with a non-deterministic
  configuration (``--cpu-defaults``: bf16 inference precision on CPUs with AVX-512
  BF16) differs, and compiled deterministically it equals ovonehot; the size of the
  difference is reported;
* ``ours wrong``: the OpenVINO reference (consulted even when only the CPU was
  asked for) says something else, and nothing known explains the difference;
* ``not compared``: the oracle could not compute this output (OpenVINO's reference
  has no evaluate for an op it depends on, a plugin refuses the model, ...): the
  reason names the op that refused.  Never a PASS: exit 1 unless the caller allows
  a partial comparison (``allow_partial``), and even then only for refusals with a
  known cause;
* ``unexplained``: anything else.

For a difference that is not a known deviation, the report shows the first
differing positions, the OneHot index value that produced them, the largest
error and the smallest tolerance that would pass, and the first node (in
topological order) whose output already differs, found by comparing
intermediate tensors (inner outputs made visible to OpenVINO).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import scratch as _scratch
from ..errors import (
    Error,
    NegativeDepthError,
    OpenVINOError,
    OpenVINOResourceError,
    OracleRefusal,
    ParameterError,
    ResourceLimitError,
    UsageError,
)
from ..infer import NodePlan
from ..ir.writer import write_ir
from ..model import Model
from ..ops.common.spec import NodeKey
from ..ops.one_hot import OneHotAttrs
from ..oracle import openvino_runtime
from ..oracle.common import CPU_CONFIG, OracleOutputs, PluginSettings, Refusal
from ..oracle.common import ORACLES as ALL_ORACLES
from ..oracle.onnx_frontend import is_onnx_path
from ..oracle.process import IsolatedOracle
from ..oracle.process import shared as shared_oracle
from .compare import Comparison, Tolerance, compare, element_type_name, error_size
from .deviations import KNOWN, Event, Simulation, explain_refusal, refusing_node, simulate

# OpenVINO's two oracles (what ``ovonehot fuzz`` runs); diff takes any of ALL_ORACLES.
ORACLES = ("reference", "cpu")

# Refusal causes that are a known limitation of the oracle, not a failure nobody understands.
KNOWN_CAUSES = frozenset({"no-evaluate", "no-kernel", "not-run", "unavailable"})
# The deterministic CPU run a non-deterministic plugin configuration is checked against.
DETERMINISTIC_CPU = "cpu (deterministic)"
# Computed (non-copy) float outputs default to this tolerance; copies are exact.
DEFAULT_ATOL = 1e-6
DEFAULT_RTOL = 1e-5


class Verdict(enum.Enum):
    PASS = "PASS"
    DEVIATION = "plugin deviation"
    PRECISION = "precision difference"
    OURS_WRONG = "ours wrong"
    UNEXPLAINED = "unexplained"
    NOT_COMPARED = "not compared"

    @property
    def ok(self) -> bool:
        """A comparison that passed, or differs only as known and named (NOT_COMPARED is not ok)."""
        return self in (Verdict.PASS, Verdict.DEVIATION, Verdict.PRECISION)


@dataclass(frozen=True, slots=True)
class Tolerances:
    """Global and per-output (keyed by output name) absolute and relative tolerances."""

    atol: float | None = None
    rtol: float | None = None
    per_output_atol: Mapping[str, float] = field(default_factory=dict)
    per_output_rtol: Mapping[str, float] = field(default_factory=dict)

    def for_output(self, name: str, copy: bool) -> Tolerance:
        atol = self.per_output_atol.get(name, self.atol)
        rtol = self.per_output_rtol.get(name, self.rtol)
        if atol is None and rtol is None:
            return Tolerance.exact() if copy else Tolerance(DEFAULT_ATOL, DEFAULT_RTOL)
        return Tolerance(atol or 0.0, rtol or 0.0)

    def as_json(self) -> dict[str, Any]:
        return {
            "atol": self.atol,
            "rtol": self.rtol,
            "per_output_atol": dict(self.per_output_atol),
            "per_output_rtol": dict(self.per_output_rtol),
        }

    def check_names(self, outputs: Sequence[str]) -> None:
        """A per-output tolerance for an output the model does not have is a usage error (exit 2)."""
        for parameter, per in (
            ("per_output_atol", self.per_output_atol),
            ("per_output_rtol", self.per_output_rtol),
        ):
            for name in per:
                if name not in outputs:
                    known = ", ".join(repr(n) for n in outputs) or "none"
                    raise ParameterError(
                        parameter,
                        f"the model has no output {name!r}; its outputs are: {known}",
                        f"{name}:{per[name]:g}",
                    )


@dataclass(frozen=True, slots=True)
class OutputVerdict:
    """The verdict for one output against one oracle, with what explains it."""

    name: str
    oracle: str
    verdict: Verdict
    tolerance: Tolerance
    comparison: Comparison | None = None
    events: tuple[Event, ...] = ()
    reason: str = ""
    origin: tuple[str, ...] = ()  # OneHot index values behind the first differing positions
    first_node: str = ""
    refusal: Refusal | None = None  # why the oracle did not compute this output (NOT_COMPARED)
    size: tuple[float, float] | None = None  # max abs and rel error over the output (PRECISION)
    try_oracles: tuple[str, ...] = ()  # NOT_COMPARED: oracles that may compute it instead

    @property
    def known(self) -> bool:
        """For NOT_COMPARED: the oracle's refusal has a known cause (a limitation, a named deviation)."""
        return self.refusal is not None and (self.refusal.cause in KNOWN_CAUSES or bool(self.events))

    def as_json(self) -> dict[str, Any]:
        c = self.comparison
        r = self.refusal
        return {
            "output": self.name,
            "oracle": self.oracle,
            "verdict": self.verdict.value,
            "tolerance": str(self.tolerance),
            "reason": self.reason,
            "try_oracles": list(self.try_oracles),
            "refusal": None
            if r is None
            else {
                "cause": r.cause,
                "layer": r.layer,
                "op": r.op,
                "code": r.code,
                "message": r.message,
                "known": self.known,
            },
            "error_size": None if self.size is None else {"max_abs": self.size[0], "max_rel": self.size[1]},
            "deviations": [
                {
                    "code": e.code,
                    "where": e.where,
                    "detail": e.detail,
                    "summary": KNOWN[e.code].summary if e.code in KNOWN else "",
                }
                for e in self.events
            ],
            "comparison": None
            if c is None
            else {
                "kind": c.kind,
                "summary": c.summary(),
                "count": c.count,
                "total": c.total,
                "positions": [list(p) for p in c.positions],
                "ours": list(c.ours),
                "theirs": list(c.theirs),
                "max_abs_error": c.max_abs_error,
                "passing_atol": c.passing_atol,
                "passing_rtol": c.passing_rtol,
                "notes": list(c.notes),
            },
            "origin": list(self.origin),
            "first_differing_node": self.first_node,
        }


@dataclass
class OracleRun:
    """One oracle's outputs (``missing``: those it could not compute, and why), or why it refused."""

    oracle: str
    outputs: dict[str, np.ndarray] | None
    error: str | None = None
    refusal: Refusal | None = None
    missing: dict[str, Refusal] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LayerRow:
    """One node output compared against one oracle (``--all-layers``)."""

    oracle: str
    layer: str  # node.describe()
    port: int
    type: str
    max_abs: float | None
    max_rel: float | None
    tolerance: str
    verdict: str  # "PASS", "differs", "not compared"
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "oracle": self.oracle,
            "layer": self.layer,
            "port": self.port,
            "type": self.type,
            "max_abs_error": self.max_abs,
            "max_rel_error": self.max_rel,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "note": self.note,
        }


@dataclass
class DiffReport:
    model: str
    seed: int | None
    generated: bool
    inputs: dict[str, np.ndarray]
    ours: dict[str, np.ndarray] | None
    ours_error: str | None
    runs: dict[str, OracleRun]
    verdicts: list[OutputVerdict]
    versions: dict[str, str]
    strict: bool = False
    allow_partial: bool = False
    oracle_notes: dict[str, str] = field(default_factory=dict)  # oracle -> how it ran (plugin config, file)
    layers: list[LayerRow] | None = None  # --all-layers

    @property
    def differences(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict not in (Verdict.PASS, Verdict.NOT_COMPARED)]

    @property
    def not_compared(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict is Verdict.NOT_COMPARED]

    @property
    def compared(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict is not Verdict.NOT_COMPARED]

    @property
    def failures(self) -> list[OutputVerdict]:
        """What no known cause explains: ours wrong, unexplained, and outputs not compared for a reason
        nobody has explained (an oracle crashing or failing where ovonehot ran)."""
        return [
            v
            for v in self.verdicts
            if v.verdict in (Verdict.OURS_WRONG, Verdict.UNEXPLAINED)
            or (v.verdict is Verdict.NOT_COMPARED and not v.known)
        ]

    @property
    def exit_code(self) -> int:
        """1 for a difference (``strict``: any, known deviations too), for an output not compared
        (``allow_partial``: only when nobody knows why, or when nothing at all was compared)."""
        if self.strict and self.differences:
            return 1
        if any(v.verdict in (Verdict.OURS_WRONG, Verdict.UNEXPLAINED) for v in self.verdicts):
            return 1
        partial_ok = self.allow_partial and bool(self.compared) and all(v.known for v in self.not_compared)
        return 1 if self.not_compared and not partial_ok else 0

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for v in self.verdicts:
            out[v.verdict.value] += 1
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "seed": self.seed,
            "inputs_generated": self.generated,
            "inputs": {
                k: {"element_type": element_type_name(v), "shape": list(v.shape)}
                for k, v in self.inputs.items()
            },
            "ours_error": self.ours_error,
            "oracles": {
                k: {"error": r.error, "how": self.oracle_notes.get(k, ""), "missing": sorted(r.missing)}
                for k, r in self.runs.items()
            },
            "verdicts": [v.as_json() for v in self.verdicts],
            "counts": self.counts(),
            "exit_code": self.exit_code,
            "strict": self.strict,
            "allow_partial": self.allow_partial,
            "versions": self.versions,
            "layers": None if self.layers is None else [row.as_json() for row in self.layers],
        }


# -- running ------------------------------------------------------------------------------


def _is_copy_output(model: Model, result_index: int) -> bool:
    """Whether an output is a chain of copy ops back to OneHot/Parameter/Constant values."""
    graph = model.graph
    stack = [graph.sources[result_index][0].node]
    seen: set[int] = set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        node = graph.nodes[i]
        if not model.inference.plans[i].spec.copies_values:  # OpSpec.copies_values: compared bit for bit
            return False
        if node.type.lower() == "onehot":
            continue  # its values are copies of on/off; indices and depth only select
        stack.extend(s.node for s in graph.sources[i])
    return True


def output_tolerances(model: Model, tolerances: Tolerances) -> dict[str, Tolerance]:
    """The tolerance each output is compared with (copies bit for bit unless the user set one)."""
    results = model.graph.kind_indices("Result")
    return {
        d.name: tolerances.for_output(d.name, _is_copy_output(model, r))
        for d, r in zip(model.outputs, results, strict=True)
    }


def _run_ours(
    model: Model, inputs: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[int, np.ndarray]]:
    """Our outputs (``Model.run``), plus the indices input of every OneHot (for explaining positions).

    When a kernel refuses the inputs the error is raised as :class:`OursRefused`, naming the
    node that refused (the one after the last node that ran: plans run in order)."""
    graph = model.graph
    wanted = {graph.sources[i][0]: i for i in graph.kind_indices("OneHot")}
    seen: dict[int, np.ndarray] = {}
    last = [-1]

    def observe(index: NodeKey, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        if not isinstance(index, int):
            return  # (a node of a sub-graph body)
        last[0] = index
        for k, out in enumerate(outs):
            for src, one_hot in wanted.items():
                if (src.node, src.output) == (index, k):
                    seen[one_hot] = out

    try:
        return model.run(inputs, observer=observe), seen
    except Error as exc:
        raise OursRefused(exc, last[0] + 1 if last[0] + 1 < len(graph.nodes) else None) from None


class OursRefused(Exception):
    """ovonehot refused the inputs: the error and the index of the node that raised it."""

    def __init__(self, error: Error, node: int | None) -> None:
        super().__init__(str(error))
        self.error, self.node = error, node


def diff_model(
    model: Model,
    xml_path: str,
    inputs: Mapping[str, np.ndarray],
    oracles: Sequence[str] = ("reference",),
    tolerances: Tolerances | None = None,
    bin_path: str | None = None,
    seed: int | None = None,
    generated: bool = False,
    strict: bool = False,
    locate: bool = True,
    isolate: bool = False,
    *,
    allow_partial: bool = False,
    plugin: PluginSettings | None = None,
    expected: Mapping[str, np.ndarray] | None = None,
    expected_source: str = "",
    all_layers: bool = False,
) -> DiffReport:
    """Compare ``model`` (ovonehot) with each oracle on ``inputs``; see the module docstring.

    ``oracles`` are names from :data:`ovonehot.oracle.common.ORACLES`; ``plugin`` says how the
    ``cpu`` oracle is compiled (deterministic CPU by default), ``expected`` holds the
    ``expected`` oracle's arrays (keyed by output name, tensor name or Result layer
    name).  ``allow_partial`` lets outputs an oracle could not compute (for a known
    reason) pass the exit status; they are still reported as not compared.

    ovonehot's side runs ``model.inference.plans`` (so a model whose plans carry a
    deliberately wrong kernel is judged like any other: tests do that).  With
    ``isolate``, OpenVINO and onnxruntime run in a child process
    (:func:`ovonehot.oracle.process.shared`), so a crash inside them is reported as
    that oracle's failure instead of killing this process.
    """
    _check_oracles(oracles, expected)
    tolerances = tolerances or Tolerances()
    tolerances.check_names([d.name for d in model.outputs])
    plugin = plugin or PluginSettings()
    inputs = dict(inputs)
    model.bind(inputs)  # input errors surface before anything runs
    ours, indices, refused = _run_ours_or_refusal(model, inputs)
    with _scratch("ovonehot-diff-") as scratch:
        openvino_ir = None
        if is_onnx_path(xml_path):
            # OpenVINO's oracles get the very IR ovonehot runs (its conversion of the ONNX model, with
            # ovonehot's corrections), written out: converting again would name the generated layers
            # differently (Convert_17 vs Convert_122), and layers are matched by name.
            openvino_ir = write_ir(model.graph, Path(scratch) / "model.xml", inference=model.inference)
        ctx = _Context(
            model,
            xml_path,
            bin_path,
            inputs,
            tolerances,
            refused,
            shared_oracle() if isolate else None,
            plugin,
            expected,
            expected_source,
            openvino_ir,
        )
        verdicts = _verdicts(ctx, oracles, ours, indices, locate)
        layers = _layers(ctx, oracles) if all_layers else None
    versions = _versions(oracles)
    reported = {k: r for k, r in ctx.runs.items() if k in oracles}
    return DiffReport(
        str(xml_path),
        seed,
        generated,
        inputs,
        ours,
        None if refused is None else str(refused),
        reported,
        verdicts,
        versions,
        strict,
        allow_partial,
        ctx.notes(oracles),
        layers,
    )


def _check_oracles(oracles: Sequence[str], expected: Mapping[str, np.ndarray] | None) -> None:
    for oracle in oracles:
        if oracle not in ALL_ORACLES:
            raise UsageError(f"unknown oracle {oracle!r}; expected one of: {', '.join(ALL_ORACLES)}")
    if "expected" in oracles and expected is None:
        raise ParameterError("expected", "is needed by the expected oracle: its saved outputs")


def _run_ours_or_refusal(
    model: Model, inputs: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray] | None, dict[int, np.ndarray], OursRefused | None]:
    """ovonehot's outputs and OneHot indices, or its refusal (None outputs)."""
    try:
        ours, indices = _run_ours(model, inputs)
    except OursRefused as exc:
        if isinstance(exc.error, ResourceLimitError):
            # Our refusal to allocate an enormous output: OpenVINO would try (and may crash), so stop.
            raise exc.error from None
        return None, {}, exc
    return ours, indices, None


def _verdicts(
    ctx: _Context,
    oracles: Sequence[str],
    ours: dict[str, np.ndarray] | None,
    indices: dict[int, np.ndarray],
    locate: bool,
) -> list[OutputVerdict]:
    """Every oracle's verdicts on every output, a wrong or unexplained one located when asked."""
    verdicts: list[OutputVerdict] = []
    runs = [ctx.run(oracle) for oracle in oracles]  # all first: each may arbitrate another
    for run in runs:
        verdicts.extend(ctx.judge(run, ours, indices))
    if locate and ours is not None:
        verdicts = [
            ctx.locate(v, ours) if v.verdict in (Verdict.OURS_WRONG, Verdict.UNEXPLAINED) else v
            for v in verdicts
        ]
    return verdicts


def _layers(ctx: _Context, oracles: Sequence[str]) -> list[LayerRow]:
    """The per-layer table against the OpenVINO oracles (``all_layers``)."""
    from .layers import compare_layers

    return compare_layers(ctx, [o for o in oracles if o in ("reference", "cpu")])


def _versions(oracles: Sequence[str]) -> dict[str, str]:
    versions = {"openvino": openvino_runtime.versions()}
    if "onnxruntime" in oracles:
        from ..oracle import onnxruntime_runner

        versions["onnxruntime"] = onnxruntime_runner.version()
    from .. import __version__

    versions["ovonehot"] = __version__
    return versions


class _Context:
    """Lazily computed oracle runs and simulations shared by the verdicts of one diff."""

    def __init__(
        self,
        model: Model,
        xml: str,
        bin_path: str | None,
        inputs: dict[str, np.ndarray],
        tolerances: Tolerances,
        refused: OursRefused | None = None,
        isolated: IsolatedOracle | None = None,
        plugin: PluginSettings | None = None,
        expected: Mapping[str, np.ndarray] | None = None,
        expected_source: str = "",
        openvino_ir: tuple[Path, Path] | None = None,
    ) -> None:
        self.model, self.xml, self.bin, self.inputs = model, xml, bin_path, inputs
        # What OpenVINO's oracles read: the model file, or the IR ovonehot made of an ONNX model.
        self.ov_xml, self.ov_bin = (
            (xml, bin_path) if openvino_ir is None else (str(openvino_ir[0]), str(openvino_ir[1]))
        )
        self.isolated = isolated
        self.tolerances = tolerances
        self.refused = refused
        self.ours_error = None if refused is None else str(refused)
        self.plugin = plugin or PluginSettings()
        self.expected = expected
        self.expected_source = expected_source
        self.runs: dict[str, OracleRun] = {}
        self._sims: dict[str, Simulation | None] = {}
        self._sim_errors: dict[str, str] = {}
        self.results = model.graph.kind_indices("Result")

    def notes(self, oracles: Sequence[str]) -> dict[str, str]:
        """How each oracle ran, for the report."""
        out = {}
        for oracle in oracles:
            if oracle == "cpu":
                out[oracle] = self.plugin.describe()
                if not self.plugin.deterministic:
                    hint = self.precision_hint()
                    out[oracle] += f" (INFERENCE_PRECISION_HINT={hint})" if hint else ""
            elif oracle == "expected":
                out[oracle] = f"saved outputs from {self.expected_source or 'the caller'}"
            elif oracle == "reference":
                out[oracle] = "OpenVINO's core reference, Node.evaluate node by node"
            elif oracle == "onnxruntime":
                out[oracle] = "onnxruntime on the .onnx file, CPU execution provider, 1 thread"
        return out

    def precision_hint(self) -> str:
        """The inference precision the plugin oracle compiles with: from its configuration, else the device's default."""
        config = self.plugin.config
        if "INFERENCE_PRECISION_HINT" in config:
            return str(config["INFERENCE_PRECISION_HINT"])
        try:
            value = openvino_runtime.plugin_property(self.plugin.device, "INFERENCE_PRECISION_HINT")
        except OpenVINOError:
            return ""
        return {"<Type: 'bfloat16'>": "bf16", "<Type: 'float32'>": "f32", "<Type: 'float16'>": "f16"}.get(
            value, value
        )

    def run(self, oracle: str) -> OracleRun:
        if oracle not in self.runs:
            refused = self.refused
            if (
                oracle in ("cpu", DETERMINISTIC_CPU)
                and refused is not None
                and isinstance(refused.error, NegativeDepthError)
            ):
                layer = "" if refused.node is None else self.model.graph.nodes[refused.node].name
                refusal = Refusal(
                    f"not run: {openvino_runtime.NEGATIVE_DEPTH} ({refused})",
                    "not-run",
                    layer,
                    code="negative-depth-unchecked",
                    detail="a negative depth is fed",
                )
                self.runs[oracle] = OracleRun(oracle, None, refusal.message, refusal)
                return self.runs[oracle]
            try:
                outs = self._oracle(oracle)
                self.runs[oracle] = OracleRun(oracle, dict(outs), missing=dict(outs.missing))
            except OpenVINOResourceError:  # out of memory says nothing about the model: the run ends
                raise
            except OracleRefusal as exc:
                self.runs[oracle] = OracleRun(oracle, None, str(exc), Refusal.of(exc))
            except OpenVINOError as exc:  # OpenVINO cannot read the model, or is missing
                self.runs[oracle] = OracleRun(oracle, None, str(exc), Refusal(str(exc), "unavailable"))
        return self.runs[oracle]

    def _oracle(self, oracle: str, keep_intermediates: bool = False) -> OracleOutputs:
        if oracle == "expected":
            return self._expected()
        if oracle == "onnxruntime":
            if self.isolated is not None:
                raw = self.isolated.run("onnxruntime", self.xml, self.inputs)
            else:
                from ..oracle import onnxruntime_runner

                raw = onnxruntime_runner.run(self.xml, self.inputs)
            return _keyed(self.model, raw, "onnxruntime")
        options: dict[str, Any]
        if oracle == "reference":
            name, options = "reference", {"partial": True}
        elif oracle == "cpu":
            name, options = "cpu", {"config": self.plugin.config, "device": self.plugin.device}
        elif oracle == DETERMINISTIC_CPU:
            name, options = "cpu", {"config": dict(CPU_CONFIG), "device": "CPU"}
        else:
            raise UsageError(f"unknown oracle {oracle!r}; expected one of: {', '.join(ALL_ORACLES)}")
        if self.isolated is not None:
            return self.isolated.run(
                name, self.ov_xml, self.inputs, self.ov_bin, keep_intermediates, **options
            )
        return openvino_runtime.run(
            name, self.ov_xml, self.inputs, self.ov_bin, keep_intermediates, **options
        )

    def _expected(self) -> OracleOutputs:
        assert self.expected is not None
        return _keyed(self.model, OracleOutputs(self.expected), "expected", self.expected_source)

    def simulation(self, oracle: str) -> Simulation | None:
        if oracle not in self._sims:
            try:
                self._sims[oracle] = simulate(self.model, self.inputs, oracle)
            except Error as exc:
                self._sims[oracle] = None
                self._sim_errors[oracle] = str(exc)
        return self._sims[oracle]

    def tolerance(self, name: str) -> Tolerance:
        desc_index = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if desc_index is not None and not self.model.outputs[desc_index].element_type.is_real:
            return Tolerance.exact()  # integers, booleans, strings: always exact
        copy = desc_index is not None and _is_copy_output(self.model, self.results[desc_index])
        return self.tolerances.for_output(name, copy)

    def _events_for(self, sim: Simulation, name: str) -> tuple[Event, ...]:
        k = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if k is None:
            return sim.events
        up = self.model.graph.ancestors([self.results[k]])
        return tuple(e for e in sim.events if (e.node == -1 and repr(name) in e.where) or e.node in up)

    # -- verdicts ---------------------------------------------------------------------
    def judge(
        self, run: OracleRun, ours: dict[str, np.ndarray] | None, indices: dict[int, np.ndarray]
    ) -> list[OutputVerdict]:
        verdicts = []
        for name in (d.name for d in self.model.outputs):
            refusal = run.refusal or run.missing.get(name)
            if refusal is None and (run.outputs is None or name not in run.outputs):
                refusal = Refusal(f"{run.oracle} gave no output {name!r}", "unavailable")
            if refusal is not None:
                verdicts.append(self._not_compared(run, name, refusal))
                continue
            assert run.outputs is not None
            tol = self.tolerance(name)
            if ours is None:
                verdicts.append(self._we_refused(run, name))
                continue
            cmp = compare(ours[name], run.outputs[name], tol)
            if cmp.equal:
                verdicts.append(OutputVerdict(name, run.oracle, Verdict.PASS, tol, cmp))
                continue
            if run.oracle == "cpu" and not self.plugin.deterministic:
                verdicts.append(self._configured(run, name, tol, cmp, ours, indices))
                continue
            verdicts.append(self._classify(run, name, tol, cmp, ours, indices))
        return verdicts

    def _configured(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: dict[str, np.ndarray],
        indices: dict[int, np.ndarray],
    ) -> OutputVerdict:
        """A plugin compiled with another configuration (OpenVINO's defaults: bf16 here) differs:
        a precision difference, with its size, when the deterministic CPU equals ovonehot;
        otherwise the difference is judged against the deterministic CPU."""
        assert run.outputs is not None
        size = error_size(ours[name], run.outputs[name])
        hint = self.precision_hint()
        label = (
            f"precision-hint difference (INFERENCE_PRECISION_HINT={hint})"
            if hint and hint != "f32"
            else "configuration difference"
        )
        det = self.run(DETERMINISTIC_CPU)
        if det.outputs is not None and name in det.outputs:
            vs_det = compare(ours[name], det.outputs[name], tol)
            if vs_det.equal:
                return OutputVerdict(
                    name,
                    run.oracle,
                    Verdict.PRECISION,
                    tol,
                    cmp,
                    size=size,
                    reason=f"{label} of the {self.plugin.describe()}; compiled deterministically (1 thread, f32, "
                    "accuracy) the CPU plugin equals ovonehot",
                )
            judged = self._classify(OracleRun("cpu", det.outputs), name, tol, vs_det, ours, indices)
            return dataclasses.replace(
                judged,
                reason=f"compiled deterministically the CPU plugin still differs: {judged.reason}",
                size=size,
            )
        ref = self.run("reference")
        if (
            ref.outputs is not None
            and name in ref.outputs
            and compare(ours[name], ref.outputs[name], tol).equal
        ):
            return OutputVerdict(
                name,
                run.oracle,
                Verdict.PRECISION,
                tol,
                cmp,
                size=size,
                reason=f"{label} of the {self.plugin.describe()}; OpenVINO's reference equals ovonehot",
            )
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.UNEXPLAINED,
            tol,
            cmp,
            size=size,
            reason=f"{label}, but nothing could check that it is only that: the deterministic "
            f"CPU run and the reference are not available ({det.error or 'no output'})",
        )

    def _classify(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: dict[str, np.ndarray],
        indices: dict[int, np.ndarray],
    ) -> OutputVerdict:
        assert run.outputs is not None
        origin = self._origin(name, cmp, indices)
        if run.oracle == "cpu":
            wrong = self._reference_says_wrong(run, name, tol, cmp, ours[name], origin)
            if wrong is not None:
                return wrong
        sim = self.simulation(run.oracle) if run.oracle in ("reference", "cpu") else None
        if sim is not None and name in sim.outputs:
            predicted = self._predicted_deviation(run, name, tol, cmp, ours[name], origin, sim)
            if predicted is not None:
                return predicted
        if run.oracle in ("onnxruntime", "expected"):
            return self._third_party(run, name, tol, cmp, ours[name], origin)
        if run.oracle == "cpu":
            best_guess = ours[name] if sim is None or name not in sim.outputs else sim.outputs[name]
            return self._cpu_differs(run, name, tol, cmp, best_guess, origin)
        return self._reference_differs(run, name, tol, cmp, ours[name], origin)

    def _reference_says_wrong(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: np.ndarray,
        origin: tuple[str, ...],
    ) -> OutputVerdict | None:
        """Against the CPU plugin, ours is wrong exactly when OpenVINO's reference says so; a CPU
        deviation is only named when ovonehot agrees with the reference (it explains the CPU, not us)."""
        assert run.outputs is not None
        ref = self.run("reference")
        if ref.outputs is None or name not in ref.outputs:
            return None
        if compare(ours, ref.outputs[name], tol).equal or self._reference_explains(
            name, ref.outputs[name], ours, tol
        ):
            return None
        same = compare(ref.outputs[name], run.outputs[name], tol).equal
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.OURS_WRONG,
            tol,
            cmp,
            reason="OpenVINO's reference disagrees with ovonehot"
            + (" and agrees with the CPU plugin" if same else ""),
            origin=origin,
        )

    def _predicted_deviation(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: np.ndarray,
        origin: tuple[str, ...],
        sim: Simulation,
    ) -> OutputVerdict | None:
        """A DEVIATION when the oracle's output is what its known deviations predict (and ours is not)."""
        assert run.outputs is not None
        predicted = sim.outputs[name]
        events = self._events_for(sim, name)
        if (
            not events
            or not compare(predicted, run.outputs[name], tol).equal
            or compare(predicted, ours, tol).equal
        ):
            return None
        codes = ", ".join(dict.fromkeys(e.code for e in events))
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.DEVIATION,
            tol,
            cmp,
            events,
            f"{run.oracle} output equals the prediction of its known deviations: {codes}",
            origin,
        )

    def _cpu_differs(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        best_guess: np.ndarray,
        origin: tuple[str, ...],
    ) -> OutputVerdict:
        """The CPU plugin differs and no known deviation predicts it: a nondeterministic output
        (a DEVIATION), else unexplained, saying what the reference thinks."""
        unstable = None if not self.plugin.deterministic else self._unstable(name, best_guess, tol)
        if unstable is not None:
            return OutputVerdict(
                name,
                run.oracle,
                Verdict.DEVIATION,
                tol,
                cmp,
                (unstable,),
                "the CPU plugin's output changes from run to run; every position "
                "that does not change is what its known deviations predict",
                origin,
            )
        ref = self.run("reference")
        why = "no known deviation of the CPU plugin predicts its output; "
        if ref.outputs is not None and name in ref.outputs:
            why += "OpenVINO's reference agrees with ovonehot"
        else:
            refusal = ref.refusal or ref.missing.get(name)
            why += f"the reference could not arbitrate ({refusal.message if refusal else ref.error})"
        return OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol, cmp, reason=why, origin=origin)

    def _reference_differs(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: np.ndarray,
        origin: tuple[str, ...],
    ) -> OutputVerdict:
        """The reference defines the semantics: ours is wrong, unless the CPU plugin agrees with
        ovonehot *inside its exact envelope* (no known deviation touches this output), which
        makes the reference the odd one out."""
        cpu = self.runs.get("cpu")
        cpu_sim = self.simulation("cpu") if cpu is not None else None
        if (
            cpu is not None
            and cpu.outputs is not None
            and name in cpu.outputs
            and compare(ours, cpu.outputs[name], tol).equal
            and cpu_sim is not None
            and not self._events_for(cpu_sim, name)
        ):
            return OutputVerdict(
                name,
                run.oracle,
                Verdict.UNEXPLAINED,
                tol,
                cmp,
                reason="OpenVINO's reference disagrees with both ovonehot and the CPU plugin",
                origin=origin,
            )
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.OURS_WRONG,
            tol,
            cmp,
            reason="OpenVINO's reference computes something else",
            origin=origin,
        )

    def _third_party(
        self,
        run: OracleRun,
        name: str,
        tol: Tolerance,
        cmp: Comparison,
        ours: np.ndarray,
        origin: tuple[str, ...],
    ) -> OutputVerdict:
        """onnxruntime or saved outputs disagree: unexplained, saying what OpenVINO's oracles (when run) think."""
        assert run.outputs is not None
        what = (
            "onnxruntime computes something else"
            if run.oracle == "onnxruntime"
            else f"ovonehot differs from the expected outputs ({self.expected_source or 'given'})"
        )
        for other in ("reference", "cpu"):
            got = self.runs.get(other)
            if got is None or got.outputs is None or name not in got.outputs:
                continue
            if compare(ours, got.outputs[name], tol).equal:
                what += f"; OpenVINO's {other} agrees with ovonehot"
            elif compare(run.outputs[name], got.outputs[name], tol).equal:
                what += f"; OpenVINO's {other} agrees with {run.oracle}"
        return OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol, cmp, reason=what, origin=origin)

    def _unstable(self, name: str, predicted: np.ndarray, tol: Tolerance) -> Event | None:
        """Run the CPU plugin twice more: if some positions change between runs (it reads memory it
        never wrote) and every stable position equals the prediction, name that; else None."""
        first = self.runs["cpu"].outputs
        assert first is not None
        runs = [first[name]]
        for _ in range(2):
            try:
                runs.append(self._oracle("cpu")[name])
            except (OpenVINOError, KeyError):
                return None
        if any(r.shape != predicted.shape or r.dtype != predicted.dtype for r in runs):
            return None
        bits = (
            [np.ascontiguousarray(r).reshape(-1).view(np.uint8).reshape(r.size, -1) for r in runs]
            if predicted.dtype != object
            else None
        )
        if bits is None or not predicted.size:
            return None
        varies = np.zeros(predicted.size, dtype=bool)
        for other in bits[1:]:
            varies |= np.any(other != bits[0], axis=1)
        if not varies.any():
            return None
        stable = ~varies.reshape(predicted.shape)
        if not compare(predicted[stable], runs[0][stable], tol).equal:
            return None
        return Event(
            "nondeterministic-output",
            -1,
            f"output {name!r}",
            f"{int(varies.sum())} of {predicted.size} values change between three identical runs",
        )

    def _reference_explains(self, name: str, ref: np.ndarray, ours: np.ndarray, tol: Tolerance) -> bool:
        sim = self.simulation("reference")
        if sim is None or name not in sim.outputs or not self._events_for(sim, name):
            return False
        return compare(sim.outputs[name], ref, tol).equal

    def _not_compared(self, run: OracleRun, name: str, refusal: Refusal) -> OutputVerdict:
        """The oracle did not compute this output: never a PASS or a deviation, unless ovonehot refused
        the same inputs at the same layer (both refuse: that is an agreement)."""
        tol = self.tolerance(name)
        refused = self.refused
        at = refusing_node(self.model, refusal)
        if refused is not None and refusal.cause == "failed" and at is not None and at == refused.node:
            return OutputVerdict(
                name,
                run.oracle,
                Verdict.PASS,
                tol,
                refusal=None,
                reason=f"both refuse the inputs at {self.model.graph.nodes[at].describe()} "
                f"({run.oracle}: {refusal.message})",
            )
        events = tuple(explain_refusal(self.model, _deviation_oracle(run.oracle), refusal))
        reason, try_oracles = self._refusal_reason(run.oracle, refusal, at, bool(events))
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.NOT_COMPARED,
            tol,
            events=events,
            reason=reason,
            refusal=refusal,
            try_oracles=try_oracles,
        )

    def _refusal_reason(
        self, oracle: str, refusal: Refusal, at: int | None, known: bool
    ) -> tuple[str, tuple[str, ...]]:
        """Why ``oracle`` did not compute an output, and the oracles worth trying instead."""
        where = self.model.graph.nodes[at].describe() if at is not None else ""
        other = ("cpu",) if oracle == "reference" else ("reference",)
        if refusal.cause == "no-evaluate":
            layer = where or f"layer name={refusal.layer!r} type={refusal.op}"
            return (
                f"OpenVINO's reference has no evaluate for {layer} with {refusal.detail or 'these input types'}",
                other,
            )
        if refusal.cause == "not-run":
            return refusal.message, other if oracle in ("reference", "cpu") else ()
        if refusal.cause == "unavailable":
            return refusal.message, ()
        if refusal.cause == "no-kernel":
            return f"{oracle} has no kernel for an op of this model: {refusal.message}", ("reference", "cpu")
        why = f"{oracle} could not compute it: {refusal.message}"
        if refusal.cause == "crashed":
            return why, ()
        if known:
            return why + " (a known refusal, named below)", ()
        return why + " (no known cause: look at it)", ()

    def _we_refused(self, run: OracleRun, name: str) -> OutputVerdict:
        assert run.outputs is not None
        tol = self.tolerance(name)
        ours_error = self.ours_error or ""
        sim = self.simulation(run.oracle) if run.oracle in ("reference", "cpu") else None
        if (
            sim is not None
            and name in sim.outputs
            and name in run.outputs
            and compare(sim.outputs[name], run.outputs[name], tol).equal
        ):
            events = self._events_for(sim, name)
            if events:
                return OutputVerdict(
                    name,
                    run.oracle,
                    Verdict.DEVIATION,
                    tol,
                    events=events,
                    reason=f"ovonehot refuses the inputs ({ours_error}); {run.oracle} "
                    "computes what its known deviations predict",
                )
        return OutputVerdict(
            name,
            run.oracle,
            Verdict.OURS_WRONG if run.oracle == "reference" else Verdict.UNEXPLAINED,
            tol,
            reason=f"ovonehot refuses the inputs ({ours_error}) but {run.oracle} computes them",
        )

    # -- explanations -------------------------------------------------------------------
    def _origin(self, name: str, cmp: Comparison, indices: dict[int, np.ndarray]) -> tuple[str, ...]:
        """For an output made by a OneHot: the index value behind each first differing position."""
        if cmp.kind != "values":
            return ()
        k = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if k is None:
            return ()
        src = self.model.graph.sources[self.results[k]][0].node
        plan = self.model.inference.plans[src]
        if not isinstance(plan.attrs, OneHotAttrs) or src not in indices:
            return ()
        idx = indices[src]
        axis = plan.attrs.axis if plan.attrs.axis >= 0 else plan.attrs.axis + idx.ndim + 1
        out = []
        for pos in cmp.positions:
            ipos = pos[:axis] + pos[axis + 1 :]
            out.append(
                f"position {list(pos)}: index value {idx[ipos].item()!r} at indices{list(ipos)} "
                f"of {plan.node.describe()} (depth position {pos[axis]})"
            )
        return tuple(out)

    def locate(self, verdict: OutputVerdict, ours: dict[str, np.ndarray]) -> OutputVerdict:
        """Add the first node (topological order) whose output already differs."""
        if (
            self.model.graph.ir_version == 10
            or verdict.verdict is Verdict.DEVIATION
            or verdict.oracle not in ("reference", "cpu")
        ):
            return verdict
        run = self.runs.get(verdict.oracle)
        if run is None or run.outputs is None:
            return verdict
        found = self._first_differing(verdict.oracle)
        if not found:
            return verdict
        return OutputVerdict(
            verdict.name,
            verdict.oracle,
            verdict.verdict,
            verdict.tolerance,
            verdict.comparison,
            verdict.events,
            verdict.reason,
            verdict.origin,
            found,
        )

    _located: dict[str, str]

    def _first_differing(self, oracle: str) -> str:
        if not hasattr(self, "_located"):
            self._located = {}
        if oracle in self._located:
            return self._located[oracle]
        result = ""
        try:
            theirs = self._oracle(oracle, keep_intermediates=True)
            mine = _intermediates(self.model, self.inputs)
        except Error:
            self._located[oracle] = ""
            return ""
        graph = self.model.graph
        for i, plan in enumerate(self.model.inference.plans):
            kind = plan.node.type.lower()
            if kind in ("parameter", "constant", "const", "result"):
                continue
            for k in range(len(plan.node.outputs)):
                key = (plan.node.name, k)
                if key not in theirs.intermediates or (i, k) not in mine:
                    continue
                copy = plan.spec.copies_values
                tol = Tolerance.exact() if copy else Tolerance(DEFAULT_ATOL, DEFAULT_RTOL)
                cmp = compare(mine[(i, k)], theirs.intermediates[key], tol)
                if not cmp.equal:
                    result = f"{graph.nodes[i].describe()} output {k}: {cmp.summary()}"
                    break
            if result:
                break
        self._located[oracle] = result
        return result


def _deviation_oracle(oracle: str) -> str:
    """The oracle whose known deviations apply (the deterministic CPU run is the CPU plugin's)."""
    return "cpu" if oracle == DETERMINISTIC_CPU else oracle


def _keyed(model: Model, raw: OracleOutputs, oracle: str, source: str = "") -> OracleOutputs:
    """Arrays keyed by another tool's names (ONNX output names, Result layer names, tensor names)
    re-keyed by ovonehot's output names; an output none of them names is missing.  Saved
    outputs (``expected``) with a key naming no output are a usage error."""
    graph = model.graph
    results = graph.kind_indices("Result")
    out: dict[str, np.ndarray] = {}
    missing: dict[str, Refusal] = dict(raw.missing)
    used: set[str] = set()
    for desc, r in zip(model.outputs, results, strict=True):
        for key in (desc.name, *desc.names, graph.nodes[r].name):
            if key in raw:
                out[desc.name] = _as_output(desc.element_type.numpy_dtype, np.asarray(raw[key]))
                used.add(key)
                break
        else:
            if desc.name not in missing:
                held = ", ".join(repr(k) for k in raw) or "nothing"
                missing[desc.name] = Refusal(
                    f"{oracle} has no array for output {desc.name!r} ({source or oracle} holds {held})",
                    "unavailable",
                )
    if oracle == "expected":
        unknown = [k for k in raw if k not in used]
        if unknown:
            known = ", ".join(repr(d.name) for d in model.outputs)
            raise ParameterError(
                "expected",
                f"{', '.join(map(repr, unknown))} names no output of the model; "
                f"its outputs are: {known} (Result layer names and tensor names are accepted too)",
                source,
            )
    return OracleOutputs(out, raw.intermediates, missing)


def _as_output(dtype: np.dtype | None, value: np.ndarray) -> np.ndarray:
    """Raw-bit arrays (bf16/f8 saved by ``np.save`` come back as ``|V2``/``|V1``) viewed as the output's dtype."""
    if dtype is not None and value.dtype.kind == "V" and value.dtype.itemsize == dtype.itemsize:
        return value.view(dtype)
    return value


def _intermediates(model: Model, inputs: Mapping[str, np.ndarray]) -> dict[tuple[int, int], np.ndarray]:
    seen: dict[tuple[int, int], np.ndarray] = {}

    def observe(index: NodeKey, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        if not isinstance(index, int):
            return  # (a node of a sub-graph body)
        for k, out in enumerate(outs):
            seen[(index, k)] = out

    model.run(inputs, observer=observe)
    return seen
