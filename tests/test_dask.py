"""Scale-out on Dask distributed (ovonehot.differential.engines): ``fuzz`` and a corpus ``diff`` give the same
results, replay folders and summary on a Dask cluster as on one machine, for the same seed.

The cluster is a 2-worker ``LocalCluster`` (worker processes, loopback only, no dashboard),
reached by its scheduler address as a real cluster would be (``--scheduler``); one test runs the
embedded cluster of ``--dask``.  A ``sitecustomize`` on PYTHONPATH (inherited by the Dask workers
and by every isolated child) kills the process with SIGSEGV, as an OpenVINO crash does, in case 2
of seed 11 and on any model named ``crash-me``: the crash must cost that one item, on every engine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openvino", reason="fuzz and diff run against OpenVINO")

from ovonehot import _console, cli
from ovonehot.differential import engines
from ovonehot.differential.fuzz import campaign

ROOT = Path(__file__).resolve().parent.parent
CRASH_SEED = 11
HOOK = f"""\
import os, signal
import ovonehot.differential.diff as diff
import ovonehot.differential.fuzz as fuzz
_case = fuzz.run_case
_diff = diff.diff_model
_now = {{}}
def run_case(seed, index, *args, **kwargs):
    _now["case"] = (seed, index)
    return _case(seed, index, *args, **kwargs)
def diff_model(model, *args, **kwargs):
    if _now.get("case") == ({CRASH_SEED}, 2) or "crash-me" in str(model.path):
        os.kill(os.getpid(), signal.SIGSEGV)
    return _diff(model, *args, **kwargs)
fuzz.run_case = run_case
diff.diff_model = diff_model
"""


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The crash hook on PYTHONPATH for every process started from here on."""
    hook = tmp_path_factory.mktemp("hook")
    (hook / "sitecustomize.py").write_text(HOOK)
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), before]))
    yield
    if before is None:
        del os.environ["PYTHONPATH"]
    else:
        os.environ["PYTHONPATH"] = before


@pytest.fixture(scope="module")
def scheduler(hooked: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        local_directory=str(tmp_path_factory.mktemp("dask")),
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _untimed(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary without its timing fields (the whole campaign's and each item's seconds)."""
    out = {k: v for k, v in summary.items() if k != "seconds"}
    for key in ("cases", "models"):
        if key in out:
            out[key] = [{k: v for k, v in item.items() if k != "seconds"} for item in out[key]]
    return out


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "summary.json"
    }


def _table(text: str) -> str:
    return re.sub(r", [0-9.]+ s", ", T s", text)


def test_fuzz_on_dask_equals_the_process_pool(tmp_path: Path, scheduler: str) -> None:
    out = tmp_path / "out"
    pool = campaign(30, seed=CRASH_SEED, out=out, jobs=2)
    pool_saved, pool_tree = json.loads((out / "summary.json").read_text()), _tree(out)
    shutil.rmtree(out)
    dask = campaign(30, seed=CRASH_SEED, out=out, engine=engines.DaskEngine(address=scheduler))
    dask_saved, dask_tree = json.loads((out / "summary.json").read_text()), _tree(out)

    assert _untimed(dask.as_json()) == _untimed(pool.as_json())
    assert _untimed(dask_saved) == _untimed(pool_saved)
    assert _table(dask.table()) == _table(pool.table())
    assert dask_tree == pool_tree  # the same replay folders, byte for byte
    # Not vacuous: 30 cases ran on both oracles, and case 2's crash cost that case only.
    assert len(dask.results) == 30 and dask.oracles == ("reference", "cpu")
    assert sum(len(r.verdicts) for r in dask.results) >= 60
    crashed = [r for r in dask.results if r.problem.startswith("crash")]
    assert [r.index for r in crashed] == [2] and "exit code -11" in crashed[0].problem
    assert {"model.xml", "inputs.npz", "problem.txt"} <= {p.name for p in Path(crashed[0].folder).iterdir()}
    assert dask.exit_code == 1 and not dask.interrupted and not dask.stopped_by_budget


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "nested").mkdir(parents=True)
    for name in ("v16_all_params_f16", "v16_depth_u64_i32"):
        for ext in (".xml", ".bin"):
            shutil.copy(ROOT / "ir" / "onehot" / f"{name}{ext}", corpus / "nested" / f"{name}{ext}")
    for ext in (".xml", ".bin"):
        shutil.copy(ROOT / "ir" / "invalid" / f"const_outside_bin{ext}", corpus / f"const_outside_bin{ext}")
    shutil.copytree(ROOT / "ir" / "replays" / "cpu-float-convert-saturates", corpus / "replay")
    return corpus


def _diff(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    return code, _table(capsys.readouterr().out)


def test_corpus_diff_same_in_this_process_and_on_dask(
    tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    runs = {}
    for name, flags in (("sequential", []), ("dask", ["--scheduler", scheduler])):
        code, text = _diff(
            ["diff", str(corpus), "--oracle", "both", "--json-out", str(tmp_path / f"{name}.json"), *flags],
            capsys,
        )
        runs[name] = (code, text, _untimed(json.loads((tmp_path / f"{name}.json").read_text())))
    assert runs["dask"] == runs["sequential"]
    code, text, saved = runs["dask"]
    rows = {Path(m["model"]).name: m for m in saved["models"]}
    assert list(rows) == [
        "const_outside_bin.xml",
        "v16_all_params_f16.xml",
        "v16_depth_u64_i32.xml",
        "replay",
    ]
    # Each row is what `ovonehot diff MODEL` alone says: its report's counts and exit status.
    for row in saved["models"]:
        alone = cli.main(
            ["diff", row["model"], "--oracle", "both", "--json-out", str(tmp_path / "alone.json")]
        )
        capsys.readouterr()
        assert row["exit_code"] == alone, row["model"]
        if row["report"] is not None:
            report = json.loads((tmp_path / "alone.json").read_text())
            assert row["counts"] == report["counts"] and row["report"]["verdicts"] == report["verdicts"]
    assert (
        rows["const_outside_bin.xml"]["exit_code"] == 3
        and "outside the weights" in rows["const_outside_bin.xml"]["error"]
    )
    assert (
        sum(rows["replay"]["counts"].values()) == 2 and rows["v16_all_params_f16.xml"]["counts"]["PASS"] == 2
    )
    assert code == 3 and text.rstrip().endswith("exit 3") and "1 exit 3" in text


def test_corpus_diff_crash_costs_one_model(
    tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model that kills its worker's isolated child is one row (exit 4), on a pool and on Dask alike."""
    models = [str(ROOT / "ir" / "onehot" / "v16_depth_u64_i32.xml"), str(tmp_path / "crash-me.xml")]
    for ext in (".xml", ".bin"):
        shutil.copy(ROOT / "ir" / "onehot" / f"v16_depth_u64_i32{ext}", tmp_path / f"crash-me{ext}")
    pool = _diff(["diff", *models, "--jobs", "2", "--oracle", "reference"], capsys)
    dask = _diff(["diff", *models, "--scheduler", scheduler, "--oracle", "reference"], capsys)
    assert dask == pool
    code, text = dask
    assert code == 4 and "models: 1 exit 0, 1 exit 4" in text
    assert re.search(r"crash-me\.xml .* 4  crash: the worker process died \(killed by SIGSEGV\)", text), text


def test_embedded_local_cluster(tmp_path: Path, hooked: None, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["fuzz", "--cases", "4", "--seed", "5", "--oracle", "reference"]
    assert cli.main([*base, "--jobs", "0", "--out-dir", str(tmp_path / "here")]) == 0
    here = _table(capsys.readouterr().out)
    assert cli.main([*base, "--dask", "--jobs", "2", "--out-dir", str(tmp_path / "dask")]) == 0
    assert _table(capsys.readouterr().out) == here and "cases: 4 ok, 0 failing" in here
    saved = [_untimed(json.loads((tmp_path / d / "summary.json").read_text())) for d in ("here", "dask")]
    assert saved[0] == saved[1]


def test_ctrl_c_on_dask_keeps_the_cases_that_finished(tmp_path: Path) -> None:
    """A terminal's Ctrl-C (SIGINT to the whole process group, Dask workers included): exit 130, no
    traceback, the finished cases' summary printed and saved, no work or scratch directory left."""
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
        "--dask",
        "--jobs",
        "2",
        "--oracle",
        "reference",
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(work_root)},
        start_new_session=True,
    )
    try:
        seen: set[str] = set()
        while len(seen) < 4:  # the workers' children have started 4 cases: at least 2 finished
            assert proc.poll() is None, proc.communicate()
            seen.update(p.name for p in work_root.glob("ovonehot-fuzz-*/case*"))
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert "(interrupted: the cases that finished)" in stdout and "exit 130" in stdout
    saved = json.loads((out / "summary.json").read_text())
    assert saved["interrupted"] and saved["exit_code"] == 130 and 2 <= len(saved["cases"]) < 5000
    assert f"fuzz: {len(saved['cases'])} cases" in stdout
    assert not list(work_root.iterdir()), "work and scratch directories are removed (the workers' and Dask's)"


class _DropsACtrlC:
    """Garbage whose ``__del__`` takes a Ctrl-C: Python drops the KeyboardInterrupt raised there,
    as it did in Dask's ``Future.__del__`` (the campaign then ran to its end)."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the handler runs between bytecodes, raising here
            time.sleep(0.001)


@pytest.mark.parametrize("jobs", [0, 1])
def test_a_ctrl_c_dropped_in_a_del_still_stops_the_campaign(
    jobs: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command's SIGINT handler remembers a Ctrl-C: dropped inside a ``__del__``, it is raised
    again before the next item, so the campaign stops before its first case here (not after all 50),
    and the dropped exception is not printed."""
    saved = signal.getsignal(signal.SIGINT), sys.unraisablehook
    try:
        _console.catch_interrupts()
        garbage = _DropsACtrlC()
        del garbage
        assert _console._pending, "the Ctrl-C came and was dropped"
        summary = campaign(50, seed=3, oracles=("reference",), jobs=jobs)
    finally:
        signal.signal(signal.SIGINT, saved[0])
        sys.unraisablehook = saved[1]
    assert summary.interrupted and summary.results == []
    assert not _console._pending, "handled: the next campaign is not interrupted"
    err = capsys.readouterr().err
    assert "KeyboardInterrupt" not in err and "Exception ignored" not in err, err


def test_a_ctrl_c_dropped_during_a_command_is_exit_130(capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C that Python dropped while a command ran: its output kept, then exit 130 and the one
    line ``error: interrupted``."""
    model = ROOT / "ir" / "onehot" / "v16_all_params_f16.xml"
    saved = signal.getsignal(signal.SIGINT), sys.unraisablehook
    try:
        _console.catch_interrupts()
        garbage = _DropsACtrlC()
        del garbage
        code = cli.main(["run", str(model)])
    finally:
        signal.signal(signal.SIGINT, saved[0])
        sys.unraisablehook = saved[1]
    out, err = capsys.readouterr()
    assert code == 130 and err == "error: interrupted\n" and not _console._pending
    assert "generated inputs" in out, out


def test_dask_is_imported_only_when_chosen(tmp_path: Path) -> None:
    model = ROOT / "ir" / "onehot" / "v16_all_params_f16.xml"
    code = (
        "import sys\nfrom ovonehot import cli\n"
        f"assert cli.main(['fuzz', '--cases', '1', '--oracle', 'reference', '--jobs', '1']) == 0\n"
        f"assert cli.main(['diff', {str(model)!r}, {str(model)!r}, '--jobs', '1']) == 0\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fuzz", "--dask", "--jobs", "0"], "--jobs 0 runs in this process"),
        (
            ["fuzz", "--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"],
            "with --scheduler the cluster has its own",
        ),
        (["fuzz", "--jobs", "-1"], "--jobs must be >= 0"),
        (
            ["fuzz", "--scheduler", "no-port-here", "--cases", "1"],
            "--scheduler no-port-here: cannot reach a Dask",
        ),
        (["diff", "MODEL", "--dask"], "are for a corpus"),
        (["diff", "MODEL", "MODEL", "--inputs", "x.npy"], "--inputs is for one model"),
        (["diff", "MODEL", "MODEL", "--bin", "x.bin"], "--bin is for one model"),
        (["diff", "MODEL", "no/such/dir"], "no/such/dir: no such model, replay folder or directory"),
        (["diff", "EMPTY"], ": no model (.xml) or replay folder in this directory"),
    ],
    ids=[
        "dask-jobs-0",
        "scheduler-and-jobs",
        "negative-jobs",
        "scheduler-address",
        "single-model-dask",
        "corpus-inputs",
        "corpus-bin",
        "corpus-missing",
        "corpus-empty",
    ],
)
def test_usage_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    model = str(ROOT / "ir" / "onehot" / "v16_all_params_f16.xml")
    argv = [model if a == "MODEL" else str(tmp_path / "empty") if a == "EMPTY" else a for a in argv]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_ctrl_c_during_a_corpus_diff(tmp_path: Path) -> None:
    """Ctrl-C on a corpus diff (one model after the other here): the table of the models that
    finished, exit 130, no traceback."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(300):
        for ext in (".xml", ".bin"):
            shutil.copy(ROOT / "ir" / "onehot" / f"v16_depth_u64_i32{ext}", corpus / f"m{i:03d}{ext}")
    saved = tmp_path / "saved"
    cmd = [
        sys.executable,
        "-m",
        "ovonehot",
        "diff",
        str(corpus),
        "--out-dir",
        str(saved),
        "--json-out",
        str(tmp_path / "report.json"),
    ]
    # OpenVINO's telemetry child (whose traceback a Ctrl-C used to print) is never started:
    # ovonehot imports openvino through oracle.common.import_openvino, which blocks it.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        while not saved.is_dir() or len(list(saved.iterdir())) < 3:  # 3 models saved: at least 2 finished
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["interrupted"] and report["exit_code"] == 130 and 2 <= len(report["models"]) < 300
    assert f"diff: {len(report['models'])} of 300 models" in stdout and "(interrupted" in stdout
    assert stdout.rstrip().endswith("exit 130")
