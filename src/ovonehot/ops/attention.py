"""ScaledDotProductAttention-13: OpenVINO's shape rule and its reference's arithmetic.

Inputs: ``query [N..., L, E]``, ``key [N..., S, E]``, ``value [N..., S, Ev]``, then
optionally ``attention_mask`` (boolean, or the query's float type; broadcast to
``[N..., L, S]``, may be a scalar), ``scale`` (a scalar or one element) and ``sink``
(``[N..., L, 1]``, the extra softmax column of gpt-oss style attention).  Attribute
``causal``: build a lower-triangular mask instead of reading ``attention_mask``.

Shapes (``scaled_dot_product_attention_shape_inference.hpp``, probed on 2026.4): the
output is ``[N..., L, Ev]`` where ``N...`` is the numpy broadcast of the batch dims of
query, key, value and (unless causal) a mask of rank >= 3, which can raise the output
rank.  ``E`` (query/key) and ``S`` (key/value) must merge exactly; the mask's last
two dims broadcast-merge into ``L`` and ``S``; a mask of rank 1 is refused, a scalar
mask is accepted.  The sink's rank must equal the query's, its last dim be 1, its
``L`` and batch dims broadcast against the others (it never changes the output shape).
A dynamic query rank gives a dynamic output rank.  Types: every float input (mask
only when it is not boolean) must share one real type; the mask may be boolean.

Values: the spec's pseudo-code (``scaled-dot-product-attention.html``; the core op has no
``evaluate``, so ``Node.evaluate`` refuses it and the CPU plugin is what users run)::

    qk   = query @ key^T                    (MatMul: sum over E in order)
    qk   = qk * scale                       (default: 1.0f / float(sqrt(E)))
    qk   = qk + bias                        (float mask; boolean mask: false -> -inf,
                                             true -> 0; causal: j > i -> -inf, top-left)
    p    = softmax(qk ++ sink, axis=-1)     (sink column dropped after the softmax)
    out  = p @ value

A query row whose keys are all masked is therefore NaN, as the spec says and the CPU plugin
does; OpenVINO's ONNX frontend relies on it (it wraps the op in IsNaN/Select to give ONNX's
zeros).  The core's reference header (``reference/scaled_dot_product_attention.hpp``, used
by no public evaluate) adds ``lowest()`` instead, which averages ``value`` on such a row.

Computed in f32 for f16/bf16 inputs and rounded once at the end (what the CPU plugin does
with an f32 inference precision), f64 in f64.  Each step is the same IEEE operation in the
same order as OpenVINO's MatMul, Multiply, Add and Softmax kernels, so ovonehot equals that
chain evaluated by OpenVINO's core reference bit for bit, up to Softmax's ``exp``, which
rounds the float64 result (``softmax.py``).  The CPU plugin's fused attention kernel sums in
another order: see ``tests/test_ops_attention.py`` for the measured differences.

The fast kernel (``evaluate_sdpa_fast``, made by ``specialize`` for runs with ``exact=False``) takes the same steps with
both MatMuls by BLAS and the softmax sum by NumPy (``matmul.matmul`` and
``softmax.softmax`` with ``exact=False``): see those modules for what may differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr
from .common.autobroadcast import AutoBroadcastSpec, AutoBroadcastType, broadcast_merge_dim, broadcast_shapes
from .common.binding import PLAIN_FLOATS, Binder, dtype_of, fast_kernel, folded, typed, with_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo
from .matmul import MatMulAttrs, matmul, sequential_product
from .softmax import SoftmaxAttrs, softmax, softmax_values

_NUMPY = AutoBroadcastSpec(AutoBroadcastType.NUMPY)


@dataclass(frozen=True, slots=True)
class SDPAAttrs:
    causal: bool = False


def parse_sdpa(node: Node) -> SDPAAttrs:
    return SDPAAttrs(bool_attr(node, "causal", False))


# -- shape and type inference ---------------------------------------------------------------


def _element_type(inputs: Sequence[TensorInfo]) -> ElementType:
    mask = inputs[3].element_type if len(inputs) > 3 else None
    if mask is not None and not (mask.is_real or mask is ElementType.boolean or mask.is_dynamic):
        raise ValidationError("The element type of attention_mask must be either floating-point or boolean.")
    et = inputs[0].element_type
    for k, info in enumerate(inputs[1:], start=1):
        if k == 3 and info.element_type is ElementType.boolean:
            continue
        merged = et.merge(info.element_type)
        if merged is None:
            raise ValidationError("Mixed input types are not supported.")
        et = merged
    if not (et.is_real or et.is_dynamic):
        raise ValidationError("The element type of the input tensor must be a floating-point.")
    return et


def _batch(dims: tuple[Dimension, ...]) -> PartialShape:
    return PartialShape(dims[:-2])


def _shapes_text(inputs: Sequence[TensorInfo]) -> str:
    return "{" + ",".join(str(i.shape) for i in inputs) + "}"


def sdpa_shape(causal: bool, inputs: Sequence[TensorInfo]) -> PartialShape:
    """The output partial shape, or OpenVINO's error for incompatible inputs."""

    def fail(what: str) -> ValidationError:
        return ValidationError(f"Shape inference input shapes {_shapes_text(inputs)} {what}")

    query, key, value = (i.shape for i in inputs[:3])
    any_dim = Dimension()
    batch: PartialShape = PartialShape.dynamic()
    l_dim = e_dim = s_dim = ev_dim = any_dim
    if query.dims is not None:
        if len(query.dims) < 3:
            raise fail("Query input rank length must be at least 3 or more.")
        batch = _batch(query.dims)
        l_dim, e_dim = query.dims[-2], query.dims[-1]

    if key.dims is not None:
        merged = _merge_batch(batch, key.dims) if len(key.dims) >= 3 else None
        e = e_dim.merge(key.dims[-1]) if merged is not None else None
        if merged is None or e is None:
            raise fail("Key input shape not compatible with other inputs.")
        batch, e_dim, s_dim = merged, e, key.dims[-2]
    if value.dims is not None:
        merged = _merge_batch(batch, value.dims) if len(value.dims) >= 3 else None
        s = s_dim.merge(value.dims[-2]) if merged is not None else None
        if merged is None or s is None:
            raise fail("Value input shape not compatible with other inputs.")
        batch, s_dim, ev_dim = merged, s, value.dims[-1]
    mask = inputs[3].shape.dims if len(inputs) > 3 and not causal else None
    if mask:  # (a known rank above 0)
        fitted = _merge_mask(mask, l_dim, s_dim, batch)
        if fitted is None:
            raise fail("Attention mask input shape not compatible with other inputs.")
        l_dim, s_dim, batch = fitted
    if len(inputs) > 4 and inputs[4].shape.is_static and inputs[4].shape.to_shape() not in ((), (1,)):
        raise fail("Scale input must be scalar or have 1 element.")
    _check_sink(inputs, query, batch, l_dim, fail)
    if batch.dims is None:
        return PartialShape.dynamic()
    return PartialShape((*batch.dims, l_dim, ev_dim))


def _merge_batch(batch: PartialShape, dims: tuple[Dimension, ...]) -> PartialShape | None:
    return broadcast_shapes(batch, _batch(dims), _NUMPY)


def _merge_mask(
    mask: tuple[Dimension, ...], l_dim: Dimension, s_dim: Dimension, batch: PartialShape
) -> tuple[Dimension, Dimension, PartialShape] | None:
    """L, S and the batch merged with the mask's ``[..., L, S]``; None when it does not fit."""
    if len(mask) < 2:
        return None
    new_l = broadcast_merge_dim(l_dim, mask[-2])
    new_s = broadcast_merge_dim(s_dim, mask[-1])
    if new_l is None or new_s is None:
        return None
    if len(mask) >= 3:
        merged = _merge_batch(batch, mask)
        if merged is None:
            return None
        batch = merged
    return new_l, new_s, batch


def _check_sink(
    inputs: Sequence[TensorInfo],
    query: PartialShape,
    batch: PartialShape,
    l_dim: Dimension,
    fail: Callable[[str], ValidationError],
) -> None:
    """The sink, when given: query's rank, ``[N..., L or 1, 1]`` (probed: it never changes the output)."""
    if len(inputs) <= 5:
        return
    sink = inputs[5].shape
    if sink.dims is None or query.dims is None:
        return
    if len(sink.dims) != len(query.dims):
        raise fail("The rank of sink input shape must be equal to the query input rank.")
    ok = (
        sink.dims[-1].compatible(Dimension.static(1))
        and broadcast_merge_dim(l_dim, sink.dims[-2]) is not None
        and _merge_batch(batch, sink.dims) is not None
    )
    if not ok:
        raise fail("Sink input has not compatible shape.")


def infer_sdpa(attrs: SDPAAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    et = _element_type(inputs)
    return [TensorInfo(et, sdpa_shape(attrs.causal, inputs))]


# -- values --------------------------------------------------------------------------------


def default_scale(head_size: int, dtype: np.dtype) -> np.ndarray:
    """``1.0f / static_cast<float>(std::sqrt(E))``: sqrt in double, rounded to float, divided in float."""
    root = np.float32(np.sqrt(np.float64(head_size)))
    with quiet():
        return np.asarray(np.float32(1.0) / root).astype(dtype)


def _bias(
    attrs: SDPAAttrs, mask: np.ndarray | None, length: int, source_length: int, dtype: np.dtype
) -> np.ndarray | None:
    masked = np.asarray(-np.inf, dtype)  # the spec's -inf (not the reference header's lowest())
    if attrs.causal:
        rows = np.arange(length)[:, np.newaxis]
        cols = np.arange(source_length)[np.newaxis, :]
        return np.where(cols <= rows, np.zeros((), dtype), masked)
    if mask is None:
        return None
    if mask.dtype == np.bool_:
        return np.where(mask, np.zeros((), dtype), masked)
    return widen(mask).astype(dtype, copy=False)


def evaluate_sdpa(attrs: SDPAAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return sdpa(attrs, inputs, exact=True)


def evaluate_sdpa_fast(attrs: SDPAAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Attention with its MatMuls by BLAS and softmax sum by NumPy (not bit-exact with the reference)."""
    return sdpa(attrs, inputs, exact=False)


def sdpa(attrs: SDPAAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """ScaledDotProductAttention-13 of its inputs; ``exact``: sums in the reference kernels' order."""
    arrays = [np.asarray(a) for a in inputs]
    query, key, value = arrays[:3]
    out_dtype = query.dtype
    if not is_float(out_dtype):
        raise InputError(
            f"ScaledDotProductAttention needs float inputs, got {ElementType.from_numpy(out_dtype)}"
        )
    if min(query.ndim, key.ndim, value.ndim) < 3:
        raise InputError(
            f"query, key and value must have rank >= 3, got {list(query.shape)}, {list(key.shape)}, "
            f"{list(value.shape)}"
        )
    if key.shape[-1] != query.shape[-1] or value.shape[-2] != key.shape[-2]:
        raise InputError(
            f"incompatible query {list(query.shape)}, key {list(key.shape)} and value {list(value.shape)}"
        )
    q, k, v = widen(query), widen(key), widen(value)
    dtype = q.dtype
    length, source_length = query.shape[-2], key.shape[-2]
    mask = arrays[3] if len(arrays) > 3 else None
    if len(arrays) > 4:
        if arrays[4].size != 1:
            raise InputError(
                f"Scale input must be scalar or have 1 element, got shape {list(arrays[4].shape)}"
            )
        scale = widen(arrays[4]).reshape(()).astype(dtype)
    else:
        scale = default_scale(query.shape[-1], dtype)
    try:
        bias = _bias(attrs, mask, length, source_length, dtype)
        sink = widen(arrays[5]).astype(dtype, copy=False) if len(arrays) > 5 else None
        out = _attend(q, k, v, scale, bias, sink, exact)
    except ValueError:
        raise InputError(
            "query, key, value and attention_mask do not broadcast: "
            + ", ".join(str(list(a.shape)) for a in arrays[:4])
        ) from None
    return [np.array(narrow(out.astype(dtype, copy=False), out_dtype), order="C", copy=True)]


def _attend(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    scale: np.ndarray,
    bias: np.ndarray | None,
    sink: np.ndarray | None,
    exact: bool,
) -> np.ndarray:
    """softmax(q k^T * scale + bias) v, the inputs widened; fast f32/f64 without a sink takes
    NumPy directly, the same operations ``matmul`` and ``softmax`` do with ``exact=False``."""
    if not exact and sink is None and q.dtype in PLAIN_FLOATS:
        with quiet():
            return _attend_fast(q, k, v, scale, bias)
    direct = exact and q.dtype in PLAIN_FLOATS and k.dtype == q.dtype and v.dtype == q.dtype
    if direct and sink is None:
        with quiet():
            return _attend_exact(q, k, v, scale, bias)
    if direct:  # (what ``matmul`` computes for these, without its conversions)
        qk = sequential_product(q, np.swapaxes(k, -1, -2))
    else:
        (qk,) = matmul(MatMulAttrs(transpose_b=True), [q, k], exact)
    with quiet():
        qk = qk * scale
        if bias is not None:
            qk = qk + bias
    if sink is not None:
        probabilities = _softmax_with_sink(qk, sink, exact)
    else:
        (probabilities,) = softmax(SoftmaxAttrs(-1), [qk], exact)
    if direct and probabilities.dtype == q.dtype:
        return sequential_product(probabilities, v)
    (out,) = matmul(MatMulAttrs(), [probabilities, v], exact)
    return out


def _attend_exact(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: np.ndarray, bias: np.ndarray | None
) -> np.ndarray:
    """``_attend``'s exact steps on f32/f64 query, key and value of one type without a sink:
    what ``matmul`` and ``softmax`` compute for these, without their conversions and copies
    (warnings the caller's)."""
    qk = sequential_product(q, k.swapaxes(-1, -2))
    np.multiply(qk, scale, out=qk)
    if bias is not None:
        qk = np.add(qk, bias)
    probabilities = softmax_values(qk, qk.ndim - 1, False, True) if qk.size else qk
    return sequential_product(probabilities, v)


def _attend_fast(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: np.ndarray, bias: np.ndarray | None
) -> np.ndarray:
    """``_attend``'s fast f32/f64 steps without a sink, written over the scores it makes
    (warnings the caller's: a run has them off already)."""
    qk = np.matmul(q, k.swapaxes(-1, -2))
    np.multiply(qk, scale, out=qk)
    if bias is not None:
        try:
            np.add(qk, bias, out=qk)
        except ValueError:  # (a mask with more batch dims than the scores: a larger sum)
            qk = np.add(qk, bias)
    probabilities = softmax_values(qk, qk.ndim - 1, False, False, scratch=True) if qk.size else qk
    attended: np.ndarray = np.matmul(probabilities, v)
    return attended


def _binder(exact: bool) -> Binder[SDPAAttrs]:
    """The binder (exact, or fast) of attention on f32/f64 query, key and value of static ranks >= 3,
    without a sink: the scale (folded or the default of a static head size) and a causal or
    folded mask's bias made once, then ``_attend``."""

    def bind(attrs: SDPAAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]) -> Kernel | None:
        query, key, value = inputs[:3]
        dtype = dtype_of(query)
        if dtype not in PLAIN_FLOATS or dtype_of(key) != dtype or dtype_of(value) != dtype or len(inputs) > 5:
            return None
        if not all(t.shape.rank_is_static and t.shape.rank >= 3 for t in inputs[:3]):
            return None
        head, length, source = (
            query.shape[query.shape.rank - 1],
            query.shape[query.shape.rank - 2],
            key.shape[key.shape.rank - 2],
        )
        if len(inputs) > 4:
            given = folded(inputs[4])
            if given is None or given.size != 1 or given.dtype != dtype:
                return None
            scale = given.reshape(()).astype(dtype)
        elif head.is_static:
            scale = default_scale(head.min, dtype)
        else:
            return None
        mask = folded(inputs[3]) if len(inputs) > 3 else None
        if len(inputs) > 3 and not attrs.causal and (mask is None or mask.dtype not in (np.bool_, dtype)):
            return _with_runtime_mask(scale, dtype, exact)
        if attrs.causal and not (length.is_static and source.is_static):
            return None
        bias = _bias(attrs, mask, length.min, source.min, dtype) if attrs.causal or mask is not None else None

        if not exact:

            def fast(values: Sequence[np.ndarray]) -> list[np.ndarray]:
                return [np.ascontiguousarray(_attend_fast(values[0], values[1], values[2], scale, bias))]

            return fast

        def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [np.ascontiguousarray(_attend(values[0], values[1], values[2], scale, bias, None, exact))]

        return kernel

    return bind


def _with_runtime_mask(scale: np.ndarray, dtype: np.dtype, exact: bool) -> Kernel:
    """Attention whose float mask of the query's type a run gives (its values are the bias)."""

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        mask = values[3]
        if mask.dtype != dtype:
            raise ValueError("the kernel decides")
        if not exact:
            return [np.ascontiguousarray(_attend_fast(values[0], values[1], values[2], scale, mask))]
        return [np.ascontiguousarray(_attend(values[0], values[1], values[2], scale, mask, None, exact))]

    return kernel


def _softmax_with_sink(qk: np.ndarray, sink: np.ndarray, exact: bool) -> np.ndarray:
    """Softmax over the scores with the sink as one more column, which is then dropped."""
    if sink.ndim != qk.ndim:
        raise InputError(f"sink rank {sink.ndim} differs from the scores' rank {qk.ndim}")
    column = np.broadcast_to(sink, (*qk.shape[:-1], 1))
    (probabilities,) = softmax(SoftmaxAttrs(-1), [np.concatenate([qk, column], axis=-1)], exact)
    return probabilities[..., :-1]


_BOUND_EXACT, _BOUND_FAST = _binder(True), _binder(False)


def specialize_sdpa(
    attrs: SDPAAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """Attention for a plan: the scale and a causal or folded mask's bias made once where the
    signature allows; fast, MatMul by BLAS and sums in NumPy's order everywhere."""
    bound = (
        (_BOUND_EXACT if mode.exact else _BOUND_FAST)(attrs, inputs, outputs)
        if typed(inputs, outputs)
        else None
    )
    return bound if mode.exact else fast_kernel(bound, with_attrs(evaluate_sdpa_fast, attrs))


# No `evaluate` in OpenVINO: its values never fold into shape inference.
SPECS = (
    OpSpec(
        type="ScaledDotProductAttention",
        version=13,
        since=13,
        inputs=(3, 6),
        parse=parse_sdpa,
        infer=infer_sdpa,
        evaluate=evaluate_sdpa,
        blas=True,
        specialize=specialize_sdpa,
        foldable=False,
        shapes_only=True,
    ),
)
