"""Per-call speed and peak memory of ovonehot against its peers on the regression corpus's models.

One interleaved run per model (A B C ... A B C ...: every runner's batch once per round, each
batch after one untimed call, so a machine busy with other work slows every side alike), after
warm-up; the median per call of each runner, then the ratios ovonehot / peer:

* ``exact``, ``fast``: ovonehot ``Model.run`` (``exact=False`` for fast), with ``threads``
  (default 1, the peers' count);
* ``cpu``: OpenVINO's CPU plugin, deterministic configuration (1 thread, 1 stream, f32
  precision, accuracy mode: what ``ovonehot diff`` compares with);
* ``cpu-default``: the CPU plugin compiled with OpenVINO's defaults (every core, its default
  precision), as users run it;
* ``ort``: onnxruntime on the folder's ``model.onnx`` (1 intra-op and 1 inter-op thread);
* ``onnx-ref``: ``onnx.reference.ReferenceEvaluator`` on ``model.onnx`` (the other NumPy
  reference interpreter).

ONNX peers run only where the folder holds a ``model.onnx`` (``ir/corpus/onnx``).  Stateful LLMs
are timed as two workloads: ``prefill`` (the state reset, then the case's first step) and
``decode`` (the state after the prefill set again, then the second step, one token per row).

Peak memory (``--memory``): each runner in a child process of its own, the model loaded and run
twice; its high-water mark (VmHWM) minus the mark after the imports.

    python benchmarks/bench_corpus.py [--repeat 7] [--models vision/resnet_timm ...]
        [--threads 1] [--memory] [--compare PACKAGE] [--json-out report.json]

Not a test: timing depends on the machine; this prints figures for people to read.  Target
(issue 24): fast <= 1.0x the CPU plugin with the same thread count (geomean), no model above 2x.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "ir" / "corpus"
CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}
# The transformer workloads (LLM prefill and decode, NNCF, ONNX exports): also what
# profile_families.py profiles.
TRANSFORMERS = (
    "llm/llama",
    "llm/gpt2",
    "llm/qwen3",
    "nncf/llama_int4_sym",
    "transformers/bert",
    "onnx/bert_hf",
    "onnx/gpt2_hf",
    "onnx/llama_hf",
)
# What users bring, a few of each kind (every folder of ir/corpus works with --models).
DEFAULT_MODELS = (
    *TRANSFORMERS,
    "vision/resnet_timm",
    "vision/mobilenet_v3_torchvision",
    "vision/convnext_timm",
    "vision/vit_timm",
    "vision/unet",
    "vision/detector_nms_roialign",
    "onnx/resnet_timm",
    "onnx/unet",
    "onnx/fcn_bilinear",
    "tensorflow/keras_embedding_lstm",
    "tflite/keras_cnn",
    "paddle/jit_cnn",
)
RUNNERS = ("exact", "fast", "cpu", "cpu-default", "ort", "onnx-ref")
PEERS = ("cpu", "cpu-default", "ort", "onnx-ref")


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


@dataclass(frozen=True, slots=True)
class Workload:
    """One model and what one timed call runs: ``steps`` (inputs files); with two steps of a
    stateful model, the first sets the state up and the second is timed (decode)."""

    folder: str
    label: str
    steps: tuple[Path, ...]
    stateful: bool


def workloads(folder: str) -> list[Workload]:
    directory = CORPUS / folder
    meta = json.loads((directory / "meta.json").read_text())
    stems = sorted(directory.glob("*.inputs.npz"))
    if meta["stateful"]:
        steps = [p for p in stems if ".step" in p.name]
        first = steps[0].name.split(".step")[0]
        steps = sorted(p for p in steps if p.name.startswith(f"{first}.step"))
        return [
            Workload(folder, f"{folder} prefill", (steps[0],), True),
            Workload(folder, f"{folder} decode", (steps[0], steps[1]), True),
        ]
    typical = [p for p in stems if p.name.startswith("typical.")]
    return [Workload(folder, folder, ((typical or stems)[0],), False)]


def to_tensor(array: np.ndarray, element_type: object) -> object:
    """An ``ov.Tensor`` for a stored input; bf16 kept by ``np.save`` as raw ``|V2`` bits."""
    import openvino as ov

    if array.dtype.kind == "V":
        tensor = ov.Tensor(element_type, list(array.shape))
        np.asarray(tensor.data).view(np.uint8)[...] = np.require(array, requirements="C").view(np.uint8)
        return tensor
    return ov.Tensor(np.require(array, requirements="C"))


def ovonehot_call(
    work: Workload, exact: bool, threads: int, package: str = "ovonehot"
) -> Callable[[], object]:
    ovonehot = importlib.import_module(package)
    model = ovonehot.load(CORPUS / work.folder / "model.xml")
    options: dict[str, object] = {"exact": exact}
    if "threads" in inspect.signature(model.run).parameters:  # (older code: no such option)
        options["threads"] = threads
    steps = [read_npz(p) for p in work.steps]
    if not work.stateful:
        return lambda: model.run(steps[0], **options)
    request = model.create_request()
    request.run(steps[0], **options)
    if len(steps) == 1:

        def prefill() -> object:
            request.reset_state()
            return request.run(steps[0], **options)

        return prefill
    state = request.query_state()

    def decode() -> object:
        for name, value in state.items():
            request.set_state(name, value)
        return request.run(steps[1], **options)

    return decode


def openvino_call(work: Workload, config: dict[str, object]) -> Callable[[], object]:
    import openvino as ov

    compiled = ov.Core().compile_model(str(CORPUS / work.folder / "model.xml"), "CPU", config)
    request = compiled.create_infer_request()
    feeds = []
    for path in work.steps:
        inputs = read_npz(path)
        feed = {}
        for k, port in enumerate(compiled.inputs):
            key = next(n for n in port.get_names() if n in inputs)
            feed[k] = to_tensor(inputs[key], port.get_element_type())
        feeds.append(feed)
    if not work.stateful:
        return lambda: request.infer(feeds[0])
    if len(feeds) == 1:

        def prefill() -> object:
            request.reset_state()
            return request.infer(feeds[0])

        return prefill
    request.reset_state()
    request.infer(feeds[0])
    saved = {s.name: np.array(s.state.data, copy=True) for s in request.query_state()}

    def decode() -> object:
        for s in request.query_state():
            s.state = ov.Tensor(saved[s.name])
        return request.infer(feeds[1])

    return decode


def onnx_call(work: Workload, runner: str) -> Callable[[], object] | None:
    onnx_file = CORPUS / work.folder / "model.onnx"
    if not onnx_file.exists():
        return None
    inputs = read_npz(work.steps[0])
    if runner == "ort":
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        feed = {i.name: inputs[i.name] for i in session.get_inputs()}
        return lambda: session.run(None, feed)
    from onnx.reference import ReferenceEvaluator

    evaluator = ReferenceEvaluator(str(onnx_file))
    feed = {name: inputs[name] for name in evaluator.input_names}
    return lambda: evaluator.run(None, feed)


def make_call(work: Workload, runner: str, threads: int) -> Callable[[], object] | None:
    if runner in ("exact", "fast"):
        return ovonehot_call(work, runner == "exact", threads)
    if runner.startswith(("exact@", "fast@")):  # another copy of ovonehot (--compare)
        mode, package = runner.split("@")
        return ovonehot_call(work, mode == "exact", threads, package)
    if runner == "cpu":
        return openvino_call(work, dict(CPU_CONFIG))
    if runner == "cpu-default":
        return openvino_call(work, {})
    if work.stateful:
        return None
    return onnx_call(work, runner)


def interleaved(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median seconds per call of each function: ``repeat`` rounds of batches of about 20 ms,
    every function's batch once per round, each batch after one untimed call."""
    numbers = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        numbers[name] = max(1, int(0.02 / max(time.perf_counter() - start, 1e-9)))
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            fn()
            start = time.perf_counter()
            for _ in range(numbers[name]):
                fn()
            times[name].append((time.perf_counter() - start) / numbers[name])
    return {name: statistics.median(t) for name, t in times.items()}


@dataclass(slots=True)
class Row:
    label: str
    seconds: dict[str, float] = field(default_factory=dict)
    peak_mb: dict[str, float] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def ratio(self, ours: str, peer: str) -> float | None:
        if ours in self.seconds and peer in self.seconds:
            return self.seconds[ours] / self.seconds[peer]
        return None


def bench(work: Workload, runners: tuple[str, ...], threads: int, repeat: int) -> Row:
    row = Row(work.label)
    fns: dict[str, Callable[[], object]] = {}
    for runner in runners:
        try:
            fn = make_call(work, runner, threads)
            if fn is not None:
                fn()  # warm-up: the second run of a signature compiles ovonehot's folded plan
                fn()
                fns[runner] = fn
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run the model is reported, not fatal
            row.failed[runner] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    row.seconds = interleaved(fns, repeat)
    return row


# Peak memory of one runner on one workload, in a process of its own: VmHWM after the imports,
# then after building the runner and two calls.
_PEAK = """
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy, openvino, onnx, onnxruntime, ovonehot
from onnx import reference
import bench_corpus as b
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
work = b.Workload(sys.argv[2], "", tuple(b.Path(p) for p in json.loads(sys.argv[4])), sys.argv[5] == "1")
base = hwm()
fn = b.make_call(work, sys.argv[3], int(sys.argv[6]))
if fn is not None:
    fn(); fn()
    print(hwm() - base)
"""


def peak_mb(work: Workload, runner: str, threads: int) -> float | None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PEAK,
            str(Path(__file__).parent),
            work.folder,
            runner,
            json.dumps([str(p) for p in work.steps]),
            "1" if work.stateful else "0",
            str(threads),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    out = done.stdout.split()
    return int(out[-1]) / 2**20 if done.returncode == 0 and out else None


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else float("nan")


def print_table(rows: list[Row], memory: bool, compare: str | None) -> dict[str, float]:
    runners = list(RUNNERS)
    ratios = [(ours, peer) for ours in ("exact", "fast") for peer in PEERS]
    if compare:
        runners += [f"exact@{compare}", f"fast@{compare}"]
        ratios += [("exact", f"exact@{compare}"), ("fast", f"fast@{compare}")]
    head = ["model", *(f"{r} ms" for r in runners)]
    head += [f"{o}/{p}" for o, p in ratios]
    if memory:
        head += [f"peak MB {r}" for r in RUNNERS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        cells = [row.label]
        cells += [f"{row.seconds[r] * 1e3:.3g}" if r in row.seconds else "-" for r in runners]
        cells += [f"{v:.2f}" if (v := row.ratio(o, p)) is not None else "-" for o, p in ratios]
        if memory:
            cells += [f"{row.peak_mb[r]:.0f}" if r in row.peak_mb else "-" for r in RUNNERS]
        print("| " + " | ".join(cells) + " |")
    means = {}
    cells = ["geomean (models)", *([""] * len(runners))]
    for o, p in ratios:
        found = [v for row in rows if (v := row.ratio(o, p)) is not None]
        means[f"{o}/{p}"] = geomean(found)
        cells.append(f"{means[f'{o}/{p}']:.2f} ({len(found)})" if found else "-")
    cells += [""] * (len(head) - len(cells))
    print("| " + " | ".join(cells) + " |")
    return means


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--models", nargs="*", default=list(DEFAULT_MODELS), help="ir/corpus folders")
    ap.add_argument("--runners", nargs="*", default=list(RUNNERS), choices=RUNNERS)
    ap.add_argument("--threads", type=int, default=1, help="ovonehot's threads (Model.run(threads=))")
    ap.add_argument("--memory", action="store_true", help="also each runner's peak memory (a child each)")
    ap.add_argument(
        "--compare",
        metavar="PACKAGE",
        help="also time another copy of ovonehot importable as PACKAGE (e.g. an older commit's "
        "src/ovonehot copied to a folder on PYTHONPATH as ovonehot_before): runners exact@, fast@",
    )
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()

    rows = []
    for folder in args.models:
        for work in workloads(folder):
            runners = tuple(args.runners)
            if args.compare:
                runners += (f"exact@{args.compare}", f"fast@{args.compare}")
            row = bench(work, runners, args.threads, args.repeat)
            if args.memory:
                for runner in set(row.seconds) & set(RUNNERS):
                    mb = peak_mb(work, runner, args.threads)
                    if mb is not None:
                        row.peak_mb[runner] = mb
            rows.append(row)
            print(
                f"{row.label}: " + ", ".join(f"{k} {v * 1e3:.3g} ms" for k, v in row.seconds.items()),
                file=sys.stderr,
            )
    print(
        f"\nmedian ms per call; ratios ovonehot / peer ({time.strftime('%Y-%m-%d')}, threads={args.threads})\n"
    )
    means = print_table(rows, args.memory, args.compare)
    for row in rows:
        for runner, why in row.failed.items():
            print(f"{row.label}: {runner} failed: {why}")
    if args.json_out:
        report = {
            "threads": args.threads,
            "rows": [
                {"model": r.label, "seconds": r.seconds, "peak_mb": r.peak_mb, "failed": r.failed}
                for r in rows
            ],
            "geomeans": means,
        }
        args.json_out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
