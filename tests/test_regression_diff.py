"""``ovonehot diff --oracle cpu`` on every model of ir/corpus/regressions, on its stored case:
every difference is explained (exit 0), and diff never ends in a traceback.

These are the models that once broke ovonehot or its verdicts (each one's meta.json says how):
a string output made diff crash in the envelope check (``np.array_equal(..., equal_nan=True)``
on strings), the CPU plugin's TopK picks, FakeQuantize near zero and a mask built by
ScatterNDUpdate made it cry wolf.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ovonehot import cli

pytest.importorskip("openvino", reason="diff compares against OpenVINO")

REGRESSIONS = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "regressions"
FOLDERS = sorted(p.parent for p in REGRESSIONS.glob("*/meta.json"))


def first_case(folder: Path) -> Path:
    cases = sorted(folder.glob("*.inputs.npz"))
    single = [c for c in cases if ".step" not in c.name]
    return (single or cases)[0]


def test_the_regressions_are_here() -> None:
    assert len(FOLDERS) >= 14


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_each_regression_diffs_clean_against_the_cpu(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        ["diff", str(folder / "model.xml"), "--inputs", str(first_case(folder)), "--oracle", "cpu"]
    )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "Traceback" not in out + err


T5 = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "transformers" / "t5_frontend" / "model.xml"


@pytest.mark.parametrize("command", ["run", "diff"])
def test_generated_inputs_bind_when_a_layer_name_is_another_inputs_tensor_name(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The T5 export's decoder Parameter is called ``input_ids``, the encoder input's tensor name:
    generated inputs keyed by layer names bound ``input_ids`` to the encoder and ended in
    "input 'input_ids.1' is given twice" (exit 2) for both commands (found by a corpus-wide diff)."""
    argv = [command, str(T5)] + (["--oracle", "cpu"] if command == "diff" else [])
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "decoder_input_ids: i64[3" in out.replace("[3,", "[3, ")
