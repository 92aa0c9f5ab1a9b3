"""GRN-0: global response normalization across channels, ``x / sqrt(sum_c x**2 + bias)``.

Data ``[N, C, ...]`` of rank 2, 3 or 4 (``grn.cpp``: "Input tensor rank must be 2, 3 or 4
dimensional"; any element type passes inference); attribute ``bias`` (f32).  The output has
the data's type and shape.

Values as the CPU plugin computes them (``nodes/grn.cpp``; the core op has no ``evaluate``,
and its reference, ``normalize_l2`` with ``add`` over axis 1, rounds the sum to the data type
first): per position, the squares of the channel values summed in double in channel order,
plus ``bias``, square-rooted in double, rounded to f32, and each value divided by that in f32.
f16/bf16 data go through f32 and are rounded once; f64 data are divided in f64.  Integer
data are refused at run time (the CPU plugin converts them to f32; OpenVINO has no integer
kernel).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from .common.attrs import float_attr
from .common.numeric import narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class GRNAttrs:
    bias: float


def parse_grn(node: Node) -> GRNAttrs:
    return GRNAttrs(float(np.float32(float_attr(node, "bias"))))  # an f32 attribute in OpenVINO


def infer_grn(attrs: GRNAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (data,) = inputs
    if data.shape.rank_is_static and data.shape.rank not in (2, 3, 4):
        raise ValidationError(
            f"Input tensor rank must be 2, 3 or 4 dimensional (actual input shape: {data.shape})."
        )
    return [TensorInfo(data.element_type, data.shape)]


def evaluate_grn(attrs: GRNAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    wide = widen(x)
    if wide.dtype.kind != "f" or x.ndim not in (2, 3, 4):
        raise InputError(f"GRN takes real data of rank 2, 3 or 4, got {x.dtype}{list(x.shape)}")
    work = wide if wide.dtype == np.float64 else wide.astype(np.float32)
    with quiet():
        squares = np.square(work.astype(np.float64))
        zero = np.zeros((squares.shape[0], 1, *squares.shape[2:]))
        total = np.add.accumulate(np.concatenate([zero, squares], axis=1), axis=1)[:, -1:]
        norm = np.sqrt(total + attrs.bias).astype(work.dtype)
        out = work / norm
    return [narrow(out, x.dtype)]


SPECS = (
    OpSpec(
        type="GRN",
        version=0,
        since=1,
        inputs=1,
        parse=parse_grn,
        infer=infer_grn,
        evaluate=evaluate_grn,
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
