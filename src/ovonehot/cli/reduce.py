"""``ovonehot reduce MODEL``: shrink a model to the few layers behind a difference.

Runs ``diff`` on the model (same oracles, tolerances and inputs), picks the first
output that does not pass (or ``--output NAME``), and searches for the smallest
subgraph that keeps that verdict: bisection over the topological order, then
single-layer removal; inputs of the cut become Parameters fed with the values
ovonehot computed for them.  The result is written as a replay folder
(``ovonehot diff DIR`` replays it; ``ovonehot repro DIR`` turns it into a standalone
OpenVINO script for a bug report).

Exit 0 when a reduced replay was written, 1 when nothing differs (nothing to
reduce), 2-4 for errors as everywhere.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..atomic import check_output_dir, scratch
from ..differential import replay as _replay
from ..differential.diff import ORACLES, DiffOptions, diff_model, oracle_runners
from ..differential.gen_inputs import generate_inputs
from ..differential.reduce import (
    Reduction,
    diff_candidate,
    failing_verdicts,
    keeps_difference,
    reduce_model,
    reduced_tolerances,
    write_candidate,
)
from ..differential.report import DiffReport, render, report_json
from ..differential.verdicts import OutputVerdict
from ..errors import UsageError
from ..model import Model, load
from ..npyio import check_input_specs, check_model_paths, parse_input_specs
from ..oracle.common import oracle_kind, parse_oracles
from ._json import add_json_options, check_json_out, emit, human_output
from ._options import parse_shape, parse_tolerances


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "reduce",
        help="shrink a model to the smallest subgraph that keeps a difference, as a replay folder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", help="model .xml (the .bin beside it is read too) or .onnx")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--inputs",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="x.npy (single-input model), NAME=x.npy, or all.npz; default: generated (--seed)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for generated inputs (default 0)")
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=[d0,...]",
        help="concrete shape for a generated input with dynamic dims (repeatable)",
    )
    p.add_argument(
        "--oracle",
        choices=[*(kind.value for kind in ORACLES), "both"],
        default="reference",
        help="the oracle whose difference to keep (default: reference)",
    )
    p.add_argument("--atol", action="append", default=[], metavar="[NAME:]X", help="as for diff")
    p.add_argument("--rtol", action="append", default=[], metavar="[NAME:]X", help="as for diff")
    p.add_argument(
        "--output",
        dest="output_name",
        metavar="NAME",
        help="the differing output to reduce around (default: the first one that differs)",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="where to write the reduced replay folder")
    add_json_options(p, "what was written (the reduced replay folder, the sizes, the final diff)")
    p.set_defaults(func=reduce_command)


def reduce_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _reduce_command(args)


def _reduce_command(args: argparse.Namespace) -> int:
    if not args.out:
        raise UsageError("--out needs a folder name")
    tolerances = parse_tolerances(args.atol, args.rtol)
    shapes = dict(parse_shape(s) for s in args.shape)
    # Bad paths are refused before the model is read or OpenVINO started.
    check_model_paths(args.model, args.bin_path)
    check_input_specs(args.inputs)
    check_output_dir(args.out, "--out")
    check_json_out(args)
    model = load(args.model, args.bin_path)
    oracles = parse_oracles([args.oracle])
    if args.inputs:
        inputs = parse_input_specs(model, args.inputs)
    else:
        inputs = generate_inputs(model, args.seed, shapes)
    runners = oracle_runners(oracles, model, args.model, args.bin_path, isolate=True)
    report = diff_model(model, inputs, runners, DiffOptions(tolerances, locate=False, source=args.model))
    target = _target(args, model, report)
    if target is None:
        print(f"nothing to reduce: {render(report).splitlines()[-1]}")
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
        return 1
    print(f"reducing around output {target.name!r}: {target.verdict.value} against {target.oracle}")
    reduction = reduce_model(
        model, inputs, target.name, keeps_difference(target), log=lambda m: print(f"  {m}", file=sys.stderr)
    )
    final, folder = _save_reduction(args, target, reduction)
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
    return 0


def _target(args: argparse.Namespace, model: Model, report: DiffReport) -> OutputVerdict | None:
    """The first output that fails (the one ``--output`` names, if given), or None."""
    if args.output_name:
        names = [d.name for d in model.outputs]
        if args.output_name not in names:
            raise UsageError(f"--output {args.output_name!r}: the model's outputs are {', '.join(names)}")
    failing = failing_verdicts(report, args.output_name or None)
    return failing[0] if failing else None


def _save_reduction(
    args: argparse.Namespace, target: OutputVerdict, reduction: Reduction
) -> tuple[DiffReport, Path]:
    """The reduced model diffed once more and saved as a replay folder: that diff and the folder."""
    with scratch("ovonehot-reduce-") as tmp:
        sub_xml = write_candidate(reduction.graph, Path(tmp))
        sub_model = load(sub_xml)
        final = diff_candidate(sub_model, str(sub_xml), reduction.inputs, target)
        folder = _replay.save(
            args.out,
            final,
            sub_xml,
            None,
            (oracle_kind(target.oracle),),
            reduced_tolerances(target),
            ["ovonehot", "diff", args.out],
            extra={
                "reduced_from": {
                    "model": str(args.model),
                    **_outcome(target, reduction),
                    "steps": reduction.steps,
                }
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
