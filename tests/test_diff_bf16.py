"""bf16 rounding in ``diff``: OpenVINO's reference rounds its own way, a named reference deviation.

ovonehot rounds f32 to bf16 to nearest even (IEEE, OpenVINO's bfloat16 type, ONNX, the CPU plugin
at run time); the core reference computes ``(bits + ((bits & 0x10000) >> 1)) >> 16``, and the
CPU plugin folds constants with it.  Against either oracle a difference of exactly that kind is
``bf16-reference-rounding`` (a DEVIATION with its layer), never "ours wrong"; the CPU plugin's
run-time Convert flushing subnormal inputs is ``bf16-subnormal-flush``.  A kernel that rounds
otherwise is still ours wrong.  Expected values: OpenVINO, run at test time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ovonehot.differential.diff import Verdict, diff_model, oracle_runners
from ovonehot.model import Model, load
from ovonehot.ops.convert import ConvertAttrs

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
ops = pytest.importorskip("openvino.opset16")

# 1.0029297 (a near-tie the reference truncates), a tie to odd, f32 max, a NaN with a low payload,
# a subnormal (the CPU flushes it), 1.0.
RUN_TIME = np.array([0x3F80C000, 0x3F818000, 0x7F7FFFFF, 0x7F800001, 0x00400000, 0x3F800000], np.uint32)
FOLDED = np.array([0x3F80C000, 0x40E0C000, 0x3F818000, 0x7F7EFFFF, 0x3F800000, 0x3F800000], np.uint32)


def _model(tmp_path: Path) -> Path:
    """out = Convert(x, bf16) + Convert(Constant, bf16): one rounded at run time, one folded."""
    x = ops.parameter([6], ov.Type.f32, name="x")
    folded = ops.convert(ops.constant(FOLDED.view(np.float32)), ov.Type.bf16)
    out = ops.add(ops.convert(x, ov.Type.bf16), folded)
    out.output(0).get_tensor().set_names({"out"})
    xml = tmp_path / "bf16.xml"
    ov.save_model(ov.Model([out], [x], "m"), str(xml), compress_to_fp16=False)
    return xml


def _verdicts(tmp_path: Path, oracle: str, model: Model | None = None) -> list[object]:
    xml = _model(tmp_path)
    model = model or load(xml)
    report = diff_model(model, {"x": RUN_TIME.view(np.float32)}, oracle_runners((oracle,), model, str(xml)))
    return list(report.verdicts)


def _codes(verdict: object) -> list[str]:
    return [e.code for e in getattr(verdict, "events", ())]


def test_the_reference_rounding_is_a_named_reference_deviation(tmp_path: Path) -> None:
    (v,) = _verdicts(tmp_path, "reference")
    assert v.verdict is Verdict.DEVIATION, v
    assert set(_codes(v)) == {"bf16-reference-rounding"}
    where = {e.where.split("name=")[1].split()[0] for e in v.events}
    assert len(where) == 2  # the run-time Convert and the folded one, each named
    assert v.comparison is not None and v.comparison.count >= 3


def test_the_cpu_folds_constants_with_the_reference_rounding(tmp_path: Path) -> None:
    (v,) = _verdicts(tmp_path, "cpu")
    assert v.verdict is Verdict.DEVIATION, v
    assert set(_codes(v)) == {"bf16-reference-rounding", "bf16-subnormal-flush"}
    folded = [e for e in v.events if e.code == "bf16-reference-rounding"]
    assert len(folded) == 1 and "folded as a constant" in folded[0].detail


def _truncating(attrs: ConvertAttrs, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A wrong Convert to bf16: truncation (what neither OpenVINO oracle computes)."""
    bits = np.ascontiguousarray(inputs[0], np.float32).view(np.uint32) >> 16
    out: np.ndarray = bits.astype(np.uint16).view(attrs.destination_type.numpy_dtype)
    return [out]


def test_a_wrong_bf16_rounding_is_still_ours_wrong(tmp_path: Path) -> None:
    model = load(_model(tmp_path))
    plans = tuple(
        dataclasses.replace(p, spec=dataclasses.replace(p.spec, evaluate=_truncating, specialize=None))
        if p.node.type == "Convert"
        else p
        for p in model.inference.plans
    )
    planted = Model(model.graph, dataclasses.replace(model.inference, plans=plans), model.path)
    (v,) = _verdicts(tmp_path, "reference", planted)
    assert v.verdict is Verdict.OURS_WRONG, v
