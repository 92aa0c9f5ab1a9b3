"""``ovonehot fuzz``: random valid IR, written two ways, each run through ``diff``.

Each case (:mod:`ovonehot.fuzz_graphs`) is written with ovonehot's own IR writer
(IR v11, sometimes v10) or re-saved by OpenVINO's ``save_model`` (plain or
f16-compressed), loaded back by ovonehot, fed seeded inputs and diffed against
the requested oracles.  A case *fails* when any output is "ours wrong" or
"unexplained", when ovonehot cannot read what OpenVINO wrote, or when the case
crashes the process; each failing case is saved as a replay folder
(``ovonehot diff FOLDER`` reproduces it).

Cases run in worker processes (``jobs``), one case at a time per worker, so an
OpenVINO crash loses one case, not the campaign: the case is recorded as a
crash and its model and inputs are kept for replay.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import numpy as np

from . import child
from .child import Child
from .errors import Error

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
    from .ir.writer import write_ir

    xml = folder / "model.xml"
    if writer.startswith("ovonehot"):
        write_ir(case.graph, xml, inference=case.inference, version=10 if writer.endswith("v10") else 11)
        return xml
    import openvino as ov  # type: ignore[import-untyped]

    ours = folder / "generated.xml"
    write_ir(case.graph, ours, inference=case.inference)
    model = ov.Core().read_model(str(ours), str(ours.with_suffix(".bin")))
    ov.save_model(model, str(xml), compress_to_fp16=writer.endswith("f16"))
    ours.unlink()
    ours.with_suffix(".bin").unlink()
    return xml


def run_case(seed: int, index: int, oracles: Sequence[str], out: Path | None, work: Path) -> CaseResult:
    """Generate, write, diff and (when failing and ``out`` is set) save case ``index``."""
    from . import replay
    from .diff import Verdict, diff_model
    from .fuzz_graphs import generate
    from .gen_inputs import generate_inputs
    from .model import load
    from .npyio import save_archive

    start = time.perf_counter()
    case = generate(seed, index)
    writer = _writer(seed, index)
    result = CaseResult(index, case_id(index, case.family, writer), case.family, writer, case.description)
    folder = work / result.id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.json").write_text(json.dumps({"seed": seed, "case": index, "family": case.family,
                                                  "writer": writer, "description": case.description}))
    try:
        xml = _write(case, writer, folder)
        model = load(xml)
        inputs = generate_inputs(model, input_seed(seed, index), case.shapes)
        save_archive(folder / "inputs.npz", inputs)  # kept if OpenVINO crashes the worker
        report = diff_model(model, str(xml), inputs, oracles, seed=input_seed(seed, index), generated=True,
                            allow_partial=True)
    except Error as exc:
        result.failing, result.problem = True, f"{ERROR}: {exc}"
    except Exception:  # noqa: BLE001 - an ovonehot bug found by fuzzing is a result, not the end
        result.failing, result.problem = True, f"{ERROR}: internal error\n{traceback.format_exc()}"
    else:
        result.verdicts = [(v.oracle, v.name, v.verdict.value) for v in report.verdicts]
        result.deviations = sorted({e.code for v in report.verdicts if v.verdict is Verdict.DEVIATION
                                    for e in v.events})
        result.failing = bool(report.failures)  # a case both oracles refuse for known reasons is not a finding
        if result.failing and out is not None:
            target = out / result.id
            replay.save(target, report, xml, None, tuple(oracles), _tolerances(), ["ovonehot", "diff", str(target)],
                        {k: list(v) for k, v in case.shapes.items()},
                        extra={"fuzz": {"seed": seed, "case": index, "family": case.family, "writer": writer,
                                        "description": case.description}})
            result.folder = str(target)
    result.seconds = time.perf_counter() - start
    if result.failing and out is not None and not result.folder:
        result.folder = _keep(folder, out / result.id, result.problem)
    shutil.rmtree(folder, ignore_errors=True)
    return result


def _tolerances() -> Any:
    from .diff import Tolerances

    return Tolerances()


def _keep(work_folder: Path, target: Path, problem: str) -> str:
    """Keep what a case left behind (model, inputs) when it could not produce a diff report."""
    if not work_folder.is_dir():
        return ""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(work_folder, target, dirs_exist_ok=True)
    (target / "problem.txt").write_text(problem + "\n")
    return str(target)


# -- workers ------------------------------------------------------------------------------


def serve_worker(conn: Connection) -> None:
    """A worker process (ovonehot.child): the campaign's settings first, then case indices."""
    seed, oracles, out, work = conn.recv()
    _worker(conn, seed, oracles, out, work)


def _worker(conn: Connection, seed: int, oracles: Sequence[str], out: str | None, work: str) -> None:
    out_path = Path(out) if out else None
    while True:
        try:
            index = conn.recv()
        except (EOFError, OSError):  # the campaign is gone (interrupted, killed): end quietly
            return
        if index is None:
            return
        result = asdict(run_case(seed, index, oracles, out_path, Path(work)))
        try:
            conn.send(result)
        except OSError:
            return


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

        lines = [f"fuzz: {len(self.results)} cases (seed {self.seed}), oracles {'+'.join(self.oracles)}, "
                 f"{self.seconds:.1f} s" + (" (time budget reached)" if self.stopped_by_budget else "")
                 + (" (interrupted: the cases that finished)" if self.interrupted else "")]
        counts: dict[str, Counter[str]] = {o: Counter() for o in self.oracles}
        for r in self.results:
            for oracle, _, verdict in r.verdicts:
                counts.setdefault(oracle, Counter())[verdict] += 1
        width = max(len(v.value) for v in Verdict)
        lines.append(f"{'outputs by verdict':<{width + 2}}" + "".join(f"{o:>12}" for o in counts))
        for v in Verdict:
            lines.append(f"  {v.value:<{width}}" + "".join(f"{counts[o][v.value]:>12}" for o in counts))
        problems = Counter(r.problem.split(":")[0] for r in self.results if r.problem)
        lines.append(f"cases: {len(self.results) - len(self.failing)} ok, {len(self.failing)} failing"
                     + (f" ({', '.join(f'{n} {k}' for k, n in problems.items())})" if problems else ""))
        seen = Counter(code for r in self.results for code in r.deviations)
        if seen:
            lines.append("known deviations named: " + ", ".join(f"{k} ({n})" for k, n in seen.most_common()))
        fams = Counter(r.family for r in self.results)
        bad = Counter(r.family for r in self.failing)
        lines.append("families: " + ", ".join(f"{k or '?'} {n}" + (f" ({bad[k]} failing)" if bad[k] else "")
                                              for k, n in sorted(fams.items())))
        writers = Counter(r.writer for r in self.results)
        lines.append("writers: " + ", ".join(f"{k or '?'} {n}" for k, n in sorted(writers.items())))
        for r in self.failing[:20]:
            where = f" -> {r.folder}" if r.folder else ""
            what = r.problem.splitlines()[0] if r.problem else ", ".join(
                f"{o}:{name} {v}" for o, name, v in r.verdicts if v not in ("PASS", "plugin deviation"))
            lines.append(f"  FAIL {r.id}: {what}{where}")
        if len(self.failing) > 20:
            lines.append(f"  ... and {len(self.failing) - 20} more")
        lines.append(f"exit {self.exit_code}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "oracles": list(self.oracles), "seconds": self.seconds,
                "stopped_by_budget": self.stopped_by_budget, "interrupted": self.interrupted,
                "exit_code": self.exit_code,
                "cases": [asdict(r) for r in self.results]}


def campaign(
    cases: int,
    seed: int = 0,
    oracles: Sequence[str] = ("reference", "cpu"),
    out: str | os.PathLike[str] | None = None,
    time_budget: float | None = None,
    jobs: int = 1,
    progress: bool = False,
    first: int = 0,
) -> Summary:
    """Run cases ``first .. first+cases-1``; ``jobs=0`` runs them in this process (no crash isolation).

    Ctrl-C (KeyboardInterrupt) stops the campaign: workers are killed, the cases that
    finished make the summary (``interrupted``, exit code 130), written to ``out`` as
    usual, with the replay folders of the failing ones.
    """
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        from .npyio import ensure_directory

        ensure_directory(out_path)
    work = Path(tempfile.mkdtemp(prefix="ovonehot-fuzz-"))
    start = time.perf_counter()
    results: list[CaseResult] = []
    bar = _progress(cases) if progress else None
    stopped = interrupted = False
    try:
        todo = iter(range(first, first + cases))
        if jobs <= 0:
            for index in todo:
                if time_budget is not None and time.perf_counter() - start > time_budget:
                    stopped = True
                    break
                results.append(run_case(seed, index, oracles, out_path, work))
                _tick(bar, results[-1])
        else:
            stopped = _run_pool(todo, jobs, seed, oracles, out_path, work, start, time_budget, results, bar)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: r.index)
    summary = Summary(seed, tuple(oracles), results, time.perf_counter() - start, stopped, interrupted)
    if out_path is not None:
        from .npyio import write_text

        write_text(out_path / "summary.json", json.dumps(summary.as_json(), indent=2) + "\n")
    return summary


def _progress(total: int) -> Any:
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - tqdm is a declared dependency
        return None
    return tqdm(total=total, file=sys.stderr, unit="case", dynamic_ncols=True)


def _tick(bar: Any, result: CaseResult) -> None:
    if bar is not None:
        bar.update(1)
        if result.failing:
            bar.set_postfix_str(f"last failing: {result.id}")


def _run_pool(todo: Iterator[int], jobs: int, seed: int, oracles: Sequence[str], out: Path | None, work: Path,
              start: float, budget: float | None, results: list[CaseResult], bar: Any) -> bool:
    # Workers are fresh interpreters (ovonehot.child): no OpenVINO state is forked, and the
    # caller's main script is not re-run in them.
    workers: dict[Connection, tuple[Child, int | None]] = {}

    def launch() -> Connection:
        worker = child.start("ovonehot.fuzz", "serve_worker")
        worker.conn.send((seed, tuple(oracles), str(out) if out else None, str(work)))
        workers[worker.conn] = (worker, None)
        return worker.conn

    def feed(conn: Connection) -> bool:
        if budget is not None and time.perf_counter() - start > budget:
            return False
        index = next(todo, None)
        if index is None:
            return False
        conn.send(index)
        workers[conn] = (workers[conn][0], index)
        return True

    stopped = False
    try:
        for _ in range(jobs):
            conn = launch()
            if not feed(conn):
                stopped = budget is not None and time.perf_counter() - start > budget
        while any(index is not None for _, index in workers.values()):
            busy = {conn: worker for conn, (worker, index) in workers.items() if index is not None}
            ready = wait(list(busy))  # a dead worker's connection is ready too (end of file)
            for conn, worker in busy.items():
                index = workers[conn][1]
                assert index is not None
                if conn not in ready:
                    continue
                try:
                    data = conn.recv()
                except (EOFError, OSError):
                    data = None
                if data is not None:
                    fields: dict[str, Any] = dict(data)
                    fields["verdicts"] = [tuple(v) for v in fields["verdicts"]]
                    result = CaseResult(**fields)
                    results.append(result)
                    _tick(bar, result)
                    workers[conn] = (worker, None)
                    if not feed(conn):
                        stopped = stopped or (budget is not None and time.perf_counter() - start > budget)
                    continue
                worker.death()
                results.append(_crashed(seed, index, worker.proc.returncode, out, work))
                _tick(bar, results[-1])
                del workers[conn]
                fresh = launch()
                if not feed(fresh):
                    stopped = stopped or (budget is not None and time.perf_counter() - start > budget)
    except BaseException:  # Ctrl-C or an error here: a busy worker's case is abandoned, not waited for
        for worker, index in list(workers.values()):
            if index is not None:
                worker.kill()
        raise
    finally:
        for worker, index in list(workers.values()):
            if worker.proc.returncode is None:
                worker.stop(timeout=5)
    return stopped


def _crashed(seed: int, index: int, exitcode: int | None, out: Path | None, work: Path) -> CaseResult:
    problem = f"{CRASH}: the worker process died (exit code {exitcode}) running this case"
    folder = ""
    candidates = sorted(work.glob(f"{case_id(index)}-*"))
    info: dict[str, Any] = {}
    if candidates:
        try:
            info = json.loads((candidates[0] / "case.json").read_text())
        except (OSError, json.JSONDecodeError):
            info = {}
        if out is not None:
            folder = _keep(candidates[0], out / candidates[0].name, problem)
        shutil.rmtree(candidates[0], ignore_errors=True)
    return CaseResult(index, candidates[0].name if candidates else case_id(index), info.get("family", ""),
                      info.get("writer", ""), info.get("description", ""), failing=True, problem=problem,
                      folder=folder)
