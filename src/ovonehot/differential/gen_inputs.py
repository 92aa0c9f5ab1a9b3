"""Seeded inputs for a model, chosen from its graph to exercise what can go wrong.

* A Parameter that becomes OneHot *indices* (directly or through single-input
  ops such as Convert) gets values covering 0, depth-1, depth, depth+1, the
  negatives -1 .. -depth-1, the type's extremes, the int32 boundaries for wide
  types (where runtimes wrap) and, for unsigned types, the values just below 2**n
  (which wrap to small negatives).  These come first, then random draws from
  the same set and from [-depth-1, depth+1].
* A Parameter that becomes a OneHot *depth* gets a small value in 0..5.
* A Parameter that becomes *on_value*/*off_value* gets a special value of its
  type (NaN, -0.0, inf, extremes, a subnormal) or a random one.
* A Parameter that becomes Gather *indices* (of a known axis with a static dim)
  gets values in [0, dim-1].
* Any other Parameter gets in-range values: small non-negative integers (signed
  in [0, 8], unsigned in [0, 16]: labels and positions fed to a Gather or a loss
  must not get the type's extremes), floats in [-4, 4], random booleans.

:class:`InputSettings` seeds
one input apart from the others and sets the range of values, for every input or
one; OneHot indices keep their boundary values unless a range names them.  With
``report=True``, :func:`generate_inputs` also says how each input was made (for the
replay manifest).

Dynamic dims take their size from ``shapes`` (``{"name": (2, 3)}``) or a small
default (3, clamped into an interval); a dynamic rank defaults to ``[2, 3]``, except
for a depth/on/off Parameter, which gets a scalar (the only shape OneHot runs with).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np

from ..budget import check_allocation
from ..errors import Error, InputError, ParameterError, quote
from ..model import Model, TensorDesc
from ..suggest import did_you_mean
from ..types import ElementType, numpy_dtype_of

DEFAULT_DIM = 3
DEFAULT_DYNAMIC_RANK_SHAPE = (2, 3)
DEFAULT_DEPTH = 4


def concrete_shape(
    desc: TensorDesc, given: Sequence[int] | None = None, min_elements: int = 0
) -> tuple[int, ...]:
    """A concrete shape for an input: ``given`` (checked against the declared shape) or defaults.

    With ``min_elements``, the last dynamic dim grows (within its interval) until the
    tensor holds that many elements, so every interesting index value fits.
    """
    if given is not None:
        shape = tuple(int(n) for n in given)
        if not desc.shape.accepts(shape):
            raise ParameterError(
                "shapes", f"does not fit the input's shape {desc.shape}", f"{desc.name}={list(shape)}"
            )
        return shape
    if desc.shape.dims is None:
        return DEFAULT_DYNAMIC_RANK_SHAPE
    dims = []
    for d in desc.shape.dims:
        if d.is_static:
            dims.append(d.min)
        else:
            n = max(d.min, DEFAULT_DIM)
            dims.append(n if d.max is None else min(n, d.max))
    dynamic = [k for k, d in enumerate(desc.shape.dims) if not d.is_static]
    if dynamic and min_elements > math.prod(dims):
        k = dynamic[-1]
        others = math.prod(dims[:k] + dims[k + 1 :])
        if others > 0:
            need = -(-min_elements // others)
            cap = desc.shape.dims[k].max
            dims[k] = max(dims[k], need if cap is None else min(need, cap))
    return tuple(dims)


def _roles(model: Model) -> dict[int, tuple[str, int]]:
    """Parameter node index -> (role, OneHot node index) for indices/depth/on/off feeds."""
    graph = model.graph
    roles: dict[int, tuple[str, int]] = {}
    for i in graph.kind_indices("OneHot"):
        for port, role in enumerate(("indices", "depth", "on_value", "off_value")):
            src = _trace_to_parameter(model, graph.sources[i][port].node)
            if src is not None and src not in roles:
                roles[src] = (role, i)
    return roles


def _gather_bounds(model: Model) -> dict[int, int]:
    """Parameter node index -> the size of the axis it indexes, for Parameters that become Gather
    indices of a known axis and static data dim (smallest such size over every Gather they feed)."""
    graph, inference = model.graph, model.inference
    bounds: dict[int, int] = {}
    for i in graph.kind_indices("Gather"):
        srcs = graph.sources[i]
        if len(srcs) < 3:
            continue
        param = _trace_to_parameter(model, srcs[1].node)
        axis_value = inference.outputs[srcs[2].node][srcs[2].output].value
        data = inference.outputs[srcs[0].node][srcs[0].output].shape
        if param is None or axis_value is None or np.asarray(axis_value).size != 1 or data.dims is None:
            continue
        axis = int(np.asarray(axis_value).reshape(-1)[0])
        axis = axis + len(data.dims) if axis < 0 else axis
        if not 0 <= axis < len(data.dims) or not data.dims[axis].is_static or data.dims[axis].min < 1:
            continue
        bounds[param] = min(bounds.get(param, data.dims[axis].min), data.dims[axis].min)
    return bounds


# Integer ops whose second input divides: a generated 0 there is refused (ovonehot, as OpenVINO's
# reference: "integer division by zero"), so those inputs are drawn without it.
_DIVIDING = frozenset({"divide", "floormod", "mod"})


def _value_roles(
    model: Model, by_name: Mapping[int, tuple[TensorDesc, tuple[int, ...]]]
) -> dict[int, tuple[str, int]]:
    """Parameter node index -> (role, its number) for inputs whose values an op constrains beyond
    their type: an integer ``divisor`` (of Divide/FloorMod/Mod: never 0); a Proposal's
    ``image_info`` (the image's height and width, positive: the number, the largest spatial dim of
    the inputs); EmbeddingBagOffsets' ``offsets`` (ascending from 0, below the number of indices:
    the number)."""
    graph, inference = model.graph, model.inference
    side = max((n for _, shape in by_name.values() if len(shape) == 4 for n in shape[2:]), default=32)
    found: dict[int, tuple[str, int]] = {}
    for i, node in enumerate(graph.nodes):
        kind, srcs = node.type.lower(), graph.sources[i]
        if (
            kind in _DIVIDING
            and len(srcs) > 1
            and not inference.outputs[srcs[1].node][srcs[1].output].element_type.is_real
        ):
            role = ("divisor", 0), 1
        elif kind == "proposal" and len(srcs) > 2:
            role = ("image_info", side), 2
        elif kind == "embeddingbagoffsets" and len(srcs) > 2:  # (table, indices, offsets, ...)
            count = _count(model, by_name, srcs[1].node, srcs[1].output)
            if count is None:
                continue
            role = ("offsets", count), 2
        else:
            continue
        param = _trace_to_parameter(model, srcs[role[1]].node)
        if param is not None:
            found.setdefault(param, role[0])
    return found


def _count(
    model: Model, by_name: Mapping[int, tuple[TensorDesc, tuple[int, ...]]], node: int, port: int
) -> int | None:
    """How many values node output ``(node, port)`` holds: its generated Parameter's shape, else
    its static shape; None when neither says."""
    param = _trace_to_parameter(model, node)
    if param is not None and param in by_name:
        return math.prod(by_name[param][1])
    known = model.inference.outputs[node][port].shape
    return math.prod(known.to_shape()) if known.is_static else None


# Ops through which an index value keeps its meaning (copies, conversions, shifts by a constant).
_INDEX_PRESERVING = frozenset({"convert", "reshape", "squeeze", "unsqueeze", "transpose", "add", "subtract"})


def _trace_to_parameter(model: Model, index: int) -> int | None:
    """Follow an index-preserving chain (Convert, Reshape, Add/Subtract of a known value, ...) up to
    a Parameter; None when the value is computed some other way."""
    graph, inference = model.graph, model.inference
    seen = 0
    while seen < 64:
        node = graph.nodes[index]
        if node.type.lower() == "parameter":
            return index
        if node.type.lower() not in _INDEX_PRESERVING:
            return None
        live = [s for s in graph.sources[index] if inference.outputs[s.node][s.output].value is None]
        if len(live) != 1:
            return None
        index = live[0].node
        seen += 1
    return None


def _known_depth(model: Model, one_hot: int, chosen: Mapping[int, np.ndarray]) -> int:
    graph, inference = model.graph, model.inference
    src = graph.sources[one_hot][1]
    info = inference.outputs[src.node][src.output]
    if info.value is not None and info.value.size == 1:
        return max(int(np.asarray(info.value).reshape(-1)[0].astype(np.int64)), 0)
    if src.node in chosen:
        return max(int(np.asarray(chosen[src.node]).reshape(-1)[0].astype(np.int64)), 0)
    if info.upper is not None and info.upper.size == 1 and int(info.upper.reshape(-1)[0]) < 1 << 16:
        return max(int(info.upper.reshape(-1)[0]), 0)
    return DEFAULT_DEPTH


def _type_range(et: ElementType) -> tuple[int, int]:
    if et is ElementType.boolean:
        return 0, 1
    bits = et.bitwidth
    if et.kind.value == "signed":
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


# Beyond this depth the runs of values near -depth and below the type's top are sampled, not
# enumerated: a vocabulary-sized depth (151936) would give as many "special" values, and a
# depth read from a wrong .bin (4.6e18) more than memory holds.
_ENUMERATED_DEPTH = 2**16


def _down_from(top: int, count: int) -> list[int]:
    """``top``, ``top - 1``, ... (``count`` values); beyond ``_ENUMERATED_DEPTH`` values, the
    first and last 8 of them and a few between."""
    if count <= _ENUMERATED_DEPTH:
        return list(range(top, top - count, -1))
    steps = [*range(8), count // 4, count // 2, 3 * count // 4, *range(count - 8, count)]
    return [top - k for k in steps]


def index_values(et: ElementType, depth: int) -> list[int]:
    """The interesting index values for indices of type ``et`` and a OneHot of ``depth``."""
    lo, hi = _type_range(et)
    wanted = [0, depth - 1, depth, depth + 1, 1]
    wanted += _down_from(-1, depth + 1)
    wanted += [lo, hi, lo + 1, hi - 1]
    if et.bitwidth > 32:
        wanted += [
            2**31 - 1,
            2**31,
            -(2**31),
            -(2**31) - 1,
            2**32,
            2**32 + 1,
            2**32 + depth - 1,
            -(2**32) + 1,
        ]
    if et.kind.value == "unsigned":
        wanted += _down_from(hi, depth + 1)
        if et.bitwidth > 32:
            wanted += _down_from(2**32 - 1, depth + 1)
    return list(dict.fromkeys(v for v in wanted if lo <= v <= hi))  # (first occurrences, in order)


def _as_array(et: ElementType, values: Sequence[int] | np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    dtype = numpy_dtype_of(et)
    items = values.reshape(-1).tolist() if isinstance(values, np.ndarray) else list(values)
    flat = [int(v) for v in items]
    if et is ElementType.boolean:
        return np.array([bool(v) for v in flat], dtype=np.bool_).reshape(shape)
    if not flat:
        return np.zeros(shape, dtype)
    if dtype.kind in "iu":
        return np.array(flat, dtype=dtype).reshape(shape)
    return np.array(flat, dtype=np.int64).astype(dtype).reshape(shape)  # ml_dtypes int4/uint4/uint2


def _indices(rng: np.random.Generator, et: ElementType, shape: tuple[int, ...], depth: int) -> np.ndarray:
    n = math.prod(shape)
    special = index_values(et, depth)
    lo, hi = _type_range(et)
    # the small values: every integer of [-depth - 1, depth + 1] the type holds (never listed)
    small_lo, small_hi = max(-depth - 1, lo), min(depth + 1, hi)
    order = list(rng.permutation(len(special)))
    values = [special[k] for k in order][:n]
    while len(values) < n:
        if rng.random() < 0.3:
            values.append(special[int(rng.integers(len(special)))])
        else:
            values.append(small_lo + int(rng.integers(small_hi - small_lo + 1)))
    return _as_array(et, values, shape)


def _float_specials(et: ElementType) -> list[float]:
    dtype = numpy_dtype_of(et)
    info = _finfo(dtype)
    values = [1.0, 0.0, -0.0, float("nan"), float("inf"), float("-inf"), 0.5, -2.0]
    if info is not None:
        values += [float(info.max), float(-info.max), float(info.smallest_subnormal), float(info.tiny)]
    if et is ElementType.f64:
        values += [1e300, 0.1, 1e-320, -1e-40, 3.4028235677973366e38]
    return values


def _finfo(dtype: np.dtype) -> np.finfo[Any] | None:  # ml_dtypes.finfo subclasses np.finfo
    info: np.finfo[Any]
    try:
        import ml_dtypes

        info = ml_dtypes.finfo(dtype)
    except Exception:  # noqa: BLE001 - a dtype neither NumPy nor ml_dtypes describes
        try:
            info = np.finfo(dtype)
        except Exception:  # noqa: BLE001 - not a float type either NumPy or ml_dtypes knows
            return None
    return info


def special_scalar(rng: np.random.Generator, et: ElementType) -> np.ndarray:
    """One 0-d value of ``et`` for a OneHot on/off: a special of the type (NaN, -0.0, inf,
    extremes, a subnormal, int32 boundaries) or a random one."""
    if et is ElementType.string:
        out = np.empty((), dtype=object)
        out[()] = ["", "on", "off", "\u00e9t\u00e9", "a,b"][int(rng.integers(5))]
        return out
    if et is ElementType.boolean:
        return np.array(bool(rng.integers(2)))
    if et.bitwidth < 8 and not et.is_real:
        lo, hi = _type_range(et)
        return _as_array(et, [int(rng.integers(lo, hi + 1))], ())
    return _scalar_value(rng, et, ())


def _scalar_value(rng: np.random.Generator, et: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    dtype = numpy_dtype_of(et)
    n = math.prod(shape)
    if et.is_real:
        specials = _float_specials(et)
        vals = [
            specials[int(rng.integers(len(specials)))] if rng.random() < 0.6 else float(rng.normal(0, 8))
            for _ in range(n)
        ]
        with np.errstate(over="ignore", invalid="ignore"):
            return np.array(vals, dtype=np.float64).astype(dtype).reshape(shape)
    lo, hi = _type_range(et)
    pool = [lo, hi, 0, 1, -1, 2**31 - 1, -(2**31), 2**31, 2**40, 7]
    pool = [v for v in pool if lo <= v <= hi]
    vals_i = [
        pool[int(rng.integers(len(pool)))]
        if rng.random() < 0.6
        else int(rng.integers(max(lo, -100), min(hi, 100) + 1))
        for _ in range(n)
    ]
    return _as_array(et, vals_i, shape)


def _generic(rng: np.random.Generator, et: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    dtype = et.numpy_dtype
    if dtype is None:
        raise InputError(f"cannot generate values of element type {et}")
    if et is ElementType.string:
        out = np.empty(shape, dtype=object)
        out.reshape(-1)[:] = [f"s{int(v)}" for v in rng.integers(0, 10, size=math.prod(shape))]
        return out
    if et is ElementType.boolean:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if et.is_real:
        return np.round(rng.uniform(-4, 4, size=shape), 2).astype(dtype)
    # Small and non-negative: integer inputs that are not OneHot indices are labels, positions, counts
    # (fed to a Gather, a loss, a Range), where the type's extremes or negatives only make both sides refuse.
    lo, hi = _type_range(et)
    return _as_array(et, rng.integers(0, min(hi, 16 if lo == 0 else 8) + 1, size=shape), shape)


@dataclass(frozen=True, slots=True)
class InputSettings:
    """Seeds and value ranges for generated inputs: for all of them, or per input (keyed by input name)."""

    seed: int = 0
    per_input_seeds: Mapping[str, int] = field(default_factory=dict)
    value_range: tuple[float, float] | None = None
    per_input_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    # Integers that are no OneHot feed drawn in [0, smallest dim of the inputs' shapes), so they
    # index any axis, and no dynamic dim grown (dims shared between inputs stay equal): how
    # inputs a model refused are made again.
    within_dims: bool = False

    def check_names(self, model: Model) -> None:
        known = {n for d in model.inputs for n in (d.name, *d.names)}
        for parameter, per in (
            ("per_input_seeds", self.per_input_seeds),
            ("per_input_ranges", self.per_input_ranges),
        ):
            unknown = sorted(set(per) - known)
            if unknown:
                names = ", ".join(repr(d.name) for d in model.inputs) or "none"
                raise ParameterError(
                    parameter,
                    f"the model has no input {unknown[0]!r}"
                    f"{did_you_mean(unknown[0], [d.name for d in model.inputs])}; its inputs are: {names}",
                    f"{unknown[0]}:...",
                )

    def for_input(self, desc: TensorDesc, key: Mapping[str, Any]) -> Any:
        for name in (desc.name, *desc.names):
            if name in key:
                return key[name]
        return None


def _ranged(
    rng: np.random.Generator, et: ElementType, shape: tuple[int, ...], lo: float, hi: float
) -> np.ndarray:
    """Values of ``et`` drawn uniformly from [lo, hi] (clipped to the type's range)."""
    dtype = numpy_dtype_of(et)
    if et is ElementType.boolean:
        return (
            rng.integers(max(0, math.ceil(lo)), min(1, math.floor(hi)) + 1, size=shape).astype(np.bool_)
            if math.ceil(lo) <= 1 and math.floor(hi) >= 0
            else np.zeros(shape, np.bool_)
        )
    if et.is_real:
        with np.errstate(over="ignore"):
            return rng.uniform(lo, hi, size=shape).astype(dtype)
    tlo, thi = _type_range(et)
    a, b = max(math.ceil(lo), tlo), min(math.floor(hi), thi)
    if a > b:
        raise ParameterError("value_range", f"holds no {et} value", f"{lo:g},{hi:g}")
    return _as_array(
        et, rng.integers(a, b, size=shape, endpoint=True, dtype=np.uint64 if a >= 0 else np.int64), shape
    )


@overload
def generate_inputs(
    model: Model,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    settings: InputSettings | None = None,
    report: Literal[False] = False,
) -> dict[str, np.ndarray]: ...


@overload
def generate_inputs(
    model: Model,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    settings: InputSettings | None = None,
    report: Literal[True],
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]: ...


def generate_inputs(
    model: Model,
    seed: int = 0,
    shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    settings: InputSettings | None = None,
    report: bool = False,
) -> dict[str, np.ndarray] | tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
    """One array per model input, keyed by input name; same seed, same arrays.

    ``settings`` adds per-input seeds and value ranges; with ``report`` the result is
    ``(inputs, how)``, ``how`` saying per input its role, seed and values."""
    settings = settings or InputSettings(seed)
    settings.check_names(model)
    rng = np.random.default_rng(seed)
    notes: dict[str, dict[str, Any]] = {}
    graph = model.graph
    params = [i for i in graph.document_order if graph.nodes[i].type.lower() == "parameter"]
    roles = _roles(model)
    by_name = _input_shapes(model, params, roles, dict(shapes or {}), grow=not settings.within_dims)
    gather_bounds = _gather_bounds(model)
    value_roles = _value_roles(model, by_name)
    if settings.within_dims:
        smallest = min((n for _, shape in by_name.values() for n in shape if n > 0), default=1)
        gather_bounds = {i: min(gather_bounds.get(i, smallest), smallest) for i in params}
    chosen: dict[int, np.ndarray] = {}
    # Depths first: index values depend on them.
    order = sorted(params, key=lambda i: 0 if roles.get(i, ("",))[0] == "depth" else 1)
    for idx in order:
        desc, shape = by_name[idx]
        et = desc.element_type
        if et.numpy_dtype is None or et.is_dynamic:
            raise InputError(f"input {desc.name!r}: cannot generate values of element type {et}")
        own_seed = settings.for_input(desc, settings.per_input_seeds)
        r = rng if own_seed is None else np.random.default_rng(own_seed)
        role = roles.get(idx) or value_roles.get(idx, ("", -1))
        chosen[idx], values = _values(model, settings, desc, shape, role, gather_bounds.get(idx), chosen, r)
        notes[desc.name] = {
            "role": f"OneHot {role[0]}" if idx in roles else (role[0] or "other"),
            "element_type": str(et),
            "shape": list(shape),
            "seed": seed if own_seed is None else own_seed,
            "own_seed": own_seed is not None,
            "values": values,
        }
    # Keyed by a name that addresses each input alone (a T5 export's decoder Parameter is called
    # ``input_ids``, the encoder's tensor name: its layer name would bind the encoder's input).
    keys = {i: model.input_key(k) for k, i in enumerate(params)}
    inputs = {keys[i]: chosen[i] for i in params}
    if report:
        notes = {keys[i]: notes[by_name[i][0].name] for i in params if by_name[i][0].name in notes}
    return (inputs, notes) if report else inputs


def _input_shapes(
    model: Model,
    params: Sequence[int],
    roles: Mapping[int, tuple[str, int]],
    shapes: dict[str, Sequence[int]],
    grow: bool = True,
) -> dict[int, tuple[TensorDesc, tuple[int, ...]]]:
    """Per Parameter (node index): its description and the concrete shape to generate (``grow``:
    a OneHot indices input's one dynamic dim made long enough for every interesting index)."""
    by_name = {}
    for desc, idx in zip(model.inputs, params, strict=True):
        given = None
        for key in (desc.name, *desc.names):
            if key in shapes:
                given = shapes.pop(key)
                break
        wanted = 0
        # Grow a dynamic dim to hold every interesting index only when no other input has dynamic
        # dims (dims shared between inputs must stay equal).
        if (
            grow
            and roles.get(idx, ("",))[0] == "indices"
            and desc.element_type.numpy_dtype is not None
            and sum(1 for d in model.inputs if not d.shape.is_static) == 1
        ):
            wanted = (
                len(index_values(desc.element_type, DEFAULT_DEPTH)) if not desc.element_type.is_real else 0
            )
        if (
            given is None
            and roles.get(idx, ("",))[0] in ("depth", "on_value", "off_value")
            and desc.shape.accepts(())
        ):
            given = ()  # OneHot takes these as scalars; a dynamic-rank one would default to [2, 3]
        shape = concrete_shape(desc, given, wanted)
        et = desc.element_type
        check_allocation(
            shape, 8 if et.numpy_dtype is None else et.numpy_dtype.itemsize, f"input {quote(desc.name)}"
        )
        by_name[idx] = (desc, shape)
    if shapes:
        names = [d.name for d in model.inputs]
        unknown = sorted(shapes)
        known = ", ".join(quote(n) for n in names[:20])
        raise ParameterError(
            "shapes",
            f"names no input: {', '.join(quote(n) for n in unknown[:20])}{did_you_mean(unknown[0], names)}; "
            f"its inputs are: {known}",
        )
    return by_name


def _values(
    model: Model,
    settings: InputSettings,
    desc: TensorDesc,
    shape: tuple[int, ...],
    role: tuple[str, int],
    gather_bound: int | None,
    chosen: Mapping[int, np.ndarray],
    r: np.random.Generator,
) -> tuple[np.ndarray, str]:
    """One input's values and how they were chosen, by its role (``(role, OneHot node)``)."""
    et = desc.element_type
    kind, one_hot = role
    named_range = settings.for_input(desc, settings.per_input_ranges)
    value_range = (
        named_range
        if named_range is not None
        else (settings.value_range if kind not in ("indices", "depth", "on_value", "off_value") else None)
    )
    if value_range is not None and et is not ElementType.string:
        return (
            _ranged(r, et, shape, *value_range),
            f"uniform in [{value_range[0]:g}, {value_range[1]:g}] (the value range asked for)",
        )
    if kind == "depth" and not et.is_real and et is not ElementType.boolean:
        lo, hi = _type_range(et)
        depth = _as_array(et, [min(max(int(r.integers(0, 6)), lo), hi)] * math.prod(shape), shape)
        return depth, "a small depth in 0..5"
    if kind == "indices" and not et.is_real and et is not ElementType.string and et.bitwidth >= 8:
        depth_value = _known_depth(model, one_hot, chosen)
        return (
            _indices(r, et, shape, depth_value),
            (
                f"OneHot boundary index values for depth {depth_value} (0, depth-1, depth, negatives, the "
                f"type's extremes), then draws from [-depth-1, depth+1]"
            ),
        )
    if kind in ("on_value", "off_value") and et is not ElementType.string and et.bitwidth >= 8:
        return (
            _scalar_value(r, et, shape),
            "a special value of the type (NaN, -0.0, inf, extremes, subnormal) or a random one",
        )
    if kind in ("image_info", "offsets") and et is not ElementType.string and et is not ElementType.boolean:
        return _constrained(kind, one_hot, et, shape, r)
    if kind == "divisor" and not et.is_real and et is not ElementType.boolean and et.bitwidth >= 8:
        signed = _type_range(et)[0] < 0
        size = r.integers(1, 9 if signed else 17, size=shape)
        sign = np.where(r.integers(0, 2, size=shape) == 1, -1, 1) if signed else 1
        note = "+-[1, 8]" if signed else "[1, 16]"
        return _as_array(et, size * sign, shape), f"integer divisors: uniform in {note}, never 0"
    if gather_bound is not None and not et.is_real and et is not ElementType.boolean and et.bitwidth >= 8:
        top = min(gather_bound - 1, _type_range(et)[1])
        what = (
            "within the inputs' dims: uniform integers in [0, {top}]"
            if settings.within_dims
            else "Gather indices in range: uniform integers in [0, {top}] (the gathered axis)"
        )
        return _as_array(et, r.integers(0, top, size=shape, endpoint=True), shape), what.format(top=top)
    return _generic(r, et, shape), _generic_note(et)


def _constrained(
    kind: str, number: int, et: ElementType, shape: tuple[int, ...], r: np.random.Generator
) -> tuple[np.ndarray, str]:
    """A Proposal's image info (``number``: the image's side) or EmbeddingBag's offsets
    (``number``: how many indices), as ``_value_roles`` says."""
    n = math.prod(shape)
    if kind == "image_info":
        values = [float(number)] * min(n, 2) + [1.0] * max(n - 2, 0)  # (height, width, then scales)
        dtype = numpy_dtype_of(et)
        return np.array(values, dtype=dtype).reshape(
            shape
        ), f"the image's height and width ({number}), then scales of 1"
    top = max(number - 1, 0)
    starts = np.sort(r.integers(0, top, size=n, endpoint=True)) if n else np.zeros(0, np.int64)
    if n:
        starts[0] = 0
    return _as_array(et, starts, shape), f"bag offsets: ascending from 0, below the {number} indices"


def _generic_note(et: ElementType) -> str:
    if et is ElementType.boolean:
        return "random booleans"
    if et.is_real:
        return "uniform in [-4, 4], rounded to 0.01"
    if et is ElementType.string:
        return "short strings"
    lo, hi = _type_range(et)
    return f"uniform integers in [0, {min(hi, 16 if lo == 0 else 8)}]"


# Sizes tried, smallest first, for the dynamic spatial dims (all but the first two) of inputs of
# rank >= 3 when the model refuses generated inputs of the default size: a strided stem or a
# patch embedding needs more than 3 (DINOv2's 14x14 patches, SegFormer's 7x7/4 stem).
SPATIAL_SIZES = (32, 64, 224)


def refusal(model: Model, inputs: Mapping[str, np.ndarray]) -> str | None:
    """Why ovonehot refuses to run ``model`` on ``inputs`` (a fast run), or None."""
    error = _refused(model, inputs)
    return None if error is None else str(error)


def _refused(model: Model, inputs: Mapping[str, np.ndarray]) -> Error | None:
    """The error ovonehot refuses to run ``model`` on ``inputs`` with (a fast run), or None."""
    try:
        model.run(dict(inputs), exact=False)
    except Error as exc:
        return exc
    return None


def spatial_open(desc: TensorDesc, given: Mapping[str, Sequence[int]]) -> bool:
    """Whether input ``desc`` (of rank >= 3, not shaped in ``given``) leaves a spatial dim (past
    the first two) open: the dims ``grow_spatial`` may grow."""
    dims = desc.shape.dims
    return (
        dims is not None
        and len(dims) >= 3
        and not any(n in given for n in (desc.name, *desc.names))
        and not all(d.is_static for d in dims[2:])
    )


def grow_spatial(
    model: Model, given: Mapping[str, Sequence[int]], settings: InputSettings
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]] | None:
    """Generated inputs whose dynamic spatial dims take the first of ``SPATIAL_SIZES`` the model
    accepts (the shapes in ``given`` kept), or None when none does or no input has such dims."""
    for size in SPATIAL_SIZES:
        shapes = dict(given)
        for desc in model.inputs:
            dims = desc.shape.dims
            if dims is None or not spatial_open(desc, given):
                continue
            base = concrete_shape(desc)
            grown = [
                size if k >= 2 and not d.is_static and (d.max is None or d.max >= size) else base[k]
                for k, d in enumerate(dims)
            ]
            if tuple(grown) != base:
                shapes[desc.name] = tuple(grown)
        if shapes == dict(given):
            return None
        found = generate_inputs(model, settings.seed, shapes, settings=settings, report=True)
        if refusal(model, found[0]) is None:
            return found
    return None


def refitted(
    model: Model, given: Mapping[str, Sequence[int]], settings: InputSettings
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]] | None:
    """Generated inputs the model accepts after it refused the first ones: the spatial dims grown
    (:func:`grow_spatial`), else the open dims fitted (:func:`fit_dims`); None when neither helps.
    What ``diff``, ``reduce`` and ``run`` do."""
    return grow_spatial(model, given, settings) or fit_dims(model, given, settings)


# Sizes ``fit_dims`` tries for a dynamic dim beside those the refusing layer names (a signal a
# reflect padding or a frame must be longer than), a round per refusal moved on, trials in all.
FIT_SIZES = (16, 64, 256, 1024, 4096)
FIT_ROUNDS = 4
FIT_TRIALS = 64
FIT_LARGEST = 1 << 16


def fit_dims(
    model: Model, given: Mapping[str, Sequence[int]], settings: InputSettings
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]] | None:
    """Generated inputs whose dynamic dims (of inputs not shaped in ``given``) take sizes the layer
    that refuses them names: a traced MatMul's contracted size (``[3, 3] x [256, 32]``), a TopK's
    k, a kernel's extent, else one of ``FIT_SIZES``.  Greedy: one input's shape at a time (its
    open dims together, then each alone: :func:`_moves`), the first that ends the refusal or moves
    it to a later layer, for up to ``FIT_ROUNDS`` refusals and ``FIT_TRIALS`` runs.  None when
    nothing does (the dims OpenVINO's shape inference does not tie to the weights are where traced
    models refuse the default 3)."""
    inputs, notes = generate_inputs(model, settings.seed, given, settings=settings, report=True)
    positions = {node.describe(): i for i, node in enumerate(model.graph.nodes)}
    where = _refused_at(model, inputs, positions)
    shapes = {d.name: tuple(notes[model.input_key(k)]["shape"]) for k, d in enumerate(model.inputs)}
    trials = [FIT_TRIALS]
    for _ in range(FIT_ROUNDS):
        if where is None:
            return inputs, notes
        step = _fit_step(model, given, settings, shapes, (where, positions), trials)
        if step is None:
            return None
        shapes, inputs, notes, where = step
    return (inputs, notes) if where is None else None


def _fit_step(
    model: Model,
    given: Mapping[str, Sequence[int]],
    settings: InputSettings,
    shapes: Mapping[str, tuple[int, ...]],
    refused: tuple[tuple[int, str], Mapping[str, int]],
    trials: list[int],
) -> (
    tuple[
        dict[str, tuple[int, ...]], dict[str, np.ndarray], dict[str, dict[str, Any]], tuple[int, str] | None
    ]
    | None
):
    """One input's shape changed (:func:`_moves`) so that the refusal (the refusing layer's
    position and message, beside every layer's position) moves on."""
    (position, message), positions = refused
    named = sorted({int(n) for n in re.findall(r"\d+", message) if 1 <= int(n) <= FIT_LARGEST})
    sizes = [*named, *(n for n in FIT_SIZES if n not in named)]
    for desc in model.inputs:
        if desc.shape.dims is None or any(n in given for n in (desc.name, *desc.names)):
            continue
        for shape in _moves(desc, shapes[desc.name], sizes):
            if trials[0] <= 0:
                return None
            trials[0] -= 1
            trial = {**shapes, desc.name: shape}
            try:
                found = generate_inputs(
                    model, settings.seed, {**given, **trial}, settings=settings, report=True
                )
            except Error:
                continue
            later = _refused_at(model, found[0], positions)
            if later is None or later[0] > position:
                return trial, found[0], found[1], later
    return None


def _moves(desc: TensorDesc, shape: tuple[int, ...], sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The shapes tried for an input: its open dims past the first all at one size (an image's
    height and width, which a windowed attention needs together: HaloNet's 256 x 256), then each
    open dim alone at each size."""
    dims = desc.shape.dims or ()
    open_axes = [k for k, d in enumerate(dims) if not d.is_static]
    joint = [k for k in open_axes if k > 0]
    for size in sizes if len(joint) > 1 else ():
        if all(dims[k].contains(size) for k in joint) and any(shape[k] != size for k in joint):
            yield tuple(size if k in joint else n for k, n in enumerate(shape))
    for axis in open_axes:
        for size in sizes:
            if size != shape[axis] and dims[axis].contains(size):
                yield (*shape[:axis], size, *shape[axis + 1 :])


def _refused_at(
    model: Model, inputs: Mapping[str, np.ndarray], positions: Mapping[str, int]
) -> tuple[int, str] | None:
    """Where ovonehot refuses ``inputs`` (:func:`_refused`): the refusing layer's position in the
    graph (``positions``: by layer description; past every layer when none is named) and the
    message without the layer; None when it runs them."""
    error = _refused(model, inputs)
    if error is None:
        return None
    text = str(error)
    layer = error.layers[0] if error.layers else ""
    message = text.removeprefix(layer).removeprefix(": ") if layer else text
    return positions.get(layer, len(model.graph.nodes)), message
