"""ONNX models as input: converted in-process by OpenVINO's ONNX frontend, then read by our reader.

``ovonehot.load("model.onnx")`` (and so ``run``, ``diff``, ``validate``,
``inspect``) lands here.  OpenVINO converts the ONNX graph to its own opset
(ONNX OneHot-9 becomes Convert + Split/Squeeze + OneHot-1, OneHot-11 the same
around OneHot-16 with ``negative_indices_mode="normalize"``); the result is
serialized to IR v11 without fp16 compression and read back by
``ovonehot.ir.reader``, so what ovonehot checks and runs is exactly the IR that
``ovonehot convert`` writes.  openvino is imported here lazily, inside the
functions: loading an .xml never touches it.

Boundary: this module knows nothing of ONNX semantics (``conventions.onnx_one_hot``
does); it only hands the file to OpenVINO and the result to the reader, with two
corrections where OpenVINO's conversion is wrong (docs/conventions.md, findings 6 and 7):
bfloat16 tensors kept in ``int32_data``, which OpenVINO 2026.4 misreads, are re-encoded
as ``raw_data`` (the same bits), and integer Divide nodes made from ONNX ``Div`` truncate
as ONNX does (``m_pythondiv=false``); Divides the frontend builds for other ONNX ops
(BitShift right: floor on purpose) are left alone.
"""

from __future__ import annotations

import importlib
import os
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..atomic import scratch
from ..errors import InputError, IRError, OpenVINOError, UsageError
from ..graph import Graph
from ..infer import infer
from ..ir.reader import read_ir_bytes
from ..model import Model
from .common import import_openvino

ONNX_SUFFIX = ".onnx"


def is_onnx_path(path: str | os.PathLike[str]) -> bool:
    """True for a path ending in ``.onnx`` (any case): such a model goes through OpenVINO first."""
    return Path(path).suffix.lower() == ONNX_SUFFIX


def load_onnx(path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> Model:
    """Convert ``path`` with OpenVINO's ONNX frontend and load the IR it makes, as ``ovonehot.load`` does.

    Errors: a missing file or a ``bin_path`` (an ONNX model has none: external data
    files are found beside the model) is an InputError/UsageError; openvino missing,
    or its frontend refusing the model, is an OpenVINOError (exit status 4).
    """
    graph = read_onnx_graph(path, bin_path)
    return Model(graph, infer(graph), Path(path))


def read_onnx_graph(path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> Graph:
    """The graph of the IR OpenVINO's ONNX frontend makes of ``path``: what ``read_ir`` gives for an .xml.

    For readers that need the graph before inference (validate, inspect): dispatch on
    :func:`is_onnx_path` and call this instead of ``read_ir``.
    """
    if bin_path is not None:
        raise UsageError(
            f"{path}: an ONNX model takes no weights file (got {bin_path}); external data "
            "files are read from beside the model"
        )
    xml, weights = convert_onnx(path)
    return read_ir_bytes(xml, weights, source=f"{path} (as converted by OpenVINO's ONNX frontend)")


def convert_onnx(path: str | os.PathLike[str]) -> tuple[bytes, bytes]:
    """The IR (xml bytes, bin bytes) that OpenVINO's ONNX frontend makes of the model at ``path``."""
    source = Path(path)
    if not source.is_file():
        raise InputError(f"{source}: no such file")
    ov = _openvino()
    with scratch("ovonehot-onnx-") as tmp:
        readable = _bf16_as_raw_data(source, Path(tmp) / "bf16-raw.onnx") or source
        _check_onnx_file(source, readable)
        try:
            model = ov.Core().read_model(str(readable))
        except Exception as exc:  # noqa: BLE001 - OpenVINO raises plain RuntimeError/Exception subclasses
            # An op the frontend has no converter for, or not an ONNX model at all: the model is
            # invalid or unsupported (exit 3), as IR ovonehot cannot read is; OpenVINO works.
            raise IRError(f"{source}: OpenVINO's ONNX frontend cannot convert it: {_summary(exc)}") from None
        _truncating_integer_division(model, _onnx_div_outputs(source))
        xml = Path(tmp) / "model.xml"
        try:
            ov.save_model(model, str(xml), compress_to_fp16=False)
        except Exception as exc:  # noqa: BLE001 - as above
            raise OpenVINOError(
                f"{source}: OpenVINO cannot serialize the converted model: {_summary(exc)}"
            ) from None
        return xml.read_bytes(), xml.with_suffix(".bin").read_bytes()


def _truncating_integer_division(model: Any, div_outputs: frozenset[str] | None) -> None:
    """Make the integer Divides made from ONNX ``Div`` truncate, as ONNX's integer Div does.

    OpenVINO's ONNX frontend turns ``Div`` into Divide with ``m_pythondiv=true``, which in
    OpenVINO's own semantics (its reference, its constant folding) is floor division: -7 / 2
    gives -4 where ONNX, onnxruntime and onnx.reference give -3 (and so does OpenVINO's CPU
    plugin, which ignores the attribute: docs/FINDINGS.md).  PyTorch's opset-9 export of ``%``
    builds on it.  Non-negative operands divide the same either way.

    The frontend also builds Divides of its own with floor meant (ONNX BitShift right is
    ``x / 2**s``: -1 >> 1 is -1), so only a Divide that *is* an ONNX Div is changed: the
    frontend names a converted node's last op, and its output tensor, after the ONNX node's
    output, and ``div_outputs`` holds the output names of every ONNX Div.  Without the
    ``onnx`` package (``div_outputs`` None) no Divide can be told apart and all are changed.
    """
    for op in model.get_ordered_ops():
        if op.get_type_name() != "Divide" or not op.get_output_element_type(0).is_integral_number():
            continue
        if not op.get_attributes().get("m_pythondiv", False):
            continue
        names = {op.get_friendly_name(), *op.output(0).get_names()}
        if div_outputs is None or names & div_outputs:
            op.set_attribute("m_pythondiv", False)


def _onnx_div_outputs(source: Path) -> frozenset[str] | None:
    """The output names of every ONNX ``Div`` node in the model (subgraphs included); None without onnx."""
    try:
        import onnx
    except ImportError:
        return None
    try:
        model = onnx.load(str(source), load_external_data=False)
    except Exception:  # noqa: BLE001 - not loadable by onnx: OpenVINO read it, so change nothing
        return frozenset()
    return frozenset(
        name
        for node in _all_nodes(model.graph)
        if node.op_type == "Div" and node.domain in ("", "ai.onnx")
        for name in node.output
        if name
    )


def _all_nodes(graph: Any) -> Iterator[Any]:
    """Every NodeProto of an ONNX graph, subgraphs included."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from _all_nodes(attr.g)
            for sub in attr.graphs:
                yield from _all_nodes(sub)


def _bf16_as_raw_data(source: Path, target: Path) -> Path | None:
    """A copy of the model at ``target`` whose bfloat16 tensors hold their bits in ``raw_data``, if needed.

    OpenVINO 2026.4's ONNX frontend reads a bfloat16 tensor stored in ``int32_data`` (what
    ``onnx.helper.make_tensor`` writes) as integers and converts their values: the bits
    of 1.0 (16256) become the number 16256.0.  The same bits in ``raw_data`` read right
    (docs/conventions.md, finding 6).  Re-encoding the storage changes no value, so
    initializers and Constant attributes, in every subgraph, are moved to ``raw_data``
    before OpenVINO reads the model.  Without the ``onnx`` package, or for a model with
    external data (whose relative paths a copy elsewhere would break), the file is read
    as it is.  Returns None when nothing needs re-encoding.
    """
    try:
        import onnx
    except ImportError:
        return None
    try:
        model = onnx.load(str(source), load_external_data=False)
    except Exception:  # noqa: BLE001 - not loadable by onnx: let OpenVINO report on the file
        return None
    tensors = list(_all_tensors(model.graph))
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in tensors):
        return None
    fixed = 0
    for tensor in tensors:
        if tensor.data_type == onnx.TensorProto.BFLOAT16 and tensor.int32_data and not tensor.raw_data:
            bits = [v & 0xFFFF for v in tensor.int32_data]
            tensor.raw_data = struct.pack(f"<{len(bits)}H", *bits)
            del tensor.int32_data[:]
            fixed += 1
    if not fixed:
        return None
    onnx.save(model, str(target))
    return target


def _all_tensors(graph: Any) -> Iterator[Any]:
    """Every TensorProto of an ONNX graph: initializers and node attributes, subgraphs included."""
    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("g"):
                yield from _all_tensors(attr.g)
            for sub in attr.graphs:
                yield from _all_tensors(sub)


def _check_onnx_file(source: Path, readable: Path) -> None:
    """An IRError (exit 3) when the ONNX frontend cannot parse ``readable`` at all.  Asked first:
    ``read_model`` would then try every other frontend on it, and TensorFlow's writes its parse
    errors straight to the process's stderr."""
    try:
        frontend = importlib.import_module("openvino.frontend").FrontEndManager().load_by_framework("onnx")
        parsed = bool(frontend.supported(str(readable)))
    except Exception:  # noqa: BLE001 - no ONNX frontend to ask: read_model says what it can
        return
    if not parsed:
        raise IRError(
            f"{source}: not an ONNX model: OpenVINO's ONNX frontend cannot convert it (it cannot parse the file)"
        )


def _openvino() -> Any:
    return import_openvino("reading an ONNX model needs OpenVINO's ONNX frontend, and ")


# OpenVINO prefixes messages with source locations ("Exception from src/...cpp:84:",
# "Check 'false' failed at src/...cpp:47:"); the user needs the text after them.
_LOCATION = re.compile(r"(Exception from|Check '[^']*' failed at) \S+:\d+:?")


def _summary(exc: BaseException) -> str:
    text = _LOCATION.sub(" ", str(exc))
    return " ".join(text.split()) or type(exc).__name__
