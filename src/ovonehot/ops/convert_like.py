"""ConvertLike-1: Convert to the element type of a second input (``src/core/src/op/convert_like.cpp``).

The output has ``like``'s element type (dynamic when it is dynamic) and ``data``'s
partial shape; ``like``'s shape and values are never read.  Running, the target is
the element type of ``like``'s array: a ``like`` of u1, u3 or u6 is held unpacked
in bytes, so the kernel converts to u8 there (a known gap; no converter emits it).  OpenVINO gives the op no
``evaluate`` and no bounds: its ``constant_fold`` builds a Convert, so values are
Convert's (``convert.py``), but shape inference never sees them (a Reshape pattern
through ConvertLike stays unknown), hence ``foldable=False``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InputError, IRError
from ..types import ElementType
from .common.attrs import NoAttrs, parse_no_attrs
from .common.spec import OpSpec, TensorInfo
from .convert import convert_array


def infer_convert_like(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, like = inputs
    return [TensorInfo(like.element_type, data.shape)]


def evaluate_convert_like(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, like = (np.asarray(a) for a in inputs)
    try:
        target = ElementType.from_numpy(like.dtype)
    except IRError as exc:  # an array type with no element type
        raise InputError(f"ConvertLike cannot convert to {like.dtype}: {exc}") from None
    return [convert_array(data, target)]


SPECS = (
    OpSpec(
        type="ConvertLike",
        version=1,
        since=1,
        inputs=2,
        parse=parse_no_attrs,
        infer=infer_convert_like,
        evaluate=evaluate_convert_like,
        foldable=False,
    ),
)
