"""Test helper: exact comparison of two result arrays, and OpenVINO's CPU-plugin envelope.

``assert_same`` compares shape, then dtype, then bits (raw bytes, so NaN payloads
and -0.0 count; strings compare as text).  ``cpu_envelope_refusal`` says why a
model and its inputs lie outside the region where docs/openvino-behaviour.md found the CPU plugin
bit-identical to the core reference (None when inside).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

import ovonehot
from ovonehot.types import ElementType


def assert_same(
    ours: np.ndarray, theirs: np.ndarray, where: str = "", *, ulp: int = 0, any_nan: bool = False
) -> None:
    """Shape, then dtype, then every bit; with ``ulp``, floats within that many units in the last
    place; with ``any_nan``, a NaN equals any NaN (the sign and payload of a NaN an arithmetic
    kernel makes are not specified; a copy's are, so copies compare without it)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ulp:
        _assert_within_ulp(ours, theirs, ulp, where)
        return
    assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != OpenVINO's {theirs.shape}"
    assert ours.dtype == theirs.dtype, f"{where}: dtype {ours.dtype} != OpenVINO's {theirs.dtype}"
    if ours.dtype == object:
        assert ours.tolist() == theirs.tolist(), f"{where}: strings differ"
        return
    width = max(ours.dtype.itemsize, 1)
    a = np.ascontiguousarray(ours).view(np.uint8).reshape(-1, width)
    b = np.ascontiguousarray(theirs).view(np.uint8).reshape(-1, width)
    differ = (a != b).any(axis=1)
    if any_nan and ours.dtype.kind in "fc":
        differ &= ~(np.isnan(ours.astype(np.float64)) & np.isnan(theirs.astype(np.float64))).reshape(-1)
    if differ.any():
        bad = int(np.flatnonzero(differ)[0])
        raise AssertionError(
            f"{where}: bits differ first at flat element {bad}: ours {ours.reshape(-1)[bad]!r}, "
            f"OpenVINO {theirs.reshape(-1)[bad]!r}\nours={ours!r}\nOpenVINO={theirs!r}"
        )


BF16_DEVIATION = "bf16-reference-rounding"


def assert_bf16_rounding_only(nearest: np.ndarray, reference: np.ndarray, where: str = "") -> None:
    """bf16 values ovonehot rounded to nearest even against OpenVINO's reference, which rounds
    ``(bits + ((bits & 0x10000) >> 1)) >> 16`` (the named deviation): for one f32 value the two
    differ only where the reference truncated to an even last bit that nearest-even rounds up by
    one, or where the value is a NaN (which the reference may turn into inf or a zero)."""
    assert nearest.shape == reference.shape, f"{where}: shape {nearest.shape} != {reference.shape}"
    a = np.ascontiguousarray(nearest).reshape(-1).view(np.uint16)
    b = np.ascontiguousarray(reference).reshape(-1).view(np.uint16)
    nan = np.isnan(np.asarray(nearest, np.float32).reshape(-1))
    bad = np.flatnonzero((a != b) & ~nan & ~(((b & 1) == 0) & (a == b + 1)))
    assert not bad.size, (
        f"{where}: nearest-even bf16 differs from OpenVINO's reference beyond {BF16_DEVIATION} at "
        f"{bad.size} positions, first at flat element {bad[0]}: ours 0x{a[bad[0]]:04X}, OpenVINO 0x{b[bad[0]]:04X}"
    )


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between two float arrays of the same dtype (NaN to NaN is 0)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(bits).astype(np.int64)
    ib = b.view(bits).astype(np.int64)
    # Map the sign-magnitude float order onto a monotonic integer line.
    top = np.int64(1) << (a.dtype.itemsize * 8 - 1)
    ia = np.where(ia < 0, -(ia + top), ia)
    ib = np.where(ib < 0, -(ib + top), ib)
    dist = np.abs(ia - ib)
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(both_nan, 0, dist)


def _assert_within_ulp(ours: np.ndarray, theirs: np.ndarray, ulp: int, where: str) -> None:
    assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != {theirs.shape}"
    assert ours.dtype == theirs.dtype, f"{where}: dtype {ours.dtype} != {theirs.dtype}"
    if ours.dtype.kind in "biu" or ours.dtype == object:
        assert_same(ours, theirs, where)
        return
    ok = ulp_distance(ours, theirs) <= ulp
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        details = ", ".join(
            f"{tuple(int(i) for i in idx)}: {ours[tuple(idx)]!r} vs {theirs[tuple(idx)]!r}" for idx in bad
        )
        raise AssertionError(
            f"{where}: {int((~ok).sum())} of {ours.size} values differ (allowed {ulp} ulp): {details}"
        )


def assert_same_outputs(ours: Mapping[str, np.ndarray], theirs: Mapping[str, np.ndarray], where: str) -> None:
    """The same keys in the same order, and every array the same (shape, dtype, bits)."""
    assert list(ours) == list(theirs), f"{where}: outputs {list(ours)} != OpenVINO's {list(theirs)}"
    for key in ours:
        assert_same(ours[key], theirs[key], f"{where} output {key!r}")


# docs/openvino-behaviour.md "The CPU plugin is not the reference": inside this envelope CPU == reference.
CPU_VALUE_TYPES = frozenset(
    ElementType(t) for t in ("f32", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "boolean")
)
INT32 = (-(2**31), 2**31 - 1)
_VALUE_REASONS = {
    ElementType.i64: "the CPU plugin saturates them to int32",
    ElementType.u32: "the CPU plugin saturates them to int32",
    ElementType.u64: "the CPU plugin saturates them to int32",
    ElementType.f64: "the CPU plugin computes them in f32",
}


def cpu_envelope_refusal(model: ovonehot.Model, inputs: Mapping[str, np.ndarray]) -> str | None:
    """Why the CPU plugin is not expected to equal the reference here, or None."""
    if model.graph.ir_version != 11:
        return f"IR v{model.graph.ir_version} (read_model converts v10 outputs)"
    for desc in model.inputs:
        if not desc.shape.rank_is_static:
            return f"input {desc.name!r} has a dynamic rank (refused at compile time)"
    inference = model.inference
    for i, plan in enumerate(inference.plans):
        if plan.node.type.lower() != "onehot":
            continue
        indices, _depth, on_value, _off = inference.input_infos(i)
        if indices.element_type not in (ElementType.i32, ElementType.i64):
            return f"{indices.element_type} indices (the CPU plugin takes i32, converting others)"
        if on_value.element_type not in CPU_VALUE_TYPES:
            why = _VALUE_REASONS.get(
                on_value.element_type, "not in the envelope docs/openvino-behaviour.md measured"
            )
            return f"{on_value.element_type} values ({why})"
        out_shape = inference.outputs[i][0].shape
        if indices.shape.rank_is_static and indices.shape.rank == 0 and not out_shape.is_static:
            return "scalar indices with a depth unknown at compile time (the CPU plugin refuses the dims)"
        src = model.graph.sources[i][0]
        source_node = model.graph.nodes[src.node]
        if indices.element_type is ElementType.i64:
            values = _indices_values(model, source_node, inputs)
            if values is None:
                return "i64 indices of unknown range"
            if values.size and (values.min() < INT32[0] or values.max() > INT32[1]):
                return "i64 indices beyond int32 (the CPU plugin wraps them)"
    return None


def _indices_values(
    model: ovonehot.Model, node: object, inputs: Mapping[str, np.ndarray]
) -> np.ndarray | None:
    for desc in model.inputs:
        if getattr(node, "name", None) == desc.name:
            for key in (desc.name, *desc.names):
                if key in inputs:
                    return np.asarray(inputs[key])
    payload = getattr(node, "payload", None)
    return None if payload is None else np.asarray(payload)


def npz_inputs(path: object) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}
