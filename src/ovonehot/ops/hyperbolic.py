"""Inverse trigonometric and hyperbolic ops: Acos, Asin (opset1), Acosh, Asinh, Atanh (opset4), Cosh, Sinh (opset1).

Types: any number (``UnaryElementwiseArithmetic``: not boolean, not string); the output keeps
the input's type and shape.

Values, checked against ``Node.evaluate`` of OpenVINO 2026.4 (``reference/<op>.hpp``):

* floats: the function in float64, rounded once to the type (f16/bf16 through f32, as the
  core evaluates them in f32); OpenVINO calls glibc's float functions, which are not
  correctly rounded: up to 2 ulp apart on 3-20% of f32 inputs (measured, see the tests).  The core
  has no f64 kernel for these ops; ovonehot computes f64 with NumPy's float64 functions;
* integers (i32, i64, u32, u64 in the core; ovonehot any integer): the double result of
  the function on ``double(x)``, then

  - Acos, Acosh, Asinh, Cosh, Sinh: ``std::round`` (halves away from zero) and a C cast;
  - Asin: the C cast alone (truncation: ``asin(1)`` is 1, not 2);
  - Atanh: the type's max for x > 0, its min for x < 0, 0 for 0 (OpenVINO's integer rule);

  and the C cast turns NaN (``acos(2)``) and overflow (``cosh(100)``) into x86's values
  (``numeric.c_cast``: INT_MIN for i32/i64, 0 for u32, 2**63 or 0 for u64).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .activations import f64_then_round
from .common.attrs import NoAttrs, parse_no_attrs
from .common.numeric import is_float
from .common.spec import OpSpec
from .unary import infer_unary


def _trunc(y: np.ndarray) -> np.ndarray:
    return y


def _atanh(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if is_float(x.dtype):
        return f64_then_round(np.arctanh)(attrs, [x])
    info = np.iinfo(x.dtype)
    top, bottom = np.asarray(info.max, x.dtype), np.asarray(info.min, x.dtype)
    return [np.where(x > 0, top, np.where(x < 0, bottom, np.zeros((), x.dtype))).astype(x.dtype)]


SPECS = (
    OpSpec(
        type="Acos",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.arccos),
    ),
    OpSpec(
        type="Asin",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.arcsin, _trunc),
    ),
    OpSpec(
        type="Cosh",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.cosh),
    ),
    OpSpec(
        type="Sinh",
        version=0,
        since=1,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.sinh),
    ),
    OpSpec(
        type="Acosh",
        version=3,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.arccosh),
    ),
    OpSpec(
        type="Asinh",
        version=3,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=f64_then_round(np.arcsinh),
    ),
    OpSpec(
        type="Atanh",
        version=3,
        since=4,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_unary,
        evaluate=_atanh,
    ),
)
