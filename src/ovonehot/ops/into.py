"""Kernels that can write their output into a given array (``Model.run(share_outputs=True)``).

``INTO`` maps an op's ``OpSpec.evaluate`` function to a variant taking one more argument,
``out``: one array (or None) per output.  The variant writes an output into its array when
that array has the output's shape and dtype, and makes a fresh array otherwise; it returns
the outputs as ``evaluate`` does.  Registered by the op modules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

IntoFn = Callable[[Any, Sequence[np.ndarray], Sequence[np.ndarray | None]], Sequence[np.ndarray]]

INTO: dict[object, IntoFn] = {}
