"""Per decode step of a greedy generation loop: ovonehot against the CPU plugin on the corpus LLMs.

``bench_corpus.py`` times a decode step by running the same step again and again (one input
signature, whose plan ovonehot folds and specializes on its second run).  A real generation
loop never repeats a signature: the KV cache and the attention mask grow by one token a step,
so each step is the first run of its signature.  Here one round is a fresh request: the
case's prefill (``generate.step1``), then ``--steps`` greedy steps (the argmax token of each
row fed back, the mask one column longer, positions one further, ``beam_idx`` kept); the
figure is the median step of a round, the best and the median over ``--rounds`` rounds, the
runners interleaved round by round.

    PYTHONPATH=src python benchmarks/generation_loop.py [--models llm/llama ...] [--steps 20]
        [--rounds 5] [--compare PACKAGE]

Not a test: timing depends on the machine.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_corpus as bench

Feeds = dict[str, np.ndarray]


def next_feeds(previous: Feeds, logits: np.ndarray) -> Feeds:
    token = logits[:, -1].argmax(-1).astype(np.int64)[:, None]
    rows = previous["attention_mask"].shape[0]
    return {
        "input_ids": token,
        "attention_mask": np.concatenate([previous["attention_mask"], np.ones((rows, 1), np.int64)], axis=1),
        "position_ids": previous["position_ids"][:, -1:] + 1,
        "beam_idx": previous["beam_idx"],
    }


def ovonehot_round(folder: str, exact: bool, package: str, steps: int) -> Callable[[], list[float]]:
    model = importlib.import_module(package).load(bench.CORPUS / folder / "model.xml")
    first = bench.read_npz(bench.CORPUS / folder / "generate.step1.inputs.npz")

    def run() -> list[float]:
        request, feeds, times = model.create_request(), first, []
        for _ in range(steps + 1):
            start = time.perf_counter()
            out = request.run(feeds, exact=exact, threads=1)
            times.append(time.perf_counter() - start)
            feeds = next_feeds(feeds, next(iter(out.values())))
        return times[1:]

    return run


def cpu_round(folder: str, steps: int) -> Callable[[], list[float]]:
    import openvino as ov

    compiled = ov.Core().compile_model(str(bench.CORPUS / folder / "model.xml"), "CPU", bench.CPU_CONFIG)
    first = bench.read_npz(bench.CORPUS / folder / "generate.step1.inputs.npz")

    def run() -> list[float]:
        request, feeds, times = compiled.create_infer_request(), first, []
        for _ in range(steps + 1):
            start = time.perf_counter()
            request.infer(feeds)
            times.append(time.perf_counter() - start)
            feeds = next_feeds(feeds, np.asarray(request.get_output_tensor(0).data))
        return times[1:]

    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--models", nargs="*", default=["llm/llama", "llm/gpt2", "llm/qwen3", "nncf/llama_int4_sym"]
    )
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compare", metavar="PACKAGE", help="another copy of ovonehot (see bench_corpus.py)")
    args = ap.parse_args()
    print(f"ms per decode step of a generation loop ({time.strftime('%Y-%m-%d %H:%M')}, threads=1)\n")
    print("| model | runner | best round | median round | / CPU (median) |")
    print("|---|---|---|---|---|")
    for folder in args.models:
        runners = {"cpu": cpu_round(folder, args.steps)}
        for exact in (False, True):
            name = "exact" if exact else "fast"
            runners[name] = ovonehot_round(folder, exact, "ovonehot", args.steps)
            if args.compare:
                runners[f"{name}@{args.compare}"] = ovonehot_round(folder, exact, args.compare, args.steps)
        steps: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(args.rounds):
            for name, run in runners.items():
                steps[name].append(statistics.median(run()))
        cpu = statistics.median(steps["cpu"])
        for name, values in steps.items():
            median = statistics.median(values)
            print(
                f"| {folder} | {name} | {min(values) * 1e3:.2f} | {median * 1e3:.2f} | {median / cpu:.1f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
