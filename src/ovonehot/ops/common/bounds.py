"""Value and bound propagation, as OpenVINO's ``evaluate_lower``/``evaluate_upper`` do it.

A tensor of a shape subgraph carries element-wise ``lower``/``upper`` bounds when its
value is not known exactly; equal bounds make the value known (``TensorInfo.value``),
which is how OpenVINO's ``get_constant_from_source`` sees values.  Bounds are held in
the tensor's own element type and, as in OpenVINO, the type's maximum stands for
"unbounded" (so an i32 ``ShapeOf`` of ``?`` has upper bound 2**31-1).

Where bounds start and stop (``src/core/src/bound_evaluate.cpp``): a ``ShapeOf``
starts them from its input's partial shape, a Constant has its value; a Parameter
has none, so anything depending on a Parameter's *value* (``ReduceMax(data)``) has
none either.

This module is the machinery (:func:`propagate`, called by ``infer``) and the rules
shared by several ops.  Which op uses which rule is a fact of the op: its spec's
``OpSpec.bounds`` (``None``: no bounds, values still fold), next to
``OpSpec.evaluate_types`` (where OpenVINO's kernel refuses the input types, nothing is
folded or bounded) and ``OpSpec.lower_is_value``.  The rules:

* :func:`shape_of_bounds` (ShapeOf): lower = each dim's minimum, upper = its maximum
  (type max when unbounded); i32 output clamps at 2**31-1;
* :func:`kernel_bounds` (Concat, Gather, Squeeze, Reshape, ReduceMax, Transpose, Tile,
  Broadcast, Split, Select, Clamp, the Scatter updates, Pad, ...): the kernel run once on
  the lower and once on the upper bounds, provided the op's index-like inputs (and
  Select's condition) are known exactly; :func:`strided_slice_bounds` is that, but
  accepts unknown begin/end entries its masks ignore;
* :func:`equal_bounds`: lower true where all four bounds are one value, upper true where
  the two intervals intersect (so ``Select(Equal(dim, 0), ..)`` keeps a bounded dim's bounds);
* :func:`abs_bounds`: min and max of the kernel on both bounds; :func:`mod_bounds`:
  OpenVINO's own interval estimate (``reference::func::mod_interval``), integers only;
* :func:`divide_bounds`: OpenVINO's own rule (divisor sign, zero crossing, unbounded inputs);
* :func:`reduce_prod_bounds`: the kernel on each bound, but an unbounded upper bound with
  no zero upper bound gives an unbounded product;
* two rules live beside the helpers they need, in the op's module (which imports this
  one): Convert's (converted bounds, "unbounded" staying unbounded unless either type is
  an integer of 16 bits or fewer; ``convert_array``) in ``convert``, binary arithmetic's
  (min and max of the kernel over the four lower/upper combinations, [0, max] where an
  input bound is its type's max; ``reduce_array``) in ``elementwise``.

``depth_interval`` turns a OneHot depth into its dimension as OpenVINO's
``evaluate_as_partial_shape`` does (negative bounds are an error there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import Error, ValidationError
from ...types import Dimension, ElementType, numpy_dtype_of
from .spec import Bounds, BoundsFn, OpSpec, TensorInfo

# Bound arrays larger than this are not kept (OpenVINO drops large ones too; shape
# subgraphs are tiny).
BOUND_LIMIT = 1 << 16


# -- reading bounds -----------------------------------------------------------------------
def bounds_of(info: TensorInfo) -> Bounds | None:
    """(lower, upper) of a tensor: its value twice when known, else its bounds, else None.

    Raises ValidationError when computing the value throws in OpenVINO (``info.error``).
    """
    if info.error is not None:
        raise ValidationError(f"computing this input's value fails: {info.error}")
    if info.value is not None:
        v = np.asarray(info.value)
        return v, v
    if info.lower is not None and info.upper is not None:
        return np.asarray(info.lower), np.asarray(info.upper)
    return None


def is_exact(info: TensorInfo) -> bool:
    """OpenVINO's ``has_and_set_bound``: the value is known."""
    return info.value is not None


def max_of(dtype: np.dtype) -> np.ndarray | None:
    """The scalar standing for "unbounded" in a bound of this dtype (None: no such value)."""
    if dtype == np.bool_:
        return np.array(True)
    if dtype.kind in "iu":
        return np.array(np.iinfo(dtype).max, dtype=dtype)
    if dtype.kind == "f" or ElementType.from_numpy(dtype).is_real:
        try:
            return np.array(np.finfo(dtype).max, dtype=dtype)
        except (TypeError, ValueError):
            return None
    return None


def is_max(a: np.ndarray) -> np.ndarray:
    m = max_of(a.dtype)
    return np.zeros(a.shape, dtype=bool) if m is None else a == m


# -- the rules --------------------------------------------------------------------------------
def shape_of_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    shape = ins[0].shape
    if not shape.rank_is_static:
        return [None]
    et = outs[0].element_type
    dtype = numpy_dtype_of(et)
    top = int(np.iinfo(dtype).max)
    lows = [0 if d.min >= top else d.min for d in shape]
    highs = [top if d.max is None or d.max >= top else d.max for d in shape]
    return [(np.array(lows, dtype=dtype), np.array(highs, dtype=dtype))]


def run_kernel(spec: OpSpec[Any], attrs: Any, arrays: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    kernel = spec.reference
    try:
        with np.errstate(all="ignore"):
            return [np.asarray(a) for a in kernel(attrs, list(arrays))]
    except (Error, ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError):
        return None  # OpenVINO's evaluate returns false; the bounds stay unknown


def kernel_bounds(exact: Sequence[int]) -> BoundsFn[Any]:
    """Kernel on lower bounds and on upper bounds; inputs ``exact`` must be known."""

    def rule(
        spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
    ) -> list[Bounds | None]:
        if any(i < len(ins) and not is_exact(ins[i]) for i in exact):
            return [None] * len(outs)
        return default_bounds(spec, attrs, ins, len(outs))

    return rule


def default_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], n_out: int
) -> list[Bounds | None]:
    pairs = [bounds_of(t) for t in ins]
    if any(p is None for p in pairs):
        return [None] * n_out
    lows = run_kernel(spec, attrs, [p[0] for p in pairs if p is not None])
    highs = run_kernel(spec, attrs, [p[1] for p in pairs if p is not None])
    if lows is None or highs is None:
        return [None] * n_out
    return list(zip(lows, highs, strict=True))


def strided_slice_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    def indices_ok(port: int, mask: Sequence[int]) -> bool:
        shape = ins[port].shape
        n = shape[0].max if shape.rank_is_static and shape.rank == 1 else None
        if n is not None and n <= len(mask) and all(mask[i] for i in range(n)):
            return True  # every index ignored by the mask
        b = bounds_of(ins[port])
        if b is None:
            return False
        lo, hi = (x.reshape(-1).astype(np.int64) for x in b)
        masked = {i for i, m in enumerate(mask) if m == 1}
        return all(i in masked or lo[i] == hi[i] for i in range(lo.size))

    if not (indices_ok(1, attrs.begin_mask) and indices_ok(2, attrs.end_mask)):
        return [None]
    if len(ins) > 3 and not is_exact(ins[3]):
        return [None]
    pairs = [bounds_of(t) for t in ins]
    if spec.evaluate is not None and all(p is not None for p in pairs):
        try:  # the slice plan's checks (a shrunk index out of range) throw in OpenVINO's bound
            spec.evaluate(attrs, [p[0] for p in pairs if p is not None])  # evaluation too
        except Error as exc:
            raise ValidationError(str(exc)) from None
    return default_bounds(spec, attrs, ins, 1)


def divide_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """OpenVINO's ``divide::evaluate_bound`` (``src/core/src/op/divide.cpp``)."""
    a, b = bounds_of(ins[0]), bounds_of(ins[1])
    if a is None or b is None:
        return [None]
    (a_lo, a_up), (b_lo, b_up) = a, b
    top2 = max_of(b_lo.dtype)
    if top2 is None:
        return [None]
    zero = np.zeros((), b_lo.dtype)
    dynamic = (a_up == top2) | (b_up == top2)
    positive = zero < b_up
    crossing = (b_lo < zero) & positive
    # lower bound
    v1 = np.where(positive, a_lo, a_up)
    v2 = np.where(positive, b_up, b_lo)
    low = run_kernel(spec, attrs, [v1, v2])
    # upper bound
    u1 = np.where(positive, a_up, a_lo)
    u2 = np.where(positive, b_lo, b_up)
    zeros = u2 == zero
    u2 = np.where(zeros, np.ones((), u2.dtype), u2).astype(u2.dtype)
    up = run_kernel(spec, attrs, [u1, u2])
    if low is None or up is None:
        return [None]
    lower, upper = low[0], up[0]
    top = max_of(upper.dtype)
    if top is None:
        return [None]
    bottom = _min_of(lower.dtype)
    lower = np.where(crossing, bottom, lower).astype(lower.dtype)
    lower = np.where(dynamic, np.zeros((), lower.dtype), lower).astype(lower.dtype)
    upper = np.where(zeros | crossing | dynamic, top, upper).astype(upper.dtype)
    return [(lower, upper)]


def _min_of(dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu":
        return np.array(np.iinfo(dtype).min, dtype=dtype)
    return np.array(np.finfo(dtype).min, dtype=dtype)


def reduce_prod_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """ReduceProd: the kernel on each bound; an upper bound holding "unbounded" and no 0 stays unbounded.

    ``reduce_prod.cpp`` also asks for non-negative data bounds, but in OpenVINO 2026.4
    that check has no effect (measured: a depth ``ReduceProd(ShapeOf(P[3..5]) - 4)`` is
    refused for its negative lower bound, so the bounds were computed), so none here.
    """
    data = bounds_of(ins[0])
    if data is None or not is_exact(ins[1]):
        return [None]
    result = default_bounds(spec, attrs, ins, 1)[0]
    if result is None:
        return [None]
    up = data[1]
    top = max_of(up.dtype)
    if top is not None and (up == top).any() and not (up == 0).any():
        out_top = max_of(result[1].dtype)
        if out_top is None:
            return [None]
        return [(result[0], np.full(result[1].shape, out_top, dtype=result[1].dtype))]
    return [result]


def abs_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """``abs::evaluate_bound``: min and max of |lower| and |upper| (not the true range over 0)."""
    b = bounds_of(ins[0])
    if b is None:
        return [None]
    lo, up = run_kernel(spec, attrs, [b[0]]), run_kernel(spec, attrs, [b[1]])
    if lo is None or up is None:
        return [None]
    return [(np.minimum(lo[0], up[0]), np.maximum(lo[0], up[0]))]


def _c_mod(a: int, m: int) -> int:
    r = abs(a) % abs(m)
    return -r if a < 0 else r


def _mod_interval_value(v1: int, v2: int, m: int) -> tuple[int, int]:
    r1, r2 = _c_mod(v1, m), _c_mod(v2, m)
    if r2 < r1 or (v2 - v1 != 0 and v2 - v1 >= m):
        return 0, m - 1
    return r1, r2


def _mod_interval(v1: int, v2: int, m1: int, m2: int) -> tuple[int, int]:
    """``reference::func::mod_interval``: an estimate of ``[v1, v2] % [m1, m2]``."""
    lo, hi = _mod_interval_value(v1, v2, m1)
    if v2 != 0 and m1 != m2:
        lo2, hi2 = _mod_interval_value(v1, v2, m2)
        lo, hi = min(lo, lo2), max(hi, hi2)
        if v2 - v1 == 0 and m2 - m1 != 1:
            half = v2 // 2
            if m1 < half or (m1 < v2 < m2):
                lo = 0
                hi = _c_mod(v2, half + 1) if half < m2 < v2 else m2 - 1
    return lo, hi


def mod_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """``mod::evaluate_bound`` (``src/core/src/op/mod.cpp``): interval estimate per element."""
    v, m = bounds_of(ins[0]), bounds_of(ins[1])
    if v is None or m is None or v[0].dtype.kind not in "iu":
        return [None]
    dtype = v[0].dtype
    top = np.array(np.iinfo(dtype).max, dtype=dtype)  # (max_of, for an integer type)
    undefined = (m[0] == 0) | (m[1] == 0) | (m[0] == top) | (v[1] == top)
    shape = undefined.shape
    flat = [
        np.where(undefined, np.ones((), dtype), np.broadcast_to(b, shape)).astype(dtype).reshape(-1)
        for b in (v[0], v[1], m[0], m[1])
    ]
    pairs = [_mod_interval(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(*flat, strict=True)]
    with np.errstate(all="ignore"):
        lower = np.array([p[0] for p in pairs], dtype=np.int64).astype(dtype).reshape(shape)
        upper = np.array([p[1] for p in pairs], dtype=np.int64).astype(dtype).reshape(shape)
    lower = np.where(undefined, np.zeros((), dtype), lower).astype(dtype)
    upper = np.where(undefined, top, upper).astype(dtype)
    return [(lower, upper)]


def equal_bounds(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> list[Bounds | None]:
    """``Equal::evaluate_lower/upper``: true for sure only where all four bounds are one value,
    possibly true where the two intervals intersect.  (No other comparison has bounds.)"""
    a, b = bounds_of(ins[0]), bounds_of(ins[1])
    if a is None or b is None:
        return [None]
    if is_exact(ins[0]) and is_exact(ins[1]):
        return default_bounds(spec, attrs, ins, 1)
    (a_lo, a_up), (b_lo, b_up) = a, b
    try:
        lower = (a_lo == a_up) & (a_up == b_lo) & (b_lo == b_up)
        upper = (a_lo <= b_up) & (b_lo <= a_up)
    except ValueError:  # shapes that do not broadcast: OpenVINO refused the layer already
        return [None]
    return [(np.asarray(lower), np.asarray(upper))]


# -- element types for ``OpSpec.evaluate_types`` ----------------------------------------------
# Each op's spec lists what its OpenVINO ``evaluate`` takes, measured with Node.evaluate on
# OpenVINO 2026.4 (f16/bf16 are computed in f32 where listed).  Where the kernel refuses a
# type, OpenVINO neither folds the op nor bounds it, so neither does ovonehot: a depth
# computed through Gather of i16 values stays ``?``.
FLOATS = frozenset({ElementType.f16, ElementType.bf16, ElementType.f32})
INTEGERS = frozenset(
    {ElementType.i8, ElementType.i16, ElementType.i32, ElementType.i64}
    | {ElementType.u8, ElementType.u16, ElementType.u32, ElementType.u64}
)
WIDE_INTEGERS = frozenset({ElementType.i32, ElementType.i64, ElementType.u32, ElementType.u64})


# -- the hook the interpreter calls ----------------------------------------------------------
def propagate(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo]
) -> tuple[TensorInfo, ...]:
    """``outs`` with bounds (or values, when the bounds meet) added where OpenVINO has them.

    Values folded for an op whose OpenVINO kernel refuses the input types are dropped
    again, since OpenVINO cannot know them either.
    """
    outs = tuple(outs)
    if not outs:
        return outs
    if not ins:  # a Constant (all values, no error) comes out as it is: what the steps below do
        for o in outs:
            if o.value is None or o.error is not None:
                break
        else:
            return outs
    elif spec.bounds is not shape_of_bounds and _unknowable(ins) and _nothing_known(outs):
        # The common case, a data tensor: what the steps below come to when an input is
        # unknown (no value, no bounds) and none failed (ShapeOf apart: it reads shapes only).
        return outs
    failed = _failed_input(spec, ins)
    if failed is not None:
        return tuple(TensorInfo(o.element_type, o.shape, error=failed) for o in outs)
    if any(o.error is not None for o in outs):  # folding threw already
        return outs
    if not spec.evaluates_types([t.element_type for t in ins]):
        return tuple(TensorInfo(o.element_type, o.shape) for o in outs)
    if spec.lower_is_value and ins and all(is_exact(t) for t in ins):
        return _value_from_lower(spec, attrs, ins, outs)
    if all(t.value is not None for t in outs):
        return outs
    return _bounded(spec, attrs, ins, outs)


def _bounded(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: tuple[TensorInfo, ...]
) -> tuple[TensorInfo, ...]:
    """``outs`` with the bounds the op's rule gives, where OpenVINO could propagate them."""
    rule = spec.bounds
    if rule is None or spec.evaluate is None:
        return outs
    if rule is not shape_of_bounds and any(bounds_of(t) is None for t in ins):  # ShapeOf reads shapes only
        return outs  # a Parameter's value somewhere upstream: OpenVINO's could_propagate fails
    if any(o.element_type.numpy_dtype is None or o.element_type is ElementType.string for o in outs):
        return outs
    try:
        results = rule(spec, attrs, ins, outs)
    except ValidationError as exc:  # thrown only when a layer reads the value: TensorInfo.error
        return tuple(TensorInfo(o.element_type, o.shape, error=str(exc)) for o in outs)
    return tuple(_attach(o, r) for o, r in zip(outs, results, strict=True))


def _nothing_known(infos: Sequence[TensorInfo]) -> bool:
    """No info has a value, a bound or an error."""
    for t in infos:
        if t.value is not None or t.lower is not None or t.upper is not None or t.error is not None:
            return False
    return True


def _unknowable(ins: Sequence[TensorInfo]) -> bool:
    """Some input has neither a value nor both bounds, and none has an error: then no input's
    error passes on (``_failed_input``) and nothing has bounds (``bounds_of`` is None)."""
    unknown = False
    for t in ins:
        if t.error is not None:
            return False
        if t.value is None and (t.lower is None or t.upper is None):
            unknown = True
    return unknown


def _failed_input(spec: OpSpec[Any], ins: Sequence[TensorInfo]) -> str | None:
    """The error an output inherits: evaluating it evaluates a failing input first.

    Not through ShapeOf (it reads only the shape), and not where another input's value
    is unknowable (a Parameter upstream: OpenVINO's ``could_propagate`` gives up first).
    """
    errors = [t.error for t in ins if t.error is not None]
    if not errors or spec.bounds is shape_of_bounds:
        return None
    if any(t.error is None and t.value is None and (t.lower is None or t.upper is None) for t in ins):
        return None
    return errors[0]


# OpenVINO evaluates a node whose inputs are all exact with its *lower* bound evaluator and
# takes that as the value (``set_same_bound_at_port`` in ``bound_evaluate.cpp``).  For most
# ops that is the plain kernel, what folding computed; the ops whose spec sets
# ``lower_is_value`` (Convert, Divide, Mod) have lower evaluators that differ where an
# input holds its type's maximum ("unbounded"): a Convert keeps it the output
# type's maximum (``i64`` max -> ``i32`` max, not -1), Divide and Mod give 0.  Measured on
# 2026.4: ``Convert(ReduceMin(ShapeOf(scalar)), i32)`` as a depth is 2147483647, and
# ``Divide(Constant(2**31-1), 4)`` as a Reshape pattern is ``[0]``.  Only integer outputs
# are changed: shape subgraphs are integers, and a data value (an f16 on_value of 65504
# through a decompression Convert) keeps what OpenVINO's constant folding computes.


def _value_from_lower(
    spec: OpSpec[Any], attrs: Any, ins: Sequence[TensorInfo], outs: tuple[TensorInfo, ...]
) -> tuple[TensorInfo, ...]:
    if any(o.element_type.numpy_dtype is None or o.element_type.numpy_dtype.kind not in "iu" for o in outs):
        return outs
    if spec.bounds is None:
        return outs
    results = spec.bounds(spec, attrs, ins, outs)
    values = [
        None if r is None else _attach(TensorInfo(o.element_type, o.shape), (r[0], r[0]))
        for o, r in zip(outs, results, strict=True)
    ]
    return tuple(o if v is None or v.value is None else v for o, v in zip(outs, values, strict=True))


def _attach(info: TensorInfo, bounds: Bounds | None) -> TensorInfo:
    if info.value is not None or bounds is None:
        return info
    lo, hi = (np.asarray(b) for b in bounds)
    dtype = info.element_type.numpy_dtype
    if lo.shape != hi.shape or lo.size > BOUND_LIMIT or lo.dtype != dtype or hi.dtype != dtype:
        return info
    if not info.shape.accepts(lo.shape):
        return info
    if lo.tobytes() == hi.tobytes():
        return TensorInfo(info.element_type, info.shape, value=lo)
    return TensorInfo(info.element_type, info.shape, lower=lo, upper=hi)


# -- OneHot's depth ---------------------------------------------------------------------------
# Depth types OpenVINO's shape inference cannot read a value of ("Element not supported"),
# although they pass its "integral" check: checked on the 2026.4 wheel.
UNREADABLE_DEPTH_TYPES = frozenset(
    (ElementType.boolean, ElementType.u1, ElementType.u2, ElementType.u3, ElementType.u6)
)


def depth_interval(depth: TensorInfo) -> Dimension:
    """The depth dimension OpenVINO infers: exact value, interval from bounds, or ``?``.

    ``evaluate_as_partial_shape``: an i32 bound at 2**31-1 is unbounded, int64 max is
    unbounded, and any negative bound is an error.
    """
    b = bounds_of(depth)
    if b is None or b[0].size != 1:
        return Dimension()
    if depth.element_type in UNREADABLE_DEPTH_TYPES:
        raise ValidationError(
            f"Element not supported: OpenVINO cannot read a {depth.element_type} depth value."
        )
    lo, hi = (_as_int64(x.reshape(-1)[0]) for x in b)
    if depth.value is not None:
        if lo < 0:
            raise ValidationError(f"OneHot depth value can't be negative. Got {lo}.")
        return Dimension() if lo == 2**63 - 1 else Dimension.static(lo)  # int64 max is "unbounded"
    if depth.element_type is ElementType.i32 and lo != hi:
        hi = 2**63 - 1 if hi == 2**31 - 1 else hi
        lo = 2**63 - 1 if lo == 2**31 - 1 else lo
    if lo < 0 or hi < 0:
        raise ValidationError(
            f"Value for partial shape evaluation can't be lower than zero. Got depth bounds {lo}..{hi}."
        )
    if hi < lo or lo == 2**63 - 1:
        return Dimension()
    return Dimension(lo, None if hi == 2**63 - 1 else hi)


def _as_int64(v: object) -> int:
    if isinstance(v, (np.floating, float)):
        return int(np.trunc(v)) if np.isfinite(v) else 2**63 - 1
    n: int = int(v)  # type: ignore[call-overload]  # v: a Python or NumPy integer, typed object
    return n - 2**64 if n > 2**63 - 1 else n
