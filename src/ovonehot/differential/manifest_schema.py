"""The replay manifest's schema (``manifest.json``), checked whenever a replay folder is read.

A replay folder comes from anyone, so its manifest is data to check, field by field,
before any of it is used: every field's type, the oracle names ovonehot knows, finite
non-negative tolerances, and the plugin configuration keys ovonehot itself writes
(:data:`PLUGIN_CONFIG_KEYS`; a folder's ``CACHE_DIR`` would make OpenVINO write where
the folder says).  The manifest names no files: the folder's files have fixed names
(``model.xml``, ``model.onnx``, ``inputs.npz``, ...), read by :mod:`.replay` from inside the folder only.

``schema_version`` 1 is this schema; manifests written before the field existed are
read as version 1 when they are otherwise valid.  Unknown fields are refused: a newer
ovonehot writes a newer ``schema_version``, which this one refuses by name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..errors import InputError
from ..oracle.common import CPU_CONFIG, ORACLES, PRESETS

FORMAT = "ovonehot-replay/1"
# What the folder's model is: an IR (model.xml + model.bin), or an ONNX model (model.onnx, with
# the IR OpenVINO ran beside it).  Folders written before the field existed hold an IR.
MODEL_FORMATS = ("ir", "onnx")
SCHEMA_VERSION = 1

# The plugin properties a replay may set: the deterministic preset's and the precision hints
# (docs/robustness.md).  None of them names a file or directory.
PLUGIN_CONFIG_KEYS = frozenset(
    {*CPU_CONFIG, "PERFORMANCE_HINT", "KV_CACHE_PRECISION", "DYNAMIC_QUANTIZATION_GROUP_SIZE"}
)
# A device name (``CPU``, ``GPU.1``, ``HETERO:GPU,CPU``) and a property value: short words, no paths.
_WORD = re.compile(r"[A-Za-z0-9_.:,+-]{1,64}", re.ASCII)

Check = Callable[[Any, str], None]


class SchemaError(InputError):
    """A manifest field that does not fit the schema (``where`` says which)."""


def _fail(where: str, expected: str, value: Any) -> SchemaError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else f"{shown[:80]}... ({len(shown) - 80} more characters)"
    return SchemaError(f"{where}: expected {expected}, got {type(value).__name__} {shown}")


def _string(value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise _fail(where, "a string", value)


def _boolean(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise _fail(where, "true or false", value)


def _integer(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, "an integer", value)


def _count(value: Any, where: str) -> None:
    _integer(value, where)
    if value < 0:
        raise _fail(where, "an integer >= 0", value)


def _optional(check: Check) -> Check:
    def optional(value: Any, where: str) -> None:
        if value is not None:
            check(value, where)

    return optional


def _tolerance(value: Any, where: str) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise _fail(where, "a finite number >= 0", value)


def _word(value: Any, where: str) -> None:
    if not isinstance(value, str) or not _WORD.fullmatch(value):
        raise _fail(where, "a short word (letters, digits, _ . : , + -)", value)


def _list_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise _fail(where, "a list", value)
        for k, v in enumerate(value):
            item(v, f"{where}[{k}]")

    return check


def _dict_of(item: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        for k, v in value.items():
            item(v, f"{where}[{k!r}]")

    return check


def _record(fields: dict[str, Check], required: tuple[str, ...] = (), closed: bool = True) -> Check:
    """An object with these fields (each optional unless ``required``); others refused when ``closed``."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise _fail(where, "an object", value)
        for name in required:
            if name not in value:
                raise SchemaError(f"{where}: the field {name!r} is missing")
        for name, v in value.items():
            if name not in fields:
                if closed:
                    known = ", ".join(sorted(fields))
                    raise SchemaError(
                        f"{where}: unknown field {name[:80]!r} (schema {SCHEMA_VERSION}: {known})"
                    )
                continue
            fields[name](v, f"{where}.{name}")

    return check


def _oracle(value: Any, where: str) -> None:
    if value not in ORACLES:
        raise _fail(where, f"an oracle name ({', '.join(ORACLES)})", value)


def _oracles(value: Any, where: str) -> None:
    _list_of(_oracle)(value, where)
    if not value:
        raise _fail(where, "at least one oracle", value)


def _model_format(value: Any, where: str) -> None:
    if value not in MODEL_FORMATS:
        raise _fail(where, f"a model format ({', '.join(MODEL_FORMATS)})", value)


def _format(value: Any, where: str) -> None:
    if value != FORMAT:
        raise _fail(where, repr(FORMAT), value)


def _version(value: Any, where: str) -> None:
    _integer(value, where)
    if value != SCHEMA_VERSION:
        raise SchemaError(f"{where}: schema version {value}; this ovonehot reads version {SCHEMA_VERSION}")


def _preset(value: Any, where: str) -> None:
    if value not in PRESETS:
        raise _fail(where, f"a preset ({', '.join(PRESETS)})", value)


def _config(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise _fail(where, "an object", value)
    for key, v in value.items():
        if key not in PLUGIN_CONFIG_KEYS:
            raise SchemaError(
                f"{where}: the plugin property {key[:80]!r} is not one a replay may set "
                f"({', '.join(sorted(PLUGIN_CONFIG_KEYS))})"
            )
        if isinstance(v, bool) or not isinstance(v, (str, int)) or not _WORD.fullmatch(str(v)):
            raise _fail(f"{where}[{key!r}]", "a short word or an integer", v)


_VERDICT = _record(
    {"output": _string, "oracle": _string, "verdict": _string}, ("output", "oracle", "verdict"), False
)

_REDUCED_FROM = _record(
    {
        "model": _string,
        "output": _string,
        "verdict": _string,
        "oracle": _string,
        "ops_before": _count,
        "ops_after": _count,
        "diffs_run": _count,
        "steps": _list_of(lambda v, w: None),
    },
    ("model", "ops_before", "ops_after"),
)

_TOLERANCES = _record(
    {
        "atol": _optional(_tolerance),
        "rtol": _optional(_tolerance),
        "per_output_atol": _dict_of(_tolerance),
        "per_output_rtol": _dict_of(_tolerance),
    }
)

_MANIFEST = _record(
    {
        "format": _format,
        "schema_version": _version,
        "source": _string,
        "model_format": _model_format,
        "seed": _optional(_integer),
        "inputs_generated": _boolean,
        "oracles": _oracles,
        "tolerances": _TOLERANCES,
        "shapes": _dict_of(_list_of(_count)),
        "strict": _boolean,
        "allow_partial": _boolean,
        "versions": _dict_of(_string),
        "command": _list_of(_string),
        "counts": _dict_of(_count),
        "exit_code": _integer,
        "verdicts": _list_of(_VERDICT),
        "plugin": _record({"device": _word, "preset": _preset, "config": _config}),
        "input_generation": _dict_of(lambda v, w: None),
        "reduced_from": _REDUCED_FROM,
        "fuzz": _dict_of(lambda v, w: None),
    },
    ("format",),
)


def check(manifest: Any, where: str) -> None:
    """``manifest`` (parsed JSON) fits the schema; else a SchemaError naming the field."""
    _MANIFEST(manifest, where)
