"""BatchNormInference-0/5 and LRN-1 against OpenVINO's CPU plugin (the core has no evaluate for
either) and its inference (types, shapes, error messages).

Tolerances, measured: BatchNormInference within ``BN_RTOL``/``BN_ATOL`` (the plugin folds
mean, variance, gamma and beta into one scale and shift, ``x * s + t``: up to 32 ulp apart
where ``x - mean`` cancels, 4e-7 absolute on values of order 1); LRN within ``LRN_RTOL``
(oneDNN sums the squares in its own order and computes ``pow`` its own way).

A plugin deviation: the CPU plugin's LRN truncates ``bias`` to an integer (its ``LrnKey::k``
is an ``int``; ``src/plugins/intel_cpu/src/nodes/lrn.cpp``): bias 0.5 acts as 0, 1.7 as 1.
ovonehot follows the reference (``test_cpu_lrn_truncates_bias``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, ulp_distance

from ovonehot.errors import ValidationError
from ovonehot.ops.batch_norm import BatchNormAttrs, infer_batch_norm
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.lrn import LRNAttrs, infer_lrn
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")
opset1 = pytest.importorskip("openvino.opset1")

BN_RTOL = 1e-5
BN_ATOL = 1e-6
LRN_RTOL = 2e-6
RNG = np.random.default_rng(31)


def _run(tmp_path: Any, factory: Any, arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    node, params = build(factory, [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    (theirs,) = cpu_outputs(node, params, arrays)
    return ours, theirs


def _stats(c: int, dtype: Any = np.float32) -> list[np.ndarray]:
    gamma = RNG.standard_normal(c).astype(dtype)
    beta = RNG.standard_normal(c).astype(dtype)
    mean = RNG.standard_normal(c).astype(dtype)
    variance = RNG.uniform(0.1, 3.0, c).astype(dtype)
    return [gamma, beta, mean, variance]


@pytest.mark.parametrize(
    "shape", [(2, 3), (2, 3, 5), (1, 4, 3, 3), (1, 2, 2, 2, 3)], ids=lambda s: f"rank{len(s)}"
)
@pytest.mark.parametrize("version", [1, 5])
@pytest.mark.parametrize("epsilon", [1e-5, 0.0, 0.5])
def test_batch_norm_matches_cpu(tmp_path, shape, version, epsilon):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal(shape).astype(np.float32)
    gamma, beta, mean, variance = _stats(shape[1])
    # opset1's Python wrapper takes the data first too and builds v0's gamma, beta, data order
    batch_norm = ops.batch_norm_inference if version == 5 else opset1.batch_norm_inference

    def factory(*a):  # type: ignore[no-untyped-def]
        return batch_norm(*a, epsilon)

    arrays = [x, gamma, beta, mean, variance]
    ours, theirs = _run(tmp_path, factory, arrays)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=BN_RTOL, atol=BN_ATOL)


def test_batch_norm_f16(tmp_path):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((2, 3, 4)).astype(np.float16)
    arrays = [x, *_stats(3, np.float16)]
    ours, theirs = _run(tmp_path, lambda *a: ops.batch_norm_inference(*a, 1e-3), arrays)
    assert ulp_distance(ours, theirs).max() <= 1


def test_batch_norm_v0_input_order_in_ir(tmp_path):  # type: ignore[no-untyped-def]
    """opset1's layer takes gamma, beta, data, mean, variance: the IR keeps that order."""
    node, _ = build(
        lambda *a: opset1.batch_norm_inference(*a, 1e-5),
        [P(np.zeros((2, 3), np.float32))] + [P(s) for s in _stats(3)],
    )
    assert node.get_type_info().version_id == "opset1"
    assert list(node.get_input_partial_shape(2)) == [2, 3]  # data is input 2 of BatchNormInference-0


# LRN: data shape, axes, alpha, beta, bias, size
LRN_CASES = [
    pytest.param((2, 5, 3, 3), [1], 1e-4, 0.75, 1.0, 3, id="across-channels"),
    pytest.param((1, 6, 4, 4), [1], 2e-4, 0.75, 2.0, 5, id="alexnet-size5"),
    pytest.param((1, 3, 5, 5), [2, 3], 1e-2, 0.5, 1.0, 3, id="within-channel"),
    pytest.param((1, 4, 2, 2), [1], 1.0, 1.5, 2.0, 1, id="size1"),
    pytest.param((1, 2, 3, 4, 3), [2, 3, 4], 1e-3, 0.75, 1.0, 3, id="within-channel-3d"),
]


@pytest.mark.parametrize(("shape", "axes", "alpha", "beta", "bias", "size"), LRN_CASES)
def test_lrn_matches_cpu(tmp_path, shape, axes, alpha, beta, bias, size):  # type: ignore[no-untyped-def]
    x = (RNG.standard_normal(shape) * 3).astype(np.float32)
    axes_const = np.array(axes, np.int64)
    node, params = build(lambda a: ops.lrn(a, ops.constant(axes_const), alpha, beta, bias, size), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    (theirs,) = cpu_outputs(node, params, [x])
    np.testing.assert_allclose(ours, theirs, rtol=LRN_RTOL, atol=1e-7)


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize("bias", [0.5, 1.7])
def test_cpu_lrn_truncates_bias(tmp_path, bias):  # type: ignore[no-untyped-def]
    x = np.array([0.5, -2.0, 1.0, 3.0], np.float32).reshape(1, 4, 1, 1)
    node, params = build(lambda a: ops.lrn(a, ops.constant(np.array([1])), 1.0, 1.5, bias, 1), [P(x)])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    (theirs,) = cpu_outputs(node, params, [x])
    np.testing.assert_allclose(ours, x / (np.float32(bias) + x * x) ** 1.5, rtol=1e-6)  # size 1: the formula
    np.testing.assert_allclose(theirs, x / (np.float32(int(bias)) + x * x) ** 1.5, rtol=1e-6)


def test_lrn_is_exactly_the_reference_formula(tmp_path):  # type: ignore[no-untyped-def]
    """An independent slow oracle: the reference's loop written out in float32 for one case."""
    x = RNG.standard_normal((1, 4, 2)).astype(np.float32)
    node, params = build(lambda a: ops.lrn(a, ops.constant(np.array([1])), 0.1, 0.75, 1.0, 3), [P(x)])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    want = np.empty_like(x)
    one = np.float32
    for c in range(4):
        for w in range(2):
            total = one(0)
            for k in range(max(0, c - 1), min(4, c + 2)):
                total = one(total + x[0, k, w] * x[0, k, w])
            base = one(one(1.0) + one(one(0.1) / one(3.0)) * total)
            want[0, c, w] = x[0, c, w] / one(np.float64(base) ** np.float64(one(0.75)))
    assert_same(ours, want)


# -- inference and errors ------------------------------------------------------------------------


def _infos(spec: list[tuple[str, str]]) -> list[TensorInfo]:
    return [TensorInfo(ElementType.from_name(t), PartialShape.parse(s)) for s, t in spec]


BN_SHAPES = {
    "static": [("2,3,4", "f32"), ("3", "f32"), ("3", "f32"), ("3", "f32"), ("3", "f32")],
    "rank-1": [("3", "f32"), ("3", "f32"), ("3", "f32"), ("3", "f32"), ("3", "f32")],
    "channel-mismatch": [("2,3,4", "f32"), ("4", "f32"), ("4", "f32"), ("4", "f32"), ("4", "f32")],
    "gamma-beta-mismatch": [("2,3,4", "f32"), ("3", "f32"), ("4", "f32"), ("3", "f32"), ("3", "f32")],
    "stats-rank-2": [("2,3,4", "f32"), ("1,3", "f32"), ("1,3", "f32"), ("1,3", "f32"), ("1,3", "f32")],
    "channels-from-stats": [("2,?,4", "f32"), ("?", "f32"), ("3", "f32"), ("...", "f32"), ("2..5", "f32")],
    "dynamic-rank": [("...", "f32"), ("?", "f32"), ("3", "f32"), ("...", "f32"), ("2..5", "f32")],
    "all-dynamic": [("...", "f32"), ("...", "f32"), ("...", "f32"), ("...", "f32"), ("...", "f32")],
    "zero-channels": [("2,0,4", "f32"), ("0", "f32"), ("0", "f32"), ("0", "f32"), ("0", "f32")],
    "mixed-types": [("2,3,4", "f32"), ("3", "f16"), ("3", "f32"), ("3", "f32"), ("3", "f32")],
    "integers": [("2,3,4", "i32"), ("3", "i32"), ("3", "i32"), ("3", "i32"), ("3", "i32")],
    "f16": [("2,3,4", "f16"), ("3", "f16"), ("3", "f16"), ("3", "f16"), ("3", "f16")],
    "dynamic-type": [("2,3,4", "dynamic"), ("3", "f16"), ("3", "f16"), ("3", "f16"), ("3", "f16")],
}


def _described(make: Any) -> str:
    try:
        node = make()
    except RuntimeError as exc:
        return "error: " + str(exc).strip().splitlines()[-1].strip()
    return f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"


def _ours(infer: Any, attrs: Any, infos: list[TensorInfo]) -> str:
    try:
        (out,) = infer(attrs, infos)
    except ValidationError as exc:
        return f"error: {exc}"
    return f"{out.element_type}{out.shape}"


_OV_TYPES = {
    "f32": ov.Type.f32,
    "f16": ov.Type.f16,
    "i32": ov.Type.i32,
    "i64": ov.Type.i64,
    "dynamic": ov.Type.dynamic,
}


def _params(spec: list[tuple[str, str]]) -> list[Any]:
    return [ops.parameter(ov.PartialShape(f"[{s}]"), _OV_TYPES[t]) for s, t in spec]


@pytest.mark.parametrize("epsilon", [1e-5, -1e-5], ids=["eps", "negative-eps"])
@pytest.mark.parametrize("version", [1, 5])
@pytest.mark.parametrize("case", list(BN_SHAPES))
def test_batch_norm_inference_matches_openvino(case, version, epsilon):  # type: ignore[no-untyped-def]
    spec = BN_SHAPES[case]  # data first, as both Python wrappers take it
    module = opset1 if version == 1 else ops
    theirs = _described(lambda: module.batch_norm_inference(*_params(spec), epsilon))
    ordered = spec if version == 5 else [spec[1], spec[2], spec[0], spec[3], spec[4]]
    ours = _ours(infer_batch_norm, BatchNormAttrs(epsilon, version == 5), _infos(ordered))
    assert ours == theirs


LRN_SHAPES = {
    "static": ("2,3,4,4", "i64", [1]),
    "spatial": ("2,3,4,4", "i64", [2, 3]),
    "axis-out-of-bounds": ("2,3,4", "i64", [3]),
    "negative-axis": ("2,3,4", "i64", [-1]),
    "negative-axis-beyond-rank": ("2,3,4", "i64", [0, -4]),
    "too-many-axes": ("2,3", "i64", [0, 1, 1]),
    "dynamic-rank": ("...", "i64", [5]),
    "dynamic-dims": ("?,3..5,?", "i32", [1, 2]),
    "float-axes": ("2,3,4", "f32", [1]),
}


@pytest.mark.parametrize("case", list(LRN_SHAPES))
def test_lrn_inference_matches_openvino(case):  # type: ignore[no-untyped-def]
    shape, axes_type, axes = LRN_SHAPES[case]
    dtype = {"i64": np.int64, "i32": np.int32, "f32": np.float32}[axes_type]
    data = ops.parameter(ov.PartialShape(f"[{shape}]"), ov.Type.f32)
    theirs = _described(lambda: ops.lrn(data, ops.constant(np.array(axes, dtype)), 1e-4, 0.75, 1.0, 3))
    axes_info = TensorInfo(
        ElementType.from_name(axes_type), PartialShape.of([len(axes)]), value=np.array(axes, dtype)
    )
    ours = _ours(infer_lrn, LRNAttrs(1e-4, 0.75, 1.0, 3), [_infos([(shape, "f32")])[0], axes_info])
    if case == "float-axes":  # OpenVINO fails inside Constant::get_axis_set_val with an internal check
        assert ours.startswith("error:") and theirs.startswith("error:")
        return
    assert ours == theirs
