"""Generate ir/exports/transformers/: a tiny random-init transformers MoE LLM converted by OpenVINO.

``tiny_mixtral``: ``MixtralForCausalLM`` with every size tiny (vocab 64, hidden 16, 2 layers,
4 heads of 4, 2 KV heads, 4 experts, top-2), initialised from a fixed seed (nothing is
downloaded), ``use_cache=False``, converted with ``ov.convert_model(model, example_input=...)``
as users convert transformers models, and saved with ``ov.save_model`` (f32 weights compressed
to f16, the default).  What it exercises: ScaledDotProductAttention-13 with a boolean mask and a
scale input (the fused attention of every transformers export), GQA through Broadcast/Reshape,
RoPE (Sin/Cos), RMSNorm, the MoE router (Softmax, TopK, OneHot-1 from the eager experts loop,
NonZero, ScatterElementsUpdate) and SwiGLU experts.

``experts_implementation="eager"``: transformers 5's default grouped experts call
``torch.histc``, which OpenVINO's PyTorch frontend cannot convert.

Cases (inputs ``input_ids``, ``attention_mask``; output ``logits``):

* ``typical``: batch 2 of 7 tokens, no padding;
* ``right_padded``: the second row ends with 3 padding tokens;
* ``left_padded``: the second row starts with 2 padding tokens.  A padded query row has every
  key masked, so its attention is NaN (ScaledDotProductAttention's -inf mask, as the spec
  says and the CPU plugin does), and the NaN spreads over the whole row's logits in the next
  layer: OpenVINO returns NaN logits for that sequence where PyTorch stays finite.

torch and transformers are needed by this script only, never by the tests or the runtime.

    python ir/exports/generate_transformers.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from transformers import MixtralConfig, MixtralForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_io import HERE, describe, input_names, save_ir, write_case

OUT = HERE / "transformers"


def tiny_mixtral() -> MixtralForCausalLM:
    torch.manual_seed(0)
    config = MixtralConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=4,
        num_local_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=64,
        use_cache=False,
        experts_implementation="eager",
    )
    return MixtralForCausalLM(config).eval()


def cases() -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(11)
    ids = rng.integers(0, 64, size=(2, 7), dtype=np.int64)
    typical = {"input_ids": ids, "attention_mask": np.ones((2, 7), dtype=np.int64)}
    mask = np.ones((2, 7), dtype=np.int64)
    mask[1, 4:] = 0
    right_padded = {"input_ids": ids, "attention_mask": mask}
    left = np.ones((2, 7), dtype=np.int64)
    left[1, :2] = 0
    left_padded = {"input_ids": ids, "attention_mask": left}
    return {"typical": typical, "right_padded": right_padded, "left_padded": left_padded}


def main() -> None:
    import openvino as ov

    OUT.mkdir(parents=True, exist_ok=True)
    model = tiny_mixtral()
    all_cases = cases()
    example = {k: torch.from_numpy(v) for k, v in all_cases["typical"].items()}
    with torch.no_grad():
        converted = ov.convert_model(model, example_input=example)
    xml = OUT / "tiny_mixtral.xml"
    save_ir(converted, xml)
    print(f"{xml.relative_to(HERE)}: {describe(xml)}")
    names = input_names(xml)
    for name, inputs in all_cases.items():
        assert sorted(names) == sorted(inputs), names
        (logits,) = write_case(xml, name, inputs).values()
        with torch.no_grad():
            expected = model(**{k: torch.from_numpy(v) for k, v in inputs.items()}).logits.numpy()
        # Weights were compressed to f16 in the IR: torch runs the f32 originals.
        nan_rows = np.isnan(logits).any(axis=(1, 2)).nonzero()[0].tolist()
        diff = np.nanmax(np.abs(logits - expected))
        print(
            f"  case {name}: max |openvino - torch (f32 weights)| = {diff:.3g}; NaN in sequences {nan_rows}"
        )


if __name__ == "__main__":
    main()
