"""Sin, Cos, Tan, Atan, Round, SoftPlus, Gelu, Swish, Elu, HSigmoid, HSwish, Mish, PRelu vs OpenVINO.

Expected values: OpenVINO's core reference (``Node.evaluate``) through ``ovref.compare_op``.
ovonehot computes each formula in float64 and rounds once; the reference computes in
the element type with libm's float functions, so f32 results may differ by the ulp
stated per op (measured on these inputs); integer, Round, HSigmoid/HSwish and PRelu
results are exact.  Gelu-2 and Elu have no core evaluate in 2026.4: they are compared
with the CPU plugin (deterministic config) within the relative tolerance stated there.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, compare_op, cpu_outputs, export, infer_shapes

import ovonehot

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")
opset2 = pytest.importorskip("openvino.opset2")
opset9 = pytest.importorskip("openvino.opset9")

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.float32, np.float16, BF16]

SPECIAL = np.array(
    [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.0,
        -3.0,
        20.0,
        -20.0,
        88.0,
        -104.0,
        np.inf,
        -np.inf,
        np.nan,
        1e-30,
        7e-39,
    ]
)


def _floats(dtype: np.dtype, n: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    body = rng.standard_normal(n) * 10.0 ** rng.integers(-2, 2, n)
    with np.errstate(over="ignore"):
        return np.concatenate([SPECIAL, body]).astype(dtype).reshape(2, -1)


# op name -> (factory, types, ulp for floats)
UNARY = {
    "Sin": (ops.sin, [*FLOATS, np.int32, np.int64], 1),
    "Cos": (ops.cos, [*FLOATS, np.int32, np.int64], 1),
    "Tan": (ops.tan, [*FLOATS, np.int32], 1),
    "Atan": (ops.atan, [*FLOATS, np.int32, np.int64], 1),
    "SoftPlus": (ops.softplus, FLOATS, 1),
    "Gelu-erf": (lambda x: ops.gelu(x, "erf"), FLOATS, 2),
    "Gelu-tanh": (lambda x: ops.gelu(x, "tanh"), FLOATS, 2),
    "Swish": (ops.swish, [np.float32], 2),  # OpenVINO's Python swish() adds an f32 beta
    "HSigmoid": (ops.hsigmoid, FLOATS, 0),
    "HSwish": (ops.hswish, FLOATS, 1),
    "Mish": (ops.mish, FLOATS, 2),
    "Round-even": (lambda x: ops.round(x, "half_to_even"), [*FLOATS, np.int32, np.int64, np.uint8], 0),
    "Round-away": (lambda x: ops.round(x, "half_away_from_zero"), [*FLOATS, np.int32, np.int64], 0),
    "SoftSign": (opset9.softsign, [np.float32], 0),  # the only type its evaluate takes
}
UNARY_CASES = [
    pytest.param(name, dt, id=f"{name}-{np.dtype(dt).name}")
    for name, (_, types, _) in UNARY.items()
    for dt in types
]


@pytest.mark.parametrize(("name", "dtype"), UNARY_CASES)
def test_unary_matches_reference(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    factory, _, ulp = UNARY[name]
    if np.dtype(dtype).kind in "iu":
        x = np.array([[0, 1, 2, 3, 5, 7, 100, 255], [4, 6, 8, 9, 10, 11, 12, 13]]).astype(dtype)
        if np.dtype(dtype).kind == "i":
            x[1] = -x[1]
        ulp = 0
    else:
        x = _floats(dtype)
    compare_op(tmp_path, factory, [P(x)], ulp=ulp)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_swish_with_beta_matches_reference(tmp_path, dtype):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, ops.swish, [P(_floats(dtype)), P(np.array(0.75, dtype))], ulp=2)


PRELU_LAYOUTS = [
    pytest.param((2, 3, 4), (3,), id="channel-slope"),
    pytest.param((2, 3), (3,), id="2d-channel"),
    pytest.param((4, 5), (1,), id="single-slope"),
    pytest.param((2, 4, 4), (4,), id="channel-equals-last"),
    pytest.param((2, 3, 5), (5,), id="last-axis-numpy"),
    pytest.param((2, 3, 4), (3, 1), id="numpy-2d"),
    pytest.param((5,), (), id="scalar-slope"),
]


@pytest.mark.parametrize(("x_shape", "slope_shape"), PRELU_LAYOUTS)
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float16, BF16], ids=["f32", "f16", "bf16"]
)  # no int reference
def test_prelu_matches_reference(tmp_path, x_shape, slope_shape, dtype):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(x_shape) * 5).astype(dtype)
    slope = (rng.standard_normal(slope_shape) * 2).astype(dtype)
    compare_op(tmp_path, ops.prelu, [P(x), C(slope)])


# No core evaluate for these two: the CPU plugin is the oracle, with its own exp/erf.
CPU_RTOL = 2e-6
CPU_ATOL = 1e-6  # Gelu's far negative tail (|y| < 1e-6) differs relatively in the CPU's erf


CPU_ONLY = {
    "Gelu-2": opset2.gelu,
    "Elu": lambda x: ops.elu(x, 0.7),
    "HardSigmoid": lambda x: ops.hard_sigmoid(
        x, ops.constant(np.float32(0.2)), ops.constant(np.float32(0.5))
    ),
    "Selu": lambda x: ops.selu(
        x, ops.constant(np.array([1.67], np.float32)), ops.constant(np.array([1.05], np.float32))
    ),
}


@pytest.mark.parametrize("name", list(CPU_ONLY))
def test_cpu_only_ops_match_cpu(tmp_path, name):  # type: ignore[no-untyped-def]
    factory = CPU_ONLY[name]
    x = np.concatenate([np.linspace(-9, 9, 91), [0.0, -0.0, 1e-30, -1e-30]]).astype(np.float32)
    node, params = build(factory, [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (theirs,) = cpu_outputs(node, params, [x])
    (ours,) = model.run([x]).values()
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=CPU_RTOL, atol=CPU_ATOL)


def test_real_only_activations_refuse_integers(tmp_path):  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError, match="float"):
        ops.softplus(ops.parameter([2], ov.Type.i32))
    spec = ovonehot.ops.lookup("SoftPlus", "opset4")
    assert spec is not None
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    with pytest.raises(ovonehot.Error, match="float"):
        spec.infer(None, [TensorInfo(ElementType.i32, PartialShape.of([2]))])


@pytest.mark.parametrize("name", ["Sin", "SoftPlus", "Gelu-tanh", "Round-even"])
def test_shapes_agree(tmp_path, name):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(tmp_path, UNARY[name][0], [P(np.zeros((), np.float32), shape="?,2..5")])
    assert ours == theirs


FLOAT_CHECKS = {
    "IsNaN": ops.is_nan,
    "IsFinite": ops.is_finite,
    "IsInf": ops.is_inf,
    "IsInf-negative-only": lambda x: ops.is_inf(x, {"detect_positive": False}),
    "IsInf-positive-only": lambda x: ops.is_inf(x, {"detect_negative": False}),
}


# No core evaluate for these: the CPU plugin is the oracle (exact: a predicate per element).
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(FLOAT_CHECKS))
def test_float_checks_match_cpu(tmp_path, name, dtype):  # type: ignore[no-untyped-def]
    x = _floats(dtype)
    x[np.abs(x.astype(np.float32)) < np.finfo(np.float32).tiny] = 0  # subnormals: see the next test
    node, params = build(FLOAT_CHECKS[name], [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    np.testing.assert_array_equal(ours, cpu_outputs(node, params, [x])[0])
    assert ours.dtype == np.bool_


def test_subnormals_are_finite(tmp_path):  # type: ignore[no-untyped-def]
    # IsFinite-10's spec: true unless NaN or infinity.  OpenVINO 2026.4's CPU plugin says
    # false for f32 subnormals (a plugin bug, same with the default config); ovonehot
    # follows the spec.
    x = np.array([7e-39, -1e-42, 1e-45, 1.2e-38], np.float32)
    node, params = build(ops.is_finite, [P(x)])
    (ours,) = export(tmp_path, node, params).run([x]).values()
    np.testing.assert_array_equal(ours, [True, True, True, True])
    assert not cpu_outputs(node, params, [x])[0][:3].any(), (
        "the CPU plugin's IsFinite bug is fixed: update the docs"
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, BF16], ids=str)
def test_identity_copies_its_input(tmp_path, dtype):  # type: ignore[no-untyped-def]
    # No core evaluate for Identity-16: OpenVINO's inferred type/shape are compared, the value
    # is the spec's (a copy of the input).
    opset16 = pytest.importorskip("openvino.opset16")
    x = np.arange(6).reshape(2, 3).astype(dtype)
    outcome = compare_op(tmp_path, opset16.identity, [P(x)], evaluate=False)
    assert outcome.ours is not None
    assert_same(outcome.ours[0], x)
