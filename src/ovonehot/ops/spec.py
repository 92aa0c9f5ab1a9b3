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


class Variables:
    """The variables of a stateful model (ReadValue/Assign, by ``variable_id``).

    ``values`` holds what each variable holds now; a variable that is absent is in its
    initial (reset) state, where ReadValue gives its init input (or zeros).  Assign writes
    go to ``pending`` and become the values only when the run ends (``commit``), so every
    ReadValue of one run sees the state the run started with.
    """

    def __init__(self) -> None:
        self.values: dict[str, np.ndarray] = {}
        self.pending: dict[str, np.ndarray] = {}

    def commit(self) -> None:
        self.values.update(self.pending)
        self.pending.clear()


InferFn = Callable[[Any, Sequence[TensorInfo]], Sequence[TensorInfo]]
StatefulFn = Callable[[Any, Sequence[np.ndarray], Variables], Sequence[np.ndarray]]
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
    * ``evaluate_stateful``: the kernel of an op that reads or writes the model's
      :class:`Variables` (ReadValue, Assign); the executor calls it instead of ``evaluate``.
    """

    type: str
    version: int
    since: int
    inputs: int | tuple[int, int]
    parse: ParseFn
    infer: InferFn
    evaluate: EvaluateFn | None
    foldable: bool = True
    evaluate_stateful: StatefulFn | None = None

    @property
    def name(self) -> str:
        return f"{self.type}-{self.version}"

    def accepts_input_count(self, n: int) -> bool:
        if isinstance(self.inputs, int):
            return n == self.inputs
        lo, hi = self.inputs
        return lo <= n <= hi
