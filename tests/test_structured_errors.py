"""Callers branch on error classes and fields, never on message text (issue 10, item 5).

The docstring examples of the two places that define the structure run here: ParameterError
(a library argument named by its parameter; the CLI names the flag) and
ovonehot.oracle.openvino_messages (the one reader of OpenVINO's exception text).  Real
OpenVINO refusals read into complaints are checked in test_diff.py.
"""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from ovonehot import errors
from ovonehot.cli._options import error_message, flag
from ovonehot.errors import ParameterError
from ovonehot.oracle import openvino_messages


@pytest.mark.parametrize("module", [errors, openvino_messages], ids=lambda m: m.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, verbose=False, report=True)
    assert result.attempted >= 2 and result.failed == 0


FLAG_CASES = [
    ("shapes", "--shape"),
    ("per_input_seeds", "--seed"),
    ("per_input_ranges", "--val-range"),
    ("value_range", "--val-range"),
    ("per_output_atol", "--atol"),
    ("jobs", "--jobs"),
    ("scheduler", "--scheduler"),
]


@pytest.mark.parametrize(("parameter", "option"), FLAG_CASES, ids=[p for p, _ in FLAG_CASES])
def test_the_cli_names_each_parameter_by_its_flag(parameter: str, option: str) -> None:
    assert flag(parameter) == option


def test_a_mentioned_parameter_is_named_too() -> None:
    exc = ParameterError(
        "jobs", "sizes the cluster; with {scheduler} it has its own", mentions=("scheduler",)
    )
    assert str(exc) == "jobs sizes the cluster; with scheduler it has its own"
    assert error_message(exc) == "--jobs sizes the cluster; with --scheduler it has its own"
    assert error_message(errors.UsageError("plain")) == "plain"


def _one_op_model(kernel_error: errors.Error) -> tuple[object, dict[int, object]]:
    """A Relu model whose Relu kernel raises ``kernel_error`` (a fixture: the spec replaced on a
    rebuilt Inference), and its feeds."""
    import dataclasses

    import numpy as np

    from ovonehot.infer import Inference, NodePlan, infer
    from tests.graph_builder import GraphBuilder

    b = GraphBuilder()
    x = b.parameter("x", "f32", "[2]")
    relu = b.op("Relu", "opset1", [x], name="the_relu")
    b.op("Result", "opset1", [relu], outputs=0)
    graph = b.graph()
    inference = infer(graph)

    def refuse(attrs: object, inputs: object) -> list[object]:
        raise kernel_error

    plans = list(inference.plans)
    spec = dataclasses.replace(plans[relu].spec, evaluate=refuse, specialize=None)
    plans[relu] = NodePlan(plans[relu].node, spec, plans[relu].attrs)
    return Inference(graph, tuple(plans), inference.outputs), {x: np.zeros(2, np.float32)}


def test_a_run_error_gets_its_layer_and_keeps_its_class_and_fields() -> None:
    """The layer is attached in one place (``Error.at``), to the very exception the op raised:
    a subclass with a constructor of its own (ParameterError, UnknownParameterError) keeps its
    class and fields, where rebuilding it from its message would lose them or fail."""
    from ovonehot.evaluate import evaluate

    for raised in (
        ParameterError("value_range", "must be increasing", "[3, 1]"),
        errors.UnknownParameterError("no Parameter named 'y'", ("y",)),
    ):
        inference, feeds = _one_op_model(raised)
        with pytest.raises(errors.Error) as info:
            evaluate(inference, feeds)  # type: ignore[arg-type]
        assert info.value is raised and type(info.value) is type(raised)
        assert info.value.layers == (inference.plans[1].node.describe(),)  # type: ignore[attr-defined]
        assert str(info.value).startswith("layer id=") and "name='the_relu'" in str(info.value)
        assert str(info.value).endswith(str(raised.args[0]))
    assert raised.names == ("y",)  # type: ignore[attr-defined]
