"""Every node's outputs against OpenVINO, layer by layer, and the one definition of the
*first divergent layer* (``ovonehot diff --all-layers``, and the explanation of a failing verdict).

ovonehot's value of every node output (an observer on ``Model.run``) is compared with
the same output in OpenVINO: the reference keeps every node's tensor (and runs up to
the ops it has no evaluate for: what depends on one is *not compared*, naming it), the
CPU plugin is given every inner output as an extra model output (which can change what
it fuses; the outputs proper are still the plugin's).  Outputs are matched by layer
name and port.

Each node output is compared with the tolerance the verdicts would give it
(:func:`layer_tolerances`, the rule of :mod:`.comparator`): exact for integers, booleans and
values that are copies back to constants, inputs and OneHot on/off values; else the caller's
``atol``/``rtol``, or diff's default; a node output that is a model output gets that output's
tolerance.  A copy op of computed values (a Reshape of a MatMul) is not compared bit for bit:
it carries its input's rounding, and calling it the place where the difference starts would be
wrong.

The first divergent layer (:func:`first_divergence`) is the first node output in topological
order that was compared and differs beyond its tolerance.  A node output the oracle does not
show (fused or renamed by the plugin, beyond an op the reference cannot evaluate, read with
another element type from an IR v10) or that ovonehot did not compute is *not compared*: it is
never the first divergent layer, and the report says how many such outputs precede it (the
difference may start in one of them).  The text, JSON and HTML reports all name this layer.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import progress
from ..errors import OpenVINOError
from ..model import Model
from ..oracle.common import OracleKind, OracleOutputs, Refusal
from ..types import ElementType
from .comparator import Tolerances, compared_tolerances, default_tolerance
from .compare import Comparison, Tolerance, compare, error_size
from .deviations import KNOWN, saturate_constant
from .envelope import NOT_COMPUTED, Envelope
from .runners import Intermediates, OracleRunner, OvonehotRunner

_WIDE = (np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.uint32))
# A node output's rounding envelope, (node, port) -> Envelope or None (:meth:`.envelope.Carried.at`).
EnvelopeAt = Callable[[int, int], Envelope | None]

GROWTH = 10.0  # an error this many times the largest before it is where the error grows


class LayerVerdict(enum.Enum):
    PASS = "PASS"  # noqa: S105 - a verdict's name, not a password
    DIFFERS = "differs"
    NOT_COMPARED = "not compared"
    # a known deviation of the oracle explains the difference (named in the note): not divergent
    DEVIATION = "plugin deviation"


@dataclass(frozen=True, slots=True)
class LayerRow:
    """One node output compared against one oracle (``node``: its index, in topological order)."""

    oracle: str
    layer: str  # node.describe()
    port: int
    type: str
    max_abs: float | None
    max_rel: float | None
    tolerance: str
    verdict: LayerVerdict
    note: str = ""
    node: int = -1
    ident: tuple[int, str, str, str] = (-1, "", "", "")  # the layer's (id, name, type, version), for JSON
    limits: Tolerance | None = None  # the tolerance itself (``tolerance`` is its text), for JSON
    envelope: str = ""  # the rounding envelope that judged it ("" : the tolerance did)
    # The tolerance's comparison when it judged (its first positions and values), for JSON.
    comparison: Comparison | None = field(default=None, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "oracle": self.oracle,
            "layer": None
            if self.ident[0] < 0
            else dict(zip(("id", "name", "type", "version"), self.ident, strict=True)),
            "description": self.layer,
            "port": self.port,
            "type": self.type,
            "max_abs_error": self.max_abs,
            "max_rel_error": self.max_rel,
            "tolerance": None
            if self.limits is None
            else {**self.limits.as_json(), **({"envelope": self.envelope} if self.envelope else {})},
            "verdict": self.verdict.value,
            "note": self.note,
            "comparison": None if self.comparison is None else self.comparison.as_json(),
        }


@dataclass(frozen=True, slots=True)
class FirstDivergence:
    """The first divergent layer against one oracle: its row, and how many node outputs before it
    were not compared (the difference may start in one of them)."""

    row: LayerRow
    not_compared_before: int = 0

    @property
    def oracle(self) -> str:
        return self.row.oracle

    def describe(self) -> str:
        """What every report says: the layer, its port, the comparison."""
        text = f"{self.row.layer} output {self.row.port}: {self.row.note}"
        n = self.not_compared_before
        if n:
            text += f" ({n} earlier layer output{'s' if n > 1 else ''} not compared: it may start there)"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            **self.row.as_json(),
            "description": self.describe(),
            "not_compared_before": self.not_compared_before,
        }


def first_divergence(rows: Sequence[LayerRow]) -> FirstDivergence | None:
    """The first divergent layer of one oracle's rows (in topological order): the first node output
    compared and differing beyond its tolerance; None when none differs."""
    skipped = 0
    for row in rows:
        if row.verdict is LayerVerdict.DIFFERS:
            return FirstDivergence(row, skipped)
        if row.verdict is LayerVerdict.NOT_COMPARED:
            skipped += 1
    return None


def layer_tolerances(model: Model, tolerances: Tolerances) -> dict[tuple[int, int], Tolerance]:
    """The tolerance of every node output (node index, port), by the verdicts' rule (see the module
    docstring); a node output that is a model output has that output's tolerance."""
    graph, inference = model.graph, model.inference
    copies: list[bool] = []  # per node: its values are copies back to constants, inputs, on/off
    for i, plan in enumerate(inference.plans):
        copy = plan.spec.copies_values  # OpSpec.copies_values: compared bit for bit
        if copy and plan.node.type.lower() != "onehot":  # (OneHot's indices and depth only select)
            copy = all(copies[s.node] for s in graph.sources[i])
        copies.append(copy)
    out: dict[tuple[int, int], Tolerance] = {}
    for i, infos in enumerate(inference.outputs):
        for k, info in enumerate(infos):
            exact = copies[i] or not info.element_type.is_real
            out[(i, k)] = Tolerance.exact() if exact else tolerances.for_output("", copy=False)
    per_output = compared_tolerances(model, tolerances)
    for desc, r in zip(model.outputs, graph.kind_indices("Result"), strict=True):
        source = graph.sources[r][0]
        out[(source.node, source.output)] = per_output[desc.name]
    return out


def compare_layers(
    model: Model, inputs: Mapping[str, np.ndarray], runners: Sequence[OracleRunner], tolerances: Tolerances
) -> list[LayerRow]:
    """One row per (oracle, computed node output), in topological order, for each runner that
    keeps intermediate tensors (OpenVINO's)."""
    # ovonehot refusing the inputs: the layers it computed before are still compared.
    mine = OvonehotRunner(model).intermediates(inputs, partial=True)
    tols = layer_tolerances(model, tolerances)
    rows: list[LayerRow] = []
    for runner in runners:
        if runner.keeps_intermediates:
            rows.extend(layer_rows(model, inputs, runner, mine, tols))
    return rows


def layer_rows(
    model: Model,
    inputs: Mapping[str, np.ndarray],
    runner: OracleRunner,
    mine: Intermediates,
    tolerances: Mapping[tuple[int, int], Tolerance],
    envelope_at: EnvelopeAt | None = None,
    kept: Callable[[], OracleOutputs] | None = None,
) -> list[LayerRow]:
    """``runner``'s rows: every computed node output of ``mine`` (ovonehot's) against the runner's
    run with every intermediate kept (one row for the whole model when that run fails).

    ``envelope_at`` gives a node output's rounding envelope (:mod:`.envelope`): a computed float
    output with the default tolerance differs when the two differ by more than it, as the
    verdicts judge the model's outputs.  ``kept``: that run of the runner, when the caller
    keeps it (else the runner runs)."""
    try:
        theirs = kept() if kept is not None else runner.run(inputs, keep_intermediates=True)
    except OpenVINOError as exc:
        return [
            LayerRow(
                runner.name, "(the whole model)", 0, "", None, None, "", LayerVerdict.NOT_COMPARED, str(exc)
            )
        ]
    held = runner.kind is OracleKind.CPU
    return _rows(
        model, runner.name, mine, theirs.intermediates, theirs.blocked, tolerances, envelope_at, held
    )


def _rows(
    model: Model,
    oracle: str,
    mine: Intermediates,
    theirs: Mapping[tuple[str, int], np.ndarray],
    blocked: Mapping[str, Refusal],
    tolerances: Mapping[tuple[int, int], Tolerance],
    envelope_at: EnvelopeAt | None = None,
    int32: bool = False,
) -> list[LayerRow]:
    """``int32``: the oracle holds i64/u32/u64 values as int32 (the CPU plugin)."""
    rows: list[LayerRow] = []
    plans = model.inference.plans
    with progress.bar(len(plans), f"layers vs {oracle}", "layer") as shown:
        for i, plan in enumerate(plans):
            shown.update()
            if plan.node.type.lower() not in NOT_COMPUTED:
                rows.extend(
                    _node_rows(model, oracle, mine, theirs, blocked, tolerances, envelope_at, i, int32)
                )
    return rows


def _node_rows(
    model: Model,
    oracle: str,
    mine: Intermediates,
    theirs: Mapping[tuple[str, int], np.ndarray],
    blocked: Mapping[str, Refusal],
    tolerances: Mapping[tuple[int, int], Tolerance],
    envelope_at: EnvelopeAt | None,
    i: int,
    int32: bool = False,
) -> list[LayerRow]:
    """The rows of node ``i``'s outputs."""
    rows: list[LayerRow] = []
    node = model.inference.plans[i].node
    op = f"{node.type}-{node.version}"
    ident = (node.id, node.name, node.type, node.version)
    for k in range(len(model.inference.outputs[i])):
        tol = tolerances[(i, k)]
        why = _unobserved(model, oracle, mine, theirs, blocked, i, k)
        if why:
            rows.append(_not_compared(oracle, node.describe(), k, op, tol, why, i, ident))
            continue
        ours, other = mine[(i, k)], theirs[(node.name, k)]
        cmp = compare(ours, other, tol)
        if cmp.kind == "element type" and model.graph.ir_version == 10:
            why = f"{oracle} reads IR v10 with other element types ({cmp.detail})"
            rows.append(_not_compared(oracle, node.describe(), k, op, tol, why, i, ident))
            continue
        size = _size(ours, other)
        equal, note, said = cmp.equal, "" if cmp.equal else cmp.summary(), str(tol)
        judged = _by_envelope(envelope_at, i, k, tol, ours, other)
        if judged is not None:
            equal, note, said = judged
        verdict = LayerVerdict.PASS if equal else LayerVerdict.DIFFERS
        held = _held_as_int32(ours, other) if int32 and not equal else None
        if held is not None:
            verdict, note = LayerVerdict.DEVIATION, f"{held}; {note}"
        envelope = said if judged is not None else ""
        rows.append(
            LayerRow(
                oracle,
                node.describe(),
                k,
                op,
                size[0],
                size[1],
                said,
                verdict,
                note,
                i,
                ident,
                tol,
                envelope,
                # (without the arrays of where it differs: a row per layer must stay small)
                None if judged is not None else dataclasses.replace(cmp, where=None, errors=None),
            )
        )
    return rows


def _held_as_int32(ours: np.ndarray, theirs: np.ndarray) -> str | None:
    """The CPU plugin's known deviations (:data:`.deviations.KNOWN`) that explain an i64/u32/u64
    output differing from ovonehot's: it holds such values as int32, constants saturated
    (``int32-saturation``: a Slice's open end INT64_MAX is 2147483647 there), values computed
    or fed at run time wrapped (``int32-wrap``); every element within the int32 range equal.
    None when that does not explain it."""
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.dtype not in _WIDE or b.dtype.kind not in "iu" or b.dtype == np.uint64 or a.shape != b.shape:
        return None
    got = b.astype(np.int64)
    saturated = got == saturate_constant(ElementType.from_numpy(a.dtype), a).astype(np.int64)
    wrapped = got == a.astype(np.int32).astype(np.int64)  # (the low 32 bits, as a C cast keeps)
    if not (saturated | wrapped).all():
        return None
    codes = [c for c, alone in (("int32-saturation", ~wrapped), ("int32-wrap", ~saturated)) if alone.any()]
    named = codes or ["int32-saturation"]  # (where both give the value, the constants' rule)
    return "plugin deviation " + " and ".join(f"{c} ({KNOWN[c].summary})" for c in named)


def _not_compared(
    oracle: str,
    layer: str,
    k: int,
    op: str,
    tol: Tolerance,
    why: str,
    i: int,
    ident: tuple[int, str, str, str],
) -> LayerRow:
    return LayerRow(oracle, layer, k, op, None, None, str(tol), LayerVerdict.NOT_COMPARED, why, i, ident, tol)


def _by_envelope(
    envelope_at: EnvelopeAt | None, i: int, k: int, tol: Tolerance, ours: np.ndarray, other: np.ndarray
) -> tuple[bool, str, str] | None:
    """(equal, note, tolerance text) by the node output's rounding envelope, where it judges."""
    if envelope_at is None or tol != default_tolerance(False) or np.asarray(ours).dtype.kind != "f":
        return None
    env = envelope_at(i, k)
    if env is None or not env.fits(ours, other):
        return None
    between = env.between(ours, other)
    finite = env.bound[np.isfinite(env.bound)]
    said = f"rounding envelope (largest bound {float(finite.max()) if finite.size else 0.0:.3g})"
    if between <= 1.0:
        return True, "", said
    return False, f"differs by {between:.3g} x its rounding envelope", said


def _unobserved(
    model: Model,
    oracle: str,
    mine: Intermediates,
    theirs: Mapping[tuple[str, int], np.ndarray],
    blocked: Mapping[str, Refusal],
    i: int,
    k: int,
) -> str:
    """Why node output (i, k) cannot be compared ("" when it can)."""
    if (i, k) not in mine:
        return "ovonehot did not compute it (it refused the inputs earlier)"
    name = model.graph.nodes[i].name
    if (name, k) in theirs:
        return ""
    refusal = blocked.get(name)
    if refusal is not None:
        return f"{oracle} did not compute it: {refusal.message}"
    return f"{oracle} has no output {name!r}:{k} (renamed or folded away)"


def _size(ours: np.ndarray, theirs: np.ndarray) -> tuple[float | None, float | None]:
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.dtype == object or b.dtype == object or a.shape != b.shape:
        return None, None
    try:
        return error_size(a, b)
    except (TypeError, ValueError):
        return None, None


def by_oracle(rows: Sequence[LayerRow]) -> dict[str, list[LayerRow]]:
    """The rows of each oracle, in the order the oracles come."""
    out: dict[str, list[LayerRow]] = {}
    for row in rows:
        out.setdefault(row.oracle, []).append(row)
    return out


def summary(rows: Sequence[LayerRow]) -> list[str]:
    """Per oracle: counts, the first divergent layer, and where the error grows."""
    lines = []
    for oracle, mine in by_oracle(rows).items():
        differ = [r for r in mine if r.verdict is LayerVerdict.DIFFERS]
        skipped = [r for r in mine if r.verdict is LayerVerdict.NOT_COMPARED]
        known = [r for r in mine if r.verdict is LayerVerdict.DEVIATION]
        deviating = f", {len(known)} by a known {oracle} deviation" if known else ""
        lines.append(
            f"layers against {oracle}: {len(mine) - len(skipped)} compared, {len(differ)} differ"
            f"{deviating}, {len(skipped)} not compared"
        )
        if known:
            lines.append(f"  first known deviation: {known[0].layer} output {known[0].port}: {known[0].note}")
        first = first_divergence(mine)
        if first is not None:
            lines.append(f"  first divergent layer: {first.describe()}")
        largest = 0.0
        for r in mine:
            if r.max_abs is None or not math.isfinite(r.max_abs) or r.max_abs == 0:
                continue
            if largest and r.max_abs >= GROWTH * largest:
                lines.append(
                    f"  error grows x{r.max_abs / largest:.3g} at {r.layer} output {r.port}: "
                    f"max abs {r.max_abs:.3g} (was {largest:.3g})"
                )
            largest = max(largest, r.max_abs)
        if skipped:
            lines.append(f"  first not compared: {skipped[0].layer}: {skipped[0].note}")
    return lines


def render_layers(rows: Sequence[LayerRow]) -> list[str]:
    """The table, then :func:`summary`."""
    if not rows:
        return ["layers: nothing to compare"]
    width = min(max(len(r.layer) for r in rows), 90)
    head = (
        f"{'oracle':<10} {'layer':<{width}} {'out':>3}  {'type':<20} {'max abs':>10} {'max rel':>10}  "
        f"{'tolerance':<22} verdict"
    )
    lines = [
        f"{r.oracle:<10} {r.layer[:width]:<{width}} {r.port:>3}  {r.type:<20} {_num(r.max_abs):>10} "
        f"{_num(r.max_rel):>10}  {r.tolerance:<22} {r.verdict.value}"
        for r in rows
    ]
    return [head, *lines, *summary(rows)]


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"
