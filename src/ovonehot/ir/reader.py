"""IR reader: model.xml + model.bin -> :class:`ovonehot.graph.Graph`.

Knows the file format and nothing of op semantics, except that ``Const`` layers
carry a payload in the .bin (a property of the format).  The XML parser is
hardened: no DTD loading, no entity expansion, no network access; a document
that declares a DTD is refused outright.

Structural rules (each failure names the layer and port):
  * root ``<net version="10|11">``; every layer has an integer ``id`` (unique),
    a ``type`` and a ``version``;
  * every edge joins an existing output port to an existing input port;
  * every input port is fed by exactly one edge;
  * no cycles.
Ports are matched to input/output positions by their order inside ``<input>`` /
``<output>``, as OpenVINO's deserializer does.

Numbers are read no more loosely than OpenVINO reads them (docs/robustness.md): ASCII
digits only (Python's ``int`` also takes "1_0" and Arabic-Indic digits, OpenVINO does
not); a Const's ``offset``/``size`` allow no trailing characters; every layer has a
``name``, every output port a ``precision`` spelt as OpenVINO spells it, every Const a
``shape``; ``Assign``/``ReadValue`` name their ``variable_id``.  (A ``version`` that is
no opset, ``opset1 `` or ``OPSET1``, is read: ``validate`` reports it as ``unknown-op``.)
Long values are cut in messages (``errors.quote``).
"""

from __future__ import annotations

import dataclasses
import io
import math
import mmap
import os
import re
import typing
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from .. import progress
from ..budget import numpy_can_hold
from ..errors import InputError, IRError, ResourceLimitError, UnsupportedError, quote, shorten
from ..graph import Element, Graph, Node, Port, Source
from ..packed import Packed
from ..problems import Problem, Severity
from ..types import ElementType, PartialShape
from . import payload as _payload

_INT64_MAX = 2**63 - 1
_MAX_RANK = 64  # NumPy's limit; a Const of higher rank cannot be held

# std::stoll's syntax without its tolerance for trailing characters: optional leading
# white space, a sign, ASCII digits.
_INT = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)
# A Const's offset/size, as OpenVINO's get_uint64_attr reads them: nothing may follow the digits.
_UINT = re.compile(r"\s*\+?[0-9]+", re.ASCII)
_NEEDS_VARIABLE = ("assign", "readvalue")
# The output-port precisions read_model takes (2026.4, exact case): every element type name,
# and upper case except F16/F32/F64/BOOLEAN/DYNAMIC, whose legacy names are FP16/FP32/FP64/BOOL/
# UNSPECIFIED.  "fp32", "F32", "bool", "BOOLEAN", "DYNAMIC", " I64" are refused.
_OUTPUT_PRECISIONS = frozenset(
    {t.value for t in ElementType}
    | {"undefined", "BIN", "FP16", "FP32", "FP64", "BOOL", "UNSPECIFIED"}
    | ({t.value.upper() for t in ElementType} - {"F16", "F32", "F64", "BOOLEAN", "DYNAMIC"})
)


def parse_int(text: str) -> int:
    """An integer as OpenVINO's reader takes it (ASCII digits, a sign, white space); else ValueError."""
    if text.isascii() and text.isdigit() and len(text) <= 64:  # the common case, without the regex
        return int(text)
    if len(text) > 64 or not _INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def parse_uint(text: str) -> int:
    """A Const's offset/size: unsigned, ASCII, nothing after the digits; else ValueError."""
    if len(text) > 64 or not _UINT.fullmatch(text):
        raise ValueError(text)
    return int(text)


_PARSER_OPTIONS = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
}


def _parser() -> etree.XMLParser:
    return etree.XMLParser(**_PARSER_OPTIONS)


def read_ir(xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> Graph:
    """Read an IR.  ``bin_path`` defaults to the .xml path with the suffix .bin.

    A load that takes a while shows a bar on stderr counting the weights read
    (:mod:`ovonehot.progress`: on a terminal, not under ``-q`` or ``--json``)."""
    xml_path, bin_path = _paths(xml_path, bin_path)
    with _loading_bar(xml_path, bin_path) as shown:
        return _read_ir(xml_path, bin_path, shown)


def _loading_bar(xml_path: Path, bin_path: Path) -> progress.Bar:
    """A bar of the weights file's bytes, advanced as each constant is read (unpacked)."""
    try:
        size = bin_path.stat().st_size if bin_path.is_file() else 0
    except OSError:
        size = 0
    if size == 0:
        return progress.Bar()
    return progress.bar(size, f"loading {xml_path.name}", "B", scale=True)


def _read_ir(xml_path: Path, bin_path: Path, shown: progress.Bar) -> Graph:
    if xml_path.stat().st_size < _STREAM_MIN_SIZE:  # (iterparse's own cost shows on small files)
        try:  # from a file object: libxml2 reading the path itself probes for gzip, twice as slow
            with xml_path.open("rb") as f:
                tree = etree.parse(f, _parser())
        except (OSError, etree.XMLSyntaxError):
            pass  # (the path, below)
        else:
            return read_ir_tree(tree, bin_path, source=str(xml_path), shown=shown)
    else:
        try:
            graph = _read_repeated(xml_path, bin_path, shown)
            if graph is None:
                shown.restart()
                graph = _read_streaming(xml_path, bin_path, shown)
        except Exception:  # noqa: BLE001  (anything wrong: the checked reader below says what, exactly)
            graph = None
        if graph is not None:
            return graph
    # The file read by the checked reader, step by step, with the messages every error has
    # always had.
    shown.restart()
    return read_ir_tree(_parse_path(xml_path), bin_path, source=str(xml_path), shown=shown)


def _read_streaming(xml_path: Path, bin_path: Path, shown: progress.Bar | None = None) -> Graph | None:
    """The graph of a well-formed, plain IR, read while it is parsed: each top-level layer and
    edge is read when its end tag is parsed, then dropped from the tree, so the whole tree is
    never held (it is most of the memory a load needs, and freeing it takes time too).

    Returns None, or raises, for anything else (no <layers>, a DTD, a layer or edge that is not
    plain): then :func:`_build` reads the file checked step by step, as it always has, and
    gives the exact result or error.  Every layer and edge read here is read as there
    (:func:`_read_plain_layer`, :func:`_read_plain_edge`); a layer holding a sub-graph keeps its
    element until its end tag, and is read by the checked reader.
    """
    weights = _Weights.open(bin_path, shown)
    with xml_path.open("rb") as f:  # (a file object: libxml2 reading the path probes for gzip)
        streamed = _stream(f, weights, _Cache(), str(xml_path))
    if streamed is None:
        return None
    root, nodes, edges, ir_version = streamed
    return _connect(root, nodes, edges, ir_version)


# What _stream reads: the root, the top-level layers' nodes, the edges' four attributes, the IR version.
_Edge = tuple[str | None, str | None, str | None, str | None]
_Streamed = tuple[etree._Element, list[Node], list[_Edge], int]


def _stream(f: typing.BinaryIO, weights: _Weights, cache: _Cache, source: str) -> _Streamed | None:
    """Parse ``f``, reading each top-level layer and edge at its end tag (see _read_streaming)."""
    nodes: list[Node] = []
    edges: list[_Edge] = []
    layers_el: etree._Element | None = None
    edges_el: etree._Element | None = None
    root: etree._Element | None = None
    ir_version = 0
    events = etree.iterparse(f, events=("end",), tag=("layer", "edge"), **_STREAM_OPTIONS)
    for _, el in events:
        parent = el.getparent()
        if el.tag == "layer":
            if parent is not layers_el:
                top = None if layers_el is not None else _top_level(parent, "layers")
                if top is None:
                    continue  # a layer of a sub-graph (read with its layer) or out of place
                if top.tag != "net" or top.get("version") not in ("10", "11"):
                    return None
                root, layers_el, ir_version = top, parent, int(top.get("version", ""))
            node = _read_plain_layer(el, weights, cache)
            if node is None:
                node = _with_subgraphs(_read_layer(el, weights), el, weights, source, ir_version)
            nodes.append(node)
        else:
            if parent is not edges_el:
                if edges_el is not None or _top_level(parent, "edges") is None:
                    continue
                edges_el = parent
            get = el.get
            edges.append((get("from-layer"), get("from-port"), get("to-layer"), get("to-port")))
        el.clear()
        while el.getprevious() is not None:
            del parent[0]
    if root is None or not _plain_document(events.root, root, layers_el, edges_el):
        return None
    return root, nodes, edges, ir_version


def _top_level(parent: etree._Element | None, tag: str) -> etree._Element | None:
    """The root, where ``parent`` is its one ``tag`` child (``<layers>``, ``<edges>``); else None."""
    if parent is None or parent.tag != tag:
        return None
    top = parent.getparent()
    if top is None or top.getparent() is not None or top.find(tag) is not parent:
        return None
    return top


def _plain_document(
    tree_root: etree._Element,
    root: etree._Element,
    layers_el: etree._Element | None,
    edges_el: etree._Element | None,
) -> bool:
    """No DTD, the layers streamed were the root's, and so were the edges (or it has none)."""
    docinfo = tree_root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or tree_root is not root:
        return False  # (a DTD, or no layers: _build says so)
    if layers_el is None or (root.find("edges") is not edges_el and edges_el is not None):
        return False
    edges = root.find("edges")
    return not (edges_el is None and edges is not None and len(edges))


def _connect(root: etree._Element, nodes: list[Node], edges: list[_Edge], ir_version: int) -> Graph | None:
    """The graph of streamed nodes and edges; None where the checked reader has an error to give."""
    by_id: dict[int, int] = {}
    for k, node in enumerate(nodes):
        if by_id.setdefault(node.id, k) != k:  # a duplicate id
            return None
    feeds: list[list[tuple[int, int] | None]] = [[None] * len(n.inputs) for n in nodes]
    if not _record_plain_edges(edges, nodes, by_id, feeds):
        return None
    return _finish_graph(root, nodes, feeds, ir_version)


def _record_plain_edges(
    edges: list[tuple[str | None, str | None, str | None, str | None]],
    nodes: list[Node],
    by_id: dict[int, int],
    feeds: list[list[tuple[int, int] | None]],
    ports: dict[int, dict[int, int]] | None = None,
) -> bool:
    """Record edges (by their four attributes) as :func:`_read_edge` does, when nothing about
    them is wrong or unusual (attributes of ASCII digits only); False at the first that is not
    plain (then the checked reader reads it).  ``ports``: the port tables of
    :func:`_port_position` (by the id of a ports tuple, which layers written alike share),
    kept by a caller that records edges one at a time."""
    if ports is None:
        ports = {}
    for fl_text, fp_text, tl_text, tp_text in edges:
        if not (fl_text and fp_text and tl_text and tp_text):  # (None or empty)
            return False
        digits = fl_text + fp_text + tl_text + tp_text  # each non-empty: all four are plain integers
        if not (digits.isdigit() and digits.isascii() and len(digits) <= 64):
            return False
        src_i = by_id.get(int(fl_text))
        dst_i = by_id.get(int(tl_text))
        if src_i is None or dst_i is None:
            return False
        out_index = _port_position(ports, nodes[src_i].outputs, int(fp_text))
        in_index = _port_position(ports, nodes[dst_i].inputs, int(tp_text))
        if out_index < 0 or in_index < 0:
            return False
        dst_feeds = feeds[dst_i]
        if dst_feeds[in_index] is not None:
            return False
        dst_feeds[in_index] = (src_i, out_index)
    return True


def _port_position(cache: dict[int, dict[int, int]], ports: tuple[Port, ...], port_id: int) -> int:
    """The position of the first port with ``port_id`` (-1: none), by a table made once per
    ports tuple (layers written alike share theirs)."""
    table = cache.get(id(ports))
    if table is None:
        table = cache[id(ports)] = {}
        for k, port in enumerate(ports):
            table.setdefault(port.id, k)
    return table.get(port_id, -1)


def _read_repeated(xml_path: Path, bin_path: Path, shown: progress.Bar | None = None) -> Graph | None:
    """The graph of a plain IR of repeated layers (a model of repeated blocks, without tensor
    names), reading each distinct layer once.

    A layer written byte for byte like an earlier one but for its ``id`` and ``name`` (which
    lead its start tag, as OpenVINO writes them) is a repeat: the earlier one's node serves,
    with its own id and name (and payload).  Only the first of each is parsed, with everything
    but the repeats (the root, the edges), by :func:`_stream`: so the document is well-formed
    as lxml reads it, and each repeat is, being the same text.  The file must be ASCII without
    ``&``, ``<!``, ``xmlns``, carriage returns or processing instructions but an XML
    declaration, have one ``<layers>`` and layers only in it; None (the streaming reader) for
    anything else, or when few layers repeat.
    """
    if xml_path.stat().st_size < _REPEATED_MIN_SIZE:
        return None
    data = xml_path.read_bytes()
    start = data.find(b"<layers>")
    end = data.find(b"</layers>")
    if start < 0 or end < start or data.count(b"<layers") != 1 or data.count(b"</layers") != 1:
        return None
    if not data.isascii() or b"&" in data or b"<!" in data or b"xmlns" in data or b"\r" in data:
        return None
    declared = data.count(b"<?")
    if declared > 1 or (declared == 1 and not _DECLARATION.match(data)):
        return None
    scanned = _scan_layers(data, start + len(b"<layers>"), end)
    if scanned is None:
        return None
    parsed, slots = scanned
    weights = _Weights.open(bin_path, shown)
    cache = _Cache()
    skeleton = b"".join((data[: start + len(b"<layers>")], *parsed, data[end:]))
    del data
    streamed = _stream(io.BytesIO(skeleton), weights, cache, str(xml_path))
    if streamed is None:
        return None
    root, firsts_read, edges, ir_version = streamed
    if len(firsts_read) != len(parsed) or any(n.bodies or n.extras for n in firsts_read):
        return None
    nodes: list[Node] = []
    for first, layer_id, name in slots:
        node = firsts_read[first]
        if layer_id >= 0:
            node = Node(
                layer_id,
                name.decode("ascii"),
                node.type,
                node.version,
                node.attrs,
                node.inputs,
                node.outputs,
                None,
                node.output_names,
                node.decompression,
            )
            if node.payload is None and _KINDS.get(node.type, node.type.lower()) in ("const", "constant"):
                object.__setattr__(node, "payload", _read_constant(node, weights, cache))
        nodes.append(node)
    return _connect(root, nodes, edges, ir_version)


def _scan_layers(data: bytes, pos: int, end: int) -> tuple[list[bytes], list[tuple[int, int, bytes]]] | None:
    """The layers between ``pos`` and ``end`` (the inside of <layers>): the text of each first
    one to parse, and per layer (its first's position among those, -1 or its id, its name);
    None when anything but layers is there, or when few layers repeat."""
    firsts: dict[bytes, int] = {}  # a layer's text after its name -> its position among the parsed
    parsed: list[bytes] = []  # the layers parsed (each first), in order
    slots: list[tuple[int, int, bytes]] = []
    while True:
        close = data.find(b"</layer>", pos, end)
        if close < 0:
            if data[pos:end].strip(b" \t\n"):
                return None
            break
        text = data[pos : close + len(b"</layer>")].lstrip(b" \t\n")
        pos = close + len(b"</layer>")
        if not text.startswith(b"<layer ") or text.count(b"<layer") != 1:
            return None  # (anything else between layers, a self-closed layer)
        head = _RAW_LAYER_HEAD.match(text)
        first = firsts.get(text[head.end() :]) if head is not None else None
        if head is None or first is None:
            if head is not None:
                firsts[text[head.end() :]] = len(parsed)
            slots.append((len(parsed), -1, b""))
            parsed.append(text)
        else:
            slots.append((first, int(head.group(1)), head.group(2)))
        if len(slots) == 128 and len(parsed) > 96:  # few repeats: not worth it
            return None
    if len(parsed) == len(slots):
        return None
    return parsed, slots


# Smaller files are parsed whole (the tree is small); larger ones streamed.
_STREAM_MIN_SIZE = 1 << 18
# Smaller files are streamed: checking for repeats costs about what they save there.
_REPEATED_MIN_SIZE = 1 << 20
# A layer's start as OpenVINO writes it: id, then name (no character OpenVINO's or lxml's
# reading would change or refuse: no '&', no control character, tab, newline or carriage
# return among them: a repeat's name is never parsed), the rest after it.
_RAW_LAYER_HEAD = re.compile(rb'<layer id="([0-9]{1,18})" name="([^"&<\x00-\x1f]{0,4096})"')
# The XML declarations _read_repeated takes (an ASCII file reads the same in UTF-8).
_DECLARATION = re.compile(rb'<\?xml version="1\.0"(?: encoding="(?:UTF-8|utf-8)")?\s*\?>')


# What every parse takes (_PARSER_OPTIONS), and no whitespace-only text nodes between elements
# (libxml2 keeps any next to text, so a <dim> reads the same once stripped).
_STREAM_OPTIONS = dict(_PARSER_OPTIONS, remove_blank_text=True)


# Compressed files by their first bytes.  libxml2 inflates a gzip/xz file it is given by path,
# without bound (a 2 MB file became 6 GiB); OpenVINO reads plain XML only.  Refused by name.
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"PK\x03\x04", "zip"),
)


def _refuse_compressed(head: bytes, source: str) -> None:
    for magic, kind in _COMPRESSED:
        if head.startswith(magic):
            raise IRError(
                f"{source}: a {kind}-compressed file, not XML; OpenVINO reads only plain IR XML (decompress it first)"
            )


# Model files of other frameworks, by suffix (when the file is not XML): OpenVINO's model
# converter makes IR of them; ovonehot reads IR and ONNX only.
_OTHER_FORMATS = {
    ".tflite": "a TensorFlow Lite model",
    ".pb": "a TensorFlow model (.pb)",
    ".pbtxt": "a TensorFlow text graph (.pbtxt)",
    ".meta": "a TensorFlow MetaGraph (.meta)",
    ".pdmodel": "a PaddlePaddle model",
    ".pt": "a PyTorch model",
    ".pth": "a PyTorch model",
    ".pt2": "a PyTorch model",
    ".h5": "a Keras model (.h5)",
    ".keras": "a Keras model",
}


def _refuse_other_files(head: bytes, path: Path) -> None:
    """A weights file or another framework's model given where the IR's .xml belongs: said in
    one line, before libxml2 calls it malformed XML."""
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return  # XML, whatever its name
    suffix = path.suffix.lower()
    if suffix == ".bin":
        beside = path.with_suffix(".xml")
        hint = f" ({beside} is beside it)" if beside.is_file() else ""
        raise InputError(f"{path}: a weights file (.bin), not a model: give the model's .xml{hint}")
    kind = "a TensorFlow Lite model" if head[4:8] == b"TFL3" else _OTHER_FORMATS.get(suffix)
    if suffix == ".tflite" and head[4:8] != b"TFL3":
        raise IRError(f"{path}: neither OpenVINO IR nor a TensorFlow Lite model (no TFL3 identifier)")
    if kind is not None:
        raise UnsupportedError(
            f"{path}: {kind}, not OpenVINO IR; ovonehot reads IR (.xml + .bin) and ONNX (.onnx): "
            f"convert it first (ovc {path.name}) and give the .xml"
        )


def _paths(xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    """The .xml (which must exist, and not be compressed) and the .bin (by default beside it,
    with the suffix .bin)."""
    xml_path = Path(xml_path)
    if not xml_path.is_file():  # a missing file is a bad input file (exit 2), not bad IR
        raise InputError(f"{xml_path}: no such file")
    try:
        with xml_path.open("rb") as f:
            head = f.read(16)
            _refuse_other_files(head, xml_path)
            _refuse_compressed(head, str(xml_path))
    except OSError as exc:
        raise IRError(f"{xml_path}: cannot read: {exc.strerror or exc}") from None
    return xml_path, Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")


def _parse_bytes(xml: bytes, source: str) -> etree._ElementTree:
    _refuse_compressed(bytes(xml[:8]), source)
    try:
        return etree.ElementTree(etree.fromstring(xml, _parser()))
    except etree.XMLSyntaxError as exc:
        raise IRError(f"{source}: not well-formed XML: {exc}") from None


def _parse_path(xml_path: Path) -> etree._ElementTree:
    """The file parsed from a file object: libxml2 given a path inflates compressed files."""
    try:
        with xml_path.open("rb") as f:
            tree = etree.parse(f, _parser())
    except etree.XMLSyntaxError as exc:
        raise IRError(f"{xml_path}: not well-formed XML: {exc}") from None
    except OSError as exc:
        raise IRError(f"{xml_path}: cannot read: {exc}") from None
    return tree


def read_ir_bytes(
    xml: bytes, weights: bytes | bytearray | memoryview | mmap.mmap | None = None, source: str = "<memory>"
) -> Graph:
    """Read an IR held in memory (tests, fuzzing)."""
    return _build(
        _parse_bytes(xml, source),
        _Weights(memoryview(weights) if weights is not None else None, source),
        source,
    )


def read_ir_tree(
    tree: etree._ElementTree, bin_path: Path, source: str, shown: progress.Bar | None = None
) -> Graph:
    """Read a parsed IR (``shown``: a bar counting the weights read)."""
    weights = _Weights.open(bin_path, shown)
    return _build(tree, weights, source)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the tolerant reader makes of an IR: the graph and the problems it did not raise."""

    graph: Graph
    problems: tuple[Problem, ...]


def read_tolerant(
    xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None
) -> Reading:
    """Read an IR as :func:`read_ir` does, except that a Const whose payload the .bin does not hold
    (a ``size`` too small for its shape, or bytes outside the file) is a ``const-size`` problem
    and is read with its value unknown (``Node.value_unknown``, no payload); a ``size`` larger
    than needed is a ``const-size-excess`` warning (OpenVINO reads the first bytes).  Only the
    model's own layers are read so (not a sub-graph's).  Anything else raises IRError.

    The file is first read as :func:`read_ir` reads it (its streamed and repeated paths hold
    a fraction of the parsed tree: ``validate`` of a 1e6-layer chain ran out of 6 GiB where
    ``run`` took 1.2 GB), and the ``const-size-excess`` warnings are found in that graph;
    only a file that reader refuses is parsed again, whole, to record its Const problems."""
    xml_path, bin_path = _paths(xml_path, bin_path)
    problems: list[Problem] = []
    try:
        graph = read_ir(xml_path, bin_path)
    except IRError:
        graph = _build(_parse_path(xml_path), _Weights.open(bin_path), str(xml_path), problems)
        return Reading(graph, tuple(problems))
    for node in graph.nodes:
        if _KINDS.get(node.type, node.type.lower()) in ("const", "constant"):
            _check_payload_size(node, None, problems)
    return Reading(graph, tuple(problems))


def read_tolerant_bytes(
    xml: bytes, weights: bytes | bytearray | memoryview | mmap.mmap | None = None, source: str = "<memory>"
) -> Reading:
    """:func:`read_tolerant` for an IR held in memory."""
    problems: list[Problem] = []
    data = _Weights(memoryview(weights) if weights is not None else None, source)
    return Reading(_build(_parse_bytes(xml, source), data, source, problems), tuple(problems))


class _Weights:
    """The .bin, mapped lazily: models without constants need no .bin at all."""

    def __init__(
        self, data: memoryview | None, name: str, path: Path | None = None, shown: progress.Bar | None = None
    ) -> None:
        self._data = data
        self.name = name
        self._path = path
        self._shown = shown if shown is not None else progress.Bar()

    @classmethod
    def open(cls, path: Path, shown: progress.Bar | None = None) -> _Weights:
        """The file at ``path``, mapped when first read (``shown``: a bar counting the bytes read)."""
        return cls(None, str(path), path, shown)

    def size(self) -> int | None:
        """The file's size in bytes, None when there is no file (without mapping it)."""
        if self._data is not None:
            return len(self._data)
        if self._path is None or not self._path.is_file():
            return None
        return self._path.stat().st_size

    def _map(self, path: Path, node: Node) -> memoryview:
        """The whole file at ``path``, memory-mapped (as OpenVINO maps it); an error naming the file
        when the address space cannot hold it (a .bin larger than ``RLIMIT_AS`` allows)."""
        try:
            with path.open("rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    return memoryview(b"")
                return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
        except OSError as exc:
            raise ResourceLimitError(
                f"{node.describe()}: cannot map the weights file {self.name} into memory "
                f"({exc.strerror or exc}); the process's address space is too small for it"
            ) from None

    def view(self, offset: int, size: int, node: Node) -> memoryview:
        """``size`` bytes at ``offset`` (errors name ``node``)."""
        if self._data is None:
            if self._path is None or not self._path.is_file():
                # a missing file, as a missing model is (exit 2); a model without Consts needs none
                raise InputError(
                    f"{self.name}: no such file: the weights file, which {node.describe()} reads "
                    "(give it beside the .xml, or name it with --bin)"
                )
            self._data = self._map(self._path, node)
        if offset < 0 or size < 0 or offset + size > len(self._data):
            raise IRError(
                f"{node.describe()}: offset={offset} size={size} lies outside the weights file "
                f"{self.name} ({len(self._data)} bytes)"
            )
        self._shown.update(size)
        return self._data[offset : offset + size]


def _build(
    tree: etree._ElementTree, weights: _Weights, source: str, problems: list[Problem] | None = None
) -> Graph:
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise IRError(f"{source}: the IR declares a DTD; ovonehot refuses DTDs and entities")
    root = tree.getroot()
    if not isinstance(root.tag, str) or root.tag != "net":
        raise IRError(f"{source}: root element is <{root.tag}>, expected <net>: not an OpenVINO IR")
    version_text = root.get("version")
    if version_text not in ("10", "11"):
        raise IRError(
            f"{source}: <net version={quote(version_text)}>: only IR versions 10 and 11 are supported"
        )
    layers_el = root.find("layers")
    if layers_el is None:
        raise IRError(f"{source}: <net> has no <layers>")
    return _read_graph(root, layers_el, weights, source, int(version_text), problems)


def _read_graph(
    root: etree._Element,
    layers_el: etree._Element,
    weights: _Weights,
    source: str,
    ir_version: int,
    problems: list[Problem] | None = None,
) -> Graph:
    """The graph in ``root``'s ``<layers>`` and ``<edges>``: the model, or a layer's sub-graph.

    With ``problems`` (the tolerant reader) Const payloads the .bin does not hold are recorded there."""
    nodes: list[Node] = []
    by_id: dict[int, int] = {}
    cache = _Cache()
    for el in layers_el.iterchildren("layer"):
        # (the tolerant reader's Consts: the checked reader, which records their problems)
        node = _read_plain_layer(el, weights, cache) if problems is None else None
        if node is None:  # anything unusual: the checked reader, with its exact messages
            node = _read_layer(el, weights, problems)
            node = _with_subgraphs(node, el, weights, source, ir_version)
        if node.id in by_id:
            other = nodes[by_id[node.id]]
            raise IRError(f"{node.describe()}: duplicate layer id {node.id} (also {other.describe()})")
        by_id[node.id] = len(nodes)
        nodes.append(node)

    feeds: list[list[tuple[int, int] | None]] = [[None] * len(n.inputs) for n in nodes]
    edges_el = root.find("edges")
    ports: dict[int, dict[int, int]] = {}
    for edge in edges_el.iterchildren("edge") if edges_el is not None else ():
        if not _read_plain_edge(edge, nodes, by_id, feeds, ports):
            _read_edge(edge, nodes, by_id, feeds)

    return _finish_graph(root, nodes, feeds, ir_version)


def _finish_graph(
    root: etree._Element, nodes: list[Node], feeds: list[list[tuple[int, int] | None]], ir_version: int
) -> Graph:
    """The graph of ``nodes`` fed by ``feeds``, in topological order; checks every input is fed."""
    for node, node_feeds in zip(nodes, feeds, strict=True):
        if None in node_feeds:
            for port, fed in zip(node.inputs, node_feeds, strict=True):
                if fed is None:
                    raise IRError(f"{node.describe()}: input port {port.id} is not connected (missing input)")

    connected = typing.cast("list[list[tuple[int, int]]]", feeds)  # (every input: checked above)
    order = _topological_order(nodes, connected)
    position = [0] * len(nodes)  # document index -> graph index
    for new, old in enumerate(order):
        position[old] = new
    sources = tuple(tuple([Source(position[s[0]], s[1]) for s in connected[old]]) for old in order)
    return Graph(
        name=root.get("name", ""),
        ir_version=ir_version,
        nodes=tuple([nodes[i] for i in order]),
        sources=sources,
        document_order=tuple(position),
    )


# Child elements of a layer that the reader itself reads.
_LAYER_PARTS = ("data", "input", "output", "rt_info")


def _with_subgraphs(node: Node, el: etree._Element, weights: _Weights, source: str, ir_version: int) -> Node:
    """``node`` with the sub-graphs and other child elements its layer element holds.

    Op-agnostic: any child element with a ``<layers>`` is a sub-graph (TensorIterator and
    Loop write ``<body>``, If ``<then_body>``/``<else_body>``), read like the model itself
    (its constants live in the same .bin); any other unknown child (``<port_map>``,
    ``<back_edges>``, ``<then_port_map>``) is kept as written for the op to interpret.
    """
    bodies: list[tuple[str, Graph]] = []
    extras: list[Element] = []
    for child in el.iterchildren():
        if not isinstance(child.tag, str) or child.tag in _LAYER_PARTS:
            continue
        layers_el = child.find("layers")
        if layers_el is not None:
            if any(tag == child.tag for tag, _ in bodies):
                raise IRError(f"{node.describe()}: two <{child.tag}> sub-graphs")
            try:
                body = _read_graph(child, layers_el, weights, source, ir_version)
            except IRError as exc:
                raise IRError(f"{node.describe()} <{child.tag}>: {exc}") from None
            bodies.append((child.tag, body))
        else:
            extras.append(_element(child))
    if not bodies and not extras:
        return node
    return dataclasses.replace(node, bodies=tuple(bodies), extras=tuple(extras))


def _element(el: etree._Element) -> Element:
    children = tuple(_element(c) for c in el.iterchildren() if isinstance(c.tag, str))
    return Element(str(el.tag), tuple((str(k), str(v)) for k, v in attribute_items(el)), children)


# Up to this many attributes lxml's own items() is the fastest; beyond, it is quadratic.
_FEW_ATTRIBUTES = 64


class _FirstAttributes:
    """An lxml parser target that keeps the first element's attributes (as SAX gives them)."""

    def __init__(self) -> None:
        self.items: tuple[tuple[str, str], ...] | None = None

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self.items is None:
            self.items = tuple(attrib.items())

    def close(self) -> tuple[tuple[str, str], ...]:
        return self.items or ()


def attribute_items(el: etree._Element) -> tuple[tuple[str, str], ...]:
    """``el``'s attributes as (name, value) pairs, in linear time.  lxml's ``items()`` looks each
    value up by its name in the element's attribute list, which takes 30 s and more for one
    element with 100 000 attributes (1 MB); such an element is serialized and parsed once more
    by a parser target, which receives every attribute from one SAX call."""
    if len(el.attrib) <= _FEW_ATTRIBUTES:  # (len walks the list once)
        return tuple(el.items())
    shallow = etree.tostring(el, with_tail=False)
    target = _FirstAttributes()
    items: tuple[tuple[str, str], ...] = etree.fromstring(
        shallow, etree.XMLParser(target=target, **_PARSER_OPTIONS)
    )
    return items


def _layer_id(el: etree._Element, where: str) -> int:
    """A layer's id as OpenVINO 2026.4 reads it: an unsigned 64-bit integer (leading white space
    and ``+`` allowed, nothing after the digits: ``-1`` and ``1 `` are refused) that ``stoll``
    then holds (2**63 and above are refused)."""
    text = el.get("id")
    if text is None:
        raise IRError(f"{where}: missing attribute 'id'")
    try:
        value = parse_uint(text)
    except ValueError:
        value = -1
    if not 0 <= value <= _INT64_MAX:
        raise IRError(
            f"{where} name={quote(el.get('name'))}: attribute id={quote(text)} is not an unsigned integer "
            f"below 2**63 (digits only, nothing after them; OpenVINO refuses it too)"
        )
    return value


def _int_attr(el: etree._Element, name: str, where: str) -> int:
    text = el.get(name)
    if text is None:
        raise IRError(f"{where}: missing attribute {name!r}")
    try:
        return parse_int(text)
    except ValueError:
        raise IRError(f"{where}: attribute {name}={quote(text)} is not an integer") from None


def _check_ports(where: str, inputs: tuple[Port, ...], outputs: tuple[Port, ...]) -> None:
    """No two ports share an id; each output port has an element type OpenVINO reads."""
    ids = [p.id for p in inputs + outputs]
    if len(set(ids)) != len(ids):
        raise IRError(f"{where}: duplicate port ids {shorten(str(ids))}")
    for port in outputs:
        if port.precision is None:  # OpenVINO: "node <port> is missing mandatory attribute: precision"
            raise IRError(f"{where} output port {port.id}: missing attribute 'precision'")
        if port.precision not in _OUTPUT_PRECISIONS:  # OpenVINO: "Unsupported element type: fp32"
            raise IRError(
                f"{where} output port {port.id}: "
                f"precision={quote(port.precision)} is not an element type OpenVINO reads "
                "(names are exact: FP32 or f32, not fp32 or F32)"
            )


def _read_layer(el: etree._Element, weights: _Weights, problems: list[Problem] | None = None) -> Node:
    where = f"layer at line {el.sourceline}"
    layer_id = _layer_id(el, where)
    name = el.get("name")
    type_name = el.get("type")
    version = el.get("version")
    if name is None:  # OpenVINO: "node <layer> is missing mandatory attribute: name"
        raise IRError(f"layer id={layer_id} at line {el.sourceline}: missing attribute 'name'")
    where = f"layer id={layer_id} name={quote(name)}"
    if not type_name:
        raise IRError(f"{where}: missing attribute 'type'")
    if not version:
        raise IRError(f"{where} type={shorten(type_name)}: missing attribute 'version'")
    data_el = input_el = output_el = None
    decompression = False
    for child in el.iterchildren("data", "input", "output", "rt_info"):  # one pass, the first of each
        tag = child.tag
        if tag == "data":
            data_el = data_el if data_el is not None else child
        elif tag == "input":
            input_el = input_el if input_el is not None else child
        elif tag == "output":
            output_el = output_el if output_el is not None else child
        else:
            decompression = decompression or any(
                a.get("name") == "decompression" for a in child.iterchildren("attribute")
            )
    attrs = attribute_items(data_el) if data_el is not None else ()
    inputs = _read_ports(input_el, where)
    outputs = _read_ports(output_el, where)
    _check_ports(f"{where} type={shorten(type_name)}-{version}", inputs, outputs)
    if type_name.lower() in _NEEDS_VARIABLE and (data_el is None or data_el.get("variable_id") is None):
        # OpenVINO's read_model crashes on these (2026.4): refuse them by name
        raise IRError(
            f"{where} type={shorten(type_name)}-{version}: missing attribute 'variable_id' "
            "(every Assign and ReadValue names its variable)"
        )
    output_names = _split_names(el.get("output_names", ""))
    node = Node(
        layer_id,
        name,
        type_name,
        version,
        attrs,
        inputs,
        outputs,
        output_names=output_names,
        decompression=decompression,
    )
    if type_name.lower() in ("const", "constant"):
        if problems is not None and _unreadable_payload(el, node, weights, problems):
            return dataclasses.replace(node, value_unknown=True)
        payload = _read_constant(node, weights)
        node = Node(
            layer_id, name, type_name, version, attrs, inputs, outputs, payload, output_names, decompression
        )
    return node


class _Cache:
    """What one graph's layers share: ports read (by their id, precision and ``<dim>`` texts;
    names apart, as tensor names differ from layer to layer) and ``<data>`` attribute tuples
    (one tuple for every layer that writes the same attributes)."""

    __slots__ = ("attrs", "constants", "lists", "ports", "tallies")

    def __init__(self) -> None:
        # A whole <input> or <output> as written -> its ports.
        self.lists: dict[bytes, tuple[Port, ...]] = {}
        # Per kind (0: input, 1: output) [hits, misses], and None once misses have outnumbered
        # hits (unique tensor names): then no look-up is tried (writing the text costs a third
        # of reading the ports).
        self.tallies: list[list[int] | None] = [[0, 0], [0, 0]]
        self.ports: dict[tuple[str | None, ...], Port] = {}
        self.attrs: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
        # A Const's (element_type, shape) attributes -> its element type and shape, checked.
        self.constants: dict[tuple[str | None, str | None], _ConstantType] = {}


def _is_plain_int(text: str | None) -> typing.TypeGuard[str]:
    """``text`` is what :func:`parse_int` reads with ``int`` alone (ASCII digits only)."""
    return text is not None and text.isascii() and text.isdigit() and len(text) <= 64


def _read_plain_layer(el: etree._Element, weights: _Weights, cache: _Cache) -> Node | None:
    """The node of a layer as :func:`_read_layer` reads it, in one pass and with shared ports and
    attribute tuples; None for anything but the plain case (a sub-graph or other child element,
    a missing or signed attribute, a port that is not new), which the checked reader handles."""
    get = el.get
    id_text = get("id")
    name = get("name")
    type_name = get("type")
    version = get("version")
    if not _is_plain_int(id_text) or name is None or not type_name or not version:
        return None
    if len(id_text) > 18:  # (an id of 2**63 or more: the checked reader refuses it)
        return None
    children = _plain_children(el)
    if children is None:
        return None
    data_el, input_el, output_el, decompression = children
    if data_el is None:
        attrs: tuple[tuple[str, str], ...] = ()
    else:
        attrs = attribute_items(data_el)
        attrs = cache.attrs.setdefault(attrs, attrs)
    inputs = _plain_port_list(input_el, 0, cache) if input_el is not None else ()
    outputs = _plain_port_list(output_el, 1, cache) if output_el is not None else ()
    if inputs is None or outputs is None or not _plain_ports(inputs, outputs):
        return None
    kind = _KINDS.get(type_name)
    if kind is None:
        kind = type_name.lower()
        if len(_KINDS) < 1024:
            _KINDS[type_name] = kind
    if kind in _NEEDS_VARIABLE and (data_el is None or data_el.get("variable_id") is None):
        return None
    output_names_text = get("output_names")
    node = Node(
        int(id_text),
        name,
        type_name,
        version,
        attrs,
        inputs,
        outputs,
        None,
        _split_names(output_names_text) if output_names_text else (),
        decompression,
    )
    if kind == "const" or kind == "constant":
        object.__setattr__(node, "payload", _read_constant(node, weights, cache))  # (frozen: set once, here)
    return node


# Layer types, lower case (a model has few distinct types).
_KINDS: dict[str, str] = {}

_Children = tuple[etree._Element | None, etree._Element | None, etree._Element | None, bool]


def _plain_children(el: etree._Element) -> _Children | None:
    """A layer's first ``<data>``, ``<input>`` and ``<output>`` and whether its ``<rt_info>`` marks
    it decompression; None when it has any other child (a sub-graph, a port map: _with_subgraphs)."""
    data_el = input_el = output_el = None
    decompression = False
    for child in el:
        tag = child.tag
        if tag == "data":
            if data_el is None:
                data_el = child
        elif tag == "input":
            if input_el is None:
                input_el = child
        elif tag == "output":
            if output_el is None:
                output_el = child
        elif tag == "rt_info":
            decompression = decompression or any(
                a.get("name") == "decompression" for a in child.iterchildren("attribute")
            )
        else:
            return None
    return data_el, input_el, output_el, decompression


def _plain_ports(inputs: tuple[Port, ...], outputs: tuple[Port, ...]) -> bool:
    """Every output port has an element type OpenVINO reads, and no two ports share an id."""
    if outputs:
        for port in outputs:
            if port.precision not in _OUTPUT_PRECISIONS:  # (None included)
                return False
        if inputs or len(outputs) > 1:
            ids = [p.id for p in inputs]
            ids += [p.id for p in outputs]
            if len(set(ids)) != len(ids):
                return False
    elif len(inputs) > 1 and len({p.id for p in inputs}) != len(inputs):
        return False
    return True


def _plain_port_list(el: etree._Element, kind: int, cache: _Cache) -> tuple[Port, ...] | None:
    """The ports of an ``<input>`` (kind 0) or ``<output>`` (1), by its text when one written
    the same way was read before (serialising it costs a third of reading it port by port)."""
    tally = cache.tallies[kind]
    if tally is None:
        return _read_plain_ports(el, cache)
    key = etree.tostring(el, with_tail=False)
    ports = cache.lists.get(key)
    if ports is not None:
        tally[0] += 1
        return ports
    ports = _read_plain_ports(el, cache)
    if ports is not None:
        cache.lists[key] = ports
    tally[1] += 1
    if tally[1] > 16 and tally[1] > tally[0]:  # mostly new (tensor names differ): port by port
        cache.tallies[kind] = None
    return ports


def _read_plain_ports(el: etree._Element, cache: _Cache) -> tuple[Port, ...] | None:
    """The ports of ``<input>``/``<output>`` seen before in this graph (None: one is new)."""
    ports = []
    known = cache.ports
    for p in el.iterchildren("port"):
        get = p.get
        key = (get("id"), get("precision"), *[d.text for d in p.iterchildren("dim")])
        port = known.get(key)
        if port is None:
            try:
                port = _read_port(p, "")
            except IRError:  # the checked reader says it, with the layer's context
                return None
            port = known[key] = Port(port.id, port.precision, port.dims)
        names = get("names")
        if names:
            split = _split_names(names)
            if split:
                port = Port(port.id, port.precision, port.dims, split)
        ports.append(port)
    return tuple(ports)


def _read_ports(el: etree._Element | None, where: str) -> tuple[Port, ...]:
    if el is None:
        return ()
    return tuple(_read_port(p, where) for p in el.iterchildren("port"))


def _read_port(p: etree._Element, where: str) -> Port:
    """One ``<port>``: its id, precision, dims and names."""
    port_id = _int_attr(p, "id", f"{where} port")
    dims = []
    for d in p.iterchildren("dim"):
        text = (d.text or "").strip()
        try:
            value = parse_int(text)
        except ValueError:
            raise IRError(f"{where} port {port_id}: <dim>{shorten(text)}</dim> is not an integer") from None
        if value < -1:
            raise IRError(f"{where} port {port_id}: <dim>{value}</dim> must be >= -1")
        if value > _INT64_MAX:  # OpenVINO reads dims as int64 and refuses the file
            raise IRError(f"{where} port {port_id}: <dim>{value}</dim> does not fit in int64")
        dims.append(value)
    names = _split_names(p.get("names", ""))
    precision = p.get("precision")
    if precision is not None and precision not in _KNOWN_PRECISIONS:
        # Declared precisions are otherwise only compared (ovonehot validate), as OpenVINO never
        # checks them against its inference; but a name that is no element type, OpenVINO's
        # read_model refuses ("Unsupported element type").
        try:
            ElementType.from_precision(precision)
        except IRError:
            raise IRError(
                f"{where} port {port_id}: precision={quote(precision)} is not an element type"
            ) from None
        if len(_KNOWN_PRECISIONS) < 256:
            _KNOWN_PRECISIONS.add(precision)
    return Port(port_id, precision, tuple(dims), names)


# Port precisions already checked to name an element type.
_KNOWN_PRECISIONS: set[str] = set()


def _split_names(text: str) -> tuple[str, ...]:
    """``names="a,b\\,c"`` -> ("a", "b,c"): comma-separated, ``\\,`` escapes a comma."""
    if not text:
        return ()
    if "\\" not in text:
        return tuple(n for n in (part.strip() for part in text.split(",")) if n)
    names, current, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == ",":
            current.append(",")
            i += 2
            continue
        if ch == ",":
            names.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    names.append("".join(current).strip())
    return tuple(n for n in names if n)


def _read_constant(node: Node, weights: _Weights, cache: _Cache | None = None) -> np.ndarray | Packed:
    et_text = node.attr("element_type")
    shape_text = node.attr("shape")
    known = cache.constants.get((et_text, shape_text)) if cache is not None else None
    if known is None:
        known = _constant_type(node, et_text, shape_text)
        if cache is not None:
            cache.constants[et_text, shape_text] = known
    element_type, shape, count, need, dtype = known
    offset = _int_attr_data(node, "offset")
    size = _int_attr_data(node, "size")
    if element_type.is_dynamic:
        raise IRError(f"{node.describe()}: a constant cannot have element type dynamic")
    if need is not None and size < need:  # (strings have no packed size)
        raise IRError(
            f"{node.describe()}: size={size} bytes is too small for shape {list(shape)} of "
            f"{element_type} ({need} bytes needed)"
        )
    raw = weights.view(offset, size, node) if size > 0 else memoryview(b"")
    if dtype is not None:  # whole bytes per element: what _payload.decode does, without its checks
        return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape)
    try:
        return _payload.decode_lazy(element_type, shape, raw)  # (a large u4/i4 one stays packed)
    except IRError as exc:
        raise exc.at(node) from None


def _constant_type(node: Node, et_text: str | None, shape_text: str | None) -> _ConstantType:
    """A Const's element type and shape, checked (what its ``element_type`` and ``shape`` say),
    its element count, packed size (None for strings) and the dtype of its payload when that
    has whole bytes per element (else None: ``_payload.decode`` unpacks it)."""
    where = node.describe()
    if et_text is None:
        raise IRError(f"{where}: missing attribute 'element_type'")
    try:
        element_type = ElementType.from_name(et_text)
    except IRError as exc:
        raise IRError(f"{where}: {exc}") from None
    if shape_text is None:  # OpenVINO: "Missing attribute 'shape' for Const"
        raise IRError(f"{where}: missing attribute 'shape'")
    try:
        pshape = PartialShape.parse(shape_text)
    except ValueError as exc:
        raise IRError(f"{where}: bad shape {quote(shape_text)}: {exc}") from None
    if not pshape.is_static:
        raise IRError(f"{where}: constant shape {shorten(str(pshape))} must be static")
    shape = pshape.to_shape()
    if len(shape) > _MAX_RANK:
        raise UnsupportedError(
            f"{where}: a constant of rank {len(shape)}: NumPy holds at most {_MAX_RANK} dims"
        )
    if not numpy_can_hold(shape, max(element_type.bitwidth // 8, 1) if element_type.bitwidth else 8):
        raise UnsupportedError(
            f"{where}: a constant of shape {shorten(str(list(shape)))}: NumPy cannot hold "
            "a shape this large, even empty"
        )
    count = math.prod(shape)
    if element_type is ElementType.string or element_type.is_dynamic:
        return element_type, shape, count, None, None
    dtype = element_type.numpy_dtype if element_type.bitwidth >= 8 else None
    return element_type, shape, count, _payload.packed_size(element_type, count), dtype


# A Const's element type, shape, element count, packed size and whole-byte dtype.
_ConstantType = tuple[ElementType, tuple[int, ...], int, int | None, np.dtype | None]


def _unreadable_payload(el: etree._Element, node: Node, weights: _Weights, problems: list[Problem]) -> bool:
    """The tolerant reader's check of a Const's ``size`` (and ``offset``) against its shape and
    the .bin: a problem recorded when they disagree; True when the payload cannot be read.

    Attributes that do not parse are left for :func:`_read_constant` to refuse."""
    return _check_payload_size(node, weights.size(), problems)


def _check_payload_size(node: Node, bin_size: int | None, problems: list[Problem]) -> bool:
    """:func:`_unreadable_payload` for a Const read as ``node`` (``bin_size`` None: not checked
    against the .bin, which the reader did when it read the payload)."""
    try:
        et = ElementType.from_name(node.attr("element_type", "") or "")
        shape = PartialShape.parse(node.attr("shape", "") or "")
        offset, size = int(node.attr("offset", "") or ""), int(node.attr("size", "") or "")
    except (IRError, ValueError):
        return False
    if not shape.is_static or et in (ElementType.string, ElementType.dynamic):
        return False
    need = _payload.packed_size(et, math.prod(shape.to_shape()))
    where = f"layer id={node.id} name={node.name!r} type={node.type}-{node.version}"
    if size < need:
        message = (
            f"{where}: size={size} bytes is too small for shape {shape} of {et} "
            f"({need} bytes needed); its value is unknown"
        )
    elif bin_size is not None and need > 0 and offset + size > bin_size:
        message = (
            f"{where}: offset={offset} size={size} lies outside the weights file "
            f"({bin_size} bytes); its value is unknown"
        )
    else:
        if size > need:
            problems.append(
                Problem(
                    "const-size-excess",
                    Severity.WARNING,
                    node.name,
                    None,
                    f"{where}: size={size} bytes, only {need} needed for shape {shape} of {et} "
                    "(OpenVINO reads the first bytes and ignores the rest)",
                    node.ref,
                )
            )
        return False
    problems.append(Problem("const-size", Severity.ERROR, node.name, None, message, node.ref))
    return True


def _int_attr_data(node: Node, name: str) -> int:
    text = node.attr(name)
    if text is not None and text.isascii() and text.isdigit() and len(text) <= 64:  # what _UINT takes
        return int(text)
    if text is None:
        raise IRError(f"{node.describe()}: missing attribute {name!r}")
    try:
        return parse_uint(text)
    except ValueError:
        raise IRError(
            f"{node.describe()}: attribute {name}={quote(text)} is not an unsigned integer"
        ) from None


def _read_plain_edge(
    edge: etree._Element,
    nodes: list[Node],
    by_id: dict[int, int],
    feeds: list[list[tuple[int, int] | None]],
    ports: dict[int, dict[int, int]],
) -> bool:
    """Record an edge as :func:`_read_edge` does, when nothing about it is wrong or unusual
    (attributes of ASCII digits only); False: the checked reader does it."""
    get = edge.get
    attributes = (get("from-layer"), get("from-port"), get("to-layer"), get("to-port"))
    return _record_plain_edges([attributes], nodes, by_id, feeds, ports)


def _read_edge(
    edge: etree._Element, nodes: list[Node], by_id: dict[int, int], feeds: list[list[tuple[int, int] | None]]
) -> None:
    where = f"edge at line {edge.sourceline}"
    fl, fp = _int_attr(edge, "from-layer", where), _int_attr(edge, "from-port", where)
    tl, tp = _int_attr(edge, "to-layer", where), _int_attr(edge, "to-port", where)
    where = f"edge {fl}:{fp} -> {tl}:{tp}"
    if fl not in by_id:
        raise IRError(f"{where}: dangling edge, no layer with id {fl}")
    if tl not in by_id:
        raise IRError(f"{where}: dangling edge, no layer with id {tl}")
    src_i, dst_i = by_id[fl], by_id[tl]
    src, dst = nodes[src_i], nodes[dst_i]
    out_index = next((k for k, p in enumerate(src.outputs) if p.id == fp), None)
    if out_index is None:
        raise IRError(
            f"{where}: dangling edge, {src.describe()} has no output port {fp} "
            f"(output ports: {[p.id for p in src.outputs]})"
        )
    in_index = next((k for k, p in enumerate(dst.inputs) if p.id == tp), None)
    if in_index is None:
        raise IRError(
            f"{where}: dangling edge, {dst.describe()} has no input port {tp} "
            f"(input ports: {[p.id for p in dst.inputs]})"
        )
    prev = feeds[dst_i][in_index]
    if prev is not None:
        raise IRError(
            f"{dst.describe()}: input port {tp} is fed twice "
            f"(from layer {nodes[prev[0]].id} and from layer {fl})"
        )
    feeds[dst_i][in_index] = (src_i, out_index)


def _topological_order(nodes: list[Node], feeds: list[list[tuple[int, int]]]) -> list[int]:
    """Kahn's algorithm; ties keep document order, so the order is deterministic."""
    indegree = [len(f) for f in feeds]
    consumers: list[list[int]] = [[] for _ in nodes]
    for i, f in enumerate(feeds):
        for s in f:
            consumers[s[0]].append(i)
    ready = deque(i for i, d in enumerate(indegree) if d == 0)
    order: list[int] = []
    while ready:
        i = ready.popleft()
        order.append(i)
        for c in consumers[i]:
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    if len(order) != len(nodes):
        stuck = [nodes[i] for i in range(len(nodes)) if indegree[i] > 0]
        raise IRError(
            f"{stuck[0].describe()}: the graph has a cycle through this layer ({len(stuck)} layers involved)"
        )
    return order
