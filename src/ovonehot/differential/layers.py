"""``ovonehot diff --all-layers``: every node's outputs against OpenVINO, layer by layer.

ovonehot's value of every node output (an observer on ``Model.run``) is compared with
the same output in OpenVINO: the reference keeps every node's tensor (and runs up to
the ops it has no evaluate for: what depends on one is *not compared*, naming it), the
CPU plugin is given every inner output as an extra model output (which can change what
it fuses; the outputs proper are still the plugin's).  Outputs are matched by layer
name and port.  The table gives per layer its type, the largest absolute and relative
error, the tolerance (bit for bit for copies and integers, else diff's default or the
global ``--atol/--rtol``) and a verdict; below it, the first layer that differs and the
layers where the error grows tenfold or more over the largest error seen before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OpenVINOError
from ..model import Model
from ..oracle.common import Refusal
from .comparator import Tolerances
from .compare import Tolerance, compare, error_size
from .explain import NOT_COMPUTED
from .runners import Intermediates, OracleRunner, OvonehotRunner

GROWTH = 10.0  # an error this many times the largest before it is where the error grows


@dataclass(frozen=True, slots=True)
class LayerRow:
    """One node output compared against one oracle (``--all-layers``)."""

    oracle: str
    layer: str  # node.describe()
    port: int
    type: str
    max_abs: float | None
    max_rel: float | None
    tolerance: str
    verdict: str  # "PASS", "differs", "not compared"
    note: str = ""
    node: tuple[int, str, str, str] = (-1, "", "", "")  # the layer's (id, name, type, version), for JSON
    limits: Tolerance | None = None  # the tolerance itself (``tolerance`` is its text), for JSON

    def as_json(self) -> dict[str, Any]:
        return {
            "oracle": self.oracle,
            "layer": None
            if self.node[0] < 0
            else dict(zip(("id", "name", "type", "version"), self.node, strict=True)),
            "description": self.layer,
            "port": self.port,
            "type": self.type,
            "max_abs_error": self.max_abs,
            "max_rel_error": self.max_rel,
            "tolerance": None if self.limits is None else self.limits.as_json(),
            "verdict": self.verdict,
            "note": self.note,
        }


def compare_layers(
    model: Model, inputs: Mapping[str, np.ndarray], runners: Sequence[OracleRunner], tolerances: Tolerances
) -> list[LayerRow]:
    """One row per (oracle, computed node output), in topological order, for each runner that
    keeps intermediate tensors (OpenVINO's)."""
    # ovonehot refusing the inputs: the layers it computed before are still compared.
    mine = OvonehotRunner(model).intermediates(inputs, partial=True)
    rows: list[LayerRow] = []
    for runner in runners:
        if not runner.keeps_intermediates:
            continue
        try:
            theirs = runner.run(inputs, keep_intermediates=True)
        except OpenVINOError as exc:
            rows.append(
                LayerRow(runner.name, "(the whole model)", 0, "", None, None, "", "not compared", str(exc))
            )
            continue
        rows.extend(_rows(model, runner.name, mine, theirs.intermediates, theirs.blocked, tolerances))
    return rows


def _rows(
    model: Model,
    oracle: str,
    mine: Intermediates,
    theirs: Mapping[tuple[str, int], np.ndarray],
    blocked: Mapping[str, Refusal],
    tolerances: Tolerances,
) -> list[LayerRow]:
    rows = []
    for i, plan in enumerate(model.inference.plans):
        node = plan.node
        if node.type.lower() in NOT_COMPUTED:
            continue
        op = f"{node.type}-{node.version}"
        ident = (node.id, node.name, node.type, node.version)
        for k, info in enumerate(model.inference.outputs[i]):
            copy = plan.spec.copies_values  # OpSpec.copies_values: compared bit for bit
            tol = (
                Tolerance.exact()
                if copy or not info.element_type.is_real
                else tolerances.for_output("", copy=False)
            )
            key = (node.name, k)
            if (i, k) not in mine:
                why = "ovonehot did not compute it (it refused the inputs earlier)"
                rows.append(
                    LayerRow(
                        oracle, node.describe(), k, op, None, None, str(tol), "not compared", why, ident, tol
                    )
                )
                continue
            if key not in theirs:
                refusal = blocked.get(node.name)
                why = (
                    f"{oracle} did not compute it: {refusal.message}"
                    if refusal is not None
                    else f"{oracle} has no output {node.name!r}:{k} (renamed or folded away)"
                )
                rows.append(
                    LayerRow(
                        oracle, node.describe(), k, op, None, None, str(tol), "not compared", why, ident, tol
                    )
                )
                continue
            ours, other = mine[(i, k)], theirs[key]
            cmp = compare(ours, other, tol)
            size = _size(ours, other)
            verdict = "PASS" if cmp.equal else "differs"
            note = "" if cmp.equal else cmp.summary()
            rows.append(
                LayerRow(
                    oracle, node.describe(), k, op, size[0], size[1], str(tol), verdict, note, ident, tol
                )
            )
    return rows


def _size(ours: np.ndarray, theirs: np.ndarray) -> tuple[float | None, float | None]:
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.dtype == object or b.dtype == object or a.shape != b.shape:
        return None, None
    try:
        return error_size(a, b)
    except (TypeError, ValueError):
        return None, None


def summary(rows: Sequence[LayerRow]) -> list[str]:
    """Per oracle: counts, the first layer that differs, and where the error grows."""
    lines = []
    for oracle in dict.fromkeys(r.oracle for r in rows):
        mine = [r for r in rows if r.oracle == oracle]
        differ = [r for r in mine if r.verdict == "differs"]
        skipped = [r for r in mine if r.verdict == "not compared"]
        lines.append(
            f"layers against {oracle}: {len(mine) - len(skipped)} compared, {len(differ)} differ, "
            f"{len(skipped)} not compared"
        )
        if differ:
            first = differ[0]
            lines.append(f"  first divergent layer: {first.layer} output {first.port}: {first.note}")
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
        f"{_num(r.max_rel):>10}  {r.tolerance:<22} {r.verdict}"
        for r in rows
    ]
    return [head, *lines, *summary(rows)]


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"
