"""``ovonehot run``: input specs, input checks, exit statuses, one-line errors, atomic --output.

Exit statuses (issue 2): 0 success, 2 usage error or bad input file, 3 invalid or
unsupported IR.  Every error is one line ``error: ...`` on stderr, never a
traceback.  Most cases call ``ovonehot.cli.main`` in-process; a few run the real
console entry point (``python -m ovonehot``) to see the process's own exit status.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "ir" / "onehot"
ONE_INPUT = CORPUS / "v1_axis-1_i64_f32.xml"  # indices i64 [3,4] -> onehot f32 [3,4,5]
FOUR_INPUTS = CORPUS / "v1_all_params_f32.xml"  # indices i32 [4], depth i32, on/off f32
INTERVAL = CORPUS / "v16_interval_dims.xml"  # indices i32 [1..4,2..]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"


def save(path: Path, array: np.ndarray) -> Path:
    np.save(path, array)
    return path


def four_inputs(tmp_path: Path) -> dict[str, np.ndarray]:
    with np.load(CORPUS / "v1_all_params_f32.npz") as z:
        return {k: z[k] for k in z.files}


# -- the three input spec forms --------------------------------------------------------------


def test_single_npy_for_a_single_input_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = save(tmp_path / "x.npy", np.array([[0, 1, 2, 3]] * 3, np.int64))
    code, out, err = run(["run", str(ONE_INPUT), "--inputs", str(x)], capsys)
    assert (code, err) == (0, "")
    assert "onehot: shape [3, 4, 5] element_type f32" in out


def test_name_equals_npy_for_each_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = four_inputs(tmp_path)
    specs = [f"{k}={save(tmp_path / f'{k}.npy', v)}" for k, v in inputs.items()]
    out_path = tmp_path / "out.npz"
    repeated = [a for spec in specs for a in ("--inputs", spec)]
    code, _, err = run(["run", str(FOUR_INPUTS), *repeated, "--output", str(out_path)], capsys)
    assert (code, err) == (0, "")
    expected = ovonehot.load(FOUR_INPUTS).run(inputs)
    with np.load(out_path) as z:
        assert list(z.files) == list(expected)
        assert z["onehot"].tobytes() == expected["onehot"].tobytes()


def test_all_npz_mixed_with_name_equals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = four_inputs(tmp_path)
    np.savez(tmp_path / "some.npz", indices=inputs["indices"], depth=inputs["depth"])
    on = save(tmp_path / "on.npy", inputs["on_value"])
    off = save(tmp_path / "off.npy", inputs["off_value"])
    code, out, err = run(
        [
            "run",
            str(FOUR_INPUTS),
            "--inputs",
            str(tmp_path / "some.npz"),
            "--inputs",
            f"on_value={on}",
            "--inputs",
            f"off_value={off}",
        ],
        capsys,
    )
    assert (code, err) == (0, "")
    assert "onehot: shape [3, 4] element_type f32" in out


def test_small_outputs_are_printed_with_their_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        ["run", str(CORPUS / "v1_rank0.xml"), "--inputs", str(CORPUS / "v1_rank0.npz")], capsys
    )
    assert code == 0
    with np.load(CORPUS / "v1_rank0.npz") as z:
        expected = ovonehot.load(CORPUS / "v1_rank0.xml").run({"indices": z["indices"]})["onehot"]
    assert np.array2string(expected, separator=", ") in out


# -- input checks: exit 2, one line --------------------------------------------------------

BAD_INPUTS = [
    ("float-for-int", lambda: np.zeros((3, 4), np.float64), ["input 'indices'", "float64", "i64"]),
    ("wrong-rank", lambda: np.zeros((3, 4, 1), np.int64), ["input 'indices'", "shape [3, 4, 1]"]),
    ("wrong-dim", lambda: np.zeros((3, 5), np.int64), ["shape [3, 5]"]),
    ("bool-for-int", lambda: np.zeros((3, 4), np.bool_), ["bool"]),
    ("int-out-of-range", lambda: np.full((3, 4), 2**63, np.uint64), ["do not all fit in i64"]),
    ("strings", lambda: np.full((3, 4), "a"), ["input 'indices'"]),
]


@pytest.mark.parametrize(
    ("make", "fragments"), [(m, f) for _, m, f in BAD_INPUTS], ids=[i for i, _, _ in BAD_INPUTS]
)
def test_bad_input_array_is_refused(
    make, fragments: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = save(tmp_path / "x.npy", make())
    code, _out, err = run(["run", str(ONE_INPUT), "--inputs", str(x)], capsys)
    assert code == 2
    one_line_error(err, *fragments)


@pytest.mark.parametrize("shape", [(5, 2), (2, 1), (0, 3)], ids=["dim0-above-4", "dim1-below-2", "dim0-zero"])
def test_dim_outside_interval_is_refused(
    shape: tuple[int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = save(tmp_path / "x.npy", np.zeros(shape, np.int32))
    code, _, err = run(["run", str(INTERVAL), "--inputs", str(x)], capsys)
    assert code == 2
    one_line_error(err, "[1..4,2..]", f"shape {list(shape)}")


def test_dims_inside_interval_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = save(tmp_path / "x.npy", np.zeros((1, 9), np.int32))
    code, out, err = run(["run", str(INTERVAL), "--inputs", str(x)], capsys)
    assert (code, err) == (0, "")
    assert "shape [1, 9, 3]" in out


def test_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = four_inputs(tmp_path)
    x = save(tmp_path / "i.npy", inputs["indices"])
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", f"indices={x}"], capsys)
    assert code == 2
    one_line_error(err, "missing inputs: depth, on_value, off_value")


def test_inputs_missing_from_what_is_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Inputs given but not all of them: refused (inputs are generated only when none is given)."""
    inputs = four_inputs(tmp_path)
    x = save(tmp_path / "x.npy", inputs["indices"])
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", f"indices={x}"], capsys)
    assert code == 2
    one_line_error(err, "missing inputs: depth")


def test_unknown_input_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = save(tmp_path / "x.npy", np.zeros((3, 4), np.int64))
    code, _, err = run(["run", str(ONE_INPUT), "--inputs", f"labels={x}"], capsys)
    assert code == 2
    one_line_error(err, "no input named 'labels'", "'indices'")


def test_input_given_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = save(tmp_path / "x.npy", np.zeros((3, 4), np.int64))
    code, _, err = run(
        [
            "run",
            str(ONE_INPUT),
            "--inputs",
            f"indices={x}",
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
        ],
        capsys,
    )
    assert code == 2
    one_line_error(err, "given twice")


def test_single_npy_for_a_multi_input_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = save(tmp_path / "x.npy", np.zeros(4, np.int32))
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", str(x)], capsys)
    assert code == 2
    one_line_error(err, "4 inputs", "NAME=FILE.npy")


def test_pickled_npy_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    code, _, err = run(["run", str(ONE_INPUT), "--inputs", str(path)], capsys)
    assert code == 2
    one_line_error(err, "evil.npy")


def test_pickled_npz_member_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evil.npz"
    np.savez(path, indices=np.array([{"a": 1}], dtype=object))
    code, _, err = run(["run", str(ONE_INPUT), "--inputs", str(path)], capsys)
    assert code == 2
    one_line_error(err, "evil.npz")


@pytest.mark.parametrize(
    "content", [b"", b"not numpy", b"\x93NUMPY\x01\x00garbage"], ids=["empty", "text", "bad-header"]
)
def test_unreadable_npy(content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.npy"
    path.write_bytes(content)
    code, _, err = run(["run", str(ONE_INPUT), "--inputs", str(path)], capsys)
    assert code == 2
    one_line_error(err, "x.npy")


def test_missing_inputs_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["run", str(ONE_INPUT), "--inputs", str(tmp_path / "nope.npz")], capsys)
    assert code == 2
    one_line_error(err, "nope.npz", "no such file")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["run"], ["run", str(ONE_INPUT), "--frobnicate"], ["frobnicate"], []):
        code, _, err = run(argv, capsys)
        assert code == 2, argv
        one_line_error(err)


# -- invalid or unsupported IR: exit 3 -------------------------------------------------------


def test_missing_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["run", str(tmp_path / "none.xml")], capsys)
    assert code == 2
    one_line_error(err, "none.xml", "no such file")


def test_not_an_ir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.xml"
    path.write_text("<html><body/></html>")
    code, _, err = run(["run", str(path)], capsys)
    assert code == 3
    one_line_error(err, "not an OpenVINO IR")


def test_missing_bin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.xml"
    path.write_bytes(ONE_INPUT.read_bytes())
    code, _, err = run(["run", str(path), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz")], capsys)
    assert code == 2  # a missing file, as a missing model is
    one_line_error(err, "m.bin: no such file", "type=Const-opset1")


def test_bin_option_points_at_the_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.xml"
    path.write_bytes(ONE_INPUT.read_bytes())
    code, _, err = run(
        [
            "run",
            str(path),
            "--bin",
            str(ONE_INPUT.with_suffix(".bin")),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
        ],
        capsys,
    )
    assert (code, err) == (0, "")


def test_unsupported_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.xml"
    path.write_text(
        ONE_INPUT.read_text().replace('type="OneHot" version="opset1"', 'type="TwoHot" version="opset1"')
    )
    path.with_suffix(".bin").write_bytes(ONE_INPUT.with_suffix(".bin").read_bytes())
    code, _, err = run(["run", str(path)], capsys)
    assert code == 3
    one_line_error(err, "TwoHot-opset1")


def test_negative_depth_fed_at_run_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = four_inputs(tmp_path)
    inputs["depth"] = np.array(-1, np.int32)
    np.savez(tmp_path / "all.npz", **inputs)
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", str(tmp_path / "all.npz")], capsys)
    assert code == 2
    one_line_error(err, "depth", "negative", "type=OneHot-opset1")


def test_depth_beyond_the_memory_available_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A depth fed at run time is bounded by the memory the machine has (here made 1 MiB), not only by
    the fixed cap: NumPy would allocate lazily and the fill would get the process killed."""
    from ovonehot.ops import one_hot

    monkeypatch.setattr(one_hot, "available_memory", lambda: 2**20)
    inputs = four_inputs(tmp_path)
    inputs["depth"] = np.array(2**17, np.int32)  # 4 indices x 2**17 x f32 = 2 MiB > 1 MiB / 2
    np.savez(tmp_path / "all.npz", **inputs)
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", str(tmp_path / "all.npz")], capsys)
    assert code == 2
    one_line_error(err, "type=OneHot-opset1", "2097152 bytes", "half the memory available")
    inputs["depth"] = np.array(2**15, np.int32)  # 512 KiB fits
    np.savez(tmp_path / "all.npz", **inputs)
    assert run(["run", str(FOUR_INPUTS), "--inputs", str(tmp_path / "all.npz")], capsys)[0] == 0


def test_depth_beyond_the_fixed_cap_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = four_inputs(tmp_path)
    inputs["depth"] = np.array(2**31 - 1, np.int32)  # 4 x (2**31 - 1) x f32: 32 GiB
    np.savez(tmp_path / "all.npz", **inputs)
    code, _, err = run(["run", str(FOUR_INPUTS), "--inputs", str(tmp_path / "all.npz")], capsys)
    assert code == 2
    one_line_error(err, "type=OneHot-opset1", "34359738352 bytes", "allowed")


# -- --output is written atomically ----------------------------------------------------------


def test_output_is_not_touched_when_the_run_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.npz"
    out.write_bytes(b"previous contents")
    x = save(tmp_path / "x.npy", np.zeros((3, 4), np.float32))
    code, _, _ = run(["run", str(ONE_INPUT), "--inputs", str(x), "--output", str(out)], capsys)
    assert code == 2
    assert out.read_bytes() == b"previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz", "x.npy"]


def test_output_replaces_the_old_file_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.npz"
    out.write_bytes(b"previous contents")
    code, _, _ = run(
        ["run", str(ONE_INPUT), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--output", str(out)],
        capsys,
    )
    assert code == 0
    with np.load(out) as z:
        assert z.files == ["onehot"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]  # no temporary file left


def test_output_in_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        [
            "run",
            str(ONE_INPUT),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
            "--output",
            str(tmp_path / "no" / "out.npz"),
        ],
        capsys,
    )
    assert code == 2
    one_line_error(err, "does not exist")


def test_failed_write_leaves_no_temporary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", boom)
    out = tmp_path / "out.npz"
    code, _, err = run(
        ["run", str(ONE_INPUT), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz"), "--output", str(out)],
        capsys,
    )
    assert code == 2
    one_line_error(err, "out.npz", "cannot write", "disk full")
    assert list(tmp_path.iterdir()) == []


def test_output_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out.npz").mkdir()
    code, _, err = run(
        [
            "run",
            str(ONE_INPUT),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
            "--output",
            str(tmp_path / "out.npz"),
        ],
        capsys,
    )
    assert code == 2
    one_line_error(err, "is a directory")
    assert [p.name for p in tmp_path.iterdir()] == ["out.npz"] and not any((tmp_path / "out.npz").iterdir())


def test_output_directory_not_writable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # chmod cannot stop root (tests may run as root): the OS's answer is faked.  The check comes
    # before any work, so nothing is run and nothing is written.
    from ovonehot import atomic

    monkeypatch.setattr(atomic.os, "access", lambda *args, **kwargs: False)
    code, _, err = run(
        [
            "run",
            str(ONE_INPUT),
            "--inputs",
            str(CORPUS / "v1_axis-1_i64_f32.npz"),
            "--output",
            str(tmp_path / "out.npz"),
        ],
        capsys,
    )
    assert code == 2
    one_line_error(err, "cannot write in the directory")
    assert list(tmp_path.iterdir()) == []


def test_os_error_anywhere_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The last line of defence in cli.main: the file system refusing something is not a traceback.
    import ovonehot.cli.run as run_module

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "m.xml"))

    monkeypatch.setattr(run_module, "load", refused)
    code, _, err = run(["run", str(ONE_INPUT)], capsys)
    assert code == 2
    one_line_error(err, "m.xml", "Permission denied")


# -- the real process ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["run", str(ONE_INPUT), "--inputs", str(CORPUS / "v1_axis-1_i64_f32.npz")], 0),
        (["run", str(ONE_INPUT), "--inputs", str(CORPUS / "missing.npz")], 2),
        (["run", str(CORPUS / "missing.xml")], 2),
    ],
    ids=["ok", "missing-input", "missing-model"],
)
def test_process_exit_status_and_stderr(argv: list[str], status: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ovonehot", *argv], check=False, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == status, proc.stderr
    if status:
        one_line_error(proc.stderr)
    else:
        assert proc.stderr == ""


def test_input_rank_the_axis_does_not_fit_is_a_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """v1_dynamic_rank has axis 1 on indices of dynamic rank: a scalar input cannot take it (exit 2, not 3)."""
    x = save(tmp_path / "x.npy", np.array(2, np.int64))
    code, _, err = run(["run", str(CORPUS / "v1_dynamic_rank.xml"), "--inputs", str(x)], capsys)
    assert code == 2
    one_line_error(
        err, "type=OneHot-opset1", "indices of rank 0", "Axis 1 out of the tensor rank range [-1, 0]"
    )


@pytest.mark.parametrize("name", ["file", "allow_pickle", "scope/one_hot:0"])
def test_output_names_numpy_savez_would_mangle(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """np.savez(f, **outputs) breaks on an output named 'file' and drops one named 'allow_pickle'."""
    ov = pytest.importorskip("openvino", reason="the model is written by OpenVINO")
    from openvino import opset1

    p = opset1.parameter([2], ov.Type.i32, name="x")
    node = opset1.one_hot(
        p,
        ov.op.Constant(np.array(3, np.int32)),
        ov.op.Constant(np.array(5, np.int8)),
        ov.op.Constant(np.array(0, np.int8)),
        0,
    )
    node.output(0).set_names({name})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml))
    x = save(tmp_path / "x.npy", np.array([2, 0], np.int32))
    out = tmp_path / "out.npz"
    code, _, err = run(["run", str(xml), "--inputs", str(x), "--output", str(out)], capsys)
    assert (code, err) == (0, "")
    with np.load(out) as z:
        assert z.files == [name]
        assert z[name].tolist() == [[0, 5], [0, 0], [5, 0]]
