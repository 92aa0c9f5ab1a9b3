"""Col2Im-15: sum sliding blocks back into an image (``F.fold``, the inverse of ``unfold``).

Inputs: data ``[N, C * kh * kw, L]`` (or unbatched ``[C * kh * kw, L]``), output_size
``[2]`` (H, W) and kernel_size ``[2]``, both i32/i64.  Output ``[N, C, H, W]`` (or
``[C, H, W]``) of the data's type (``col2im_shape_inference.hpp``): C is known when the
kernel is and must divide the channel dim; H, W come from output_size (intervals from
bounds); with everything static, L must equal the number of blocks
``prod((size + pads - dilation * (k - 1) - 1) / stride + 1)``.

Values (``reference/col2im.hpp``): block ``(i, j)`` of column ``(c, ki, kj)`` adds its
value at ``(i * stride - pad_begin + ki * dilation, j * ...)`` when inside the image, in
the reference's order (columns, then block rows, then block columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape
from .common.attrs import ints_attr
from .common.numeric import quiet
from .common.shape_util import known_ints
from .common.spec import OpSpec, TensorInfo
from .movement import _shape_from_info


@dataclass(frozen=True, slots=True)
class Col2ImAttrs:
    strides: tuple[int, ...] = (1, 1)
    dilations: tuple[int, ...] = (1, 1)
    pads_begin: tuple[int, ...] = (0, 0)
    pads_end: tuple[int, ...] = (0, 0)


def parse_col2im(node: Node) -> Col2ImAttrs:
    attrs = Col2ImAttrs(
        ints_attr(node, "strides", (1, 1)),
        ints_attr(node, "dilations", (1, 1)),
        ints_attr(node, "pads_begin", (0, 0)),
        ints_attr(node, "pads_end", (0, 0)),
    )
    for name in ("strides", "dilations", "pads_begin", "pads_end"):
        values = getattr(attrs, name)
        if len(values) != 2:
            raise ValidationError(f"{node.describe()}: {name} must hold 2 values, got {list(values)}")
    if any(v <= 0 for v in attrs.strides + attrs.dilations) or any(
        v < 0 for v in attrs.pads_begin + attrs.pads_end
    ):
        raise ValidationError(f"{node.describe()}: strides and dilations must be positive, pads non-negative")
    return attrs


_INDEX = {ElementType.i32, ElementType.i64, ElementType.dynamic}


def _blocks(attrs: Col2ImAttrs, size: Sequence[int], kernel: Sequence[int]) -> list[int]:
    return [
        (size[d] + attrs.pads_begin[d] + attrs.pads_end[d] - attrs.dilations[d] * (kernel[d] - 1) - 1)
        // attrs.strides[d]
        + 1
        for d in range(2)
    ]


def infer_col2im(attrs: Col2ImAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    data, size_info, kernel_info = inputs
    for info, name in ((size_info, "output_size"), (kernel_info, "kernel_size")):
        if info.element_type not in _INDEX:
            raise ValidationError(
                f"The element type of the {name} tensor must be i32 or i64 type. Got: {info.element_type}"
            )
        if info.shape.rank_is_static and info.shape != PartialShape.of((2,)):
            raise ValidationError(f"{name} must be a 1D input of shape [2]. Got: {info.shape}")
    if not data.shape.rank_is_static:
        return [TensorInfo(data.element_type, PartialShape.dynamic())]
    if data.shape.rank not in (2, 3):
        raise ValidationError(f"input data must be an unbatched 2D or a batched 3D input. Got: {data.shape}")
    batched = data.shape.rank == 3
    out: list[Dimension] = [data.shape[0]] if batched else []
    c_dim, l_dim = data.shape[1 if batched else 0], data.shape[2 if batched else 1]
    kernel = known_ints(kernel_info)
    channels = Dimension()
    if kernel is not None and c_dim.is_static:
        divisor = kernel[0] * kernel[1]
        if divisor <= 0 or c_dim.length % divisor:
            raise ValidationError(
                f"First non-batch dimension is not evenly divisible by Product(kernel_shape). Got: {c_dim.length}"
            )
        channels = Dimension.static(c_dim.length // divisor)
    out.append(channels)
    sizes = _shape_from_info(size_info)
    if sizes is None:
        out += [Dimension(), Dimension()]
    else:
        out += sizes[:2]
        if kernel is not None and l_dim.is_static and all(d.is_static for d in sizes[:2]):
            blocks = _blocks(attrs, [d.length for d in sizes[:2]], kernel)
            expected = blocks[0] * blocks[1]
            if l_dim.length != expected:
                raise ValidationError(
                    "For given inputs and parameters the total number of data blocks must be equal to "
                    f"{expected}. Got: {l_dim.length}"
                )
    return [TensorInfo(data.element_type, PartialShape(tuple(out)))]


def evaluate_col2im(attrs: Col2ImAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = np.asarray(inputs[0])
    size = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    kernel = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    if len(size) != 2 or len(kernel) != 2 or min(size + kernel) <= 0 or data.ndim not in (2, 3):
        raise InputError(
            f"Col2Im takes data of rank 2 or 3 and positive output/kernel sizes, got {size}, {kernel}"
        )
    batched = data.ndim == 3
    x = data if batched else data[None]
    n, ck, length = x.shape
    kh, kw = kernel
    if ck % (kh * kw):
        raise InputError(f"data has {ck} channels, not a multiple of the kernel size {kh} x {kw}")
    bh, bw = _blocks(attrs, size, kernel)
    if bh * bw != length or bh <= 0 or bw <= 0:
        raise InputError(f"data holds {length} blocks, the attributes give {bh} x {bw}")
    c = ck // (kh * kw)
    blocks = x.reshape(n, c, kh, kw, bh, bw)
    out = np.zeros((n, c, *size), data.dtype)
    sh, sw = attrs.strides
    dh, dw = attrs.dilations
    ph, pw = attrs.pads_begin
    rows = np.arange(bh) * sh - ph
    cols = np.arange(bw) * sw - pw
    with quiet():
        # column order (ki, kj) as the reference; each column adds each block position once
        for ki in range(kh):
            for kj in range(kw):
                r = rows + ki * dh
                q = cols + kj * dw
                rin = (r >= 0) & (r < size[0])
                qin = (q >= 0) & (q < size[1])
                part = blocks[:, :, ki, kj][:, :, rin][:, :, :, qin]
                out[:, :, r[rin][:, None], q[qin][None, :]] += part
    return [out if batched else out[0]]


SPECS = (
    OpSpec(
        type="Col2Im",
        version=15,
        since=15,
        inputs=3,
        parse=parse_col2im,
        infer=infer_col2im,
        evaluate=evaluate_col2im,
    ),
)
