"""The JSON Schema (draft 2020-12) of every command's ``--json`` document, version
:data:`ovonehot.jsondata.SCHEMA_VERSION` (docs/json.md).

``<command>.schema.json`` describes ``ovonehot <command> --json``; the shared definitions
(shape, tolerance, layer, verdict) are in ``common.schema.json``, referred to by relative
``$ref``.  :func:`load_all` gives every file, keyed by its ``$id``, for a validator's registry.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

# The commands with a schema (every command that takes --json).
COMMANDS = ("convert", "diff", "fuzz", "inspect", "reduce", "repro", "run", "validate")


def load(name: str) -> dict[str, Any]:
    """The schema ``name`` (a command, or ``"common"``) as parsed JSON."""
    if name not in (*COMMANDS, "common"):
        raise ValueError(f"no JSON schema {name!r}; there is one per command: {', '.join(COMMANDS)}")
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def load_all() -> dict[str, dict[str, Any]]:
    """Every schema, keyed by its ``$id``."""
    schemas = [load(n) for n in (*COMMANDS, "common")]
    return {s["$id"]: s for s in schemas}
