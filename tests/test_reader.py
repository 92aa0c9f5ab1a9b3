"""The IR reader: shape strings, constant payloads, structure, names and versions.

Where OpenVINO is the judge (shape strings, payload values, opset mapping) the
expected value comes from OpenVINO reading the same file (``Core.read_model``) or
from its own Constant accessors; structural errors are checked for ovonehot's
one-line message naming the layer (id, name, type) and the port.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.errors import InputError, IRError, UnsupportedError
from ovonehot.ir.reader import read_ir, read_ir_bytes

ov = pytest.importorskip("openvino", reason="OpenVINO reads the same files as the judge")

# -- a hand-written IR, mutated by the tests -----------------------------------------------

PARAM = """<layer id="0" name="x" type="Parameter" version="opset1">
  <data shape="{shape}" element_type="{et}"/>
  <output><port id="0" precision="{prec}" names="x"/></output></layer>"""
CONST = """<layer id="{id}" name="{name}" type="{type}" version="opset1">
  <data element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"/>
  <output><port id="0" precision="{prec}"/></output></layer>"""
ONE_HOT = """<layer id="4" name="oh" type="{type}" version="{version}"><data axis="{axis}" {extra}/>
  <input><port id="0" precision="I64"/><port id="1" precision="I64"/><port id="2" precision="FP32"/>
  <port id="3" precision="FP32"/></input>
  <output><port id="4" precision="FP32" names="out"/></output></layer>"""
RESULT = """<layer id="5" name="r" type="Result" version="opset1">
  <input><port id="0" precision="FP32"/></input></layer>"""
EDGES = [(0, 0, 4, 0), (1, 0, 4, 1), (2, 0, 4, 2), (3, 0, 4, 3), (4, 4, 5, 0)]
# depth i64 = 3 at offset 0, on f32 = 1.0 at 8, off f32 = -0.0 at 12
WEIGHTS = np.int64(3).tobytes() + np.float32(1.0).tobytes() + np.float32(-0.0).tobytes()


def one_hot_ir(
    shape: str = "4",
    axis: int = -1,
    one_hot_type: str = "OneHot",
    version: str = "opset1",
    extra: str = "",
    const_type: str = "Const",
    edges: list[tuple[int, int, int, int]] | None = None,
    layers: list[str] | None = None,
    net_version: str = "11",
    depth_size: int = 8,
) -> bytes:
    """Parameter x(i64) -> OneHot(depth 3, on 1.0, off -0.0) -> Result, as IR text."""
    if layers is None:
        layers = [
            PARAM.format(shape=shape, et="i64", prec="I64"),
            CONST.format(
                id=1, name="depth", type=const_type, et="i64", shape="", offset=0, size=depth_size, prec="I64"
            ),
            CONST.format(id=2, name="on", type=const_type, et="f32", shape="", offset=8, size=4, prec="FP32"),
            CONST.format(
                id=3, name="off", type=const_type, et="f32", shape="", offset=12, size=4, prec="FP32"
            ),
            ONE_HOT.format(type=one_hot_type, version=version, axis=axis, extra=extra),
            RESULT,
        ]
    edge_text = "\n".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
        for a, b, c, d in (EDGES if edges is None else edges)
    )
    return (
        f'<?xml version="1.0"?>\n<net name="t" version="{net_version}">\n<layers>\n'
        + "\n".join(layers)
        + f"\n</layers>\n<edges>\n{edge_text}\n</edges>\n</net>\n"
    ).encode()


def write(tmp_path: Path, xml: bytes, weights: bytes | None = WEIGHTS, name: str = "m") -> Path:
    path = tmp_path / f"{name}.xml"
    path.write_bytes(xml)
    if weights is not None:
        path.with_suffix(".bin").write_bytes(weights)
    return path


def openvino_reads(path: Path) -> object:
    return ov.Core().read_model(str(path))


def test_the_base_ir_runs_like_openvino(tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir())
    x = np.array([0, 2, 3, -1], np.int64)
    ours = ovonehot.load(path).run({"x": x})["out"]
    assert ours.tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert np.signbit(ours[0, 1])  # off = -0.0, bit for bit
    from ovonehot.oracle.openvino_runtime import reference_run

    theirs = reference_run(path, {"x": x})["out"]
    assert ours.tobytes() == theirs.tobytes()


# -- Parameter shape strings ------------------------------------------------------------------

# (IR data shape attribute, OpenVINO's notation for what it means)
SHAPE_FORMS = [
    ("2,3", "[2,3]"),
    ("?", "[?]"),
    ("-1", "[?]"),
    ("1..10", "[1..10]"),
    ("..5", "[..5]"),
    ("3..", "[3..]"),
    ("..", "[?]"),
    ("0..", "[?]"),
    ("0..5", "[..5]"),
    ("2..2", "[2]"),
    ("...", "[...]"),
    ("", "[]"),
    ("[2,3]", "[2,3]"),
    ("[...]", "[...]"),
    ("[]", "[]"),
    (" 2 , 3 ", "[2,3]"),
    ("2,?,-1,1..4,..7,5..", "[2,?,?,1..4,..7,5..]"),
    ("0", "[0]"),
]


@pytest.mark.parametrize(("text", "notation"), SHAPE_FORMS, ids=[repr(t) for t, _ in SHAPE_FORMS])
def test_parameter_shape_string(text: str, notation: str, tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(shape=text, axis=0))
    assert str(ovonehot.load(path).inputs[0].shape) == notation
    assert str(openvino_reads(path).inputs[0].get_partial_shape()) == notation


# Malformed shape strings: OpenVINO refuses these three too ("Cannot parse dimension").
BAD_SHAPES = ["a", "[2,3", "2,...", "1.5", "2;3"]


@pytest.mark.parametrize("text", BAD_SHAPES)
def test_bad_shape_string_names_the_layer(text: str) -> None:
    from ovonehot.infer import infer

    with pytest.raises(IRError, match=r"layer id=0 name='x' type=Parameter-opset1: attribute shape="):
        infer(read_ir_bytes(one_hot_ir(shape=text), WEIGHTS))


# OpenVINO reads "5..3" as "?" and "-2" as "0"; ovonehot refuses them (an empty interval and
# a negative dimension are typos, not shapes).
@pytest.mark.parametrize("text", ["5..3", "-2"])
def test_shape_strings_openvino_misreads_are_refused(text: str) -> None:
    from ovonehot.infer import infer

    with pytest.raises(IRError, match="attribute shape="):
        infer(read_ir_bytes(one_hot_ir(shape=text), WEIGHTS))


# -- Constant payloads, every element type ----------------------------------------------------

STANDARD_TYPES = ["boolean", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
UNPACKED_BY_GET_VECTOR = ["u1", "u2", "u3", "u4", "u6"]  # OpenVINO's Constant.get_vector unpacks these
CONVERTED_TO_F32 = ["bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"]  # checked through OpenVINO's Convert


def _const_model(tmp_path: Path, et: str, count: int, seed: int) -> tuple[Path, object]:
    """A model Const(et, [count]) -> Result with random bytes, written by OpenVINO (plain)."""
    t = ov.Tensor(getattr(ov.Type, et), ov.Shape([count]))
    raw = np.asarray(t.data).view(np.uint8).reshape(-1)
    raw[:] = np.random.default_rng(seed).integers(0, 256, raw.size, dtype=np.uint8)
    if et == "boolean":
        raw[:] &= 1  # OpenVINO writes booleans as 0/1 bytes
    c = ov.op.Constant(t, shared_memory=False)
    c.set_friendly_name("c")
    path = tmp_path / f"{et}.xml"
    ov.save_model(ov.Model([c.output(0)], [], "c"), str(path), compress_to_fp16=False)
    return path, c


def _payload(path: Path) -> np.ndarray:
    graph = read_ir(path)
    (node,) = [n for n in graph.nodes if n.type == "Const"]
    assert node.payload is not None
    return node.payload


@pytest.mark.parametrize("et", STANDARD_TYPES)
@pytest.mark.parametrize("count", [1, 11])
def test_payload_of_standard_types_is_openvinos(et: str, count: int, tmp_path: Path) -> None:
    path, c = _const_model(tmp_path, et, count, seed=count)
    ours = _payload(path)
    theirs = c.get_data()
    assert ours.shape == (count,)
    assert ours.dtype == theirs.dtype
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("et", UNPACKED_BY_GET_VECTOR)
@pytest.mark.parametrize("count", [1, 7, 8, 9, 17])
def test_sub_byte_payload_unpacks_like_openvino(et: str, count: int, tmp_path: Path) -> None:
    path, c = _const_model(tmp_path, et, count, seed=count)
    ours = _payload(path)
    assert ours.shape == (count,)
    assert ours.astype(np.int64).tolist() == c.get_vector().astype(np.int64).tolist()


def _converted(c: object, to: str, count: int) -> np.ndarray:
    """OpenVINO's own reading of a Constant's values: its Convert reference, to ``to``."""
    from openvino import opset1

    value = ov.Tensor(c.get_output_element_type(0), c.get_output_shape(0))
    assert c.evaluate([value], [])
    node = opset1.convert(c, to)
    out = ov.Tensor(node.get_output_element_type(0), ov.Shape([count]))
    assert node.evaluate([out], [value])
    return np.array(out.data, copy=True)


@pytest.mark.parametrize("et", CONVERTED_TO_F32)
@pytest.mark.parametrize("count", [1, 9])
def test_float_payload_values_are_openvinos(et: str, count: int, tmp_path: Path) -> None:
    path, c = _const_model(tmp_path, et, count, seed=count + 100)
    ours = _payload(path)
    assert ours.shape == (count,)
    theirs = _converted(c, "f32", count)
    with np.errstate(invalid="ignore", over="ignore"):
        mine = ours.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs))
    ok = ~np.isnan(theirs)
    assert mine[ok].tolist() == theirs[ok].tolist()
    assert np.signbit(mine[ok]).tolist() == np.signbit(theirs[ok]).tolist()


@pytest.mark.parametrize("count", [1, 5, 6])
def test_i4_payload_is_openvinos(count: int, tmp_path: Path) -> None:
    path, c = _const_model(tmp_path, "i4", count, seed=count)
    ours = _payload(path)
    assert ours.astype(np.int64).tolist() == _converted(c, "i8", count).astype(np.int64).tolist()


@pytest.mark.parametrize("count", [1, 5, 6])
def test_nf4_payload_is_openvinos(count: int, tmp_path: Path) -> None:
    """nf4 codes, unpacked, mean what OpenVINO's own Convert of the Constant says (f32 table values)."""
    from ovonehot.types import NF4_TABLE, ElementType

    path, c = _const_model(tmp_path, "nf4", count, seed=count)
    ours = _payload(path)
    assert ours.shape == (count,) and ours.dtype == ElementType.nf4.numpy_dtype
    values = NF4_TABLE[ours.view(np.uint8)]
    assert values.tobytes() == _converted(c, "f32", count).tobytes()


def test_string_payload_is_openvinos(tmp_path: Path) -> None:
    values = np.array(["", "a", "héllo", "x,y", "\u00e9\u4e2d"])
    # ov.op.Constant(values) crashes the process (OpenVINO 2026.4); through a Tensor it works.
    c = ov.op.Constant(ov.Tensor(values), shared_memory=False)
    path = tmp_path / "s.xml"
    ov.save_model(ov.Model([c.output(0)], [], "s"), str(path))
    ours = _payload(path)
    assert ours.dtype == object
    read_back = next(n for n in openvino_reads(path).get_ordered_ops() if n.get_type_name() == "Constant")
    assert ours.tolist() == list(read_back.get_value_strings()) == values.tolist()


# -- Const size checks --------------------------------------------------------------------------


def test_const_size_smaller_than_its_shape_is_an_error() -> None:
    with pytest.raises(
        IRError, match=r"layer id=1 name='depth' type=Const-opset1: size=4 bytes is too small"
    ):
        read_ir_bytes(one_hot_ir(depth_size=4), WEIGHTS)


def test_const_size_larger_than_needed_is_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(depth_size=12))  # 12 bytes: the depth plus the on value
    assert ovonehot.load(path).run({"x": np.array([2, 0, 1, 5])})["out"].shape == (4, 3)
    openvino_reads(path)  # OpenVINO accepts it too


def test_const_beyond_the_weights_file_is_an_error() -> None:
    with pytest.raises(
        IRError, match=r"layer id=3 name='off' type=Const-opset1: offset=12 size=4 lies outside"
    ):
        read_ir_bytes(one_hot_ir(), WEIGHTS[:14])


def test_missing_bin_is_an_error_naming_the_file_and_layer(tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(), weights=None)
    with pytest.raises(
        InputError,
        match=r"m\.bin: no such file: the weights file, which layer id=1 name='depth' type=Const-opset1",
    ):
        ovonehot.load(path)


def test_model_without_constants_needs_no_bin(tmp_path: Path) -> None:
    layers = [PARAM.format(shape="2", et="f32", prec="FP32"), RESULT.replace('id="5"', 'id="1"')]
    path = write(tmp_path, one_hot_ir(layers=layers, edges=[(0, 0, 1, 0)]), weights=None)
    assert ovonehot.load(path).run({"x": np.array([1.5, 2], np.float32)})["x"].tolist() == [1.5, 2]


# -- structural errors ------------------------------------------------------------------------


def _edges_without(*drop: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return [e for e in EDGES if e not in drop]


STRUCTURE_ERRORS = [
    (
        "cycle",
        {"edges": [*_edges_without((0, 0, 4, 0)), (4, 4, 4, 0)]},
        r"layer id=4 name='oh' type=OneHot-opset1: the graph has a cycle through this layer",
    ),
    (
        "dangling-layer",
        {"edges": [*EDGES, (9, 0, 4, 0)]},
        r"edge 9:0 -> 4:0: dangling edge, no layer with id 9",
    ),
    (
        "dangling-out-port",
        {"edges": [*_edges_without((1, 0, 4, 1)), (1, 7, 4, 1)]},
        r"dangling edge, layer id=1 name='depth' type=Const-opset1 has no output port 7",
    ),
    (
        "dangling-in-port",
        {"edges": [*EDGES, (1, 0, 4, 9)]},
        r"dangling edge, layer id=4 name='oh' type=OneHot-opset1 has no input port 9",
    ),
    (
        "fed-twice",
        {"edges": [*EDGES, (2, 0, 4, 3)]},
        r"layer id=4 name='oh' type=OneHot-opset1: input port 3 is fed twice \(from layer 3 and from layer 2\)",
    ),
    (
        "missing-input",
        {"edges": _edges_without((3, 0, 4, 3))},
        r"layer id=4 name='oh' type=OneHot-opset1: input port 3 is not connected",
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "message"), [(k, m) for _, k, m in STRUCTURE_ERRORS], ids=[i for i, _, _ in STRUCTURE_ERRORS]
)
def test_structural_error_names_layer_and_port(kwargs: dict, message: str) -> None:
    with pytest.raises(IRError, match=message):
        read_ir_bytes(one_hot_ir(**kwargs), WEIGHTS)


# Port declarations OpenVINO's read_model refuses although it never checks them against its inference.
PORT_ERRORS = {
    "precision-unknown": (
        ('precision="FP32" names="out"', 'precision="FP99" names="out"'),
        r"layer id=4 name='oh' port 4: precision='FP99' is not an element type",
    ),
    "precision-empty": (
        ('precision="FP32" names="out"', 'precision="" names="out"'),
        r"layer id=4 name='oh' port 4: precision='' is not an element type",
    ),
    "dim-beyond-int64": (
        (
            '<port id="4" precision="FP32" names="out"/>',
            '<port id="4" precision="FP32" names="out"><dim>9223372036854775808</dim></port>',
        ),
        r"layer id=4 name='oh' port 4: <dim>9223372036854775808</dim> does not fit in int64",
    ),
}


@pytest.mark.parametrize("case", list(PORT_ERRORS))
def test_port_declarations_openvino_refuses(case: str, tmp_path: Path) -> None:
    (old, new), message = PORT_ERRORS[case]
    xml = one_hot_ir().replace(old.encode(), new.encode())
    path = write(tmp_path, xml)
    with pytest.raises(RuntimeError):
        openvino_reads(path)
    with pytest.raises(IRError, match=message):
        read_ir_bytes(xml, WEIGHTS)


def test_true_cycle_is_reported() -> None:
    # x -> A -> B -> A: two Convert layers feeding each other, and A also reading x... a loop
    layers = [
        PARAM.format(shape="2", et="f32", prec="FP32"),
        """<layer id="1" name="a" type="Add" version="opset1"><input><port id="0"/><port id="1"/></input>
           <output><port id="2" precision="FP32"/></output></layer>""",
        """<layer id="2" name="b" type="Convert" version="opset1"><data destination_type="f32"/>
           <input><port id="0"/></input><output><port id="1" precision="FP32"/></output></layer>""",
        RESULT.replace('id="5"', 'id="3"'),
    ]
    edges = [(0, 0, 1, 0), (2, 1, 1, 1), (1, 2, 2, 0), (2, 1, 3, 0)]
    with pytest.raises(IRError, match=r"layer id=1 name='a' type=Add-opset1: the graph has a cycle"):
        read_ir_bytes(one_hot_ir(layers=layers, edges=edges))


def test_duplicate_layer_id_names_both_layers() -> None:
    xml = one_hot_ir().replace(b'<layer id="3" name="off"', b'<layer id="2" name="off"')
    with pytest.raises(
        IRError,
        match=r"layer id=2 name='off' type=Const-opset1: duplicate layer id 2 "
        r"\(also layer id=2 name='on' type=Const-opset1\)",
    ):
        read_ir_bytes(xml, WEIGHTS)


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (
            b'<?xml version="1.0"?><model version="11"><layers/></model>',
            r"root element is <model>.*not an OpenVINO IR",
        ),
        (b"<net", r"not well-formed XML"),
        (b"just text", r"not well-formed XML"),
    ],
    ids=["wrong-root", "truncated", "not-xml"],
)
def test_not_an_ir(xml: bytes, message: str) -> None:
    with pytest.raises(IRError, match=message):
        read_ir_bytes(xml)


@pytest.mark.parametrize("version", ["7", "12", "", "ten"])
def test_wrong_ir_version(version: str) -> None:
    xml = one_hot_ir(net_version=version)
    with pytest.raises(IRError, match=r"only IR versions 10 and 11 are supported"):
        read_ir_bytes(xml, WEIGHTS)


def test_ir_version_10_reads(tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(net_version="10"))
    model = ovonehot.load(path)
    assert model.graph.ir_version == 10
    ((name, value),) = model.run({"x": np.array([1, 1, 1, 1])}).items()
    assert value[:, 1].tolist() == [1, 1, 1, 1]
    # OpenVINO names and types a v10 model's outputs its own way (legacy producer names).
    ov_output = openvino_reads(path).outputs[0]  # type: ignore[attr-defined]
    assert name == ov_output.get_any_name()
    assert set(model.outputs[0].names) == ov_output.get_names()
    assert str(model.outputs[0].element_type) == ov_output.get_element_type().get_type_name()


@pytest.mark.parametrize(
    "et", ["boolean", "f16", "f64", "i8", "u8", "u16", "i32", "i64", "u32", "u64", "bf16"]
)
def test_ir_version_10_converts_outputs_like_openvino(tmp_path: Path, et: str) -> None:
    """read_model keeps IR v10's old conventions: f16 inputs become f32, outputs become i32 or f32."""
    import openvino.opset1 as ops

    p = ops.parameter([3], getattr(ov.Type, et), name="p")
    model = ov.Model([ops.convert(p, getattr(ov.Type, et))], [p], "m")
    xml = tmp_path / "m.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    xml.write_text(xml.read_text().replace('version="11"', 'version="10"', 1))
    ov_model = openvino_reads(xml)
    ours = ovonehot.load(xml)
    assert str(ours.inputs[0].element_type) == ov_model.inputs[0].get_element_type().get_type_name()
    assert str(ours.outputs[0].element_type) == ov_model.outputs[0].get_element_type().get_type_name()
    assert ours.outputs[0].name == ov_model.outputs[0].get_any_name()
    x = np.array([0, 1, 3], dtype=ours.inputs[0].element_type.numpy_dtype)
    compiled = ov.Core().compile_model(ov_model, "CPU")
    expected = compiled({0: x})[0]
    got = ours.run([x])[ours.outputs[0].name]
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


ENTITY_ATTACKS = {
    "internal-entity": b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "11">]><net version="&a;"><layers/></net>',
    "billion-laughs": (
        b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
        b'<net version="11" name="&c;"><layers/></net>'
    ),
    "external-entity": (
        b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        b'<net version="11" name="&e;"><layers/></net>'
    ),
    "external-dtd": b'<?xml version="1.0"?><!DOCTYPE net SYSTEM "http://example.invalid/x.dtd"><net version="11"/>',
}


@pytest.mark.parametrize("xml", ENTITY_ATTACKS.values(), ids=ENTITY_ATTACKS.keys())
def test_dtd_and_entities_are_refused(xml: bytes, tmp_path: Path) -> None:
    with pytest.raises(IRError, match=r"DTD|external entity"):
        read_ir_bytes(xml)
    path = write(tmp_path, xml, weights=None)
    with pytest.raises(IRError, match=r"DTD|external entity"):
        read_ir(path)


def test_missing_version_attribute_names_the_layer() -> None:
    xml = one_hot_ir().replace(b'type="OneHot" version="opset1"', b'type="OneHot"')
    with pytest.raises(IRError, match=r"layer id=4 name='oh' type=OneHot: missing attribute 'version'"):
        read_ir_bytes(xml, WEIGHTS)


# -- type names and versions ------------------------------------------------------------------


# OpenVINO matches op types case-insensitively ("onehot", "ONEHOT", "parameter").  For the
# constant it only knows "Const": it refuses "Constant" and "const"; ovonehot reads them all.
@pytest.mark.parametrize("one_hot_type", ["OneHot", "onehot", "ONEHOT"])
def test_op_type_is_case_insensitive_as_in_openvino(one_hot_type: str, tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(one_hot_type=one_hot_type))
    openvino_reads(path)
    assert ovonehot.load(path).run({"x": np.array([0, 1, 2, 3])})["out"].shape == (4, 3)


@pytest.mark.parametrize("const_type", ["Const", "Constant", "const"])
def test_const_and_constant(const_type: str, tmp_path: Path) -> None:
    path = write(tmp_path, one_hot_ir(const_type=const_type))
    out = ovonehot.load(path).run({"x": np.array([2, 0, 1, 7])})["out"]
    assert out.tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]]


OPSETS = [f"opset{n}" for n in range(1, 17)]


@pytest.mark.parametrize("version", OPSETS)
def test_opset_version_picks_the_one_hot_version_like_openvino(version: str, tmp_path: Path) -> None:
    """opset1..opset15 give OneHot-1 (which ignores negative_indices_mode); opset16 gives OneHot-16."""
    from ovonehot.oracle.openvino_runtime import reference_run

    path = write(tmp_path, one_hot_ir(version=version, extra='negative_indices_mode="normalize"'))
    x = np.array([-1, -3, 0, 2], np.int64)
    ours = ovonehot.load(path).run({"x": x})["out"]
    theirs = reference_run(path, {"x": x})["out"]
    assert ours.tobytes() == theirs.tobytes()
    assert ours[0].tolist() == ([0, 0, 1] if version == "opset16" else [0, 0, 0])


@pytest.mark.parametrize("version", ["opset0", "opset17", "opset", "v1", "1"])
def test_unknown_opset_is_unsupported(version: str) -> None:
    from ovonehot.infer import infer

    with pytest.raises(UnsupportedError, match=rf"OneHot-{version}"):
        infer(read_ir_bytes(one_hot_ir(version=version), WEIGHTS))


def test_unknown_ops_are_listed_all_at_once() -> None:
    layers = [
        PARAM.format(shape="2", et="f32", prec="FP32"),
        """<layer id="1" name="f" type="Frobnicate" version="opset3"><input><port id="0"/></input>
           <output><port id="1" precision="FP32"/></output></layer>""",
        """<layer id="2" name="g" type="Gronk" version="extension"><input><port id="0"/></input>
           <output><port id="1" precision="FP32"/></output></layer>""",
        """<layer id="3" name="f2" type="Frobnicate" version="opset3"><input><port id="0"/></input>
           <output><port id="1" precision="FP32"/></output></layer>""",
        RESULT.replace('id="5"', 'id="4"'),
    ]
    edges = [(0, 0, 1, 0), (1, 1, 2, 0), (2, 1, 3, 0), (3, 1, 4, 0)]
    from ovonehot.infer import infer

    with pytest.raises(UnsupportedError) as info:
        infer(read_ir_bytes(one_hot_ir(layers=layers, edges=edges)))
    message = str(info.value)
    assert "Frobnicate-opset3, Gronk-extension" in message
    assert message.count("Frobnicate") == 1


def test_port_names_with_escaped_commas() -> None:
    xml = one_hot_ir().replace(b'names="out"', b'names="a\\,b,c"')
    graph = read_ir_bytes(xml, WEIGHTS)
    oh = next(n for n in graph.nodes if n.name == "oh")
    assert oh.outputs[0].names == ("a,b", "c")


def test_rt_info_is_tolerated(tmp_path: Path) -> None:
    xml = one_hot_ir().replace(b"</net>", b'<rt_info><info name="x" value="y"/></rt_info></net>')
    xml = xml.replace(
        b'version="opset1"><data axis',
        b'version="opset1"><rt_info><attribute name="fused_names" '
        b'version="0" value="a"/></rt_info><data axis',
    )
    path = write(tmp_path, xml)
    openvino_reads(path)
    assert ovonehot.load(path).run({"x": np.array([1, 1, 1, 1])})["out"].shape == (4, 3)
