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
does); it only hands the file to OpenVINO and the result to the reader.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from types import ModuleType

from .errors import InputError, OpenVINOError, UsageError
from .graph import Graph
from .infer import infer
from .ir.reader import read_ir_bytes
from .model import Model

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
        raise UsageError(f"{path}: an ONNX model takes no weights file (got {bin_path}); external data "
                         "files are read from beside the model")
    xml, weights = convert_onnx(path)
    return read_ir_bytes(xml, weights, source=f"{path} (as converted by OpenVINO's ONNX frontend)")


def convert_onnx(path: str | os.PathLike[str]) -> tuple[bytes, bytes]:
    """The IR (xml bytes, bin bytes) that OpenVINO's ONNX frontend makes of the model at ``path``."""
    source = Path(path)
    if not source.is_file():
        raise InputError(f"{source}: no such file")
    ov = _openvino()
    try:
        model = ov.Core().read_model(str(source))
    except Exception as exc:  # noqa: BLE001 - OpenVINO raises plain RuntimeError/Exception subclasses
        raise OpenVINOError(f"{source}: OpenVINO's ONNX frontend cannot convert it: {_summary(exc)}") from None
    with tempfile.TemporaryDirectory(prefix="ovonehot-onnx-") as tmp:
        xml = Path(tmp) / "model.xml"
        try:
            ov.save_model(model, str(xml), compress_to_fp16=False)
        except Exception as exc:  # noqa: BLE001 - as above
            raise OpenVINOError(f"{source}: OpenVINO cannot serialize the converted model: "
                                f"{_summary(exc)}") from None
        return xml.read_bytes(), xml.with_suffix(".bin").read_bytes()


def _openvino() -> ModuleType:
    try:
        import openvino  # type: ignore[import-untyped]
    except ImportError as exc:
        raise OpenVINOError(
            f"reading an ONNX model needs OpenVINO's ONNX frontend, and openvino cannot be imported ({exc}); "
            "install it with: pip install 'openvino>=2026.4,<2026.5'"
        ) from None
    return openvino


# OpenVINO prefixes messages with source locations ("Exception from src/...cpp:84:",
# "Check 'false' failed at src/...cpp:47:"); the user needs the text after them.
_LOCATION = re.compile(r"(Exception from|Check '[^']*' failed at) \S+:\d+:?")


def _summary(exc: BaseException) -> str:
    text = _LOCATION.sub(" ", str(exc))
    return " ".join(text.split()) or type(exc).__name__
