"""Boxes with a NaN or infinite coordinate in the pooling ops that cast coordinates to integers
(ROIPooling both methods, PSROIPooling's average mode; ROIAlign: tests/test_detect_fast.py): one
InputError naming the box, where NumPy's integer cast raised ValueError/OverflowError (a
traceback from ``ovonehot run``).  PSROIPooling's bilinear mode computes with them (NaN out)."""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot.errors import InputError
from ovonehot.ops import psroi_pooling, roi_pooling

BAD = [np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("method", list(roi_pooling.PoolMethod), ids=lambda m: m.name)
def test_roi_pooling(method: roi_pooling.PoolMethod, bad: float) -> None:
    attrs = roi_pooling.ROIPoolingAttrs(2, 2, 1.0, method)
    rois = np.array([[0, 0, 0, 3, 3], [0, 1, 1, bad, 3]], np.float32)
    with pytest.raises(InputError, match=r"rois\[1\] = .* has a non-finite coordinate"):
        roi_pooling.evaluate_roi_pooling(attrs, [np.ones((1, 2, 8, 8), np.float32), rois])


@pytest.mark.parametrize("bad", BAD)
def test_psroi_pooling_average(bad: float) -> None:
    attrs = psroi_pooling.PSROIAttrs(2, 2, 1.0, 2, 2, "average", 0.0, 1)
    rois = np.array([[0, bad, 0, 3, 3]], np.float32)
    with pytest.raises(InputError, match=r"rois\[0\] = .* has a non-finite coordinate"):
        psroi_pooling.evaluate_psroi_pooling(attrs, [np.ones((1, 8, 8, 8), np.float32), rois])


def test_finite_boxes_still_pool() -> None:
    attrs = roi_pooling.ROIPoolingAttrs(2, 2, 1.0, roi_pooling.PoolMethod.MAX)
    (out,) = roi_pooling.evaluate_roi_pooling(
        attrs, [np.ones((1, 2, 8, 8), np.float32), np.array([[0, 0, 0, 3, 3]], np.float32)]
    )
    assert out.shape == (1, 2, 2, 2) and (out == 1).all()
