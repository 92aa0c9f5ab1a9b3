"""What the verdicts of one diff draw on, each computed once, when first needed.

ovonehot's outputs (or its refusal), every oracle run (the oracles asked for, and those the
verdicts consult to arbitrate: OpenVINO's reference, the deterministic CPU), the simulations
of each oracle's known deviations (:func:`~.deviations.simulate`), every node's output against
an oracle that keeps them (:mod:`.layers`: the per-layer rows and the first divergent layer,
shared by the verdicts' explanation and ``--all-layers``), and what each oracle's child
process printed on stderr.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import Error, NegativeDepthError, OpenVINOError, OpenVINOResourceError, OracleRefusal
from ..model import Model
from ..oracle import openvino_runtime
from ..oracle.common import OracleKind, OracleOutputs, Refusal
from .choices import Substituted, substitute
from .comparator import Tolerances
from .compare import Tolerance
from .deviations import Event, Simulation, simulate
from .envelope import Carried, Envelope, EnvelopeError, carry, decision, output_envelopes, truth
from .isolate import Isolation
from .layers import FirstDivergence, LayerRow, first_divergence, layer_rows, layer_tolerances
from .runners import (
    Intermediates,
    LayersOverBudget,
    OracleRun,
    OracleRunner,
    OursRefused,
    OursRun,
    OvonehotRunner,
    layers_budget,
)


class Evidence:
    """ovonehot's run, the oracle runs and the simulations of one diff (runs keyed by runner name)."""

    def __init__(
        self,
        model: Model,
        inputs: Mapping[str, np.ndarray],
        ours: OursRun | OursRefused,
        tolerances: Mapping[str, Tolerance],
        settings: Tolerances | None = None,
    ) -> None:
        """``tolerances``: each output's; ``settings``: the caller's (for the layers' tolerances)."""
        self.model, self.inputs, self.tolerances = model, inputs, tolerances
        self.settings = settings or Tolerances()
        self.ours = ours.outputs if isinstance(ours, OursRun) else None
        self.one_hot_indices = ours.one_hot_indices if isinstance(ours, OursRun) else {}
        self.refused = ours if isinstance(ours, OursRefused) else None
        self.output_names = [d.name for d in model.outputs]
        self.results = model.graph.kind_indices("Result")
        self.runs: dict[str, OracleRun] = {}
        self.layers: dict[str, list[LayerRow]] = {}  # runner name -> its per-layer rows
        self.stderr: dict[str, list[str]] = {}  # runner name -> what its child printed, per request
        self._sims: dict[OracleKind, Simulation | None] = {}
        self._envelopes: dict[str, Envelope] | None = None
        self._no_envelope = ""  # why the float64 run failed, when it did
        self.carried: Carried | None = None  # the truth run and its sigma, once an envelope was asked for
        self.isolations: dict[tuple[str, str], Isolation | None] = {}  # (runner, output): isolate.isolate
        self._mine: Intermediates | None = None
        self.over_budget: LayersOverBudget | None = None  # every node's output kept would not fit
        self._kept: dict[str, OracleOutputs | OpenVINOError] = {}  # runner name -> its run keeping every node
        self._substituted: dict[str, Substituted | None] = {}
        self._given: dict[str, dict[str, Envelope]] = {}  # runner name -> output envelopes given its picks

    @property
    def ours_error(self) -> str | None:
        return None if self.refused is None else str(self.refused)

    def run(self, runner: OracleRunner) -> OracleRun:
        """The runner's run on the inputs (run once; a refusal is a run without outputs)."""
        if runner.name not in self.runs:
            try:
                self.runs[runner.name] = self._run(runner)
            finally:
                self._printed(runner)
        return self.runs[runner.name]

    def layer_rows(self, runner: OracleRunner) -> list[LayerRow]:
        """Every node output against ``runner`` (:func:`~.layers.layer_rows`; computed once)."""
        if runner.name not in self.layers:
            tolerances = layer_tolerances(self.model, self.settings)
            if self.ours is not None and self.output_names:
                self.envelope(self.output_names[0])  # (the float64 run, once: every layer's envelope)
            at = self.carried.at if self.carried is not None else None
            try:
                self.layers[runner.name] = layer_rows(
                    self.model, self.inputs, runner, self.mine(), tolerances, at, lambda: self.kept(runner)
                )
            finally:
                self._printed(runner)
        return self.layers[runner.name]

    def kept(self, runner: OracleRunner) -> OracleOutputs:
        """The runner's run with every node output kept (run once; raises OpenVINOError, once
        for every call, when it fails; :class:`~.runners.LayersOverBudget` without running when
        ovonehot's own every-node run is over the memory budget)."""
        self.mine()
        if self.over_budget is not None:
            raise self.over_budget
        if runner.name not in self._kept:
            try:
                self._kept[runner.name] = runner.run(self.inputs, keep_intermediates=True)
            except OpenVINOError as exc:
                self._kept[runner.name] = exc
            finally:
                self._printed(runner)
        got = self._kept[runner.name]
        if isinstance(got, OpenVINOError):
            raise got
        return got

    def substituted(self, runner: OracleRunner) -> Substituted | None:
        """ovonehot's outputs with ``runner``'s picks in place (:mod:`.choices`; once), or None."""
        if runner.name not in self._substituted:
            found = None
            if self.ours is not None:
                try:
                    theirs = self.kept(runner).intermediates
                except OpenVINOError:
                    theirs = None
                if theirs and self.output_names:
                    self.envelope(self.output_names[0])  # (the float64 run, once)
                    tolerances = layer_tolerances(self.model, self.settings)
                    found = substitute(self.model, self.inputs, theirs, tolerances, self.carried)
            self._substituted[runner.name] = found
        return self._substituted[runner.name]

    def given_picks(self, runner: OracleRunner, name: str) -> Envelope | None:
        """Output ``name``'s rounding envelope given a run's decisions: the float64 run holds its
        integer, boolean and whole-number node outputs (:func:`.envelope.truth`).  The run is the
        one with ``runner``'s right picks in place (:meth:`substituted`), or ovonehot's own when
        the model has no selection op.  None when there is none (the float64 run fails, or the
        output is unbounded even so)."""
        if runner.name not in self._given:
            sub = self.substituted(runner)
            decided = sub.decided if sub is not None else self._decided()
            found: dict[str, Envelope] = {}
            if decided:
                try:
                    held = truth(self.model, self.inputs, held=decided)
                    found, _ = output_envelopes(carry(self.model, held, frozenset(decided)))
                except (EnvelopeError, Error):
                    pass
            self._given[runner.name] = found
        return self._given[runner.name].get(name)

    def _decided(self) -> dict[tuple[int, int], np.ndarray]:
        """ovonehot's own run's decisions (a model with no selection op: nothing to put in place);
        when every node's output is over the budget, a run keeping its decisions alone."""
        nodes = self.model.graph.nodes
        mine = self.mine()
        if self.over_budget is not None:
            mine = OvonehotRunner(self.model).intermediates(
                self.inputs, partial=True, keep=lambda i, value: decision(nodes[i], value)
            )
        return {key: value for key, value in mine.items() if decision(nodes[key[0]], value)}

    def mine(self) -> Intermediates:
        """ovonehot's every node output, run once (refusing the inputs: those computed before;
        none when they take more memory than :func:`~.runners.layers_budget`: ``over_budget``)."""
        if self._mine is None:
            try:
                self._mine = OvonehotRunner(self.model).intermediates(
                    self.inputs, partial=True, budget=layers_budget()
                )
            except LayersOverBudget as exc:
                self._mine, self.over_budget = {}, exc
        return self._mine

    def first_divergence(self, runner: OracleRunner) -> FirstDivergence | None:
        """The first divergent layer against ``runner`` (:func:`~.layers.first_divergence`)."""
        return first_divergence(self.layer_rows(runner))

    def _printed(self, runner: OracleRunner) -> None:
        """Keep what the runner's child printed on stderr for its last request."""
        text = runner.printed()
        if text and text not in self.stderr.get(runner.name, []):
            self.stderr.setdefault(runner.name, []).append(text)

    def finished(self, kind: OracleKind) -> OracleRun | None:
        """The run of the oracle of ``kind`` when it has run already (asked for, or consulted)."""
        return self.runs.get(kind.value)

    def _run(self, runner: OracleRunner) -> OracleRun:
        refused = self.refused
        if (
            runner.kind is OracleKind.CPU
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
            return OracleRun(runner.name, None, refusal.message, refusal)
        try:
            outs = runner.run(self.inputs)
        except OpenVINOResourceError:  # out of memory says nothing about the model: the run ends
            raise
        except OracleRefusal as exc:
            return OracleRun(runner.name, None, str(exc), Refusal.of(exc))
        except OpenVINOError as exc:  # OpenVINO cannot read the model, or is missing
            return OracleRun(runner.name, None, str(exc), Refusal(str(exc), "unavailable"))
        return OracleRun(runner.name, dict(outs), missing=dict(outs.missing))

    def simulation(self, kind: OracleKind) -> Simulation | None:
        """ovonehot's prediction of what ``kind`` outputs under its known deviations (None: cannot)."""
        if kind not in self._sims:
            try:
                self._sims[kind] = simulate(self.model, self.inputs, kind)
            except Error:
                self._sims[kind] = None
        return self._sims[kind]

    def envelope(self, name: str) -> Envelope | None:
        """Output ``name``'s rounding envelope (:mod:`.envelope`), None when there is none (not a
        float output, or the float64 run failed: the fixed tolerance judges then)."""
        if self._envelopes is None:
            self._envelopes = {}
            try:
                self.carried = carry(self.model, truth(self.model, self.inputs))
                self._envelopes, _ = output_envelopes(self.carried)
            except (EnvelopeError, Error) as exc:
                self._no_envelope = str(exc)  # (no envelope: the verdicts fall back to the tolerance)
        return self._envelopes.get(name)

    def no_envelope(self, name: str) -> str | None:
        """Why float output ``name`` has no rounding envelope (None when it has one)."""
        if self.envelope(name) is not None:
            return None
        if self._no_envelope:
            return self._no_envelope
        return (
            "unbounded: it depends on a value a rounding may change discretely, an index, a "
            "comparison or a whole number computed from floats"
        )

    def unseeded_random(self, name: str) -> str | None:
        """The first RandomUniform or Multinomial with both seeds 0 that output ``name`` depends on
        (described), or None: OpenVINO seeds such an op anew on every run (random by the spec)."""
        for i in self._random_ops(name):
            attrs = self.model.inference.plans[i].attrs  # (the ops' parsed u64 seeds)
            if getattr(attrs, "global_seed", None) == 0 and getattr(attrs, "op_seed", None) == 0:
                return self.model.graph.nodes[i].describe()
        return None

    def cpu_multinomial(self, name: str) -> str | None:
        """The first Multinomial output ``name`` depends on (described), or None: the CPU plugin
        draws its samples with another generator than the spec's (RandomUniform's Philox, which
        OpenVINO's reference and ovonehot use), so the same seeds give other samples there
        (docs/openvino-behaviour.md)."""
        graph = self.model.graph
        found = [i for i in self._random_ops(name) if graph.nodes[i].type == "Multinomial"]
        return graph.nodes[found[0]].describe() if found else None

    def _random_ops(self, name: str) -> list[int]:
        """The RandomUniform and Multinomial nodes output ``name`` depends on, in graph order."""
        k = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if k is None:
            return []
        graph = self.model.graph
        up = graph.ancestors([self.results[k]])
        return sorted(up & {*graph.kind_indices("RandomUniform"), *graph.kind_indices("Multinomial")})

    def events_for(self, sim: Simulation, name: str) -> tuple[Event, ...]:
        """The simulation's deviation events that reach output ``name``."""
        k = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if k is None:
            return sim.events
        up = self.model.graph.ancestors([self.results[k]])
        return tuple(e for e in sim.events if (e.node == -1 and repr(name) in e.where) or e.node in up)
