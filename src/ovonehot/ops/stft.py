"""STFT-15 and ISTFT-16: short-time Fourier transforms (``torch.stft``/``torch.istft``, Whisper features).

Complex values are a trailing dimension of 2 (real, imaginary), as for the DFT ops.

* STFT: ``signal`` ``[signal_size]`` or ``[batch, signal_size]``, ``window`` ``[window_size]``,
  scalar ``frame_size`` and ``frame_step`` (i32/i64); attribute ``transpose_frames``.  The
  window is zero-padded to ``frame_size`` and centred (``(frame_size - window_size) // 2``
  zeros before it); frame ``t`` is ``signal[t*step : t*step + frame_size]`` times that window,
  transformed by a real DFT.  Output ``[batch?, frames, frame_size//2 + 1, 2]`` with
  ``frames = (signal_size - frame_size) // frame_step + 1``, or ``[batch?, frame_size//2 + 1,
  frames, 2]`` when ``transpose_frames``.
* ISTFT: ``data`` ``[fft_results, frames, 2]`` or ``[batch, fft_results, frames, 2]`` with
  ``fft_results = frame_size//2 + 1``, the same ``window``, ``frame_size``, ``frame_step``, an
  optional ``signal_length`` (scalar or ``[1]``); attributes ``center`` and ``normalized``.
  Each frame's inverse real DFT (length ``frame_size``) times the padded window is
  overlap-added at ``t*step``, and every sample divided by the sum of the squared windows
  overlapping it (0 where that sum is 0; torch's least-squares estimate), times
  ``sqrt(frame_size)`` when ``normalized`` (``reference/istft.cpp``).  ``center`` drops
  ``frame_size // 2`` samples at the start.  The output length is ``signal_length`` when given
  (zeros past the restored samples), else ``(frames - 1) * step + frame_size``, less
  ``frame_size`` rounded down to even when ``center``.  A ``signal_length`` of -1 is unknown to
  shape inference and the default length at run time; any other negative one is inferred as 0
  (OpenVINO's ``get_input_const_data_as_shape``), and so is computed here (OpenVINO's CPU plugin
  corrupts its heap on a length <= 0).

Shapes and checks: ``stft_shape_inference.hpp``, ``istft_shape_inference.hpp``, ``stft.cpp``,
``istft.cpp``.  Data and window share one real type, which the output keeps.

Values: OpenVINO 2026.4's core gives neither op an ``evaluate`` (``Node.evaluate`` returns
false), so the oracle is its CPU plugin.  ovonehot computes in float64 (NumPy's FFT) and rounds
once to the output type; the plugin computes in f32 in its own order, a few f32 ulps of the
output's magnitude away (tests/test_ops_stft.py states the tolerance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import bool_attr
from .common.numeric import narrow, quiet, widen
from .common.shape_util import known_ints
from .common.spec import OpSpec, TensorInfo

_INDEX = (ElementType.i32, ElementType.i64)


@dataclass(frozen=True, slots=True)
class STFTAttrs:
    transpose_frames: bool


@dataclass(frozen=True, slots=True)
class ISTFTAttrs:
    center: bool
    normalized: bool


def parse_stft(node: Node) -> STFTAttrs:
    return STFTAttrs(bool_attr(node, "transpose_frames"))


def parse_istft(node: Node) -> ISTFTAttrs:
    return ISTFTAttrs(bool_attr(node, "center"), bool_attr(node, "normalized"))


# -- shared checks -------------------------------------------------------------------------------
def _check_types(inputs: Sequence[TensorInfo], data_name: str) -> ElementType:
    data, window = inputs[0].element_type, inputs[1].element_type
    if not (data.is_dynamic or data.is_real):
        raise ValidationError(f"Expected floating point type of the '{data_name}' input, got {data}.")
    if not (window.is_dynamic or (window.is_real and data.merge(window) is not None)):
        raise ValidationError(
            f"Expected floating point type of the 'window' input, matching the type of `{data_name}` "
            f"input, got {window} and {data}."
        )
    for port in range(2, len(inputs)):
        et = inputs[port].element_type
        if not (et.is_dynamic or et in _INDEX):
            raise ValidationError(f"Expected i32 or i64 type of the input at port: {port}, got {et}.")
    return data if not data.is_dynamic else window


def _check_scalars(inputs: Sequence[TensorInfo]) -> None:
    window = inputs[1].shape
    if window.rank_is_static and window.rank != 1:
        raise ValidationError(f"The shape of window must be 1D [window_size], got {window}.")
    for port, name in ((2, "frame_size"), (3, "frame_step")):
        shape = inputs[port].shape
        if shape.rank_is_static and shape.rank != 0:
            raise ValidationError(f"The shape of {name} must be a scalar, got {shape}.")


def _check_window(window: PartialShape, frame_size: int) -> None:
    if window.is_static and not 0 < window[0].length <= frame_size:
        raise ValidationError(
            f"Window input dimension must be in range [1, {frame_size}], got {window[0].length}."
        )


def _scalar(info: TensorInfo) -> int | None:
    values = known_ints(info)
    return values[0] if values else None


def _sub(d: Dimension, n: int) -> Dimension:
    """``d - n`` in OpenVINO's interval arithmetic (clipped at 0)."""
    return Dimension(max(d.min - n, 0), None if d.max is None else max(d.max - n, 0))


def _floor_div(d: Dimension, n: int) -> Dimension:
    return Dimension(d.min // n, None if d.max is None else d.max // n)


def _mul(d: Dimension, n: int) -> Dimension:
    return Dimension(d.min * n, None if d.max is None else d.max * n)


def _plus(d: Dimension, n: int) -> Dimension:
    return Dimension(d.min + n, None if d.max is None else d.max + n)


# -- STFT -----------------------------------------------------------------------------------------
def infer_stft(attrs: STFTAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    et = _check_types(inputs, "signal")
    signal = inputs[0].shape
    if signal.rank_is_static and signal.rank not in (1, 2):
        raise ValidationError(
            f"The shape of signal must be 1D [signal_size] or 2D [batch, signal_size], got {signal}."
        )
    _check_scalars(inputs)
    if not signal.rank_is_static:
        return [TensorInfo(et, signal)]
    batch = tuple(signal)[:-1]
    frame_size, frame_step = _scalar(inputs[2]), _scalar(inputs[3])
    if frame_size is None or frame_step is None:
        return [TensorInfo(et, PartialShape((*batch, Dimension(), Dimension(), Dimension.static(2))))]
    length = signal[signal.rank - 1]
    if not (frame_size > 0 and (length.max is None or frame_size <= length.max)):
        raise ValidationError(f"Provided frame size is {frame_size} but must be in range [1, {length}].")
    if frame_step <= 0:
        raise ValidationError(f"Provided frame step is {frame_step} but must be greater than zero.")
    _check_window(inputs[1].shape, frame_size)
    frames = _plus(_floor_div(_sub(length, frame_size), frame_step), 1)
    bins = Dimension.static(frame_size // 2 + 1)
    pair = (bins, frames) if attrs.transpose_frames else (frames, bins)
    return [TensorInfo(et, PartialShape((*batch, *pair, Dimension.static(2))))]


def _window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """The window zero-padded to ``frame_size``, centred as the reference places it."""
    padded = np.zeros(frame_size, np.float64)
    start = (frame_size - window.shape[0]) // 2
    padded[start : start + window.shape[0]] = widen(window).astype(np.float64)
    return padded


def _runtime_sizes(inputs: Sequence[np.ndarray]) -> tuple[int, int]:
    for port, name in ((2, "frame_size"), (3, "frame_step")):
        if np.asarray(inputs[port]).size != 1:
            raise InputError(f"{name} must hold one value, got shape {list(np.shape(inputs[port]))}")
    return int(np.asarray(inputs[2]).reshape(-1)[0]), int(np.asarray(inputs[3]).reshape(-1)[0])


def evaluate_stft(attrs: STFTAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    signal, window = np.asarray(inputs[0]), np.asarray(inputs[1])
    frame_size, frame_step = _runtime_sizes(inputs)
    length = signal.shape[-1] if signal.ndim else 0
    if not 0 < frame_size <= length:
        raise InputError(f"Provided frame size is {frame_size} but must be in range [1, {length}].")
    if frame_step <= 0:
        raise InputError(f"Provided frame step is {frame_step} but must be greater than zero.")
    if window.ndim != 1 or not 0 < window.shape[0] <= frame_size:
        raise InputError(
            f"Window input dimension must be in range [1, {frame_size}], got {list(window.shape)}."
        )
    frames = (length - frame_size) // frame_step + 1
    starts = np.arange(frames) * frame_step
    x = widen(signal).astype(np.float64)
    picked = x[..., starts[:, None] + np.arange(frame_size)]  # [batch?, frames, frame_size]
    with quiet():
        spectrum = np.fft.rfft(picked * _window(window, frame_size), axis=-1)
    out = np.stack([spectrum.real, spectrum.imag], axis=-1)
    if attrs.transpose_frames:
        out = np.swapaxes(out, -3, -2)
    return [narrow(np.ascontiguousarray(out), signal.dtype)]


# -- ISTFT ----------------------------------------------------------------------------------------
def infer_istft(attrs: ISTFTAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    et = _check_types(inputs, "data")
    data = inputs[0].shape
    if data.rank_is_static and data.rank not in (3, 4):
        raise ValidationError(f"The shape of data must be 3D or 4D, got {data}.")
    _check_scalars(inputs)
    frame_size, frame_step = _scalar(inputs[2]), _scalar(inputs[3])
    if frame_size is not None:
        if frame_size <= 0:
            raise ValidationError(f"Provided frame size must be greater than zero, but got: {frame_size}")
        _check_window(inputs[1].shape, frame_size)
        if data.is_static and data[data.rank - 3].length != frame_size // 2 + 1:
            raise ValidationError(
                f"The dimension at data_shape[-3] must be equal to: (frame_size // 2 + 1) = "
                f"{frame_size // 2 + 1}, got {data[data.rank - 3]}"
            )
    if frame_step is not None and frame_step <= 0:
        raise ValidationError(f"Provided frame step must be greater than zero, but got: {frame_step}")
    if not data.rank_is_static:
        return [TensorInfo(et, data)]
    length = Dimension()
    if len(inputs) == 5:
        length = _signal_length(inputs[4])
    elif frame_size is not None and frame_step is not None:
        length = _plus(_mul(_sub(data[data.rank - 2], 1), frame_step), frame_size)
        if attrs.center:
            length = _sub(length, frame_size & ~1)
    batch = (data[0],) if data.rank == 4 else ()
    return [TensorInfo(et, PartialShape((*batch, length)))]


def _signal_length(info: TensorInfo) -> Dimension:
    shape = info.shape
    if shape.rank_is_static and not (
        shape.rank == 0 or (shape.rank == 1 and shape[0].compatible(Dimension.static(1)))
    ):
        raise ValidationError(
            f"The shape of 'signal_length' input must be a scalar or single element 1D tensor, got {shape}."
        )
    value = _scalar(info)
    if value is None:
        return Dimension()
    return Dimension() if value == -1 else Dimension.static(max(value, 0))


def evaluate_istft(attrs: ISTFTAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data, window = np.asarray(inputs[0]), np.asarray(inputs[1])
    frame_size, frame_step = _runtime_sizes(inputs)
    if data.ndim not in (3, 4) or data.shape[-1] != 2:
        raise InputError(f"ISTFT data must be [batch?, fft_results, frames, 2], got {list(data.shape)}")
    if frame_size <= 0 or frame_step <= 0:
        raise InputError(f"frame_size and frame_step must be positive, got {frame_size} and {frame_step}")
    if data.shape[-3] != frame_size // 2 + 1:
        raise InputError(
            f"The dimension at data_shape[-3] must be equal to: (frame_size // 2 + 1) = {frame_size // 2 + 1}, "
            f"got {data.shape[-3]}"
        )
    if window.ndim != 1 or not 0 < window.shape[0] <= frame_size:
        raise InputError(
            f"Window input dimension must be in range [1, {frame_size}], got {list(window.shape)}."
        )
    frames = data.shape[-2]
    full = (frames - 1) * frame_step + frame_size if frames else 0
    if len(inputs) == 5:
        wanted = np.asarray(inputs[4]).reshape(-1)
        if wanted.size != 1:
            raise InputError(f"signal_length must hold one value, got shape {list(np.shape(inputs[4]))}")
        out_length = int(wanted[0]) if int(wanted[0]) != -1 else _default_length(attrs, full, frame_size)
    else:
        out_length = _default_length(attrs, full, frame_size)
    out_length = max(out_length, 0)
    signal = _overlap_add(data, _window(window, frame_size), frame_size, frame_step, full, attrs.normalized)
    margin = frame_size // 2 if attrs.center else 0
    restored = signal[..., margin : margin + out_length]
    pad = [(0, 0)] * (restored.ndim - 1) + [(0, out_length - restored.shape[-1])]
    return [narrow(np.ascontiguousarray(np.pad(restored, pad)), data.dtype)]


def _default_length(attrs: ISTFTAttrs, full: int, frame_size: int) -> int:
    return max(full - (frame_size & ~1), 0) if attrs.center else full


def _overlap_add(
    data: np.ndarray, window: np.ndarray, frame_size: int, frame_step: int, full: int, normalized: bool
) -> np.ndarray:
    """The windowed frames' inverse DFTs overlap-added, divided by the overlapping squared windows'
    sum: [batch?, full]."""
    x = widen(data).astype(np.float64)
    spectra = np.moveaxis(x[..., 0] + 1j * x[..., 1], -1, -2)  # [batch?, frames, fft_results]
    with quiet():
        frames = np.fft.irfft(spectra, n=frame_size, axis=-1)
        total = np.zeros((*data.shape[:-3], full))
        weight = np.zeros(full)
        for t in range(spectra.shape[-2]):
            total[..., t * frame_step : t * frame_step + frame_size] += frames[..., t, :] * window
            weight[t * frame_step : t * frame_step + frame_size] += window * window
        scale = np.sqrt(np.float64(frame_size)) if normalized else 1.0
        nonzero = weight != 0
        return np.where(nonzero, total * scale / np.where(nonzero, weight, 1.0), 0.0)


SPECS = (
    OpSpec(
        type="STFT",
        version=15,
        since=15,
        inputs=4,
        parse=parse_stft,
        infer=infer_stft,
        evaluate=evaluate_stft,
        foldable=False,
    ),
    OpSpec(
        type="ISTFT",
        version=16,
        since=16,
        inputs=(4, 5),
        parse=parse_istft,
        infer=infer_istft,
        evaluate=evaluate_istft,
        foldable=False,
    ),
)
