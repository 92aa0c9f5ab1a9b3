"""Identity-16: what OpenVINO's ONNX frontend leaves for an ONNX Identity whose output is a graph output.

One input of any element type and shape; the output is a copy of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .common.attrs import NoAttrs, parse_no_attrs
from .common.spec import OpSpec, TensorInfo


def infer_identity(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    return [TensorInfo(x.element_type, x.shape, value=x.value, lower=x.lower, upper=x.upper)]


def evaluate_identity(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.array(inputs[0], copy=True)]


SPECS = (
    OpSpec(
        type="Identity",
        version=16,
        since=16,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_identity,
        evaluate=evaluate_identity,
        # OpenVINO's Identity-16 has no evaluate at all (Node.evaluate returns false for every
        # type), so read_model passes no value or bound through it: an ONNX function expansion's
        # Identity(Slice(ShapeOf(x))) as a Slice stop gives [2,3,..4] there, not [2,3,4].  (The
        # CPU plugin's compile passes remove the Identity; the reported shapes are read_model's.)
        evaluate_types=(frozenset(),),
    ),
)
