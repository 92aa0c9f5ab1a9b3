"""``ovonehot fuzz``, its graph generator and the IR writer it relies on.

The bounded campaign below is the CI run: 400 generated cases (our writer and OpenVINO's
save_model), each diffed against OpenVINO's reference and CPU plugin, with zero "ours
wrong" or "unexplained" outputs (``ovonehot fuzz --cases 1000 --seed 2024 --jobs 2`` is
the issue's full campaign; no test asserts how long anything takes).
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="fuzz diffs against OpenVINO")

from ovonehot import cli
from ovonehot.differential.fuzz import campaign, run_case
from ovonehot.differential.fuzz_graphs import generate
from ovonehot.ir.reader import read_ir
from ovonehot.ir.writer import to_bytes, write_ir
from ovonehot.model import load
from ovonehot.oracle import openvino_runtime as oracle

CORPUS = sorted((Path(__file__).parent.parent / "ir" / "onehot").glob("*.xml"))

# -- the generator ------------------------------------------------------------------------------


def test_generator_is_deterministic() -> None:
    for index in range(20):
        a, b = generate(3, index), generate(3, index)
        assert to_bytes(a.graph, a.inference) == to_bytes(b.graph, b.inference)
        assert a.shapes == b.shapes and a.description == b.description


def test_generator_covers_the_space() -> None:
    families, versions, modes, ranks, index_types, value_types = (Counter() for _ in range(6))
    dynamic_dims = interval_dims = dynamic_rank = 0
    for index in range(400):
        case = generate(7, index)
        families[case.family] += 1
        for i, node in enumerate(case.graph.nodes):
            if node.type != "OneHot":
                continue
            versions[node.version] += 1
            modes[node.attr("negative_indices_mode", "-")] += 1
            idx, _, on, _ = case.inference.input_infos(i)
            index_types[idx.element_type] += 1
            value_types[on.element_type] += 1
            if idx.shape.rank_is_static:
                ranks[idx.shape.rank] += 1
                dynamic_dims += any(d.max is None for d in idx.shape)
                interval_dims += any(not d.is_static and d.max is not None for d in idx.shape)
            else:
                dynamic_rank += 1
    assert set(families) == {"single", "convert", "multi", "depth-param", "depth-shape", "elementwise"}
    assert set(versions) == {"opset1", "opset16"}
    assert {"ignore_negative", "normalize", "-"} <= set(modes)
    assert set(range(7)) <= set(ranks)
    assert len(index_types) >= 12 and len(value_types) >= 14
    assert dynamic_dims and interval_dims and dynamic_rank


# -- the writer --------------------------------------------------------------------------------------


@pytest.mark.parametrize("xml", CORPUS[:40], ids=lambda p: p.stem)
def test_writer_round_trips_the_corpus(xml: Path, tmp_path: Path) -> None:
    model = load(xml)
    out = tmp_path / "w.xml"
    write_ir(model.graph, out, inference=model.inference)
    again = read_ir(out)
    assert again == model.graph  # nodes, attributes, ports, names, edges
    for a, b in zip(again.nodes, model.graph.nodes, strict=True):
        if a.payload is not None:
            assert a.payload.tobytes() == b.payload.tobytes() and a.payload.shape == b.payload.shape
    ov.Core().read_model(str(out))  # OpenVINO reads what we wrote


@pytest.mark.parametrize("index", range(0, 60, 3))
def test_written_cases_run_the_same_in_openvino(index: int, tmp_path: Path) -> None:
    """A generated graph written by ovonehot, read back by OpenVINO: its reference gives ovonehot's outputs."""
    from ovonehot.differential.gen_inputs import generate_inputs

    case = generate(21, index)
    xml, _ = write_ir(case.graph, tmp_path / "m.xml", inference=case.inference)
    model = load(xml)
    inputs = generate_inputs(model, index, case.shapes)
    try:
        theirs = oracle.reference_run(xml, inputs)
    except Exception as exc:  # noqa: BLE001 - refusals are diff's business; here only agreement
        pytest.skip(f"OpenVINO's reference does not run this case: {exc}")
    ours = model.run(inputs)
    assert list(ours) == list(theirs)
    for key in ours:
        assert ours[key].shape == theirs[key].shape and ours[key].dtype == theirs[key].dtype


def _plain_single(seed: int, index: int) -> bool:
    """A single-OneHot case with i32/i64 indices and f32 values (the reference runs it)."""
    case = generate(seed, index)
    if case.family != "single":
        return False
    i = case.graph.kind_indices("OneHot")[0]
    idx, _, on, _ = case.inference.input_infos(i)
    return (
        idx.element_type.value in ("i32", "i64")
        and on.element_type.value == "f32"
        and idx.shape.rank_is_static
    )


# -- campaigns -----------------------------------------------------------------------------------------


def test_ci_campaign_400_cases_nothing_unexplained(tmp_path: Path) -> None:
    summary = campaign(400, seed=2024, out=tmp_path / "out", jobs=2)
    assert len(summary.results) == 400
    assert summary.exit_code == 0, summary.table()
    assert not list((tmp_path / "out").glob("case*"))
    verdicts = Counter(v for r in summary.results for _, _, v in r.verdicts)
    assert verdicts["PASS"] > 400 and verdicts["plugin deviation"] > 100
    assert {r.writer for r in summary.results} == {"ovonehot", "ovonehot-v10", "save_model", "save_model-f16"}
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert saved["exit_code"] == 0 and len(saved["cases"]) == 400


def _wait_for_cases(work_root: Path, proc: subprocess.Popen[str], started: int) -> None:
    """Poll until the campaign's workers have started ``started`` cases (each makes a folder in
    the campaign's work directory under TMPDIR), not a fixed sleep."""
    seen: set[str] = set()
    while len(seen) < started:
        assert proc.poll() is None, proc.communicate()
        seen.update(p.name for p in work_root.glob("ovonehot-fuzz-*/case*"))
        time.sleep(0.05)


@pytest.mark.parametrize("group", [False, True], ids=["parent", "process-group"])
def test_ctrl_c_keeps_the_cases_that_finished(tmp_path: Path, group: bool) -> None:
    """SIGINT to the campaign (or to its whole process group, as a terminal's Ctrl-C): exit 130, no
    traceback from it or its workers, the summary of the finished cases printed and saved."""
    work_root = tmp_path / "tmp"
    work_root.mkdir()
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "ovonehot",
        "fuzz",
        "--cases",
        "5000",
        "--seed",
        "3",
        "--out-dir",
        str(out),
        "--jobs",
        "2",
        "--oracle",
        "reference",
    ]
    env = {**os.environ, "TMPDIR": str(work_root)}
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=group
    )
    try:
        _wait_for_cases(work_root, proc, started=4)  # two workers: at least two cases finished
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert "(interrupted: the cases that finished)" in stdout and "exit 130" in stdout
    saved = json.loads((out / "summary.json").read_text())
    assert saved["interrupted"] and saved["exit_code"] == 130
    assert 2 <= len(saved["cases"]) < 5000
    assert f"fuzz: {len(saved['cases'])} cases" in stdout
    assert not list(work_root.glob("ovonehot-fuzz-*")), "the work directory is removed"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_cli_fuzz_exit_0_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fuzz", "--cases", "40", "--seed", "5", "--out-dir", str(tmp_path), "--jobs", "0"]) == 0
    out = capsys.readouterr().out
    assert "outputs by verdict" in out and "plugin deviation" in out and "exit 0" in out
    assert cli.main(["fuzz", "--cases", "5", "--time-budget", "0"]) == 2


def test_a_worker_crash_loses_one_case_not_the_campaign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers are separate interpreters (ovonehot.child): one killed by a signal (as OpenVINO's crashes
    do) is recorded as a crash of its case, and a fresh worker takes the rest.  The kill comes from a
    sitecustomize the workers load (they inherit PYTHONPATH)."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import os, signal\n"
        "import ovonehot.differential.fuzz as fuzz\n"
        "real = fuzz.run_case\n"
        "def run_case(seed, index, *args, **kwargs):\n"
        "    if index == 2:\n"
        "        os.kill(os.getpid(), signal.SIGSEGV)\n"
        "    return real(seed, index, *args, **kwargs)\n"
        "fuzz.run_case = run_case\n"
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])))
    summary = campaign(4, seed=3, oracles=("reference",), out=tmp_path / "out", jobs=1)
    by_index = {r.index: r for r in summary.results}
    assert sorted(by_index) == [0, 1, 2, 3]
    assert by_index[2].failing and "crash" in by_index[2].problem and "-11" in by_index[2].problem
    assert not any(by_index[k].failing for k in (0, 1, 3))


def test_fuzz_from_a_script_without_a_main_guard(tmp_path: Path) -> None:
    # multiprocessing's spawn re-ran such a script in every worker; ovonehot.child workers do not.
    script = tmp_path / "check.py"
    script.write_text(
        "import sys\nfrom ovonehot.cli import main\nprint('script ran')\n"
        f"sys.exit(main(['fuzz', '--cases', '2', '--seed', '1', '--out-dir', {str(tmp_path / 'out')!r}]))\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("script ran") == 1 and "cases: 2 ok, 0 failing" in proc.stdout


def test_cli_fuzz_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a_file").write_text("x")
    assert cli.main(["fuzz", "--cases", "1", "--out-dir", str(tmp_path / "a_file")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'a_file'}: exists and is not a directory\n"


def test_failing_case_is_saved_as_a_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A deliberately wrong OneHot kernel in ovonehot: the case fails and its replay folder reproduces it."""
    from ovonehot import ops

    def shifted(spec: Any) -> Any:  # the spec's kernel on indices + 1
        def evaluate(attrs: Any, inputs: Any) -> Any:
            return spec.evaluate(attrs, [inputs[0] + np.ones((), inputs[0].dtype), *inputs[1:]])

        return dataclasses.replace(spec, evaluate=evaluate, specialize=None)

    planted = [shifted(ops.lookup("OneHot", f"opset{v}")) for v in (1, 16)]
    index = next(i for i in range(100) if _plain_single(9, i))
    with ops.overlay(*planted):
        result = run_case(9, index, ("reference",), tmp_path, tmp_path / "work")
        assert result.failing and result.folder
        folder = Path(result.folder)
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["fuzz"]["case"] == index and manifest["fuzz"]["seed"] == 9
        assert cli.main(["diff", str(folder)]) == 1
        assert "ours wrong" in capsys.readouterr().out
        # its repro script (OpenVINO alone) shows ovonehot's planted outputs differ: exit 1
        assert cli.main(["repro", str(folder)]) == 0
        run = subprocess.run(
            [sys.executable, "-I", str(folder / "repro.py")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert run.returncode == 1 and "the difference reproduces" in run.stdout, run.stdout + run.stderr
    assert cli.main(["diff", str(folder)]) == 0
