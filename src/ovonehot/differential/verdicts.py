"""The verdict logic: comparisons (:mod:`.comparator`) and facts about the runners in, one
verdict per output and oracle out, each with what explains it.

* ``PASS``: equal (or both refuse the inputs, at the same layer);
* ``plugin deviation``: the oracle differs exactly as one of its known, named deviations
  predicts (:mod:`.deviations` recomputes its output under the deviation, and the observed
  output must equal that prediction);
* ``precision difference``: a plugin compiled with a non-deterministic configuration differs,
  and compiled deterministically (or OpenVINO's reference) it equals ovonehot;
* ``rounding difference``: the two differ, each inside the output's rounding envelope of the
  float64 truth (:mod:`.envelope`);
* ``choice difference``: the CPU plugin picks otherwise at a selection op (TopK's tied
  elements; a near tie its rounding tips), each pick right by the op's semantics, and with its
  picks in place ovonehot computes the output as the plugin does (:mod:`.choices`);
* ``ours wrong``: OpenVINO's reference (consulted even when only the CPU was asked for) says
  something else, and nothing known explains the difference;
* ``not compared``: the oracle could not compute this output; the reason names the op that
  refused.  Never a PASS;
* ``unexplained``: anything else.

Which oracle is which is read from the runner objects (:mod:`.runners`): its kind, whether it
defines the semantics, whether its plugin configuration is deterministic.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import Error, OpenVINOError
from ..oracle.common import OracleKind, Refusal
from .choices import Choice, describe
from .comparator import agree, compare_run, default_tolerance
from .compare import Comparison, Tolerance, compare, error_size
from .deviations import KNOWN, Event, Simulation, explain_refusal, refusing_node
from .envelope import Envelope, Figures, figures
from .evidence import Evidence
from .explain import origin
from .isolate import Isolation
from .runners import OracleRun, OracleRunner, PluginRunner

# Refusal causes that are a known limitation of the oracle, not a failure nobody understands.
KNOWN_CAUSES = frozenset({"no-evaluate", "no-kernel", "not-run", "unavailable", "random"})


class Verdict(enum.Enum):
    PASS = "PASS"  # noqa: S105 - a verdict's name, not a password
    DEVIATION = "plugin deviation"
    PRECISION = "precision difference"
    ROUNDING = "rounding difference"
    CHOICE = "choice difference"
    OURS_WRONG = "ours wrong"
    THEIRS_WRONG = "theirs wrong"
    UNEXPLAINED = "unexplained"
    NOT_COMPARED = "not compared"

    @property
    def ok(self) -> bool:
        """A comparison that passed, or differs only as known and named (NOT_COMPARED is not ok)."""
        return self in (Verdict.PASS, Verdict.DEVIATION, Verdict.PRECISION, Verdict.ROUNDING, Verdict.CHOICE)

    @property
    def failing(self) -> bool:
        """A difference nothing known explains, or one side outside the rounding envelope."""
        return self in (Verdict.OURS_WRONG, Verdict.THEIRS_WRONG, Verdict.UNEXPLAINED)


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
    # This verdict stands in for another oracle's "not compared" (the default's fallback): which, and why.
    instead_of: str = ""
    envelope: Figures | None = None  # both runs against the output's rounding envelope
    choices: tuple[Choice, ...] = ()  # CHOICE: the oracle's picks put in place of ovonehot's

    @property
    def known(self) -> bool:
        """For NOT_COMPARED: the oracle's refusal has a known cause (a limitation, a named deviation)."""
        return self.refusal is not None and (self.refusal.cause in KNOWN_CAUSES or bool(self.events))

    def as_json(self) -> dict[str, Any]:
        r = self.refusal
        return {
            "output": self.name,
            "oracle": self.oracle,
            "verdict": self.verdict.value,
            "tolerance": self.tolerance.as_json(),
            "reason": self.reason,
            "try_oracles": list(self.try_oracles),
            "instead_of": self.instead_of,
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
            "comparison": None if self.comparison is None else self.comparison.as_json(),
            "origin": list(self.origin),
            "first_differing_node": self.first_node,
            "envelope": None if self.envelope is None else self.envelope.as_json(),
            "choices": [
                {
                    "layer": c.where,
                    "node": c.node,
                    "why": "inputs moved by rounding" if c.rounding else "tied elements",
                    "detail": c.detail,
                }
                for c in self.choices
            ],
        }


@dataclass(frozen=True, slots=True)
class _Case:
    """One output that differs: ovonehot's value and the oracle's, compared."""

    runner: OracleRunner
    name: str
    tolerance: Tolerance
    comparison: Comparison
    ours: np.ndarray
    theirs: np.ndarray
    origin: tuple[str, ...] = ()

    def verdict(self, verdict: Verdict, reason: str, **more: Any) -> OutputVerdict:
        return OutputVerdict(
            self.name,
            self.runner.name,
            verdict,
            self.tolerance,
            self.comparison,
            reason=reason,
            origin=self.origin,
            **more,
        )


class Judge:
    """Gives each output of a run its verdict, consulting other runs through ``evidence``."""

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence

    def judge(self, runner: OracleRunner, run: OracleRun) -> list[OutputVerdict]:
        """Every output of the model against ``run`` (the run of ``runner``)."""
        ev = self.evidence
        verdicts = []
        for c in compare_run(ev.output_names, ev.ours, run, ev.tolerances):
            if c.refusal is not None:
                verdicts.append(self._not_compared(runner, c.name, c.refusal))
            elif c.comparison is None or ev.ours is None or run.outputs is None:
                verdicts.append(self._we_refused(runner, run, c.name))
            else:
                case = _Case(runner, c.name, c.tolerance, c.comparison, ev.ours[c.name], run.outputs[c.name])
                configured = isinstance(runner, PluginRunner) and not runner.deterministic
                inside = None if configured else self._inside_envelope(case)
                if c.comparison.equal and (inside is None or inside.verdict is Verdict.PASS):
                    verdicts.append(inside or case.verdict(Verdict.PASS, ""))
                elif isinstance(runner, PluginRunner) and configured:
                    verdicts.append(self._configured(runner, case))
                else:
                    verdicts.append(self._classify(case))
        return verdicts

    def _inside_envelope(self, case: _Case) -> OutputVerdict | None:
        """Where the rounding envelope judges an output (a float output compared with the default
        tolerance, its two values not identical): PASS inside it, else the envelope says the two
        differ (a verdict that is not PASS: the output is classified as a difference).  None where
        the envelope does not apply or is unavailable (the tolerance alone judges)."""
        ours, theirs = case.ours, case.theirs
        if np.asarray(ours).dtype.kind != "f":
            return None  # (strings, integers, booleans: the comparison alone judges them)
        if (
            ours.shape == theirs.shape
            and ours.dtype == theirs.dtype
            and np.array_equal(ours, theirs, equal_nan=True)
        ):
            return None
        env = self._envelope(case, ours, theirs)
        if env is None:
            return None
        fig = figures(env, ours, theirs)
        if fig.between_ratio <= 1.0:
            why = "the difference is inside the rounding envelope of the float64 truth"
            return case.verdict(Verdict.PASS, why, envelope=fig)
        return case.verdict(Verdict.UNEXPLAINED, "outside the rounding envelope", envelope=fig)

    def _configured(self, runner: PluginRunner, case: _Case) -> OutputVerdict:
        """A plugin compiled with another configuration (OpenVINO's defaults: bf16 here) differs:
        a precision difference, with its size, when the deterministic CPU equals ovonehot;
        otherwise the difference is judged against the deterministic CPU."""
        name, tol = case.name, case.tolerance
        size = error_size(case.ours, case.theirs)
        hint = runner.precision_hint()
        label = (
            f"precision-hint difference (INFERENCE_PRECISION_HINT={hint})"
            if hint and hint != "f32"
            else "configuration difference"
        )
        plugin = runner.plugin.describe()
        det = self.evidence.run(runner.deterministic_cpu())
        if det.outputs is not None and name in det.outputs:
            vs_det = compare(case.ours, det.outputs[name], tol)
            if vs_det.equal:
                return case.verdict(
                    Verdict.PRECISION,
                    f"{label} of the {plugin}; compiled deterministically (1 thread, f32, "
                    "accuracy) the CPU plugin equals ovonehot",
                    size=size,
                )
            judged = self._classify(dataclasses.replace(case, comparison=vs_det, theirs=det.outputs[name]))
            return dataclasses.replace(
                judged,
                reason=f"compiled deterministically the CPU plugin still differs: {judged.reason}",
                size=size,
            )
        ref = self.evidence.run(runner.reference())
        if agree(case.ours, ref.outputs, name, tol):
            return case.verdict(
                Verdict.PRECISION, f"{label} of the {plugin}; OpenVINO's reference equals ovonehot", size=size
            )
        return case.verdict(
            Verdict.UNEXPLAINED,
            f"{label}, but nothing could check that it is only that: the deterministic "
            f"CPU run and the reference are not available ({det.error or 'no output'})",
            size=size,
        )

    def _classify(self, case: _Case) -> OutputVerdict:
        ev = self.evidence
        random = self._random(case)
        if random is not None:  # (no run can be compared with another: not a verdict on either)
            return case.verdict(Verdict.NOT_COMPARED, random, refusal=Refusal(random, "random"))
        case = dataclasses.replace(
            case, origin=origin(ev.model, ev.results, case.name, case.comparison, ev.one_hot_indices)
        )
        runner = case.runner
        if isinstance(runner, PluginRunner):
            wrong = self._reference_says_wrong(runner, case)
            if wrong is not None:
                return wrong
        sim = ev.simulation(runner.simulated) if runner.simulated is not None else None
        if sim is not None and case.name in sim.outputs:
            predicted = self._predicted_deviation(case, sim)
            if predicted is not None:
                return predicted
        enveloped, fig = self._by_envelope(case, sim)
        enveloped = enveloped or (self._chosen(case) if isinstance(runner, PluginRunner) else None)
        if enveloped is not None:
            return enveloped
        if runner.simulated is None:  # onnxruntime, saved outputs
            judged = self._third_party(case)
        elif isinstance(runner, PluginRunner):
            best_guess = case.ours if sim is None or case.name not in sim.outputs else sim.outputs[case.name]
            judged = self._cpu_differs(runner, case, best_guess)
        else:
            judged = self._reference_differs(case)
        if fig is None:
            return self._without_envelope(case, judged)
        iso = self.evidence.isolations.get((runner.name, case.name))
        why = judged.reason if iso is None else f"{judged.reason}; {iso.sentence(runner.name)}"
        return dataclasses.replace(judged, envelope=fig, reason=why)

    def _by_envelope(
        self, case: _Case, sim: Simulation | None
    ) -> tuple[OutputVerdict | None, Figures | None]:
        """A float output compared with diff's default tolerance, judged against its rounding
        envelope (:mod:`.envelope`): PASS when the two differ by less than it, a rounding
        difference when both are inside it, ours wrong when only ovonehot is outside.

        Theirs wrong when only the oracle is outside *and* OpenVINO's reference computes the
        output as ovonehot does: the float64 truth runs ovonehot's own kernels, so alone it
        cannot tell a runtime's error from a kernel bug both of ovonehot's runs share.  Never
        said of the reference itself (it defines the semantics), nor of an output a known
        deviation of the oracle touches.  Otherwise no verdict (None), with the figures."""
        env = self._envelope(case, case.ours, case.theirs)
        if env is None:
            return None, None
        fig = figures(env, case.ours, case.theirs)
        ours_in, theirs_in = fig.ours_ratio <= 1.0, fig.theirs_ratio <= 1.0
        name = case.runner.name
        if fig.between_ratio <= 1.0:
            why = "the difference is inside the rounding envelope of the float64 truth"
            return case.verdict(Verdict.PASS, why, envelope=fig), fig
        if ours_in and theirs_in:
            why = f"ovonehot and {name} differ, both inside the rounding envelope of the float64 truth"
            return case.verdict(Verdict.ROUNDING, why, envelope=fig), fig
        if theirs_in:
            why = (
                f"ovonehot is outside the rounding envelope of the float64 truth ({fig.ours_ratio:.3g} x "
                f"the bound), {name} inside"
            )
            return case.verdict(Verdict.OURS_WRONG, why, envelope=fig), fig
        touched = sim is not None and bool(self.evidence.events_for(sim, case.name))
        if ours_in and case.runner.kind is not OracleKind.REFERENCE and not touched:
            runner = case.runner
            ref = (
                self.evidence.run(runner.reference())
                if isinstance(runner, PluginRunner)
                else self.evidence.finished(OracleKind.REFERENCE)
            )
            if (
                ref is not None
                and ref.outputs is not None
                and case.name in ref.outputs
                and self._same(case, case.ours, ref.outputs[case.name])
            ):
                why = (
                    f"{name} is outside the rounding envelope of the float64 truth ({fig.theirs_ratio:.3g} x "
                    "the bound); ovonehot is inside and OpenVINO's reference computes what ovonehot does"
                )
                return case.verdict(Verdict.THEIRS_WRONG, why, envelope=fig), fig
            iso = self._isolated(case)
            if iso is not None and iso.confirmed:
                why = f"{name} is outside the rounding envelope of the float64 truth, ovonehot inside: {iso.sentence(name)}"
                return case.verdict(Verdict.THEIRS_WRONG, why, envelope=fig), fig
        return None, fig

    def _random(self, case: _Case) -> str | None:
        """Why the output is random for this oracle (never a verdict on either side), or None."""
        ev = self.evidence
        unseeded = ev.unseeded_random(case.name)
        if unseeded is not None:
            return (
                f"it depends on {unseeded}, whose global_seed and op_seed are both 0: random by "
                "the spec (OpenVINO seeds it anew on every run, and so does ovonehot); give it a seed "
                "to compare"
            )
        multinomial = ev.cpu_multinomial(case.name) if isinstance(case.runner, PluginRunner) else None
        if multinomial is not None:
            return (
                f"it depends on {multinomial}: the CPU plugin draws Multinomial's samples with another "
                "generator than the spec's (RandomUniform's Philox, which OpenVINO's reference "
                "algorithm and ovonehot use), so the same seeds give other samples there"
            )
        return None

    def _without_envelope(self, case: _Case, judged: OutputVerdict) -> OutputVerdict:
        """A failing verdict on a float output the envelope could not judge says why it could not."""
        missing = self.evidence.no_envelope(case.name) if self._default(case) else None
        if missing is None or judged.verdict.ok:
            return judged
        why = f"{judged.reason}; no rounding envelope ({missing}): the fixed tolerance judged it"
        return dataclasses.replace(judged, reason=why)

    def _chosen(self, case: _Case) -> OutputVerdict | None:
        """An output the envelope did not judge (it depends on decisions: a selection op's picks,
        an index, a comparison).  Downstream of selection ops (TopK, NMS, ...; :mod:`.choices`)
        it is run again with the plugin's right picks in place of ovonehot's: a choice difference
        when it then equals the plugin's output, within its tolerance or its rounding envelope
        *given that run's decisions* (the float64 run holding them).  Without a pick of the
        plugin's in place, ovonehot's own output and decisions: a PASS or a rounding difference by
        that envelope.  None otherwise (the verdict goes on)."""
        runner, ev = case.runner, self.evidence
        if not runner.keeps_intermediates:
            return None
        sub = ev.substituted(runner)
        up = ev.model.graph.ancestors([ev.results[ev.output_names.index(case.name)]])
        if sub is not None and (case.name not in sub.outputs or not any(n in up for n in sub.picks)):
            sub = None  # (its picks do not reach this output: ovonehot's own decisions judge it)
        made = [] if sub is None else [c for c in sub.choices if c.node in up]
        mine = case.ours if sub is None else sub.outputs[case.name]
        fig = None
        if not compare(mine, case.theirs, case.tolerance).equal:
            env = (
                ev.given_picks(runner, case.name) if self._envelope(case, mine, case.theirs) is None else None
            )
            env = env if env is not None and self._default(case) and env.fits(mine, case.theirs) else None
            if env is None:
                return None
            fig = figures(env, mine, case.theirs)
            if fig.between_ratio > 1.0 and not (fig.ours_ratio <= 1.0 and fig.theirs_ratio <= 1.0):
                return None
        name = runner.name
        given = (
            "given the run's decisions (the float64 truth holding its picks and its integer, boolean "
            "and whole-number values)"
        )
        if not made:
            if fig is None or fig.between_ratio <= 1.0:
                return case.verdict(
                    Verdict.PASS, f"the difference is inside the rounding envelope {given}", envelope=fig
                )
            why = (
                f"ovonehot and {name} differ, both inside the rounding envelope of the float64 truth {given}"
            )
            return case.verdict(Verdict.ROUNDING, why, envelope=fig)
        said = (
            f"{name} picks otherwise than ovonehot where the semantics allow both: {describe(made, name)}; "
            f"with {name}'s picks in place"
        )
        if fig is None:
            why = f"{said} ovonehot computes this output as {name} does"
        elif fig.between_ratio <= 1.0:
            why = f"{said} the two differ by less than the rounding envelope {given}"
        else:
            why = f"{said} both are inside the rounding envelope {given}"
        return case.verdict(Verdict.CHOICE, why, choices=tuple(made), envelope=fig)

    def _default(self, case: _Case) -> bool:
        """The output is a float compared with diff's default tolerance (the envelope judges it)."""
        return case.tolerance == default_tolerance(False) and np.asarray(case.ours).dtype.kind == "f"

    def _isolated(self, case: _Case) -> Isolation | None:
        """The plugin's first layer outside the envelope, run alone (:mod:`.isolate`), once per output."""
        runner, ev = case.runner, self.evidence
        key = (runner.name, case.name)
        if key not in ev.isolations:
            from .isolate import isolate  # (isolate reads reduce's subgraphs, which diff)

            k = ev.output_names.index(case.name)
            found = None
            if isinstance(runner, PluginRunner) and runner.keeps_intermediates and ev.carried is not None:
                try:  # (the plugin's run keeping every node output, shared with the layer rows)
                    theirs = ev.kept(runner).intermediates
                except Error:
                    theirs = None
                if theirs is not None:
                    found = isolate(ev.model, ev.mine(), theirs, ev.carried, runner, ev.results[k])
            ev.isolations[key] = found
        return ev.isolations[key]

    def _reference_says_wrong(self, runner: PluginRunner, case: _Case) -> OutputVerdict | None:
        """Against the CPU plugin, ours is wrong exactly when OpenVINO's reference says so; a CPU
        deviation is only named when ovonehot agrees with the reference (it explains the CPU, not us)."""
        ref = self.evidence.run(runner.reference())
        if ref.outputs is None or case.name not in ref.outputs:
            return None
        expected = ref.outputs[case.name]
        if self._same(case, case.ours, expected) or self._reference_explains(case, expected):
            return None
        same = self._same(case, expected, case.theirs)
        return case.verdict(
            Verdict.OURS_WRONG,
            "OpenVINO's reference disagrees with ovonehot"
            + (" and agrees with the CPU plugin" if same else ""),
        )

    def _same(self, case: _Case, a: np.ndarray, b: np.ndarray) -> bool:
        """Two runs of the output agree: within its tolerance, or (the default tolerance, a float
        output) within its rounding envelope, as the verdicts judge ovonehot against an oracle."""
        if compare(a, b, case.tolerance).equal:
            return True
        env = self._envelope(case, a, b)
        return env is not None and env.between(a, b) <= 1.0

    def _envelope(self, case: _Case, a: np.ndarray, b: np.ndarray) -> Envelope | None:
        """The envelope that judges ``a`` against ``b`` for this output: a float output compared
        with the default tolerance (no --atol/--rtol), when the float64 run gave one that fits."""
        if case.tolerance != default_tolerance(False) or np.asarray(a).dtype.kind != "f":
            return None
        env = self.evidence.envelope(case.name)
        return env if env is not None and env.fits(a, b) else None

    def _reference_explains(self, case: _Case, ref: np.ndarray) -> bool:
        sim = self.evidence.simulation(OracleKind.REFERENCE)
        if sim is None or case.name not in sim.outputs or not self.evidence.events_for(sim, case.name):
            return False
        return compare(sim.outputs[case.name], ref, case.tolerance).equal

    def _predicted_deviation(self, case: _Case, sim: Simulation) -> OutputVerdict | None:
        """A DEVIATION when the oracle's output is what its known deviations predict (and ours is not)."""
        predicted = sim.outputs[case.name]
        events = self.evidence.events_for(sim, case.name)
        if (
            not events
            or not compare(predicted, case.theirs, case.tolerance).equal
            or compare(predicted, case.ours, case.tolerance).equal
        ):
            return None
        codes = ", ".join(dict.fromkeys(e.code for e in events))
        return case.verdict(
            Verdict.DEVIATION,
            f"{case.runner.name} output equals the prediction of its known deviations: {codes}",
            events=events,
        )

    def _cpu_differs(self, runner: PluginRunner, case: _Case, best_guess: np.ndarray) -> OutputVerdict:
        """The CPU plugin differs and no known deviation predicts it: a nondeterministic output
        (a DEVIATION), else unexplained, saying what the reference thinks."""
        unstable = (
            self._unstable(runner, case.name, best_guess, case.tolerance) if runner.deterministic else None
        )
        if unstable is not None:
            return case.verdict(
                Verdict.DEVIATION,
                "the CPU plugin's output changes from run to run; every position "
                "that does not change is what its known deviations predict",
                events=(unstable,),
            )
        ref = self.evidence.run(runner.reference())
        why = "no known deviation of the CPU plugin predicts its output; "
        if ref.outputs is not None and case.name in ref.outputs:
            why += "OpenVINO's reference agrees with ovonehot"
        else:
            refusal = ref.refusal or ref.missing.get(case.name)
            why += f"the reference could not arbitrate ({refusal.message if refusal else ref.error})"
        return case.verdict(Verdict.UNEXPLAINED, why)

    def _reference_differs(self, case: _Case) -> OutputVerdict:
        """The reference defines the semantics: ours is wrong, unless the CPU plugin agrees with
        ovonehot *inside its exact envelope* (no known deviation touches this output), which
        makes the reference the odd one out."""
        ev = self.evidence
        cpu = ev.finished(OracleKind.CPU)
        cpu_sim = ev.simulation(OracleKind.CPU) if cpu is not None else None
        if (
            cpu is not None
            and agree(case.ours, cpu.outputs, case.name, case.tolerance)
            and cpu_sim is not None
            and not ev.events_for(cpu_sim, case.name)
        ):
            return case.verdict(
                Verdict.UNEXPLAINED, "OpenVINO's reference disagrees with both ovonehot and the CPU plugin"
            )
        return case.verdict(Verdict.OURS_WRONG, "OpenVINO's reference computes something else")

    def _third_party(self, case: _Case) -> OutputVerdict:
        """onnxruntime or saved outputs disagree: unexplained, saying what OpenVINO's oracles (when run) think."""
        what = case.runner.disagreement()
        for other in (OracleKind.REFERENCE, OracleKind.CPU):
            got = self.evidence.finished(other)
            if got is None or got.outputs is None or case.name not in got.outputs:
                continue
            if compare(case.ours, got.outputs[case.name], case.tolerance).equal:
                what += f"; OpenVINO's {other.value} agrees with ovonehot"
            elif compare(case.theirs, got.outputs[case.name], case.tolerance).equal:
                what += f"; OpenVINO's {other.value} agrees with {case.runner.name}"
        return case.verdict(Verdict.UNEXPLAINED, what)

    def _unstable(
        self, runner: PluginRunner, name: str, predicted: np.ndarray, tol: Tolerance
    ) -> Event | None:
        """Run the CPU plugin twice more: if some positions change between runs (it reads memory it
        never wrote) and every stable position equals the prediction, name that; else None."""
        first = self.evidence.run(runner).outputs
        if first is None:  # (it ran once already: judged only on its outputs)
            return None
        runs = [first[name]]
        for _ in range(2):
            try:
                runs.append(runner.run(self.evidence.inputs)[name])
            except (OpenVINOError, KeyError):
                return None
        if any(r.shape != predicted.shape or r.dtype != predicted.dtype for r in runs):
            return None
        if predicted.dtype == object or not predicted.size:
            return None
        bits = [np.ascontiguousarray(r).reshape(-1).view(np.uint8).reshape(r.size, -1) for r in runs]
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

    def _not_compared(self, runner: OracleRunner, name: str, refusal: Refusal) -> OutputVerdict:
        """The oracle did not compute this output: never a PASS or a deviation, unless ovonehot refused
        the same inputs at the same layer (both refuse: that is an agreement)."""
        ev = self.evidence
        tol = ev.tolerances[name]
        refused = ev.refused
        at = refusing_node(ev.model, refusal)
        if refused is not None and refusal.cause == "failed" and at is not None and at == refused.node:
            return OutputVerdict(
                name,
                runner.name,
                Verdict.PASS,
                tol,
                refusal=None,
                reason=f"both refuse the inputs at {ev.model.graph.nodes[at].describe()} "
                f"({runner.name}: {refusal.message})",
            )
        events = tuple(explain_refusal(ev.model, runner.kind, refusal))
        reason, try_oracles = self._refusal_reason(runner, refusal, at, bool(events))
        return OutputVerdict(
            name,
            runner.name,
            Verdict.NOT_COMPARED,
            tol,
            events=events,
            reason=reason,
            refusal=refusal,
            try_oracles=tuple(kind.value for kind in try_oracles),
        )

    def _refusal_reason(
        self, runner: OracleRunner, refusal: Refusal, at: int | None, known: bool
    ) -> tuple[str, tuple[OracleKind, ...]]:
        """Why ``runner`` did not compute an output, and the oracles worth trying instead."""
        where = self.evidence.model.graph.nodes[at].describe() if at is not None else ""
        openvino = (OracleKind.REFERENCE, OracleKind.CPU)
        other = (OracleKind.CPU,) if runner.kind is OracleKind.REFERENCE else (OracleKind.REFERENCE,)
        if refusal.cause == "no-evaluate":
            layer = where or f"layer name={refusal.layer!r} type={refusal.op}"
            return (
                f"OpenVINO's reference has no evaluate for {layer} with {refusal.detail or 'these input types'}",
                other,
            )
        if refusal.cause == "not-run":
            return refusal.message, other if runner.kind in openvino else ()
        if refusal.cause == "unavailable":
            return refusal.message, ()
        if refusal.cause == "no-kernel":
            return f"{runner.name} has no kernel for an op of this model: {refusal.message}", openvino
        why = f"{runner.name} could not compute it: {refusal.message}"
        if refusal.cause == "crashed":
            return why, ()
        if known:
            return why + " (a known refusal, named below)", ()
        return why + " (no known cause: look at it)", ()

    def _we_refused(self, runner: OracleRunner, run: OracleRun, name: str) -> OutputVerdict:
        ev = self.evidence
        theirs = run.outputs or {}  # (a run without outputs is a refusal, judged before this)
        tol = ev.tolerances[name]
        ours_error = ev.ours_error or ""
        sim = ev.simulation(runner.simulated) if runner.simulated is not None else None
        if (
            sim is not None
            and name in sim.outputs
            and name in theirs
            and compare(sim.outputs[name], theirs[name], tol).equal
        ):
            events = ev.events_for(sim, name)
            if events:
                return OutputVerdict(
                    name,
                    runner.name,
                    Verdict.DEVIATION,
                    tol,
                    events=events,
                    reason=f"ovonehot refuses the inputs ({ours_error}); {runner.name} "
                    "computes what its known deviations predict",
                )
        return OutputVerdict(
            name,
            runner.name,
            Verdict.OURS_WRONG if runner.defines_semantics else Verdict.UNEXPLAINED,
            tol,
            reason=f"ovonehot refuses the inputs ({ours_error}) but {runner.name} computes them",
        )
