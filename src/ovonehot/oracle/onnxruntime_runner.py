"""onnxruntime as an oracle for ``.onnx`` models: the only ovonehot module that imports ``onnxruntime``.

:func:`run` opens the ONNX file itself (not OpenVINO's conversion of it) in an
onnxruntime ``InferenceSession`` on the CPU execution provider with one thread
(deterministic), feeds the inputs by ONNX input name and returns the outputs keyed
by ONNX output name (``ovonehot diff`` matches them to ovonehot's outputs, whose
tensor names OpenVINO's frontend takes from ONNX).

It answers for ONNX's semantics as onnxruntime implements them: where OpenVINO's
conversion, and so ovonehot, departs from onnxruntime (ir/exports/README.md: OneHot-9
with negative indices, non-integer float indices), the difference is real and is
reported, not hidden.  Every failure is an :class:`~ovonehot.errors.OracleRefusal`:
``unavailable`` (onnxruntime not installed, not an ONNX model), ``no-kernel``
(onnxruntime has no kernel for an op and its types), ``refused`` (the session cannot
be made otherwise: an opset it does not support), ``failed``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import OracleRefusal
from .common import OracleOutputs


def _onnxruntime() -> Any:
    try:
        import onnxruntime  # type: ignore[import-untyped]  # onnxruntime ships no py.typed
    except ImportError as exc:
        raise OracleRefusal(
            f"onnxruntime is not installed ({exc}); pip install onnxruntime", "unavailable"
        ) from None
    return onnxruntime


def version() -> str:
    try:
        return str(_onnxruntime().__version__)
    except OracleRefusal:
        return ""


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:500]


def run(path: str | os.PathLike[str], inputs: Mapping[str, np.ndarray]) -> OracleOutputs:
    """Run ``path`` (an .onnx file) with onnxruntime on ``inputs``; outputs keyed by ONNX output name."""
    path = Path(path)
    if path.suffix.lower() != ".onnx":
        raise OracleRefusal(
            f"onnxruntime runs ONNX models only; {path.name} is not an .onnx file "
            "(give the .onnx model, or use the reference or cpu oracle)",
            "unavailable",
        )
    ort = _onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: warnings would go to stderr
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception classes
        # onnxruntime's NotImplemented (status NOT_IMPLEMENTED): it has no kernel for an op/type pair.
        cause = "no-kernel" if type(exc).__name__ == "NotImplemented" else "refused"
        raise OracleRefusal(f"onnxruntime refuses the model: {_first_line(exc)}", cause) from None
    feeds = {}
    for inp in session.get_inputs():
        if inp.name not in inputs:
            raise OracleRefusal(
                f"onnxruntime: no value for the ONNX input {inp.name!r} (given: "
                f"{', '.join(map(repr, inputs)) or 'none'})",
                "refused",
            )
        feeds[inp.name] = np.asarray(inputs[inp.name])
    names = [o.name for o in session.get_outputs()]
    try:
        values = session.run(names, feeds)
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception classes
        raise OracleRefusal(f"onnxruntime failed to run the model: {_first_line(exc)}", "failed") from None
    return OracleOutputs({n: np.asarray(v) for n, v in zip(names, values, strict=True)})
