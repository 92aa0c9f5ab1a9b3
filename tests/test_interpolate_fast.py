"""Fast mode's linear_onnx Interpolate on f32 (``_linear_onnx_separable``: one axis at a time)
against a float64 oracle of the same corners and weights (``_onnx_corners``, the op's f32
coordinates): every output within ``4 eps32 sum |w x|`` over its corners (each output is a
convex combination of them, computed with two f32 roundings per axis), on upsampling,
downsampling, every coordinate transform, 4-D data resized on two axes and 3-D/5-D data,
non-finite values where the exact kernel has them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ovonehot.ops.interpolate import (
    InterpolateAttrs,
    Mode,
    ShapeCalc,
    Transform,
    _corners,
    _onnx_corners,
    _resolved,
    evaluate_interpolate,
    evaluate_interpolate_fast,
)

EPS = float(np.finfo(np.float32).eps)
CASES = [
    ((1, 21, 7, 7), (28, 28), (2, 3)),  # upsampling (a segmentation head)
    ((2, 3, 17, 12), (5, 30), (2, 3)),  # down on one axis, up on the other
    ((1, 4, 9), (20,), (2,)),  # 3-D
    ((1, 2, 3, 4, 5), (6, 8, 3), (2, 3, 4)),  # 5-D
    ((1, 3, 1, 6), (4, 6), (2, 3)),  # a one-row axis and an axis kept
]


def _oracle(attrs: InterpolateAttrs, inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """sum over the corners of prod(weights) * x, and of |prod(weights) * x|, in float64."""
    run, xp, axes, scales, out = _resolved(attrs, inputs)
    corners = _onnx_corners(run, xp, axes, scales, out)
    total = np.zeros(out)
    reach = np.zeros(out)
    x = xp.astype(np.float64)
    for picks in itertools.product((0, 1), repeat=len(corners)):
        term = x
        for (ax, lo, hi, w_lo, w_hi), upper in zip(corners, picks, strict=True):
            shape = [1] * x.ndim
            shape[ax] = lo.size
            term = np.take(term, hi if upper else lo, axis=ax) * (w_hi if upper else w_lo).astype(
                np.float64
            ).reshape(shape)
        total += term
        reach += np.abs(term)
    return total, reach


@pytest.mark.parametrize("transform", list(Transform), ids=lambda t: t.name)
@pytest.mark.parametrize(("shape", "sizes", "axes"), CASES, ids=lambda v: "x".join(map(str, v)))
def test_fast_linear_onnx_within_its_bound(
    shape: tuple[int, ...], sizes: tuple[int, ...], axes: tuple[int, ...], transform: Transform
) -> None:
    attrs = InterpolateAttrs(11, Mode.LINEAR_ONNX, ShapeCalc.SIZES, transform)
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 10).astype(np.float32)
    inputs = [x, np.array(sizes, np.int64), np.array(axes, np.int64)]
    fast = evaluate_interpolate_fast(attrs, inputs)[0]
    exact = evaluate_interpolate(attrs, inputs)[0]
    assert fast.dtype == exact.dtype and fast.shape == exact.shape
    truth, reach = _oracle(attrs, inputs)
    allowed = 4 * EPS * reach + 2.0**-149
    for name, got in (("fast", fast), ("exact", exact)):
        error = np.abs(got.astype(np.float64) - truth)
        assert (error <= allowed).all(), (
            f"{name}: {error.max():.3g} beyond {allowed.flat[np.argmax(error)]:.3g}"
        )


def test_fast_linear_onnx_non_finite_where_exact_has_them() -> None:
    attrs = InterpolateAttrs(11, Mode.LINEAR_ONNX, ShapeCalc.SIZES, Transform.HALF_PIXEL)
    x = np.random.default_rng(1).standard_normal((1, 2, 6, 6)).astype(np.float32)
    x[0, 0, 2, 3], x[0, 1, 4, 1] = np.nan, np.inf
    inputs = [x, np.array([13, 11], np.int64), np.array([2, 3], np.int64)]
    with np.errstate(all="ignore"):
        fast = evaluate_interpolate_fast(attrs, inputs)[0]
        exact = evaluate_interpolate(attrs, inputs)[0]
    np.testing.assert_array_equal(np.isfinite(fast), np.isfinite(exact))
    assert not np.isfinite(exact).all()


def test_remembered_corners_are_each_geometry_s_own() -> None:
    """linear_onnx's corners are remembered per geometry: calls interleaving geometries that
    differ only in the scales, the coordinate transform, the output size or the data shape
    each get the corners computed afresh for that geometry, bit for bit, as read-only arrays."""
    base = InterpolateAttrs(4, Mode.LINEAR_ONNX, ShapeCalc.SCALES, Transform.HALF_PIXEL)
    asym = InterpolateAttrs(4, Mode.LINEAR_ONNX, ShapeCalc.SCALES, Transform.ASYMMETRIC)
    geometries = [
        (base, (1, 3, 4, 4), (2, 3), (2.0, 2.0), (1, 3, 8, 8)),
        (base, (1, 3, 4, 4), (2, 3), (2.25, 2.0), (1, 3, 8, 8)),  # the scales alone differ
        (asym, (1, 3, 4, 4), (2, 3), (2.0, 2.0), (1, 3, 8, 8)),  # the transform alone
        (base, (1, 3, 4, 4), (2, 3), (2.0, 2.0), (1, 3, 9, 8)),  # the output size alone
        (base, (1, 3, 5, 4), (2, 3), (2.0, 2.0), (1, 3, 8, 8)),  # the data shape alone
    ]
    for _ in range(2):
        for attrs, shape, axes, scales, out in geometries:
            x = np.zeros(shape, np.float32)
            got = _onnx_corners(attrs, x, list(axes), [np.float32(s) for s in scales], out)
            want = _corners.__wrapped__(attrs, shape, axes, scales, out)  # (computed afresh)
            assert len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                assert g[0] == w[0]
                for a, b in zip(g[1:], w[1:], strict=True):
                    assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (attrs, shape, scales, out)
                    assert not a.flags.writeable
