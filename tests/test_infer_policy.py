"""The first interpreter's two error policies, its per-node hooks, and the tolerant reader.

* ``policy="raise"`` (the default): the first failure raises, as ``load`` needs;
* ``policy=Record(checker)``: a failing node becomes a problem with no outputs, the nodes
  depending on it are marked with it as their root cause and not inferred, and one
  ``not-checked`` warning on the root counts them; a checker's hooks add findings and may
  stop a node (how ``validate`` runs: one walk, the interpreter's);
* a shape override naming no Parameter raises ``UnknownParameterError`` whose message
  speaks of the parameter, not of a command-line flag (the CLI adds ``--shape``);
* ``ir.reader.read_tolerant``: a Const whose payload the .bin does not hold is a problem
  and an unknown value, where ``read_ir`` refuses the file.

Expected values are the policies' definitions (which node fails, what depends on it), read
off the small graphs built here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main
from ovonehot.errors import IRError, UnknownParameterError, ValidationError
from ovonehot.graph import Node
from ovonehot.infer import Checker, NodePlan, Record, infer
from ovonehot.ir.reader import read_ir, read_tolerant, read_tolerant_bytes
from ovonehot.ir.writer import write_ir
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.problems import Problem, Severity
from ovonehot.types import PartialShape
from tests.graph_builder import GraphBuilder


def _chain(bad_type: str = "NoSuchOp") -> tuple[GraphBuilder, dict[str, int]]:
    """x -> Abs -> BAD -> Negative -> Result, and an independent y -> Abs -> Result."""
    b = GraphBuilder()
    n: dict[str, int] = {}
    n["x"] = b.parameter("x", "f32", "[2,3]")
    n["abs"] = b.op("Abs", "opset1", [n["x"]], name="abs")
    n["bad"] = b.op(bad_type, "opset1", [n["abs"]], name="bad")
    n["neg"] = b.op("Negative", "opset1", [n["bad"]], name="neg")
    n["out"] = b.op("Result", "opset1", [n["neg"]], outputs=0, name="out")
    n["y"] = b.parameter("y", "f32", "[4]")
    n["abs2"] = b.op("Abs", "opset1", [n["y"]], name="abs2")
    n["out2"] = b.op("Result", "opset1", [n["abs2"]], outputs=0, name="out2")
    return b, n


def test_raise_policy_refuses_an_unsupported_op() -> None:
    b, _ = _chain()
    with pytest.raises(IRError, match="unsupported ops in the model: NoSuchOp-opset1"):
        infer(b.graph())


def test_record_policy_marks_what_depends_on_a_failure() -> None:
    b, n = _chain()
    graph = b.graph()
    result = infer(graph, policy=Record())
    assert result.outputs[n["bad"]] is None and result.plans[n["bad"]] is None
    assert result.outputs[n["neg"]] is None and result.outputs[n["out"]] is None
    assert result.failed_at == {n["bad"]: n["bad"], n["neg"]: n["bad"], n["out"]: n["bad"]}
    assert result.outputs[n["abs2"]] is not None  # the independent branch is inferred
    assert str(result.outputs[n["abs2"]][0].shape) == "[4]"
    assert [(p.code, p.severity, p.layer) for p in result.problems] == [
        ("not-checked", Severity.WARNING, "bad"),  # the op ovonehot does not implement
        ("not-checked", Severity.WARNING, "bad"),  # the 2 layers after it
    ]
    assert "2 layer(s) depending on this one are not checked" in result.problems[1].message


def test_record_policy_records_what_openvino_refuses() -> None:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[2,3]")
    y = b.parameter("y", "f32", "[4]")
    add = b.op("Add", "opset1", [x, y], {"auto_broadcast": "numpy"}, name="add")
    b.op("Result", "opset1", [add], outputs=0, name="out")
    graph = b.graph()
    with pytest.raises(ValidationError):
        infer(graph)
    result = infer(graph, policy=Record())
    assert [p.code for p in result.problems] == ["inference-failed", "not-checked"]
    assert result.problems[0].message.startswith(
        f"{graph.nodes[add].describe()}: OpenVINO would refuse this layer: "
    )


class _Veto(Checker):
    """Stops one node by name before its op is resolved; sees every node and every inferred output."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.visited: list[int] = []
        self.inferred: list[int] = []

    def visit(self, index: int, node: Node, found: list[Problem]) -> None:
        self.visited.append(index)

    def before_resolve(self, index: int, node: Node, found: list[Problem]) -> bool:
        if node.name != self.name:
            return True
        found.append(Problem("vetoed", Severity.ERROR, node.name, None, "stopped"))
        return False

    def after_infer(
        self,
        index: int,
        p: NodePlan,
        ins: Sequence[TensorInfo],
        outs: tuple[TensorInfo, ...],
        found: list[Problem],
    ) -> None:
        self.inferred.append(index)


def test_checker_hooks_see_every_node_and_can_stop_one() -> None:
    b, n = _chain(bad_type="Abs")  # every op supported: only the checker stops "bad"
    graph = b.graph()
    assert infer(graph).outputs[n["out"]] == ()  # the raise policy infers it all
    checker = _Veto("bad")
    result = infer(graph, policy=Record(checker))
    assert checker.visited == list(range(len(graph.nodes)))
    assert sorted(checker.inferred) == sorted({n["x"], n["abs"], n["y"], n["abs2"], n["out2"]})
    assert [p.code for p in result.problems] == ["vetoed", "not-checked"]
    assert result.failed_at[n["out"]] == n["bad"]


@pytest.mark.parametrize("policy", ["raise", "record"])
def test_shapes_naming_no_parameter(policy: str) -> None:
    b, _ = _chain(bad_type="Abs")
    with pytest.raises(UnknownParameterError, match=r"^shapes name no Parameter: nobody, z$") as info:
        if policy == "raise":
            infer(b.graph(), shapes={"z": PartialShape.parse("[1]"), "nobody": PartialShape.parse("[1]")})
        else:
            infer(
                b.graph(),
                shapes={"z": PartialShape.parse("[1]"), "nobody": PartialShape.parse("[1]")},
                policy=Record(),
            )
    assert info.value.names == ("nobody", "z")


def _written(tmp_path: Path) -> Path:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[4]")
    c = b.const("c", np.arange(4, dtype=np.float32))
    add = b.op("Add", "opset1", [x, c], {"auto_broadcast": "numpy"}, name="add")
    b.op("Result", "opset1", [add], outputs=0, name="out")
    xml = tmp_path / "m.xml"
    write_ir(b.graph(), xml, inference=infer(b.graph()))
    return xml


def test_cli_names_the_shape_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(_written(tmp_path)), "--shape", "nobody=[2]"]) == 2
    assert "--shape names no Parameter: nobody" in capsys.readouterr().err


@pytest.mark.parametrize(
    "size, message",
    [
        ("8", "size=8 bytes is too small for shape [4] of f32 (16 bytes needed); its value is unknown"),
        ("64", "offset=0 size=64 lies outside the weights file (16 bytes); its value is unknown"),
    ],
    ids=["too-small", "outside-the-bin"],
)
def test_tolerant_reader_keeps_an_unreadable_const(tmp_path: Path, size: str, message: str) -> None:
    xml = _written(tmp_path)
    text = xml.read_text()
    assert 'size="16"' in text
    xml.write_text(text.replace('size="16"', f'size="{size}"'))
    with pytest.raises(IRError):
        read_ir(xml)
    for reading in (
        read_tolerant(xml),
        read_tolerant_bytes(xml.read_bytes(), xml.with_suffix(".bin").read_bytes(), str(xml)),
    ):
        (problem,) = reading.problems
        assert (problem.code, problem.severity, problem.layer) == ("const-size", Severity.ERROR, "c")
        assert problem.message.endswith(message)
        (const,) = [node for node in reading.graph.nodes if node.name == "c"]
        assert const.type == "Const" and const.value_unknown and const.payload is None


def test_tolerant_reader_warns_of_excess_and_reads_the_value(tmp_path: Path) -> None:
    xml = _written(tmp_path)
    bin_path = xml.with_suffix(".bin")
    bin_path.write_bytes(bin_path.read_bytes() + bytes(8))
    xml.write_text(xml.read_text().replace('size="16"', 'size="20"'))
    reading = read_tolerant(xml)
    assert [(p.code, p.severity, p.layer) for p in reading.problems] == [
        ("const-size-excess", Severity.WARNING, "c")
    ]
    (const,) = [node for node in reading.graph.nodes if node.name == "c"]
    assert not const.value_unknown and const.payload is not None
    np.testing.assert_array_equal(const.payload, np.arange(4, dtype=np.float32))
