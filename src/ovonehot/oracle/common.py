"""What every oracle of ``ovonehot diff`` shares, without importing any of them.

An oracle runs a model on inputs and answers :class:`OracleOutputs`: arrays keyed
by output name, plus, for each output it could *not* compute, a :class:`Refusal`
saying why (the op that refused, a stable cause).  The oracles are:

* ``reference``: OpenVINO's core reference, ``Node.evaluate`` node by node
  (:mod:`ovonehot.oracle.openvino_runtime`); it runs up to an op it has no kernel for, and
  only the outputs that depend on that op are missing;
* ``cpu``: an OpenVINO plugin (``--device``, CPU by default) compiled with a
  :class:`PluginSettings` configuration: deterministic by default (one thread, f32,
  accuracy), or OpenVINO's own defaults (``--cpu-defaults``), plus ``--config``;
* ``onnxruntime``: onnxruntime on an ``.onnx`` model (:mod:`ovonehot.oracle.onnxruntime_runner`);
* ``expected``: saved outputs (``--expected out.npz``).

This module imports neither openvino nor onnxruntime; :func:`import_openvino` is how the
other modules of this package do.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import OpenVINOError, OracleRefusal, UsageError


class OracleKind(str, enum.Enum):
    """The oracles ``ovonehot diff`` compares with; the value is the name the command line,
    reports and replay manifests use (a ``str`` so that names read from those compare equal)."""

    REFERENCE = "reference"
    CPU = "cpu"
    ONNXRUNTIME = "onnxruntime"
    EXPECTED = "expected"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


ORACLES = tuple(kind.value for kind in OracleKind)
ALIASES = {"both": (OracleKind.REFERENCE, OracleKind.CPU)}

# The CPU plugin compiled so that it is deterministic and computes in f32 (docs/openvino-behaviour.md).
CPU_CONFIG: dict[str, Any] = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}
PRESETS: dict[str, dict[str, Any]] = {"deterministic": CPU_CONFIG, "openvino-defaults": {}}

Intermediates = dict[tuple[str, int], np.ndarray]


@dataclass(frozen=True, slots=True)
class Complaint:
    """One thing OpenVINO's exception text said, as data: a stable ``kind`` and what it named
    (read from the text in one place: :mod:`ovonehot.oracle.openvino_messages`)."""

    kind: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an oracle did not compute an output (the fields of :class:`~ovonehot.errors.OracleRefusal`)."""

    message: str
    cause: str = "failed"
    layer: str = ""  # friendly name of the op that refused, when known
    op: str = ""  # its type-version, e.g. "LogSoftmax-opset5"
    code: str = ""  # a known deviation code (ovonehot.differential.deviations.KNOWN) when the refusal is one
    detail: str = ""
    complaints: tuple[Complaint, ...] = ()  # what OpenVINO's message said, as data

    @classmethod
    def of(cls, exc: OracleRefusal | Exception) -> Refusal:
        if isinstance(exc, OracleRefusal):
            return cls(str(exc), exc.cause, exc.layer, exc.op, exc.code, exc.detail, exc.complaints)
        return cls(str(exc))

    def error(self) -> OracleRefusal:
        return OracleRefusal(
            self.message, self.cause, self.layer, self.op, self.code, self.detail, self.complaints
        )

    def complains(self, kind: str) -> tuple[Complaint, ...]:
        """The complaints of ``kind`` OpenVINO made (empty when none)."""
        return tuple(c for c in self.complaints if c.kind == kind)


class OracleOutputs(dict[str, np.ndarray]):
    """An oracle's outputs keyed by output name, in Result order.

    ``intermediates`` holds, when asked for, every node output keyed by (layer name,
    output index); ``missing`` maps each output the oracle could not compute to why,
    and ``blocked`` each layer (by name) it did not compute to why.
    """

    def __init__(
        self,
        outputs: Mapping[str, np.ndarray],
        intermediates: Intermediates | None = None,
        missing: Mapping[str, Refusal] | None = None,
        blocked: Mapping[str, Refusal] | None = None,
    ) -> None:
        super().__init__(outputs)
        self.intermediates: Intermediates = dict(intermediates or {})
        self.missing: dict[str, Refusal] = dict(missing or {})
        self.blocked: dict[str, Refusal] = dict(blocked or {})


@dataclass(frozen=True, slots=True)
class PluginSettings:
    """How the plugin oracle is compiled: a device, a preset and (key, value) property overrides."""

    device: str = "CPU"
    preset: str = "deterministic"
    overrides: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise UsageError(f"unknown config preset {self.preset!r}; expected one of: {', '.join(PRESETS)}")

    @property
    def config(self) -> dict[str, Any]:
        return {**PRESETS[self.preset], **dict(self.overrides)}

    @property
    def deterministic(self) -> bool:
        """Compiled exactly as the deterministic CPU oracle (the one known deviations are measured on)."""
        return self.device.upper() == "CPU" and self.preset == "deterministic" and not self.overrides

    @property
    def label(self) -> str:
        """The oracle's name in reports and replay folders: ``cpu`` (``gpu``, ... for other devices)."""
        return self.device.lower().replace(":", "-").replace("/", "-") or "cpu"

    def describe(self) -> str:
        what = {
            "deterministic": "deterministic (1 thread, f32, accuracy)",
            "openvino-defaults": "with OpenVINO's defaults",
        }[self.preset]
        extra = ", ".join(f"{k}={v}" for k, v in self.overrides)
        return f"{self.device} plugin {what}" + (f", {extra}" if extra else "")

    def as_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "preset": self.preset,
            "config": {k: str(v) for k, v in self.config.items()},
        }


def parse_oracles(items: Sequence[str]) -> tuple[OracleKind, ...]:
    """``["reference,cpu", "onnxruntime"]`` -> the oracles, in order, without repeats."""
    out: list[OracleKind] = []
    for item in items:
        for name in (n.strip() for n in item.split(",")):
            if not name:
                continue
            for kind in ALIASES.get(name) or (oracle_kind(name, " (comma-separated or repeated)"),):
                if kind not in out:
                    out.append(kind)
    return tuple(out)


def oracle_kind(name: str, hint: str = "") -> OracleKind:
    """The oracle a name means; UsageError for a name that is none."""
    try:
        return OracleKind(name)
    except ValueError:
        raise UsageError(f"unknown oracle {name!r}; expected one of: {', '.join(ORACLES)}{hint}") from None


def import_openvino(needed_for: str = "") -> Any:
    """The ``openvino`` module, imported without its usage telemetry; OpenVINOError when missing.

    ``import openvino`` sends a usage event (``openvino.tools.ovc`` calls the telemetry on
    import) from a forked child process that makes a network request, unless a consent file
    declines it (docs/openvino-behaviour.md).  A reference tool makes no network requests,
    and that child also caught a Ctrl-C meant for ovonehot and printed a traceback: the
    telemetry module is blocked before the first import, so OpenVINO uses its own no-op stub.
    """
    if "openvino" not in sys.modules:
        sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]
    try:
        import openvino  # type: ignore[import-untyped]  # openvino's Python API ships no py.typed
    except Exception as exc:  # noqa: BLE001 - a broken install raises anything (ImportError, OSError of a missing .so, RuntimeError)
        raise OpenVINOError(
            f"{needed_for}openvino cannot be imported ({type(exc).__name__}: {exc}); "
            "install it with: pip install 'openvino>=2026.4,<2026.5'"
        ) from None
    return openvino
