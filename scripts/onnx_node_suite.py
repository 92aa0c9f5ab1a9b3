"""ONNX's backend node test suite, run through OpenVINO's ONNX frontend by ovonehot and by OpenVINO CPU.

onnx 1.23 no longer ships the node test data files, so the cases are built from the
installed onnx's own generators (``onnx.backend.test.case.node``): each case is a
model, one or more input sets and the outputs ONNX expects.  Every model is converted
once by OpenVINO's ONNX frontend (``ovonehot.oracle.onnx_frontend.convert_onnx``: the IR that
``ovonehot.load(model.onnx)`` reads), then

* ovonehot reads, infers and runs that IR (its own reader and NumPy evaluator);
* OpenVINO's CPU plugin runs the same IR, compiled deterministically
  (``openvino_runtime.CPU_CONFIG``: 1 thread, f32 precision hint, accuracy mode).

Both are compared with the expected outputs as ONNX's backend runner compares them:
same number of outputs, same shape, same dtype, then ``assert_allclose`` with the
case's rtol/atol (1e-3/1e-7 for node cases, an rtol of at least two ulps (2**-6) for
bfloat16, as the runner does; NaN equals NaN), strings exactly, and -- stricter than
the runner, whose allclose lets 10**9 + 1 pass for 10**9 -- integers and booleans
exactly.  Each side gets one status per case:

``pass``; ``wrong`` (a different value, shape or dtype, or an error while running);
``refused`` (ovonehot: an op it does not support, named; CPU: the plugin refuses to
compile the model); ``conversion failed`` (OpenVINO's ONNX frontend cannot convert
the model, so neither side runs it); for OpenVINO also ``crashed`` (the process died)
and for both ``timeout``.

The full run (``python scripts/onnx_node_suite.py [--jobs J] [--filter REGEX]
[--json-out FILE]``) isolates OpenVINO: cases run in child processes, a chunk each;
a child that dies takes only the case it was running (marked crashed), and the rest
of its chunk is run by a new child.  The summary lists the counts, the op types
ovonehot refuses (with case counts), the cases OpenVINO CPU passes and ovonehot does
not, and the cases where ovonehot is wrong while CPU is right.

This module is also the library behind ``tests/test_onnx_node_suite.py`` (which
imports it from scripts/): :func:`collect_cases` and :func:`run_case`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

PASS, WRONG, REFUSED, CONVERSION_FAILED, CRASHED, TIMEOUT, SKIPPED = (
    "pass",
    "wrong",
    "refused",
    "conversion failed",
    "crashed",
    "timeout",
    "skipped",
)
STATUSES = (PASS, WRONG, REFUSED, CONVERSION_FAILED, CRASHED, TIMEOUT, SKIPPED)


# -- the cases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeCase:
    """One ONNX node test case: the model, its input/output sets and the tolerances."""

    name: str
    model: Any  # onnx.ModelProto
    data_sets: tuple[tuple[tuple[Any, ...], tuple[Any, ...]], ...]
    rtol: float
    atol: float

    @property
    def op_types(self) -> tuple[str, ...]:
        return tuple(sorted({n.op_type for n in self.model.graph.node}))


_CASES: dict[str, NodeCase] | None = None


def collect_cases() -> dict[str, NodeCase]:
    """Every node test case the installed onnx generates, by name (generated once per process).

    ``onnx.backend.test.case.node.collect_testcases`` keeps its cases in module globals
    and generates them only on first import, filtered by the op type of that first
    call (tests/onnx_cases.py asks for OneHot alone).  So the generators are re-run
    here into fresh globals, with no filter, and the module's own state is put back.
    """
    global _CASES
    if _CASES is not None:
        return _CASES
    import onnx.backend.test.case.node as node_module
    from onnx.backend.test.case.utils import import_recursive

    prefix = node_module.__name__ + "."
    saved = (node_module._NodeTestCases, node_module._existing_names, node_module._TargetOpType)
    fresh: list[Any] = []
    node_module._NodeTestCases, node_module._existing_names, node_module._TargetOpType = fresh, {}, None
    try:
        # The generators run when their modules are imported: forget any earlier import,
        # import into the fresh globals, then forget again so that a later
        # collect_testcases(op_type) imports (and so generates) for itself.
        _forget_modules(prefix)
        with warnings.catch_warnings():  # generators warn about their own inf/nan data
            warnings.simplefilter("ignore")
            import_recursive(node_module)
    finally:
        _forget_modules(prefix)
        node_module._NodeTestCases, node_module._existing_names, node_module._TargetOpType = saved
    cases = {}
    for tc in fresh:
        if tc.model is None or not tc.data_sets:
            continue
        sets = tuple((tuple(ins), tuple(outs)) for ins, outs in tc.data_sets)
        cases[tc.name] = NodeCase(tc.name, tc.model, sets, tc.rtol, tc.atol)
    _CASES = dict(sorted(cases.items()))
    return _CASES


def op_group(name: str) -> str:
    """The ONNX op a case tests, from its name: the op of its one node, or, for a function's
    expansion (``*_expanded``, ``*_expanded_verN``, many nodes), the op of the case it expands."""
    cases = collect_cases()
    stem = re.sub(r"_expanded(_ver\d+)?$", "", name)
    base = cases.get(stem, cases[name])
    node = (base.model.graph.node if len(base.model.graph.node) == 1 else cases[name].model.graph.node)[0]
    return (f"{node.domain}." if node.domain not in ("", "ai.onnx") else "") + node.op_type


def seeded_subset(seed: int, per_op: int) -> dict[str, list[str]]:
    """Per ONNX op (``op_group``), ``per_op`` of its cases, chosen by a shuffle seeded with
    ``f"{seed}:{op}"`` (deterministic; independent of the other ops' cases)."""
    import random

    groups: dict[str, list[str]] = collections.defaultdict(list)
    for name in collect_cases():
        groups[op_group(name)].append(name)
    chosen = {}
    for op, names in sorted(groups.items()):
        names = sorted(names)
        random.Random(f"{seed}:{op}").shuffle(names)
        chosen[op] = names[:per_op]
    return chosen


def _forget_modules(prefix: str) -> None:
    for name in [m for m in sys.modules if m.startswith(prefix)]:
        del sys.modules[name]


def _as_array(value: Any) -> Any:
    """A generator value as NumPy: TensorProto -> array; lists (sequences), None (optionals) kept."""
    import onnx
    from onnx import numpy_helper

    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, (list, tuple)) or value is None:
        return value
    return np.asarray(value)


# -- comparison as ONNX's backend runner does it ------------------------------------------


def _comparable(a: np.ndarray) -> np.ndarray:
    """bf16/f8/f4 (ml_dtypes) and other non-NumPy floats compared as float64 values."""
    if a.dtype.kind == "V" or (a.dtype.kind == "f" and a.dtype.isbuiltin == 2):
        return a.astype(np.float64)
    return a


def _texts(a: np.ndarray) -> list[str]:
    return [x.decode() if isinstance(x, bytes) else str(x) for x in a.reshape(-1)]


def mismatch(expected: Any, actual: Any, rtol: float, atol: float) -> str | None:
    """None when ``actual`` matches ``expected`` as onnx's Runner.assert_similar_outputs checks; else why."""
    actual = np.asarray(actual)
    if expected.shape != actual.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if expected.dtype != actual.dtype:  # ONNX's strings are object arrays, as ovonehot's and OpenVINO's are
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if expected.dtype == object:
        return None if _texts(actual) == _texts(expected) else "strings differ"
    if expected.dtype.kind in "iub":  # integers and booleans exactly (ONNX's runner: allclose, which
        # lets 10**9 + 1 pass for 10**9)
        if np.array_equal(actual, expected):
            return None
        bad = np.flatnonzero(actual.reshape(-1) != expected.reshape(-1))
        k = int(bad[0])
        return (
            f"values differ at {bad.size} of {expected.size} positions, first at flat index {k}: "
            f"{actual.reshape(-1)[k]} != expected {expected.reshape(-1)[k]}"
        )
    if expected.dtype.name == "bfloat16":  # as ONNX's runner: two bf16 ulps
        rtol = max(rtol, 2**-6)
    exp, act = _comparable(expected), _comparable(actual)
    with np.errstate(all="ignore"):
        close = np.isclose(act, exp, rtol=rtol, atol=atol, equal_nan=True)  # assert_allclose's test
    if close.all():
        return None
    bad = np.argwhere(~close)
    at = tuple(int(i) for i in bad[0])
    return (
        f"values differ at {len(bad)} of {expected.size} positions, first at {list(at)}: "
        f"{act[at].item()!r} != expected {exp[at].item()!r}"
    )
    return None


# -- one case -----------------------------------------------------------------------------


@dataclass
class Outcome:
    """One side's result on one case: status, and a one-line detail (the refused ops, the difference)."""

    status: str
    detail: str = ""
    ops: tuple[str, ...] = ()  # refused op types (Type-opsetN as the IR names them)


@dataclass
class CaseResult:
    name: str
    onnx_ops: tuple[str, ...]
    ovonehot: Outcome
    cpu: Outcome
    seconds: float = 0.0
    ir_ops: tuple[str, ...] = field(default_factory=tuple)


def _feeds(case: NodeCase, inputs: Sequence[Any], model_inputs: Sequence[Any]) -> dict[str, Any]:
    """The case's input arrays keyed by the converted model's input names.

    ONNX's runner feeds inputs by position.  OpenVINO's frontend keeps ONNX input names
    on its Parameters, but it drops an input nothing reads (an empty ``axes``) and a
    Parameter feeding an output directly takes that output's name too (Dropout, Identity):
    so names first, then the unmatched inputs in order.
    """
    onnx_names = [i.name for i in case.model.graph.input]
    arrays = {n: _as_array(a) for n, a in zip(onnx_names, inputs, strict=False)}
    feeds: dict[str, Any] = {}
    free = list(model_inputs)
    unmatched = []
    for name, array in arrays.items():
        desc = next((d for d in free if name == d.name or name in d.names), None)
        if desc is None:
            unmatched.append(array)
        else:
            feeds[desc.name] = array
            free.remove(desc)
    for desc, array in zip(free, unmatched, strict=False):
        feeds[desc.name] = array
    return feeds


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"


def _check_outputs(
    case: NodeCase,
    model_inputs: Sequence[Any],
    descs: Sequence[Any],
    runs: Callable[[dict[str, Any]], dict[str, Any]],
) -> Outcome:
    """Run every input set through ``runs`` and compare with the expected outputs."""
    onnx_outputs = [o.name for o in case.model.graph.output]
    for k, (ins, outs) in enumerate(case.data_sets):
        feeds = _feeds(case, ins, model_inputs)
        try:
            got = runs(feeds)
        except Exception as exc:  # noqa: BLE001 - any failure to run is this side's verdict
            return Outcome(WRONG, f"raised {_first_line(exc)}")
        if len(got) != len(outs):
            return Outcome(WRONG, f"{len(got)} outputs, expected {len(outs)}")
        keys = list(got)
        for j, (oname, expected) in enumerate(zip(onnx_outputs, outs, strict=False)):
            key = next((d.name for d in descs if oname in d.names or d.name == oname), keys[j])
            why = mismatch(_as_array(expected), got[key], case.rtol, case.atol)
            if why is not None:
                where = f"set {k} " if len(case.data_sets) > 1 else ""
                return Outcome(WRONG, f"{where}output {oname!r}: {why}")
    return Outcome(PASS)


def run_case(
    case: NodeCase,
    with_cpu: bool = True,
    on_phase: Callable[[str], None] | None = None,
    cpu_when_refused: bool = True,
) -> CaseResult:
    """Convert the case's model once, run it with ovonehot and (``with_cpu``) OpenVINO CPU, compare both.

    ``cpu_when_refused=False`` skips the CPU run when ovonehot refuses the model (a test
    that only asks whether ovonehot passes where CPU does has nothing to learn then).
    """
    import onnx

    from ovonehot.errors import Error
    from ovonehot.infer import infer
    from ovonehot.ir.reader import read_ir_bytes
    from ovonehot.model import Model
    from ovonehot.ops import unsupported_types
    from ovonehot.oracle.onnx_frontend import convert_onnx

    started = time.monotonic()
    onnx_ops = case.op_types
    if not all(isinstance(_as_array(v), np.ndarray) for ins, outs in case.data_sets for v in (*ins, *outs)):
        skipped = Outcome(SKIPPED, "sequence or optional values: an IR tensor cannot hold them")
        return CaseResult(case.name, onnx_ops, skipped, skipped, time.monotonic() - started)
    with tempfile.TemporaryDirectory(prefix="onnx-node-") as tmp:
        path = Path(tmp) / f"{case.name}.onnx"
        onnx.save(case.model, str(path))
        try:
            xml, weights = convert_onnx(path)
        except Error as exc:
            failed = Outcome(CONVERSION_FAILED, str(exc).split(": ", 1)[-1][:300])
            return CaseResult(case.name, onnx_ops, failed, failed, time.monotonic() - started)
        (Path(tmp) / "model.xml").write_bytes(xml)
        (Path(tmp) / "model.bin").write_bytes(weights)

        if on_phase:
            on_phase("ovonehot")
        ir_ops: tuple[str, ...] = ()
        ours: Outcome
        model = None
        try:
            graph = read_ir_bytes(xml, weights, source=case.name)
            ir_ops = tuple(
                dict.fromkeys(
                    n.type_version for n in graph.nodes if n.type not in ("Parameter", "Result", "Constant")
                )
            )
            missing = unsupported_types(graph)
            if missing:
                ours = Outcome(REFUSED, "unsupported " + ", ".join(missing), tuple(missing))
            else:
                model = Model(graph, infer(graph), path)
                ours = _check_outputs(case, model.inputs, model.outputs, model.run)
        except Exception as exc:  # noqa: BLE001 - an ovonehot failure on a converted model is its verdict
            ours = Outcome(WRONG, f"raised {_first_line(exc)}")

        cpu = Outcome(SKIPPED, "not run")
        if with_cpu and (cpu_when_refused or ours.status != REFUSED):
            if on_phase:
                on_phase("cpu")
            cpu = _cpu_outcome(case, Path(tmp) / "model.xml", model)
    return CaseResult(case.name, onnx_ops, ours, cpu, time.monotonic() - started, ir_ops)


def _cpu_outcome(case: NodeCase, xml: Path, model: Any) -> Outcome:
    """OpenVINO CPU on the converted IR; ``model`` (ovonehot's, when it loaded) names the inputs/outputs."""
    from ovonehot.errors import OpenVINOError
    from ovonehot.oracle.openvino_runtime import cpu_run

    ins, descs = (model.inputs, model.outputs) if model is not None else (_input_descs(xml), ())
    compiled_ok = True

    def runs(feeds: dict[str, Any]) -> dict[str, Any]:
        nonlocal compiled_ok
        try:
            return dict(cpu_run(xml, feeds))
        except OpenVINOError as exc:
            if "refuses the model" in str(exc) or str(exc).startswith("not run"):
                compiled_ok = False
            raise

    outcome = _check_outputs(case, ins, descs, runs)
    if not compiled_ok:
        return Outcome(REFUSED, outcome.detail.removeprefix("raised OpenVINOError: "))
    return outcome


@dataclass(frozen=True)
class _Input:
    name: str
    names: tuple[str, ...]


def _input_descs(xml: Path) -> tuple[_Input, ...]:
    """The model's inputs as OpenVINO names them (when ovonehot cannot load the model)."""
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    return tuple(
        _Input(p.get_friendly_name(), tuple(sorted(p.output(0).get_names()))) for p in model.get_parameters()
    )


# -- the full run: child processes --------------------------------------------------------


def _worker(names: list[str], out: Path) -> None:
    """Child process: run ``names`` in order, appending one JSON line per phase and per result."""
    cases = collect_cases()
    with out.open("a", encoding="utf-8") as sink:

        def note(record: dict[str, Any]) -> None:
            sink.write(json.dumps(record) + "\n")
            sink.flush()

        def phase(name: str, step: str) -> None:
            note({"phase": step, "case": name, "t": time.time()})
            if os.environ.get("ONNX_NODE_SUITE_ABORT") == f"{name}:{step}":  # to check the isolation
                os.abort()

        for name in names:
            note({"start": name, "t": time.time()})
            result = run_case(cases[name], on_phase=lambda step, n=name: phase(n, step))
            note({"result": _to_json(result)})


def _to_json(r: CaseResult) -> dict[str, Any]:
    return asdict(r)


def _from_json(d: dict[str, Any]) -> CaseResult:
    return CaseResult(
        d["name"],
        tuple(d["onnx_ops"]),
        Outcome(**{**d["ovonehot"], "ops": tuple(d["ovonehot"]["ops"])}),
        Outcome(**{**d["cpu"], "ops": tuple(d["cpu"]["ops"])}),
        d["seconds"],
        tuple(d["ir_ops"]),
    )


def _run_chunk(
    names: list[str],
    timeout: float,
    results: dict[str, CaseResult],
    lock: threading.Lock,
    progress: Callable[[], None],
) -> None:
    """Run ``names`` in child processes until each has a result (a crash or timeout costs one case)."""
    todo = list(names)
    while todo:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            log = Path(f.name)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(log), *todo]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        timed_out = _wait_or_kill(proc, log, timeout)
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        current: str | None = None
        phase = ""
        done: set[str] = set()
        for line in log.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if "start" in rec:
                current, phase = rec["start"], "convert"
            elif "phase" in rec:
                phase = rec["phase"]
            elif "result" in rec:
                r = _from_json(rec["result"])
                with lock:
                    results[r.name] = r
                done.add(r.name)
                current = None
                progress()
        log.unlink()
        todo = [n for n in todo if n not in done]
        if current is not None and current in todo:
            if timed_out:
                dead = Outcome(TIMEOUT, f"during {phase}: no result after {timeout:.0f} s")
            else:
                last = stderr.strip().splitlines()[-1:]
                why = f"the process died (exit {proc.returncode})" + (f": {last[0][:200]}" if last else "")
                dead = Outcome(CRASHED, f"during {phase}: {why}")
            r = _dead_case(current, phase, dead)
            with lock:
                results[current] = r
            todo.remove(current)
            progress()
        elif todo and proc.returncode == 0:
            raise RuntimeError(f"worker finished without results for {todo[:3]}...: {stderr[-500:]}")


def _wait_or_kill(proc: subprocess.Popen[bytes], log: Path, timeout: float) -> bool:
    """Wait for the worker, killing it when one case (from its "start" in ``log``) runs longer than
    ``timeout`` seconds; whether it was killed."""
    current, since = None, time.monotonic()
    seen = 0
    while True:
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        else:
            return False
        lines = log.read_text(encoding="utf-8").splitlines()
        for line in lines[seen:]:
            rec = json.loads(line)
            if "start" in rec:
                current, since = rec["start"], time.monotonic()
        seen = len(lines)
        if current is not None and time.monotonic() - since > timeout:
            proc.kill()
            proc.wait()
            return True


def _dead_case(name: str, phase: str, dead: Outcome) -> CaseResult:
    """The result of the case whose child died (or hung) in ``phase``."""
    if phase == "cpu":  # ovonehot's result was not written yet: run its side alone
        return _rerun_ovonehot(name, dead)
    if phase == "ovonehot":
        return CaseResult(name, (), dead, Outcome(SKIPPED, "not run: the child died in ovonehot's phase"))
    # OpenVINO's ONNX frontend took the process down: neither side has a model
    return CaseResult(name, (), dead, dead)


def _rerun_ovonehot(name: str, cpu: Outcome) -> CaseResult:
    """ovonehot's side of a case whose CPU phase killed the child, in a child of its own."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        out = Path(f.name)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--ovonehot-only", str(out), name],
        capture_output=True,
        timeout=600,
        check=False,
    )
    try:
        r = _from_json(json.loads(out.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        r = CaseResult(name, (), Outcome(CRASHED, f"ovonehot alone: exit {done.returncode}"), cpu)
    out.unlink(missing_ok=True)
    r.cpu = cpu
    return r


def run_all(names: list[str], jobs: int, chunk: int, timeout: float) -> dict[str, CaseResult]:
    results: dict[str, CaseResult] = {}
    lock = threading.Lock()
    chunks = [names[i : i + chunk] for i in range(0, len(names), chunk)]
    count = [0]
    t0 = time.monotonic()

    def progress() -> None:
        count[0] += 1
        if count[0] % 50 == 0 or count[0] == len(names):
            print(
                f"  {count[0]}/{len(names)} cases, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True
            )

    queue = list(chunks)
    qlock = threading.Lock()

    def worker() -> None:
        while True:
            with qlock:
                if not queue:
                    return
                names_ = queue.pop(0)
            _run_chunk(names_, timeout, results, lock, progress)

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return dict(sorted(results.items()))


# -- the summary --------------------------------------------------------------------------


_NO_RULE = re.compile(r"No conversion rule found for operations: ([^\n]*?)(?: --|$)")
_FAILED_OP = re.compile(r"Failed operations detailed log: -- (\S+) with a message")


def _conversion_reason(detail: str) -> str:
    """The ONNX op a conversion failure names ("no rule for X", "X failed"), else its first words."""
    m = _NO_RULE.search(detail)
    if m:
        return f"no conversion rule for {m.group(1).strip()}"
    m = _FAILED_OP.search(detail)
    if m:
        return f"{m.group(1)} fails to convert"
    return detail[:100]


def summary(results: dict[str, CaseResult]) -> str:
    lines = [f"ONNX backend node cases: {len(results)}"]
    width = max(len(s) for s in STATUSES)
    lines.append(f"  {'status':<{width}}  {'ovonehot':>8}  {'CPU':>6}")
    ours = collections.Counter(r.ovonehot.status for r in results.values())
    cpu = collections.Counter(r.cpu.status for r in results.values())
    lines.extend(f"  {s:<{width}}  {ours[s]:>8}  {cpu[s]:>6}" for s in STATUSES)
    both = sum(1 for r in results.values() if r.ovonehot.status == PASS and r.cpu.status == PASS)
    lines.append(f"  both pass: {both}")

    refused = collections.Counter(
        op for r in results.values() if r.ovonehot.status == REFUSED for op in r.ovonehot.ops
    )
    lines.append("")
    lines.append(f"ovonehot refuses {len(refused)} op types (cases that need each):")
    for op, n in refused.most_common():
        lines.append(f"  {n:>4}  {op}")

    failed = collections.Counter(
        _conversion_reason(r.ovonehot.detail)
        for r in results.values()
        if r.ovonehot.status == CONVERSION_FAILED
    )
    lines.append("")
    lines.append(f"OpenVINO's ONNX frontend cannot convert {sum(failed.values())} cases:")
    for why, n in failed.most_common():
        lines.append(f"  {n:>4}  {why}")

    cpu_only = [r for r in results.values() if r.cpu.status == PASS and r.ovonehot.status != PASS]
    by = collections.Counter(r.ovonehot.status for r in cpu_only)
    lines.append("")
    lines.append(
        f"OpenVINO CPU passes, ovonehot does not: {len(cpu_only)} "
        f"({', '.join(f'{n} {s}' for s, n in by.most_common())})"
    )
    lines.extend(
        f"  {r.name}: {r.ovonehot.status}: {r.ovonehot.detail}"
        for r in cpu_only
        if r.ovonehot.status != REFUSED
    )
    lines.append(f"  (and {by[REFUSED]} refused: the ops above)")

    wrong = [r for r in results.values() if r.ovonehot.status == WRONG and r.cpu.status == PASS]
    lines.append("")
    lines.append(f"ovonehot wrong where OpenVINO CPU is right: {len(wrong)}")
    lines.extend(f"  {r.name} [{', '.join(r.ir_ops)}]: {r.ovonehot.detail}" for r in wrong)

    ours_only = [r for r in results.values() if r.ovonehot.status == PASS and r.cpu.status != PASS]
    lines.append("")
    lines.append(f"ovonehot passes, OpenVINO CPU does not: {len(ours_only)}")
    cpu_by = collections.Counter(r.cpu.status for r in ours_only)
    lines.append("  " + ", ".join(f"{n} {s}" for s, n in cpu_by.most_common()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--jobs", type=int, default=1, help="child processes at once (default 1)")
    parser.add_argument("--filter", default=None, help="run only cases whose name matches this regex")
    parser.add_argument("--json-out", type=Path, default=None, help="write every case's result here")
    parser.add_argument("--chunk", type=int, default=100, help="cases per child process (default 100)")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds one case may take (default 120)"
    )
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ovonehot-only", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker is not None:
        _worker(args.names, args.worker)
        return 0
    if args.ovonehot_only is not None:
        (name,) = args.names
        r = run_case(collect_cases()[name], with_cpu=False)
        args.ovonehot_only.write_text(json.dumps(_to_json(r)), encoding="utf-8")
        return 0

    names = list(collect_cases())
    if args.filter:
        rx = re.compile(args.filter)
        names = [n for n in names if rx.search(n)]
    print(f"running {len(names)} cases in {args.jobs} job(s)", file=sys.stderr)
    results = run_all(names, args.jobs, args.chunk, args.timeout)
    print(summary(results))
    if args.json_out is not None:
        args.json_out.write_text(
            json.dumps({n: _to_json(r) for n, r in results.items()}, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
