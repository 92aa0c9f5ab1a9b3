"""BinaryConvolution-1 against OpenVINO's inference and an oracle written from the spec.

OpenVINO 2026.4's core has no ``evaluate`` for the op, and its CPU plugin reads memory it did not
write (the same compiled model and input give different results run to run, measured on
2026.4.1: docs/openvino-behaviour.md), so
the expected values come from the spec's definition computed here tap by tap: ``2 * P - B`` with
``P`` the taps whose value (``pad_value`` in the padding) equals the filter bit.  The filters are
u1 Constants written by ``ov.save_model`` (packed, element 0 in the top bit), so the reader's u1
unpacking is checked too.  Shapes and refusals: OpenVINO's own inference of the same node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, build, export

from ovonehot.errors import ValidationError
from ovonehot.ops.binary_conv import BinaryConvAttrs, BinaryMode, infer_binary_convolution
from ovonehot.ops.common.spatial import AutoPad, Window
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
ov_op = pytest.importorskip("openvino.op")

RNG = np.random.default_rng(1)


def _u1_constant(bits: np.ndarray) -> Any:
    tensor = ov.Tensor(ov.Type.u1, list(bits.shape))
    tensor.data[:] = np.packbits(bits.reshape(-1).astype(np.uint8))
    return ov_op.Constant(tensor)


def _oracle(x: np.ndarray, bits: np.ndarray, strides, pb, pe, dil, pad_value: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    n, c, h, w = x.shape
    c_out, _, kh, kw = bits.shape
    oh = (h + pb[0] + pe[0] - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (w + pb[1] + pe[1] - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    pad = x.dtype.type(pad_value)
    out = np.zeros((n, c_out, oh, ow), np.int64)
    for b, o, i, j in np.ndindex(n, c_out, oh, ow):
        matches = 0
        for ci, ky, kx in np.ndindex(c, kh, kw):
            y, xx = i * strides[0] - pb[0] + ky * dil[0], j * strides[1] - pb[1] + kx * dil[1]
            value = x[b, ci, y, xx] if 0 <= y < h and 0 <= xx < w else pad
            matches += int(value == bits[o, ci, ky, kx])
        out[b, o, i, j] = 2 * matches - c * kh * kw
    return out


CASES = [
    pytest.param((1, 3, 5, 5), (2, 3, 3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1.0, id="plain"),
    pytest.param((2, 5, 6, 7), (3, 5, 2, 3), (2, 1), (1, 2), (0, 1), (1, 2), 1.0, id="strided-padded"),
    pytest.param((1, 2, 4, 4), (4, 2, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 0.0, id="pad-0"),
    pytest.param((1, 2, 4, 4), (1, 2, 3, 3), (1, 1), (2, 2), (2, 2), (2, 2), -1.0, id="pad-minus-1"),
    pytest.param((0, 2, 4, 4), (1, 2, 2, 2), (1, 1), (0, 0), (0, 0), (1, 1), 1.0, id="empty-batch"),
]


@pytest.mark.parametrize("values", ["binary", "any"])
@pytest.mark.parametrize(("shape", "fshape", "strides", "pb", "pe", "dil", "pad_value"), CASES)
def test_values_match_the_spec(tmp_path: Any, shape: tuple[int, ...], fshape: tuple[int, ...],
                               strides: tuple[int, int], pb: tuple[int, int], pe: tuple[int, int],
                               dil: tuple[int, int], pad_value: float, values: str) -> None:  # fmt: skip
    choices = [0.0, 1.0] if values == "binary" else [0.0, 1.0, -1.0, 0.5, 2.0, -0.0, np.nan]
    x = RNG.choice(choices, shape).astype(np.float32)
    bits = RNG.integers(0, 2, fshape).astype(np.uint8)
    node, params = build(
        lambda d: o1.binary_convolution(
            d, _u1_constant(bits), list(strides), list(pb), list(pe), list(dil), "xnor-popcount", pad_value
        ),
        [P(x)],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    for exact in (True, False):
        (ours,) = model.run([x], exact=exact).values()
        np.testing.assert_array_equal(
            ours, _oracle(x, bits, strides, pb, pe, dil, pad_value).astype(np.float32)
        )


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float64, np.int32, np.uint8], ids=["f16", "f64", "i32", "u8"]
)
def test_other_data_types(tmp_path: Any, dtype: Any) -> None:
    x = RNG.integers(0, 2, (1, 2, 4, 4)).astype(dtype)
    bits = RNG.integers(0, 2, (3, 2, 2, 2)).astype(np.uint8)
    node, params = build(
        lambda d: o1.binary_convolution(
            d, _u1_constant(bits), [1, 1], [1, 0], [0, 1], [1, 1], "xnor-popcount", 1.0
        ),
        [P(x)],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    expected = _oracle(x, bits, (1, 1), (1, 0), (0, 1), (1, 1), 1.0)
    np.testing.assert_array_equal(ours, expected.astype(dtype))


SHAPES = [
    ("1,3,5,5", "2,3,3,3", {}),
    ("1,3,5,5", "2,2,3,3", {}),
    ("1,3,5", "2,3,3", {}),
    ("...", "2,3,3,3", {}),
    ("?,?,?,?", "...", {}),
    ("1,3,2..9,5", "2,3,3,3", {"strides": [2, 1]}),
    ("1,3,5,5", "2,3,3,3", {"auto_pad": "same_upper"}),
    ("1,3,5,5", "2,3,3,3", {"auto_pad": "valid"}),
    ("1,3,5,5", "2,3,7,3", {}),
    ("1,3,5,5", "2,3,3", {}),
]


def test_shapes_match_openvino() -> None:
    differ = {}
    for data, filters, attrs in SHAPES:
        kw = dict(attrs)
        strides = kw.pop("strides", [1, 1])
        d = o1.parameter(ov.PartialShape(f"[{data}]"), ov.Type.f32)
        f = o1.parameter(ov.PartialShape(f"[{filters}]"), ov.Type.u1)
        try:
            node = o1.binary_convolution(d, f, strides, [0, 0], [0, 0], [1, 1], "xnor-popcount", 1.0, **kw)
            theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
        except RuntimeError:
            theirs = "refused"
        window = Window(tuple(strides), (1, 1), (0, 0), (0, 0), AutoPad(kw.get("auto_pad", "explicit")))
        infos = [
            TensorInfo(ElementType.f32, PartialShape.parse(data)),
            TensorInfo(ElementType.u1, PartialShape.parse(filters)),
        ]
        try:
            (out,) = infer_binary_convolution(BinaryConvAttrs(window, BinaryMode.XNOR_POPCOUNT, 1.0), infos)
            ours = f"{out.element_type}{out.shape}"
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(data, filters, str(attrs))] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"
