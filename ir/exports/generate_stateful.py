"""Generate ir/exports/stateful/tiny_llama/: a random-init 2-layer Llama with a KV cache in state.

What an LLM export with a KV cache looks like, made small: ``transformers``' LlamaForCausalLM
(vocab 64, hidden 16, 2 layers, 2 query heads sharing 1 key/value head, eager attention,
seed 0) wrapped to take the past keys/values as inputs and give the present ones as outputs,
converted by OpenVINO's bare PyTorch frontend (``ov.convert_model`` would fuse the attention
into ScaledDotProductAttention-13), batch fixed to 1, and made stateful by OpenVINO's own
``apply_make_stateful_transformation`` (past.i.key -> present.i.key become a variable each:
ReadValue-6 without init + Assign-6, variable_id ``past.0.keypresent.0.key``), then saved with
``ov.save_model`` (f32 weights compressed to f16, as users get it).

Three decode steps (a 3-token prefill, then one token twice) run on one CPU InferRequest
(``corpus_io.CPU_CONFIG``); each step's inputs and OpenVINO's outputs are stored as
``tiny_llama.step<k>.inputs.npz`` / ``tiny_llama.step<k>.openvino.npz``, and the state after
the last step as ``tiny_llama.state.openvino.npz``.  PyTorch runs the same steps, as a check
of the export.  The model sits one folder deeper than the other exports so that
``tests/test_exports.py`` (which runs each case alone, without state) does not pick it up;
``tests/test_state.py`` runs it step by step.

torch and transformers are needed by this script only, never by the tests or the runtime.

    python ir/exports/generate_stateful.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import openvino as ov
import torch
from openvino._offline_transformations import apply_make_stateful_transformation
from openvino.frontend import FrontEndManager
from openvino.frontend.pytorch.ts_decoder import TorchScriptPythonDecoder
from torch import nn
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_io import CPU_CONFIG, HERE, describe, write_npz

OUT = HERE / "stateful" / "tiny_llama"
LAYERS = 2
HEAD_DIM = 8
STEPS = ([5, 17, 42], [7], [60])  # token ids fed at each step


def tiny_llama() -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=LAYERS,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=HEAD_DIM,
        max_position_embeddings=64,
        tie_word_embeddings=False,
    )
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    return LlamaForCausalLM(config).eval()


class WithExplicitCache(nn.Module):
    """forward(input_ids, attention_mask, position_ids, past.0.key, past.0.value, ...) ->
    (logits, present.0.key, present.0.value, ...), the layout optimum exports."""

    def __init__(self, lm: LlamaForCausalLM) -> None:
        super().__init__()
        self.lm = lm

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor,
        *past: torch.Tensor,
    ) -> tuple[torch.Tensor, ...]:
        cache = DynamicCache(config=self.lm.config)
        for i in range(LAYERS):  # filled directly: DynamicCache.update would trace a rank-1 empty concat
            layer = cache.layers[i]
            layer.dtype, layer.device = past[2 * i].dtype, past[2 * i].device
            layer.keys, layer.values, layer.is_initialized = past[2 * i], past[2 * i + 1], True
        # A 4-D additive mask built from the inputs (transformers' own mask code reads the cache
        # length as a Python int, which tracing would freeze): query t sees key s <= its position.
        keys = torch.arange(attention_mask.shape[1]).view(1, 1, 1, -1)
        allowed = (keys <= position_ids.view(1, 1, -1, 1)) & attention_mask.view(1, 1, 1, -1).bool()
        mask = torch.where(allowed, torch.zeros(()), torch.full((), torch.finfo(torch.float32).min))
        out = self.lm(
            input_ids=input_ids,
            attention_mask=mask,
            position_ids=position_ids,
            cache_position=position_ids[0],
            past_key_values=cache,
            use_cache=True,
        )
        present = out.past_key_values
        result = [out.logits]
        for i in range(LAYERS):
            result += [present.layers[i].keys, present.layers[i].values]
        return tuple(result)


def step_inputs() -> list[dict[str, np.ndarray]]:
    steps, position = [], 0
    for ids in STEPS:
        n = len(ids)
        steps.append(
            {
                "input_ids": np.array([ids], np.int64),
                "attention_mask": np.ones((1, position + n), np.int64),
                "position_ids": np.arange(position, position + n, dtype=np.int64)[None],
            }
        )
        position += n
    return steps


def convert(module: nn.Module) -> ov.Model:
    example = (
        torch.tensor([[1, 2, 3]]),
        torch.ones(1, 5, dtype=torch.int64),
        torch.tensor([[2, 3, 4]]),
        *[torch.zeros(1, 1, 2, HEAD_DIM) for _ in range(2 * LAYERS)],
    )
    frontend = FrontEndManager().load_by_framework("pytorch")
    decoder = TorchScriptPythonDecoder(module, example_input=example)  # kept alive while converting
    model = frontend.convert(frontend.load(decoder))
    kv = [f"{i}.{part}" for i in range(LAYERS) for part in ("key", "value")]
    for port, name in zip(
        model.inputs, ["input_ids", "attention_mask", "position_ids"] + [f"past.{n}" for n in kv], strict=True
    ):
        port.get_tensor().set_names({name})
    for port, name in zip(model.outputs, ["logits"] + [f"present.{n}" for n in kv], strict=True):
        port.get_tensor().set_names({name})
    shapes = {"input_ids": [1, -1], "attention_mask": [1, -1], "position_ids": [1, -1]}
    shapes.update({f"past.{n}": [1, 1, -1, HEAD_DIM] for n in kv})
    model.reshape({name: ov.PartialShape(shape) for name, shape in shapes.items()})
    apply_make_stateful_transformation(model, {f"past.{n}": f"present.{n}" for n in kv})
    return model


def main() -> None:
    lm = tiny_llama()
    module = WithExplicitCache(lm).eval()
    OUT.mkdir(parents=True, exist_ok=True)
    xml = OUT / "tiny_llama.xml"
    ov.save_model(convert(module), str(xml))
    print(f"{xml.relative_to(HERE)}: {describe(xml)}")

    request = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG).create_infer_request()
    past = [torch.zeros(1, 1, 0, HEAD_DIM) for _ in range(2 * LAYERS)]
    for k, inputs in enumerate(step_inputs(), start=1):
        request.infer(inputs)
        logits = np.array(request.get_tensor("logits").data)
        write_npz(OUT / f"tiny_llama.step{k}.inputs.npz", inputs)
        write_npz(OUT / f"tiny_llama.step{k}.openvino.npz", {"logits": logits})
        with torch.no_grad():
            out = module(*(torch.from_numpy(v) for v in inputs.values()), *past)
        past = list(out[1:])
        print(
            f"  step {k}: logits {list(logits.shape)}, |OpenVINO - PyTorch| <= "
            f"{np.abs(logits - out[0].numpy()).max():.3g} (f16 weights in the IR)"
        )
    state = {s.name: np.array(s.state.data) for s in request.query_state()}
    write_npz(OUT / "tiny_llama.state.openvino.npz", state)
    print(
        f"  state after {len(STEPS)} steps: "
        + ", ".join(f"{k} {list(v.shape)}" for k, v in sorted(state.items()))
    )


if __name__ == "__main__":
    main()
