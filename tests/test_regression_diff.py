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
