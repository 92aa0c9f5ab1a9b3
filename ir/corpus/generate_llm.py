"""Generate ir/corpus/llm/: tiny LLMs exported by optimum-intel as stateful OpenVINO models.

Each model is built from a tiny config written here (random init, ``torch.manual_seed(0)``, nothing
downloaded), saved with ``save_pretrained`` to a temporary directory and exported by optimum-intel
(``optimum.exporters.openvino.main_export(..., task="text-generation-with-past")``): the KV cache lives
in ReadValue/Assign variables, ``beam_idx`` reorders it (Gather) before each step. The exporter's
``openvino_model.xml``/``.bin`` are kept as they are (f16-compressed weights) as model.xml/.bin.

One case, ``generate``, of three steps on one InferRequest (stored as ``generate.step<K>.*``):

1. prefill: batch 2 x 5 tokens, the second row left-padded by one token (attention_mask 0, position
   ids as transformers' generate makes them: cumsum(mask) - 1, 1 at padding), beam_idx [0, 1];
2. one decode token per row, beam_idx [0, 1];
3. one decode token per row, beam_idx [1, 0] (the beams swap their caches).

Expected outputs: the CPU plugin compiled deterministically (corpus_common.CPU_CONFIG), all three
steps on one request.

``llama_stateless``: the same llama exported with ``stateful=False`` (past_key_values.* inputs,
present.* outputs), the three steps as separate cases, each fed the CPU's present of the step before. ``generate_nncf.py`` reuses ``export`` and ``steps`` for weight-compressed models.

    /work/gen/torch/bin/python ir/corpus/generate_llm.py [--only REGEX]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_common import Folder, cpu_steps, hide_broken_torchvision, patch_transformers_tracing

hide_broken_torchvision()
patch_transformers_tracing()

GENERATOR = "ir/corpus/generate_llm.py"
VOCAB = 64

COMMON = {
    "vocab_size": VOCAB,
    "hidden_size": 16,
    "intermediate_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "pad_token_id": 0,
}


@dataclass(frozen=True)
class LLM:
    name: str
    model_class: str
    config_class: str
    config: dict[str, Any]
    what: str


LLMS = [
    LLM(
        "llama",
        "LlamaForCausalLM",
        "LlamaConfig",
        {**COMMON, "head_dim": 4},
        "LlamaForCausalLM (GQA 4/2 heads, RoPE, RMSNorm, SwiGLU)",
    ),
    LLM(
        "qwen3",
        "Qwen3ForCausalLM",
        "Qwen3Config",
        {**COMMON, "head_dim": 4},
        "Qwen3ForCausalLM (q/k RMSNorm, GQA, RoPE)",
    ),
    LLM(
        "gpt2",
        "GPT2LMHeadModel",
        "GPT2Config",
        {
            "vocab_size": VOCAB,
            "n_embd": 16,
            "n_layer": 2,
            "n_head": 4,
            "n_positions": 64,
            "bos_token_id": 1,
            "eos_token_id": 2,
        },
        "GPT2LMHeadModel (learned positions, LayerNorm, GELU, tied head)",
    ),
    LLM(
        "phi3",
        "Phi3ForCausalLM",
        "Phi3Config",
        dict(COMMON),
        "Phi3ForCausalLM (fused qkv and gate_up projections)",
    ),
    LLM(
        "mixtral",
        "MixtralForCausalLM",
        "MixtralConfig",
        {**COMMON, "head_dim": 4, "num_local_experts": 4, "num_experts_per_tok": 2},
        "MixtralForCausalLM (sparse MoE, 4 experts top-2)",
    ),
]

ATOL, RTOL = 1e-6, 1e-5
TOL_NOTE = (
    "f32 MatMuls, ScaledDotProductAttention over the cache, RMSNorm/LayerNorm: the CPU plugin's kernels sum "
    "in their own order, ovonehot in the reference's; measured |ovonehot - CPU| at commit time <= 1e-7 on "
    "logits of order 0.3 (ir/corpus/README.md); atol 1e-6 + rtol 1e-5 is about ten times that"
)


def build(llm: LLM) -> Any:
    import torch
    import transformers

    torch.manual_seed(0)
    config = getattr(transformers, llm.config_class)(**llm.config)
    if hasattr(config, "_experts_implementation"):
        config._experts_implementation = "eager"
    return getattr(transformers, llm.model_class)(config).eval()


def export(llm: LLM, tmp: Path, stateful: bool = True) -> Path:
    """save_pretrained + optimum-intel's main_export; returns the exported openvino_model.xml."""
    from optimum.exporters.openvino import main_export

    tag = "" if stateful else "-stateless"
    source, out = tmp / f"{llm.name}-hf", tmp / f"{llm.name}{tag}-ov"
    build(llm).save_pretrained(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main_export(
            str(source),
            output=str(out),
            task="text-generation-with-past",
            convert_tokenizer=False,
            stateful=stateful,
        )
    return out / "openvino_model.xml"


def steps() -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    mask = np.ones((2, 5), np.int64)
    mask[1, 0] = 0  # the second row is left-padded by one token
    result = []
    tokens = rng.integers(3, VOCAB, size=(2, 5), dtype=np.int64)
    tokens[1, 0] = 0
    for beams in ([0, 1], [0, 1], [1, 0]):
        position = np.cumsum(mask, axis=1) - 1
        position[mask == 0] = 1
        result.append(
            {
                "input_ids": tokens,
                "attention_mask": mask.copy(),
                "position_ids": position[:, -tokens.shape[1] :].copy(),
                "beam_idx": np.array(beams, np.int32),
            }
        )
        tokens = rng.integers(3, VOCAB, size=(2, 1), dtype=np.int64)
        mask = np.concatenate([mask, np.ones((2, 1), np.int64)], axis=1)
    return result


STEPS_NOTE = (
    "One case 'generate' of 3 steps on one request: prefill 2 x 5 tokens (row 2 left-padded by one), "
    "then one token per row twice, the last with beam_idx [1, 0] (the beams swap caches)."
)


def copy_ir(xml: Path, folder: Folder) -> None:
    shutil.copyfile(xml, folder.xml)
    shutil.copyfile(xml.with_suffix(".bin"), folder.xml.with_suffix(".bin"))


def generate(llm: LLM, tmp: Path) -> None:
    xml = export(llm, tmp)
    folder = Folder("llm", llm.name, GENERATOR)
    copy_ir(xml, folder)
    folder.cpu_steps("generate", steps())
    folder.meta(
        source=f"transformers {llm.model_class} (tiny random config, seed 0) exported by optimum-intel 2.2 "
        "main_export(task='text-generation-with-past'): stateful KV cache (ReadValue/Assign, beam_idx)",
        expected_from="cpu",
        atol=ATOL,
        rtol=RTOL,
        stateful=True,
        notes=f"{llm.what}. {STEPS_NOTE} Tolerance: {TOL_NOTE}.",
    )


def stateless_cases(xml: Path, model: Any = None) -> dict[str, dict[str, np.ndarray]]:
    """The generate steps for a stateless export (past_key_values.* inputs, present.* outputs): each
    step is a case of its own whose past is the CPU plugin's present of the step before (reordered
    by beam_idx, which a stateless export does not take), starting from an empty cache."""
    import openvino as ov

    ir = ov.Core().read_model(str(xml))
    pasts = [p for p in ir.inputs if p.get_any_name().startswith("past_key_values")]
    cases: dict[str, dict[str, np.ndarray]] = {}
    past: dict[str, np.ndarray] = {}
    for k, step in enumerate(steps(), start=1):
        inputs = {n: v for n, v in step.items() if n != "beam_idx"}
        for p in pasts:
            name = p.get_any_name()
            if not past:
                shape = [
                    2 if d.is_dynamic and i == 0 else (0 if d.is_dynamic else d.get_length())
                    for i, d in enumerate(p.get_partial_shape())
                ]
                inputs[name] = np.zeros(shape, np.float32)
            else:
                inputs[name] = past[name.replace("past_key_values", "present")][step["beam_idx"]]
        cases[f"step{k}"] = inputs
        out = cpu_steps(xml if model is None else model, [inputs])[0]
        past = {n: v for n, v in out.items() if n.startswith("present")}
    return cases


def generate_stateless(llm: LLM, tmp: Path) -> None:
    xml = export(llm, tmp, stateful=False)
    folder = Folder("llm", f"{llm.name}_stateless", GENERATOR)
    copy_ir(xml, folder)
    for case, inputs in stateless_cases(folder.xml).items():
        folder.cpu_case(case, inputs)
    folder.meta(
        source=f"transformers {llm.model_class} (tiny random config, seed 0) exported by optimum-intel 2.2 "
        "main_export(task='text-generation-with-past', stateful=False): the KV cache as past_key_values.* "
        "inputs and present.* outputs",
        expected_from="cpu",
        atol=ATOL,
        rtol=RTOL,
        notes=(
            f"{llm.what}. Cases step1..step3 are the 'generate' steps of the stateful exports run as separate "
            "requests: step1 with an empty cache ([2,2,0,4]), each later step fed the CPU plugin's present.* "
            f"of the step before (rows reordered by the beam indices). Tolerance: {TOL_NOTE}."
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for llm in LLMS:
            if re.search(args.only, llm.name):
                try:
                    generate(llm, Path(tmp))
                    if llm.name == "llama":
                        generate_stateless(llm, Path(tmp))
                except Exception as exc:  # noqa: BLE001  # one model failing must not stop the others
                    print(f"{llm.name}: FAILED {type(exc).__name__}: {str(exc)[:300]}", flush=True)


if __name__ == "__main__":
    main()
