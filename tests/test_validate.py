"""``ovonehot validate`` and ``ovonehot inspect``: codes, exit statuses, the JSON form.

* ir/invalid/ (``ir/generate_invalid.py``): one wrong declaration per file; each must
  give its manifest's error code, naming its layer and port, and exit 1; whether
  OpenVINO itself reads the file is checked against the manifest too;
* findings that are only warnings (exit 0), on files edited here from valid ones;
* a OneHot output dim corrupted in graphs with interval, unbounded and dynamic-rank
  inputs: exit 1 naming the OneHot layer;
* the command line: exit statuses 0/1/2/3, the exact JSON keys, ``--shape``, ``inspect``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree
from ovcompare import save

from ovonehot.check.validate import Severity, validate
from ovonehot.cli import main

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset1, opset16

ROOT = Path(__file__).resolve().parent.parent
INVALID = ROOT / "ir" / "invalid"
MANIFEST = json.loads((INVALID / "MANIFEST.json").read_text())


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_invalid_file_reports_its_code(entry):  # type: ignore[no-untyped-def]
    xml = INVALID / entry["file"]
    report = validate(xml)
    assert report.exit_code == 1
    found = [(p.code, p.layer, p.port) for p in report.errors]
    assert (entry["code"], entry["layer"], entry["port"]) in found, found


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e["file"])
def test_invalid_file_openvino_reads_as_the_manifest_says(entry):  # type: ignore[no-untyped-def]
    try:
        ov.Core().read_model(str(INVALID / entry["file"]))
        reads = True
    except RuntimeError:
        reads = False
    assert reads == entry["openvino_reads"]


@pytest.mark.parametrize("entry", MANIFEST[:3], ids=lambda e: e["file"])
def test_invalid_file_cli_exits_1_naming_the_layer(entry, capsys):  # type: ignore[no-untyped-def]
    assert main(["validate", str(INVALID / entry["file"])]) == 1
    out = capsys.readouterr().out
    assert f"error {entry['code']}: " in out and f"name={entry['layer']!r}" in out


# -- warnings only ----------------------------------------------------------------------------------
def c(value: object, dtype: object = np.int64) -> Any:
    return opset16.constant(np.array(value, dtype=dtype))


def _onehot(version: Any, indices_type: Any = ov.Type.i64, depth: int = 5) -> Any:
    indices = opset16.parameter([3], indices_type, name="indices")
    onehot = version.one_hot(indices, c(depth), c(1.0, np.float32), c(0.0, np.float32), -1, name="onehot")
    return ov.Model([onehot], [indices], "m")


def _edit(xml: Path, layer: str, **attrs: str) -> Path:
    tree = etree.parse(str(xml))
    (data,) = tree.getroot().findall(f"layers/layer[@name='{layer}']/data")
    for key, value in attrs.items():
        data.set(key, value)
    tree.write(str(xml))
    return xml


WARNINGS = {
    "onehot-negative-indices-mode-ignored": lambda tmp: _edit(
        save(_onehot(opset1), tmp), "onehot", negative_indices_mode="normalize"
    ),
    "onehot-depth-zero": lambda tmp: save(_onehot(opset16, depth=0), tmp),
    "onehot-indices-type": lambda tmp: save(_onehot(opset16, indices_type=ov.Type.u8), tmp),
}


@pytest.mark.parametrize("code", WARNINGS)
def test_warning_only_files_exit_0(tmp_path, code):  # type: ignore[no-untyped-def]
    xml = WARNINGS[code](tmp_path)
    ov.Core().read_model(str(xml))  # OpenVINO accepts each of them
    report = validate(xml)
    assert [(p.code, p.severity, p.layer) for p in report.problems] == [(code, Severity.WARNING, "onehot")]
    assert report.exit_code == 0


def test_const_size_excess_is_a_warning(tmp_path):  # type: ignore[no-untyped-def]
    xml = save(_onehot(opset16), tmp_path)
    tree = etree.parse(str(xml))
    (data,) = tree.getroot().findall("layers/layer[@type='Const']/data[@element_type='f32']")[:1]
    data.set("size", str(int(data.get("size")) + 2))
    xml.with_suffix(".bin").write_bytes(xml.with_suffix(".bin").read_bytes() + b"\0\0")
    tree.write(str(xml))
    ov.Core().read_model(str(xml))
    report = validate(xml)
    assert [(p.code, p.severity) for p in report.problems] == [("const-size-excess", Severity.WARNING)]


# -- a corrupted OneHot output dim, in graphs with dynamic inputs --------------------------------------
def _depth_from(shape: str) -> tuple[Any, list[Any]]:
    sizes = opset16.parameter(ov.PartialShape(shape), ov.Type.f32, name="sizes")
    return opset16.squeeze(opset16.shape_of(sizes), c([0])), [sizes]


def _dynamic_model(indices_shape: str, depth: Any, extra: list[Any]) -> Any:
    indices = opset16.parameter(ov.PartialShape(indices_shape), ov.Type.i32, name="indices")
    onehot = opset16.one_hot(indices, depth, c(1.0, np.float32), c(0.0, np.float32), 1, name="onehot")
    return ov.Model([onehot], [indices, *extra], "m")


DYNAMIC = {
    "static": lambda: _dynamic_model("[2,3]", c(4), []),
    "interval-indices": lambda: _dynamic_model("[1..4,?]", c(4), []),
    "interval-depth": lambda: _dynamic_model("[2,3]", *_depth_from("[2..7]")),
    "unbounded-depth": lambda: _dynamic_model("[2,3]", *_depth_from("[2..]")),
    "parameter-depth": lambda: _dynamic_model(
        "[?,3]", (d := opset16.parameter([], ov.Type.i64, name="d")), [d]
    ),
    "dynamic-rank": lambda: _dynamic_model("[...]", c(4), []),
}


@pytest.mark.parametrize("name", [n for n in DYNAMIC if n != "dynamic-rank"])
def test_corrupted_onehot_dim_is_reported(tmp_path, name):  # type: ignore[no-untyped-def]
    """A static dim declared one more than inferred contradicts the inference."""
    xml = save(DYNAMIC[name](), tmp_path, name)
    assert validate(xml).exit_code == 0
    tree = etree.parse(str(xml))
    (port,) = tree.getroot().findall("layers/layer[@name='onehot']/output/port")
    dim = next(d for d in port.findall("dim") if d.text != "-1")
    dim.text = str(int(dim.text) + 1)
    tree.write(str(xml))
    ov.Core().read_model(str(xml))  # OpenVINO does not notice
    report = validate(xml)
    assert report.exit_code == 1
    assert ("output-shape", "onehot") in [(p.code, p.layer) for p in report.errors]


def _declare(xml: Path, dims: list[int]) -> None:
    """Declare ``dims`` on the OneHot's output port and on the Result's input (no edge finding)."""
    tree = etree.parse(str(xml))
    root = tree.getroot()
    ports = root.findall("layers/layer[@name='onehot']/output/port") + root.findall(
        "layers/layer[@type='Result']/input/port"
    )
    for port in ports:
        for old in port.findall("dim"):
            port.remove(old)
        for d in dims:
            etree.SubElement(port, "dim").text = str(d)
    tree.write(str(xml))


# Issue 18: a declared dim more specific than the inferred one (optimum-intel's T5 decoder with
# past declares [?,?,64] where OpenVINO's inference, read_model's too, gives [?,?,?]) refines
# the inference and is compatible; a declared dim the inference excludes is still an error.
# (model, declared dims of the OneHot output, inferred, compatible)
REFINEMENTS = {
    "unknown-dims-declared-static": ("parameter-depth", [5, 4, 3], "[?,?,3]", True),
    "interval-dim-declared-inside": ("interval-depth", [2, 7, 3], "[2,2..7,3]", True),
    "unbounded-dim-declared-inside": ("unbounded-depth", [2, 1000, 3], "[2,2..,3]", True),
    "dynamic-rank-declared": ("dynamic-rank", [2, -1, 4], "[...]", True),
    "interval-dim-declared-outside": ("interval-depth", [2, 8, 3], "[2,2..7,3]", False),
    "unbounded-dim-declared-below": ("unbounded-depth", [2, 1, 3], "[2,2..,3]", False),
    "static-dim-declared-other": ("parameter-depth", [-1, -1, 4], "[?,?,3]", False),
    "static-dim-declared-unknown": ("interval-depth", [2, -1, -1], "[2,2..7,3]", False),
    "other-rank": ("parameter-depth", [-1, -1, 3, 1], "[?,?,3]", False),
}


@pytest.mark.parametrize("case", REFINEMENTS)
def test_declared_dims_refining_the_inference_are_compatible(tmp_path, case):  # type: ignore[no-untyped-def]
    model, dims, inferred, compatible = REFINEMENTS[case]
    xml = save(DYNAMIC[model](), tmp_path, model)
    _declare(xml, dims)
    ov.Core().read_model(str(xml))  # OpenVINO reads either
    report = validate(xml)
    (onehot,) = [layer for layer in report.layers if layer.name == "onehot"]
    assert str(onehot.outputs[0].shape) == inferred
    if compatible:
        assert list(report.problems) == []
    else:
        assert [(p.code, p.layer) for p in report.errors] == [("output-shape", "onehot")]


def test_optimum_t5_decoder_with_past_is_clean() -> None:
    """The export that showed the false positive: cross-attention Reshapes declare [?,?,128]."""
    xml = Path(__file__).resolve().parents[1] / "ir/corpus/regressions/optimum_t5_decoder_with_past/model.xml"
    report = validate(xml)
    assert list(report.problems) == []
    shapes = {str(o.declared_shape) for layer in report.layers for o in layer.outputs}
    assert "[?,?,128]" in shapes


def test_corrupted_result_side_dim_names_both_layers(tmp_path, capsys):  # type: ignore[no-untyped-def]
    """The Result's input port corrupted, the OneHot's own port intact: the edge names both."""
    xml = save(DYNAMIC["interval-depth"](), tmp_path, "result_side")
    tree = etree.parse(str(xml))
    (port,) = tree.getroot().findall("layers/layer[@type='Result']/input/port")
    port.findall("dim")[0].text = "7"
    tree.write(str(xml))
    assert main(["validate", str(xml)]) == 1
    out = capsys.readouterr().out
    assert "error edge-shape: " in out and "name='onehot' type=OneHot-opset16 port 4" in out


# -- the command line ---------------------------------------------------------------------------------
@pytest.fixture
def basic(tmp_path: Path) -> Path:
    return save(_dynamic_model("[2,?]", *_depth_from("[2..7]")), tmp_path, "basic")


def test_json_form(basic, capsys):  # type: ignore[no-untyped-def]
    assert main(["validate", str(basic), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"schema_version", "command", "layers", "problems"}
    names = [layer["name"] for layer in doc["layers"]]
    model = ov.Core().read_model(str(basic))
    assert sorted(names) == sorted(op.get_friendly_name() for op in model.get_ops())
    for layer in doc["layers"]:
        assert set(layer) == {"id", "name", "type", "version", "outputs"}
        for out in layer["outputs"]:
            assert set(out) == {"port", "shape", "element_type", "declared_shape", "declared_element_type"}
    (onehot,) = [layer for layer in doc["layers"] if layer["name"] == "onehot"]
    assert onehot["outputs"] == [
        {
            "port": 4,
            "shape": [2, {"min": 2, "max": 7}, None],  # [2,2..7,?]
            "element_type": "f32",
            "declared_shape": [2, None, None],
            "declared_element_type": "f32",
        }
    ]
    assert doc["problems"] == []


def test_json_problem_form(capsys):  # type: ignore[no-untyped-def]
    assert main(["validate", str(INVALID / "onehot_depth_vector.xml"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    problem = doc["problems"][0]
    assert set(problem) == {"code", "severity", "layer", "description", "port", "message"}
    assert (problem["code"], problem["severity"], problem["layer"]["name"], problem["port"]) == (
        "onehot-depth-not-scalar",
        "error",
        "onehot",
        1,
    )
    # the layer as every document names one, and as the message does
    layer = problem["layer"]
    assert (layer["type"], layer["version"]) == ("OneHot", "opset16")
    assert problem["message"].startswith(problem["description"])
    assert problem["description"] == f"layer id={layer['id']} name='onehot' type=OneHot-opset16"
    (onehot,) = [layer for layer in doc["layers"] if layer["name"] == "onehot"]
    assert onehot["outputs"][0]["shape"] is None  # not inferred: OpenVINO refuses the layer


def test_shape_option_reinfers(basic, capsys):  # type: ignore[no-untyped-def]
    assert (
        main(["validate", str(basic), "--json", "--shape", "indices=[5,?,3]", "--shape", "sizes=3..4"]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    shapes = {layer["name"]: layer["outputs"][0]["shape"] for layer in doc["layers"] if layer["outputs"]}
    assert shapes["onehot"] == [5, {"min": 3, "max": 4}, None, 3]  # [5,3..4,?,3]


@pytest.mark.parametrize(
    "args, status",
    [
        pytest.param(["--shape", "indices"], 2, id="shape-without-value"),
        pytest.param(["--shape", "indices=[2,x]"], 2, id="bad-shape"),
        pytest.param(["--shape", "nobody=[2]"], 2, id="unknown-name"),
    ],
)
def test_bad_command_lines(basic, capsys, args, status):  # type: ignore[no-untyped-def]
    assert main(["validate", str(basic), *args]) == status
    assert capsys.readouterr().err.startswith("error: ")


def test_unreadable_ir_exits_3(tmp_path, capsys):  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.xml"
    bad.write_text("<net version='11'><layers><layer id='0'/></layers></net>")
    assert main(["validate", str(bad)]) == 3
    assert main(["validate", str(tmp_path / "missing.xml")]) == 2
    assert "error:" in capsys.readouterr().err


def test_inspect_text_and_json(basic, capsys):  # type: ignore[no-untyped-def]
    assert main(["inspect", str(basic)]) == 0
    text = capsys.readouterr().out
    assert "OneHot-opset16" in text and "f32[2,2..7,?]" in text
    assert "inputs:" in text and "indices: i32[2,?]" in text and "sizes: f32[2..7]" in text
    assert main(["inspect", str(basic), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [x["name"] for x in doc["inputs"]] == ["indices", "sizes"]
    (out,) = doc["outputs"]
    assert (out["element_type"], out["shape"]) == ("f32", [2, {"min": 2, "max": 7}, None])
    (onehot,) = [layer for layer in doc["layers"] if layer["name"] == "onehot"]
    assert onehot["attributes"]["axis"] == "1" and len(onehot["inputs"]) == 4


def test_inspect_shows_declared_dims_where_inference_fails(capsys):  # type: ignore[no-untyped-def]
    assert main(["inspect", str(INVALID / "onehot_depth_vector.xml")]) == 0
    assert "f32[3,4,5] (declared)" in capsys.readouterr().out
