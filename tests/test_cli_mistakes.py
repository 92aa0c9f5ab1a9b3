"""Realistic mistakes with every command, each with the exit status the README's table gives it
and the facts its one ``error:`` line must name (issue 23).

An OpenVINO engineer's mistakes: the wrong file for the model (a folder, the .bin, another
framework's model, an .xml without its .bin), inputs of the wrong type, shape or name,
option values that make no sense, old option spellings, output paths that would replace
what the user gave.  Each case runs the real command line (``ovonehot.cli.main``, in this
process, stderr captured at the file-descriptor level so a C library's print is seen too) in
a folder of small fixtures, and asserts: the exit status; for a failure, exactly one stderr
line, ``error: ...``, holding every fragment; never a traceback; and that no fixture file
changed (nothing the user gave is ever written over).  docs/mistakes.md lists them for users.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from ovonehot.cli import main

ROOT = Path(__file__).resolve().parent.parent
ONEHOT = ROOT / "ir" / "onehot" / "v1_axis-1_i64_f32"  # indices: i64[3,4] -> onehot: f32[3,4,5]
REPLAY = ROOT / "ir" / "replays" / "cpu-int32-wrap-i64-indices"
LLAMA = ROOT / "ir" / "exports" / "stateful" / "tiny_llama" / "tiny_llama"  # stateful: a KV cache

try:
    import openvino  # noqa: F401
except ImportError:
    HAVE_OPENVINO = False
else:
    HAVE_OPENVINO = True

# Two inputs with a dynamic dim: x, y: f32[?,4] -> sum = x + y.
TWO = """<?xml version="1.0"?>
<net name="two" version="11">
 <layers>
  <layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,4" element_type="f32"/>
   <output><port id="0" precision="FP32" names="x"><dim>-1</dim><dim>4</dim></port></output></layer>
  <layer id="1" name="y" type="Parameter" version="opset1"><data shape="?,4" element_type="f32"/>
   <output><port id="0" precision="FP32" names="y"><dim>-1</dim><dim>4</dim></port></output></layer>
  <layer id="2" name="add" type="Add" version="opset1"><data auto_broadcast="numpy"/>
   <input><port id="0" precision="FP32"><dim>-1</dim><dim>4</dim></port>
    <port id="1" precision="FP32"><dim>-1</dim><dim>4</dim></port></input>
   <output><port id="2" precision="FP32" names="sum"><dim>-1</dim><dim>4</dim></port></output></layer>
  <layer id="3" name="sum/result" type="Result" version="opset1">
   <input><port id="0" precision="FP32"><dim>-1</dim><dim>4</dim></port></input></layer>
 </layers>
 <edges>
  <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
  <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
  <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
 </edges>
</net>
"""


@dataclass(frozen=True, slots=True)
class Case:
    """``argv`` (run in the fixture folder), the exit status, the fragments of the first stderr
    line; ``openvino``: the command needs OpenVINO (skipped without it)."""

    id: str
    argv: str
    code: int
    fragments: tuple[str, ...] = ()
    openvino: bool = False


def _case(name: str, argv: str, code: int, *fragments: str, openvino: bool = False) -> Case:
    return Case(name, argv, code, fragments, openvino)


CASES = [
    # --- the command line itself
    _case("no-arguments", "", 2, "required: COMMAND"),
    _case("command-typo", "rnu oh.xml", 2, "invalid choice: 'rnu'", "did you mean 'run'"),
    _case("diff-typo", "difff oh.xml", 2, "did you mean 'diff'"),
    _case("option-before-command", "--inputs oh.npz run oh.xml", 2, "--inputs comes before the command"),
    _case("no-model", "run --inputs oh.npz", 2, "required: model"),
    _case("option-without-value", "run oh.xml --inputs", 2, "--inputs: expected one argument"),
    _case("option-typo", "run oh.xml --seeds 3", 2, "--seeds", "did you mean '--seed'"),
    _case("abbreviated-option", "run oh.xml --input oh.npz", 2, "--input ", "did you mean '--inputs'"),
    _case("old-save", "run oh.xml --save out", 2, "--save is now --out-dir"),
    _case("old-out", "diff oh.xml --out results", 2, "--out is now --out-dir"),
    _case("old-output-dir", "diff oh.xml --output-dir results", 2, "--output-dir is now --out-dir"),
    _case("old-json-file", "diff oh.xml --json r.json", 2, "r.json", "--json-out FILE"),
    _case("reduce-old-output", "reduce oh.xml --out-dir r --output onehot", 2, "--output is now --outputs"),
    _case("fast-on-diff", "diff oh.xml --fast", 2, "--fast is an option of run, not of diff"),
    _case("oracle-on-run", "run oh.xml --oracle cpu", 2, "--oracle is an option of diff, fuzz, reduce"),
    _case("inputs-before-model", "run --inputs oh.npz oh.xml", 0),
    _case("two-specs-one-inputs", "run two.xml --inputs x=x.npy y=y.npy", 2, "y=y.npy", "repeat it"),
    # --- the model file
    _case("missing-model", "run nothere.xml", 2, "nothere.xml: no such file"),
    _case("model-is-a-directory", "run adir", 2, "adir: is a directory"),
    _case("empty-model-name", "run ''", 2, "an empty model file name"),
    _case("bin-instead-of-xml", "run oh.bin", 2, "oh.bin: a weights file (.bin)", "oh.xml"),
    _case("xml-without-bin", "run nobin.xml", 2, "nobin.bin: no such file", "type=Const-opset1", "--bin"),
    _case("truncated-bin", "run trunc.xml", 3, "name='depth'", "lies outside the weights file trunc.bin"),
    _case("bin-of-another-model", "run wrongbin.xml", 2, "name='onehot' type=OneHot-opset1", "cannot hold"),
    _case("empty-xml", "run empty.xml", 3, "empty.xml: not well-formed XML"),
    _case("not-xml", "inspect notxml.xml", 3, "notxml.xml: not well-formed XML"),
    _case("html-not-ir", "validate page.xml", 3, "not an OpenVINO IR"),
    _case("tflite-model", "run cnn.tflite", 3, "cnn.tflite: a TensorFlow Lite model", "ovc cnn.tflite"),
    _case("not-a-tflite", "run junk.tflite", 3, "junk.tflite: neither OpenVINO IR nor a TensorFlow Lite"),
    _case("pb-model", "inspect frozen.pb", 3, "frozen.pb: a TensorFlow model (.pb)", "ovc frozen.pb"),
    _case("onnx-unknown-op", "run badop.onnx", 3, "cannot convert it", "NoSuchOpAnywhere", openvino=True),
    _case("onnx-garbage", "run garbage.onnx", 3, "garbage.onnx: not an ONNX model", openvino=True),
    # --- inputs
    _case("missing-inputs-file", "run oh.xml --inputs nothere.npz", 2, "nothere.npz: no such file"),
    _case("inputs-directory", "run oh.xml --inputs adir", 2, "adir: is a directory"),
    _case("empty-inputs-spec", "run oh.xml --inputs ''", 2, "--inputs ''", "FILE.npy"),
    _case(
        "float-for-int", "run oh.xml --inputs f32.npy", 2, "f32.npy: input 'indices' (i64[3,4])", "float32"
    ),
    _case("wrong-shape", "run oh.xml --inputs i64_35.npy", 2, "input 'indices' (i64[3,4])", "shape [3, 5]"),
    _case("wrong-rank", "run oh.xml --inputs i64_12.npy", 2, "input 'indices'", "shape [12]"),
    _case(
        "npz-unknown-key",
        "run oh.xml --inputs unknown.npz",
        2,
        "unknown.npz: ",
        "'indexes'",
        "mean 'indices'",
    ),
    _case("npz-extra-key", "run oh.xml --inputs extra.npz", 2, "no input named 'indice'"),
    _case("name-typo", "run oh.xml --inputs indice=i64_34.npy", 2, "indice=i64_34.npy: ", "mean 'indices'"),
    _case("colon-not-equals", "run oh.xml --inputs indices:i64_34.npy", 2, "indices=i64_34.npy"),
    _case("pickled-npy", "run oh.xml --inputs obj.npy", 2, "obj.npy", "pickle", "does not load"),
    _case("pickled-npz", "run oh.xml --inputs obj.npz", 2, "obj.npz", "pickle"),
    _case("not-npy", "run oh.xml --inputs notnpy.npy", 2, "notnpy.npy: not a readable .npy"),
    _case("bare-npy-two-inputs", "run two.xml --inputs x.npy", 2, "2 inputs (x, y)", "NAME=FILE.npy"),
    _case("partial-inputs", "run two.xml --inputs x=x.npy", 2, "missing inputs: y", "give every input"),
    _case("given-twice", "run oh.xml --inputs oh.npz --inputs oh.npz", 2, "'indices' is given twice"),
    _case("inconsistent-dims", "run two.xml --inputs x=x.npy --inputs y=y3.npy", 2, "name='add'", "[2, 4]"),
    _case("seed-with-inputs", "run oh.xml --inputs oh.npz --seed 3", 2, "are for generated inputs"),
    _case("diff-seed-with-inputs", "diff oh.xml --inputs oh.npz --seed 3", 2, "are for generated inputs"),
    # --- generation options
    _case("shape-syntax", "run two.xml --shape x:2,4", 2, "--shape 'x:2,4'", "NAME="),
    _case("shape-not-a-number", "run two.xml --shape x=[2,a]", 2, "--shape 'x=[2,a]'", "'a'"),
    _case("shape-against-static-dim", "run two.xml --shape x=[2,5]", 2, "--shape x=[2, 5]", "[?,4]"),
    _case("shape-unknown-input", "run two.xml --shape xx=[2,4]", 2, "--shape", "'xx'", "did you mean 'x'"),
    _case("shape-twice", "run two.xml --shape x=[2,4] --shape x=[3,4]", 2, "'x' is already given"),
    _case("val-range-reversed", "run two.xml --val-range 5,1", 2, "--val-range '5,1'", "LO <= HI"),
    _case("val-range-words", "run two.xml --val-range a,b", 2, "--val-range 'a,b'", "LO,HI"),
    _case("val-range-unknown-input", "run oh.xml --val-range foo:1,2", 2, "no input 'foo'", "indices"),
    _case("seed-negative", "run two.xml --seed -1", 2, "--seed '-1'", ">= 0"),
    _case("seed-not-integer", "run two.xml --seed 1.5", 2, "--seed '1.5'", "integer"),
    _case("seed-huge", "run two.xml --seed 18446744073709551616", 0),
    # --- steps
    _case("steps-zero", "run oh.xml --steps 0", 2, "--steps must be at least 1, got 0"),
    _case("steps-negative", "run oh.xml --steps -1", 2, "--steps must be at least 1, got -1"),
    _case("steps-stateless", "run oh.xml --steps 3", 2, "--steps", "no state"),
    _case(
        "steps-same-inputs",
        f"run {LLAMA}.xml --inputs {LLAMA}.step1.inputs.npz --steps 2",
        2,
        "step 2 of 2",
        "Add",
    ),
    _case(
        "steps-and-step-inputs",
        f"run {LLAMA}.xml --step-inputs {LLAMA}.step1.inputs.npz --steps 2",
        2,
        "one or the other",
    ),
    # --- outputs: never over what the user gave
    _case("output-dir-missing", "run oh.xml -o nodir/out.npz", 2, "the directory nodir does not exist"),
    _case("output-is-directory", "run oh.xml -o adir", 2, "adir: is a directory"),
    _case("output-not-npz", "run oh.xml -o out.txt", 2, "--output 'out.txt'", ".npz"),
    _case("output-over-model", "run oh.xml -o oh.xml", 2, "--output 'oh.xml'"),
    _case(
        "output-over-inputs",
        "run oh.xml --inputs oh.npz -o oh.npz",
        2,
        "--output 'oh.npz' is the --inputs file",
    ),
    _case(
        "out-dir-over-inputs",
        "run oh.xml --inputs indices=od/onehot.npy --out-dir od",
        2,
        "--out-dir (output 'onehot') 'od/onehot.npy' is the --inputs file",
    ),
    _case(
        "save-inputs-over-inputs",
        "run oh.xml --inputs oh.npz --save-inputs oh.npz",
        2,
        "is the --inputs file",
    ),
    _case("json-out-over-model", "inspect oh.xml --json-out oh.xml", 2, "--json-out 'oh.xml' is the model"),
    _case("json-out-over-bin", "validate oh.xml --json-out oh.bin", 2, "is the model's weights"),
    _case("json-out-empty", "run oh.xml --json-out ''", 2, "--json-out: an empty file name"),
    _case("two-options-one-file", "run oh.xml -o o.npz --json-out o.npz", 2, "name the same file"),
    _case("out-dir-is-file", "run oh.xml --out-dir oh.npz", 2, "oh.npz: exists and is not a directory"),
    _case(
        "unwritable-location",
        "run oh.xml -o /proc/out.npz",
        2,
        "/proc/out.npz: cannot write in the directory",
    ),
    # --- diff: oracles, plugin, tolerances
    _case("oracle-typo", "diff oh.xml --oracle cpuu", 2, "unknown oracle 'cpuu'", "reference, cpu"),
    _case("onnxruntime-on-ir", "diff oh.xml --oracle onnxruntime", 2, "onnxruntime runs ONNX models only"),
    _case("expected-without-file", "reduce oh.xml --out-dir r --oracle expected", 2, "--expected"),
    _case("expected-wrong-keys", "diff oh.xml --expected oh.npz", 2, "--expected oh.npz", "'indices'"),
    _case("device-absent", "diff oh.xml --device GPU", 2, "--device 'GPU'", "no such device", openvino=True),
    _case("device-id", "diff oh.xml --device CPU.0", 2, "--device 'CPU.0'", "no device '0'", openvino=True),
    _case(
        "device-case", "diff oh.xml --device cpu", 2, "--device 'cpu'", "case-sensitive: CPU", openvino=True
    ),
    _case("config-no-value", "diff oh.xml --config NUM_STREAMS", 2, "--config 'NUM_STREAMS'", "KEY=VALUE"),
    _case("config-unknown", "diff oh.xml --config BOGUS=1", 2, "--config 'BOGUS=1'", "BOGUS", openvino=True),
    _case("config-value", "diff oh.xml --config INFERENCE_PRECISION_HINT=f13", 2, "f13", openvino=True),
    _case("config-preset-typo", "diff oh.xml --config-preset fast", 2, "invalid choice: 'fast'"),
    _case("presets-contradict", "diff oh.xml --cpu-defaults --config-preset deterministic", 2, "contradict"),
    _case("atol-negative", "diff oh.xml --atol -1", 2, "--atol '-1'", ">= 0"),
    _case("atol-nan", "diff oh.xml --atol nan", 2, "--atol 'nan'", "finite"),
    _case("atol-unknown-output", "diff oh.xml --atol reslt:1e-3", 2, "no output 'reslt'", "onehot"),
    _case("atol-twice", "diff oh.xml --atol 1 --atol 2", 2, "--atol '2'", "already given"),
    _case("report-not-html", "diff oh.xml --report r.pdf", 2, "--report 'r.pdf'", ".html"),
    _case("report-over-model", "diff oh.xml --report oh.xml", 2, "--report 'oh.xml'", ".html"),
    _case("jobs-on-one-model", "diff oh.xml --jobs 2", 2, "--jobs", "for a corpus"),
    _case("node-data-alone", "diff oh.xml --node-data n.json", 2, "--node-data needs --all-layers"),
    _case("out-dir-over-replay", "diff rep --out-dir rep", 2, "--out-dir 'rep'", "give another folder"),
    # --- reduce, repro, fuzz, convert, inspect, validate
    _case("reduce-no-out-dir", "reduce oh.xml", 2, "required: --out-dir"),
    _case(
        "reduce-out-dir-file", "reduce oh.xml --out-dir oh.npz", 2, "oh.npz: exists and is not a directory"
    ),
    _case("reduce-output-typo", "reduce oh.xml --out-dir r --outputs onehott", 2, "did you mean 'onehot'"),
    _case("reduce-nothing-differs", "reduce oh.xml --out-dir r", 0, openvino=True),
    _case("repro-not-a-replay", "repro oh.xml", 2, "oh.xml: not a replay folder"),
    _case("repro-output-directory", "repro rep -o adir", 2, "adir: is a directory"),
    _case("repro-over-replay-model", "repro rep -o rep/model.xml", 2, "is the replay folder's model.xml"),
    _case("fuzz-zero-cases", "fuzz --cases 0", 2, "--cases 0", "at least 1"),
    _case("fuzz-negative-seed", "fuzz --seed -1", 2, "--seed -1", ">= 0"),
    _case("fuzz-onnxruntime", "fuzz --oracle onnxruntime", 2, "fuzz --oracle onnxruntime"),
    _case("fuzz-time-budget", "fuzz --time-budget -1", 2, "--time-budget must be > 0"),
    _case("convert-an-xml", "convert oh.xml", 2, "oh.xml: convert takes an .onnx model"),
    _case("convert-to-typo", "convert relu.onnx --to tflite", 2, "invalid choice: 'tflite'"),
    _case(
        "convert-output-not-xml", "convert relu.onnx -o relu.bin", 2, "relu.bin: the output must be an .xml"
    ),
    _case("explorer-not-json", "convert oh.xml --to model-explorer -o g.txt", 2, "g.txt", ".json"),
    _case("filter-typo", "inspect oh.xml --filter OneHott", 2, "--filter 'OneHott'", "did you mean 'OneHot'"),
    _case(
        "validate-inputs", "validate oh.xml --inputs oh.npz", 2, "--inputs is an option of run, diff, reduce"
    ),
    _case("filter-absent-type", "inspect oh.xml --filter Softmax", 2, "--filter 'Softmax'", "no layer"),
    _case("validate-shape-syntax", "validate oh.xml --shape indices:3,5", 2, "--shape 'indices:3,5'"),
]


def _fixtures(folder: Path) -> None:
    """The files the cases name, in ``folder``."""
    for suffix in (".xml", ".bin", ".npz"):
        shutil.copy(ONEHOT.with_suffix(suffix), folder / f"oh{suffix}")
    (folder / "two.xml").write_text(TWO)
    (folder / "adir").mkdir()
    (folder / "empty.xml").write_bytes(b"")
    (folder / "notxml.xml").write_text("hello world\n")
    (folder / "page.xml").write_text("<html><body/></html>\n")
    shutil.copy(folder / "oh.xml", folder / "nobin.xml")
    shutil.copy(folder / "oh.xml", folder / "trunc.xml")
    (folder / "trunc.bin").write_bytes((folder / "oh.bin").read_bytes()[:5])
    shutil.copy(folder / "oh.xml", folder / "wrongbin.xml")  # the depth read from float32 [0, 1]
    (folder / "wrongbin.bin").write_bytes(np.arange(8, dtype=np.float32).tobytes())
    (folder / "cnn.tflite").write_bytes(b"\x1c\x00\x00\x00TFL3" + bytes(24))
    (folder / "junk.tflite").write_text("junk\n")
    (folder / "frozen.pb").write_bytes(b"\n\x0f\n\x01x\x12\x0bPlaceholder")
    (folder / "garbage.onnx").write_bytes(b"\x00\x01garbage")
    shutil.copytree(REPLAY, folder / "rep")
    np.save(folder / "f32.npy", np.zeros((3, 4), np.float32))
    np.save(folder / "i64_34.npy", np.zeros((3, 4), np.int64))
    np.save(folder / "i64_35.npy", np.zeros((3, 5), np.int64))
    np.save(folder / "i64_12.npy", np.zeros(12, np.int64))
    np.savez(folder / "extra.npz", indices=np.zeros((3, 4), np.int64), indice=np.zeros((3, 4), np.int64))
    np.savez(folder / "unknown.npz", indexes=np.zeros((3, 4), np.int64))
    np.save(folder / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.savez(folder / "obj.npz", indices=np.array([1, "x"], dtype=object))
    (folder / "notnpy.npy").write_text("not an npy")
    np.save(folder / "x.npy", np.ones((2, 4), np.float32))
    np.save(folder / "y.npy", np.ones((2, 4), np.float32))
    np.save(folder / "y3.npy", np.ones((3, 4), np.float32))
    (folder / "od").mkdir()
    np.save(folder / "od" / "onehot.npy", np.zeros((3, 4), np.int64))  # an input where --out-dir writes
    _onnx_fixtures(folder)


def _onnx_fixtures(folder: Path) -> None:
    onnx = pytest.importorskip("onnx", reason="the ONNX fixtures are built with onnx")
    helper, tensor = onnx.helper, onnx.TensorProto
    x = helper.make_tensor_value_info("x", tensor.FLOAT, [4])
    y = helper.make_tensor_value_info("y", tensor.FLOAT, [4])
    for name, op in (("badop", "NoSuchOpAnywhere"), ("relu", "Relu")):
        graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g", [x], [y])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
        onnx.save(model, str(folder / f"{name}.onnx"))


def _digest(folder: Path) -> dict[str, str]:
    """Every fixture file's content hash: what a case must leave as it was."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("mistakes")
    _fixtures(folder)
    return folder, _digest(folder)


@pytest.fixture
def fixtures(pristine: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the fixtures for one case: what one case does cannot change another's."""
    folder = tmp_path / "work"
    shutil.copytree(pristine[0], folder, symlinks=True)
    return folder, pristine[1]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_mistake_gives_its_exit_status_and_one_clear_line(
    case: Case,
    fixtures: tuple[Path, dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    if case.openvino and not HAVE_OPENVINO:
        pytest.skip("the command asks OpenVINO (not installed here)")
    folder, before = fixtures
    monkeypatch.chdir(folder)
    code = main(shlex.split(case.argv))
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Warning" not in err, err
    assert code == case.code, err
    if case.code != 0:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        for fragment in case.fragments:
            assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    assert _digest(folder) == before, "a fixture file changed, or a file was written"


def test_the_table_covers_every_command() -> None:
    commands = {shlex.split(c.argv)[0] for c in CASES if c.argv and not c.argv.startswith("-")}
    assert {"run", "diff", "validate", "inspect", "convert", "reduce", "repro", "fuzz"} <= commands
    assert len(CASES) >= 60


def test_generating_indices_for_a_vocabulary_sized_depth_is_quick(tmp_path: Path) -> None:
    """A OneHot of depth 151936 (an LLM's vocabulary): the boundary index values are sampled, not
    all 151936 negatives listed and deduplicated in quadratic time (minutes before)."""
    import time

    from ovonehot.differential.gen_inputs import index_values
    from ovonehot.types import ElementType

    started = time.monotonic()
    values = index_values(ElementType.i64, 151936)
    assert time.monotonic() - started < 1.0
    assert {0, 151935, 151936, -1, -151936, -151937} <= set(values)
    assert len(values) == len(set(values)) < 100
    assert index_values(ElementType.i32, 3)[:8] == [0, 2, 3, 4, 1, -1, -2, -3]  # small depths: every value


def _broken_openvino(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``import openvino`` fails as a broken install does."""
    package = tmp_path / "site" / "openvino"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        'raise ImportError("libopenvino.so.2600: cannot open shared object file")\n'
    )
    paths = [str(package.parent), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


@pytest.mark.parametrize(
    ("argv", "code", "fragment"),
    [
        (["diff", str(ONEHOT.with_suffix(".xml"))], 4, "openvino cannot be imported"),
        (["run", str(ONEHOT.with_suffix(".xml")), "--inputs", str(ONEHOT.with_suffix(".npz"))], 0, ""),
    ],
    ids=["diff-needs-it", "run-does-not"],
)
def test_a_broken_openvino_fails_diff_and_not_run(
    tmp_path: Path, argv: list[str], code: int, fragment: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ovonehot", *argv],
        capture_output=True,
        text=True,
        env=_broken_openvino(tmp_path),
        timeout=120,
        check=False,
    )
    assert proc.returncode == code, proc.stderr
    if fragment:
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert fragment in proc.stderr
    else:
        assert proc.stderr == "" and "onehot: shape [3, 4, 5]" in proc.stdout


# In the oracle's child only (started as ``python -c "...serve..."``): say so in a file, then take
# a minute before serving, so the diff is surely waiting for OpenVINO when the Ctrl-C comes.
SLOW_CHILD = """\
import os, sys, time
if any("ovonehot.oracle.process import serve" in a for a in getattr(sys, "orig_argv", [])):
    import ovonehot.oracle.process as process
    _serve = process.serve
    def serve(conn):
        open(os.environ["OVONEHOT_TEST_CHILD_READY"], "w").close()
        time.sleep(60)
        _serve(conn)
    process.serve = serve
"""


@pytest.mark.skipif(not HAVE_OPENVINO, reason="the diff runs OpenVINO's oracles")
def test_ctrl_c_during_a_diff_is_exit_130_and_one_line(tmp_path: Path) -> None:
    """SIGINT while a diff runs (its OpenVINO child busy): exit 130, ``error: interrupted``, no
    traceback, the child stopped.  (Ctrl-C while the modules load: test_security_round3; during
    fuzz: test_fuzz.)  The Ctrl-C waits until the child has started (a file it writes): a fixed
    sleep had let a fast machine finish the whole diff first."""
    import signal
    import time

    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SLOW_CHILD)
    ready = tmp_path / "child-ready"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
        "OVONEHOT_TEST_CHILD_READY": str(ready),
    }
    model = ROOT / "ir" / "corpus" / "transformers" / "gpt2" / "model.xml"
    process = subprocess.Popen(
        [sys.executable, "-m", "ovonehot", "diff", str(model), "--oracle", "both", "--all-layers"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 120
    while not ready.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert ready.exists(), process.communicate()
    process.send_signal(signal.SIGINT)
    begun = time.monotonic()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err == "error: interrupted\n"
    assert time.monotonic() - begun < 30  # (not after the child's minute)


def _documented() -> dict[tuple[str, int], str]:
    """docs/mistakes.md's rows: (command, exit status) -> the first line it shows."""
    rows: dict[tuple[str, int], str] = {}
    for line in (ROOT / "docs" / "mistakes.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if len(cells) == 4 and cells[1].startswith("`ovonehot") and cells[2].isdigit():
            rows[(cells[1].strip("`"), int(cells[2]))] = cells[3].replace("\\|", "|")
    return rows


def test_docs_mistakes_lists_the_cases_as_they_are() -> None:
    """Each case is in docs/mistakes.md with its exit status and a line holding its fragments,
    and the page lists no case the table lacks."""
    documented = _documented()
    cases = {(f"ovonehot {c.argv}".strip().replace(f"{ROOT}/", ""), c.code): c for c in CASES}
    assert set(documented) == set(cases)
    for key, case in cases.items():
        for fragment in case.fragments:
            assert fragment.replace(f"{ROOT}/", "") in documented[key], (case.id, fragment)
