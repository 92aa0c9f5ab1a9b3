"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: transposed convolution (ONNX ConvTranspose).

Inputs: data ``[N, C_in, spatial...]``, filters ``[C_in, C_out, k...]`` (the group
version: ``[G, C_in/G, C_out/G, k...]``, output channels ``G * C_out/G``), and an optional
1-D ``output_shape`` holding the output's spatial sizes.

Shapes (``convolution_backprop_shape_inference*.hpp``): without ``output_shape`` each
spatial size is ``(in - 1) * stride + (k - 1) * dilation + 1 - pads_begin - pads_end +
output_padding`` (interval arithmetic on dynamic dims; ``same_*`` and ``valid`` use zero
pads); with it, the sizes are its values (intervals from bounds, ``?`` when unknown) and
``same_upper``/``same_lower`` derive the pads from them: ``total = (in - 1) * stride +
dilated_k - out + output_padding`` (at least 0), the larger half at the beginning for
``same_upper`` and at the end for ``same_lower``.

Values: every input element scatters ``x * w`` to output position ``i * stride + t *
dilation - pads_begin`` (summed over input channels); positions outside the output are
dropped, and output positions no input reaches (``output_padding`` past the end) are 0.
Sums are in float64 (integers in int64, wrapped) and rounded once; OpenVINO's core has
no evaluate for these ops and the CPU plugin sums in f32 in its own order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import enum_attr, ints_attr
from .common.numeric import is_float, narrow, quiet, widen
from .common.spatial import AutoPad, dilated
from .common.spec import OpSpec, TensorInfo
from .movement import _shape_from_info


@dataclass(frozen=True, slots=True)
class BackpropAttrs:
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: AutoPad
    output_padding: tuple[int, ...]
    groups: bool


def _parse(node: Node, groups: bool) -> BackpropAttrs:
    strides = ints_attr(node, "strides")
    n = len(strides)
    return BackpropAttrs(
        strides,
        ints_attr(node, "dilations", ()) or (1,) * n,
        ints_attr(node, "pads_begin", ()) or (0,) * n,
        ints_attr(node, "pads_end", ()) or (0,) * n,
        enum_attr(node, "auto_pad", AutoPad, AutoPad.EXPLICIT),
        ints_attr(node, "output_padding", ()) or (0,) * n,
        groups,
    )


def parse_backprop(node: Node) -> BackpropAttrs:
    return _parse(node, False)


def parse_group_backprop(node: Node) -> BackpropAttrs:
    return _parse(node, True)


def _check_attrs(attrs: BackpropAttrs) -> int:
    n = len(attrs.strides)
    for name, values in (
        ("dilations", attrs.dilations),
        ("pads_begin", attrs.pads_begin),
        ("pads_end", attrs.pads_end),
        ("output_padding", attrs.output_padding),
    ):
        if len(values) != n:
            raise ValidationError(
                f"Expected {name} size to be equal to the number of spatial dims ({n}). Got: {len(values)}"
            )
    for name, values in (("Strides", attrs.strides), ("Dilations", attrs.dilations)):
        if any(v <= 0 for v in values):
            raise ValidationError(f"{name} has zero dimension(s). {list(values)}")
    return n


def _same(attrs: BackpropAttrs) -> bool:
    return attrs.auto_pad in (AutoPad.SAME_UPPER, AutoPad.SAME_LOWER)


def auto_pads(
    attrs: BackpropAttrs, sizes: Sequence[int], kernel: Sequence[int], out: Sequence[int]
) -> tuple[list[int], list[int]]:
    """``apply_auto_pad`` of the backprop ops: pads from a requested output size."""
    begin, end = [], []
    for i, (n, k, o) in enumerate(zip(sizes, kernel, out, strict=True)):
        total = max(
            (n - 1) * attrs.strides[i] + dilated(k, attrs.dilations[i]) - o + attrs.output_padding[i], 0
        )
        small, big = total // 2, total - total // 2
        b, e = (big, small) if attrs.auto_pad is AutoPad.SAME_UPPER else (small, big)
        begin.append(b)
        end.append(e)
    return begin, end


def _padded(d: Dimension, pad: int) -> Dimension:
    """``ov::util::dim::padded``: a bound pushed below 0 becomes unbounded (upper) or 0 (lower)."""
    if pad == 0:
        return d
    hi = None if d.max is None or d.max + pad < 0 else d.max + pad
    if d.is_static:
        return Dimension() if hi is None else Dimension.static(hi)
    lo = max(d.min + pad, 0)
    return Dimension(lo if hi is None or lo <= hi else hi, hi)


def _spatial_out(attrs: BackpropAttrs, d: Dimension, k: Dimension, i: int) -> Dimension:
    s, dil = attrs.strides[i], attrs.dilations[i]
    explicit = attrs.auto_pad is AutoPad.EXPLICIT or attrs.auto_pad is AutoPad.NOTSET
    pads = attrs.pads_begin[i] + attrs.pads_end[i] if explicit else 0
    lo = max(d.min - 1, 0) * s + (max(k.min - 1, 0) * dil + 1)
    hi = None if d.max is None or k.max is None else max(d.max - 1, 0) * s + (max(k.max - 1, 0) * dil + 1)
    base = Dimension(lo, hi) if hi is None or lo <= hi else Dimension(hi, hi)
    return _padded(base, attrs.output_padding[i] - pads)


def _output_spatial(shape_in: TensorInfo, n: int) -> list[Dimension]:
    """The ``output_shape`` input's ``n`` spatial dims (any length where not known)."""
    if not (shape_in.element_type.is_dynamic or shape_in.element_type.is_integral_number):
        raise ValidationError(
            f"Element type for output shape should be of integer type (output_shape element type: "
            f"{shape_in.element_type})."
        )
    if shape_in.shape.rank_is_static and shape_in.shape.rank != 1:
        raise ValidationError("Input delivering output shape must have rank 1.")
    out_spatial = _shape_from_info(shape_in)
    if out_spatial is None:
        out_spatial = [Dimension()] * n
    if len(out_spatial) != n:
        raise ValidationError("Output shape should be defined for all and only spatial dimensions.")
    return out_spatial


def infer_backprop(attrs: BackpropAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, filters = inputs[0], inputs[1]
    et = data.element_type.merge(filters.element_type)
    if et is None:
        raise ValidationError(
            f"Element types for data batch and filters do not match (data batch element type: "
            f"{data.element_type}, filters element type: {filters.element_type})."
        )
    if not (et.is_dynamic or et.is_real or et.is_integral_number):
        raise ValidationError(f"Element type of inputs must be numeric. Got: {et}")
    n = _check_attrs(attrs)
    out_spatial = _output_spatial(inputs[2], n) if len(inputs) == 3 else None
    extra = 3 if attrs.groups else 2
    d = data.shape if data.shape.rank_is_static else PartialShape((Dimension(),) * (n + 2))
    f = filters.shape if filters.shape.rank_is_static else PartialShape((Dimension(),) * (n + extra))
    if d.rank != n + 2:
        raise ValidationError(
            f"Expected the data rank ({d.rank}) to be the number of spatial dims + 2 ({n + 2})."
        )
    if f.rank != n + extra:
        raise ValidationError(
            f"Data batch and filters rank do not match (data batch shape: {d}, filters shape: {f})."
        )
    if attrs.groups:
        groups, c_in, c_out = f[0], f[1], f[2]
        if (
            groups.is_static
            and c_in.is_static
            and d[1].is_static
            and d[1].length != groups.length * c_in.length
        ):
            raise ValidationError(
                f"Input channels dimension of data batch is incompatible with filter groups or input channels "
                f"({d[1]} vs {groups.length} groups of {c_in.length})."
            )
        channels = (
            Dimension.static(groups.length * c_out.length)
            if groups.is_static and c_out.is_static
            else Dimension()
        )
    else:
        if not d[1].compatible(f[0]):
            raise ValidationError(
                f"Data batch channel count ({d[1]}) does not match filter input channel count ({f[0]})."
            )
        channels = f[1]
    if out_spatial is None:
        out_spatial = [_spatial_out(attrs, d[2 + i], f[extra + i], i) for i in range(n)]
    return [TensorInfo(et, PartialShape((d[0], channels, *out_spatial)))]


def evaluate_backprop(attrs: BackpropAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    n = len(attrs.strides)
    if attrs.groups:
        g = w.shape[0]
        w_groups = [w[i] for i in range(g)]
    else:
        g = 1
        w_groups = [w]
    if x.ndim != n + 2 or w_groups[0].ndim != n + 2:
        raise InputError(f"data {x.shape} and filters {w.shape} do not fit {n} spatial dims")
    c_in = w_groups[0].shape[0]
    if x.shape[1] != g * c_in:
        raise InputError(f"data has {x.shape[1]} channels, the filters take {g} x {c_in}")
    sizes, kernel = list(x.shape[2:]), list(w_groups[0].shape[2:])
    if len(inputs) == 3:
        out = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
        if len(out) != n or any(v < 0 for v in out):
            raise InputError(f"output_shape {out} is not {n} non-negative spatial sizes")
        if _same(attrs):
            begin, _ = auto_pads(attrs, sizes, kernel, out)
        elif attrs.auto_pad is AutoPad.VALID:
            begin = [0] * n
        else:
            begin = list(attrs.pads_begin)
    else:
        info = infer_backprop(
            attrs,
            [
                TensorInfo(ElementType.from_numpy(x.dtype), PartialShape.of(x.shape)),
                TensorInfo(ElementType.from_numpy(w.dtype), PartialShape.of(w.shape)),
            ],
        )
        shape = info[0].shape
        if not shape.is_static:
            raise InputError(f"the output shape {shape} is not positive")
        out = list(shape.to_shape()[2:])
        begin = list(attrs.pads_begin) if attrs.auto_pad in (AutoPad.EXPLICIT, AutoPad.NOTSET) else [0] * n
    acc = np.float64 if is_float(x.dtype) else np.int64
    with quiet():
        xs = widen(x).astype(acc)
        parts = [
            _scatter(xs[:, k * c_in : (k + 1) * c_in], widen(wg).astype(acc), attrs, begin, out)
            for k, wg in enumerate(w_groups)
        ]
        y = np.concatenate(parts, axis=1)
        if is_float(x.dtype):
            return [narrow(y if x.dtype == np.float64 else y.astype(np.float32), x.dtype)]
        return [y.astype(x.dtype)]


def _scatter(
    x: np.ndarray, w: np.ndarray, attrs: BackpropAttrs, begin: Sequence[int], out: Sequence[int]
) -> np.ndarray:
    """One group: x ``[N, C_in, in...]``, w ``[C_in, C_out, k...]`` -> ``[N, C_out, out...]``."""
    sizes, kernel = x.shape[2:], w.shape[2:]
    y = np.zeros((x.shape[0], w.shape[1], *out), x.dtype)
    for tap in np.ndindex(*kernel):
        taps = w.reshape(w.shape[0], w.shape[1], -1)[:, :, int(np.ravel_multi_index(tap, kernel))]
        contrib = np.moveaxis(np.tensordot(x, taps, axes=([1], [0])), -1, 1)
        src: list[slice] = [slice(None), slice(None)]
        dst: list[slice] = [slice(None), slice(None)]
        empty = False
        for i, (n_in, t, o) in enumerate(zip(sizes, tap, out, strict=True)):
            s = attrs.strides[i]
            first = t * attrs.dilations[i] - begin[i]  # output position of input 0
            lo = -(first // s) if first < 0 else 0  # the first input index landing at >= 0
            hi = min(n_in, (o - 1 - first) // s + 1) if o > 0 else 0
            if hi <= lo:
                empty = True
                break
            src.append(slice(lo, hi))
            dst.append(slice(first + lo * s, first + (hi - 1) * s + 1, s))
        if not empty:
            y[tuple(dst)] += contrib[tuple(src)]
    return y


SPECS = (
    OpSpec(
        type="ConvolutionBackpropData",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_backprop,
        infer=infer_backprop,
        evaluate=evaluate_backprop,
        blas=True,
    ),
    OpSpec(
        type="GroupConvolutionBackpropData",
        version=1,
        since=1,
        inputs=(2, 3),
        parse=parse_group_backprop,
        infer=infer_backprop,
        evaluate=evaluate_backprop,
        blas=True,
    ),
)
