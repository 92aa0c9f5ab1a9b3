"""BitwiseLeftShift-15 and BitwiseRightShift-15: ``a << b`` and ``a >> b`` on integers (``torch.bitwise_*_shift``).

Two integer inputs of one element type, broadcast by ``auto_broadcast`` (numpy by default);
the output keeps the type (``validate_and_infer_elementwise_args``; "The element type of the
input tensor must be integer number.").

Values: C++'s shifts on x86, which the reference (``reference/bitwise_left_shift.hpp``) leaves
to the compiler: types narrower than 32 bits are promoted to ``int`` first and the result
truncated back; the shift count is taken modulo 32 (modulo 64 for 64-bit types), so on i32
``x << 32`` is ``x`` and ``x << -1`` is ``x << 31`` (measured on 2026.4's ``Node.evaluate``);
right shifts of signed values are arithmetic.  OpenVINO's ``evaluate`` exists for i32 only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InputError, ValidationError
from ..types import ElementType
from .common.autobroadcast import align_arrays, infer_broadcast
from .common.numeric import quiet
from .common.spec import OpSpec, TensorInfo
from .elementwise import BinaryAttrs, merge_types, parse_binary


def infer_shift(attrs: BinaryAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    a, b = inputs
    et = merge_types(a.element_type, b.element_type)
    if not (et.is_dynamic or et.is_integral_number):
        raise ValidationError("The element type of the input tensor must be integer number.")
    return [TensorInfo(et, infer_broadcast(a.shape, b.shape, attrs.auto_broadcast))]


def _shift(left: bool) -> Callable[[BinaryAttrs, Sequence[np.ndarray]], list[np.ndarray]]:
    def evaluate(attrs: BinaryAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, b = (np.asarray(x) for x in inputs)
        if a.dtype != b.dtype or a.dtype.kind not in "iu":
            raise InputError(f"shifts take two inputs of one integer type, got {a.dtype} and {b.dtype}")
        a, b = align_arrays([a, b], attrs.auto_broadcast)
        wide = a.dtype.itemsize == 8
        count = (b.astype(np.uint64) & np.uint64(63 if wide else 31)).astype(np.int64)
        with quiet():
            if wide:  # 64-bit arithmetic in the type itself
                shifted = (
                    np.left_shift(a, count.astype(a.dtype))
                    if left
                    else np.right_shift(a, count.astype(a.dtype))
                )
                return [np.asarray(shifted.astype(a.dtype))]  # (a 0-d shift gives NumPy's scalar)
            # promoted to a 32-bit int (u32: unsigned int), shifted, truncated back
            promoted = a.astype(np.uint64 if a.dtype == np.uint32 else np.int64)
            if left:
                result = np.left_shift(promoted, count.astype(promoted.dtype)) & np.int64(0xFFFFFFFF).astype(
                    promoted.dtype
                )
            else:
                result = np.right_shift(promoted, count.astype(promoted.dtype))
            out = result.astype(np.uint32).astype(a.dtype) if left else result.astype(a.dtype)
            return [np.asarray(out)]

    return evaluate


_I32 = frozenset({ElementType.i32})


def _spec(type_name: str, left: bool) -> OpSpec[BinaryAttrs]:
    return OpSpec(
        type=type_name,
        version=15,
        since=15,
        inputs=2,
        parse=parse_binary,
        infer=infer_shift,
        evaluate=_shift(left),
        evaluate_types=(_I32, _I32),  # OpenVINO evaluates i32 only
    )


SPECS = (
    _spec("BitwiseLeftShift", True),
    _spec("BitwiseRightShift", False),
)
