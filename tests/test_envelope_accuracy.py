"""The element-wise accuracies the rounding envelope assumes hold for the CPU plugin and for
ovonehot: each op, on values spread over its useful range (uniform) and around zero (normal),
computed by both lands inside the envelope of its float64 value; and the envelope is not
vacuous: a result moved by 32 ulps of the output (plus the absolute term's reach) is outside.

This is the check that ``diff`` does not cry wolf on a correct element-wise op (the figures in
differential/envelope.py came from a run of the same measurement on 20,000 values per op).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential.envelope import ELEMENTWISE, envelopes, truth, ulp
from ovonehot.types import ElementType

ov = pytest.importorskip("openvino", reason="the CPU plugin is what is measured")
from openvino import opset1, opset4, opset5, opset7, opset9

CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}
N = 2000


def spread(rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    return np.concatenate([rng.uniform(lo, hi, N // 2), rng.standard_normal(N // 2) * min(3.0, hi)])


def positive(rng: np.random.Generator, hi: float) -> np.ndarray:
    return np.abs(spread(rng, 1e-30, hi)) + 1e-30


OPS: dict[str, tuple[Callable[[Any], Any], Callable[[np.random.Generator], np.ndarray]]] = {
    "Exp": (opset1.exp, lambda r: spread(r, -80, 80)),
    "Log": (opset1.log, lambda r: positive(r, 1e6)),
    "Tanh": (opset1.tanh, lambda r: spread(r, -10, 10)),
    "Sigmoid": (opset1.sigmoid, lambda r: spread(r, -30, 30)),
    "Erf": (opset1.erf, lambda r: spread(r, -5, 5)),
    "Gelu-erf": (lambda p: opset7.gelu(p, "erf"), lambda r: spread(r, -8, 8)),
    "Gelu-tanh": (lambda p: opset7.gelu(p, "tanh"), lambda r: spread(r, -8, 8)),
    "Swish": (opset4.swish, lambda r: spread(r, -20, 20)),
    "HSwish": (opset4.hswish, lambda r: spread(r, -6, 6)),
    "HSigmoid": (opset5.hsigmoid, lambda r: spread(r, -6, 6)),
    "Mish": (opset4.mish, lambda r: spread(r, -20, 20)),
    "SoftPlus": (opset4.softplus, lambda r: spread(r, -20, 20)),
    "SoftSign": (opset9.softsign, lambda r: spread(r, -10, 10)),
    "Sin": (opset1.sin, lambda r: spread(r, -10, 10)),
    "Cos": (opset1.cos, lambda r: spread(r, -10, 10)),
    "Atan": (opset1.atan, lambda r: spread(r, -10, 10)),
    "Sqrt": (opset1.sqrt, lambda r: np.abs(spread(r, 0, 1e4))),
    "Elu": (lambda p: opset1.elu(p, 1.0), lambda r: spread(r, -10, 10)),
    "Power-3": (lambda p: opset1.power(p, opset1.constant(np.float32(3.0))), lambda r: spread(r, -10, 10)),
    "Divide": (lambda p: opset1.divide(opset1.constant(np.float32(1.7)), p), lambda r: spread(r, -10, 10)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_cpu_and_ovonehot_land_inside_the_envelope(tmp_path: Path, name: str) -> None:
    make, values = OPS[name]
    x = values(np.random.default_rng(sorted(OPS).index(name))).astype(np.float32)
    p = opset1.parameter([x.size], ov.Type.f32, name="x")
    y = make(p)
    y.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([y.output(0)], [p]), str(xml), compress_to_fp16=False)
    model = load(xml)
    kind = model.graph.nodes[model.graph.sources[model.graph.kind_indices("Result")[0]][0].node].type.lower()
    assert kind in ELEMENTWISE, kind
    env = envelopes(model, truth(model, {"x": x}))[0]["y"]
    cpu = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)({"x": x})[0]
    finite = np.isfinite(env.truth)
    for who, got in (("cpu", cpu), ("ovonehot", model.run({"x": x})["y"])):
        inside = env.within(got)
        assert inside[finite].all(), (who, x[finite & ~inside][:5], got[finite & ~inside][:5])
    # Not vacuous: 32 ulps and 32 u * max(1, |x|) away is outside everywhere the truth is finite.
    far = env.truth + 32 * ulp(env.truth, ElementType.f32) + 32 * 2.0**-24 * np.maximum(1, np.abs(x))
    assert not env.within(far)[finite].any()
