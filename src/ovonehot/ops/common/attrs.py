"""Parsing ``<data>`` attribute strings the way OpenVINO's IR reader does.

Every parser takes the node (for the error message), the attribute name and,
where optional, its default; a missing required attribute or a malformed value
raises :class:`IRError` naming the layer and the attribute.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import TypeVar

from ...errors import IRError, quote
from ...graph import Node
from ...types import ElementType

_REQUIRED = object()
E = TypeVar("E", bound=enum.Enum)


def _raw(node: Node, name: str, default: object) -> str | None:
    value = node.attr(name)
    if value is None:
        if default is _REQUIRED:
            raise IRError(f"{node.describe()}: missing required attribute {name!r}")
        return None
    return value


# An integer as OpenVINO's attribute reader takes one: ASCII digits and a minus sign, white
# space around.  Python's int() also takes "+2", "2_0" (twenty) and "٢"; OpenVINO refuses
# "+2" and "٢" and reads "2_0" as 2, so all three are refused here.
_INT = re.compile(r"\s*-?[0-9]+\s*", re.ASCII)


def _int(text: str) -> int:
    if len(text) > 64 or not _INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def int_attr(node: Node, name: str, default: object = _REQUIRED) -> int:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    try:
        return _int(text)
    except ValueError:
        raise IRError(f"{node.describe()}: attribute {name}={quote(text)} is not an integer") from None


def ints_attr(node: Node, name: str, default: object = _REQUIRED) -> tuple[int, ...]:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    text = text.strip()
    if not text:
        return ()
    try:
        return tuple(_int(p) for p in text.split(","))
    except ValueError:
        raise IRError(
            f"{node.describe()}: attribute {name}={quote(text)} is not a list of integers"
        ) from None


def float_attr(node: Node, name: str, default: object = _REQUIRED) -> float:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    try:
        return float(text.strip())
    except ValueError:
        raise IRError(f"{node.describe()}: attribute {name}={quote(text)} is not a number") from None


def bool_attr(node: Node, name: str, default: object = _REQUIRED) -> bool:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    key = text.strip().lower()
    if key in ("true", "1"):
        return True
    if key in ("false", "0"):
        return False
    raise IRError(f"{node.describe()}: attribute {name}={quote(text)} is not a boolean (true/false)")


def str_attr(node: Node, name: str, default: object = _REQUIRED) -> str:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    return text


def enum_attr(node: Node, name: str, enum_type: type[E], default: object = _REQUIRED) -> E:
    """An enum attribute, matched case-insensitively and untrimmed, as OpenVINO's EnumNames does."""
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    for member in enum_type:
        if str(member.value).lower() == text.lower():
            return member
    allowed = ", ".join(str(m.value) for m in enum_type)
    raise IRError(f"{node.describe()}: attribute {name}={quote(text)} is not one of: {allowed}")


def element_type_attr(node: Node, name: str, default: object = _REQUIRED) -> ElementType:
    text = _raw(node, name, default)
    if text is None:
        return default  # type: ignore[return-value]
    try:
        return ElementType.from_name(text)
    except IRError as exc:
        raise IRError(f"{node.describe()}: attribute {name}: {exc}") from None


@dataclass(frozen=True, slots=True)
class NoAttrs:
    """The attributes of an op that has none (Relu, Transpose, ShapeOf-less ops)."""


def parse_no_attrs(node: Node) -> NoAttrs:
    return NoAttrs()
