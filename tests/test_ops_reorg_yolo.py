"""ReorgYolo-0 against OpenVINO: values against the CPU plugin (the core op has no ``evaluate``;
data movement, exact), shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8], ids=["f32", "i32", "u8"])
@pytest.mark.parametrize(
    ("shape", "stride"),
    [((1, 4, 4, 4), 2), ((2, 8, 6, 4), 2), ((1, 9, 6, 3), 3), ((1, 64, 26, 26), 2), ((1, 3, 2, 2), 1)],
)
def test_reorg_yolo_matches_cpu(tmp_path, shape, stride, dtype):  # type: ignore[no-untyped-def]
    x = (np.arange(np.prod(shape)) % 251).reshape(shape).astype(dtype)
    node, params = build(lambda a: o15.reorg_yolo(a, [stride]), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    assert_same(ours, cpu_outputs(node, params, [x])[0].astype(dtype))


@pytest.mark.parametrize("stride", [2, 3])
@pytest.mark.parametrize(
    "shape", ["1,8,4,4", "?,8,?,4", "1,2,4,4", "1,8,5,4", "...", "1,8,4", "1,4..8,2..6,4", "1,?,4,4"]
)
def test_reorg_yolo_inference_matches_openvino(shape, stride):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.reorg_yolo import ReorgYoloAttrs, infer_reorg_yolo
    from ovonehot.types import ElementType, PartialShape

    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    try:
        node = o15.reorg_yolo(o15.parameter(ps, ov.Type.f32), [stride])
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    try:
        (out,) = infer_reorg_yolo(
            ReorgYoloAttrs(stride), [TensorInfo(ElementType.f32, PartialShape.parse(shape))]
        )
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
