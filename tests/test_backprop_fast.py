"""Fast mode's ConvolutionBackpropData-1 / GroupConvolutionBackpropData-1
(``conv_backprop.evaluate_backprop_fast`` and the kernels ``specialize_backprop`` binds).

Floats: within the bound of the kernel's own sums of a float64 oracle (the exact kernel on the
inputs widened to f64, which sums in float64 and is not rounded): each output is ``c_in``
products summed by BLAS, then at most ``K`` taps added in the working type, so
``|fast - f64| <= (c_in + K) * eps(work) * sum |x| |w|`` (twice the classic ``gamma_n`` bound),
plus the rounding to the data's type for f16/bf16.  Planted errors (one tap's weights off by
1e-5, a tap's products missing at an edge) fail that check.  Integers, empty tensors, 0-d and
misfitting inputs: the exact kernel's bytes and errors.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

from ovonehot.errors import Error
from ovonehot.ops import conv_backprop as cb
from ovonehot.ops.common.spatial import AutoPad
from ovonehot.ops.common.spec import RunMode, TensorInfo
from ovonehot.types import ElementType, PartialShape

BF16 = np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True)
class Geometry:
    """One call: data and filters shapes, the attributes, and an ``output_shape`` value."""

    x: tuple[int, ...]
    w: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...] | None = None
    pads: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    auto_pad: AutoPad = AutoPad.EXPLICIT
    output_padding: tuple[int, ...] | None = None
    output_shape: tuple[int, ...] | None = None
    groups: bool = False

    def attrs(self) -> cb.BackpropAttrs:
        n = len(self.strides)
        begin, end = self.pads or ((0,) * n, (0,) * n)
        return cb.BackpropAttrs(
            self.strides,
            self.dilations or (1,) * n,
            begin,
            end,
            self.auto_pad,
            self.output_padding or (0,) * n,
            self.groups,
        )

    def inputs(self, dtype: np.dtype, rng: np.random.Generator) -> list[np.ndarray]:
        x = rng.standard_normal(self.x).astype(dtype)
        w = rng.standard_normal(self.w).astype(dtype)
        shape = [] if self.output_shape is None else [np.array(self.output_shape, np.int64)]
        return [x, w, *shape]


# The corpus UNet's two layers (taps apart, filling the output), then every placement.
FIXED = [
    pytest.param(Geometry((1, 32, 4, 4), (32, 16, 2, 2), (2, 2)), id="unet-up2"),
    pytest.param(Geometry((1, 16, 8, 8), (16, 8, 2, 2), (2, 2)), id="unet-up1"),
    pytest.param(Geometry((2, 5, 3, 4), (5, 3, 2, 2), (3, 2)), id="apart-gaps"),
    pytest.param(Geometry((1, 4, 3, 3), (4, 2, 2, 2), (3, 3), (2, 2)), id="apart-dilated"),
    pytest.param(
        Geometry((1, 4, 3, 5), (4, 2, 2, 2), (2, 2), pads=((1, 0), (0, 2)), output_padding=(1, 1)),
        id="apart-cropped-and-padded",
    ),
    pytest.param(Geometry((1, 3, 4, 4), (3, 2, 2, 2), (2, 2), output_shape=(11, 6)), id="apart-output-shape"),
    pytest.param(Geometry((1, 6, 5, 5), (6, 4, 3, 3), (1, 1)), id="overlap-stride-1"),
    pytest.param(
        Geometry((2, 4, 4, 3), (4, 3, 3, 3), (2, 2), pads=((1, 1), (1, 0)), output_padding=(1, 0)),
        id="overlap-pads",
    ),
    pytest.param(Geometry((1, 3, 5, 4), (3, 2, 3, 2), (1, 2), (2, 3)), id="overlap-dilated"),
    pytest.param(
        Geometry((1, 4, 3, 4), (4, 2, 3, 3), (2, 2), auto_pad=AutoPad.SAME_UPPER, output_shape=(7, 9)),
        id="same-upper",
    ),
    pytest.param(
        Geometry(
            (1, 4, 3, 4), (4, 2, 3, 3), (2, 3), (1, 2), auto_pad=AutoPad.SAME_LOWER, output_shape=(6, 13)
        ),
        id="same-lower",
    ),
    pytest.param(
        Geometry((1, 4, 3, 4), (4, 2, 3, 3), (2, 2), pads=((2, 2), (2, 2)), auto_pad=AutoPad.VALID),
        id="valid",
    ),
    pytest.param(Geometry((2, 3, 7), (3, 4, 3), (2,), pads=((1,), (0,))), id="1d"),
    pytest.param(Geometry((1, 2, 3, 2, 4), (2, 3, 2, 2, 3), (2, 1, 2)), id="3d"),
    pytest.param(Geometry((1, 6, 4, 4), (2, 3, 4, 2, 2), (2, 2), groups=True), id="groups-apart"),
    pytest.param(Geometry((2, 6, 4, 3), (3, 2, 2, 3, 3), (2, 1), groups=True), id="groups-overlap"),
    pytest.param(Geometry((1, 8, 5, 5), (8, 1, 1, 3, 3), (2, 2), groups=True), id="depthwise"),
]


def magnitude(attrs: cb.BackpropAttrs, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """``sum |x| |w|`` per output: the exact kernel (float64 sums) on the magnitudes."""
    wide = [np.abs(v.astype(np.float64)) for v in inputs[:2]]
    (m,) = cb.evaluate_backprop(attrs, [*wide, *inputs[2:]])
    return m


def oracle(attrs: cb.BackpropAttrs, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """The float64 sums of the inputs' values, unrounded."""
    (y,) = cb.evaluate_backprop(
        attrs, [inputs[0].astype(np.float64), inputs[1].astype(np.float64), *inputs[2:]]
    )
    return y


def bound(attrs: cb.BackpropAttrs, inputs: Sequence[np.ndarray], reference: np.ndarray) -> np.ndarray:
    """The fast kernel's error bound per output (module docstring)."""
    x, w = inputs[0], inputs[1]
    c_in = w.shape[1] if attrs.groups else w.shape[0]
    taps = math.prod(w.shape[3:] if attrs.groups else w.shape[2:])
    work = np.float64 if x.dtype == np.float64 else np.float32
    sums = (c_in + taps) * float(np.finfo(work).eps) * magnitude(attrs, inputs)
    if x.dtype in (np.float32, np.float64):
        return sums
    info = ml_dtypes.finfo(x.dtype)  # (the f32 result rounded to the data's type)
    return sums * (1 + float(info.eps)) + float(info.eps) * np.abs(reference) + float(info.smallest_subnormal)


def check(attrs: cb.BackpropAttrs, inputs: Sequence[np.ndarray]) -> float:
    """The fast kernel within its bound of the float64 oracle; returns the worst error / bound."""
    (fast,) = cb.evaluate_backprop_fast(attrs, list(inputs))
    (exact,) = cb.evaluate_backprop(attrs, list(inputs))
    assert fast.dtype == exact.dtype and fast.shape == exact.shape
    reference = oracle(attrs, inputs)
    limit = bound(attrs, inputs, reference)
    error = np.abs(fast.astype(np.float64) - reference)
    over = error > limit
    assert not over.any(), f"|fast - f64| up to {error[over].max():.3g} > bound {limit[over].min():.3g}"
    return float((error / np.maximum(limit, 1e-300)).max(initial=0.0))


def random_geometries(count: int, seed: int) -> Iterator[Geometry]:
    """Random 1-D to 3-D layouts: strides, dilations, pads, output_padding, auto_pad, an
    ``output_shape`` in a third of them, groups in half (those the op accepts)."""
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        n = int(rng.integers(1, 4))
        groups = bool(rng.integers(0, 2))
        g = int(rng.integers(1, 4)) if groups else 1
        c_in, c_out, batch = (int(v) for v in rng.integers(1, 6, 3))

        def ints(lo: int, hi: int, n: int = n) -> tuple[int, ...]:
            return tuple(int(v) for v in rng.integers(lo, hi, n))

        strides = ints(1, 4)
        shape = tuple(int(v) + 1 for v in rng.integers(3, 9, n)) if rng.random() < 0.33 else None
        geo = Geometry(
            (int(batch % 2 + 1), g * c_in, *ints(1, 6)),
            ((g, c_in, c_out) if groups else (c_in, c_out)) + ints(1, 4),
            strides,
            ints(1, 3),
            (ints(0, 3), ints(0, 3)),
            list(AutoPad)[int(rng.integers(0, 4))] if shape is not None else AutoPad.EXPLICIT,
            tuple(int(rng.integers(0, s)) for s in strides),
            shape,
            groups,
        )
        try:
            cb.evaluate_backprop(geo.attrs(), geo.inputs(np.dtype(np.float32), rng))
        except Error:
            continue  # (an output the op refuses: pads past the output)
        made += 1
        yield geo


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.float16, BF16], ids=["f32", "f64", "f16", "bf16"]
)
@pytest.mark.parametrize("geo", FIXED)
def test_fast_backprop_within_its_summation_bound(geo: Geometry, dtype: np.dtype) -> None:
    rng = np.random.default_rng(3)
    check(geo.attrs(), geo.inputs(np.dtype(dtype), rng))


def test_fast_backprop_random_layouts_within_the_bound() -> None:
    rng = np.random.default_rng(11)
    worst = 0.0
    for geo in random_geometries(120, 5):
        worst = max(worst, check(geo.attrs(), geo.inputs(np.dtype(np.float32), rng)))
    assert worst > 0.0  # (the fast sums differ from float64's somewhere: the bound is the one exercised)


def _sweep() -> None:
    rng = np.random.default_rng(3)
    for param in FIXED:
        (geo,) = param.values
        assert isinstance(geo, Geometry)
        check(geo.attrs(), geo.inputs(np.dtype(np.float32), rng))


def test_planted_tap_error_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """One kernel tap's weights off by a relative 1e-5 (every output channel, every group)."""
    filters = cb._fast_filters

    def planted(geo: cb._Geometry, w: np.ndarray, acc: type[np.floating]) -> np.ndarray:
        mats = filters(geo, w, acc).copy()
        mats[:, :: math.prod(geo.kernel)] *= acc(1 + 1e-5)  # (rows of tap 0)
        return mats

    monkeypatch.setattr(cb, "_fast_filters", planted)
    with pytest.raises(AssertionError, match="bound"):
        _sweep()


def test_planted_dropped_edge_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last tap's products missing where they land at the output's last positions (both
    placements: taps added, taps laid apart)."""
    scatter, apart = cb._scatter_taps, cb._place_apart

    def drop_last_tap(plan: cb._Placement, taps: np.ndarray) -> np.ndarray:
        src, dst = plan.taps[-1]
        y = scatter(plan, taps)
        y[dst] -= taps[src]
        return y

    def drop_last_column(plan: cb._Placement, taps: np.ndarray) -> np.ndarray:
        y = apart(plan, taps).copy()
        y[..., -1] = 0
        return y

    for name, planted in (("_scatter_taps", drop_last_tap), ("_place_apart", drop_last_column)):
        with monkeypatch.context() as m:
            m.setattr(cb, name, planted)
            with pytest.raises(AssertionError, match="bound"):
                _sweep()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8])
@pytest.mark.parametrize("geo", FIXED)
def test_fast_backprop_of_integers_is_the_exact_kernel(geo: Geometry, dtype: type) -> None:
    rng = np.random.default_rng(5)
    inputs = [np.clip(v * 3, -9, 9).astype(dtype) for v in geo.inputs(np.dtype(np.float64), rng)[:2]]
    inputs += geo.inputs(np.dtype(np.float32), rng)[2:]
    attrs = geo.attrs()
    (exact,) = cb.evaluate_backprop(attrs, inputs)
    (fast,) = cb.evaluate_backprop_fast(attrs, inputs)
    assert (fast.dtype, fast.shape, fast.tobytes()) == (exact.dtype, exact.shape, exact.tobytes())
    infos = [TensorInfo(ElementType.from_numpy(v.dtype), PartialShape.of(v.shape)) for v in inputs]
    outputs = cb.infer_backprop(attrs, infos)
    assert cb.specialize_backprop(attrs, infos, outputs, RunMode(exact=False)) is None  # (evaluate)


EMPTY = [
    pytest.param(Geometry((0, 3, 4, 4), (3, 2, 2, 2), (2, 2)), id="batch"),
    pytest.param(Geometry((1, 0, 4, 4), (0, 2, 2, 2), (2, 2)), id="input-channels"),
    pytest.param(Geometry((1, 3, 4, 4), (3, 0, 2, 2), (2, 2)), id="output-channels"),
    pytest.param(Geometry((1, 3, 0, 4), (3, 2, 3, 2), (1, 2)), id="spatial"),
    pytest.param(Geometry((1, 3, 2, 2), (3, 2, 2, 2), (2, 2), output_shape=(0, 5)), id="output-shape"),
    pytest.param(Geometry((1, 0, 3, 3), (0, 2, 3, 2, 2), (2, 2), groups=True), id="no-groups"),
    pytest.param(Geometry((2, 4, 0, 3), (2, 2, 3, 2, 2), (2, 2), groups=True), id="groups-spatial"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("geo", EMPTY)
def test_fast_backprop_of_empty_tensors_is_the_exact_kernel(geo: Geometry, dtype: type) -> None:
    inputs = geo.inputs(np.dtype(dtype), np.random.default_rng(0))
    (exact,) = cb.evaluate_backprop(geo.attrs(), inputs)
    (fast,) = cb.evaluate_backprop_fast(geo.attrs(), inputs)
    assert not exact.any()  # (empty, or zeros: no input reaches an output)
    assert (fast.dtype, fast.shape, fast.tobytes()) == (exact.dtype, exact.shape, exact.tobytes())


F = np.ones((2, 3, 2, 2), np.float32)
MISFITS = [
    pytest.param([np.float32(1), F], id="0-d-data"),
    pytest.param([np.ones((1, 2, 3, 3), np.float32), np.float32(1)], id="0-d-filters"),
    pytest.param([np.ones((1, 2, 3), np.float32), F], id="data-rank"),
    pytest.param([np.ones((1, 4, 3, 3), np.float32), F], id="channels"),
    pytest.param([np.ones((1, 2, 3, 3), np.float32), F.astype(np.float16)], id="types"),
    pytest.param([np.ones((1, 2, 3, 3), np.float32), F, np.array([5, 5, 5])], id="output-shape-size"),
    pytest.param([np.ones((1, 2, 3, 3), np.float32), F, np.array([5, -1])], id="output-shape-negative"),
]


@pytest.mark.parametrize("inputs", MISFITS)
def test_fast_backprop_raises_the_exact_kernels_errors(inputs: list[np.ndarray]) -> None:
    attrs = Geometry((), (), (2, 2)).attrs()
    errors = []
    for kernel in (cb.evaluate_backprop, cb.evaluate_backprop_fast):
        with pytest.raises(Error) as info:
            kernel(attrs, inputs)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def _infos(inputs: Sequence[np.ndarray], folded: Sequence[bool]) -> list[TensorInfo]:
    return [
        TensorInfo(ElementType.from_numpy(v.dtype), PartialShape.of(v.shape), v if keep else None)
        for v, keep in zip(inputs, folded, strict=True)
    ]


@pytest.mark.parametrize("geo", FIXED)
def test_bound_kernels_give_the_general_kernels_bytes(geo: Geometry) -> None:
    """The kernels ``specialize_backprop`` binds for a static signature (filters folded or not,
    ``output_shape`` folded or not) and for declared dynamic shapes compute what
    ``evaluate_backprop_fast`` computes, byte for byte; exact mode keeps ``evaluate``."""
    attrs = geo.attrs()
    inputs = geo.inputs(np.dtype(np.float32), np.random.default_rng(9))
    (general,) = cb.evaluate_backprop_fast(attrs, inputs)
    outputs = cb.infer_backprop(attrs, _infos(inputs, [False] * len(inputs)))
    for folded in ([False, True, True], [False, False, True], [False, True, False], [False, False, False]):
        infos = _infos(inputs, folded[: len(inputs)])
        assert cb.specialize_backprop(attrs, infos, outputs, RunMode()) is None
        kernel = cb.specialize_backprop(attrs, infos, outputs, RunMode(exact=False))
        assert kernel is not None
        (ours,) = kernel(inputs)
        assert (ours.dtype, ours.shape, ours.tobytes()) == (general.dtype, general.shape, general.tobytes())
    dynamic = [TensorInfo(ElementType.f32, PartialShape.parse(",".join("?" * v.ndim))) for v in inputs[:2]]
    rest = _infos(inputs[2:], [True] * len(inputs[2:]))
    kernel = cb.specialize_backprop(attrs, [*dynamic, *rest], outputs, RunMode(exact=False))
    assert kernel is not None
    assert kernel(inputs)[0].tobytes() == general.tobytes()
