"""``ovonehot diff MODEL.xml|REPLAY_DIR``: ovonehot against OpenVINO, every difference explained.

Exit 0 when every output passes or differs only by a known, named OpenVINO
deviation (printed); 1 for any other difference (``--strict``: for any
difference at all); 2-4 for errors as everywhere.
"""

from __future__ import annotations

import argparse
import json

from .. import corpus, engines
from .. import replay as _replay
from ..atomic import check_output_dir, check_output_file
from ..diff import ORACLES, Tolerances, diff_model
from ..errors import InputError, UsageError
from ..gen_inputs import generate_inputs, parse_shape
from ..model import load
from ..npyio import check_input_specs, check_model_paths, parse_input_specs, write_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff",
        help="run ovonehot and OpenVINO on the same IR and inputs and explain every difference",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", nargs="+",
                   help="model .xml (the .bin beside it is read too), or a replay folder; several of them, or "
                        "directories of them, make a corpus: each diffed alike, one table row per model")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument("--inputs", nargs="+", default=[], metavar="SPEC",
                   help="x.npy (single-input model), NAME=x.npy, or all.npz; default: generated from the graph")
    p.add_argument("--seed", type=int, default=0, help="seed for generated inputs (default 0)")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=[d0,...]",
                   help="concrete shape for a generated input with dynamic dims (repeatable)")
    p.add_argument("--oracle", choices=[*ORACLES, "both"], default=None,
                   help="OpenVINO's core reference (default), its CPU plugin, or both")
    p.add_argument("--atol", action="append", default=[], metavar="[NAME:]X",
                   help="absolute tolerance for float outputs, global or per output (repeatable)")
    p.add_argument("--rtol", action="append", default=[], metavar="[NAME:]X",
                   help="relative tolerance for float outputs, global or per output (repeatable)")
    p.add_argument("--strict", action="store_true", help="exit 1 for any difference, known deviations included")
    p.add_argument("--json", metavar="REPORT", help="also write the report as JSON")
    p.add_argument("--save", metavar="DIR", help="write a replayable folder (model, inputs, outputs, manifest)")
    engines.add_arguments(p, jobs_help="corpus: worker processes (default 0: one model after the other in "
                                       "this process); with --dask, the embedded cluster's workers")
    p.set_defaults(func=diff_command)


def _oracles(choice: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
    if choice is None:
        return default
    return ORACLES if choice == "both" else (choice,)


def command_line(args: argparse.Namespace) -> list[str]:
    """The command that reproduces this run, option by option."""
    cmd = ["ovonehot", "diff", args.model]
    if args.bin_path:
        cmd += ["--bin", args.bin_path]
    if args.inputs:
        cmd += ["--inputs", *args.inputs]
    else:
        cmd += ["--seed", str(args.seed)]
    for s in args.shape:
        cmd += ["--shape", s]
    if args.oracle:
        cmd += ["--oracle", args.oracle]
    for flag in ("atol", "rtol"):
        for t in getattr(args, flag):
            cmd += [f"--{flag}", t]
    if args.strict:
        cmd.append("--strict")
    if args.json:
        cmd += ["--json", args.json]
    if args.save:
        cmd += ["--save", args.save]
    return cmd


def diff_command(args: argparse.Namespace) -> int:
    models = args.model if isinstance(args.model, list) else [args.model]
    if corpus.is_corpus(models):  # several models: ovonehot.corpus runs this command on each
        args.model = models
        return corpus.corpus_command(args, command_line(argparse.Namespace(
            **{**vars(args), "model": "MODEL", "json": None, "save": None}))[3:])
    if getattr(args, "engine", "process") != "process" or getattr(args, "jobs", None) is not None \
            or getattr(args, "scheduler", None) is not None:
        raise UsageError("--jobs, --dask and --scheduler are for a corpus (several models or a directory)")
    args.model = models[0]
    tolerances = Tolerances.parse(args.atol, args.rtol)
    shapes = dict(parse_shape(s) for s in args.shape)
    # Bad paths are refused before the model is read or OpenVINO started.
    if args.json is not None:
        check_output_file(args.json, "--json")
    if args.save is not None:
        check_output_dir(args.save, "--save")
    replay = _replay.load(args.model) if _replay.is_replay(args.model) else None
    if replay is None:
        check_model_paths(args.model, args.bin_path)
        check_input_specs(args.inputs)
    if replay is not None:
        if args.inputs:
            raise InputError("a replay folder brings its own inputs; drop --inputs")
        xml, bin_path = str(replay.xml), str(replay.bin)
        model = load(xml, bin_path)
        inputs = replay.inputs
        oracles = _oracles(args.oracle, replay.oracles)
        if not args.atol and not args.rtol:
            tolerances = replay.tolerances
        seed, generated = replay.manifest.get("seed"), bool(replay.manifest.get("inputs_generated"))
        strict = args.strict or bool(replay.manifest.get("strict"))
    else:
        xml, bin_path = args.model, args.bin_path
        model = load(xml, bin_path)
        oracles = _oracles(args.oracle, ("reference",))
        strict = args.strict
        if args.inputs:
            if shapes:
                raise InputError("--shape is for generated inputs; the given inputs have their own shapes")
            inputs = parse_input_specs(model, args.inputs)
            seed, generated = None, False
        else:
            inputs = generate_inputs(model, args.seed, shapes)
            seed, generated = args.seed, True
    # OpenVINO runs in a child process: a crash inside it is reported, not the end of the command.
    report = diff_model(model, xml, inputs, oracles, tolerances, bin_path, seed=seed, generated=generated,
                        strict=strict, isolate=True)
    print(report.render())
    if replay is not None:
        for line in _replay.reproduced(replay, report):
            print(line)
    if args.save is not None:
        folder = _replay.save(args.save, report, xml, bin_path, oracles, tolerances, command_line(args),
                              {k: list(v) for k, v in shapes.items()})
        print(f"saved a replay folder: {folder} (replay: ovonehot diff {folder})")
    if args.json is not None:
        write_text(args.json, json.dumps(report.as_json(), indent=2, default=str) + "\n")
    return report.exit_code
