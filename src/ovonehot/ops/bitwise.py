"""Bitwise ops (opset13): BitwiseAnd, BitwiseOr, BitwiseXor (numpy/none broadcast) and BitwiseNot.

PyTorch's ``&``, ``|``, ``^`` and ``~`` reach IR as these ops, on boolean masks as
often as on integers (``~F.one_hot(t, C).bool()``).  OpenVINO's rules
(``BinaryElementwiseBitwise``, ``bitwise_not.cpp``): integral or boolean inputs of
one element type; the output keeps that type.  On booleans the ops are the
logical ones (``~True == False``, never the byte complement).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import ElementType
from .common.attrs import NoAttrs, parse_no_attrs
from .common.autobroadcast import align_arrays, infer_broadcast
from .common.binding import PLAIN_INTEGERS, mode_independent
from .common.spec import OpSpec, TensorInfo
from .elementwise import BinaryAttrs, binary_binder, merge_types, parse_binary


def _check_type(et: ElementType, what: str) -> None:
    if not (et.is_dynamic or et is ElementType.boolean or et.is_integral_number):
        raise ValidationError(f"The element type of the {what} must be integer or boolean. Got: {et}")


def infer_bitwise_binary(attrs: BinaryAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    a, b = inputs
    et = merge_types(a.element_type, b.element_type)
    _check_type(et, "input tensor")
    return [TensorInfo(et, infer_broadcast(a.shape, b.shape, attrs.auto_broadcast))]


def _binary(fn: np.ufunc) -> Callable[[BinaryAttrs, Sequence[np.ndarray]], list[np.ndarray]]:
    def evaluate(attrs: BinaryAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, b = (np.asarray(x) for x in inputs)
        if a.dtype != b.dtype:
            raise InputError(f"inputs differ in element type: {a.dtype} and {b.dtype}")
        a, b = align_arrays([a, b], attrs.auto_broadcast)
        return [np.asarray(fn(a, b)).astype(a.dtype, copy=False)]

    return evaluate


_BITWISE_TYPES = PLAIN_INTEGERS | {np.dtype(np.bool_)}


def infer_bitwise_not(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    _check_type(x.element_type, "input tensor")
    return [TensorInfo(x.element_type, x.shape)]


def evaluate_bitwise_not(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    x = np.asarray(x)
    # (np.asarray: on a 0-d input the ufuncs return NumPy scalars, not arrays.)
    return [np.asarray(np.logical_not(x) if x.dtype == np.bool_ else np.invert(x))]


SPECS = (
    OpSpec(
        type="BitwiseAnd",
        version=13,
        since=13,
        inputs=2,
        parse=parse_binary,
        infer=infer_bitwise_binary,
        evaluate=_binary(np.bitwise_and),
        specialize=mode_independent(binary_binder(np.bitwise_and, _BITWISE_TYPES)),
    ),
    OpSpec(
        type="BitwiseOr",
        version=13,
        since=13,
        inputs=2,
        parse=parse_binary,
        infer=infer_bitwise_binary,
        evaluate=_binary(np.bitwise_or),
        specialize=mode_independent(binary_binder(np.bitwise_or, _BITWISE_TYPES)),
    ),
    OpSpec(
        type="BitwiseXor",
        version=13,
        since=13,
        inputs=2,
        parse=parse_binary,
        infer=infer_bitwise_binary,
        evaluate=_binary(np.bitwise_xor),
        specialize=mode_independent(binary_binder(np.bitwise_xor, _BITWISE_TYPES)),
    ),
    OpSpec(
        type="BitwiseNot",
        version=13,
        since=13,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_bitwise_not,
        evaluate=evaluate_bitwise_not,
    ),
)
