"""The OpenVINO oracle module: OpenVINO's reference and CPU plugin, keyed and typed like ovonehot.

Models are built with OpenVINO's own Python API and written with ``ov.save_model``;
expectations come from docs/openvino-behaviour.md (checked against the wheel) and from ovonehot's
evaluator where the two are meant to agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="the oracle needs openvino")
from openvino import opset1, opset16

import ovonehot
from ovonehot.errors import InputError, OpenVINOError
from ovonehot.oracle import openvino_runtime as oracle
from ovonehot.types import ElementType


def one_hot_ir(
    path: Path,
    index_type: object,
    on: object,
    off: object,
    depth: int = 4,
    axis: int = -1,
    version: int = 16,
    shape: list[int] | None = None,
    out_name: str | None = "out",
) -> Path:
    """Parameter 'idx' -> OneHot(depth, on, off) -> Result; written with ov.save_model (plain)."""
    p = opset16.parameter(shape if shape is not None else [-1], index_type, name="idx")
    args = (p, opset16.constant(np.int64(depth)), on, off, axis)
    node = opset16.one_hot(*args) if version == 16 else opset1.one_hot(*args)
    if out_name:
        node.output(0).get_tensor().set_names({out_name})
    xml = path / "model.xml"
    ov.save_model(ov.Model([node.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    return xml


def const(value: object, et: str) -> object:
    return opset16.constant(value, dtype=getattr(ov.Type, et))


def test_reference_matches_ovonehot_and_is_keyed_like_model_run(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i64, const(5, "i64"), const(-3, "i64"))
    idx = np.array([0, 3, 4, -1, 2**40], np.int64)
    ref = oracle.reference_run(xml, {"idx": idx})
    ours = ovonehot.load(xml).run({"idx": idx})
    assert list(ref) == list(ours) == ["out"]
    assert ref["out"].dtype == np.int64
    np.testing.assert_array_equal(ref["out"], ours["out"])


def test_output_without_tensor_name_goes_by_result_layer_name(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i32, const(1, "f32"), const(0, "f32"), out_name=None)
    ours = ovonehot.load(xml).run({"idx": np.array([1], np.int32)})
    ref = oracle.reference_run(xml, {"idx": np.array([1], np.int32)})
    assert list(ref) == list(ours)


def test_cpu_saturates_i64_on_value_and_wraps_i64_indices(tmp_path: Path) -> None:
    # docs/openvino-behaviour.md: i64 on/off outside int32 saturate; i64 indices wrap to int32
    # (2**32 + 1 -> 1).
    xml = one_hot_ir(tmp_path, ov.Type.i64, const(2**40, "i64"), const(-3, "i64"))
    idx = np.array([2**32 + 1], np.int64)
    ref = oracle.reference_run(xml, {"idx": idx})["out"]
    cpu = oracle.cpu_run(xml, {"idx": idx})["out"]
    assert ref.tolist() == [[-3, -3, -3, -3]]
    assert cpu.dtype == np.int64
    assert cpu.tolist() == [[-3, 2**31 - 1, -3, -3]]


def test_bf16_outputs_are_decoded_not_raw_bits(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i32, const(1.5, "bf16"), const(-0.0, "bf16"), depth=3, axis=0)
    idx = np.array([0, 2, 5], np.int32)
    ours = ovonehot.load(xml).run({"idx": idx})["out"]
    for run in (oracle.reference_run, oracle.cpu_run):
        got = run(xml, {"idx": idx})["out"]
        assert got.dtype == ElementType.bf16.numpy_dtype
        assert got.astype(np.float32).tolist() == [[1.5, 0, 0], [0, 0, 0], [0, 1.5, 0]]
        assert np.array_equal(got.view(np.uint16), ours.view(np.uint16))  # -0.0 kept bit for bit


def test_reference_without_evaluate_names_the_node(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i8, const(1, "f32"), const(0, "f32"))
    with pytest.raises(
        OpenVINOError, match=r"no evaluate for layer name='OneHot_\d+' type=OneHot-opset16.*\(i8,"
    ):
        oracle.reference_run(xml, {"idx": np.array([1], np.int8)})


def test_cpu_refuses_i8_indices(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i8, const(1, "f32"), const(0, "f32"))
    with pytest.raises(OpenVINOError, match="Only I32 is supported"):
        oracle.cpu_run(xml, {"idx": np.array([1], np.int8)})


@pytest.mark.parametrize("et", ["u1", "u4", "i4"], ids=lambda e: f"values-{e}")
def test_sub_byte_one_hot_is_refused_not_run(tmp_path: Path, et: str) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i32, const(1, et), const(0, et), depth=3, shape=[3])
    for run in (oracle.reference_run, oracle.cpu_run):
        with pytest.raises(OpenVINOError, match="past the packed output buffer"):
            run(xml, {"idx": np.array([0, 1, 2], np.int32)})


def test_intermediates_by_layer_name_and_port(tmp_path: Path) -> None:
    p = opset16.parameter([2], ov.Type.i64, name="idx")
    conv = opset16.convert(p, ov.Type.i32)
    conv.set_friendly_name("to_i32")
    oh = opset16.one_hot(conv, opset16.constant(np.int32(3)), const(7, "f32"), const(0, "f32"), 1)
    oh.set_friendly_name("hot")
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([oh.output(0)], [p], "m"), str(xml), compress_to_fp16=False)
    idx = np.array([2, 2**32], np.int64)
    for run in (oracle.reference_run, oracle.cpu_run):
        got = run(xml, {"idx": idx}, keep_intermediates=True)
        assert got.intermediates[("to_i32", 0)].tolist() == [2, 0]  # i64 -> i32 wraps
        assert np.array_equal(got.intermediates[("hot", 0)], next(iter(got.values())))
    assert oracle.reference_run(xml, {"idx": idx}).intermediates == {}


ROUND_TRIP_TYPES = [t for t in ElementType if t.numpy_dtype is not None and t is not ElementType.string]


@pytest.mark.parametrize("et", ROUND_TRIP_TYPES, ids=str)
def test_tensor_round_trip_keeps_bits(et: ElementType) -> None:
    rng = np.random.default_rng(0)
    if et.bitwidth < 8:
        limit = {ElementType.u1: 2, ElementType.u2: 4, ElementType.u3: 8, ElementType.u6: 64}.get(et, 16)
        codes = rng.integers(0, limit, size=(3, 5)).astype(np.uint8)
        if et.numpy_dtype == np.uint8:
            arr = codes
        elif et is ElementType.f4e2m1:
            arr = codes.view(et.numpy_dtype)
        else:
            arr = codes.astype(np.int64).astype(et.numpy_dtype)
    else:
        arr = rng.integers(0, 256, size=(3, 5 * et.bitwidth // 8), dtype=np.uint8).view(et.numpy_dtype)
    back = oracle.from_tensor(oracle.to_tensor(et, arr))
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == arr.tobytes()


def test_string_tensor_round_trip() -> None:
    arr = np.array([["a", ""], ["h\u00e9", "xyz"]], dtype=object)
    back = oracle.from_tensor(oracle.to_tensor(ElementType.string, arr))
    assert back.dtype == object and back.tolist() == arr.tolist()


def test_inputs_are_checked(tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i32, const(1, "f32"), const(0, "f32"))
    with pytest.raises(InputError, match="no input named 'nope'"):
        oracle.reference_run(xml, {"nope": np.zeros(2, np.int32)})
    with pytest.raises(InputError, match="missing inputs: idx"):
        oracle.cpu_run(xml, {})
    with pytest.raises(InputError, match="expected i32"):
        oracle.reference_run(xml, {"idx": np.zeros(2, np.float32)})


def test_missing_openvino_is_exit_4(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    xml = one_hot_ir(tmp_path, ov.Type.i32, const(1, "f32"), const(0, "f32"))
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino now raises ImportError
    oracle._core.cache_clear()
    try:
        with pytest.raises(OpenVINOError, match="openvino cannot be imported") as info:
            oracle.reference_run(xml, {"idx": np.zeros(2, np.int32)})
        assert info.value.exit_code == 4
    finally:
        oracle._core.cache_clear()


def test_versions_names_the_wheel() -> None:
    assert oracle.versions().startswith(ov.__version__.split("-")[0][:6])


@pytest.mark.parametrize(
    "et", [ElementType.f32, ElementType.bf16, ElementType.i64, ElementType.boolean], ids=str
)
def test_scalar_tensor_round_trip(et: ElementType) -> None:
    arr = np.array(1, dtype=et.numpy_dtype)
    back = oracle.from_tensor(oracle.to_tensor(et, arr))
    assert back.shape == () and back.dtype == arr.dtype and back.tobytes() == arr.tobytes()


def test_cpu_refuses_a_negative_depth_parameter(tmp_path: Path) -> None:
    # Fed to the plugin, a negative depth is not caught and the next compile crashes the process.
    p = opset16.parameter([3], ov.Type.i32, name="idx")
    d = opset16.parameter([], ov.Type.i64, name="depth")
    node = opset16.one_hot(p, d, const(1, "f32"), const(0, "f32"), -1)
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([node.output(0)], [p, d], "m"), str(xml))
    inputs = {"idx": np.array([0, 1, 2], np.int32), "depth": np.array(-2, np.int64)}
    with pytest.raises(OpenVINOError, match=r"negative OneHot depth.*depth -2 fed to 'depth'"):
        oracle.cpu_run(xml, inputs)


def test_the_oracle_imports_openvino_without_its_telemetry_child() -> None:
    """``import openvino`` forks a child that sends a usage event unless blocked
    (docs/openvino-behaviour.md, "Importing openvino"); the oracle leaves no child behind."""
    import subprocess

    code = (
        "import multiprocessing, sys\n"
        "from ovonehot.oracle.openvino_runtime import versions\n"
        "versions()\n"
        "print(len(multiprocessing.active_children()), sys.modules.get('openvino_telemetry', 'absent'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "None"], done.stdout


def test_reference_sizes_dynamic_outputs_from_the_fed_shapes(tmp_path: Path) -> None:
    """A LayerNorm (MVN-6) over dynamic dims, as optimum-intel exports of OPT, Falcon, GPT-J, Phi
    write it: MVN's evaluate writes into the output tensor it is given without resizing it, and
    the reference oracle gave it a one-element tensor for a dynamic shape (heap corruption: the
    child died by SIGSEGV/SIGABRT, the diff reported 'not compared').  The model's shapes are now
    settled on the fed ones first: the reference computes it and agrees with ovonehot."""
    from openvino import opset13

    x = opset13.parameter([-1, -1, 64], np.float32, name="x")
    norm = opset13.mvn(x, opset13.constant(np.array([-1], np.int64)), True, 1e-5, "inside_sqrt")
    scaled = opset13.multiply(norm, opset13.constant(np.full([64], 0.5, np.float32)))
    for _ in range(3):  # (a few of them: one overrun does not always crash the process)
        scaled = opset13.mvn(
            opset13.add(scaled, x), opset13.constant(np.array([-1], np.int64)), True, 1e-5, "inside_sqrt"
        )
    xml = tmp_path / "layer_norm.xml"
    ov.save_model(ov.Model([scaled], [x]), xml)
    rng = np.random.default_rng(0)
    np.save(tmp_path / "x.npy", rng.standard_normal((3, 7, 64)).astype(np.float32))
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ovonehot",
            "diff",
            str(xml),
            "--inputs",
            str(tmp_path / "x.npy"),
            "--oracle",
            "reference",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "crashed" not in done.stdout and "PASS" in done.stdout, done.stdout


def test_cpu_keeps_the_layers_of_a_stateful_model() -> None:
    """Every inner output made a model output but the Assigns' (sinks: the plugin refused to compile
    the model with one read, so `diff --all-layers` had no CPU layer table for any stateful model)."""
    root = Path(__file__).resolve().parent.parent / "ir" / "exports" / "stateful" / "tiny_llama"
    inputs = dict(np.load(root / "tiny_llama.step1.inputs.npz"))
    out = oracle.cpu_run(root / "tiny_llama.xml", inputs, keep_intermediates=True)
    assert len(out) == 1 and len(out.intermediates) > 100
    assert not any(name.startswith("Assign") for name, _ in out.intermediates)
