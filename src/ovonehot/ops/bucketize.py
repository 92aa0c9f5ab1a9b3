"""Bucketize-3: ``torch.bucketize`` before ``F.one_hot`` (binning a continuous feature).

Inputs: data (numbers) and buckets (a 1-D ascending list of boundaries, numbers);
attributes ``output_type`` (i32 or i64, default i64) and ``with_right_bound`` (default
true).  Each element's bucket is the number of boundaries below it (right bound:
``b < x``, so ``x == b`` stays in the lower bucket) or at or below it (``b <= x``).
The output has the data's shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ValidationError
from ..graph import Node
from ..types import ElementType, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr
from .common.numeric import widen
from .common.spec import OpSpec, TensorInfo


@dataclass(frozen=True, slots=True)
class BucketizeAttrs:
    output_type: ElementType = ElementType.i64
    with_right_bound: bool = True


def parse_bucketize(node: Node) -> BucketizeAttrs:
    return BucketizeAttrs(
        element_type_attr(node, "output_type", ElementType.i64), bool_attr(node, "with_right_bound", True)
    )


def _numeric(et: ElementType) -> bool:
    return et.is_dynamic or et.is_real or (et.is_integral_number and et is not ElementType.boolean)


def infer_bucketize(attrs: BucketizeAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, buckets = inputs
    if not (_numeric(data.element_type) and _numeric(buckets.element_type)):
        raise ValidationError("Data and buckets inputs must have numeric element type.")
    if attrs.output_type not in (ElementType.i32, ElementType.i64):
        raise ValidationError(f"Output type must be i32 or i64. Got: {attrs.output_type}")
    if buckets.shape.rank_is_static and buckets.shape.rank != 1:
        raise ValidationError(f"Buckets input must be a 1D tensor. Got: {buckets.shape}")
    return [TensorInfo(attrs.output_type, data.shape)]


def evaluate_bucketize(attrs: BucketizeAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, buckets = (widen(np.asarray(a)) for a in inputs)
    flat = buckets.reshape(-1)
    if attrs.with_right_bound:
        out = np.searchsorted(flat, data.reshape(-1), side="left")
    else:
        out = np.searchsorted(flat, data.reshape(-1), side="right")
    out = out.reshape(data.shape)
    dtype = numpy_dtype_of(attrs.output_type)
    return [out.astype(dtype)]


SPECS = (
    OpSpec(
        type="Bucketize",
        version=3,
        since=3,
        inputs=2,
        parse=parse_bucketize,
        infer=infer_bucketize,
        evaluate=evaluate_bucketize,
    ),
)
