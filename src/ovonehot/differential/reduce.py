"""Shrink a model to the smallest subgraph that keeps a difference (``ovonehot reduce``).

What Polygraphy's ``debug reduce`` does for ONNX, for OpenVINO IR and ovonehot's
verdicts.  The model is run once by ovonehot with every intermediate recorded; a
candidate subgraph is a set of op nodes: each input it reads from a node outside the
set becomes a Parameter fed with the recorded value (a Constant outside the set is
copied in instead, so weights stay weights), and the chosen outputs become Results.
A candidate *keeps the difference* when a diff of it (same oracles, same tolerances)
gives one of its outputs the same failing verdict as the original (same verdict kind;
for a plugin deviation, the same named deviation).

The search, over the ancestors of the first failing output in topological order:

1. bisect the start: the latest cut ``k`` such that the nodes from ``k`` on, with
   everything before fed as recorded values, still fail;
2. bisect the end: the earliest node ``m`` whose own outputs already fail when the
   nodes ``k..m`` (those ``m`` depends on) are run;
3. remove single nodes: a node whose removal (its consumers then read its recorded
   value) keeps the difference goes, until no single removal does.

Bisection assumes a difference, once present, stays visible downstream; where it
does not, the search still ends with a subgraph that fails (every step keeps only
candidates that were run and failed), just not always the smallest one.

The search knows nothing of OpenVINO: the caller passes ``fails``, a predicate that diffs a
candidate (:func:`keeps_difference` builds the usual one: a diff against the oracle that
differed, with the library's runners).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic import scratch
from ..errors import Error, UsageError
from ..graph import Graph, Source
from ..infer import infer
from ..model import Model
from ..oracle.common import OracleKind, PluginSettings, oracle_kind
from ..suggest import did_you_mean
from .comparator import Tolerances
from .diff import DiffOptions, diff_model
from .report import DiffReport
from .runners import OvonehotRunner, oracle_runners
from .subgraph import Candidate, Value, _is_op, extract, write_candidate
from .verdicts import OutputVerdict, Verdict

Fails = Callable[[Graph, dict[str, np.ndarray]], bool]


@dataclass
class Reduction:
    """The outcome: the smallest failing subgraph found, with its feeds, and how it was found."""

    graph: Graph
    inputs: dict[str, np.ndarray]
    candidate: Candidate
    original_ops: int
    steps: list[str]
    tries: int


def record_values(model: Model, inputs: Mapping[str, np.ndarray]) -> dict[Value, np.ndarray]:
    """Every node output of one ovonehot run (the values a cut feeds its Parameters with)."""
    return OvonehotRunner(model).intermediates(inputs)


def reduce_model(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    output: str,
    fails: Fails,
    log: Callable[[str], None] | None = None,
) -> Reduction:
    """Shrink ``model`` around its output ``output`` while ``fails`` holds (see the module doc)."""
    graph = model.graph
    names = [d.name for d in model.outputs]
    if output not in names:
        raise UsageError(
            f"the model has no output {output!r}{did_you_mean(output, names)}; its outputs are: {', '.join(names)}"
        )
    result_index = graph.kind_indices("Result")[names.index(output)]
    target = graph.sources[result_index][0]
    order = sorted(i for i in graph.ancestors([target.node]) if _is_op(graph.nodes[i]))
    if not order:
        raise UsageError(f"output {output!r} is computed by no op: nothing to reduce")
    reducer = _Reducer(model, record_values(model, inputs), fails, log, target, order)
    if not reducer.check(reducer.tail(0)):
        raise UsageError(f"output {output!r}: the difference does not reproduce on the model itself")
    reducer.say(f"start: {len(order)} ops behind output {output!r}")
    best = reducer.bisect_start()
    best = reducer.bisect_culprit(best)
    best = reducer.remove_single_nodes(best)
    sub, feeds = extract(model, reducer.values, best)
    reducer.say(f"done: {len(best.keep)} of {len(order)} ops, {reducer.tries} diffs")
    return Reduction(sub, feeds, best, len(order), reducer.steps, reducer.tries)


class _Reducer:
    """One reduction's state: the candidates tried, the steps said; one method per stage."""

    def __init__(
        self,
        model: Model,
        values: dict[Value, np.ndarray],
        fails: Fails,
        log: Callable[[str], None] | None,
        target: Source,
        order: list[int],
    ) -> None:
        self.model, self.graph, self.values, self.fails, self.log = model, model.graph, values, fails, log
        self.target, self.order = target, order
        self.steps: list[str] = []
        self.tries = 0

    def say(self, message: str) -> None:
        self.steps.append(message)
        if self.log is not None:
            self.log(message)

    def check(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` still fails."""
        self.tries += 1
        try:
            sub, feeds = extract(self.model, self.values, candidate)
            # A candidate ovonehot itself cannot infer (a cut that leaves a shape input
            # as a runtime Parameter, say) does not keep the difference.
            infer(sub)
        except Error:
            return False
        return self.fails(sub, feeds)

    def tail(self, k: int) -> Candidate:
        """The target's ancestors among the ops from position ``k`` on."""
        keep = self.graph.ancestors([self.target.node], within=self.order[k:])
        return Candidate(tuple(sorted(keep)), ((self.target.node, self.target.output),))

    def bisect_start(self) -> Candidate:
        """1. the latest start that still fails."""
        lo, hi = 0, len(self.order) - 1  # tail(lo) fails; find the largest such lo
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.check(self.tail(mid)):
                lo = mid
            else:
                hi = mid - 1
        best = self.tail(lo)
        self.say(f"bisect start: the difference needs the ops from position {lo} on ({len(best.keep)} ops)")
        return best

    def _prefix(self, span: list[int], m: int, consumers: list[list[tuple[int, int, int]]]) -> Candidate:
        """The first ``m + 1`` ops of ``span``, outputting every value they hand on."""
        inside = set(span[: m + 1])
        target = self.target
        outs = sorted(
            {(n, k) for n in inside for k, c, _ in consumers[n] if c not in inside}
            | ({(target.node, target.output)} & {(n, target.output) for n in inside})
        )
        return Candidate(tuple(sorted(inside)), tuple(outs))

    def bisect_culprit(self, best: Candidate) -> Candidate:
        """2. the earliest node whose own outputs already fail.  Bisect over prefixes of the
        kept ops whose outputs are every value the prefix hands on (so a prefix that holds
        the culprit fails whatever branch comes next), then keep the culprit's ancestors."""
        span = sorted(best.keep)
        consumers = self.graph.consumers()
        lo, hi = 0, len(span) - 1  # prefix(last) holds everything and fails; find the first failing m
        while lo < hi:
            mid = (lo + hi) // 2
            if self.check(self._prefix(span, mid, consumers)):
                hi = mid
            else:
                lo = mid + 1
        culprit = span[lo]
        own = Candidate(
            tuple(sorted(self.graph.ancestors([culprit], within=span[: lo + 1]))),
            tuple((culprit, k) for k in range(len(self.model.inference.outputs[culprit]))),
        )
        if self.check(own):
            best = own
        elif lo < len(span) - 1:
            best = self._prefix(span, lo, consumers)
        self.say(
            f"bisect end: the first failing op is {self.graph.nodes[culprit].describe()} ({len(best.keep)} ops)"
        )
        return best

    def remove_single_nodes(self, best: Candidate) -> Candidate:
        """3. single-node removal, until no node can go."""
        changed = True
        while changed and len(best.keep) > 1:
            changed = False
            out_nodes = {n for n, _ in best.outputs}
            for node in sorted(best.keep, reverse=True):
                if node in out_nodes:
                    continue
                rest = [i for i in best.keep if i != node]
                keep = self.graph.ancestors(out_nodes, within=rest)
                candidate = Candidate(tuple(sorted(keep)), best.outputs)
                if self.check(candidate):
                    best = candidate
                    changed = True
                    self.say(f"removed {self.graph.nodes[node].describe()} ({len(best.keep)} ops left)")
                    break
        return best


def diff_predicate(judge: Callable[[Model, str, dict[str, np.ndarray]], bool]) -> Fails:
    """A ``fails`` predicate: write the candidate to a temporary IR, load it, let ``judge`` diff it."""

    def fails(graph: Graph, feeds: dict[str, np.ndarray]) -> bool:
        from ..model import load

        with scratch("ovonehot-reduce-") as tmp:
            xml = write_candidate(graph, Path(tmp))
            try:
                candidate = load(xml)
                return judge(candidate, str(xml), feeds)
            except Error:
                return False

    return fails


# -- the difference kept: a diff of each candidate against the oracle that differed ---------------


def failing_verdicts(report: DiffReport, output: str | None = None) -> list[OutputVerdict]:
    """The outputs that differ (of ``output`` only, when given), in report order."""
    failing = [v for v in report.verdicts if v.verdict not in (Verdict.PASS, Verdict.NOT_COMPARED)]
    return failing if output is None else [v for v in failing if v.name == output]


def same_difference(verdict: OutputVerdict, target: OutputVerdict) -> bool:
    """The same verdict from the same oracle (for a plugin deviation, the same named deviations too)."""
    if verdict.oracle != target.oracle or verdict.verdict is not target.verdict:
        return False
    if target.verdict is Verdict.DEVIATION:
        return {e.code for e in verdict.events} >= {e.code for e in target.events}
    return True


def reduced_tolerances(target: OutputVerdict) -> Tolerances:
    """The failing output's tolerance, for every output of a candidate (their names differ)."""
    tol = target.tolerance
    if tol.is_exact:
        return Tolerances(atol=0.0, rtol=0.0)
    return Tolerances(atol=tol.atol, rtol=tol.rtol)


def diff_candidate(
    model: Model,
    xml: str,
    feeds: Mapping[str, np.ndarray],
    target: OutputVerdict,
    locate: bool = True,
    plugin: PluginSettings | None = None,
) -> DiffReport:
    """A candidate (or the reduced model) diffed against the target's oracle (a plugin compiled
    with ``plugin``, when given), OpenVINO isolated."""
    kind = candidate_oracle(target)
    runners = oracle_runners((kind,), model, xml, plugin=plugin, isolate=True)
    return diff_model(
        model, feeds, runners, DiffOptions(reduced_tolerances(target), locate=locate, source=xml)
    )


def candidate_oracle(target: OutputVerdict) -> OracleKind:
    """The oracle a candidate is diffed against: the reference, or the plugin (whatever its
    device: its runner is named after it)."""
    if target.oracle == OracleKind.REFERENCE.value:
        return OracleKind.REFERENCE
    if target.oracle in (OracleKind.ONNXRUNTIME.value, OracleKind.EXPECTED.value):
        return oracle_kind(target.oracle)
    return OracleKind.CPU


def keeps_difference(target: OutputVerdict, plugin: PluginSettings | None = None) -> Fails:
    """The ``fails`` predicate of :func:`reduce_model`: a candidate keeps ``target``'s difference."""

    def judge(candidate: Model, xml: str, feeds: dict[str, np.ndarray]) -> bool:
        report = diff_candidate(candidate, xml, feeds, target, locate=False, plugin=plugin)
        return any(same_difference(v, target) for v in report.verdicts)

    return diff_predicate(judge)
