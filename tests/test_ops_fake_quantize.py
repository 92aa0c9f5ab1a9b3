"""FakeQuantize-1 and FakeConvert-13 against OpenVINO's core reference (``Node.evaluate``), bit for bit.

FakeQuantize: the four range inputs broadcast in every way the reference has a code
path for (scalar, per channel, inner dims, full, mixed), levels 256/255/16/2, swapped
ranges, f32/f16/i32.  FakeConvert: both f8 types on values spanning the f8 ranges and
their edges (subnormals, the flush-to-zero limit, the saturation limits, inf, NaN),
f32/f16/bf16 data, per-tensor, per-channel and broadcast scale/shift.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, compare_op, infer_shapes

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset13")

RNG = np.random.default_rng(51)
X = (RNG.standard_normal((2, 3, 4, 5)) * 3).astype(np.float32)

RANGE_SHAPES = [
    pytest.param([(), (), (), ()], id="scalars"),
    pytest.param([(1, 3, 1, 1)] * 4, id="per-channel"),
    pytest.param([(4, 5), (4, 5), (1,), (1,)], id="inner-input-ranges"),
    pytest.param([(1,), (1,), (4, 5), (4, 5)], id="inner-output-ranges"),
    pytest.param([(2, 3, 4, 5)] * 4, id="full"),
    pytest.param([(1, 3, 1, 1), (1, 1, 1, 5), (), (3, 1, 1)], id="mixed"),
]


@pytest.mark.parametrize("shapes", RANGE_SHAPES)
@pytest.mark.parametrize("levels", [256, 255, 16, 2])
def test_fake_quantize_matches_reference(tmp_path, shapes, levels):  # type: ignore[no-untyped-def]
    il = (-RNG.random(shapes[0]) * 2 - 0.5).astype(np.float32)
    ih = (RNG.random(shapes[1]) * 2 + 0.5).astype(np.float32)
    ol = RNG.standard_normal(shapes[2]).astype(np.float32)
    oh = (RNG.standard_normal(shapes[3]) + 2).astype(np.float32)
    compare_op(tmp_path, lambda *a: ops.fake_quantize(*a, levels), [P(X), C(il), C(ih), C(ol), C(oh)])


@pytest.mark.parametrize(
    ("dtype", "ranges"),
    [
        (np.float32, (2, -1, -3, 5)),  # input_low > input_high
        (np.float16, (-1.3, 2.1, 0, 5)),
        (np.int32, (-20, 30, -5, 100)),  # integer division, then double
    ],
    ids=["swapped-ranges", "f16", "i32"],
)
def test_fake_quantize_types_match_reference(tmp_path, dtype, ranges):  # type: ignore[no-untyped-def]
    x = X.astype(dtype) if np.dtype(dtype).kind == "f" else RNG.integers(-50, 50, (3, 4)).astype(dtype)
    compare_op(
        tmp_path, lambda *a: ops.fake_quantize(*a, 7), [P(x), *(C(np.asarray(r, dtype)) for r in ranges)]
    )


def test_fake_quantize_inconsistent_ranges_refused(tmp_path):  # type: ignore[no-untyped-def]
    with pytest.raises(Exception, match="inconsistent"):
        infer_shapes(
            tmp_path,
            lambda *a: ops.fake_quantize(*a, 256),
            [P(X), C(np.zeros(3, np.float32)), C(np.float32(1)), C(np.float32(0)), C(np.float32(1))],
        )


@pytest.mark.parametrize("shape", ["?,3,4,5", "...", "2..4,3,?,5"])
def test_fake_quantize_infer_agrees(tmp_path, shape):  # type: ignore[no-untyped-def]
    ours, theirs = infer_shapes(
        tmp_path,
        lambda *a: ops.fake_quantize(*a, 256),
        [
            P(X, shape=shape),
            C(np.zeros((1, 3, 1, 1), np.float32)),
            C(np.float32(1)),
            C(np.float32(0)),
            C(np.float32(1)),
        ],
    )
    assert ours == theirs


EDGES = np.array(
    [0, -0.0, 1e-4, 0.0015, 0.002, 0.0039, 1.0625, 1.1875, 17.5, 300, 448, 460, 500, 1e4, 60000, 61440, 65504, 70000,
     -3.3, np.inf, -np.inf, np.nan],
    np.float32,
)  # fmt: skip
SPREAD = (RNG.standard_normal(198) * 10.0 ** RNG.integers(-4, 5, 198)).astype(np.float32)
VALUES = np.concatenate([EDGES, SPREAD])  # 220 values
TYPES = [np.float32, np.float16, ml_dtypes.bfloat16]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("dtype", TYPES, ids=["f32", "f16", "bf16"])
@pytest.mark.parametrize("destination", ["f8e4m3", "f8e5m2"])
@pytest.mark.parametrize("layout", ["per-tensor", "scale-and-shift", "per-channel-no-shift"])
def test_fake_convert_matches_reference(tmp_path, dtype, destination, layout):  # type: ignore[no-untyped-def]
    if layout == "per-tensor":
        v = VALUES.astype(dtype)
        ins = [P(v), C(np.array([1.0], dtype)), C(np.array([0.0], dtype))]
    elif layout == "scale-and-shift":
        v = VALUES.reshape(2, 5, 22).astype(dtype)
        ins = [P(v), C(np.array([[[0.5]], [[3.0]]], dtype)), C(np.array([[[0.25]], [[-1.5]]], dtype))]
    else:
        v = VALUES.reshape(2, 5, 22).astype(dtype)
        ins = [P(v), C(np.array([0.5, 2, 0.125, 8, 1], dtype).reshape(1, 5, 1))]
    # (bf16 data round after every step: nearest-even and the reference's rounding drift apart)
    if len(ins) == 3:
        compare_op(
            tmp_path, lambda a, s, sh: ops.fake_convert(a, s, sh, destination), ins, bf16_rounds_once=False
        )
    else:
        compare_op(
            tmp_path,
            lambda a, s: ops.fake_convert(a, s, destination_type=destination),
            ins,
            bf16_rounds_once=False,
        )
