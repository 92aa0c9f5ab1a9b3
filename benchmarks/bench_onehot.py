"""Speed and memory of the OneHot kernel against OpenVINO's CPU plugin and the memory bound.

Workload (docs/openvino-behaviour.md's reference point): 1M int64 indices, depth 256, f32 output (1 GiB).
Prints medians and the ratios ovonehot / OpenVINO and ovonehot / memory bound, plus the
peak memory of a fresh process running ovonehot alone against the output's size.

    python benchmarks/bench_onehot.py [--n 1000000] [--depth 256] [--repeat 5]

Not a test: timing depends on the machine; this prints figures for people to read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def make_model(path: Path, n: int, depth: int) -> Path:
    import openvino as ov
    import openvino.opset1 as ops

    p = ops.parameter([n], ov.Type.i64, name="indices")
    oh = ops.one_hot(p, np.int64(depth), np.float32(1), np.float32(0), axis=-1)
    xml = path / "onehot.xml"
    ov.save_model(ov.Model([oh], [p], "bench"), str(xml), compress_to_fp16=False)
    return xml


# The peak is read from VmHWM (this process's own high-water mark): ru_maxrss would carry
# the parent's peak over into the child.
_PEAK = """
import sys, numpy as np, ovonehot
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
m = ovonehot.load(sys.argv[1])
x = np.load(sys.argv[2])
base = hwm()
out = m.run({"indices": x})
print(base, hwm(), sum(v.nbytes for v in out.values()))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--depth", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    import openvino as ov

    import ovonehot

    rng = np.random.default_rng(0)
    indices = rng.integers(-8, args.depth + 8, size=args.n).astype(np.int64)
    with tempfile.TemporaryDirectory() as tmp:
        xml = make_model(Path(tmp), args.n, args.depth)
        model = ovonehot.load(xml)
        compiled = ov.Core().compile_model(
            str(xml), "CPU", {"INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "INFERENCE_PRECISION_HINT": "f32"}
        )
        request = compiled.create_infer_request()

        def ours() -> None:
            model.run({"indices": indices})

        def openvino_copy() -> None:  # a fresh array per call, like ours
            request.infer({0: indices})
            np.array(request.get_output_tensor(0).data, copy=True)

        def openvino_reuse() -> None:  # OpenVINO writing into its own reused buffer
            request.infer({0: indices})

        buffers = [np.empty((args.n, args.depth), dtype=np.float32)]

        def memory_bound() -> None:
            buffers[0].fill(0)

        ours()
        openvino_copy()  # warm-up
        t_ours = median_time(ours, args.repeat)
        t_ov_copy = median_time(openvino_copy, args.repeat)
        t_ov_reuse = median_time(openvino_reuse, args.repeat)
        t_bound = median_time(memory_bound, args.repeat)
        buffers.clear()  # free the 1 GiB before the peak-memory run

        np.save(Path(tmp) / "x.npy", indices)
        out = subprocess.run(
            [sys.executable, "-c", _PEAK, str(xml), str(Path(tmp) / "x.npy")],
            check=True, capture_output=True, text=True,
        ).stdout.split()
        base, peak, out_bytes = (int(v) for v in out)

    report = {
        "workload": f"{args.n} int64 indices, depth {args.depth}, f32 output",
        "median_s": {"ovonehot": t_ours, "openvino_cpu_copy": t_ov_copy,
                     "openvino_cpu_reuse": t_ov_reuse, "fill_existing_buffer": t_bound},
        "ratio_ovonehot_over_openvino_copy": t_ours / t_ov_copy,
        "ratio_ovonehot_over_openvino_reuse": t_ours / t_ov_reuse,
        "ratio_ovonehot_over_memory_bound": t_ours / t_bound,
        "peak_extra_bytes_over_output": (peak - base) - out_bytes,
        "peak_extra_ratio": (peak - base) / out_bytes,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
