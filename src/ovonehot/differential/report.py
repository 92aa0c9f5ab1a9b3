"""A diff's report: the data (:class:`DiffReport`, its JSON) and the text ``ovonehot diff`` prints.

The verdicts carry the oracles worth trying instead as data (``OutputVerdict.try_oracles``);
the text names them as ``--oracle`` options, the one piece of the command line's syntax here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..oracle.common import OracleKind
from .compare import element_type_name, value_text
from .deviations import KNOWN
from .layers import FirstDivergence, LayerRow, render_layers
from .runners import OracleRun, OursRefused, OursRun
from .verdicts import OutputVerdict, Verdict


@dataclass
class DiffReport:
    model: str
    seed: int | None
    generated: bool
    inputs: dict[str, np.ndarray]
    ours: dict[str, np.ndarray] | None
    ours_error: str | None
    runs: dict[str, OracleRun]
    verdicts: list[OutputVerdict]
    versions: dict[str, str]
    strict: bool = False
    allow_partial: bool = False
    oracle_notes: dict[str, str] = field(default_factory=dict)  # oracle -> how it ran (plugin config, file)
    layers: list[LayerRow] | None = None  # --all-layers
    # oracle -> the first divergent layer (layers.first_divergence), wherever layers were compared
    first_divergent: dict[str, FirstDivergence] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)  # oracle -> what its child printed on stderr
    # ovonehot's run these verdicts judged (diff_model can judge it again against other oracles)
    ours_run: OursRun | OursRefused | None = field(default=None, repr=False, compare=False)

    @property
    def differences(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict not in (Verdict.PASS, Verdict.NOT_COMPARED)]

    @property
    def not_compared(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict is Verdict.NOT_COMPARED]

    @property
    def compared(self) -> list[OutputVerdict]:
        return [v for v in self.verdicts if v.verdict is not Verdict.NOT_COMPARED]

    @property
    def failures(self) -> list[OutputVerdict]:
        """What no known cause explains: ours wrong, unexplained, and outputs not compared for a reason
        nobody has explained (an oracle crashing or failing where ovonehot ran)."""
        return [
            v
            for v in self.verdicts
            if v.verdict.failing or (v.verdict is Verdict.NOT_COMPARED and not v.known)
        ]

    @property
    def exit_code(self) -> int:
        """1 for a difference (``strict``: any, known deviations too), for an output not compared
        (``allow_partial``: only when nobody knows why, or when nothing at all was compared)."""
        if self.strict and self.differences:
            return 1
        if any(v.verdict.failing for v in self.verdicts):
            return 1
        partial_ok = self.allow_partial and bool(self.compared) and all(v.known for v in self.not_compared)
        return 1 if self.not_compared and not partial_ok else 0

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for v in self.verdicts:
            out[v.verdict.value] += 1
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "seed": self.seed,
            "inputs_generated": self.generated,
            "inputs": {
                k: {"element_type": element_type_name(v), "shape": list(v.shape)}
                for k, v in self.inputs.items()
            },
            "ours_error": self.ours_error,
            "oracles": {
                k: {"error": r.error, "how": self.oracle_notes.get(k, ""), "missing": sorted(r.missing)}
                for k, r in self.runs.items()
            },
            "verdicts": [v.as_json() for v in self.verdicts],
            "counts": self.counts(),
            "exit_code": self.exit_code,
            "strict": self.strict,
            "allow_partial": self.allow_partial,
            "versions": self.versions,
            "layers": None if self.layers is None else [row.as_json() for row in self.layers],
            "first_divergent_layers": {k: f.as_json() for k, f in self.first_divergent.items()},
            "child_stderr": dict(self.stderr),
        }


def reason(v: OutputVerdict) -> str:
    """A verdict's reason, with the oracles to try instead named as ``--oracle`` options."""
    if not v.try_oracles:
        return v.reason
    return f"{v.reason}; try --oracle {' or '.join(v.try_oracles)}"


def with_fallback(report: DiffReport, fallback: DiffReport) -> DiffReport:
    """``report`` with each output its oracle could not compute judged by ``fallback``'s oracle
    instead (the default's fallback to the CPU plugin), each such verdict saying what it stands
    in for and why; the fallback's runs and versions join the report's."""
    stand_ins = {v.name: v for v in fallback.verdicts}
    verdicts = []
    for v in report.verdicts:
        refused = v.verdict is Verdict.NOT_COMPARED and v.refusal is not None  # (the oracle's refusal)
        stand_in = stand_ins.get(v.name) if refused else None
        if stand_in is None:
            verdicts.append(v)
            continue
        said = f"{v.oracle} could not compute it"
        why = v.reason if v.reason.startswith(said) else f"{said}: {v.reason}"
        codes = ", ".join(dict.fromkeys(e.code for e in v.events))
        if codes:  # (the refusal's known cause: the stand-in verdict does not list its events)
            why = why.replace("(a known refusal, named below)", f"(a known refusal: {codes})")
        verdicts.append(dataclasses.replace(stand_in, instead_of=why))
    return dataclasses.replace(
        report,
        verdicts=verdicts,
        runs={**report.runs, **fallback.runs},
        versions={**fallback.versions, **report.versions},
        oracle_notes={**report.oracle_notes, **fallback.oracle_notes},
        first_divergent={**fallback.first_divergent, **report.first_divergent},
        stderr={**fallback.stderr, **report.stderr},
    )


def report_json(report: DiffReport) -> dict[str, Any]:
    """The report's JSON, each reason as the text report says it."""
    data = report.as_json()
    for row, v in zip(data["verdicts"], report.verdicts, strict=True):
        row["reason"] = reason(v)
    return data


# Layers listed per deviation code in the text report (the JSON lists them all).
EVENT_LINES = 3


def _event_lines(v: OutputVerdict) -> list[str]:
    """Each deviation (or known refusal) once, with the first layers where it acts."""
    kind = "known refusal" if v.verdict is Verdict.NOT_COMPARED else "deviation"
    by_code: dict[str, list[str]] = {}
    for e in v.events:
        by_code.setdefault(e.code, []).append(f"{e.where}" + (f": {e.detail}" if e.detail else ""))
    lines = []
    for code, places in by_code.items():
        summary = KNOWN[code].summary if code in KNOWN else ""
        lines.append(f"    {kind} {code}: {summary}")
        if v.refusal is not None and v.refusal.cause == "no-evaluate":  # (the why line names that op)
            continue
        lines.extend(f"      at {p}" for p in places[:EVENT_LINES])
        if len(places) > EVENT_LINES:
            lines.append(f"      and at {len(places) - EVENT_LINES} more layers")
    return lines


def render(report: DiffReport) -> str:
    """The text report: inputs, each oracle's verdict per output with why, the summary line."""
    lines = []
    origin = f"generated with seed {report.seed}" if report.generated else "given"
    lines.append(f"ovonehot diff {report.model}  (OpenVINO {report.versions.get('openvino', '?')})")
    shown = ", ".join(f"{k}: {element_type_name(v)}{list(v.shape)}" for k, v in report.inputs.items())
    lines.append(f"inputs ({origin}): {shown or 'none'}")
    if report.ours_error:
        lines.append(f"ovonehot refuses the inputs: {report.ours_error}")
    for oracle, how in report.oracle_notes.items():
        if oracle != OracleKind.REFERENCE or len(report.oracle_notes) > 1:  # (the default needs no note)
            lines.append(f"{oracle}: {how}")
    for oracle, run in report.runs.items():
        if run.error:
            lines.append(f"{oracle}: {run.error}")
    lines.extend(_stderr_lines(report))
    for v in report.verdicts:
        lines.extend(_render_verdict(v))
    if report.layers is not None:
        lines.extend(render_layers(report.layers))
    lines.extend(_render_summary(report))
    return "\n".join(lines)


def _render_verdict(v: OutputVerdict) -> list[str]:
    """One output's verdict: a line for a pass, else the verdict with why, size, events, comparison."""
    head = f"[{v.oracle}] {v.name}: {v.verdict.value}"
    instead = [f"    instead of: {v.instead_of}"] if v.instead_of else []
    if v.verdict is Verdict.PASS:
        extra = reason(v) or f"compared {v.tolerance}"
        if v.envelope is not None:
            return [f"{head} ({extra})", *v.envelope.lines(v.oracle), *instead]
        notes = f"; note: {'; '.join(v.comparison.notes)}" if v.comparison and v.comparison.notes else ""
        return [f"{head} ({extra}){notes}", *instead]
    lines = [head, *instead]
    if v.reason:
        lines.append(f"    why: {reason(v)}")
    if v.size is not None:
        lines.append(f"    size: max abs error {v.size[0]:.3g}, max rel error {v.size[1]:.3g}")
    lines.extend(_event_lines(v))
    if v.envelope is not None:
        lines.extend(v.envelope.lines(v.oracle))
    c = v.comparison
    if c is not None:
        lines.append(f"    compared {v.tolerance}: {c.summary()}")
        if c.kind == "values":
            lines.extend(
                f"      at {list(pos)}: ours {value_text(a)}, {v.oracle} {value_text(b)}"
                for pos, a, b in zip(c.positions, c.ours, c.theirs, strict=True)
            )
            if c.max_abs_error is not None:
                tol = f"atol >= {c.passing_atol:g}"
                if c.passing_rtol is not None:
                    tol += f" or rtol >= {c.passing_rtol:g}"
                lines.append(f"      largest error {c.max_abs_error:g}; would pass with {tol}")
        lines.extend(f"      note: {note}" for note in c.notes)
    lines.extend(f"    {o}" for o in v.origin)
    if v.first_node:
        lines.append(f"    first divergent layer: {v.first_node}")
    return lines


def _stderr_lines(report: DiffReport) -> list[str]:
    """What each oracle's child process printed on stderr (unless an error or a reason quotes it:
    a crash's description ends with what the child printed)."""
    said = [run.error or "" for run in report.runs.values()] + [v.reason for v in report.verdicts]
    return [
        f"{oracle}: its child process printed on stderr: {text}"
        for oracle, text in report.stderr.items()
        if not any(text in s for s in said)
    ]


def _render_summary(report: DiffReport) -> list[str]:
    """The summary line, and what was not compared."""
    lines = []
    counts = report.counts()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    flags = [f for f, on in (("--strict", report.strict), ("--allow-partial", report.allow_partial)) if on]
    lines.append(
        f"summary: {summary or 'no outputs'} -> exit {report.exit_code}"
        + (f" ({', '.join(flags)})" if flags else "")
    )
    missing = report.not_compared
    if missing:
        n = len(missing)
        if not report.compared and report.ours_error is not None:
            lines.append(
                f"nothing was compared: {n} output(s) not compared; ovonehot refuses these inputs: "
                "give inputs the model accepts (--inputs, --shape, --val-range)"
            )
        elif not report.compared:
            lines.append(f"nothing was compared: {n} output(s) not compared; try another --oracle")
        elif not report.allow_partial:
            lines.append(
                f"{n} output(s) not compared: exit 1; --allow-partial accepts outputs an oracle "
                "cannot compute for a known reason"
            )
        elif not all(v.known for v in missing):
            lines.append(
                f"{n} output(s) not compared, some for no known reason: exit 1 even with --allow-partial"
            )
        else:
            lines.append(f"{n} output(s) not compared (--allow-partial); {len(report.compared)} compared")
    return lines
