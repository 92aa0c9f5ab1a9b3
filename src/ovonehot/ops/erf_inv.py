"""ErfInv-17: the inverse error function, element-wise (``torch.erfinv`` converts to it).

Types: floats only (OpenVINO's shape rule: ``input_et.is_dynamic() || input_et.is_real()``);
the output keeps the input's type and shape.

OpenVINO 2026.4 has no reference kernel for it (``Node.evaluate`` returns false), so the
values follow the spec, the mathematical function: ``erfinv(+-1) = +-inf``, NaN outside
[-1, 1] and for NaN, the sign of zero kept.  It is computed in float64 (an initial
approximation refined by Newton steps on ``erf``, or on ``log(erfc)`` for ``|y| > 0.5`` where
``1 - |y|`` is exact and ``erf`` would cancel) and rounded once to f32/f64; f16, bf16 and
f8 inputs are widened to f32 and the f32 result rounded back, as OpenVINO's element-wise
reference kernels do.  The CPU plugin computes its own approximation in f32 (a few ulps
from this; f64 through f32, with +-1 giving +-f32 max): tests/test_ops_erf_inv.py measures it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import ValidationError
from .common.attrs import NoAttrs, parse_no_attrs
from .common.numeric import narrow, quiet, widen
from .common.spec import OpSpec, TensorInfo

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_NEWTON_STEPS = 6  # from the approximation's ~1e-7 relative error, 2 steps reach f64 precision


def infer_erf_inv(attrs: NoAttrs, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
    (x,) = inputs
    et = x.element_type
    if not (et.is_dynamic or et.is_real):
        raise ValidationError(f"Input element type must be floating-point. Got: {et}")
    return [TensorInfo(et, x.shape)]


def _initial(y: np.ndarray) -> np.ndarray:
    """Giles' single-precision approximation of erfinv on (-1, 1) (relative error ~1e-7)."""
    w = -np.log((1.0 - y) * (1.0 + y))
    central = w - 2.5
    p = np.full_like(y, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):  # fmt: skip
        p = c + p * central
    tail = np.sqrt(w) - 3.0
    q = np.full_like(y, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):  # fmt: skip
        q = c + q * tail
    out: np.ndarray = np.where(w < 5.0, p, q) * y
    return out


def erf_inv64(y: np.ndarray) -> np.ndarray:
    """erfinv of a float64 array, to about an ulp of float64."""
    y = np.asarray(y, dtype=np.float64)
    out = np.full(y.shape, np.nan)
    inside = np.abs(y) < 1.0
    out[np.abs(y) == 1.0] = np.copysign(np.inf, y[np.abs(y) == 1.0])
    v = y[inside]
    if v.size:
        out[inside] = _refine(v, _initial(v))
    return out


def _refine(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Newton steps on erf(x) = y, element by element in libm.

    In the tails (``|y| > 0.5``) the steps solve ``log(erfc(|x|)) = log(1 - |y|)`` instead:
    ``1 - |y|`` is exact there, erf would cancel, and the log is nearly linear in ``x**2``,
    so the steps converge from a rough start even for ``1 - |y|`` near 2**-53.
    """
    result = x.tolist()
    for i, (target, guess) in enumerate(zip(y.tolist(), result, strict=True)):
        if target == 0.0:
            result[i] = target  # keeps -0.0
            continue
        t = abs(target)
        a = abs(guess) if math.isfinite(guess) else 1.0
        for _ in range(_NEWTON_STEPS):
            slope = _TWO_OVER_SQRT_PI * math.exp(-a * a)
            if t > 0.5:
                tail = math.erfc(a)
                if tail == 0.0 or slope == 0.0:
                    break
                a += (math.log(tail) - math.log1p(-t)) * tail / slope
            else:
                a -= (math.erf(a) - t) / slope
        result[i] = math.copysign(a, target)
    return np.array(result, dtype=np.float64).reshape(y.shape)


def evaluate_erf_inv(attrs: NoAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = inputs
    x = np.asarray(x)
    wide = widen(x)
    with quiet():
        out = erf_inv64(wide).astype(wide.dtype)
    return [np.asarray(narrow(out, x.dtype))]


SPECS = (
    OpSpec(
        type="ErfInv",
        version=17,
        since=17,
        inputs=1,
        parse=parse_no_attrs,
        infer=infer_erf_inv,
        evaluate=evaluate_erf_inv,
    ),
)
