"""ScaledDotProductAttention-13 against OpenVINO.

OpenVINO's core op has no ``evaluate`` (``Node.evaluate`` returns False), so values
have two oracles:

* **the spec's pseudo-code** (``scaled-dot-product-attention.html``): MatMul(transpose_b)
  -> Multiply(scale) -> Add(bias, -inf where masked) -> [Concat sink] -> Softmax -> [Slice]
  -> MatMul, each op built with OpenVINO and evaluated with ``Node.evaluate``.  ovonehot
  matches it within ``CHAIN_ULP`` (Softmax's ``exp``: ovonehot rounds float64, OpenVINO
  calls ``expf``).
* **the CPU plugin** (deterministic config), which runs its own fused kernel: measured
  differences from ovonehot on the cases below are at most 4.2e-7 absolute on f32
  values of order 1 (relative 1.4e-4 on a value near 0), and one f16 ulp (4.9e-4) on f16.
  Tolerances: ``CPU_ATOL``/``CPU_RTOL``.

A row whose keys are all masked is NaN in the spec, on the CPU plugin and in ovonehot
(``test_fully_masked_row_is_nan``); the core's reference header alone adds ``lowest()``
there instead of -inf (it backs no public evaluate).

Shapes and types: ovonehot's inference against OpenVINO's node construction, error
messages included, for every input combination (3 to 6 inputs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, reference

from ovonehot.errors import ValidationError
from ovonehot.ops.attention import SDPAAttrs, infer_sdpa
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")
node_factory = pytest.importorskip("openvino.utils.node_factory")

CHAIN_ULP = 4
CPU_ATOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float16): 2e-3}
CPU_RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float16): 4e-3}
RNG = np.random.default_rng(13)


def sdpa(causal: bool = False) -> Any:
    factory = node_factory.NodeFactory("opset13")
    return lambda *args: factory.create("ScaledDotProductAttention", list(args), {"causal": causal})


def _normal(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _evaluate(factory: Any, arrays: Sequence[np.ndarray]) -> np.ndarray:
    """One OpenVINO op on ``arrays`` through its core reference."""
    params = [ops.parameter(list(a.shape), ov.Type(a.dtype)) for a in arrays]
    out = reference(factory(*params), arrays)
    assert out is not None, "OpenVINO's core reference has no kernel for this step"
    return out[0]


def reference_chain(arrays: Sequence[np.ndarray], causal: bool) -> np.ndarray:
    """The spec's pseudo-code, each op evaluated by OpenVINO's core reference (f32 only)."""
    query, key, value = arrays[:3]
    masked = np.float32(-np.inf)
    qk = _evaluate(lambda a, b: ops.matmul(a, b, False, True), [query, key])
    if len(arrays) > 4:
        scale = np.asarray(arrays[4], np.float32).reshape(())
    else:
        scale = np.float32(1.0) / np.float32(np.sqrt(np.float64(query.shape[-1])))
    qk = _evaluate(ops.multiply, [qk, np.asarray(scale, np.float32)])
    bias = None
    if causal:
        length, source = query.shape[-2], key.shape[-2]
        bias = np.where(np.tri(length, source, dtype=bool), np.float32(0), masked).astype(np.float32)
    elif len(arrays) > 3:
        mask = arrays[3]
        bias = np.where(mask, np.float32(0), masked).astype(np.float32) if mask.dtype == np.bool_ else mask
    if bias is not None:
        qk = _evaluate(ops.add, [qk, bias])
    if len(arrays) > 5:
        sink = np.broadcast_to(arrays[5], (*qk.shape[:-1], 1)).copy()
        qk = _evaluate(lambda a, b: ops.concat([a, b], -1), [qk, sink])
    probabilities = _evaluate(lambda a: ops.softmax(a, -1), [qk])
    if len(arrays) > 5:
        probabilities = np.ascontiguousarray(probabilities[..., :-1])
    return _evaluate(lambda a, b: ops.matmul(a, b, False, False), [probabilities, value])


def _ours(tmp_path: Any, arrays: Sequence[np.ndarray], causal: bool) -> tuple[np.ndarray, Any, Any]:
    node, params = build(sdpa(causal), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(list(arrays)).values()
    return ours, node, params


def _bool_mask(*shape: int) -> np.ndarray:
    mask = RNG.random(shape) > 0.35
    mask[..., 0] = True  # no row fully masked (that row is NaN: test_fully_masked_row_is_nan)
    return mask


# id -> (arrays, causal): every input combination of a transformers export and the spec.
VALUE_CASES = {
    "qkv": (lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6)], False),
    "causal": (lambda: [_normal(1, 2, 4, 8), _normal(1, 2, 4, 8), _normal(1, 2, 4, 8)], True),
    "causal-L>S": (lambda: [_normal(1, 1, 6, 4), _normal(1, 1, 3, 4), _normal(1, 1, 3, 2)], True),
    "causal-L<S": (lambda: [_normal(1, 1, 2, 4), _normal(1, 1, 5, 4), _normal(1, 1, 5, 2)], True),
    "causal-ignores-mask": (
        lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 3, 4), _normal(1, 2, 3, 4), _normal(1, 2, 3, 3)],
        True,
    ),
    "float-mask": (
        lambda: [_normal(2, 2, 3, 4), _normal(2, 2, 5, 4), _normal(2, 2, 5, 6), _normal(2, 1, 3, 5)],
        False,
    ),
    "float-mask-2d": (
        lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6), _normal(3, 5)],
        False,
    ),
    "float-mask-scalar": (
        lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6), np.float32(0.5)],
        False,
    ),
    "float-mask-inf-cells": (
        lambda: [
            _normal(1, 1, 3, 4),
            _normal(1, 1, 5, 4),
            _normal(1, 1, 5, 2),
            np.triu(np.full((3, 5), -np.inf, np.float32), 1),
        ],
        False,
    ),
    "bool-mask": (
        lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6), _bool_mask(1, 1, 3, 5)],
        False,
    ),
    "bool-mask-2d": (lambda: [_normal(2, 3, 4), _normal(2, 5, 4), _normal(2, 5, 6), _bool_mask(3, 5)], False),
    "scale": (
        lambda: [
            _normal(1, 2, 3, 4),
            _normal(1, 2, 5, 4),
            _normal(1, 2, 5, 6),
            _normal(1, 2, 3, 5),
            np.float32(0.3),
        ],
        False,
    ),
    "scale-1-element-bool-mask": (
        lambda: [
            _normal(1, 2, 3, 4),
            _normal(1, 2, 5, 4),
            _normal(1, 2, 5, 6),
            _bool_mask(3, 5),
            np.array([1.7], np.float32),
        ],
        False,
    ),
    "scale-causal": (
        lambda: [
            _normal(1, 2, 3, 4),
            _normal(1, 2, 3, 4),
            _normal(1, 2, 3, 4),
            np.float32(0),
            np.float32(2.0),
        ],
        True,
    ),
    "sink": (
        lambda: [
            _normal(1, 2, 3, 4),
            _normal(1, 2, 5, 4),
            _normal(1, 2, 5, 6),
            _normal(1, 2, 3, 5),
            np.float32(0.5),
            _normal(1, 2, 3, 1),
        ],
        False,
    ),
    "sink-broadcast": (
        lambda: [
            _normal(1, 2, 3, 4),
            _normal(1, 2, 5, 4),
            _normal(1, 2, 5, 6),
            _bool_mask(3, 5),
            np.float32(0.5),
            _normal(1, 2, 1, 1),
        ],
        False,
    ),
    "sink-causal": (
        lambda: [
            _normal(1, 2, 4, 4),
            _normal(1, 2, 4, 4),
            _normal(1, 2, 4, 4),
            np.float32(0),
            np.float32(0.5),
            _normal(1, 2, 4, 1),
        ],
        True,
    ),
    "rank3": (lambda: [_normal(2, 3, 4), _normal(2, 5, 4), _normal(2, 5, 6)], False),
    "rank5-gqa-broadcast": (
        lambda: [_normal(1, 2, 3, 3, 4), _normal(1, 2, 1, 5, 4), _normal(1, 2, 1, 5, 6)],
        False,
    ),
}
CHAIN_BROADCAST_CASES = {  # the reference's own buffers assume query's batch shape: CPU only
    "batch-broadcast": (lambda: [_normal(2, 1, 3, 4), _normal(1, 3, 5, 4), _normal(2, 3, 5, 6)], False),
    "mask-raises-batch": (
        lambda: [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6), _normal(3, 2, 3, 5)],
        False,
    ),
    "mask-raises-rank": (
        lambda: [_normal(2, 3, 4), _normal(2, 5, 4), _normal(2, 5, 6), _normal(2, 1, 3, 5)],
        False,
    ),
}


@pytest.mark.parametrize("case", list(VALUE_CASES))
def test_matches_reference_chain(tmp_path, case):  # type: ignore[no-untyped-def]
    make, causal = VALUE_CASES[case]
    arrays = make()
    ours, _, _ = _ours(tmp_path, arrays, causal)
    assert_same(ours, reference_chain(arrays, causal), ulp=CHAIN_ULP)


@pytest.mark.parametrize("case", list(VALUE_CASES) + list(CHAIN_BROADCAST_CASES))
def test_matches_cpu(tmp_path, case):  # type: ignore[no-untyped-def]
    make, causal = {**VALUE_CASES, **CHAIN_BROADCAST_CASES}[case]
    arrays = make()
    ours, node, params = _ours(tmp_path, arrays, causal)
    (theirs,) = cpu_outputs(node, params, arrays)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=CPU_RTOL[ours.dtype], atol=CPU_ATOL[ours.dtype])


@pytest.mark.parametrize("dtype", [np.float16, np.float32], ids=["f16", "f32"])
def test_llm_sized_causal_matches_cpu(tmp_path, dtype):  # type: ignore[no-untyped-def]
    arrays = [
        _normal(1, 4, 16, 32, dtype=dtype),
        _normal(1, 4, 16, 32, dtype=dtype),
        _normal(1, 4, 16, 32, dtype=dtype),
    ]
    ours, node, params = _ours(tmp_path, arrays, True)
    (theirs,) = cpu_outputs(node, params, arrays)
    np.testing.assert_allclose(
        ours.astype(np.float32),
        theirs.astype(np.float32),
        rtol=CPU_RTOL[np.dtype(dtype)],
        atol=CPU_ATOL[np.dtype(dtype)],
    )


def test_fully_masked_row_is_nan(tmp_path):  # type: ignore[no-untyped-def]
    """An all-false boolean row is NaN (-inf everywhere before Softmax), as on the CPU plugin."""
    mask = np.array([[True] * 5, [False] * 5, [True, False, True, False, True]])
    arrays = [_normal(1, 1, 3, 4), _normal(1, 1, 5, 4), _normal(1, 1, 5, 2), mask]
    ours, node, params = _ours(tmp_path, arrays, False)
    assert_same(ours, reference_chain(arrays, False), ulp=CHAIN_ULP)
    assert np.isnan(ours[0, 0, 1]).all() and not np.isnan(ours[0, 0, [0, 2]]).any()
    (theirs,) = cpu_outputs(node, params, arrays)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=2e-6, equal_nan=True)


def test_core_has_no_evaluate():
    """Why the chain oracle exists: ``Node.evaluate`` of the op itself refuses."""
    arrays = [_normal(1, 2, 3, 4), _normal(1, 2, 5, 4), _normal(1, 2, 5, 6)]
    params = [ops.parameter(list(a.shape), ov.Type.f32) for a in arrays]
    assert reference(sdpa()(*params), arrays) is None


# -- shapes and types --------------------------------------------------------------------------

F32, F16, BOOL, I32, DYN = "f32", "f16", "boolean", "i32", "dynamic"

# id -> ([(shape, type) per input], causal)
SHAPE_CASES: dict[str, tuple[list[tuple[str, str]], bool]] = {
    "static": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32)], False),
    "dynamic-dims": ([("?,?,?,?", F32), ("?,2,?,4", F32), ("1,?,5,?", F32)], False),
    "intervals": ([("1..3,2,3..8,4", F32), ("2..5,2,5,4", F32), ("?,2,?,6", F32)], False),
    "query-dynamic-rank": ([("...", F32), ("1,2,5,4", F32), ("1,2,5,6", F32)], False),
    "key-dynamic-rank": ([("1,2,3,4", F32), ("...", F32), ("1,2,5,6", F32)], False),
    "value-dynamic-rank": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("...", F32)], False),
    "batch-broadcast": ([("2,1,3,4", F32), ("1,3,5,4", F32), ("2,3,5,6", F32)], False),
    "batch-mismatch": ([("2,1,3,4", F32), ("3,3,5,4", F32), ("2,3,5,6", F32)], False),
    "E-mismatch": ([("1,2,3,4", F32), ("1,2,5,7", F32), ("1,2,5,6", F32)], False),
    "E-1-does-not-broadcast": ([("1,2,3,1", F32), ("1,2,5,4", F32), ("1,2,5,6", F32)], False),
    "E-interval": ([("1,2,3,1..6", F32), ("1,2,5,4", F32), ("1,2,5,6", F32)], False),
    "S-mismatch": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,6,6", F32)], False),
    "S-1-does-not-broadcast": ([("1,2,3,4", F32), ("1,2,1,4", F32), ("1,2,5,6", F32)], False),
    "S-dynamic-merges": ([("1,2,3,4", F32), ("1,2,?,4", F32), ("1,2,1,6", F32)], False),
    "query-rank-2": ([("3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32)], False),
    "key-rank-2": ([("1,2,3,4", F32), ("5,4", F32), ("1,2,5,6", F32)], False),
    "value-rank-2": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("5,6", F32)], False),
    "rank5-query": ([("2,1,2,3,4", F32), ("2,5,4", F32), ("2,5,6", F32)], False),
    "rank5-key": ([("2,3,4", F32), ("2,1,2,5,4", F32), ("2,5,6", F32)], False),
    "mask-4d": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("1,2,3,5", F32)], False),
    "mask-2d": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32)], False),
    "mask-1d": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("5", F32)], False),
    "mask-scalar": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("", F32)], False),
    "mask-bad": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,6", F32)], False),
    "mask-bad-causal": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,6", F32)], True),
    "mask-broadcast-1s": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("1,1,1,1", F32)], False),
    "mask-raises-batch": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("7,2,3,5", F32)], False),
    "mask-raises-rank": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("7,1,2,3,5", F32)], False),
    "mask-fills-L": ([("1,2,?,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("1,2,3..4,5", F32)], False),
    "mask-rank-3-bad": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("1,2,1", F32)], False),
    "mask-dynamic-rank": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("...", F32)], False),
    "mask-bool": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", BOOL)], False),
    "mask-bool-f16": ([("1,2,3,4", F16), ("1,2,5,4", F16), ("1,2,5,6", F16), ("3,5", BOOL)], False),
    "mask-i32": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", I32)], False),
    "mask-f16-mixed": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F16)], False),
    "mask-dynamic-type": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", DYN)], False),
    "scale-scalar": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("", F32)], False),
    "scale-1": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("1", F32)], False),
    "scale-2": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("2", F32)], False),
    "scale-1x1": ([("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("1,1", F32)], False),
    "scale-dynamic": (
        [("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("?", F32)],
        False,
    ),
    "scale-f16-mixed": (
        [("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("3,5", F32), ("", F16)],
        False,
    ),
    "key-f16-mixed": ([("1,2,3,4", F32), ("1,2,5,4", F16), ("1,2,5,6", F32)], False),
    "ints": ([("1,2,3,4", I32), ("1,2,5,4", I32), ("1,2,5,6", I32)], False),
    "dynamic-types": ([("1,2,3,4", DYN), ("1,2,5,4", DYN), ("1,2,5,6", DYN)], False),
    "query-dynamic-type": ([("1,2,3,4", DYN), ("1,2,5,4", F16), ("1,2,5,6", F16)], False),
    "f64": ([("1,2,3,4", "f64"), ("1,2,5,4", "f64"), ("1,2,5,6", "f64")], False),
    "bf16": ([("1,2,3,4", "bf16"), ("1,2,5,4", "bf16"), ("1,2,5,6", "bf16")], False),
}
_SINK_BASE = [("1,2,3,4", F32), ("1,2,5,4", F32), ("1,2,5,6", F32), ("1,2,3,5", F32), ("", F32)]
for _sink in [
    "1,2,3,1",
    "1,2,1,1",
    "1,1,3,1",
    "3,2,3,1",
    "1,3,3,1",
    "2,1,1",
    "1",
    "",
    "1,2,3,7",
    "1,2,3,0",
    "1,2,4,1",
    "1,2,3,?",
    "1,2,?,2",
    "?,?,?,?",
    "...",
    "1,2,3,1,1",
]:
    SHAPE_CASES[f"sink-[{_sink}]"] = ([*_SINK_BASE, (_sink, F32)], False)
SHAPE_CASES["sink-bool"] = ([*_SINK_BASE, ("1,2,3,1", BOOL)], False)
SHAPE_CASES["sink-query-dynamic-rank"] = ([("...", F32), *_SINK_BASE[1:], ("1,2,3,1", F32)], False)


_OV_TYPES = {
    "f32": ov.Type.f32,
    "f16": ov.Type.f16,
    "bf16": ov.Type.bf16,
    "f64": ov.Type.f64,
    "i32": ov.Type.i32,
    "boolean": ov.Type.boolean,
    "dynamic": ov.Type.dynamic,
}


def _openvino(inputs: list[tuple[str, str]], causal: bool) -> str:
    params = [ops.parameter(ov.PartialShape(f"[{s}]"), _OV_TYPES[t]) for s, t in inputs]
    try:
        node = sdpa(causal)(*params)
    except RuntimeError as exc:  # OpenVINO's NodeValidationFailure is a RuntimeError
        return "error: " + _last_line(str(exc))
    return f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"


def _ovonehot(inputs: list[tuple[str, str]], causal: bool) -> str:
    infos = [TensorInfo(ElementType.from_name(t), PartialShape.parse(s)) for s, t in inputs]
    try:
        (out,) = infer_sdpa(SDPAAttrs(causal), infos)
    except ValidationError as exc:
        return "error: " + _last_line(str(exc))
    return f"{out.element_type}{out.shape}"


def _last_line(message: str) -> str:
    """OpenVINO's message without its location preamble; ovonehot's without the input shapes."""
    text = message.strip().splitlines()[-1].strip()
    if text.startswith("Shape inference input shapes"):
        text = text.split("} ", 1)[1]
    return text


@pytest.mark.parametrize("case", list(SHAPE_CASES))
def test_inference_matches_openvino(case):  # type: ignore[no-untyped-def]
    inputs, causal = SHAPE_CASES[case]
    assert _ovonehot(inputs, causal) == _openvino(inputs, causal)


@pytest.mark.parametrize(
    ("q_shape", "k_shape", "dtype"),
    [
        ((2, 4, 1, 4), (2, 4, 6, 4), np.float32),  # a decode step
        ((1, 2, 5, 8), (1, 2, 5, 8), np.float32),
        ((3, 1, 7, 3), (1, 1, 9, 3), np.float32),  # batch dims broadcast
        ((2, 3, 4), (2, 5, 4), np.float64),
        ((1, 2, 3, 2), (1, 2, 0, 2), np.float32),  # no keys
    ],
)
def test_exact_attention_is_ovonehots_own_matmul_softmax_chain(
    q_shape: tuple[int, ...], k_shape: tuple[int, ...], dtype: type
) -> None:
    """The exact kernel multiplies through MatMul's sequential sum directly: its bytes are those of
    ovonehot's MatMul and Softmax kernels chained as the spec writes attention."""
    from ovonehot.ops.attention import evaluate_sdpa
    from ovonehot.ops.matmul import MatMulAttrs, evaluate_matmul
    from ovonehot.ops.softmax import SoftmaxAttrs, softmax

    rng = np.random.default_rng(len(q_shape) + q_shape[-2])
    q, k = (rng.standard_normal(s).astype(dtype) * 3 for s in (q_shape, k_shape))
    v = rng.standard_normal((*k_shape[:-1], 5)).astype(dtype)
    scale = np.array(0.37, dtype)
    (got,) = evaluate_sdpa(SDPAAttrs(causal=False), [q, k, v, np.zeros((), dtype), scale])
    (qk,) = evaluate_matmul(MatMulAttrs(transpose_b=True), [q, k])
    with np.errstate(all="ignore"):
        (p,) = softmax(SoftmaxAttrs(-1), [qk * scale + np.zeros((), dtype)], True)
    (expected,) = evaluate_matmul(MatMulAttrs(), [p, v])
    assert got.tobytes() == expected.tobytes()
