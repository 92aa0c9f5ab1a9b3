"""ShuffleChannels-0: ShuffleNet's channel shuffle (``reshape [.., group, C/group, ..] -> swap -> reshape``).

Attributes ``axis`` (default 1, negative counts from the end) and ``group`` (default 1).  The
output has the data's type and shape (``shuffle_channels_shape_inference.hpp``: ``group >= 1``;
rank >= 1; a static channel dim must be a multiple of ``group``); values are a permutation of
the input's, so exact for every type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import int_attr
from .common.shape_util import normalize_axis
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class ShuffleChannelsAttrs:
    axis: int = 1
    group: int = 1


def parse_shuffle_channels(node: Node) -> ShuffleChannelsAttrs:
    return ShuffleChannelsAttrs(int_attr(node, "axis", 1), int_attr(node, "group", 1))


def infer_shuffle_channels(attrs: ShuffleChannelsAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    if attrs.group < 1:
        raise ValidationError("The 'group' parameter must be greater or equal to 1.")
    shape = data.shape
    if not shape.rank_is_static:
        return [TensorInfo(data.element_type, shape)]
    if shape.rank < 1:
        raise ValidationError("The input tensor's shape is expected to be at least 1D.")
    axis = normalize_axis(attrs.axis, shape.rank)
    channels = shape[axis]
    if channels.is_static and channels.min % attrs.group:
        raise ValidationError(
            "The channel dimension size has to be a multiple of the groups parameter value."
        )
    dims = list(shape)
    dims[axis] = Dimension(channels.min, channels.max)
    return [TensorInfo(data.element_type, PartialShape(tuple(dims)))]


def evaluate_shuffle_channels(attrs: ShuffleChannelsAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if x.ndim < 1 or attrs.group < 1:
        raise InputError(f"ShuffleChannels needs data of rank >= 1 and group >= 1, got {list(x.shape)}")
    try:
        axis = normalize_axis(attrs.axis, x.ndim)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    channels = x.shape[axis]
    if channels % attrs.group:
        raise InputError(f"channels ({channels}) are not a multiple of group ({attrs.group})")
    pre, post = x.shape[:axis], x.shape[axis + 1 :]
    y = x.reshape((*pre, attrs.group, channels // attrs.group, *post))
    y = np.swapaxes(y, axis, axis + 1)
    return [np.ascontiguousarray(y).reshape(x.shape)]


SPECS = (
    OpSpec(
        type="ShuffleChannels",
        version=0,
        since=1,
        inputs=1,
        parse=parse_shuffle_channels,
        infer=infer_shuffle_channels,
        evaluate=evaluate_shuffle_channels,
        copies_values=True,
    ),
)
