"""Per-layer agreement with OpenVINO's own inference, by layer name (``ovcompare``).

* every IR under ir/ (whoever added it; ir/invalid/ excepted), read by OpenVINO and
  by ``ovonehot validate``: the same type and partial shape on every layer, and no
  error-level problem (OpenVINO wrote these files);
* generated graphs with interval, unbounded and dynamic-rank inputs;
* ``--shape`` against ``Model.reshape``, including OpenVINO's sticky OneHot axis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree
from ovcompare import assert_layers_agree, save

from ovonehot.check.validate import Severity, validate
from ovonehot.ops import lookup

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset1, opset16

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(p for p in (ROOT / "ir").rglob("*.xml") if "invalid" not in p.relative_to(ROOT / "ir").parts)


# IRs ovonehot cannot read yet (strict: the entry must go when they pass).
REFUSED: dict[str, str] = {}


def _corpus_param(xml: Path) -> Any:
    name = str(xml.relative_to(ROOT / "ir"))
    marks = [pytest.mark.xfail(strict=True, reason=REFUSED[name])] if name in REFUSED else []
    return pytest.param(xml, id=name, marks=marks)


@pytest.mark.parametrize("xml", [_corpus_param(p) for p in CORPUS])
def test_corpus_layers_agree(xml: Path) -> None:
    report = assert_layers_agree(xml)
    assert not report.errors, [str(p) for p in report.errors]


def c(value: object, dtype: object = np.int64) -> Any:
    return opset16.constant(np.array(value, dtype=dtype))


def onehot_model(indices_shape: str, depth: Any = None, axis: int = -1, version: Any = opset16) -> Any:
    """indices (i32) -> OneHot(depth, 1.0, 0.0, axis); every Parameter the depth needs is an input."""
    indices = opset16.parameter(ov.PartialShape(indices_shape), ov.Type.i32, name="indices")
    depth = c(4) if depth is None else depth
    onehot = version.one_hot(indices, depth, c(1.0, np.float32), c(0.0, np.float32), axis, name="onehot")
    params = [indices]
    stack = [depth.output(0).get_node()] if hasattr(depth, "output") else []
    while stack:
        node = stack.pop()
        if node.get_type_name() == "Parameter" and node not in params:
            params.append(node)
        stack.extend(i.get_source_output().get_node() for i in node.inputs())
    return ov.Model([onehot], params, "m")


def _sized_depth() -> Any:
    sizes = opset16.parameter(ov.PartialShape("[1..9,?]"), ov.Type.f32, name="sizes")
    return opset16.gather(opset16.shape_of(sizes), c(0), c(0))


GENERATED = {
    "static": lambda: onehot_model("[2,3]"),
    "interval-dims": lambda: onehot_model("[1..5,?,3..]", axis=1),
    "dynamic-rank": lambda: onehot_model("[...]"),
    "dynamic-rank-axis-unchecked": lambda: onehot_model("[...]", axis=9),
    "scalar-indices": lambda: onehot_model("[]", axis=0),
    "depth-zero": lambda: onehot_model("[2]", depth=c(0)),
    "depth-from-parameter": lambda: onehot_model("[2,?]", opset16.parameter([], ov.Type.i64, name="depth")),
    "depth-from-shape": lambda: onehot_model("[2,?]", _sized_depth()),
    "opset1-dynamic-rank": lambda: onehot_model("[...]", version=opset1),
    # OpenVINO reads the depth only for indices of static rank: a negative one passes here
    "dynamic-rank-negative-depth": lambda: onehot_model("[...]", depth=c(-3)),
}


@pytest.mark.parametrize("name", GENERATED)
def test_generated_layers_agree(tmp_path, name):  # type: ignore[no-untyped-def]
    report = assert_layers_agree(save(GENERATED[name](), tmp_path, name))
    assert not report.errors, [str(p) for p in report.errors]  # OpenVINO wrote and reads each of them


# -- reshape ------------------------------------------------------------------------------------------
RESHAPES = [
    pytest.param("static", {"indices": "[5,7]"}, id="static"),
    pytest.param("interval-dims", {"indices": "[2..3,4,?]"}, id="intervals"),
    pytest.param("dynamic-rank", {"indices": "[2,?]"}, id="to-static-rank"),
    pytest.param("static", {"indices": "[...]"}, id="to-dynamic-rank"),
    pytest.param("depth-from-shape", {"sizes": "[3..4,1]"}, id="depth-interval-from-reshaped-input"),
]


@pytest.mark.parametrize("name, shapes", RESHAPES)
def test_reshape_layers_agree(tmp_path, name, shapes):  # type: ignore[no-untyped-def]
    xml = save(GENERATED[name](), tmp_path, name)
    report = assert_layers_agree(xml, shapes)
    assert not report.errors, "after a reshape only types are compared with the file"


def test_normalized_axis_sticks_across_reshape(tmp_path):  # type: ignore[no-untyped-def]
    # A hand-written axis -1 is normalized against the file's rank 2 (-> 2) when OpenVINO
    # reads the model, and a later reshape to rank 3 keeps 2: [7,8,4,9], not [7,8,9,4].
    xml = save(onehot_model("[2,3]"), tmp_path, "sticky")
    tree = etree.parse(str(xml))
    (data,) = tree.getroot().findall("layers/layer[@name='onehot']/data")
    assert data.get("axis") == "2"  # OpenVINO writes the normalized axis
    data.set("axis", "-1")
    tree.write(str(xml))
    report = assert_layers_agree(xml, {"indices": "[7,8,9]"})
    (onehot,) = [layer for layer in report.layers if layer.name == "onehot"]
    assert str(onehot.outputs[0].shape) == "[7,8,4,9]"


# Unary ops OpenVINO has, as (type, opset, builder); the test takes the first ovonehot lacks.
UNSUPPORTED_CANDIDATES = [
    ("Mish", "opset4", opset16.mish),
    ("HSwish", "opset4", opset16.hswish),
    ("SoftSign", "opset9", opset16.softsign),
    ("HSigmoid", "opset5", opset16.hsigmoid),
    ("Asinh", "opset4", opset16.asinh),
    ("Acosh", "opset4", opset16.acosh),
]


def test_unsupported_op_is_a_warning_and_stops_checking_downstream(tmp_path):  # type: ignore[no-untyped-def]
    lacking = [build for name, opset, build in UNSUPPORTED_CANDIDATES if lookup(name, opset) is None]
    if not lacking:
        pytest.skip("ovonehot implements every candidate op: add one it lacks to UNSUPPORTED_CANDIDATES")
    x = opset16.parameter([4], ov.Type.f32, name="x")
    mish = lacking[0](x)
    mish.set_friendly_name("mish")  # whatever the op
    out = opset16.shape_of(mish, name="shape")
    report = validate(save(ov.Model([out], [x], "m"), tmp_path, "unsupported"))
    assert report.exit_code == 0
    assert [(p.code, p.layer, p.severity) for p in report.problems] == [
        ("not-checked", "mish", Severity.WARNING),
        ("not-checked", "mish", Severity.WARNING),
    ]
    shapes = {layer.name: layer.outputs[0].shape for layer in report.layers if layer.outputs}
    assert shapes["mish"] is None and shapes["shape"] is None and str(shapes["x"]) == "[4]"
