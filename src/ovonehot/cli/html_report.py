"""``ovonehot diff --report REPORT.html``: the diff report as one self-contained HTML file.

The page has a header (model, command, oracles and how they ran, versions, inputs),
a verdict table (one row per output and oracle, with what explains the verdict),
for every output that differs a plot of where and how much, drawn from the verdict's
comparison (its positions and counts are the text's and the JSON's: a heatmap of the
absolute error where the values differ beyond the tolerance, for outputs of rank >= 2, the
leading dims flattened into rows; a histogram of those errors), and with ``--all-layers``
the per-layer table and a plot of the error per layer on a log scale with the first
divergent layer (:func:`ovonehot.differential.layers.first_divergence`) marked.  Plots are
PNGs made by matplotlib (Agg backend), embedded as base64: the file needs nothing beside
it.  matplotlib is imported only here, only when ``--report`` is used.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UsageError
from ..npyio import write_text

if TYPE_CHECKING:
    from ..differential.layers import LayerRow
    from ..differential.report import DiffReport
    from ..differential.verdicts import OutputVerdict

# A heatmap shows at most this many rows and columns; larger outputs are max-pooled down to it.
HEATMAP_MAX = 400
# The per-layer plot labels its x axis with layer names when there are at most this many layers.
LABELLED_LAYERS = 40

_VERDICT_CLASS = {
    "PASS": "pass",
    "plugin deviation": "known",
    "precision difference": "known",
    "rounding difference": "known",
    "choice difference": "known",
    "not compared": "skip",
}


def check_available() -> None:
    """Refuse ``--report`` before any work when matplotlib is not installed."""
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError("--report needs matplotlib: pip install 'ovonehot[report]'")


def write(path: str | os.PathLike[str], report: DiffReport, command: Sequence[str]) -> None:
    """Write the report to ``path`` atomically."""
    write_text(path, render(report, command))


def render(report: DiffReport, command: Sequence[str]) -> str:
    from ..differential.verdicts import Verdict

    e = html.escape
    parts = [_HEAD.replace("TITLE", e(f"ovonehot diff {report.model}"))]
    exit_code = report.exit_code
    parts.append(f"<h1>ovonehot diff <code>{e(report.model)}</code></h1>")
    counts = ", ".join(f"{n} {k}" for k, n in report.counts().items() if n) or "no outputs"
    parts.append(
        f'<p class="summary {"ok" if exit_code == 0 else "fail"}">{e(counts)} &rarr; exit {exit_code}'
        + (" (--strict)" if report.strict else "")
        + (" (--allow-partial)" if report.allow_partial else "")
        + "</p>"
    )
    parts.append(_header(report, command))
    parts.append("<h2>Verdicts</h2>")
    parts.append(_verdict_table(report))
    shown = [v for v in report.verdicts if v.verdict not in (Verdict.PASS, Verdict.NOT_COMPARED)]
    for v in shown:
        plot = _output_plot(v)
        if plot is not None:
            parts.append(f"<h3>{e(v.name)} against {e(v.oracle)}: {e(v.verdict.value)}</h3>")
            counted = _counted(v)
            parts.append(f'<p class="plot-caption">{e(counted)}</p>')
            parts.append(_img(plot, f"errors of {v.name} against {v.oracle}: {counted}"))
    if report.layers is not None:
        parts.append("<h2>Per layer (--all-layers)</h2>")
        from ..differential.layers import summary

        parts.extend(f'<p class="layer-summary">{e(line.strip())}</p>' for line in summary(report.layers))
        plot = _layers_plot(report.layers)
        if plot is not None:
            parts.append(_img(plot, "error per layer"))
        n = len(report.layers)
        parts.append(
            f"<details{' open' if n <= 200 else ''}><summary>the per-layer table ({n} rows)</summary>"
        )
        parts.append(_layer_table(report.layers))
        parts.append("</details>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


# -- tables ---------------------------------------------------------------------------------------


def _header(report: DiffReport, command: Sequence[str]) -> str:
    e = html.escape
    rows = [
        ("model", f"<code>{e(report.model)}</code>"),
        ("command", f"<code>{e(' '.join(_quote(c) for c in command))}</code>"),
    ]
    for oracle in report.runs:
        how = report.oracle_notes.get(oracle, "")
        err = report.runs[oracle].error
        rows.append(
            (f"oracle {oracle}", e(how or "-") + (f'<br><span class="bad">{e(err)}</span>' if err else ""))
        )
    if report.ours_error:
        rows.append(("ovonehot", f'<span class="bad">refuses the inputs: {e(report.ours_error)}</span>'))
    for oracle, text in report.stderr.items():
        rows.append((f"{e(oracle)}: stderr of its child process", f"<code>{e(text)}</code>"))
    rows.append(("versions", e(", ".join(f"{k} {v}" for k, v in report.versions.items()))))
    origin = f"generated with seed {report.seed}" if report.generated else "given"
    from ..differential.compare import element_type_name

    inputs = "<br>".join(
        f"<code>{e(k)}</code>: {e(element_type_name(v))}{list(v.shape)}" for k, v in report.inputs.items()
    )
    rows.append((f"inputs ({e(origin)})", inputs or "none"))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="header">{body}</table>'


def _verdict_table(report: DiffReport) -> str:
    e = html.escape
    head = "<tr><th>output</th><th>oracle</th><th>verdict</th><th>tolerance</th><th>explanation</th></tr>"
    rows = []
    for v in report.verdicts:
        cls = _VERDICT_CLASS.get(v.verdict.value, "bad")
        why = "<br>".join(e(line) for line in _explanation(v))
        rows.append(
            f"<tr><td><code>{e(v.name)}</code></td><td>{e(v.oracle)}</td>"
            f'<td class="verdict {cls}">{e(v.verdict.value)}</td><td>{e(str(v.tolerance))}</td>'
            f"<td>{why}</td></tr>"
        )
    return f'<table class="verdicts">{head}{"".join(rows)}</table>'


def _explanation(v: OutputVerdict) -> list[str]:
    """What the text report says about a verdict, line by line."""
    from ..differential.compare import value_text
    from ..differential.deviations import KNOWN

    lines = []
    if v.reason:
        from ..differential.report import reason

        lines.append(reason(v))
    if v.size is not None:
        lines.append(f"max abs error {v.size[0]:.3g}, max rel error {v.size[1]:.3g}")
    for ev in v.events:
        summary = KNOWN[ev.code].summary if ev.code in KNOWN else ""
        lines.append(f"{ev.code}: {summary}" + (f" (at {ev.where})" if ev.where else ""))
    c = v.comparison
    if c is not None:
        lines.append(c.summary())
        if c.kind == "values":
            for pos, a, b in list(zip(c.positions, c.ours, c.theirs, strict=True))[:5]:
                lines.append(f"at {list(pos)}: ours {value_text(a)}, {v.oracle} {value_text(b)}")
            if c.max_abs_error is not None and c.passing_atol is not None:
                tol = f"atol >= {c.passing_atol:g}"
                if c.passing_rtol is not None:
                    tol += f" or rtol >= {c.passing_rtol:g}"
                lines.append(f"largest error {c.max_abs_error:g}; would pass with {tol}")
        lines.extend(f"note: {n}" for n in c.notes)
    lines.extend(v.origin)
    if v.first_node:
        lines.append(f"first divergent layer: {v.first_node}")
    if not lines:
        lines.append(f"compared {v.tolerance}")
    return lines


def _layer_table(rows: Sequence[LayerRow]) -> str:
    from ..differential.layers import LayerVerdict, by_oracle, first_divergence

    e = html.escape
    head = (
        "<tr><th>oracle</th><th>layer</th><th>out</th><th>type</th><th>max abs</th><th>max rel</th>"
        "<th>tolerance</th><th>verdict</th><th>note</th></tr>"
    )
    first = {f.row for oracle in by_oracle(rows).values() if (f := first_divergence(oracle)) is not None}
    body = []
    for r in rows:
        cls = {LayerVerdict.PASS: "pass", LayerVerdict.DIFFERS: "bad", LayerVerdict.DEVIATION: "known"}.get(
            r.verdict, "skip"
        )
        mark = ' class="first"' if r in first else ""
        body.append(
            f"<tr{mark}><td>{e(r.oracle)}</td><td><code>{e(r.layer)}</code></td><td>{r.port}</td>"
            f'<td>{e(r.type)}</td><td class="num">{_num(r.max_abs)}</td>'
            f'<td class="num">{_num(r.max_rel)}</td><td>{e(r.tolerance)}</td>'
            f'<td class="verdict {cls}">{e(r.verdict.value)}</td><td>{e(r.note)}</td></tr>'
        )
    return f'<table class="layers">{head}{"".join(body)}</table>'


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _quote(arg: str) -> str:
    return arg if arg and all(ch.isalnum() or ch in "-_./:=,[]" for ch in arg) else repr(arg)


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


# -- plots ----------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    _pyplot().close(fig)
    return buf.getvalue()


def _layers_plot(rows: Sequence[LayerRow]) -> bytes | None:
    """Max abs error per layer (log scale), one line per oracle; exact layers on the floor;
    the first divergent layer marked."""
    from ..differential.layers import first_divergence

    oracles = list(dict.fromkeys(r.oracle for r in rows))
    errors = [r.max_abs for r in rows if r.max_abs is not None and math.isfinite(r.max_abs) and r.max_abs > 0]
    if not any(r.max_abs is not None for r in rows):
        return None
    floor = min(errors) / 10 if errors else 1e-8
    plt = _pyplot()
    n = max(sum(1 for r in rows if r.oracle == o) for o in oracles)
    fig, ax = plt.subplots(figsize=(min(max(6.0, 0.28 * n), 16.0), 4.2))
    for oracle in oracles:
        mine = [r for r in rows if r.oracle == oracle]
        xs = list(range(len(mine)))
        ys = [_plotted(r.max_abs, floor) for r in mine]
        size = 4 if n <= 100 else 2.5
        # Exact and not compared layers break the line (NaN): it joins only neighbouring errors.
        line = ax.plot(
            xs,
            [y if y > floor else math.nan for y in ys],
            linestyle="-" if n <= LABELLED_LAYERS else "none",
            linewidth=0.8,
            marker="o",
            markersize=size,
            label=f"against {oracle}",
        )[0]
        exact = [
            x
            for x, r in zip(xs, mine, strict=True)
            if r.max_abs is not None and _plotted(r.max_abs, floor) == floor
        ]
        ax.plot(
            exact, [floor] * len(exact), linestyle="none", marker="_", markersize=6, color=line.get_color()
        )
        skipped = [x for x, r in zip(xs, mine, strict=True) if r.max_abs is None]
        if skipped:
            ax.plot(
                skipped,
                [floor] * len(skipped),
                linestyle="none",
                marker="x",
                markersize=size + 1,
                color=line.get_color(),
            )
        divergence = first_divergence(mine)
        first = None if divergence is None else mine.index(divergence.row)
        if first is not None:
            ax.axvline(first, color=line.get_color(), linestyle="--", linewidth=1)
            ax.annotate(
                f"first divergent ({oracle}): {_short(_layer_name(mine[first].layer), 32)}",
                (first, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(4, -12 - 12 * oracles.index(oracle)),
                textcoords="offset points",
                fontsize=8,
                color=line.get_color(),
            )
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 2)
    ax.set_ylabel("max abs error")
    ax.set_xlabel("layer (topological order)")
    ax.set_xlim(-0.5, max(n - 0.5, 1.5))
    ax.set_ylim(top=max(errors) * 30 if errors else 1.0)
    ax.set_title(f"max abs error per layer (0 drawn at {floor:.1g} as -, x: not compared)", fontsize=10)
    first_oracle = [r for r in rows if r.oracle == oracles[0]]
    if len(first_oracle) <= LABELLED_LAYERS:
        ax.set_xticks(range(len(first_oracle)))
        ax.set_xticklabels(
            [_short(_layer_name(r.layer), 24) for r in first_oracle], rotation=60, ha="right", fontsize=7
        )
    ax.grid(True, which="major", alpha=0.3)
    if len(oracles) > 1:
        ax.legend(fontsize=8, loc="upper right", framealpha=0.9)
    return _png(fig)


def _plotted(value: float | None, floor: float) -> float:
    if value is None or not math.isfinite(value) or value <= 0:
        return floor
    return value


def _layer_name(describe: str) -> str:
    """``OneHot-1 'oh' (id 3)`` -> ``oh``, else the text as is."""
    start, end = describe.find("'"), describe.rfind("'")
    return describe[start + 1 : end] if 0 <= start < end else describe


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _output_plot(v: OutputVerdict) -> bytes | None:
    """A heatmap (rank >= 2) of the abs error where the values differ and a histogram of those
    errors, both drawn from the verdict's comparison: its count is the one the text and the JSON
    give."""
    c = v.comparison
    if c is None or c.kind != "values" or c.where is None or c.errors is None or c.count == 0:
        return None
    differing = _as_float(c.errors)
    if differing is None:
        return None
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    where = np.asarray(c.where)
    heat = where.ndim >= 2
    fig, axes = plt.subplots(1, 2 if heat else 1, figsize=(11.0 if heat else 6.0, 4.2), squeeze=False)
    if heat:
        err = np.zeros(where.shape)
        err[where] = differing
        _heatmap(fig, axes[0][0], err)
    ax = axes[0][-1]
    finite = differing[np.isfinite(differing)]
    n_inf = int(differing.size - finite.size)
    _histogram(ax, finite)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("abs error at differing positions")
    ax.set_ylabel("positions")
    extra = f"; {n_inf} NaN/inf mismatches not drawn" if n_inf else ""
    ax.set_title(f"{_counted(v)}{extra}", fontsize=10)
    fig.suptitle(f"{v.name}: ours against {v.oracle}", fontsize=11)
    return _png(fig)


def _counted(v: OutputVerdict) -> str:
    """The count of differing positions, as the comparison behind the verdict gives it."""
    c = v.comparison
    return "" if c is None else f"{c.count} of {c.total} positions differ ({v.tolerance})"


def _heatmap(fig: Any, ax: Any, err: np.ndarray) -> None:
    """The abs error over an output of rank >= 2, leading dims flattened into rows."""
    from matplotlib.ticker import MaxNLocator

    grid = err.reshape(-1, err.shape[-1])
    grid, pooled = _pool(grid)
    finite = grid[np.isfinite(grid)]
    top = float(finite.max()) if finite.size else 1.0
    shown = np.where(np.isfinite(grid), grid, top)
    im = ax.imshow(shown, aspect="auto", interpolation="nearest", cmap="magma_r", vmin=0.0, vmax=top or 1.0)
    fig.colorbar(im, ax=ax, label="abs error")
    lead = "x".join(str(d) for d in err.shape[:-1])
    ax.set_ylabel(f"flattened leading dims ({lead})" if err.ndim > 2 else "dim 0")
    ax.set_xlabel(f"last dim ({err.shape[-1]})")
    title = f"abs error where it differs, shape {list(err.shape)}"
    if pooled:
        title += f" (max over {pooled[0]}x{pooled[1]} blocks)"
    ax.set_title(title, fontsize=10)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))


def _histogram(ax: Any, finite: np.ndarray) -> None:
    """The finite errors: log bins when they span orders of magnitude."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if low > 0 and high / low >= 100:  # errors over orders of magnitude: log bins
        ax.hist(finite, bins=np.logspace(math.log10(low), math.log10(high), 30), color="#c0392b")
        ax.set_xscale("log")
    elif finite.size:
        span = high - low
        wide = span > 1e-6 * max(abs(high), 1e-30)
        ax.hist(
            finite,
            bins=30 if wide else 1,
            range=None if wide else (low - 0.5 * abs(low or 1), high + 0.5 * abs(high or 1)),
            color="#c0392b",
        )
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:.4g}"))


def _as_float(x: np.ndarray) -> np.ndarray | None:
    arr = np.asarray(x)
    if arr.dtype == object or arr.dtype.kind in "SUc":
        return None
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        return None


def _pool(grid: np.ndarray) -> tuple[np.ndarray, tuple[int, int] | None]:
    """Max-pool a 2-D array down to at most HEATMAP_MAX x HEATMAP_MAX (differences stay visible)."""
    rows, cols = grid.shape
    fr, fc = -(-rows // HEATMAP_MAX), -(-cols // HEATMAP_MAX)
    if fr == 1 and fc == 1:
        return grid, None
    padded = np.zeros((-(-rows // fr) * fr, -(-cols // fc) * fc))
    padded[:rows, :cols] = grid
    pooled = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc).max(axis=(1, 3))
    return pooled, (fr, fc)


_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TITLE</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 1150px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.4em; margin-bottom: 0.3em; word-break: break-all; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
h3 { font-size: 1em; margin-top: 1.2em; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; width: 100%; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
table.header th { width: 12em; }
table.header td code { word-break: break-all; }
table.layers { table-layout: fixed; }
table.layers td { overflow-wrap: anywhere; }
table.layers th:nth-child(1) { width: 6em; } table.layers th:nth-child(2) { width: 30%; }
table.layers th:nth-child(3) { width: 2.5em; } table.layers th:nth-child(4) { width: 9em; }
table.layers th:nth-child(5), table.layers th:nth-child(6) { width: 5.5em; }
table.layers th:nth-child(7) { width: 8em; } table.layers th:nth-child(8) { width: 6.5em; }
table.verdicts td { overflow-wrap: anywhere; }
table.verdicts td:nth-child(1), table.verdicts td:nth-child(2) { white-space: nowrap; }
details summary { cursor: pointer; margin: 0.5em 0; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.verdict { font-weight: 600; white-space: nowrap; }
.pass { color: #1e7e34; }
.known { color: #9a6700; }
.skip { color: #666; }
.bad { color: #b00020; }
tr.first td { background: #fff0f0; }
p.summary { font-size: 1.05em; font-weight: 600; padding: 0.4em 0.6em; border-radius: 4px; }
p.summary.ok { background: #e6f4ea; }
p.summary.fail { background: #fde7e9; }
p.layer-summary { margin: 0.2em 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85em; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
</style></head><body>"""
