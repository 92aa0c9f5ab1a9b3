"""RegionYolo-0 against OpenVINO: values against the CPU plugin (the core op has no ``evaluate``)
within ATOL (the plugin computes exp its own way: measured up to 6e-8 on f32 values in
(0, 1); f16 equal), shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")

# f64: the CPU plugin computes in f32 (measured up to 3.2e-7 from ovonehot's f64 softmax).
ATOL = {np.float32: 3e-7, np.float16: 1e-3, np.float64: 1e-6}

YOLO_V2 = {"coords": 4, "classes": 3, "num": 2, "do_softmax": True, "mask": [], "axis": 1, "end_axis": 3}
YOLO_V3 = {"coords": 4, "classes": 3, "num": 6, "do_softmax": False, "mask": [0, 2], "axis": 1, "end_axis": 3}
CASES = [
    ("v2", (1, 16, 3, 4), YOLO_V2),
    ("v2-batch", (2, 16, 2, 2), YOLO_V2),
    ("v2-axis0", (2, 16, 2, 3), {**YOLO_V2, "axis": 0, "end_axis": 1}),
    ("v2-noflat", (1, 16, 2, 3), {**YOLO_V2, "axis": 2, "end_axis": 1}),
    ("v2-neg-axis", (1, 16, 2, 3), {**YOLO_V2, "axis": -2, "end_axis": -1}),
    ("v2-wide-c", (2, 20, 2, 2), YOLO_V2),  # C beyond num * (classes + coords + 1): copied
    ("v2-one-class", (1, 12, 2, 2), {**YOLO_V2, "classes": 1, "num": 2}),
    ("v2-coords1", (2, 10, 2, 2), {**YOLO_V2, "coords": 1, "classes": 3}),
    ("v3", (1, 16, 3, 3), YOLO_V3),
    ("v3-batch", (3, 16, 2, 2), YOLO_V3),
    ("v3-fewer-planes", (2, 24, 2, 2), YOLO_V3),  # C beyond len(mask) * ...: a flat prefix
    ("v3-coords0", (2, 8, 2, 2), {**YOLO_V3, "coords": 0, "classes": 3}),
    ("v2-empty", (0, 16, 2, 2), YOLO_V2),
    ("v2-empty-map", (1, 16, 0, 2), YOLO_V2),
    ("v3-empty-mask", (1, 16, 2, 2), {**YOLO_V3, "mask": []}),
]


F64_CASES = ("v2-batch", "v3-batch", "v2-wide-c")  # (f64: the plugin's f32 arithmetic, a few cases suffice)
DTYPES = [
    (np.float32, "f32", CASES),
    (np.float16, "f16", CASES),
    (np.float64, "f64", [c for c in CASES if c[0] in F64_CASES]),
]


@pytest.mark.parametrize(
    ("shape", "attrs", "dtype"),
    [pytest.param(c[1], c[2], dt, id=f"{c[0]}-{name}") for dt, name, cases in DTYPES for c in cases],
)
def test_region_yolo_matches_cpu(tmp_path, shape, attrs, dtype):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if x.size:
        x.reshape(-1)[:4] = [0, 30, -30, 88]  # saturating logistic and softmax inputs
    node, params = build(lambda a: o1.region_yolo(a, **attrs), [P(x)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x]).values()
    theirs = cpu_outputs(node, params, [x])[0]
    assert ours.dtype == dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), rtol=0, atol=ATOL[dtype])


def test_region_yolo_refuses_too_few_channels() -> None:
    import ovonehot.ops.region_yolo as ry
    from ovonehot.errors import InputError

    attrs = ry.RegionYoloAttrs(4, 3, 2, True, (), 1, 3)
    with pytest.raises(InputError, match=r"needs C >= 16"):
        ry.evaluate_region_yolo(attrs, [np.zeros((1, 15, 2, 2), np.float32)])


SHAPES = ["1,125,13,13", "1,?,13,2..5", "2,2..3,4,5", "...", "1,125,13", "1,2,3,4,5", "?,?,?,?"]
ATTRS = [
    {},
    {"axis": 0, "end_axis": 1},
    {"axis": 2, "end_axis": 1},
    {"axis": -3, "end_axis": -1},
    {"axis": 4, "end_axis": 3},
    {"axis": 1, "end_axis": -5},
    {"do_softmax": False, "mask": [0, 1, 2]},
    {"do_softmax": False, "mask": []},
]


@pytest.mark.parametrize("attrs", ATTRS, ids=[str(a) for a in ATTRS])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("et", ["f32", "i32"])
def test_region_yolo_inference_matches_openvino(shape, attrs, et):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.region_yolo import RegionYoloAttrs, infer_region_yolo
    from ovonehot.types import ElementType, PartialShape

    full = {"coords": 4, "classes": 20, "num": 5, "do_softmax": True, "mask": [], "axis": 1, "end_axis": 3}
    full.update(attrs)
    ps = ov.PartialShape.dynamic() if shape == "..." else ov.PartialShape(f"[{shape}]")
    try:
        node = o1.region_yolo(o1.parameter(ps, getattr(ov.Type, et)), **full)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    ours_attrs = RegionYoloAttrs(
        full["coords"], full["classes"], full["num"], full["do_softmax"], tuple(full["mask"]), full["axis"],
        full["end_axis"],
    )  # fmt: skip
    try:
        (out,) = infer_region_yolo(
            ours_attrs, [TensorInfo(ElementType.from_name(et), PartialShape.parse(shape))]
        )
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
