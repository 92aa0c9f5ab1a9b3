"""``ovonehot diff --all-layers``: every node's outputs against an oracle (filled in below)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .diff import LayerRow, _Context


def compare_layers(ctx: _Context, oracles: Sequence[str]) -> list[LayerRow]:
    return []


def render_layers(rows: Sequence[LayerRow]) -> list[str]:
    return []
