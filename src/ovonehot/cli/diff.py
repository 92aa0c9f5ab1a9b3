"""``ovonehot diff MODEL.xml|REPLAY_DIR``: ovonehot against OpenVINO, every difference explained.

Exit 0 when every output passes or differs only by a known, named OpenVINO
deviation (printed); 1 for any other difference (``--strict``: for any
difference at all) and for any output an oracle could not compute ("not
compared"; ``--allow-partial`` accepts those with a known cause when something
else was compared); 2-4 for errors as everywhere.
"""

from __future__ import annotations

import argparse

from ..atomic import check_output_dir, check_output_file
from ..differential import corpus, engines, html_report
from ..differential import replay as _replay
from ..differential.diff import Tolerances, diff_model
from ..differential.gen_inputs import InputSettings, generate_inputs, parse_shape
from ..errors import InputError, UsageError
from ..model import load
from ..npyio import check_input_specs, check_model_paths, load_archive, parse_input_specs
from ..oracle.common import ORACLES, PRESETS, PluginSettings, parse_oracles
from ._json import add_json_options, check_json_out, emit, human_output


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
        help="model .xml (the .bin beside it is read too), or a replay folder; several of them, or "
        "directories of them, make a corpus: each diffed alike, one table row per model",
    )
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--inputs",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="x.npy (single-input model), NAME=x.npy, or all.npz; default: generated from the graph",
    )
    p.add_argument(
        "--seed",
        action="append",
        default=[],
        metavar="[NAME:]S",
        help="seed for generated inputs (default 0); NAME:S seeds one input (repeatable)",
    )
    p.add_argument(
        "--val-range",
        action="append",
        default=[],
        metavar="[NAME:]LO,HI",
        help="range of generated values, for all inputs or one (repeatable); OneHot indices keep "
        "their boundary values unless named",
    )
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=[d0,...]",
        help="concrete shape for a generated input with dynamic dims (repeatable)",
    )
    p.add_argument(
        "--oracle",
        action="append",
        default=[],
        metavar="NAME[,NAME...]",
        help=f"oracles to compare with, comma-separated or repeated: {', '.join(ORACLES)} "
        "(both = reference,cpu); default reference",
    )
    p.add_argument("--device", metavar="NAME", help="OpenVINO device of the cpu oracle (default CPU)")
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="compile property for the cpu oracle, over its preset (repeatable)",
    )
    p.add_argument(
        "--config-preset",
        choices=list(PRESETS),
        default=None,
        help="the cpu oracle's base configuration: deterministic (default: 1 thread, f32, accuracy) "
        "or openvino-defaults (what users get: bf16 on CPUs with AVX-512 BF16)",
    )
    p.add_argument("--cpu-defaults", action="store_true", help="same as --config-preset openvino-defaults")
    p.add_argument(
        "--expected",
        metavar="OUT.npz",
        help="saved outputs keyed by output name (or Result layer / tensor name): the expected oracle",
    )
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
    p.add_argument(
        "--atol",
        action="append",
        default=[],
        metavar="[NAME:]X",
        help="absolute tolerance for float outputs, global or per output (repeatable)",
    )
    p.add_argument(
        "--rtol",
        action="append",
        default=[],
        metavar="[NAME:]X",
        help="relative tolerance for float outputs, global or per output (repeatable)",
    )
    p.add_argument(
        "--strict", action="store_true", help="exit 1 for any difference, known deviations included"
    )
    add_json_options(p, "the report (verdicts, explanations, per-layer rows)")
    p.add_argument(
        "--report",
        metavar="REPORT.html",
        help="also write a self-contained HTML report with plots (needs matplotlib: "
        "pip install 'ovonehot[report]')",
    )
    p.add_argument(
        "--save", metavar="DIR", help="write a replayable folder (model, inputs, outputs, manifest)"
    )
    engines.add_arguments(
        p,
        jobs_help="corpus: worker processes (default 0: one model after the other in "
        "this process); with --dask, the embedded cluster's workers",
    )
    p.set_defaults(func=diff_command)


def _oracles(choice: list[str], default: tuple[str, ...], expected: bool) -> tuple[str, ...]:
    if not choice:
        return ("expected",) if expected else default
    chosen = parse_oracles(choice)
    if expected and "expected" not in chosen:
        chosen = (*chosen, "expected")
    return chosen


def _plugin(args: argparse.Namespace) -> PluginSettings:
    preset = args.config_preset
    if args.cpu_defaults:
        if preset not in (None, "openvino-defaults"):
            raise InputError("--cpu-defaults and --config-preset deterministic contradict each other")
        preset = "openvino-defaults"
    return PluginSettings.parse(args.device, preset, args.config)


def command_line(args: argparse.Namespace) -> list[str]:
    """The command that reproduces this run, option by option."""
    cmd = ["ovonehot", "diff", args.model]
    if args.bin_path:
        cmd += ["--bin", args.bin_path]
    if args.inputs:
        cmd += ["--inputs", *args.inputs]
    else:
        for seed in args.seed or ["0"]:
            cmd += ["--seed", seed]
        for r in args.val_range:
            cmd += ["--val-range", r]
    for s in args.shape:
        cmd += ["--shape", s]
    for o in args.oracle:
        cmd += ["--oracle", o]
    if args.device:
        cmd += ["--device", args.device]
    for c in args.config:
        cmd += ["--config", c]
    if args.config_preset:
        cmd += ["--config-preset", args.config_preset]
    if args.cpu_defaults:
        cmd.append("--cpu-defaults")
    if args.expected:
        cmd += ["--expected", args.expected]
    if args.allow_partial:
        cmd.append("--allow-partial")
    if args.all_layers:
        cmd.append("--all-layers")
    for flag in ("atol", "rtol"):
        for t in getattr(args, flag):
            cmd += [f"--{flag}", t]
    if args.strict:
        cmd.append("--strict")
    if args.json:
        cmd.append("--json")
    if args.json_out:
        cmd += ["--json-out", args.json_out]
    if args.report:
        cmd += ["--report", args.report]
    if args.save:
        cmd += ["--save", args.save]
    return cmd


def diff_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _diff_command(args)


def _diff_command(args: argparse.Namespace) -> int:
    models = args.model if isinstance(args.model, list) else [args.model]
    if corpus.is_corpus(models):  # several models: ovonehot.differential.corpus runs this command on each
        if args.report is not None:
            raise UsageError(
                "--report is for one model; a corpus gives a table (--json/--json-out for tools)"
            )
        args.model = models
        return corpus.corpus_command(
            args,
            command_line(
                argparse.Namespace(
                    **{
                        **vars(args),
                        "model": "MODEL",
                        "json": False,
                        "json_out": None,
                        "report": None,
                        "save": None,
                    }
                )
            )[3:],
        )
    if (
        getattr(args, "engine", "process") != "process"
        or getattr(args, "jobs", None) is not None
        or getattr(args, "scheduler", None) is not None
    ):
        raise UsageError("--jobs, --dask and --scheduler are for a corpus (several models or a directory)")
    args.model = models[0]
    tolerances = Tolerances.parse(args.atol, args.rtol)
    shapes = dict(parse_shape(s) for s in args.shape)
    settings = InputSettings.parse(args.seed, args.val_range)
    plugin = _plugin(args)
    allow_partial = args.allow_partial
    # Bad paths are refused before the model is read or OpenVINO started.
    check_json_out(args)
    if args.report is not None:
        check_output_file(args.report, "--report")
        html_report.check_available()
    if args.save is not None:
        check_output_dir(args.save, "--save")
    replay = _replay.load(args.model) if _replay.is_replay(args.model) else None
    if replay is None:
        check_model_paths(args.model, args.bin_path)
        check_input_specs(args.inputs)
    expected = load_archive(args.expected) if args.expected else None
    expected_source = args.expected or ""
    if replay is not None:
        if args.inputs:
            raise InputError("a replay folder brings its own inputs; drop --inputs")
        xml, bin_path = str(replay.xml), str(replay.bin)
        model = load(xml, bin_path)
        inputs = replay.inputs
        oracles = _oracles(args.oracle, replay.oracles, expected is not None)
        if "expected" in oracles and expected is None and "expected" in replay.saved:
            expected, expected_source = replay.saved["expected"], str(replay.folder / "expected.npz")
        if not args.atol and not args.rtol:
            tolerances = replay.tolerances
        if not (args.device or args.config or args.config_preset or args.cpu_defaults):
            plugin = replay.plugin
        seed, generated = replay.manifest.get("seed"), bool(replay.manifest.get("inputs_generated"))
        strict = args.strict or bool(replay.manifest.get("strict"))
        allow_partial = allow_partial or bool(replay.manifest.get("allow_partial"))
        input_notes = replay.manifest.get("input_generation") or {}
    else:
        xml, bin_path = args.model, args.bin_path
        model = load(xml, bin_path)
        oracles = _oracles(args.oracle, ("reference",), expected is not None)
        strict = args.strict
        if args.inputs:
            if shapes or args.val_range or settings.per_input_seeds:
                raise InputError(
                    "--shape, --val-range and NAME:S seeds are for generated inputs; "
                    "the given inputs have their own"
                )
            inputs = parse_input_specs(model, args.inputs)
            seed, generated = None, False
            input_notes = {}
        else:
            inputs, input_notes = generate_inputs(
                model, settings.seed, shapes, settings=settings, report=True
            )
            seed, generated = settings.seed, True
    # OpenVINO runs in a child process: a crash inside it is reported, not the end of the command.
    report = diff_model(
        model,
        xml,
        inputs,
        oracles,
        tolerances,
        bin_path,
        seed=seed,
        generated=generated,
        strict=strict,
        isolate=True,
        allow_partial=allow_partial,
        plugin=plugin,
        expected=expected,
        expected_source=expected_source,
        all_layers=args.all_layers,
    )
    print(report.render())
    data = report.as_json()
    if replay is not None:
        data["replay"] = _replay.reproduced(replay, report)
        for line in data["replay"]:
            print(line)
    if args.save is not None:
        folder = _replay.save(
            args.save,
            report,
            xml,
            bin_path,
            oracles,
            tolerances,
            command_line(args),
            {k: list(v) for k, v in shapes.items()},
            extra={
                "plugin": plugin.as_json(),
                "allow_partial": allow_partial,
                "input_generation": input_notes,
            },
        )
        print(f"saved a replay folder: {folder} (replay: ovonehot diff {folder})")
        data["saved"] = str(folder)
    if args.report is not None:
        html_report.write(args.report, report, command_line(args))
        print(f"wrote the HTML report {args.report}")
        data["html_report"] = args.report
    emit(args, data)
    return report.exit_code
