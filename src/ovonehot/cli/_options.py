"""The command line's own syntax: ``NAME:X``-style option values parsed into library settings, and
library parameters named by the flags that set them.

The library (``ovonehot.differential``, ``ovonehot.oracle``) takes typed settings
(:class:`~ovonehot.differential.gen_inputs.InputSettings`,
:class:`~ovonehot.differential.comparator.Tolerances`, :class:`~ovonehot.oracle.common.PluginSettings`,
shapes as tuples) and speaks of its parameters in errors
(:class:`~ovonehot.errors.ParameterError`); only this module knows ``--seed 3``,
``--val-range labels:0,9``, ``--atol out:1e-3``, ``--shape x=[2,3]``, ``--config KEY=VALUE``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from ..differential.comparator import Tolerances
from ..differential.engines import ENGINES
from ..differential.gen_inputs import InputSettings
from ..errors import Error, InputError, ParameterError, UsageError
from ..oracle.common import PluginSettings
from ..types import PartialShape

# Library parameter -> the flag that sets it, where the two names differ.
FLAGS = {
    "shapes": "--shape",
    "per_input_seeds": "--seed",
    "value_range": "--val-range",
    "per_input_ranges": "--val-range",
    "per_output_atol": "--atol",
    "per_output_rtol": "--rtol",
}


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


def parse_input_settings(seeds: Sequence[str] = (), ranges: Sequence[str] = ()) -> InputSettings:
    """``--seed [NAME:]S`` and ``--val-range [NAME:]LO,HI`` (each repeatable) as InputSettings."""
    seed, per_seed = 0, {}
    for item in seeds:
        name, sep, value = str(item).rpartition(":")
        try:
            number = int(value)
        except ValueError:
            raise InputError(f"--seed {item!r}: expected an integer or NAME:INTEGER") from None
        if sep:
            per_seed[name] = number
        else:
            seed = number
    glob, per_range = None, {}
    for item in ranges:
        name, sep, value = item.rpartition(":")
        lo_text, comma, hi_text = value.partition(",")
        try:
            lo, hi = float(lo_text), float(hi_text)
        except ValueError:
            raise InputError(f"--val-range {item!r}: expected [NAME:]LO,HI (e.g. labels:0,9)") from None
        if not comma or not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise InputError(f"--val-range {item!r}: expected finite LO <= HI")
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
