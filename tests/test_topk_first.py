"""TopK with k = 1 (``topk._first``: one argmax or argmin pass) against the stable sort every
other k takes (``topk._sorted``, which tests/test_ops_topk.py and the conformance harness hold
to OpenVINO's reference): the same bytes for values and indices, over every axis, both modes,
every sort attribute, ties, signed zeros, infinities and NaN, integers, booleans and f16."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ovonehot.ops import topk
from ovonehot.ops.topk import TopKAttrs, TopKMode, TopKSort
from ovonehot.types import ElementType

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.0, 2.0])


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.choice(np.array([info.min, info.max, 0, 1, 1, 3], dtype), size=shape)
    values = np.where(rng.random(shape) < 0.5, rng.choice(SPECIAL, size=shape), rng.integers(-3, 4, shape))
    return values.astype(dtype)


@pytest.mark.parametrize(
    "dtype",
    [np.float32, np.float16, np.float64, np.int8, np.uint8, np.int32, np.int64, np.bool_],
    ids=lambda d: np.dtype(d).name,
)
def test_k1_is_the_sort_s_first(dtype: type) -> None:
    rng = np.random.default_rng(7)
    for case, (mode, sort, index) in enumerate(
        itertools.product(TopKMode, TopKSort, (ElementType.i32, ElementType.i64))
    ):
        attrs = TopKAttrs(axis=0, mode=mode, sort=sort, index_element_type=index)
        for shape in [(7,), (3, 5), (2, 4, 6), (1, 9), (6, 1, 3)]:
            x = _data(rng, shape, np.dtype(dtype))
            if case % 3 == 0 and x.dtype.kind == "f":
                x[..., 1] = np.nan  # whole rows of NaN as well
            for axis in range(x.ndim):
                got = topk._first(x, axis, attrs)
                want = topk._sorted(x, 1, axis, attrs)
                for g, w in zip(got, want, strict=True):
                    assert g.dtype == w.dtype and g.shape == w.shape, (mode, sort, shape, axis)
                    assert g.tobytes() == w.tobytes(), (mode, sort, x, axis, g, w)
                    assert g.flags.c_contiguous


def test_k1_is_what_evaluate_runs() -> None:
    """``_top`` takes ``_first`` for k = 1 of the types it knows, the sort for the rest."""
    attrs = TopKAttrs(axis=1, mode=TopKMode.MAX, sort=TopKSort.VALUE, index_element_type=ElementType.i64)
    x = np.array([[1.0, 3.0, 3.0], [np.nan, 2.0, np.nan]], np.float32)
    values, indices = topk.evaluate_topk(attrs, [x, np.int64(1)])
    assert indices.tolist() == [[1], [0]] and values[0, 0] == 3.0 and np.isnan(values[1, 0])
