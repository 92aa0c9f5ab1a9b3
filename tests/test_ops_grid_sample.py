"""GridSample-9 against OpenVINO's core reference (``Node.evaluate``), bit for bit.

Every mode x padding mode x align_corners on a grid reaching past the data on all
sides (with the exact corner and centre points), a one-row image (the reflection
period-1 case), and the shape rules (dynamic dims, batch merge, refusals).  The core
evaluates f32 data with f32 grids only.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, compare_op, infer_shapes

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(61)
X = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
GRID = (RNG.random((2, 6, 7, 2)) * 3 - 1.5).astype(np.float32)
GRID[0, 0, :4] = [[-1, -1], [1, 1], [0, 0.25], [0.5, -0.75]]  # corners, centre, exact pixel positions


@pytest.mark.parametrize("align_corners", [False, True], ids=["no-align", "align"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
def test_grid_sample_matches_reference(tmp_path, mode, padding, align_corners):  # type: ignore[no-untyped-def]
    attrs = {"mode": mode, "padding_mode": padding, "align_corners": align_corners}
    compare_op(tmp_path, lambda a, b: ops.grid_sample(a, b, attrs), [P(X), P(GRID)])


@pytest.mark.parametrize("align_corners", [False, True], ids=["no-align", "align"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_one_row_image_matches_reference(tmp_path, padding, align_corners):  # type: ignore[no-untyped-def]
    x = RNG.standard_normal((1, 2, 1, 5)).astype(np.float32)
    attrs = {"mode": "bicubic", "padding_mode": padding, "align_corners": align_corners}
    compare_op(tmp_path, lambda a, b: ops.grid_sample(a, b, attrs), [P(x), P(GRID[:1])])


@pytest.mark.parametrize(
    ("data", "grid"),
    [("?,3,4,5", "2,?,7,2"), ("...", "2,6,7,2"), ("2,3,4,5", "..."), ("1..3,3,?,?", "2..5,6,7,?")],
    ids=["dynamic-dims", "dynamic-data-rank", "dynamic-grid-rank", "intervals"],
)
def test_grid_sample_infer_agrees(tmp_path, data, grid):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda a, b: ops.grid_sample(a, b, {}),
        [P(np.zeros((), np.float32), shape=data), P(np.zeros((), np.float32), shape=grid)],
    )
    assert ours == theirs


@pytest.mark.parametrize(
    ("data", "grid", "message"),
    [
        ((2, 3, 4, 5), (3, 6, 7, 2), "batch dimension"),
        ((2, 3, 4, 5), (2, 6, 7, 3), "equal to 2"),
        ((2, 3, 4), (2, 6, 7, 2), "4D"),
    ],
    ids=["batch", "last-dim", "data-rank"],
)
def test_grid_sample_bad_shapes_refused_like_openvino(data, grid, message):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.grid_sample import GridSampleAttrs, infer_grid_sample
    from ovonehot.types import ElementType, PartialShape

    with pytest.raises(RuntimeError, match=message):
        ops.grid_sample(ops.parameter(data, np.float32), ops.parameter(grid, np.float32), {})
    infos = [TensorInfo(ElementType.f32, PartialShape.of(s)) for s in (data, grid)]
    with pytest.raises(ValidationError, match=message):
        infer_grid_sample(GridSampleAttrs(), infos)
