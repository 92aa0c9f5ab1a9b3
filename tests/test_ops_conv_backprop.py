"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 against OpenVINO.

Types and shapes are always OpenVINO's inference (static, dynamic and interval dims,
output_shape constant, from a ShapeOf, or unknown).  Values: the core has no evaluate
for these ops, so they are compared with the CPU plugin (deterministic config) within
``CPU_RTOL``: oneDNN sums in f32 in its own order, ovonehot in float64 rounded once
(measured differences stay below 1e-6 relative here).
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export, infer_shapes

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

CPU_RTOL = 1e-5
RNG = np.random.default_rng(41)
X = RNG.standard_normal((2, 4, 5, 6)).astype(np.float32)
W = RNG.standard_normal((4, 3, 3, 2)).astype(np.float32)
W_GROUPS = RNG.standard_normal((2, 2, 3, 3, 2)).astype(np.float32)

# strides, pads_begin, pads_end, dilations, auto_pad, output_padding, output_shape
CASES = [
    pytest.param([1, 1], [0, 0], [0, 0], [1, 1], "explicit", [0, 0], None, id="plain"),
    pytest.param([2, 3], [0, 0], [0, 0], [1, 1], "explicit", [0, 0], None, id="strides"),
    pytest.param([2, 2], [1, 0], [2, 1], [1, 1], "explicit", [0, 0], None, id="pads"),
    pytest.param([1, 2], [0, 1], [1, 0], [2, 3], "explicit", [0, 0], None, id="dilations"),
    pytest.param([3, 2], [1, 1], [0, 0], [1, 1], "explicit", [2, 1], None, id="output-padding"),
    pytest.param([2, 2], [3, 3], [3, 3], [1, 1], "valid", [0, 0], None, id="valid-ignores-pads"),
    pytest.param([2, 2], [0, 0], [0, 0], [1, 1], "same_upper", [0, 0], None, id="same-upper-no-shape"),
    pytest.param([2, 2], [1, 1], [1, 1], [1, 1], "explicit", [0, 0], [10, 12], id="shape-explicit"),
    pytest.param([2, 2], [0, 0], [0, 0], [1, 1], "explicit", [0, 0], [13, 15], id="shape-past-the-data"),
    pytest.param([2, 2], [0, 0], [0, 0], [1, 1], "same_upper", [0, 0], [10, 12], id="shape-same-upper"),
    pytest.param([2, 3], [0, 0], [0, 0], [1, 2], "same_lower", [0, 0], [9, 17], id="shape-same-lower"),
    pytest.param(
        [2, 2], [0, 0], [0, 0], [1, 1], "same_upper", [1, 1], [10, 12], id="shape-same-output-padding"
    ),
]


def _run(tmp_path, factory, inputs, exact=True):  # type: ignore[no-untyped-def]
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    feeds = [i.array for i in inputs if not i.const]
    return next(iter(model.run(feeds, exact=exact).values())), cpu_outputs(node, params, feeds)[0]


# (exact=False: the fast kernel, f32 sums by BLAS, is within the same distance of oneDNN's f32 sums)
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
@pytest.mark.parametrize("group", [False, True], ids=["plain", "group"])
@pytest.mark.parametrize(("strides", "pb", "pe", "dilations", "auto_pad", "out_pad", "out_shape"), CASES)
def test_backprop_matches_cpu(
    tmp_path, group, strides, pb, pe, dilations, auto_pad, out_pad, out_shape, exact
):  # type: ignore[no-untyped-def]
    fn = ops.group_convolution_backprop_data if group else ops.convolution_backprop_data
    w = W_GROUPS if group else W
    if out_shape is None:
        ours, theirs = _run(
            tmp_path,
            lambda a, b: fn(a, b, strides, None, pb, pe, dilations, auto_pad, out_pad),
            [P(X), C(w)],
            exact,
        )
    else:
        ours, theirs = _run(
            tmp_path,
            lambda a, b, s: fn(a, b, strides, s, pb, pe, dilations, auto_pad, out_pad),
            [P(X), C(w), C(np.array(out_shape, np.int64))],
            exact,
        )
    np.testing.assert_allclose(ours, theirs, rtol=CPU_RTOL, atol=CPU_RTOL)


def test_backprop_1d_and_3d_of_integers_are_exact(tmp_path):  # type: ignore[no-untyped-def]
    # small integers in f32: every partial sum is exact, whatever the order
    x1 = RNG.integers(-3, 4, (1, 2, 7)).astype(np.float32)
    w1 = RNG.integers(-3, 4, (2, 3, 3)).astype(np.float32)
    ours, theirs = _run(
        tmp_path, lambda a, b: ops.convolution_backprop_data(a, b, [2], None, [1], [0]), [P(x1), C(w1)]
    )
    assert_same(ours, theirs)
    x3 = RNG.integers(-3, 4, (1, 2, 2, 3, 2)).astype(np.float32)
    w3 = RNG.integers(-3, 4, (2, 1, 2, 2, 3)).astype(np.float32)
    ours, theirs = _run(
        tmp_path,
        lambda a, b: ops.convolution_backprop_data(a, b, [1, 2, 2], None, [0, 1, 0], [1, 0, 0]),
        [P(x3), C(w3)],
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize("data", ["?,4,?,6", "2,4,3..7,6", "...", "2,?,1..3,6"])
@pytest.mark.parametrize("filters", [None, "4,3,?,2", "4,3,2..4,2"], ids=["const", "unknown-k", "interval-k"])
@pytest.mark.parametrize("auto_pad", ["explicit", "same_upper"])
def test_backprop_infer_agrees(tmp_path, data, filters, auto_pad):  # type: ignore[no-untyped-def]
    ins = [
        P(np.zeros((), np.float32), shape=data),
        C(W) if filters is None else P(np.zeros((), np.float32), shape=filters),
    ]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: ops.convolution_backprop_data(
            a, b, [2, 2], None, [1, 3], [1, 0], [1, 1], auto_pad, [1, 0]
        ),
        ins,
    )
    assert ours == theirs


# (an output_shape input of unknown length makes OpenVINO 2026.4 throw "Accessing out-of-range dimension")
@pytest.mark.parametrize("source", ["shape-of-interval", "unknown-values"])
def test_backprop_output_shape_input_infer_agrees(tmp_path, source):  # type: ignore[no-untyped-def]
    if source == "shape-of-interval":
        shape_in = P(np.zeros((), np.float32), shape="3..9,11")
    else:
        shape_in = P(np.array([9, 11], np.int64), shape="2")

    def make(s):  # type: ignore[no-untyped-def]
        return ops.shape_of(s) if source == "shape-of-interval" else s

    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b, s: ops.group_convolution_backprop_data(a, b, [2, 2], make(s), auto_pad="same_lower"),
        [P(X), C(W_GROUPS), shape_in],
    )
    assert ours == theirs
