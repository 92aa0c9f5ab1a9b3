"""Issue 21, item 6: no PASS without a comparison.

Generated inputs that the model refuses (ovonehot and the reference alike) are made again from
the model's declared shapes and dims (integers that index any axis, shared dims equal) and the
model is diffed on those; when it refuses them too, the outputs are "not compared" (exit 1),
never ``PASS (both refuse the inputs)``.  The models are built here with OpenVINO's Python API.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ovonehot import cli
from ovonehot.differential.session import DiffSettings, diff_path
from ovonehot.differential.verdicts import Verdict

ov = pytest.importorskip("openvino", reason="the models are built with OpenVINO's Python API")
ops = pytest.importorskip("openvino.opset13")


def scatter_model(folder: Path) -> Path:
    """idx: i64[3,3], x: f32[3]; ScatterElementsUpdate(broadcast x, idx, broadcast x, axis 1):
    the generated integers (up to 16) are out of bounds for the axis of 3."""
    x = ops.parameter([3], ov.Type.f32, name="x")
    idx = ops.parameter([3, 3], ov.Type.i64, name="idx")
    data = ops.broadcast(x, ops.constant(np.array([3, 3], np.int64)))
    out = ops.scatter_elements_update(data, idx, data, ops.constant(np.int64(1)))
    xml = folder / "scatter.xml"
    ov.save_model(ov.Model([ops.result(out)], [idx, x], "scatter"), str(xml), compress_to_fp16=False)
    return xml


def reshape_model(folder: Path) -> Path:
    """Reshape(x: f32[3], shape: i64[2]): no two integers within the dims multiply to 3."""
    x = ops.parameter([3], ov.Type.f32, name="x")
    shape = ops.parameter([2], ov.Type.i64, name="shape")
    out = ops.reshape(x, shape, special_zero=False)
    xml = folder / "reshape.xml"
    ov.save_model(ov.Model([ops.result(out)], [shape, x], "reshape"), str(xml), compress_to_fp16=False)
    return xml


def test_refused_generated_inputs_are_made_again_within_the_dims(tmp_path: Path) -> None:
    lines: list[str] = []
    outcome = diff_path(str(scatter_model(tmp_path)), DiffSettings(), say=lines.append)
    report = outcome.report
    assert report.ours_error is None and report.exit_code == 0
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS]
    assert all(v.comparison is not None for v in report.verdicts)  # a PASS that compared something
    idx = report.inputs["idx"]
    assert idx.min() >= 0 and idx.max() <= 2
    assert "ovonehot refuses the generated inputs" in lines[0] and "out of bounds" in lines[0]
    assert outcome.data["inputs_regenerated"].startswith("ovonehot refuses the generated inputs")


def test_inputs_refused_again_are_not_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = reshape_model(tmp_path)
    assert cli.main(["diff", str(xml)]) == 1
    out = capsys.readouterr().out
    assert "PASS" not in out
    assert "not compared" in out and "nothing compared: both refuse the inputs" in out
    assert "summary: 1 not compared -> exit 1" in out


def test_the_replay_holds_the_inputs_made_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "replay"
    assert cli.main(["diff", str(scatter_model(tmp_path)), "--out-dir", str(folder)]) == 0
    capsys.readouterr()
    assert cli.main(["diff", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "refuses the generated inputs" not in out and "ours outputs identical to the saved ones" in out


def patch_model(folder: Path) -> Path:
    """A ViT's patch embedding over dynamic spatial dims (x: f32[?, 3, ?, ?], a 14x14 Convolution of
    stride 14, GELU, a mean over the patches): the default size 3 is smaller than one patch."""
    x = ops.parameter([-1, 3, -1, -1], ov.Type.f32, name="x")
    w = np.random.default_rng(0).standard_normal((8, 3, 14, 14)).astype(np.float32) * 0.05
    conv = ops.convolution(x, ops.constant(w), [14, 14], [0, 0], [0, 0], [1, 1])
    out = ops.reduce_mean(ops.gelu(conv, "erf"), ops.constant(np.array([2, 3], np.int64)), keep_dims=False)
    xml = folder / "patches.xml"
    ov.save_model(ov.Model([ops.result(out)], [x], "patches"), str(xml), compress_to_fp16=False)
    return xml


def test_spatial_dims_grow_until_the_model_takes_them(tmp_path: Path) -> None:
    """Refused generated inputs of rank >= 3 get their dynamic spatial dims grown (32 here, the
    first size a 14x14 patch fits) before OpenVINO sees them: one PASS that compared values,
    where the 3x3 image had ended as "unexplained" (ovonehot refusing what the CPU plugin ran)."""
    lines: list[str] = []
    outcome = diff_path(str(patch_model(tmp_path)), DiffSettings(), say=lines.append)
    report = outcome.report
    assert report.ours_error is None and report.exit_code == 0, lines
    assert report.inputs["x"].shape == (3, 3, 32, 32)
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS]
    assert all(v.comparison is not None for v in report.verdicts)
    assert "ovonehot refuses the generated inputs" in lines[0] and "larger than the data shape" in lines[0]


def test_shapes_the_user_gave_are_not_grown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --shape the model refuses stays the user's: not compared, never grown behind their back."""
    xml = patch_model(tmp_path)
    assert cli.main(["diff", str(xml), "--shape", "x=[1,3,5,5]"]) == 1
    out = capsys.readouterr().out
    assert "f32[1, 3, 5, 5]" in out and "PASS" not in out, out


def test_an_oracle_computing_refused_generated_inputs_is_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GatherElements of x: f32[?, ?] by constant indices [1, 2]: every generated x (3 x 3, made
    again within the dims) has too many rows for them, which ovonehot refuses as OpenVINO's shape
    rule does while the CPU plugin computes something without checking: nothing to judge on
    either side, "not compared" (it was "unexplained", as on trace-frozen exports: Funnel,
    Longformer, Mamba)."""
    x = ops.parameter([-1, -1], ov.Type.f32, name="x")
    out = ops.gather_elements(x, ops.constant(np.array([[0, 5]], np.int64)), 1)
    xml = tmp_path / "gather.xml"
    ov.save_model(ov.Model([ops.result(out)], [x], "gather"), str(xml), compress_to_fp16=False)
    assert cli.main(["diff", str(xml), "--oracle", "cpu"]) == 1
    out_text = capsys.readouterr().out
    assert "unexplained" not in out_text and re.search(r"\[cpu\] Result_\d+: not compared", out_text), (
        out_text
    )
    assert "which OpenVINO does not check; give inputs the model accepts" in out_text


def test_run_grows_the_spatial_dims_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`ovonehot run` on the patch embedding with generated inputs: 32 x 32 images, exit 0 (the 3 x 3
    default ended the run with exit 3); a --shape the model refuses is still the user's."""
    xml = patch_model(tmp_path)
    assert cli.main(["run", str(xml)]) == 0
    out = capsys.readouterr().out
    assert "x: f32[3,3,32,32]" in out, out
    assert cli.main(["run", str(xml), "--shape", "x=[1,3,5,5]"]) == 3
    capsys.readouterr()


def test_an_oracle_that_cannot_compute_refused_inputs_names_the_inputs_not_another_oracle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A convolution (no reference evaluate) before a reshape frozen to one size (timm's HaloNet):
    the generated inputs are refused by ovonehot, made again and refused again.  The reference's
    "not compared" advised --oracle cpu and the summary "try another --oracle", which cannot help:
    the advice is to give inputs the model accepts."""
    x = ops.parameter([1, 3, -1, -1], ov.Type.f32, name="x")
    w = ops.constant(np.ones((2, 3, 1, 1), np.float32))
    conv = ops.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1])
    out = ops.reshape(conv, ops.constant(np.array([-1, 2, 5, 5], np.int64)), special_zero=False)
    xml = tmp_path / "frozen.xml"
    ov.save_model(ov.Model([ops.result(out)], [x], "frozen"), str(xml), compress_to_fp16=False)
    assert cli.main(["diff", str(xml), "--oracle", "reference"]) == 1
    text = capsys.readouterr().out
    assert "not compared" in text and "try --oracle" not in text and "try another --oracle" not in text, text
    assert "ovonehot refuses these generated inputs" in text
    assert (
        "ovonehot refuses these inputs: give inputs the model accepts (--inputs, --shape, --val-range)"
        in text
    )
