"""``ovonehot reduce MODEL``: shrink a model to the few layers behind a difference.

Runs ``diff`` on the model (same inputs, oracles, tolerances and plugin options as
``diff``; a replay folder brings its own), picks the first output that differs against
the reference or the plugin (or ``--outputs NAME``), and searches for the smallest
subgraph that keeps that verdict: bisection over the topological order, then
single-layer removal; inputs of the cut become Parameters fed with the values
ovonehot computed for them.  Each diff of the search is one progress line on stderr
(and, on a terminal, a bar counting them).  The result is written as a replay folder
(``ovonehot diff DIR`` replays it; ``ovonehot repro DIR`` turns it into a standalone
OpenVINO script for a bug report).

Exit status as ``diff`` gives it: for the reduced model when a difference was reduced
(1 when it is one nothing explains; 0 for a named plugin deviation), for the model itself
when nothing differs (0 when every output passed; 1 when some could not be compared);
2-4 for errors as everywhere (a bad ``--out-dir`` is refused before anything runs).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from .. import progress
from ..atomic import check_output_dir, check_writable_dir, scratch
from ..differential import replay as _replay
from ..differential.diff import DiffOptions, diff_model, oracle_runners
from ..differential.gen_inputs import refusal
from ..differential.reduce import (
    Fails,
    Reduction,
    candidate_oracle,
    diff_candidate,
    failing_verdicts,
    keeps_difference,
    reduce_model,
    reduced_tolerances,
)
from ..differential.report import DiffReport, render, report_json
from ..differential.session import Prepared, cpu_fallback, made_again, prepare
from ..differential.subgraph import write_candidate
from ..differential.verdicts import OutputVerdict
from ..errors import UsageError
from ..graph import Graph
from ..model import load
from ..oracle.common import OracleKind
from ..suggest import did_you_mean
from ._json import add_json_options, check_json_out, emit, human_output
from ._options import (
    add_input_options,
    add_oracle_options,
    add_out_dir_option,
    add_renamed,
    add_tolerance_options,
    check_plugin_settings,
    parse_diff_settings,
)
from ._paths import diff_reads, refuse_out_dir_over, refuse_writing_over

# The oracles that can run a cut-down IR: onnxruntime needs the .onnx, saved outputs the whole model.
REDUCIBLE = (OracleKind.REFERENCE, OracleKind.CPU)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "reduce",
        help="shrink a model to the smallest subgraph that keeps a difference, as a replay folder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", help="model .xml (the .bin beside it is read too) or .onnx, or a replay folder")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    add_input_options(p)
    add_oracle_options(p)
    add_tolerance_options(p)
    p.add_argument(
        "--outputs",
        dest="output_name",
        metavar="NAME",
        help="the differing output to reduce around (default: the first one that differs)",
    )
    add_renamed(p, {"--output": "--outputs (the output to reduce around; the folder is --out-dir)"})
    add_out_dir_option(p, "where to write the reduced replay folder", required=True)
    add_json_options(p, "what was written (the reduced replay folder, the sizes, the final diff)")
    p.set_defaults(func=reduce_command)


def reduce_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _reduce_command(args)


def _reduce_command(args: argparse.Namespace) -> int:
    settings = parse_diff_settings(args)
    # Bad paths are refused before the model is read or OpenVINO started.
    check_output_dir(args.out_dir, "--out-dir")
    check_writable_dir(args.out_dir, "--out-dir")
    check_json_out(args)
    reads = diff_reads(args.model, args.bin_path, args.inputs, args.expected)
    refuse_writing_over(reads, ("--json-out", args.json_out))
    refuse_out_dir_over(reads, args.out_dir)
    check_plugin_settings(settings.plugin)
    run = prepare(args.model, settings)
    if run.generated and refusal(run.model, run.inputs) is not None:
        run = made_again(run, settings)  # (as diff makes them: the same inputs to reduce on)
        print("ovonehot refuses the generated inputs: made again within the declared shapes and dims")
    _check_output_name(args.output_name, run)
    if not set(run.oracles) & set(REDUCIBLE):
        raise UsageError(
            f"reduce diffs each cut-down IR against the reference or the cpu oracle; "
            f"{', '.join(o.value for o in run.oracles)} cannot run one (add --oracle reference or cpu)"
        )
    started = time.monotonic()
    report = _diff(run, fallback=not settings.oracles)
    seconds = time.monotonic() - started
    target = _target(args, run, report)
    if target is None:
        print(render(report))
        print("nothing to reduce: no output differs against the reference or the cpu oracle")
        emit(
            args,
            {
                "model": str(args.model),
                "reduced": False,
                "folder": None,
                "reason": "nothing differs",
                "diff": report_json(report),
            },
        )
        return report.exit_code
    print(f"reducing around output {target.name!r}: {target.verdict.value} against {target.oracle}")
    print(_estimate(run, seconds), file=sys.stderr, flush=True)
    with progress.bar(None, "reduce", "diff") as shown:
        fails = _with_progress(keeps_difference(target, run.plugin), shown)
        reduction = reduce_model(
            run.model, run.inputs, target.name, fails, log=lambda m: shown.write(f"  {m}")
        )
    final, folder = _save_reduction(args, target, reduction, run)
    print(render(final))
    print(
        f"reduced {reduction.original_ops} ops to {len(reduction.candidate.keep)} "
        f"({reduction.tries} diffs): {folder} (replay: ovonehot diff {folder}; "
        f"bug-report script: ovonehot repro {folder})"
    )
    emit(
        args,
        {
            "model": str(args.model),
            "reduced": True,
            "folder": str(folder),
            **_outcome(target, reduction),
            "replay": ["ovonehot", "diff", str(folder)],
            "diff": {**report_json(final), "model": str(Path(folder) / "model.xml")},
        },
    )
    return final.exit_code


def _diff(run: Prepared, fallback: bool = False) -> DiffReport:
    """The model diffed as ``diff`` would, OpenVINO isolated; with ``fallback`` (no --oracle
    given), the outputs the reference cannot compute judged against the CPU plugin, as ``diff``
    does by default."""
    runners = oracle_runners(
        run.oracles,
        run.model,
        run.xml,
        run.bin_path,
        plugin=run.plugin,
        expected=run.expected,
        expected_source=run.expected_source,
        isolate=True,
    )
    options = DiffOptions(
        run.tolerances, run.strict, locate=False, source=run.xml, seed=run.seed, generated=run.generated
    )
    report = diff_model(run.model, run.inputs, runners, options)
    return cpu_fallback(report, run, options) if fallback else report


def _target(args: argparse.Namespace, run: Prepared, report: DiffReport) -> OutputVerdict | None:
    """The first output that differs against an oracle that runs a cut-down IR (the one
    ``--outputs`` names, if given), or None."""
    failing = failing_verdicts(report, args.output_name or None)
    reducible = [v for v in failing if candidate_oracle(v) in REDUCIBLE]
    return reducible[0] if reducible else None


def _check_output_name(name: str | None, run: Prepared) -> None:
    """``--outputs NAME`` names an output of the model (before any diff runs)."""
    names = [d.name for d in run.model.outputs]
    if name and name not in names:
        listed = ", ".join(repr(n) for n in names[:20])
        raise UsageError(
            f"--outputs {name!r}: the model has no such output{did_you_mean(name, names)}; its outputs are: {listed}"
        )


def _estimate(run: Prepared, seconds: float) -> str:
    """How long the search may take: its bisections over the model's ops, timed by the model's
    own diff (a candidate is smaller, so usually quicker)."""
    ops = sum(1 for n in run.model.graph.nodes if n.type not in ("Parameter", "Const", "Result"))
    bisections = 2 * math.ceil(math.log2(ops + 1)) + 2
    return (
        f"  estimate: {ops} ops; bisecting them takes about {bisections} diffs "
        f"(~{bisections * seconds:.0f} s at {seconds:.1f} s a diff, the model's own), then one diff "
        "per op tried for removal"
    )


def _with_progress(fails: Fails, shown: progress.Bar) -> Fails:
    """``fails``, saying on stderr after each diff how big the candidate was, what it kept and
    how long the search has taken (a line each; on a terminal, a bar counting the diffs too)."""
    start, count = time.monotonic(), 0

    def tried(graph: Graph, feeds: dict[str, Any]) -> bool:
        nonlocal count
        count += 1
        kept = fails(graph, feeds)
        ops = sum(1 for n in graph.nodes if n.type not in ("Parameter", "Const", "Result"))
        elapsed = time.monotonic() - start
        shown.update()
        shown.note(f"{ops} ops, {'keeps' if kept else 'loses'} the difference")
        shown.write(
            f"  diff {count}: {ops} ops, {'keeps' if kept else 'loses'} the difference "
            f"({elapsed:.1f} s, {elapsed / count:.1f} s a diff)"
        )
        return kept

    return tried


def _save_reduction(
    args: argparse.Namespace, target: OutputVerdict, reduction: Reduction, run: Prepared
) -> tuple[DiffReport, Path]:
    """The reduced model diffed once more and saved as a replay folder: that diff and the folder."""
    with scratch("ovonehot-reduce-") as tmp:
        sub_xml = write_candidate(reduction.graph, Path(tmp))
        sub_model = load(sub_xml)
        final = diff_candidate(sub_model, str(sub_xml), reduction.inputs, target, plugin=run.plugin)
        folder = _replay.save(
            args.out_dir,
            final,
            sub_xml,
            None,
            (candidate_oracle(target),),
            reduced_tolerances(target),
            ["ovonehot", "diff", args.out_dir],
            extra={
                "plugin": run.plugin.as_json(),
                "reduced_from": {
                    "model": str(args.model),
                    **_outcome(target, reduction),
                    "steps": reduction.steps,
                },
            },
        )
    return final, folder


def _outcome(target: OutputVerdict, reduction: Reduction) -> dict[str, Any]:
    """What was reduced and how far: the same fields in the JSON report and the replay manifest."""
    return {
        "output": target.name,
        "verdict": target.verdict.value,
        "oracle": target.oracle,
        "ops_before": reduction.original_ops,
        "ops_after": len(reduction.candidate.keep),
        "diffs_run": reduction.tries,
    }
