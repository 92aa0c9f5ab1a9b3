"""``ovonehot run --out-dir DIR``: one .npy per output; an output over the memory budget
(made tiny here with OVONEHOT_MEMORY_BUDGET) computed in chunks into its memory-mapped file.

The expected values are the in-memory ``Model.run`` results (themselves checked against
OpenVINO elsewhere) and, for the OneHot, the spec's definition as a slow loop.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.chunked import write_outputs
from ovonehot.cli import main
from ovonehot.infer import infer
from ovonehot.ir.writer import write_ir
from tests.graph_builder import GraphBuilder
from tests.test_plan import slow_one_hot


def make_ir(tmp_path: Path, axis: int = -1, rows: int = 37) -> Path:
    """indices i64 [rows,3] -> OneHot(depth 8, on 1.5, off -0.0) -> Multiply by a [rows,1,1] constant
    -> Add 1 -> Convert to f16 -> Result; and a second small Result: the indices as f32."""
    b = GraphBuilder()
    x = b.parameter("indices", "i64", f"[{rows},3]")
    depth = b.const("depth", np.int64(8))
    on = b.const("on", np.float32(1.5))
    off = b.const("off", np.float32(-0.0))
    oh = b.op("OneHot", "opset1", [x, depth, on, off], {"axis": str(axis)}, name="oh")
    scale_rows = rows if axis != 0 else 1  # (with the depth first, a per-row scale would not broadcast)
    scale = b.const("scale", (np.arange(scale_rows, dtype=np.float32) - 5).reshape(scale_rows, 1, 1))
    mul = b.op("Multiply", "opset1", [oh, scale], {"auto_broadcast": "numpy"}, name="mul")
    one = b.const("one", np.float32(1))
    add = b.op("Add", "opset1", [one, mul], {"auto_broadcast": "numpy"}, name="add")
    conv = b.op("Convert", "opset1", [add], {"destination_type": "f16"}, name="conv")
    b.op("Result", "opset1", [conv], outputs=0, name="big")
    small = b.op("Convert", "opset1", [x], {"destination_type": "f32"}, name="small")
    b.op("Result", "opset1", [small], outputs=0, name="small_out")
    graph = b.graph()
    xml, _ = write_ir(graph, tmp_path / "m.xml", inference=infer(graph))  # (port precisions from inference)
    return xml


def indices(rows: int = 37) -> np.ndarray:
    return np.random.default_rng(1).integers(-2, 10, size=(rows, 3)).astype(np.int64)


@pytest.mark.parametrize("budget", [None, "700"], ids=["in-memory", "chunked"])
def test_output_dir_equals_the_in_memory_run(
    budget: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = make_ir(tmp_path)
    x = indices()
    np.save(tmp_path / "x.npy", x)
    if budget is not None:  # the big output (37*8*3 f16 = 1776 bytes) is over it, the small one is not
        monkeypatch.setenv("OVONEHOT_MEMORY_BUDGET", budget)
    code = main(["run", str(xml), "--inputs", str(tmp_path / "x.npy"), "--out-dir", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0, err
    model = ovonehot.load(xml)
    expected = model.run({"indices": x})
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(files) == 2 and all(f.endswith(".npy") for f in files), files
    for name, value in expected.items():
        line = next(line for line in out.splitlines() if line.startswith(f"{name}: wrote "))
        got = np.load(line.split(" wrote ", 1)[1])
        assert got.dtype == value.dtype and got.shape == value.shape
        assert got.tobytes() == value.tobytes(), name
    oracle = slow_one_hot(x, 8, 1.5, -0.0, 2, np.float32)
    scale = (np.arange(37, dtype=np.float32) - 5).reshape(37, 1, 1)
    big = next(v for v in expected.values() if v.dtype == np.float16)
    assert big.tobytes() == (1 + oracle * scale).astype(np.float16).tobytes()


def test_chunks_of_one_row_and_of_many(tmp_path: Path) -> None:
    xml = make_ir(tmp_path, rows=5)
    model = ovonehot.load(xml)
    x = indices(5)
    expected = model.run({"indices": x})
    for budget in (1, 100, 10_000):
        paths = write_outputs(model, {"indices": x}, tmp_path / f"b{budget}", budget=budget, progress=False)
        for name, value in expected.items():
            got = np.load(paths[name])
            assert got.tobytes() == value.tobytes() and got.shape == value.shape, (budget, name)


def test_a_progress_bar_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = make_ir(tmp_path, rows=5)
    model = ovonehot.load(xml)
    write_outputs(model, {"indices": indices(5)}, tmp_path / "o", budget=1, progress=True)
    assert "row" in capsys.readouterr().err


def test_an_output_that_cannot_be_chunked_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = make_ir(tmp_path, axis=0)  # the depth on the first dimension: rows are not index rows
    np.save(tmp_path / "x.npy", indices())
    monkeypatch.setenv("OVONEHOT_MEMORY_BUDGET", "700")
    code = main(["run", str(xml), "--inputs", str(tmp_path / "x.npy"), "--out-dir", str(tmp_path / "out")])
    _, err = capsys.readouterr()
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and "cannot be computed in chunks" in lines[0] and "first dimension" in lines[0], (
        err
    )
    assert not (tmp_path / "out").exists() or not any(
        p.name.startswith("big") for p in (tmp_path / "out").iterdir()
    )


def test_a_bad_budget_variable_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = make_ir(tmp_path)
    np.save(tmp_path / "x.npy", indices())
    monkeypatch.setenv("OVONEHOT_MEMORY_BUDGET", "lots")
    code = main(["run", str(xml), "--inputs", str(tmp_path / "x.npy"), "--out-dir", str(tmp_path / "out")])
    assert code == 2 and "OVONEHOT_MEMORY_BUDGET" in capsys.readouterr().err
