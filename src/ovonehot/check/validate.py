"""Declared vs inferred: every disagreement between an IR file and OpenVINO's inference.

OpenVINO's IR reader recomputes every shape and never checks the ``<dim>`` and
``precision`` the file declares.  ``validate`` re-infers every layer exactly as
OpenVINO would (``ovonehot.infer``) and reports, with stable codes:

* ``output-shape``/``output-type``: an output port's dims/precision differ from the
  inferred ones (OpenVINO writes every dynamic or interval dim as -1, no ``<dim>`` for
  a scalar or a dynamic rank); ``parameter-shape``/``parameter-type`` and
  ``const-shape``/``const-type`` for the port of a Parameter or Const, whose data
  attributes are authoritative;
* ``edge-shape``/``edge-type``: a consumer's input port disagrees with the producer's
  output port across an edge;
* ``const-size`` (a Const whose ``size`` is too small or lies outside the .bin) and
  ``const-size-excess`` (larger than needed: OpenVINO accepts it, a warning);
* ``output-count``, ``input-count``, ``bad-attribute``,
  ``unsupported-op`` (warning), ``inference-failed`` (OpenVINO would refuse the layer);
* OneHot findings (``onehot-*``, see :func:`onehot_findings`).

How validation proceeds past a failing layer: a layer that cannot be inferred (an
OpenVINO refusal, an unsupported op, a broken Const) gets its own problem, and every
layer that depends on it is *not checked*: its outputs show ``null`` shapes and
types, and one ``not-checked`` warning on the failing layer counts them.  Continuing
from the file's declared shapes instead would turn every interval the file had to
write as -1 into false reports downstream; silence is better than noise there.

Values and bounds follow OpenVINO's rules (``ovonehot.ops.common.bounds``); in addition, no
value or bound passes a Convert the file marks ``decompression`` in its rt_info (the
f16 compression of ``save_model``), as OpenVINO's ``could_propagate`` refuses them.
(``ovonehot.load`` applies it to ``Model.outputs`` too, while ``Model.inference`` keeps
the values folded through such Converts, as compiling does.)

``shapes`` re-infers with new Parameter shapes, as ``model.reshape`` does: dims are
then expected to differ from the file, so only element types are compared, and a
OneHot keeps the axis it normalized for the file's own shapes (OpenVINO stores the
normalized axis at first inference and reuses it after a reshape).

The report lists every layer by name in document order with each output's inferred
and declared shape and type; a Result, which has no output port in the IR, lists the
one output OpenVINO's Result op has (what it returns), with nothing declared.

Exit statuses (``Report.exit_code``): 0 clean (warnings allowed), 1 problems found;
an unreadable IR raises :class:`IRError` (exit 3) before any report exists.
"""

from __future__ import annotations

import enum
import math
import mmap
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lxml import etree

from ..errors import Error, InputError, IRError, ValidationError
from ..graph import Graph, Node, Port
from ..infer import NodePlan, infer_node
from ..ir import payload
from ..ir.reader import parse_int, read_ir, read_ir_bytes
from ..ops import lookup
from ..ops.basic import ParameterAttrs
from ..ops.common.bounds import depth_interval
from ..ops.common.openvino_opsets import OPENVINO_VERSION, OPSETS
from ..ops.common.shape_util import normalize_axis
from ..ops.common.spec import OpSpec, TensorInfo
from ..ops.one_hot import OneHotAttrs
from ..oracle.onnx_frontend import convert_onnx, is_onnx_path
from ..types import ElementType, PartialShape


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: a stable ``code``, the layer (by name) and port it concerns, and why."""

    code: str
    severity: Severity
    layer: str
    port: int | None
    message: str

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "layer": self.layer,
            "port": self.port,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.severity.value} {self.code}: {self.message}"


@dataclass(frozen=True, slots=True)
class OutputReport:
    """One output port: inferred shape/type (None when not checked) and what the file says.

    A Result layer has no output port in the IR, but OpenVINO's Result op has one output
    (what it returns): it is reported with ``port``, ``declared_shape`` and
    ``declared_element_type`` None, so every layer can be compared with OpenVINO's ops.
    """

    port: int | None
    shape: PartialShape | None
    element_type: ElementType | None
    declared_shape: str | None
    declared_element_type: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "port": self.port,
            "shape": None if self.shape is None else str(self.shape),
            "element_type": None if self.element_type is None else self.element_type.value,
            "declared_shape": self.declared_shape,
            "declared_element_type": self.declared_element_type,
        }


@dataclass(frozen=True, slots=True)
class LayerReport:
    id: int
    name: str
    type: str
    version: str
    outputs: tuple[OutputReport, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "version": self.version,
            "outputs": [o.to_json() for o in self.outputs],
        }


@dataclass(frozen=True, slots=True)
class Report:
    """Every layer of the IR (document order) and every problem found."""

    layers: tuple[LayerReport, ...]
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def to_json(self) -> dict[str, object]:
        return {
            "layers": [layer.to_json() for layer in self.layers],
            "problems": [p.to_json() for p in self.problems],
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """Per node (graph order): its inferred outputs (None: not checked) and the problems."""

    graph: Graph
    outputs: tuple[tuple[TensorInfo, ...] | None, ...]
    problems: tuple[Problem, ...]
    original_types: Mapping[int, str]  # layer id -> type as the file wrote it, where rewritten


# =============================================================================================
# Reading, tolerant of broken Const payloads
# =============================================================================================
_PARSER_OPTIONS = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}


@dataclass(frozen=True, slots=True)
class ReadIR:
    """What ``validate`` reads: the graph, Const problems, rewritten Consts, decompression Converts."""

    graph: Graph
    problems: tuple[Problem, ...]
    original_types: Mapping[int, str]  # layer id -> type as written, for Consts read as unknown values
    decompression: frozenset[int]  # ids of layers whose rt_info marks them "decompression"


def read_for_validation(
    xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None
) -> ReadIR:
    """Read the IR; Consts whose payload is missing are reported and read as unknown values.

    Also notes the Converts that ``save_model``'s f16 compression inserted (rt_info
    ``decompression``): OpenVINO propagates no value or bound through them, so a depth
    computed through one is ``?`` (``could_propagate`` in ``bound_evaluate.cpp``).
    Anything else the reader refuses raises IRError (the file cannot be read: exit 3).
    """
    if is_onnx_path(xml_path):
        return _read_onnx_for_validation(xml_path)
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")
    if not xml_path.is_file():
        raise IRError(f"{xml_path}: no such file")
    try:
        tree = etree.parse(str(xml_path), etree.XMLParser(**_PARSER_OPTIONS))
    except (etree.XMLSyntaxError, OSError) as exc:
        raise IRError(f"{xml_path}: cannot read the XML: {exc}") from None
    decompression = frozenset(_decompression_ids(tree))
    bin_size = bin_path.stat().st_size if bin_path.is_file() else None
    problems, broken = _check_constants(tree, bin_size)
    if not broken:
        return ReadIR(read_ir(xml_path, bin_path), tuple(problems), {}, decompression)
    original = {}
    for layer in broken:
        layer_id = _layer_id(layer)
        if layer_id is not None:  # else the reader refuses the id below
            original[layer_id] = layer.get("type", "Const")
        _as_unknown_value(layer)
    xml = etree.tostring(tree)
    if bin_size:
        with open(bin_path, "rb") as f:
            # left open: Const payloads are views into it, as with the reader's own mapping
            weights = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        graph = read_ir_bytes(xml, weights, source=str(xml_path))
    else:
        graph = read_ir_bytes(xml, b"", source=str(xml_path))
    return ReadIR(graph, tuple(problems), original, decompression)


def _read_onnx_for_validation(path: str | os.PathLike[str]) -> ReadIR:
    """An ONNX model: the IR OpenVINO's ONNX frontend makes of it, validated like any IR."""
    xml, weights = convert_onnx(path)
    try:
        tree = etree.ElementTree(etree.fromstring(xml, etree.XMLParser(**_PARSER_OPTIONS)))
    except etree.XMLSyntaxError as exc:
        raise IRError(f"{path}: the converted IR is not readable XML: {exc}") from None
    problems, _ = _check_constants(tree, len(weights))
    graph = read_ir_bytes(xml, weights, source=str(path))
    return ReadIR(graph, tuple(problems), {}, frozenset(_decompression_ids(tree)))


def _layer_id(layer: etree._Element) -> int | None:
    """The layer's id as the reader reads it, None when it is not one (the reader says why)."""
    try:
        return parse_int(layer.get("id", ""))
    except ValueError:
        return None


def _decompression_ids(tree: etree._ElementTree) -> list[int]:
    ids = []
    for layer in tree.getroot().findall("layers/layer"):
        if layer.find("rt_info/attribute[@name='decompression']") is not None:
            layer_id = _layer_id(layer)
            if layer_id is not None:
                ids.append(layer_id)
    return ids


def _check_constants(
    tree: etree._ElementTree, bin_size: int | None
) -> tuple[list[Problem], list[etree._Element]]:
    problems: list[Problem] = []
    broken: list[etree._Element] = []
    layers = tree.getroot().find("layers")
    for layer in layers.iterchildren("layer") if layers is not None else ():
        if (layer.get("type") or "").lower() not in ("const", "constant"):
            continue
        data = layer.find("data")
        try:
            et = ElementType.from_name(data.get("element_type", "")) if data is not None else None
            shape = PartialShape.parse(data.get("shape", "")) if data is not None else None
            offset, size = int(data.get("offset", "")), int(data.get("size", ""))
        except (IRError, ValueError, AttributeError):
            continue  # the reader reports malformed attributes itself
        if (
            et is None
            or shape is None
            or not shape.is_static
            or et in (ElementType.string, ElementType.dynamic)
        ):
            continue
        need = payload.packed_size(et, math.prod(shape.to_shape()))
        where = f"layer id={layer.get('id')} name={layer.get('name', '')!r} type={layer.get('type')}-{layer.get('version')}"
        name = layer.get("name", "")
        if size < need:
            problems.append(
                Problem(
                    "const-size",
                    Severity.ERROR,
                    name,
                    None,
                    f"{where}: size={size} bytes is too small for shape {shape} of {et} "
                    f"({need} bytes needed); its value is unknown",
                )
            )
            broken.append(layer)
        elif bin_size is not None and need > 0 and offset + size > bin_size:
            problems.append(
                Problem(
                    "const-size",
                    Severity.ERROR,
                    name,
                    None,
                    f"{where}: offset={offset} size={size} lies outside the weights file "
                    f"({bin_size} bytes); its value is unknown",
                )
            )
            broken.append(layer)
        elif size > need:
            problems.append(
                Problem(
                    "const-size-excess",
                    Severity.WARNING,
                    name,
                    None,
                    f"{where}: size={size} bytes, only {need} needed for shape {shape} of {et} "
                    "(OpenVINO reads the first bytes and ignores the rest)",
                )
            )
    return problems, broken


def _as_unknown_value(layer: etree._Element) -> None:
    """Turn a broken Const into a Parameter of the same type and shape (its value unknown)."""
    data = layer.find("data")
    assert data is not None
    et, shape = data.get("element_type", ""), data.get("shape", "")
    data.attrib.clear()
    data.set("element_type", et)
    data.set("shape", shape)
    layer.set("type", "Parameter")


# =============================================================================================
# Analysis: infer every layer, tolerating failures
# =============================================================================================
def analyze(
    graph: Graph,
    shapes: Mapping[str, PartialShape] | None = None,
    original_types: Mapping[int, str] | None = None,
    compare_dims: bool | None = None,
    decompression: frozenset[int] = frozenset(),
) -> Analysis:
    """Infer every layer (failures become problems) and compare with the declarations.

    ``decompression``: ids of decompression Converts, whose outputs carry no value or
    bounds for the layers after them, as in OpenVINO.
    """
    original_types = dict(original_types or {})
    overrides = dict(shapes or {})
    if compare_dims is None:
        compare_dims = not overrides
    sticky = _normalized_one_hot_axes(graph, original_types, decompression) if overrides else {}
    problems: list[Problem] = []
    outputs: list[tuple[TensorInfo, ...] | None] = []
    failed_at: dict[int, int] = {}  # node index -> index of the failing layer it depends on
    for i, node in enumerate(graph.nodes):
        srcs = graph.sources[i]
        problems.extend(_edge_problems(graph, i))
        if node.id in original_types:  # a broken Const, already reported
            outputs.append(None)
            failed_at[i] = i
            continue
        upstream = [failed_at[s.node] for s in srcs if outputs[s.node] is None]
        if upstream:
            outputs.append(None)
            failed_at[i] = upstream[0]
            continue
        ins = [outputs[s.node][s.output] for s in srcs]  # type: ignore[index]
        outs, found = _infer_layer(node, ins, overrides, sticky)
        if outs is not None and node.id in decompression:
            outs = tuple(TensorInfo(t.element_type, t.shape) for t in outs)
        problems.extend(found)
        outputs.append(outs)
        if outs is None:
            failed_at[i] = i
        else:
            problems.extend(_output_problems(node, outs, compare_dims))
    if overrides:
        raise InputError(f"--shape names no Parameter: {', '.join(sorted(overrides))}")
    problems.extend(_downstream_warnings(graph, failed_at, original_types))
    return Analysis(graph, tuple(outputs), tuple(problems), original_types)


def _infer_layer(
    node: Node,
    ins: Sequence[TensorInfo],
    overrides: dict[str, PartialShape],
    sticky: Mapping[int, int],
) -> tuple[tuple[TensorInfo, ...] | None, list[Problem]]:
    """The layer's outputs (None when it cannot be inferred) and its findings."""
    refusal = _unknown_to_openvino(node)
    if refusal is not None:
        return None, [_problem("unknown-op", Severity.ERROR, node, None, refusal)]
    spec = lookup(node.type, node.version)
    if spec is None:
        return None, [
            _problem(
                "not-checked",
                Severity.WARNING,
                node,
                None,
                f"ovonehot does not implement {node.type} in {node.version}: "
                "its output shapes and types are not checked",
            )
        ]
    if not spec.accepts_input_count(len(ins)):
        return None, [
            _problem(
                "input-count",
                Severity.ERROR,
                node,
                None,
                f"has {len(ins)} inputs, {spec.name} takes {spec.inputs}",
            )
        ]
    found: list[Problem] = []
    if spec.type == "OneHot":
        found = onehot_attribute_findings(node, spec)
        if _has_error(found):
            return None, found
    try:
        attrs = spec.parse(node)
    except IRError as exc:
        return None, found + [_problem("bad-attribute", Severity.ERROR, node, None, _bare(node, exc))]
    if isinstance(attrs, ParameterAttrs):
        key = next(
            (k for k in [node.name, *(n for p in node.outputs for n in p.names)] if k in overrides), None
        )
        if key is not None:
            attrs = ParameterAttrs(attrs.element_type, overrides.pop(key))
    if isinstance(attrs, OneHotAttrs):
        if node.id in sticky:
            attrs = replace(attrs, axis=sticky[node.id])
        found += onehot_findings(node, attrs, ins)
        if _has_error(found):
            return None, found
    try:
        return infer_node(NodePlan(node, spec, attrs), ins), found
    except ValidationError as exc:
        return None, found + [
            _problem(
                "inference-failed",
                Severity.ERROR,
                node,
                None,
                f"OpenVINO would refuse this layer: {_bare(node, exc)}",
            )
        ]
    except IRError as exc:
        return None, found + [_problem("output-count", Severity.ERROR, node, None, _bare(node, exc))]


_OPSETS_LOWER = {key: frozenset(t.lower() for t in types) for key, types in OPSETS.items()}


def _unknown_to_openvino(node: Node) -> str | None:
    """Why OpenVINO's IR reader refuses the layer's ``type``/``version``, or None when an
    opset holds it.  As in OpenVINO, the version is matched exactly and the type without
    regard to case, ``Const`` being ``Constant``."""
    held = _OPSETS_LOWER.get(node.version)
    if held is None:
        return (
            f"version {_cut(node.version)!r} is no opset OpenVINO {OPENVINO_VERSION} knows "
            f"(opset1..opset{len(OPSETS)}): read_model refuses the layer"
        )
    name = node.type.lower()
    if (name if name != "const" else "constant") not in held:
        return f"OpenVINO's {node.version} has no op type {_cut(node.type)!r}: read_model refuses the layer"
    return None


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _has_error(problems: Sequence[Problem]) -> bool:
    return any(p.severity is Severity.ERROR for p in problems)


def _bare(node: Node, exc: Error) -> str:
    text = str(exc)
    prefix = node.describe() + ": "
    return text.removeprefix(prefix)


def _problem(code: str, severity: Severity, node: Node, port: int | None, message: str) -> Problem:
    where = node.describe() + (f" port {port}" if port is not None else "")
    return Problem(code, severity, node.name, port, f"{where}: {message}")


def _normalized_one_hot_axes(
    graph: Graph, original_types: Mapping[int, str], decompression: frozenset[int]
) -> dict[int, int]:
    """Each OneHot's axis normalized against the file's own indices rank (it sticks after a reshape)."""
    plain = analyze(graph, None, original_types, compare_dims=False, decompression=decompression)
    axes = {}
    for i, node in enumerate(graph.nodes):
        if node.type.lower() != "onehot" or plain.outputs[i] is None:
            continue
        src = graph.sources[i][0]
        indices = plain.outputs[src.node]
        spec = lookup(node.type, node.version)
        if indices is None or spec is None:
            continue
        shape = indices[src.output].shape
        if shape.rank_is_static:
            axes[node.id] = normalize_axis(spec.parse(node).axis, shape.rank + 1)  # it inferred, so it parses
    return axes


# -- comparisons ---------------------------------------------------------------------------------
def declared_shape(port: Port) -> str:
    """A port's ``<dim>`` list in OpenVINO notation (-1 is ``?``; no dims is ``[]``)."""
    return "[" + ",".join("?" if d == -1 else str(d) for d in port.dims) + "]"


def serialized_dims(shape: PartialShape) -> tuple[int, ...]:
    """The ``<dim>`` list OpenVINO writes for a partial shape."""
    if shape.dims is None:
        return ()
    return tuple(d.min if d.is_static else -1 for d in shape.dims)


def declared_type(port: Port) -> ElementType | None:
    """The port's precision as an element type; None when absent (the reader refuses unknown ones)."""
    if port.precision is None:
        return None
    return ElementType.from_precision(port.precision)


def _output_problems(node: Node, outs: Sequence[TensorInfo], compare_dims: bool) -> list[Problem]:
    problems = []
    kind = {"parameter": "parameter", "const": "const", "constant": "const"}.get(node.type.lower(), "output")
    for port, info in zip(node.outputs, outs, strict=True):
        if compare_dims and port.dims != serialized_dims(info.shape):
            problems.append(
                _problem(
                    f"{kind}-shape",
                    Severity.ERROR,
                    node,
                    port.id,
                    # ovonehot's inference by OpenVINO's rules: OpenVINO itself was not asked.
                    f"inferred {info.shape} (OpenVINO's rules; written as "
                    f"{declared_shape(Port(port.id, dims=serialized_dims(info.shape)))}), "
                    f"IR declares dims {declared_shape(port)}",
                )
            )
        et = declared_type(port)
        if et is not None and et is not info.element_type:
            problems.append(
                _problem(
                    f"{kind}-type",
                    Severity.ERROR,
                    node,
                    port.id,
                    f"inferred {info.element_type} (OpenVINO's rules), IR declares precision "
                    f"{port.precision} ({et})",
                )
            )
    return problems


def _edge_problems(graph: Graph, index: int) -> list[Problem]:
    node = graph.nodes[index]
    problems = []
    for port, src in zip(node.inputs, graph.sources[index], strict=True):
        producer = graph.nodes[src.node]
        out = producer.outputs[src.output]
        edge = f"edge from {producer.describe()} port {out.id}"  # both layers named: either may be wrong
        if port.dims != out.dims:
            problems.append(
                _problem(
                    "edge-shape",
                    Severity.ERROR,
                    node,
                    port.id,
                    f"declares dims {declared_shape(port)}, the {edge} declares {declared_shape(out)}",
                )
            )
        mine, theirs = declared_type(port), declared_type(out)
        if mine is not None and theirs is not None and mine is not theirs:
            problems.append(
                _problem(
                    "edge-type",
                    Severity.ERROR,
                    node,
                    port.id,
                    f"declares precision {port.precision}, the {edge} declares {out.precision}",
                )
            )
    return problems


def _downstream_warnings(
    graph: Graph, failed_at: Mapping[int, int], original_types: Mapping[int, str]
) -> list[Problem]:
    counts: dict[int, int] = {}
    for i, root in failed_at.items():
        if i != root:
            counts[root] = counts.get(root, 0) + 1
    problems = []
    for root, n in sorted(counts.items()):
        node = graph.nodes[root]
        if node.id in original_types:  # name the layer as the file has it
            node = replace(node, type=original_types[node.id])
        problems.append(
            _problem(
                "not-checked",
                Severity.WARNING,
                node,
                None,
                f"{n} layer(s) depending on this one are not checked",
            )
        )
    return problems


# =============================================================================================
# OneHot findings
# =============================================================================================
_SPEC_INDEX_TYPES = (ElementType.i32, ElementType.i64)


def onehot_attribute_findings(node: Node, spec: OpSpec[Any]) -> list[Problem]:
    """Attribute findings: ``negative_indices_mode`` on OneHot-1, the spec's hyphenated spelling."""
    mode = node.attr("negative_indices_mode")
    if mode is None:
        return []
    if spec.version < 16:
        return [
            _problem(
                "onehot-negative-indices-mode-ignored",
                Severity.WARNING,
                node,
                None,
                f"negative_indices_mode={mode!r} on a {node.version} layer (OneHot-1) is ignored by "
                "OpenVINO: negative indices give all-off rows; use version opset16 for the mode",
            )
        ]
    if mode.lower() == "ignore-negative":
        return [
            _problem(
                "onehot-ignore-negative-spelling",
                Severity.ERROR,
                node,
                None,
                "negative_indices_mode='ignore-negative' is the spec page's spelling; OpenVINO accepts "
                "only 'ignore_negative' (or 'normalize') and refuses the file",
            )
        ]
    return []


def onehot_findings(node: Node, attrs: OneHotAttrs, ins: Sequence[TensorInfo]) -> list[Problem]:
    """What OpenVINO refuses (errors) and what the spec excludes but OpenVINO accepts (warnings)."""
    indices, depth, on_value, off_value = ins
    port = [p.id for p in node.inputs]
    found: list[Problem] = []
    for k, label, info in ((0, "indices", indices), (1, "depth", depth)):
        et = info.element_type
        if et.is_real:
            found.append(
                _problem(
                    f"onehot-{label}-not-integral",
                    Severity.ERROR,
                    node,
                    port[k],
                    f"{label} of type {et}: OpenVINO refuses non-integral {label}",
                )
            )
        elif not et.is_dynamic and et not in _SPEC_INDEX_TYPES:
            found.append(
                _problem(
                    f"onehot-{label}-type",
                    Severity.WARNING,
                    node,
                    port[k],
                    f"{label} of type {et}: the spec allows only i32 and i64, OpenVINO accepts it",
                )
            )
    if not on_value.element_type.compatible(off_value.element_type):
        found.append(
            _problem(
                "onehot-on-off-type-mismatch",
                Severity.ERROR,
                node,
                port[3],
                f"on_value is {on_value.element_type}, off_value is {off_value.element_type}; "
                "OpenVINO requires the same type",
            )
        )
    for k, label, info in ((1, "depth", depth), (2, "on-value", on_value), (3, "off-value", off_value)):
        if info.shape.is_static and info.shape.rank != 0:
            found.append(
                _problem(
                    f"onehot-{label}-not-scalar",
                    Severity.ERROR,
                    node,
                    port[k],
                    f"{label.replace('-', '_')} has shape {info.shape}; it must be a scalar "
                    "(OpenVINO refuses even a one-element [1])",
                )
            )
    if indices.shape.rank_is_static:
        rank = indices.shape.rank
        if not -(rank + 1) <= attrs.axis <= rank:
            found.append(
                _problem(
                    "onehot-axis-out-of-range",
                    Severity.ERROR,
                    node,
                    None,
                    f"axis {attrs.axis} is outside [{-(rank + 1)}, {rank}] for indices of rank {rank}",
                )
            )
    # OpenVINO reads the depth only for indices of static rank (else the output is [...]); a
    # depth whose value cannot be computed (depth.error) fails the layer's inference instead
    if (
        indices.shape.rank_is_static
        and depth.error is None
        and not any(p.code == "onehot-depth-not-scalar" for p in found)
    ):
        try:
            dim = depth_interval(depth)
        except ValidationError as exc:
            found.append(
                _problem(
                    "onehot-negative-depth",
                    Severity.ERROR,
                    node,
                    port[1],
                    f"depth can be negative, OpenVINO refuses it: {exc}",
                )
            )
        else:
            if dim.is_static and dim.min == 0:
                found.append(
                    _problem(
                        "onehot-depth-zero",
                        Severity.WARNING,
                        node,
                        port[1],
                        "depth is 0: OpenVINO accepts it and the output has an empty dimension "
                        "(the spec asks for a positive depth)",
                    )
                )
    return found


# =============================================================================================
# The entry point
# =============================================================================================
def validate(
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    shapes: Mapping[str, PartialShape] | None = None,
) -> Report:
    """Validate an IR file; raises IRError when the file cannot be read at all."""
    read = read_for_validation(xml_path, bin_path)
    analysis = analyze(read.graph, shapes, read.original_types, decompression=read.decompression)
    return report_of(analysis, read.problems)


def report_of(analysis: Analysis, extra: Sequence[Problem] = ()) -> Report:
    graph = analysis.graph
    layers = []
    for i in graph.document_order:
        node = graph.nodes[i]
        outs = analysis.outputs[i]
        reports = []
        for k, port in enumerate(node.outputs):
            info = outs[k] if outs is not None and k < len(outs) else None
            try:
                et = declared_type(port)
                declared_et = None if et is None else et.value
            except IRError:
                declared_et = port.precision
            reports.append(
                OutputReport(
                    port.id,
                    None if info is None else info.shape,
                    None if info is None else info.element_type,
                    declared_shape(port),
                    declared_et,
                )
            )
        if node.type.lower() == "result" and len(graph.sources[i]) == 1:
            src = graph.sources[i][0]
            fed = analysis.outputs[src.node]
            info = fed[src.output] if fed is not None else None
            shape, et = (None, None) if info is None else (info.shape, info.element_type)
            reports.append(OutputReport(None, shape, et, None, None))
        layers.append(
            LayerReport(
                node.id,
                node.name,
                analysis.original_types.get(node.id, node.type),
                node.version,
                tuple(reports),
            )
        )
    return Report(tuple(layers), tuple(extra) + analysis.problems)
