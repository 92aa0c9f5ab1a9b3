"""OpenVINO's OneHot type_prop suite (``src/core/tests/type_prop/one_hot.cpp``), for OneHot-1 and -16.

The 17 C++ scenarios, each rebuilt as an ovonehot graph and run through ``infer``
(and ``validate``'s analysis for the refusals, which must carry the OneHot code).
The expected types, shapes and message fragments are those of the C++ suite; each
valid scenario is also built with OpenVINO's Python API and its inferred output
compared, and each refusal is checked to be refused by OpenVINO too.  OpenVINO's
dimension *symbols* are not modelled by ovonehot: the three symbol scenarios check
the shapes their C++ versions check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from graph_builder import GraphBuilder

from ovonehot.check.validate import Severity, analyze
from ovonehot.errors import ValidationError
from ovonehot.infer import infer

ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
from openvino import opset1, opset3, opset16
from openvino.utils.node_factory import NodeFactory

VERSIONS = {"v1": ("opset1", opset1), "v16": ("opset16", opset16)}


@dataclass(frozen=True)
class In:
    """A OneHot input: a Parameter (``shape`` in OpenVINO notation) or a Const (``value``)."""

    element_type: str
    shape: str | None = None
    value: object = None
    squeeze_shape_of: str | None = None  # depth = Squeeze(ShapeOf-3(Parameter i8 of this shape))


def P(element_type: str, shape: str) -> In:
    return In(element_type, shape=shape)


def C(element_type: str, value: object) -> In:
    return In(element_type, value=value)


def depth_of_shape(shape: str) -> In:
    return In("i64", squeeze_shape_of=shape)


@dataclass(frozen=True)
class Scenario:
    name: str
    indices: In
    depth: In
    on_value: In
    off_value: In
    axis: int
    element_type: str | None = None  # expected output type
    shape: str | None = None  # expected output shape
    error: str | None = None  # expected message fragment
    code: str | None = None  # expected validate code


F1, F0 = C("f32", 1.0), C("f32", 0.0)

# The C++ suite, in its order.  Scenarios with a second (dynamic) half appear twice.
SCENARIOS = [
    Scenario("output_shape", P("i64", "[3]"), C("i64", 2), C("u32", 5), C("u32", 10), -1, "u32", "[3,2]"),
    Scenario(
        "output_shape_dynamic",
        P("i64", "[1..3]"),
        C("i64", 2),
        C("u32", 5),
        C("u32", 10),
        -1,
        "u32",
        "[1..3,2]",
    ),
    Scenario("output_shape_2", P("i64", "[1,3,2,3]"), C("i64", 4), F1, F0, 3, "f32", "[1,3,2,4,3]"),
    Scenario(
        "output_shape_2_dynamic", P("i64", "[1,3..5,2,3]"), C("i64", 4), F1, F0, 3, "f32", "[1,3..5,2,4,3]"
    ),
    Scenario("indices_symbols", P("i64", "[?,3..5,2,3]"), C("i64", 4), F1, F0, 1, "f32", "[?,4,3..5,2,3]"),
    Scenario(
        "depth_shape_of_value",
        P("i64", "[?,3..5,2,3]"),
        depth_of_shape("[4]"),
        F1,
        F0,
        1,
        "f32",
        "[?,4,3..5,2,3]",
    ),
    Scenario(
        "depth_value_symbol",
        P("i64", "[?,3..5,2,3]"),
        depth_of_shape("[4..6]"),
        F1,
        F0,
        1,
        "f32",
        "[?,4..6,3..5,2,3]",
    ),
    Scenario("output_symbols", P("i64", "[?,3..5,2,3]"), C("i64", 4), F1, F0, 1, "f32", "[?,4,3..5,2,3]"),
    Scenario("default_constructor", P("i64", "[1,3,2,3]"), C("i64", 4), F1, F0, 3, "f32", "[1,3,2,4,3]"),
    Scenario(
        "indices_elem_not_integral",
        P("f16", "[2,2]"),
        P("i64", "[]"),
        P("u32", "[]"),
        P("u32", "[]"),
        -1,
        error="Indices must be integral element type.",
        code="onehot-indices-not-integral",
    ),
    Scenario(
        "depth_elem_not_integral",
        P("i64", "[2,2]"),
        P("f16", "[]"),
        P("u32", "[]"),
        P("u32", "[]"),
        -1,
        error="Depth must be integral element type.",
        code="onehot-depth-not-integral",
    ),
    Scenario(
        "negative_depth",
        P("i32", "[2,2]"),
        C("i64", -4),
        F1,
        F0,
        -1,
        error="can't be negative.",
        code="onehot-negative-depth",
    ),
    Scenario(
        "on_off_values_not_compatible",
        P("i64", "[2,2]"),
        P("i64", "[]"),
        P("bf16", "[]"),
        P("f16", "[]"),
        -1,
        error="on_value element type must be compatible with off_value element type.",
        code="onehot-on-off-type-mismatch",
    ),
    Scenario(
        "depth_not_scalar",
        P("i64", "[2,2]"),
        P("i64", "[1]"),
        P("bf16", "[]"),
        P("bf16", "[]"),
        -1,
        error="depth input must be scalar.",
        code="onehot-depth-not-scalar",
    ),
    Scenario(
        "on_value_not_scalar",
        P("i64", "[2,2]"),
        P("i64", "[]"),
        P("bf16", "[2]"),
        P("bf16", "[]"),
        -1,
        error="on_value input must be scalar.",
        code="onehot-on-value-not-scalar",
    ),
    Scenario(
        "off_value_not_scalar",
        P("i64", "[2,2]"),
        P("i64", "[]"),
        P("bf16", "[]"),
        P("bf16", "[3]"),
        -1,
        error="off_value input must be scalar.",
        code="onehot-off-value-not-scalar",
    ),
    Scenario(
        "out_types_1", P("i32", "[3,2]"), C("i32", 2), C("f32", -3.3), C("f32", -10.12), -1, "f32", "[3,2,2]"
    ),
    Scenario("out_types_2", P("i64", "[3,2]"), C("i32", 2), C("i32", -1), C("i32", 7), -1, "i32", "[3,2,2]"),
    Scenario(
        "out_types_3",
        P("i32", "[3,2]"),
        C("i32", 2),
        C("boolean", True),
        C("boolean", False),
        -1,
        "boolean",
        "[3,2,2]",
    ),
]
# The C++ suite has 17 TEST blocks; two of them check a static and a dynamic half.
assert len({s.name.removesuffix("_dynamic") for s in SCENARIOS}) == 17


def _ours(builder: GraphBuilder, name: str, spec: In) -> int:
    if spec.squeeze_shape_of is not None:
        data = builder.parameter(f"{name}_data", "i8", spec.squeeze_shape_of)
        shape = builder.op("ShapeOf", "opset3", [data], {"output_type": "i64"})
        return builder.op("Squeeze", "opset1", [shape])
    if spec.shape is not None:
        return builder.parameter(name, spec.element_type, spec.shape)
    return builder.const(name, spec.value, spec.element_type)


def build_ours(s: Scenario, version: str) -> tuple:
    b = GraphBuilder()
    args = [
        _ours(b, n, i)
        for n, i in zip(
            ("indices", "depth", "on", "off"), (s.indices, s.depth, s.on_value, s.off_value), strict=True
        )
    ]
    attrs = {"axis": str(s.axis)}
    onehot = b.op("OneHot", version, args, attrs, name="onehot")
    return b.graph(), onehot


def _theirs(spec: In) -> object:
    et = getattr(ov.Type, spec.element_type)
    if spec.squeeze_shape_of is not None:
        data = opset1.parameter(ov.PartialShape(spec.squeeze_shape_of), ov.Type.i8)
        return NodeFactory("opset1").create("Squeeze", [opset3.shape_of(data).output(0)])  # no axes input
    if spec.shape is not None:
        return opset1.parameter(ov.PartialShape(spec.shape), et)
    return opset1.constant(np.array(spec.value), et)


def build_theirs(s: Scenario, factory: Callable[..., object]) -> object:
    return factory(*(_theirs(i) for i in (s.indices, s.depth, s.on_value, s.off_value)), s.axis)


VALID = [s for s in SCENARIOS if s.error is None]
INVALID = [s for s in SCENARIOS if s.error is not None]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("s", VALID, ids=lambda s: s.name)
def test_valid_scenario(s: Scenario, version: str) -> None:
    opset, module = VERSIONS[version]
    graph, onehot = build_ours(s, opset)
    out = infer(graph).outputs[onehot][0]
    assert (out.element_type.value, str(out.shape)) == (s.element_type, s.shape)
    theirs = build_theirs(s, module.one_hot)
    assert (out.element_type.value, str(out.shape)) == (
        theirs.get_output_element_type(0).get_type_name(),
        str(theirs.get_output_partial_shape(0)),
    )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("s", INVALID, ids=lambda s: s.name)
def test_refused_scenario(s: Scenario, version: str) -> None:
    opset, module = VERSIONS[version]
    graph, onehot = build_ours(s, opset)
    with pytest.raises(ValidationError, match=s.error.replace(".", r"\.")):
        infer(graph)
    with pytest.raises(RuntimeError, match=s.error.replace(".", r"\.")):
        build_theirs(s, module.one_hot)
    analysis = analyze(graph, compare_dims=False)  # built ports declare no dims
    errors = [p for p in analysis.problems if p.severity is Severity.ERROR]
    assert [(p.code, p.layer) for p in errors] == [(s.code, "onehot")]
    assert analysis.outputs[onehot] is None  # not inferred, so not compared either
