"""One diff of one model from files: what ``ovonehot diff MODEL`` does, as a library call.

:func:`diff_path` reads a model (``.xml``/``.onnx``, with given or generated inputs) or a
replay folder (its model, inputs, oracles, tolerances and plugin configuration, each
overridden by what the caller sets), runs :func:`~.diff.diff_model`, says the text report
(and, for a replay, whether each saved output set was reproduced), and writes a replay folder
when asked.  The command line and :mod:`.corpus` (every model of a corpus) both call it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..atomic import check_output_dir
from ..errors import InputError, UsageError
from ..model import Model, load
from ..npyio import check_input_specs, check_model_paths, load_archive, parse_input_specs
from ..oracle.common import OracleKind, PluginSettings
from . import replay as _replay
from .comparator import Tolerances
from .diff import DiffOptions, diff_model
from .gen_inputs import InputSettings, generate_inputs, refitted, refusal
from .report import DiffReport, render, report_json, with_fallback
from .runners import OracleRunner, oracle_runners
from .verdicts import OutputVerdict, Verdict


@dataclass(frozen=True, slots=True)
class DiffSettings:
    """How to diff a model.  ``None`` (or empty) means "not set": the default for a model,
    what the folder says for a replay folder.

    ``inputs`` are input files (``x.npy``, ``NAME=x.npy``, ``all.npz``), else inputs are
    generated (``input_settings``, ``shapes``); ``expected`` is an ``.npz`` of saved outputs
    (the expected oracle); ``save`` a replay folder to write, recording ``command``."""

    bin_path: str | None = None
    inputs: tuple[str, ...] = ()
    input_settings: InputSettings = field(default_factory=InputSettings)
    shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    oracles: tuple[OracleKind, ...] = ()
    plugin: PluginSettings | None = None
    expected: str | None = None
    tolerances: Tolerances | None = None
    strict: bool = False
    allow_partial: bool = False
    all_layers: bool = False
    save: str | None = None
    command: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DiffOutcome:
    """The report, its JSON (with the replay check and the saved folder) and the run it came from."""

    report: DiffReport
    data: dict[str, Any]
    run: Prepared


@dataclass(frozen=True, slots=True)
class Prepared:
    """What one diff runs on and how: from the settings, or from a replay folder and them."""

    model: Model
    xml: str
    bin_path: str | None
    inputs: Mapping[str, np.ndarray]
    oracles: tuple[OracleKind, ...]
    tolerances: Tolerances
    plugin: PluginSettings
    expected: Mapping[str, np.ndarray] | None
    expected_source: str
    seed: int | None
    generated: bool
    strict: bool
    allow_partial: bool
    input_notes: Mapping[str, Any]


def diff_path(path: str, settings: DiffSettings, say: Callable[[str], None] = print) -> DiffOutcome:
    """Diff the model or replay folder at ``path``; ``say`` gets the text report line by line
    (as ``ovonehot diff`` prints it).  OpenVINO runs in a child process: a crash inside it is
    reported as that oracle's failure, not the end of the call."""
    if settings.save is not None:
        check_output_dir(settings.save, "save")
    run, replay = _prepare(path, settings)
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
        run.tolerances,
        run.strict,
        run.allow_partial,
        all_layers=settings.all_layers,
        source=str(run.xml),
        seed=run.seed,
        generated=run.generated,
    )
    # Generated inputs ovonehot refuses are made again before OpenVINO runs on them (its CPU
    # plugin does not check every shape: a patch embedding fed a 3x3 image crashed its child).
    refused = refusal(run.model, run.inputs) if replay is None and run.generated else None
    regenerated = None
    if refused is not None:
        regenerated = f"ovonehot refuses the generated inputs ({refused})"
        run, report = _regenerate(run, settings, runners, options)
        say(f"{regenerated}: made again within the declared shapes and dims")
    else:
        report = diff_model(run.model, run.inputs, runners, options)
    if replay is None and not settings.oracles:
        report = cpu_fallback(report, run, options)
    say(render(report))
    data = report_json(report)
    if regenerated is not None:
        data["inputs_regenerated"] = regenerated
    if replay is not None:
        data["replay"] = _replay.reproduced(replay, report)
        for line in data["replay"]:
            say(line)
    if settings.save is not None:
        folder = _save(settings.save, settings, report, run)
        say(f"saved a replay folder: {folder} (replay: ovonehot diff {folder})")
        data["saved"] = folder
    return DiffOutcome(report, data, run)


def cpu_fallback(report: DiffReport, run: Prepared, options: DiffOptions) -> DiffReport:
    """The default oracle (the reference) could not compute some outputs: the CPU plugin judges
    those instead, each verdict naming the reference's reason (``--oracle reference`` keeps the
    strict behaviour: "not compared").  ``report`` as it is when nothing was refused, when
    ovonehot refused the inputs, or with saved expected outputs."""
    if (
        run.expected is not None
        or report.ours_error is not None
        or not any(v.refusal is not None for v in report.not_compared)
    ):
        return report
    cpu = oracle_runners(
        (OracleKind.CPU,), run.model, run.xml, run.bin_path, plugin=run.plugin, expected=None, isolate=True
    )
    # ovonehot's side ran already: judged again against the CPU, not run again.
    fallback = diff_model(
        run.model, run.inputs, cpu, dataclasses.replace(options, all_layers=False), ours=report.ours_run
    )
    return with_fallback(report, fallback)


def prepare(path: str, settings: DiffSettings) -> Prepared:
    """What :func:`diff_path` runs for ``path`` (a model or a replay folder) and ``settings``:
    the model, its inputs (given or generated), oracles, tolerances and plugin configuration."""
    return _prepare(path, settings)[0]


def _prepare(path: str, settings: DiffSettings) -> tuple[Prepared, _replay.Replay | None]:
    replay = _replay.load(path) if _replay.is_replay(path) else None
    if replay is None:
        check_model_paths(path, settings.bin_path)
        check_input_specs(settings.inputs)
    expected = load_archive(settings.expected) if settings.expected else None
    run = _replayed(replay, settings, expected) if replay is not None else _new(path, settings, expected)
    if OracleKind.EXPECTED in run.oracles and run.expected is None:
        raise UsageError("the expected oracle needs saved outputs (--expected out.npz)")
    return run, replay


def _regenerate(
    run: Prepared, settings: DiffSettings, runners: tuple[OracleRunner, ...], options: DiffOptions
) -> tuple[Prepared, DiffReport]:
    """Generated inputs ovonehot refused, made again (:func:`made_again`) and diffed again.  When
    the model still refuses them on both sides, no output was compared: never a PASS."""
    run = made_again(run, settings)
    report = diff_model(run.model, run.inputs, runners, options)
    if report.ours_error is not None:
        report.verdicts = [_uncompared(v) for v in report.verdicts]
    return run, report


def made_again(run: Prepared, settings: DiffSettings) -> Prepared:
    """``run`` with its generated inputs made again from the model's declared shapes and dims
    (integers index any axis, dims shared between inputs equal; dynamic spatial dims grown) —
    what ``diff`` does when ovonehot refuses the first ones; ``reduce`` makes them the same way."""
    generation = dataclasses.replace(settings.input_settings, within_dims=True)
    inputs, notes = generate_inputs(
        run.model, generation.seed, settings.shapes, settings=generation, report=True
    )
    if refusal(run.model, inputs) is not None:
        inputs, notes = refitted(run.model, settings.shapes, generation) or (inputs, notes)
    return dataclasses.replace(run, inputs=inputs, input_notes=notes)


def _uncompared(verdict: OutputVerdict) -> OutputVerdict:
    """A PASS with no comparison behind it (both sides refuse generated inputs) as NOT_COMPARED,
    and so an oracle computing generated inputs ovonehot refuses: OpenVINO does not check every
    shape (a model traced for one sequence length run on another), so that is no verdict on
    either side (it was "unexplained", exit 1, on correct models)."""
    if verdict.verdict is Verdict.UNEXPLAINED and verdict.comparison is None:
        return dataclasses.replace(
            verdict,
            verdict=Verdict.NOT_COMPARED,
            reason=f"nothing compared: {verdict.reason}, for generated inputs made again within the "
            "declared shapes and dims too, which OpenVINO does not check; give inputs the model "
            "accepts (--inputs, --shape, --val-range)",
        )
    if verdict.verdict is Verdict.NOT_COMPARED:  # (another oracle would not help: ovonehot refuses them)
        return dataclasses.replace(
            verdict,
            reason=f"{verdict.reason}; ovonehot refuses these generated inputs, made again within the "
            "declared shapes and dims too: give inputs the model accepts (--inputs, --shape, --val-range)",
            try_oracles=(),
        )
    if verdict.verdict is not Verdict.PASS or verdict.comparison is not None:
        return verdict
    return dataclasses.replace(
        verdict,
        verdict=Verdict.NOT_COMPARED,
        reason=f"nothing compared: {verdict.reason}, for generated inputs made again within the "
        "declared shapes and dims too; give inputs the model accepts (--inputs, --val-range)",
    )


def _oracles(
    chosen: tuple[OracleKind, ...], default: tuple[OracleKind, ...], expected: bool
) -> tuple[OracleKind, ...]:
    if not chosen:
        return (OracleKind.EXPECTED,) if expected else default
    if expected and OracleKind.EXPECTED not in chosen:
        return (*chosen, OracleKind.EXPECTED)
    return chosen


def _replayed(
    replay: _replay.Replay, settings: DiffSettings, expected: Mapping[str, np.ndarray] | None
) -> Prepared:
    """A replay folder's run; what the settings set takes precedence."""
    if settings.inputs:
        raise InputError("a replay folder brings its own inputs; drop --inputs")
    xml = str(replay.model)
    bin_path = str(replay.bin) if replay.model == replay.xml else None
    model = load(xml, bin_path)
    expected_source = settings.expected or ""
    oracles = _oracles(settings.oracles, replay.oracles, expected is not None)
    saved = OracleKind.EXPECTED.value  # the saved outputs' file stem
    if OracleKind.EXPECTED in oracles and expected is None and saved in replay.saved:
        expected, expected_source = replay.saved[saved], str(replay.folder / f"{saved}.npz")
    return Prepared(
        model,
        xml,
        bin_path,
        replay.inputs,
        oracles,
        replay.tolerances if settings.tolerances is None else settings.tolerances,
        replay.plugin if settings.plugin is None else settings.plugin,
        expected,
        expected_source,
        replay.manifest.get("seed"),
        bool(replay.manifest.get("inputs_generated")),
        settings.strict or bool(replay.manifest.get("strict")),
        settings.allow_partial or bool(replay.manifest.get("allow_partial")),
        replay.manifest.get("input_generation") or {},
    )


def _new(path: str, settings: DiffSettings, expected: Mapping[str, np.ndarray] | None) -> Prepared:
    """A model's run on given inputs or on inputs generated from its graph."""
    model = load(path, settings.bin_path)
    oracles = _oracles(settings.oracles, (OracleKind.REFERENCE,), expected is not None)
    inputs: Mapping[str, np.ndarray]
    input_notes: Mapping[str, Any]
    generation = settings.input_settings
    if settings.inputs:
        if (
            settings.shapes
            or generation.value_range is not None
            or generation.per_input_ranges
            or generation.per_input_seeds
        ):
            raise InputError(
                "--shape, --val-range and NAME:S seeds are for generated inputs; the given inputs have their own"
            )
        inputs = parse_input_specs(model, list(settings.inputs))
        seed, generated, input_notes = None, False, {}
    else:
        inputs, input_notes = generate_inputs(
            model, generation.seed, settings.shapes, settings=generation, report=True
        )
        seed, generated = generation.seed, True
    return Prepared(
        model,
        path,
        settings.bin_path,
        inputs,
        oracles,
        settings.tolerances or Tolerances(),
        settings.plugin or PluginSettings(),
        expected,
        settings.expected or "",
        seed,
        generated,
        settings.strict,
        settings.allow_partial,
        input_notes,
    )


def _save(save: str, settings: DiffSettings, report: DiffReport, run: Prepared) -> str:
    """The replay folder (``save``, the settings' folder) of this run."""
    folder = _replay.save(
        save,
        report,
        run.xml,
        run.bin_path,
        run.oracles,
        run.tolerances,
        list(settings.command),
        {k: list(v) for k, v in settings.shapes.items()},
        extra={
            "plugin": run.plugin.as_json(),
            "allow_partial": run.allow_partial,
            "input_generation": run.input_notes,
        },
        model=run.model,
    )
    return str(folder)
