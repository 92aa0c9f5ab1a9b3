"""Per-layer error on the graph (issue 23 item 7): ``convert --to model-explorer`` writes Model
Explorer's JSON graph of an IR, ``diff --all-layers --node-data`` its node data, keyed by the same
layer ids.  The formats are Model Explorer's (``graph_builder.py``, ``node_data_builder.py``); the
checks below are the structure its JSON loader and node data reader take.

The model is the tiny BERT of ir/corpus/transformers/bert_plain (written by OpenVINO): against the
CPU plugin with ``--atol 0 --rtol 0`` its MVN and MatMul layers differ by rounding (a planted
per-layer difference: no tolerance at all), so the first divergent layer exists and is marked.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from ovonehot import cli
from ovonehot.differential.layers import LayerRow, LayerVerdict
from ovonehot.differential.report import DiffReport
from ovonehot.explorer import (
    FIRST_DIVERGENT_BACKGROUND,
    THRESHOLDS,
    UNMEASURED,
    graph_collection,
    graph_id,
    node_data,
)
from ovonehot.graph import Graph
from ovonehot.ir.reader import read_ir

ROOT = Path(__file__).resolve().parent.parent
BERT = ROOT / "ir" / "corpus" / "transformers" / "bert_plain"
LOOP = ROOT / "ir" / "corpus" / "regressions" / "torch_gcd" / "model.xml"  # a Loop with a body


def check_collection(data: Any) -> dict[str, dict[str, Any]]:
    """``data`` is a graph collection Model Explorer's JSON loader takes; {graph id: graph}."""
    assert isinstance(data, dict) and isinstance(data["label"], str)
    graphs = {g["id"]: g for g in data["graphs"]}
    assert len(graphs) == len(data["graphs"]) > 0, "graph ids are unique"
    for g in graphs.values():
        ids = [n["id"] for n in g["nodes"]]
        assert len(set(ids)) == len(ids), f"node ids unique in graph {g['id']}"
        for n in g["nodes"]:
            assert {"id", "label", "namespace", "attrs", "incomingEdges", "outputsMetadata"} <= n.keys()
            assert all(isinstance(x, str) for x in (n["id"], n["label"], n["namespace"]))
            assert all(set(kv) == {"key", "value"} and isinstance(kv["value"], str) for kv in n["attrs"])
            for e in n["incomingEdges"]:
                assert e["sourceNodeId"] in ids, f"edge from a node of graph {g['id']}"
                assert e["sourceNodeOutputId"].isdigit() and e["targetNodeInputId"].isdigit()
            for sub in n.get("subgraphIds", []):
                assert sub in graphs
    return graphs


def test_the_graph_has_a_node_per_layer_keyed_by_layer_id(tmp_path: Path) -> None:
    out = tmp_path / "bert.json"
    assert cli.main(["convert", str(BERT / "model.xml"), "--to", "model-explorer", "-o", str(out)]) == 0
    graph = read_ir(BERT / "model.xml")
    graphs = check_collection(json.loads(out.read_text()))
    nodes = {n["id"]: n for n in graphs[graph_id(graph)]["nodes"]}
    assert set(nodes) == {str(n.id) for n in graph.nodes}
    for i, layer in enumerate(graph.nodes):
        node = nodes[str(layer.id)]
        assert node["label"] == layer.type
        assert node["namespace"] == "/".join(layer.name.split("/")[:-1])
        attrs = {kv["key"]: kv["value"] for kv in node["attrs"]}
        assert (attrs["name"], attrs["type"], attrs["opset"]) == (layer.name, layer.type, layer.version)
        sources = [(e["sourceNodeId"], int(e["sourceNodeOutputId"])) for e in node["incomingEdges"]]
        assert sources == [(str(graph.nodes[s.node].id), s.output) for s in graph.sources[i]]
        assert len(node["outputsMetadata"]) == len(layer.outputs)
    grouped = [n for n in nodes.values() if n["namespace"].startswith("__module.bert.encoder.layer.0")]
    assert grouped, "the PyTorch module path becomes the namespace"


def test_a_loop_body_is_a_linked_subgraph() -> None:
    graph = read_ir(LOOP)
    graphs = check_collection(graph_collection(graph, LOOP.name))
    loops = [n for n in graph.nodes if n.bodies]
    assert loops
    main = {n["id"]: n for n in graphs[graph_id(graph)]["nodes"]}
    for loop in loops:
        subs = main[str(loop.id)]["subgraphIds"]
        assert len(subs) == len(loop.bodies)
        for sub, (_, body) in zip(subs, loop.bodies, strict=True):
            assert {n["id"] for n in graphs[sub]["nodes"]} == {str(n.id) for n in body.nodes}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any], int]:
    """One ``diff --all-layers --oracle cpu --atol 0 --rtol 0 --node-data``: (node data, JSON
    report, exit status)."""
    pytest.importorskip("openvino", reason="the layers are compared against OpenVINO's CPU plugin")
    d = tmp_path_factory.mktemp("planted")
    argv = ["diff", str(BERT / "model.xml"), "--inputs", str(BERT / "short.inputs.npz"), "--oracle", "cpu"]
    argv += ["--all-layers", "--atol", "0", "--rtol", "0", "--node-data", str(d / "nd.json")]
    code = cli.main([*argv, "--json-out", str(d / "report.json")])
    report = json.loads((d / "report.json").read_text())
    return json.loads((d / "nd.json").read_text()), report, code


def _layer_id(row: dict[str, Any]) -> str:
    """A JSON layer row's layer id (schema 1: the layer is an object {id, name, type, version})."""
    layer = row["layer"]
    assert isinstance(layer, dict), layer
    return str(layer["id"])


def test_node_data_holds_each_layers_largest_error(
    planted: tuple[dict[str, Any], dict[str, Any], int],
) -> None:
    data, report, code = planted
    assert code == 1 and report["node_data"] == {"cpu": report["node_data"]["cpu"]}
    graph = read_ir(BERT / "model.xml")
    graphs = check_collection(graph_collection(graph, "model.xml"))
    assert list(data) == [graph_id(graph)]
    results = data[graph_id(graph)]["results"]
    ids = {n["id"] for n in graphs[graph_id(graph)]["nodes"]}
    assert set(results) <= ids, "every node data id is a node of the graph"
    expected: dict[str, float] = {}
    for row in report["layers"]:
        if row["verdict"] != "not compared":
            key = _layer_id(row)
            expected[key] = max(expected.get(key, 0.0), row["max_abs_error"])
    assert expected and {k: r["value"] for k, r in results.items()} == expected
    differing = {_layer_id(r) for r in report["layers"] if r["verdict"] == "differs"}
    assert differing and {k for k, r in results.items() if "textColor" in r} == differing
    thresholds = data[graph_id(graph)]["thresholds"]
    values = [t["value"] for t in thresholds]
    assert values == sorted(values) and values[-1] == UNMEASURED


def test_the_first_divergent_layer_is_marked(planted: tuple[dict[str, Any], dict[str, Any], int]) -> None:
    data, report, _ = planted
    first = _layer_id(report["first_divergent_layers"]["cpu"])
    marked = [k for k, r in next(iter(data.values()))["results"].items() if "bgColor" in r]
    assert marked == [first]
    assert next(iter(data.values()))["results"][first]["bgColor"] == FIRST_DIVERGENT_BACKGROUND


def _rows(graph: Graph) -> list[LayerRow]:
    mvn = next(i for i, n in enumerate(graph.nodes) if n.type == "MVN")
    split = next(i for i, n in enumerate(graph.nodes) if len(n.outputs) > 1)
    gelu = next(i for i, n in enumerate(graph.nodes) if n.type == "Gelu")
    out = next(i for i, n in enumerate(graph.nodes) if n.type == "MatMul")

    def row(i: int, port: int, size: float | None, verdict: LayerVerdict) -> LayerRow:
        layer = graph.nodes[i]
        return LayerRow("cpu", layer.describe(), port, layer.type, size, size, "", verdict, "", i)

    return [
        row(mvn, 0, 1e-7, LayerVerdict.PASS),
        row(split, 0, 2e-7, LayerVerdict.PASS),
        row(split, 1, 5e-7, LayerVerdict.PASS),
        row(gelu, 0, None, LayerVerdict.NOT_COMPARED),
        row(out, 0, math.inf, LayerVerdict.DIFFERS),
    ]


def test_ports_a_node_without_size_and_infinite_errors() -> None:
    """A node's value is its largest port's; a node not compared has no entry; an infinite error
    is the largest double (strict JSON); only a differing row is marked, the first in red."""
    graph = read_ir(BERT / "model.xml")
    rows = _rows(graph)
    results = node_data(graph, rows)[graph_id(graph)]["results"]
    ids = [str(graph.nodes[r.node].id) for r in rows]
    assert results == {
        ids[0]: {"value": 1e-7},
        ids[1]: {"value": 5e-7},
        ids[4]: {"value": UNMEASURED, "bgColor": FIRST_DIVERGENT_BACKGROUND, "textColor": "#ffffff"},
    }
    json.dumps(results, allow_nan=False)
    assert THRESHOLDS[0][0] == 0.0


def test_without_a_difference_nothing_is_marked() -> None:
    graph = read_ir(BERT / "model.xml")
    rows = [r for r in _rows(graph) if r.verdict is LayerVerdict.PASS]
    results = node_data(graph, rows)[graph_id(graph)]["results"]
    assert results and all(set(r) == {"value"} for r in results.values())


def test_several_oracles_get_a_file_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ovonehot.cli.explorer import write_node_data

    graph = read_ir(BERT / "model.xml")
    rows = _rows(graph)
    both = rows + [
        LayerRow("reference", r.layer, r.port, r.type, 0.0, 0.0, "", LayerVerdict.PASS, "", r.node)
        for r in rows
    ]
    report = DiffReport("m", None, False, {}, None, None, {}, [], {}, layers=both)
    written = write_node_data(str(tmp_path / "nd.json"), graph, report)
    assert written == {o: str(tmp_path / f"nd-{o}.json") for o in ("cpu", "reference")}
    assert not (tmp_path / "nd.json").exists()
    ref = json.loads((tmp_path / "nd-reference.json").read_text())[graph_id(graph)]["results"]
    assert {r["value"] for r in ref.values()} == {0.0}
    assert "first divergent layer id=" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [([], "--node-data needs --all-layers"), (["--all-layers", "--node-data", "x.txt"], ".json file")],
    ids=["without-all-layers", "not-json"],
)
def test_bad_node_data_options_are_usage_errors(
    extra: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["diff", str(BERT / "model.xml"), *extra]
    if not extra:
        argv += ["--node-data", str(tmp_path / "nd.json")]
    assert cli.main(argv) == 2
    assert fragment in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
