"""The command line's help and hints: every command's examples parse with the real parser, help
has no reStructuredText markup, unknown names get "did you mean", -q/-v, the unsupported-op
error, and inspect's summary (its counts checked against the graph the reader gives)."""

from __future__ import annotations

import shlex
import shutil
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from ovonehot.cli import build_parser, main
from ovonehot.cli._help import EXAMPLES
from ovonehot.ops import supported_names

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"
INPUTS = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.npz"
LLM = ROOT / "ir" / "corpus" / "llm" / "gpt2" / "model.xml"


def _sub_parsers() -> dict[str, object]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return dict(action.choices)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(_sub_parsers()))
def test_every_command_has_examples_that_parse_and_plain_help(name: str) -> None:
    lines = [line.split("  ")[0] for line in EXAMPLES[name].strip().splitlines()]
    commands = [shlex.split(line.strip())[1:] for line in lines if line.strip().startswith("ovonehot ")]
    assert commands, f"{name}: no example"
    for argv in commands:
        build_parser().parse_args(argv)  # an unknown option raises UsageError
    text = _sub_parsers()[name].format_help()  # type: ignore[attr-defined]
    assert "examples:" in text and "``" not in text and ":func:" not in text


def test_model_help_says_onnx_where_onnx_works() -> None:
    for name in ("run", "validate", "inspect", "diff", "reduce"):
        text = _sub_parsers()[name].format_help()  # type: ignore[attr-defined]
        assert ".onnx" in text, name


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def test_did_you_mean_for_commands_inputs_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["rnu", str(MODEL)], capsys)
    assert code == 2 and "did you mean 'run'?" in err
    code, err = _error(["inspect", str(MODEL), "--filter", "onehott"], capsys)
    assert code == 2 and "did you mean 'OneHot'?" in err
    code, err = _error(["diff", str(MODEL), "--oracle", "reference", "--seed", "indicse:3"], capsys)
    assert code == 2 and "did you mean 'indices'?" in err, err


def test_unsupported_ops_named_alone_with_where_the_list_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = MODEL.read_text().replace('type="OneHot"', 'type="OneHott"')
    (tmp_path / "m.xml").write_text(xml)
    shutil.copy(MODEL.with_suffix(".bin"), tmp_path / "m.bin")
    code, err = _error(["run", str(tmp_path / "m.xml"), "--inputs", str(INPUTS)], capsys)
    assert code == 3 and len(err.splitlines()) == 1
    assert "OneHott-opset1" in err and "ovonehot.ops.supported_names()" in err
    assert f"the {len(supported_names())} supported" in err and "Softmax" not in err


def test_quiet_and_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["-v", "run", str(tmp_path / "none.xml")], capsys)
    assert code != 0 and err.startswith("error: ") and "caused by FileNotFoundError" in err
    code, err = _error(["run", str(tmp_path / "none.xml"), "-q"], capsys)
    assert code != 0 and err.startswith("error: ") and err.count("\n") == 1  # -q keeps the error line only
    code = main(["run", "-q", str(MODEL), "--inputs", str(INPUTS), "--verbose"])
    out, err = capsys.readouterr()
    assert code == 0 and "onehot" in out and err == ""  # --verbose's per-node lines silenced


def test_inspect_summary_counts_the_graph(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["inspect", str(LLM), "--summary", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # The expected counts from the XML itself (lxml, not ovonehot's reader).
    layers = etree.parse(str(LLM)).getroot().find("layers")
    assert layers is not None
    rows = [(la.get("type"), la.get("version"), la.find("data")) for la in layers]
    expected = Counter((t, v) for t, v, _ in rows)
    assert {(o["type"], o["version"]): o["count"] for o in doc["summary"]["op_types"]} == expected
    ranges = {(d.get("offset"), int(d.get("size"))) for t, _, d in rows if t == "Const" and d is not None}
    # Constants sharing a range of the .bin count once.
    assert (
        doc["summary"]["weight_bytes"] == sum(r[1] for r in ranges) <= LLM.with_suffix(".bin").stat().st_size
    )
    variables = {d.get("variable_id") for t, _, d in rows if t in ("ReadValue", "Assign") and d is not None}
    assert {v["id"] for v in doc["summary"]["variables"]} == variables and len(variables) == 4
    assert all(len(v["read_value"]) == 1 and len(v["assign"]) == 1 for v in doc["summary"]["variables"])
    main(["inspect", str(LLM), "--summary"])
    out = capsys.readouterr().out
    assert "ReadValue-opset6" in out and "variable" in out and "inputs:" in out
