"""Whole-model speed and memory against OpenVINO, measured side by side in the same run.

Two workloads:

* **real models**: every IR in ``ir/exports`` with its stored inputs (first case of each
  model, or the models named with ``--models``); per model the median of
  ``ovonehot.load`` (read + shape inference), of one ``Model.run``, and of OpenVINO's
  ``read_model``, ``compile_model`` and one ``InferRequest.infer`` (CPU plugin,
  deterministic configuration: 1 thread, f32, accuracy), with the ratios
  ovonehot / OpenVINO; runs both exact (the default) and ``exact=False`` (float sums in
  NumPy's order, MatMul by BLAS), with the largest difference between the two;
* **a generated transformer** of realistic size (``--transformer``: a stack of pre-norm blocks,
  hidden 512, 8 heads, MLP 2048, sequence 128, random f32 weights, written by ``ov.save_model``
  from OpenVINO's opset API): where compute, not per-node dispatch, decides the run time;
* **generated large graphs**: chains of ``--layers`` element-wise layers (Add, Multiply,
  Relu, Convert, Reshape, Concat) written by ``ov.save_model``; load + infer against
  ``read_model``, and each one's peak memory measured in a fresh process (VmHWM).

    python benchmarks/bench_models.py [--repeat 5] [--layers 10000 50000] [--models NAME ...]
        [--transformer 2] [--json-out report.json]

Per-call run times are steady-state medians of batches interleaved with OpenVINO's (A B A B
...), each batch after an untimed call, after warm-up runs (a model's second run with one input
signature compiles its folded plan).

Not a test: timing depends on the machine; this prints figures (medians and ratios) for
people to read.  Targets (issue 13): load+infer of 10k layers <= OpenVINO read_model;
real models within 3x OpenVINO CPU per call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXPORTS = ROOT / "ir" / "exports"
CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(*fns: Callable[[], object], repeat: int) -> tuple[float, ...]:
    """Steady-state median seconds per call of each function, measured in alternating batches
    (A B C A B C ...) of about 50 ms each; each batch starts with one untimed call, so no side
    is timed cold after another ran (caches, OpenVINO's worker threads)."""
    numbers = []
    for fn in fns:
        fn()
        start = time.perf_counter()
        fn()
        numbers.append(max(1, int(0.05 / max(time.perf_counter() - start, 1e-9))))
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(max(repeat, 5)):
        for fn, number, acc in zip(fns, numbers, times, strict=True):
            fn()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            acc.append((time.perf_counter() - start) / number)
    return tuple(statistics.median(t) for t in times)


def largest_difference(exact: dict[str, np.ndarray], fast: dict[str, np.ndarray]) -> float:
    """The largest |fast - exact| over the float outputs, relative to the output's largest
    magnitude (0 when they agree, NaN when one has a NaN the other has not)."""
    worst = 0.0
    for name, e in exact.items():
        f = fast[name]
        if e.dtype.kind != "f" or not e.size:
            continue
        e64, f64 = e.astype(np.float64), f.astype(np.float64)
        if not np.array_equal(np.isnan(e64), np.isnan(f64)):
            return float("nan")
        finite = np.isfinite(e64) & np.isfinite(f64)
        scale = float(np.max(np.abs(e64[finite]), initial=0.0)) or 1.0
        worst = max(worst, float(np.max(np.abs(f64[finite] - e64[finite]), initial=0.0)) / scale)
    return worst


def to_tensor(array: np.ndarray, element_type: object) -> object:
    """An ``ov.Tensor`` for a stored input; bf16 kept by ``np.save`` as raw ``|V2`` bits."""
    import openvino as ov

    if array.dtype.kind == "V":
        tensor = ov.Tensor(element_type, list(array.shape))
        np.asarray(tensor.data).view(np.uint8)[...] = np.require(array, requirements="C").view(np.uint8)
        return tensor
    return ov.Tensor(np.require(array, requirements="C"))  # keeps 0-d (ascontiguousarray would not)


def first_case(xml: Path) -> Path | None:
    cases = sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))
    return cases[0] if cases else None


def bench_real_model(xml: Path, repeat: int) -> dict[str, float | str]:
    import openvino as ov

    import ovonehot

    inputs_file = first_case(xml)
    assert inputs_file is not None
    with np.load(inputs_file, allow_pickle=False) as archive:
        inputs = {k: archive[k] for k in archive.files}
    core = ov.Core()

    model = ovonehot.load(xml)
    compiled = core.compile_model(str(xml), "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    ov_inputs = {}
    for k, port in enumerate(compiled.inputs):
        key = next((n for n in port.get_names() if n in inputs), None)
        if key is None:
            raise SystemExit(f"{xml.name}: no stored input for OpenVINO input {port.get_any_name()}")
        ov_inputs[k] = to_tensor(inputs[key], port.get_element_type())

    for _ in range(2):  # warm-up (the second run compiles the signature's folded plan)
        model.run(inputs)
        model.run(inputs, exact=False)
        request.infer(ov_inputs)
    run_s, fast_s, infer_s = interleaved(
        lambda: model.run(inputs),
        lambda: model.run(inputs, exact=False),
        lambda: request.infer(ov_inputs),
        repeat=repeat,
    )
    row: dict[str, float | str] = {
        "model": f"{xml.parent.name}/{xml.stem}",
        "layers": float(len(model.graph.nodes)),
        "ovonehot_load_s": median_time(lambda: ovonehot.load(xml), repeat),
        "openvino_read_s": median_time(lambda: core.read_model(str(xml)), repeat),
        "openvino_compile_s": median_time(lambda: core.compile_model(str(xml), "CPU", CPU_CONFIG), repeat),
        "ovonehot_run_s": run_s,
        "ovonehot_run_fast_s": fast_s,
        "openvino_infer_s": infer_s,
        "fast_vs_exact_rel_diff": largest_difference(model.run(inputs), model.run(inputs, exact=False)),
    }
    row["ratio_load_over_read"] = float(row["ovonehot_load_s"]) / float(row["openvino_read_s"])
    row["ratio_run_over_infer"] = float(row["ovonehot_run_s"]) / float(row["openvino_infer_s"])
    row["ratio_fast_run_over_infer"] = fast_s / infer_s
    row["ratio_load_run_over_read_compile_infer"] = (
        float(row["ovonehot_load_s"]) + float(row["ovonehot_run_s"])
    ) / (float(row["openvino_read_s"]) + float(row["openvino_compile_s"]) + float(row["openvino_infer_s"]))
    return row


def make_transformer(
    path: Path, blocks: int, hidden: int = 512, heads: int = 8, mlp: int = 2048, seq: int = 128
) -> Path:
    """A stack of ``blocks`` pre-norm transformer blocks (LayerNorm as MVN + scale + shift,
    Q/K/V/O projections, softmax attention, a GELU MLP, residual adds), random f32 weights,
    written by OpenVINO, and its input saved beside it (``<name>.bench.inputs.npz``)."""
    import openvino as ov
    import openvino.opset13 as ops

    rng = np.random.default_rng(0)
    head = hidden // heads

    def weight(*shape: int) -> object:
        return ops.constant((rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32))

    def layer_norm(node: object) -> object:
        normed = ops.mvn(node, ops.constant(np.array([-1], np.int64)), True, 1e-5, "inside_sqrt")
        scaled = ops.multiply(normed, ops.constant(rng.uniform(0.5, 1.5, hidden).astype(np.float32)))
        return ops.add(scaled, ops.constant(rng.uniform(-0.1, 0.1, hidden).astype(np.float32)))

    def split_heads(node: object) -> object:  # [1, seq, hidden] -> [1, heads, seq, head]
        shaped = ops.reshape(node, ops.constant(np.array([0, 0, heads, head], np.int64)), special_zero=True)
        return ops.transpose(shaped, ops.constant(np.array([0, 2, 1, 3], np.int64)))

    x = ops.parameter([1, -1, hidden], ov.Type.f32, name="hidden_states")
    node = x
    for _ in range(blocks):
        h = layer_norm(node)
        q, k, v = (split_heads(ops.matmul(h, weight(hidden, hidden), False, False)) for _ in range(3))
        scores = ops.multiply(ops.matmul(q, k, False, True), ops.constant(np.float32(1 / np.sqrt(head))))
        context = ops.matmul(ops.softmax(scores, -1), v, False, False)
        merged = ops.reshape(
            ops.transpose(context, ops.constant(np.array([0, 2, 1, 3], np.int64))),
            ops.constant(np.array([0, 0, hidden], np.int64)),
            special_zero=True,
        )
        node = ops.add(node, ops.matmul(merged, weight(hidden, hidden), False, False))
        h = layer_norm(node)
        up = ops.gelu(ops.add(ops.matmul(h, weight(hidden, mlp), False, False), weight(mlp)), "tanh")
        node = ops.add(node, ops.matmul(up, weight(mlp, hidden), False, False))
    xml = path / f"transformer_{blocks}x{hidden}.xml"
    model = ov.Model([ops.result(layer_norm(node))], [x], f"transformer{blocks}")
    ov.save_model(model, str(xml), compress_to_fp16=False)
    inputs = {"hidden_states": rng.standard_normal((1, seq, hidden)).astype(np.float32)}
    np.savez(path / f"{xml.stem}.bench.inputs.npz", **inputs)  # type: ignore[arg-type]
    return xml


def make_chain(path: Path, layers: int) -> Path:
    """A chain of about ``layers`` layers (Const inputs included), written by OpenVINO."""
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter([1, 16], ov.Type.f32, name="x")
    node = x
    count = 1
    i = 0
    while count < layers:
        kind = i % 6
        if kind == 0:
            node = ops.add(node, ops.constant(np.full([1, 16], 0.5, np.float32)))
            count += 2
        elif kind == 1:
            node = ops.multiply(node, ops.constant(np.float32(0.999)))
            count += 2
        elif kind == 2:
            node = ops.relu(node)
            count += 1
        elif kind == 3:
            node = ops.convert(ops.convert(node, ov.Type.f16), ov.Type.f32)
            count += 2
        elif kind == 4:
            node = ops.reshape(node, ops.constant(np.array([1, 16], np.int64)), special_zero=False)
            count += 2
        else:
            half = ops.split(node, ops.constant(np.int64(1)), 2)
            node = ops.concat([half.output(1), half.output(0)], axis=1)
            count += 3
        i += 1
    xml = path / f"chain_{layers}.xml"
    ov.save_model(ov.Model([ops.result(node)], [x], f"chain{layers}"), str(xml), compress_to_fp16=False)
    return xml


_PEAK = """
import sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
which, xml = sys.argv[1], sys.argv[2]
if which == "ovonehot":
    import ovonehot
    base = hwm()
    ovonehot.load(xml)
else:
    import openvino as ov
    core = ov.Core()
    base = hwm()
    core.read_model(xml)
print(base, hwm())
"""


def peak_bytes(which: str, xml: Path) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, which, str(xml)], check=True, capture_output=True, text=True
    ).stdout.split()
    base, peak = (int(v) for v in out)
    return peak - base


# Load timings of a chain, in a process of its own: what the process did before (the real
# models' loads and runs) must not weigh on either side.  Prints ovonehot's and OpenVINO's times.
_CHAIN_TIMES = """
import gc, sys, time, openvino as ov, ovonehot
xml, repeat = sys.argv[1], int(sys.argv[2])
core = ov.Core()
ovonehot.load(xml); core.read_model(xml)  # warm: imports, the IR frontend's library
ours, theirs = [], []
for _ in range(repeat):  # interleaved, so a machine busy with other work slows both alike
    gc.collect()
    start = time.perf_counter(); ovonehot.load(xml); ours.append(time.perf_counter() - start)
    gc.collect()
    start = time.perf_counter(); core.read_model(xml); theirs.append(time.perf_counter() - start)
print(" ".join(map(str, ours)))
print(" ".join(map(str, theirs)))
"""


def bench_chain(tmp: Path, layers: int, repeat: int) -> dict[str, float | str]:
    import ovonehot

    xml = make_chain(tmp, layers)
    lines = subprocess.run(
        [sys.executable, "-c", _CHAIN_TIMES, str(xml), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    ours, theirs = ([float(v) for v in line.split()] for line in lines[-2:])
    row: dict[str, float | str] = {
        "model": f"generated chain of {layers} layers",
        "layers": float(len(ovonehot.load(xml).graph.nodes)),
        "ovonehot_load_s": statistics.median(ours),
        "openvino_read_s": statistics.median(theirs),
        "ovonehot_peak_mb": peak_bytes("ovonehot", xml) / 2**20,
        "openvino_peak_mb": peak_bytes("openvino", xml) / 2**20,
    }
    row["ratio_load_over_read"] = float(row["ovonehot_load_s"]) / float(row["openvino_read_s"])
    row["ratio_peak"] = float(row["ovonehot_peak_mb"]) / max(float(row["openvino_peak_mb"]), 1e-9)
    return row


def print_table(rows: list[dict[str, float | str]], columns: list[str]) -> None:
    print(" | ".join(columns))
    print(" | ".join("---" for _ in columns))
    for row in rows:
        cells = []
        for c in columns:
            v = row.get(c, "")
            cells.append(f"{v:.4g}" if isinstance(v, float) else str(v))
        print(" | ".join(cells))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--layers", type=int, nargs="*", default=[10_000, 50_000])
    ap.add_argument("--models", nargs="*", help="ir/exports models (family/name); default: all")
    ap.add_argument(
        "--transformer", type=int, nargs="*", default=[2], help="blocks of each generated transformer"
    )
    ap.add_argument("--json-out", type=Path)
    args = ap.parse_args()

    xmls = sorted(p for p in EXPORTS.glob("*/*.xml") if first_case(p) is not None)
    if args.models:
        xmls = [p for p in xmls if f"{p.parent.name}/{p.stem}" in args.models]
    real = [bench_real_model(xml, args.repeat) for xml in xmls]
    with tempfile.TemporaryDirectory() as tmp:
        generated = [bench_real_model(make_transformer(Path(tmp), n), args.repeat) for n in args.transformer]
        for row in generated:
            row["model"] = f"generated {row['model'].split('/')[-1]} (seq 128)"
        chains = [bench_chain(Path(tmp), n, max(1, args.repeat)) for n in args.layers]
    real += generated

    print("## real models (ir/exports), medians in seconds")
    print_table(
        real,
        [
            "model",
            "layers",
            "ovonehot_load_s",
            "openvino_read_s",
            "ovonehot_run_s",
            "ovonehot_run_fast_s",
            "openvino_infer_s",
            "ratio_load_over_read",
            "ratio_run_over_infer",
            "ratio_fast_run_over_infer",
            "fast_vs_exact_rel_diff",
            "ratio_load_run_over_read_compile_infer",
        ],
    )
    if real:
        worst = max(real, key=lambda r: float(r["ratio_run_over_infer"]))
        print(f"\nworst run/infer ratio: {float(worst['ratio_run_over_infer']):.3g} ({worst['model']})")
        worst = max(real, key=lambda r: float(r["ratio_fast_run_over_infer"]))
        print(
            f"worst fast run/infer ratio: {float(worst['ratio_fast_run_over_infer']):.3g} ({worst['model']})"
        )
    print("\n## generated chains: load + infer vs read_model, peak memory")
    print_table(
        chains,
        [
            "model",
            "layers",
            "ovonehot_load_s",
            "openvino_read_s",
            "ratio_load_over_read",
            "ovonehot_peak_mb",
            "openvino_peak_mb",
            "ratio_peak",
        ],
    )
    if args.json_out:
        args.json_out.write_text(json.dumps({"real": real, "chains": chains}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
