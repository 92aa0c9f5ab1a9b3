"""Identity-16: what OpenVINO's ONNX frontend leaves for an ONNX Identity whose output is a graph output.

One input of any element type and shape; the output is a copy of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .attrs import NoAttrs, parse_no_attrs
from .spec import OpSpec, TensorInfo


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
    ),
)
