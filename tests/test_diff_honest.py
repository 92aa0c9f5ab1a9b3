"""``ovonehot diff`` is honest on whole models: what an oracle could not compute is "not compared".

OpenVINO's reference (``Node.evaluate``) has no kernel for LogSoftmax, Convolution and
others: an output depending on one is *not compared* (the reason names that op), never a
PASS or a deviation, and fails the run unless ``--allow-partial``.  Other oracles: the CPU
plugin (deterministic, or compiled with OpenVINO's defaults: a precision difference with
its size, never "ours wrong"), onnxruntime on ``.onnx`` models, saved outputs
(``--expected``).  Expected values come from OpenVINO, onnxruntime and the outputs stored
in ir/exports (see its README), never from ovonehot.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ov = pytest.importorskip("openvino", reason="diff compares against OpenVINO")
from openvino import opset16

from ovonehot import cli
from ovonehot.cli._options import parse_input_settings, parse_plugin, parse_tolerances
from ovonehot.differential import engines
from ovonehot.differential.diff import DiffOptions, Verdict, diff_model, oracle_runners
from ovonehot.differential.gen_inputs import generate_inputs
from ovonehot.differential.layers import LayerVerdict
from ovonehot.differential.report import reason, render
from ovonehot.errors import InputError, ParameterError, UsageError
from ovonehot.model import load
from ovonehot.oracle.common import PluginSettings, parse_oracles

EXPORTS = Path(__file__).resolve().parent.parent / "ir" / "exports"
SMOOTHING = EXPORTS / "onnx" / "torch_label_smoothing_opset13"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["diff", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verdict_lines(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("[")]


# -- the case: LogSoftmax has no reference evaluate ----------------------------------------


def test_label_smoothing_reference_is_not_compared(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, f"{SMOOTHING}.onnx", "--oracle", "reference")
    assert code == 1, out
    assert verdict_lines(out) == ["[reference] out: not compared"]
    why = next(ln for ln in out.splitlines() if ln.strip().startswith("why:"))
    assert (
        "no evaluate for layer id=31 name='/LogSoftmax' type=LogSoftmax-opset5 with input types (f32)" in why
    )
    assert "try --oracle cpu" in why
    assert "OneHot" not in why and "PASS" not in out and "plugin deviation" not in out
    assert "nothing was compared" in out


def test_label_smoothing_by_default_is_compared_with_the_cpu_plugin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The default oracle falls back to the CPU plugin where the reference cannot compute an
    output, and says so (issue 21 item 3); ``--oracle reference`` above stays strict."""
    code, out, _ = run_cli(capsys, f"{SMOOTHING}.onnx", "--inputs", f"{SMOOTHING}.typical.inputs.npz")
    assert code == 0, out
    # (the two differ in the last bits: the rounding envelope judges them, and says so)
    assert verdict_lines(out) == [
        "[cpu] out: PASS (the difference is inside the rounding envelope of the float64 truth)"
    ]
    assert (
        "instead of: reference could not compute it: OpenVINO's reference has no evaluate for layer id=31 name='/LogSoftmax'"
        in out
    )


def test_label_smoothing_passes_against_the_cpu(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, f"{SMOOTHING}.onnx", "--inputs", f"{SMOOTHING}.typical.inputs.npz", "--oracle", "cpu"
    )
    assert code == 0, out
    # (the two differ in the last bits: the rounding envelope judges them, and says so)
    assert verdict_lines(out) == [
        "[cpu] out: PASS (the difference is inside the rounding envelope of the float64 truth)"
    ]


def test_allow_partial_exits_0_and_still_counts(capsys: pytest.CaptureFixture[str]) -> None:
    args = (f"{SMOOTHING}.onnx", "--inputs", f"{SMOOTHING}.typical.inputs.npz", "--oracle", "reference,cpu")
    code, out, _ = run_cli(capsys, *args)
    assert code == 1, out
    assert "1 output(s) not compared: exit 1; --allow-partial" in out
    code, out, _ = run_cli(capsys, *args, "--allow-partial")
    assert code == 0, out
    assert "summary: 1 PASS, 1 not compared -> exit 0 (--allow-partial)" in out
    # Nothing compared at all is never a success, partial or not.
    code, out, _ = run_cli(capsys, f"{SMOOTHING}.onnx", "--oracle", "reference", "--allow-partial")
    assert code == 1 and "nothing was compared" in out


def test_json_report_names_the_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    run_cli(capsys, f"{SMOOTHING}.onnx", "--oracle", "reference", "--json-out", report)
    (v,) = json.loads(report.read_text())["verdicts"]
    assert v["verdict"] == "not compared" and v["refusal"]["cause"] == "no-evaluate"
    assert v["refusal"]["layer"] == "/LogSoftmax" and v["refusal"]["op"] == "LogSoftmax-opset5"
    assert v["refusal"]["known"] is True


# -- a middle op without reference evaluate: only what depends on it is not compared -----------------


def middle_op_model(tmp_path: Path) -> Path:
    """x -> Multiply(2) -> LogSoftmax -> Exp -> "soft";  x -> Relu -> "relu"."""
    x = opset16.parameter([2, 5], ov.Type.f32, name="x")
    scaled = opset16.multiply(x, opset16.constant(np.float32(2.0)))
    soft = opset16.exp(opset16.log_softmax(scaled, -1))
    soft.output(0).get_tensor().set_names({"soft"})
    relu = opset16.relu(x)
    relu.output(0).get_tensor().set_names({"relu"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([soft.output(0), relu.output(0)], [x], "m"), str(xml), compress_to_fp16=False)
    return xml


def test_reference_runs_up_to_the_op_it_cannot_evaluate(tmp_path: Path) -> None:
    xml = middle_op_model(tmp_path)
    model = load(xml)
    inputs = generate_inputs(model, seed=1)
    report = diff_model(model, inputs, oracle_runners(("reference",), model, str(xml)))
    by_name = {v.name: v for v in report.verdicts}
    assert by_name["relu"].verdict is Verdict.PASS
    soft = by_name["soft"]
    assert soft.verdict is Verdict.NOT_COMPARED and soft.known
    assert soft.refusal is not None and soft.refusal.op == "LogSoftmax-opset5"
    assert "type=LogSoftmax-opset5" in soft.reason and soft.try_oracles == ("cpu",)
    assert "try --oracle" not in soft.reason and reason(soft).endswith("; try --oracle cpu")
    assert report.exit_code == 1
    partial = diff_model(
        model, inputs, oracle_runners(("reference",), model, str(xml)), DiffOptions(allow_partial=True)
    )
    assert partial.exit_code == 0
    assert "1 output(s) not compared (--allow-partial); 1 compared" in render(partial)
    both = diff_model(model, inputs, oracle_runners(("reference", "cpu"), model, str(xml)))
    assert {(v.oracle, v.name): v.verdict for v in both.verdicts}[("cpu", "soft")] is Verdict.PASS


def test_partial_reference_gives_openvinos_values_for_what_it_computes(tmp_path: Path) -> None:
    from ovonehot.oracle import openvino_runtime

    xml = middle_op_model(tmp_path)
    x = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
    out = openvino_runtime.reference_run(xml, {"x": x}, partial=True)
    assert set(out) == {"relu"} and set(out.missing) == {"soft"}
    assert out["relu"].tobytes() == np.maximum(x, 0).tobytes()
    with pytest.raises(Exception, match=r"no evaluate for layer name='.*' type=LogSoftmax-opset5"):
        openvino_runtime.reference_run(xml, {"x": x})


# -- the CPU plugin with OpenVINO's defaults -------------------------------------------------------


@pytest.mark.parametrize("name", ["onehot_embedding", "char_cnn_gru", "dice_loss", "segmentation_masks_nchw"])
def test_cpu_defaults_report_a_precision_difference_never_ours_wrong(name: str) -> None:
    base = EXPORTS / "torch" / name
    model = load(f"{base}.xml")
    inputs = dict(np.load(f"{base}.typical.inputs.npz"))
    plugin = parse_plugin(preset="openvino-defaults")
    report = diff_model(
        model, inputs, oracle_runners(("cpu",), model, f"{base}.xml", plugin=plugin, isolate=True)
    )
    default_hint = str(ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT"))
    for v in report.verdicts:
        assert v.verdict in (Verdict.PASS, Verdict.PRECISION), render(report)
        if v.verdict is Verdict.PRECISION:
            assert v.size is not None and v.size[0] > 0 and v.size[1] > 0
            assert "bfloat16" in default_hint and "INFERENCE_PRECISION_HINT=bf16" in v.reason
            assert "compiled deterministically" in v.reason
    assert report.exit_code == 0
    if name in ("onehot_embedding", "char_cnn_gru") and "bfloat16" in default_hint:
        # Float matmuls in bf16 differ from f32 (measured: 0.011 and 0.007 abs here).
        assert [v.verdict for v in report.verdicts] == [Verdict.PRECISION], render(report)
    strict = diff_model(
        model,
        inputs,
        oracle_runners(("cpu",), model, f"{base}.xml", plugin=plugin, isolate=True),
        DiffOptions(strict=True),
    )
    assert strict.exit_code == (1 if any(v.verdict is Verdict.PRECISION for v in report.verdicts) else 0)


def test_cli_cpu_defaults_and_config(capsys: pytest.CaptureFixture[str]) -> None:
    base = EXPORTS / "torch" / "onehot_embedding"
    code, out, _ = run_cli(
        capsys,
        f"{base}.xml",
        "--inputs",
        f"{base}.typical.inputs.npz",
        "--oracle",
        "cpu",
        "--config",
        "INFERENCE_PRECISION_HINT=bf16",
    )
    assert code == 0, out
    (line,) = verdict_lines(out)
    passing = "[cpu] Result_21857: PASS (compared atol=1e-06 rtol=1e-05)"
    assert line in ("[cpu] Result_21857: precision difference", passing)
    assert "ours wrong" not in out
    if "precision difference" in line:
        assert "max abs error" in out and "INFERENCE_PRECISION_HINT=bf16" in out
    code, _, err = run_cli(capsys, f"{base}.xml", "--oracle", "cpu", "--config", "NOEQUALS")
    assert code == 2 and "--config 'NOEQUALS': expected KEY=VALUE" in err


# -- onnxruntime and saved outputs ---------------------------------------------------------------------

# (model, input case) where onnxruntime 1.31 and OpenVINO agree (ir/exports/README.md).
ORT_AGREES = [
    ("backend_with_axis", "backend"),
    ("backend_negative_indices", "backend"),
    ("opset11_float_indices_truncation", "integer_valued"),
    ("opset11_int64_indices_beyond_int32", "beyond_int32"),
    ("torch_label_smoothing_opset13", "typical"),
    ("torch_segmentation_opset11", "typical"),
]


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize(("name", "case"), ORT_AGREES, ids=[f"{n}.{c}" for n, c in ORT_AGREES])
def test_onnxruntime_oracle_on_exports(name: str, case: str) -> None:
    base = EXPORTS / "onnx" / name
    model = load(f"{base}.onnx")
    inputs = dict(np.load(f"{base}.{case}.inputs.npz"))
    report = diff_model(model, inputs, oracle_runners(("onnxruntime",), model, f"{base}.onnx", isolate=True))
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS], render(report)
    assert report.versions["onnxruntime"] == "1.31.1"


@pytest.mark.held_for("onnxruntime==1.31.1")
def test_onnxruntime_difference_is_reported_not_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    # onnxruntime applies OneHot-11's negative-index wrapping at opset 9; OpenVINO's OneHot-1 does not.
    base = EXPORTS / "onnx" / "backend_negative_indices_opset9"
    code, out, _ = run_cli(
        capsys, f"{base}.onnx", "--inputs", f"{base}.backend.inputs.npz", "--oracle", "reference,onnxruntime"
    )
    assert code == 1
    assert verdict_lines(out)[0].startswith("[reference] y: PASS")
    assert verdict_lines(out)[1] == "[onnxruntime] y: unexplained"
    assert "onnxruntime computes something else; OpenVINO's reference agrees with ovonehot" in out


@pytest.mark.held_for("onnxruntime==1.31.1")
def test_onnxruntime_without_a_kernel_is_a_known_refusal() -> None:
    base = EXPORTS / "onnx" / "opset11_bool_values"
    model = load(f"{base}.onnx")
    report = diff_model(
        model,
        dict(np.load(f"{base}.typical.inputs.npz")),
        oracle_runners(("reference", "onnxruntime"), model, f"{base}.onnx", isolate=True),
        DiffOptions(allow_partial=True),
    )
    by_oracle = {v.oracle: v for v in report.verdicts}
    assert by_oracle["reference"].verdict is Verdict.PASS
    ort = by_oracle["onnxruntime"]
    assert ort.verdict is Verdict.NOT_COMPARED and ort.known and "NOT_IMPLEMENTED" in ort.reason
    assert report.exit_code == 0


def test_onnxruntime_needs_an_onnx_model(tmp_path: Path) -> None:
    xml = middle_op_model(tmp_path)
    model = load(xml)
    report = diff_model(model, generate_inputs(model), oracle_runners(("onnxruntime",), model, str(xml)))
    assert {v.verdict for v in report.verdicts} == {Verdict.NOT_COMPARED}
    assert "onnxruntime runs ONNX models only" in report.verdicts[0].reason


# Stored outputs: onnxruntime's (keyed by ONNX output name) and OpenVINO's CPU (keyed by Result layer name).
EXPECTED = [
    ("onnx/torch_label_smoothing_opset9.onnx", "typical", "onnxruntime"),
    ("onnx/backend_with_negative_axis.onnx", "backend", "backend"),
    ("onnx/opset9_depth_input_int64.onnx", "typical", "openvino"),
    ("torch/class_histogram_int32.xml", "typical", "openvino"),
    ("torch/focal_loss.xml", "typical", "openvino"),
]


@pytest.mark.parametrize(("path", "case", "source"), EXPECTED, ids=[f"{p}.{c}.{s}" for p, c, s in EXPECTED])
def test_expected_outputs(path: str, case: str, source: str, capsys: pytest.CaptureFixture[str]) -> None:
    model = EXPORTS / path
    stem = model.with_suffix("")
    code, out, _ = run_cli(
        capsys, model, "--inputs", f"{stem}.{case}.inputs.npz", "--expected", f"{stem}.{case}.{source}.npz"
    )
    assert code == 0, out
    lines = verdict_lines(out)
    assert lines and all(ln.startswith("[expected] ") and ": PASS" in ln for ln in lines), out


def test_expected_with_a_wrong_key_or_missing_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = EXPORTS / "onnx" / "torch_label_smoothing_opset13"
    np.savez(tmp_path / "wrong.npz", loss=np.float32(0.5))
    code, _, err = run_cli(capsys, f"{base}.onnx", "--expected", tmp_path / "wrong.npz")
    assert code == 2 and "'loss' names no output of the model; its outputs are: 'out'" in err
    xml = middle_op_model(tmp_path)
    np.savez(tmp_path / "half.npz", relu=np.zeros((2, 5), np.float32))
    np.save(tmp_path / "x.npy", np.full((2, 5), -1.0, np.float32))
    code, out, _ = run_cli(capsys, xml, "--inputs", tmp_path / "x.npy", "--expected", tmp_path / "half.npz")
    assert code == 1
    assert "[expected] relu: PASS" in out and "[expected] soft: not compared" in out
    assert "has no array for output 'soft'" in out


# -- tolerances, oracles, inputs ---------------------------------------------------------------------------


def test_unknown_tolerance_name_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = middle_op_model(tmp_path)
    code, _, err = run_cli(capsys, xml, "--oracle", "cpu", "--atol", "sof:0")
    assert code == 2
    assert (
        "--atol sof:0: the model has no output 'sof' (did you mean 'soft'?); its outputs are: 'soft', 'relu'"
        in err
    )
    with pytest.raises(
        ParameterError, match=r"^per_output_rtol nope:1: the model has no output 'nope'"
    ) as caught:
        parse_tolerances(rtol=["nope:1"]).check_names(["soft"])
    assert caught.value.parameter == "per_output_rtol" and isinstance(caught.value, UsageError)
    assert run_cli(capsys, xml, "--oracle", "cpu", "--atol", "soft:0.5")[0] == 0


def test_library_errors_name_parameters_the_cli_names_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = middle_op_model(tmp_path)
    with pytest.raises(
        ParameterError, match=r"^shapes names no input: 'nope'; its inputs are: 'x'$"
    ) as caught:
        generate_inputs(load(xml), shapes={"nope": (1,)})
    assert caught.value.parameter == "shapes"
    code, _, err = run_cli(capsys, xml, "--shape", "nope=[1]")
    assert (code, err) == (2, "error: --shape names no input: 'nope'; its inputs are: 'x'\n")
    with pytest.raises(ParameterError, match=r"^jobs sizes the embedded Dask cluster; with scheduler the"):
        engines.make("dask", 2, "tcp://127.0.0.1:1")


def test_oracles_parse() -> None:
    assert parse_oracles(["reference,cpu", "onnxruntime", "cpu"]) == ("reference", "cpu", "onnxruntime")
    assert parse_oracles(["both"]) == ("reference", "cpu")
    with pytest.raises(UsageError, match="unknown oracle 'gpu'"):
        parse_oracles(["gpu"])


def typed_model(tmp_path: Path) -> Path:
    """labels (i64) -> Gather into a table; idx (i64) -> OneHot; x (f32) -> Relu."""
    labels = opset16.parameter([4], ov.Type.i64, name="labels")
    idx = opset16.parameter([-1], ov.Type.i64, name="idx")
    x = opset16.parameter([3], ov.Type.f32, name="x")
    table = opset16.constant(np.arange(9, dtype=np.float32))
    gathered = opset16.gather(table, labels, opset16.constant(np.int64(0)))
    hot = opset16.one_hot(
        idx,
        opset16.constant(np.int64(4)),
        opset16.constant(np.float32(1)),
        opset16.constant(np.float32(0)),
        -1,
    )
    outs = [gathered.output(0), hot.output(0), opset16.relu(x).output(0)]
    for o, n in zip(outs, ("g", "hot", "r"), strict=True):
        o.get_tensor().set_names({n})
    xml = tmp_path / "typed.xml"
    ov.save_model(ov.Model(outs, [labels, idx, x], "m"), str(xml), compress_to_fp16=False)
    return xml


def test_generated_integer_inputs_stay_in_range(tmp_path: Path) -> None:
    model = load(typed_model(tmp_path))
    inputs = generate_inputs(model, seed=0)
    assert inputs["labels"].min() >= 0 and inputs["labels"].max() <= 8  # Gather indices into 9 rows
    assert {2**63 - 1, -(2**63), -1, 4} <= set(inputs["idx"].tolist())  # OneHot boundaries kept
    report = diff_model(model, inputs, oracle_runners(("reference",), model, str(model.path)))
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS] * 3, render(report)


def test_gather_indices_stay_inside_the_gathered_axis(tmp_path: Path) -> None:
    ids = opset16.parameter([50], ov.Type.i32, name="ids")
    counts = opset16.parameter([4], ov.Type.i64, name="counts")
    table = opset16.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    rows = opset16.gather(table, ids, opset16.constant(np.int64(-2)))  # axis -2: 3 rows
    total = opset16.reduce_sum(counts, opset16.constant(np.int64(0)))
    rows.output(0).get_tensor().set_names({"rows"})
    total.output(0).get_tensor().set_names({"total"})
    xml = tmp_path / "g.xml"
    ov.save_model(
        ov.Model([rows.output(0), total.output(0)], [ids, counts], "m"), str(xml), compress_to_fp16=False
    )
    model = load(xml)
    inputs, how = generate_inputs(model, seed=3, report=True)
    assert set(inputs["ids"].tolist()) == {0, 1, 2}  # 50 draws reach every row, never beyond
    assert "[0, 2] (the gathered axis)" in how["ids"]["values"]
    assert inputs["counts"].min() >= 0 and inputs["counts"].max() <= 8
    report = diff_model(model, inputs, oracle_runners(("reference",), model, str(xml)))
    assert [v.verdict for v in report.verdicts] == [Verdict.PASS, Verdict.PASS], render(report)


def test_val_range_and_per_input_seed(tmp_path: Path) -> None:
    model = load(typed_model(tmp_path))
    settings = parse_input_settings(["3", "x:11"], ["labels:2,3", "-1,1"])
    inputs, how = generate_inputs(model, settings.seed, settings=settings, report=True)
    assert set(inputs["labels"].tolist()) <= {2, 3}
    assert inputs["x"].min() >= -1 and inputs["x"].max() <= 1
    assert {2**63 - 1, -(2**63)} <= set(inputs["idx"].tolist())  # a global range leaves OneHot indices alone
    assert (
        how["labels"]["values"] == "uniform in [2, 3] (the value range asked for)" and how["x"]["seed"] == 11
    )
    assert how["idx"]["role"] == "OneHot indices" and how["labels"]["role"] == "other"
    # x's own seed: the same x whatever the global seed; the others follow the global seed.
    again = generate_inputs(model, 4, settings=parse_input_settings(["4", "x:11"], ["-1,1"]))
    assert np.array_equal(again["x"], inputs["x"])
    with pytest.raises(
        ParameterError,
        match=r"^per_input_seeds nope:\.\.\.: the model has no input 'nope'; its inputs are: 'labels', 'idx', 'x'",
    ):
        generate_inputs(model, settings=parse_input_settings(["nope:1"]))
    with pytest.raises(InputError, match="expected finite LO <= HI"):
        parse_input_settings([], ["3,1"])


def test_replay_manifest_records_how_inputs_were_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = typed_model(tmp_path)
    folder = tmp_path / "replay"
    code, out, _ = run_cli(
        capsys,
        xml,
        "--seed",
        "5",
        "--seed",
        "labels:7",
        "--val-range",
        "labels:0,8",
        "--oracle",
        "cpu",
        "--cpu-defaults",
        "--out-dir",
        folder,
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["input_generation"]["labels"]["seed"] == 7
    assert manifest["input_generation"]["labels"]["values"] == "uniform in [0, 8] (the value range asked for)"
    assert manifest["plugin"]["preset"] == "openvino-defaults"
    assert manifest["command"][3:] == [
        "--seed",
        "5",
        "--seed",
        "labels:7",
        "--val-range",
        "labels:0,8",
        "--oracle",
        "cpu",
        "--cpu-defaults",
        "--out-dir",
        str(folder),
    ]
    again_code, again, _ = run_cli(capsys, folder)
    assert again_code == code and verdict_lines(again) == verdict_lines(out)
    assert "CPU plugin with OpenVINO's defaults" in again


# -- --all-layers ------------------------------------------------------------------------------------------


def test_all_layers_finds_the_first_divergent_layer_and_where_the_error_grows(tmp_path: Path) -> None:
    import dataclasses

    from ovonehot.model import Model

    x = opset16.parameter([6], ov.Type.f32, name="x")
    relu = opset16.relu(x)
    scaled = opset16.multiply(relu, opset16.constant(np.float32(1000.0)))
    out = opset16.add(scaled, opset16.constant(np.float32(1.0)))
    out.output(0).get_tensor().set_names({"out"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([out.output(0)], [x], "m"), str(xml), compress_to_fp16=False)
    model = load(xml)

    def relu_off_by_a_bit(attrs: object, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [np.maximum(inputs[0], 0) + np.float32(1e-4)]  # a deliberately wrong kernel

    plans = tuple(
        dataclasses.replace(p, spec=dataclasses.replace(p.spec, evaluate=relu_off_by_a_bit, specialize=None))
        if p.node.type == "ReLU"
        else p
        for p in model.inference.plans
    )
    wrong = Model(model.graph, dataclasses.replace(model.inference, plans=plans), model.path)
    inputs = {"x": np.array([-2, -1, 0, 1, 2, 3], np.float32)}
    report = diff_model(
        wrong, inputs, oracle_runners(("reference",), wrong, str(xml)), DiffOptions(all_layers=True)
    )
    assert report.layers is not None
    rows = {r.type: r for r in report.layers}
    assert [r.type for r in report.layers] == ["ReLU-opset1", "Multiply-opset1", "Add-opset1"]
    assert rows["ReLU-opset1"].verdict is LayerVerdict.DIFFERS and rows[
        "ReLU-opset1"
    ].max_abs == pytest.approx(1e-4, rel=1e-3)
    assert rows["Multiply-opset1"].max_abs == pytest.approx(0.1, rel=1e-3)
    text = render(report)
    assert "first divergent layer: layer id=1 name='" in text and "type=ReLU-opset1 output 0" in text
    assert "error grows x1e+03 at layer id=3" in text
    assert report.exit_code == 1 and report.verdicts[0].verdict is Verdict.OURS_WRONG


def test_all_layers_runs_the_reference_up_to_what_it_cannot_evaluate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        capsys,
        f"{SMOOTHING}.onnx",
        "--inputs",
        f"{SMOOTHING}.typical.inputs.npz",
        "--oracle",
        "reference,cpu",
        "--all-layers",
        "--allow-partial",
    )
    assert code == 0, out
    table = [ln.split() for ln in out.splitlines() if ln.startswith(("reference ", "cpu "))]
    reference = {(row[3], row[-1]) for row in table if row[0] == "reference"}
    assert ("name='/OneHot'", "PASS") in reference  # computed before the op it has no kernel for
    assert ("name='/LogSoftmax'", "compared") in reference  # "not compared"
    assert "layers against reference: 18 compared, 0 differ, 5 not compared" in out
    assert (
        "first not compared: layer id=31 name='/LogSoftmax' type=LogSoftmax-opset5: reference did not "
        "compute it: OpenVINO's reference has no evaluate" in out
    )
    assert "layers against cpu: 23 compared, 0 differ, 0 not compared" in out


def test_a_device_openvino_does_not_have_is_not_compared(tmp_path: Path) -> None:
    xml = middle_op_model(tmp_path)
    model = load(xml)
    devices = ov.Core().available_devices
    missing = next(d for d in ("NPU", "GPU", "FPGA") if d not in devices)
    report = diff_model(
        model,
        generate_inputs(model),
        oracle_runners(("cpu",), model, str(xml), plugin=PluginSettings(device=missing)),
        DiffOptions(allow_partial=True),
    )
    assert {v.verdict for v in report.verdicts} == {Verdict.NOT_COMPARED}
    assert f"OpenVINO has no device {missing!r} here" in report.verdicts[0].reason
    assert report.exit_code == 1  # nothing compared


def test_both_refusing_at_different_layers_is_not_a_pass(tmp_path: Path) -> None:
    """ovonehot refuses a negative depth at the OneHot; the reference stops earlier, at a LogSoftmax it has
    no evaluate for.  Nothing was compared: not a PASS ("both refuse") and not a deviation (what it used to be
    called).  Only a refusal at the same layer (both refuse the negative depth) is an agreement."""
    x = opset16.parameter([4], ov.Type.f32, name="x")
    idx = opset16.parameter([4], ov.Type.i32, name="idx")
    depth = opset16.parameter([], ov.Type.i64, name="depth")
    hot = opset16.one_hot(idx, depth, opset16.constant(np.float32(1)), opset16.constant(np.float32(0)), -1)
    summed = opset16.reduce_sum(hot, opset16.constant(np.int64(1)))
    out = opset16.add(opset16.log_softmax(x, 0), summed)
    out.output(0).get_tensor().set_names({"out"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([out.output(0)], [x, idx, depth], "m"), str(xml), compress_to_fp16=False)
    model = load(xml)
    inputs = {
        "x": np.zeros(4, np.float32),
        "idx": np.arange(4, dtype=np.int32),
        "depth": np.array(-1, np.int64),
    }
    report = diff_model(model, inputs, oracle_runners(("reference",), model, str(xml)))
    (v,) = report.verdicts
    assert report.ours_error and "negative" in report.ours_error
    assert v.verdict is Verdict.NOT_COMPARED, render(report)
    assert "type=LogSoftmax-opset5" in v.reason
    assert report.exit_code == 1
