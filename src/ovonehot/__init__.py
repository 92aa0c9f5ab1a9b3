"""ovonehot: read, check, run and cross-check OpenVINO IR graphs built around OneHot.

>>> import ovonehot
>>> sorted(n for n in ovonehot.__all__)[:3]
['Dimension', 'ElementType', 'Error']
"""

from __future__ import annotations

from . import _console

_console.guard_startup()  # first: a Ctrl-C while the command loads is one line, exit 130

from . import conventions
from .errors import (
    Error,
    InputError,
    IRError,
    OpenVINOError,
    UnsupportedError,
    UsageError,
    ValidationError,
)
from .model import Model, Request, TensorDesc, VariableDesc, load
from .types import Dimension, ElementType, PartialShape

__version__ = "0.1.0"

__all__ = [
    "Dimension",
    "ElementType",
    "Error",
    "IRError",
    "InputError",
    "Model",
    "OpenVINOError",
    "PartialShape",
    "Request",
    "TensorDesc",
    "UnsupportedError",
    "UsageError",
    "ValidationError",
    "VariableDesc",
    "conventions",
    "load",
]
