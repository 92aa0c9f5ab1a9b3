"""MaxPool without indices, one spatial axis at a time: ``pooling._max_axes`` (fmax over strided
views of the canvas, a window's maximum as the maximum over its rows of each row's maximum)
gives the bytes of the tap-by-tap scan it skips (``_max_scan`` without ``axes``, which the
conformance harness holds to OpenVINO), over float and integer types, 1-3 spatial dims,
tiling and overlapping windows, strides, dilations, padding, ceil rounding with windows past
the data, NaN, infinities, the type's lowest, and signed zeros (where the order could pick a
zero's sign, the scan decides)."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

from ovonehot.ops import pooling
from ovonehot.ops.common.spatial import AutoPad, RoundingType, Window

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0])


def _attrs(
    kernel: tuple[int, ...],
    strides: tuple[int, ...] | None = None,
    dilations: tuple[int, ...] | None = None,
    pads: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
    rounding: RoundingType = RoundingType.FLOOR,
) -> pooling.PoolAttrs:
    n = len(kernel)
    begin, end = pads if pads is not None else ((0,) * n, (0,) * n)
    window = Window(strides or kernel, dilations or (1,) * n, begin, end, AutoPad.EXPLICIT, rounding)
    return pooling.PoolAttrs(window=window, kernel=kernel, version=1)


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, zeros: str) -> np.ndarray:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.choice(
            np.array([info.min, info.max, 0, 5, -3 if dtype.kind == "i" else 3], dtype), size=shape
        )
    x = rng.standard_normal(shape)
    x = np.where(rng.random(shape) < 0.3, rng.choice(SPECIAL, size=shape), x)
    if zeros == "positive":
        x = np.where(x == 0, 0.0, np.maximum(x, 0.0))  # after a ReLU: many windows of +0.0 only
    x = x.astype(dtype)
    x.reshape(-1)[::7] = np.asarray(ml_dtypes.finfo(dtype).min, dtype)  # T's lowest, never chosen
    return x


CASES = {
    "tiles 2x2": ((1, 3, 8, 8), _attrs((2, 2))),
    "tiles, rest cropped": ((2, 4, 9, 7), _attrs((2, 2))),
    "tiles 3x3": ((1, 2, 12, 12), _attrs((3, 3))),
    "1-d": ((1, 5, 10), _attrs((2,))),
    "3-d": ((1, 2, 4, 6, 6), _attrs((2, 3, 2))),
    "5x1": ((1, 1, 5, 4), _attrs((5, 1))),
    "resnet 3x3 s2 p1": ((1, 4, 16, 16), _attrs((3, 3), (2, 2), pads=((1, 1), (1, 1)))),
    "overlap s1": ((2, 3, 7, 6), _attrs((3, 2), (1, 1))),
    "dilated": ((1, 2, 11, 9), _attrs((2, 3), (1, 2), (3, 2), pads=((2, 0), (1, 3)))),
    "ceil past the data": ((1, 2, 6, 7), _attrs((3, 3), (2, 2), rounding=RoundingType.CEIL)),
    "ceil_torch, padded": (
        (1, 2, 7, 7),
        _attrs((3, 2), (2, 3), pads=((1, 0), (1, 1)), rounding=RoundingType.CEIL_TORCH),
    ),
    "1-d strided padded": ((3, 2, 13), _attrs((4,), (3,), pads=((2,), (1,)))),
    "3-d overlapping": ((1, 2, 5, 4, 6), _attrs((2, 2, 3), (1, 2, 1), pads=((1, 0, 1), (0, 1, 1)))),
    # (a negative pad crops: the windows start past it; the plan's canvas origin, though the
    # binder leaves such a MaxPool to ``evaluate``)
    "cropped": ((1, 2, 8, 9), _attrs((2, 3), (2, 1), pads=((-1, 1), (0, -2)))),
}
TYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8, np.uint8, np.int32, np.int64]


@pytest.mark.parametrize("zeros", ["signed", "positive"])
@pytest.mark.parametrize("dtype", TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", list(CASES))
def test_axes_give_the_scan_s_bytes(case: str, dtype: type, zeros: str) -> None:
    shape, attrs = CASES[case]
    rng = np.random.default_rng(len(case) + len(shape))
    scan = pooling._max_scan_plan(attrs, shape, np.dtype(dtype))
    assert scan.axes is not None
    scanned = dataclasses.replace(scan, axes=None)
    for _ in range(4):
        x = _data(rng, shape, np.dtype(dtype), zeros)
        got, want = pooling._max_scan(scan, x), pooling._max_scan(scanned, x)
        assert len(got) == len(want) == 1
        assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
        assert got[0].tobytes() == want[0].tobytes(), (x, got[0], want[0])
    if zeros == "positive" and np.dtype(dtype).kind == "f":  # (no -0.0: the axes' own answer)
        assert pooling._max_axes(scan, scan.axes, x) is not None


def test_a_zero_maximum_beside_a_negative_zero_is_the_scan_s() -> None:
    """Windows whose maximum is a zero of either sign: the first zero in window order gives the
    sign (the scan's strict "greater"); the axes would pass in another order, so they hand over."""
    attrs = _attrs((2, 2))
    x = np.array([[[[-0.0, 0.0], [0.0, -0.0]], [[0.0, -0.0], [-1.0, -0.0]]]], np.float32).transpose(
        0, 1, 2, 3
    )
    x = x.reshape(1, 2, 2, 2)
    scan = pooling._max_scan_plan(attrs, x.shape, x.dtype)
    assert pooling._max_axes(scan, scan.axes, x) is None
    (got,) = pooling._max_scan(scan, x)
    assert np.signbit(got.reshape(-1)).tolist() == [True, False]


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name
)
def test_negative_zero_is_found_by_its_bits(dtype: type) -> None:
    x = np.array([3.0, -1.0, 0.0, np.nan, -np.inf], dtype)
    assert not pooling._negative_zero(x)
    x[2] = -x[2]
    assert pooling._negative_zero(x) and pooling._negative_zero(x[::-1])
    assert pooling._negative_zero(np.full((), -0.0, dtype))


def test_indices_keep_the_scan() -> None:
    """Wanted indices (MaxPool-8/14 whose indices a node reads) keep the tap-by-tap scan."""
    shape, dtype = (1, 2, 8, 8), np.dtype(np.float32)
    attrs = _attrs((2, 2))
    assert pooling._max_scan_plan(attrs, shape, dtype).axes is not None
    assert pooling._max_scan_plan(dataclasses.replace(attrs, version=8), shape, dtype).axes is None
