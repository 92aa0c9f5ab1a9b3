"""What the verdicts of one diff draw on, each computed once, when first needed.

ovonehot's outputs (or its refusal), every oracle run (the oracles asked for, and those the
verdicts consult to arbitrate: OpenVINO's reference, the deterministic CPU), and the
simulations of each oracle's known deviations (:func:`~.deviations.simulate`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import Error, NegativeDepthError, OpenVINOError, OpenVINOResourceError, OracleRefusal
from ..model import Model
from ..oracle import openvino_runtime
from ..oracle.common import OracleKind, Refusal
from .compare import Tolerance
from .deviations import Event, Simulation, simulate
from .envelope import Carried, Envelope, EnvelopeError, carry, output_envelopes, truth
from .isolate import Isolation
from .runners import OracleRun, OracleRunner, OursRefused, OursRun


class Evidence:
    """ovonehot's run, the oracle runs and the simulations of one diff (runs keyed by runner name)."""

    def __init__(
        self,
        model: Model,
        inputs: Mapping[str, np.ndarray],
        ours: OursRun | OursRefused,
        tolerances: Mapping[str, Tolerance],
    ) -> None:
        self.model, self.inputs, self.tolerances = model, inputs, tolerances
        self.ours = ours.outputs if isinstance(ours, OursRun) else None
        self.one_hot_indices = ours.one_hot_indices if isinstance(ours, OursRun) else {}
        self.refused = ours if isinstance(ours, OursRefused) else None
        self.output_names = [d.name for d in model.outputs]
        self.results = model.graph.kind_indices("Result")
        self.runs: dict[str, OracleRun] = {}
        self.located: dict[str, str] = {}  # runner name -> the first node that differs (explain.locate)
        self._sims: dict[OracleKind, Simulation | None] = {}
        self._envelopes: dict[str, Envelope] | None = None
        self.carried: Carried | None = None  # the truth run and its sigma, once an envelope was asked for
        self.isolations: dict[tuple[str, str], Isolation | None] = {}  # (runner, output): isolate.isolate
        self.envelope_error = ""  # why there is no envelope (the float64 run failed)

    @property
    def ours_error(self) -> str | None:
        return None if self.refused is None else str(self.refused)

    def run(self, runner: OracleRunner) -> OracleRun:
        """The runner's run on the inputs (run once; a refusal is a run without outputs)."""
        if runner.name not in self.runs:
            self.runs[runner.name] = self._run(runner)
        return self.runs[runner.name]

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
        float output, or the float64 run failed: ``envelope_error`` says why)."""
        if self._envelopes is None:
            self._envelopes = {}
            try:
                self.carried = carry(self.model, truth(self.model, self.inputs))
                self._envelopes, _ = output_envelopes(self.carried)
            except (EnvelopeError, Error) as exc:
                self.envelope_error = str(exc)
        return self._envelopes.get(name)

    def events_for(self, sim: Simulation, name: str) -> tuple[Event, ...]:
        """The simulation's deviation events that reach output ``name``."""
        k = next((k for k, d in enumerate(self.model.outputs) if d.name == name), None)
        if k is None:
            return sim.events
        up = self.model.graph.ancestors([self.results[k]])
        return tuple(e for e in sim.events if (e.node == -1 and repr(name) in e.where) or e.node in up)
