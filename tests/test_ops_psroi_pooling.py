"""PSROIPooling-0 (average, bilinear) and DeformablePSROIPooling-1 (with and without offsets)
against OpenVINO: values bit for bit against the CPU plugin (the core ops have no ``evaluate``)
on generated maps and boxes (boxes partly outside the map, inverted, and a -1 batch id ending
the list); shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")

KINDS = ("average", "bilinear", "deformable", "deformable-offsets")


def _case(seed: int, kind: str) -> tuple[Any, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    g, d, n = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    h, w = int(rng.integers(3, 9)), int(rng.integers(3, 9))
    bx, by = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    scale = float(rng.choice([1.0, 0.5, 0.0625]))
    channels = d * bx * by if kind == "bilinear" else d * g * g
    x = rng.standard_normal((n, channels, h, w)).astype(np.float32)
    r = int(rng.integers(2, 6))
    if kind == "bilinear":  # normalized boxes
        lo = rng.uniform(-0.2, 0.8, (r, 2))
        hi = lo + rng.uniform(-0.1, 0.6, (r, 2))
        rois = np.concatenate([rng.integers(0, n, (r, 1)), lo / scale, hi / scale], 1)
    else:
        lo = rng.uniform(-2, w, (r, 2))
        hi = lo + rng.uniform(-1, w, (r, 2))
        rois = np.concatenate([rng.integers(0, n, (r, 1)), lo / scale, hi / scale], 1)
    if seed % 3 == 0:
        rois[r - 1, 0] = -1  # the end of the list: the rest is zeros
    arrays = [x, rois.astype(np.float32)]
    if kind in ("average", "bilinear"):
        return (lambda a, b: o1.psroi_pooling(a, b, d, g, scale, bx, by, kind)), arrays
    part = int(rng.integers(1, 4))
    attrs = {
        "output_dim": d,
        "spatial_scale": scale,
        "group_size": g,
        "mode": "bilinear_deformable",
        "spatial_bins_x": bx,
        "spatial_bins_y": by,
        "trans_std": float(rng.choice([0.1, 1.0])),
        "part_size": part,
    }
    if kind == "deformable":
        return (lambda a, b: o1.deformable_psroi_pooling(a, b, **attrs)), arrays
    classes = int(rng.choice([c for c in (1, d) if d % c == 0]))
    arrays.append((rng.standard_normal((r, 2 * classes, part, part)) * 0.3).astype(np.float32))
    return (lambda a, b, c: o1.deformable_psroi_pooling(a, b, offsets=c, **attrs)), arrays


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_psroi_pooling_matches_cpu(tmp_path, seed, kind):  # type: ignore[no-untyped-def]
    factory, arrays = _case(seed, kind)
    node, params = build(factory, [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    assert_same(ours, cpu_outputs(node, params, arrays)[0])


@pytest.mark.parametrize("kind", KINDS)
def test_psroi_pooling_f16_rounds_once(tmp_path, kind):  # type: ignore[no-untyped-def]
    factory, arrays = _case(1, kind)
    arrays[0] = arrays[0].astype(np.float16)
    node, params = build(factory, [P(a) for a in arrays])
    (ours,) = export(tmp_path, node, params).run(arrays).values()
    assert_same(ours, cpu_outputs(node, params, arrays)[0])


def test_psroi_pooling_refuses_a_batch_id_out_of_range() -> None:
    from ovonehot.errors import InputError
    from ovonehot.ops.psroi_pooling import PSROIAttrs, evaluate_psroi_pooling

    attrs = PSROIAttrs(1, 2, 1.0, 1, 1, "average")
    with pytest.raises(InputError, match=r"range of \[0, N-1\], got 1"):
        evaluate_psroi_pooling(
            attrs, [np.zeros((1, 4, 3, 3), np.float32), np.array([[1, 0, 0, 2, 2]], np.float32)]
        )


F32 = "f32"
PS_CASES = [
    (("1,8,6,6", "3,5"), {}),
    (("1,9,6,6", "3,5"), {}),
    (("1,8,6,6", "3,4"), {}),
    (("1,8,6", "3,5"), {}),
    (("1,8,6,6", "3,5,1"), {}),
    (("...", "..."), {}),
    (("?,?,?,?", "?,?"), {}),
    (("1,2..9,6,6", "2..4,5"), {}),
    (("1,8,6,6", "3,5"), {"mode": "bilinear", "spatial_bins_x": 2, "spatial_bins_y": 2}),
    (("1,6,6,6", "3,5"), {"mode": "bilinear", "spatial_bins_x": 3, "spatial_bins_y": 1}),
    (("1,8,6,6", "3,5"), {"mode": "max"}),
    (("1,8,6,6", "3,5"), {"spatial_scale": 0.0}),
    (("1,8,6,6", "3,5"), {"spatial_scale": -1.0}),
    (("1,8,6,6", "3,5"), {"group_size": 0}),
    (("1,8,6,6", "3,5"), {"mode": "bilinear", "spatial_bins_x": 0}),
    (("1,8,6,6", "3,5"), {"output_dim": 0}),
]
PS_TYPES = [(F32, F32), ("f16", "f16"), ("f16", F32), ("i32", "i32"), (F32, "i32")]


@pytest.mark.parametrize("types", PS_TYPES)
@pytest.mark.parametrize(("shapes", "extra"), PS_CASES)
def test_psroi_pooling_inference_matches_openvino(shapes, extra, types):  # type: ignore[no-untyped-def]
    from ovonehot.ops.psroi_pooling import PSROIAttrs, infer_psroi_pooling

    a = {"output_dim": 2, "group_size": 2, "spatial_scale": 1.0, "spatial_bins_x": 1, "spatial_bins_y": 1}
    a.update({"mode": "average", **extra})
    ours_attrs = PSROIAttrs(
        a["output_dim"],
        a["group_size"],
        a["spatial_scale"],
        a["spatial_bins_x"],
        a["spatial_bins_y"],
        a["mode"],
    )
    _compare(
        lambda *p: o1.psroi_pooling(*p, **a),
        lambda infos: infer_psroi_pooling(ours_attrs, infos),
        shapes,
        types,
    )


DPS_CASES = [
    (("1,8,6,6", "3,5"), {}),
    (("1,8,6,6", "3,5", "3,2,2,2"), {}),
    (("1,8,6,6", "3,4"), {}),
    (("1,8,6", "3,5"), {}),
    (("1,8,6,6", "3,5,1"), {}),
    (("1,8,6,6", "3,5", "3,2,2"), {}),
    (("...", "...", "..."), {}),
    (("?,?,?,?", "2..5,?"), {}),
    (("1,8,6,6", "3,5"), {"output_dim": 0}),
    (("1,8,6,6", "3,5"), {"group_size": 0}),
    (("1,8,6,6", "3,5"), {"spatial_scale": 0.0, "mode": "average", "part_size": 0, "spatial_bins_x": 0}),
]
DPS_TYPES = [(F32, F32, F32), ("f16", F32, F32), ("i32", "i32", "i32")]


@pytest.mark.parametrize("types", DPS_TYPES)
@pytest.mark.parametrize(("shapes", "extra"), DPS_CASES)
def test_deformable_psroi_pooling_inference_matches_openvino(shapes, extra, types):  # type: ignore[no-untyped-def]
    from ovonehot.ops.psroi_pooling import PSROIAttrs, infer_deformable

    a: dict[str, Any] = {"output_dim": 2, "spatial_scale": 1.0, "group_size": 2, **extra}
    ours_attrs = PSROIAttrs(
        a["output_dim"],
        a["group_size"],
        a["spatial_scale"],
        a.get("spatial_bins_x", 1),
        1,
        a.get("mode", "bilinear_deformable"),
        1.0,
        a.get("part_size", 1),
    )

    def factory(*p: Any) -> Any:
        offsets = {"offsets": p[2]} if len(p) == 3 else {}
        return o1.deformable_psroi_pooling(p[0], p[1], **a, **offsets)

    _compare(factory, lambda infos: infer_deformable(ours_attrs, infos), shapes, types)


def _compare(factory: Any, infer: Any, shapes: tuple[str, ...], types: tuple[str, ...]) -> None:
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    def param(s: str, et: str) -> Any:
        ps = ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")
        return o1.parameter(ps, getattr(ov.Type, et))

    pairs = list(zip(shapes, types, strict=False))
    try:
        node = factory(*[param(s, et) for s, et in pairs])
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [TensorInfo(ElementType.from_name(et), PartialShape.parse(s)) for s, et in pairs]
    try:
        (out,) = infer(infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs


@pytest.mark.parametrize("deformable", [False, True], ids=["psroi", "deformable"])
def test_psroi_pooling_of_no_rois_is_empty(tmp_path, deformable):  # type: ignore[no-untyped-def]
    x = np.random.default_rng(0).random((1, 8, 6, 6)).astype(np.float32)
    rois = np.zeros((0, 5), np.float32)
    if deformable:
        node, params = build(
            lambda a, b: o1.deformable_psroi_pooling(a, b, output_dim=2, spatial_scale=1.0, group_size=2),
            [P(x), P(rois)],
        )
    else:
        node, params = build(lambda a, b: o1.psroi_pooling(a, b, 2, 2, 1.0, 1, 1, "average"), [P(x), P(rois)])
    (ours,) = export(tmp_path, node, params).run([x, rois]).values()
    assert ours.shape == (0, 2, 2, 2)
    assert_same(ours, cpu_outputs(node, params, [x, rois])[0])


@pytest.mark.parametrize("kind", KINDS)
def test_psroi_pooling_bf16_is_the_f32_result_rounded_as_ov_bfloat16(tmp_path, kind):  # type: ignore[no-untyped-def]
    """bf16 maps: the CPU plugin computes in f32 and rounds the result with ov::bfloat16's formula
    (the named deviation bf16-reference-rounding): ovonehot under that rounding is bit for bit."""
    import ml_dtypes
    from ovref import from_tensor, to_tensor

    from ovonehot.ops.common.bf16 import Bf16Rounding, bf16_rounding
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    factory, arrays = _case(1, kind)
    arrays[0] = arrays[0].astype(ml_dtypes.bfloat16)
    node, params = build(factory, [P(a) for a in arrays])
    compiled = ov.Core().compile_model(ov.Model(node.outputs(), list(params)), "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    for k, a in enumerate(arrays):
        request.set_input_tensor(k, to_tensor(a))
    request.infer()
    theirs = from_tensor(request.get_output_tensor(0))
    with bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE):
        (ours,) = export(tmp_path, node, params).run(arrays).values()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours.view(np.uint16), theirs.view(np.uint16))
