"""``ovonehot fuzz``: random valid IR, written two ways, each run through ``diff``.

Each case (:mod:`ovonehot.differential.fuzz_graphs`) is written with ovonehot's own IR writer
(IR v11, sometimes v10) or re-saved by OpenVINO's ``save_model`` (plain or
f16-compressed), loaded back by ovonehot, fed seeded inputs and diffed against
the requested oracles.  A case *fails* when any output is "ours wrong" or
"unexplained", when ovonehot cannot read what OpenVINO wrote, or when the case
crashes the process; each failing case is saved as a replay folder
(``ovonehot diff FOLDER`` reproduces it).

Cases run on an engine (:mod:`ovonehot.differential.engines`): worker processes on this
machine (``jobs``, the default) or Dask distributed.  Either way each case runs
in an isolated child, one case at a time, so an OpenVINO crash loses one case,
not the campaign: the case is recorded as a crash and its model and inputs are
kept for replay.  The same seed gives the same results, replay folders and
summary on every engine (timings apart).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _console
from ..errors import Error
from ..progress import Bar
from ..progress import bar as progress_bar
from . import engines

if TYPE_CHECKING:
    from .engines import Engine

WRITERS = (("ovonehot", 0.45), ("ovonehot-v10", 0.05), ("save_model", 0.25), ("save_model-f16", 0.25))
CRASH = "crash"
ERROR = "error"


@dataclass
class CaseResult:
    """What one case did: its verdicts, the deviations named, and whether it failed."""

    index: int
    id: str
    family: str = ""
    writer: str = ""
    description: str = ""
    verdicts: list[tuple[str, str, str]] = field(default_factory=list)  # (oracle, output, verdict)
    deviations: list[str] = field(default_factory=list)
    failing: bool = False
    problem: str = ""  # for errors and crashes
    seconds: float = 0.0
    folder: str = ""
    stderr: str = ""  # what the worker process printed on stderr for it (engines)


def case_id(index: int, family: str = "", writer: str = "") -> str:
    return "-".join(p for p in (f"case{index:05d}", family, writer) if p)


def _writer(seed: int, index: int) -> str:
    rng = np.random.default_rng([seed, index, 1])
    names = [w for w, _ in WRITERS]
    weights = np.array([p for _, p in WRITERS])
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def input_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) % 2**32


def _write(case: Any, writer: str, folder: Path) -> Path:
    from ..ir.writer import write_ir

    xml = folder / "model.xml"
    if writer.startswith("ovonehot"):
        write_ir(case.graph, xml, inference=case.inference, version=10 if writer.endswith("v10") else 11)
        return xml
    from ..oracle.openvino_runtime import resave

    ours = folder / "generated.xml"
    write_ir(case.graph, ours, inference=case.inference)
    resave(ours, xml, compress_to_fp16=writer.endswith("f16"))
    ours.unlink()
    ours.with_suffix(".bin").unlink()
    return xml


def run_case(seed: int, index: int, oracles: Sequence[str], out: Path | None, work: Path) -> CaseResult:
    """Generate, write, diff and (when failing and ``out`` is set) save case ``index``."""
    from ..model import load
    from ..npyio import save_archive
    from . import replay
    from .diff import DiffOptions, Verdict, diff_model, oracle_runners
    from .fuzz_graphs import generate
    from .gen_inputs import generate_inputs

    start = time.perf_counter()
    case = generate(seed, index)
    writer = _writer(seed, index)
    result = CaseResult(index, case_id(index, case.family, writer), case.family, writer, case.description)
    folder = work / result.id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.json").write_text(
        json.dumps(
            {
                "seed": seed,
                "case": index,
                "family": case.family,
                "writer": writer,
                "description": case.description,
            }
        )
    )
    try:
        xml = _write(case, writer, folder)
        model = load(xml)
        inputs = generate_inputs(model, input_seed(seed, index), case.shapes)
        save_archive(folder / "inputs.npz", inputs)  # kept if OpenVINO crashes the worker
        options = DiffOptions(
            allow_partial=True, source=str(xml), seed=input_seed(seed, index), generated=True
        )
        report = diff_model(model, inputs, oracle_runners(oracles, model, str(xml)), options)
    except Error as exc:
        result.failing, result.problem = True, f"{ERROR}: {exc}"
    except Exception:  # noqa: BLE001 - an ovonehot bug found by fuzzing is a result, not the end
        result.failing, result.problem = True, f"{ERROR}: internal error\n{traceback.format_exc()}"
    else:
        result.verdicts = [(v.oracle, v.name, v.verdict.value) for v in report.verdicts]
        result.deviations = sorted(
            {e.code for v in report.verdicts if v.verdict is Verdict.DEVIATION for e in v.events}
        )
        result.failing = bool(
            report.failures
        )  # a case both oracles refuse for known reasons is not a finding
        if result.failing and out is not None:
            target = out / result.id
            replay.save(
                target,
                report,
                xml,
                None,
                tuple(oracles),
                _tolerances(),
                ["ovonehot", "diff", str(target)],
                {k: list(v) for k, v in case.shapes.items()},
                extra={
                    "fuzz": {
                        "seed": seed,
                        "case": index,
                        "family": case.family,
                        "writer": writer,
                        "description": case.description,
                    }
                },
            )
            result.folder = str(target)
    result.seconds = time.perf_counter() - start
    if result.failing and out is not None and not result.folder:
        result.folder = _keep(folder, out / result.id, result.problem)
    shutil.rmtree(folder, ignore_errors=True)
    return result


def _tolerances() -> Any:
    from .comparator import Tolerances

    return Tolerances()


def _keep(work_folder: Path, target: Path, problem: str) -> str:
    """Keep what a case left behind (model, inputs) when it could not produce a diff report."""
    if not work_folder.is_dir():
        return ""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(work_folder, target, dirs_exist_ok=True)
    (target / "problem.txt").write_text(problem + "\n")
    return str(target)


# -- engines (ovonehot.differential.engines): one case per item, run in an isolated child ---------------


def case_handler(settings: tuple[int, tuple[str, ...], str | None], work: str, index: int) -> dict[str, Any]:
    """One case, in an isolated child (process pool or Dask worker) or in this process."""
    seed, oracles, out = settings
    return asdict(run_case(seed, index, oracles, Path(out) if out else None, Path(work)))


def case_crashed(
    settings: tuple[int, tuple[str, ...], str | None],
    work: str | None,
    index: int,
    returncode: int | None,
    death: str,
) -> dict[str, Any]:
    """The case whose child died: a crash, with its model and inputs kept for replay."""
    seed, _, out = settings
    return asdict(
        _crashed(seed, index, returncode, death, Path(out) if out else None, Path(work) if work else None)
    )


def _result(data: dict[str, Any]) -> CaseResult:
    fields = dict(data)
    fields["verdicts"] = [tuple(v) for v in fields["verdicts"]]
    return CaseResult(**fields)


@dataclass
class Summary:
    seed: int
    oracles: tuple[str, ...]
    results: list[CaseResult]
    seconds: float
    stopped_by_budget: bool = False
    interrupted: bool = False  # Ctrl-C: the results are the cases that finished

    @property
    def failing(self) -> list[CaseResult]:
        return [r for r in self.results if r.failing]

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        return 1 if self.failing else 0

    def table(self) -> str:
        from .diff import Verdict

        lines = [
            f"fuzz: {len(self.results)} cases (seed {self.seed}), oracles {'+'.join(self.oracles)}, "
            f"{self.seconds:.1f} s"
            + (" (time budget reached)" if self.stopped_by_budget else "")
            + (" (interrupted: the cases that finished)" if self.interrupted else "")
        ]
        counts: dict[str, Counter[str]] = {o: Counter() for o in self.oracles}
        for r in self.results:
            for oracle, _, verdict in r.verdicts:
                counts.setdefault(oracle, Counter())[verdict] += 1
        width = max(len(v.value) for v in Verdict)
        lines.append(f"{'outputs by verdict':<{width + 2}}" + "".join(f"{o:>12}" for o in counts))
        lines.extend(
            f"  {v.value:<{width}}" + "".join(f"{counts[o][v.value]:>12}" for o in counts) for v in Verdict
        )
        problems = Counter(r.problem.split(":")[0] for r in self.results if r.problem)
        lines.append(
            f"cases: {len(self.results) - len(self.failing)} ok, {len(self.failing)} failing"
            + (f" ({', '.join(f'{n} {k}' for k, n in problems.items())})" if problems else "")
        )
        seen = Counter(code for r in self.results for code in r.deviations)
        if seen:
            lines.append("known deviations named: " + ", ".join(f"{k} ({n})" for k, n in seen.most_common()))
        fams = Counter(r.family for r in self.results)
        bad = Counter(r.family for r in self.failing)
        lines.append(
            "families: "
            + ", ".join(
                f"{k or '?'} {n}" + (f" ({bad[k]} failing)" if bad[k] else "")
                for k, n in sorted(fams.items())
            )
        )
        writers = Counter(r.writer for r in self.results)
        lines.append("writers: " + ", ".join(f"{k or '?'} {n}" for k, n in sorted(writers.items())))
        for r in self.failing[:20]:
            where = f" -> {r.folder}" if r.folder else ""
            what = (
                r.problem.splitlines()[0]
                if r.problem
                else ", ".join(
                    f"{o}:{name} {v}" for o, name, v in r.verdicts if v not in ("PASS", "plugin deviation")
                )
            )
            lines.append(f"  FAIL {r.id}: {what}{where}")
        if len(self.failing) > 20:
            lines.append(f"  ... and {len(self.failing) - 20} more")
        printed = [r for r in self.results if r.stderr]
        lines.extend(f"  {r.id}: its worker process printed on stderr: {r.stderr}" for r in printed[:20])
        if len(printed) > 20:
            lines.append(f"  ... and {len(printed) - 20} more cases printed on stderr (JSON: stderr)")
        lines.append(f"exit {self.exit_code}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "oracles": list(self.oracles),
            "seconds": self.seconds,
            "stopped_by_budget": self.stopped_by_budget,
            "interrupted": self.interrupted,
            "exit_code": self.exit_code,
            "cases": [_case_json(r) for r in self.results],
        }


def _case_json(result: CaseResult) -> dict[str, Any]:
    """One case as JSON: its verdicts as objects ``{"oracle", "output", "verdict"}``."""
    data = asdict(result)
    data["verdicts"] = [dict(zip(("oracle", "output", "verdict"), v, strict=True)) for v in result.verdicts]
    return data


def campaign(
    cases: int,
    seed: int = 0,
    oracles: Sequence[str] = ("reference", "cpu"),
    out: str | os.PathLike[str] | None = None,
    time_budget: float | None = None,
    jobs: int = 1,
    progress: bool | None = False,
    first: int = 0,
    engine: Engine | None = None,
) -> Summary:
    """Run cases ``first .. first+cases-1`` on ``engine`` (default: ``jobs`` worker processes on
    this machine; ``jobs=0`` runs them in this process, without crash isolation).  The results,
    replay folders and summary depend on the seed and cases only, not on the engine.

    Ctrl-C (KeyboardInterrupt) stops the campaign: workers are killed, the cases that
    finished make the summary (``interrupted``, exit code 130), written to ``out`` as
    usual, with the replay folders of the failing ones.  ``progress``: a bar counting the
    cases on stderr (None: when :mod:`ovonehot.progress` draws bars, on a terminal).
    """
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        from ..npyio import ensure_directory

        ensure_directory(out_path)
    if engine is None:
        engine = engines.make("process", jobs)
    job = engines.Job(
        "ovonehot.differential.fuzz:case_handler",
        "ovonehot.differential.fuzz:case_crashed",
        (seed, tuple(oracles), str(out_path) if out_path is not None else None),
        "ovonehot-fuzz-",
    )
    start = time.perf_counter()
    results: list[CaseResult] = []
    bar = progress_bar(cases, "fuzz", "case", force=progress)
    interrupted = False

    def keep_going() -> bool:
        return time_budget is None or time.perf_counter() - start <= time_budget

    try:
        for _, data in engine.run(job, iter(range(first, first + cases)), keep_going):
            results.append(_result(data))
            _tick(bar, results[-1])
    except KeyboardInterrupt:
        interrupted = True
        _console.handled()
    finally:
        bar.close()
    results.sort(key=lambda r: r.index)
    stopped = not interrupted and len(results) < cases
    summary = Summary(seed, tuple(oracles), results, time.perf_counter() - start, stopped, interrupted)
    if out_path is not None:
        from ..npyio import write_text

        write_text(out_path / "summary.json", json.dumps(summary.as_json(), indent=2) + "\n")
    return summary


def _tick(bar: Bar, result: CaseResult) -> None:
    bar.update(1)
    if result.failing:
        bar.note(f"last failing: {result.id}")


def _crashed(
    seed: int, index: int, exitcode: int | None, death: str, out: Path | None, work: Path | None
) -> CaseResult:
    if exitcode is not None:
        problem = f"{CRASH}: the worker process died (exit code {exitcode}) running this case"
    else:
        problem = f"{CRASH}: {death} running this case"
    folder = ""
    candidates = sorted(work.glob(f"{case_id(index)}-*")) if work is not None else []
    info: dict[str, Any] = {}
    if candidates:
        try:
            info = json.loads((candidates[0] / "case.json").read_text())
        except (OSError, json.JSONDecodeError):
            info = {}
        if out is not None:
            folder = _keep(candidates[0], out / candidates[0].name, problem)
        shutil.rmtree(candidates[0], ignore_errors=True)
    return CaseResult(
        index,
        candidates[0].name if candidates else case_id(index),
        info.get("family", ""),
        info.get("writer", ""),
        info.get("description", ""),
        failing=True,
        problem=problem,
        folder=folder,
    )
