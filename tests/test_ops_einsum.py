"""Einsum-7 against OpenVINO: shapes and types from OpenVINO's inference, values from its CPU plugin.

OpenVINO 2026.4's core has no ``evaluate`` for Einsum; the CPU plugin (deterministic
config) decomposes it into Transpose/MatMul/ReduceSum, so f32 sums may differ from
ovonehot's in the last bits: compared with ``FLOAT_RTOL``; integers exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export, infer_shapes

import ovonehot
from ovonehot.ops.einsum import parse_equation

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset15")

FLOAT_RTOL = 1e-6
RNG = np.random.default_rng(4)

EINSUM_CASES = [
    pytest.param("bc,cd->bd", [(3, 5), (5, 2)], id="matmul"),
    pytest.param("bsc,bsd->bcd", [(2, 6, 3), (2, 6, 4)], id="per-class-sums"),
    pytest.param("ij->ji", [(3, 4)], id="transpose"),
    pytest.param("ii->i", [(4, 4)], id="diagonal"),
    pytest.param("ij,ij->", [(3, 4), (3, 4)], id="full-contraction"),
    pytest.param("...ij,...jk->...ik", [(2, 3, 4), (4, 5)], id="ellipsis-broadcast"),
    pytest.param("a...,a...->...", [(3, 2, 2), (3, 1, 2)], id="ellipsis-leading"),
    pytest.param("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], id="three-inputs"),
    pytest.param("bi,bj", [(2, 3), (2, 4)], id="implicit-output"),
    pytest.param("Ab,bA->A", [(3, 2), (2, 3)], id="upper-case"),
    pytest.param("ab...,b", [(2, 3, 4), (3,)], id="implicit-ellipsis"),
    pytest.param("ba", [(2, 3)], id="implicit-sorted-transpose"),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["f32", "i32"])
def test_einsum_matches_cpu(tmp_path, equation, shapes, dtype):  # type: ignore[no-untyped-def]
    arrays = [
        (RNG.standard_normal(s) * 3).astype(dtype)
        if dtype == np.float32
        else RNG.integers(-20, 20, s).astype(dtype)
        for s in shapes
    ]
    node, params = build(lambda *xs: ops.einsum(list(xs), equation), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (theirs,) = cpu_outputs(node, params, arrays)
    (ours,) = model.run(arrays).values()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    if dtype == np.float32:
        np.testing.assert_allclose(
            ours, theirs, rtol=FLOAT_RTOL, atol=FLOAT_RTOL * np.abs(theirs).max(initial=1)
        )
    else:
        np.testing.assert_array_equal(ours, theirs)


EINSUM_SHAPES = [
    pytest.param("bc,cd->bd", ["?,5", "5..8,2"], id="dynamic-labels"),
    pytest.param("...ij,...jk->...ik", ["...", "4,5"], id="dynamic-rank-ellipsis"),
    pytest.param("ij,jk->ik", ["...", "4,5"], id="dynamic-rank-no-ellipsis"),
    pytest.param("a...,a...->...", ["3,?,2", "3,1,2"], id="ellipsis-dynamic-dim"),
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUM_SHAPES)
def test_einsum_infer_agrees(tmp_path, equation, shapes):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda *xs: ops.einsum(list(xs), equation),
        [P(np.zeros((), np.float32), shape=s) for s in shapes],
    )
    assert ours == theirs


@pytest.mark.parametrize(
    "equation",
    ["ij..k.,jk->ik", "i1,j->ij", "ij->ik", "i, j -> ij", "...i,i->i"],
    ids=["two-dots", "digit", "unknown-label", "spaces", "ellipsis-dropped"],
)
def test_bad_equations_are_refused(equation):  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError):
        ops.einsum(
            [ops.parameter([2, 2], ov.Type.f32), ops.parameter([2, 2], ov.Type.f32)][
                : equation.count(",") + 1
            ],
            equation,
        )
    with pytest.raises(ovonehot.Error):
        parse_equation(equation)


def test_implicit_output_keeps_a_label_repeated_in_one_input(tmp_path):  # type: ignore[no-untyped-def]
    # OpenVINO's implicit rule, not NumPy's: "ii" means "ii->ii" (a [4,4] output), no trace.
    ours, theirs = infer_shapes(tmp_path, lambda x: ops.einsum([x], "ii"), [P(np.zeros((4, 4), np.float32))])
    assert ours == theirs == ["f32[4,4]"]
