"""Robustness: whatever is done to an IR, ovonehot ends with a result or one ``error:`` line.

The first test runs a small seeded mutation campaign (``ovonehot.ir.mutate``) in-process
through ``ovonehot.cli.main``: every ``validate``, ``inspect`` and ``run`` of every
mutant must be *clean*: exit 0 or 1 without a traceback, or exit 2 or 3 with exactly
one line ``error: ...`` on stderr, not longer than a few hundred characters.  The long
campaign with hangs and memory limits is ``scripts/mutation_campaign.py``; see
docs/robustness.md.

The other tests pin each cause a campaign found, and the parsing decisions taken
where Python's ``int()`` is looser than OpenVINO's reader (judged by OpenVINO's
``read_model`` on the same file).
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main
from ovonehot.differential.gen_inputs import generate_inputs
from ovonehot.errors import IRError
from ovonehot.graph import Graph
from ovonehot.infer import infer
from ovonehot.ir.mutate import HEAVY_KINDS, KINDS, corpus, mutant
from ovonehot.ir.reader import read_ir_bytes
from ovonehot.model import Model

REPO = Path(__file__).resolve().parent.parent
SEED = 20261123
MUTANTS = 200
# An error line is one line; a value quoted in it is cut (errors.QUOTE_LIMIT), so the whole
# line stays far below this even with a long layer name and a long file path.
MAX_ERROR_LINE = 4000


def _clean(code: int, err: str) -> str | None:
    """None when a run is clean, else what is wrong with it."""
    if "Traceback" in err:
        return f"traceback: {err.strip().splitlines()[-1]}"
    if code in (0, 1):
        return None
    if code not in (2, 3):
        return f"exit {code}"
    lines = err.strip("\n").split("\n")
    if len(lines) != 1 or not lines[0].startswith("error: "):
        return f"{len(lines)} stderr lines: {err[:300]!r}"
    if len(lines[0]) > MAX_ERROR_LINE:
        return f"an error line of {len(lines[0])} characters: {lines[0][:300]}"
    return None


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def inputs_dir(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Inputs for each corpus model, generated from the unmutated model."""
    root = tmp_path_factory.mktemp("inputs")
    found = {}
    for k, path in enumerate(corpus(REPO / "ir")):
        try:
            arrays = generate_inputs(ovonehot.load(path), seed=0)
        except ovonehot.Error:
            continue
        target = root / f"{k}.npz"
        np.savez(target, **arrays)
        found[str(path)] = target
    return found


def test_the_corpus_is_every_ir_under_ir() -> None:
    files = corpus(REPO / "ir")
    folders = {p.relative_to(REPO / "ir").parts[0] for p in files}
    assert folders == {"onehot", "exports", "invalid", "replays"}
    # (ir/corpus, the real-model regression corpus, has its own test: tests/test_regression_corpus.py)
    others = [p for p in (REPO / "ir").glob("*/**/*.xml") if p.relative_to(REPO / "ir").parts[0] != "corpus"]
    assert len(files) == len(others)


def test_mutants_are_reproducible() -> None:
    files = corpus(REPO / "ir")
    a, b = mutant(files, 7, 123), mutant(files, 7, 123)
    assert (a.xml, a.weights, a.mutations) == (b.xml, b.weights, b.mutations)
    assert mutant(files, 7, 124).xml != a.xml or mutant(files, 7, 124).mutations != a.mutations


def test_every_run_of_every_mutant_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inputs_dir: dict[str, Path]
) -> None:
    files = corpus(REPO / "ir")
    light = [k for k in KINDS if k not in HEAVY_KINDS]
    failures = []
    kinds_seen: set[str] = set()
    for index in range(MUTANTS):
        m = mutant(files, SEED, index, kinds=light)
        kinds_seen.update(d.split(":")[0] for d in m.mutations)
        xml = m.write(tmp_path / str(index))
        runs = [["validate", str(xml), "--json"], ["inspect", str(xml)], ["run", str(xml)]]
        if m.source in inputs_dir:
            runs[2] += ["--inputs", str(inputs_dir[m.source])]
        for argv in runs:
            code, _, err = _run_cli(argv, capsys)
            why = _clean(code, err)
            if why is not None:
                failures.append(f"mutant {index} ({'; '.join(m.mutations)[:200]}) {argv[0]}: {why}")
    assert kinds_seen == set(light)  # the budget exercises every light kind
    assert not failures, "\n".join(failures)


# -- causes found by campaigns, one test each ------------------------------------------------------
PARAM = """<layer id="{id}" name="{name}" type="Parameter" version="opset1">
  <data shape="{shape}" element_type="{et}"/>
  <output><port id="0" precision="{prec}" names="{name}">{dims}</port></output></layer>"""
CONST = """<layer id="{id}" name="{name}" type="Const" version="opset1">
  <data element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"/>
  <output><port id="0" precision="{prec}">{dims}</port></output></layer>"""
RESULT = """<layer id="{id}" name="{name}" type="Result" version="opset1">
  <input><port id="0" precision="{prec}">{dims}</port></input></layer>"""


def _dims(shape: str) -> str:
    return "".join(f"<dim>{d}</dim>" for d in shape.split(",") if d)


def _ir(layers: list[str], edges: list[tuple[int, int, int, int]]) -> bytes:
    edge_text = "\n".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges
    )
    return (
        '<?xml version="1.0"?>\n<net name="t" version="11">\n<layers>\n'
        + "\n".join(layers)
        + f"\n</layers>\n<edges>\n{edge_text}\n</edges>\n</net>\n"
    ).encode()


def _onehot_ir(**replace: str) -> tuple[bytes, bytes]:
    """indices(i64 [4]) -> OneHot-1(depth 3, on 1.0, off 0.0, axis -1) -> Result."""
    layers = [
        PARAM.format(id=0, name="x", shape="4", et="i64", prec="I64", dims=_dims("4")),
        CONST.format(id=1, name="depth", et="i64", shape="", offset=0, size=8, prec="I64", dims=""),
        CONST.format(id=2, name="on", et="f32", shape="", offset=8, size=4, prec="FP32", dims=""),
        CONST.format(id=3, name="off", et="f32", shape="", offset=12, size=4, prec="FP32", dims=""),
        """<layer id="4" name="oh" type="OneHot" version="opset1"><data axis="-1"/>
  <input><port id="0" precision="I64"><dim>4</dim></port><port id="1" precision="I64"/>
  <port id="2" precision="FP32"/><port id="3" precision="FP32"/></input>
  <output><port id="4" precision="FP32" names="out"><dim>4</dim><dim>3</dim></port></output></layer>""",
        RESULT.format(id=5, name="r", prec="FP32", dims=_dims("4,3")),
    ]
    xml = _ir(layers, [(0, 0, 4, 0), (1, 0, 4, 1), (2, 0, 4, 2), (3, 0, 4, 3), (4, 4, 5, 0)]).decode()
    for old, new in replace.items():
        assert old in xml, old
        xml = xml.replace(old, new, 1)
    weights = np.int64(3).tobytes() + np.float32(1.0).tobytes() + np.float32(0.0).tobytes()
    return xml.encode(), weights


def _write(tmp_path: Path, xml: bytes, weights: bytes = b"", name: str = "m") -> Path:
    path = tmp_path / f"{name}.xml"
    path.write_bytes(xml)
    path.with_suffix(".bin").write_bytes(weights)
    return path


COMMANDS = ["validate", "inspect", "run"]


def _all_clean(path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    results = []
    for command in COMMANDS:
        code, _, err = _run_cli([command, str(path)], capsys)
        assert _clean(code, err) is None, f"{command}: {_clean(code, err)}"
        results.append((code, err))
    return results


def test_parameter_retyped_as_result_is_inspected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """inspect indexed the (missing) input of a Result with no inputs: an IndexError."""
    xml, weights = _onehot_ir(**{'name="x" type="Parameter"': 'name="x" type="Result"'})
    (v, _), (i, _), (r, err) = _all_clean(_write(tmp_path, xml, weights), capsys)
    assert (v, i, r) == (1, 0, 3)
    assert "type=Result-opset1: has 0 inputs" in err


def test_result_retyped_as_parameter_is_inspected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """inspect listed the (missing) output port of a Parameter with none: an IndexError."""
    xml, weights = _onehot_ir(**{'name="r" type="Result"': 'name="r" type="Parameter"'})
    (v, _), (i, _), (r, _) = _all_clean(_write(tmp_path, xml, weights), capsys)
    assert (v, i, r) == (1, 0, 3)


def test_split_of_a_scalar_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """infer_split read dims[axis] of a scalar unchecked; OpenVINO refuses the axis for rank 0."""
    layers = [
        PARAM.format(id=0, name="x", shape="", et="f32", prec="FP32", dims=""),
        CONST.format(id=1, name="axis", et="i64", shape="", offset=0, size=8, prec="I64", dims=""),
        """<layer id="2" name="split" type="Split" version="opset1"><data num_splits="1"/>
  <input><port id="0" precision="FP32"/><port id="1" precision="I64"/></input>
  <output><port id="2" precision="FP32"/></output></layer>""",
        RESULT.format(id=3, name="r", prec="FP32", dims=""),
    ]
    path = _write(tmp_path, _ir(layers, [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)]), np.int64(0).tobytes())
    (v, _), _, (r, err) = _all_clean(path, capsys)
    assert (v, r) == (1, 3)
    assert "range [0, -1]" in err
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError, match="out-of-range dimension"):
        ov.Core().read_model(str(path))


@pytest.mark.parametrize("rank", [65, 300], ids=["rank65", "rank300"])
def test_const_of_rank_beyond_numpy_is_refused(
    rank: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NumPy holds at most 64 dims: its ValueError escaped the reader."""
    shape = ",".join(["1"] * rank)
    xml, weights = _onehot_ir(
        **{
            'name="on" type="Const" version="opset1">\n  <data element_type="f32" shape=""': f'name="on" type="Const" version="opset1">\n  <data element_type="f32" '
            f'shape="{shape}"'
        }
    )
    for code, err in _all_clean(_write(tmp_path, xml, weights), capsys):
        assert code == 3 and f"a constant of rank {rank}" in err


def test_bad_layer_id_after_a_broken_payload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """validate re-reads a file with a broken Const; its int(layer id) met id="x" unguarded."""
    xml, weights = _onehot_ir(
        **{
            '<layer id="1" name="depth"': '<layer id="x" name="depth"',
            'offset="0" size="8"': 'offset="0" size="2"',
        }
    )
    for code, err in _all_clean(_write(tmp_path, xml, weights), capsys):
        assert code == 3 and "attribute id='x' is not an unsigned integer" in err


class _CountingNodes(tuple):  # type: ignore[type-arg]
    """A tuple of nodes that counts how often it is walked."""

    __slots__ = ()

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _CountingNodes.walks += 1
        return super().__iter__()


def test_looking_up_parameters_does_not_walk_the_graph_per_parameter() -> None:
    """Model() called Graph.index_of (a linear scan) per Parameter: 100k Parameters took minutes."""
    n = 2000
    layers = []
    edges = []
    for k in range(n):
        layers.append(PARAM.format(id=2 * k, name=f"p{k}", shape="1", et="f32", prec="FP32", dims=_dims("1")))
        layers.append(RESULT.format(id=2 * k + 1, name=f"r{k}", prec="FP32", dims=_dims("1")))
        edges.append((2 * k, 0, 2 * k + 1, 0))
    graph = read_ir_bytes(_ir(layers, edges))
    counted = Graph(
        graph.name, graph.ir_version, _CountingNodes(graph.nodes), graph.sources, graph.document_order
    )
    inference = infer(counted)
    _CountingNodes.walks = 0
    model = Model(counted, inference)
    assert len(model.inputs) == n
    assert [d.name for d in model.inputs[:3]] == ["p0", "p1", "p2"]
    assert _CountingNodes.walks < 10  # O(1) walks, not one per Parameter


def test_a_huge_attribute_value_is_cut_in_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Error lines repeated whole attribute values (5 MB lines)."""
    value = "7" * 2_000_000
    xml, weights = _onehot_ir(**{'axis="-1"': f'axis="{value}"'})
    path = _write(tmp_path, xml, weights)
    code, _, err = _run_cli(["run", str(path)], capsys)
    assert code == 3 and len(err) < 1000 and "(1999802 more characters)" in err  # the quotes count too
    code, out, _ = _run_cli(["validate", str(path)], capsys)
    assert code == 1 and max(map(len, out.splitlines())) < 1000


def test_a_huge_layer_name_is_cut_in_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, weights = _onehot_ir(**{'name="oh"': f'name="{"n" * 100_000}"', 'axis="-1"': 'axis="x"'})
    code, _, err = _run_cli(["run", str(_write(tmp_path, xml, weights))], capsys)
    assert code == 3 and len(err) < 1000 and "more characters)" in err


def test_missing_inputs_are_listed_briefly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layers = []
    for k in range(500):
        layers.append(PARAM.format(id=2 * k, name=f"p{k}", shape="1", et="f32", prec="FP32", dims=_dims("1")))
        layers.append(RESULT.format(id=2 * k + 1, name=f"r{k}", prec="FP32", dims=_dims("1")))
    path = _write(tmp_path, _ir(layers, [(2 * k, 0, 2 * k + 1, 0) for k in range(500)]))
    np.save(tmp_path / "p0.npy", np.zeros(1, np.float32))  # one input given: run generates none then
    code, _, err = _run_cli(["run", str(path), "--inputs", f"p0={tmp_path / 'p0.npy'}"], capsys)
    assert code == 2 and "p20 and 479 more" in err and len(err) < 1000


# -- the memory budget ---------------------------------------------------------------------------------
def _broadcast_ir(target: list[int], static: bool) -> tuple[bytes, bytes]:
    """x(f32 [1]) -> Broadcast(x, target) -> Result; target a Const (static) or a Parameter's value."""
    n = len(target)
    if static:
        target_layer = CONST.format(
            id=1, name="target", et="i64", shape=str(n), offset=0, size=8 * n, prec="I64", dims=_dims(str(n))
        )
    else:
        target_layer = PARAM.format(
            id=1, name="target", shape=str(n), et="i64", prec="I64", dims=_dims(str(n))
        )
    layers = [
        PARAM.format(id=0, name="x", shape="1", et="f32", prec="FP32", dims=_dims("1")),
        target_layer,
        """<layer id="2" name="bc" type="Broadcast" version="opset3"><data mode="numpy"/>
  <input><port id="0" precision="FP32"/><port id="1" precision="I64"/></input>
  <output><port id="2" precision="FP32"/></output></layer>""",
        RESULT.format(id=3, name="r", prec="FP32", dims=""),
    ]
    xml = _ir(layers, [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)])
    return xml, np.asarray(target, np.int64).tobytes() if static else b""


@pytest.mark.parametrize("static", [True, False], ids=["const-target", "parameter-target"])
def test_an_output_beyond_the_budget_is_refused_before_it_is_allocated(
    static: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Broadcast to 2**20 x 2**20 f32 (4 TiB): refused by size, not by the kernel running out of memory."""
    target = [2**20, 2**20]
    xml, weights = _broadcast_ir(target, static)
    path = _write(tmp_path, xml, weights)
    inputs = tmp_path / "in.npz"
    arrays = {"x": np.ones(1, np.float32)}
    if not static:
        arrays["target"] = np.asarray(target, np.int64)
    np.savez(inputs, **arrays)
    code, _, err = _run_cli(["run", str(path), "--inputs", str(inputs)], capsys)
    assert _clean(code, err) is None
    assert code == 2
    assert f"needs {4 * math.prod(target)} bytes" in err and "type=Broadcast-opset3" in err


def test_the_budget_lets_an_ordinary_output_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml, weights = _broadcast_ir([3, 2], static=False)
    path = _write(tmp_path, xml, weights)
    np.savez(tmp_path / "in.npz", x=np.array([5.0], np.float32), target=np.array([3, 2], np.int64))
    code, out, _ = _run_cli(["run", str(path), "--inputs", str(tmp_path / "in.npz")], capsys)
    assert code == 0 and "shape [3, 2]" in out


def test_the_budget_follows_the_address_space_limit() -> None:
    """Under RLIMIT_AS, an output that cannot fit is refused with one line, not a MemoryError."""
    code = (
        "import resource, numpy as np\n"
        "from ovonehot import budget\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "assert budget.memory_budget() < 3 << 30\n"
        "try:\n"
        "    budget.check_allocation((2 << 30,), 1, 'output 0')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.startswith("ResourceLimitError output 0 [2147483648] needs 2147483648 bytes"), (
        result.stderr
    )


# -- reading numbers and names no more loosely than OpenVINO ------------------------------------------
# (replacement in the base IR, what OpenVINO 2026.4's read_model says, what ovonehot says)
REFUSED_BY_OPENVINO = [
    (
        "offset-underscore",
        {'offset="8" size="4"': 'offset="0_8" size="4"'},
        "not an unsigned 64 bit integer",
        "attribute offset='0_8' is not an unsigned integer",
    ),
    (
        "offset-trailing-space",
        {'offset="8" size="4"': 'offset="8 " size="4"'},
        "not an unsigned 64 bit integer",
        "attribute offset='8 ' is not an unsigned integer",
    ),
    (
        "offset-arabic-digit",
        {'offset="8" size="4"': 'offset="\u0668" size="4"'},
        "stoll",
        "is not an unsigned integer",
    ),
    (
        "size-underscore",
        {'offset="8" size="4"': 'offset="8" size="0_4"'},
        "not an unsigned 64 bit integer",
        "attribute size='0_4' is not an unsigned integer",
    ),
    (
        "dim-arabic-digit",
        {"<dim>4</dim>": "<dim>\u0664</dim>"},
        "must be greater or equal to -1",
        "is not an integer",
    ),
    (
        "version-arabic-digit",
        {'type="OneHot" version="opset1"': 'type="OneHot" version="opset\u0661"'},
        "unsupported opset",
        "is no opset",
    ),
    (
        "version-trailing-space",
        {'type="OneHot" version="opset1"': 'type="OneHot" version="opset1 "'},
        "unsupported opset",
        "version 'opset1 ' is no opset",
    ),
    (
        "version-upper-case",
        {'type="OneHot" version="opset1"': 'type="OneHot" version="OPSET1"'},
        "unsupported opset",
        "version 'OPSET1' is no opset",
    ),
    (
        "version-leading-zero",
        {'type="OneHot" version="opset1"': 'type="OneHot" version="opset01"'},
        "unsupported opset",
        "version 'opset01' is no opset",
    ),
    (
        "layer-without-name",
        {' name="oh"': ""},
        "missing mandatory attribute: name",
        "layer id=4 at line 16: missing attribute 'name'",
    ),
    (
        "output-port-without-precision",
        {'<port id="4" precision="FP32"': '<port id="4"'},
        "missing mandatory attribute: precision",
        "output port 4: missing attribute 'precision'",
    ),
    (
        "output-precision-lower-case-legacy",
        {'<port id="4" precision="FP32"': '<port id="4" precision="fp32"'},
        "Unsupported element type: fp32",
        "precision='fp32' is not an element type OpenVINO reads",
    ),
    (
        "output-precision-upper-case-name",
        {'<port id="4" precision="FP32"': '<port id="4" precision="F32"'},
        "Unsupported element type: F32",
        "precision='F32' is not an element type OpenVINO reads",
    ),
    (
        "output-precision-BOOLEAN",
        {'<port id="4" precision="FP32"': '<port id="4" precision="BOOLEAN"'},
        "Unsupported element type: BOOLEAN",
        "precision='BOOLEAN' is not an element type OpenVINO reads",
    ),
    (
        "const-without-shape",
        {'<data element_type="f32" shape="" offset="8"': '<data element_type="f32" offset="8"'},
        "Missing attribute 'shape' for Const",
        "name='on' type=Const-opset1: missing attribute 'shape'",
    ),
    (
        "shape-arabic-digit",
        {'shape="4" element_type="i64"': 'shape="\u0664" element_type="i64"'},
        "Cannot parse",
        "not a dimension",
    ),
    (
        "shape-plus-sign",
        {'shape="4" element_type="i64"': 'shape="+4" element_type="i64"'},
        "Cannot parse",
        "not a dimension",
    ),
    (
        "shape-underscore",
        {'shape="4" element_type="i64"': 'shape="0_4" element_type="i64"'},
        "Cannot parse",
        "not a dimension",
    ),
    (
        "shape-no-break-space",
        {'shape="4" element_type="i64"': 'shape="\u00a0" element_type="i64"'},
        "Cannot parse",
        "not a dimension",
    ),
    (
        "attribute-plus-sign",
        {'axis="-1"': 'axis="+1"'},
        "Cannot parse",
        "attribute axis='+1' is not an integer",
    ),
    ("attribute-arabic-digit", {'axis="-1"': 'axis="\u0661"'}, "Cannot parse", "is not an integer"),
]


@pytest.mark.parametrize(
    ("replace", "openvino_says", "ovonehot_says"),
    [c[1:] for c in REFUSED_BY_OPENVINO],
    ids=[c[0] for c in REFUSED_BY_OPENVINO],
)
def test_what_openvino_refuses_is_refused(
    replace: dict[str, str],
    openvino_says: str,
    ovonehot_says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    xml, weights = _onehot_ir(**replace)
    path = _write(tmp_path, xml, weights)
    code, out, err = _run_cli(["validate", str(path)], capsys)
    assert ovonehot_says in err + out
    assert code in (1, 3)
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError, match=openvino_says):
        ov.Core().read_model(str(path))


# Spellings OpenVINO reads and ovonehot reads the same way.
ACCEPTED_LIKE_OPENVINO = [
    ("offset-plus-sign", {'offset="8" size="4"': 'offset="+8" size="4"'}),
    ("offset-leading-space", {'offset="8" size="4"': 'offset=" 8" size="4"'}),
    ("dim-plus-sign", {"<dim>4</dim>": "<dim>+4</dim>"}),
    ("layer-id-plus-sign", {'<layer id="5"': '<layer id="+5"', 'to-layer="5"': 'to-layer="+5"'}),
    ("attribute-leading-space", {'axis="-1"': 'axis=" -1"'}),
    ("input-port-without-precision", {'<port id="1" precision="I64"/>': '<port id="1"/>'}),
]


@pytest.mark.parametrize(
    "replace", [c[1] for c in ACCEPTED_LIKE_OPENVINO], ids=[c[0] for c in ACCEPTED_LIKE_OPENVINO]
)
def test_what_openvino_accepts_is_read(
    replace: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml, weights = _onehot_ir(**replace)
    path = _write(tmp_path, xml, weights)
    code, out, err = _run_cli(["validate", str(path)], capsys)
    assert code == 0, err + out
    model = ovonehot.load(path)
    got = model.run({"x": np.array([0, 2, 3, -1], np.int64)})["out"]
    ov = pytest.importorskip("openvino")
    compiled = ov.Core().compile_model(ov.Core().read_model(str(path)), "CPU")
    expected = compiled({"x": np.array([0, 2, 3, -1], np.int64)})[compiled.output(0)]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("op", ["Assign", "ReadValue"])
def test_a_variable_op_without_its_variable_is_refused(op: str) -> None:
    """OpenVINO's read_model crashes (a segfault in 2026.4) on these: ovonehot names what is missing."""
    layers = [
        PARAM.format(id=0, name="x", shape="1", et="f32", prec="FP32", dims=_dims("1")),
        f"""<layer id="1" name="v" type="{op}" version="opset6"><data/>
  <input><port id="0" precision="FP32"><dim>1</dim></port></input>
  <output><port id="1" precision="FP32"><dim>1</dim></port></output></layer>""",
        RESULT.format(id=2, name="r", prec="FP32", dims=_dims("1")),
    ]
    with pytest.raises(IRError, match=rf"type={op}-opset6: missing attribute 'variable_id'"):
        read_ir_bytes(_ir(layers, [(0, 0, 1, 0), (1, 1, 2, 0)]))


def test_inputs_the_shape_rules_refuse_are_refused_before_the_kernel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Transpose with an empty order reverses every axis, so the GRU's input size is only known when
    it runs: the kernel's NumPy matmul failed on the mismatch (a ValueError traceback)."""
    source = REPO / "ir" / "exports" / "torch" / "char_cnn_gru.xml"
    xml = source.read_text()
    old = '"aten::transpose/Constant_1" type="Const" version="opset1">\n\t\t\t<data element_type="i32" shape="3"'
    assert old in xml
    xml = xml.replace(old, old.replace('shape="3"', 'shape="0"'))
    path = _write(tmp_path, xml.encode(), source.with_suffix(".bin").read_bytes())
    inputs = REPO / "ir" / "exports" / "torch" / "char_cnn_gru.typical.inputs.npz"
    code, _, err = _run_cli(["run", str(path), "--inputs", str(inputs)], capsys)
    assert _clean(code, err) is None
    assert code == 2 and "type=GRUSequence-opset5: with these inputs: Dimension input_size" in err


@pytest.mark.parametrize("shape", ["0,4611686018427387904,4", "0,1099511627776,1099511627776"])
def test_an_empty_constant_too_large_for_numpy_is_refused(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty shape whose other dims overflow NumPy's size: "array is too big" escaped as ValueError."""
    xml, weights = _onehot_ir(
        **{
            'name="on" type="Const" version="opset1">\n  <data element_type="f32" shape=""': f'name="on" type="Const" version="opset1">\n  <data element_type="f32" '
            f'shape="{shape}"'
        }
    )
    for code, err in _all_clean(_write(tmp_path, xml, weights), capsys):
        assert code == 3 and "NumPy cannot hold a shape this large, even empty" in err


def test_a_broadcast_to_an_empty_shape_too_large_for_numpy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Folding (an empty output is small) and running both meet NumPy's size limit first."""
    xml, weights = _broadcast_ir([0, 2**62, 4], static=True)
    path = _write(tmp_path, xml, weights)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32))
    code, _, err = _run_cli(["run", str(path), "--inputs", str(tmp_path / "in.npz")], capsys)
    assert _clean(code, err) is None
    assert code == 2 and "NumPy cannot hold a shape this large, even empty" in err
