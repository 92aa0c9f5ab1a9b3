"""DeformableConvolution-1 and -8 against OpenVINO.

OpenVINO 2026.4's core has no ``evaluate`` for either version, so values are checked against
the CPU plugin (deterministic configuration) and a float64 oracle written here tap by tap from
the spec (a plain loop over outputs, channels and taps with scalar bilinear sampling).  ovonehot
sums in float64 and rounds once: it equals the oracle rounded to f32; the plugin sums f32 in its
own order, within 1e-5 of the output's largest magnitude (the stated tolerance).  Shapes and
refusals: OpenVINO's own inference of the same node, and IR written by ``ov.save_model``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from ovref import P, assert_inferred, build, cpu_outputs, export

from ovonehot.errors import ValidationError
from ovonehot.ops.common.spatial import AutoPad, Window
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.deformable_conv import DeformableAttrs, infer_deformable
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
o8 = pytest.importorskip("openvino.opset8")
o1 = pytest.importorskip("openvino.opset1")

RNG = np.random.default_rng(8)
TOLERANCE = 1e-5


def _bilinear(plane: np.ndarray, y: float, x: float, pad: bool) -> float:
    h, w = plane.shape
    if pad:
        if not (-1 < y < h and -1 < x < w):
            return 0.0
        y1, x1 = math.floor(y), math.floor(x)
        y2, x2 = y1 + 1, x1 + 1
    else:
        if not (0 <= y < h and 0 <= x < w):
            return 0.0
        y1, x1 = max(math.floor(y), 0), max(math.floor(x), 0)
        y2, x2 = min(math.ceil(y), h - 1), min(math.ceil(x), w - 1)

    def at(r: int, c: int) -> float:
        return float(plane[r, c]) if 0 <= r < h and 0 <= c < w else 0.0

    dy, dx = y - y1, x - x1
    return (
        (1 - dx) * (1 - dy) * at(y1, x1)
        + (1 - dx) * dy * at(y2, x1)
        + dx * (1 - dy) * at(y1, x2)
        + dx * dy * at(y2, x2)
    )


def _oracle(x, off, w, mask, strides, pads, dil, group, dgroup, pad) -> np.ndarray:  # type: ignore[no-untyped-def]
    n, c_in, _, _ = x.shape
    c_out, c_per, kh, kw = w.shape
    oh, ow = off.shape[2:]
    out = np.zeros((n, c_out, oh, ow))
    per_dg = c_in // dgroup
    for b, o, i, j in np.ndindex(n, c_out, oh, ow):
        g = o // (c_out // group)
        total = 0.0
        for ci in range(c_per):
            c = g * c_per + ci
            d = c // per_dg
            for ky, kx in np.ndindex(kh, kw):
                k = ky * kw + kx
                y = i * strides[0] - pads[0] + ky * dil[0] + float(off[b, d * 2 * kh * kw + 2 * k, i, j])
                xx = j * strides[1] - pads[1] + kx * dil[1] + float(off[b, d * 2 * kh * kw + 2 * k + 1, i, j])
                m = 1.0 if mask is None else float(mask[b, d * kh * kw + k, i, j])
                total += _bilinear(x[b, c].astype(np.float64), y, xx, pad) * float(w[o, ci, ky, kx]) * m
        out[b, o, i, j] = total
    return out


CASES = [
    # (data, filters, strides, pads_begin, pads_end, dilations, group, deformable_group)
    pytest.param((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), (0, 0), (0, 0), (1, 1), 1, 1, id="plain"),
    pytest.param((2, 4, 6, 5), (4, 2, 2, 3), (2, 1), (1, 0), (0, 1), (1, 2), 2, 2, id="groups-strides"),
    pytest.param((1, 4, 4, 4), (2, 4, 2, 2), (1, 1), (1, 1), (1, 1), (1, 1), 1, 4, id="dgroup-4-padded"),
    pytest.param((0, 2, 4, 4), (2, 2, 2, 2), (1, 1), (0, 0), (0, 0), (1, 1), 1, 1, id="empty-batch"),
]


@pytest.mark.parametrize("version", ["v1", "v8", "v8-mask", "v8-pad", "v8-mask-pad"])
@pytest.mark.parametrize(("shape", "fshape", "strides", "pb", "pe", "dil", "group", "dgroup"), CASES)
def test_values_match_cpu_and_float64(tmp_path: Any, shape: tuple[int, ...], fshape: tuple[int, ...],
                                      strides: tuple[int, int], pb: tuple[int, int], pe: tuple[int, int],
                                      dil: tuple[int, int], group: int, dgroup: int, version: str) -> None:  # fmt: skip
    n, _, h, w = shape
    kh, kw = fshape[2:]
    oh = (h + pb[0] + pe[0] - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (w + pb[1] + pe[1] - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    x = RNG.standard_normal(shape).astype(np.float32)
    # offsets up to +-2.5 reach outside the data and past the padding
    off = (RNG.uniform(-2.5, 2.5, (n, dgroup * 2 * kh * kw, oh, ow))).astype(np.float32)
    off.reshape(-1)[::7] = np.round(off.reshape(-1)[::7])  # whole positions too
    wt = RNG.standard_normal(fshape).astype(np.float32)
    mask = RNG.uniform(0, 1, (n, dgroup * kh * kw, oh, ow)).astype(np.float32) if "mask" in version else None
    pad = version.endswith("pad")
    feeds = [x, off, wt] + ([mask] if mask is not None else [])

    def make(*args: Any) -> Any:
        if version == "v1":
            return o1.deformable_convolution(*args, list(strides), list(pb), list(pe), list(dil), group=group,
                                             deformable_group=dgroup)  # fmt: skip
        return o8.deformable_convolution(*args[:3], list(strides), list(pb), list(pe), list(dil),
                                         mask=args[3] if len(args) == 4 else None, group=group,
                                         deformable_group=dgroup, bilinear_interpolation_pad=pad)  # fmt: skip

    node, params = build(make, [P(f) for f in feeds])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(feeds).values()
    expected = _oracle(x, off, wt, mask, strides, pb, dil, group, dgroup, pad)
    np.testing.assert_allclose(ours, expected.astype(np.float32), rtol=1e-6, atol=1e-6)
    if x.size:
        (theirs,) = cpu_outputs(node, params, feeds)
        scale = max(float(np.abs(theirs).max()), 1e-30)
        assert float(np.abs(ours - theirs).max()) <= TOLERANCE * scale


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32], ids=["f16", "f64", "i32"])
def test_other_types_keep_their_type(tmp_path: Any, dtype: Any) -> None:
    x = (RNG.standard_normal((1, 2, 4, 4)) * 4).astype(dtype)
    off = RNG.integers(-1, 2, (1, 8, 3, 3)).astype(dtype)
    wt = (RNG.standard_normal((2, 2, 2, 2)) * 3).astype(dtype)
    node, params = build(
        lambda *a: o8.deformable_convolution(*a, [1, 1], [0, 0], [0, 0], [1, 1]), [P(x), P(off), P(wt)]
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([x, off, wt]).values()
    expected = _oracle(x, off, wt, None, (1, 1), (0, 0), (1, 1), 1, 1, False)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(ours, expected.astype(dtype))
    elif dtype == np.float64:  # (summed in another order than the oracle's loop)
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(ours, expected.astype(np.float32).astype(dtype))


# (data, offsets, filters, mask, attrs): shapes OpenVINO infers or refuses
SHAPES = [
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", None, {}),
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", "1,9,3,3", {}),
    ("1,4,5,5", "1,36,3,3", "2,4,3,3", None, {}),
    ("1,4,5,5", "1,36,3,3", "2,4,3,3", "1,18,3,3", {"deformable_group": 2}),
    ("1,4,5,5", "1,18,4,3", "2,4,3,3", None, {}),
    ("1,4,5,5", "1,18,3,3", "2,2,3,3", None, {}),
    ("1,4,5,5", "1,18,3,3", "2,2,3,3", None, {"group": 2}),
    ("1,4,5,5", "1,18,3,3", "3,2,3,3", None, {"group": 2}),
    ("?,?,?,?", "?,?,?,?", "?,?,?,?", None, {}),
    ("...", "...", "...", None, {}),
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", "1,8,3,3", {}),
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", "2,9,3,3", {}),
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", "1,9,3,4", {}),
    ("1,4,5", "1,18,3", "2,4,3", None, {}),
    ("2,4,5,5", "1,18,3,3", "2,4,3,3", None, {}),
    ("?,4,5,5", "3,18,3,3", "2,4,3,3", None, {}),
    ("1,4,5,5", "1,18,5,5", "2,4,3,3", None, {"auto_pad": "same_upper"}),
    ("1,4,2..9,5", "1,18,?,3", "2,4,3,3", None, {"strides": [2, 1]}),
    ("1,4,5,5", "1,18,3,3", "2,4,3,3", None, {"group": 0}),
    ("1,3,5,5", "1,18,3,3", "2,4,3,3", None, {"deformable_group": 2}),
    ("...", "1,18,3,3", "...", "...", {}),
]


@pytest.mark.parametrize("version", ["v1", "v8"])
def test_shapes_match_openvino(version: str) -> None:
    differ = {}
    for data, offsets, filters, mask, attrs in SHAPES:
        if mask is not None and version == "v1":
            continue
        kw = dict(attrs)
        strides = kw.pop("strides", [1, 1])
        names = [data, offsets, filters] + ([mask] if mask else [])
        params = [o8.parameter(ov.PartialShape(f"[{s}]"), ov.Type.f32) for s in names]
        try:
            if version == "v1":
                node = o1.deformable_convolution(*params, strides, [0, 0], [0, 0], [1, 1], **kw)
            else:
                node = o8.deformable_convolution(*params[:3], strides, [0, 0], [0, 0], [1, 1],
                                                 mask=params[3] if mask else None, **kw)  # fmt: skip
            theirs = str(node.get_output_partial_shape(0))
        except RuntimeError:
            theirs = "refused"
        window = Window(tuple(strides), (1, 1), (0, 0), (0, 0), AutoPad(kw.get("auto_pad", "explicit")))
        ours_attrs = DeformableAttrs(window, kw.get("group", 1), kw.get("deformable_group", 1), False)
        infos = [TensorInfo(ElementType.f32, PartialShape.parse(s)) for s in names]
        try:
            ours = str(infer_deformable(ours_attrs, infos)[0].shape)
        except ValidationError:
            ours = "refused"
        if ours != theirs:
            differ[(data, offsets, filters, mask, str(attrs))] = (ours, theirs)
    assert not differ, f"(ovonehot, OpenVINO): {differ}"


def test_mismatched_types_are_refused_naming_the_layer(tmp_path: Any) -> None:
    """OpenVINO refuses f32 data with f16 offsets at construction; an IR that has them is refused
    by ovonehot's inference with the layer named."""
    x, off, wt = (o8.parameter(s, ov.Type.f32) for s in ([1, 2, 4, 4], [1, 8, 3, 3], [2, 2, 2, 2]))
    node = o8.deformable_convolution(x, off, wt, [1, 1], [0, 0], [0, 0], [1, 1])
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model(node.outputs(), [x, off, wt]), str(xml))
    text = xml.read_text()
    first = text.index('element_type="f32"', text.index('element_type="f32"') + 1)
    xml.write_text(text[:first] + 'element_type="f16"' + text[first + len('element_type="f32"') :])
    import ovonehot

    with pytest.raises(ValidationError, match=r"DeformableConvolution.*Element types of inputs do not match"):
        ovonehot.load(xml)
