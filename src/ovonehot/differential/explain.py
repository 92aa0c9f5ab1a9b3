"""Explanations added to a verdict that differs: where the difference comes from.

* :func:`origin`: for an output made by a OneHot, the index value behind each of the first
  differing positions;
* :func:`locate`: the first divergent layer (:func:`.layers.first_divergence`: the first node
  output, in topological order, that differs beyond its tolerance), found by comparing
  ovonehot's intermediate tensors with the oracle's (inner outputs made visible to OpenVINO).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..model import Model
from ..ops.one_hot import OneHotAttrs
from .compare import Comparison
from .runners import OracleRunner

if TYPE_CHECKING:
    from .evidence import Evidence
    from .verdicts import OutputVerdict


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
    """``verdict`` with the first divergent layer against ``runner`` (:func:`.layers.first_divergence`,
    the one the ``--all-layers`` table names too), when the oracle keeps intermediates and the
    verdict is not a known deviation."""
    from .verdicts import Verdict

    if verdict.verdict is Verdict.DEVIATION or not runner.keeps_intermediates:
        return verdict
    run = evidence.runs.get(runner.name)
    if run is None or run.outputs is None:
        return verdict
    found = evidence.first_divergence(runner)
    if found is None:
        return verdict
    # The error size of a configured plugin's verdict is not kept once located (as before diff
    # was split into runners, comparator and verdicts; to be decided separately).
    return dataclasses.replace(verdict, first_node=found.describe(), size=None)
