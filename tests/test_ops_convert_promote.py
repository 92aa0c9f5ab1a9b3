"""ConvertPromoteTypes-14 against OpenVINO.

Types: every pair of OpenVINO's element types (the 19 the op supports and the ones it refuses),
in every mode (``promote_unsafe``, ``pytorch_scalar_promotion`` with a scalar on either side or
none, ``u64_integer_promotion_target``), against the output types OpenVINO's own node gives (or
its refusal); a sample of them also through IR written by ``ov.save_model`` and read back by
both.  Values: OpenVINO's core has no ``evaluate`` for the op (its CPU plugin runs two Converts),
so the expected values are Convert's core reference (``Node.evaluate``) to the common type, and
the CPU plugin where the types are in its envelope.
"""

from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export, reference

from ovonehot.errors import ValidationError
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.convert_promote import PromoteAttrs, infer_promote
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o14 = pytest.importorskip("openvino.opset14")
o1 = pytest.importorskip("openvino.opset1")

TYPES = [
    "boolean", "bf16", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u4", "u8", "u16",
    "u32", "u64", "f8e4m3", "f8e5m2", "u2", "u3", "u6", "nf4", "f4e2m1", "f8e8m0", "string", "dynamic",
]  # fmt: skip
# (unsafe, pytorch, the first input's shape, the second's)
MODES = [
    (unsafe, pytorch, a, b)
    for unsafe in (False, True)
    for pytorch, shapes in ((False, [("2", "3")]), (True, [("", "3"), ("2", ""), ("", ""), ("?", "")]))
    for a, b in shapes
]


def _openvino(a: str, b: str, unsafe: bool, pytorch: bool, sa: str, sb: str, target: str) -> str:
    """OpenVINO's common type, or 'refused'."""
    pa = o14.parameter(ov.PartialShape(f"[{sa}]"), getattr(ov.Type, a))
    pb = o14.parameter(ov.PartialShape(f"[{sb}]"), getattr(ov.Type, b))
    try:
        node = o14.convert_promote_types(pa, pb, unsafe, pytorch, target)
    except RuntimeError:
        return "refused"
    first, second = node.get_output_element_type(0), node.get_output_element_type(1)
    assert first == second
    return str(first.to_string())


def _ours(a: str, b: str, unsafe: bool, pytorch: bool, sa: str, sb: str, target: str) -> str:
    attrs = PromoteAttrs(unsafe, pytorch, ElementType.from_name(target))
    ins = [
        TensorInfo(ElementType.from_name(a), PartialShape.parse(sa)),
        TensorInfo(ElementType.from_name(b), PartialShape.parse(sb)),
    ]
    try:
        out = infer_promote(attrs, ins)
    except ValidationError:
        return "refused"
    assert out[0].element_type is out[1].element_type
    assert (out[0].shape, out[1].shape) == (ins[0].shape, ins[1].shape)
    return str(out[0].element_type)


@pytest.mark.parametrize(("unsafe", "pytorch", "sa", "sb"), MODES)
def test_every_type_pair_promotes_as_openvino(unsafe: bool, pytorch: bool, sa: str, sb: str) -> None:
    differ = {}
    for a, b in itertools.product(TYPES, repeat=2):
        for target in ("f32", "i64") if "u64" in (a, b) and unsafe else ("f32",):
            theirs = _openvino(a, b, unsafe, pytorch, sa, sb, target)
            ours = _ours(a, b, unsafe, pytorch, sa, sb, target)
            if ours != theirs:
                differ[(a, b, target)] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO) differ: {differ}"


@pytest.mark.parametrize(
    ("a", "b", "attrs", "sa", "sb"),
    [
        pytest.param("f32", "i8", {}, [2, 3], [3], id="float-int"),
        pytest.param("u8", "i32", {}, [2], [], id="unsigned-signed"),
        pytest.param("u64", "i8", {"promote_unsafe": True, "u64_integer_promotion_target": "f64"}, [2], [2],
                     id="u64-target"),
        pytest.param("f64", "f16", {"pytorch_scalar_promotion": True, "promote_unsafe": True}, [], [4],
                     id="pytorch-scalar"),
        pytest.param("f16", "bf16", {"promote_unsafe": True}, [3], [3], id="f16-bf16"),
        pytest.param("f8e4m3", "f8e5m2", {"promote_unsafe": True}, [3], [1, 3], id="f8-pair"),
    ],
)  # fmt: skip
def test_ir_written_by_openvino_reads_with_its_types(tmp_path: Any, a: str, b: str, attrs: dict[str, Any],
                                                     sa: list[int], sb: list[int]) -> None:  # fmt: skip
    pa = o14.parameter(sa, getattr(ov.Type, a), name="a")
    pb = o14.parameter(sb, getattr(ov.Type, b), name="b")
    node = o14.convert_promote_types(pa, pb, **attrs)
    model = export(tmp_path, node, [pa, pb])
    assert_inferred(model, node)


RNG = np.random.default_rng(14)
BF16 = np.dtype(ml_dtypes.bfloat16)


def _values(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Random values of ``dtype`` with its boundary values among them."""
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return RNG.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        extremes = np.array([info.min, info.max, 0, 1], dtype)
        return np.resize(np.concatenate([extremes, RNG.integers(info.min, info.max, n, dtype)]), shape)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5, 65504.0, 1e20], np.float64)
    with np.errstate(over="ignore"):  # (1e20 overflows the narrow floats to inf: a boundary value)
        return np.resize(np.concatenate([special, RNG.standard_normal(n) * 1e3]), shape).astype(dtype)


VALUE_PAIRS = [
    ("f32", "i8", {}),
    ("f64", "i32", {}),
    ("f16", "u8", {}),
    ("f32", "i64", {"promote_unsafe": True}),
    ("u8", "i16", {}),
    ("u8", "i8", {"promote_unsafe": True}),
    ("u16", "i16", {"promote_unsafe": True}),
    ("u32", "i8", {"promote_unsafe": True}),
    ("u64", "i32", {"promote_unsafe": True, "u64_integer_promotion_target": "f32"}),
    ("u64", "i64", {"promote_unsafe": True, "u64_integer_promotion_target": "i64"}),
    ("i64", "i8", {}),
    ("boolean", "f32", {}),
    ("boolean", "u8", {}),
    ("f16", "bf16", {"promote_unsafe": True}),
    ("f32", "f64", {}),
]


@pytest.mark.parametrize(("a", "b", "attrs"), VALUE_PAIRS, ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((), (4,)), ((0, 2), ())], ids=["2x3-3", "0d-4", "empty"])
def test_values_are_converts_to_the_common_type(tmp_path: Any, a: str, b: str, attrs: dict[str, Any],
                                                shapes: tuple[tuple[int, ...], ...]) -> None:  # fmt: skip
    dtypes = [BF16 if t == "bf16" else np.dtype(getattr(ov.Type, t).to_dtype()) for t in (a, b)]
    feeds = [_values(d, s) for d, s in zip(dtypes, shapes, strict=True)]
    node, params = build(lambda x, y: o14.convert_promote_types(x, y, **attrs), [P(f) for f in feeds])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    target = node.get_output_element_type(0)
    for exact in (True, False):
        ours = list(model.run(feeds, exact=exact).values())
        for k, feed in enumerate(feeds):
            convert, _ = build(lambda x: o1.convert(x, target), [P(feed)])
            (expected,) = reference(convert, [feed]) or pytest.fail("Convert has no reference here")
            assert_same(ours[k], expected, where=f"output {k}")


CPU_PAIRS = [
    ("f32", "i8", {}),
    ("u8", "i8", {"promote_unsafe": True}),
    ("i32", "u16", {}),
    ("boolean", "f16", {}),
]


@pytest.mark.parametrize(("a", "b", "attrs"), CPU_PAIRS, ids=lambda v: v if isinstance(v, str) else "")
def test_values_match_the_cpu_plugin(a: str, b: str, attrs: dict[str, Any]) -> None:
    feeds = [_values(np.dtype(getattr(ov.Type, t).to_dtype()), (3, 4)) for t in (a, b)]
    if feeds[0].dtype.kind == "f":
        feeds[0] = np.nan_to_num(feeds[0], nan=0.5, posinf=3.0, neginf=-3.0)  # (the plugin's envelope)
    node, params = build(lambda x, y: o14.convert_promote_types(x, y, **attrs), [P(f) for f in feeds])
    expected = cpu_outputs(node, params, feeds)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        ours = list(export(Path(folder), node, params).run(feeds).values())
    for k in range(2):
        assert_same(ours[k], expected[k].astype(ours[k].dtype), where=f"output {k}")


def test_unsupported_type_is_refused_naming_the_layer(tmp_path: Any) -> None:
    """A type OpenVINO's own op refuses, in an IR it cannot write: ovonehot's message names the layer."""
    pa = o14.parameter([2], ov.Type.f32, name="a")
    pb = o14.parameter([2], ov.Type.f32, name="b")
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model(o14.convert_promote_types(pa, pb).outputs(), [pa, pb]), str(xml))
    text = xml.read_text().replace('element_type="f32"', 'element_type="u2"', 1)
    xml.write_text(text)
    import ovonehot

    with pytest.raises(ValidationError, match=r"ConvertPromoteTypes.*u2"):
        ovonehot.load(xml)
