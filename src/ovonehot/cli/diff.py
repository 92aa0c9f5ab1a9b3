"""``ovonehot diff MODEL.xml|REPLAY_DIR``: ovonehot against OpenVINO, every difference explained.

Exit 0 when every output passes or differs only in a way that is explained
(printed): a known, named OpenVINO deviation, a precision or rounding
difference inside the rounding envelope, or a choice the op leaves open (a
TopK's tied elements, a near tie rounding tipped); 1 for any other
difference (``--strict``: for any difference at all) and for any output an
oracle could not compute ("not compared"; ``--allow-partial`` accepts those
with a known cause when something else was compared); 2-4 for errors as
everywhere.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from ..atomic import check_output_dir, check_output_file
from ..differential import corpus, engines
from ..differential.replay import ONNX_MODEL, is_replay
from ..differential.session import diff_path
from ..errors import UsageError
from ..npyio import ensure_directory
from ..oracle.common import OracleKind
from . import explorer, html_report
from ._json import add_json_options, check_json_out, emit, human_output
from ._options import (
    add_engine_options,
    add_input_options,
    add_oracle_options,
    add_out_dir_option,
    add_tolerance_options,
    check_plugin_settings,
    error_message,
    input_spec_hint,
    parse_diff_settings,
)
from ._paths import diff_reads, refuse_out_dir_over, refuse_writing_over


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "diff",
        help="run ovonehot and OpenVINO on the same IR and inputs and explain every difference",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "model",
        nargs="+",
        help="model .xml or .onnx (an .xml's .bin beside it is read too), or a replay folder; several of them, or "
        "directories of them, make a corpus: each diffed alike, one table row per model",
    )
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    add_input_options(p)
    add_oracle_options(p)
    _add_verdict_options(p)
    add_json_options(p, "the report (verdicts, explanations, per-layer rows)")
    p.add_argument(
        "--report",
        metavar="REPORT.html",
        help="also write a self-contained HTML report with plots (needs matplotlib: "
        "pip install 'ovonehot[report]')",
    )
    add_out_dir_option(
        p, "write a replayable folder (model, inputs, outputs, manifest); a corpus: one per model"
    )
    add_engine_options(
        p,
        jobs_help="corpus: worker processes (default 0: one model after the other in "
        "this process); with --dask, the embedded cluster's workers",
    )
    p.set_defaults(func=diff_command)


def _add_verdict_options(p: argparse.ArgumentParser) -> None:
    """How outputs are judged: partial runs, per-layer rows, tolerances, strictness."""
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="exit 0 when everything compared passed, even if some outputs could not be compared "
        "(for a known reason); they are still reported",
    )
    p.add_argument(
        "--all-layers",
        action="store_true",
        help="also compare every node's outputs against the reference/cpu oracles: a per-layer table",
    )
    explorer.add_node_data_option(p)
    add_tolerance_options(p)
    p.add_argument(
        "--strict", action="store_true", help="exit 1 for any difference, known deviations included"
    )


def command_line(args: argparse.Namespace) -> list[str]:
    """The command that reproduces this run, option by option."""
    cmd = ["ovonehot", "diff", args.model]
    if args.bin_path:
        cmd += ["--bin", args.bin_path]
    if args.inputs:
        for spec in args.inputs:
            cmd += ["--inputs", spec]
    else:
        for seed in args.seed or ["0"]:
            cmd += ["--seed", seed]
        for r in args.val_range:
            cmd += ["--val-range", r]
    for flag, name, kind in _REPRODUCED:
        value = getattr(args, name)
        if kind == "each":
            for v in value:
                cmd += [flag, v]
        elif value:
            cmd += [flag] if kind == "switch" else [flag, value]
    return cmd


# The options command_line gives after the model and the inputs, in order: ``each`` repeats the
# option for each of its values, ``switch`` gives a flag that is set, ``value`` an option given.
_REPRODUCED: tuple[tuple[str, str, Literal["each", "switch", "value"]], ...] = (
    ("--shape", "shape", "each"),
    ("--oracle", "oracle", "each"),
    ("--device", "device", "value"),
    ("--config", "config", "each"),
    ("--config-preset", "config_preset", "value"),
    ("--cpu-defaults", "cpu_defaults", "switch"),
    ("--expected", "expected", "value"),
    ("--allow-partial", "allow_partial", "switch"),
    ("--all-layers", "all_layers", "switch"),
    ("--node-data", "node_data", "value"),
    ("--atol", "atol", "each"),
    ("--rtol", "rtol", "each"),
    ("--strict", "strict", "switch"),
    ("--json", "json", "switch"),
    ("--json-out", "json_out", "value"),
    ("--report", "report", "value"),
    ("--out-dir", "out_dir", "value"),
)


def diff_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _diff_command(args)


def _diff_command(args: argparse.Namespace) -> int:
    models = args.model if isinstance(args.model, list) else [args.model]
    hint = input_spec_hint(models[1:])
    if hint:  # `--inputs a.npy b.npy` (one SPEC each now): b.npy is no model of a corpus
        raise UsageError(f"diff: {models[1]!r} is no model{hint}")
    if corpus.is_corpus(models):  # several models: ovonehot.differential.corpus diffs each alike
        return _corpus_command(args, models)
    if (
        getattr(args, "engine", "process") != "process"
        or getattr(args, "jobs", None) is not None
        or getattr(args, "scheduler", None) is not None
    ):
        raise UsageError("--jobs, --dask and --scheduler are for a corpus (several models or a directory)")
    args.model = models[0]
    settings = parse_diff_settings(args)
    _check_onnxruntime(args.model, settings.oracles)
    # Bad paths are refused before the model is read or OpenVINO started.
    check_json_out(args, ("--report", args.report), ("--node-data", getattr(args, "node_data", None)))
    explorer.check_node_data(args)
    if args.report is not None:
        check_output_file(args.report, "--report")
        if Path(args.report).suffix.lower() not in (".html", ".htm"):
            raise UsageError(f"--report {args.report!r}: the report is one HTML page: name an .html file")
        html_report.check_available()
    if args.out_dir is not None:
        check_output_dir(args.out_dir, "--out-dir")
    reads = diff_reads(args.model, args.bin_path, args.inputs, args.expected)
    refuse_writing_over(
        reads,
        ("--json-out", args.json_out),
        ("--report", args.report),
        ("--node-data", getattr(args, "node_data", None)),
    )
    refuse_out_dir_over(reads, args.out_dir)
    check_plugin_settings(settings.plugin)
    settings = dataclasses.replace(settings, save=args.out_dir, command=tuple(command_line(args)))
    outcome = diff_path(args.model, settings)
    if args.report is not None:
        html_report.write(args.report, outcome.report, command_line(args))
        print(f"wrote the HTML report {args.report}")
        outcome.data["html_report"] = args.report
    if getattr(args, "node_data", None) is not None:
        outcome.data["node_data"] = explorer.write_node_data(
            args.node_data, outcome.run.model.graph, outcome.report
        )
    emit(args, outcome.data)
    return outcome.report.exit_code


def _check_onnxruntime(model: str, oracles: tuple[OracleKind, ...]) -> None:
    """``--oracle onnxruntime`` on a model that is no ONNX file (nor the replay of one): a usage
    error before any work, not an output "not compared" (exit 1) after it."""
    if OracleKind.ONNXRUNTIME not in oracles or Path(model).suffix.lower() == ".onnx":
        return
    if is_replay(model) and (Path(model) / ONNX_MODEL).is_file():
        return
    raise UsageError(
        f"--oracle onnxruntime runs ONNX models only; {model} is not an .onnx file (give the .onnx "
        "model, or use --oracle reference or cpu)"
    )


def _corpus_command(args: argparse.Namespace, models: list[str]) -> int:
    if args.report is not None:
        raise UsageError("--report is for one model; a corpus gives a table (--json/--json-out for tools)")
    if getattr(args, "node_data", None) is not None:
        raise UsageError("--node-data is for one model: its layer ids are one graph's")
    args.model = models
    one_model = argparse.Namespace(
        **{**vars(args), "model": "MODEL", "json": False, "json_out": None, "report": None, "out_dir": None}
    )
    return _run_corpus(args, command_line(one_model)[3:])


def _run_corpus(args: argparse.Namespace, options: Sequence[str]) -> int:
    """``ovonehot diff A B DIR ...``: the table, the reports of the models that did not pass, the
    worst exit status (130 after Ctrl-C, with the models that finished)."""
    if args.bin_path:
        raise UsageError("--bin is for one model; each model of a corpus has its .bin beside it")
    if args.inputs:
        raise UsageError("--inputs is for one model; a corpus runs on generated inputs (--seed, --shape)")
    if getattr(args, "expected", None):
        raise UsageError("--expected is for one model: saved outputs belong to one model")
    settings = corpus.CorpusSettings(parse_diff_settings(args), tuple(options), error_message)
    engine = engines.make(args.engine, args.jobs, args.scheduler, default_jobs=0)
    check_json_out(args)
    if args.out_dir is not None:
        check_output_dir(args.out_dir, "--out-dir")
        ensure_directory(args.out_dir)
    check_plugin_settings(settings.diff.plugin)
    summary = corpus.run(corpus.collect(args.model), settings, args.out_dir, engine)
    for r in summary.results:
        if r.exit_code != 0:
            print(f"== {r.model}: exit {r.exit_code}")
            print(r.output.rstrip() if r.output.strip() else f"error: {r.error}")
        if r.stderr:
            print(f"== {r.model}: its worker process printed on stderr: {r.stderr}")
    print(summary.table())
    emit(args, summary.as_json())
    return summary.exit_code
