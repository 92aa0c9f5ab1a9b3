"""ExtractImagePatches-3 against OpenVINO: values against the CPU plugin (its core op has no
``evaluate``; data movement, exact) and against a direct loop over the spec's definition;
shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

CASES = [
    pytest.param((1, 1, 10, 10), [3, 3], [5, 5], [1, 1], id="tf-example"),
    pytest.param((2, 3, 7, 6), [2, 2], [1, 2], [1, 1], id="overlapping"),
    pytest.param((1, 2, 9, 8), [2, 3], [3, 2], [2, 1], id="rates"),
    pytest.param((1, 1, 5, 5), [1, 1], [1, 1], [1, 1], id="1x1"),
    pytest.param((1, 2, 4, 5), [4, 5], [1, 1], [1, 1], id="whole-image"),
    pytest.param((1, 1, 3, 3), [4, 4], [2, 2], [1, 1], id="kernel-larger"),
]


def _loop(x, sizes, strides, rates, pad_top, pad_left, oh, ow):  # type: ignore[no-untyped-def]
    n, c, h, w = x.shape
    out = np.zeros((n, c * sizes[0] * sizes[1], oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            ch = 0
            for kh in range(sizes[0]):
                for kw in range(sizes[1]):
                    for cc in range(c):
                        r, q = (
                            i * strides[0] - pad_top + kh * rates[0],
                            j * strides[1] - pad_left + kw * rates[1],
                        )
                        if 0 <= r < h and 0 <= q < w:
                            out[:, ch, i, j] = x[:, cc, r, q]
                        ch += 1
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.int8], ids=["f32", "i8"])
@pytest.mark.parametrize("pad", ["valid", "same_upper", "same_lower"])
@pytest.mark.parametrize(("shape", "sizes", "strides", "rates"), CASES)
def test_extract_image_patches_matches_cpu(tmp_path, shape, sizes, strides, rates, pad, dtype):  # type: ignore[no-untyped-def]
    from ovonehot.ops.extract_patches import PatchAttrs, PatchPad, _begin_pad

    x = (np.arange(np.prod(shape)) % 120 + 1).reshape(shape).astype(dtype)
    node, params = build(lambda a: o15.extract_image_patches(a, sizes, strides, rates, pad), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, cpu_outputs(node, params, [x])[0].astype(dtype))
    attrs = PatchAttrs(tuple(sizes), tuple(strides), tuple(rates), PatchPad(pad))
    pads = [_begin_pad(attrs, a, shape[2 + a]) for a in range(2)]
    assert_same(ours, _loop(x, sizes, strides, rates, *pads, *ours.shape[2:]))


SHAPES = ["1,2,?,6", "1,2,4..8,6", "?,?,?,?", "1,2,0,6", "1,2,3", "2,3,10,9", "...", "1,2,1,1", "1,2,..9,3.."]


@pytest.mark.parametrize("pad", ["valid", "same_upper"])
@pytest.mark.parametrize("shape", SHAPES)
def test_extract_image_patches_inference_matches_openvino(shape, pad):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.extract_patches import PatchAttrs, PatchPad, infer_extract_image_patches
    from ovonehot.types import ElementType, PartialShape

    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    try:
        node = o15.extract_image_patches(o15.parameter(ps, ov.Type.f32), [3, 2], [2, 3], [2, 1], pad)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    attrs = PatchAttrs((3, 2), (2, 3), (2, 1), PatchPad(pad))
    try:
        (out,) = infer_extract_image_patches(attrs, [TensorInfo(ElementType.f32, PartialShape.parse(shape))])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
