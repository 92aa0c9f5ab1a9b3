"""ovonehot: read, check, run and cross-check OpenVINO IR graphs built around OneHot.

>>> import ovonehot
>>> sorted(n for n in ovonehot.__all__)[:3]
['Dimension', 'ElementType', 'Error']
"""

from __future__ import annotations

import os
import sys

try:
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
except KeyboardInterrupt:
    # Ctrl-C while the ``ovonehot`` command (``python -m ovonehot`` or the console script) is
    # still loading: exit 130 in one line like everywhere else.  A program importing ovonehot
    # as a library gets its KeyboardInterrupt as usual.
    if sys.argv[:1] == ["-m"] or os.path.basename(sys.argv[0] if sys.argv else "") == "ovonehot":
        print("error: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    raise

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
