"""DepthToSpace-1 and SpaceToDepth-1: moving ``block_size``-sized blocks between channels and space.

Data ``[N, C, D1, ..., DK]`` (rank >= 3); ``mode`` ``blocks_first`` or ``depth_first``;
``block_size`` (default 1).  DepthToSpace gives ``[N, C / bs**K, D1 * bs, ...]``,
SpaceToDepth ``[N, C * bs**K, D1 / bs, ...]`` (``space_to_depth``/``depth_to_space``
shape inference; the spec's reshape-transpose-reshape for the values).

Partial shapes follow OpenVINO's ``Dimension`` arithmetic, probed on 2026.4: a product keeps
an unbounded end unbounded; a quotient is ``[ceil(lo / d), floor(hi / d)]`` computed in
double, where an unbounded ``hi`` counts as int64's max (``3..`` / 4 is
``1..2305843009213693952``, 2**61; / 3 is ``1..3074457345618258432``) and a fully dynamic
dim stays ``?``; an empty quotient (``5 / 4``, ``5..7 / 4``) is the error
"Dimension value: [ 5, 7] must be a multiple of divisor: 4".
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import enum_attr, int_attr
from .common.shape_util import INT64_MAX
from .common.spec import OpSpec, TensorInfo


class SpaceDepthMode(enum.Enum):
    BLOCKS_FIRST = "blocks_first"
    DEPTH_FIRST = "depth_first"


@dataclass(frozen=True, slots=True)
class SpaceDepthAttrs:
    mode: SpaceDepthMode
    block_size: int = 1
    to_space: bool = True  # DepthToSpace; False: SpaceToDepth


def _parser(to_space: bool) -> Callable[[Node], SpaceDepthAttrs]:
    def parse(node: Node) -> SpaceDepthAttrs:
        return SpaceDepthAttrs(
            enum_attr(node, "mode", SpaceDepthMode), int_attr(node, "block_size", 1), to_space=to_space
        )

    return parse


def _times(d: Dimension, k: int) -> Dimension:
    return Dimension(d.min * k, None if d.max is None else d.max * k)


def _divided(d: Dimension, k: int) -> Dimension:
    if d.min == 0 and d.max is None:
        return Dimension()
    hi = INT64_MAX if d.max is None else d.max
    # OpenVINO divides the interval ends as doubles: ceil(lo / k), floor(hi / k).
    lo_q, hi_q = math.ceil(float(d.min) / k), math.floor(float(hi) / k)
    if lo_q > hi_q:
        raise ValidationError(f"Dimension value: [ {d.min}, {hi}] must be a multiple of divisor: {k}")
    return Dimension(lo_q, None if hi_q >= INT64_MAX else hi_q)


def infer_space_depth(attrs: SpaceDepthAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    shape = data.shape
    if shape.dims is None:
        return [TensorInfo(data.element_type, shape)]
    rank = len(shape.dims)
    if rank < 3:
        raise ValidationError(
            f"The input tensor with rank lower than 3 is not supported (input rank: {rank})"
        )
    bs = attrs.block_size
    if attrs.to_space:
        if bs == 0:
            raise ValidationError("DepthToSpace: The divisor must not be 0")
        channels = _divided(shape.dims[1], bs ** (rank - 2))
        spatial = [_times(d, bs) for d in shape.dims[2:]]
    else:
        if bs <= 0:
            raise ValidationError(f"The block size must be greater than 0 {bs}")
        channels = _times(shape.dims[1], bs ** (rank - 2))
        spatial = [_divided(d, bs) for d in shape.dims[2:]]
    return [TensorInfo(data.element_type, PartialShape((shape.dims[0], channels, *spatial)))]


def evaluate_space_depth(attrs: SpaceDepthAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if x.ndim < 3:
        raise InputError(f"the input needs rank 3 or more, got {list(x.shape)}")
    bs, k = attrs.block_size, x.ndim - 2
    if bs <= 0:
        raise InputError(f"block_size must be positive, got {bs}")
    n, c, spatial = x.shape[0], x.shape[1], list(x.shape[2:])
    blocks_first = attrs.mode is SpaceDepthMode.BLOCKS_FIRST
    if attrs.to_space:
        if c % bs**k:
            raise InputError(f"channels ({c}) are not a multiple of block_size**{k} ({bs**k})")
        depth = c // bs**k
        if blocks_first:  # [N, bs.., C', D..] -> [N, C', D1, bs, D2, bs, ...]
            y = x.reshape([n, *([bs] * k), depth, *spatial])
            order = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
        else:  # [N, C', bs.., D..] -> [N, C', D1, bs, D2, bs, ...]
            y = x.reshape([n, depth, *([bs] * k), *spatial])
            order = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]
        out_shape = [n, depth, *(d * bs for d in spatial)]
    else:
        if any(d % bs for d in spatial):
            raise InputError(f"spatial dims {spatial} are not multiples of block_size {bs}")
        # [N, C, D1/bs, bs, D2/bs, bs, ...]
        y = x.reshape([n, c, *(v for d in spatial for v in (d // bs, bs))])
        block_axes = [3 + 2 * i for i in range(k)]
        space_axes = [2 + 2 * i for i in range(k)]
        order = [0, *block_axes, 1, *space_axes] if blocks_first else [0, 1, *block_axes, *space_axes]
        out_shape = [n, c * bs**k, *(d // bs for d in spatial)]
    return [np.ascontiguousarray(np.transpose(y, order)).reshape(out_shape)]


SPECS = (
    OpSpec(
        type="DepthToSpace",
        version=0,
        since=1,
        inputs=1,
        parse=_parser(True),
        infer=infer_space_depth,
        evaluate=evaluate_space_depth,
    ),
    OpSpec(
        type="SpaceToDepth",
        version=0,
        since=1,
        inputs=1,
        parse=_parser(False),
        infer=infer_space_depth,
        evaluate=evaluate_space_depth,
    ),
)
