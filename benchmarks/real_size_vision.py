"""Real-size vision models (224 x 224): generate them, then measure ovonehot against OpenVINO.

Two parts, run with different interpreters (the models are never committed):

* ``generate`` (the generator venv: torch, torchvision, timm, openvino): random-init models at
  their published widths (torchvision ResNet-18, MobileNetV2, EfficientNet-B0, ConvNeXt-Tiny,
  DeepLabV3-MobileNetV3 segmentation; timm DeiT-Tiny and PoolFormer-S12), converted by
  ``openvino.convert_model`` for a static 1x3x224x224 input and saved with the default f16
  weight compression (what ``ovc`` writes), into ``--out-dir`` (default /work/tmp/vision224)::

      /work/gen/torch/bin/python benchmarks/real_size_vision.py generate [--out-dir DIR] [--models NAME ...]

* ``measure`` (ovonehot's venv; OpenVINO only as the peer): per model, ovonehot fast
  (``exact=False``, one thread), optionally ovonehot exact, and the CPU plugin compiled
  deterministically (1 thread, f32, accuracy), interleaved call by call over ``--rounds``
  rounds after warm-up; the medians, the ratios ovonehot / plugin and their geomean. With
  ``--by-op``, where the time goes: ovonehot's per-node times (an observer) and the plugin's
  ``PERF_COUNT`` times, summed per op type (a run with an observer sees every output, so there
  MaxPool-8 computes the indices a plain run skips)::

      PYTHONPATH=src .venv/bin/python benchmarks/real_size_vision.py measure [--model-dir DIR]
          [--models NAME ...] [--rounds 5] [--exact] [--by-op] [--compare PACKAGE] [--json-out report.json]

  ``--compare ovonehot_before`` also times another copy of the package (an older commit's
  ``src/ovonehot`` copied under that name onto PYTHONPATH) in the same rounds: now / before.

Not a test: timing depends on the machine; this prints figures for people to read.
Target (issue 24 item 2): fast mode at the CPU plugin's pace, no model above 2x.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = Path("/work/tmp/vision224")
SHAPE = (1, 3, 224, 224)
CPU_DETERMINISTIC = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}
# name -> (library, constructor name, keyword arguments)
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "resnet18": ("torchvision", "resnet18", {}),
    "mobilenet_v2": ("torchvision", "mobilenet_v2", {}),
    "efficientnet_b0": ("torchvision", "efficientnet_b0", {}),
    "convnext_tiny": ("torchvision", "convnext_tiny", {}),
    "deeplabv3_mobilenet_v3": ("segmentation", "deeplabv3_mobilenet_v3_large", {"weights_backbone": None}),
    "deit_tiny": ("timm", "deit_tiny_patch16_224", {}),
    "poolformer_s12": ("timm", "poolformer_s12", {}),
}


# ---------------------------------------------------------------------------------- generate


def generate(out_dir: Path, names: list[str], seed: int) -> None:
    import numpy as np
    import openvino as ov
    import torch

    sys.path.insert(0, str(ROOT / "ir" / "corpus"))
    import generate_vision  # (the corpus generator's stand-ins for torchvision's C++ ops)

    generate_vision.register_torchvision_ops()
    for name in names:
        folder = out_dir / name
        if (folder / "model.xml").exists():
            print(f"{name}: already in {folder}", flush=True)
            continue
        torch.manual_seed(seed)
        library, constructor, kwargs = MODELS[name]
        if library == "timm":
            import timm

            model = timm.create_model(constructor, pretrained=False, **kwargs)
        else:
            import torchvision.models as tvm

            source = tvm.segmentation if library == "segmentation" else tvm
            model = getattr(source, constructor)(weights=None, **kwargs)
        model.eval()
        x = torch.randn(*SHAPE)
        with torch.no_grad():
            converted = ov.convert_model(model, example_input=x, input=[SHAPE])
        folder.mkdir(parents=True, exist_ok=True)
        ov.save_model(converted, folder / "model.xml")  # (f16 weights, as ovc writes them)
        np.save(folder / "input.npy", x.numpy())
        print(
            f"{name}: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters -> {folder}",
            flush=True,
        )


# ----------------------------------------------------------------------------------- measure


def _interleaved(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds per call of each runner, one call of each per round (after two warm-ups)."""
    for call in calls.values():
        call()
        call()
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(rounds):
        for k, call in calls.items():
            start = time.perf_counter()
            call()
            times[k].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def _calls(model: Any, request: Any, x: Any, exact: bool, before: Any) -> dict[str, Callable[[], object]]:
    calls: dict[str, Callable[[], object]] = {
        "fast": lambda: model.run([x], exact=False, threads=1),
        "cpu": lambda: request.infer({0: x}),
    }
    if exact:
        calls["exact"] = lambda: model.run([x], exact=True, threads=1)
    if before is not None:
        calls["before"] = lambda: before.run([x], exact=False, threads=1)
    return calls


def _by_op(model: Any, xml: Path, x: Any) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds per op type: ovonehot fast's nodes (an observer), the plugin's PERF_COUNT layers."""
    import openvino as ov

    ours: dict[str, float] = defaultdict(float)

    def observe(key: object, plan: Any, outs: object, seconds: float) -> None:
        ours[plan.node.type] += seconds

    model.run([x], exact=False, threads=1, observer=observe)
    ours.clear()
    model.run([x], exact=False, threads=1, observer=observe)
    profiled = ov.Core().compile_model(str(xml), "CPU", {**CPU_DETERMINISTIC, "PERF_COUNT": True})
    request = profiled.create_infer_request()
    request.infer({0: x})
    request.infer({0: x})
    plugin: dict[str, float] = defaultdict(float)
    for info in request.profiling_info:
        plugin[info.node_type] += info.real_time.total_seconds()
    return dict(ours), dict(plugin)


def measure(
    model_dir: Path,
    names: list[str],
    rounds: int,
    exact: bool,
    by_op: bool,
    compare: str | None,
    json_out: Path | None,
) -> int:
    import importlib

    import numpy as np
    import openvino as ov

    import ovonehot

    older = importlib.import_module(compare) if compare else None

    rows = []
    for name in names:
        xml = model_dir / name / "model.xml"
        if not xml.exists():
            print(f"{name}: no {xml} (run generate first)", file=sys.stderr)
            continue
        x = np.load(model_dir / name / "input.npy")
        model = ovonehot.load(xml)
        compiled = ov.Core().compile_model(str(xml), "CPU", CPU_DETERMINISTIC)
        request = compiled.create_infer_request()
        calls = _calls(model, request, x, exact, None if older is None else older.load(xml))
        medians = _interleaved(calls, rounds)
        fast_out = model.run([x], exact=False, threads=1)
        cpu_out = request.infer({0: x})
        diff = max(
            float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
            for a, b in zip(fast_out.values(), cpu_out.values(), strict=True)
        )
        row: dict[str, Any] = {"model": name, **{f"{k}_ms": v * 1e3 for k, v in medians.items()}}
        row["fast/cpu"] = medians["fast"] / medians["cpu"]
        if exact:
            row["exact/cpu"] = medians["exact"] / medians["cpu"]
        row["max |fast - cpu|"] = diff
        if older is not None:
            row["now/before"] = medians["fast"] / medians["before"]
        if by_op:
            ours, plugin = _by_op(model, xml, x)
            row["by_op"] = {
                "ovonehot_fast_ms": {k: v * 1e3 for k, v in ours.items()},
                "cpu_ms": {k: v * 1e3 for k, v in plugin.items()},
            }
        rows.append(row)
        print(
            f"{name}: fast {row['fast_ms']:.1f} ms, CPU {row['cpu_ms']:.1f} ms, fast/CPU {row['fast/cpu']:.2f}"
            + (f", exact {row['exact_ms']:.1f} ms ({row['exact/cpu']:.1f}x)" if exact else "")
            + (f", fast now / before {row['now/before']:.2f}" if older is not None else "")
            + f", max |fast - CPU| {diff:.2g}",
            flush=True,
        )
        if by_op:
            top = sorted(row["by_op"]["ovonehot_fast_ms"].items(), key=lambda kv: -kv[1])[:6]
            print("   ovonehot fast: " + ", ".join(f"{k} {v:.1f}" for k, v in top))
            top = sorted(row["by_op"]["cpu_ms"].items(), key=lambda kv: -kv[1])[:6]
            print("   CPU plugin:    " + ", ".join(f"{k} {v:.1f}" for k, v in top))
    if not rows:
        return 1
    print()
    print(f"median ms per call, {rounds} interleaved rounds, one thread each")
    print()
    head = "| model | fast ms | CPU ms | fast / CPU |" + (" exact ms | exact / CPU |" if exact else "")
    head += " fast before ms | fast now / before |" if older is not None else ""
    print(head)
    print("|---" * head.count(" |") + "|")
    for r in rows:
        line = f"| {r['model']} | {r['fast_ms']:.1f} | {r['cpu_ms']:.1f} | {r['fast/cpu']:.2f} |"
        if exact:
            line += f" {r['exact_ms']:.1f} | {r['exact/cpu']:.1f} |"
        if older is not None:
            line += f" {r['before_ms']:.1f} | {r['now/before']:.2f} |"
        print(line)
    geo = math.exp(statistics.fmean(math.log(r["fast/cpu"]) for r in rows))
    print(
        f"\ngeomean fast / CPU: {geo:.2f} ({len(rows)} models); above 2x: "
        + (", ".join(r["model"] for r in rows if r["fast/cpu"] > 2) or "none")
    )
    if json_out is not None:
        json_out.write_text(json.dumps({"rounds": rounds, "rows": rows, "geomean_fast_cpu": geo}, indent=1))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write the models' IRs (generator venv)")
    gen.add_argument("--out-dir", type=Path, default=DEFAULT_DIR)
    gen.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    gen.add_argument("--seed", type=int, default=0)
    mea = sub.add_parser("measure", help="time ovonehot against the CPU plugin")
    mea.add_argument("--model-dir", type=Path, default=DEFAULT_DIR)
    mea.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    mea.add_argument("--rounds", type=int, default=5)
    mea.add_argument("--exact", action="store_true", help="also time exact mode (slow)")
    mea.add_argument(
        "--by-op", action="store_true", help="per op type: ovonehot's nodes, the plugin's layers"
    )
    mea.add_argument("--compare", metavar="PACKAGE", help="also time this copy of ovonehot (now / before)")
    mea.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.out_dir, args.models, args.seed)
        return 0
    return measure(
        args.model_dir, args.models, args.rounds, args.exact, args.by_op, args.compare, args.json_out
    )


if __name__ == "__main__":
    sys.exit(main())
