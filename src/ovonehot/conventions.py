"""Three OneHot conventions, each run exactly, on top of one kernel (``ops.one_hot.one_hot``).

The same idea ("put on_value where the index says, off_value elsewhere") is
written three ways in the specs (OpenVINO OneHot-1, ONNX OneHot, DirectML
DML_ONE_HOT_OPERATOR_DESC).  This module gives each
convention its own function with its own argument layout, checks and
out-of-range rules; all three share the NumPy kernel of ``ovonehot.ops.one_hot``
(which copies on/off bit for bit and never builds an ``indices x depth`` temporary):

* :func:`openvino_one_hot` -- OpenVINO OneHot-1 / OneHot-16: two scalar values,
  integral indices and depth only, negative indices ignored (OneHot-1,
  ``ignore_negative``) or wrapped once (``normalize``).  Checks and messages are
  OpenVINO's own (``ops.one_hot.infer_one_hot``).
* :func:`onnx_one_hot` -- ONNX OneHot-9/11/28: ``values = [off_value, on_value]``,
  any numeric indices and depth, non-integers cast to int64 (truncation toward
  zero); opset 9 turns on only [0, depth), opset 11 and later also wrap
  [-depth, -1].
* :func:`directml_one_hot` -- DirectML ``DML_ONE_HOT``: indices, values and output
  of the same dimension count, indices of size 1 on ``axis``, output sizes given
  by the caller, off = values element 0 and on = element 1 along the fastest-
  changing dimension of size > 1, unsigned ``axis``, feature-level type tables.

Every refusal raises an :class:`ovonehot.Error` subclass whose message names the
convention and the rule: :class:`~ovonehot.errors.InputError` for a tensor that
breaks a rule, :class:`~ovonehot.errors.UsageError` for a bad option (opset,
feature level, mode), and, for the OpenVINO convention,
:class:`~ovonehot.errors.ValidationError` carrying OpenVINO's own message.
docs/conventions.md compares the three side by side.

>>> import numpy as np
>>> idx = np.array([0, 2, -1, 5])
>>> openvino_one_hot(idx, np.int64(3), np.float32(1), np.float32(0)).astype(int).tolist()
[[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
>>> onnx_one_hot(idx, 3, np.array([0, 1], np.float32)).astype(int).tolist()
[[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 0]]
>>> directml_one_hot(idx.reshape(4, 1).astype(np.int32), np.array([[0, 1]], np.float32),
...                  (4, 3), axis=1).astype(int).tolist()
[[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 0]]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError, IRError, UsageError
from .ops.common.shape_util import normalize_axis
from .ops.common.spec import TensorInfo
from .ops.one_hot import (
    NegativeIndicesMode,
    OneHotAttrs,
    evaluate_one_hot,
    infer_one_hot,
    one_hot,
)
from .types import ElementType, PartialShape

__all__ = [
    "DIRECTML_FEATURE_LEVELS",
    "ONNX_ONE_HOT_VERSIONS",
    "directml_one_hot",
    "onnx_one_hot",
    "openvino_one_hot",
]

_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------- OpenVINO


def openvino_one_hot(
    indices: object,
    depth: object,
    on_value: object,
    off_value: object,
    axis: int = -1,
    negative_indices_mode: NegativeIndicesMode | str | None = None,
) -> np.ndarray:
    """OpenVINO OneHot-1 (``negative_indices_mode=None``) or OneHot-16, as OpenVINO computes it.

    ``indices``: any integral tensor in OpenVINO's sense (every type but a float:
    i8..u64 and boolean pass; the written spec says i32/i64).  ``depth``, ``on_value``,
    ``off_value``: scalars (rank 0: a ``[1]`` tensor is refused); ``depth`` integral
    and >= 0, ``on_value``/``off_value`` of one type, which is the output type.
    ``axis`` in [-(r+1), r] for indices rank r.  OneHot-1 and ``ignore_negative`` turn
    on positions with 0 <= index < depth; ``normalize`` first maps index < 0 to
    index + depth (so [-depth, -1] wraps once).  Checks and messages come from
    ``ovonehot.ops.one_hot`` (OpenVINO's NodeValidationFailure texts), raised as
    :class:`~ovonehot.errors.ValidationError`.

    >>> import numpy as np
    >>> on, off = np.float32(1), np.float32(2)
    >>> openvino_one_hot(np.array([0, 3, 1, 2]), np.int64(3), on, off).astype(int).tolist()
    [[1, 2, 2], [2, 2, 2], [2, 1, 2], [2, 2, 1]]
    >>> openvino_one_hot(np.array([-1, 1]), np.int64(3), on, off, negative_indices_mode="normalize").tolist()
    [[2.0, 2.0, 1.0], [2.0, 1.0, 2.0]]
    >>> openvino_one_hot(np.array([1.0]), np.int64(3), on, off)
    Traceback (most recent call last):
    ovonehot.errors.ValidationError: Indices must be integral element type. Got f64.
    """
    attrs = OneHotAttrs(_int_option(axis, "axis"), _negative_mode(negative_indices_mode))
    arrays = [_array(v) for v in (indices, depth, on_value, off_value)]
    labels = ("indices", "depth", "on_value", "off_value")
    infos = [
        TensorInfo(_element_type(a, label), PartialShape.of(a.shape), value=a if label == "depth" else None)
        for a, label in zip(arrays, labels, strict=True)
    ]
    infer_one_hot(attrs, infos)  # OpenVINO's checks, with its messages
    return evaluate_one_hot(attrs, arrays)[0]


def _negative_mode(mode: NegativeIndicesMode | str | None) -> NegativeIndicesMode:
    """``None`` is OneHot-1, which behaves as ``ignore_negative``; strings match case-insensitively
    and untrimmed, as OpenVINO's attribute parser does (the spec's ``ignore-negative`` is refused)."""
    if mode is None or isinstance(mode, NegativeIndicesMode):
        return mode or NegativeIndicesMode.IGNORE_NEGATIVE
    if isinstance(mode, str):
        for m in NegativeIndicesMode:
            if mode.lower() == m.value:
                return m
    known = ", ".join(repr(m.value) for m in NegativeIndicesMode)
    raise UsageError(f"OpenVINO OneHot: negative_indices_mode {mode!r} is not one of None, {known}")


def _element_type(array: np.ndarray, label: str) -> ElementType:
    try:
        return ElementType.from_numpy(array.dtype)
    except IRError:
        raise InputError(
            f"OpenVINO OneHot: {label} of NumPy type {array.dtype} has no OpenVINO element type"
        ) from None


# --------------------------------------------------------------------------- ONNX

# ONNX OneHot versions and the first opset of each (onnx.defs: OneHot since 9, 11, 28).
ONNX_ONE_HOT_VERSIONS = (9, 11, 28)

# Type constraints of OneHot-9/11/28 (T1 indices, T2 depth; T3 values adds bfloat16 in 28).
_ONNX_NUMERIC = frozenset(
    np.dtype(t)
    for t in (
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.float16,
        np.float32,
        np.float64,
    )
)
_ONNX_T1_NAMES = "uint8..uint64, int8..int64, float16, float, double"


def onnx_one_hot(
    indices: object,
    depth: object,
    values: object,
    axis: int = -1,
    opset: int = 11,
) -> np.ndarray:
    """ONNX OneHot of the version that ``opset`` holds (9 for opsets 9-10, 11 for 11-27, 28 after).

    * ``indices`` (T1: any integer or float16/float/double type, not bool): a
      non-integer type is cast to int64 before use, truncating toward zero
      (1.9 -> 1, -0.7 -> 0, -1.5 -> -1), as ONNX's Cast does; NaN, infinities and
      values outside int64 have no defined cast and are refused.
    * ``depth`` (T2, same types): a scalar, or a rank-1 tensor of one element
      (ONNX's shape inference accepts both in every version; OneHot-28 documents
      it), cast to int64 the same way; must be >= 0.  Depth 0 gives an empty axis.
    * ``values`` (T3): rank 1, exactly two elements ``[off_value, on_value]``, of any
      ONNX type: bool, integers, float16/float/double, complex64/128, strings
      (NumPy ``str``/``bytes`` or object arrays; the output is an object array), and
      bfloat16 from OneHot-28 on.  The output has ``values``' type; on/off are
      copied bit for bit (no arithmetic: inf, NaN and -0.0 survive).
    * ``axis`` in [-r-1, r] for indices rank r; the new axis of size depth goes there.
    * OneHot-9: an index turns a position on iff 0 <= index < depth.  OneHot-11
      and 28: iff -depth <= index < depth, negative ones counting from the end.
      Everything else gives an all-off sequence.

    >>> import numpy as np
    >>> onnx_one_hot(np.array([0, 7, 8]), np.float32(12), np.array([2, 5], np.int32))[:, 6:10].tolist()
    [[2, 2, 2, 2], [2, 5, 2, 2], [2, 2, 5, 2]]
    >>> onnx_one_hot(np.array([1.9, -0.7, -1.5]), 3.7, np.array(["off", "on"]))
    array([['off', 'on', 'off'],
           ['on', 'off', 'off'],
           ['off', 'off', 'on']], dtype=object)
    >>> onnx_one_hot(np.array([-1, 1]), 3, np.array([False, True]), opset=9).tolist()
    [[False, False, False], [False, True, False]]
    >>> onnx_one_hot(np.array([1]), 3, np.array([0, 1, 2]))
    Traceback (most recent call last):
    ovonehot.errors.InputError: ONNX OneHot-11: values must be a rank-1 tensor of exactly two elements [off_value, on_value], got shape [3]
    """
    version = _onnx_version(opset)
    where = f"ONNX OneHot-{version}"
    idx = _array(indices)
    if idx.dtype not in _ONNX_NUMERIC:
        raise InputError(f"{where}: indices of type {idx.dtype} are not allowed (T1: {_ONNX_T1_NAMES})")
    n = _onnx_depth(_array(depth), where)
    vals = _onnx_values(_array(values), version, where)
    r = idx.ndim
    ax = _int_option(axis, "axis")
    if not -r - 1 <= ax <= r:
        raise InputError(
            f"{where}: axis {ax} is outside the accepted range [{-r - 1}, {r}] for indices of rank {r}"
        )
    ax = normalize_axis(ax, r + 1)  # an axis of the output
    if idx.dtype.kind == "f":
        idx = _cast_to_int64(idx, f"{where}: indices")
    mode = NegativeIndicesMode.IGNORE_NEGATIVE if version == 9 else NegativeIndicesMode.NORMALIZE
    off, on = vals[0:1].reshape(()), vals[1:2].reshape(())
    if vals.dtype.kind == "c":  # the kernel copies bits through a same-width uint; complex128 has none
        out = np.empty((*idx.shape[:ax], n, *idx.shape[ax:]), dtype=vals.dtype)
        out.real = one_hot(idx, n, on.real, off.real, ax, mode)
        out.imag = one_hot(idx, n, on.imag, off.imag, ax, mode)
        return out
    return one_hot(idx, n, on, off, ax, mode)


def _onnx_version(opset: object) -> int:
    opset = _int_option(opset, "opset")
    if opset < ONNX_ONE_HOT_VERSIONS[0]:
        raise UsageError(f"ONNX opset {opset} has no OneHot (it first appears in opset 9)")
    return max(v for v in ONNX_ONE_HOT_VERSIONS if v <= opset)


def _onnx_depth(depth: np.ndarray, where: str) -> int:
    if depth.dtype not in _ONNX_NUMERIC:
        raise InputError(f"{where}: depth of type {depth.dtype} is not allowed (T2: {_ONNX_T1_NAMES})")
    if depth.shape not in ((), (1,)):
        raise InputError(
            f"{where}: depth must be a scalar or a rank-1 tensor of one element, "
            f"got shape {list(depth.shape)}"
        )
    if depth.dtype.kind == "f":
        depth = _cast_to_int64(depth, f"{where}: depth")
    n = int(depth.reshape(()))
    if n < 0:
        raise InputError(f"{where}: depth must not be negative, got {n}")
    if n > _INT64_MAX:
        raise InputError(f"{where}: depth {n} does not fit in int64")
    return n


def _onnx_values(vals: np.ndarray, version: int, where: str) -> np.ndarray:
    if vals.dtype.kind in "US":
        vals = vals.astype(object)
    if vals.shape != (2,):
        raise InputError(
            f"{where}: values must be a rank-1 tensor of exactly two elements "
            f"[off_value, on_value], got shape {list(vals.shape)}"
        )
    if vals.dtype == object:
        bad = [type(v).__name__ for v in vals if not isinstance(v, (str, bytes))]
        if bad:
            raise InputError(f"{where}: object values must be strings (ONNX string), got {bad[0]}")
        return vals
    allowed = vals.dtype in _ONNX_NUMERIC or vals.dtype in (np.bool_, np.complex64, np.complex128)
    if vals.dtype.name == "bfloat16":
        allowed = version >= 28
    if not allowed:
        extra = " (bfloat16 needs OneHot-28, opset >= 28)" if vals.dtype.name == "bfloat16" else ""
        raise InputError(f"{where}: values of type {vals.dtype} are not allowed{extra}")
    return vals


def _cast_to_int64(x: np.ndarray, where: str) -> np.ndarray:
    """Float -> int64 truncating toward zero; values with no defined cast are refused."""
    with np.errstate(invalid="ignore"):
        wide = x.astype(np.float64)
        bad = ~np.isfinite(wide) | (wide >= 2.0**63) | (wide < -(2.0**63))
    if bad.any():
        first = float(wide[bad].reshape(-1)[0])
        raise InputError(f"{where}: {first!r} has no int64 value (ONNX leaves that cast undefined)")
    return np.trunc(wide).astype(np.int64)


# --------------------------------------------------------------------------- DirectML

DIRECTML_FEATURE_LEVELS = (
    "1.0",
    "2.0",
    "2.1",
    "3.0",
    "3.1",
    "4.0",
    "4.1",
    "5.0",
    "5.1",
    "5.2",
    "6.0",
    "6.1",
    "6.2",
    "6.3",
    "6.4",
)

_DML_NAMES = {
    np.dtype(np.float64): "FLOAT64",
    np.dtype(np.float32): "FLOAT32",
    np.dtype(np.float16): "FLOAT16",
    np.dtype(np.int64): "INT64",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int16): "INT16",
    np.dtype(np.int8): "INT8",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint8): "UINT8",
}


@dataclass(frozen=True, slots=True)
class _DmlSupport:
    """One "Tensor support" table of the DML_ONE_HOT page: valid from ``level`` on."""

    level: tuple[int, int]
    dimension_counts: tuple[int, ...]
    indices_types: tuple[str, ...]
    values_types: tuple[str, ...]  # ValuesTensor and OutputTensor: the same list in every table


_SMALL = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
_DML_TABLES = (  # newest first
    _DmlSupport(
        (4, 1),
        tuple(range(1, 9)),
        ("INT64", "INT32", "UINT64", "UINT32"),
        (
            "FLOAT64",
            "FLOAT32",
            "FLOAT16",
            "INT64",
            "INT32",
            "INT16",
            "INT8",
            "UINT64",
            "UINT32",
            "UINT16",
            "UINT8",
        ),
    ),
    _DmlSupport((3, 0), tuple(range(1, 9)), ("INT64", "INT32", "UINT64", "UINT32"), _SMALL),
    _DmlSupport((2, 1), (4,), ("UINT32",), _SMALL),
    _DmlSupport((2, 0), (4,), ("UINT32",), ("FLOAT32", "FLOAT16")),
)


def directml_one_hot(
    indices: object,
    values: object,
    output_sizes: Sequence[int],
    axis: int,
    feature_level: str = "4.1",
) -> np.ndarray:
    """DirectML ``DML_ONE_HOT`` (DML_ONE_HOT_OPERATOR_DESC) at ``feature_level``, rules as written.

    * ``indices``, ``values`` and the output (``output_sizes``) have the same
      dimension count; ``indices`` has the output's sizes except 1 on ``axis``;
      the output's ``axis`` size is > 0.  ``axis`` is a UINT below the dimension count.
    * ``values`` holds at least two elements: off = element 0; on = element 1 along
      the fastest-changing (last, in NumPy's row-major layout) dimension of size > 1.
      The output has ``values``' data type.
    * An index v of the output axis size S turns position v on when 0 <= v < S.
      v >= S is ignored (the sequence stays all off; the page says "exceeds", but S
      itself has no element either).  From feature level 3.0, signed indices count
      from the end: -S <= v < 0 turns on v + S.  Interpretation (the page is silent):
      v < -S is ignored like an index past the end -- relative to the end it lies
      before the first element; onnxruntime's DirectML provider maps ONNX OneHot-11
      (where such indices are off) straight onto DML_ONE_HOT.  Signed indices never
      exist before 3.0: the 2.x tables allow only UINT32, where a "negative" bit
      pattern reads as a large index and is ignored.
    * ``feature_level``: "2.0" ... "6.4" (or ``"DML_FEATURE_LEVEL_3_0"``, 3.0, (3, 0)); the newest
      tensor-support table at or below it is enforced: 2.0 and 2.1 take exactly 4
      dimensions and UINT32 indices, 2.0 only FLOAT32/FLOAT16 values, 2.1 and 3.0 add
      8-32-bit integers, 3.0 allows 1 to 8 dimensions and INT32/INT64/UINT64 indices,
      4.1 adds FLOAT64, INT64 and UINT64 values.  The operator does not exist at 1.0.

    >>> import numpy as np
    >>> directml_one_hot(np.array([[[[0], [3], [2]]]], np.uint32), np.array([[[[4], [2], [9]]]], np.float32),
    ...                  (1, 1, 3, 4), axis=3).astype(int).tolist()
    [[[[2, 4, 4, 4], [4, 4, 4, 2], [4, 4, 2, 4]]]]
    >>> directml_one_hot(np.array([-1, 2, -4, 9], np.int64), np.array([0, 1], np.int8), (4, 3), axis=1)
    Traceback (most recent call last):
    ovonehot.errors.InputError: DirectML DML_ONE_HOT: IndicesTensor, ValuesTensor and OutputTensor must have the same DimensionCount, got 1, 1 and 2
    >>> directml_one_hot(np.array([[-1]], np.int32), np.array([[0, 1]], np.float32), (1, 3), 1, "2.1")
    Traceback (most recent call last):
    ovonehot.errors.InputError: DirectML DML_ONE_HOT at DML_FEATURE_LEVEL_2_1: IndicesTensor supports dimension counts 4, got 2
    """
    level = _dml_level(feature_level)
    table = next(t for t in _DML_TABLES if t.level <= level)
    where = f"DirectML DML_ONE_HOT at DML_FEATURE_LEVEL_{level[0]}_{level[1]}"
    idx, vals = _array(indices), _array(values)
    sizes = tuple(_int_option(s, "output_sizes element") for s in output_sizes)
    ax = _int_option(axis, "axis")

    _check_dml_support(idx, vals, sizes, table, where)
    _check_dml_shapes(idx, vals, sizes, ax)
    fastest = max(d for d in range(vals.ndim) if vals.shape[d] > 1)
    on_at = tuple(1 if d == fastest else 0 for d in range(vals.ndim))
    off, on = _element(vals, (0,) * vals.ndim), _element(vals, on_at)
    # Signed indices are allowed only from 3.0 (the tables), where negatives count from the end.
    mode = NegativeIndicesMode.NORMALIZE if idx.dtype.kind == "i" else NegativeIndicesMode.IGNORE_NEGATIVE
    return one_hot(np.squeeze(idx, axis=ax), sizes[ax], on, off, ax, mode)


def _check_dml_support(
    idx: np.ndarray, vals: np.ndarray, sizes: tuple[int, ...], table: _DmlSupport, where: str
) -> None:
    """DML_ONE_HOT's dimension counts and the feature level's tensor-support table."""
    if not idx.ndim == vals.ndim == len(sizes):
        raise InputError(
            f"DirectML DML_ONE_HOT: IndicesTensor, ValuesTensor and OutputTensor must have the "
            f"same DimensionCount, got {idx.ndim}, {vals.ndim} and {len(sizes)}"
        )
    for label, count in (
        ("IndicesTensor", idx.ndim),
        ("ValuesTensor", vals.ndim),
        ("OutputTensor", len(sizes)),
    ):
        if count not in table.dimension_counts:
            raise InputError(
                f"{where}: {label} supports dimension counts {_ranges(table.dimension_counts)}, got {count}"
            )
    index_type, value_type = _dml_type(idx, "IndicesTensor", where), _dml_type(vals, "ValuesTensor", where)
    if index_type not in table.indices_types:
        raise InputError(
            f"{where}: IndicesTensor supports {', '.join(table.indices_types)}, got {index_type}"
        )
    if value_type not in table.values_types:
        raise InputError(
            f"{where}: ValuesTensor and OutputTensor (same DataType) support "
            f"{', '.join(table.values_types)}, got {value_type}"
        )


def _check_dml_shapes(idx: np.ndarray, vals: np.ndarray, sizes: tuple[int, ...], ax: int) -> None:
    """DML_ONE_HOT's axis, output sizes, indices sizes and values count."""
    if not 0 <= ax < idx.ndim:
        raise InputError(
            f"DirectML DML_ONE_HOT: Axis is a UINT that must be less than the DimensionCount "
            f"of IndicesTensor ({idx.ndim}), got {ax}"
        )
    if any(s < 0 for s in sizes) or sizes[ax] <= 0:
        raise InputError(
            f"DirectML DML_ONE_HOT: the OutputTensor size on Axis {ax} must be greater than 0 "
            f"(and no size negative), got sizes {list(sizes)}"
        )
    expected = (*sizes[:ax], 1, *sizes[ax + 1 :])
    if idx.shape != expected:
        raise InputError(
            f"DirectML DML_ONE_HOT: IndicesTensor must have the OutputTensor sizes except 1 on "
            f"Axis {ax}: expected {list(expected)}, got {list(idx.shape)}"
        )
    if vals.size < 2:
        raise InputError(
            f"DirectML DML_ONE_HOT: ValuesTensor must hold at least two elements, "
            f"got sizes {list(vals.shape)}"
        )


def _element(array: np.ndarray, position: tuple[int, ...]) -> np.ndarray:
    """A 0-d view of one element: keeps the dtype and the exact bits (NaN payloads)."""
    return array[tuple(slice(p, p + 1) for p in position)].reshape(())


def _dml_level(feature_level: object) -> tuple[int, int]:
    """``"3.0"``, ``"DML_FEATURE_LEVEL_3_0"``, ``3.0`` or ``(3, 0)`` -> (3, 0); unknown levels are refused."""
    if isinstance(feature_level, tuple) and len(feature_level) == 2:
        text = ".".join(str(p) for p in feature_level)
    elif isinstance(feature_level, (str, float)):
        text = str(feature_level).strip()
    else:
        text = ""
    match = re.fullmatch(r"(?:DML_FEATURE_LEVEL_)?(\d+)[._](\d+)", text, re.IGNORECASE)
    if match is None or f"{match.group(1)}.{match.group(2)}" not in DIRECTML_FEATURE_LEVELS:
        raise UsageError(
            f"DirectML feature level {feature_level!r} is not one of "
            f"{', '.join(DIRECTML_FEATURE_LEVELS)} (e.g. '3.0' or 'DML_FEATURE_LEVEL_3_0')"
        )
    level = (int(match.group(1)), int(match.group(2)))
    if level < (2, 0):
        raise UsageError(
            f"DirectML DML_ONE_HOT does not exist at feature level {level[0]}.{level[1]}: "
            "it was introduced in DML_FEATURE_LEVEL_2_0"
        )
    return level


def _dml_type(array: np.ndarray, label: str, where: str) -> str:
    name = _DML_NAMES.get(array.dtype)
    if name is None:
        raise InputError(
            f"{where}: {label} of NumPy type {array.dtype} has no DirectML tensor data type "
            f"(supported: {', '.join(_DML_NAMES.values())})"
        )
    return name


def _ranges(counts: tuple[int, ...]) -> str:
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"


# --------------------------------------------------------------------------- shared


def _array(value: object) -> np.ndarray:
    """``value`` as an array; str/bytes arrays become object arrays (ovonehot's string layout)."""
    array = np.asarray(value)
    return array.astype(object) if array.dtype.kind in "US" else array


def _int_option(value: object, label: str) -> int:
    """An integer option (axis, opset, a size); bool and float are refused, not truncated."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"{label} must be an integer, got {value!r}")
    return int(value)
