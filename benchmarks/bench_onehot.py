"""Speed and memory of the OneHot kernel against OpenVINO's CPU plugin and the memory bound.

Workload (docs/openvino-behaviour.md's reference point): 1M int64 indices, depth 256, f32 output (1 GiB).
Prints medians and the ratios ovonehot / OpenVINO and ovonehot / memory bound, all measured
in the same run, interleaved (A B A B ...) so a loaded machine slows both sides alike:

* fresh: ``Model.run`` returning a new output array, against its bound, ``np.full`` of a
  fresh array (new memory's page faults included), and OpenVINO's infer plus a copy of its
  output;
* shared: ``Model.run(..., share_outputs=True)`` writing into its reused output, against its
  bound, filling an existing buffer (the memory-write bound), and OpenVINO's infer into its
  own reused buffer;
* tiny: an 8-index, depth-4 OneHot per call, against OpenVINO's Python ``infer``;

plus the peak memory of a fresh process running ovonehot alone against the output's size.

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
from collections.abc import Callable
from pathlib import Path

import numpy as np


def interleaved(fns: dict[str, Callable[[], object]], repeat: int, number: int = 1) -> dict[str, float]:
    """Median seconds per call of each function, the functions run in turn ``repeat`` times."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - start) / number)
    return {k: statistics.median(v) for k, v in times.items()}


def make_model(path: Path, n: int, depth: int, name: str = "onehot") -> Path:
    import openvino as ov
    import openvino.opset1 as ops

    p = ops.parameter([n], ov.Type.i64, name="indices")
    oh = ops.one_hot(p, np.int64(depth), np.float32(1), np.float32(0), axis=-1)
    xml = path / f"{name}.xml"
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

        n_out = args.n * args.depth

        def fresh() -> None:
            model.run({"indices": indices})

        def shared() -> None:
            model.run({"indices": indices}, share_outputs=True)

        def openvino_copy() -> None:  # a fresh array per call, like ours
            request.infer({0: indices})
            np.array(request.get_output_tensor(0).data, copy=True)

        def openvino_reuse() -> None:  # OpenVINO writing into its own reused buffer
            request.infer({0: indices})

        buffers = [np.empty((args.n, args.depth), dtype=np.float32)]

        def fill_existing() -> None:  # the memory-write bound
            buffers[0].fill(0)

        def full_fresh() -> None:
            np.full(n_out, 0, dtype=np.float32)

        big = {
            "ovonehot_fresh": fresh,
            "ovonehot_shared": shared,
            "openvino_cpu_copy": openvino_copy,
            "openvino_cpu_reuse": openvino_reuse,
            "fill_existing_buffer": fill_existing,
            "np_full_fresh": full_fresh,
        }
        for fn in big.values():
            fn()  # warm-up
        t = interleaved(big, args.repeat)
        buffers.clear()  # free the 1 GiB before the peak-memory run

        tiny_xml = make_model(Path(tmp), 8, 4, "tiny")
        tiny = ovonehot.load(tiny_xml)
        tiny_request = (
            ov.Core().compile_model(str(tiny_xml), "CPU", {"INFERENCE_NUM_THREADS": 1}).create_infer_request()
        )
        tiny_x = np.arange(8, dtype=np.int64) % 5
        tiny_fns = {
            "ovonehot": lambda: tiny.run({"indices": tiny_x}),
            "ovonehot_shared": lambda: tiny.run({"indices": tiny_x}, share_outputs=True),
            "openvino_infer": lambda: tiny_request.infer({0: tiny_x}),
        }
        for fn in tiny_fns.values():
            fn()
        t_tiny = interleaved(tiny_fns, max(args.repeat, 7), number=2000)

        np.save(Path(tmp) / "x.npy", indices)
        out = subprocess.run(
            [sys.executable, "-c", _PEAK, str(xml), str(Path(tmp) / "x.npy")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        base, peak, out_bytes = (int(v) for v in out)

    report = {
        "workload": f"{args.n} int64 indices, depth {args.depth}, f32 output",
        "median_s": t,
        # Each mode against its bound as issue 13 defines it (a fresh output cannot beat the
        # page faults of new memory, which np.full of a fresh array pays too; a reused one is
        # bound by filling an existing buffer) and its target: <= 1.1x the bound, <= 0.9x OpenVINO.
        "fresh": {
            "bound": "np.full of a fresh array",
            "ratio_over_bound": t["ovonehot_fresh"] / t["np_full_fresh"],
            "ratio_over_openvino_copy": t["ovonehot_fresh"] / t["openvino_cpu_copy"],
            "ratio_over_filling_an_existing_buffer": t["ovonehot_fresh"] / t["fill_existing_buffer"],
        },
        "shared": {
            "bound": "filling an existing buffer",
            "ratio_over_bound": t["ovonehot_shared"] / t["fill_existing_buffer"],
            "ratio_over_openvino_reuse": t["ovonehot_shared"] / t["openvino_cpu_reuse"],
        },
        "tiny_median_s": t_tiny,
        "tiny_ratio_over_openvino": t_tiny["ovonehot"] / t_tiny["openvino_infer"],
        "tiny_shared_ratio_over_openvino": t_tiny["ovonehot_shared"] / t_tiny["openvino_infer"],
        "peak_extra_bytes_over_output": (peak - base) - out_bytes,
        "peak_extra_ratio": (peak - base) / out_bytes,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
