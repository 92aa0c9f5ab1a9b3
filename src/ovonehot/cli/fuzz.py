"""``ovonehot fuzz``: random valid OneHot IR through ``diff``; exit 0 when nothing is unexplained."""

from __future__ import annotations

import argparse
import importlib.util

from ..atomic import check_output_dir
from ..differential import engines
from ..differential.diff import ORACLES
from ..differential.fuzz import campaign
from ..errors import OpenVINOError, UsageError
from ..oracle.common import parse_oracles
from ._json import add_json_options, check_json_out, emit, human_output
from ._options import add_engine_options, add_out_dir_option


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "fuzz",
        help="generate random valid OneHot IR and diff each against OpenVINO",
        description="Generate random valid IR (single OneHot and small graphs; v1/v16, both modes, every legal "
        "type, ranks 0..6, dynamic and interval dims), write it with ovonehot's writer and with "
        "OpenVINO's save_model, and run diff on each.  Failing cases are saved as replay folders "
        "under --out-dir.  Exit 0 when no case is 'ours wrong', 'unexplained' or a crash.",
    )
    p.add_argument("--cases", type=int, default=100, help="number of cases (default 100)")
    p.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    p.add_argument(
        "--first", type=int, default=0, help="index of the first case (to rerun one: --first K --cases 1)"
    )
    p.add_argument(
        "--oracle",
        action="append",
        default=[],
        metavar="NAME[,NAME...]",
        help="oracles to diff against, comma-separated or repeated, as for diff: reference, cpu "
        "(both = reference,cpu; the default: a generated case is worth both); onnxruntime and expected "
        "need an .onnx file or saved outputs, which a generated case has not",
    )
    add_out_dir_option(p, "save failing cases as replay folders here, and summary.json")
    p.add_argument("--time-budget", type=float, metavar="SECONDS", help="stop starting cases after this long")
    add_engine_options(
        p,
        jobs_help="worker processes (default 1; 0 runs in this process without crash "
        "isolation); with --dask, the embedded cluster's workers",
    )
    add_json_options(p, "the summary (as --out-dir's summary.json)")
    p.set_defaults(func=fuzz_command)


def _openvino_installed() -> bool:
    """Whether openvino can be imported, without importing it (it loads for half a second)."""
    try:
        return importlib.util.find_spec("openvino") is not None
    except (ImportError, ValueError):  # a blocked import (sys.modules entry None)
        return False


def _check_openvino() -> None:
    """OpenVINO present and working (imported, its CPU plugin there), or an OpenVINOError (exit
    4): a broken install would otherwise fail every case and look like findings."""
    if not _openvino_installed():
        raise OpenVINOError(
            "OpenVINO is not installed; fuzz diffs against it: pip install 'openvino>=2026.4,<2026.5'"
        )
    from ..oracle import process  # (imports no openvino: its child does)

    process.shared().check_plugin("CPU", {})


def fuzz_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _fuzz_command(args)


def _fuzz_command(args: argparse.Namespace) -> int:
    if args.cases < 1:
        raise UsageError(f"--cases {args.cases}: nothing to run; give at least 1 case")
    if args.first < 0 or args.seed < 0:
        option, value = ("--first", args.first) if args.first < 0 else ("--seed", args.seed)
        raise UsageError(f"{option} {value}: expected an integer >= 0")
    if args.time_budget is not None and args.time_budget <= 0:
        raise UsageError("--time-budget must be > 0 seconds")
    oracles = parse_oracles(args.oracle or ["both"])
    other = [kind.value for kind in oracles if kind not in ORACLES]
    if other:
        raise UsageError(
            f"fuzz --oracle {other[0]}: a generated case is IR with no .onnx file or saved outputs; "
            f"fuzz diffs against {', '.join(kind.value for kind in ORACLES)}"
        )
    engine = engines.make(args.engine, args.jobs, args.scheduler, default_jobs=1)
    if args.out_dir is not None:
        check_output_dir(args.out_dir, "--out-dir")
    check_json_out(args)
    _check_openvino()  # before any case runs
    summary = campaign(
        args.cases,
        args.seed,
        oracles,
        args.out_dir,
        args.time_budget,
        progress=None,  # (a bar on a terminal, as every long operation: ovonehot.progress)
        first=args.first,
        engine=engine,
    )
    print(summary.table())
    emit(args, summary.as_json())
    return summary.exit_code
