"""Fast convolutions without the kernel taps that read only padding (``convolution.used_taps``,
``_without_padding_taps``): DeepLab's atrous 3x3 convolutions at rates 24 and 36 on a 14 x 14 map
are 1x1 convolutions there.  The taps kept are the ones a brute-force scan finds reading data;
the fast result within the summation bound of the float64 kernel (its products of padding are
zeros); filters holding an inf or a NaN keep every tap (inf x 0 is NaN, as exact computes)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ovonehot.ops import convolution as C
from ovonehot.ops.common.spatial import AutoPad, Window, pads_for
from ovonehot.ops.common.spec import RunMode, TensorInfo
from ovonehot.types import ElementType, PartialShape

EPS = float(np.finfo(np.float32).eps)
# (data shape, filter shape, strides, dilations, pads_begin, pads_end, auto_pad, groups)
GEOMETRIES = [
    ((1, 96, 14, 14), (32, 96, 3, 3), (1, 1), (36, 36), (36, 36), (36, 36), AutoPad.EXPLICIT, False),
    ((1, 96, 14, 14), (32, 96, 3, 3), (1, 1), (24, 24), (24, 24), (24, 24), AutoPad.EXPLICIT, False),
    ((1, 96, 14, 14), (32, 96, 3, 3), (1, 1), (12, 12), (12, 12), (12, 12), AutoPad.EXPLICIT, False),
    ((2, 4, 9, 6), (3, 4, 3, 5), (2, 1), (5, 4), (7, 1), (3, 10), AutoPad.EXPLICIT, False),
    ((1, 8, 7, 7), (8, 1, 1, 3, 3), (1, 1), (9, 9), (0, 0), (0, 0), AutoPad.SAME_UPPER, True),
    ((1, 6, 5), (6, 1, 1, 3), (1,), (7,), (14,), (2,), AutoPad.EXPLICIT, True),
]


def _brute(
    x_shape: tuple[int, ...], kernel: tuple[int, ...], window: Window, outs: tuple[int, ...]
) -> list[tuple[int, int]]:
    begin, _ = pads_for(window, x_shape[2:], kernel)
    found = []
    for a, k in enumerate(kernel):
        hits = [
            i
            for i in range(k)
            if any(
                0 <= o * window.strides[a] + i * window.dilations[a] - begin[a] < x_shape[2 + a]
                for o in range(outs[a])
            )
        ]
        found.append((min(hits), max(hits) + 1) if hits else (0, k))
    return found


def _case(geometry: tuple, seed: int, weights: float = 0.1) -> tuple[C.ConvAttrs, np.ndarray, np.ndarray]:
    x_shape, w_shape, strides, dilations, begin, end, auto, groups = geometry
    rng = np.random.default_rng(seed)
    attrs = C.ConvAttrs(Window(strides, dilations, begin, end, auto), groups)
    return (
        attrs,
        rng.standard_normal(x_shape).astype(np.float32),
        (rng.standard_normal(w_shape) * weights).astype(np.float32),
    )


def _fast(attrs: C.ConvAttrs, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    infos = [
        TensorInfo(ElementType.f32, PartialShape.of(x.shape)),
        TensorInfo(ElementType.f32, PartialShape.of(w.shape), w),
    ]
    kernel = C.specialize_convolution(attrs, infos, C.infer_convolution(attrs, infos), RunMode(exact=False))
    assert kernel is not None
    return np.asarray(kernel([x, w])[0])


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: f"{g[0]}-d{g[3]}-{g[6].value}")
def test_taps_reading_only_padding_are_dropped_within_the_bound(geometry: tuple) -> None:
    attrs, x, w = _case(geometry, 1)
    plan = C._conv_plan(attrs, x.shape, w.shape, np.dtype(np.float32), np.float32)
    outs = plan.y_shape[1:-1]
    assert C.used_taps(plan, attrs, x.shape) == _brute(x.shape, plan.filters[2:], attrs.window, outs)
    cropped, _ = C._without_padding_taps(attrs, plan, x.shape, w)
    kept = [hi - lo for lo, hi in C.used_taps(plan, attrs, x.shape)]
    assert list(cropped.filters[2:]) == kept
    fast = _fast(attrs, x, w)
    exact = C.evaluate_convolution(attrs, [x, w])[0]
    assert fast.shape == exact.shape and fast.dtype == exact.dtype
    # (2K + 1) eps sum |x| |w| over each output's terms, K the terms: bounded by every tap's
    reach = C.evaluate_convolution(attrs, [np.abs(x), np.abs(w)])[0].astype(np.float64)
    terms = int(np.prod(w.shape[1:]))
    allowed = (2 * terms + 1) * EPS * reach + 2.0**-149
    error = np.abs(fast.astype(np.float64) - exact.astype(np.float64))
    assert (error <= allowed).all(), f"{error.max():.3g} beyond the bound"


def test_the_deeplab_rates_become_one_by_one_convolutions() -> None:
    for geometry in GEOMETRIES[:2]:
        attrs, x, w = _case(geometry, 2)
        plan = C._conv_plan(attrs, x.shape, w.shape, np.dtype(np.float32), np.float32)
        cropped, filters = C._without_padding_taps(attrs, plan, x.shape, w)
        assert filters.shape == (32, 96, 1, 1) and cropped.canvas.shape == x.shape  # (no padding left)
        np.testing.assert_array_equal(filters[:, :, 0, 0], w[:, :, 1, 1])


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_filters_with_a_non_finite_value_keep_every_tap(bad: float) -> None:
    attrs, x, w = _case(GEOMETRIES[0], 3)
    w[0, 0, 0, 0] = bad  # (a tap that reads only padding: its products are NaN in exact)
    plan = C._conv_plan(attrs, x.shape, w.shape, np.dtype(np.float32), np.float32)
    assert C._without_padding_taps(attrs, plan, x.shape, w)[0] is plan
    with np.errstate(all="ignore"):
        fast = _fast(attrs, x, w)
        exact = C.evaluate_convolution(attrs, [x, w])[0]
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(exact))
    assert np.isnan(exact[0, 0]).all()


def test_used_taps_against_brute_force_on_many_geometries() -> None:
    rng = np.random.default_rng(4)
    for _ in range(300):
        n, k = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        s, d = int(rng.integers(1, 4)), int(rng.integers(1, 7))
        b, e = int(rng.integers(0, 3 * d + 3)), int(rng.integers(0, 3 * d + 3))
        if n + b + e < (k - 1) * d + 1:
            continue
        window = Window((s,), (d,), (b,), (e,))
        attrs = C.ConvAttrs(window, False)
        plan = C._conv_plan(attrs, (1, 1, n), (1, 1, k), np.dtype(np.float32), np.float32)
        outs = plan.y_shape[1:-1]
        assert C.used_taps(plan, attrs, (1, 1, n)) == _brute((1, 1, n), (k,), window, outs), (
            n,
            k,
            s,
            d,
            b,
            e,
        )


def test_every_tap_is_used_without_padding() -> None:
    for n, k, s, d in itertools.product((3, 7), (1, 3), (1, 2), (1, 2)):
        if n < (k - 1) * d + 1:
            continue
        attrs = C.ConvAttrs(Window((s,), (d,), (0,), (0,)), False)
        plan = C._conv_plan(attrs, (1, 1, n), (1, 1, k), np.dtype(np.float32), np.float32)
        assert C.used_taps(plan, attrs, (1, 1, n)) == [(0, k)]


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: f"{g[0]}-d{g[3]}-{g[6].value}")
def test_every_fast_plan_crops_alike(geometry: tuple) -> None:
    """Folded filters, filters given each call and the unbound kernel: the same bytes (a fast
    run's values do not depend on its plan)."""
    attrs, x, w = _case(geometry, 5)
    folded = _fast(attrs, x, w)
    infos = [
        TensorInfo(ElementType.f32, PartialShape.of(x.shape)),
        TensorInfo(ElementType.f32, PartialShape.of(w.shape)),
    ]
    given = C.specialize_convolution(attrs, infos, C.infer_convolution(attrs, infos), RunMode(exact=False))
    assert given is not None
    np.testing.assert_array_equal(np.asarray(given([x, w])[0]).view(np.uint32), folded.view(np.uint32))
    unbound = C.evaluate_convolution_fast(attrs, [x, w])[0]
    np.testing.assert_array_equal(unbound.view(np.uint32), folded.view(np.uint32))
