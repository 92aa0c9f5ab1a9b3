"""Replay folders: everything needed to reproduce one ``ovonehot diff`` run.

A folder holds ``model.xml`` + ``model.bin`` (copied as given), ``inputs.npz``,
``ours.npz`` and one ``<oracle>.npz`` per oracle that produced outputs, and
``manifest.json``: the seed, whether inputs were generated (and how: per input
its role, seed and value range), the oracles (and the plugin's device and
configuration), tolerances, ``--allow-partial`` and ``--shape`` overrides, ovonehot's and OpenVINO's versions, the
verdicts and the exact command.  ``ovonehot diff DIR`` replays it.  An ONNX model's folder
(``model_format`` "onnx") holds the ``.onnx`` as given in ``model.onnx`` (what a replay diffs,
onnxruntime included) and, in ``model.xml`` + ``model.bin``, the IR the OpenVINO oracles ran
(what a repro script embeds).

Replay folders are what users exchange, so a folder is read as untrusted data
(:mod:`.manifest_schema`): the manifest is checked against its versioned schema before
anything uses it (every field's type, the oracle names ovonehot knows, the plugin
configuration keys of :data:`~.manifest_schema.PLUGIN_CONFIG_KEYS` only, so a folder
cannot point OpenVINO's ``CACHE_DIR`` anywhere), and every file read from it must be
a regular file inside it (no link out of the folder, no device): any violation is one
``InputError`` line.  Manifests written before ``schema_version`` existed are read when
they are otherwise valid.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import copy_file, write_bytes
from ..errors import InputError
from ..ir.writer import to_bytes
from ..model import Model
from ..model import load as load_model
from ..npyio import check_input_file, ensure_directory, load_archive, save_archive, write_text
from ..oracle.common import PRESETS, OracleKind, PluginSettings
from ..oracle.onnx_frontend import is_onnx_path
from . import manifest_schema
from .comparator import Tolerances
from .report import DiffReport

FORMAT = manifest_schema.FORMAT
MANIFEST = "manifest.json"
ONNX_MODEL = "model.onnx"
# A manifest is a few kilobytes; anything near this is not one (and json.loads holds it all).
MANIFEST_LIMIT = 16 << 20


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay folder, read back."""

    folder: Path
    xml: Path  # the IR: the model's own, or the one made of an ONNX model
    bin: Path
    model: Path  # what a replay diffs: model.xml, or model.onnx for an ONNX model
    inputs: dict[str, np.ndarray]
    manifest: dict[str, Any]
    saved: dict[str, dict[str, np.ndarray]]  # "ours" / oracle name -> outputs

    @property
    def oracles(self) -> tuple[OracleKind, ...]:
        return tuple(OracleKind(name) for name in self.manifest.get("oracles", ("reference",)))

    @property
    def plugin(self) -> PluginSettings:
        """How the cpu oracle was compiled (the deterministic CPU for folders that do not say)."""
        p = self.manifest.get("plugin") or {}
        overrides = tuple(
            (str(k), str(v))
            for k, v in (p.get("config") or {}).items()
            if str(PRESETS.get(p.get("preset", "deterministic"), {}).get(k, "\0")) != str(v)
        )
        return PluginSettings(p.get("device", "CPU"), p.get("preset", "deterministic"), overrides)

    @property
    def tolerances(self) -> Tolerances:
        t = self.manifest.get("tolerances") or {}
        return Tolerances(
            t.get("atol"),
            t.get("rtol"),
            dict(t.get("per_output_atol") or {}),
            dict(t.get("per_output_rtol") or {}),
        )


def is_replay(path: str | Path) -> bool:
    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()


def save(
    folder: str | Path,
    report: DiffReport,
    xml: str | Path,
    bin_path: str | Path | None,
    oracles: Sequence[OracleKind | str],
    tolerances: Tolerances,
    command: list[str],
    shapes: dict[str, list[int]] | None = None,
    extra: dict[str, Any] | None = None,
    model: Model | None = None,
) -> Path:
    """Write the replay folder for ``report`` (the model files are copied, not rewritten; an
    ONNX model's folder also holds ``model``'s graph as the IR the OpenVINO oracles ran)."""
    out = ensure_directory(folder)
    xml = Path(xml)
    onnx = is_onnx_path(xml)
    if onnx:
        _save_onnx(out, xml, model)
    elif xml.resolve() != (out / "model.xml").resolve():
        weights = Path(bin_path) if bin_path is not None else xml.with_suffix(".bin")
        copy_file(xml, out / "model.xml")
        if weights.is_file():
            copy_file(weights, out / "model.bin")
        else:
            write_bytes(out / "model.bin", b"")
    save_archive(out / "inputs.npz", report.inputs)
    if report.ours is not None:
        save_archive(out / "ours.npz", report.ours)
    for name, run in report.runs.items():
        if run.outputs is not None:
            save_archive(out / f"{name}.npz", run.outputs)
    manifest = {
        "format": FORMAT,
        "schema_version": manifest_schema.SCHEMA_VERSION,
        "source": str(xml),
        "model_format": "onnx" if onnx else "ir",
        "seed": report.seed,
        "inputs_generated": report.generated,
        "oracles": [str(oracle) for oracle in oracles],
        "tolerances": tolerances.as_json(),
        "shapes": shapes or {},
        "strict": report.strict,
        "versions": report.versions,
        "command": command,
        "counts": report.counts(),
        "exit_code": report.exit_code,
        "verdicts": [v.as_json() for v in report.verdicts],
    }
    if extra:
        manifest.update(extra)
    write_text(out / MANIFEST, json.dumps(manifest, indent=2, default=str) + "\n")
    return out


def _save_onnx(out: Path, onnx: Path, model: Model | None) -> None:
    """``model.onnx`` as given, and beside it the IR ovonehot (and the OpenVINO oracles) ran."""
    if onnx.resolve() != (out / ONNX_MODEL).resolve():
        copy_file(onnx, out / ONNX_MODEL)
    if model is None:  # the same conversion every runner of the diff made
        model = load_model(onnx)
    xml, weights = to_bytes(model.graph, model.inference)
    write_bytes(out / "model.xml", xml)
    write_bytes(out / "model.bin", weights)


def load(folder: str | Path) -> Replay:
    """A replay folder read back, its manifest checked against the schema and every file it
    reads checked to be a regular file inside the folder; InputError (one line) otherwise."""
    folder = Path(folder)
    path = _member(folder, MANIFEST, required=True)
    if path.stat().st_size > MANIFEST_LIMIT:
        raise InputError(
            f"{path}: {path.stat().st_size} bytes, not a replay manifest (at most {MANIFEST_LIMIT})"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        text = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        raise InputError(f"{path}: not a replay manifest ({text[:200]})") from None
    manifest_schema.check(manifest, str(path))
    xml = _member(folder, "model.xml", required=True)
    weights = _member(folder, "model.bin", required=False)
    onnx = manifest.get("model_format") == "onnx"
    model = _member(folder, ONNX_MODEL, required=True) if onnx else xml
    inputs = load_archive(_member(folder, "inputs.npz", required=True))
    saved = {}
    for name in ("ours", *(kind.value for kind in OracleKind)):
        if (folder / f"{name}.npz").exists() or (folder / f"{name}.npz").is_symlink():
            saved[name] = load_archive(_member(folder, f"{name}.npz", required=True))
    return Replay(folder, xml, weights, model, inputs, manifest, saved)


def _member(folder: Path, name: str, required: bool) -> Path:
    """``folder/name`` when it is a regular file inside ``folder`` (a link is followed only
    when it stays inside); InputError when it is not, or is missing and ``required``."""
    path = folder / name
    if not path.exists() and not path.is_symlink():
        if required:
            raise InputError(f"{folder}: {name} is missing (not a complete replay folder)")
        return path
    real, inside = os.path.realpath(path), os.path.realpath(folder)
    if os.path.commonpath([real, inside]) != inside:
        raise InputError(
            f"{path}: a link out of the replay folder (to {real}); a replay folder holds its own files"
        )
    check_input_file(path, "replay")
    return path


def reproduced(replay: Replay, report: DiffReport) -> list[str]:
    """One line per saved output set: whether this run gave the same outputs bit for bit."""
    lines = []
    fresh: dict[str, dict[str, np.ndarray] | None] = {"ours": report.ours}
    fresh.update({k: r.outputs for k, r in report.runs.items()})
    for name, old in replay.saved.items():
        new = fresh.get(name)
        if new is None:
            lines.append(f"replay: {name} produced no outputs this time (saved: {len(old)})")
            continue
        same = set(old) == set(new) and all(_same_bits(old[k], new[k]) for k in old)
        lines.append(f"replay: {name} outputs {'identical to' if same else 'DIFFER from'} the saved ones")
    return lines


def _same_bits(saved: np.ndarray, fresh: np.ndarray) -> bool:
    fresh = np.asarray(fresh)
    if fresh.dtype == object:
        return saved.shape == fresh.shape and saved.astype(str).tolist() == fresh.astype(str).tolist()
    if saved.shape != fresh.shape or saved.dtype.itemsize != fresh.dtype.itemsize:
        return False
    return saved.tobytes() == np.ascontiguousarray(fresh).tobytes()
