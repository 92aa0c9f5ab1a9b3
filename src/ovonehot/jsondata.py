"""Reports as JSON-able data: what ``--json`` prints and what a corpus keeps per model.

The JSON is strict: NaN and infinities become the strings ``"nan"``, ``"inf"``, ``"-inf"``;
NumPy scalars and arrays become Python numbers and nested lists.  Every command's document
carries ``schema_version`` (:data:`SCHEMA_VERSION`); the JSON Schema files of that version ship
in ``ovonehot/schemas/`` (docs/json.md).  Shapes are lists: a static dim is an integer, a fully
dynamic one ``null``, a bounded one ``{"min": a, "max": b}`` (``max`` null when unbounded);
a shape of dynamic rank is ``null``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .types import PartialShape

# The version of the documents' layout: raised when a field is renamed, removed or changes type
# (adding a field keeps it).  docs/json.md and src/ovonehot/schemas/ follow it.
SCHEMA_VERSION = 2

JsonDim = int | None | dict[str, int | None]


def shape_json(shape: PartialShape | None) -> list[JsonDim] | None:
    """A partial shape as JSON: a list of dims (int, ``null`` when fully dynamic, ``{"min",
    "max"}`` when bounded); ``None`` for a dynamic rank."""
    if shape is None or shape.dims is None:
        return None
    out: list[JsonDim] = []
    for d in shape.dims:
        if d.is_static:
            out.append(d.min)
        elif d.min == 0 and d.max is None:
            out.append(None)
        else:
            out.append({"min": d.min, "max": d.max})
    return out


def dims_json(dims: tuple[int, ...]) -> list[int | None]:
    """A port's ``<dim>`` list as JSON (``-1`` is ``null``)."""
    return [None if d == -1 else d for d in dims]


def plain(value: Any) -> Any:
    """``value`` as JSON-able data: NumPy scalars and arrays as numbers and lists, non-finite
    floats as strings, anything else unknown as its ``str``."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _non_finite(value)
    if isinstance(value, np.ndarray):
        return plain(array_values(value))
    if isinstance(value, np.generic):
        return plain(array_values(np.asarray(value)))
    return str(value)


def _non_finite(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def array_values(value: np.ndarray) -> Any:
    """An array's values as nested lists of Python numbers (bf16/f16/f8 as floats)."""
    arr = np.asarray(value)
    if arr.dtype.kind == "V" or arr.dtype.kind == "f" or (arr.dtype.kind not in "biuOSUc"):
        try:
            with np.errstate(invalid="ignore"):  # NaN in a narrow float type
                arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            return str(arr.tolist())
    if arr.dtype.kind == "c":
        return plain({"real": arr.real.tolist(), "imag": arr.imag.tolist()})
    if arr.dtype.kind in "SU":
        return arr.astype(str).tolist()
    return arr.tolist()
