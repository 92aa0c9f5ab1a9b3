"""``IsolatedOracle``: OpenVINO's oracles in a child process, a crash reported as an OpenVINOError.

The child's answers must be the in-process oracle's (bit for bit), its errors must keep their
ovonehot type, and a child killed by a signal must become an OpenVINOError naming it, after
which the next run starts a new child.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="the oracles are OpenVINO")
from openvino import opset16

from ovonehot import cli
from ovonehot.errors import InputError, IRError, OpenVINOError, OracleRefusal
from ovonehot.oracle import openvino_runtime as oracle
from ovonehot.oracle.common import Complaint
from ovonehot.oracle.process import IsolatedOracle


@pytest.fixture(scope="module")
def model_xml(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = opset16.parameter([4], ov.Type.i64, name="idx")
    node = opset16.one_hot(
        p,
        opset16.constant(np.int64(3)),
        opset16.constant(np.float32(-0.0)),
        opset16.constant(np.float32(np.nan)),
        -1,
        negative_indices_mode="normalize",
    )
    node.output(0).get_tensor().set_names({"out"})
    xml = tmp_path_factory.mktemp("m") / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    return xml


INPUTS = {"idx": np.array([0, -1, 2**32 + 1, 5], np.int64)}


def test_child_answers_like_the_in_process_oracles(model_xml: Path) -> None:
    isolated = IsolatedOracle()
    try:
        for name in ("reference", "cpu"):
            theirs = isolated.run(name, model_xml, INPUTS, keep_intermediates=True)
            here = oracle.run(name, model_xml, INPUTS, keep_intermediates=True)
            assert list(theirs) == list(here) == ["out"]
            assert theirs["out"].dtype == here["out"].dtype
            assert theirs["out"].tobytes() == here["out"].tobytes()
            assert theirs.intermediates.keys() == here.intermediates.keys()
    finally:
        isolated.close()


def test_errors_keep_their_type(model_xml: Path) -> None:
    isolated = IsolatedOracle()
    try:
        with pytest.raises(InputError, match="missing inputs: idx"):
            isolated.run("reference", model_xml, {})
        with pytest.raises(IRError, match=r"missing\.xml: no such file"):
            isolated.run("reference", model_xml.with_name("missing.xml"), INPUTS)
    finally:
        isolated.close()


def test_a_refusal_keeps_its_fields_and_complaints(tmp_path: Path) -> None:
    # The CPU plugin refuses i8 OneHot indices ("Only I32 is supported"): the child's refusal
    # arrives with the same cause and the same complaints read from OpenVINO's text.
    p = opset16.parameter([3], ov.Type.i8, name="idx")
    node = opset16.one_hot(
        p, opset16.constant(np.int64(4)), opset16.constant(np.float32(1)), opset16.constant(np.float32(0)), -1
    )
    xml = tmp_path / "i8.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    feeds = {"idx": np.array([0, 1, 3], np.int8)}
    with pytest.raises(OracleRefusal) as here:
        oracle.run("cpu", xml, feeds)
    isolated = IsolatedOracle()
    try:
        with pytest.raises(OracleRefusal) as there:
            isolated.run("cpu", xml, feeds)
    finally:
        isolated.close()
    assert there.value.cause == here.value.cause == "refused"
    assert there.value.complaints == here.value.complaints
    assert Complaint("only-i32-indices") in here.value.complaints


def test_a_child_killed_on_its_first_run_is_an_openvino_error(model_xml: Path) -> None:
    isolated = IsolatedOracle()
    try:
        started = isolated._started()  # a fresh child, which has served nothing
        pid = started.proc.pid
        os.kill(pid, signal.SIGSEGV)  # what a crash inside OpenVINO does to the child
        started.proc.wait(timeout=30)
        with pytest.raises(
            OpenVINOError,
            match=r"OpenVINO crashed the process running the reference oracle "
            r"\(killed by SIGSEGV\)",
        ):
            isolated.run("reference", model_xml, INPUTS)
        again = isolated.run("reference", model_xml, INPUTS)  # the next run starts a new child
        assert isolated.pid not in (None, pid)
        assert again["out"].tobytes() == oracle.reference_run(model_xml, INPUTS)["out"].tobytes()
    finally:
        isolated.close()
    assert isolated.pid is None


def test_a_child_killed_by_sigkill_is_not_called_a_crash(model_xml: Path) -> None:
    """SIGKILL is what the kernel's out-of-memory killer sends (the CPU oracle keeping every node
    of a 5,000-layer video model for --all-layers): said as such, not as OpenVINO crashing."""
    isolated = IsolatedOracle()
    try:
        started = isolated._started()
        os.kill(started.proc.pid, signal.SIGKILL)
        started.proc.wait(timeout=30)
        with pytest.raises(
            OpenVINOError, match=r"was killed \(killed by SIGKILL: the kernel's out-of-memory"
        ) as got:
            isolated.run("reference", model_xml, INPUTS)
        assert "crashed" not in str(got.value)
    finally:
        isolated.close()


def test_a_child_dying_after_earlier_runs_is_retried_fresh(model_xml: Path) -> None:
    # An earlier run may have corrupted the child (OpenVINO writing out of bounds crashes a later
    # compile): the run is not blamed for it before a fresh child has crashed on it too.
    isolated = IsolatedOracle()
    try:
        first = isolated.run("cpu", model_xml, INPUTS)
        started = isolated._started()
        pid = started.proc.pid
        os.kill(pid, signal.SIGSEGV)
        started.proc.wait(timeout=30)
        again = isolated.run("cpu", model_xml, INPUTS)
        assert isolated.pid not in (None, pid)
        assert again["out"].tobytes() == first["out"].tobytes()
    finally:
        isolated.close()


def test_cli_diff_survives_a_plugin_bug_that_corrupts_the_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OneHot(f8e4m3) -> Convert(boolean) of dynamic shape: the CPU plugin returns an empty tensor and
    the process running it often segfaults at its next compile (docs/FINDINGS.md, bug 4).  In-process
    this killed ``ovonehot diff``; now it is an unexplained difference (exit 1) with a report."""
    p = opset16.parameter([-1], ov.Type.i32, name="idx")
    hot = opset16.one_hot(
        p,
        opset16.constant(np.int64(3)),
        opset16.constant(1.0, dtype=ov.Type.f8e4m3),
        opset16.constant(0.0, dtype=ov.Type.f8e4m3),
        -1,
    )
    out = opset16.convert(hot, ov.Type.boolean)
    out.output(0).get_tensor().set_names({"out"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([out.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    np.save(tmp_path / "idx.npy", np.array([0, 2, 5, -1], np.int32))
    try:
        code = cli.main(["diff", str(xml), "--inputs", str(tmp_path / "idx.npy"), "--oracle", "both"])
    finally:
        from ovonehot.oracle import process

        process.abandon()  # (the process-wide child this ran in may be corrupted: not for later tests)
    report = capsys.readouterr().out
    assert code == 1, report
    assert "[reference] out: PASS" in report
    assert "[cpu] out: unexplained" in report


def test_diff_from_a_script_without_a_main_guard(model_xml: Path, tmp_path: Path) -> None:
    # multiprocessing's spawn would re-run such a script in the child; a plain ``python -c`` child does not.
    script = tmp_path / "check.py"
    script.write_text(
        f"import sys\nfrom ovonehot.cli import main\nprint('script ran')\n"
        f"sys.exit(main(['diff', {str(model_xml)!r}, '--oracle', 'both']))\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("script ran") == 1 and "-> exit 0" in proc.stdout
    assert proc.stderr == ""


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def test_ctrl_c_during_diff_is_exit_130_without_tracebacks(model_xml: Path, tmp_path: Path) -> None:
    """SIGINT to the process group (a terminal's Ctrl-C) once the oracle child runs: the command
    exits 130 in one line, the child (which ignores SIGINT) prints nothing and is gone, and
    ``--out-dir`` left no partial file."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("needs Linux /proc/PID/task/PID/children to see the oracle child start")
    cmd = [
        sys.executable,
        "-m",
        "ovonehot",
        "diff",
        str(model_xml),
        "--oracle",
        "both",
        "--out-dir",
        str(tmp_path / "saved"),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        while not _children(proc.pid):  # poll until the oracle child exists
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        child = _children(proc.pid)[0]
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    # The diff may have finished just before the signal: then it is a normal run.
    if proc.returncode != 130:
        assert proc.returncode == 0, stdout + stderr
        return
    assert stderr == "error: interrupted\n"
    # The child sees its parent's pipe close and exits; on a loaded machine that takes a moment.
    deadline = time.monotonic() + 20
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        if "zombie" in Path(f"/proc/{child}/status").read_text():
            break
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists() or "zombie" in Path(f"/proc/{child}/status").read_text()
    saved = tmp_path / "saved"
    assert not saved.exists() or not [p for p in saved.iterdir() if p.name.endswith(".tmp")]


def test_a_child_that_never_answers_is_killed_after_the_timeout(
    model_xml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child stuck inside OpenVINO (heap corruption can deadlock it in free()) is killed once
    OVONEHOT_ORACLE_TIMEOUT seconds pass: an OracleRefusal saying so, where diff waited for ever;
    the next run starts a new child."""
    monkeypatch.setenv("OVONEHOT_ORACLE_TIMEOUT", "2")
    isolated = IsolatedOracle()
    try:
        started = isolated._started()
        os.kill(started.proc.pid, signal.SIGSTOP)  # (it takes the request, never answers)
        begun = time.monotonic()
        with pytest.raises(OracleRefusal, match=r"OpenVINO did not answer within 2 s: the process running"):
            isolated.run("reference", model_xml, INPUTS)
        assert time.monotonic() - begun < 30
        assert started.proc.wait(timeout=30) < 0  # killed
        again = isolated.run("reference", model_xml, INPUTS)
        assert again["out"].tobytes() == oracle.reference_run(model_xml, INPUTS)["out"].tobytes()
    finally:
        isolated.close()


def test_the_timeout_setting_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from ovonehot.errors import UsageError
    from ovonehot.oracle import process

    for bad in ("soon", "0", "-3"):
        monkeypatch.setenv("OVONEHOT_ORACLE_TIMEOUT", bad)
        with pytest.raises(UsageError, match="OVONEHOT_ORACLE_TIMEOUT"):
            process.timeout()
    monkeypatch.delenv("OVONEHOT_ORACLE_TIMEOUT")
    assert process.timeout() == process.DEFAULT_TIMEOUT


def test_a_child_dies_with_its_parent(tmp_path: Path) -> None:
    """The oracle's child is killed when the process that started it dies (Linux), even when it
    never reads its socket again: it had outlived a parent killed while waiting for it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("prctl(PR_SET_PDEATHSIG) is Linux's")
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, signal, sys, time\n"
        "from ovonehot.oracle.process import IsolatedOracle\n"
        "child = IsolatedOracle()._started()\n"
        "time.sleep(1.0)\n"  # (the child has run its first line)
        "os.kill(child.proc.pid, signal.SIGSTOP)\n"
        "print(child.proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
    finally:
        parent.kill()
        parent.wait(timeout=30)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the child outlived its parent")
