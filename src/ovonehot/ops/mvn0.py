"""MVN-0 (opset2 to opset5): mean-variance normalization over attribute-given axes.

One input; attributes ``across_channels``, ``normalize_variance``, ``eps`` (double) and
``reduction_axes``.  The axes are ``reduction_axes`` when given, else every axis from 1
(``across_channels``) or from 2 to the last (``op/mvn.cpp``: computed at inference, and written
to the IR by ``save_model``).  The output has the input's type and shape; OpenVINO checks
nothing more.

Values: MVN-6's (:func:`ovonehot.ops.normalization.mvn`, the reference's Kahan means in the
working type) over those axes with ``eps`` inside the square root, ``(x - mean) / sqrt(var +
eps)`` (the spec's MVN-1 formula, which the CPU plugin's ``INSIDE_SQRT`` mode for MVN-0
follows), eps rounded to the data type first.  Empty axes give 0 (``x - x``).  The core op
has no ``evaluate``: the tests check it against MVN-6's ``Node.evaluate`` over the same axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..graph import Node
from .common.attrs import bool_attr, float_attr, ints_attr
from .common.spec import OpSpec, TensorInfo
from .normalization import MVNAttrs, MVNEpsMode, mvn


@dataclass(frozen=True, slots=True)
class MVN0Attrs:
    across_channels: bool
    normalize_variance: bool
    eps: float
    reduction_axes: tuple[int, ...] = ()


def parse_mvn_0(node: Node) -> MVN0Attrs:
    return MVN0Attrs(
        bool_attr(node, "across_channels", False),
        bool_attr(node, "normalize_variance", False),
        float_attr(node, "eps"),
        ints_attr(node, "reduction_axes", ()),
    )


def infer_mvn_0(attrs: MVN0Attrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    return [TensorInfo(data.element_type, data.shape)]


def reduction_axes(attrs: MVN0Attrs, rank: int) -> list[int]:
    if attrs.reduction_axes:
        return list(attrs.reduction_axes)
    return list(range(1 if attrs.across_channels else 2, rank))


def evaluate_mvn_0(attrs: MVN0Attrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    axes = reduction_axes(attrs, x.ndim)
    if any(not 0 <= a < x.ndim for a in axes):
        raise InputError(f"reduction_axes {axes} out of range for data of rank {x.ndim}")
    if x.dtype.kind in "iub":
        raise InputError(f"MVN takes real data, got {x.dtype}")
    six = MVNAttrs(attrs.normalize_variance, attrs.eps, MVNEpsMode.INSIDE_SQRT)
    return mvn(six, [x, np.array(axes, np.int64)], exact=True)


SPECS = (
    OpSpec(
        type="MVN",
        version=0,
        since=2,
        inputs=1,
        parse=parse_mvn_0,
        infer=infer_mvn_0,
        evaluate=evaluate_mvn_0,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
