"""Fast mode's product with a compressed weight: the group algebra, straight from the codes.

A weight that NNCF compressed group-wise (or per channel) is, for output row ``o`` and group
``g`` of the contracted axis (``gs`` values each)::

    W[o, g*gs + j] = (q[o, g, j] - z[o, g]) * s[o, g]

so a product row ``x`` (``M x K``) needs no decompressed weight at all::

    (x W^T)[m, o] = sum_g s[o, g] * (x_g . q[o, g, :] - z[o, g] * sum x_g)

Per weight that is one pass to split a byte's two nibbles (u4/i4; eight bytes at a time, as
u64 words), one to convert the codes to f32 and one BLAS product per group (batched over the
groups, ``np.matmul`` on a strided view; a byte's low and high nibbles a product each);
the zero points and scales cost once per row and group, 1/``gs`` of the weights.  The
fused exact kernel (:mod:`ovonehot.decompression`) instead decompresses every weight as the
chain's nodes do (subtract, multiply, round to f16: 3.3-5 ns per weight), then multiplies.

What fast mode gives up, and why it may: the chain's element type is usually f16, and its
Multiply rounds every weight to f16 (OpenVINO's reference does); the algebra keeps
``(q - z) * s`` unrounded, in f32 sums, as the CPU plugin's compressed-weight kernels do.  The
difference is a rounding of each weight, at most half an f16 ulp, which the rounding
envelope of ``diff`` (docs/envelope.md) carries as the Multiply's own accuracy, and sums
in another order.  Only chains whose every product is zero or an f16 normal number are taken
(``normal`` in ``decompression._Arith``): a product that overflows f16 to infinity or
falls among its subnormals is a different value, not a rounding, so those weights keep the
exact kernel's path.  The bound this module keeps (checked on generated cases in
tests/conformance/test_decompression.py against a float64 oracle) is that of an f32 sum over
``x_g . q`` and ``z sum x_g`` terms: ``(2K + 1) eps32 sum_k |x_k| (|q| + |z|) |s|``.

Layout: the weight's rows are its output channels (a MatMul's ``transpose_b`` weight, as
NNCF and the PyTorch frontend write it, or its first input untransposed), and its codes are the
Constant's: ``(n, G, gs)`` (grouped, then a Reshape) or ``(n, K)`` (per channel, one group).
A packed u4/i4 Constant is read as its bytes, two codes per byte (element ``2j`` in the low
nibble), which needs ``gs`` even.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from . import threads
from .ops.matmul import blas_product
from .packed import Packed
from .scratch import Scratch, scratch
from .types import ElementType

__all__ = ["BLOCK_WEIGHTS", "Grouped", "product", "view"]

# Weights a block converts at once: with its codes and f32 scratch (5 bytes per weight: 1.25 MiB) it
# stays in a core's L2 cache (2 MiB here) through the block's passes.
BLOCK_WEIGHTS = 1 << 18
# Below this many weights a product runs on one thread (a pool's hand-off costs ~50 us).
THREADED_WEIGHTS = 1 << 20
# A weight of at most this many values is decompressed once, unrounded (``(q - z) * s`` in f32),
# and multiplied by BLAS: the blocks' dozen NumPy calls cost more than the product there (a tiny
# NNCF llama's step: 1.8x slower by blocks than its folded weights had been).
DENSE_WEIGHTS = 1 << 16


@dataclass(frozen=True, slots=True)
class Grouped:
    """A compressed weight of ``n`` output rows and ``k`` contracted values, as its codes."""

    codes: np.ndarray  # (n, G, w): packed bytes (w = gs / 2) when ``nibbles``, else the values
    nibbles: ElementType | None  # u4 or i4: ``codes`` holds two per byte
    k: int
    scales: np.ndarray | None  # (G, n) f32, as the blocks read them (None: no Multiply)
    shifts: np.ndarray | None  # (G, n) f32: z * s, what ``sum x_g`` is multiplied by (None: no zero point)
    dense: np.ndarray | None = None  # (n, k) f32: a small weight decompressed (``DENSE_WEIGHTS``)

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def groups(self) -> int:
        return int(self.codes.shape[1])


def view(
    source: np.ndarray | Packed,
    element_type: ElementType,
    zero: np.ndarray | None,
    scale: np.ndarray | None,
    weight: tuple[int, ...],
) -> Grouped | None:
    """The weight of shape ``weight`` (``(n, k)``, rows the outputs) decompressed from
    ``source`` with zero points and scales broadcasting to the source's shape and constant
    along its last axis, as :class:`Grouped`; None when it is not of that form."""
    if len(weight) != 2 or source.ndim not in (2, 3) or source.shape[0] != weight[0]:
        return None
    n, k = weight
    gs = source.shape[-1]
    if math.prod(source.shape[1:]) != k or gs == 0 or n == 0:
        return None
    groups = k // gs
    operands = [None if v is None else _per_group(v, source.shape, n, groups) for v in (zero, scale)]
    if any(o is False for o in operands):
        return None
    codes = _codes(source, element_type, n, groups, gs)
    if codes is None:
        return None
    nibbles = element_type if isinstance(source, Packed) else None
    z, s = (o if isinstance(o, np.ndarray) else None for o in operands)
    shifts = None if z is None else np.ascontiguousarray((z if s is None else z * s).T)
    found = Grouped(codes, nibbles, k, None if s is None else np.ascontiguousarray(s.T), shifts)
    if n * k > DENSE_WEIGHTS:
        return found
    values = source.unpack() if isinstance(source, Packed) else source  # (the reader's own unpacking)
    unpacked = _codes(values, element_type, n, groups, gs)
    return found if unpacked is None else replace(found, dense=_decompressed(unpacked, z, s))


def _decompressed(q: np.ndarray, zero: np.ndarray | None, scale: np.ndarray | None) -> np.ndarray:
    """``(q - z) * s`` in f32 from the codes ``(n, G, gs)``, as ``(n, k)``: each value rounded once
    (q - z is exact)."""
    w = q.astype(np.float32)
    if zero is not None:
        w -= zero[:, :, None]
    if scale is not None:
        w *= scale[:, :, None]
    return w.reshape(q.shape[0], -1)


def _per_group(value: np.ndarray, shape: tuple[int, ...], n: int, groups: int) -> np.ndarray | bool:
    """An operand as ``(n, groups)`` f32, or False when it varies along the group's values."""
    if value.ndim > len(shape) or (value.ndim and value.shape[-1] != 1):
        return False
    try:
        full = np.broadcast_to(value, (*shape[:-1], 1))
    except ValueError:
        return False
    return np.ascontiguousarray(full.reshape(n, groups), dtype=np.float32)


def _codes(source: np.ndarray | Packed, et: ElementType, n: int, groups: int, gs: int) -> np.ndarray | None:
    if isinstance(source, Packed):
        if gs % 2:
            return None
        return source.raw.reshape(n, groups, gs // 2)
    if et is ElementType.u4:
        return source.view(np.uint8).reshape(n, groups, gs)
    if et is ElementType.i4:
        return source.astype(np.int8).reshape(n, groups, gs)
    if et in (ElementType.u8, ElementType.i8):
        return source.reshape(n, groups, gs)
    return None


def product(g: Grouped, x: np.ndarray) -> np.ndarray:
    """``x @ W^T`` for ``x`` of shape ``(M, k)`` (f32): ``(M, n)`` f32 (a ``dense`` weight's:
    any shape ``(..., k)``)."""
    if g.dense is not None:
        return blas_product(x, g.dense.T)
    m = x.shape[0]
    xs = x.reshape(m, g.groups, g.k // g.groups)
    if g.nibbles is not None:  # a byte's low nibbles meet x's even columns, its high ones the odd
        xs = np.concatenate((xs[:, :, 0::2], xs[:, :, 1::2]), axis=2)
    columns = np.ascontiguousarray(xs.transpose(1, 2, 0))  # (G, gs, M)
    out = np.empty((g.n, m), np.float32)
    rows = max(1, BLOCK_WEIGHTS // g.k)

    def blocks(lo: int, hi: int) -> None:  # (the same blocks on any number of threads: BLAS's
        buffers = scratch()  # sums may depend on a block's rows, so its bits would too)
        for b in range(lo, hi):
            _block(g, columns, out, b * rows, min(g.n, (b + 1) * rows), buffers)

    count = -(-g.n // rows)
    parts = threads.current() if g.n * g.k >= THREADED_WEIGHTS else 1
    if parts > 1:
        with threads.blas_single():
            threads.run_parts(parts, count, blocks)
    else:
        blocks(0, count)
    y = np.ascontiguousarray(out.T)
    if g.shifts is not None:  # sum_g z s sum x_g, for every row at once
        y -= xs.sum(axis=2) @ g.shifts
    return y


def _block(g: Grouped, columns: np.ndarray, out: np.ndarray, r0: int, r1: int, scratch: Scratch) -> None:
    """Rows ``r0:r1`` of ``out`` (``(n, M)``): the block's codes converted once, then one product
    per group (a batched BLAS call), scaled and summed over the groups."""
    b = g.codes[r0:r1]
    c, groups, width = b.shape
    p = scratch.take("products", (groups, c, columns.shape[2]), np.float32)
    if g.nibbles is None:
        f = scratch.take("grouped", b.shape, np.float32)
        np.copyto(f, b, casting="unsafe")
        np.matmul(f.transpose(1, 0, 2), columns, out=p)
    else:  # the low nibbles (x's even columns) and the high ones (its odd columns), a product each
        u = _nibbles(g.nibbles, b, scratch)
        f = scratch.take("grouped", u.shape, np.float32)
        np.copyto(f, u, casting="unsafe")
        np.matmul(f[0].transpose(1, 0, 2), columns[:, :width], out=p)
        p += np.matmul(f[1].transpose(1, 0, 2), columns[:, width:])
    if g.scales is not None:
        p *= g.scales[:, r0:r1, None]
    np.sum(p, axis=0, out=out[r0:r1])


_LOW = np.uint64(0x0F0F0F0F0F0F0F0F)
_SIGN = np.uint64(0x0808080808080808)
_FOUR = np.uint64(4)


def _nibbles(et: ElementType, b: np.ndarray, scratch: Scratch) -> np.ndarray:
    """The codes of the packed bytes ``b`` (``(c, G, w)``) as ``(2, c, G, w)`` bytes (u8 for u4,
    i8 for i4): the low nibbles, then the high ones.  Eight bytes at a time (as u64 words, a
    third of the byte-wise passes' cost) when the block's bytes allow; byte by byte otherwise."""
    u = scratch.take("codes", (2, *b.shape), np.uint8)
    flat = b.reshape(-1)
    if flat.size % 8 == 0 and flat.flags.c_contiguous and flat.ctypes.data % 8 == 0:
        words, halves = flat.view(np.uint64), u.reshape(2, -1).view(np.uint64)
        np.bitwise_and(words, _LOW, out=halves[0])
        np.right_shift(words, _FOUR, out=halves[1])
        np.bitwise_and(halves[1], _LOW, out=halves[1])
        if et is ElementType.i4:  # a nibble n with its sign bit set is n - 16: n | 0xF0 in two's complement
            sign = scratch.take("signs", halves[0].shape, np.uint64)
            for half in halves:  # (n & 8) * 0x1E is 0 or 0xF0 in each byte, no carry between them
                np.bitwise_and(half, _SIGN, out=sign)
                np.multiply(sign, np.uint64(0x1E), out=sign)
                np.bitwise_or(half, sign, out=half)
            return u.view(np.int8)
        return u
    if et is ElementType.u4:
        np.bitwise_and(b, 0xF, out=u[0])
        np.right_shift(b, 4, out=u[1])
        return u
    signed = u.view(np.int8)  # i4: each nibble's sign bit moved to the byte's, then an arithmetic shift
    np.left_shift(b, 4, out=u[0])
    np.right_shift(signed[0], 4, out=signed[0])
    np.right_shift(b.view(np.int8), 4, out=signed[1])
    return signed
