"""Declared vs inferred: every disagreement between an IR file and OpenVINO's inference.

OpenVINO's IR reader recomputes every shape and never checks the ``<dim>`` and
``precision`` the file declares.  ``validate`` re-infers every layer exactly as
OpenVINO would (``ovonehot.infer``) and reports, with stable codes:

* ``output-shape``/``output-type``: an output port's dims/precision contradict the
  inferred ones (OpenVINO writes every dynamic or interval dim as -1, no ``<dim>`` for
  a scalar or a dynamic rank; a port more specific than the inference, a static dim
  inside the inferred interval, refines it and is compatible: exporters know more than
  OpenVINO's shape inference); ``parameter-shape``/``parameter-type`` and
  ``const-shape``/``const-type`` for the port of a Parameter or Const, whose data
  attributes are authoritative;
* ``edge-shape``/``edge-type``: a consumer's input port disagrees with the producer's
  output port across an edge;
* ``const-size`` (a Const whose ``size`` is too small or lies outside the .bin) and
  ``const-size-excess`` (larger than needed: OpenVINO accepts it, a warning);
* ``output-count``, ``input-count``, ``bad-attribute``, ``unknown-op`` (no opset of
  OpenVINO's holds the type), ``not-checked`` (a warning: an op ovonehot does not implement),
  ``inference-failed`` (OpenVINO would refuse the layer);
* OneHot findings (``onehot-*``, the rule tables of :mod:`.onehot_rules`).

The graph is walked once, by the first interpreter: :func:`ovonehot.infer.infer` with its
record policy, which turns a layer's failure into a problem and marks what depends on it;
the checks of this module are that policy's per-node hooks (:class:`_Checks`).  Reading is
the tolerant reader's (:func:`ovonehot.ir.reader.read_tolerant`), in the same single parse
as any read.

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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import IRError
from ..graph import Graph, Node, Port
from ..infer import Checker, NodePlan, PartialInference, Record, infer
from ..ir.reader import Reading, read_tolerant, read_tolerant_bytes
from ..jsondata import shape_json
from ..ops.common.openvino_opsets import OPENVINO_VERSION, OPSETS
from ..ops.common.shape_util import normalize_axis
from ..ops.common.spec import OpSpec, TensorInfo
from ..ops.one_hot import OneHotAttrs
from ..oracle.onnx_frontend import convert_onnx, is_onnx_path
from ..problems import Problem, Severity, has_error, problem
from ..types import Dimension, ElementType, PartialShape
from .onehot_rules import onehot_attribute_findings, onehot_findings

__all__ = [
    "Analysis",
    "LayerReport",
    "OutputReport",
    "Problem",
    "Report",
    "Severity",
    "analyze",
    "declared_shape",
    "declared_type",
    "onehot_attribute_findings",
    "onehot_findings",
    "read_for_validation",
    "report_of",
    "serialized_dims",
    "validate",
]


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
            "shape": None if self.shape is None else shape_json(self.shape),
            "element_type": None if self.element_type is None else self.element_type.value,
            "declared_shape": None if self.declared_shape is None else _dims_of(self.declared_shape),
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


# =============================================================================================
# Reading, tolerant of broken Const payloads
# =============================================================================================
def read_for_validation(
    xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None
) -> Reading:
    """Read the IR (or the IR OpenVINO's ONNX frontend makes of an ONNX model) with the
    tolerant reader: Consts whose payload is missing are problems and unknown values
    (:func:`ovonehot.ir.reader.read_tolerant`).  Anything else the reader refuses raises
    IRError (the file cannot be read: exit 3)."""
    if is_onnx_path(xml_path):
        xml, weights = convert_onnx(xml_path)
        return read_tolerant_bytes(xml, weights, source=str(xml_path))
    return read_tolerant(xml_path, bin_path)


# =============================================================================================
# Analysis: one run of the first interpreter, recording failures, with validate's checks
# =============================================================================================
def analyze(
    graph: Graph,
    shapes: Mapping[str, PartialShape] | None = None,
    compare_dims: bool | None = None,
) -> Analysis:
    """Infer every layer (failures become problems) and compare with the declarations.

    The layers are inferred as ``read_model`` reports them (no value or bound passes a
    decompression Convert).  With ``shapes``, the file's own shapes are inferred first, for
    the axis each OneHot normalized then (it sticks after a reshape).
    """
    if compare_dims is None:
        compare_dims = not shapes
    sticky: Mapping[int, int] = {}
    if shapes:
        plain = _Checks(graph, False, {})
        plain.run(None)
        sticky = plain.axes
    result = _Checks(graph, compare_dims, sticky).run(shapes)
    return Analysis(graph, result.outputs, result.problems)


class _Checks(Checker):
    """validate's findings, as hooks of the record policy of :func:`ovonehot.infer.infer`."""

    def __init__(self, graph: Graph, compare_dims: bool, sticky: Mapping[int, int]) -> None:
        self.graph = graph
        self.compare_dims = compare_dims
        self.sticky = sticky  # layer id -> the OneHot axis normalized for the file's own shapes
        self.axes: dict[int, int] = {}  # layer id -> the OneHot axis normalized in this run

    def run(self, shapes: Mapping[str, PartialShape] | None) -> PartialInference:
        return infer(self.graph, shapes=shapes, as_read_model=True, policy=Record(self))

    def visit(self, index: int, node: Node, found: list[Problem]) -> None:
        found.extend(_edge_problems(self.graph, index))

    def before_resolve(self, index: int, node: Node, found: list[Problem]) -> bool:
        if node.value_unknown:  # a Const the .bin does not hold: the reader reported it
            return False
        refusal = _unknown_to_openvino(node)
        if refusal is not None:
            found.append(problem("unknown-op", Severity.ERROR, node, None, refusal))
            return False
        return True

    def before_parse(
        self, index: int, node: Node, spec: OpSpec[Any], ins: Sequence[TensorInfo], found: list[Problem]
    ) -> bool:
        if spec.type != "OneHot":
            return True
        findings = onehot_attribute_findings(node, spec)
        found.extend(findings)
        return not has_error(findings)

    def after_parse(
        self, index: int, p: NodePlan, ins: Sequence[TensorInfo], found: list[Problem]
    ) -> NodePlan | None:
        if not isinstance(p.attrs, OneHotAttrs):
            return p
        node = p.node
        if node.id in self.sticky:
            p = NodePlan(node, p.spec, replace(p.attrs, axis=self.sticky[node.id]))
        findings = onehot_findings(node, p.attrs, ins)
        found.extend(findings)
        return None if has_error(findings) else p

    def after_infer(
        self,
        index: int,
        p: NodePlan,
        ins: Sequence[TensorInfo],
        outs: tuple[TensorInfo, ...],
        found: list[Problem],
    ) -> None:
        found.extend(_output_problems(p.node, outs, self.compare_dims))
        if isinstance(p.attrs, OneHotAttrs) and ins[0].shape.rank_is_static:
            self.axes[p.node.id] = normalize_axis(p.attrs.axis, ins[0].shape.rank + 1)


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


# -- comparisons ---------------------------------------------------------------------------------
def _dims_of(text: str) -> list[int | None]:
    """:func:`declared_shape`'s text back as a JSON dim list (``?`` is ``null``)."""
    inner = text.strip("[]")
    return [None if d == "?" else int(d) for d in inner.split(",")] if inner else []


def declared_shape(port: Port) -> str:
    """A port's ``<dim>`` list in OpenVINO notation (-1 is ``?``; no dims is ``[]``)."""
    return "[" + ",".join("?" if d == -1 else str(d) for d in port.dims) + "]"


def serialized_dims(shape: PartialShape) -> tuple[int, ...]:
    """The ``<dim>`` list OpenVINO writes for a partial shape."""
    if shape.dims is None:
        return ()
    return tuple(d.min if d.is_static else -1 for d in shape.dims)


def dims_compatible(declared: tuple[int, ...], inferred: PartialShape) -> bool:
    """Whether a port's ``<dim>`` list fits the inferred shape: written as OpenVINO writes it, or
    more specific than the inference (a refinement: a static dim inside the inferred interval).

    Exporters may know more than OpenVINO's shape inference: optimum-intel's T5 decoder with
    past declares ``[?,?,64]`` where inference (``read_model`` too) gives ``[?,?,?]``.  Such a
    port is compatible; a declared dim outside the inferred interval, a ``-1`` where inference
    gives a static dim, or another rank, contradicts it.  A dynamic-rank inference is refined by
    any declared rank.
    """
    if declared == serialized_dims(inferred):
        return True
    if inferred.dims is None:
        return True
    if len(declared) != len(inferred.dims):
        return False
    return all(_dim_refines(d, dim) for d, dim in zip(declared, inferred.dims, strict=True))


def _dim_refines(declared: int, inferred: Dimension) -> bool:
    if declared == -1:
        return not inferred.is_static
    return inferred.min <= declared and (inferred.max is None or declared <= inferred.max)


def declared_type(port: Port) -> ElementType | None:
    """The port's precision as an element type; None when absent (the reader refuses unknown ones)."""
    if port.precision is None:
        return None
    return ElementType.from_precision(port.precision)


def _output_problems(node: Node, outs: Sequence[TensorInfo], compare_dims: bool) -> list[Problem]:
    problems = []
    kind = {"parameter": "parameter", "const": "const", "constant": "const"}.get(node.type.lower(), "output")
    for port, info in zip(node.outputs, outs, strict=True):
        if compare_dims and not dims_compatible(port.dims, info.shape):
            problems.append(
                problem(
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
                problem(
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
                problem(
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
                problem(
                    "edge-type",
                    Severity.ERROR,
                    node,
                    port.id,
                    f"declares precision {port.precision}, the {edge} declares {out.precision}",
                )
            )
    return problems


# =============================================================================================
# The entry point
# =============================================================================================
def validate(
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    shapes: Mapping[str, PartialShape] | None = None,
) -> Report:
    """Validate an IR file; raises IRError when the file cannot be read at all."""
    reading = read_for_validation(xml_path, bin_path)
    return report_of(analyze(reading.graph, shapes), reading.problems)


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
                node.type,
                node.version,
                tuple(reports),
            )
        )
    return Report(tuple(layers), tuple(extra) + analysis.problems)
