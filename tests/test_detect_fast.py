"""ROIAlign and NonMaxSuppression, the detection heads' two kernels (one kernel each, for both
run modes), bit for bit against scalar oracles written here from OpenVINO's reference kernels
(``reference/roi_align.hpp``, ``reference/non_max_suppression.cpp``): every sample, neighbour,
weight, IoU and running score computed one at a time in the working type, in the reference's
order.  Generated cases: boxes inside, across and wholly outside the map, inverted, tiny,
duplicated; NaN and infinite pixels; f16/bf16/f64 data; no boxes, no classes,
no batches; tied and NaN scores, zero-area boxes, every threshold edge, soft NMS, both NMS
versions and both box encodings; a chain of overlaps, and more candidates than one block of
NMS's overlap rows (with a limit met in the first block or not).  ROIAlign-3's oracle is itself checked against
the core reference (``Node.evaluate``) bit for bit."""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable

import numpy as np
import pytest

from ovonehot.errors import InputError, ResourceLimitError
from ovonehot.ops import nms, roi_align
from ovonehot.ops.nms import BoxEncoding, NMSAttrs
from ovonehot.ops.roi_align import AlignedMode, PoolingMode, ROIAlignAttrs
from ovonehot.types import ElementType

BF16 = ElementType.bf16.numpy_dtype


def _bits(a: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    return str(a.dtype), a.shape, np.ascontiguousarray(a).tobytes()


def assert_bits(ours: list[np.ndarray], expected: list[np.ndarray], what: str) -> None:
    assert len(ours) == len(expected), what
    for k, (a, b) in enumerate(zip(ours, expected, strict=True)):
        assert _bits(a) == _bits(b), f"{what}: output {k} differs\nours {a!r}\nexpected {b!r}"


# -- ROIAlign ----------------------------------------------------------------------------------
def _bilinear(fmap: np.ndarray, y: np.floating, x: np.floating, T: type[np.floating]) -> np.ndarray:
    """The reference's sample at (y, x) over every channel of ``fmap`` [C, H, W]: its four
    weighted neighbours added in order; more than a pixel outside: weight 0 at (0, 0)."""
    h, w = fmap.shape[1], fmap.shape[2]
    if y < -1.0 or y > T(h) or x < -1.0 or x > T(w):
        points = [(0, 0)] * 4
        weights = [T(0)] * 4
    else:
        y, x = np.maximum(y, T(0)), np.maximum(x, T(0))
        y_low, x_low = int(y), int(x)
        if y_low >= h - 1:
            y_low = y_high = h - 1
            y = T(y_low)
        else:
            y_high = y_low + 1
        if x_low >= w - 1:
            x_low = x_high = w - 1
            x = T(x_low)
        else:
            x_high = x_low + 1
        ly, lx = T(y - T(y_low)), T(x - T(x_low))
        hy, hx = T(1) - ly, T(1) - lx
        points = [(y_low, x_low), (y_low, x_high), (y_high, x_low), (y_high, x_high)]
        weights = [hy * hx, hy * lx, ly * hx, ly * lx]
    total = weights[0] * fmap[:, points[0][0], points[0][1]]
    for wgt, (py, px) in zip(weights[1:], points[1:], strict=True):
        total = total + wgt * fmap[:, py, px]
    return total


def roi_align_oracle(
    attrs: ROIAlignAttrs, data: np.ndarray, rois: np.ndarray, batch: np.ndarray
) -> np.ndarray:
    t = np.dtype(np.float64) if data.dtype == np.float64 else np.dtype(np.float32)
    T = t.type
    x = data.astype(t)
    out = np.zeros((rois.shape[0], data.shape[1], attrs.pooled_h, attrs.pooled_w), t)
    off_src, off_dst = {
        AlignedMode.ASYMMETRIC: (T(0), T(0)),
        AlignedMode.HALF_PIXEL_FOR_NN: (T(0), T(-0.5)),
        AlignedMode.HALF_PIXEL: (T(0.5), T(-0.5)),
    }[attrs.aligned_mode]
    scale = T(np.float32(attrs.spatial_scale))
    with np.errstate(all="ignore"):
        for r, box in enumerate(rois.astype(t)):
            x1, y1, x2, y2 = ((box[k] + off_src) * scale + off_dst for k in range(4))
            roi_w, roi_h = x2 - x1, y2 - y1
            if attrs.aligned_mode is AlignedMode.ASYMMETRIC:
                roi_w, roi_h = max(roi_w, T(1)), max(roi_h, T(1))
            bin_w, bin_h = roi_w / T(attrs.pooled_w), roi_h / T(attrs.pooled_h)
            sr_x = attrs.sampling_ratio or math.ceil(bin_w)
            sr_y = attrs.sampling_ratio or math.ceil(bin_h)
            if sr_x <= 0 or sr_y <= 0:
                continue
            count = T(sr_x * sr_y)
            dist_x, dist_y = bin_w / T(sr_x), bin_h / T(sr_y)
            fmap = x[int(batch[r])]
            for i in range(attrs.pooled_h):
                for j in range(attrs.pooled_w):
                    pooled = np.zeros(data.shape[1], t)
                    for sy in range(sr_y):
                        ys = y1 + T(i) * bin_h + dist_y * (T(sy) + T(0.5))
                        for sx in range(sr_x):
                            xs = x1 + T(j) * bin_w + dist_x * (T(sx) + T(0.5))
                            value = _bilinear(fmap, ys, xs, T)
                            if attrs.mode is PoolingMode.MAX:
                                pooled = np.where(value > pooled, value, pooled)
                            else:
                                pooled = pooled + value / count
                    out[r, :, i, j] = pooled
    return out.astype(data.dtype) if data.dtype != BF16 else _to_bf16(out)


def _to_bf16(x: np.ndarray) -> np.ndarray:
    from ovonehot.ops.common.numeric import narrow

    return narrow(x, BF16)


def _roi_case(seed: int) -> tuple[ROIAlignAttrs, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h, w = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    data = rng.standard_normal((n, c, h, w))
    if seed % 4 == 0:
        data -= 3  # (all negative: max pools to +0)
    if seed % 7 == 3:
        data.flat[rng.integers(0, data.size)] = rng.choice([np.nan, np.inf, -np.inf])
    dtype = [np.float32, np.float32, np.float16, np.float64, BF16][seed % 5]
    data = data.astype(np.float32).astype(dtype)
    r = int(rng.integers(0, 6)) if seed % 9 else 0
    scale = float(rng.choice([1.0, 0.5, 0.625, 0.25, 2.0]))
    span = max(h, w) / scale
    corner = rng.uniform(-0.5 * span, 1.2 * span, (r, 2))
    size = rng.uniform(-1, 0.8 * span, (r, 2)) * rng.choice([0.02, 1.0], (r, 1))
    rois = np.concatenate([corner, corner + size], axis=1)
    if r > 1 and seed % 3 == 0:
        rois[1] = rois[0]  # (a duplicate box)
    if r and seed % 11 == 5:
        rois[0] = [-9 * span, -9 * span, -8 * span, -8 * span]  # (wholly outside)
    attrs = ROIAlignAttrs(
        int(rng.integers(1, 4)),
        int(rng.integers(1, 4)),
        int(rng.choice([0, 0, 1, 2, 3])),
        scale,
        PoolingMode.MAX if seed % 2 else PoolingMode.AVG,
        list(AlignedMode)[seed % 3],
    )
    batch = rng.integers(0, n, r).astype(np.int32 if seed % 2 else np.int64)
    return attrs, [data, rois.astype(dtype), batch]


@pytest.mark.parametrize("seed", range(240))
def test_roi_align_matches_the_scalar_oracle(seed: int) -> None:
    attrs, inputs = _roi_case(seed)
    ours = roi_align.evaluate_roi_align(attrs, inputs)
    assert_bits(ours, [roi_align_oracle(attrs, *inputs)], f"seed {seed}: {attrs}")


def test_roi_align_many_boxes_and_samples() -> None:
    """More samples than one block of the kernel's sample rows (a map of 200x150, boxes of up
    to 120 pixels with adaptive sampling): the blocks add in the reference's order."""
    rng = np.random.default_rng(5)
    data = rng.standard_normal((1, 2, 150, 200)).astype(np.float32)
    corner = rng.uniform(0, 100, (4, 2))
    rois = np.concatenate([corner, corner + rng.uniform(60, 120, (4, 2))], axis=1).astype(np.float32)
    batch = np.zeros(4, np.int32)
    for mode in PoolingMode:
        attrs = ROIAlignAttrs(2, 2, 0, 1.0, mode, AlignedMode.HALF_PIXEL)
        assert_bits(
            roi_align.evaluate_roi_align(attrs, [data, rois, batch]),
            [roi_align_oracle(attrs, data, rois, batch)],
            str(mode),
        )


@pytest.mark.parametrize("aligned_mode", [AlignedMode.HALF_PIXEL_FOR_NN, AlignedMode.HALF_PIXEL])
def test_roi_align_box_without_samples(aligned_mode: AlignedMode) -> None:
    """An aligned box of zero size with adaptive sampling takes no samples (bin 0, ceil 0):
    it pools to 0, beside boxes that do take samples (the kernel raised IndexError here)."""
    data = np.random.default_rng(2).standard_normal((1, 2, 6, 7)).astype(np.float32)
    rois = np.array([[3.6875, 3.5, 3.6875, 3.5], [1, 1, 4, 5], [2, 2, 2, 4]], np.float32)
    batch = np.zeros(3, np.int32)
    for mode in PoolingMode:
        attrs = ROIAlignAttrs(2, 2, 0, 1.0, mode, aligned_mode)
        ours = roi_align.evaluate_roi_align(attrs, [data, rois, batch])
        assert_bits(ours, [roi_align_oracle(attrs, data, rois, batch)], str(mode))
        assert not ours[0][0].any() and ours[0][1].any()


@pytest.mark.parametrize("seed", range(0, 240, 8))
def test_roi_align_3_oracle_is_the_core_reference(seed: int) -> None:
    """The oracle above is OpenVINO's kernel: ROIAlign-3 (the core's evaluate) agrees bit for
    bit on the generated cases with f32 data and finite boxes."""
    ov = pytest.importorskip("openvino")
    o3 = pytest.importorskip("openvino.opset3")
    attrs, (data, rois, batch) = _roi_case(seed)
    data, rois = data.astype(np.float32), rois.astype(np.float32)
    attrs = dataclasses.replace(attrs, aligned_mode=AlignedMode.ASYMMETRIC)  # (ROIAlign-3's only mode)
    node = o3.roi_align(
        *(o3.parameter(list(a.shape), a.dtype) for a in (data, rois, batch)),
        attrs.pooled_h, attrs.pooled_w, attrs.sampling_ratio, attrs.spatial_scale, attrs.mode.value,
    )  # fmt: skip
    shape = [rois.shape[0], data.shape[1], attrs.pooled_h, attrs.pooled_w]
    out = [ov.Tensor(ov.Type.f32, ov.Shape(shape))]  # (its evaluate does not shape the output)
    assert node.evaluate(out, [ov.Tensor(np.ascontiguousarray(a)) for a in (data, rois, batch)])
    expected = np.array(out[0].data, copy=True)
    assert_bits([expected], [roi_align_oracle(attrs, data, rois, batch)], f"seed {seed}")


# -- NonMaxSuppression -------------------------------------------------------------------------
F32 = np.float32


def _corners_oracle(box: np.ndarray, encoding: BoxEncoding) -> tuple[np.float32, ...]:
    if encoding is BoxEncoding.CENTER:
        x, y, w, h = box
        hw, hh = w / F32(2), h / F32(2)
        return y - hh, x - hw, y + hh, x + hw
    y1, x1, y2, x2 = box
    return np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)


def _iou_oracle(a: tuple[np.float32, ...], b: tuple[np.float32, ...]) -> np.float32:
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return F32(0)
    ih = np.maximum(np.minimum(a[2], b[2]) - np.maximum(a[0], b[0]), F32(0))
    iw = np.maximum(np.minimum(a[3], b[3]) - np.maximum(a[1], b[1]), F32(0))
    inter = ih * iw
    return F32(inter / (area_a + area_b - inter))


def _select_oracle(
    boxes: list[tuple[np.float32, ...]], scores: np.ndarray, limit: int, iou_t: np.float32,
    score_t: np.float32, sigma: np.float32, v5: bool,
) -> list[tuple[int, np.float32]]:  # fmt: skip
    """The reference's loop, one candidate and one comparison at a time: a queue by score
    (ties: lower index first); each candidate against the selected boxes, newest first."""
    soft = bool(sigma > 0)
    scale = F32(F32(-0.5) / sigma) if soft else F32(0)
    heap = [(-float(s), i, 0) for i, s in enumerate(scores) if s > score_t]
    heapq.heapify(heap)
    picked: list[tuple[int, np.float32]] = []
    while heap and len(picked) < limit:
        neg, i, begin = heapq.heappop(heap)
        original = score = F32(-neg)
        hard = False
        for j, _ in reversed(picked[begin:]):
            iou = _iou_oracle(boxes[i], boxes[j])
            weight = F32(np.exp(np.float64(F32(scale * iou) * iou)))  # (expf: f64 exp, rounded)
            if (not soft or v5) and not iou <= iou_t:
                weight = F32(0)
            score = F32(score * weight)
            hard = bool(iou >= iou_t) if v5 else bool(iou > iou_t and not soft)
            if hard or score <= score_t:
                break
        if hard:
            continue
        if score == original:
            picked.append((i, score))
        elif score > score_t:
            heapq.heappush(heap, (-float(score), i, len(picked)))
    return picked


def nms_oracle(attrs: NMSAttrs, inputs: list[np.ndarray]) -> list[np.ndarray]:
    boxes, scores = inputs[0].astype(F32), inputs[1].astype(F32)

    def scalar(k: int) -> np.generic:
        return np.asarray(inputs[k]).reshape(-1)[0] if len(inputs) > k else np.float64(0)

    raw = scalar(2)
    limit = max(int(np.trunc(raw)), 0) if np.isfinite(raw) else 0
    iou_t, score_t, sigma = F32(scalar(3)), F32(scalar(4)), F32(scalar(5))
    rows = []
    with np.errstate(all="ignore"):
        for b in range(scores.shape[0]):
            corners = [_corners_oracle(box, attrs.box_encoding) for box in boxes[b]]
            for c in range(scores.shape[1]):
                picked = _select_oracle(
                    corners, scores[b, c], limit, iou_t, score_t, sigma, attrs.version == 5
                )
                rows += [(b, c, i, s) for i, s in picked]
    if attrs.sort_result_descending:
        rows.sort(key=lambda r: (-float(r[3]), r[0], r[1], r[2]))
    dtype = attrs.output_type.numpy_dtype
    return [
        np.array([r[:3] for r in rows], dtype).reshape(-1, 3),
        np.array([(r[0], r[1], r[3]) for r in rows], F32).reshape(-1, 3),
        np.array([len(rows)], dtype),
    ]


def _nms_case(seed: int) -> tuple[NMSAttrs, list[np.ndarray]]:
    rng = np.random.default_rng(1000 + seed)
    b = int(rng.integers(1, 3)) if seed % 10 else 0
    c = int(rng.integers(1, 4)) if seed % 12 else 0
    n = int(rng.integers(1, 50)) if seed % 8 else 0
    corner = rng.uniform(0, 10, (b, n, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(-1, 4, (b, n, 2))], axis=-1)
    if n > 3 and seed % 3 == 0:
        boxes[:, 1] = boxes[:, 0]  # (duplicates)
    if n > 3 and seed % 5 == 0:
        boxes[:, 2, 2] = boxes[:, 2, 0]  # (zero area)
    if n > 3 and seed % 7 == 0:
        boxes[:, 3, int(rng.integers(0, 4))] = rng.choice([np.nan, np.inf])
    scores = np.round(rng.uniform(-0.2, 1, (b, c, n)), 1)  # (many ties)
    if n and seed % 6 == 1:
        scores[..., 0] = np.nan
    dtype = [np.float32, np.float32, np.float16, BF16][seed % 4]
    inputs = [boxes.astype(np.float32).astype(dtype), scores.astype(np.float32).astype(dtype)]
    extra = int(rng.integers(1, 5)) if seed % 9 else 0  # (no max_output_boxes_per_class: 0)
    values = [
        rng.choice([1, 3, 7, 2**31 - 1, 2**31 - 1, 0, -1]),
        rng.choice([0.0, 0.3, 0.5, 1.0, -0.1]),
        rng.choice([0.0, 0.2, -3.4e38, 0.5]),
        rng.choice([0.0, 0.0, 0.5, 0.2]),
    ]
    for k in range(extra):
        kind = (np.int32 if seed % 2 else np.int64) if k == 0 else dtype
        with np.errstate(over="ignore"):  # (-3.4e38 in f16: -inf)
            inputs.append(np.array(values[k], kind).reshape((1,) * int(rng.integers(0, 2))))
    attrs = NMSAttrs(
        5 if seed % 2 else 9,
        BoxEncoding.CENTER if seed % 5 == 2 else BoxEncoding.CORNER,
        bool(seed % 3),
        ElementType.i32 if seed % 4 == 1 else ElementType.i64,
    )
    return attrs, inputs


@pytest.mark.parametrize("seed", range(300))
def test_nms_matches_the_scalar_oracle(seed: int) -> None:
    attrs, inputs = _nms_case(seed)
    assert_bits(nms.evaluate_nms(attrs, inputs), nms_oracle(attrs, inputs), f"seed {seed}: {attrs}")


def _chain(n: int) -> np.ndarray:
    """Boxes each overlapping the next by about 2/3: each decision depends on the one before."""
    y = np.arange(n, dtype=np.float32) * np.float32(0.2)
    return np.stack([y, np.zeros(n, np.float32), y + 1, np.ones(n, np.float32)], axis=-1)[None]


NMS_PATHS: list[tuple[str, Callable[[], np.ndarray], int]] = [
    ("chain of overlaps", lambda: _chain(40), 40),
    (
        "more candidates than a block of rows",
        lambda: np.random.default_rng(3).uniform(0, 60, (1, 1100, 4)),
        1100,
    ),
]


@pytest.mark.parametrize(("make", "n"), [(m, n) for _, m, n in NMS_PATHS], ids=[p[0] for p in NMS_PATHS])
@pytest.mark.parametrize("version", [5, 9])
def test_nms_other_paths_match_the_oracle(make: Callable[[], np.ndarray], n: int, version: int) -> None:
    boxes = make().astype(np.float32)
    scores = np.linspace(1, 0.1, n, dtype=np.float32)[None, None]
    scores[..., n // 3] = scores[..., n // 3 + 1]  # (a tie)
    for iou, limit in ((0.3, n), (0.5, n), (0.5, 10)):
        inputs = [boxes, scores, np.array(limit, np.int64), np.array(iou, np.float32)]
        attrs = NMSAttrs(version)
        assert_bits(nms.evaluate_nms(attrs, inputs), nms_oracle(attrs, inputs), f"iou {iou}")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_roi_align_refuses_a_non_finite_box_in_one_line(bad: float) -> None:
    """A box with a NaN or infinite coordinate: one InputError naming it (it was a ValueError or
    an OverflowError from the sample count's integer cast: a traceback)."""
    attrs = roi_align.ROIAlignAttrs(2, 2, 0, 1.0, roi_align.PoolingMode.AVG)
    data = np.zeros((1, 2, 8, 8), np.float32)
    rois = np.array([[0, 0, 3, 3], [0, 0, bad, 3]], np.float32)
    with pytest.raises(InputError, match=r"rois\[1\] = \[0.0, 0.0, (nan|inf|-inf), 3.0\] has a non-finite"):
        roi_align.evaluate_roi_align(attrs, [data, rois, np.zeros(2, np.int64)])


def test_roi_align_refuses_boxes_that_ask_for_too_many_samples() -> None:
    """An adaptive sampling ratio on an enormous box asks for ceil(bin)^2 samples per bin: refused
    at once with the limit and the box named, where it ran for hours; a box within the limit runs."""
    attrs = roi_align.ROIAlignAttrs(2, 2, 0, 1.0, roi_align.PoolingMode.AVG)
    data = np.ones((1, 2, 8, 8), np.float32)
    huge = np.array([[0, 0, 1e6, 1e6]], np.float32)
    with pytest.raises(ResourceLimitError, match=r"rois\[0\] = \[0.0, 0.0, 1000000.0, 1000000.0\]"):
        roi_align.evaluate_roi_align(attrs, [data, huge, np.zeros(1, np.int64)])
    fine = np.array([[0, 0, 40, 40]], np.float32)
    (out,) = roi_align.evaluate_roi_align(attrs, [data, fine, np.zeros(1, np.int64)])
    assert out.shape == (1, 2, 2, 2)
