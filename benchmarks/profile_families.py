"""Where a call's time goes, per op family: ovonehot exact and fast against the CPU plugin.

For each workload of ``bench_corpus.py`` (the LLMs and transformers by default), one table:
per op family (and per op type with ``--types``), the running nodes' count and microseconds
per call of

* ``exact`` / ``fast``: the node's callable in the plan (reading its inputs, the kernel,
  checking and storing its outputs, freeing slots), split into ``kernel`` (the kernel alone,
  called again on the same inputs) and ``dispatch`` (the rest: the evaluator's own cost);
* ``cpu``: the CPU plugin's per-layer ``real_time`` (``PERF_COUNT``; deterministic config),
  attributed to the IR layer of the plugin node's name (a fused node counts for the layer
  it kept the name of; the plugin's own nodes, reorders and converts, under their type).

Then each side's whole call (``Model.run`` / ``Request.run``; ``InferRequest.infer``) and what
the loop does not explain (``outside``: binding the inputs, finding the plan, the run's
thread limit and error state, copying results; for the plugin its Python API).  Medians over
``--repeat`` calls, the runners interleaved.  It runs ovonehot's plan step by step through
the evaluator's own functions (``_record``, ``_plan``, ``_calls_for``): a benchmark reaching
into internals on purpose, to time what ``evaluate`` runs without changing it.

    PYTHONPATH=src python benchmarks/profile_families.py [--models llm/llama ...] [--repeat 30] [--types]

Not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_corpus as bench

import ovonehot
from ovonehot import evaluate as ev
from ovonehot.ops.common.spec import RunMode, Variables

MODELS = bench.TRANSFORMERS
# Op type (lower case) -> family; anything else is "other".
FAMILIES = {
    "matmul": ("matmul", "fullyconnected", "gemm"),
    "attention": ("scaleddotproductattention", "sdpa"),
    "normalisation": ("mvn", "softmax", "reducemean", "reducesum", "reduceprod", "rms", "normalizel2"),
    "element-wise": (
        "add", "multiply", "subtract", "divide", "power", "sqrt", "swish", "gelu", "sigmoid", "tanh",
        "exp", "sin", "cos", "select", "bitwiseand", "logicaland", "lessequal", "greaterequal",
        "equal", "eltwise", "maximum", "minimum", "erf", "relu", "negative", "floormod",
    ),
    "convert": ("convert", "reorder"),
    "data movement": (
        "reshape", "unsqueeze", "squeeze", "transpose", "concat", "gather", "gatherelements",
        "slice", "stridedslice", "split", "variadicsplit", "broadcast", "range", "shapeof",
        "select", "tile", "pad",
    ),
    "state": ("readvalue", "assign"),
    "io": ("parameter", "result", "input", "output"),
}  # fmt: skip
FAMILY_OF = {t: f for f, types in FAMILIES.items() for t in types}


def family(op_type: str) -> str:
    return FAMILY_OF.get(op_type.lower(), "other")


@dataclass(slots=True)
class Side:
    """One runner's figures on one workload: per node name (type, us lists), and whole calls."""

    nodes: dict[str, tuple[str, list[float], list[float]]] = field(default_factory=dict)
    calls: list[float] = field(default_factory=list)

    def add(self, name: str, op_type: str, total: float, kernel: float) -> None:
        entry = self.nodes.setdefault(name, (op_type, [], []))
        entry[1].append(total)
        entry[2].append(kernel)


class Ours:
    """An ovonehot workload run step by step: ``prepare`` sets the state, ``profile`` times each
    running node of one call, ``call`` is the plain public call."""

    def __init__(self, work: bench.Workload, exact: bool) -> None:
        self.model = ovonehot.load(bench.CORPUS / work.folder / "model.xml")
        self.work, self.exact = work, exact
        self.steps = [bench.read_npz(p) for p in work.steps]
        self.request = self.model.create_request() if work.stateful else None
        self.saved: dict[str, np.ndarray] = {}
        if self.request is not None and len(self.steps) == 2:
            self.request.run(self.steps[0], exact=exact, threads=1)
            self.saved = self.request.query_state()
        self.side = Side()

    def prepare(self) -> Variables | None:
        if self.request is None:
            return None
        self.request.reset_state()
        for name, value in self.saved.items():
            self.request.set_state(name, value)
        return self.request._variables  # (the request's own state: what its run would use)

    def call(self) -> None:
        variables = self.prepare()
        if self.request is None or variables is None:
            self.model.run(self.steps[0], exact=self.exact, threads=1)
        else:
            self.request.run(self.steps[-1], exact=self.exact, threads=1)

    def profile(self) -> None:
        """One call of the plan, each node timed: its callable, then its kernel again alone."""
        model = self.model
        variables = self.prepare()
        feeds = dict(zip(model._params, model.bind(self.steps[-1]), strict=True))
        mode = RunMode(exact=self.exact, variables=variables, threads=1)
        inference = model.inference
        record = ev._record(inference, feeds, mode)
        plan = ev._plan(inference, record, mode)
        values: list[Any] = list(plan.initial)
        for slot, i in plan.feeds:
            values[slot] = feeds[i]
        calls = ev._calls_for(inference, plan, record.seen, mode, {})
        with np.errstate(all="ignore"), ev._threads(mode, plan):
            for pos, call in enumerate(calls):
                step, kernel = plan.steps[pos], plan.kernels[pos]
                inputs = ev._getter(step.args)(values)
                start = time.perf_counter()
                call(values)
                total = time.perf_counter() - start
                own = total
                if kernel is not None and not step.plan.spec.uses_run:
                    start = time.perf_counter()
                    kernel(inputs)
                    own = time.perf_counter() - start
                node = step.plan.node
                self.side.add(node.name, node.type, total, own)
        record.runs += 1
        if variables is not None:
            variables.commit()


class Plugin:
    """The CPU plugin (deterministic config, ``PERF_COUNT``) on one workload."""

    def __init__(self, work: bench.Workload, types: dict[str, str]) -> None:
        self.call_fn = bench.openvino_call(work, dict(bench.CPU_CONFIG))  # (timed without counters)
        import openvino as ov

        config = dict(bench.CPU_CONFIG, PERF_COUNT=True)
        compiled = ov.Core().compile_model(str(bench.CORPUS / work.folder / "model.xml"), "CPU", config)
        self.request = compiled.create_infer_request()
        self.feeds = []
        for path in work.steps:
            inputs = bench.read_npz(path)
            feed = {}
            for k, port in enumerate(compiled.inputs):
                key = next(n for n in port.get_names() if n in inputs)
                feed[k] = bench.to_tensor(inputs[key], port.get_element_type())
            self.feeds.append(feed)
        self.stateful = work.stateful
        self.types = types
        self.side = Side()

    def call(self) -> None:
        self.call_fn()

    def profile(self) -> None:
        request = self.request
        if self.stateful:
            request.reset_state()
            if len(self.feeds) == 2:
                request.infer(self.feeds[0])
        request.infer(self.feeds[-1])
        for info in request.get_profiling_info():
            if info.status.name != "EXECUTED":
                continue
            op_type = self.types.get(info.node_name, info.node_type)
            self.side.add(info.node_name, op_type, info.real_time.total_seconds(), 0.0)


def timed(fn: Callable[[], None], into: list[float]) -> None:
    start = time.perf_counter()
    fn()
    into.append(time.perf_counter() - start)


def summarise(side: Side, key: Callable[[str], str]) -> dict[str, tuple[int, float, float]]:
    """Group -> (nodes, median us of the callables, median us of the kernels), summed."""
    out: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for op_type, totals, kernels in side.nodes.values():
        row = out[key(op_type)]
        row[0] += 1
        row[1] += statistics.median(totals) * 1e6
        row[2] += statistics.median(kernels) * 1e6
    return {k: (int(v[0]), v[1], v[2]) for k, v in out.items()}


def ratio(ours: float, peer: float) -> str:
    return f"{ours / peer:.1f}" if peer else "-"


def report(label: str, sides: dict[str, Side], by_type: bool) -> None:
    key: Callable[[str], str] = (lambda t: t) if by_type else family
    groups = {name: summarise(side, key) for name, side in sides.items()}
    names = sorted(
        {g for s in groups.values() for g in s}, key=lambda g: -groups["fast"].get(g, (0, 0, 0))[1]
    )
    print(f"\n### {label}\n")
    print(
        "| family | nodes | exact us | exact kernel | fast us | fast kernel | fast dispatch | cpu us | exact/cpu | fast/cpu |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    sums = {n: [0.0, 0.0] for n in sides}
    for g in names:
        ex, fa, cpu = (groups[n].get(g, (0, 0.0, 0.0)) for n in ("exact", "fast", "cpu"))
        for n, row in (("exact", ex), ("fast", fa), ("cpu", cpu)):
            sums[n][0] += row[1]
            sums[n][1] += row[2]
        print(
            f"| {g} | {fa[0]} | {ex[1]:.0f} | {ex[2]:.0f} | {fa[1]:.0f} | {fa[2]:.0f} | {fa[1] - fa[2]:.0f} "
            f"| {cpu[1]:.0f} | {ratio(ex[1], cpu[1])} | {ratio(fa[1], cpu[1])} |"
        )
    whole = {n: statistics.median(s.calls) * 1e6 for n, s in sides.items()}
    print(
        f"| **loop** | | {sums['exact'][0]:.0f} | {sums['exact'][1]:.0f} | {sums['fast'][0]:.0f} "
        f"| {sums['fast'][1]:.0f} | {sums['fast'][0] - sums['fast'][1]:.0f} | {sums['cpu'][0]:.0f} | | |"
    )
    print(
        f"| **outside the loop** | | {whole['exact'] - sums['exact'][0]:.0f} | | "
        f"{whole['fast'] - sums['fast'][0]:.0f} | | | {whole['cpu'] - sums['cpu'][0]:.0f} | | |"
    )
    print(
        f"| **whole call** | | {whole['exact']:.0f} | | {whole['fast']:.0f} | | | {whole['cpu']:.0f} "
        f"| {whole['exact'] / whole['cpu']:.1f} | {whole['fast'] / whole['cpu']:.1f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", default=list(MODELS), help="ir/corpus folders")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--types", action="store_true", help="one row per op type instead of per family")
    args = ap.parse_args()
    print(f"median us per call ({time.strftime('%Y-%m-%d %H:%M')}, threads=1)")
    for folder in args.models:
        for work in bench.workloads(folder):
            exact, fast = Ours(work, True), Ours(work, False)
            types = {n.name: n.type for n in exact.model.graph.nodes}
            plugin = Plugin(work, types)
            runners: dict[str, Ours | Plugin] = {"exact": exact, "fast": fast, "cpu": plugin}
            for runner in runners.values():  # warm-up: the second run of a signature folds
                for _ in range(3):
                    runner.call()
            for _ in range(args.repeat):
                for runner in runners.values():
                    timed(runner.call, runner.side.calls)
                    runner.profile()
            report(work.label, {n: r.side for n, r in runners.items()}, args.types)
    return 0


if __name__ == "__main__":
    sys.exit(main())
