"""Differential testing: ovonehot's evaluator against OpenVINO on the same IR and inputs.

``diff_model`` runs ovonehot and each requested oracle (OpenVINO's core
reference, the CPU plugin, or both), compares every output (shape, element
type, values; see :mod:`ovonehot.compare`) and gives each a verdict:

* ``PASS``: equal (or both refuse the inputs);
* ``plugin deviation``: the oracle differs exactly as one of its known, named
  deviations predicts (:mod:`ovonehot.deviations` recomputes its output under the
  deviation, and the observed output must equal that prediction);
* ``ours wrong``: the OpenVINO reference (consulted even when only the CPU was
  asked for) says something else, and nothing known explains the difference;
* ``unexplained``: anything else.

For a difference that is not a known deviation, the report shows the first
differing positions, the OneHot index value that produced them, the largest
error and the smallest tolerance that would pass, and the first node (in
topological order) whose output already differs, found by comparing
intermediate tensors (inner outputs made visible to OpenVINO).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import openvino_oracle
from .compare import Comparison, Tolerance, compare
from .deviations import KNOWN, Event, Simulation, explain_refusal, simulate
from .errors import Error, OpenVINOError, OpenVINOResourceError, UsageError
from .infer import NodePlan
from .model import Model
from .ops.one_hot import OneHotAttrs
from .oracle_process import IsolatedOracle
from .oracle_process import shared as shared_oracle

ORACLES = ("reference", "cpu")
# Computed (non-copy) float outputs default to this tolerance; copies are exact.
DEFAULT_ATOL = 1e-6
DEFAULT_RTOL = 1e-5


class Verdict(enum.Enum):
    PASS = "PASS"
    DEVIATION = "plugin deviation"
    OURS_WRONG = "ours wrong"
    UNEXPLAINED = "unexplained"

    @property
    def ok(self) -> bool:
        return self in (Verdict.PASS, Verdict.DEVIATION)


@dataclass(frozen=True, slots=True)
class Tolerances:
    """Global and per-output tolerances (``--atol X``, ``--atol name:X``)."""

    atol: float | None = None
    rtol: float | None = None
    per_output_atol: Mapping[str, float] = field(default_factory=dict)
    per_output_rtol: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, atol: Sequence[str] = (), rtol: Sequence[str] = ()) -> Tolerances:
        g_atol, p_atol = _parse_tolerances("--atol", atol)
        g_rtol, p_rtol = _parse_tolerances("--rtol", rtol)
        return cls(g_atol, g_rtol, p_atol, p_rtol)

    def for_output(self, name: str, copy: bool) -> Tolerance:
        atol = self.per_output_atol.get(name, self.atol)
        rtol = self.per_output_rtol.get(name, self.rtol)
        if atol is None and rtol is None:
            return Tolerance.exact() if copy else Tolerance(DEFAULT_ATOL, DEFAULT_RTOL)
        return Tolerance(atol or 0.0, rtol or 0.0)

    def as_json(self) -> dict[str, Any]:
        return {"atol": self.atol, "rtol": self.rtol, "per_output_atol": dict(self.per_output_atol),
                "per_output_rtol": dict(self.per_output_rtol)}


def _parse_tolerances(flag: str, items: Sequence[str]) -> tuple[float | None, dict[str, float]]:
    glob: float | None = None
    per: dict[str, float] = {}
    for item in items:
        name, sep, value = item.rpartition(":")
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"{flag} {item!r}: expected a number or NAME:NUMBER") from None
        if not math.isfinite(number) or number < 0:
            raise UsageError(f"{flag} {item!r}: a tolerance is a finite number >= 0")
        if sep:
            per[name] = number
        else:
            glob = number
    return glob, per


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

    def as_json(self) -> dict[str, Any]:
        c = self.comparison
        return {
            "output": self.name, "oracle": self.oracle, "verdict": self.verdict.value,
            "tolerance": str(self.tolerance), "reason": self.reason,
            "deviations": [{"code": e.code, "where": e.where, "detail": e.detail,
                            "summary": KNOWN[e.code].summary if e.code in KNOWN else ""} for e in self.events],
            "comparison": None if c is None else {
                "kind": c.kind, "summary": c.summary(), "count": c.count, "total": c.total,
                "positions": [list(p) for p in c.positions], "ours": list(c.ours), "theirs": list(c.theirs),
                "max_abs_error": c.max_abs_error, "passing_atol": c.passing_atol,
                "passing_rtol": c.passing_rtol, "notes": list(c.notes),
            },
            "origin": list(self.origin), "first_differing_node": self.first_node,
        }


@dataclass
class OracleRun:
    """One oracle's outputs, or why it refused."""

    oracle: str
    outputs: dict[str, np.ndarray] | None
    error: str | None = None


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

    @property
    def differences(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict is not Verdict.PASS]

    @property
    def exit_code(self) -> int:
        if self.strict:
            return 1 if self.differences else 0
        return 0 if all(v.verdict.ok for v in self.verdicts) else 1

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for v in self.verdicts:
            out[v.verdict.value] += 1
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "seed": self.seed, "inputs_generated": self.generated,
            "inputs": {k: {"element_type": _type_name(v), "shape": list(v.shape)} for k, v in self.inputs.items()},
            "ours_error": self.ours_error,
            "oracles": {k: {"error": r.error} for k, r in self.runs.items()},
            "verdicts": [v.as_json() for v in self.verdicts],
            "counts": self.counts(), "exit_code": self.exit_code, "strict": self.strict,
            "versions": self.versions,
        }

    def render(self) -> str:
        return render(self)


def _type_name(arr: np.ndarray) -> str:
    from .compare import element_type_name

    return element_type_name(arr)


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


def _ancestors(model: Model, index: int) -> set[int]:
    graph = model.graph
    seen: set[int] = set()
    stack = [index]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack.extend(s.node for s in graph.sources[i])
    return seen


def _run_ours(model: Model, inputs: Mapping[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[int, np.ndarray]]:
    """Our outputs (``Model.run``), plus the indices input of every OneHot (for explaining positions)."""
    graph = model.graph
    wanted = {graph.sources[i][0]: i for i in graph.kind_indices("OneHot")}
    seen: dict[int, np.ndarray] = {}

    def observe(index: int, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        for k, out in enumerate(outs):
            for src, one_hot in wanted.items():
                if (src.node, src.output) == (index, k):
                    seen[one_hot] = out

    return model.run(inputs, observer=observe), seen


def _resource_refusal(exc: Error) -> bool:
    """Our refusal to allocate an enormous output: OpenVINO would try (and may crash), so stop."""
    text = str(exc)
    return "bytes, more than the" in text


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
) -> DiffReport:
    """Compare ``model`` (ovonehot) with each oracle on ``inputs``; see the module docstring.

    ovonehot's side runs ``model.inference.plans`` (so a model whose plans carry a
    deliberately wrong kernel is judged like any other: tests do that).  With
    ``isolate``, OpenVINO runs in a child process (:func:`ovonehot.oracle_process.shared`),
    so a crash inside it is reported as that oracle's failure instead of killing
    this process.
    """
    for oracle in oracles:
        if oracle not in ORACLES:
            raise UsageError(f"unknown oracle {oracle!r}; expected one of: {', '.join(ORACLES)}")
    tolerances = tolerances or Tolerances()
    inputs = dict(inputs)
    model.bind(inputs)  # input errors surface before anything runs
    ours: dict[str, np.ndarray] | None = None
    ours_error: str | None = None
    indices: dict[int, np.ndarray] = {}
    try:
        ours, indices = _run_ours(model, inputs)
    except Error as exc:
        if _resource_refusal(exc):
            raise
        ours_error = str(exc)
    ctx = _Context(model, xml_path, bin_path, inputs, tolerances, ours_error, shared_oracle() if isolate else None)
    verdicts: list[OutputVerdict] = []
    runs = [ctx.run(oracle) for oracle in oracles]  # all first: each may arbitrate another
    for run in runs:
        verdicts.extend(ctx.judge(run, ours, ours_error, indices))
    if locate and ours is not None:
        verdicts = [ctx.locate(v, ours) if not v.verdict.ok else v for v in verdicts]
    versions = {"openvino": openvino_oracle.versions()}
    from . import __version__

    versions["ovonehot"] = __version__
    return DiffReport(str(xml_path), seed, generated, inputs, ours, ours_error, dict(ctx.runs), verdicts,
                      versions, strict)


class _Context:
    """Lazily computed oracle runs and simulations shared by the verdicts of one diff."""

    def __init__(self, model: Model, xml: str, bin_path: str | None, inputs: dict[str, np.ndarray],
                 tolerances: Tolerances, ours_error: str | None = None,
                 isolated: IsolatedOracle | None = None) -> None:
        self.model, self.xml, self.bin, self.inputs = model, xml, bin_path, inputs
        self.isolated = isolated
        self.tolerances = tolerances
        self.ours_error = ours_error
        self.runs: dict[str, OracleRun] = {}
        self._sims: dict[str, Simulation | None] = {}
        self._sim_errors: dict[str, str] = {}
        self.results = model.graph.kind_indices("Result")

    def run(self, oracle: str) -> OracleRun:
        if oracle not in self.runs:
            if oracle == "cpu" and self.ours_error and "depth value can't be negative" in self.ours_error:
                self.runs[oracle] = OracleRun(oracle, None, f"not run: {openvino_oracle.NEGATIVE_DEPTH} "
                                                            f"({self.ours_error})")
                return self.runs[oracle]
            try:
                outs = self._oracle(oracle)
                self.runs[oracle] = OracleRun(oracle, dict(outs))
            except OpenVINOResourceError:  # out of memory says nothing about the model: the run ends
                raise
            except OpenVINOError as exc:
                self.runs[oracle] = OracleRun(oracle, None, str(exc))
        return self.runs[oracle]

    def _oracle(self, oracle: str, keep_intermediates: bool = False) -> openvino_oracle.OracleOutputs:
        if self.isolated is not None:
            return self.isolated.run(oracle, self.xml, self.inputs, self.bin, keep_intermediates)
        return openvino_oracle.run(oracle, self.xml, self.inputs, self.bin, keep_intermediates)

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
        up = _ancestors(self.model, self.results[k])
        return tuple(e for e in sim.events if (e.node == -1 and repr(name) in e.where) or e.node in up)

    # -- verdicts ---------------------------------------------------------------------
    def judge(self, run: OracleRun, ours: dict[str, np.ndarray] | None, ours_error: str | None,
              indices: dict[int, np.ndarray]) -> list[OutputVerdict]:
        names = [d.name for d in self.model.outputs]
        if run.outputs is None:
            return [self._refused(run, name, ours is None) for name in names]
        if ours is None:
            return [self._we_refused(run, name, ours_error or "") for name in names]
        verdicts = []
        for name in names:
            tol = self.tolerance(name)
            if name not in run.outputs:
                verdicts.append(OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol,
                                              reason=f"{run.oracle} has no output {name!r}"))
                continue
            cmp = compare(ours[name], run.outputs[name], tol)
            if cmp.equal:
                verdicts.append(OutputVerdict(name, run.oracle, Verdict.PASS, tol, cmp))
                continue
            verdicts.append(self._classify(run, name, tol, cmp, ours, indices))
        return verdicts

    def _classify(self, run: OracleRun, name: str, tol: Tolerance, cmp: Comparison,
                  ours: dict[str, np.ndarray], indices: dict[int, np.ndarray]) -> OutputVerdict:
        assert run.outputs is not None
        theirs = run.outputs[name]
        origin = self._origin(name, cmp, indices)
        if run.oracle == "cpu":
            # Ours is wrong exactly when OpenVINO's reference says so; a CPU deviation is only
            # named when ovonehot agrees with the reference (it explains the CPU, not us).
            ref = self.run("reference")
            if ref.outputs is not None and name in ref.outputs:
                vs_ref = compare(ours[name], ref.outputs[name], tol)
                if not vs_ref.equal and not self._reference_explains(name, ref.outputs[name], ours[name], tol):
                    same = compare(ref.outputs[name], theirs, tol).equal
                    return OutputVerdict(name, run.oracle, Verdict.OURS_WRONG, tol, cmp,
                                         reason="OpenVINO's reference disagrees with ovonehot"
                                                + (" and agrees with the CPU plugin" if same else ""),
                                         origin=origin)
        sim = self.simulation(run.oracle)
        if sim is not None and name in sim.outputs:
            predicted = sim.outputs[name]
            events = self._events_for(sim, name)
            if (events and compare(predicted, theirs, tol).equal
                    and not compare(predicted, ours[name], tol).equal):
                codes = ", ".join(dict.fromkeys(e.code for e in events))
                return OutputVerdict(name, run.oracle, Verdict.DEVIATION, tol, cmp, events,
                                     f"{run.oracle} output equals the prediction of its known deviations: {codes}",
                                     origin)
        if run.oracle == "cpu":
            unstable = self._unstable(name, ours[name] if sim is None or name not in sim.outputs
                                      else sim.outputs[name], tol)
            if unstable is not None:
                return OutputVerdict(name, run.oracle, Verdict.DEVIATION, tol, cmp, (unstable,),
                                     "the CPU plugin's output changes from run to run; every position "
                                     "that does not change is what its known deviations predict", origin)
            ref = self.run("reference")
            why = "no known deviation of the CPU plugin predicts its output; "
            why += ("OpenVINO's reference agrees with ovonehot" if ref.outputs is not None
                    else f"the reference could not arbitrate ({ref.error})")
            return OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol, cmp, reason=why, origin=origin)
        # The reference defines the semantics: ours is wrong, unless the CPU plugin agrees with
        # ovonehot *inside its exact envelope* (no known deviation touches this output), which
        # makes the reference the odd one out.
        cpu = self.runs.get("cpu")
        cpu_sim = self.simulation("cpu") if cpu is not None else None
        if (cpu is not None and cpu.outputs is not None and name in cpu.outputs
                and compare(ours[name], cpu.outputs[name], tol).equal
                and cpu_sim is not None and not self._events_for(cpu_sim, name)):
            return OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol, cmp,
                                 reason="OpenVINO's reference disagrees with both ovonehot and the CPU plugin",
                                 origin=origin)
        return OutputVerdict(name, run.oracle, Verdict.OURS_WRONG, tol, cmp,
                             reason="OpenVINO's reference computes something else", origin=origin)

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
        bits = [np.ascontiguousarray(r).reshape(-1).view(np.uint8).reshape(r.size, -1) for r in runs] \
            if predicted.dtype != object else None
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
        return Event("nondeterministic-output", -1, f"output {name!r}",
                     f"{int(varies.sum())} of {predicted.size} values change between three identical runs")

    def _reference_explains(self, name: str, ref: np.ndarray, ours: np.ndarray, tol: Tolerance) -> bool:
        sim = self.simulation("reference")
        if sim is None or name not in sim.outputs or not self._events_for(sim, name):
            return False
        return compare(sim.outputs[name], ref, tol).equal

    def _refused(self, run: OracleRun, name: str, we_refused_too: bool) -> OutputVerdict:
        tol = self.tolerance(name)
        events = tuple(explain_refusal(self.model, run.oracle, run.error or ""))
        if we_refused_too and not events:
            return OutputVerdict(name, run.oracle, Verdict.PASS, tol,
                                 reason=f"both refuse the inputs ({run.oracle}: {run.error})")
        if events:
            return OutputVerdict(name, run.oracle, Verdict.DEVIATION, tol, events=events,
                                 reason=f"{run.oracle} refuses the model: {run.error}")
        return OutputVerdict(name, run.oracle, Verdict.UNEXPLAINED, tol,
                             reason=f"{run.oracle} failed where ovonehot ran: {run.error}")

    def _we_refused(self, run: OracleRun, name: str, ours_error: str) -> OutputVerdict:
        assert run.outputs is not None
        tol = self.tolerance(name)
        sim = self.simulation(run.oracle)
        if (sim is not None and name in sim.outputs and name in run.outputs
                and compare(sim.outputs[name], run.outputs[name], tol).equal):
            events = self._events_for(sim, name)
            if events:
                return OutputVerdict(name, run.oracle, Verdict.DEVIATION, tol, events=events,
                                     reason=f"ovonehot refuses the inputs ({ours_error}); {run.oracle} "
                                            "computes what its known deviations predict")
        return OutputVerdict(name, run.oracle, Verdict.OURS_WRONG if run.oracle == "reference" else
                             Verdict.UNEXPLAINED, tol,
                             reason=f"ovonehot refuses the inputs ({ours_error}) but {run.oracle} computes them")

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
            ipos = pos[:axis] + pos[axis + 1:]
            out.append(f"position {list(pos)}: index value {idx[ipos].item()!r} at indices{list(ipos)} "
                       f"of {plan.node.describe()} (depth position {pos[axis]})")
        return tuple(out)

    def locate(self, verdict: OutputVerdict, ours: dict[str, np.ndarray]) -> OutputVerdict:
        """Add the first node (topological order) whose output already differs."""
        if self.model.graph.ir_version == 10 or verdict.verdict is Verdict.DEVIATION:
            return verdict
        run = self.runs.get(verdict.oracle)
        if run is None or run.outputs is None:
            return verdict
        found = self._first_differing(verdict.oracle)
        if not found:
            return verdict
        return OutputVerdict(verdict.name, verdict.oracle, verdict.verdict, verdict.tolerance,
                             verdict.comparison, verdict.events, verdict.reason, verdict.origin, found)

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


def _intermediates(model: Model, inputs: Mapping[str, np.ndarray]) -> dict[tuple[int, int], np.ndarray]:
    seen: dict[tuple[int, int], np.ndarray] = {}

    def observe(index: int, plan: NodePlan, outs: Sequence[np.ndarray], seconds: float) -> None:
        for k, out in enumerate(outs):
            seen[(index, k)] = out

    model.run(inputs, observer=observe)
    return seen


# -- rendering ------------------------------------------------------------------------------


def render(report: DiffReport) -> str:
    lines = []
    origin = f"generated with seed {report.seed}" if report.generated else "given"
    lines.append(f"ovonehot diff {report.model}  (OpenVINO {report.versions.get('openvino', '?')})")
    shown = ", ".join(f"{k}: {_type_name(v)}{list(v.shape)}" for k, v in report.inputs.items())
    lines.append(f"inputs ({origin}): {shown or 'none'}")
    if report.ours_error:
        lines.append(f"ovonehot refuses the inputs: {report.ours_error}")
    for oracle, run in report.runs.items():
        if run.error:
            lines.append(f"{oracle}: {run.error}")
    for v in report.verdicts:
        head = f"[{v.oracle}] {v.name}: {v.verdict.value}"
        if v.verdict is Verdict.PASS:
            extra = v.reason or f"compared {v.tolerance}"
            notes = f"; note: {'; '.join(v.comparison.notes)}" if v.comparison and v.comparison.notes else ""
            lines.append(f"{head} ({extra}){notes}")
            continue
        lines.append(head)
        if v.reason:
            lines.append(f"    why: {v.reason}")
        for e in v.events:
            summary = KNOWN[e.code].summary if e.code in KNOWN else ""
            lines.append(f"    deviation {e.code}: {summary}")
            lines.append(f"      at {e.where}" + (f": {e.detail}" if e.detail else ""))
        c = v.comparison
        if c is not None:
            lines.append(f"    compared {v.tolerance}: {c.summary()}")
            if c.kind == "values":
                for pos, a, b in zip(c.positions, c.ours, c.theirs, strict=True):
                    lines.append(f"      at {list(pos)}: ours {a}, {v.oracle} {b}")
                if c.max_abs_error is not None:
                    tol = f"atol >= {c.passing_atol:g}"
                    if c.passing_rtol is not None:
                        tol += f" or rtol >= {c.passing_rtol:g}"
                    lines.append(f"      largest error {c.max_abs_error:g}; would pass with {tol}")
            for note in c.notes:
                lines.append(f"      note: {note}")
        for o in v.origin:
            lines.append(f"    {o}")
        if v.first_node:
            lines.append(f"    first differing node: {v.first_node}")
    counts = report.counts()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    lines.append(f"summary: {summary or 'no outputs'} -> exit {report.exit_code}"
                 + (" (--strict)" if report.strict else ""))
    return "\n".join(lines)
