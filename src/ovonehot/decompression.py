"""Weight decompression run inside its consumer: a compressed weight never held decompressed.

NNCF and OpenVINO's compression write a weight as a chain of nodes from an integer Constant
(u4/i4/u8/i8, per group or per channel)::

    Constant q -> Convert (f16|f32) -> [Subtract zero point] -> [Multiply scale] -> [Reshape]
               -> [Convert f32] -> MatMul (either input, transpose either way) / Gather (axis 0)

(the zero point and the scale Constants, or Converts of Constants).  Run node by node, each run
decompresses the whole weight (a 136M-value embedding is 545 MB of f32) and the interpreter
pays every element-wise node over it.  A plan (``evaluate._make_plan``) instead hands such a
consumer a *fused* kernel made here, and the chain's nodes do not run:

* a MatMul decompresses its weight by blocks of output rows/columns (``BLOCK_ELEMENTS``
  weight elements at a time) and multiplies each block: every output element of a MatMul is a
  sum over the contracted axis alone.  In exact mode each block is summed in the reference's
  sequential order (blocks kept under ``matmul.SEQUENTIAL_LIMIT`` multiply-adds), so each
  output has the reference's bits, those of the unfused MatMul.  One difference: an unfused
  exact MatMul larger than SEQUENTIAL_LIMIT switches to BLAS for speed (a few ulp off the
  reference), and BLAS's bits depend on the matrix's width (measured: a 1x896 by 896x37984
  product differs from the same in 1170-column blocks), so blocks could not reproduce them;
  the fused kernel keeps the reference's order there (an LM head's logits now equal
  OpenVINO's reference), and uses BLAS only when one weight row alone exceeds the limit.
  Fast mode multiplies each block by BLAS;
* a Gather on axis 0 (batch_dims 0, every index in range) decompresses only the rows it
  gathers.

The decompressed values are the chain's, bit for bit, in both modes: a block is the chain's
nodes' own reference kernels on the block's slice of each Constant (the element-wise kernels
are position-independent), or, where the chain is the usual integer one (``_Arith``), the same
values computed in f32 without the per-node cost -- see ``_Arith`` for why they are the same
bits, which the conformance cases check against the unfused chain.

Fast mode multiplies by the group algebra instead where the weight's rows are the MatMul's
outputs (:mod:`ovonehot.grouped`: ``sum_G s_G (x_G . q_G - z_G sum x_G)`` from the codes, no
decompressed block): the weights are then left unrounded to f16, as the CPU plugin leaves
them, which moves an LLM's logits by 1e-4..1e-3 from OpenVINO's reference, inside the rounding
envelope of ``diff``; other layouts keep the f16 rounding and differ from exact only in the
sums' order.

Packed u4/i4 Constants (:class:`ovonehot.packed.Packed`) are unpacked a block of rows at a
time.  Optionally (``OVONEHOT_WEIGHT_CACHE`` bytes, :class:`WeightCache`) the decompressed
blocks are kept between runs, trading memory for time.

A case the fused kernel does not decide (a shape the plan did not foresee, an index out of
range, a Gather on another axis) runs the chain whole and the consumer's reference kernel,
which computes it or words the error.  Runs with hooks or kept outputs run every node (the
plan fuses nothing then), so per-layer views still see the chain's nodes.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from . import grouped
from .budget import check_allocation, weight_cache_bytes
from .infer import Inference, NodePlan
from .ops.common.spec import Kernel
from .ops.matmul import SEQUENTIAL_LIMIT, matmul
from .packed import Packed
from .scratch import Scratch, scratch
from .types import ElementType

__all__ = ["BLOCK_ELEMENTS", "NO_FUSION", "Chain", "Fusion", "WeightCache", "chain_nodes", "chains", "fusion"]

# Weight elements decompressed at once by a fused MatMul: 256 KiB of f32, which with its
# scratch stays in a core's L2 cache through the block's passes (measured on the 2-core VM:
# 2.7-3.7 ns per weight for blocks of 64K-256K, 6.4 ns for blocks of 1M).
BLOCK_ELEMENTS = 1 << 16
# The integer types a chain may start from.
SOURCE_TYPES = frozenset({ElementType.u4, ElementType.i4, ElementType.u8, ElementType.i8})
# An operand (zero point, scale) larger than this is not a decompression operand.
MAX_OPERAND_ELEMENTS = 1 << 24
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


@dataclass(frozen=True, slots=True)
class _Step:
    """One element-wise node of a chain: Convert (no operand), Subtract or Multiply."""

    plan: NodePlan
    operand: np.ndarray | None = None
    operand_first: bool = False  # the operand is the node's input 0

    def apply(self, block: np.ndarray, operand: np.ndarray | None) -> np.ndarray:
        """The node's reference kernel on a block (and the operand's matching slice)."""
        args = [block] if operand is None else [operand, block] if self.operand_first else [block, operand]
        return np.asarray(self.plan.spec.reference(self.plan.attrs, args)[0])


@dataclass(frozen=True, slots=True)
class _Arith:
    """The usual chain, computed in f32: ``q`` an integer of at most 8 bits, converted to ``T``
    (f16 or f32), minus an integral zero point of magnitude <= 1024, times a scale, in ``T``,
    then converted to f32 (or left in ``T``).

    Why the bits are the chain's: ``q - z`` is an integer of magnitude < 2^11, exact in f16 and
    f32; for T = f16, its product with an f16 scale (11 significant bits) has at most 23
    significant bits, exact in f32, so rounding it once to f16 is the f16 Multiply's correctly
    rounded product (OpenVINO's f16 arithmetic computes in f32 and rounds once); for T = f32 it
    is the f32 Multiply itself.  The final Convert f16 -> f32 is exact.

    NumPy's f32 -> f16 cast takes some 8 ns per value here; when the scales guarantee every
    product is zero or an f16 normal number (``normal``: finite scales, every nonzero one at
    least 2^-14, and ``max|s| * max|q - z|`` at most 65504), the rounding is done in f32 by
    Veltkamp's splitting instead (``c = 8193 x; c - (c - x)``: ``x`` rounded to 24 - 13 = 11
    significant bits, three passes), which is the f16 rounding there: checked for every
    positive normal f16 scale times every integer 1..1279 whose product is an f16 normal
    number (27.6M products, ``test_veltkamp_rounds_as_f16``; the negative ones mirror them, 0
    and -0 stay).
    """

    source: np.dtype  # how to read ``q``: uint8 (u4, read as its byte), int8, or the dtype itself
    zero: np.ndarray | None  # f32
    scale: np.ndarray | None  # f32
    round16: bool  # T is f16
    normal: bool  # every rounded value is zero or an f16 normal number
    out: np.dtype

    def apply(
        self, q: np.ndarray, zero: np.ndarray | None, scale: np.ndarray | None, scratch: Scratch | None
    ) -> np.ndarray:
        src = q.view(np.uint8) if self.source == np.uint8 and q.dtype != np.uint8 else q
        if src.dtype != self.source:
            src = src.astype(self.source)
        x = (
            np.empty(q.shape, np.float32)
            if scratch is None
            else scratch.take("decompressed", q.shape, np.float32, BLOCK_ELEMENTS)
        )
        if zero is not None:
            np.subtract(src, zero, out=x)
        else:
            np.copyto(x, src, casting="unsafe")
        if scale is not None:
            np.multiply(x, scale, out=x)
        if not self.round16:
            return x if self.out == _F32 else x.astype(self.out)
        if self.out != _F32 or not self.normal:
            with np.errstate(over="ignore"):
                h = x.astype(np.float16)
            return h if self.out == _F16 else h.astype(self.out)
        split = (
            np.empty(q.shape, np.float32)
            if scratch is None
            else scratch.take("split", q.shape, np.float32, BLOCK_ELEMENTS)
        )
        return round_to_f16(x, split)


def round_to_f16(x: np.ndarray, split: np.ndarray) -> np.ndarray:
    """``x`` (f32, every value zero or within f16's normal range) rounded to f16's 11
    significant bits, in place, by Veltkamp's splitting (``split``: scratch of ``x``'s shape)."""
    np.multiply(x, np.float32(8193.0), out=split)  # 2^13 + 1
    np.subtract(split, x, out=x)
    np.subtract(split, x, out=x)
    return x


@dataclass(frozen=True, slots=True)
class Chain:
    """A decompression chain: its integer Constant, its element-wise steps on the Constant's
    shape, the Reshape to the weight's ``shape`` (if any) and the Converts after it."""

    source: np.ndarray | Packed  # (a large u4/i4 one kept packed: unpacked a block at a time)
    steps: tuple[_Step, ...]
    after: tuple[_Step, ...]
    shape: tuple[int, ...]  # the weight the consumer reads
    nodes: tuple[int, ...]  # the chain's node indices, its Constant first, the weight's last
    dtype: np.dtype  # the weight's
    arith: _Arith | None = field(default=None, compare=False)

    @property
    def final(self) -> int:
        return self.nodes[-1]

    def source_axis(self, axis: int) -> int | None:
        """The axis of the Constant whose slices are the weight's slices along ``axis``."""
        s, w = self.source.shape, self.shape
        if s == w:
            return axis
        if axis == 0 and s and w and s[0] == w[0]:
            return 0
        if axis == len(w) - 1 and s and w and s[-1] == w[-1]:
            return len(s) - 1
        return None

    def block(self, axis: int, index: slice | np.ndarray, scratch: Scratch | None = None) -> np.ndarray:
        """The weight's slice ``index`` along ``axis`` (rows picked by an index array), as the
        chain computes it, without decompressing the rest (in ``scratch``'s buffers, when given:
        valid until the next block)."""
        pre = self.source_axis(axis)
        if pre is None:
            raise ValueError("ovonehot bug: no source axis for this weight axis")
        rank = self.source.ndim
        q = _take_source(self.source, pre, index)
        if self.arith is not None:
            a = self.arith
            zero, scale = (_operand_slice(v, pre, rank, index) for v in (a.zero, a.scale))
            x = a.apply(q, zero, scale, scratch)
        else:
            x = q
            for step in self.steps:
                x = step.apply(x, _operand_slice(step.operand, pre, rank, index))
        shape = list(self.shape)
        shape[axis] = q.shape[pre]
        x = x.reshape(shape)
        for step in self.after:
            x = step.apply(x, None)
        return x

    def whole(self) -> np.ndarray:
        return self.block(0, slice(None)) if self.shape else self._scalar()

    def _scalar(self) -> np.ndarray:
        x = np.asarray(self.source)
        for step in (*self.steps, *self.after):
            x = step.apply(x, step.operand)
        return x


def _take_source(source: np.ndarray | Packed, axis: int, index: slice | np.ndarray) -> np.ndarray:
    """The Constant's slice: a packed one unpacks only those rows (along axis 0; along
    another axis it unpacks whole, for the block's time)."""
    if isinstance(source, Packed):
        return source.take(index) if axis == 0 else _take(source.unpack(), axis, index)
    return _take(source, axis, index)


def _take(array: np.ndarray, axis: int, index: slice | np.ndarray) -> np.ndarray:
    if isinstance(index, slice):
        return array[(slice(None),) * axis + (index,)]
    return np.take(array, index, axis=axis)


def _operand_slice(
    operand: np.ndarray | None, axis: int, rank: int, index: slice | np.ndarray
) -> np.ndarray | None:
    """An operand's slice matching the Constant's slice along ``axis`` (operands broadcast to
    the Constant's shape: an axis they lack or hold once is not sliced)."""
    if operand is None:
        return None
    at = axis - (rank - operand.ndim)
    if at < 0 or operand.shape[at] == 1:
        return operand
    return _take(operand, at, index)


# ---------------------------------------------------------------------------------------
# Finding the chains
# ---------------------------------------------------------------------------------------

_ELEMENTWISE = frozenset({"convert", "subtract", "multiply"})


@dataclass(frozen=True, slots=True)
class _Consumer:
    index: int
    port: int  # the input the weight feeds
    chain: Chain


def _readers(inference: Inference) -> list[list[tuple[int, int]]]:
    """Per node, the (node, input port) pairs that read any of its outputs."""
    out: list[list[tuple[int, int]]] = [[] for _ in inference.graph.nodes]
    for i, srcs in enumerate(inference.graph.sources):
        for port, s in enumerate(srcs):
            out[s.node].append((i, port))
    return out


def chains(inference: Inference) -> tuple[_Consumer, ...]:
    """Every MatMul/Gather input fed by a decompression chain that only it (and other such
    consumers of the same chain) reads; found once per inference."""
    cached = inference.cache.get("decompression chains")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    readers = _readers(inference)
    found: dict[int, Chain | None] = {}
    consumers: list[_Consumer] = []
    for i, p in enumerate(inference.plans):
        kind = p.spec.type.lower()
        ports = (0, 1) if kind == "matmul" else (0,) if kind == "gather" else ()
        for port in ports:
            src = inference.graph.sources[i][port]
            if src.node not in found:
                found[src.node] = _match(inference, readers, src.node)
            chain = found[src.node]
            if chain is not None and _fits(inference, i, port, chain):
                consumers.append(_Consumer(i, port, chain))
    fused = {c.chain.final for c in consumers}
    by_final = {f: {(c.index, c.port) for c in consumers if c.chain.final == f} for f in fused}
    # A chain whose weight another node also reads runs as it is (for that node).
    result = tuple(c for c in consumers if set(readers[c.chain.final]) == by_final[c.chain.final])
    inference.cache["decompression chains"] = result
    return result


def chain_nodes(inference: Inference) -> frozenset[int]:
    """The nodes of every chain a plan may fuse (they may never run node by node)."""
    return frozenset(k for c in chains(inference) for k in c.chain.nodes)


def _fits(inference: Inference, index: int, port: int, chain: Chain) -> bool:
    """The consumer can take this weight by blocks: a 2-D MatMul weight, or a Gather's data."""
    p = inference.plans[index]
    if p.spec.type.lower() == "matmul":
        return len(chain.shape) == 2 and chain.source_axis(_matmul_axis(p, port)) is not None
    return (
        len(chain.shape) >= 1 and chain.source_axis(0) is not None and getattr(p.attrs, "batch_dims", 0) == 0
    )


def _matmul_axis(p: NodePlan, port: int) -> int:
    """The weight axis that indexes the MatMul's outputs."""
    if port == 1:
        return 0 if p.attrs.transpose_b else 1
    return 1 if p.attrs.transpose_a else 0


def _match(inference: Inference, readers: list[list[tuple[int, int]]], final: int) -> Chain | None:
    """The chain ending at node ``final`` (its output 0), or None."""
    walked: list[tuple[int, _Step | None]] = []  # (node, its step; None: the Reshape), last first
    i = final
    while inference.plans[i].spec.type.lower() != "constant":
        p = inference.plans[i]
        kind = p.spec.type.lower()
        if len(inference.outputs[i]) != 1 or (walked and len(readers[i]) != 1):
            return None
        if kind == "reshape" and all(s is not None for _, s in walked):
            walked.append((i, None))
            i = inference.graph.sources[i][0].node
            continue
        if kind not in _ELEMENTWISE:
            return None
        step, before = _step(inference, p, i)
        if step is None:
            return None
        walked.append((i, step))
        i = before
    return _chain(inference, readers, i, walked[::-1])


def _step(inference: Inference, p: NodePlan, i: int) -> tuple[_Step | None, int]:
    """The element-wise node ``i`` as a step, and the node its chain input comes from."""
    sources = inference.graph.sources[i]
    if any(s.output != 0 for s in sources):
        return None, -1
    if p.spec.type.lower() == "convert":
        return _Step(p), sources[0].node
    out = inference.outputs[i][0].shape
    for chain_port in (0, 1) if p.spec.type.lower() == "multiply" else (0,):
        other = sources[1 - chain_port].node
        if inference.outputs[sources[chain_port].node][0].shape != out:
            continue
        operand = _operand(inference, other)
        if operand is not None:
            return _Step(p, operand, chain_port == 1), sources[chain_port].node
    return None, -1


def _operand(inference: Inference, i: int) -> np.ndarray | None:
    """The value of a zero point or scale: a Constant, or a Convert of one (small)."""
    p = inference.plans[i]
    kind = p.spec.type.lower()
    if kind == "convert":
        src = inference.graph.sources[i][0].node
        value = _operand(inference, src)
        if value is None:
            return None
        try:
            return np.asarray(p.spec.reference(p.attrs, [value])[0])
        except Exception:  # noqa: BLE001 - not a value this module can use: the chain runs unfused
            return None
    if kind != "constant":
        return None
    value = getattr(p.attrs, "value", None)
    if isinstance(value, Packed) and value.size <= MAX_OPERAND_ELEMENTS:
        value = value.unpack()  # (a large model's u4 zero points: kept packed by the reader)
    if not isinstance(value, np.ndarray) or value.size > MAX_OPERAND_ELEMENTS or value.dtype == object:
        return None
    return value


def _chain(
    inference: Inference,
    readers: list[list[tuple[int, int]]],
    const: int,
    nodes: list[tuple[int, _Step | None]],
) -> Chain | None:
    """The chain from Constant ``const`` through ``nodes`` (in order; a None step: the
    Reshape), when it starts with a Convert and only Converts follow its Reshape."""
    p = inference.plans[const]
    source = getattr(p.attrs, "value", None)
    if not nodes or not isinstance(source, np.ndarray | Packed) or len(readers[const]) != 1:
        return None
    if p.attrs.element_type not in SOURCE_TYPES:
        return None
    cut = next((n for n, (_, s) in enumerate(nodes) if s is None), len(nodes))
    steps = tuple(s for _, s in nodes[:cut] if s is not None)
    after = tuple(s for _, s in nodes[cut + 1 :] if s is not None)
    if not steps or steps[0].plan.spec.type.lower() != "convert":
        return None
    if any(s.plan.spec.type.lower() != "convert" for s in after):
        return None
    for k, _ in nodes[:cut]:  # every node before the Reshape keeps the Constant's shape
        shape = inference.outputs[k][0].shape
        if not shape.is_static or shape.to_shape() != source.shape:
            return None
    info = inference.outputs[nodes[-1][0]][0]
    dtype = info.element_type.numpy_dtype
    if not info.shape.is_static or dtype is None:
        return None
    weight = info.shape.to_shape()
    if math.prod(weight) != source.size:
        return None
    chain = Chain(source, steps, after, weight, (const, *(k for k, _ in nodes)), dtype)
    return replace(chain, arith=_arith(inference, chain))


def _arith(inference: Inference, chain: Chain) -> _Arith | None:
    """The chain as ``_Arith`` when it is the usual integer one, else None."""
    et = inference.plans[chain.nodes[0]].attrs.element_type
    steps = list(chain.steps)
    t = _convert_dtype(steps.pop(0))
    if t not in (_F16, _F32):
        return None
    zero = scale = None
    if steps and steps[0].plan.spec.type.lower() == "subtract" and not steps[0].operand_first:
        z = steps.pop(0).operand
        if z is None or z.dtype != t or not np.all(np.isfinite(z)) or np.any(np.abs(z) > 1024):
            return None
        if np.any(z != np.round(z)):
            return None
        zero = z.astype(np.float32)
    if steps and steps[0].plan.spec.type.lower() == "multiply":
        s = steps.pop(0).operand
        if s is None or s.dtype != t:
            return None
        scale = s.astype(np.float32)
    out = t
    for step in (*steps, *chain.after):  # (Converts only: no other step may follow)
        if _convert_dtype(step) != _F32:
            return None
        out = _F32
    lo, hi = _SOURCE_RANGES[et]
    zs = (0.0, 0.0) if zero is None or not zero.size else (float(zero.min()), float(zero.max()))
    m = max(abs(hi - zs[0]), abs(lo - zs[1]))
    normal = scale is None or _normal_products(scale, m)
    source = (
        np.dtype(np.uint8) if et is ElementType.u4 else np.dtype(np.int8) if et is ElementType.i4 else None
    )
    return _Arith(source or chain.source.dtype, zero, scale, t == _F16, normal, out)


# The values of each source type.
_SOURCE_RANGES = {
    ElementType.u4: (0, 15),
    ElementType.i4: (-8, 7),
    ElementType.u8: (0, 255),
    ElementType.i8: (-128, 127),
}


def _normal_products(scale: np.ndarray, m: float) -> bool:
    """Every ``scale * k`` for integers ``0 < |k| <= m`` is an f16 normal number (or there are
    no scales): what the in-place rounding of ``_Arith`` needs."""
    if not scale.size:
        return True
    a = np.abs(scale.astype(np.float64))
    if not np.all(np.isfinite(a)):
        return False
    nonzero = a[a != 0]
    return (not nonzero.size or float(nonzero.min()) >= 2.0**-14) and float(a.max()) * m <= 65504.0


def _convert_dtype(step: _Step) -> np.dtype | None:
    if step.plan.spec.type.lower() != "convert":
        return None
    to = step.plan.attrs.destination_type
    return to.numpy_dtype if isinstance(to, ElementType) else None


# ---------------------------------------------------------------------------------------
# The fused kernels
# ---------------------------------------------------------------------------------------


class WeightCache:
    """Decompressed weight blocks a model keeps between runs, up to ``budget`` bytes
    (``OVONEHOT_WEIGHT_CACHE``, :func:`ovonehot.budget.weight_cache_bytes`): the blocks met
    first are kept, the rest decompressed on every run.  Off by default."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._blocks: dict[tuple[int, int, int], np.ndarray] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[int, int, int]) -> np.ndarray | None:
        return self._blocks.get(key)

    def keep(self, key: tuple[int, int, int], block: np.ndarray) -> None:
        with self._lock:
            if key not in self._blocks and self.used + block.nbytes <= self.budget:
                self._blocks[key] = np.array(block, copy=True)
                self.used += block.nbytes


@dataclass(frozen=True, slots=True)
class Fusion:
    """What a plan fuses: the consumers' kernels, and the chain nodes that no longer run."""

    kernels: dict[int, Kernel]
    skipped: frozenset[int]


NO_FUSION = Fusion({}, frozenset())


def fusion(inference: Inference, exact: bool, folded: Mapping[int, object]) -> Fusion:
    """The fused kernels of a plan in this exactness, for the chains it does not fold."""
    kernels: dict[int, Kernel] = {}
    skipped: set[int] = set()
    room = weight_cache_bytes()
    cache = inference.cache.setdefault("decompressed weights", WeightCache(room)) if room else None
    for c in chains(inference):
        if c.index in folded:
            continue
        p = inference.plans[c.index]
        matmul = p.spec.type.lower() == "matmul"
        view = None if exact or not matmul else _grouped(inference, c.chain, p, c.port)
        # A weight the plan folded is multiplied as any other input, unless fast mode takes
        # it by the group algebra: then it does so in every plan (the same bits every run).
        if c.chain.final in folded and view is None:
            continue
        if matmul:
            kernels[c.index] = _matmul_kernel(c.chain, p, c.port, exact, cache, view)
        else:
            kernels[c.index] = _gather_kernel(c.chain, p)
        skipped.update(k for k in c.chain.nodes if k not in folded)
    return Fusion(kernels, frozenset(skipped))


def _unfused(chain: Chain, p: NodePlan, port: int, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The consumer's reference kernel on the whole decompressed weight: what the kernels
    below hand over to for inputs they do not decide (it computes them or words the error)."""
    args = list(inputs)
    args[port] = chain.whole()
    return list(p.spec.reference(p.attrs, args))


def _grouped(inference: Inference, chain: Chain, p: NodePlan, port: int) -> grouped.Grouped | None:
    """Fast mode's view of the weight for the group algebra (:mod:`ovonehot.grouped`): the
    usual chain, f32 out, its rows the MatMul's outputs, every product zero or an f16 normal
    number (an overflow or a subnormal is a value, not a rounding, to skip)."""
    a = chain.arith
    if a is None or a.out != _F32 or (a.round16 and not a.normal) or _matmul_axis(p, port) != 0:
        return None
    views: dict[int, grouped.Grouped | None] = inference.cache.setdefault("grouped weights", {})
    if chain.final not in views:  # (one per weight, shared by every plan)
        et = inference.plans[chain.nodes[0]].attrs.element_type
        views[chain.final] = grouped.view(chain.source, et, a.zero, a.scale, chain.shape)
    return views[chain.final]


def _matmul_kernel(
    chain: Chain, p: NodePlan, port: int, exact: bool, cache: WeightCache | None, view: grouped.Grouped | None
) -> Kernel:
    axis = _matmul_axis(p, port)
    n, k = chain.shape[axis], chain.shape[1 - axis]
    rows = max(1, BLOCK_ELEMENTS // max(k, 1))

    def kernel(inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        x = inputs[1 - port]
        if not isinstance(x, np.ndarray) or x.dtype != chain.dtype or x.ndim == 0 or n == 0:
            return _unfused(chain, p, port, inputs)
        if x.shape[_contracted(p, port, x.ndim)] != k:
            return _unfused(chain, p, port, inputs)
        if view is not None and (view.dense is not None or np.isfinite(x).all()):  # (the algebra's
            return [_grouped_product(view, x, p, port)]  # z sum x_g would turn an inf into NaN)
        rest = list(x.shape)
        del rest[_contracted(p, port, x.ndim)]
        out_axis = -1 if port == 1 or x.ndim == 1 else -2
        rest.insert(len(rest) + 1 + out_axis, n)  # (a budget check of the output, before any work)
        check_allocation(tuple(rest), chain.dtype.itemsize, "output 0")
        # Exact: each block summed in the reference's order (``matmul`` sums a block of at most
        # SEQUENTIAL_LIMIT multiply-adds so); BLAS only when a single weight row exceeds it.
        per_row = max(x.size // max(k, 1), 1) * k
        block = rows if not exact else min(rows, SEQUENTIAL_LIMIT // max(per_row, 1))
        blas = not exact or block < 1
        block = max(block, 1)
        buffers = scratch()
        parts = []
        for lo in range(0, n, block):
            w = cache.get((chain.final, lo, block)) if cache is not None else None
            if w is None:
                w = chain.block(axis, slice(lo, min(n, lo + block)), buffers)
                if cache is not None:
                    cache.keep((chain.final, lo, block), w)
            args = [x, w] if port == 1 else [w, x]
            parts.append(matmul(p.attrs, args, exact=not blas)[0])
        return [parts[0] if len(parts) == 1 else np.concatenate(parts, axis=out_axis)]

    return kernel


def _grouped_product(view: grouped.Grouped, x: np.ndarray, p: NodePlan, port: int) -> np.ndarray:
    """The MatMul by the group algebra: ``x`` with its contracted axis moved last, as rows."""
    if view.dense is not None and port == 1 and (x.ndim == 1 or not p.attrs.transpose_a):
        return grouped.product(view, x)  # (a small weight: x @ W^T by BLAS, any batch dims)
    if x.ndim == 1:
        return grouped.product(view, x.reshape(1, -1)).reshape(-1)
    last = not p.attrs.transpose_a if port == 1 else bool(p.attrs.transpose_b)
    xk = x if last else np.swapaxes(x, -1, -2)  # (..., M, k)
    check_allocation((*xk.shape[:-1], view.n), 4, "output 0")
    y = grouped.product(view, np.ascontiguousarray(xk).reshape(-1, view.k)).reshape(*xk.shape[:-1], view.n)
    return y if port == 1 else np.ascontiguousarray(np.swapaxes(y, -1, -2))


def _contracted(p: NodePlan, port: int, ndim: int) -> int:
    """The axis of the other input that the MatMul sums over."""
    if ndim == 1:
        return 0
    if port == 1:  # x @ w: x's columns (its rows when transposed)
        return -2 if p.attrs.transpose_a else -1
    return -1 if p.attrs.transpose_b else -2  # w @ x: x's rows


def _gather_kernel(chain: Chain, p: NodePlan) -> Kernel:
    size = chain.shape[0]

    def kernel(inputs: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        _, indices, axis = (np.asarray(a) for a in inputs)
        if axis.size != 1 or indices.dtype.kind not in "iu" or not size:
            return _unfused(chain, p, 0, inputs)
        if int(axis.reshape(-1)[0]) not in (0, -len(chain.shape)):
            return _unfused(chain, p, 0, inputs)
        flat = indices.reshape(-1).astype(np.int64)
        if flat.size and (int(flat.min()) < -size or int(flat.max()) >= size):
            return _unfused(chain, p, 0, inputs)
        flat = np.where(flat < 0, flat + size, flat)
        check_allocation(indices.shape + chain.shape[1:], chain.dtype.itemsize, "output 0")
        rows = chain.block(0, flat)
        return [np.ascontiguousarray(rows.reshape(indices.shape + chain.shape[1:]))]

    return kernel
