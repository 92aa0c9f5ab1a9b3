"""The default oracle compares something on every model (issue 21, item 3): where OpenVINO's
reference cannot compute an output (no evaluate for Convolution here), ``ovonehot diff MODEL``
judges it against the CPU plugin instead and says so; ``--oracle reference`` keeps the strict
"not compared".  The model is written by OpenVINO's ``save_model``; the inputs are small
integers in f32, so every sum is exact and the CPU plugin's values are the exact ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset8")


def conv_model(tmp_path: Path) -> tuple[Path, Path]:
    x = ops.parameter([1, 2, 5, 5], np.float32, name="x")
    w = ops.constant(np.arange(-9, 27, dtype=np.float32).reshape(2, 2, 3, 3) % 5 - 2)
    conv = ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1])
    relu = ops.relu(conv)
    relu.output(0).set_names({"y"})
    xml = tmp_path / "conv.xml"
    ov.save_model(ov.Model([relu], [x]), str(xml), compress_to_fp16=False)
    inputs = tmp_path / "x.npz"
    values = (np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5) % 7) - 3
    np.savez(inputs, x=values)
    return xml, inputs


def test_the_default_falls_back_to_the_cpu_plugin_where_the_reference_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml, inputs = conv_model(tmp_path)
    assert main(["diff", str(xml), "--inputs", str(inputs), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (verdict,) = report["verdicts"]
    assert verdict["oracle"] == "cpu" and verdict["verdict"] == "PASS"
    assert verdict["instead_of"].startswith("reference could not compute it:")
    assert "Convolution" in verdict["instead_of"]
    assert main(["diff", str(xml), "--inputs", str(inputs)]) == 0
    text = capsys.readouterr().out
    assert "[cpu] y: PASS" in text and "instead of: reference could not compute it" in text


def test_an_explicit_reference_oracle_stays_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml, inputs = conv_model(tmp_path)
    assert main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "reference", "--json"]) == 1
    (verdict,) = json.loads(capsys.readouterr().out)["verdicts"]
    assert verdict["oracle"] == "reference" and verdict["verdict"] == "not compared"
    assert verdict["instead_of"] == ""


def test_a_planted_bug_is_still_caught_through_the_fallback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import dataclasses

    from ovonehot import ops as registry

    xml, inputs = conv_model(tmp_path)
    conv = registry.lookup("Convolution", "opset1")
    assert conv is not None and conv.evaluate is not None
    real = conv.evaluate

    def off_by_one(attrs: object, args: list[np.ndarray]) -> list[np.ndarray]:
        (out,) = real(attrs, args)
        return [out + np.float32(1)]

    with registry.overlay(dataclasses.replace(conv, evaluate=off_by_one, specialize=None)):
        assert main(["diff", str(xml), "--inputs", str(inputs), "--json"]) == 1
    (verdict,) = json.loads(capsys.readouterr().out)["verdicts"]
    assert verdict["oracle"] == "cpu" and verdict["verdict"] in ("unexplained", "ours wrong")
    assert verdict["instead_of"]


def test_a_stateful_llm_export_is_compared_with_the_reference_refusal_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An NNCF nvfp4 LLM export (stateful): the reference's ReadValue refuses to evaluate outside
    an inference request, a known refusal (``reference-stateful``); the logits are compared with
    the CPU plugin instead and pass inside the rounding envelope (the plugin decompresses the f16
    weights in f32: a difference of ~1e-4 the envelope carries from f16's rounding)."""
    root = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "nncf" / "llama_nvfp4"
    args = [str(root / "model.xml"), "--inputs", str(root / "generate.step1.inputs.npz"), "--json"]
    assert main(["diff", *args]) == 0
    (verdict,) = json.loads(capsys.readouterr().out)["verdicts"]
    assert verdict["oracle"] == "cpu" and verdict["verdict"] == "PASS", verdict["reason"]
    assert "(a known refusal: reference-stateful)" in verdict["instead_of"]
    assert verdict["envelope"]["theirs_over_bound"] <= 1.0 >= verdict["envelope"]["ours_over_bound"]
