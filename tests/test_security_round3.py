"""Issue 19 (security and reliability, round 3): each finding of the audit, reproduced.

* outputs never replace a device node, FIFO or socket (or a link to one): one line, exit 2,
  checked before any work and again before the rename; ``--json-out -`` is stdout;
* two output options naming one file are a usage error;
* replay folders are untrusted: their manifest is checked against its schema (a table of
  hostile manifests through ``diff DIR`` and ``repro DIR``: exit 2, one line), the plugin
  configuration is allowlisted, and a script ``repro`` writes runs no code from the folder;
* ``--dump-intermediates`` member names never leave the folder.

The device-node tests need root and a private mount namespace (``unshare -m``), and skip
with the reason when either is missing.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot.cli import main
from ovonehot.oracle.repro import script_text

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32.xml"  # one input: indices i64 [3,4]
INDICES = np.array([[0, 1, 2, 3]] * 3, np.int64)
REPLAY = ROOT / "ir" / "replays" / "cpu-int32-saturation-i64-values"
SRC = str(ROOT / "src")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str, *fragments: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


@pytest.fixture
def indices(tmp_path: Path) -> Path:
    path = tmp_path / "x.npy"
    np.save(path, INDICES)
    return path


# --- outputs: device nodes, FIFOs, sockets, links to them ------------------------------------


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    import socket

    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


def _link_to_device(path: Path) -> None:
    path.symlink_to("/dev/null")  # (a rename would replace the link, never /dev/null itself)


def _link_to_fifo(path: Path) -> None:
    os.mkfifo(path.with_name("fifo"))
    path.symlink_to(path.with_name("fifo"))


SPECIAL_FILES = {
    "fifo": _fifo,
    "socket": _socket,
    "link-to-dev-null": _link_to_device,
    "link-to-fifo": _link_to_fifo,
}
OUTPUT_OPTIONS = ["--output", "--json-out"]


@pytest.mark.parametrize("option", OUTPUT_OPTIONS)
@pytest.mark.parametrize("kind", sorted(SPECIAL_FILES))
def test_outputs_never_replace_fifos_sockets_or_links_to_them(
    tmp_path: Path, indices: Path, capsys: pytest.CaptureFixture[str], kind: str, option: str
) -> None:
    target = tmp_path / "target"
    SPECIAL_FILES[kind](target)
    before = os.lstat(target)
    code, _, err = run(["run", str(MODEL), "--inputs", str(indices), option, str(target)], capsys)
    assert code == 2
    one_line_error(err, "not a regular file")
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)


def test_a_device_appearing_during_the_run_is_not_replaced(tmp_path: Path) -> None:
    """The check is made again just before the rename (a FIFO stands in for the device: no root needed)."""
    from ovonehot.atomic import AtomicFile
    from ovonehot.errors import InputError

    target = tmp_path / "out.json"
    writer = AtomicFile(target)
    writer.file.write(b"{}")
    os.mkfifo(target)
    with pytest.raises(InputError, match="is a FIFO"):
        writer.commit()
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left


def test_regular_files_and_links_to_them_are_still_replaced(
    tmp_path: Path, indices: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, _, err = run(["run", str(MODEL), "--inputs", str(indices), "--json-out", str(link)], capsys)
    assert code == 0, err
    assert json.loads(link.read_text())["outputs"][0]["name"]


def test_json_out_dash_is_stdout(indices: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["run", str(MODEL), "--inputs", str(indices), "--json-out", "-"], capsys)
    assert code == 0, err
    assert json.loads(out)["outputs"][0]["shape"] == [3, 4, 5] or json.loads(out)["outputs"]
    assert not Path("-").exists()


@pytest.mark.parametrize(
    "options",
    [
        ["--output", "{d}/same.npz", "--json-out", "{d}/same.npz"],
        ["--output", "{d}/same.npz", "--json-out", "{d}/./same.npz"],
        ["--dump-intermediates", "{d}", "--json-out", "{d}/intermediates.npz"],
    ],
    ids=["same-name", "other-spelling", "json-into-the-dump"],
)
def test_two_outputs_to_one_file_are_refused(
    tmp_path: Path, indices: Path, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    argv = ["run", str(MODEL), "--inputs", str(indices), *[o.format(d=tmp_path) for o in options]]
    code, _, err = run(argv, capsys)
    assert code == 2
    one_line_error(err, "name the same file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


def _root_namespace_available() -> str | None:
    if os.geteuid() != 0:
        return "needs root to make device nodes"
    if shutil.which("unshare") is None:
        return "needs unshare (util-linux) for a private mount namespace"
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)  # noqa: S607 - found on PATH above
    if probe.returncode != 0:
        return f"unshare -m refused here: {probe.stderr.decode(errors='replace').strip()}"
    return None


DEVICE_CASES = {
    "null-output": ("mknod -m 666 /dev/null c 1 3", ["--output", "/dev/null"], "/dev/null"),
    "null-json-out": ("mknod -m 666 /dev/null c 1 3", ["--json-out", "/dev/null"], "/dev/null"),
    "full-copy": ("mknod -m 666 /dev/full2 c 1 7", ["--output", "/dev/full2"], "/dev/full2"),
}


@pytest.mark.skipif(_root_namespace_available() is not None, reason=str(_root_namespace_available()))
@pytest.mark.parametrize("case", sorted(DEVICE_CASES))
def test_device_nodes_are_never_replaced(tmp_path: Path, indices: Path, case: str) -> None:
    """The audit's reproducer: a fresh /dev in a private mount namespace, so the real one is safe."""
    make, options, node = DEVICE_CASES[case]
    script = (
        "mount --make-rprivate / && mount -t tmpfs tmpfs /dev && "
        f"{make} && {sys.executable} -m ovonehot run {MODEL} --inputs {indices} {' '.join(options)}; "
        f"echo rc=$?; stat -c %F {node}"
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],  # noqa: S607 - found on PATH by the skip check
        capture_output=True,
        check=False,
        text=True,
        env=env,
        timeout=60,
    )
    assert "rc=2" in done.stdout, (done.stdout, done.stderr)
    assert done.stdout.strip().endswith("character special file"), done.stdout
    one_line_error(done.stderr, "is a device")


# --- replay folders: the manifest's schema ----------------------------------------------------


def _replay(tmp_path: Path, change: Any) -> Path:
    folder = tmp_path / "R"
    shutil.copytree(REPLAY, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest = change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest) if not isinstance(manifest, str) else manifest)
    return folder


def _set(path: str, value: Any) -> Any:
    def change(manifest: dict[str, Any]) -> dict[str, Any]:
        *parents, last = path.split(".")
        where: Any = manifest
        for p in parents:
            where = where[int(p)] if isinstance(where, list) else where.setdefault(p, {})
        if isinstance(where, list):
            where[int(last)] = value
        else:
            where[last] = value
        return manifest

    return change


HOSTILE_MANIFESTS: dict[str, Any] = {
    "a-list": lambda m: [],
    "a-string": lambda m: "x",
    "null": lambda m: None,
    "not-json": lambda m: "{",
    "deeply-nested": lambda m: "[" * 100_000 + "]" * 100_000,
    "no-format": lambda m: {k: v for k, v in m.items() if k != "format"},
    "other-format": _set("format", "ovonehot-replay/9"),
    "newer-schema": _set("schema_version", 2),
    "schema-version-string": _set("schema_version", "1"),
    "oracles-number": _set("oracles", 5),
    "oracles-empty": _set("oracles", []),
    "oracles-code": _set("oracles", ['reference"; __import__("os").system("touch PWNED"); X = "']),
    "oracles-object": _set("oracles", [{"name": "cpu"}]),
    "tolerances-string": _set("tolerances", "x"),
    "atol-string": _set("tolerances", {"atol": "x"}),
    "atol-negative": _set("tolerances", {"atol": -1}),
    "atol-nan": lambda m: json.dumps({**m, "tolerances": {"atol": float("nan")}}),
    "atol-infinite": lambda m: json.dumps({**m, "tolerances": {"rtol": float("inf")}}),
    "per-output-atol-list": _set("tolerances", {"per_output_atol": [1]}),
    "verdicts-empty-object": _set("verdicts", [{}]),
    "verdicts-string": _set("verdicts", "x"),
    "verdict-output-number": _set("verdicts", [{"output": 1, "oracle": "cpu", "verdict": "x"}]),
    "reduced-from-string": _set("reduced_from", "x"),
    "reduced-from-no-model": _set("reduced_from", {"ops_before": 1, "ops_after": 1}),
    "versions-list": _set("versions", ["1"]),
    "seed-string": _set("seed", "3"),
    "seed-bool": _set("seed", True),
    "strict-string": _set("strict", "yes"),
    "shapes-negative": _set("shapes", {"x": [-1]}),
    "unknown-field": _set("exec", "print(1)"),
    "plugin-cache-dir": _set(
        "plugin",
        {"device": "CPU", "preset": "deterministic", "config": {"CACHE_DIR": "/tmp"}},  # noqa: S108 - refused, never used
    ),
    "plugin-value-path": _set("plugin", {"config": {"PERFORMANCE_HINT": "/any/where"}}),
    "plugin-preset-unknown": _set("plugin", {"preset": "fastest"}),
    "plugin-device-path": _set("plugin", {"device": "../../x"}),
    "plugin-config-list": _set("plugin", {"config": ["CACHE_DIR"]}),
}


@pytest.mark.parametrize("command", ["diff", "repro"])
@pytest.mark.parametrize("case", sorted(HOSTILE_MANIFESTS))
def test_hostile_manifests_are_one_line_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    command: str,
) -> None:
    folder = _replay(tmp_path, HOSTILE_MANIFESTS[case])
    monkeypatch.chdir(tmp_path)
    code, _, err = run([command, str(folder)], capsys)
    assert code == 2, err
    one_line_error(err, "manifest.json")
    assert not (tmp_path / "PWNED").exists()
    assert not (folder / "repro.py").exists()


def test_old_manifests_without_a_schema_version_still_read(capsys: pytest.CaptureFixture[str]) -> None:
    from ovonehot.differential import replay

    folders = sorted(p.parent for p in (ROOT / "ir" / "replays").glob("*/manifest.json"))
    # (replays written since the schema version exists carry one: reference-bf16-rounding)
    old = [f for f in folders if "schema_version" not in json.loads((f / "manifest.json").read_text())]
    assert len(old) >= 10
    for folder in old:
        assert replay.load(folder).oracles


@pytest.mark.parametrize("name", ["model.xml", "inputs.npz", "model.bin"])
def test_replay_files_linking_out_of_the_folder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    folder = _replay(tmp_path, lambda m: m)
    outside = tmp_path / f"outside-{name}"
    shutil.move(str(folder / name), outside)
    (folder / name).symlink_to(outside)
    code, _, err = run(["repro", str(folder)], capsys)
    assert code == 2
    one_line_error(err, "a link out of the replay folder")


# --- repro scripts run no code from the folder ------------------------------------------------

HOSTILE = 'x"; __import__("os").system("touch PWNED"); X = "\n"""\'\'\'\\'
HOSTILE_FIELDS = {
    "source": _set("source", HOSTILE),
    "verdict-output": _set("verdicts", [{"output": HOSTILE, "oracle": HOSTILE, "verdict": HOSTILE}]),
    "versions": _set("versions", {"ovonehot": HOSTILE, "openvino": HOSTILE}),
    "reduced-from": _set("reduced_from", {"model": HOSTILE, "ops_before": 1, "ops_after": 1}),
}


@pytest.mark.parametrize("field", sorted(HOSTILE_FIELDS))
def test_repro_scripts_hold_hostile_strings_as_data(tmp_path: Path, field: str) -> None:
    from ovonehot.differential import replay

    folder = _replay(tmp_path, HOSTILE_FIELDS[field])
    text = script_text(replay.load(folder))
    tree = ast.parse(text)
    doc = ast.get_docstring(tree)
    assert doc is not None and HOSTILE in doc  # the value, verbatim, inside one string literal
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "__import__"]
    assert not calls


def test_a_hostile_repro_script_runs_without_side_effects(tmp_path: Path) -> None:
    """The audit's reproducer, run: every hostile field at once, the script run with ``python -I``."""
    pytest.importorskip("openvino")
    folder = _replay(tmp_path, lambda m: m)
    for change in HOSTILE_FIELDS.values():
        manifest = change(json.loads((folder / "manifest.json").read_text()))
        (folder / "manifest.json").write_text(json.dumps(manifest))
    assert main(["repro", str(folder)]) == 0
    done = subprocess.run(
        [sys.executable, "-I", str(folder / "repro.py")],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "PWNED").exists()


# --- --dump-intermediates member names ---------------------------------------------------------


def test_dump_member_names_stay_inside_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = MODEL.read_text()
    model = tmp_path / "m.xml"
    names = {}
    for k, name in enumerate(["../../evil", "/abs", "a\\b", ".."]):
        old = f'name="{_layer_names()[k]}"'
        assert old in text
        text = text.replace(old, f'name="{name}"', 1)
        names[k] = name
    model.write_text(text)
    shutil.copy(MODEL.with_suffix(".bin"), model.with_suffix(".bin"))
    np.save(tmp_path / "x.npy", INDICES)
    code, _, err = run(
        ["run", str(model), "--inputs", str(tmp_path / "x.npy"), "--dump-intermediates", str(tmp_path / "d")],
        capsys,
    )
    assert code == 0, err
    with zipfile.ZipFile(tmp_path / "d" / "intermediates.npz") as z:
        members = z.namelist()
    for member in members:
        parts = member.split("/")
        assert ".." not in parts and not member.startswith("/") and "\\" not in member, member
    rows = [r.split("\t") for r in (tmp_path / "d" / "intermediates.tsv").read_text().splitlines()[1:]]
    keys = {r[0] for r in rows}
    assert {f"{n}:0" for n in names.values()} <= keys
    assert {f"{r[4]}.npy" for r in rows} == set(members)


def _layer_names() -> list[str]:
    from ovonehot.ir.reader import read_ir

    return [n.name for n in read_ir(MODEL).nodes if n.type.lower() != "result"]


# --- the reader: compressed XML, attribute floods, odd layer ids, a .bin past RLIMIT_AS -------


def _model_copy(tmp_path: Path, text: str, name: str = "m.xml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    shutil.copy(MODEL.with_suffix(".bin"), path.with_suffix(".bin"))
    return path


@pytest.mark.parametrize("kind", ["gzip", "xz", "bzip2"])
@pytest.mark.parametrize("command", ["validate", "inspect", "run"])
def test_compressed_xml_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, command: str
) -> None:
    """libxml2 inflated a gzip .xml given by path without bound; OpenVINO refuses compressed files."""
    import bz2
    import gzip
    import lzma

    compress = {"gzip": gzip.compress, "xz": lzma.compress, "bzip2": bz2.compress}[kind]
    path = tmp_path / "m.xml"
    path.write_bytes(compress(MODEL.read_bytes()))
    shutil.copy(MODEL.with_suffix(".bin"), path.with_suffix(".bin"))
    np.save(tmp_path / "x.npy", INDICES)
    extra = ["--inputs", str(tmp_path / "x.npy")] if command == "run" else []
    code, _, err = run([command, str(path), *extra], capsys)
    assert code == 3
    one_line_error(err, f"{kind}-compressed")


def test_an_attribute_flood_reads_in_linear_time(tmp_path: Path) -> None:
    """100 000 attributes on one <data> (1.5 MB) took 33 s of CPU in validate (lxml's items() looks
    each value up by name); OpenVINO reads it in 0.3 s."""
    text = MODEL.read_text()
    flood = " ".join(f'a{k}="{k}"' for k in range(100_000))
    model = _model_copy(tmp_path, text.replace("<data ", f"<data {flood} ", 1))
    np.save(tmp_path / "x.npy", INDICES)
    for command in (["validate", str(model)], ["run", str(model), "--inputs", str(tmp_path / "x.npy")]):
        done = subprocess.run(
            [sys.executable, "-m", "ovonehot", *command],
            capture_output=True,
            check=False,
            text=True,
            env={**os.environ, "PYTHONPATH": SRC},
            timeout=60,
            preexec_fn=_cpu_limit(10),
        )
        assert done.returncode == 0, done.stderr


def _cpu_limit(seconds: int) -> Any:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))

    return limit


LAYER_IDS = {"-1": False, "1 ": False, str(2**64 + 1): False, str(2**63): False, "1e3": False}
LAYER_IDS.update({" 1": True, "+1": True, str(2**63 - 1): True})


def _with_layer_id(tmp_path: Path, layer_id: str) -> Path:
    text = MODEL.read_text().replace('<layer id="1" ', f'<layer id="{layer_id}" ', 1)
    text = text.replace('from-layer="1" ', f'from-layer="{layer_id}" ')
    return _model_copy(tmp_path, text, f"id{len(list(tmp_path.glob('*.xml')))}.xml")


@pytest.mark.parametrize("layer_id", sorted(LAYER_IDS))
def test_layer_ids_are_read_as_openvino_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layer_id: str
) -> None:
    """OpenVINO 2026.4: "node <layer> has attribute "id" = "-1" which is not an unsigned 64 bit
    integer"; 2**63 and above fail its stoll (the test below asks it)."""
    code, _, err = run(["validate", str(_with_layer_id(tmp_path, layer_id))], capsys)
    if LAYER_IDS[layer_id]:
        assert code == 0, err
    else:
        assert code == 3
        one_line_error(err, "name='depth'", "attribute id=")


def test_openvino_reads_layer_ids_so(tmp_path: Path) -> None:
    pytest.importorskip("openvino")
    models = {layer_id: str(_with_layer_id(tmp_path, layer_id)) for layer_id in LAYER_IDS}
    script = (
        "import json, sys, openvino as ov\n"
        "core, out = ov.Core(), {}\n"
        "for k, path in json.loads(sys.argv[1]).items():\n"
        "    try:\n        core.read_model(path); out[k] = True\n"
        "    except Exception:\n        out[k] = False\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(models)],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert json.loads(done.stdout) == LAYER_IDS


def test_npy_shape_past_what_numpy_can_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(0, 2**62, 2**62): no data, yet NumPy's reshape says "array is too big" (a traceback before)."""
    path = tmp_path / "x.npy"
    with path.open("wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<i8", "fortran_order": False, "shape": (0, 2**62, 2**62)}
        )
    code, _, err = run(["run", str(MODEL), "--inputs", str(path)], capsys)
    assert code == 2
    one_line_error(err, "more than an array can index")
    archive = tmp_path / "x.npz"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("indices.npy", path.read_bytes())
    code, _, err = run(["run", str(MODEL), "--inputs", str(archive)], capsys)
    assert code == 2
    one_line_error(err, "more than an array can index")


def test_a_bin_larger_than_the_address_space_names_the_file(tmp_path: Path) -> None:
    weights = tmp_path / "sparse.bin"
    with weights.open("wb") as f:
        f.write(MODEL.with_suffix(".bin").read_bytes())
        f.truncate(8 << 30)  # sparse: no disk used
    np.save(tmp_path / "x.npy", INDICES)
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ovonehot",
            "run",
            str(MODEL),
            "--bin",
            str(weights),
            "--inputs",
            str(tmp_path / "x.npy"),
        ],
        capture_output=True,
        check=False,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=60,
        preexec_fn=limit,
    )
    assert done.returncode == 2
    one_line_error(done.stderr, "sparse.bin", "cannot map the weights file")


# --- Ctrl-C through the installed console script -----------------------------------------------


def _console_script() -> Path | None:
    for candidate in (Path(sys.executable).parent / "ovonehot", Path(sys.prefix) / "bin" / "ovonehot"):
        if candidate.is_file():
            return candidate
    return None


def _interrupt_when_loading(argv: list[str], extra_delay: float) -> tuple[int, str]:
    """Start the command, wait until it is importing NumPy (ovonehot's own import has begun),
    wait ``extra_delay`` more, send SIGINT; its exit status and stderr."""
    import signal
    import time

    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": SRC}
    )
    deadline = time.monotonic() + 30
    maps = Path(f"/proc/{process.pid}/maps")
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if "numpy" in maps.read_text():
                break
        except OSError:
            pass
        time.sleep(0.002)
    time.sleep(extra_delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


@pytest.mark.skipif(
    _console_script() is None, reason="no installed ovonehot console script beside this Python"
)
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc to see when the imports start")
def test_ctrl_c_at_any_moment_of_the_console_script(tmp_path: Path) -> None:
    """The console script (``ovonehot.cli:main`` or ``ovonehot._console:run``) and ``python -m``:
    SIGINT while the modules load, and as the command runs: one line, exit 130 (or 0 when it
    had finished).  The first ~20 ms, while CPython itself starts (site.py), precede any
    code of ovonehot and are not covered (docs/robustness.md)."""
    from concurrent.futures import ThreadPoolExecutor

    np.save(tmp_path / "x.npy", INDICES)
    script = _console_script()
    command = ["run", str(MODEL), "--inputs", str(tmp_path / "x.npy")]
    runs = [([str(script), *command], d) for d in (0.0, 0.01, 0.05, 0.1, 0.2, 0.4)]
    runs += [([sys.executable, "-m", "ovonehot", *command], d) for d in (0.0, 0.05, 0.2)]
    with ThreadPoolExecutor(len(runs)) as pool:
        results = list(pool.map(lambda r: _interrupt_when_loading(*r), runs))
    for (argv, delay), (code, err) in zip(runs, results, strict=True):
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (argv[0], delay, err)
        assert code in (0, 130), (argv[0], delay, code, err)
        assert err.strip() in ("", "error: interrupted"), err
    assert sum(code == 130 for code, _ in results) >= len(runs) // 2


# --- Loop growth and endless loops --------------------------------------------------------------


def _growing_loop(tmp_path: Path, trip: int, body_condition: bool, concatenate: bool = True) -> Path:
    """The audit's Loop: x + 1 on a [262144] f32 state each iteration, its values concatenated;
    the condition ``i < 2**62`` computed in the body (or the constant true)."""
    ov = pytest.importorskip("openvino")
    ops = pytest.importorskip("openvino.opset8")
    x = ops.parameter([262144], np.float32, name="x")
    xi = ops.parameter([262144], np.float32, name="xi")
    it = ops.parameter([], np.int64, name="it")
    x1 = ops.add(xi, ops.constant(np.float32(1)))
    rx = ops.result(x1)
    go = ops.less(it, ops.constant(np.int64(2**62))) if body_condition else ops.constant(np.bool_(True))
    rc = ops.result(go)
    loop = ops.loop(ops.constant(np.int64(trip)), ops.constant(np.bool_(True)))
    loop.set_function(ov.Model([rx, rc], [xi, it]))
    loop.set_special_body_ports([1, 1])
    loop.set_merged_input(xi, x.output(0), rx.output(0))
    outputs = [loop.get_iter_value(rx.output(0), -1)]
    if concatenate:
        outputs.append(loop.get_concatenated_slices(rx.output(0), 0, 1, 1, -1, 0))
    path = tmp_path / "loop.xml"
    ov.save_model(ov.Model(outputs, [x]), str(path), compress_to_fp16=False)
    np.save(tmp_path / "x.npy", np.zeros(262144, np.float32))
    return path


def _run_limited(model: Path, env: dict[str, str], seconds: int = 30) -> subprocess.CompletedProcess[str]:
    """``ovonehot run`` in a child with a CPU-time limit and a 4 GiB address space."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run(
        [sys.executable, "-m", "ovonehot", "run", str(model), "--inputs", str(model.parent / "x.npy")],
        capture_output=True,
        check=False,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC, **env},
        timeout=seconds * 4,
        preexec_fn=limit,
    )


def test_a_loop_growing_its_concatenation_stops_at_the_budget(tmp_path: Path) -> None:
    """Trip count -1, the condition from the body: past 6 GiB in 19 s before."""
    model = _growing_loop(tmp_path, -1, body_condition=True)
    done = _run_limited(model, {"OVONEHOT_MEMORY_BUDGET": str(64 << 20)})
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "type=Loop", "grows past the memory budget")


@pytest.mark.parametrize(
    ("concatenate", "message"),
    [(False, f"{2**62} iterations are more than"), (True, "NumPy cannot hold a shape this large")],
    ids=["last-value", "concatenated"],
)
def test_a_loop_whose_condition_is_constant_true_is_refused_before_it_runs(
    tmp_path: Path, concatenate: bool, message: str
) -> None:
    """Trip count 2**62, the condition the constant true: it ran until killed before."""
    model = _growing_loop(tmp_path, 2**62, body_condition=False, concatenate=concatenate)
    done = _run_limited(model, {}, seconds=10)
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "type=Loop", message)


def test_a_loop_that_never_meets_its_condition_stops_at_the_iteration_limit(tmp_path: Path) -> None:
    model = _growing_loop(tmp_path, -1, body_condition=True, concatenate=False)
    done = _run_limited(model, {"OVONEHOT_MAX_LOOP_ITERATIONS": "50"})
    assert done.returncode == 2, done.stderr
    one_line_error(done.stderr, "type=Loop", "still holds after 50 iterations")


def test_a_bad_loop_limit_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from ovonehot.budget import DEFAULT_MAX_LOOP_ITERATIONS, max_loop_iterations
    from ovonehot.errors import UsageError

    assert max_loop_iterations() == DEFAULT_MAX_LOOP_ITERATIONS
    for text in ("lots", "0", "-5"):
        monkeypatch.setenv("OVONEHOT_MAX_LOOP_ITERATIONS", text)
        with pytest.raises(UsageError, match="OVONEHOT_MAX_LOOP_ITERATIONS"):
            max_loop_iterations()


# --- validate's memory against run's ------------------------------------------------------------


def _relu_chain(path: Path, layers: int) -> Path:
    """Parameter -> ``layers`` Relus -> Result, written as OpenVINO writes IR (one layer a line)."""
    port = '<port id="{}" precision="FP32"><dim>1</dim><dim>4</dim></port>'
    parts = [
        '<?xml version="1.0"?>\n<net name="chain" version="11">\n<layers>\n',
        (
            '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/>'
            f"<output>{port.format(0)}</output></layer>\n"
        ),
    ]
    body = f"<input>{port.format(0)}</input><output>{port.format(1)}</output></layer>\n"
    parts += [
        f'<layer id="{k}" name="relu{k}" type="Relu" version="opset1">{body}' for k in range(1, layers + 1)
    ]
    parts.append(
        f'<layer id="{layers + 1}" name="out" type="Result" version="opset1"><input>{port.format(0)}</input></layer>\n'
    )
    parts.append('</layers>\n<edges>\n<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n')
    parts += [
        f'<edge from-layer="{k}" from-port="1" to-layer="{k + 1}" to-port="0"/>\n'
        for k in range(1, layers + 1)
    ]
    parts.append("</edges>\n</net>\n")
    path.write_text("".join(parts))
    path.with_suffix(".bin").write_bytes(b"")
    return path


_PEAK = (
    "import resource, sys\n"
    "from ovonehot.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code, file=sys.stderr)\n"
)


def test_validate_takes_about_the_memory_of_run(tmp_path: Path) -> None:
    """A 1e6-layer chain: validate ran out of 6 GiB where run took 1.2 GB (it parsed the whole
    tree and built its JSON report unasked).  On a 1e5-layer chain (30 MB) both now peak at
    about 170 MB; before, validate took 870 MB."""
    model = _relu_chain(tmp_path / "chain.xml", 100_000)
    np.save(tmp_path / "x.npy", np.ones((1, 4), np.float32))
    commands = {
        "validate": ["validate", str(model)],
        "run": ["run", str(model), "--inputs", str(tmp_path / "x.npy")],
    }
    env = {**os.environ, "PYTHONPATH": SRC}
    children = {
        name: subprocess.Popen(
            [sys.executable, "-c", _PEAK, *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name, argv in commands.items()
    }
    peaks = {}
    for name, child in children.items():
        _, err = child.communicate(timeout=240)
        kib, code = err.split()[-2:]
        assert code == "0", err
        peaks[name] = int(kib) * 1024
    assert peaks["validate"] <= 1.5 * peaks["run"] + (32 << 20), peaks


# --- scratch directories of killed runs ----------------------------------------------------------


def test_a_killed_runs_scratch_directory_is_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    import tempfile

    from ovonehot.atomic import scratch_directory

    code = "import sys, time; from ovonehot.atomic import scratch_directory; print(scratch_directory('ovonehot-diff-'), flush=True); time.sleep(60)"
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    left = Path(child.stdout.readline().strip())
    (left / "model.xml").write_text("<net/>")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    other_user = tmp_path / "ovonehot-diff-1-keepme"  # pid 1 is alive: kept
    other_user.mkdir()
    unrelated = tmp_path / "ovonehot-notes"
    unrelated.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = Path(scratch_directory("ovonehot-diff-"))
    assert not left.exists()
    assert mine.is_dir() and other_user.is_dir() and unrelated.is_dir()
    assert mine.name.startswith(f"ovonehot-diff-{os.getpid()}-")


def test_tile_repeats_past_int64_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by this round's campaign (seed 19, mutant 1998): repeats [2**62, -1, 2**63-1, 1] on
    a [3, 3, 3, 3] input left the inferred shape dynamic, and NumPy's tile failed with
    "array is too big" (a traceback)."""
    ov = pytest.importorskip("openvino")
    ops = pytest.importorskip("openvino.opset8")
    x = ops.parameter([3, 3, 3, 3], np.uint8, name="x")
    tile = ops.tile(x, ops.parameter([4], np.int64, name="repeats"))
    ov.save_model(ov.Model([tile], [x, tile.input_value(1).get_node()]), str(tmp_path / "tile.xml"))
    np.savez(
        tmp_path / "in.npz",
        x=np.zeros((3, 3, 3, 3), np.uint8),
        repeats=np.array([2**62, -1, 2**63 - 1, 1], np.int64),
    )
    code, _, err = run(["run", str(tmp_path / "tile.xml"), "--inputs", str(tmp_path / "in.npz")], capsys)
    assert code == 2
    one_line_error(err, "type=Tile", "NumPy cannot hold")
