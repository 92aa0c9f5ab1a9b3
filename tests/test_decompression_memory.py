"""Large narrow-float element-wise ops (an LLM's int4/int8 weights decompressed to f16) run in
blocks: the same bits as OpenVINO's core reference, without whole f32 copies of the operands."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import ml_dtypes
import numpy as np
import openvino.opset13 as ops
import pytest
from ovref import C, P, compare_op

import ovonehot
from ovonehot.ops.elementwise import NARROW_BLOCK

NNCF = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "nncf"
ROWS, COLS = 3 * NARROW_BLOCK // 256 + 7, 256  # more than 3 blocks, not a whole number of them


def _weights(dtype: object) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    q = rng.integers(0, 16, size=(ROWS, COLS)).astype(np.float32) - rng.integers(0, 16, size=(ROWS, 1))
    scale = rng.uniform(-0.1, 0.1, size=(ROWS, 1)).astype(np.float32)
    return q.astype(dtype), scale.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("factory", [ops.multiply, ops.subtract], ids=["Multiply", "Subtract"])
def test_blocked_narrow_float_ops_match_the_reference(tmp_path: Path, dtype: object, factory: object) -> None:
    q, scale = _weights(dtype)
    compare_op(tmp_path, factory, [P(q), C(scale)])


def test_blocked_multiply_keeps_no_whole_f32_copy(tmp_path: Path) -> None:
    q, scale = _weights(np.float16)
    model = compare_op(tmp_path, ops.multiply, [P(q), C(scale)]).model
    tracemalloc.start()
    try:
        model.run([q])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the f16 output (2 bytes per element) and f32 blocks; one f32 copy of q alone would be 4 bytes
    assert peak < q.size * 2 + 16 * NARROW_BLOCK


@pytest.mark.parametrize("name", ["llama_int4_asym", "llama_int8_asym"])
def test_nncf_models_fast_agrees_with_exact(name: str) -> None:
    """NNCF-compressed models decoding with their KV cache: fast agrees with exact to rounding
    at every step, here the f16 rounding of the weights that fast mode's group algebra skips
    (the corpus's ``tolerance_fast``; exact against OpenVINO's stored outputs: test_regression_corpus)."""
    folder = NNCF / name
    atol = json.loads((folder / "meta.json").read_text())["tolerance_fast"]["atol"]
    model = ovonehot.load(folder / "model.xml")
    request = model.create_request()
    fast_request = model.create_request()
    for step in (1, 2, 3):
        with np.load(folder / f"generate.step{step}.inputs.npz") as archive:
            feeds = {k: archive[k] for k in archive.files}
        exact = request.run(feeds)
        fast = fast_request.run(feeds, exact=False)
        for key, value in exact.items():
            np.testing.assert_allclose(fast[key], value, rtol=0, atol=atol)
