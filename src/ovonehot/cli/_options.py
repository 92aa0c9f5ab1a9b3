"""The command line's own syntax: ``NAME:X``-style option values parsed into library settings, and
library parameters named by the flags that set them.

The library (``ovonehot.differential``, ``ovonehot.oracle``) takes typed settings
(:class:`~ovonehot.differential.gen_inputs.InputSettings`,
:class:`~ovonehot.differential.comparator.Tolerances`, :class:`~ovonehot.oracle.common.PluginSettings`,
shapes as tuples) and speaks of its parameters in errors
(:class:`~ovonehot.errors.ParameterError`); only this module knows ``--seed 3``,
``--val-range labels:0,9``, ``--atol out:1e-3``, ``--shape x=[2,3]``, ``--config KEY=VALUE``.
The input, oracle and tolerance options that ``diff`` and ``reduce`` share are declared here
once (``add_input_options``, ``add_oracle_options``, ``add_tolerance_options``) and read back
as :class:`~ovonehot.differential.session.DiffSettings` by :func:`parse_diff_settings`.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence

from ..differential.comparator import Tolerances
from ..differential.engines import ENGINES
from ..differential.gen_inputs import InputSettings
from ..differential.session import DiffSettings
from ..errors import Error, InputError, ParameterError, UsageError
from ..oracle.common import ORACLES, PRESETS, PluginSettings, parse_oracles
from ..types import PartialShape

# Library parameter -> the flag that sets it, where the two names differ.
FLAGS = {
    "shapes": "--shape",
    "per_input_seeds": "--seed",
    "value_range": "--val-range",
    "per_input_ranges": "--val-range",
    "per_output_atol": "--atol",
    "per_output_rtol": "--rtol",
    "save": "--out-dir",
}

# The one vocabulary every command speaks: a file it writes is ``-o/--output``, a folder it writes
# ``--out-dir``, output tensor names ``--outputs``.  The spellings commands used before (and the
# usual guesses) are refused with one line naming the new one, never taken for something else.
OUT_DIR_SPELLINGS = ("--out", "--output-dir", "--output_dir", "--outdir", "--save", "--save-dir")


def flag(parameter: str) -> str:
    """The flag that sets a library parameter: ``shapes`` -> ``--shape``, ``jobs`` -> ``--jobs``."""
    return FLAGS.get(parameter, "--" + parameter.replace("_", "-"))


def error_message(exc: Error) -> str:
    """An error's message as the command line says it: parameters named by their flags."""
    if isinstance(exc, ParameterError):
        return exc.describe(flag)
    return str(exc)


def parse_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """``--shape name=[2,3]`` (or ``name=2,3``; ``name=[]`` for a scalar) -> (name, (2, 3))."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise InputError(f"--shape {text!r}: expected NAME=[d0,d1,...]")
    try:
        shape = PartialShape.parse(value)
    except ValueError as exc:
        raise InputError(f"--shape {text!r}: {exc}") from None
    if not shape.is_static:
        raise InputError(f"--shape {text!r}: give a concrete shape (numbers only)")
    return name, shape.to_shape()


def parse_shapes(items: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Every ``--shape NAME=[..]``, each input named once."""
    shapes: dict[str, tuple[int, ...]] = {}
    for item in items:
        name, shape = parse_shape(item)
        _once("--shape", name, shapes, item)
        shapes[name] = shape
    return shapes


def _once(option: str, name: str, seen: Mapping[str, object], item: str) -> None:
    """``option`` gives ``name`` a value once: a second one (``--shape x=[2] --shape x=[3]``) is
    a usage error, not a silent winner."""
    if name in seen:
        what = f"for {name!r} " if name else ""
        raise UsageError(f"{option} {item!r}: a value {what}is already given; give one")


def parse_input_settings(seeds: Sequence[str] = (), ranges: Sequence[str] = ()) -> InputSettings:
    """``--seed [NAME:]S`` and ``--val-range [NAME:]LO,HI`` (each repeatable) as InputSettings."""
    seed, seen_global = 0, False
    per_seed: dict[str, int] = {}
    for item in seeds:
        name, sep, value = str(item).rpartition(":")
        try:
            number = int(value)
        except ValueError:
            raise InputError(f"--seed {item!r}: expected an integer or NAME:INTEGER") from None
        if number < 0:  # NumPy's SeedSequence takes none
            raise InputError(f"--seed {item!r}: a seed is an integer >= 0")
        _once("--seed", name, per_seed if sep else dict.fromkeys([""] * seen_global), item)
        if sep:
            per_seed[name] = number
        else:
            seed, seen_global = number, True
    glob: tuple[float, float] | None = None
    per_range: dict[str, tuple[float, float]] = {}
    for item in ranges:
        name, sep, value = item.rpartition(":")
        lo_text, comma, hi_text = value.partition(",")
        try:
            lo, hi = float(lo_text), float(hi_text)
        except ValueError:
            raise InputError(f"--val-range {item!r}: expected [NAME:]LO,HI (e.g. labels:0,9)") from None
        if not comma or not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise InputError(f"--val-range {item!r}: expected finite LO <= HI")
        _once("--val-range", name, per_range if sep else dict.fromkeys([""] * (glob is not None)), item)
        if sep:
            per_range[name] = (lo, hi)
        else:
            glob = (lo, hi)
    return InputSettings(seed, per_seed, glob, per_range)


def parse_tolerances(atol: Sequence[str] = (), rtol: Sequence[str] = ()) -> Tolerances:
    """``--atol [NAME:]X`` and ``--rtol [NAME:]X`` (each repeatable) as Tolerances."""
    g_atol, p_atol = _tolerance_values("--atol", atol)
    g_rtol, p_rtol = _tolerance_values("--rtol", rtol)
    return Tolerances(g_atol, g_rtol, p_atol, p_rtol)


def _tolerance_values(option: str, items: Sequence[str]) -> tuple[float | None, dict[str, float]]:
    glob: float | None = None
    per: dict[str, float] = {}
    for item in items:
        name, sep, value = item.rpartition(":")
        try:
            number = float(value)
        except ValueError:
            raise UsageError(f"{option} {item!r}: expected a number or NAME:NUMBER") from None
        if not math.isfinite(number) or number < 0:
            raise UsageError(f"{option} {item!r}: a tolerance is a finite number >= 0")
        _once(option, name, per if sep else dict.fromkeys([""] * (glob is not None)), item)
        if sep:
            per[name] = number
        else:
            glob = number
    return glob, per


def parse_plugin(
    device: str | None = None, preset: str | None = None, config: Sequence[str] = ()
) -> PluginSettings:
    """``--device``, ``--config-preset`` and ``--config KEY=VALUE`` (repeatable) as PluginSettings."""
    overrides = []
    for item in config:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--config {item!r}: expected KEY=VALUE (e.g. INFERENCE_PRECISION_HINT=f32)")
        overrides.append((key.strip(), value.strip()))
    return PluginSettings(device or "CPU", preset or "deterministic", tuple(overrides))


class _Renamed(argparse.Action):
    """An old spelling: refused at once (a usage error, exit 2) with one line naming the new one.
    It takes the value the old option took, so that value is not read as a positional first."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str = "", **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            nargs="?",
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        raise UsageError(f"{parser.prog}: {option_string} is now {self.new} (see --help)")


def add_renamed(p: argparse.ArgumentParser, renamed: dict[str, str]) -> None:
    """Refuse each old spelling (key) with a line naming its new one (value)."""
    for old, new in renamed.items():
        p.add_argument(old, action=_Renamed, new=new)


def add_out_dir_option(p: argparse.ArgumentParser, what: str, required: bool = False) -> None:
    """``--out-dir DIR``, the folder a command writes; the old spellings refused."""
    p.add_argument("--out-dir", metavar="DIR", required=required, help=what)
    add_renamed(p, dict.fromkeys(OUT_DIR_SPELLINGS, "--out-dir"))


def input_spec_hint(words: Sequence[str]) -> str:
    """For words left on a command line: when one looks like an input file (``b.npy``,
    ``NAME=b.npy``), how to give it (``--inputs`` takes one SPEC each); else ""."""
    for before, word in zip(("", *words), words, strict=False):
        if before.startswith("-"):
            continue  # (the value of an option no command takes: -o r.npz)
        if not word.startswith("-") and (word.endswith((".npy", ".npz")) or "=" in word):
            return f"; --inputs takes one SPEC each: repeat it (--inputs {word})"
    return ""


def add_engine_options(p: argparse.ArgumentParser, jobs_help: str) -> None:
    """``--jobs``, ``--engine``/``--dask`` and ``--scheduler`` (the same for fuzz and diff)."""
    p.add_argument("--jobs", type=int, default=None, metavar="N", help=jobs_help)
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="process",
        help="where the work runs: worker processes on this machine (default) or Dask distributed",
    )
    p.add_argument(
        "--dask",
        dest="engine",
        action="store_const",
        const="dask",
        help="same as --engine dask: an embedded Dask LocalCluster of --jobs worker processes "
        "(default: one per core), loopback only",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); implies "
        "--engine dask.  Every worker needs this ovonehot and OpenVINO, and the paths given "
        "(models, --out, --save) must be the same on every worker (a shared file system)",
    )


def add_inputs_option(p: argparse.ArgumentParser, more: str = "") -> None:
    """``--inputs SPEC``: one value each (never swallowing the model after it), repeatable."""
    p.add_argument(
        "--inputs",
        action="append",
        default=[],
        metavar="SPEC",
        help="x.npy (single-input model), NAME=x.npy, or all.npz keyed by input name; one SPEC each, "
        f"repeat --inputs for more (--inputs ids=a.npy --inputs mask=b.npy){more}",
    )


def add_generation_options(p: argparse.ArgumentParser) -> None:
    """How inputs not given are generated: seeds, value ranges, shapes for dynamic dims."""
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


def add_input_options(p: argparse.ArgumentParser) -> None:
    """Where the inputs come from: files, or generated (seeds, ranges, shapes)."""
    add_inputs_option(p, "; default: generated from the graph")
    add_generation_options(p)


def add_oracle_options(p: argparse.ArgumentParser) -> None:
    """What ovonehot is compared with: the oracles and the plugin's configuration."""
    p.add_argument(
        "--oracle",
        action="append",
        default=[],
        metavar="NAME[,NAME...]",
        help=f"oracles to compare with, comma-separated or repeated: {', '.join(ORACLES)} "
        "(both = reference,cpu); default reference, and cpu for the outputs the reference cannot compute",
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


def add_tolerance_options(p: argparse.ArgumentParser) -> None:
    """``--atol`` and ``--rtol``: global or per output, repeatable."""
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


def parse_plugin_options(args: argparse.Namespace) -> PluginSettings | None:
    """The cpu oracle's configuration, None when no option sets it (a replay folder's then)."""
    if not (args.device or args.config or args.config_preset or args.cpu_defaults):
        return None
    preset = args.config_preset
    if args.cpu_defaults:
        if preset not in (None, "openvino-defaults"):
            raise InputError("--cpu-defaults and --config-preset deterministic contradict each other")
        preset = "openvino-defaults"
    return parse_plugin(args.device, preset, args.config)


def check_plugin_settings(plugin: PluginSettings | None) -> None:
    """A ``--device`` that is not here or a ``--config`` the device refuses: a usage error (exit 2)
    before any model runs, never an oracle that "could not compute" (asked in OpenVINO's child
    process, which the diff uses next anyway)."""
    if plugin is None or (plugin.device == "CPU" and not plugin.overrides):
        return
    from ..oracle import process  # (imports no openvino: its child does)

    process.shared().check_plugin(plugin.device, dict(plugin.overrides))


def parse_diff_settings(args: argparse.Namespace) -> DiffSettings:
    """The options as the library's settings (parsed here, once)."""
    # In the order the options were always checked; oracle names last.
    tolerances = parse_tolerances(args.atol, args.rtol)
    if args.inputs and (args.seed or args.val_range or args.shape):  # as ``run`` says it
        raise UsageError(
            "--seed, --val-range and --shape are for generated inputs; the given inputs have their own"
        )
    shapes = parse_shapes(args.shape)
    input_settings = parse_input_settings(args.seed, args.val_range)
    plugin = parse_plugin_options(args)
    return DiffSettings(
        bin_path=args.bin_path,
        inputs=tuple(args.inputs),
        input_settings=input_settings,
        shapes=shapes,
        oracles=parse_oracles(args.oracle),
        plugin=plugin,
        expected=args.expected,
        tolerances=tolerances if args.atol or args.rtol else None,
        strict=getattr(args, "strict", False),
        allow_partial=getattr(args, "allow_partial", False),
        all_layers=getattr(args, "all_layers", False),
    )
