"""MatMul-0 with OpenVINO's shape rules (``matmul_shape_inference.hpp``) and reference sums.

Shapes: transposes swap the last two dims (ignored for 1-D inputs); a 1-D first input
becomes a row ``[1, K]``, a 1-D second input a column ``[K, 1]``, and those axes are
removed from the output; batch dims broadcast (a dynamic dim that cannot merge
gives ``?``); ``K`` must be compatible unless either side is dynamic; scalars are refused.

Values: the core reference accumulates ``out[i, j] += a[i, k] * b[k, j]`` for k in
order, in the element type (f16/bf16 in f32, rounded once at the end).  ovonehot
does the same sum in the same order, so f32 results are bit-exact; integers wrap
and are exact in any order.  Products larger than ``SEQUENTIAL_LIMIT`` multiply-adds
use NumPy's BLAS matmul instead, whose summation order differs (a few ulp).

The fast kernel (``evaluate_matmul_fast``, made by ``specialize`` for runs with ``exact=False``) multiplies every float
product by BLAS in the working type (f32 for f16/bf16, rounded back once as the exact
kernel rounds; f64 in f64); integers and booleans take the exact kernel's path, which is
exact in any order.  Non-finite outputs: NaN or inf inputs give a non-finite output in the
same positions (a NaN product or an inf meets the same sum in any order; inf - inf is NaN
either way), but a sum whose partial sums overflow in one order may stay finite in another,
so an overflow to inf of finite inputs may land in different positions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, PartialShape
from .common.attrs import bool_attr
from .common.autobroadcast import broadcast_merge_dim
from .common.binding import PLAIN_FLOATS, dtype_of, fast_kernel, folded, typed, with_attrs
from .common.numeric import is_float, narrow, quiet, widen
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo

# Above this many multiply-adds the exact sequential sum is too slow; BLAS takes over.
SEQUENTIAL_LIMIT = 1 << 26


@dataclass(frozen=True, slots=True)
class MatMulAttrs:
    transpose_a: bool = False
    transpose_b: bool = False


def parse_matmul(node: Node) -> MatMulAttrs:
    return MatMulAttrs(bool_attr(node, "transpose_a", False), bool_attr(node, "transpose_b", False))


def infer_matmul(attrs: MatMulAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    a, b = inputs
    et = a.element_type.merge(b.element_type)
    if et is None:
        raise ValidationError(
            f"Arguments do not have the same element type (arg0 element type: {a.element_type}, "
            f"arg1 element type: {b.element_type})."
        )
    return [TensorInfo(et, matmul_shape(attrs, a.shape, b.shape))]


def matmul_shape(attrs: MatMulAttrs, a_shape: PartialShape, b_shape: PartialShape) -> PartialShape:
    if a_shape.dims is None or b_shape.dims is None:
        return PartialShape.dynamic()
    ra, rb = len(a_shape.dims), len(b_shape.dims)
    if ra == 0 or rb == 0:
        raise ValidationError("Scalars are not supported as MatMul inputs.")
    a, b = list(a_shape.dims), list(b_shape.dims)
    if attrs.transpose_a and ra > 1:
        a[-2], a[-1] = a[-1], a[-2]
    if attrs.transpose_b and rb > 1:
        b[-2], b[-1] = b[-1], b[-2]
    one = Dimension.static(1)
    if ra == 1:
        a.insert(0, one)
    if rb == 1:
        b.append(one)
    col, row = a[-1], b[-2]
    if col.merge(row) is None and col.is_static and row.is_static:
        raise ValidationError(
            f"Incompatible MatMul matrix dimension. First input dimension={col} at COL_INDEX_DIM={len(a) - 1} "
            f"doesn't match the second input dimension={row} at ROW_INDEX_DIM={len(b) - 2}"
        )
    out = [*_matmul_batch(a[:-2], b[:-2]), a[-2], b[-1]]
    if ra == 1:
        del out[-2]
    if rb == 1:
        del out[-1]
    return PartialShape(tuple(out))


def _matmul_batch(a: list[Dimension], b: list[Dimension]) -> list[Dimension]:
    """The batch dims of ``a`` and ``b`` broadcast (the shorter padded with 1s in front)."""
    one = Dimension.static(1)
    if len(a) < len(b):
        a = [one] * (len(b) - len(a)) + a
    elif len(b) < len(a):
        b = [one] * (len(a) - len(b)) + b
    out: list[Dimension] = []
    for i in range(len(a)):
        merged = broadcast_merge_dim(a[i], b[i])
        if merged is None:
            if a[i].is_static and b[i].is_static:
                raise ValidationError(
                    f"Incompatible MatMul batch dimension. Can't merge first input dimension={a[i]} "
                    f"with second input dimension={b[i]} at index={i}"
                )
            merged = Dimension()
        out.append(merged)
    return out


def evaluate_matmul(attrs: MatMulAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return matmul(attrs, inputs, exact=True)


def evaluate_matmul_fast(attrs: MatMulAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """MatMul with float sums by BLAS (not bit-exact with OpenVINO's reference)."""
    return matmul(attrs, inputs, exact=False)


def matmul(attrs: MatMulAttrs, inputs: Sequence[np.ndarray], exact: bool) -> list[np.ndarray]:
    """MatMul of two arrays; ``exact``: floats summed in the reference's order (else by BLAS)."""
    a, b = (np.asarray(x) for x in inputs)
    if a.dtype != b.dtype:
        raise InputError(f"MatMul inputs differ in element type: {a.dtype} and {b.dtype}")
    if a.ndim == 0 or b.ndim == 0:
        raise InputError("Scalars are not supported as MatMul inputs.")
    dtype = a.dtype
    x = np.swapaxes(a, -1, -2) if attrs.transpose_a and a.ndim > 1 else a
    y = np.swapaxes(b, -1, -2) if attrs.transpose_b and b.ndim > 1 else b
    x = x[np.newaxis, :] if a.ndim == 1 else x
    y = y[:, np.newaxis] if b.ndim == 1 else y
    out_shape = product_shape(x, y, a.shape, b.shape)
    k = x.shape[-1]
    with quiet():
        if dtype == np.bool_:
            out = np.matmul(x.astype(np.uint8), y.astype(np.uint8)) != 0
        elif is_float(dtype) and not exact:
            out = narrow(blas_product(widen(x), widen(y)), dtype)
        elif not is_float(dtype) or math.prod(out_shape) * k > SEQUENTIAL_LIMIT:
            out = narrow(np.matmul(widen(x), widen(y)), dtype)
        else:
            out = narrow(_sequential(widen(x), widen(y), out_shape), dtype)
    out = np.asarray(out).reshape(out_shape)
    if a.ndim == 1:
        out = out.reshape(out.shape[:-2] + out.shape[-1:])
    if b.ndim == 1:
        out = out.reshape(out.shape[:-1])
    if out.dtype == dtype and out.flags.c_contiguous:  # a fresh array already (a view of one)
        return [out]
    return [np.array(out, dtype=dtype, order="C", copy=True)]


def bind_matmul(
    attrs: MatMulAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The exact kernel on f32/f64 inputs of static shapes of rank >= 2: the transposes, the
    output shape and the choice of sum (``_sequential`` in k order, or BLAS past
    ``SEQUENTIAL_LIMIT``) made once, as ``matmul`` makes them."""
    a, b = inputs
    dtype = dtype_of(a)
    if dtype != dtype_of(b) or dtype not in PLAIN_FLOATS or not (a.shape.is_static and b.shape.is_static):
        return None
    xs, ys = list(a.shape.to_shape()), list(b.shape.to_shape())
    if min(len(xs), len(ys)) < 2:
        return None
    ta, tb = attrs.transpose_a, attrs.transpose_b
    if ta:
        xs[-2], xs[-1] = xs[-1], xs[-2]
    if tb:
        ys[-2], ys[-1] = ys[-1], ys[-2]
    try:
        batch = np.broadcast_shapes(tuple(xs[:-2]), tuple(ys[:-2]))
    except ValueError:
        return None
    out_shape, k = (*batch, xs[-2], ys[-1]), xs[-1]
    if k != ys[-2]:
        return None
    if math.prod(out_shape) * k > SEQUENTIAL_LIMIT:
        return bind_matmul_fast(attrs, inputs, outputs)  # (what ``matmul`` does there: BLAS)

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = values
        return [
            _sequential(np.swapaxes(x, -1, -2) if ta else x, np.swapaxes(y, -1, -2) if tb else y, out_shape)
        ]

    return kernel


def bind_matmul_fast(
    attrs: MatMulAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """The fast kernel on f32/f64 inputs of static rank >= 2: ``np.matmul`` of the (swapped)
    inputs, what ``matmul(exact=False)`` computes (NumPy refuses what does not fit)."""
    a, b = inputs
    dtype = dtype_of(a)
    if dtype != dtype_of(b) or dtype not in PLAIN_FLOATS:
        return None
    if not (a.shape.rank_is_static and b.shape.rank_is_static and min(a.shape.rank, b.shape.rank) >= 2):
        return None
    ta, tb = attrs.transpose_a, attrs.transpose_b
    batch = (a.shape.dims or ())[:-2]
    # (blas_product's choice where the infos make it, without its checks on every call)
    few = all(d.is_static for d in batch) and math.prod(d.length for d in batch) < FLAT_BATCHES
    product = np.matmul if b.shape.rank > 2 or few else blas_product
    weight = folded(b)
    if weight is not None and tb and not ta:  # a folded weight: its swapped view made once

        def constant(values: Sequence[np.ndarray]) -> list[np.ndarray]:
            x, y = values
            return [product(x, right if y is weight else y.swapaxes(-1, -2))]

        right = weight.swapaxes(-1, -2)
        return constant

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = values
        return [product(np.swapaxes(x, -1, -2) if ta else x, np.swapaxes(y, -1, -2) if tb else y)]

    return kernel


# Leading indices from which ``blas_product`` makes one matrix of an activation's rows: fewer
# small products run faster as np.matmul's own (two reshapes cost more than a BLAS call there).
FLAT_BATCHES = 4


def blas_product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.matmul(x, y)`` of floats, with ``x``'s leading dims as rows of one matrix when ``y``
    is one matrix (``np.matmul`` broadcasts it and calls BLAS once per leading index: a
    ``(1, 56, 56, 96)`` activation times a ``(96, 384)`` weight is 56 calls, 3x slower than one)."""
    if y.ndim == 2 and x.ndim > 2 and x.shape[-1] == y.shape[0] and math.prod(x.shape[:-2]) >= FLAT_BATCHES:
        out: np.ndarray = np.matmul(x.reshape(-1, x.shape[-1]), y)
        return out.reshape(*x.shape[:-1], y.shape[1])
    product: np.ndarray = np.matmul(x, y)
    return product


def specialize_matmul(
    attrs: MatMulAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """MatMul for a plan: exact, bound to a static signature (``bind_matmul``); fast, by BLAS
    (``bind_matmul_fast`` where the ranks are known, else ``matmul(exact=False)``)."""
    if mode.exact:
        return bind_matmul(attrs, inputs, outputs) if typed(inputs, outputs) else None
    bound = bind_matmul_fast(attrs, inputs, outputs) if typed(inputs, outputs) else None
    return fast_kernel(bound, with_attrs(evaluate_matmul_fast, attrs))


def product_shape(
    x: np.ndarray, y: np.ndarray, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> tuple[int, ...]:
    """The product's shape of matrices ``x [..., m, k]`` and ``y [..., k, n]`` (batch dims
    broadcast), or the InputError naming ``a_shape`` and ``b_shape`` (the inputs as given)."""
    if x.shape[-1] != y.shape[-2]:
        raise InputError(f"Incompatible MatMul matrix dimension: {list(x.shape)} x {list(y.shape)}")
    try:
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise InputError(
            f"Incompatible MatMul batch dimensions: {list(a_shape)} and {list(b_shape)}"
        ) from None
    return (*batch, x.shape[-2], y.shape[-1])


def sequential_product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``matmul(exact=True)`` of two f32 or f64 arrays of rank >= 2 (batch dims broadcast), without
    its conversions: the same sum (``_sequential`` in k order, BLAS past ``SEQUENTIAL_LIMIT``) and
    the same refusals, for kernels (attention) whose inputs are already of the working type."""
    out_shape = product_shape(x, y, x.shape, y.shape)
    with quiet():
        if math.prod(out_shape) * x.shape[-1] > SEQUENTIAL_LIMIT:
            return np.ascontiguousarray(np.matmul(x, y))
        return _sequential(x, y, out_shape)


# Products held at once by the blocked sum (elements of its scratch array).
BLOCK_ELEMENTS = 1 << 20


def _sequential(x: np.ndarray, y: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    """``sum_k x[..., i, k] * y[..., k, j]`` accumulated in k order, each step rounded (no FMA).

    Small outputs take k in blocks: the products of a block in one multiply, stacked under the
    running sum, then one ``np.add.reduce`` over that axis.  NumPy reduces a non-innermost axis
    by adding whole rows in order (pairwise summation happens only along the innermost axis),
    so each element still gets ``((0 + p0) + p1) + ...`` exactly; it needs rows of a few
    elements (j >= 4), else the reduced axis could become the innermost loop.
    """
    out = np.zeros(out_shape, dtype=x.dtype)
    k = x.shape[-1]
    rows = math.prod(out_shape)
    block = min(k, BLOCK_ELEMENTS // max(rows, 1))
    if out_shape[-1] >= 4 and (block >= 32 or (block == k and k >= 2)):  # (else slower than the loop)
        scratch = np.empty((*out_shape[:-1], block + 1, out_shape[-1]), dtype=x.dtype)
        for lo in range(0, k, block):
            hi = min(k, lo + block)
            stack = scratch[..., : hi - lo + 1, :]
            stack[..., 0, :] = out
            np.multiply(x[..., :, lo:hi, np.newaxis], y[..., np.newaxis, lo:hi, :], out=stack[..., 1:, :])
            np.add.reduce(stack, axis=-2, out=out)
        return out
    product = np.empty(out_shape, dtype=x.dtype)
    for i in range(k):
        np.multiply(x[..., :, i : i + 1], y[..., i : i + 1, :], out=product)
        np.add(out, product, out=out)
    return out


SPECS = (
    OpSpec(
        type="MatMul",
        version=0,
        since=1,
        inputs=2,
        parse=parse_matmul,
        infer=infer_matmul,
        evaluate=evaluate_matmul,
        blas=True,
        specialize=specialize_matmul,
        shapes_only=True,
    ),
)
