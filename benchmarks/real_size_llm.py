"""A real-size LLM, int4-compressed by NNCF: generate it, then measure ovonehot against OpenVINO.

Two parts, run with different interpreters (the model is never committed):

* ``generate`` (the generator venv: torch, transformers, optimum-intel, NNCF): a random-init
  Qwen2 of Qwen2-0.5B's shapes (hidden 896, 24 layers, 14 heads, 2 KV heads, MLP 4864,
  vocabulary 151936, tied embeddings: 494M parameters), saved by ``save_pretrained``, exported
  by optimum-intel as a stateful IR (KV cache in ReadValue/Assign) and compressed by NNCF to
  int4 asymmetric, group size 128 (ratio 1.0; the tied embedding/LM head stays int8, NNCF's
  backup precision), into ``--out-dir`` (default /work/tmp/llm05b)::

      /work/gen/torch/bin/python benchmarks/real_size_llm.py generate [--out-dir DIR] [--layers 24]

* ``measure`` (ovonehot's venv; OpenVINO only as the peer): per runner, in a child process of
  its own, the load time (ovonehot.load / read_model + compile_model), the peak resident memory
  (VmHWM), the prefill time of a short prompt and the time per greedy decoded token with the
  KV cache (ovonehot's ``Model.create_request()``, OpenVINO's InferRequest); runners are
  ovonehot fast (``exact=False``) on one thread and on every core (``ovonehot-fast-all``, as the
  plugin's defaults), ovonehot exact (fewer tokens), the CPU plugin compiled
  deterministically (1 thread, f32, accuracy) and with its defaults; the runners are
  interleaved over ``--rounds`` rounds and the medians compared. The greedy tokens of ovonehot
  fast and the CPU plugin are compared (agreement, largest logit difference)::

      PYTHONPATH=src .venv/bin/python benchmarks/real_size_llm.py measure [--model DIR]
          [--tokens 16] [--exact-tokens 2] [--rounds 2] [--json-out report.json]

Not a test: timing depends on the machine; this prints figures for people to read.
Targets (issue 24 item 4): peak memory <= 1.5x OpenVINO's, time per token <= 2x in fast mode.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = Path("/work/tmp/llm05b")
PROMPT = [9707, 11, 1879, 374, 264, 1273, 315, 279]  # 8 token ids (any ids < vocab do)
CPU_DETERMINISTIC = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}


# ---------------------------------------------------------------------------------- generate


def _hide_torchvision() -> None:
    """transformers imports torchvision for image processors when it is installed; the
    generator venv's torchvision does not match its torch (``torchvision::nms does not
    exist``), and an LLM needs none of it: tell transformers it is absent."""
    import transformers.utils as tu
    import transformers.utils.import_utils as iu

    for module in (iu, tu):
        module.is_torchvision_available = lambda: False  # type: ignore[attr-defined]
        module.is_torchvision_v2_available = lambda: False  # type: ignore[attr-defined]


def generate(out_dir: Path, layers: int, seed: int) -> None:
    import torch

    _hide_torchvision()
    from optimum.intel import OVModelForCausalLM, OVWeightQuantizationConfig
    from transformers import Qwen2Config, Qwen2ForCausalLM

    hf_dir = out_dir / "hf"
    ir_dir = out_dir / "ir"
    config = Qwen2Config(
        vocab_size=151936,
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=layers,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        rope_theta=1000000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=True,
        torch_dtype="float32",
    )
    start = time.perf_counter()
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).eval()
    params = sum(p.numel() for p in model.parameters())
    print(f"random init: {params / 1e6:.1f}M parameters in {time.perf_counter() - start:.1f} s", flush=True)
    model.save_pretrained(hf_dir)
    del model
    print(f"saved {hf_dir} at {time.perf_counter() - start:.1f} s", flush=True)
    quantization = OVWeightQuantizationConfig(bits=4, sym=False, group_size=128, ratio=1.0)
    ov_model = OVModelForCausalLM.from_pretrained(
        hf_dir, export=True, stateful=True, compile=False, quantization_config=quantization
    )
    ov_model.save_pretrained(ir_dir)
    print(f"exported and compressed to {ir_dir} at {time.perf_counter() - start:.1f} s", flush=True)
    (out_dir / "generated.json").write_text(
        json.dumps(
            {"parameters": params, "layers": layers, "seed": seed, "seconds": time.perf_counter() - start}
        )
    )


# ----------------------------------------------------------------------------------- measure


def _feeds(ids: list[int], past: int) -> dict[str, Any]:
    """The inputs of one step of an optimum stateful export: the new token ids, the attention
    mask over past + new tokens, their positions, beam_idx (no beam search: zeros)."""
    import numpy as np

    n = len(ids)
    return {
        "input_ids": np.array([ids], np.int64),
        "attention_mask": np.ones((1, past + n), np.int64),
        "position_ids": np.arange(past, past + n, dtype=np.int64)[None],
        "beam_idx": np.zeros(1, np.int32),
    }


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class _Runner:
    """One side: load, then ``step(ids, past) -> last logits`` on a request with a KV cache."""

    def __init__(self, kind: str, xml: Path) -> None:
        self.kind = kind
        start = time.perf_counter()
        if kind.startswith("ovonehot"):
            import ovonehot

            self.model = ovonehot.load(xml)
            self.exact = kind == "ovonehot-exact"
            # ovonehot-fast-all: every core, as the plugin's defaults (same thread count)
            self.threads = (os.cpu_count() or 1) if kind == "ovonehot-fast-all" else 1
        else:
            import openvino as ov

            core = ov.Core()
            config = CPU_DETERMINISTIC if kind == "cpu-deterministic" else {}
            self.compiled = core.compile_model(core.read_model(str(xml)), "CPU", config)
        self.load_s = time.perf_counter() - start
        self.reset()

    def reset(self) -> None:
        if self.kind.startswith("ovonehot"):
            self.request: Any = self.model.create_request()
        else:
            self.request = self.compiled.create_infer_request()
            self.request.reset_state()

    def step(self, ids: list[int], past: int) -> Any:
        feeds = _feeds(ids, past)
        if self.kind.startswith("ovonehot"):
            logits = self.request.run(feeds, exact=self.exact, threads=self.threads)["logits"]
        else:
            self.request.infer(feeds)
            logits = self.request.get_tensor("logits").data
        return logits[0, -1].copy()


def _decode(runner: _Runner, tokens: int) -> dict[str, Any]:
    """Prefill PROMPT, then ``tokens`` greedy steps; the times and what was decoded."""
    import numpy as np

    runner.reset()
    start = time.perf_counter()
    logits = runner.step(PROMPT, 0)
    prefill_s = time.perf_counter() - start
    ids, step_times, rows = [int(np.argmax(logits))], [], [logits]
    for k in range(tokens):
        start = time.perf_counter()
        logits = runner.step([ids[-1]], len(PROMPT) + k)
        step_times.append(time.perf_counter() - start)
        ids.append(int(np.argmax(logits)))
        rows.append(logits)
    return {"prefill_s": prefill_s, "token_times_s": step_times, "ids": ids, "logits": rows}


def child(kind: str, xml: Path, tokens: int, rounds: int, logits_out: Path | None) -> None:
    """In a process of its own: load, decode ``rounds`` times, print one JSON line."""
    import numpy as np

    base = _peak_mb()
    runner = _Runner(kind, xml)
    after_load = _rss_mb()
    runs = [_decode(runner, tokens) for _ in range(rounds)]
    if logits_out is not None:
        np.save(logits_out, np.stack(runs[0]["logits"]))
    report = {
        "runner": kind,
        "load_s": runner.load_s,
        "rss_after_load_mb": after_load,
        "peak_mb": _peak_mb(),
        "peak_after_imports_mb": base,
        "prefill_s": statistics.median(r["prefill_s"] for r in runs),
        # the first decode step of a signature compiles ovonehot's plan: the median over steps
        "token_s": statistics.median(t for r in runs for t in r["token_times_s"]),
        "first_token_s": runs[0]["token_times_s"][0] if tokens else float("nan"),
        "ids": runs[0]["ids"],
    }
    print("RESULT " + json.dumps(report), flush=True)


def run_child(kind: str, xml: Path, tokens: int, rounds: int, logits_out: Path | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "child", kind, str(xml), str(tokens), str(rounds)]
    if logits_out is not None:
        cmd.append(str(logits_out))
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[len("RESULT ") :]))
    raise SystemExit(f"{kind} failed (status {proc.returncode}):\n{proc.stderr[-3000:]}")


def measure(model_dir: Path, tokens: int, exact_tokens: int, rounds: int, json_out: Path | None) -> None:
    import numpy as np

    xml = model_dir / "ir" / "openvino_model.xml"
    if not xml.is_file():
        xml = model_dir / "openvino_model.xml"
    plan = [
        ("ovonehot-fast", tokens),
        ("cpu-deterministic", tokens),
        ("ovonehot-exact", exact_tokens),
        ("cpu-defaults", tokens),
        ("ovonehot-fast-all", tokens),
    ]
    logits_dir = Path(model_dir) / "logits"
    logits_dir.mkdir(exist_ok=True)
    results: dict[str, list[dict[str, Any]]] = {kind: [] for kind, _ in plan}
    for r in range(rounds):  # interleaved: A B C D A B C D
        for kind, n in plan:
            out = logits_dir / f"{kind}.npy" if r == 0 else None
            row = run_child(kind, xml, n, 1, out)
            results[kind].append(row)
            print(
                f"round {r + 1} {kind:18s} load {row['load_s']:7.2f} s  peak {row['peak_mb']:8.0f} MB  "
                f"prefill {row['prefill_s']:7.3f} s  per token {row['token_s'] * 1000:8.1f} ms",
                flush=True,
            )
    summary = {
        kind: {
            key: statistics.median(row[key] for row in rows)
            for key in ("load_s", "peak_mb", "rss_after_load_mb", "prefill_s", "token_s")
        }
        for kind, rows in results.items()
    }
    ids = {kind: rows[0]["ids"] for kind, rows in results.items()}
    fast = np.load(logits_dir / "ovonehot-fast.npy")
    cpu = np.load(logits_dir / "cpu-deterministic.npy")
    exact = np.load(logits_dir / "ovonehot-exact.npy")
    agreement = {
        "fast_vs_cpu_tokens_equal": sum(
            a == b for a, b in zip(ids["ovonehot-fast"], ids["cpu-deterministic"], strict=True)
        ),
        "tokens": len(ids["ovonehot-fast"]),
        # the same token sequence is fed only while the ids agree: compare up to the first split
        "fast_vs_cpu_max_abs_logit_diff": _max_diff(
            fast, cpu, ids["ovonehot-fast"], ids["cpu-deterministic"]
        ),
        "exact_vs_cpu_max_abs_logit_diff": _max_diff(
            exact, cpu, ids["ovonehot-exact"], ids["cpu-deterministic"]
        ),
        "exact_vs_fast_max_abs_logit_diff": _max_diff(
            exact, fast, ids["ovonehot-exact"], ids["ovonehot-fast"]
        ),
        "logit_scale": float(np.abs(cpu).max()),
    }
    _print_summary(summary, agreement)
    if json_out is not None:
        json_out.write_text(
            json.dumps({"summary": summary, "agreement": agreement, "rounds": results}, indent=1)
        )


def _max_diff(a: Any, b: Any, ids_a: list[int], ids_b: list[int]) -> float:
    import numpy as np

    n = min(len(a), len(b))
    for k in range(min(len(ids_a), len(ids_b))):
        if ids_a[k] != ids_b[k]:
            n = min(n, k + 1)  # row k was computed from equal inputs; row k+1 is not
            break
    return float(np.abs(a[:n].astype(np.float64) - b[:n]).max())


def _print_summary(summary: dict[str, dict[str, float]], agreement: dict[str, Any]) -> None:
    print()
    print(f"{'runner':18s} {'load s':>8s} {'peak MB':>9s} {'prefill s':>10s} {'ms/token':>9s}")
    for kind, s in summary.items():
        print(
            f"{kind:18s} {s['load_s']:8.2f} {s['peak_mb']:9.0f} {s['prefill_s']:10.3f} {s['token_s'] * 1000:9.1f}"
        )
    for peer in ("cpu-deterministic", "cpu-defaults"):
        for ours in ("ovonehot-fast", "ovonehot-fast-all", "ovonehot-exact"):
            o, p = summary[ours], summary[peer]
            print(
                f"{ours} / {peer}: load {o['load_s'] / p['load_s']:.2f}x  "
                f"peak memory {o['peak_mb'] / p['peak_mb']:.2f}x  "
                f"prefill {o['prefill_s'] / p['prefill_s']:.2f}x  per token {o['token_s'] / p['token_s']:.2f}x"
            )
    print("agreement:", json.dumps(agreement))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        kind, xml, tokens, rounds = sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        child(kind, xml, tokens, rounds, Path(sys.argv[6]) if len(sys.argv) > 6 else None)
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write the int4 IR (torch/optimum/NNCF venv)")
    gen.add_argument("--out-dir", type=Path, default=DEFAULT_DIR)
    gen.add_argument("--layers", type=int, default=24)
    gen.add_argument("--seed", type=int, default=0)
    mea = sub.add_parser("measure", help="load time, peak memory, time per token against OpenVINO")
    mea.add_argument("--model", type=Path, default=DEFAULT_DIR)
    mea.add_argument("--tokens", type=int, default=16)
    mea.add_argument("--exact-tokens", type=int, default=2)
    mea.add_argument("--rounds", type=int, default=2)
    mea.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.out_dir, args.layers, args.seed)
    else:
        measure(args.model, args.tokens, args.exact_tokens, args.rounds, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
