"""DetectionOutput-0 (opset1) and -8 against OpenVINO: values against the CPU plugin (the core op
has no ``evaluate``) on generated SSD heads, half of them with equal scores and aligned boxes
(ties in top_k, NMS and keep_top_k), within ATOL (boxes through exp: the plugin's rounding);
labels, scores and row order exactly; shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")

ATOL = 1e-6
CORNER, CENTER = "caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE"


def _inputs(
    rng: np.random.Generator, n: int, priors: int, classes: int, opt: dict[str, Any]
) -> list[np.ndarray]:
    loc_classes = 1 if opt["share_location"] else classes
    loc = (rng.standard_normal((n, priors * loc_classes * 4)) * 0.3).astype(np.float32)
    if opt["ties"]:
        conf = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], (n, priors * classes)).astype(np.float32)
    else:
        conf = rng.random((n, priors * classes)).astype(np.float32)
    batch = opt["prior_batch"]
    centre, wh = rng.random((batch, priors, 2)) * 0.8, rng.random((batch, priors, 2)) * 0.4 + 0.05
    boxes = np.concatenate([centre, centre + wh], -1)
    if opt["ties"]:
        boxes = np.round(boxes * 4) / 4 + np.array([0, 0, 0.2, 0.2])  # equal and touching boxes
    size = 4 if opt["normalized"] else 5
    if not opt["normalized"]:
        boxes = np.concatenate([np.zeros((batch, priors, 1)), boxes * np.array([300, 200, 300, 200])], -1)
    rows = [boxes.reshape(batch, -1)]
    if not opt["variance_encoded_in_target"]:
        var = np.zeros((batch, priors * size))
        var[:, : priors * 4] = np.tile([0.1, 0.1, 0.2, 0.2], priors)
        rows.append(var)
    out = [loc, conf, np.stack(rows, 1).astype(np.float32)]
    if opt["arm"]:
        out.append(rng.random((n, priors * 2)).astype(np.float32))
        out.append((rng.standard_normal((n, priors * loc_classes * 4)) * 0.3).astype(np.float32))
    return out


def _case(seed: int) -> tuple[int, dict[str, Any], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    n, priors, classes = int(rng.integers(1, 3)), int(rng.integers(1, 12)), int(rng.integers(2, 5))
    opt = {
        "share_location": bool(rng.random() < 0.6),
        "normalized": bool(rng.random() < 0.7),
        "variance_encoded_in_target": bool(rng.random() < 0.3),
        "arm": bool(rng.random() < 0.25),
        "ties": seed % 2 == 0,
        "prior_batch": int(rng.choice([1, n])),
    }
    attrs = {
        "keep_top_k": [int(rng.choice([-1, 1, 2, 5, 100]))],
        "nms_threshold": float(rng.choice([0.3, 0.5, 0.7])),
        "top_k": int(rng.choice([-1, 1, 3, 50])),
        "code_type": str(rng.choice([CORNER, CENTER])),
        "share_location": opt["share_location"],
        "normalized": opt["normalized"],
        "variance_encoded_in_target": opt["variance_encoded_in_target"],
        "confidence_threshold": float(rng.choice([0.0, 0.2, 0.5])),
        "background_label_id": int(rng.choice([0, 0, 1, -1])),
        "decrease_label_id": bool(rng.random() < 0.3),
        "clip_before_nms": bool(rng.random() < 0.3),
        "clip_after_nms": bool(rng.random() < 0.3),
        "input_height": 200,
        "input_width": 300,
        "objectness_score": float(rng.choice([0.0, 0.4])),
    }
    if attrs["decrease_label_id"]:
        attrs["background_label_id"] = 0  # (the CPU plugin refuses MXNet style with another background)
    version = int(rng.choice([1, 8]))
    if version == 1:
        attrs["num_classes"] = classes
    return version, attrs, _inputs(rng, n, priors, classes, opt)


def _factory(version: int, attrs: dict[str, Any]) -> Any:
    ops = o1 if version == 1 else o8
    return lambda *a: ops.detection_output(a[0], a[1], a[2], attrs, *a[3:])


def _assert_rows_match(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape
    rows_o, rows_t = ours.reshape(-1, 7), theirs.reshape(-1, 7)
    np.testing.assert_array_equal(rows_o[:, :3], rows_t[:, :3])  # image, label, score: exact, in order
    np.testing.assert_allclose(rows_o[:, 3:], rows_t[:, 3:], rtol=0, atol=ATOL)


@pytest.mark.parametrize("seed", range(30))
def test_detection_output_matches_cpu(tmp_path, seed):  # type: ignore[no-untyped-def]
    version, attrs, arrays = _case(seed)
    node, params = build(_factory(version, attrs), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    _assert_rows_match(ours, cpu_outputs(node, params, arrays)[0])


def test_detection_output_f16_is_computed_in_f32(tmp_path) -> None:  # type: ignore[no-untyped-def]
    version, attrs, arrays = _case(3)
    halves = [a.astype(np.float16) for a in arrays]
    node, params = build(_factory(version, attrs), [P(a) for a in halves])
    model = export(tmp_path, node, params)
    (ours,) = model.run(halves).values()
    theirs = cpu_outputs(node, params, halves)[0]
    assert ours.dtype == np.float16
    np.testing.assert_allclose(ours.astype(np.float32), theirs.astype(np.float32), rtol=0, atol=1e-3)


def test_detection_output_of_no_images_is_empty(tmp_path) -> None:  # type: ignore[no-untyped-def]
    priors = np.random.default_rng(0).random((1, 2, 16)).astype(np.float32)
    arrays = [np.zeros((0, 16), np.float32), np.zeros((0, 12), np.float32), priors]
    attrs = {"keep_top_k": [5], "nms_threshold": 0.5, "normalized": True}
    node, params = build(_factory(8, attrs), [P(a) for a in arrays])
    (ours,) = export(tmp_path, node, params).run(arrays).values()
    assert ours.shape == (1, 1, 0, 7)
    assert ours.shape == cpu_outputs(node, params, arrays)[0].shape


F32 = "f32"
SHAPES = [
    (1, ("1,16", "1,12", "1,2,16"), {}),
    (1, ("1,16", "1,12", "1,2,16"), {"keep_top_k": [-1], "top_k": 3}),
    (1, ("1,16", "1,12", "1,2,16"), {"keep_top_k": [-1]}),
    (1, ("1,16", "1,12", "1,2,16"), {"keep_top_k": [0]}),
    (1, ("1,16", "1,12", "1,2,16"), {"keep_top_k": [2, 3]}),
    (1, ("1,16", "1,12", "1,2,16"), {"code_type": "foo"}),
    (1, ("?,?", "?,?", "?,?,?"), {}),
    (1, ("...", "...", "..."), {}),
    (8, ("?,?", "?,?", "?,?,?"), {"keep_top_k": [-1]}),
    (8, ("2,16", "2,12", "1,2,16"), {"keep_top_k": [-1], "top_k": 2}),
    (8, ("2,16", "2,12", "1,2,16"), {"keep_top_k": [-1], "share_location": False}),
    (8, ("2,48", "2,12", "1,2,16"), {"keep_top_k": [-1], "share_location": False}),
    (1, ("2,48", "2,12", "1,2,16"), {"keep_top_k": [-1], "share_location": False}),
    (8, ("2,16", "2,12", "1,2,20"), {"keep_top_k": [-1], "normalized": False}),
    (8, ("2,16", "2,12", "1,1,16"), {"keep_top_k": [-1], "variance_encoded_in_target": True}),
    (8, ("2,16", "2,12", "1,2,16"), {"keep_top_k": [-1], "variance_encoded_in_target": True}),
    (8, ("2,16", "2,12", "3,2,16"), {"keep_top_k": [-1]}),
    (8, ("2,16", "2,12", "1,2,16", "2,8", "2,16"), {"keep_top_k": [-1]}),
    (1, ("2,16", "2,12", "1,2,16", "2,8", "2,16"), {"keep_top_k": [-1]}),
    (8, ("2,16", "2,12", "1,2,16", "2,6", "2,16"), {"keep_top_k": [-1]}),
    (8, ("2,16", "2,12", "?,?,?", "2,8", "2,16"), {"keep_top_k": [-1]}),
    (8, ("?,?", "?,?", "?,?,?", "2,8", "?,?"), {"keep_top_k": [-1]}),
    (8, ("2,16", "3,12", "1,2,16"), {}),
    (8, ("2,16", "2,13", "1,2,16"), {}),
    (8, ("2,16", "2,12", "1,2,17"), {}),
    (1, ("2,16", "2,12", "1,2,16"), {"num_classes": 4}),
    (8, ("2,?", "2,?", "1,2,?"), {"keep_top_k": [-1]}),
    (8, ("2,16", "?,?", "1,2,?"), {"keep_top_k": [-1]}),
    (8, ("2..4,16", "?,12", "1,2,16"), {"keep_top_k": [3]}),
    (8, ("16", "2,12", "1,2,16"), {}),
    (8, ("2,16", "2,12", "1,2,16", "2,8", "3,16"), {}),
    (8, ("2,16", "2,12", "1,16"), {}),
]


@pytest.mark.parametrize(
    "types", [(F32, F32, F32), ("f16", "f16", F32), ("f16", F32, F32), ("i32", "i32", F32)]
)
@pytest.mark.parametrize(("version", "shapes", "extra"), SHAPES)
def test_detection_output_inference_matches_openvino(version, shapes, extra, types):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.detection_output import parse_detection_output_0, parse_detection_output_8
    from ovonehot.types import ElementType, PartialShape

    attrs = {"num_classes": 3, "keep_top_k": [5], "nms_threshold": 0.5, "normalized": True, **extra}
    if version == 8:
        attrs.pop("num_classes")
    ets = [*types, F32, F32]

    def param(s: str, et: str) -> Any:
        ps = ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")
        return o1.parameter(ps, getattr(ov.Type, et))

    try:
        node = _factory(version, attrs)(*[param(s, et) for s, et in zip(shapes, ets, strict=False)])
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    node_attrs = tuple(
        (k, ",".join(map(str, v)) if isinstance(v, list) else str(v).lower()) for k, v in attrs.items()
    )
    from ovonehot.graph import Node, Port

    layer = Node(0, "do", "DetectionOutput", f"opset{version}", node_attrs, (Port(0),), (Port(1),))
    parse = parse_detection_output_0 if version == 1 else parse_detection_output_8
    from ovonehot.ops.detection_output import infer_detection_output

    infos = [
        TensorInfo(ElementType.from_name(et), PartialShape.parse(s))
        for s, et in zip(shapes, ets, strict=False)
    ]
    try:
        (out,) = infer_detection_output(parse(layer), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
