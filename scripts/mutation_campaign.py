"""A long mutation campaign: ovonehot validate|inspect|run on thousands of mutated IRs.

    .venv/bin/python scripts/mutation_campaign.py --mutants 5000 --seed 1 --jobs 2 --out /tmp/campaign
    .venv/bin/python scripts/mutation_campaign.py --replay /tmp/campaign/failures/123-run-traceback

Every mutant (``ovonehot.ir.mutate``) goes through ``validate --json``, ``inspect`` and
``run`` (with inputs generated once from the unmutated model), each in its own
process with a timeout (``--timeout``, 30 s) and an address-space limit
(``--memory``, 4 GiB, ``RLIMIT_AS``).  By default each command runs in a child
forked from this process, which has imported ovonehot already (``cli.main`` in a
fresh process, without the interpreter start-up); ``--exec`` runs
``python -m ovonehot`` instead.

A run is *clean* when it exits 0 or 1 with no traceback, or 2 or 3 with exactly one
line ``error: ...`` on stderr, at most ``--max-error-chars`` long.  Anything else is
classified: ``traceback``, ``hang`` (killed at the timeout), ``memory`` (``error: out of
memory``: an allocation that was not checked against the budget first, or a death
by the address-space limit), ``crash`` (a signal), ``multi-line-error``,
``long-error``, ``bad-exit``.  Each non-clean run is saved under
``OUT/failures/<index>-<command>-<class>/`` (model.xml, model.bin, inputs.npz,
manifest.json with the seed, index, source, mutations, command and stderr).

Each mutant also goes through the attack classes of the third audit (issue 19) that are
not IR mutations (``--no-attacks`` skips them): ``run``/``validate`` writing ``--output``
or ``--json-out`` onto a FIFO, a socket, a link to ``/dev/null`` or to a FIFO (clean only
when refused in one line and the file is left as it was: ``output-replaced`` otherwise),
and a replay folder made of the mutant with a hostile manifest
(``ovonehot.ir.mutate.hostile_manifest``) through ``diff DIR`` (when the manifest breaks
the schema, so OpenVINO is never started) and ``repro DIR``, whose script must hold every
hostile string as data (``code-injection`` otherwise).  Children run with
``OVONEHOT_MAX_LOOP_ITERATIONS=100000`` (unless set), so a Loop that never ends stops
within the CPU limit.

``--openvino`` also reads each mutant with OpenVINO's ``Core().read_model`` (in a
forked child: it can crash) and tallies where ovonehot and OpenVINO agree on
accepting or refusing the file: ovonehot refuses when ``validate`` exits 3 or reports
an error OpenVINO would raise while reading (``inference-failed``, ``input-count``,
``output-count``, ``bad-attribute``, ``const-size``, ``unknown-op``, OneHot errors);
"unknown" when it lacks an op OpenVINO has.  Examples of each
disagreement are kept in the summary.  The summary goes to ``OUT/summary.json`` and
stdout.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import random
import resource
import shutil
import signal
import socket
import stat
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ovonehot.ir.mutate import Mutant, corpus, hostile_manifest, mutant

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("validate", "inspect", "run")
WALL_FACTOR = 4  # wall-clock backstop, in multiples of the CPU-time limit
REFUSING_CODES = {
    "inference-failed",
    "input-count",
    "output-count",
    "bad-attribute",
    "const-size",
    "unknown-op",
}


# -- one command in a child ----------------------------------------------------------------------
@dataclass
class Outcome:
    command: str
    status: int | None  # exit status; None when killed by a signal
    signal: int | None
    seconds: float
    max_rss_kib: int
    stdout: bytes
    stderr: bytes  # the first and last 100 kB
    killed_at_timeout: bool = False
    stderr_lines: int = 0
    stderr_first: str = ""  # the first line, cut to 10 000 characters
    stderr_longest: int = 0


def _limit_memory(limit: int, cpu_seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # CPU time, not wall time, decides a hang: on a busy machine a command may wait for a core.
    cpu = int(cpu_seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def _child_cli(argv: list[str], out: str, err: str, limit: int, use_exec: bool, cpu_seconds: float) -> None:
    """In the forked child: run ``ovonehot argv`` with stdout/stderr to files; never returns."""
    try:
        fd_out = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fd_err = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd_out, 1)
        os.dup2(fd_err, 2)
        os.setsid()
        _limit_memory(limit, cpu_seconds)
        if use_exec:
            os.execv(sys.executable, [sys.executable, "-m", "ovonehot", *argv])  # noqa: S606 - no shell wanted
        from ovonehot.cli import main

        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - fresh text streams on the new fds
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - as stdout above
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - what `python -m ovonehot` would print: a traceback, exit 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    except BaseException:  # noqa: BLE001 - the child must never return into the parent's loop
        os._exit(99)


def _child_openvino(xml: str, out: str, limit: int, cpu_seconds: float) -> None:
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.setsid()
        _limit_memory(limit, cpu_seconds)
        import openvino as ov

        try:
            ov.Core().read_model(xml)
        except Exception as exc:  # noqa: BLE001 - any refusal is the answer
            lines = [
                x.strip() for x in str(exc).splitlines() if x.strip() and not x.startswith("Exception from")
            ]
            os.write(1, f"refused: {lines[-1] if lines else type(exc).__name__}"[:500].encode())
            os._exit(10)
        os._exit(0)
    except BaseException:  # noqa: BLE001 - the forked child must never return into the parent's loop
        os._exit(99)


@dataclass
class Running:
    pid: int
    command: str
    started: float
    out: str
    err: str


def run_child(
    target: Any, args: tuple[Any, ...], command: str, out: str, err: str, timeout: float
) -> Outcome:
    """Fork, run ``target(*args)`` in the child, wait with a timeout (the child's group is killed)."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        target(*args)
        os._exit(98)
    killed = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() - start > WALL_FACTOR * timeout:  # the CPU limit stops it first
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                os.kill(pid, signal.SIGKILL)
            killed = True
            _, status, usage = os.wait4(pid, 0)
            break
        time.sleep(0.005)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    stdout = Path(out).read_bytes() if Path(out).exists() else b""
    stderr = Path(err).read_bytes() if Path(err).exists() and err != out else b""
    lines = stderr.decode("utf-8", "replace").splitlines()
    return Outcome(
        command,
        code if code >= 0 else None,
        -code if code < 0 else None,
        seconds,
        usage.ru_maxrss,
        stdout[-2_000_000:],
        stderr if len(stderr) < 200_000 else stderr[:100_000] + b"\n...\n" + stderr[-100_000:],
        killed,
        len(lines),
        lines[0][:10_000] if lines else "",
        max(map(len, lines), default=0),
    )


def classify(outcome: Outcome, max_error_chars: int) -> str:
    if outcome.killed_at_timeout or outcome.signal == signal.SIGXCPU:
        return "hang"
    if outcome.signal is not None:
        return "memory" if outcome.signal == signal.SIGKILL else "crash"
    text = outcome.stderr.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in text:
        return "memory" if "MemoryError" in text else "traceback"
    if outcome.status in (0, 1):
        return "clean"
    if outcome.status in (2, 3):
        if outcome.stderr_lines != 1 or not outcome.stderr_first.startswith("error: "):
            return "multi-line-error"
        if "out of memory" in outcome.stderr_first:
            return "memory"
        if outcome.stderr_longest > max_error_chars:
            return "long-error"
        return "clean"
    return "bad-exit"


def ovonehot_verdict(validate: Outcome) -> str:
    """accept / refuse / unknown (ovonehot cannot tell: an unsupported op) from ``validate --json``."""
    if validate.status == 3:
        return "refuse"
    if validate.status not in (0, 1):
        return "unknown"
    try:
        report = json.loads(validate.stdout)
    except ValueError:
        return "unknown"
    codes = [(p["code"], p["severity"]) for p in report.get("problems", [])]
    if any(sev == "error" and (code in REFUSING_CODES or code.startswith("onehot-")) for code, sev in codes):
        return "refuse"
    unchecked = [
        p
        for p in report.get("problems", [])
        if p["code"] in ("unsupported-op", "not-checked") and "does not implement" in p["message"]
    ]
    if unchecked:  # an op OpenVINO knows and ovonehot lacks: whether OpenVINO accepts it is not known here
        return "unknown"
    return "accept"


# -- the campaign ----------------------------------------------------------------------------------
@dataclass
class Tally:
    classes: collections.Counter[str] = field(default_factory=collections.Counter)
    by_command: dict[str, collections.Counter[str]] = field(default_factory=dict)
    agreement: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    slowest: list[tuple[float, str]] = field(default_factory=list)
    max_rss_kib: int = 0

    def note(self, key: str, text: str, keep: int = 8) -> None:
        bucket = self.examples.setdefault(key, [])
        if len(bucket) < keep:
            bucket.append(text)


def prepare_inputs(files: list[Path], work: Path) -> dict[str, Path]:
    """Inputs for every corpus model that ovonehot can load, generated once from the original."""
    from ovonehot import Error, load
    from ovonehot.differential.gen_inputs import generate_inputs

    inputs = {}
    for k, path in enumerate(files):
        try:
            arrays = generate_inputs(load(path), seed=0)
        except Error:
            continue
        target = work / "inputs" / f"{k}.npz"
        target.parent.mkdir(parents=True, exist_ok=True)
        np.savez(target, **arrays)
        inputs[str(path)] = target
    return inputs


def _special_file(rng: random.Random, slot: Path) -> tuple[Path, str]:
    """A FIFO, a socket or a link to a device or FIFO in ``slot``: an output must never replace it."""
    target = slot / "special-output"
    kind = rng.choice(("fifo", "socket", "link-to-dev-null", "link-to-fifo"))
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(target))
        s.close()
    elif kind == "link-to-dev-null":
        target.symlink_to("/dev/null")
    else:
        os.mkfifo(slot / "fifo")
        target.symlink_to(slot / "fifo")
    return target, kind


def _file_kind(path: Path) -> tuple[int, int]:
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_ino


_BASE_MANIFEST = REPO / "ir" / "replays" / "cpu-int32-saturation-i64-values" / "manifest.json"


def _hostile_replay(rng: random.Random, slot: Path, xml: Path, inputs: Path | None) -> tuple[Path, str, bool]:
    """A replay folder of the mutant with a hostile manifest: the folder, what was done, and
    whether the manifest still fits the schema (then ``diff`` would start OpenVINO)."""
    from ovonehot.differential import manifest_schema

    folder = slot / "replay"
    folder.mkdir()
    shutil.copy(xml, folder / "model.xml")
    shutil.copy(xml.with_suffix(".bin"), folder / "model.bin")
    if inputs is not None:
        shutil.copy(inputs, folder / "inputs.npz")
        shutil.copy(inputs, folder / "ours.npz")
    else:
        np.savez(folder / "inputs.npz")
        np.savez(folder / "ours.npz")
    manifest, what = hostile_manifest(rng, json.loads(_BASE_MANIFEST.read_text()))
    (folder / "manifest.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
    try:
        manifest_schema.check(manifest, "manifest")
        valid = not isinstance(manifest, str)
    except manifest_schema.SchemaError:
        valid = False
    return folder, what, valid


_INJECTED = {"__import__", "exec", "eval", "compile", "system", "popen", "getattr"}


def code_injected(script: Path) -> bool:
    """Whether a repro script calls anything a hostile manifest string would: every value must
    be a literal, and the template calls none of these."""
    tree = ast.parse(script.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in _INJECTED:
                return True
    return False


def attack_argvs(m: Mutant, slot: Path, xml: Path, inputs: Path | None) -> list[tuple[str, list[str], Any]]:
    """The attack runs of one mutant: (name, argv, a check of what it left: a class or None)."""
    rng = random.Random(f"{m.seed}:{m.index}:attacks")
    target, kind = _special_file(rng, slot)
    before = _file_kind(target)
    option = rng.choice(("--output", "--json-out"))
    argv = ["run", str(xml), *(["--inputs", str(inputs)] if inputs is not None else []), option, str(target)]
    if option == "--json-out" and rng.random() < 0.3:
        argv = ["validate", str(xml), "--json-out", str(target)]

    def unchanged() -> str | None:
        return None if _file_kind(target) == before else "output-replaced"

    runs: list[tuple[str, list[str], Any]] = [(f"output-{kind}", argv, unchanged)]
    folder, what, valid = _hostile_replay(rng, slot, xml, inputs)
    script = slot / "repro.py"

    def no_injection() -> str | None:
        return "code-injection" if script.exists() and code_injected(script) else None

    if not valid:
        runs.append((f"replay-diff ({what})", ["diff", str(folder)], lambda: None))
    runs.append((f"replay-repro ({what})", ["repro", str(folder), "--output", str(script)], no_injection))
    return runs


def _command_runs(xml: Path, inputs: Path | None) -> list[tuple[str, list[str], Any]]:
    """(command, argv, after-check) for each command of COMMANDS on the mutant ``xml``."""
    runs: list[tuple[str, list[str], Any]] = []
    for command in COMMANDS:
        argv = [command, str(xml)]
        if command == "validate":
            argv.append("--json")
        if command == "run" and inputs is not None:
            argv += ["--inputs", str(inputs)]
        runs.append((command, argv, lambda: None))
    return runs


def _keep_failure(
    m: Mutant,
    slot: Path,
    xml: Path,
    inputs: Path | None,
    argv: list[str],
    outcome: Outcome,
    verdict: str,
    dest: Path,
) -> None:
    """Copy the mutant, its inputs and replay into ``dest`` with a manifest that reruns the command."""
    dest.mkdir(parents=True, exist_ok=True)
    m.write(dest)
    if inputs is not None:
        shutil.copy(inputs, dest / "inputs.npz")
    if (slot / "replay").is_dir():
        shutil.copytree(slot / "replay", dest / "replay", dirs_exist_ok=True)
    argv_saved = [a if a != str(xml) else "model.xml" for a in argv]
    argv_saved = ["inputs.npz" if a == str(inputs) else a for a in argv_saved]
    argv_saved = [a.replace(str(slot), str(dest)) for a in argv_saved]
    manifest = {
        "seed": m.seed,
        "index": m.index,
        "source": m.source,
        "mutations": list(m.mutations),
        "command": ["python", "-m", "ovonehot", *argv_saved],
        "class": verdict,
        "status": outcome.status,
        "signal": outcome.signal,
        "seconds": round(outcome.seconds, 2),
        "max_rss_mib": outcome.max_rss_kib // 1024,
        "stderr_tail": outcome.stderr.decode("utf-8", "replace")[-3000:],
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))


def check_mutant(
    m: Mutant, slot: Path, inputs: Path | None, args: argparse.Namespace, tally: Tally, failures: Path
) -> None:
    if slot.exists():
        shutil.rmtree(slot)
    xml = m.write(slot)
    if any(d.startswith("loop-growth") for d in m.mutations):
        inputs = None  # (the document was replaced by a Loop model without Parameters)
    outcomes = []
    runs = _command_runs(xml, inputs)
    if args.attacks:
        runs += attack_argvs(m, slot, xml, inputs)
    for command, argv, after in runs:
        label = command.split(" ")[0]
        out, err = str(slot / f"{label}.out"), str(slot / f"{label}.err")
        outcome = run_child(
            _child_cli,
            (argv, out, err, args.memory, args.exec, args.timeout),
            command,
            out,
            err,
            args.timeout,
        )
        outcomes.append(outcome)
        verdict = classify(outcome, args.max_error_chars)
        if verdict == "clean":
            verdict = after() or "clean"
        command = label
        tally.classes[verdict] += 1
        tally.by_command.setdefault(command, collections.Counter())[verdict] += 1
        tally.max_rss_kib = max(tally.max_rss_kib, outcome.max_rss_kib)
        tally.slowest = sorted([*tally.slowest, (outcome.seconds, f"{m.index} {command}")], reverse=True)[:10]
        if verdict != "clean":
            name = f"{m.index}-{command}-{verdict}"
            _keep_failure(m, slot, xml, inputs, argv, outcome, verdict, failures / name)
            last = outcome.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(no stderr)"]
            tally.note(verdict, f"{name}: {'; '.join(m.mutations)[:200]} -> {last[0][:300]}")
    if args.openvino:
        out = str(slot / "openvino.out")
        ov = run_child(
            _child_openvino, (str(xml), out, args.memory, args.timeout), "openvino", out, out, args.timeout
        )
        theirs = (
            "accept"
            if ov.status == 0
            else "refuse"
            if ov.status == 10
            else "crash"
            if ov.signal is not None
            else "hang"
            if ov.killed_at_timeout
            else f"exit-{ov.status}"
        )
        ours = ovonehot_verdict(outcomes[0])
        key = f"ovonehot {ours} / openvino {theirs}"
        tally.agreement[key] += 1
        if ours != theirs:
            why = ov.stdout.decode("utf-8", "replace")[:200]
            ours_why = outcomes[0].stderr.decode("utf-8", "replace").strip()[:200]
            tally.note(
                key, f"{m.index}: {'; '.join(m.mutations)[:200]} | ovonehot: {ours_why} | openvino: {why}"
            )


def campaign(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out)
    if (out / "failures").exists():  # failures of an earlier campaign would be counted as this one's
        shutil.rmtree(out / "failures")
    out.mkdir(parents=True, exist_ok=True)
    files = corpus(REPO / "ir")
    inputs = prepare_inputs(files, out)
    import ovonehot.cli  # noqa: F401 - imported once here, so each forked child starts warm

    if args.openvino:
        import openvino  # noqa: F401 - loaded once here too, for the same reason
    failures = out / "failures"
    start = time.perf_counter()
    indices = range(args.first, args.first + args.mutants)
    # Slots run as separate worker processes (each forks its own children), one per job.
    workers = []
    for j in range(args.jobs):
        mine = [i for i in indices if i % args.jobs == j]
        pid = os.fork()
        if pid == 0:
            try:
                part = Tally()
                for n, i in enumerate(mine):
                    try:
                        m = mutant(files, args.seed, i)
                        check_mutant(m, out / f"slot{j}", inputs.get(m.source), args, part, failures)
                    except Exception:  # noqa: BLE001 - a bug of the fuzzer or this script: count it, go on
                        part.classes["campaign-error"] += 1
                        part.note("campaign-error", f"{i}: {traceback.format_exc()[-600:]}")
                    if n % 50 == 49:  # partial results survive an interrupted campaign
                        (out / f"tally{j}.json").write_text(json.dumps({**_tally_json(part), "done": n + 1}))
                    if j == 0 and n % 50 == 0:
                        print(f"[{time.perf_counter() - start:7.0f} s] {n * args.jobs} mutants", flush=True)
                (out / f"tally{j}.json").write_text(json.dumps({**_tally_json(part), "done": len(mine)}))
            finally:
                os._exit(0)
        workers.append(pid)
    for pid in workers:
        os.waitpid(pid, 0)
    summary = merge_tallies(out, args.jobs)
    summary.update(
        {
            "seed": args.seed,
            "first": args.first,
            "mutants": args.mutants,
            "timeout": args.timeout,
            "memory_limit": args.memory,
            "seconds": round(time.perf_counter() - start, 1),
        }
    )
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def merge_tallies(out: Path, jobs: int) -> dict[str, Any]:
    """The workers' tallies (final or partial) as one summary."""
    merged = Tally()
    done = 0
    for j in range(jobs):
        if not (out / f"tally{j}.json").exists():
            continue
        part = json.loads((out / f"tally{j}.json").read_text())
        merged.classes.update(part["classes"])
        for cmd, counts in part["by_command"].items():
            merged.by_command.setdefault(cmd, collections.Counter()).update(counts)
        merged.agreement.update(part["agreement"])
        for key, items in part["examples"].items():
            for item in items:
                merged.note(key, item, keep=12)
        merged.slowest = sorted([*merged.slowest, *[tuple(s) for s in part["slowest"]]], reverse=True)[:10]
        merged.max_rss_kib = max(merged.max_rss_kib, part["max_rss_kib"])
        done += part.get("done", 0)
    return {"mutants_done": done, **_tally_json(merged)}


def _tally_json(t: Tally) -> dict[str, Any]:
    return {
        "classes": dict(t.classes),
        "by_command": {k: dict(v) for k, v in t.by_command.items()},
        "agreement": dict(t.agreement),
        "examples": t.examples,
        "slowest": [[round(s, 2), w] for s, w in t.slowest],
        "max_rss_kib": t.max_rss_kib,
    }


def replay(directory: Path, args: argparse.Namespace) -> int:
    """Re-run a saved failure's command under the same limits and print its outcome."""
    manifest = json.loads((directory / "manifest.json").read_text())
    argv = [
        a if a not in ("model.xml", "inputs.npz") else str(directory / a) for a in manifest["command"][3:]
    ]
    out, err = str(directory / "replay.out"), str(directory / "replay.err")
    outcome = run_child(
        _child_cli, (argv, out, err, args.memory, args.exec, args.timeout), argv[0], out, err, args.timeout
    )
    verdict = classify(outcome, args.max_error_chars)
    print(
        f"{' '.join(manifest['command'])}: {verdict} (exit {outcome.status}, signal {outcome.signal}, "
        f"{outcome.seconds:.1f} s, {outcome.max_rss_kib // 1024} MiB)"
    )
    print(outcome.stderr.decode("utf-8", "replace")[-3000:])
    return 0 if verdict == "clean" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="index of the first mutant")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=30.0, help="CPU seconds per command")
    parser.add_argument("--memory", type=int, default=4 << 30, help="RLIMIT_AS per command, bytes")
    parser.add_argument("--max-error-chars", type=int, default=4000)
    parser.add_argument("--out", default="mutation-campaign")
    parser.add_argument("--exec", action="store_true", help="run `python -m ovonehot` instead of forking")
    parser.add_argument("--openvino", action="store_true", help="also read each mutant with OpenVINO")
    parser.add_argument(
        "--no-attacks",
        dest="attacks",
        action="store_false",
        help="skip the special-file outputs and hostile replay folders (only validate, inspect, run)",
    )
    parser.add_argument("--replay", metavar="DIR", help="re-run one saved failure")
    parser.add_argument(
        "--merge", action="store_true", help="print the (partial) tallies of a campaign in --out"
    )
    args = parser.parse_args()
    os.environ.setdefault("OVONEHOT_MAX_LOOP_ITERATIONS", "100000")
    if args.replay:
        return replay(Path(args.replay), args)
    if args.merge:
        print(json.dumps(merge_tallies(Path(args.out), args.jobs), indent=2))
        return 0
    summary = campaign(args)
    print(json.dumps({k: summary[k] for k in ("seconds", "classes", "by_command", "agreement")}, indent=2))
    bad = sum(n for k, n in summary["classes"].items() if k != "clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
