"""The explicit registry of supported ops.

Each op module exports ``SPECS``, a tuple of :class:`OpSpec`; this file lists the
modules.  A spec carries every fact about its op (attributes parser, shape rule,
kernel, bound propagation rule, the element types OpenVINO evaluates it for, whether
``diff`` compares it bit for bit): nothing elsewhere is keyed by op type.  Adding or
fixing an op touches its family module only (and, for a new family, one line below).  ``lookup(type, version)`` resolves a layer's ``type`` (case-
insensitive; ``Const`` is ``Constant``) and ``version="opsetN"`` to the op version
that opset holds: the newest spec whose ``since`` is ``<= N``.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from typing import Any

from ..errors import UnsupportedError
from ..graph import Graph, Node
from . import (
    activations,
    adaptive_pool,
    attention,
    basic,
    batch_norm,
    batch_space,
    binary_conv,
    bit_shift,
    bitwise,
    bucketize,
    cells,
    col2im,
    color_convert,
    conv_backprop,
    convert,
    convert_like,
    convert_promote,
    convolution,
    ctc_greedy,
    ctc_loss,
    cumsum,
    deformable_conv,
    detection_output,
    einsum,
    elementwise,
    embedding_bag,
    erf_inv,
    extract_patches,
    eye,
    fake_quantize,
    fft,
    float_checks,
    gather_scatter,
    gather_tree,
    generate_proposals,
    grid_sample,
    grn,
    grouped_matmul,
    hyperbolic,
    identity,
    interpolate,
    inverse,
    lrn,
    matmul,
    matrix_nms,
    movement,
    multiclass_nms,
    multinomial,
    mvn0,
    nms,
    nms_legacy,
    nms_rotated,
    non_zero,
    normalization,
    one_hot,
    pad,
    pooling,
    prior_box,
    proposal,
    psroi_pooling,
    random_uniform,
    recurrent,
    reduce,
    reduce_norms,
    region_yolo,
    reorg_yolo,
    reverse,
    roi_align,
    roi_align_rotated,
    roi_pooling,
    roll,
    search_sorted,
    segment_max,
    shape_ops,
    shuffle_channels,
    slice_scatter,
    softmax,
    space_depth,
    sparse_fill_empty_rows,
    state,
    stft,
    string_tensor,
    subgraph,
    topk,
    unary,
    unique,
)
from . import range as range_op  # not `range`: that would shadow the builtin here
from .common.openvino_opsets import OPSETS
from .common.spec import OpSpec, TensorInfo

# One family module per line; add yours on a line of its own.

__all__ = [
    "OpSpec",
    "TensorInfo",
    "lookup",
    "resolve",
    "specs",
    "specs_types",
    "supported_names",
    "unsupported_types",
]

_MODULES = (
    basic,
    convert,
    one_hot,
    elementwise,
    unary,
    movement,
    range_op,
    matmul,
    softmax,
    topk,
    cumsum,
    non_zero,
    shape_ops,
    reduce,
    bitwise,
    reduce_norms,
    gather_scatter,
    activations,
    einsum,
    pad,
    roll,
    bucketize,
    normalization,
    float_checks,
    identity,
    convolution,
    pooling,
    recurrent,
    unique,
    subgraph,
    state,
    interpolate,
    conv_backprop,
    fake_quantize,
    grid_sample,
    roi_align,
    col2im,
    random_uniform,
    nms,
    fft,
    attention,
    convert_like,
    hyperbolic,
    eye,
    reverse,
    space_depth,
    batch_norm,
    lrn,
    erf_inv,
    inverse,
    adaptive_pool,
    multinomial,
    ctc_loss,
    batch_space,
    embedding_bag,
    cells,
    bit_shift,
    shuffle_channels,
    search_sorted,
    slice_scatter,
    grn,
    extract_patches,
    roi_pooling,
    mvn0,
    nms_legacy,
    gather_tree,
    reorg_yolo,
    ctc_greedy,
    segment_max,
    color_convert,
    prior_box,
    convert_promote,
    stft,
    deformable_conv,
    binary_conv,
    string_tensor,
    grouped_matmul,
    multiclass_nms,
    matrix_nms,
    nms_rotated,
    roi_align_rotated,
    generate_proposals,
    sparse_fill_empty_rows,
    region_yolo,
    detection_output,
    proposal,
    psroi_pooling,
)

_ALIASES = {"const": "constant"}
# The opsets the locked OpenVINO knows (the generated table): the next release is one
# regenerate away.  Opsets 1-16 are cumulative (each holds every op of the ones before; the
# generated table misses a few of those, Reverse-1 among them, that read_model still resolves),
# while from opset17 on an opset holds only the ops it adds or changes (opset17: Convert,
# ErfInv, GroupedMatMul, Parameter, ShapeOf): there a layer resolves only when its opset holds
# its type, as read_model resolves it (``Add`` in opset17 is refused).
_MAX_OPSET = max(int(name.removeprefix("opset")) for name in OPSETS)
_LAST_CUMULATIVE_OPSET = 16
_SPARSE_OPSET_TYPES = {
    int(name.removeprefix("opset")): frozenset(t.lower() for t in types)
    for name, types in OPSETS.items()
    if int(name.removeprefix("opset")) > _LAST_CUMULATIVE_OPSET
}

_TABLE: dict[str, list[OpSpec[Any]]] = {}
for _module in _MODULES:
    for _spec in _module.SPECS:
        _TABLE.setdefault(_spec.type.lower(), []).append(_spec)
for _versions in _TABLE.values():
    _versions.sort(key=lambda s: s.since)

# Spelt exactly as OpenVINO matches opset names: "opset1", not "OPSET1", "opset1 " or "opset" followed by
# U+0661 (an Arabic-Indic one, which \d and str.isdigit accept).
_OPSET = re.compile(r"opset([1-9][0-9]{0,5})", re.ASCII)


@functools.lru_cache(maxsize=256)  # called per layer; a model has a few distinct versions
def opset_number(version: str) -> int | None:
    m = _OPSET.fullmatch(version)
    if not m:
        return None
    n = int(m.group(1))
    return n if 1 <= n <= _MAX_OPSET else None


def lookup(type_name: str, version: str) -> OpSpec[Any] | None:
    """The spec for a layer's type and version, or None when unsupported."""
    key = (type_name, version)
    if key in _LOOKUPS:
        return _LOOKUPS[key]
    spec = _lookup(type_name, version)
    if len(_LOOKUPS) < 4096:  # (a hostile file could name many distinct types)
        _LOOKUPS[key] = spec
    return spec


# (type, version) -> the spec found (None: unsupported)
_LOOKUPS: dict[tuple[str, str], OpSpec[Any] | None] = {}


@contextlib.contextmanager
def overlay(*replacements: OpSpec[Any]) -> Iterator[None]:
    """Run with ``replacements`` in the registry in place of the specs of the same type and
    version (a kernel under test, a planted bug), for models read while it lasts: a file-driven
    pipeline (``ovonehot reduce``, ``diff`` of a replay) then runs them.  Not thread-safe: the
    registry is the process's."""
    saved = {key: list(versions) for key, versions in _TABLE.items()}
    for spec in replacements:
        versions = _TABLE.get(spec.type.lower())
        if not versions or not any(s.version == spec.version for s in versions):
            raise ValueError(f"overlay: {spec.name} replaces no registered spec")
        _TABLE[spec.type.lower()] = [spec if s.version == spec.version else s for s in versions]
    _LOOKUPS.clear()
    try:
        yield
    finally:
        _TABLE.clear()
        _TABLE.update(saved)
        _LOOKUPS.clear()


def _lookup(type_name: str, version: str) -> OpSpec[Any] | None:
    n = opset_number(version)
    if n is None:
        return None
    key = type_name.lower()
    key = _ALIASES.get(key, key)
    if n in _SPARSE_OPSET_TYPES and key not in _SPARSE_OPSET_TYPES[n]:
        return None
    candidates = [s for s in _TABLE.get(key, ()) if s.since <= n]
    return candidates[-1] if candidates else None


def resolve(node: Node) -> OpSpec[Any]:
    spec = lookup(node.type, node.version)
    if spec is None:
        raise UnsupportedError(f"{node.describe()}: unsupported op {node.type} in {node.version}")
    return spec


def unsupported_types(graph: Graph) -> list[str]:
    """Every distinct ``Type-version`` in the graph that ovonehot cannot handle, in graph order."""
    seen: list[str] = []
    for node in graph.nodes:
        if lookup(node.type, node.version) is None and node.type_version not in seen:
            seen.append(node.type_version)
        for _, body in node.bodies:  # a Loop/If body's ops must be supported too
            seen.extend(t for t in unsupported_types(body) if t not in seen)
    return seen


def specs_types() -> list[str]:
    """Every op type ovonehot implements (OpenVINO's spelling), once each."""
    return sorted({s.type for s in specs()})


def supported_names() -> list[str]:
    """``Type-version`` of every supported op, for messages and docs."""
    return sorted(s.name for s in specs())


def specs() -> list[OpSpec[Any]]:
    """Every registered spec, one per type-version, sorted by ``Type-version`` (for generated
    conformance cases and docs)."""
    return sorted(
        (s for versions in _TABLE.values() for s in versions), key=lambda s: (s.type.lower(), s.version)
    )
