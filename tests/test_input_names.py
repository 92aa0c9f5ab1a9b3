"""Inputs are addressed as OpenVINO's API addresses them: by tensor name first, then by layer
name where no tensor name takes it.  A T5 export (regression corpus, PyTorch frontend) names its
decoder Parameter ``input_ids`` while ``input_ids`` is the encoder's tensor name: the CLI read
its own npz (keys: tensor names) as the decoder's input twice ("given twice", exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main
from ovonehot.npyio import parse_input_specs

T5 = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "transformers" / "t5_frontend"


def test_a_layer_name_another_inputs_tensor_name_takes_is_not_its_key() -> None:
    model = ovonehot.load(T5 / "model.xml")
    by_tensor = {n: k for k, d in enumerate(model.inputs) for n in d.names}
    for k in range(len(model.inputs)):
        assert model.input_index(model.input_key(k)) == k
    assert model.input_index("input_ids") == by_tensor["input_ids"]
    assert model.input_index("decoder_input_ids") == by_tensor["decoder_input_ids"]
    fed = parse_input_specs(model, [str(T5 / "right_padded.inputs.npz")])
    with np.load(T5 / "right_padded.inputs.npz") as archive:
        for name in archive.files:
            key = model.input_key(model.input_index(name))
            np.testing.assert_array_equal(fed[key], archive[name])


def test_the_cli_runs_the_export_on_its_own_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.npz"
    assert (
        main(
            [
                "run",
                str(T5 / "model.xml"),
                "--inputs",
                str(T5 / "right_padded.inputs.npz"),
                "--output",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    tolerance = json.loads((T5 / "meta.json").read_text())["tolerance"]
    with np.load(out) as got, np.load(T5 / "right_padded.expected.npz") as want:
        for name in want.files:
            np.testing.assert_allclose(got[name], want[name], rtol=tolerance["rtol"], atol=tolerance["atol"])
