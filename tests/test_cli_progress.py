"""Progress bars (ovonehot.progress): drawn on stderr for every long operation, never on stdout,
never with ``-q`` or ``--json``, and never where stderr is no terminal unless
``OVONEHOT_PROGRESS=1`` asks for them (what these tests do: their stderr is captured).

The four operations of issue 23: a corpus ``diff`` (a bar of models), ``diff --all-layers`` (a
bar of layers per oracle), ``reduce`` (a counter of candidate diffs) and a model load (a bar of
the weights file's bytes); and ``fuzz`` (a bar of cases), which had one before them.
"""

from __future__ import annotations

import io
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ovonehot import progress
from ovonehot.cli import main
from tests.test_cli_json import conforms, strict_loads

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "ir" / "onehot"
MODEL = CORPUS / "v1_axis-1_i64_f32.xml"
REPLAY = ROOT / "ir" / "replays" / "cpu-int32-saturation-i64-values"


def _corpus(tmp: Path) -> Path:
    folder = tmp / "corpus"
    folder.mkdir(exist_ok=True)
    for name in ("v1_axis-1_i64_f32", "v16_all_params_f16"):
        for ext in (".xml", ".bin"):
            shutil.copy(CORPUS / (name + ext), folder / (name + ext))
    return folder


# (id, argv from a temp dir, exit code, the bar's text on stderr)
OPERATIONS: list[tuple[str, Callable[[Path], list[str]], int, list[str]]] = [
    (
        "corpus-diff",
        lambda t: ["diff", str(_corpus(t)), "--oracle", "reference"],
        0,
        ["diff: ", "/2 ", "model/s"],
    ),
    (
        "all-layers",
        lambda t: ["diff", str(MODEL), "--oracle", "reference", "--all-layers"],
        0,
        ["layers vs reference: ", "layer/s"],
    ),
    (
        "reduce",
        lambda t: [
            "reduce",
            str(REPLAY / "model.xml"),
            "--inputs",
            str(REPLAY / "inputs.npz"),
            "--oracle",
            "cpu",
            "--out-dir",
            str(t / f"reduced{len(list(t.iterdir()))}"),
        ],
        0,
        ["reduce: ", " diffs ["],
    ),
    ("load", lambda t: ["inspect", str(MODEL)], 0, [f"loading {MODEL.name}: ", "B/s"]),
    (
        "fuzz",
        lambda t: ["fuzz", "--cases", "1", "--oracle", "reference", "--jobs", "0"],
        0,
        ["fuzz: ", "/1 "],
    ),
]
IDS = [op[0] for op in OPERATIONS]


@pytest.mark.parametrize(("argv", "code", "texts"), [op[1:] for op in OPERATIONS], ids=IDS)
def test_each_long_operation_draws_its_bar_on_stderr(
    argv: Callable[[Path], list[str]],
    code: int,
    texts: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(progress.ENV, "1")
    got = main(argv(tmp_path))
    out, err = capsys.readouterr()
    assert got == code, err
    for text in texts:
        assert text in err, err
    assert "\r" not in out and "%|" not in out  # the bars stay off stdout


@pytest.mark.parametrize(("argv", "code", "texts"), [op[1:] for op in OPERATIONS], ids=IDS)
def test_no_bar_with_quiet_or_json_and_the_json_still_fits_its_schema(
    argv: Callable[[Path], list[str]],
    code: int,
    texts: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(progress.ENV, "1")  # asked for: -q and --json still win
    got = main(["-q", *argv(tmp_path)])
    out, err = capsys.readouterr()
    assert got == code and err == "" and out.strip()
    got = main([*argv(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert got == code, err
    assert texts[0] not in err and "\r" not in err
    conforms(strict_loads(out))


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_bars_are_drawn_on_a_terminal_only_and_never_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(progress.ENV, raising=False)
    assert not progress.bar(3, "work", "step").drawn  # (pytest's captured stderr is no terminal)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress.bar(3, "work", "step") as shown:
        assert shown.drawn
        shown.update()
    with progress.policy(progress.Mode.OFF), progress.bar(3, "work", "step") as shown:
        assert not shown.drawn  # -q, --json
    with progress.bar(3, "work", "step", force=False) as shown:
        assert not shown.drawn  # a caller's own no (fuzz's library default)
    monkeypatch.setenv(progress.ENV, "0")
    assert not progress.bar(3, "work", "step").drawn
    # On a terminal a bar waits DELAY seconds before it shows: a quick operation draws nothing.
    assert terminal.getvalue() == ""


def test_a_line_without_a_bar_still_reaches_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(progress.ENV, raising=False)
    with progress.bar(None, "reduce", "diff") as shown:
        shown.update()
        shown.note("3 ops")
        shown.write("  diff 1: 3 ops")
    out, err = capsys.readouterr()
    assert out == "" and err == "  diff 1: 3 ops\n"
