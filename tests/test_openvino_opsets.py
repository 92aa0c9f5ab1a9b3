"""Which op types OpenVINO knows: the generated table and ``validate``'s ``unknown-op``.

``src/ovonehot/ops/common/openvino_opsets.py`` is written by ``scripts/generate_opsets.py``
from the installed openvino; the first tests regenerate it and ask ``read_model``
itself about a sample of layers.  The ``validate`` tests need no openvino: a type in
no opset (``FooBar``) or a version that is no opset (``internal``, ``opset99``,
``Opset1``) is an error, as ``read_model`` refuses such a file; a type OpenVINO knows
and ovonehot does not implement is only a ``not-checked`` warning.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from ovonehot.check.validate import Severity, validate
from ovonehot.cli import main
from ovonehot.ops import lookup
from ovonehot.ops.common.openvino_opsets import OPENVINO_VERSION, OPSETS

ROOT = Path(__file__).resolve().parent.parent


def _model(op_type: str, version: str) -> str:
    """x: f32[4] -> op_type/version -> Result, written by hand (OpenVINO need not read it)."""
    port = '<port id="{}" precision="FP32"><dim>4</dim></port>'
    return (
        '<?xml version="1.0"?>\n<net name="m" version="11"><layers>'
        '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="4" element_type="f32"/>'
        f"<output>{port.format(0)}</output></layer>"
        f'<layer id="1" name="op" type="{op_type}" version="{version}">'
        f"<input>{port.format(0)}</input><output>{port.format(1)}</output></layer>"
        f'<layer id="2" name="r" type="Result" version="opset1"><input>{port.format(0)}</input></layer>'
        '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
        '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>\n'
    )


def _write(tmp_path: Path, op_type: str, version: str) -> Path:
    xml = tmp_path / "m.xml"
    xml.write_text(_model(op_type, version), encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(b"")
    return xml


def _known(op_type: str, version: str) -> bool:
    held = {t.lower() for t in OPSETS.get(version, ())}
    return op_type.lower() in held


# -- the table against the installed openvino ------------------------------------------------------


def test_table_is_what_the_installed_openvino_says() -> None:
    ov = pytest.importorskip("openvino", reason="the table is regenerated from the installed openvino")
    spec = importlib.util.spec_from_file_location("generate_opsets", ROOT / "scripts" / "generate_opsets.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    fresh = generator.opsets()
    assert sorted(fresh) == sorted(OPSETS), (
        f"opsets of openvino {ov.__version__} vs the table's {OPENVINO_VERSION}"
    )
    for key in OPSETS:
        assert fresh[key] == OPSETS[key], (key, sorted(fresh[key] ^ OPSETS[key]))
    assert (
        generator.render(fresh, OPENVINO_VERSION)
        == (ROOT / "src/ovonehot/ops/common/openvino_opsets.py").read_text()
    )


READ_MODEL_SAMPLE = [
    ("Relu", "opset1"),
    ("relu", "opset1"),  # OpenVINO matches the type without regard to case
    ("Relu", "opset16"),
    ("Relu", "opset17"),  # opset17 of 2026.4 holds only a handful of ops
    ("ErfInv", "opset17"),
    ("ErfInv", "opset16"),
    ("Mish", "opset1"),  # in opset4 and later only
    ("Mish", "opset4"),
    ("Identity", "opset15"),
    ("Identity", "opset16"),
    ("SoftSign", "opset9"),
    ("FooBar", "opset1"),
    ("FooBar", "opset16"),
    ("Relu", "Opset1"),  # the version is matched exactly
    ("Relu", "opset1 "),
    ("Relu", "opset0"),
    ("Relu", "opset99"),
    ("Relu", "opset99999999999999999999"),
    ("Relu", "internal"),
    ("Relu", "extension"),
    ("Relu", "opset\u0661"),  # an Arabic-Indic digit one
]


@pytest.mark.parametrize(("op_type", "version"), READ_MODEL_SAMPLE, ids=lambda v: repr(v))
def test_read_model_refuses_exactly_what_the_table_lacks(op_type: str, version: str) -> None:
    ov = pytest.importorskip("openvino", reason="asks OpenVINO's read_model")
    try:
        ov.Core().read_model(_model(op_type, version).encode(), ov.Tensor(ov.Type.u8, [0]))
        refused = ""
    except RuntimeError as exc:
        refused = str(exc)
    if _known(op_type, version):
        assert not refused, refused
    else:
        assert "doesn't contain the operation" in refused or "unsupported opset" in refused, refused


def test_the_table_holds_what_the_issue_names() -> None:
    assert [f"opset{n}" for n in range(1, len(OPSETS) + 1)] == list(OPSETS)
    assert "OneHot" in OPSETS["opset1"] and "OneHot" in OPSETS["opset16"]
    assert not any("FooBar" in types for types in OPSETS.values())


# -- validate ------------------------------------------------------------------------------------------

UNKNOWN = [
    ("FooBar", "opset1", "OpenVINO's opset1 has no op type 'FooBar'"),
    ("Mish", "opset1", "OpenVINO's opset1 has no op type 'Mish'"),
    ("Relu", "internal", "version 'internal' is no opset OpenVINO"),
    ("Relu", "opset99999999999999999999", "version 'opset99999999999999999999' is no opset"),
    ("Relu", "Opset1", "version 'Opset1' is no opset"),
    ("Relu", "opset1 ", "version 'opset1 ' is no opset"),
]


@pytest.mark.parametrize(("op_type", "version", "message"), UNKNOWN, ids=lambda v: repr(v))
def test_validate_unknown_op_is_an_error(tmp_path: Path, op_type: str, version: str, message: str) -> None:
    report = validate(_write(tmp_path, op_type, version))
    assert report.exit_code == 1
    assert [(p.code, p.layer, p.severity) for p in report.errors] == [("unknown-op", "op", Severity.ERROR)]
    text = report.errors[0].message
    assert f"layer id=1 name='op' type={op_type}-{version}" in text and message in text, text


def test_validate_unknown_op_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(_write(tmp_path, "FooBar", "opset1")), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert [(p["code"], p["layer"]["name"], p["severity"]) for p in problems] == [
        ("unknown-op", "op", "error"),
        ("not-checked", "op", "warning"),  # the Result after it
    ]
    assert problems[0]["layer"] == {"id": 1, "name": "op", "type": "FooBar", "version": "opset1"}


def test_validate_known_but_unimplemented_op_is_a_not_checked_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An op OpenVINO knows that ovonehot does not implement (none is left in opset1-17: one is
    hidden from the registry as a newer OpenVINO's op would be)."""
    import ovonehot.infer

    lacking = sorted(t for t in OPSETS["opset16"] if lookup(t, "opset16") is None)
    op_type = lacking[0] if lacking else "SegmentMax"
    if not lacking:
        real = ovonehot.infer.lookup
        monkeypatch.setattr(
            ovonehot.infer, "lookup", lambda t, v: None if t.lower() == op_type.lower() else real(t, v)
        )
    assert main(["validate", str(_write(tmp_path, op_type, "opset16"))]) == 0
    out = capsys.readouterr().out
    assert "unknown-op" not in out
    assert (
        f"warning not-checked: layer id=1 name='op' type={op_type}-opset16: ovonehot does not implement"
        in out
    )
    assert "its output shapes and types are not checked" in out


def test_ops_without_a_python_builder_are_in_the_table(tmp_path: Path) -> None:
    """Reverse-1 has no ``openvino.opset1.reverse``: the table once missed it and validate
    called a model read_model reads "unknown to OpenVINO" (a false positive)."""
    ov = pytest.importorskip("openvino", reason="the model is written by OpenVINO")
    import numpy as np
    from openvino import opset15
    from openvino.utils.node_factory import NodeFactory

    x = opset15.parameter([2, 3], ov.Type.f32, name="x")
    axes = opset15.constant(np.array([1], np.int64))
    node = NodeFactory("opset1").create("Reverse", [x.output(0), axes.output(0)], {"mode": "index"})
    xml = tmp_path / "reverse.xml"
    ov.save_model(ov.Model([node], [x]), str(xml))
    ov.Core().read_model(str(xml))
    problems = validate(xml).problems
    assert [p for p in problems if p.severity is Severity.ERROR] == []
