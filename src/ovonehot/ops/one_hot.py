"""OneHot-1 and OneHot-16 with OpenVINO's exact semantics.

Spec: the OpenVINO OneHot-1 operation spec and OneHot-16, which adds
``negative_indices_mode``.  Where the written spec and OpenVINO's code differ,
this module follows the code (``src/core/src/op/one_hot.cpp``,
``shape_inference/include/one_hot_shape_inference.hpp``), as users meet it:

* indices and depth must be *integral* in OpenVINO's sense (anything but a float):
  i8..u64, boolean and sub-byte integers pass, although the spec says i32/i64;
* depth/on/off must be scalars only when their shape is fully static, so ``[1]``
  fails but ``[?]`` passes;
* the axis is normalized against rank(indices) + 1 and the normalized value sticks;
  it is not checked when the indices rank is dynamic;
* depth 0 is allowed (an empty dimension), a negative known depth is an error;
* every index is compared as an exact integer (never truncated): OneHot-1 and
  ``ignore_negative`` turn on positions with 0 <= v < depth; ``normalize`` first maps
  v < 0 to v + depth.  on/off values are copied bit for bit (NaN payloads, -0.0).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import budget as _budget
from .. import threads
from ..errors import InputError, NegativeDepthError, ResourceLimitError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr, int_attr
from .common.binding import folded, typed
from .common.bounds import depth_interval
from .common.shape_util import normalize_axis
from .common.spec import Kernel, OpSpec, RunMode, TensorInfo

# Largest output one OneHot may allocate, and half of what is available when less: see
# ovonehot.budget (a depth fed from a Parameter can be anything).
MAX_OUTPUT_BYTES = _budget.MAX_OUTPUT_BYTES
available_memory = _budget.available_memory


def output_budget() -> int:
    """The largest OneHot output allowed now (``ovonehot.budget.memory_budget``)."""
    return _budget.memory_budget(available_memory())


class NegativeIndicesMode(enum.Enum):
    """OneHot-16's ``negative_indices_mode``.  The spec page spells it ``ignore-negative``;
    OpenVINO accepts only the underscore."""

    IGNORE_NEGATIVE = "ignore_negative"
    NORMALIZE = "normalize"


@dataclass(frozen=True, slots=True)
class OneHotAttrs:
    axis: int
    negative_indices_mode: NegativeIndicesMode = NegativeIndicesMode.IGNORE_NEGATIVE


def parse_one_hot_1(node: Node) -> OneHotAttrs:
    # OneHot-1 has no negative_indices_mode: OpenVINO ignores it if present.
    return OneHotAttrs(int_attr(node, "axis"))


def parse_one_hot_16(node: Node) -> OneHotAttrs:
    mode = enum_attr(node, "negative_indices_mode", NegativeIndicesMode, NegativeIndicesMode.IGNORE_NEGATIVE)
    return OneHotAttrs(int_attr(node, "axis"), mode)


def _is_scalar_or_dynamic(shape: PartialShape) -> bool:
    return not shape.is_static or shape.rank == 0


def infer_one_hot(attrs: OneHotAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    indices, depth, on_value, off_value = inputs
    if not (indices.element_type.is_dynamic or indices.element_type.is_integral):
        raise ValidationError(f"Indices must be integral element type. Got {indices.element_type}.")
    if not (depth.element_type.is_dynamic or depth.element_type.is_integral):
        raise ValidationError(f"Depth must be integral element type. Got {depth.element_type}.")
    if not on_value.element_type.compatible(off_value.element_type):
        raise ValidationError(
            "on_value element type must be compatible with off_value element type. "
            f"Got {on_value.element_type} and {off_value.element_type}."
        )
    for label, info in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if not _is_scalar_or_dynamic(info.shape):
            raise ValidationError(f"{label} input must be scalar. Got shape {info.shape}.")
    if not indices.shape.rank_is_static:
        return [TensorInfo(on_value.element_type, PartialShape.dynamic())]
    axis = normalize_axis(attrs.axis, indices.shape.rank + 1)  # an axis of the output
    dims = list(indices.shape)
    dims.insert(axis, depth_dimension(depth))
    return [TensorInfo(on_value.element_type, PartialShape(tuple(dims)))]


def depth_dimension(depth: TensorInfo) -> Dimension:
    """The output's depth dimension: the value when known, an interval from bounds, else ``?``."""
    return depth_interval(depth)


def evaluate_one_hot(attrs: OneHotAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return evaluate_one_hot_into(attrs, inputs, (None,))


def evaluate_one_hot_into(
    attrs: OneHotAttrs, inputs: Sequence[np.ndarray], out: Sequence[np.ndarray | None]
) -> list[np.ndarray]:
    """``evaluate_one_hot`` writing into ``out[0]`` when it has the output's shape and dtype."""
    indices, depth, on_value, off_value = inputs  # arrays: the evaluator hands over nothing else
    if depth.ndim or on_value.ndim or off_value.ndim:
        for label, arr in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
            if arr.ndim != 0:
                raise InputError(f"{label} input must be scalar. Got shape {list(arr.shape)}.")
    if on_value.dtype != off_value.dtype:
        raise InputError(f"on_value and off_value differ in type: {on_value.dtype} and {off_value.dtype}")
    try:
        axis = normalize_axis(attrs.axis, indices.ndim + 1)
    except ValidationError as exc:  # only a dynamic-rank input gets here: the input is wrong, not the IR
        raise InputError(f"indices of rank {indices.ndim}: {exc}") from None
    if depth.dtype == np.bool_ or depth.dtype == ElementType.u2.numpy_dtype:
        # OpenVINO reads the depth through its shape inference, which refuses these types
        raise ValidationError(f"Element not supported: OpenVINO cannot read a {depth.dtype} depth value.")
    n = int(depth.astype(np.int64)) if depth.dtype != np.uint64 else _u64_depth(depth)
    if n < 0:
        raise NegativeDepthError(f"OneHot depth value can't be negative. Got {n}.")
    return [one_hot(indices, n, on_value, off_value, axis, attrs.negative_indices_mode, out=out[0])]


def _u64_depth(depth: np.ndarray) -> int:
    value = int(depth)
    return value if value < 2**63 else value - 2**64  # read as int64, as OpenVINO does


# Outputs up to this size skip the memory-available check (a read of /proc/meminfo per run).
SMALL_OUTPUT_BYTES = 1 << 16
# Outputs from this size are filled and scattered by several threads (NumPy's fill and
# fancy assignment release the GIL) when they are given (mapped already); smaller ones are not
# worth the hand-off.
THREADED_OUTPUT_BYTES = 8 << 20
# Rows of a threaded output are filled and scattered in parts of about this size.
FUSED_CHUNK_BYTES = 4 << 20


def one_hot(
    indices: np.ndarray,
    depth: int,
    on_value: np.ndarray,
    off_value: np.ndarray,
    axis: int,
    negative_indices_mode: NegativeIndicesMode = NegativeIndicesMode.IGNORE_NEGATIVE,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The kernel.  ``axis`` is already normalized; ``depth`` >= 0.

    ``out``: an array to write the result into (every element is written); used when it
    is C-contiguous, writeable and has the output's shape and dtype, else a fresh array is
    made.  Returns the array written.

    Memory: the output plus O(len(indices)) index arrays; never an
    (indices x depth) temporary.  Fills with off_value, then scatters on_value.
    """
    out_shape = (*indices.shape[:axis], depth, *indices.shape[axis:])
    dtype = on_value.dtype
    if out is not None and not (
        out.shape == out_shape
        and out.dtype == dtype
        and out.flags.c_contiguous
        and out.flags.writeable
        and not np.may_share_memory(out, indices)
    ):
        out = None
    if out is None:
        # An all-zero off value (the usual 0.0 / 0 / False) takes np.zeros for a fresh output:
        # zero pages from the OS instead of a pass writing zeros.
        zero_off = dtype.kind in "biufV" and _all_zero_bits(off_value)
        nbytes = math.prod(out_shape) * dtype.itemsize
        if nbytes > SMALL_OUTPUT_BYTES and (
            nbytes > MAX_OUTPUT_BYTES or nbytes > (budget := output_budget())
        ):
            limit = MAX_OUTPUT_BYTES if nbytes > MAX_OUTPUT_BYTES else budget
            what = "allowed" if limit == MAX_OUTPUT_BYTES else "allowed (half the memory available)"
            raise ResourceLimitError(
                f"OneHot output {list(out_shape)} of {dtype} needs {nbytes} bytes, more than the {limit} {what}"
            )
        out = np.zeros(out_shape, dtype=dtype) if zero_off else np.empty(out_shape, dtype=dtype)
        filled = zero_off
        fresh = True
    else:
        filled = fresh = False
    outer = math.prod(indices.shape[:axis])
    inner = math.prod(indices.shape[axis:])
    # Fill and scatter through an unsigned-integer view of the same width, so float
    # values (NaN payloads, -0.0, signalling NaNs) are copied as bits, never as numbers.
    bits_out, on_bits, off_bits = _bit_views(out, on_value, off_value)
    flat_out = bits_out.reshape(-1)
    idx = indices.reshape(-1)
    # Threads for an output whose pages are mapped already (share_outputs, out=).  A fresh
    # output's pages are first touched here: page faults from several threads of one process
    # contend in the kernel, which measured 2-4x slower than one thread (bench_onehot, with
    # OpenVINO's CPU plugin in the same process) while one thread stays under np.full's time.
    parts = _parts(out.nbytes) if out.dtype != object and not fresh else 1
    if parts == 1:  # (the common small case, without the closures)
        if not filled:
            flat_out.fill(off_bits)
        if idx.size and depth:
            flat_out[_hot_flat_positions(idx, depth, inner, negative_indices_mode)] = on_bits
        return out
    _threaded(flat_out, idx, depth, outer, inner, on_bits, off_bits, filled, negative_indices_mode, parts)
    return out


def _threaded(
    flat_out: np.ndarray,
    idx: np.ndarray,
    depth: int,
    outer: int,
    inner: int,
    on_bits: Any,
    off_bits: Any,
    filled: bool,
    mode: NegativeIndicesMode,
    parts: int,
) -> None:
    """The fill (unless ``filled``) and the scatter of a large output, in ``parts`` threads."""
    if not filled and outer >= parts and inner and depth:
        # Each thread fills a few MiB of its rows, then scatters into them while they are in
        # cache, instead of a pass over the whole output per step.
        row = depth * inner
        rows = max(1, FUSED_CHUNK_BYTES // (row * flat_out.dtype.itemsize))

        def fill_and_scatter(lo: int, hi: int) -> None:  # outer rows lo..hi
            for a in range(lo, hi, rows):
                b = min(a + rows, hi)
                flat_out[a * row : b * row].fill(off_bits)
                part = idx[a * inner : b * inner]
                flat_out[_hot_flat_positions(part, depth, inner, mode, a * inner)] = on_bits

        threads.run_parts(parts, outer, fill_and_scatter)
        return
    if not filled:
        threads.run_parts(parts, flat_out.size, lambda lo, hi: flat_out[lo:hi].fill(off_bits))
    if outer * inner == 0 or depth == 0:
        return

    def scatter(lo: int, hi: int) -> None:  # indices lo..hi (flat); positions are disjoint
        flat_out[_hot_flat_positions(idx[lo:hi], depth, inner, mode, lo)] = on_bits

    threads.run_parts(parts, idx.size, scatter)


def _parts(nbytes: int) -> int:
    """Threads for an output of ``nbytes``: the run's (``threads.current``, at most the cores), up to 4."""
    if nbytes < THREADED_OUTPUT_BYTES:
        return 1
    return min(4, threads.current())


def _hot_flat_positions(
    idx: np.ndarray, depth: int, inner: int, mode: NegativeIndicesMode, base: int = 0
) -> np.ndarray:
    """Flat output positions turned on, for indices flattened as (outer, inner); ``idx`` is
    the part of the flat indices that starts at flat index ``base``.

    Index ``k = o * inner + i`` with value ``v`` lands at ``(o * depth + v) * inner + i``
    in the flattened output.  One 1-D fancy assignment is several times faster than
    indexing an (outer, depth, inner) view with three index arrays.
    """
    if idx.dtype.kind == "u" and idx.dtype.itemsize == 8:
        k = (idx < np.uint64(depth)).nonzero()[0]  # u64 values above 2**63 are large, not negative
        values = idx[k].astype(np.int64)
    else:
        values = idx.astype(np.int64, copy=False)
        if mode is NegativeIndicesMode.NORMALIZE:
            values = np.where(values < 0, values + depth, values)
        # 0 <= v < depth in one comparison: a negative v read as unsigned is above any depth
        k = (values.view(np.uint64) < np.uint64(depth)).nonzero()[0]
        values = values[k]
    if base:
        k += base
    if inner == 1:
        flat: np.ndarray = k * depth + values
    else:
        o, i = np.divmod(k, inner)
        flat = (o * depth + values) * inner + i
    return flat


_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _all_zero_bits(value: np.ndarray) -> bool:
    view = _UINT_OF_SIZE.get(value.dtype.itemsize)
    if view is None:
        return not np.asarray(value).reshape(1).view(np.uint8).any()
    return bool(value.view(view)[()] == 0)


def _bit_views(
    out: np.ndarray, on_value: np.ndarray, off_value: np.ndarray
) -> tuple[np.ndarray, Any, Any]:  # the output (as bits) and on/off as its scalars
    if out.dtype.kind in "biuO":
        return out, on_value[()], off_value[()]
    view = _UINT_OF_SIZE[out.dtype.itemsize]
    return out.view(view), on_value.view(view)[()], off_value.view(view)[()]


_RUNTIME_DEPTH = frozenset({np.dtype(np.int32), np.dtype(np.int64)})


def bind_one_hot(
    attrs: OneHotAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
) -> Kernel | None:
    """Folded on and off values, indices of a static rank: the output's type, fill and bits
    decided once (and the depth, when folded; an i32/i64 scalar depth a run decides, such as a
    max of the labels + 1, is read per run); each run allocates (zeros when off is all-zero
    bits) and scatters.  Outputs past ``SMALL_OUTPUT_BYTES`` and negative depths go to the
    kernel (its budget check, its threads, its errors)."""
    indices, depth_info, on_info, off_info = inputs
    depth, on_value, off_value = folded(depth_info), folded(on_info), folded(off_info)
    if on_value is None or off_value is None or not indices.shape.rank_is_static:
        return None
    if on_value.ndim or off_value.ndim or on_value.dtype != off_value.dtype:
        return None
    if on_value.dtype.kind not in "biuf" or on_value.dtype.itemsize not in _UINT_OF_SIZE:
        return None
    fixed = -1  # (a depth read per run)
    if depth is None:
        if depth_info.element_type.numpy_dtype not in _RUNTIME_DEPTH or depth_info.shape != PartialShape(()):
            return None
    elif depth.ndim or depth.dtype.kind not in "iu":
        return None
    else:
        fixed = int(depth.astype(np.int64)) if depth.dtype != np.uint64 else _u64_depth(depth)
        if fixed < 0:
            return None
    try:
        axis = normalize_axis(attrs.axis, indices.shape.rank + 1)
    except ValidationError:
        return None
    dtype = on_value.dtype
    bits = _UINT_OF_SIZE[dtype.itemsize]
    on_bits, off_bits = on_value.view(bits)[()], off_value.view(bits)[()]
    zero_off = off_bits == 0
    mode = attrs.negative_indices_mode

    def kernel(values: Sequence[np.ndarray]) -> list[np.ndarray]:
        idx = values[0]
        shape = idx.shape
        n = fixed if fixed >= 0 else int(values[1])
        out_shape = (*shape[:axis], n, *shape[axis:])
        if n < 0 or math.prod(out_shape) * dtype.itemsize > SMALL_OUTPUT_BYTES:
            return evaluate_one_hot(attrs, values)
        size = math.prod(out_shape)
        flat = np.zeros(size, dtype=bits) if zero_off else np.full(size, off_bits)
        if idx.size and n:
            flat[_hot_flat_positions(idx.reshape(-1), n, math.prod(shape[axis:]), mode)] = on_bits
        return [flat.view(dtype).reshape(out_shape)]

    return kernel


def specialize_one_hot(
    attrs: OneHotAttrs, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo], mode: RunMode
) -> Kernel | None:
    """OneHot for a plan: writing into the buffer ``mode.out`` offers (``share_outputs``), else
    bound to the signature (``bind_one_hot``)."""
    buffer = mode.out[0] if mode.out else None
    if buffer is not None:
        return lambda arrays: evaluate_one_hot_into(attrs, arrays, (buffer,))
    return bind_one_hot(attrs, inputs, outputs) if typed(inputs, outputs) else None


SPECS = (
    OpSpec(
        type="OneHot",
        version=1,
        since=1,
        inputs=4,
        parse=parse_one_hot_1,
        infer=infer_one_hot,
        evaluate=evaluate_one_hot,
        specialize=specialize_one_hot,
        copies_values=True,
    ),
    OpSpec(
        type="OneHot",
        version=16,
        since=16,
        inputs=4,
        parse=parse_one_hot_16,
        infer=infer_one_hot,
        evaluate=evaluate_one_hot,
        specialize=specialize_one_hot,
        copies_values=True,
    ),
)
