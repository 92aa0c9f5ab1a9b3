"""MaxPool over windows that tile the data (stride = kernel, no dilation, no window reaching
padding) without indices: ``pooling._max_tiles`` (fmax over strided views of the data) gives the
bytes of the tap-by-tap scan it skips (``_max_scan`` without ``tiles``, which the conformance
harness holds to OpenVINO), over float and integer types, 1-3 spatial dims, sizes the windows do
not divide (the rest cropped), NaN, infinities, the type's lowest, and signed zeros (where the
order could pick a zero's sign, the scan decides)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ovonehot.ops import pooling
from ovonehot.ops.common.spatial import AutoPad, RoundingType, Window

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0])


def _attrs(kernel: tuple[int, ...]) -> pooling.PoolAttrs:
    n = len(kernel)
    window = Window(kernel, (1,) * n, (0,) * n, (0,) * n, AutoPad.EXPLICIT, RoundingType.FLOOR)
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
    if dtype.kind == "f":
        x.reshape(-1)[::7] = np.finfo(dtype).min  # the type's lowest, never chosen over T's lowest
    return x


CASES = [
    ((1, 3, 8, 8), (2, 2)),
    ((2, 4, 9, 7), (2, 2)),  # the last row and column cropped
    ((1, 2, 12, 12), (3, 3)),
    ((1, 5, 10), (2,)),
    ((1, 2, 4, 6, 6), (2, 3, 2)),
    ((1, 1, 5, 4), (5, 1)),
]


@pytest.mark.parametrize("zeros", ["signed", "positive"])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int8, np.uint8, np.int32, np.int64], ids=lambda d: np.dtype(d).name
)
@pytest.mark.parametrize(("shape", "kernel"), CASES, ids=lambda v: "x".join(map(str, v)))
def test_tiles_give_the_scan_s_bytes(
    shape: tuple[int, ...], kernel: tuple[int, ...], dtype: type, zeros: str
) -> None:
    rng = np.random.default_rng(sum(shape) + len(kernel))
    attrs = _attrs(kernel)
    scan = pooling._max_scan_plan(attrs, shape, np.dtype(dtype))
    assert scan.tiles is not None
    untiled = dataclasses.replace(scan, tiles=None)
    for _ in range(4):
        x = _data(rng, shape, np.dtype(dtype), zeros)
        got, want = pooling._max_scan(scan, x), pooling._max_scan(untiled, x)
        assert len(got) == len(want) == 1
        assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
        assert got[0].tobytes() == want[0].tobytes(), (x, got[0], want[0])
    if zeros == "positive" and np.dtype(dtype).kind == "f":  # (no -0.0: the tiles' own answer)
        assert pooling._max_tiles(scan, scan.tiles, x) is not None


def test_only_tiling_windows_take_the_tiles() -> None:
    """Overlapping windows, dilations, padding and wanted indices keep the scan."""
    shape, dtype = (1, 2, 8, 8), np.dtype(np.float32)
    tiled = _attrs((2, 2))
    assert pooling._max_scan_plan(tiled, shape, dtype).tiles is not None
    window = tiled.window
    others = [
        dataclasses.replace(tiled, window=dataclasses.replace(window, strides=(1, 1))),
        dataclasses.replace(tiled, window=dataclasses.replace(window, dilations=(2, 1))),
        dataclasses.replace(tiled, window=dataclasses.replace(window, pads_begin=(1, 0))),
        dataclasses.replace(tiled, version=8),
    ]
    for attrs in others:
        assert pooling._max_scan_plan(attrs, shape, dtype).tiles is None, attrs
