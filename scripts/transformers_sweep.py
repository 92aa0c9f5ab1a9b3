"""Sweep tiny random-init transformers models through OpenVINO and ovonehot (issue 11).

For every architecture below: build the model from a tiny config written here (nothing is
downloaded; fixed seed), convert it with ``ov.convert_model(model, example_input=...)`` (eager
attention / eager experts, as docs/openvino-behaviour.md advises), save it as IR twice
(``ov.save_model`` f16-compressed, its default, and ``compress_to_fp16=False``), and for a few
also go through ONNX (``torch.onnx.export``, then ``ov.convert_model(model.onnx)``).  Each IR is

* loaded and run by ovonehot, compared with OpenVINO's CPU plugin compiled deterministically
  (one thread, f32 hint, accuracy mode: ``openvino_runtime.cpu_run``);
* validated (``ovonehot.check.validate``: the number of error findings must be 0);
* compared layer by layer with ``read_model`` (``scripts/compare_inference.py``).

Pass criterion per row: outputs within ``|a - b| <= ATOL + RTOL * |b|`` (NaN where OpenVINO
has NaN), 0 validate errors, 0 inference mismatches.

``--export`` writes the models listed in EXPORTED (f16 IR, small) with their inputs and
OpenVINO CPU outputs into ir/exports/transformers/ (the corpus tests/test_exports.py runs).

torch and transformers are needed by this script only, never by the tests or the runtime.

    python scripts/transformers_sweep.py [--only REGEX] [--export] [--keep DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "ir" / "exports"))

RTOL = 1e-5
ATOL = 1e-6  # f32 GEMMs/attention summed in another order than the CPU plugin's; stated in the table

# Small representative models committed to ir/exports/transformers/ by --export.
EXPORTED = ("tiny_qwen3", "tiny_gpt2", "tiny_bert", "tiny_t5")

SEQ = 7
VOCAB = 64


def _ids(batch: int = 2, seq: int = SEQ, vocab: int = VOCAB, seed: int = 11) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, vocab, size=(batch, seq), dtype=np.int64)


def _lm_inputs() -> dict[str, np.ndarray]:
    return {"input_ids": _ids(), "attention_mask": np.ones((2, SEQ), dtype=np.int64)}


def _seq2seq_inputs() -> dict[str, np.ndarray]:
    return {
        "input_ids": _ids(),
        "attention_mask": np.ones((2, SEQ), dtype=np.int64),
        "decoder_input_ids": _ids(seq=5, seed=12),
    }


COMMON = {
    "vocab_size": VOCAB,
    "hidden_size": 16,
    "intermediate_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    "use_cache": False,
}


@dataclass
class Arch:
    name: str
    model_class: str
    config_class: str
    config: dict[str, Any]
    inputs: Callable[[], dict[str, np.ndarray]] = _lm_inputs
    onnx: bool = False
    model_kwargs: dict[str, Any] = field(default_factory=dict)


def _moe(**kw: Any) -> dict[str, Any]:
    return {**COMMON, **kw}


ARCHS: list[Arch] = [
    Arch("tiny_llama", "LlamaForCausalLM", "LlamaConfig", {**COMMON, "head_dim": 4}, onnx=True),
    Arch(
        "tiny_mistral", "MistralForCausalLM", "MistralConfig", {**COMMON, "head_dim": 4, "sliding_window": 4}
    ),
    Arch(
        "tiny_mixtral",
        "MixtralForCausalLM",
        "MixtralConfig",
        _moe(head_dim=4, num_local_experts=4, num_experts_per_tok=2),
    ),
    Arch("tiny_qwen2", "Qwen2ForCausalLM", "Qwen2Config", dict(COMMON)),
    Arch(
        "tiny_qwen2_moe",
        "Qwen2MoeForCausalLM",
        "Qwen2MoeConfig",
        _moe(
            num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=16
        ),
    ),
    Arch("tiny_qwen3", "Qwen3ForCausalLM", "Qwen3Config", {**COMMON, "head_dim": 4}),
    Arch(
        "tiny_qwen3_moe",
        "Qwen3MoeForCausalLM",
        "Qwen3MoeConfig",
        _moe(head_dim=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
    ),
    Arch("tiny_olmoe", "OlmoeForCausalLM", "OlmoeConfig", _moe(num_experts=4, num_experts_per_tok=2)),
    Arch(
        "tiny_deepseek_v2",
        "DeepseekV2ForCausalLM",
        "DeepseekV2Config",
        _moe(
            n_routed_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=16,
            n_shared_experts=1,
            kv_lora_rank=8,
            q_lora_rank=8,
            qk_rope_head_dim=4,
            qk_nope_head_dim=4,
            v_head_dim=4,
            first_k_dense_replace=1,
            n_group=1,
            topk_group=1,
            num_key_value_heads=4,
        ),
    ),
    Arch(
        "tiny_deepseek_v3",
        "DeepseekV3ForCausalLM",
        "DeepseekV3Config",
        _moe(
            n_routed_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=16,
            n_shared_experts=1,
            kv_lora_rank=8,
            q_lora_rank=8,
            qk_rope_head_dim=4,
            qk_nope_head_dim=4,
            v_head_dim=4,
            first_k_dense_replace=1,
            n_group=1,
            topk_group=1,
            num_key_value_heads=4,
        ),
    ),
    Arch(
        "tiny_dbrx",
        "DbrxForCausalLM",
        "DbrxConfig",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "n_heads": 4,
            "n_layers": 2,
            "max_seq_len": 64,
            "use_cache": False,
            "attn_config": {"kv_n_heads": 2, "rope_theta": 10000.0, "clip_qkv": 8.0},
            "ffn_config": {"ffn_hidden_size": 16, "moe_num_experts": 4, "moe_top_k": 2},
        },
    ),
    Arch(
        "tiny_jamba",
        "JambaForCausalLM",
        "JambaConfig",
        _moe(
            num_experts=4,
            num_experts_per_tok=2,
            attn_layer_period=2,
            attn_layer_offset=1,
            expert_layer_period=2,
            expert_layer_offset=1,
            mamba_d_state=4,
            mamba_d_conv=4,
            mamba_expand=2,
            mamba_dt_rank=4,
            use_mamba_kernels=False,
        ),
    ),
    Arch(
        "tiny_gpt_oss",
        "GptOssForCausalLM",
        "GptOssConfig",
        _moe(
            head_dim=4,
            num_local_experts=4,
            num_experts_per_tok=2,
            sliding_window=4,
            layer_types=["sliding_attention", "full_attention"],
        ),
    ),
    Arch("tiny_granite", "GraniteForCausalLM", "GraniteConfig", dict(COMMON)),
    Arch(
        "tiny_granitemoe",
        "GraniteMoeForCausalLM",
        "GraniteMoeConfig",
        _moe(num_local_experts=4, num_experts_per_tok=2),
    ),
    Arch(
        "tiny_granitemoehybrid",
        "GraniteMoeHybridForCausalLM",
        "GraniteMoeHybridConfig",
        _moe(
            num_local_experts=4,
            num_experts_per_tok=2,
            layer_types=["mamba", "attention"],
            mamba_n_heads=4,
            mamba_d_head=8,
            mamba_d_state=4,
            mamba_n_groups=1,
            mamba_d_conv=4,
            shared_intermediate_size=16,
        ),
    ),
    Arch("tiny_phi3", "Phi3ForCausalLM", "Phi3Config", {**COMMON, "pad_token_id": 0}),
    Arch("tiny_gemma", "GemmaForCausalLM", "GemmaConfig", {**COMMON, "head_dim": 4}),
    Arch("tiny_gemma2", "Gemma2ForCausalLM", "Gemma2Config", {**COMMON, "head_dim": 4, "sliding_window": 4}),
    Arch(
        "tiny_gemma3", "Gemma3ForCausalLM", "Gemma3TextConfig", {**COMMON, "head_dim": 4, "sliding_window": 4}
    ),
    Arch(
        "tiny_phimoe", "PhimoeForCausalLM", "PhimoeConfig", _moe(num_local_experts=4, num_experts_per_tok=2)
    ),
    Arch(
        "tiny_gpt2",
        "GPT2LMHeadModel",
        "GPT2Config",
        {"vocab_size": VOCAB, "n_embd": 16, "n_layer": 2, "n_head": 4, "n_positions": 64, "use_cache": False},
        onnx=True,
    ),
    Arch("tiny_gpt_neox", "GPTNeoXForCausalLM", "GPTNeoXConfig", dict(COMMON)),
    Arch("tiny_bert", "BertForMaskedLM", "BertConfig", dict(COMMON), onnx=True),
    Arch("tiny_roberta", "RobertaForMaskedLM", "RobertaConfig", {**COMMON, "max_position_embeddings": 70}),
    Arch(
        "tiny_distilbert",
        "DistilBertForMaskedLM",
        "DistilBertConfig",
        {
            "vocab_size": VOCAB,
            "dim": 16,
            "hidden_dim": 32,
            "n_layers": 2,
            "n_heads": 4,
            "max_position_embeddings": 64,
        },
    ),
    Arch(
        "tiny_t5",
        "T5ForConditionalGeneration",
        "T5Config",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "d_kv": 4,
            "d_ff": 32,
            "num_layers": 2,
            "num_heads": 4,
            "use_cache": False,
            "decoder_start_token_id": 0,
        },
        _seq2seq_inputs,
        onnx=True,
    ),
    Arch(
        "tiny_longt5",
        "LongT5ForConditionalGeneration",
        "LongT5Config",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "d_kv": 4,
            "d_ff": 32,
            "num_layers": 2,
            "num_heads": 4,
            "use_cache": False,
            "encoder_attention_type": "transient-global",
            "local_radius": 2,
            "global_block_size": 2,
            "decoder_start_token_id": 0,
        },
        _seq2seq_inputs,
    ),
    Arch(
        "tiny_bart",
        "BartForConditionalGeneration",
        "BartConfig",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "encoder_layers": 2,
            "decoder_layers": 2,
            "encoder_attention_heads": 4,
            "decoder_attention_heads": 4,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
            "max_position_embeddings": 64,
            "use_cache": False,
        },
        _seq2seq_inputs,
    ),
    Arch(
        "tiny_nllb_moe",
        "NllbMoeForConditionalGeneration",
        "NllbMoeConfig",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "encoder_layers": 2,
            "decoder_layers": 2,
            "encoder_attention_heads": 4,
            "decoder_attention_heads": 4,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
            "max_position_embeddings": 64,
            "num_experts": 4,
            "expert_capacity": 8,
            "encoder_sparse_step": 1,
            "decoder_sparse_step": 1,
            "use_cache": False,
        },
        _seq2seq_inputs,
    ),
    Arch(
        "tiny_whisper",
        "WhisperForConditionalGeneration",
        "WhisperConfig",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "encoder_layers": 2,
            "decoder_layers": 2,
            "encoder_attention_heads": 4,
            "decoder_attention_heads": 4,
            "encoder_ffn_dim": 32,
            "decoder_ffn_dim": 32,
            "num_mel_bins": 8,
            "max_source_positions": 16,
            "max_target_positions": 32,
            "use_cache": False,
            "decoder_start_token_id": 1,
            "pad_token_id": 0,
            "bos_token_id": 1,
            "eos_token_id": 2,
        },
        lambda: {
            "input_features": np.random.default_rng(3).standard_normal((1, 8, 32)).astype(np.float32),
            "decoder_input_ids": _ids(batch=1, seq=5),
            # without a mask transformers looks for packed sequences with torch.diff (no OpenVINO rule)
            "decoder_attention_mask": np.ones((1, 5), dtype=np.int64),
        },
    ),
    Arch(
        "tiny_vit",
        "ViTForImageClassification",
        "ViTConfig",
        {
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "image_size": 16,
            "patch_size": 4,
            "num_labels": 5,
        },
        lambda: {"pixel_values": np.random.default_rng(4).standard_normal((2, 3, 16, 16)).astype(np.float32)},
        onnx=True,
    ),
    Arch(
        "tiny_clip",
        "CLIPModel",
        "CLIPConfig",
        {
            "text_config": {
                "vocab_size": VOCAB,
                "hidden_size": 16,
                "intermediate_size": 32,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "max_position_embeddings": 16,
            },
            "vision_config": {
                "hidden_size": 16,
                "intermediate_size": 32,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "image_size": 16,
                "patch_size": 4,
            },
            "projection_dim": 8,
        },
        lambda: {
            "input_ids": _ids(),
            "attention_mask": np.ones((2, SEQ), dtype=np.int64),
            "pixel_values": np.random.default_rng(4).standard_normal((2, 3, 16, 16)).astype(np.float32),
        },
    ),
    Arch(
        "tiny_wav2vec2",
        "Wav2Vec2ForCTC",
        "Wav2Vec2Config",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "conv_dim": (8, 8),
            "conv_stride": (5, 2),
            "conv_kernel": (10, 3),
            "num_feat_extract_layers": 2,
            "num_conv_pos_embeddings": 4,
            "num_conv_pos_embedding_groups": 2,
            "do_stable_layer_norm": False,
        },
        lambda: {"input_values": np.random.default_rng(5).standard_normal((1, 400)).astype(np.float32)},
    ),
    Arch(
        "tiny_xlnet",
        "XLNetLMHeadModel",
        "XLNetConfig",
        {
            "vocab_size": VOCAB,
            "d_model": 16,
            "n_layer": 2,
            "n_head": 4,
            "d_inner": 32,
            "use_mems_eval": False,
        },
        lambda: {"input_ids": _ids()},
    ),
    Arch(
        "tiny_mamba",
        "MambaForCausalLM",
        "MambaConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "state_size": 4,
            "num_hidden_layers": 2,
            "conv_kernel": 4,
            "expand": 2,
            "time_step_rank": 4,
            "use_cache": False,
            "use_mambapy": False,
        },
        lambda: {"input_ids": _ids()},
    ),
    Arch(
        "tiny_mamba2",
        "Mamba2ForCausalLM",
        "Mamba2Config",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "state_size": 4,
            "num_hidden_layers": 2,
            "conv_kernel": 4,
            "expand": 2,
            "num_heads": 4,
            "head_dim": 8,
            "n_groups": 1,
            "chunk_size": 4,
            "use_cache": False,
        },
        lambda: {"input_ids": _ids()},
    ),
    Arch(
        "tiny_falcon",
        "FalconForCausalLM",
        "FalconConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "use_cache": False,
        },
    ),
    Arch(
        "tiny_bloom",
        "BloomForCausalLM",
        "BloomConfig",
        {"vocab_size": VOCAB, "hidden_size": 16, "n_layer": 2, "n_head": 4, "use_cache": False},
    ),
    Arch(
        "tiny_opt",
        "OPTForCausalLM",
        "OPTConfig",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "ffn_dim": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "max_position_embeddings": 64,
            "word_embed_proj_dim": 16,
            "use_cache": False,
        },
    ),
    Arch("tiny_stablelm", "StableLmForCausalLM", "StableLmConfig", dict(COMMON)),
    Arch("tiny_starcoder2", "Starcoder2ForCausalLM", "Starcoder2Config", dict(COMMON)),
    Arch("tiny_olmo2", "Olmo2ForCausalLM", "Olmo2Config", dict(COMMON)),
    Arch("tiny_cohere", "CohereForCausalLM", "CohereConfig", dict(COMMON)),
    Arch(
        "tiny_deberta_v2",
        "DebertaV2ForMaskedLM",
        "DebertaV2Config",
        {
            "vocab_size": VOCAB,
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "max_position_embeddings": 64,
            "relative_attention": True,
            "position_buckets": 8,
            "pos_att_type": ["p2c", "c2p"],
        },
    ),
    Arch(
        "tiny_electra",
        "ElectraForMaskedLM",
        "ElectraConfig",
        {
            "vocab_size": VOCAB,
            "embedding_size": 16,
            "hidden_size": 16,
            "intermediate_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "max_position_embeddings": 64,
        },
    ),
    Arch(
        "tiny_swin",
        "SwinForImageClassification",
        "SwinConfig",
        {
            "image_size": 16,
            "patch_size": 2,
            "embed_dim": 8,
            "depths": [1, 1],
            "num_heads": [2, 2],
            "window_size": 2,
            "num_labels": 5,
        },
        lambda: {"pixel_values": np.random.default_rng(4).standard_normal((1, 3, 16, 16)).astype(np.float32)},
    ),
    Arch(
        "tiny_convnext",
        "ConvNextForImageClassification",
        "ConvNextConfig",
        {
            "num_channels": 3,
            "num_stages": 2,
            "hidden_sizes": [8, 16],
            "depths": [1, 1],
            "num_labels": 5,
            "image_size": 16,
        },
        lambda: {"pixel_values": np.random.default_rng(4).standard_normal((1, 3, 16, 16)).astype(np.float32)},
    ),
]


# -- building and converting -------------------------------------------------------------------


def build(arch: Arch) -> Any:
    import torch
    import transformers

    torch.manual_seed(0)
    config_cls = getattr(transformers, arch.config_class)
    model_cls = getattr(transformers, arch.model_class)
    config = config_cls(**arch.config)
    # transformers 5's default grouped experts call torch.histc, which OpenVINO cannot convert.
    for sub in (
        config,
        *(getattr(config, k) for k in ("text_config", "vision_config") if hasattr(config, k)),
    ):
        if hasattr(sub, "_experts_implementation"):
            sub._experts_implementation = "eager"
    try:
        model = model_cls._from_config(config, attn_implementation="eager")
    except TypeError:
        model = model_cls(config)
    model.eval()
    if arch.model_class == "CLIPModel":  # nested output objects the tracer cannot return: logits only
        return _ClipLogits(model)
    return model


def _ClipLogits(model: Any) -> Any:
    import torch

    class ClipLogits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, pixel_values: Any) -> Any:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, pixel_values=pixel_values)
            return out.logits_per_image, out.logits_per_text

    return ClipLogits().eval()


def _tuple_module(model: Any, names: list[str]) -> Any:
    import torch

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any) -> Any:
            out = self.model(**dict(zip(names, args, strict=True)))
            return out[0] if isinstance(out, tuple) else next(iter(out.values()))

    return Wrapped().eval()


def convert(arch: Arch, model: Any, inputs: dict[str, np.ndarray]) -> Any:
    import openvino as ov
    import torch

    example = {k: torch.from_numpy(v) for k, v in inputs.items()}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ov.convert_model(model, example_input=example)


def export_onnx(model: Any, inputs: dict[str, np.ndarray], path: Path) -> None:
    import torch

    names = list(inputs)
    wrapped = _tuple_module(model, names)
    args = tuple(torch.from_numpy(v) for v in inputs.values())
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # every input dim dynamic: OpenVINO's ONNX frontend then leaves the shape arithmetic in the graph
        dynamic = {n: {d: f"{n}_{d}" for d in range(v.ndim)} for n, v in inputs.items()}
        torch.onnx.export(
            wrapped,
            args,
            str(path),
            input_names=names,
            output_names=["out"],
            opset_version=17,
            dynamo=False,
            dynamic_axes=dynamic,
        )


# -- checking ----------------------------------------------------------------------------------


@dataclass
class Row:
    model: str
    variant: str
    layers: int = 0
    refused: str = ""
    max_abs: float = float("nan")
    max_rel: float = float("nan")
    validate_errors: int | str = "-"
    mismatches: int | str = "-"
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.refused and self.validate_errors == 0 and self.mismatches == 0 and not self.note


def _errors(stage: str, exc: BaseException) -> str:
    return f"{stage}: {type(exc).__name__}: {' '.join(str(exc).split())[:160]}"


def _validate_and_infer(row: Row, xml: Path) -> None:
    """``ovonehot validate``'s errors and inference's mismatches with OpenVINO's, noted in ``row``."""
    from compare_inference import compare

    from ovonehot.check.validate import validate

    try:
        report = validate(xml)
        errs = report.errors
        row.validate_errors = len(errs)
        if errs:
            row.note += (
                "validate: " + "; ".join(f"{p.code} {p.layer}: {p.message}"[:200] for p in errs[:3]) + " "
            )
    except Exception as exc:  # noqa: BLE001 - a crash is this row's finding
        row.validate_errors = "crash"
        row.note += _errors("validate", exc) + " "
    try:
        found = compare(xml) + compare(xml, dynamic=True)  # as saved, then every input dim dynamic
        real = [m for m in found if m.what != "unsupported"]
        row.mismatches = len(real)
        if real:
            row.note += "infer: " + "; ".join(str(m)[:200] for m in real[:3]) + " "
    except Exception as exc:  # noqa: BLE001 - a crash is this row's finding
        row.mismatches = "crash"
        row.note += _errors("compare_inference", exc) + " "


def check(name: str, variant: str, path: Path, inputs: dict[str, np.ndarray]) -> Row:
    """``path``: an IR .xml (or an .onnx, which ovonehot converts itself through OpenVINO)."""
    import ovonehot
    from ovonehot.ir.reader import read_ir
    from ovonehot.ops import unsupported_types
    from ovonehot.oracle import openvino_runtime

    row = Row(name, variant)
    xml = path
    if path.suffix == ".onnx":
        from ovonehot.oracle.onnx_frontend import convert_onnx

        try:
            text, weights = convert_onnx(path)
        except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
            row.note = _errors("onnx frontend", exc)
            return row
        xml = path.with_name(path.stem + ".fromonnx.xml")
        xml.write_bytes(text)
        xml.with_suffix(".bin").write_bytes(weights)
    try:
        graph = read_ir(xml)
    except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
        row.note = _errors("read", exc)
        return row
    row.layers = len(graph.nodes)
    row.refused = ", ".join(unsupported_types(graph))
    _validate_and_infer(row, xml)
    if row.refused:
        return row
    try:
        loaded = ovonehot.load(path if path.suffix == ".onnx" else xml)
    except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
        row.note += _errors("ovonehot load", exc) + " "
        return row
    worst_abs = worst_rel = 0.0
    for case, feed in (("typical", inputs), ("short", shorter(inputs)), ("padded", padded(inputs))):
        try:
            got = loaded.run(feed)
        except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
            row.note += _errors(f"ovonehot run ({case})", exc) + " "
            continue
        try:
            want = openvino_runtime.cpu_run(xml, feed)
        except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
            row.note += _errors(f"openvino cpu ({case})", exc) + " "
            continue
        if list(got) != list(want) and len(got) == len(want):
            got = dict(zip(want, got.values(), strict=True))
        a, r = _compare_outputs(row, case, got, want)
        worst_abs, worst_rel = max(worst_abs, a), max(worst_rel, r)
    row.max_abs, row.max_rel = worst_abs, worst_rel
    return row


def shorter(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Another shape through the same IR: batch 1, and 2-D integer inputs (ids, masks) 3 tokens shorter."""
    out = {}
    for name, value in inputs.items():
        value = value[:1]
        if value.dtype.kind in "iu" and value.ndim == 2:
            value = value[:, : max(1, value.shape[1] - 3)]
        out[name] = np.ascontiguousarray(value)
    return out


def padded(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The last row's attention masks end in 2 padding positions (masked keys: -inf/select paths)."""
    out = dict(inputs)
    for name, value in inputs.items():
        if "attention_mask" in name and value.ndim == 2 and value.shape[1] > 2:
            value = value.copy()
            value[-1, -2:] = 0
            out[name] = value
    return out


def _compare_outputs(
    row: Row, case: str, got: dict[str, np.ndarray], want: dict[str, np.ndarray]
) -> tuple[float, float]:
    worst_abs = worst_rel = 0.0
    for key, value in want.items():
        if key not in got:
            row.note += f"{case} output {key} missing "
            continue
        a, b = np.asarray(got[key]), np.asarray(value)
        if a.shape != b.shape:
            row.note += f"{case} output {key}: shape {a.shape} vs {b.shape} "
            continue
        if b.dtype.kind in "biu":
            if not np.array_equal(a, b):
                row.note += f"{case} output {key}: integers differ "
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if not np.array_equal(np.isnan(a64), np.isnan(b64)):
            row.note += f"{case} output {key}: NaN pattern differs "
        fin = ~np.isnan(b64) & ~np.isnan(a64)
        if fin.any():
            d = np.abs(a64[fin] - b64[fin])
            worst_abs = max(worst_abs, float(d.max()))
            worst_rel = max(worst_rel, float((d / np.maximum(np.abs(b64[fin]), 1e-30)).max()))
            bad = d > ATOL + RTOL * np.abs(b64[fin])
            if bad.any():
                row.note += f"{case} output {key}: {int(bad.sum())} beyond tolerance "
    return worst_abs, worst_rel


def sweep(arch: Arch, tmp: Path, do_onnx: bool, export: bool, all_onnx: bool = False) -> list[Row]:
    import openvino as ov
    import torch

    inputs = arch.inputs()
    try:
        model = build(arch)
    except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
        return [Row(arch.name, "-", note=_errors("build", exc))]
    try:
        converted = convert(arch, model, inputs)
    except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
        return [Row(arch.name, "-", note=_errors("ov.convert_model", exc))]
    # Inputs by the converted model's names (ov.convert_model keeps the forward() argument names).
    # Some lose the name (Jamba's attention_mask becomes "94"): then they are in example order.
    names = [p.get_any_name() for p in converted.inputs]
    fed = {n: inputs[n] for n in names if n in inputs}
    if len(fed) != len(names) and len(names) == len(inputs):
        fed = dict(zip(names, inputs.values(), strict=True))
    if len(fed) != len(names):
        return [Row(arch.name, "-", note=f"inputs {names} vs {sorted(inputs)}")]
    rows = []
    for variant, compress in (("f16", True), ("f32", False)):
        xml = tmp / f"{arch.name}.{variant}.xml"
        ov.save_model(converted, str(xml), compress_to_fp16=compress)
        rows.append(check(arch.name, variant, xml, fed))
    if export and arch.name in EXPORTED:
        from corpus_io import save_ir, write_case

        out = ROOT / "ir" / "exports" / "transformers" / f"{arch.name}.xml"
        save_ir(converted, out)
        write_case(out, "typical", fed)
        write_case(out, "short", shorter(fed))
    if do_onnx and (arch.onnx or all_onnx):
        onnx_path = tmp / f"{arch.name}.onnx"
        try:
            export_onnx(model, inputs, onnx_path)
        except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
            rows.append(Row(arch.name, "onnx", note=_errors("torch.onnx.export", exc)))
            return rows
        rows.append(check(arch.name, "onnx", onnx_path, inputs))
        try:
            via = ov.convert_model(str(onnx_path))
            xml = tmp / f"{arch.name}.onnx-ov.xml"
            ov.save_model(via, str(xml))
            rows.append(check(arch.name, "onnx->ir f16", xml, inputs))
        except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
            rows.append(Row(arch.name, "onnx->ir", note=_errors("ov.convert_model(onnx)", exc)))
    del torch
    return rows


def print_table(rows: list[Row]) -> None:
    print()
    print(
        f"tolerance: |ovonehot - OpenVINO CPU| <= {ATOL:g} + {RTOL:g} * |OpenVINO CPU| on every float output"
    )
    head = f"{'model':24} {'IR':12} {'layers':>6} {'max abs':>9} {'max rel':>9} {'val.err':>7} {'infer':>5}  refused / notes"
    print(head)
    print("-" * len(head))
    for r in rows:
        notes = "; ".join(x for x in (r.refused and f"refused: {r.refused}", r.note.strip()) if x)
        print(
            f"{r.model:24} {r.variant:12} {r.layers:6d} {r.max_abs:9.2g} {r.max_rel:9.2g} "
            f"{r.validate_errors!s:>7} {r.mismatches!s:>5}  {'OK' if r.ok else notes}"
        )
    bad = [r for r in rows if not r.ok]
    print(f"\n{len(rows) - len(bad)} of {len(rows)} rows pass")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", default="", help="regex on the model names")
    parser.add_argument("--no-onnx", action="store_true", help="skip the torch.onnx.export paths")
    parser.add_argument("--all-onnx", action="store_true", help="every model through ONNX too, not only some")
    parser.add_argument(
        "--export", action="store_true", help="write EXPORTED models to ir/exports/transformers/"
    )
    parser.add_argument("--keep", type=Path, help="keep the IRs in this directory")
    args = parser.parse_args(argv)
    rx = re.compile(args.only)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="hf-sweep-") as tmpdir:
        tmp = args.keep or Path(tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        for arch in ARCHS:
            if not rx.search(arch.name):
                continue
            try:
                got = sweep(arch, tmp, not args.no_onnx, args.export, args.all_onnx)
            except Exception as exc:  # noqa: BLE001 - the failure is noted in the row; the sweep goes on
                traceback.print_exc()
                got = [Row(arch.name, "-", note=_errors("sweep", exc))]
            for r in got:
                print(f"{r.model} {r.variant}: {'OK' if r.ok else (r.refused + ' ' + r.note)}", flush=True)
            rows.extend(got)
    print_table(rows)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
