"""NV12/I420 to RGB/BGR-8, PriorBox-1/8 and PriorBoxClustered-1 against OpenVINO.

Colour conversion: the core op has no ``evaluate``, so the CPU plugin is the oracle.  Real
planes: bit-exact (NaN aside, a known difference: the reference keeps it, the plugin gives 0).
u8 planes: exact except at rounding ties, where the plugin rounds half to even and ovonehot, as
reference/convert_color_nv12.hpp, half away from zero (docs/openvino-behaviour.md): each
difference is such a tie.  The models are OpenVINO's PrePostProcessor's own, saved with
``ov.save_model``.  Prior boxes: OpenVINO's core reference (``Node.evaluate``), bit-exact, and
folded by ``infer`` where OpenVINO folds them.  Shapes and messages: OpenVINO's inference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, export, infer_shapes

import ovonehot
from ovonehot.errors import ValidationError
from ovonehot.infer import infer
from ovonehot.ir.reader import read_ir
from ovonehot.ops import lookup
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")
ppp_mod = pytest.importorskip("openvino.preprocess")

CORPUS = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "vision"


# -- colour conversion: PrePostProcessor models ----------------------------------------------
def _ppp_model(tmp_path: Path, fmt: Any, target: Any, et: Any, h: int = 16, w: int = 12) -> Path:
    """An identity-like model (NHWC image -> Relu) behind PPP's camera input, saved as IR."""
    image = o8.parameter([1, h, w, 3], et, name="image")
    body = o8.relu(image) if et != ov.Type.u8 else o8.convert(image, ov.Type.u8)
    model = ov.Model([o8.result(body)], [image], "ppp")
    ppp = ppp_mod.PrePostProcessor(model)
    ppp.input().tensor().set_color_format(fmt).set_element_type(et)
    ppp.input().preprocess().convert_color(target)
    built = ppp.build()
    for k, port in enumerate(built.inputs):
        port.get_tensor().set_names({f"plane{k}"})
    xml = tmp_path / "ppp.xml"
    ov.save_model(built, str(xml), compress_to_fp16=False)
    return xml


def _planes(model: Any, rng: np.random.Generator, dtype: Any) -> list[np.ndarray]:
    return [rng.integers(0, 256, tuple(p.get_partial_shape().to_shape())).astype(dtype) for p in model.inputs]


def _cpu(xml: Path, feeds: list[np.ndarray]) -> np.ndarray:
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    compiled = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)
    return np.array(compiled(feeds)[compiled.outputs[0]])


FORMATS = [
    pytest.param("NV12_SINGLE_PLANE", id="nv12-1"),
    pytest.param("NV12_TWO_PLANES", id="nv12-2"),
    pytest.param("I420_SINGLE_PLANE", id="i420-1"),
    pytest.param("I420_THREE_PLANES", id="i420-3"),
]
TARGETS = [pytest.param("RGB", id="rgb"), pytest.param("BGR", id="bgr")]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_ppp_f32_camera_input_matches_cpu_bit_for_bit(tmp_path: Path, fmt: str, target: str) -> None:
    cf = ppp_mod.ColorFormat
    xml = _ppp_model(tmp_path, getattr(cf, fmt), getattr(cf, target), ov.Type.f32)
    model = ov.Core().read_model(str(xml))
    feeds = _planes(model, np.random.default_rng(3), np.float32)
    ours = ovonehot.load(xml)
    assert [str(o.shape) for o in ours.outputs] == [str(model.output(0).get_partial_shape())]
    (got,) = ours.run(feeds).values()
    assert_same(got, _cpu(xml, feeds))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_ppp_u8_camera_input_matches_cpu_but_for_ties(tmp_path: Path, fmt: str, target: str) -> None:
    """u8: equal to the CPU plugin except where R, G or B is exactly k + 0.5 in f32: there the plugin
    rounds to even, ovonehot (the core reference) away from zero."""
    cf = ppp_mod.ColorFormat
    xml = _ppp_model(tmp_path, getattr(cf, fmt), getattr(cf, target), ov.Type.u8, h=64, w=64)
    model = ov.Core().read_model(str(xml))
    feeds = _planes(model, np.random.default_rng(5), np.uint8)
    (got,) = ovonehot.load(xml).run(feeds).values()
    cpu = _cpu(xml, feeds)
    assert got.dtype == cpu.dtype == np.uint8 and got.shape == cpu.shape
    differ = got != cpu
    assert differ.sum() > 0 and differ.mean() < 0.005, f"{differ.sum()} of {differ.size} values differ"
    delta = got[differ].astype(np.int16) - cpu[differ]
    # at a tie x + 0.5 the two roundings differ by one, the plugin's result is even
    assert np.all(np.abs(delta) == 1) and np.all(cpu[differ] % 2 == 0)
    assert np.all((delta == 1) == (cpu[differ] < 255))


def test_u8_ties_round_away_from_zero_as_the_reference() -> None:
    """Y=3, U=55, V=75 gives G = 56.5 exactly in f32 (measured on the CPU plugin: it gives 56)."""
    spec = lookup("NV12toRGB", "opset8")
    assert spec is not None and spec.evaluate is not None
    y = np.full((1, 2, 2, 1), 3, np.uint8)
    uv = np.array([55, 75], np.uint8).reshape(1, 1, 1, 2)
    (out,) = spec.evaluate(spec.parse(_node()), [y, uv])
    f = np.float32
    g = (f(1.164) * f(3 - 16) - f(0.391) * f(55 - 128)) - f(0.813) * f(75 - 128)
    assert g == f(56.5)
    assert out[0, 0, 0].tolist() == [0, 57, 0]


def _node() -> Any:
    from ovonehot.graph import Node, Port

    return Node(0, "op", "NV12toRGB", "opset8", (), (Port(0), Port(1)), (Port(2),))


def test_corpus_ppp_model_reads_infers_and_matches_cpu() -> None:
    """The corpus's PrePostProcessor NV12 -> RGB -> conv model: every layer's type and shape as
    OpenVINO infers them, and the CPU plugin's outputs (convolution summation order: 1e-5)."""
    from ovcompare import assert_layers_agree

    xml = CORPUS / "nv12_ppp_conv" / "model.xml"
    assert_layers_agree(xml)
    model = ovonehot.load(xml)
    feeds = [
        np.random.default_rng(9).integers(0, 256, s).astype(np.float32) for s in ((1, 8, 8, 1), (1, 4, 4, 2))
    ]
    (got,) = model.run(feeds).values()
    np.testing.assert_allclose(got, _cpu(xml, feeds), rtol=1e-5, atol=1e-5)


# -- colour conversion: shapes and messages -----------------------------------------------------
SHAPES = [
    ("nv12", ["1,6,4,1"]),
    ("nv12", ["?,?,?,?"]),
    ("nv12", ["..."]),
    ("nv12", ["1,3..7,4,1"]),
    ("nv12", ["1,2..9,4..8,?"]),
    ("nv12", ["?,?,?,?", "1,2,3,2"]),
    ("nv12", ["1,4..8,?,1", "1,3,2..3,2"]),
    ("nv12", ["1,4,4,1", "..."]),
    ("i420", ["1,?,4,1"]),
    ("i420", ["1,4,4,1", "1,2,2,1", "1,2,2,1"]),
    ("i420", ["...", "?,?,?,?", "1,3,2..5,1"]),
]


def _factory(layout: str, order: str = "rgb") -> Any:
    return getattr(o8, f"{layout}_to_{order}")


@pytest.mark.parametrize(
    ("layout", "shapes"), SHAPES, ids=lambda v: "-".join(v) if isinstance(v, list) else v
)
def test_color_shapes_match_openvino(tmp_path: Path, layout: str, shapes: list[str]) -> None:
    inputs = [P(np.zeros(0, np.uint8), shape=s) for s in shapes]
    ours, theirs = infer_shapes(tmp_path, _factory(layout), inputs)
    assert ours == theirs


ERRORS = [
    ("nv12", ["1,7,4,1"], "u8"),
    ("nv12", ["1,6,5,1"], "u8"),
    ("nv12", ["1,6,4,2"], "u8"),
    ("nv12", ["1,6,4"], "u8"),
    ("nv12", ["1,4,4,1", "1,2,3,2"], "u8"),
    ("nv12", ["1,4,4,1", "1,2,2,1"], "u8"),
    ("nv12", ["1,6,4,1"], "i8"),
    ("i420", ["1,5,4,1"], "u8"),
    ("i420", ["1,4,4,1", "1,2,2,1", "1,2,3,1"], "u8"),
    ("i420", ["1,4,4,1", "1,2,2,2", "1,2,2,1"], "u8"),
    ("i420", ["1,6,4,1"], "i32"),
]


def _openvino_message(factory: Any, shapes: list[str], types: list[Any]) -> str:
    params = [o8.parameter(ov.PartialShape(s), t) for s, t in zip(shapes, types, strict=True)]
    with pytest.raises(Exception) as info:
        factory(*params)
    return str(info.value).strip().splitlines()[-1]


@pytest.mark.parametrize(("layout", "shapes", "et"), ERRORS)
def test_color_errors_in_openvino_words(layout: str, shapes: list[str], et: str) -> None:
    theirs = _openvino_message(_factory(layout), shapes, [getattr(ov.Type, et)] * len(shapes))
    spec = lookup(f"{layout.upper()}toRGB", "opset8")
    assert spec is not None
    infos = [TensorInfo(ElementType.from_name(et), PartialShape.parse(s)) for s in shapes]
    with pytest.raises(ValidationError) as ours:
        spec.infer(spec.parse(_node()), infos)
    assert theirs in str(ours.value)


def test_mixed_plane_types_refused_in_openvino_words() -> None:
    theirs = _openvino_message(o8.nv12_to_rgb, ["1,4,4,1", "1,2,2,2"], [ov.Type.u8, ov.Type.f32])
    spec = lookup("NV12toRGB", "opset8")
    assert spec is not None
    infos = [
        TensorInfo(ElementType.u8, PartialShape.parse("1,4,4,1")),
        TensorInfo(ElementType.f32, PartialShape.parse("1,2,2,2")),
    ]
    with pytest.raises(ValidationError) as ours:
        spec.infer(spec.parse(_node()), infos)
    assert theirs in str(ours.value)


# -- prior boxes ------------------------------------------------------------------------------------
PRIOR_ATTRS = [
    pytest.param(
        {
            "min_size": [2.0, 4.0],
            "max_size": [5.0, 8.0],
            "aspect_ratio": [2.0, 3.0],
            "flip": True,
            "clip": True,
            "step": 0.0,
            "offset": 0.5,
            "variance": [0.1, 0.1, 0.2, 0.2],
        },
        id="ssd",
    ),
    pytest.param(
        {
            "min_size": [0.1, 0.2],
            "aspect_ratio": [2.0],
            "flip": True,
            "step": 0.25,  # (the Python wrapper refuses -1; the conformance seeds have it)
            "offset": 0.5,
            "variance": [0.1],
            "scale_all_sizes": False,
        },
        id="mxnet",
    ),
    pytest.param(
        {
            "fixed_size": [4.0, 6.0],
            "density": [2.0, 3.0],
            "aspect_ratio": [2.0],
            "clip": False,
            "offset": 0.5,
            "variance": [0.2],
        },
        id="density",
    ),
    pytest.param(
        {
            "min_size": [3.0],
            "max_size": [9.0],
            "aspect_ratio": [2.0],
            "flip": True,
            "step": 3.0,
            "offset": 0.0,
            "min_max_aspect_ratios_order": False,
        },
        id="ratios-before-max",
    ),
]


def _compare_prior(tmp_path: Path, factory: Any, size: np.ndarray, image: np.ndarray) -> np.ndarray:
    """ovonehot's output (infer's folded value and a run) against ``Node.evaluate``.  The output
    tensor is shaped from OpenVINO's inference: PriorBox's evaluate writes into the tensor it is
    given without sizing it (a 0-element tensor crashes the process)."""
    node, params = build(factory, [C(size), C(image)])
    theirs = ov.Tensor(ov.Type.f32, node.get_output_shape(0))
    assert node.evaluate([theirs], [ov.Tensor(size), ov.Tensor(image)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([]).values()
    assert_same(ours, np.array(theirs.data))
    return ours


@pytest.mark.parametrize("attrs", PRIOR_ATTRS)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.uint64])
def test_prior_box_8_matches_reference(tmp_path: Path, attrs: dict[str, Any], dtype: Any) -> None:
    _compare_prior(
        tmp_path, lambda a, b: o8.prior_box(a, b, attrs), np.array([3, 5], dtype), np.array([24, 30], dtype)
    )


@pytest.mark.parametrize("attrs", PRIOR_ATTRS[:3])
def test_prior_box_1_matches_reference(tmp_path: Path, attrs: dict[str, Any]) -> None:
    _compare_prior(tmp_path, lambda a, b: o1.prior_box(a, b, attrs), np.array([4, 2]), np.array([16, 9]))


CLUSTERED = {
    "width": [6.0, 12.0, 20.0],
    "height": [6.0, 20.0, 12.0],
    "clip": True,
    "step_w": 8.0,
    "step_h": 4.0,
    "offset": 0.5,
    "variance": [0.1, 0.1, 0.2, 0.2],
}


@pytest.mark.parametrize("clip", [True, False])
@pytest.mark.parametrize("step", [(8.0, 4.0), (0.0, 0.0)], ids=["steps", "from-image"])
def test_prior_box_clustered_matches_reference(tmp_path: Path, clip: bool, step: tuple[float, float]) -> None:
    attrs = {**CLUSTERED, "clip": clip, "step_w": step[0], "step_h": step[1]}
    ours = _compare_prior(
        tmp_path, lambda a, b: o1.prior_box_clustered(a, b, attrs), np.array([3, 4]), np.array([20, 30])
    )
    assert ours.shape == (2, 3 * 4 * 3 * 4)


def test_prior_boxes_fold_from_shapeof_as_openvino_folds_them() -> None:
    """The corpus SSD head: PriorBox-8 and PriorBoxClustered-1 on ShapeOf slices are known values
    after ``infer`` (OpenVINO's constant folding), equal to the reference's and the CPU plugin's."""
    from ovcompare import assert_layers_agree

    xml = CORPUS / "ssd_prior_box" / "model.xml"
    assert_layers_agree(xml)
    graph = read_ir(xml)
    inference = infer(graph)
    folded = {
        node.type: inference.outputs[k][0].value
        for k, node in enumerate(graph.nodes)
        if node.type.startswith("PriorBox")
    }
    assert set(folded) == {"PriorBox", "PriorBoxClustered"}
    assert all(v is not None for v in folded.values())
    expected = np.load(CORPUS / "ssd_prior_box" / "typical.expected.npz")
    assert_same(folded["PriorBox"], expected["priors"])
    assert_same(folded["PriorBoxClustered"], expected["clustered_priors"])


@pytest.mark.parametrize(
    "shape",
    ["1,3,2..4,5", "1,3,?,5", "1,3,4,5"],
)
def test_prior_box_shape_from_shapeof_bounds(tmp_path: Path, shape: str) -> None:
    attrs = {"min_size": [2.0], "max_size": [5.0], "aspect_ratio": [2.0, 3.0], "flip": True, "offset": 0.5}

    def factory(x: Any, image: Any) -> Any:
        hw = o8.gather(o8.shape_of(x), o8.constant(np.array([2, 3])), o8.constant(np.array(0)))
        return o8.prior_box(hw, image, attrs)

    node, params = build(factory, [P(np.zeros((1, 3, 4, 5), np.float32), shape=shape), C(np.array([8, 8]))])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)


PRIOR_ERRORS = [
    (["2"], ["2"], "f32", "i64"),
    (["2"], ["2"], "i64", "f32"),
    (["2"], ["2"], "boolean", "i64"),
    (["2,1"], ["2"], "i64", "i64"),
    (["2,1"], ["2,1"], "i64", "i64"),
]


@pytest.mark.parametrize(("size", "image", "size_type", "image_type"), PRIOR_ERRORS)
def test_prior_box_errors_in_openvino_words(
    size: list[str], image: list[str], size_type: str, image_type: str
) -> None:
    attrs = {"min_size": [2.0], "offset": 0.5}
    shapes, types = [size[0], image[0]], [getattr(ov.Type, size_type), getattr(ov.Type, image_type)]
    theirs = _openvino_message(lambda a, b: o8.prior_box(a, b, attrs), shapes, types)
    spec = lookup("PriorBox", "opset8")
    assert spec is not None
    infos = [
        TensorInfo(ElementType.from_name(t), PartialShape.parse(s))
        for s, t in zip(shapes, (size_type, image_type), strict=True)
    ]
    from ovonehot.graph import Node, Port

    node = Node(
        0, "pb", "PriorBox", "opset8", (("min_size", "2"), ("offset", "0.5")), (Port(0), Port(1)), (Port(2),)
    )
    with pytest.raises(ValidationError) as ours:
        spec.infer(spec.parse(node), infos)
    assert theirs in str(ours.value)


def test_prior_box_output_size_of_three_refused_in_openvino_words(tmp_path: Path) -> None:
    attrs = {"min_size": [2.0], "offset": 0.5}
    with pytest.raises(Exception) as theirs:
        o8.prior_box(o8.constant(np.array([2, 3, 4])), o8.constant(np.array([8, 8])), attrs)
    spec = lookup("PriorBox", "opset8")
    assert spec is not None
    from ovonehot.graph import Node, Port

    node = Node(
        0, "pb", "PriorBox", "opset8", (("min_size", "2"), ("offset", "0.5")), (Port(0), Port(1)), (Port(2),)
    )
    infos = [
        TensorInfo(ElementType.i64, PartialShape.of([3]), np.array([2, 3, 4])),
        TensorInfo(ElementType.i64, PartialShape.of([2]), np.array([8, 8])),
    ]
    with pytest.raises(ValidationError) as ours:
        spec.infer(spec.parse(node), infos)
    assert str(theirs.value).strip().splitlines()[-1] in str(ours.value)


def test_prior_box_of_a_dynamic_rank_size_accepts_any_image_rank_as_openvino() -> None:
    """OpenVINO checks the size's rank against the image's and against 1 only: a size of dynamic
    rank passes with an image of rank 2 (output [2,?]); a static size of rank 1 with it does not."""
    attrs = {"min_size": [2.0], "offset": 0.5}
    image = o8.parameter([2, 2], np.int64)
    theirs = o8.prior_box(o8.parameter(ov.PartialShape.dynamic(), np.int64), image, attrs)
    with pytest.raises(Exception, match="compatible"):
        o8.prior_box(o8.parameter([2], np.int64), image, attrs)
    spec = lookup("PriorBox", "opset8")
    assert spec is not None
    from ovonehot.graph import Node, Port

    node = Node(
        0, "pb", "PriorBox", "opset8", (("min_size", "2"), ("offset", "0.5")), (Port(0), Port(1)), (Port(2),)
    )
    img = TensorInfo(ElementType.i64, PartialShape.of([2, 2]))
    (out,) = spec.infer(spec.parse(node), [TensorInfo(ElementType.i64, PartialShape.dynamic()), img])
    assert str(out.shape).replace(" ", "") == str(theirs.get_output_partial_shape(0)).replace(" ", "")
    with pytest.raises(ValidationError, match="rank"):
        spec.infer(spec.parse(node), [TensorInfo(ElementType.i64, PartialShape.of([2])), img])
