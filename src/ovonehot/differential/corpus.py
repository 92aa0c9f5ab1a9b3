"""``ovonehot diff`` over a corpus: several models, replay folders, or directories of them.

Each model is diffed exactly as ``ovonehot diff MODEL`` would (:func:`~.session.diff_path`:
the same settings, the same report), on an engine (:mod:`ovonehot.differential.engines`): one after the other in this process (the
default), on ``--jobs N`` worker processes, or on Dask distributed.  The result is a table, one
row per model (its verdict counts and exit status), the reports of the models that did not exit
0, and an overall exit status: the worst (highest) of the models'.  The table and the reports do
not depend on the engine.
"""

from __future__ import annotations

import dataclasses
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import _console, progress
from ..errors import Error, InputError
from ..jsondata import plain
from . import engines
from .replay import is_replay
from .session import DiffSettings, diff_path

CRASH_EXIT = 4  # an isolated child died on the model: OpenVINO failing, as everywhere


@dataclass
class ModelResult:
    position: int
    model: str
    exit_code: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # verdict -> outputs (all oracles)
    error: str = ""  # the one-line error when diff could not give a report
    output: str = ""  # what ``ovonehot diff MODEL`` printed
    report: dict[str, Any] | None = None  # its --json report
    saved: str = ""  # the replay folder (--out-dir)
    seconds: float = 0.0
    stderr: str = ""  # what the worker process printed on stderr for it (engines)


def is_corpus(paths: Sequence[str]) -> bool:
    """Several models, or one directory that is not itself a replay folder."""
    return len(paths) > 1 or (Path(paths[0]).is_dir() and not is_replay(paths[0]))


def collect(paths: Sequence[str]) -> list[str]:
    """Every model .xml and replay folder named, or found under a named directory (sorted, hidden
    entries skipped; a replay folder is one model, not searched further)."""
    found: list[str] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith("."):
                continue
            if entry.is_dir():
                if is_replay(entry):
                    found.append(str(entry))
                else:
                    walk(entry)
            elif entry.suffix == ".xml":
                found.append(str(entry))

    for path in paths:
        p = Path(path)
        if is_replay(p) or p.is_file():
            found.append(path)
        elif p.is_dir():
            before = len(found)
            walk(p)
            if len(found) == before:
                raise InputError(f"{path}: no model (.xml) or replay folder in this directory")
        else:
            raise InputError(f"{path}: no such model, replay folder or directory")
    return found


def _name(path: str) -> str:
    p = Path(path)
    return p.name if p.is_dir() else p.stem


@dataclass(frozen=True, slots=True)
class CorpusSettings:
    """What every model of a corpus is diffed with: the same settings (``save`` and ``command``
    are set per model), ``options``, the command-line words that set them (recorded in each
    replay folder's command), and ``describe``, how an error is told (the command line names
    parameters by their flags)."""

    diff: DiffSettings
    options: tuple[str, ...] = ()
    describe: Callable[[Error], str] = str


def diff_handler(settings: CorpusSettings, work: str, item: tuple[int, str, str | None]) -> dict[str, Any]:
    """One model, as ``ovonehot diff MODEL OPTIONS [--out-dir ...]`` (its own OpenVINO child
    isolates OpenVINO's crashes, as for a single diff)."""
    position, model, save = item
    result = ModelResult(position, model, saved=save or "")
    command = ("ovonehot", "diff", model, *settings.options) + (("--out-dir", save) if save else ())
    one = dataclasses.replace(settings.diff, save=save, command=command)
    start = time.perf_counter()
    printed: list[str] = []
    try:
        outcome = diff_path(model, one, printed.append)
    except Error as exc:
        result.exit_code, result.error = exc.exit_code, " ".join(settings.describe(exc).split())
    except Exception:  # noqa: BLE001 - an ovonehot bug on one model is that model's result, loudly
        result.exit_code = 1
        result.error = f"internal error: {traceback.format_exc().strip().splitlines()[-1]}"
        result.output = traceback.format_exc()
    else:
        result.exit_code = outcome.report.exit_code
        result.report = plain(outcome.data)
        result.counts = dict(outcome.report.counts())
    result.output = "".join(line + "\n" for line in printed) + result.output
    if save and not Path(save).is_dir():
        result.saved = ""
    result.seconds = time.perf_counter() - start
    return asdict(result)


def diff_crashed(
    settings: CorpusSettings,
    work: str | None,
    item: tuple[int, str, str | None],
    returncode: int | None,
    death: str,
) -> dict[str, Any]:
    position, model, _ = item
    return asdict(ModelResult(position, model, CRASH_EXIT, error=f"crash: the worker process died ({death})"))


def _short(text: str, limit: int = 100) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


@dataclass
class CorpusSummary:
    results: list[ModelResult]
    seconds: float
    interrupted: bool = False
    total: int = 0

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        return max((r.exit_code for r in self.results), default=0)

    def table(self) -> str:
        verdicts: list[str] = []
        for r in self.results:
            verdicts += [v for v in r.counts if v not in verdicts]
        names = [r.model for r in self.results]
        width = max([len(n) for n in names] + [5])
        cols = [max(len(v), 5) for v in verdicts]
        lines = [
            f"diff: {len(self.results)} of {self.total} models, {self.seconds:.1f} s"
            + (" (interrupted: the models that finished)" if self.interrupted else "")
        ]
        lines.append(
            f"{'model':<{width}}"
            + "".join(f"  {v:>{c}}" for v, c in zip(verdicts, cols, strict=True))
            + "  exit"
        )
        for r in self.results:
            row = f"{r.model:<{width}}" + "".join(
                f"  {r.counts.get(v, 0):>{c}}" for v, c in zip(verdicts, cols, strict=True)
            )
            lines.append(row + f"  {r.exit_code:>4}" + (f"  {_short(r.error)}" if r.error else ""))
        by_code: dict[int, int] = {}
        for r in self.results:
            by_code[r.exit_code] = by_code.get(r.exit_code, 0) + 1
        lines.append("models: " + ", ".join(f"{n} exit {c}" for c, n in sorted(by_code.items())))
        lines.append(f"exit {self.exit_code}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "interrupted": self.interrupted,
            "exit_code": self.exit_code,
            "models": [asdict(r) for r in self.results],
        }


def run(
    models: Sequence[str], settings: CorpusSettings, save: str | None, engine: engines.Engine
) -> CorpusSummary:
    """Diff every model with the same ``settings`` (each model's replay folder under ``save``)."""
    folders = [str(Path(save) / f"{i:04d}-{_name(m)}") if save else None for i, m in enumerate(models)]
    job = engines.Job(
        "ovonehot.differential.corpus:diff_handler",
        "ovonehot.differential.corpus:diff_crashed",
        settings,
        "ovonehot-corpus-",
    )
    start = time.perf_counter()
    results: list[ModelResult] = []
    interrupted = False
    try:
        items = iter([(i, m, f) for i, (m, f) in enumerate(zip(models, folders, strict=True))])
        with progress.bar(len(models), "diff", "model") as shown:
            for _, data in engine.run(job, items, lambda: True):
                results.append(ModelResult(**data))
                shown.update()
                shown.note(f"{_name(results[-1].model)}: exit {results[-1].exit_code}")
    except KeyboardInterrupt:
        interrupted = True
        _console.handled()
        oracle_process = sys.modules.get("ovonehot.oracle.process")
        if oracle_process is not None:  # a model's OpenVINO child (this process's): its answer is not wanted
            oracle_process.abandon()
    results.sort(key=lambda r: r.position)
    return CorpusSummary(results, time.perf_counter() - start, interrupted, len(models))
