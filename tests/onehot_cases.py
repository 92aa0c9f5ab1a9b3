"""Test helper: seeded random single-OneHot cases, built and saved with OpenVINO.

A :class:`Case` is one OneHot (version, mode, indices, axis, depth, on/off values and
where each input comes from).  :func:`write_model` writes it as IR with
``ov.save_model`` (indices a Parameter, possibly with dynamic or interval dims;
depth, on and off each a Constant or a Parameter; f16-compressed or plain) and
returns ovonehot's inputs; :func:`expected` is OpenVINO's core reference for it
(``Node.evaluate`` of the OneHot built on Constant inputs).

Value types exclude string (OpenVINO's OneHot reference aborts the process) and the
sub-byte types (its kernel writes one byte per element past the packed output).  Float
on/off Constants in compressed models are drawn from values f16 holds exactly, so the
file holds the very values the reference is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
from openvino import opset1, opset16

from ovonehot.oracle.openvino_runtime import from_tensor, to_tensor
from ovonehot.types import ElementType

VALUE_TYPES = tuple(
    ElementType(t)
    for t in (
        "boolean",
        "bf16",
        "f16",
        "f32",
        "f64",
        "i8",
        "i16",
        "i32",
        "i64",
        "u8",
        "u16",
        "u32",
        "u64",
        "f8e4m3",
        "f8e5m2",
        "f8e8m0",
    )
)
DEPTH_TYPES = tuple(ElementType(t) for t in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"))
INDEX_TYPES = (ElementType.i32, ElementType.i64)
MODES = (None, "ignore_negative", "normalize", "NORMALIZE")  # None: OneHot-1; case-insensitive enum
BEYOND_INT32 = (2**32, 2**32 + 1, -(2**32) + 1, 2**31, -(2**31) - 1, 2**40 + 2, 2**63 - 1, -(2**63))


@dataclass(frozen=True)
class Case:
    """One OneHot to build, save, run and compare."""

    index: int
    version: int
    mode: str | None
    indices: np.ndarray
    param_shape: str  # the indices Parameter's declared shape, OpenVINO notation
    axis: int
    depth: np.ndarray  # 0-d, of the depth type
    on: np.ndarray  # 0-d, of the value type
    off: np.ndarray
    value_type: ElementType
    depth_is_param: bool
    values_are_params: bool
    compress: bool

    @property
    def id(self) -> str:
        mode = {None: "", "ignore_negative": "-ign", "normalize": "-norm", "NORMALIZE": "-NORM"}[self.mode]
        where = ("dP" if self.depth_is_param else "dC") + ("vP" if self.values_are_params else "vC")
        return (
            f"{self.index:03d}-v{self.version}{mode}-r{self.indices.ndim}-ax{self.axis}-"
            f"{ElementType.from_numpy(self.indices.dtype)}-d{int(self.depth)}{ElementType.from_numpy(self.depth.dtype)}"
            f"-{self.value_type}-{where}-{'f16c' if self.compress else 'plain'}"
        )


def _bits_of(et: ElementType, rng: np.random.Generator, f16_exact: bool) -> np.ndarray:
    """One 0-d value of ``et``: random bits, with specials and extremes over-represented."""
    dtype = et.numpy_dtype
    assert dtype is not None
    if et is ElementType.boolean:
        return np.array(bool(rng.integers(2)))
    if et.is_integral_number:
        info = np.iinfo(dtype)
        pick = rng.integers(4)
        if pick < 3:
            return np.array([info.min, info.max, 0][pick], dtype=dtype)
        return np.array(rng.integers(info.min, info.max, dtype=dtype, endpoint=True))
    if rng.random() < 0.35:  # a special value, or a signalling NaN with a payload
        specials = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 65504.0, 2.0**-24]
        pick = int(rng.integers(len(specials) + 1))
        if pick < len(specials):
            with np.errstate(invalid="ignore", over="ignore"):
                return np.array(specials[pick]).astype(dtype)
        if dtype.itemsize >= 2:
            source = np.float16 if f16_exact and et in (ElementType.f32, ElementType.f64) else dtype
            snan = np.array(-1, dtype=np.int64).astype(f"u{np.dtype(source).itemsize}")
            bits = np.array(snan).view(source)  # all ones: a negative NaN with a full payload
            with np.errstate(invalid="ignore"):
                return bits.astype(dtype)
    if f16_exact and et in (ElementType.f32, ElementType.f64):
        half = np.array(rng.integers(0, 2**16), dtype=np.uint16).view(np.float16)
        with np.errstate(invalid="ignore"):
            return half.astype(dtype)
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return np.array(
        rng.integers(0, 2 ** (8 * dtype.itemsize), dtype=np.uint64, endpoint=False).astype(width)
    ).view(dtype)


def _param_shape(shape: tuple[int, ...], rng: np.random.Generator) -> str:
    """Static most of the time; else some dims '?', 'a..b', 'a..' or '..b' around the real size."""
    if rng.random() < 0.6:
        return ",".join(str(n) for n in shape)
    parts = []
    for n in shape:
        kind = rng.integers(5)
        parts.append([str(n), "?", f"{max(n - 1, 0)}..{n + 2}", f"{n}..", f"..{n + 1}"][kind])
    return ",".join(parts)


def make_cases(
    n: int, seed: int, value_types: tuple[ElementType, ...] = VALUE_TYPES, beyond_int32: bool = True
) -> list[Case]:
    """``n`` seeded cases; ``beyond_int32=False`` keeps i64 indices within int32."""
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n):
        mode = MODES[rng.integers(len(MODES))]
        version = 1 if mode is None else 16
        rank = int(rng.integers(0, 6))
        shape = tuple(int(d) for d in rng.integers(0 if rng.random() < 0.05 else 1, 4, size=rank))
        axis = int(rng.integers(-(rank + 1), rank + 1))
        index_type = INDEX_TYPES[rng.integers(2)]
        depth_type = DEPTH_TYPES[rng.integers(len(DEPTH_TYPES))]
        depth = int(rng.choice([0, 1, 2, 3, 4, 5, 7, 17])) if rng.random() < 0.9 else 0
        indices = rng.integers(-depth - 3, depth + 3, size=shape).astype(index_type.numpy_dtype)
        if beyond_int32 and index_type is ElementType.i64 and indices.size and rng.random() < 0.4:
            flat = indices.reshape(-1)
            for j in rng.integers(0, flat.size, size=max(1, flat.size // 3)):
                flat[j] = np.int64(BEYOND_INT32[rng.integers(len(BEYOND_INT32))])
        value_type = value_types[rng.integers(len(value_types))]
        compress = bool(rng.integers(2))
        values_are_params = rng.random() < 0.25
        exact = compress and not values_are_params
        cases.append(
            Case(
                index=k,
                version=version,
                mode=mode,
                indices=indices,
                param_shape=_param_shape(shape, rng),
                axis=axis,
                depth=np.array(depth, dtype=depth_type.numpy_dtype),
                on=_bits_of(value_type, rng, exact),
                off=_bits_of(value_type, rng, exact),
                value_type=value_type,
                depth_is_param=rng.random() < 0.3,
                values_are_params=values_are_params,
                compress=compress,
            )
        )
    return cases


def _const(et: ElementType, value: np.ndarray) -> object:
    return ov.op.Constant(to_tensor(et, value), shared_memory=False)


def _one_hot(case: Case, indices: object, depth: object, on: object, off: object) -> object:
    if case.version == 1:
        return opset1.one_hot(indices, depth, on, off, case.axis)
    return opset16.one_hot(indices, depth, on, off, case.axis, negative_indices_mode=case.mode)


def expected(case: Case) -> np.ndarray:
    """OpenVINO's reference: Node.evaluate of the OneHot on Constant inputs."""
    args = [
        (ElementType.from_numpy(case.indices.dtype), case.indices),
        (ElementType.from_numpy(case.depth.dtype), case.depth),
        (case.value_type, case.on),
        (case.value_type, case.off),
    ]
    node = _one_hot(case, *(_const(et, v) for et, v in args))
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([out], [to_tensor(et, v) for et, v in args]), (
        "OpenVINO has no evaluate for this case"
    )
    return from_tensor(out)


def write_model(case: Case, path: Path) -> dict[str, np.ndarray]:
    """The case as an IR file written by OpenVINO; returns ovonehot's inputs for it."""
    idx_t = ElementType.from_numpy(case.indices.dtype)
    dep_t = ElementType.from_numpy(case.depth.dtype)
    params = [
        opset1.parameter(
            ov.PartialShape(f"[{case.param_shape}]"), getattr(ov.Type, idx_t.value), name="indices"
        )
    ]
    inputs = {"indices": case.indices}

    def maybe_param(name: str, et: ElementType, value: np.ndarray, is_param: bool) -> object:
        if not is_param:
            return _const(et, value)
        p = opset1.parameter([], getattr(ov.Type, et.value), name=name)
        params.append(p)
        inputs[name] = value
        return p

    depth = maybe_param("depth", dep_t, case.depth, case.depth_is_param)
    on = maybe_param("on_value", case.value_type, case.on, case.values_are_params)
    off = maybe_param("off_value", case.value_type, case.off, case.values_are_params)
    node = _one_hot(case, params[0], depth, on, off)
    ov.save_model(ov.Model([node.output(0)], params, "diff"), str(path), compress_to_fp16=case.compress)
    return inputs
