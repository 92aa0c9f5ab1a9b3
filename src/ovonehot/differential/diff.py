"""Differential testing: ovonehot's evaluator against oracles on the same model and inputs.

:func:`diff_model` runs ovonehot (:class:`~.runners.OvonehotRunner`) and each oracle runner
(:mod:`.runners`: OpenVINO's core reference, an OpenVINO plugin, onnxruntime, saved expected
outputs), compares every output (:mod:`.comparator`) and gives each a verdict
(:mod:`.verdicts`: PASS, plugin deviation, precision, rounding or choice difference, ours or
theirs wrong, not compared, unexplained).  ``not compared`` is never a PASS: exit 1 unless the caller allows a partial
comparison (``allow_partial``), and even then only for refusals with a known cause.

For a difference that is not a known deviation, the report shows the first differing
positions, the OneHot index value that produced them, the largest error and the smallest
tolerance that would pass, and the first node (in topological order) whose output already
differs beyond its tolerance, the first divergent layer (:func:`.layers.first_divergence`, which
``all_layers``' table names too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ResourceLimitError
from ..model import Model
from ..oracle import openvino_runtime
from ..oracle.common import OracleKind
from .comparator import Tolerances, compared_tolerances, output_tolerances
from .evidence import Evidence
from .explain import locate
from .layers import LayerRow
from .report import DiffReport
from .runners import OracleRun, OracleRunner, OursRefused, OursRun, OvonehotRunner, oracle_runners
from .verdicts import KNOWN_CAUSES, Judge, OutputVerdict, Verdict

# OpenVINO's two oracles (what ``ovonehot fuzz`` and ``ovonehot reduce`` run).
ORACLES = (OracleKind.REFERENCE, OracleKind.CPU)

__all__ = [
    "KNOWN_CAUSES",
    "ORACLES",
    "DiffOptions",
    "DiffReport",
    "LayerRow",
    "OracleRun",
    "OutputVerdict",
    "Tolerances",
    "Verdict",
    "diff_model",
    "oracle_runners",
    "output_tolerances",
]


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """How a diff judges and what its report says about the run.

    ``strict``: any difference fails (known deviations too); ``allow_partial``: outputs an
    oracle could not compute for a known reason do not fail (they are still reported);
    ``locate``: name the first divergent layer of a wrong or unexplained output;
    ``all_layers``: compare every node's outputs too (a per-layer table).  ``source`` (the model
    as the report names it: its file), ``seed`` and ``generated`` describe the inputs."""

    tolerances: Tolerances = field(default_factory=Tolerances)
    strict: bool = False
    allow_partial: bool = False
    locate: bool = True
    all_layers: bool = False
    source: str = ""
    seed: int | None = None
    generated: bool = False


def diff_model(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    runners: Sequence[OracleRunner],
    options: DiffOptions | None = None,
    *,
    ours: OursRun | OursRefused | None = None,
) -> DiffReport:
    """Compare ``model`` (ovonehot) with each runner on ``inputs``; see the module docstring.

    :func:`~.runners.oracle_runners` makes the runners from the oracles' kinds.  ovonehot's
    side runs ``model.inference.plans`` (so a model whose plans carry a deliberately wrong
    kernel is judged like any other: tests do that), unless ``ours`` is a run of it on these
    inputs already (another report's :attr:`~.report.DiffReport.ours_run`)."""
    options = options or DiffOptions()
    options.tolerances.check_names([d.name for d in model.outputs])
    inputs = dict(inputs)
    model.bind(inputs)  # input errors surface before anything runs
    if ours is None:
        ours = _run_ours(OvonehotRunner(model), inputs)
    evidence = Evidence(
        model, inputs, ours, compared_tolerances(model, options.tolerances), options.tolerances
    )
    verdicts = _verdicts(evidence, runners, options.locate)
    layers = None
    if options.all_layers:
        layers = [row for r in runners if r.keeps_intermediates for row in evidence.layer_rows(r)]
    report = DiffReport(
        options.source or str(model.path or ""),
        options.seed,
        options.generated,
        inputs,
        evidence.ours,
        evidence.ours_error,
        {r.name: evidence.runs[r.name] for r in runners},
        verdicts,
        _versions(runners),
        options.strict,
        options.allow_partial,
        {r.name: r.describe() for r in runners},
        layers,
    )
    report.ours_run = ours
    report.first_divergent = {
        r.name: found
        for r in runners
        if r.name in evidence.layers and (found := evidence.first_divergence(r)) is not None
    }
    report.stderr = {name: " | ".join(texts) for name, texts in evidence.stderr.items()}
    return report


def _run_ours(runner: OvonehotRunner, inputs: Mapping[str, np.ndarray]) -> OursRun | OursRefused:
    """ovonehot's outputs and OneHot indices, or its refusal."""
    try:
        return runner.run_recorded(inputs)
    except OursRefused as exc:
        if isinstance(exc.error, ResourceLimitError):
            # Our refusal to allocate an enormous output: OpenVINO would try (and may crash), so stop.
            raise exc.error from None
        return exc


def _verdicts(evidence: Evidence, runners: Sequence[OracleRunner], locate_nodes: bool) -> list[OutputVerdict]:
    """Every runner's verdicts on every output, a wrong or unexplained one located when asked."""
    judge = Judge(evidence)
    runs = [evidence.run(runner) for runner in runners]  # all first: each may arbitrate another
    judged = [(runner, judge.judge(runner, run)) for runner, run in zip(runners, runs, strict=True)]
    if not locate_nodes or evidence.ours is None:
        return [v for _, verdicts in judged for v in verdicts]
    return [
        locate(evidence, runner, v) if v.verdict.failing else v
        for runner, verdicts in judged
        for v in verdicts
    ]


def _versions(runners: Sequence[OracleRunner]) -> dict[str, str]:
    versions = {"openvino": openvino_runtime.versions()}
    for runner in runners:
        versions.update(runner.versions())
    from .. import __version__

    versions["ovonehot"] = __version__
    return versions
