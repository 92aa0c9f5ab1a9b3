"""Seeded mutations of an IR (model.xml + model.bin), for robustness campaigns.

``mutant(corpus, seed, index)`` picks one IR of the corpus and applies one to three
mutations to it, all drawn from ``random.Random(f"{seed}:{index}")``: the same seed
and index give the same mutant, byte for byte, on any machine.  Each mutation is a
function ``(rng, Doc) -> description`` over a parsed document (the XML tree and the
.bin bytes) or, for the byte-level kinds, over the serialized bytes.

Kinds (``KINDS``): attribute values (numbers, huge, negative, non-numeric, Unicode
digits), element types and precisions, Parameter/Const shapes and port dims, Const
offset/size and payload values, structure (layers, edges and ports deleted or
duplicated, layers retyped, unknown types and versions, cycles), XML truncation, byte
flips in the .xml and the .bin, huge documents and deeply nested XML, .bin truncation
and extension; and the classes of the third audit (issue 19): compressed XML (gzip, xz,
bzip2, zstd and zip magic), floods of attributes on one element, layer ids OpenVINO
refuses (``-1``, ``1 ``, 2**64+1), and Loops that grow a concatenation or never end
(the document replaced by such a Loop, :func:`loop_growth`).

:func:`hostile_manifest` makes replay manifests of every type confusion and with
hostile strings in the fields that reach generated code, for ``diff DIR`` and ``repro
DIR`` (``scripts/mutation_campaign.py`` also writes outputs onto FIFOs, sockets and
links to devices).

The mutants are meant for ``ovonehot validate|inspect|run``: whatever the file, each
must end with a result or one ``error:`` line (``scripts/mutation_campaign.py``,
``tests/test_mutation.py``).  This module never imports openvino.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import lzma
import random
import struct
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from lxml import etree

CORPUS_DIRS = ("onehot", "exports", "invalid", "replays")

_NUMBERS = (
    "0",
    "1",
    "-1",
    "2",
    "-2",
    "3",
    "7",
    "63",
    "64",
    "65",
    "255",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1000000000000",
    "99999999999999999999",
)
_ODD = (
    "",
    " ",
    "x",
    "nan",
    "inf",
    "-inf",
    "1.5",
    "-0.0",
    "1e3",
    "0x10",
    "1_0",
    " 1",
    "1 ",
    "+1",
    "--1",
    "1,2",
    "1,,2",
    ",",
    "?",
    "..",
    "1..",
    "..-1",
    "true",
    "opset1",
    "\x7f",
    "é",
    "\u00a0",
)
_UNICODE_DIGITS = ("\u0663", "\uff11", "\U0001d7d9", "\u0661\u0660", "\u09e8", "\u00b2")
_ELEMENT_TYPES = (
    "boolean",
    "bf16",
    "f16",
    "f32",
    "f64",
    "i4",
    "i8",
    "i16",
    "i32",
    "i64",
    "u1",
    "u2",
    "u3",
    "u4",
    "u6",
    "u8",
    "u16",
    "u32",
    "u64",
    "nf4",
    "f8e4m3",
    "f8e5m2",
    "f8e8m0",
    "f4e2m1",
    "string",
    "dynamic",
    "undefined",
    "f128",
    "I64",
    "FP32",
    "Q78",
    "",
)
_PRECISIONS = (
    "FP32",
    "FP16",
    "FP64",
    "BF16",
    "I8",
    "I16",
    "I32",
    "I64",
    "U1",
    "U4",
    "U8",
    "U16",
    "U32",
    "U64",
    "BOOL",
    "BOOLEAN",
    "STRING",
    "DYNAMIC",
    "UNSPECIFIED",
    "MIXED",
    "Q78",
    "fp32",
    "",
)
_TYPES = (
    "Parameter",
    "Result",
    "Const",
    "Constant",
    "Convert",
    "OneHot",
    "Add",
    "Broadcast",
    "Tile",
    "Range",
    "Reshape",
    "Split",
    "Concat",
    "ShapeOf",
    "Gather",
    "Pad",
    "Squeeze",
    "Unsqueeze",
    "Transpose",
    "Select",
    "MatMul",
    "ReduceSum",
    "TopK",
    "NonZero",
    "Unique",
    "Einsum",
    "Assign",
    "ReadValue",
    "Loop",
    "TensorIterator",
    "If",
    "FooBar",
    "parameter",
    "",
)
_VERSIONS = (
    "opset1",
    "opset3",
    "opset4",
    "opset8",
    "opset13",
    "opset15",
    "opset16",
    "opset17",
    "opset0",
    "opset99",
    "opset99999999999999999999",
    "internal",
    "experimental",
    "OPSET1",
    "opset1 ",
    " opset1",
    "opset01",
    "opset\u0661",
    "opset-1",
    "",
    "ie_internal_opset",
)
_SHAPES = (
    "",
    "1",
    "0",
    "2,3",
    "-1",
    "?",
    "1..10",
    "10..1",
    "...",
    "[...]",
    "-1,-1",
    "0,0,0",
    "4294967296",
    "9223372036854775807",
    "1000000000,1000000000",
    "1099511627776,1099511627776",
    "100000,100000",
    "65536,65536,65536",
    "0,4611686018427387904,4",
    "0,1099511627776,1099511627776",
    "2,",
    ",",
    "1,,1",
    "a",
    "-2",
    "1.5",
    "\u0663",
    "1_0",
    "+3",
    ",".join(["1"] * 65),
    ",".join(["2"] * 64),
    ",".join(["1"] * 300),
)


@dataclass
class Doc:
    """A mutable IR: the parsed XML and the .bin bytes (payloads may be appended)."""

    root: etree._Element
    weights: bytearray

    def layers(self) -> list[etree._Element]:
        layers = self.root.find("layers")
        return list(layers.iterchildren("layer")) if layers is not None else []

    def edges(self) -> list[etree._Element]:
        edges = self.root.find("edges")
        return list(edges.iterchildren("edge")) if edges is not None else []

    def ports(self) -> list[etree._Element]:
        return [p for layer in self.layers() for p in layer.iter("port")]

    def data(self) -> list[etree._Element]:
        return [d for layer in self.layers() if (d := layer.find("data")) is not None]

    def consts(self) -> list[etree._Element]:
        return [
            layer for layer in self.layers() if (layer.get("type") or "").lower() in ("const", "constant")
        ]


@dataclass(frozen=True)
class Mutant:
    """One mutant: the files' bytes, the IR it came from and what was done to it."""

    xml: bytes
    weights: bytes
    source: str
    seed: int
    index: int
    mutations: tuple[str, ...] = field(default=())

    def write(self, directory: str | Path, stem: str = "model") -> Path:
        """Write ``stem.xml`` and ``stem.bin`` into ``directory``; return the .xml path."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        xml_path = directory / f"{stem}.xml"
        xml_path.write_bytes(self.xml)
        xml_path.with_suffix(".bin").write_bytes(self.weights)
        return xml_path


def corpus(ir_root: str | Path = "ir") -> list[Path]:
    """Every IR .xml under ``ir/onehot``, ``ir/exports``, ``ir/invalid`` and ``ir/replays``, sorted."""
    root = Path(ir_root)
    return sorted(p for d in CORPUS_DIRS for p in (root / d).rglob("*.xml"))


def mutant(files: Sequence[Path], seed: int, index: int, kinds: Sequence[str] = ()) -> Mutant:
    """Mutant number ``index`` of campaign ``seed`` over ``files``: deterministic.

    ``kinds`` restricts the mutations to those kinds (default: all of ``KINDS``).
    """
    rng = random.Random(f"{seed}:{index}")
    path = files[rng.randrange(len(files))]
    xml = path.read_bytes()
    bin_path = path.with_suffix(".bin")
    weights = bin_path.read_bytes() if bin_path.is_file() else b""
    xml, weights, done = mutate(xml, weights, rng, kinds)
    return Mutant(xml, weights, str(path), seed, index, tuple(done))


def mutate(
    xml: bytes, weights: bytes, rng: random.Random, kinds: Sequence[str] = ()
) -> tuple[bytes, bytes, list[str]]:
    """Apply one to three mutations drawn from ``rng``; tree kinds first, then byte kinds."""
    names = tuple(k for k in KIND_NAMES if not kinds or k in kinds)
    if not names:
        raise ValueError(f"no mutation kind among {list(kinds)}; known: {', '.join(KIND_NAMES)}")
    n = rng.choice((1, 1, 1, 2, 2, 3))
    chosen = [rng.choices(names, weights=[_WEIGHTS[k] for k in names])[0] for _ in range(n)]
    done: list[str] = []
    tree_kinds = [k for k in chosen if k in TREE_KINDS]
    byte_kinds = [k for k in chosen if k in BYTE_KINDS]
    try:
        root = etree.fromstring(
            xml,
            etree.XMLParser(
                remove_blank_text=False,
                resolve_entities=False,
                no_network=True,
                load_dtd=False,
                huge_tree=False,
            ),
        )
    except etree.XMLSyntaxError:
        root = None
    if tree_kinds and root is not None:
        doc = Doc(root, bytearray(weights))
        done.extend(f"{kind}: {TREE_KINDS[kind](rng, doc)}" for kind in tree_kinds)
        xml = etree.tostring(doc.root, xml_declaration=True, encoding="utf-8")
        weights = bytes(doc.weights)
    for kind in byte_kinds:
        xml, weights, what = BYTE_KINDS[kind](rng, xml, weights)
        done.append(f"{kind}: {what}")
    return xml, weights, done


# -- tree mutations ------------------------------------------------------------------------------
def _pick(rng: random.Random, items: Sequence[etree._Element]) -> etree._Element | None:
    return items[rng.randrange(len(items))] if items else None


def _where(el: etree._Element) -> str:
    layer = el if el.tag == "layer" else next((a for a in el.iterancestors("layer")), None)
    return f"{el.tag} of layer {layer.get('id')}" if layer is not None else el.tag


def _odd_value(rng: random.Random) -> str:
    pool = rng.choice(("numbers", "numbers", "odd", "unicode", "huge", "list"))
    if pool == "numbers":
        return rng.choice(_NUMBERS)
    if pool == "odd":
        return rng.choice(_ODD)
    if pool == "unicode":
        return rng.choice(_UNICODE_DIGITS)
    if pool == "huge":
        return rng.choice(("9" * rng.choice((30, 5000, 100_000)), "x" * 300_000, "1," * 50_000 + "1"))
    return ",".join(rng.choice(_NUMBERS[:8]) for _ in range(rng.randint(0, 8)))


def attribute_value(rng: random.Random, doc: Doc) -> str:
    """Any attribute of a layer, its data, a port or an edge gets an odd value."""
    candidates = [el for el in doc.layers() + doc.data() + doc.ports() + doc.edges() if el.attrib]
    el = _pick(rng, candidates)
    if el is None:
        return "nothing to change"
    name = rng.choice(sorted(el.attrib.keys()))
    value = _odd_value(rng)
    el.set(name, value)
    return f"{_where(el)} {name}={value[:40]!r}"


def data_attribute_value(rng: random.Random, doc: Doc) -> str:
    """A ``<data>`` attribute (the op's own attributes) gets an odd value."""
    el = _pick(rng, [d for d in doc.data() if d.attrib])
    if el is None:
        return "nothing to change"
    name = rng.choice(sorted(el.attrib.keys()))
    value = _odd_value(rng)
    el.set(name, value)
    return f"{_where(el)} {name}={value[:40]!r}"


def element_type(rng: random.Random, doc: Doc) -> str:
    """A data ``element_type``/``destination_type``/``output_type`` or a port precision changes."""
    if rng.random() < 0.5:
        typed = [d for d in doc.data() if any(k.endswith("_type") for k in d.attrib)]
        el = _pick(rng, typed)
        if el is not None:
            name = rng.choice(sorted(k for k in el.attrib if k.endswith("_type")))
            value = rng.choice(_ELEMENT_TYPES)
            el.set(name, value)
            return f"{_where(el)} {name}={value!r}"
    el = _pick(rng, doc.ports())
    if el is None:
        return "nothing to change"
    value = rng.choice(_PRECISIONS)
    el.set("precision", value)
    return f"{_where(el)} precision={value!r}"


def shape(rng: random.Random, doc: Doc) -> str:
    """A Parameter's or Const's ``shape`` attribute changes (huge, odd, many dims)."""
    el = _pick(rng, [d for d in doc.data() if "shape" in d.attrib])
    if el is None:
        return "nothing to change"
    value = rng.choice(_SHAPES)
    el.set("shape", value)
    return f"{_where(el)} shape={value[:40]!r}"


def port_dims(rng: random.Random, doc: Doc) -> str:
    """A port loses, gains or changes a ``<dim>``."""
    port = _pick(rng, doc.ports())
    if port is None:
        return "nothing to change"
    dims = list(port.iterchildren("dim"))
    action = rng.choice(("change", "change", "add", "delete", "many"))
    value = rng.choice(_NUMBERS + _ODD[:14] + _UNICODE_DIGITS)
    if action == "change" and dims:
        rng.choice(dims).text = value
    elif action == "delete" and dims:
        port.remove(rng.choice(dims))
    elif action == "many":
        for _ in range(rng.choice((65, 300, 5000))):
            etree.SubElement(port, "dim").text = "1"
        return f"{_where(port)}: many dims"
    else:
        etree.SubElement(port, "dim").text = value
        action = "add"
    return f"{_where(port)}: {action} dim {value!r}"


def const_offset_size(rng: random.Random, doc: Doc) -> str:
    """A Const's ``offset`` or ``size`` changes (outside the .bin, negative, huge, odd)."""
    layer = _pick(rng, doc.consts())
    data = layer.find("data") if layer is not None else None
    if layer is None or data is None:
        return "nothing to change"
    name = rng.choice(("offset", "size"))
    n = len(doc.weights)
    value = rng.choice(
        (
            str(n),
            str(n + 1),
            str(max(n - 1, 0)),
            "0",
            "-1",
            "-8",
            "1",
            "3",
            str(2**62),
            str(2**63),
            str(2**64),
            "1_0",
            "\u0663",
            "0x10",
            " 1",
            "1 ",
            "+1",
            "",
        )
    )
    data.set(name, value)
    return f"layer {layer.get('id')} {name}={value!r}"


def const_values(rng: random.Random, doc: Doc) -> str:
    """A Const's payload gets extreme values (huge shapes, depths, repeats, counts).

    The new payload is appended to the .bin and the Const points at it, so other
    Consts sharing the old bytes keep theirs.
    """
    layer = _pick(rng, doc.consts())
    data = layer.find("data") if layer is not None else None
    if layer is None or data is None:
        return "nothing to change"
    et = data.get("element_type", "")
    formats = {
        "i64": "<q",
        "i32": "<i",
        "u64": "<Q",
        "u32": "<I",
        "i8": "<b",
        "u8": "<B",
        "i16": "<h",
        "u16": "<H",
        "f32": "<f",
        "f64": "<d",
    }
    fmt = formats.get(et)
    if fmt is None:
        return f"layer {layer.get('id')}: element type {et!r} left alone"
    try:
        count = 1
        for part in (data.get("shape") or "").split(","):
            if part.strip():
                count *= int(part)
    except ValueError:
        return "unreadable shape"
    count = max(0, min(count, 64))  # a shape "-1" or "1000000000,1000000000": at most 64 values
    bits = struct.calcsize(fmt) * 8
    signed = fmt[1] in "qibh"
    if fmt[1] in "fd":
        pool: list[float] = [0.0, -1.0, 1e30, -1e30, float("inf"), float("nan"), 2.0**40, 3.5]
    else:
        top = 2 ** (bits - 1) - 1 if signed else 2**bits - 1
        low = -(2 ** (bits - 1)) if signed else 0
        pool = [
            v
            for v in (0, 1, -1, top, low, 2**20, 2**31, 2**40, 2**62, -(2**31), 100_000, 65_536)
            if low <= v <= top
        ]
    values = [rng.choice(pool) for _ in range(count)]
    payload = struct.pack("<" + fmt[1] * count, *values)
    offset = len(doc.weights)
    doc.weights.extend(payload)
    data.set("offset", str(offset))
    data.set("size", str(len(payload)))
    return f"layer {layer.get('id')} values {values[:4]}"


def delete_layer(rng: random.Random, doc: Doc) -> str:
    layer = _pick(rng, doc.layers())
    if layer is None:
        return "nothing to delete"
    layer.getparent().remove(layer)
    if rng.random() < 0.5:  # also its edges, so the graph is consistent but smaller
        for edge in doc.edges():
            if layer.get("id") in (edge.get("from-layer"), edge.get("to-layer")):
                edge.getparent().remove(edge)
        return f"layer {layer.get('id')} and its edges"
    return f"layer {layer.get('id')}"


def duplicate_layer(rng: random.Random, doc: Doc) -> str:
    layer = _pick(rng, doc.layers())
    if layer is None:
        return "nothing to copy"
    copy = etree.fromstring(etree.tostring(layer))
    if rng.random() < 0.7:
        ids = [int(x) for x in (el.get("id", "") for el in doc.layers()) if x.isascii() and x.isdigit()]
        copy.set("id", str(max(ids, default=0) + 1))
    layer.addnext(copy)
    return f"layer {layer.get('id')} as {copy.get('id')}"


def retype_layer(rng: random.Random, doc: Doc) -> str:
    """A layer's type (Parameter -> Result, an unknown type, ...) or version changes."""
    layer = _pick(rng, doc.layers())
    if layer is None:
        return "nothing to retype"
    if rng.random() < 0.7:
        value = rng.choice(_TYPES)
        layer.set("type", value)
        return f"layer {layer.get('id')} type={value!r}"
    value = rng.choice(_VERSIONS)
    layer.set("version", value)
    return f"layer {layer.get('id')} version={value!r}"


def drop_attribute(rng: random.Random, doc: Doc) -> str:
    """A mandatory-looking attribute (id, name, type, version, precision, a data attribute) goes."""
    el = _pick(rng, [el for el in doc.layers() + doc.data() + doc.ports() + doc.edges() if el.attrib])
    if el is None:
        return "nothing to drop"
    name = rng.choice(sorted(el.attrib.keys()))
    del el.attrib[name]
    return f"{_where(el)} without {name}"


def edge_change(rng: random.Random, doc: Doc) -> str:
    """An edge is deleted, duplicated or rerouted (possibly into a cycle)."""
    edge = _pick(rng, doc.edges())
    if edge is None:
        return "no edges"
    action = rng.choice(("delete", "duplicate", "reroute", "cycle"))
    if action == "delete":
        edge.getparent().remove(edge)
    elif action == "duplicate":
        edge.addnext(etree.fromstring(etree.tostring(edge)))
    elif action == "reroute":
        other = _pick(rng, doc.edges())
        assert other is not None  # noqa: S101 - edge is one of the edges: there is one to pick
        edge.set("from-layer", other.get("from-layer", ""))
        edge.set("from-port", other.get("from-port", ""))
    else:  # feed a layer from one of its own consumers
        dst = edge.get("to-layer")
        later = [e for e in doc.edges() if e.get("from-layer") == dst]
        if later:
            back = rng.choice(later)
            edge.set("from-layer", back.get("to-layer", ""))
            src = next((la for la in doc.layers() if la.get("id") == back.get("to-layer")), None)
            out = src.find("output/port") if src is not None else None
            edge.set("from-port", out.get("id", "0") if out is not None else "0")
    return f"edge {edge.get('from-layer')}:{edge.get('from-port')}->{edge.get('to-layer')}: {action}"


def port_change(rng: random.Random, doc: Doc) -> str:
    """A port is deleted or duplicated."""
    port = _pick(rng, doc.ports())
    if port is None:
        return "no ports"
    if rng.random() < 0.5:
        port.getparent().remove(port)
        return f"{_where(port)} port {port.get('id')} deleted"
    port.addnext(etree.fromstring(etree.tostring(port)))
    return f"{_where(port)} port {port.get('id')} duplicated"


def _add_layer(layers: etree._Element, layer_id: int, name: str, kind: str, **data: str) -> etree._Element:
    """An opset1 ``<layer>`` (with ``<data>`` when ``data`` is given) appended to ``layers``."""
    layer = etree.SubElement(layers, "layer", id=str(layer_id), name=name, type=kind, version="opset1")
    if data:
        etree.SubElement(layer, "data", **data)
    return layer


def _add_port(layer: etree._Element, side: str, port: int, dim: str) -> None:
    """A one-dim FP32 port on ``layer``'s ``side`` ("input" or "output"), made once per side."""
    holder = layer.find(side)
    if holder is None:
        holder = etree.SubElement(layer, side)
    etree.SubElement(etree.SubElement(holder, "port", id=str(port), precision="FP32"), "dim").text = dim


def _add_edge(edges: etree._Element, src: int, src_port: int, dst: int, dst_port: int) -> None:
    etree.SubElement(
        edges,
        "edge",
        {"from-layer": str(src), "from-port": str(src_port), "to-layer": str(dst), "to-port": str(dst_port)},
    )


def many_parameters(rng: random.Random, doc: Doc) -> str:
    """Thousands of extra Parameters (each with its Result): per-node costs must stay O(1)."""
    layers, edges = doc.root.find("layers"), doc.root.find("edges")
    if layers is None or edges is None:
        return "no <layers>/<edges>"
    n = rng.choice((1_000, 5_000, 20_000))
    base = 1_000_000
    for k in range(n):
        p = _add_layer(layers, base + 2 * k, f"p{k}", "Parameter", shape="1", element_type="f32")
        _add_port(p, "output", 0, "1")
        r = _add_layer(layers, base + 2 * k + 1, f"r{k}", "Result")
        _add_port(r, "input", 0, "1")
        _add_edge(edges, base + 2 * k, 0, base + 2 * k + 1, 0)
    return f"{n} Parameter->Result pairs"


def long_chain(rng: random.Random, doc: Doc) -> str:
    """A long chain of Converts after a Parameter: per-layer costs must stay linear."""
    layers, edges = doc.root.find("layers"), doc.root.find("edges")
    if layers is None or edges is None:
        return "no <layers>/<edges>"
    n = rng.choice((1_000, 3_000, 10_000))
    base = 2_000_000
    p = _add_layer(layers, base, "chain_in", "Parameter", shape="2", element_type="f32")
    _add_port(p, "output", 0, "2")
    for k in range(1, n + 1):
        c = _add_layer(layers, base + k, f"c{k}", "Convert", destination_type="f32")
        _add_port(c, "input", 0, "2")
        _add_port(c, "output", 1, "2")
        _add_edge(edges, base + k - 1, 0 if k == 1 else 1, base + k, 0)
    r = _add_layer(layers, base + n + 1, "chain_out", "Result")
    _add_port(r, "input", 0, "2")
    _add_edge(edges, base + n, 1, base + n + 1, 0)
    return f"a chain of {n} Converts"


def huge_attribute(rng: random.Random, doc: Doc) -> str:
    """One attribute becomes megabytes long (error messages must not repeat it whole)."""
    el = _pick(rng, doc.layers() + doc.data() + doc.ports())
    if el is None:
        return "nothing to change"
    name = rng.choice(sorted(el.attrib.keys()) or ["name"])
    value = rng.choice(("7", "a", "1,")) * rng.choice((100_000, 2_000_000))
    el.set(name, value)
    return f"{_where(el)} {name}: {len(value)} characters"


# -- byte mutations ------------------------------------------------------------------------------
ByteMutation = Callable[[random.Random, bytes, bytes], tuple[bytes, bytes, str]]


def truncate_xml(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    cut = rng.randrange(len(xml) + 1)
    return xml[:cut], weights, f"xml cut at {cut} of {len(xml)}"


def flip_xml(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    data = bytearray(xml)
    n = rng.choice((1, 1, 2, 8))
    for _ in range(n):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data), weights, f"{n} xml byte(s) replaced"


def flip_bin(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    data = bytearray(weights)
    n = rng.choice((1, 4, 32))
    for _ in range(n):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return xml, bytes(data), f"{n} bin byte(s) replaced"


def resize_bin(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    action = rng.choice(("truncate", "truncate", "empty", "extend"))
    if action == "truncate" and weights:
        cut = rng.randrange(len(weights))
        return xml, weights[:cut], f"bin cut at {cut} of {len(weights)}"
    if action == "extend":
        extra = rng.choice((1, 7, 4096))
        return xml, weights + bytes(rng.randrange(256) for _ in range(extra)), f"bin extended by {extra}"
    return xml, b"", "bin emptied"


def deep_nesting(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    """Deeply nested elements inside a layer's <data> (or around the whole <net>)."""
    depth = rng.choice((300, 5_000, 100_000))
    nest = b"<a>" * depth + b"</a>" * depth
    if rng.random() < 0.5 and b"<data" in xml:
        at = xml.index(b"<data")
        end = xml.index(b">", at)
        if xml[end - 1 : end] == b"/":
            return (
                xml[: end - 1] + b">" + nest + b"</data>" + xml[end + 1 :],
                weights,
                f"{depth} levels in <data>",
            )
        return xml[: end + 1] + nest + xml[end + 1 :], weights, f"{depth} levels in <data>"
    return b"<x>" * depth + xml.split(b"?>", 1)[-1] + b"</x>" * depth, weights, f"{depth} levels around <net>"


def huge_document(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    """Megabytes of comments, whitespace or unknown elements."""
    kind = rng.choice(("comment", "whitespace", "elements"))
    size = rng.choice((1 << 20, 8 << 20))
    if kind == "comment":
        filler = b"<!--" + b"x" * size + b"-->"
    elif kind == "whitespace":
        filler = b" " * size
    else:
        filler = b"<junk a='1'/>" * (size // 13)
    at = xml.find(b"<layers>")
    at = at + len(b"<layers>") if at >= 0 else len(xml) // 2
    return xml[:at] + filler + xml[at:], weights, f"{kind} of {size} bytes"


def compressed_xml(rng: random.Random, xml: bytes, weights: bytes) -> tuple[bytes, bytes, str]:
    """The .xml compressed (libxml2 inflated gzip/xz given a path, without bound)."""
    kind = rng.choice(("gzip", "xz", "bzip2", "zstd-magic", "zip", "gzip-bomb"))
    if kind == "gzip":
        return gzip.compress(xml), weights, "gzip"
    if kind == "xz":
        return lzma.compress(xml), weights, "xz"
    if kind == "bzip2":
        return bz2.compress(xml), weights, "bzip2"
    if kind == "zstd-magic":
        return b"\x28\xb5\x2f\xfd" + xml, weights, "zstd magic before the XML"
    if kind == "zip":
        buf = BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("model.xml", xml)
        return buf.getvalue(), weights, "zip"
    filler = b"<!--" + b" " * (64 << 20) + b"-->"  # 64 MiB of comment in 64 KiB of gzip
    return gzip.compress(xml.replace(b"<layers>", b"<layers>" + filler, 1)), weights, "gzip bomb (64 MiB)"


def attribute_flood(rng: random.Random, doc: Doc) -> str:
    """Tens of thousands of attributes on one element (lxml's items() is quadratic in them)."""
    el = _pick(rng, doc.data() + doc.layers() + doc.ports())
    if el is None:
        return "nothing to change"
    n = rng.choice((10_000, 100_000))
    # Built as text and parsed once: lxml's set() looks the name up first (quadratic here too).
    own = " ".join(f'{k}="{_escape(v)}"' for k, v in el.items() if isinstance(k, str) and "}" not in k)
    flood = " ".join(f'a{k}="{k}"' for k in range(n))
    new = etree.fromstring(f"<{el.tag} {own} {flood}/>".encode(), etree.XMLParser(huge_tree=True))
    new.extend(list(el))
    new.tail = el.tail
    parent = el.getparent()
    if parent is None:
        return "the root"
    parent.replace(el, new)
    return f"{_where(new)}: {n} attributes"


def _escape(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


_LAYER_IDS = ("-1", "1 ", " 7", "+7", "1e3", "0x1", "18446744073709551617", "9223372036854775808", "٣")


def odd_layer_id(rng: random.Random, doc: Doc) -> str:
    """A layer's id (and its edges') spelled as OpenVINO refuses (``-1``, ``1 ``, 2**64+1) or takes."""
    layer = _pick(rng, doc.layers())
    if layer is None:
        return "no layer"
    old = layer.get("id") or ""
    new = rng.choice(_LAYER_IDS)
    layer.set("id", new)
    for edge in doc.edges():
        for end in ("from-layer", "to-layer"):
            if edge.get(end) == old:
                edge.set(end, new)
    return f"layer id {old!r} -> {new!r}"


_LOOP = """<net name="loop" version="11"><layers>
<layer id="0" name="x" type="Const" version="opset1"><data element_type="f32" shape="{n}" offset="21" size="{size}"/>
<output><port id="0" precision="FP32"><dim>{n}</dim></port></output></layer>
<layer id="1" name="trip" type="Const" version="opset1"><data element_type="i64" shape="" offset="0" size="8"/>
<output><port id="0" precision="I64"/></output></layer>
<layer id="2" name="go" type="Const" version="opset1"><data element_type="boolean" shape="" offset="8" size="1"/>
<output><port id="0" precision="BOOL"/></output></layer>
<layer id="3" name="loop" type="Loop" version="opset5"><port_map>
<input external_port_id="2" internal_layer_id="0"/><output external_port_id="3" internal_layer_id="6"/>
{concat}<input external_port_id="-1" internal_layer_id="1" purpose="current_iteration"/>
<output external_port_id="-1" internal_layer_id="7" purpose="execution_condition"/></port_map>
<back_edges><edge from-layer="6" to-layer="0"/></back_edges>
<input><port id="0" precision="I64"/><port id="1" precision="BOOL"/><port id="2" precision="FP32"><dim>{n}</dim></port></input>
<output><port id="3" precision="FP32"><dim>{n}</dim></port>{concat_port}</output>
<body><layers>
<layer id="0" name="xi" type="Parameter" version="opset1"><data shape="{n}" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>{n}</dim></port></output></layer>
<layer id="1" name="it" type="Parameter" version="opset1"><data shape="" element_type="i64"/>
<output><port id="0" precision="I64"/></output></layer>
<layer id="2" name="limit" type="Const" version="opset1"><data element_type="i64" shape="" offset="9" size="8"/>
<output><port id="0" precision="I64"/></output></layer>
<layer id="3" name="less" type="Less" version="opset1"><input><port id="0" precision="I64"/><port id="1" precision="I64"/>
</input><output><port id="2" precision="BOOL"/></output></layer>
<layer id="4" name="one" type="Const" version="opset1"><data element_type="f32" shape="" offset="17" size="4"/>
<output><port id="0" precision="FP32"/></output></layer>
<layer id="5" name="add" type="Add" version="opset1"><input><port id="0" precision="FP32"><dim>{n}</dim></port>
<port id="1" precision="FP32"/></input><output><port id="2" precision="FP32"><dim>{n}</dim></port></output></layer>
<layer id="6" name="next" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>{n}</dim></port>
</input></layer>
<layer id="7" name="cond" type="Result" version="opset1"><input><port id="0" precision="BOOL"/></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="5" to-port="0"/><edge from-layer="1" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="1"/><edge from-layer="3" from-port="2" to-layer="7" to-port="0"/>
<edge from-layer="4" from-port="0" to-layer="5" to-port="1"/><edge from-layer="5" from-port="2" to-layer="6" to-port="0"/>
</edges></body></layer>
<layer id="4" name="last" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>{n}</dim></port>
</input></layer>{concat_result}
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="2"/><edge from-layer="1" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="1"/><edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>
{concat_edge}</edges></net>"""
_CONCAT = {
    "concat": '<output axis="0" external_port_id="4" internal_layer_id="6" start="0" end="-1" stride="1" part_size="1"/>',
    "concat_port": '<port id="4" precision="FP32"><dim>-1</dim></port>',
    "concat_result": '<layer id="5" name="every" type="Result" version="opset1"><input><port id="0" precision="FP32">'
    "<dim>-1</dim></port></input></layer>",
    "concat_edge": '<edge from-layer="3" from-port="4" to-layer="5" to-port="0"/>',
}


def loop_growth(rng: random.Random, doc: Doc) -> str:
    """The document becomes a Loop (no Parameters): a state of ``n`` floats plus one per
    iteration, concatenated or not, its trip count -1 or huge, its condition ``i < limit``
    computed in the body (a limit never reached) or the constant true."""
    n = rng.choice((1, 4096, 262144))
    trip = rng.choice((-1, 2**62, 2**31, 1000))
    limit = rng.choice((2**62, 10, 0))
    concat = rng.random() < 0.6
    parts = {k: v if concat else "" for k, v in _CONCAT.items()}
    doc.root = etree.fromstring(_LOOP.format(n=n, size=4 * n, **parts).encode())
    doc.weights[:] = struct.pack("<q?qf", trip, True, limit, 1.0) + bytes(4 * n)
    return f"a Loop model: state [{n}], trip count {trip}, condition i < {limit}, concatenated {concat}"


TREE_KINDS: dict[str, Callable[[random.Random, Doc], str]] = {
    "attribute-value": attribute_value,
    "data-attribute-value": data_attribute_value,
    "element-type": element_type,
    "shape": shape,
    "port-dims": port_dims,
    "const-offset-size": const_offset_size,
    "const-values": const_values,
    "delete-layer": delete_layer,
    "duplicate-layer": duplicate_layer,
    "retype-layer": retype_layer,
    "drop-attribute": drop_attribute,
    "edge": edge_change,
    "port": port_change,
    "many-parameters": many_parameters,
    "long-chain": long_chain,
    "huge-attribute": huge_attribute,
    "attribute-flood": attribute_flood,
    "odd-layer-id": odd_layer_id,
    "loop-growth": loop_growth,
}
BYTE_KINDS: dict[str, ByteMutation] = {
    "truncate-xml": truncate_xml,
    "flip-xml": flip_xml,
    "flip-bin": flip_bin,
    "resize-bin": resize_bin,
    "deep-nesting": deep_nesting,
    "huge-document": huge_document,
    "compressed-xml": compressed_xml,
}
# How often each kind is drawn: the cheap, varied ones most; the huge ones rarely.
_WEIGHTS = {
    "attribute-value": 10,
    "data-attribute-value": 12,
    "element-type": 8,
    "shape": 10,
    "port-dims": 6,
    "const-offset-size": 5,
    "const-values": 10,
    "delete-layer": 4,
    "duplicate-layer": 3,
    "retype-layer": 8,
    "drop-attribute": 5,
    "edge": 5,
    "port": 4,
    "many-parameters": 0.2,
    "long-chain": 0.2,
    "huge-attribute": 0.6,
    "truncate-xml": 2,
    "flip-xml": 3,
    "flip-bin": 3,
    "resize-bin": 3,
    "deep-nesting": 0.4,
    "huge-document": 0.2,
    "attribute-flood": 0.3,
    "odd-layer-id": 2,
    "loop-growth": 1,
    "compressed-xml": 0.8,
}
KIND_NAMES = tuple(_WEIGHTS)
KINDS = KIND_NAMES
# The kinds that make documents of megabytes or tens of thousands of layers (slow to run
# in a unit test; the campaign has them).
HEAVY_KINDS = (
    "many-parameters",
    "long-chain",
    "huge-attribute",
    "deep-nesting",
    "huge-document",
    "attribute-flood",
    "loop-growth",
)


# -- replay manifests ------------------------------------------------------------------------------
# A string that is code wherever a value is pasted into source text unescaped.
HOSTILE_STRING = 'x"; __import__("os").system("touch PWNED"); X = "\n"""\'\'\'\\'


def _bad_values() -> tuple[Any, ...]:
    return (None, True, 5, -1, 1.5, "x", "", [], [1], {}, {"a": 1}, HOSTILE_STRING, 2**70)


# field -> hostile values that still fit the schema (strings that reach generated code)
_STRING_FIELDS = ("source", "versions", "verdicts", "reduced_from", "command")


def hostile_manifest(rng: random.Random, manifest: dict[str, Any]) -> tuple[dict[str, Any] | str, str]:
    """``manifest`` (a valid replay manifest) with one hostile change: a field of the wrong
    type, a value of the right type out of range, an oracle or plugin property the schema
    refuses, broken JSON, or a hostile string in a field that reaches a repro script.
    Returns the manifest (or raw text) and what was done."""
    m = copy.deepcopy(manifest)
    kind = rng.choice(("type", "type", "value", "plugin", "text", "string"))
    if kind == "type":
        name = rng.choice([*sorted(m), "schema_version", "plugin", "reduced_from", "allow_partial"])
        m[name] = rng.choice(_bad_values())
        return m, f"{name} = {m[name]!r:.60}"
    if kind == "value":
        name, value = rng.choice(
            (
                ("oracles", ['reference"; import os; X = "']),
                ("oracles", []),
                ("tolerances", {"atol": -1.0}),
                ("tolerances", {"rtol": "x"}),
                ("tolerances", {"per_output_atol": {"out": None}}),
                ("verdicts", [{}]),
                ("shapes", {"x": [-1]}),
                ("schema_version", 99),
                ("format", "ovonehot-replay/2"),
                ("reduced_from", {"model": 1, "ops_before": "x", "ops_after": 1}),
            )
        )
        m[name] = value
        return m, f"{name} = {value!r:.60}"
    if kind == "plugin":
        config = rng.choice(
            (
                {"CACHE_DIR": "/tmp/anywhere"},  # noqa: S108 - a hostile manifest value, never opened
                {"PERFORMANCE_HINT": "../../x"},
                {"X": 1},
                ["CACHE_DIR"],
            )
        )
        m["plugin"] = {
            "device": rng.choice(("CPU", "../x", "CPU; rm")),
            "preset": "deterministic",
            "config": config,
        }
        return m, f"plugin = {m['plugin']!r:.80}"
    if kind == "text":
        return rng.choice(
            ("[]", "{", "null", '"x"', "[" * 100_000, '{"format": NaN}', r'"\ud800"')
        ), "not a manifest"
    name = rng.choice(_STRING_FIELDS)
    if name == "versions":
        m[name] = {"ovonehot": HOSTILE_STRING, "openvino": HOSTILE_STRING}
    elif name == "verdicts":
        m[name] = [{"output": HOSTILE_STRING, "oracle": HOSTILE_STRING, "verdict": HOSTILE_STRING}]
    elif name == "reduced_from":
        m[name] = {"model": HOSTILE_STRING, "ops_before": 2, "ops_after": 1}
    elif name == "command":
        m[name] = [HOSTILE_STRING]
    else:
        m[name] = HOSTILE_STRING
    return m, f"hostile string in {name}"
