"""Multinomial-13: class indices drawn from per-row (log-)probabilities, with OpenVINO's generator.

Inputs: ``probs`` ``[batch, classes]`` of a real type and ``num_samples`` (an integer scalar
or ``[1]``).  Attributes: ``convert_type`` (the output type, i32 or i64), ``with_replacement``,
``log_probs``, ``global_seed`` and ``op_seed`` (u64).  Output ``[batch, num_samples]``
(``multinomial_shape_inference.hpp``: rank 2 required; ``num_samples`` as a shape, so ``-1``
and a runtime value give ``?`` and bounds give an interval).

Values (``reference/multinomial.hpp``), in the probs' type: ``exp`` of the inputs when
``log_probs``; their running sum along each row (left to right); each row divided by its
last sum (a CDF ending at 1); ``batch * num_samples`` uniform draws in ``[0, 1)`` of the probs'
type from RandomUniform's Philox generator (``tensorflow`` alignment, the same seeds, min 0 and
max 1: :mod:`ovonehot.ops.random_uniform`), row-major; each draw picks the first class whose
CDF value is ``>=`` it (0 when none is, as the reference's zero-filled buffer gives).  Without
replacement, after each draw the row's CDF drops the chosen class: its probability ``p`` (the
CDF step) is subtracted from every entry from the chosen class on, and every entry is
divided by ``1 - p``.  The indices are converted to ``convert_type``.

Both seeds 0 draw a fresh seed per run, as RandomUniform does.  OpenVINO's core op has no
``evaluate`` (nothing folds); its CPU plugin draws differently (see the tests), so the
reference's algorithm is what ovonehot follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ValidationError
from ..graph import Node
from ..types import Dimension, ElementType, PartialShape, numpy_dtype_of
from .common.attrs import bool_attr, element_type_attr, int_attr
from .common.numeric import libm, narrow, quiet, widen
from .common.shape_util import dim_from_bounds, input_bounds, passes_integral_number_check
from .common.spec import OpSpec, TensorInfo
from .random_uniform import Alignment, RandomUniformAttrs, evaluate_random_uniform


@dataclass(frozen=True, slots=True)
class MultinomialAttrs:
    convert_type: ElementType
    with_replacement: bool
    log_probs: bool
    global_seed: int = 0
    op_seed: int = 0


def parse_multinomial(node: Node) -> MultinomialAttrs:
    return MultinomialAttrs(
        element_type_attr(node, "convert_type"),
        bool_attr(node, "with_replacement"),
        bool_attr(node, "log_probs"),
        int_attr(node, "global_seed", 0) % 2**64,  # u64 attributes, as a C++ cast reads them
        int_attr(node, "op_seed", 0) % 2**64,
    )


def _samples_dim(num_samples: TensorInfo) -> Dimension:
    bounds = input_bounds(num_samples)
    if bounds is None:
        return Dimension()
    lo, hi = bounds[0]
    if lo < -1:
        raise ValidationError(f"Number of samples must be non-negative. Got number of samples: {lo}")
    return dim_from_bounds(lo, hi)


def infer_multinomial(attrs: MultinomialAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    probs, num_samples = inputs
    if probs.shape.rank_is_static and probs.shape.rank != 2:
        raise ValidationError("Input probabilities must be a 2D tensor.")
    ns = num_samples.shape
    if ns.rank_is_static and not (ns.rank == 0 or (ns.rank == 1 and ns[0].contains(1))):
        raise ValidationError("Number of samples must be a scalar or one element 1D tensor.")
    out = PartialShape.dynamic()
    if probs.shape.rank_is_static:
        out = PartialShape((probs.shape[0], _samples_dim(num_samples)))
    if not (probs.element_type.is_real or probs.element_type.is_dynamic):
        raise ValidationError("Expected floating point type as element type for the 'probs' input.")
    if not passes_integral_number_check(num_samples.element_type):
        raise ValidationError("Expected integer type as element type for the 'num_samples' input.")
    return [TensorInfo(attrs.convert_type, out)]


def _draws(attrs: MultinomialAttrs, et: ElementType, batch: int, count: int) -> np.ndarray:
    """The reference's uniform samples: RandomUniform(tensorflow) of [batch, count] in [0, 1)."""
    uniform = RandomUniformAttrs(et, attrs.global_seed, attrs.op_seed, Alignment.TENSORFLOW)
    dtype = numpy_dtype_of(et)
    shape = np.array([batch, count], np.int64)
    (out,) = evaluate_random_uniform(uniform, [shape, np.zeros((), dtype), np.ones((), dtype)])
    return out


def _cdf(attrs: MultinomialAttrs, probs: np.ndarray, et: ElementType) -> np.ndarray:
    """Running sums along each row divided by the row's last one, in the probs' type
    (bf16: computed in f32, rounded after each operation)."""
    values = probs
    if attrs.log_probs:  # std::exp: libm's, of the value as float for f16/bf16
        wide = widen(probs) if probs.dtype != np.float64 else probs
        values = _rounded(
            libm("exp", wide.astype(np.float64 if probs.dtype == np.float64 else np.float32)), et
        )
        values = values.astype(probs.dtype) if et is not ElementType.bf16 else values
    if et is ElementType.bf16:
        cdf = values.copy()
        for k in range(1, cdf.shape[1]):
            cdf[:, k] = _rounded(cdf[:, k - 1] + cdf[:, k], et)
    else:
        cdf = np.add.accumulate(values, axis=1)  # sequential, as the reference's cumsum
    return _rounded(cdf / cdf[:, -1:], et)


def evaluate_multinomial(attrs: MultinomialAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    probs_in, count_in = np.asarray(inputs[0]), np.asarray(inputs[1])
    if probs_in.ndim != 2 or count_in.size != 1:
        raise InputError(
            f"probs must be 2-D and num_samples one value, got {list(probs_in.shape)}, {count_in}"
        )
    count = int(count_in.reshape(-1)[0])
    if count < 0:
        raise InputError(f"Number of samples must be non-negative. Got number of samples: {count}")
    out_dtype = attrs.convert_type.numpy_dtype
    if attrs.convert_type not in (ElementType.i32, ElementType.i64) or out_dtype is None:
        raise InputError(f"convert_type must be i32 or i64, got {attrs.convert_type}")
    batch, classes = probs_in.shape
    et = ElementType.from_numpy(probs_in.dtype)
    result = np.zeros((batch, count), out_dtype)
    if batch * count == 0 or classes == 0:
        return [result]
    with quiet():
        draws = _draws(attrs, et, batch, count)
        probs = widen(probs_in) if et is ElementType.bf16 else probs_in
        cdf = _cdf(attrs, probs, et)
        draws = widen(draws).astype(cdf.dtype) if et is ElementType.bf16 else draws
        if attrs.with_replacement:
            hit = draws[:, :, None] <= cdf[:, None, :]  # [batch, count, classes]
            result[...] = np.where(hit.any(axis=2), np.argmax(hit, axis=2), 0)
        else:
            _without_replacement(cdf, draws, result, et)
    return [result]


def _without_replacement(cdf: np.ndarray, draws: np.ndarray, result: np.ndarray, et: ElementType) -> None:
    """Draw by draw, each chosen class taken out of its row's CDF (rows independent)."""
    t = cdf.dtype.type
    columns = np.arange(cdf.shape[1])
    rows = np.arange(cdf.shape[0])
    for j in range(draws.shape[1]):
        hit = draws[:, j : j + 1] <= cdf
        found: np.ndarray = np.asarray(hit.any(axis=1))
        chosen = np.argmax(hit, axis=1)
        result[:, j] = np.where(found, chosen, 0)
        previous = np.where(chosen > 0, cdf[rows, np.maximum(chosen - 1, 0)], t(0))
        p = _rounded(cdf[rows, chosen] - previous, et)
        divisor = _rounded(t(1) - p, et)
        lowered = np.where(columns[None, :] >= chosen[:, None], _rounded(cdf - p[:, None], et), cdf)
        updated = _rounded(lowered / divisor[:, None], et)
        cdf[...] = np.where(found[:, None], updated, cdf)


def _rounded(x: np.ndarray, et: ElementType) -> np.ndarray:
    """bf16 arithmetic done in f32 rounds back to bf16 after each operation."""
    if et is not ElementType.bf16:
        return x
    dtype = numpy_dtype_of(et)
    return widen(narrow(x, dtype))


SPECS = (
    OpSpec(
        type="Multinomial",
        version=13,
        since=13,
        inputs=2,
        parse=parse_multinomial,
        infer=infer_multinomial,
        evaluate=evaluate_multinomial,
        deterministic=False,  # both seeds 0: a fresh draw per run
        evaluate_types=(frozenset(),),  # OpenVINO's core op has no evaluate: it never folds
    ),
)
