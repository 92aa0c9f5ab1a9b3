"""Explanations added to a verdict that differs: where the difference comes from.

* :func:`origin`: for an output made by a OneHot, the index value behind each of the first
  differing positions;
* :func:`locate`: the first node (in topological order) whose output already differs, found
  by comparing ovonehot's intermediate tensors with the oracle's (inner outputs made visible
  to OpenVINO).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import Error
from ..model import Model
from ..ops.one_hot import OneHotAttrs
from .comparator import default_tolerance
from .compare import Comparison, compare
from .runners import OracleRunner, OvonehotRunner

if TYPE_CHECKING:
    from .evidence import Evidence
    from .verdicts import OutputVerdict

NOT_COMPUTED = frozenset({"parameter", "constant", "const", "result"})  # node types with nothing to compare


def origin(
    model: Model, results: Sequence[int], name: str, cmp: Comparison, indices: dict[int, np.ndarray]
) -> tuple[str, ...]:
    """For an output made by a OneHot: the index value behind each first differing position."""
    if cmp.kind != "values":
        return ()
    k = next((k for k, d in enumerate(model.outputs) if d.name == name), None)
    if k is None:
        return ()
    src = model.graph.sources[results[k]][0].node
    plan = model.inference.plans[src]
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


def locate(evidence: Evidence, runner: OracleRunner, verdict: OutputVerdict) -> OutputVerdict:
    """``verdict`` with the first node (topological order) whose output already differs, when
    the oracle keeps intermediates (the IR is not v10, the verdict not a known deviation)."""
    from .verdicts import Verdict

    model = evidence.model
    if model.graph.ir_version == 10 or verdict.verdict is Verdict.DEVIATION or not runner.keeps_intermediates:
        return verdict
    run = evidence.runs.get(runner.name)
    if run is None or run.outputs is None:
        return verdict
    if runner.name not in evidence.located:
        evidence.located[runner.name] = _first_differing(evidence, runner)
    found = evidence.located[runner.name]
    if not found:
        return verdict
    # The error size of a configured plugin's verdict is not kept once located (as before diff
    # was split into runners, comparator and verdicts; to be decided separately).
    return dataclasses.replace(verdict, first_node=found, size=None)


def _first_differing(evidence: Evidence, runner: OracleRunner) -> str:
    model = evidence.model
    try:
        theirs = runner.run(evidence.inputs, keep_intermediates=True)
        mine = OvonehotRunner(model).intermediates(evidence.inputs)
    except Error:
        return ""
    for i, plan in enumerate(model.inference.plans):
        if plan.node.type.lower() in NOT_COMPUTED:
            continue
        for k in range(len(plan.node.outputs)):
            key = (plan.node.name, k)
            if key not in theirs.intermediates or (i, k) not in mine:
                continue
            cmp = compare(mine[(i, k)], theirs.intermediates[key], default_tolerance(plan.spec.copies_values))
            if not cmp.equal:
                return f"{model.graph.nodes[i].describe()} output {k}: {cmp.summary()}"
    return ""
