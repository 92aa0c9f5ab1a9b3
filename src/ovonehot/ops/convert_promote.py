"""ConvertPromoteTypes-14: convert two inputs to their common element type (PyTorch/NumPy promotion).

Attributes: ``promote_unsafe`` (false), ``pytorch_scalar_promotion`` (false) and
``u64_integer_promotion_target`` (f32).  Output ``k`` is input ``k`` converted to the common
type, with its own partial shape.  The rules (``src/core/src/op/convert_promote_types.cpp``):

* types outside boolean, f16, bf16, f32, f64, f8e4m3, f8e5m2, i4..i64, u1, u4, u8..u64 are
  refused; a dynamic input gives dynamic outputs; equal types stay; boolean takes the other;
* a float and an integer: the float, if (safe mode) its width is at least twice the integer's;
* same kind (both float or both integer), ``pytorch_scalar_promotion`` and exactly one input a
  static scalar: the other input's type; safe mode asks the scalar's values to fit it (same
  signedness and no wider, or a signed target at least half the unsigned scalar's width);
* signed and unsigned integers: the signed integer of twice the unsigned width (or the signed
  one's, if wider) when the unsigned type has at most 32 bits and (safe mode) twice its width
  fits the signed one; otherwise (u64, or unsafe) ``u64_integer_promotion_target``;
* same kind and signedness: the wider; equal widths only in unsafe mode: f8e4m3 with f8e5m2
  gives f16, f16 with bf16 gives f32; anything else is refused.

Values are Convert-0's (``convert.py``): OpenVINO's core has no ``evaluate`` for this op; its
CPU plugin replaces it by two Converts (``ConvertConvertPromoteTypes``).  The kernel reads the
common type from the arrays (0-d arrays are the scalars); u1 is held in uint8 there, so a u1
input promotes as u8 in ``evaluate``, and a 0-d input declared of dynamic rank counts as a
scalar there in PyTorch mode where inference does not; the planned kernel (``specialize``)
converts to the inferred types, as the IR says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, IRError, ValidationError
from ..graph import Node
from ..types import ElementType, PartialShape
from .common.attrs import bool_attr, element_type_attr
from .common.binding import mode_independent
from .common.spec import Kernel, OpSpec, TensorInfo
from .convert import convert_array

E = ElementType
SUPPORTED = frozenset(
    {
        E.dynamic,
        E.boolean,
        E.f16,
        E.f32,
        E.f64,
        E.i4,
        E.i8,
        E.i16,
        E.i32,
        E.i64,
        E.u1,
        E.u4,
        E.u8,
        E.u16,
        E.u32,
        E.u64,
        E.f8e4m3,
        E.f8e5m2,
        E.bf16,
    }
)
_SIGNED_BY_WIDTH = {4: E.i4, 8: E.i8, 16: E.i16, 32: E.i32, 64: E.i64}


@dataclass(frozen=True, slots=True)
class PromoteAttrs:
    promote_unsafe: bool = False
    pytorch_scalar_promotion: bool = False
    u64_integer_promotion_target: ElementType = E.f32


def parse_promote(node: Node) -> PromoteAttrs:
    return PromoteAttrs(
        bool_attr(node, "promote_unsafe", False),
        bool_attr(node, "pytorch_scalar_promotion", False),
        element_type_attr(node, "u64_integer_promotion_target", E.f32),
    )


def _is_scalar(shape: PartialShape) -> bool:
    return shape.rank_is_static and shape.rank == 0


def common_type(
    attrs: PromoteAttrs, a: ElementType, b: ElementType, a_scalar: bool, b_scalar: bool
) -> ElementType:
    """The type both inputs convert to (see the module docstring); ValidationError where refused."""
    for et in (a, b):
        if et not in SUPPORTED:
            raise ValidationError(
                f"ConvertPromoteTypes does not support element type {et} "
                f"(expected one of {', '.join(sorted(t.value for t in SUPPORTED))})"
            )
    if a.is_dynamic or b.is_dynamic:
        return E.dynamic
    if a is b or b is E.boolean:
        return a
    if a is E.boolean:
        return b
    if a.is_real != b.is_real:
        return _float_and_integer(attrs, a, b)
    if attrs.pytorch_scalar_promotion and a_scalar != b_scalar:
        return _to_tensor_type(attrs, (b, a) if a_scalar else (a, b))
    if a.is_signed != b.is_signed:
        return _signed_and_unsigned(attrs, a, b)
    if a.bitwidth != b.bitwidth:
        return a if a.bitwidth > b.bitwidth else b
    if attrs.promote_unsafe and {a, b} == {E.f8e4m3, E.f8e5m2}:
        return E.f16
    if attrs.promote_unsafe and {a, b} == {E.f16, E.bf16}:
        return E.f32
    raise ValidationError(
        f"Unsupported input element types for ConvertPromoteTypes with given attributes ({a} and {b}, "
        f"promote_unsafe={str(attrs.promote_unsafe).lower()})."
    )


def _float_and_integer(attrs: PromoteAttrs, a: ElementType, b: ElementType) -> ElementType:
    real, integer = (a, b) if a.is_real else (b, a)
    if not attrs.promote_unsafe and real.bitwidth < 2 * integer.bitwidth:
        raise ValidationError(
            f"Integer input cannot be safely promoted to floating-point ({integer} to {real}: the float "
            "must be at least twice as wide; promote_unsafe=true allows it)."
        )
    return real


def _to_tensor_type(attrs: PromoteAttrs, pair: tuple[ElementType, ElementType]) -> ElementType:
    """PyTorch's rule: the non-scalar input's type (``pair``: the tensor's, the scalar's)."""
    target, scalar = pair
    if attrs.promote_unsafe or _holds(target, scalar):
        return target
    raise ValidationError(
        f"Scalar input cannot be PyTorch-like promoted using safe promotion rules ({scalar} scalar, "
        f"{target} tensor)."
    )


def _signed_and_unsigned(attrs: PromoteAttrs, a: ElementType, b: ElementType) -> ElementType:
    unsigned, signed = (b, a) if a.is_signed else (a, b)
    if unsigned.bitwidth <= 32 and (attrs.promote_unsafe or 2 * unsigned.bitwidth <= signed.bitwidth):
        return _SIGNED_BY_WIDTH[max(2 * unsigned.bitwidth, signed.bitwidth)]
    if not attrs.promote_unsafe:
        raise ValidationError(
            f"Unsigned integer input cannot be safely promoted into any supported signed integer "
            f"({unsigned} with {signed})."
        )
    return attrs.u64_integer_promotion_target


def _holds(target: ElementType, scalar: ElementType) -> bool:
    if target.is_signed == scalar.is_signed:
        return target.bitwidth >= scalar.bitwidth
    return target.is_signed and not scalar.is_signed and 2 * target.bitwidth >= scalar.bitwidth


def infer_promote(attrs: PromoteAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    a, b = inputs
    et = common_type(
        attrs,
        a.element_type,
        b.element_type,
        a.shape.is_static and _is_scalar(a.shape),
        b.shape.is_static and _is_scalar(b.shape),
    )
    return [TensorInfo(et, a.shape), TensorInfo(et, b.shape)]


def _type_of(x: np.ndarray) -> ElementType:
    try:
        return ElementType.from_numpy(x.dtype)
    except IRError as exc:
        raise InputError(f"ConvertPromoteTypes: {exc}") from None


def evaluate_promote(attrs: PromoteAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    a, b = (np.asarray(x) for x in inputs)
    try:
        et = common_type(attrs, _type_of(a), _type_of(b), a.ndim == 0, b.ndim == 0)
    except ValidationError as exc:
        raise InputError(str(exc)) from None
    return [convert_array(a, et), convert_array(b, et)]


def bind_promote(
    attrs: PromoteAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Each input converted to its inferred output type (u1 inputs included)."""
    et = outputs[0].element_type
    if et.is_dynamic:
        return None

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [convert_array(values[0], et), convert_array(values[1], et)]

    return kernel


SPECS = (
    OpSpec(
        type="ConvertPromoteTypes",
        version=14,
        since=14,
        inputs=2,
        parse=parse_promote,
        infer=infer_promote,
        evaluate=evaluate_promote,
        specialize=mode_independent(bind_promote),
        foldable=False,  # (OpenVINO's op has no evaluate: nothing folds through it)
        copies_values=True,
    ),
)
