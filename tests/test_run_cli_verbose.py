"""``ovonehot run --verbose``: one stderr line per node (id, type, name, outputs, time), then a total."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
INTERVAL = ROOT / "ir" / "onehot" / "v16_interval_dims.xml"  # indices i32 [1..4,2..]
DICE = ROOT / "ir" / "exports" / "torch" / "dice_loss.xml"
DICE_INPUTS = ROOT / "ir" / "exports" / "torch" / "dice_loss.typical.inputs.npz"

LINE = re.compile(r"\[ *(\d+)/(\d+)\] id=(\d+) (\S+) '(.*)': (.*) (\d+\.\d{3}) ms")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(not DICE.exists(), reason="the ir/exports corpus is not in this checkout")
def test_one_line_per_node_in_run_order(capsys):  # type: ignore[no-untyped-def]
    code, out, err = _run(["run", str(DICE), "--inputs", str(DICE_INPUTS), "--verbose"], capsys)
    assert code == 0
    quiet_code, quiet_out, quiet_err = _run(["run", str(DICE), "--inputs", str(DICE_INPUTS)], capsys)
    assert (quiet_code, quiet_out, quiet_err) == (0, out, "")  # stdout is the same with or without --verbose
    lines = err.splitlines()
    model = ovonehot.load(DICE)
    nodes = model.graph.nodes
    assert len(lines) == len(nodes) + 1
    for k, (line, node) in enumerate(zip(lines, nodes, strict=False)):
        m = LINE.fullmatch(line)
        assert m, line
        assert (int(m[1]), int(m[2]), int(m[3]), m[4], m[5]) == (
            k + 1,
            len(nodes),
            node.id,
            node.type_version,
            node.name,
        )
        infos = model.inference.outputs[k]
        if not infos:
            assert m[6] == "-"
            continue
        described = m[6].split(", ")
        assert [d.split("[")[0] for d in described] == [str(i.element_type) for i in infos]
    assert re.fullmatch(
        rf"ran {len(nodes)} nodes in \d+\.\d{{3}} ms \(\d+\.\d{{3}} ms in kernels\)", lines[-1]
    )


def test_shapes_are_the_actual_ones_for_interval_inputs(tmp_path, capsys):  # type: ignore[no-untyped-def]
    model = ovonehot.load(INTERVAL)
    assert str(model.inputs[0].shape) == "[1..4,2..]"
    np.save(tmp_path / "x.npy", np.array([[0, 1, 2], [2, 1, 0]], np.int32))
    code, _, err = _run(["run", str(INTERVAL), "--inputs", str(tmp_path / "x.npy"), "--verbose"], capsys)
    assert code == 0
    lines = err.splitlines()
    param = next(line for line in lines if "Parameter" in line)
    assert param.endswith(" ms") and ": i32[2,3] " in param
    onehot = next(line for line in lines if "OneHot" in line)
    result = next(
        iter(ovonehot.load(INTERVAL).run({model.inputs[0].name: np.load(tmp_path / "x.npy")}).values())
    )
    expected = f"{model.outputs[0].element_type}[{','.join(str(n) for n in result.shape)}]"
    assert f": {expected} " in onehot


def test_verbose_lines_stop_where_a_run_fails(tmp_path, capsys):  # type: ignore[no-untyped-def]
    four = ROOT / "ir" / "onehot" / "v1_all_params_f32.xml"
    with np.load(four.with_suffix(".npz")) as z:
        feeds = {k: z[k] for k in z.files}
    depth = next(k for k in feeds if "depth" in k.lower())
    feeds[depth] = np.array(-3, feeds[depth].dtype)
    np.savez(tmp_path / "in.npz", **feeds)
    code, _, err = _run(["run", str(four), "--inputs", str(tmp_path / "in.npz"), "--verbose"], capsys)
    assert code == 2
    lines = err.splitlines()
    assert all(LINE.fullmatch(line) for line in lines[:-1])
    assert lines[-1].startswith("error: ") and "OneHot" in lines[-1]
    assert len(lines) - 1 == 4  # the four Parameters ran, then OneHot failed
