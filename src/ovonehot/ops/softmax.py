"""Softmax-1, Softmax-8 and LogSoftmax-5, computed the way OpenVINO's core reference does.

Axis: Softmax-1 takes a non-negative ``axis`` (default 1) below the rank; Softmax-8
and LogSoftmax-5 take ``axis`` in ``[-rank, rank - 1]`` (default 1).  Output type and
shape are the input's.

Values (``reference/softmax.hpp``, ``log_softmax.hpp``, ``reduce_sum.hpp``):
``m = max(x)``, ``e = exp(x - m)``, ``s`` = the Kahan-compensated sum of ``e`` in
axis order; Softmax is ``e / s``, LogSoftmax ``(x - m) - log(s)``; f16/bf16 are
computed in f32.  Every step here is the same IEEE operation in the same order
except ``exp``/``log``, which round the float64 result once where OpenVINO calls
glibc's ``expf``/``logf``: results can differ by an ulp or two (the tests allow 2).

The fast kernel (``evaluate_softmax_fast``, made by ``specialize`` for runs with ``exact=False``) takes the same steps but
sums ``e`` by ``np.add.reduce`` (NumPy's order, no compensation) and, on f32, takes NumPy's
own f32 ``exp`` and ``log`` (within 2.5 ulps of the real value, against the exact kernel's
once-rounded float64 ones; 15x faster).  Non-finite inputs give non-finite outputs in the
same positions: the max and the shift are the exact kernel's, ``exp`` maps inf, -inf and NaN
alike, and a NaN or inf in ``e`` makes the sum non-finite in any order.  Its accuracy against a
float64 oracle: tests/test_softmax_fast.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import UnsupportedError, ValidationError
from ..graph import Node
from ..types import ElementType
from .common.attrs import int_attr
from .common.binding import PLAIN_FLOATS, Binder, dtype_of, fast_kernel, typed, with_attrs
from .common.numeric import is_float, kahan_sum_leading, narrow, quiet, widen
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs:
    axis: int
    log: bool = False
    negative_axis: bool = True  # Softmax-1 takes only axis >= 0


def parse_softmax_1(node: Node) -> SoftmaxAttrs:
    return SoftmaxAttrs(int_attr(node, "axis", 1), negative_axis=False)


def parse_softmax_8(node: Node) -> SoftmaxAttrs:
    return SoftmaxAttrs(int_attr(node, "axis", 1))


def parse_log_softmax(node: Node) -> SoftmaxAttrs:
    return SoftmaxAttrs(int_attr(node, "axis", 1), log=True)


def _axis(attrs: SoftmaxAttrs, rank: int, shape: object) -> int:
    axis = attrs.axis
    if not attrs.negative_axis:
        if not 0 <= axis < rank:  # the attribute is a size_t: OpenVINO prints -1 as 2**64 - 1
            raise ValidationError(
                f"Reduction axis ({axis % 2**64}) is out of bounds (argument shape: {shape})."
            )
        return axis
    if not -rank <= axis < rank:
        raise ValidationError(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
    return axis + rank if axis < 0 else axis


def infer_softmax(attrs: SoftmaxAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    et = x.element_type
    if x.shape.rank_is_static:
        _axis(attrs, x.shape.rank, x.shape)
    return [TensorInfo(et, x.shape)]


def evaluate_softmax(attrs: SoftmaxAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return softmax(attrs, inputs, exact=True)


def evaluate_softmax_fast(attrs: SoftmaxAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Softmax/LogSoftmax with the sum by ``np.add.reduce`` (not bit-exact with OpenVINO's reference)."""
    return softmax(attrs, inputs, exact=False)


def softmax(attrs: SoftmaxAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """Softmax or LogSoftmax of ``inputs[0]``; ``exact``: the sum in the reference's order."""
    (x,) = inputs
    x = np.asarray(x)
    dtype = x.dtype
    if not is_float(dtype):  # OpenVINO accepts the op, but its reference has no integer kernel either
        raise UnsupportedError(f"Softmax of {ElementType.from_numpy(dtype)} values is not supported")
    axis = _axis(attrs, x.ndim, list(x.shape))
    w = widen(x)
    if w.size == 0:
        return [x.copy()]
    with quiet():
        out = softmax_values(w, axis, attrs.log, exact)
    return [np.array(narrow(out.astype(w.dtype, copy=False), dtype), order="C", copy=True)]


def softmax_values(w: np.ndarray, axis: int, log: bool, exact: bool, scratch: bool = False) -> np.ndarray:
    """The (log-)softmax of a non-empty f32/f64 ``w`` along ``axis`` (warnings the caller's);
    ``scratch``: ``w`` is the caller's own and may be overwritten (the same values, no copy)."""
    peak = np.maximum.reduce(w, axis=axis, keepdims=True)  # (np.max's own reduce)
    shifted = np.subtract(w, peak, out=w if scratch else None)
    if exact:
        e = _exp(shifted)
        s = kahan_sum(e, axis)
    else:  # (f32: NumPy's own exp and log, 15x faster than through f64)
        e = np.exp(shifted, out=None if log else shifted)
        s = np.add.reduce(e, axis=axis, keepdims=True)
    if log:
        out: np.ndarray = shifted - (_log(s) if exact else np.log(s))
        return out
    probabilities: np.ndarray = np.divide(e, s, out=e)
    return probabilities


def _binder(exact: bool) -> Binder[SoftmaxAttrs]:
    """The binder (exact, or fast) of Softmax/LogSoftmax on f32/f64 of a static rank: the axis once."""

    def bind(
        attrs: SoftmaxAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
    ) -> Kernel | None:
        x = inputs[0]
        if dtype_of(x) not in PLAIN_FLOATS or not x.shape.rank_is_static or not x.shape.rank:
            return None
        try:
            axis = _axis(attrs, x.shape.rank, x.shape)
        except ValidationError:
            return None
        log = attrs.log

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            w = values[0]
            if not w.size:
                return [w.copy()]
            return [np.ascontiguousarray(softmax_values(w, axis, log, exact))]

        return kernel

    return bind


_BOUND_EXACT, _BOUND_FAST = _binder(True), _binder(False)


def specialize_softmax(
    attrs: SoftmaxAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Softmax/LogSoftmax for a plan: the axis decoded once where the rank is known; fast, the
    sum in NumPy's order (``evaluate_softmax_fast``) everywhere."""
    bound = (
        (_BOUND_EXACT if mode.exact else _BOUND_FAST)(attrs, inputs, outputs)
        if typed(inputs, outputs)
        else None
    )
    return bound if mode.exact else fast_kernel(bound, with_attrs(evaluate_softmax_fast, attrs))


def _exp(x: np.ndarray) -> np.ndarray:
    return np.exp(x) if x.dtype == np.float64 else np.exp(x.astype(np.float64)).astype(x.dtype)


def _log(x: np.ndarray) -> np.ndarray:
    return np.log(x) if x.dtype == np.float64 else np.log(x.astype(np.float64)).astype(x.dtype)


def kahan_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """OpenVINO's ``reduce_sum`` of floats: Kahan-compensated, in axis order, keepdims.

    A step whose operand or running sum is not finite adds plainly and keeps the
    compensation, as ``details::kahan_summation`` does.
    """
    total = kahan_sum_leading(np.moveaxis(values, axis, 0))
    return np.expand_dims(total, axis)


SPECS = (
    OpSpec(
        type="Softmax",
        version=1,
        since=1,
        inputs=1,
        parse=parse_softmax_1,
        infer=infer_softmax,
        evaluate=evaluate_softmax,
        specialize=specialize_softmax,
    ),
    OpSpec(
        type="Softmax",
        version=8,
        since=8,
        inputs=1,
        parse=parse_softmax_8,
        infer=infer_softmax,
        evaluate=evaluate_softmax,
        specialize=specialize_softmax,
    ),
    OpSpec(
        type="LogSoftmax",
        version=5,
        since=5,
        inputs=1,
        parse=parse_log_softmax,
        infer=infer_softmax,
        evaluate=evaluate_softmax,
        specialize=specialize_softmax,
    ),
)
