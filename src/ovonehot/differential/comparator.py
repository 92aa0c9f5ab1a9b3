"""The comparator: one run's outputs against another's, output by output, and nothing more.

Given ovonehot's outputs and an oracle's run (:class:`~.runners.OracleRun`), it answers, for
every output of the model, the tolerance it is compared with and either the comparison
(:func:`~.compare.compare`: shape, element type, values) or why there is nothing to compare
(the oracle's refusal).  It holds no verdict policy: what a difference means is
:mod:`.verdicts`' business.

Tolerances: integer, boolean and string outputs are exact; a float output that is a chain of
copies back to constants and inputs (OneHot's values are copies of on/off) is exact unless
the caller set a tolerance for it; other float outputs get the caller's tolerance, else
:data:`DEFAULT_ATOL` and :data:`DEFAULT_RTOL`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError
from ..model import Model
from ..oracle.common import Refusal
from ..suggest import did_you_mean
from .compare import Comparison, Tolerance, compare

if TYPE_CHECKING:
    from .runners import OracleRun

# Computed (non-copy) float outputs default to this tolerance; copies are exact.
DEFAULT_ATOL = 1e-6
DEFAULT_RTOL = 1e-5


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
                        f"the model has no output {name!r}{did_you_mean(name, outputs)}; its outputs are: {known}",
                        f"{name}:{per[name]:g}",
                    )


def default_tolerance(copy: bool) -> Tolerance:
    """The tolerance of a node output nobody set one for: exact for copies, else the default."""
    return Tolerance.exact() if copy else Tolerance(DEFAULT_ATOL, DEFAULT_RTOL)


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


def compared_tolerances(model: Model, tolerances: Tolerances) -> dict[str, Tolerance]:
    """:func:`output_tolerances`, with integer, boolean and string outputs always exact."""
    out = output_tolerances(model, tolerances)
    for desc in model.outputs:
        if not desc.element_type.is_real:
            out[desc.name] = Tolerance.exact()
    return out


@dataclass(frozen=True, slots=True)
class OutputComparison:
    """One output of two runs: its tolerance and the comparison, or why there is none.

    ``refusal`` is set when the oracle has no value for the output; ``comparison`` is None
    when either side has no value (ovonehot refused the inputs: ``ours_missing``)."""

    name: str
    tolerance: Tolerance
    comparison: Comparison | None = None
    refusal: Refusal | None = None

    @property
    def equal(self) -> bool:
        return self.comparison is not None and self.comparison.equal

    @property
    def ours_missing(self) -> bool:
        return self.refusal is None and self.comparison is None


def compare_run(
    names: Sequence[str],
    ours: Mapping[str, np.ndarray] | None,
    theirs: OracleRun,
    tolerances: Mapping[str, Tolerance],
) -> list[OutputComparison]:
    """Every output in ``names``: ``ours`` (None when ovonehot refused) against ``theirs``."""
    out = []
    for name in names:
        tol = tolerances[name]
        refusal = theirs.refusal or theirs.missing.get(name)
        if refusal is None and (theirs.outputs is None or name not in theirs.outputs):
            refusal = Refusal(f"{theirs.oracle} gave no output {name!r}", "unavailable")
        if refusal is not None:
            out.append(OutputComparison(name, tol, refusal=refusal))
        elif ours is None or theirs.outputs is None:
            out.append(OutputComparison(name, tol))
        else:
            out.append(OutputComparison(name, tol, compare(ours[name], theirs.outputs[name], tol)))
    return out


def agree(ours: np.ndarray, theirs: Mapping[str, np.ndarray] | None, name: str, tol: Tolerance) -> bool:
    """Whether ``theirs`` has output ``name`` and it equals ``ours`` within ``tol``."""
    return theirs is not None and name in theirs and compare(ours, theirs[name], tol).equal
