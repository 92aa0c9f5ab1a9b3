"""Two CPU plugin deviations measured on OpenVINO 2026.4 and predicted bit for bit.

The plugin computes signed integer Divide and FloorMod in f32 (deviation
``integer-arithmetic-in-f32``): on random i32 values over the whole range (both signs of the
divisor, operands beyond 2**24 on most elements), the deviation's prediction equals the plugin's
output bit for bit, and diff names it; on small operands nothing changes and nothing is named.

Its Interpolate-11 ``bicubic_pillow`` uses cube_coeff -0.5 whatever the attribute says
(``bicubic-pillow-coefficient``): PyTorch's antialiased bicubic export in the regression corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential.diff import diff_model, oracle_runners
from ovonehot.differential.verdicts import Verdict

ov = pytest.importorskip("openvino")
opset1 = pytest.importorskip("openvino.opset1")


def model(tmp_path: Path, op: str, et: object) -> Path:
    a = opset1.parameter([-1], et, name="a")
    b = opset1.parameter([-1], et, name="b")
    y = getattr(opset1, op)(a, b)
    y.output(0).get_tensor().set_names({"y"})
    xml = tmp_path / f"{op}.xml"
    ov.save_model(ov.Model([y.output(0)], [a, b]), str(xml), compress_to_fp16=False)
    return xml


@pytest.mark.parametrize("op", ["floor_mod", "divide"])
def test_the_deviation_predicts_the_plugin_on_the_whole_range(tmp_path: Path, op: str) -> None:
    rng = np.random.default_rng(11)
    a = rng.integers(-(2**31), 2**31 - 1, 2000, dtype=np.int64).astype(np.int32)
    b = rng.integers(1, 2**12, 2000, dtype=np.int64).astype(np.int32) * rng.choice([-1, 1], 2000).astype(
        np.int32
    )
    xml = model(tmp_path, op, ov.Type.i32)
    m = load(xml)
    report = diff_model(m, {"a": a, "b": b}, oracle_runners(("cpu",), m, str(xml)))
    (v,) = report.verdicts
    assert v.verdict is Verdict.DEVIATION, v.reason
    assert "integer-arithmetic-in-f32" in {e.code for e in v.events}


@pytest.mark.parametrize("op", ["floor_mod", "divide"])
def test_small_operands_are_exact(tmp_path: Path, op: str) -> None:
    rng = np.random.default_rng(12)
    a = rng.integers(-(2**24), 2**24, 500).astype(np.int32)
    b = rng.integers(1, 100, 500).astype(np.int32)
    xml = model(tmp_path, op, ov.Type.i32)
    m = load(xml)
    report = diff_model(m, {"a": a, "b": b}, oracle_runners(("cpu",), m, str(xml)))
    (v,) = report.verdicts
    codes = {e.code for e in v.events}
    assert "integer-arithmetic-in-f32" not in codes
    assert v.verdict in (Verdict.PASS, Verdict.DEVIATION), v.reason


def _corpus_cpu_diff(folder: str, case: str) -> tuple[Any, Any]:
    """diff against the CPU plugin of a regression-corpus folder's case (its first step): the
    report and its one verdict."""
    root = Path(__file__).resolve().parents[1] / "ir" / "corpus" / folder
    m = load(root / "model.xml")
    inputs = dict(np.load(root / f"{case}.inputs.npz"))
    report = diff_model(m, inputs, oracle_runners(("cpu",), m, str(root / "model.xml")))
    (v,) = report.verdicts
    return report, v


def test_bicubic_pillow_with_the_attributes_coefficient_is_a_named_deviation() -> None:
    _, v = _corpus_cpu_diff("regressions/torch_bicubic_antialias", "up_and_down")
    assert v.verdict is Verdict.DEVIATION, v.reason
    assert {e.code for e in v.events} == {"bicubic-pillow-coefficient"}


def test_a_fully_masked_row_in_stateful_attention_is_a_named_deviation() -> None:
    """OPT's optimum-intel export with a left-padded row: ovonehot gives the spec's NaN on the row
    (its padding query masks every key), the CPU plugin's stateful attention finite logits; diff
    names it (``stateful-attention-mask-lowest``, its prediction equal to the plugin's output),
    where it had said PASS (the envelope dropped NaN-against-number elements) and then
    'unexplained'.  The unpadded case predicts nothing of the kind."""
    report, v = _corpus_cpu_diff("llm/opt", "left_padded.step1")
    assert v.verdict is Verdict.DEVIATION, v.reason
    assert {e.code for e in v.events} == {"stateful-attention-mask-lowest"}
    assert report.exit_code == 0
    _, v = _corpus_cpu_diff("llm/opt", "generate.step1")
    assert v.verdict is Verdict.PASS and not v.events, v.reason


def test_an_output_of_an_unseeded_random_uniform_is_not_compared(tmp_path: Path) -> None:
    """x + RandomUniform(seeds 0/0): OpenVINO seeds such an op anew on every run (and ovonehot too),
    so no run can be compared with another: "not compared", with the op named and a known cause,
    for both oracles (it was "ours wrong" against the reference's other random values); a seeded
    one compares as any op."""
    opset8 = pytest.importorskip("openvino.opset8")

    def noisy(seed: int) -> Path:
        x = opset8.parameter([4, 8], np.float32, name="x")
        shape = opset8.constant(np.array([4, 8], np.int64))
        lo, hi = opset8.constant(np.float32(0.0)), opset8.constant(np.float32(1.0))
        y = opset8.add(x, opset8.random_uniform(shape, lo, hi, "f32", seed, seed))
        y.output(0).get_tensor().set_names({"y"})
        xml = tmp_path / f"noise{seed}.xml"
        ov.save_model(ov.Model([y.output(0)], [x]), str(xml), compress_to_fp16=False)
        return xml

    x = {"x": np.zeros((4, 8), np.float32)}
    xml = noisy(0)
    m = load(xml)
    report = diff_model(m, x, oracle_runners(("reference", "cpu"), m, str(xml)))
    assert [v.verdict for v in report.verdicts] == [Verdict.NOT_COMPARED] * 2, [
        v.reason for v in report.verdicts
    ]
    for v in report.verdicts:
        assert v.known and "RandomUniform" in v.reason and "global_seed and op_seed are both 0" in v.reason
    xml = noisy(7)
    m = load(xml)
    report = diff_model(m, x, oracle_runners(("reference",), m, str(xml)))
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS], [v.reason for v in report.verdicts]


def test_a_seeded_multinomial_against_the_cpu_plugin_is_not_compared() -> None:
    """The CPU plugin draws Multinomial's samples with another generator than the spec's (the
    corpus's torch.multinomial export, seeds 1234/1 and 1234/2): other samples for the same seeds,
    "not compared" with the op named and a known cause (it was "unexplained" on generated inputs)."""
    folder = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "torch_ops" / "multinomial_sampling"
    model = load(folder / "model.xml")
    case = min(folder.glob("*.inputs.npz"))
    report = diff_model(
        model, dict(np.load(case)), oracle_runners(("cpu",), model, str(folder / "model.xml"))
    )
    differing = [v for v in report.verdicts if v.comparison is not None and not v.comparison.equal]
    assert differing  # (the CPU plugin's samples really differ)
    for v in differing:
        assert v.verdict is Verdict.NOT_COMPARED and v.known, v
        assert "Multinomial-opset13" in v.reason and "another generator" in v.reason
