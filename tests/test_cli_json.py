"""Every command's ``--json`` (JSON on stdout, nothing else there) and ``--json-out FILE``
(validated against the JSON Schema the package ships, ovonehot/schemas/)
(the same JSON in a file, the human output on stdout); ``diff --report`` (HTML with
verdict tables and PNG plots, parsed with the stdlib's html.parser).

The expected contents are the facts of the command line contract: the JSON parses
strictly, holds what the human output shows (names, shapes, verdicts), and the file
is the same document; the expected verdicts of the replay come from its manifest.
"""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from ovonehot import schemas
from ovonehot.cli import main
from ovonehot.jsondata import SCHEMA_VERSION, plain

ROOT = Path(__file__).resolve().parent.parent
GPT2 = ROOT / "ir" / "corpus" / "llm" / "gpt2" / "model.xml"  # stateful: ReadValue/Assign
CORPUS = ROOT / "ir" / "onehot"
MODEL = CORPUS / "v1_axis-1_i64_f32.xml"  # one input: indices i64 [3,4]; one output f32
ONNX = ROOT / "ir" / "exports" / "onnx" / "torch_label_smoothing_opset13.onnx"
# A CPU plugin deviation (int32 saturation of i64 on/off values): a differing 2-D output.
REPLAY = ROOT / "ir" / "replays" / "cpu-int32-saturation-i64-values"
PNG = b"\x89PNG\r\n\x1a\n"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def strict_loads(text: str) -> Any:
    """json.loads refusing NaN/Infinity tokens (python -m json.tool accepts them; others do not)."""

    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


LLM = ROOT / "ir" / "corpus" / "llm" / "gpt2" / "model.xml"  # dynamic dims, ReadValue/Assign, weights

_REGISTRY: Registry = Registry().with_resources(  # type: ignore[call-arg]
    (uri, Resource.from_contents(schema)) for uri, schema in schemas.load_all().items()
)


def conforms(doc: dict[str, Any]) -> None:
    """``doc`` validates against its command's shipped schema (every error listed if not)."""
    assert doc["schema_version"] == SCHEMA_VERSION
    schema = schemas.load(doc["command"])
    validator = Draft202012Validator(schema, registry=_REGISTRY)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, "\n".join(errors[:10])


def _run_single(doc: dict[str, Any]) -> None:
    (out,) = doc["outputs"]
    assert out["name"] == "onehot" and out["shape"] == [3, 4, 5] and out["element_type"] == "f32"
    assert np.asarray(out["values"]).shape == tuple(out["shape"])


def _run_steps(doc: dict[str, Any]) -> None:
    assert [s["step"] for s in doc["steps"]] == [1, 2]
    # a stateful model (its KV cache grows): each step's outputs, the same names and shapes
    assert [[o["name"] for o in s["outputs"]] for s in doc["steps"]] == [["logits"], ["logits"]]


def _diff(doc: dict[str, Any]) -> None:
    assert doc["exit_code"] == 0 and [v["verdict"] for v in doc["verdicts"]] == ["PASS"]


def _validate(doc: dict[str, Any]) -> None:
    assert doc["problems"] == [] and [la["type"] for la in doc["layers"]][-1] == "Result"


def _inspect(doc: dict[str, Any]) -> None:
    assert {x["name"] for x in doc["inputs"]} and any(la["type"] == "OneHot" for la in doc["layers"])


def _convert(doc: dict[str, Any]) -> None:
    assert Path(doc["xml"]).suffix == ".xml" and Path(doc["bin"]).is_file()
    # the layers by op type, as inspect's summary lists them (the same file: the same list)
    code, out = _main_json(["inspect", doc["xml"], "--summary"])
    assert code == 0 and doc["layers"] == out["summary"]["op_types"]
    assert {"type": "OneHot", "version": "opset16", "count": 1} in doc["layers"]


def _main_json(argv: list[str]) -> tuple[int, Any]:
    """``main(argv + ["--json"])`` and its document, stdout captured here."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--json"])
    return code, strict_loads(out.getvalue())


def _fuzz(doc: dict[str, Any]) -> None:
    assert len(doc["cases"]) == 1 and doc["oracles"] == ["reference"]


def _reduce(doc: dict[str, Any]) -> None:
    assert doc["reduced"] is True and Path(doc["folder"], "manifest.json").is_file()
    assert doc["verdict"] == "plugin deviation" and doc["oracle"] == "cpu"


def _repro(doc: dict[str, Any]) -> None:
    assert Path(doc["script"]).is_file() and doc["run"] == ["python", doc["script"]]


def _replay_copy(tmp: Path) -> Path:
    folder = tmp / "replay"
    if not folder.exists():
        shutil.copytree(REPLAY, folder)
    return folder


# (id, argv from a temp dir, exit code, what the document holds)
CASES: list[tuple[str, Callable[[Path], list[str]], int, Callable[[dict[str, Any]], None]]] = [
    ("run", lambda t: ["run", str(MODEL), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz")], 0, _run_single),
    (
        "run-steps",
        lambda t: [
            "run",
            str(GPT2),
            "--inputs",
            str(GPT2.parent / "generate.step1.inputs.npz"),
            "--steps",
            "2",
        ],
        0,
        _run_steps,
    ),
    ("convert", lambda t: ["convert", str(ONNX), "-o", str(t / "converted.xml")], 0, _convert),
    ("diff", lambda t: ["diff", str(MODEL), "--oracle", "reference"], 0, _diff),
    ("fuzz", lambda t: ["fuzz", "--cases", "1", "--oracle", "reference", "--jobs", "0"], 0, _fuzz),
    ("validate", lambda t: ["validate", str(MODEL)], 0, _validate),
    ("inspect", lambda t: ["inspect", str(MODEL)], 0, _inspect),
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
            str(t / "reduced"),
        ],
        0,
        _reduce,
    ),
    ("repro", lambda t: ["repro", str(_replay_copy(t)), "--output", str(t / "repro.py")], 0, _repro),
]


def _run_out_dir(doc: dict[str, Any]) -> None:
    (out,) = doc["outputs"]
    assert out["shape"] == [3, 4, 5] and Path(doc["output_files"]["onehot"]).is_file()


def _diff_layers(doc: dict[str, Any]) -> None:
    rows = doc["layers"]
    assert any(r["layer"]["type"] == "OneHot" for r in rows)
    assert all(f"id={r['layer']['id']} " in r["description"] for r in rows)
    assert {r["verdict"] for r in rows} == {"PASS"}


def _diff_corpus(doc: dict[str, Any]) -> None:
    assert len(doc["models"]) >= 2 and doc["exit_code"] == 0


def _inspect_llm(doc: dict[str, Any]) -> None:
    summary = doc["summary"]
    assert {la["type"] for la in doc["layers"]} == {"ReadValue"} and len(doc["layers"]) == 4
    assert len(summary["variables"]) == 4 and summary["weight_bytes"] > 0
    assert sum(o["count"] for o in summary["op_types"]) == summary["layer_count"]
    # input_ids is i64 [?,?]: both dims dynamic, null in JSON
    assert {x["name"]: x["shape"] for x in doc["inputs"]}["input_ids"] == [None, None]


def _validate_problems(doc: dict[str, Any]) -> None:
    assert doc["problems"] and all(isinstance(p["message"], str) for p in doc["problems"])
    # the layer as an object, the same as in the document's layer list; its text as the message says
    layers = {la["id"]: {k: la[k] for k in ("id", "name", "type", "version")} for la in doc["layers"]}
    for problem in doc["problems"]:
        assert layers[problem["layer"]["id"]] == problem["layer"]
        assert problem["message"].startswith(problem["description"])


def _diff_values(doc: dict[str, Any]) -> None:
    """The replay's cpu output saturates i64 on/off values to int32 (its manifest): the compared
    values are JSON numbers, the positions lists of ints; the OneHot's layer row is that
    known deviation."""
    (cpu,) = [v for v in doc["verdicts"] if v["oracle"] == "cpu"]
    comparison = cpu["comparison"]
    assert comparison["positions"][0] == [0, 0] and comparison["count"] == comparison["total"] == 9
    assert comparison["ours"][:2] == [2**40, -(2**40)]
    assert comparison["theirs"][:2] == [2**31 - 1, -(2**31)]
    assert all(type(x) is int for x in comparison["ours"] + comparison["theirs"])
    (row,) = [r for r in doc["layers"] if r["oracle"] == "cpu" and r["layer"]["type"] == "OneHot"]
    # (the layer row names the plugin's int32 holding, as the output's verdict does)
    assert row["verdict"] == "plugin deviation" and "int32-saturation" in row["note"]
    assert row["comparison"]["ours"][0] == 2**40


def _convert_explorer(doc: dict[str, Any]) -> None:
    assert Path(doc["output"]).is_file() and doc["nodes"] > 0


# More documents checked against the schema: other modes of the same commands.
MORE: list[tuple[str, Callable[[Path], list[str]], int, Callable[[dict[str, Any]], None]]] = [
    (
        "run-output-dir",
        lambda t: [
            "run",
            str(MODEL),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
            "--out-dir",
            str(t / "outs"),
        ],
        0,
        _run_out_dir,
    ),
    (
        "diff-all-layers",
        lambda t: ["diff", str(MODEL), "--oracle", "reference", "--all-layers"],
        0,
        _diff_layers,
    ),
    (
        "diff-corpus",
        lambda t: ["diff", str(t / "corpus"), "--oracle", "reference"],
        0,
        _diff_corpus,
    ),
    ("inspect-llm", lambda t: ["inspect", str(LLM), "--filter", "ReadValue"], 0, _inspect_llm),
    (
        "diff-values",
        lambda t: ["diff", str(_replay_copy(t)), "--all-layers"],
        0,
        _diff_values,
    ),
    (
        "convert-model-explorer",
        lambda t: ["convert", str(MODEL), "--to", "model-explorer", "-o", str(t / "graph.json")],
        0,
        _convert_explorer,
    ),
    (
        "validate-problems",
        lambda t: ["validate", str(ROOT / "ir" / "invalid" / "edge_dim.xml")],
        1,
        _validate_problems,
    ),
]


@pytest.mark.parametrize(("argv", "code", "check"), [c[1:] for c in MORE], ids=[c[0] for c in MORE])
def test_more_json_documents_fit_the_schema(
    argv: Callable[[Path], list[str]],
    code: int,
    check: Callable[[dict[str, Any]], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "corpus").mkdir()
    for name in ("v1_axis-1_i64_f32", "v16_all_params_f16"):
        for ext in (".xml", ".bin"):
            shutil.copy(CORPUS / (name + ext), tmp_path / "corpus" / (name + ext))
    got, out, err = run([*argv(tmp_path), "--json"], capsys)
    assert got == code, err
    doc = strict_loads(out)
    conforms(doc)
    check(doc)


def test_schema_files_ship_in_the_package() -> None:
    """Every command with --json has a schema, each names its command and the version, and
    pyproject's package-data takes them into the wheel."""
    import tomllib

    from ovonehot.cli import COMMANDS

    assert sorted(schemas.COMMANDS) == sorted(m.__name__.rsplit(".", 1)[1] for m in COMMANDS)
    for name in schemas.COMMANDS:
        schema = schemas.load(name)
        Draft202012Validator.check_schema(schema)
        assert schema["properties"]["command"] == {"const": name}
        assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["ovonehot.schemas"] == ["*.schema.json"]


def test_shape_schema_takes_bounded_and_dynamic_dims_only_as_documented() -> None:
    from ovonehot.jsondata import shape_json
    from ovonehot.types import PartialShape

    shape = shape_json(PartialShape.parse("[2,?,1..8,3..]"))
    assert shape == [2, None, {"min": 1, "max": 8}, {"min": 3, "max": None}]
    assert shape_json(PartialShape.parse("...")) is None
    shape_schema = {"$ref": schemas.load("common")["$id"] + "#/$defs/shape"}
    validator = Draft202012Validator(shape_schema, registry=_REGISTRY)
    assert validator.is_valid(shape) and validator.is_valid(None)
    assert (
        not validator.is_valid("[2,?]") and not validator.is_valid([2, "?"]) and not validator.is_valid([-1])
    )


def _stable(doc: Any) -> Any:
    """The document without what changes from run to run (timings)."""
    if isinstance(doc, dict):
        return {k: _stable(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [_stable(v) for v in doc]
    return doc


@pytest.mark.parametrize(("argv", "code", "check"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_json_on_stdout_and_the_same_in_json_out(
    argv: Callable[[Path], list[str]],
    code: int,
    check: Callable[[dict[str, Any]], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    got, out, err = run([*argv(tmp_path), "--json"], capsys)
    assert got == code, err
    doc = strict_loads(out)  # stdout is the JSON and nothing else
    conforms(doc)
    check(doc)
    target = tmp_path / "report.json"
    got, human, err = run([*argv(tmp_path), "--json-out", str(target)], capsys)
    assert got == code, err
    assert _stable(strict_loads(target.read_text())) == _stable(doc)
    assert human.strip() and not human.lstrip().startswith("{")  # the usual output stays on stdout


@pytest.mark.parametrize("argv", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_empty_json_out_is_a_usage_error(
    argv: Callable[[Path], list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*argv(tmp_path), "--json-out", ""], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "--json-out" in err


def test_errors_stay_one_line_on_stderr_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["run", str(tmp_path / "missing.xml"), "--json"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_json_out_missing_directory_is_refused_before_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "m.xml"
    broken.write_text("<net")  # exit 3 if read: the bad --json-out (exit 2) is found first
    code, out, err = run(
        ["validate", str(broken), "--json-out", str(tmp_path / "nowhere" / "r.json")], capsys
    )
    assert code == 2 and out == "" and "does not exist" in err


def test_old_diff_json_path_spelling_is_a_usage_error_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["diff", str(MODEL), "--json", str(tmp_path / "r.json")], capsys)
    assert code == 2 and out == "" and "--json-out FILE" in err and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_reduce_unknown_per_output_tolerance_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["reduce", str(MODEL), "--atol", "nope:0.1", "--out-dir", str(tmp_path / "r")], capsys
    )
    assert code == 2 and out == "" and "no output 'nope'" in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


# -- diff --report ------------------------------------------------------------------------------------


class _Page(HTMLParser):
    """The tables (rows of cell texts) and the images (src) of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(dict(attrs)["src"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_diff_report_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    code, out, err = run(["diff", str(_replay_copy(tmp_path)), "--all-layers", "--report", str(page)], capsys)
    assert code == 0, err
    assert f"wrote the HTML report {page}" in out
    parsed = _Page()
    parsed.feed(page.read_text())
    header, verdicts, layers = parsed.tables
    assert ["model", str(tmp_path / "replay" / "model.xml")] in header
    assert any(row[0] == "versions" and "openvino 2026.4" in row[1] for row in header)
    assert any(row[0] == "inputs (given)" and "indices" in row[1] for row in header)
    # The verdicts the replay was saved with (its manifest and FINDINGS: the cpu saturates).
    rows = {(r[0], r[1]): r for r in verdicts[1:]}
    assert rows[("out", "reference")][2] == "PASS"
    assert rows[("out", "cpu")][2] == "plugin deviation" and "int32-saturation" in rows[("out", "cpu")][4]
    assert verdicts[0] == ["output", "oracle", "verdict", "tolerance", "explanation"]
    layer_rows = {(r[0], r[7]) for r in layers[1:]}
    assert ("reference", "PASS") in layer_rows and (
        "cpu",
        "plugin deviation",
    ) in layer_rows  # (int32 holding)
    # Two plots: the differing output (heatmap + histogram) and the per-layer error; both real PNGs.
    assert len(parsed.images) == 2
    for src in parsed.images:
        head, data = src.split(",", 1)
        assert head == "data:image/png;base64"
        png = base64.b64decode(data, validate=True)
        assert png.startswith(PNG) and len(png) > 1000
    assert "<script" not in page.read_text() and "http" not in page.read_text().split("<body>")[1]


def test_diff_report_refused_before_work_when_the_path_is_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["diff", str(MODEL), "--report", str(tmp_path / "nowhere" / "r.html")], capsys)
    assert code == 2 and out == "" and "does not exist" in err


_LAZY = """
import contextlib, io, json, sys
from ovonehot.cli import main
model, out_dir = sys.argv[1:3]
codes = []
with contextlib.redirect_stdout(io.StringIO()):
    codes.append(main(["inspect", model, "--json"]))  # every command module is loaded by now
imported = "matplotlib" in sys.modules
sys.modules["matplotlib"] = None  # as if not installed
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    codes.append(main(["diff", model, "--report", out_dir + "/r.html"]))
print(json.dumps({"codes": codes, "imported": imported, "err": err.getvalue()}))
"""


def test_matplotlib_only_for_report(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _LAZY, str(MODEL), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    got = json.loads(done.stdout)
    assert got["codes"] == [0, 2] and got["imported"] is False
    assert got["err"].startswith("error: --report needs matplotlib") and got["err"].count("\n") == 1
    assert not (tmp_path / "r.html").exists()


def test_json_values_are_strict_json() -> None:
    import ml_dtypes

    from ovonehot.cli._json import plain

    values = np.array([np.nan, np.inf, -np.inf, -0.0, 1.5], ml_dtypes.bfloat16)
    doc = plain({"v": values, "i": np.int64(7), "b": np.array([True])})
    assert doc == {"v": ["nan", "inf", "-inf", -0.0, 1.5], "i": 7, "b": [True]}
    strict_loads(json.dumps(doc, allow_nan=False))


def test_compared_values_are_json_numbers_and_non_finite_ones_text() -> None:
    """A comparison's values as the JSON holds them: floats as numbers (-0.0 kept), NaN and
    infinities as "nan"/"inf"/"-inf", bf16 as floats; the comparison schema takes them."""
    import ml_dtypes

    from ovonehot.differential.compare import Tolerance, compare

    ours = np.array([1.5, np.nan, -0.0, np.inf, 3.0], ml_dtypes.bfloat16)
    theirs = np.array([1.0, 2.0, 0.0, 1.0, 3.0], ml_dtypes.bfloat16)
    doc = plain(compare(ours, theirs, Tolerance.exact()).as_json())
    assert doc["positions"] == [[0], [1], [2], [3]]
    assert doc["ours"] == [1.5, "nan", -0.0, "inf"] and doc["theirs"] == [1.0, 2.0, 0.0, 1.0]
    assert str(doc["ours"][2]) == "-0.0"
    strict_loads(json.dumps(doc, allow_nan=False))
    validator = Draft202012Validator(
        {"$ref": schemas.load("common")["$id"] + "#/$defs/comparison"}, registry=_REGISTRY
    )
    assert validator.is_valid(doc)
    assert not validator.is_valid({**doc, "positions": [["0"]]})
