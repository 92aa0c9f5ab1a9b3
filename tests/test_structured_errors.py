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
