"""Generated inputs for dynamic dims the layers tie to their weights: a model traced by PyTorch
declares ``x: f32[?,?]`` where its Linear takes 256 columns, so the default 3 made ovonehot refuse
the inputs and ``diff`` compared nothing (exit 1 on 8 corpus models).  ``fit_dims`` sizes such
dims as the refusing layer names them (a MatMul's contracted size, a TopK's k, a kernel's
extent), else a longer one, one dim at a time while the refusal moves on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot import cli, load
from ovonehot.differential import gen_inputs
from ovonehot.differential.gen_inputs import InputSettings, fit_dims, refusal

CORPUS = Path(__file__).resolve().parent.parent / "ir" / "corpus"
SETTINGS = InputSettings(0, within_dims=True)


def _model(name: str):  # type: ignore[no-untyped-def]
    return load(CORPUS / name / "model.xml")


def test_two_dims_fitted_one_after_the_other() -> None:
    """Keypoint post-processing: the boxes' 4 columns (a MatMul with a 4x4 weight), then the
    features' 64 channels (the next MatMul, further on): two refusals moved on."""
    model = _model("regressions/torch_keypoints_loop")
    plain = gen_inputs.generate_inputs(model, 0, settings=SETTINGS)
    assert refusal(model, plain) is not None
    fitted = fit_dims(model, {}, SETTINGS)
    assert fitted is not None
    inputs, notes = fitted
    assert inputs["rois"].shape == (3, 4) and inputs["feats"].shape[-1] == 64
    assert refusal(model, inputs) is None and notes["rois"]["shape"] == [3, 4]


@pytest.mark.parametrize(
    ("name", "shapes"),
    [
        ("regressions/torch_topk_rounding_flip", {"x": (3, 256)}),  # (a MatMul's K)
        ("regressions/torch_topk_tied_boxes", {"scores": (300,)}),  # (TopK's k)
        ("torch_ops/whisper_log_mel", {"audio": (3, 256)}),  # (a reflect pad: no size named)
        ("transformers/wav2vec2", {"input_values": (3, 64)}),  # (a kernel of 10)
    ],
)
def test_the_refusing_layer_sizes_the_dims(name: str, shapes: dict[str, tuple[int, ...]]) -> None:
    model = _model(name)
    fitted = fit_dims(model, {}, SETTINGS)
    assert fitted is not None
    inputs, _ = fitted
    for key, shape in shapes.items():
        assert inputs[key].shape == shape, (key, inputs[key].shape)
    assert refusal(model, inputs) is None


def test_values_the_model_refuses_are_not_fitted_and_the_trials_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CTC lengths past the sequence are in the values, not the dims: nothing fits, within the
    trials."""
    model = _model("tensorflow/ctc_loss")
    runs: list[int] = []
    refused_at = gen_inputs._refused_at

    def counting(*args):  # type: ignore[no-untyped-def]
        runs.append(1)
        return refused_at(*args)

    monkeypatch.setattr(gen_inputs, "_refused_at", counting)
    assert fit_dims(model, {}, SETTINGS) is None
    assert len(runs) <= 1 + gen_inputs.FIT_TRIALS


def test_a_shape_the_user_gave_is_kept() -> None:
    model = _model("regressions/torch_keypoints_loop")
    fitted = fit_dims(model, {"rois": (3, 4)}, SETTINGS)
    assert fitted is not None and fitted[0]["rois"].shape == (3, 4)
    assert fit_dims(model, {"rois": (3, 3)}, SETTINGS) is None  # (its 3 columns never fit the 4x4 weight)


def test_diff_without_inputs_compares_a_traced_model(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    xml = CORPUS / "torch_ops" / "moe_grouped_mm" / "model.xml"
    code = cli.main(["diff", str(xml), "--oracle", "cpu"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "tokens: f32[3, 8]" in out and "not compared" not in out


def test_run_without_inputs_fits_them_as_diff_does(capsys: pytest.CaptureFixture[str]) -> None:
    xml = CORPUS / "torch_ops" / "moe_grouped_mm" / "model.xml"
    code = cli.main(["run", str(xml)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "tokens: f32[3,8]" in out


def test_an_image_s_open_dims_are_tried_together_first(tmp_path: Path) -> None:
    """A windowed attention needs height and width together (timm's HaloNet refused every image
    until 256 x 256): the open dims past the first move as one before each moves alone."""
    ov = pytest.importorskip("openvino", reason="the model is written by OpenVINO's opset API")
    import openvino.opset13 as ops

    x = ops.parameter([1, 2, -1, -1], np.float32, name="x")
    windows = ops.reshape(x, ops.constant(np.int64([1, 2, -1, 64, 64])), False)
    ov.save_model(ov.Model([windows.output(0)], [x], "windows"), str(tmp_path / "m.xml"))
    model = load(tmp_path / "m.xml")
    fitted = fit_dims(model, {}, SETTINGS)
    assert fitted is not None and fitted[0]["x"].shape == (1, 2, 64, 64)
    moves = list(gen_inputs._moves(model.inputs[0], (1, 2, 3, 3), [64, 256]))
    assert moves[:2] == [(1, 2, 64, 64), (1, 2, 256, 256)] and (1, 2, 64, 3) in moves


@pytest.mark.parametrize("name", ["regressions/tf_truncatediv", "regressions/torch_div_trunc"])
def test_integer_divisors_are_drawn_without_zero(name: str) -> None:
    """An integer input that divides (Divide, FloorMod, Mod) drew 0 among [0, 8], which ovonehot
    refuses as OpenVINO's reference does: drawn from +-[1, 8] now, both signs."""
    model = _model(name)
    for seed in range(4):
        inputs, notes = gen_inputs.generate_inputs(model, seed, report=True)
        divisor = next(k for k, n in notes.items() if n["role"] == "divisor")
        assert np.all(inputs[divisor] != 0) and np.abs(inputs[divisor]).max() <= 8
        assert refusal(model, inputs) is None
    values = np.concatenate([gen_inputs.generate_inputs(model, s)[divisor] for s in range(8)])
    assert (values < 0).any() and (values > 0).any()


def test_a_proposal_s_image_info_is_the_image_s_size() -> None:
    """A Proposal's image info drew floats in [-4, 4]: 'must have positive image height and width'."""
    model = _model("vision/rfcn_proposal_psroi")
    inputs, notes = gen_inputs.generate_inputs(model, 0, report=True)
    assert notes["image_info"]["role"] == "image_info"
    assert inputs["image_info"].tolist() == [32.0, 32.0, 1.0]  # (the image input is 1x3x32x32)
    assert refusal(model, inputs) is None


def test_embedding_bag_offsets_ascend_from_zero_below_the_indices() -> None:
    """EmbeddingBagOffsets' offsets drew [0, 8] in any order: 'Offset value exceeds indices size'."""
    model = _model("torch_ops/embedding_bag")
    for seed in range(4):
        inputs, notes = gen_inputs.generate_inputs(model, seed, report=True)
        offsets = inputs["offsets"]
        assert notes["offsets"]["role"] == "offsets" and notes["indices"]["role"] != "offsets"
        assert offsets[0] == 0 and np.all(np.diff(offsets) >= 0) and offsets.max() < inputs["indices"].size
        assert refusal(model, inputs) is None
