"""Hostile input and output files (docs/robustness.md): each refused in one line, or survived.

* .npz archives: an encrypted member or compression method 99 (AES) is a clean error;
  names and .npy headers are checked against the model's Parameters before anything is
  inflated, a declared size past the memory budget is refused, and a member is never
  inflated beyond what its header declares (the "corrupt data" members below prove the
  order: reading their data would fail differently);
* ``--inputs`` naming a FIFO, a directory or a device is refused before it is opened;
* outputs: ``--output ''`` is a usage error, bad paths are refused before any work, an
  overwrite keeps the target's mode, a write that fails or a process killed mid-write
  leaves no temporary file and the old target whole.

None of this needs OpenVINO.
"""

from __future__ import annotations

import io
import os
import signal
import stat
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "ir" / "onehot"
MODEL = CORPUS / "v1_axis-1_i64_f32.xml"  # one input: indices i64 [3,4]
INDICES = np.array([[0, 1, 2, 3]] * 3, np.int64)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str, *fragments: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


def npy_bytes(array: np.ndarray) -> bytes:
    f = io.BytesIO()
    np.lib.format.write_array(f, array, allow_pickle=False)
    return f.getvalue()


def npy_header(shape: tuple[int, ...], dtype: str = "<i8") -> bytes:
    """An .npy header alone, declaring any shape (its data is up to the caller)."""
    f = io.BytesIO()
    np.lib.format.write_array_header_1_0(f, {"descr": dtype, "fortran_order": False, "shape": shape})
    return f.getvalue()


def write_zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def patch_first_member(path: Path, *, flag: int | None = None, method: int | None = None) -> None:
    """Set the general-purpose flag bits or the compression method of the first member, in both its
    local header and its central directory entry."""
    data = bytearray(path.read_bytes())
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    if flag is not None:
        struct.pack_into("<H", data, local + 6, flag)
        struct.pack_into("<H", data, central + 8, flag)
    if method is not None:
        struct.pack_into("<H", data, local + 8, method)
        struct.pack_into("<H", data, central + 10, method)
    path.write_bytes(bytes(data))


def corrupt_deflate_member(header: bytes) -> bytes:
    """Raw bytes for a stored member: a valid .npy header, then data nobody should read."""
    return header + b"\xff" * 64


# -- .npz archives ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "message"),
    [({"flag": 0x1}, "is encrypted"), ({"method": 99}, "uses compression method 99")],
    ids=["encrypted", "method-99"],
)
def test_odd_npz_members_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], patch: dict[str, int], message: str
) -> None:
    npz = write_zip(tmp_path / "x.npz", {"indices.npy": npy_bytes(INDICES)})
    patch_first_member(npz, **patch)
    code, _, err = run(["run", str(MODEL), "--inputs", str(npz)], capsys)
    assert code == 2
    one_line_error(err, "x.npz", "'indices.npy'", message)


def test_npz_member_names_are_checked_before_anything_is_inflated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "junk" is no input of the model; its data is not a deflate stream, so inflating it would fail
    # with a different error.
    npz = tmp_path / "x.npz"
    with zipfile.ZipFile(npz, "w") as z:
        z.writestr("indices.npy", npy_bytes(INDICES), compress_type=zipfile.ZIP_DEFLATED)
        info = zipfile.ZipInfo("junk.npy")
        info.compress_type = zipfile.ZIP_STORED
        z.writestr(info, corrupt_deflate_member(npy_header((8,))))
    code, _, err = run(["run", str(MODEL), "--inputs", str(npz)], capsys)
    assert code == 2
    one_line_error(err, "no input named 'junk'")


@pytest.mark.parametrize(
    ("shape", "dtype", "message"),
    [((3, 5), "<i8", "got an array of shape [3, 5]"), ((3, 4), "<f4", "got float32 values, expected i64")],
    ids=["shape", "dtype"],
)
def test_npz_headers_are_checked_before_data_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: tuple[int, ...], dtype: str, message: str
) -> None:
    # The header is wrong for the Parameter and the data is truncated: the header decides.
    npz = write_zip(tmp_path / "x.npz", {"indices.npy": npy_header(shape, dtype) + b"\0" * 3})
    code, _, err = run(["run", str(MODEL), "--inputs", str(npz)], capsys)
    assert code == 2
    one_line_error(err, message)


def test_zip_bomb_refused_from_its_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A member declaring 2**40 elements (8 TiB): refused against the memory budget, not inflated.
    (The model's input is dynamic enough for the shape: an interval-dims model.)"""
    model = CORPUS / "v16_interval_dims.xml"  # indices i32 [1..4,2..]
    bomb = tmp_path / "bomb.npz"
    with (
        zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z,
        z.open("indices.npy", "w", force_zip64=True) as member,
    ):
        member.write(npy_header((4, 2**40), "<i4"))
        zeros = bytes(1 << 20)
        for _ in range(8):  # 8 MiB of the 4 TiB it claims, as a real bomb's start
            member.write(zeros)
    code, _, err = run(["run", str(model), "--inputs", str(bomb)], capsys)
    assert code == 2
    one_line_error(err, "bomb.npz", "its header declares 17592186044416 bytes", "memory")


def test_a_member_is_never_inflated_past_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The data the header declares, then 64 MiB more in the member: only the declared bytes are read
    (the trailing bytes would not even fit the array), and the run succeeds."""
    npz = tmp_path / "x.npz"
    with (
        zipfile.ZipFile(npz, "w", compression=zipfile.ZIP_DEFLATED) as z,
        z.open("indices.npy", "w", force_zip64=True) as member,
    ):
        member.write(npy_bytes(INDICES))
        for _ in range(64):
            member.write(bytes(1 << 20))
    code, out, err = run(["run", str(MODEL), "--inputs", str(npz)], capsys)
    assert (code, err) == (0, "")
    assert "onehot: shape [3, 4, 5]" in out


def test_npz_arrays_read_back_exactly(tmp_path: Path) -> None:
    """The bounded reader gives what np.load gives: C and Fortran order, 0-d, empty, strings, raw bytes."""
    from ovonehot.npyio import load_archive, load_array

    arrays = {
        "c": np.arange(24, dtype=np.int32).reshape(2, 3, 4),
        "f": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "scalar": np.array(7, np.uint8),
        "empty": np.zeros((0, 3), np.float32),
        "text": np.array(["a", "bcd"]),
        "raw": np.frombuffer(b"\x01\x02\x03\x04", dtype="V2"),
    }
    np.savez_compressed(tmp_path / "all.npz", **arrays)
    got = load_archive(tmp_path / "all.npz")
    assert sorted(got) == sorted(arrays)
    for key, value in arrays.items():
        assert got[key].dtype == value.dtype and got[key].shape == value.shape
        assert got[key].tobytes() == value.tobytes(), key
    np.save(tmp_path / "f.npy", arrays["f"])
    assert np.array_equal(load_array(tmp_path / "f.npy"), arrays["f"])


def test_pickled_npy_is_refused_from_its_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "x.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    code, _, err = run(["run", str(MODEL), "--inputs", str(tmp_path / "x.npy")], capsys)
    assert code == 2
    one_line_error(err, "pickle")


# -- inputs that are not regular files -----------------------------------------------------------------


def test_fifo_input_is_refused_without_opening_it(tmp_path: Path) -> None:
    """A FIFO with no writer would block open() forever: the command must refuse it at once (run in
    a child with a timeout, so a regression fails instead of hanging the suite)."""
    fifo = tmp_path / "x.npy"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "ovonehot", "run", str(MODEL), "--inputs", f"indices={fifo}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "x.npy", "is a FIFO, not a regular .npy file")


@pytest.mark.parametrize("kind", ["directory", "device"])
def test_other_non_regular_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = tmp_path if kind == "directory" else Path("/dev/zero")
    code, _, err = run(["run", str(MODEL), "--inputs", f"indices={path}"], capsys)
    assert code == 2
    one_line_error(err, f"is a {kind}")


# -- outputs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["run", str(MODEL), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--output", ""],
        ["run", str(MODEL), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--dump-intermediates", ""],
        ["diff", str(MODEL), "--json-out", ""],
        ["diff", str(MODEL), "--out-dir", ""],
    ],
    ids=["output", "dump-intermediates", "json", "save"],
)
def test_empty_output_name_is_a_usage_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    one_line_error(err, "an empty")
    assert list(tmp_path.iterdir()) == []


def test_bad_output_path_is_refused_before_the_model_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The model is broken (exit 3 if read): the missing output directory (exit 2) is found first.
    broken = tmp_path / "m.xml"
    broken.write_text("<net")
    code, _, err = run(["run", str(broken), "--output", str(tmp_path / "nowhere" / "out.npz")], capsys)
    assert code == 2
    one_line_error(err, "does not exist")
    code, _, err = run(["run", str(broken), "--inputs", str(tmp_path / "missing.npz")], capsys)
    assert code == 2
    one_line_error(err, "missing.npz: no such file")


def test_overwrite_keeps_the_targets_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.npz"
    out.write_bytes(b"old")
    out.chmod(0o600)
    code, _, err = run(
        ["run", str(MODEL), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--output", str(out)], capsys
    )
    assert (code, err) == (0, "")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with np.load(out) as z:
        assert z["onehot"].shape == (3, 4, 5)
    fresh = tmp_path / "fresh.npz"
    umask = os.umask(0o022)
    os.umask(umask)
    assert (
        main(["run", str(MODEL), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--output", str(fresh)])
        == 0
    )
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.npz", "out.npz"]


# A child that starts an atomic write, says so, and waits to be killed mid-write.
_KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from ovonehot import atomic
    if sys.argv[2] == "named":  # a file system without O_TMPFILE
        atomic.AtomicFile._open_anonymous = lambda self: None
    f = atomic.AtomicFile(sys.argv[1])
    f.file.write(b"x" * (1 << 20))
    f.file.flush()
    print("writing", flush=True)
    time.sleep(600)
""")


@pytest.mark.parametrize("scheme", ["anonymous", "named"])
def test_sigkill_mid_write_leaves_no_temporary_file(tmp_path: Path, scheme: str) -> None:
    target = tmp_path / "out.npz"
    target.write_bytes(b"old contents")
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target), scheme], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert target.read_bytes() == b"old contents"
    left = [p.name for p in tmp_path.iterdir() if p != target]
    if scheme == "anonymous":
        assert left == []  # O_TMPFILE: the kernel dropped the unnamed file
    else:
        assert len(left) == 1 and ".ovonehot-" in left[0]  # what the next write cleans up
    from ovonehot.npyio import save_archive

    save_archive(target, {"y": np.arange(3)})
    assert [p.name for p in tmp_path.iterdir()] == ["out.npz"]
    with np.load(target) as z:
        assert z["y"].tolist() == [0, 1, 2]


_FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    import numpy as np
    from ovonehot.cli import main
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    sys.exit(main(sys.argv[1:]))
""")


def test_output_that_cannot_be_written_leaves_nothing_half_written(tmp_path: Path) -> None:
    """A file-size limit of 1 MiB (as a full disk): the 2 MiB output fails, the old file stays whole."""
    x = tmp_path / "x.npy"
    np.save(x, np.zeros((3, 4), np.int64))
    model = CORPUS / "v1_all_params_f32.xml"  # indices i32 [4], depth i32, on/off f32
    inputs = tmp_path / "in.npz"
    with np.load(CORPUS / "v1_all_params_f32.npz") as z:
        feed = {k: z[k] for k in z.files}
    feed["depth"] = np.array(200_000, feed["depth"].dtype)  # a [4, 200000] f32 output: 3.2 MB
    np.savez(inputs, **feed)
    out = tmp_path / "out.npz"
    out.write_bytes(b"old contents")
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, "run", str(model), "--inputs", str(inputs), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "out.npz: cannot write it")
    assert out.read_bytes() == b"old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npz", "out.npz", "x.npy"]


# -- the oracle child out of memory -------------------------------------------------------------------------


def test_oracle_child_out_of_memory_is_an_openvino_failure(tmp_path: Path) -> None:
    """The oracle child dies of MemoryError (std::bad_alloc in OpenVINO, ENOMEM): exit 4 in one line,
    not 'ovonehot bug in the oracle process'.  The failure comes from a sitecustomize the child loads."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        textwrap.dedent("""
        import sys
        if sys.argv[:1] == ["-c"]:  # the oracle child only
            import ovonehot.oracle.openvino_runtime as oracle
            def run(*args, **kwargs):
                raise MemoryError()
            oracle.run = run
    """)
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ovonehot",
            "diff",
            str(MODEL),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr and "ovonehot bug" not in done.stdout + done.stderr
    assert done.returncode == 4, done.stdout + done.stderr
    assert "ran out of memory" in done.stdout + done.stderr


def test_error_lines_are_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An error quoting a 60 kB member name stays one bounded line."""
    long_name = "n" * 60_000
    np.savez(tmp_path / "x.npz", **{long_name: INDICES})
    code, _, err = run(["run", str(MODEL), "--inputs", str(tmp_path / "x.npz")], capsys)
    assert code == 2
    line = one_line_error(err, "more characters")
    assert len(line) < 2200
