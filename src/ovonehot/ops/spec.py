"""What an op is to ovonehot: typed attributes, a shape/type rule, and a NumPy kernel.

``OpSpec.infer`` and ``OpSpec.evaluate`` raise :class:`ValidationError` /
:class:`InputError` with a bare message ("depth input must be scalar, got shape
[1]"); the interpreters add the layer context once, at their boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph import Node
from ..types import ElementType, PartialShape


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """What shape inference knows about one tensor.

    ``value`` is the tensor's value when it is known before running (a Constant, or
    anything folded from constants); ``lower``/``upper`` are element-wise bounds of an
    integer tensor whose value is not known exactly (OpenVINO's bound propagation),
    ``None`` when unknown.  ``error`` says why computing the value throws in OpenVINO (a
    StridedSlice shrinking an axis out of range): OpenVINO computes values lazily, so
    only a layer that reads this value (a Reshape pattern, a OneHot depth) is refused.
    """

    element_type: ElementType
    shape: PartialShape
    value: np.ndarray | None = field(default=None, compare=False)
    lower: np.ndarray | None = field(default=None, compare=False)
    upper: np.ndarray | None = field(default=None, compare=False)
    error: str | None = field(default=None, compare=False)


InferFn = Callable[[Any, Sequence[TensorInfo]], Sequence[TensorInfo]]
EvaluateFn = Callable[[Any, Sequence[np.ndarray]], Sequence[np.ndarray]]
ParseFn = Callable[[Node], Any]


@dataclass(frozen=True, slots=True)
class OpSpec:
    """One version of one op.

    * ``type``: OpenVINO's type name (``OneHot``); matched case-insensitively.
    * ``since``: the first opset holding this version; a layer ``version="opsetN"``
      selects the newest spec with ``since <= N``.
    * ``inputs``: the number of inputs, or a (min, max) range.
    * ``parse``: raw ``<data>`` strings -> typed attributes (a frozen dataclass).
    * ``infer``: attributes + input infos -> output infos (element type, partial shape).
    * ``evaluate``: attributes + input arrays -> output arrays; ``None`` for ops the
      executor handles itself (Parameter).
    * ``foldable``: whether inference may evaluate the op on known values (constant
      folding).  Off for ops whose values are not knowable (Parameter).
    """

    type: str
    version: int
    since: int
    inputs: int | tuple[int, int]
    parse: ParseFn
    infer: InferFn
    evaluate: EvaluateFn | None
    foldable: bool = True

    @property
    def name(self) -> str:
        return f"{self.type}-{self.version}"

    def accepts_input_count(self, n: int) -> bool:
        if isinstance(self.inputs, int):
            return n == self.inputs
        lo, hi = self.inputs
        return lo <= n <= hi
