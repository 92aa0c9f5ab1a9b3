"""Problems: what a tolerant reader or the record policy of inference found, instead of raising.

A :class:`Problem` is the recorded form of an error (or a warning): a stable ``code``,
its severity, the layer (by name, and as a :class:`~ovonehot.graph.LayerRef`) and port it
concerns, and a one-line message that names the layer as an exception's would.  The tolerant reader (:func:`ovonehot.ir.reader.read_tolerant`),
:func:`ovonehot.infer.infer` with ``policy=Record(...)`` and ``validate`` make them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .graph import LayerRef, Node


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: a stable ``code``, the layer (by name; ``ref``: id, name, type, version) and
    port it concerns, and why."""

    code: str
    severity: Severity
    layer: str
    port: int | None
    message: str
    ref: LayerRef | None = None

    def to_json(self) -> dict[str, object]:
        """``layer`` is the layer object ``{"id", "name", "type", "version"}``; ``description``
        names it as the message does."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "layer": None if self.ref is None else self.ref.as_json(),
            "description": self.ref.describe() if self.ref is not None else f"layer name={self.layer!r}",
            "port": self.port,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.severity.value} {self.code}: {self.message}"


def problem(code: str, severity: Severity, node: Node, port: int | None, message: str) -> Problem:
    """A problem about ``node`` (and ``port``), its message prefixed with ``node.describe()``."""
    where = node.describe() + (f" port {port}" if port is not None else "")
    return Problem(code, severity, node.name, port, f"{where}: {message}", node.ref)


def has_error(problems: list[Problem]) -> bool:
    return any(p.severity is Severity.ERROR for p in problems)
