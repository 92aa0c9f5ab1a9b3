"""STFT-15 and ISTFT-16 against OpenVINO.

OpenVINO 2026.4's core has no ``evaluate`` for either op, so values are checked against the CPU
plugin (deterministic configuration) and an independent float64 oracle written here from the
definitions (frames times the centred window through NumPy's DFT; ISTFT as the overlap-add of
each windowed frame's inverse divided by the summed squared windows).  ovonehot computes in float64 and rounds
once; the plugin computes in f32: the stated tolerance is 1e-5 of the output's largest
magnitude for f32 (both, and the round trip), and ovonehot is within an f32 rounding of the
float64 oracle.  Shapes and refusals: OpenVINO's own inference on the same node, through IR
written by ``ov.save_model``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ovref import C, P, assert_inferred, build, cpu_outputs, export

from ovonehot.errors import ValidationError

ov = pytest.importorskip("openvino")
o16 = pytest.importorskip("openvino.opset16")

RNG = np.random.default_rng(15)
TOLERANCE = 1e-5  # of the largest magnitude, ovonehot (float64, rounded once) vs the f32 CPU plugin


def _stft64(x: np.ndarray, w: np.ndarray, size: int, step: int, transpose: bool) -> np.ndarray:
    padded = np.zeros(size)
    lead = (size - len(w)) // 2
    padded[lead : lead + len(w)] = w
    frames = [x[..., s : s + size] * padded for s in range(0, x.shape[-1] - size + 1, step)]
    spectrum = np.fft.rfft(np.stack(frames, axis=-2), axis=-1)
    out = np.stack([spectrum.real, spectrum.imag], axis=-1)
    return np.swapaxes(out, -3, -2) if transpose else out


def _close(ours: np.ndarray, theirs: np.ndarray, tolerance: float = TOLERANCE) -> None:
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    scale = max(float(np.max(np.abs(theirs.astype(np.float64)), initial=0.0)), 1e-30)
    worst = float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)), initial=0.0))
    assert worst <= tolerance * scale, f"differ by {worst / scale:.3g} of the largest magnitude"


STFT_CASES = [
    pytest.param((2, 16), 8, 8, 4, id="2d"),
    pytest.param((16,), 8, 8, 4, id="1d"),
    pytest.param((3, 21), 5, 7, 3, id="short-window-odd"),
    pytest.param((1, 10), 10, 10, 1, id="frame-is-signal"),
    pytest.param((2, 33), 16, 16, 5, id="step-5"),
    pytest.param((0, 12), 4, 4, 2, id="empty-batch"),
]


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize(("shape", "window", "size", "step"), STFT_CASES)
def test_stft_matches_cpu_and_float64(tmp_path: Any, shape: tuple[int, ...], window: int, size: int,
                                      step: int, transpose: bool) -> None:  # fmt: skip
    x = RNG.standard_normal(shape).astype(np.float32)
    w = np.hanning(window + 2)[1:-1].astype(np.float32)
    node, params = build(
        lambda s, win, n, k: o16.stft(s, win, n, k, transpose),
        [P(x), P(w), C(np.int64(size)), C(np.int32(step))],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    for exact in (True, False):
        (ours,) = model.run([x, w], exact=exact).values()
        expected = _stft64(x.astype(np.float64), w.astype(np.float64), size, step, transpose)
        np.testing.assert_array_equal(ours, expected.astype(np.float32))  # rounded once
    if x.size:
        (theirs,) = cpu_outputs(node, params, [x, w])
        _close(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float16, np.float64], ids=["f16", "f64"])
def test_stft_keeps_the_signal_type(tmp_path: Any, dtype: Any) -> None:
    x = RNG.standard_normal((2, 12)).astype(dtype)
    w = np.ones(4, dtype)
    node, params = build(lambda s, win, n, k: o16.stft(s, win, n, k, False), [P(x), P(w), C(4), C(2)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x, w]).values()
    expected = _stft64(x.astype(np.float64), w.astype(np.float64), 4, 2, False)
    np.testing.assert_array_equal(ours, expected.astype(dtype))


# (signal, window, frame_size, frame_step): shapes OpenVINO infers or refuses
STFT_SHAPES = [
    ("2,16", "8", 8, 4), ("16", "8", 8, 4), ("3,2,16", "8", 8, 4), ("2,16", "6", 8, 4), ("2,16", "9", 8, 4),
    ("2,16", "8", 16, 4), ("2,16", "8", 17, 4), ("2,16", "8", 0, 4), ("2,16", "8", 8, 0), ("2,?", "8", 8, 4),
    ("2,10..20", "8", 8, 3), ("?,..20", "?", 8, 3), ("...", "8", 8, 4), ("2,16", "8", None, 4),
    ("16", "8", None, 4), ("2,16", "", 8, 4), ("2,3..5", "4", 4, 1), ("?,..7", "4", 8, 1), ("", "4", 4, 1),
]  # fmt: skip
ISTFT_SHAPES = [
    ("5,3,2", "8", 8, 4, None), ("2,5,3,2", "8", 8, 4, None), ("5,3,2", "8", 8, 4, 20), ("5,3,2", "8", 8, 4, -1),
    ("4,3,2", "8", 8, 4, None), ("?,?,2", "8", 8, 4, None), ("5,2..4,2", "6", 8, 3, None),
    ("5,3,2", "9", 8, 4, None), ("5,3,2", "8", 0, 4, None), ("5,3,2", "8", 8, 0, None), ("...", "8", 8, 4, None),
    ("5,3", "8", 8, 4, None), ("5,3,2", "8", None, 4, None), ("5,3,2", "8", 8, None, "?"), ("4,0,2", "7", 7, 2, None),
    ("4,3,2", "7", 7, 2, None),
]  # fmt: skip


def _i64(value: int | None) -> Any:
    return o16.parameter([], ov.Type.i64) if value is None else o16.constant(np.int64(value))


@pytest.mark.parametrize("transpose", [False, True])
def test_stft_shapes_match_openvino(tmp_path: Any, transpose: bool) -> None:
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.stft import STFTAttrs, infer_stft
    from ovonehot.types import ElementType, PartialShape

    differ = {}
    for signal, window, size, step in STFT_SHAPES:
        ps = [o16.parameter(ov.PartialShape(f"[{s}]"), ov.Type.f32) for s in (signal, window)]
        ins = [
            TensorInfo(ElementType.f32, PartialShape.parse(signal)),
            TensorInfo(ElementType.f32, PartialShape.parse(window)),
        ] + [
            TensorInfo(ElementType.i64, PartialShape.of(()), None if v is None else np.array(v, np.int64))
            for v in (size, step)
        ]
        try:
            node = o16.stft(*ps, _i64(size), _i64(step), transpose)
            theirs = f"{node.get_output_partial_shape(0)}"
        except RuntimeError:
            theirs = "refused"
        try:
            ours = str(infer_stft(STFTAttrs(transpose), ins)[0].shape)
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(signal, window, size, step)] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"


@pytest.mark.parametrize(("center", "normalized"), [(False, False), (True, False), (True, True)])
def test_istft_shapes_match_openvino(center: bool, normalized: bool) -> None:
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.stft import ISTFTAttrs, infer_istft
    from ovonehot.types import ElementType, PartialShape

    differ = {}
    for data, window, size, step, length in ISTFT_SHAPES:
        ps = [o16.parameter(ov.PartialShape(f"[{s}]"), ov.Type.f32) for s in (data, window)]
        ins = [
            TensorInfo(ElementType.f32, PartialShape.parse(data)),
            TensorInfo(ElementType.f32, PartialShape.parse(window)),
        ] + [
            TensorInfo(ElementType.i64, PartialShape.of(()), None if v is None else np.array(v, np.int64))
            for v in (size, step)
        ]
        extra = []
        if length is not None:
            value = None if length == "?" else int(length)
            extra = [_i64(value)]
            ins.append(
                TensorInfo(ElementType.i64, PartialShape.of(()), None if value is None else np.array(value))
            )
        try:
            node = o16.istft(*ps, _i64(size), _i64(step), center, normalized, *extra)
            theirs = f"{node.get_output_partial_shape(0)}"
        except RuntimeError:
            theirs = "refused"
        try:
            ours = str(infer_istft(ISTFTAttrs(center, normalized), ins)[0].shape)
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(data, window, size, step, length)] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"


ISTFT_CASES = [
    pytest.param((2, 40), 8, 8, 2, None, id="2d"),
    pytest.param((40,), 8, 8, 2, None, id="1d"),
    pytest.param((2, 31), 6, 7, 2, None, id="odd-frame-short-window"),
    pytest.param((1, 40), 8, 8, 2, 45, id="length-longer"),
    pytest.param((1, 40), 8, 8, 2, 20, id="length-shorter"),
]


@pytest.mark.parametrize(
    ("center", "normalized"), [(False, False), (True, False), (False, True), (True, True)]
)
@pytest.mark.parametrize(("shape", "window", "size", "step", "length"), ISTFT_CASES)
def test_istft_matches_cpu_and_restores_the_signal(tmp_path: Any, shape: tuple[int, ...], window: int, size: int,
                                                    step: int, length: int | None, center: bool,
                                                    normalized: bool) -> None:  # fmt: skip
    x = RNG.standard_normal(shape)
    w = np.hanning(window + 2)[1:-1]
    spec = _stft64(x, w, size, step, transpose=True)  # [batch?, bins, frames, 2]
    if normalized:
        spec = spec / np.sqrt(size)
    data, w32 = spec.astype(np.float32), w.astype(np.float32)
    extra = [C(np.int64(length))] if length is not None else []
    node, params = build(
        lambda d, win, n, k, *rest: o16.istft(d, win, n, k, center, normalized, *rest),
        [P(data), P(w32), C(np.int64(size)), C(np.int64(step)), *extra],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data, w32]).values()
    # the restored signal: x where some window covers it, shifted by frame_size // 2 when centred
    margin = size // 2 if center else 0
    n = ours.shape[-1]
    restored = np.zeros((*x.shape[:-1], n))
    covered = min(n, x.shape[-1] - margin)
    restored[..., :covered] = x[..., margin : margin + covered]
    weight = np.zeros(x.shape[-1])
    padded = np.zeros(size)
    padded[(size - window) // 2 : (size - window) // 2 + window] = w
    for s in range(0, x.shape[-1] - size + 1, step):
        weight[s : s + size] += padded**2
    used = (np.arange(n) + margin < x.shape[-1]) & (
        weight[np.minimum(np.arange(n) + margin, x.shape[-1] - 1)] > 1e-2
    )
    np.testing.assert_allclose(ours[..., used], restored[..., used], rtol=0, atol=1e-5)
    (theirs,) = cpu_outputs(node, params, [data, w32])
    _close(ours, theirs, 1e-4)


def test_istft_of_a_spectrum_that_is_no_stft_matches_cpu(tmp_path: Any) -> None:
    """Random spectra (not the STFT of any signal): windowed frames over the summed squared windows
    (torch's least-squares estimate), as OpenVINO's reference and CPU plugin compute."""
    data = RNG.standard_normal((2, 5, 9, 2)).astype(np.float32)
    w = (np.hanning(10)[1:-1] + 0.1).astype(np.float32)
    node, params = build(
        lambda d, win, n, k: o16.istft(d, win, n, k, False, False),
        [P(data), P(w), C(np.int64(8)), C(np.int64(3))],
    )
    model = export(tmp_path, node, params)
    (ours,) = model.run([data, w]).values()
    (theirs,) = cpu_outputs(node, params, [data, w])
    _close(ours, theirs, 1e-4)
