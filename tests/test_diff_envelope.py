"""The rounding envelope (differential/envelope.py) and the verdicts it gives.

Models are written by OpenVINO (``ov.save_model``).  What the envelope is checked against:
ovonehot's exact and fast runs and the CPU plugin land inside it on long convolutions and
matmuls (where diff's fixed default tolerance fails them); a kernel made wrong in the model's
plans (not in the registry: the float64 truth runs the registry's kernels) is outside it, by a
wrong sign, a swapped index or a few ulps in an element-wise chain; the bound of one correctly
rounded op is what the docstring says.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot import load
from ovonehot.cli import main
from ovonehot.differential.compare import Tolerance, compare
from ovonehot.differential.diff import diff_model, oracle_runners
from ovonehot.differential.envelope import LAMBDA, carry, envelopes, truth, ulp
from ovonehot.differential.verdicts import Verdict
from ovonehot.model import Model
from ovonehot.types import ElementType
from tests.test_envelope_accuracy import CPU_CONFIG

ov = pytest.importorskip("openvino", reason="the models are written and checked by OpenVINO")
opset1 = pytest.importorskip("openvino.opset1")
opset13 = pytest.importorskip("openvino.opset13")


def _save(path: Path, outputs: list[Any], params: list[Any]) -> Path:
    xml = path / "model.xml"
    ov.save_model(ov.Model(outputs, params, "m"), str(xml), compress_to_fp16=False)
    return xml


def conv_net(path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """Two 3x3 convolutions over 128 channels (1152-term dot products): their sums cancel to
    values near zero, where the CPU plugin's order of summation differs by more than diff's
    fixed default tolerance."""
    rng = np.random.default_rng(7)
    x = opset1.parameter([1, 128, 6, 6], ov.Type.f32, name="x")
    w1 = opset1.constant(rng.standard_normal((128, 128, 3, 3)).astype(np.float32))
    c1 = opset1.convolution(x, w1, [1, 1], [1, 1], [1, 1], [1, 1])
    r = opset1.relu(c1)
    w2 = opset1.constant(rng.standard_normal((4, 128, 3, 3)).astype(np.float32))
    c2 = opset1.convolution(r, w2, [1, 1], [1, 1], [1, 1], [1, 1])
    c2.output(0).get_tensor().set_names({"y"})
    xml = _save(path, [c2.output(0)], [x])
    return xml, {"x": rng.standard_normal((1, 128, 6, 6)).astype(np.float32)}


def chain(path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """(a + b) * c: correctly rounded element-wise ops only (and no cancellation)."""
    a, b, c = (opset1.parameter([64], ov.Type.f32, name=n) for n in "abc")
    y = opset1.multiply(opset1.add(a, b), c)
    y.output(0).get_tensor().set_names({"y"})
    rng = np.random.default_rng(3)
    xml = _save(path, [y.output(0)], [a, b, c])
    return xml, {n: rng.uniform(0.5, 2.0, 64).astype(np.float32) for n in "abc"}


def with_kernel(model: Model, op: str, change: Callable[[np.ndarray], np.ndarray]) -> Model:
    """The model with each ``op`` node's output changed (its plans only: the registry, which the
    float64 truth runs, keeps the right kernel)."""

    def planted(spec: Any) -> Any:
        kernel = spec.evaluate

        def wrong(attrs: Any, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            return [change(np.asarray(o)) for o in kernel(attrs, inputs)]

        return dataclasses.replace(spec, evaluate=wrong, specialize=None)

    plans = tuple(
        dataclasses.replace(p, spec=planted(p.spec)) if p.node.type.lower() == op.lower() else p
        for p in model.inference.plans
    )
    # (a fresh cache: the compiled program of the model's earlier runs holds the right kernel)
    return Model(model.graph, dataclasses.replace(model.inference, plans=plans, cache={}), model.path)


def test_convolutions_the_fixed_tolerance_fails_pass_inside_the_envelope(tmp_path: Path) -> None:
    xml, inputs = conv_net(tmp_path)
    model = load(xml)
    report = diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml)))
    (v,) = report.verdicts
    cpu = report.runs["cpu"].outputs
    assert cpu is not None
    ours = model.run(inputs)["y"]
    # The case is one the fixed tolerance cannot judge: it fails it.
    assert not compare(ours, cpu["y"], Tolerance(1e-6, 1e-5)).equal
    assert v.verdict in (Verdict.PASS, Verdict.ROUNDING), v
    assert v.envelope is not None and v.envelope.ours_ratio <= 1.0 and v.envelope.theirs_ratio <= 1.0
    assert report.exit_code == 0
    # Fast mode (BLAS order) lands inside it too.
    env, _ = envelopes(model, truth(model, inputs))
    assert env["y"].within(model.run(inputs, exact=False)["y"]).all()


def test_the_report_states_the_envelope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, inputs = conv_net(tmp_path)
    np.savez(tmp_path / "in.npz", **inputs)
    assert main(["diff", str(xml), "--inputs", str(tmp_path / "in.npz"), "--oracle", "cpu"]) == 0
    text = capsys.readouterr().out
    assert "rounding envelope: 6 sigma" in text and "of the float64 truth" in text
    assert main(["diff", str(xml), "--inputs", str(tmp_path / "in.npz"), "--oracle", "cpu", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["verdicts"]
    assert row["envelope"]["lambda"] == LAMBDA and row["envelope"]["ours_over_bound"] <= 1.0
    # --atol/--rtol override: the envelope is not consulted, the fixed tolerance fails.
    code = main(["diff", str(xml), "--inputs", str(tmp_path / "in.npz"), "--oracle", "cpu", "--atol", "1e-7"])
    assert code == 1 and "rounding envelope" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("op", "change"),
    [
        ("Relu", lambda o: -o),  # a wrong sign
        ("Relu", lambda o: o[:, ::-1].copy()),  # swapped channels
        ("Convolution", lambda o: o * np.float32(1 + 2e-3)),  # a scale error
    ],
    ids=["wrong-sign", "swapped-index", "scaled"],
)
def test_planted_bugs_in_a_long_sum_are_ours_wrong(
    tmp_path: Path, op: str, change: Callable[[np.ndarray], np.ndarray]
) -> None:
    xml, inputs = conv_net(tmp_path)
    model = with_kernel(load(xml), op, change)
    report = diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml)))
    (v,) = report.verdicts
    assert v.verdict is Verdict.OURS_WRONG, v
    assert v.envelope is not None and v.envelope.ours_ratio > 1.0 >= v.envelope.theirs_ratio
    assert report.exit_code == 1


def test_a_few_ulps_in_an_elementwise_chain_are_outside(tmp_path: Path) -> None:
    """Correctly rounded ops: the envelope is a few ulps, so an 8-ulp error in Multiply is out."""
    xml, inputs = chain(tmp_path)
    model = load(xml)
    env, _ = envelopes(model, truth(model, inputs))
    e = env["y"]
    assert e.within(model.run(inputs)["y"]).all()
    spacing = ulp(e.truth, ElementType.f32)
    assert (e.bound <= 6 * spacing).all(), float((e.bound / spacing).max())
    wrong = with_kernel(model, "Multiply", lambda o: (o + 8 * np.spacing(o)).astype(o.dtype))
    assert not e.within(wrong.run(inputs)["y"]).any()


def test_one_correctly_rounded_op_has_the_stated_bound(tmp_path: Path) -> None:
    """a + b: sigma is 0.5 ulp / sqrt(3) where the sum is not held exactly, 0 where it is; the
    bound adds the output's own half ulp."""
    a, b = (opset1.parameter([4], ov.Type.f32, name=n) for n in "ab")
    y = opset1.add(a, b)
    y.output(0).get_tensor().set_names({"y"})
    xml = _save(tmp_path, [y.output(0)], [a, b])
    model = load(xml)
    inputs = {"a": np.array([1, 1, 0.1, 3], np.float32), "b": np.array([2, 2**-30, 0.2, -3], np.float32)}
    (e,) = envelopes(model, truth(model, inputs))[0].values()
    t = inputs["a"].astype(np.float64) + inputs["b"].astype(np.float64)
    np.testing.assert_array_equal(e.truth, t)
    half = 0.5 * ulp(t, ElementType.f32)
    held = t.astype(np.float32).astype(np.float64) == t
    expected = np.where(held, 0.0, LAMBDA * 0.5 * ulp(t, ElementType.f32) / np.sqrt(3.0)) + half
    np.testing.assert_allclose(e.bound, expected, rtol=1e-12)


def nms_model(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    boxes = opset1.parameter([1, 6, 4], ov.Type.f32, name="boxes")
    scores = opset1.parameter([1, 1, 6], ov.Type.f32, name="scores")
    nms = opset13.non_max_suppression(
        boxes, scores, opset1.constant(np.int64(3)), opset1.constant(np.float32(0.5))
    )
    xml = _save(tmp_path, [nms.output(0), nms.output(1)], [boxes, scores])
    rng = np.random.default_rng(0)
    inputs = {
        "boxes": np.sort(rng.uniform(0, 1, (1, 6, 4)).astype(np.float32), axis=-1),
        "scores": rng.uniform(0, 1, (1, 1, 6)).astype(np.float32),
    }
    return xml, inputs


def test_the_float64_run_takes_ops_that_take_only_narrow_floats(tmp_path: Path) -> None:
    """NonMaxSuppression refuses f64 boxes in OpenVINO (and when ovonehot reads a model); the
    truth run lets f64 stand for f32 there, and only there."""
    xml, inputs = nms_model(tmp_path)
    model = load(xml)
    env, estimated = envelopes(model, truth(model, inputs))
    scores = env[model.outputs[1].name]
    assert scores.within(model.run(inputs)[model.outputs[1].name]).all()
    assert "NonMaxSuppression" in estimated
    from ovonehot.differential.envelope import widen
    from ovonehot.errors import ValidationError
    from ovonehot.infer import infer
    from ovonehot.ops.common.widening import widened

    graph = widen(model.graph)
    with pytest.raises(ValidationError, match="Expected bf16, fp16 or fp32"):
        infer(graph)
    with widened():
        infer(graph)


def test_without_an_envelope_the_fixed_tolerance_judges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the truth run's memory budget there is no envelope: the verdicts are the fixed
    tolerance's (and say nothing of an envelope)."""
    from ovonehot.differential import envelope

    monkeypatch.setattr(envelope, "MAX_TRUTH_BYTES", 0)
    xml, inputs = conv_net(tmp_path)
    model = load(xml)
    with pytest.raises(envelope.EnvelopeError, match="limit"):
        truth(model, inputs)
    report = diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml)))
    (v,) = report.verdicts
    assert v.envelope is None and v.verdict is Verdict.UNEXPLAINED


def test_a_plugin_wrong_inside_the_model_and_right_alone_is_theirs_wrong(tmp_path: Path) -> None:
    """The CPU plugin as a double that, in the whole model only, adds 0.25 to the first
    convolution (as a broken fusion would): isolated, the first layer outside the envelope is that
    convolution, which the real plugin computes alone inside its envelope: theirs wrong."""
    from ovonehot.differential.runners import PluginRunner
    from ovonehot.oracle.common import OracleOutputs

    xml, inputs = conv_net(tmp_path)
    model = load(xml)
    (cpu,) = oracle_runners(("cpu",), model, str(xml))
    assert isinstance(cpu, PluginRunner)
    graph = model.graph
    first = next(n.name for n in graph.nodes if n.type == "Convolution")

    class FusedWrong(PluginRunner):
        def run(self, inputs: Any, keep_intermediates: bool = False) -> OracleOutputs:
            # What the plugin computes when the first convolution is 0.25 off.
            wrong = with_kernel(model, "Convolution", lambda o: o)  # (a fresh program)
            bump = {"done": False}

            def override(key: Any, plan: Any, args: list[np.ndarray]) -> list[np.ndarray] | None:
                if plan.node.name == first and not bump["done"]:
                    bump["done"] = True
                    (out,) = plan.spec.evaluate(plan.attrs, args)
                    return [out + np.float32(0.25)]
                return None

            from ovonehot.evaluate import RunMode, evaluate

            seen: dict[tuple[str, int], np.ndarray] = {}

            def observe(key: Any, plan: Any, outs: Any, seconds: float) -> None:
                for k, o in enumerate(outs):
                    seen[(plan.node.name, k)] = o

            feeds = {graph.kind_indices("Parameter")[0]: inputs["x"]}
            values = evaluate(wrong.inference, feeds, RunMode(override=override, observer=observe))
            (r,) = graph.kind_indices("Result")
            return OracleOutputs({"y": values[(r, 0)]}, seen if keep_intermediates else None)

    double = FusedWrong(cpu.source, cpu.plugin, cpu.isolated)
    report = diff_model(model, inputs, [double])
    (v,) = report.verdicts
    assert v.verdict is Verdict.THEIRS_WRONG, v.reason
    assert "first leaves the envelope at layer id=" in v.reason and first in v.reason
    assert "compiles the whole model" in v.reason
    assert report.exit_code == 1


def test_the_layer_table_judges_by_the_envelope_and_finds_the_planted_layer(tmp_path: Path) -> None:
    """--all-layers: the convolutions the fixed tolerance fails are inside their envelopes (no
    layer differs); with a negated Relu planted, the first divergent layer is that Relu."""
    from ovonehot.differential.diff import DiffOptions

    xml, inputs = conv_net(tmp_path)
    model = load(xml)
    report = diff_model(
        model, inputs, oracle_runners(("cpu",), model, str(xml)), DiffOptions(all_layers=True)
    )
    rows = report.layers or []
    assert rows and all(r.verdict.value == "PASS" for r in rows), [(r.layer, r.note) for r in rows]
    assert any("rounding envelope" in r.tolerance for r in rows)
    wrong = with_kernel(model, "Relu", lambda o: -o)
    report = diff_model(
        wrong, inputs, oracle_runners(("cpu",), wrong, str(xml)), DiffOptions(all_layers=True)
    )
    (v,) = report.verdicts
    assert v.verdict is Verdict.OURS_WRONG
    assert "type=ReLU" in v.first_node, v.first_node


def test_a_number_where_the_truth_is_nan_is_outside_every_envelope() -> None:
    """A value that is a number where the float64 truth is NaN (or NaN where it is a number) is
    no rounding: the ratio is infinite.  (A CPU plugin's finite logits against ovonehot's NaN, the
    truth's NaN on a fully masked attention row, had been judged PASS: NaN ratios were dropped.)"""
    from ovonehot.differential.envelope import Envelope

    truth_values = np.array([1.0, np.nan, 2.0])
    env = Envelope(truth_values, np.full(3, 1e-6), ElementType.f32)
    assert env.ratio(np.array([1.0, np.nan, 2.0])) == 0.0
    assert env.ratio(np.array([1.0, 0.5, 2.0])) == np.inf  # a number where the truth is NaN
    assert env.ratio(np.array([np.nan, np.nan, 2.0])) == np.inf  # NaN where the truth is a number
    assert env.between(np.array([1.0, np.nan, 2.0]), np.array([1.0, 0.5, 2.0])) == np.inf
    assert env.ratio(np.array([1.0 + 5e-7, np.nan, 2.0])) == pytest.approx(0.5)


def resize(path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """Interpolate-11 linear_onnx pytorch_half_pixel 160 -> 320 (a torchvision detector's first
    resize) of a normalized image (standard normal values)."""
    x = opset1.parameter([1, 3, 160, 160], ov.Type.f32, name="x")
    opset11 = pytest.importorskip("openvino.opset11")
    y = opset11.interpolate(
        x,
        opset1.constant(np.array([320, 320], np.int64)),
        mode="linear_onnx",
        shape_calculation_mode="sizes",
        axes=opset1.constant(np.array([2, 3], np.int64)),
        coordinate_transformation_mode="pytorch_half_pixel",
    )
    y.output(0).get_tensor().set_names({"y"})
    rng = np.random.default_rng(5)
    return _save(path, [y.output(0)], [x]), {"x": rng.standard_normal((1, 3, 160, 160)).astype(np.float32)}


def test_a_resize_whose_coordinates_the_plugin_rounds_otherwise_passes(tmp_path: Path) -> None:
    """The CPU plugin computes pytorch_half_pixel's source coordinates in its own order: an ulp of a
    coordinate up to 160 moves an output by about 1e-5 of the data's step, which the envelope now
    carries (it said "theirs wrong", 6x the bound); a kernel off by 1e-4 of its value still is
    outside it ("ours wrong")."""
    xml, inputs = resize(tmp_path)
    model = load(xml)
    report = diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml)))
    (v,) = report.verdicts
    assert v.verdict is Verdict.PASS, v.reason
    wrong = with_kernel(load(xml), "Interpolate", lambda o: (o * np.float32(1 + 1e-4)).astype(o.dtype))
    report = diff_model(wrong, inputs, oracle_runners(("cpu",), wrong, str(xml)))
    (v,) = report.verdicts
    assert v.verdict is Verdict.OURS_WRONG, v.reason


def test_the_float64_run_takes_computed_interpolate_scales() -> None:
    """Keypoint R-CNN's upsampling computes its scales in the graph (f32, widened to f64 in the
    truth run): the float64 run takes them as the f32 scales they stand for, and the output has
    an envelope (before: 'the float64 run fails: Scales element type must be f32, f16 or bf16').
    The corpus's reduction of it: ir/corpus/regressions/interpolate_computed_scales."""
    folder = (
        Path(__file__).resolve().parents[1] / "ir" / "corpus" / "regressions" / "interpolate_computed_scales"
    )
    model = load(folder / "model.xml")
    inputs = dict(np.load(folder / "normal.inputs.npz"))
    env, _ = envelopes(model, truth(model, inputs))
    (name,) = (d.name for d in model.outputs)
    assert env[name].truth.shape == (1, 2, 10, 14)
    assert env[name].within(model.run(inputs)[name]).all()


FQ_ZERO = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "regressions" / "fake_quantize_zero_level"


@pytest.mark.parametrize(
    ("levels", "low", "high"),
    [
        (256, -0.09266674, 0.12412242),  # (the full-int8 TFLite MobileNetV2's: a level near zero)
        (256, -0.375, 5.0),  # (NNCF after Hardswish)
        (255, -1.0, 1.0),  # (symmetric weights)
        (16, 0.0, 6.0),
    ],
)
def test_fake_quantize_lands_inside_its_envelope(
    tmp_path: Path, levels: int, low: float, high: float
) -> None:
    """A FakeQuantize's levels come out a few ulps of the *range* apart in the CPU plugin and in
    the spec's formula (0 against 6.4e-10 at the level nearest zero on a range of 0.12): both land
    inside the envelope, which says 'theirs wrong' at 32 ulps of the range and at a level step
    away from a level boundary, and allows a step where the input sits on a boundary."""
    x = opset1.parameter([4096], ov.Type.f32, name="x")
    lo, hi = np.float32(low), np.float32(high)
    y = opset1.fake_quantize(x, lo, hi, lo, hi, levels)
    xml = tmp_path / "fq.xml"
    ov.save_model(ov.Model([y.output(0)], [x], "fq"), str(xml), compress_to_fp16=False)
    model = load(xml)
    step = (high - low) / (levels - 1)
    rng = np.random.default_rng(levels)
    values = rng.uniform(low - step, high + step, 4096).astype(np.float32)
    values[:64] = (low + (np.arange(64) % (levels - 1) + 0.5) * step).astype(np.float32)  # (on boundaries)
    env = envelopes(model, truth(model, {"x": values}))[0][model.outputs[0].name]
    cpu = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)({"x": values})[0]
    mine = model.run({"x": values})[model.outputs[0].name]
    for who, got in (("cpu", cpu), ("ovonehot", mine)):
        inside = env.within(got)
        assert inside.all(), (who, values[~inside][:5], got[~inside][:5], env.truth[~inside][:5])
    scale = max(abs(low), abs(high))
    far = env.truth + 32 * ulp(np.full(env.truth.shape, scale), ElementType.f32)
    t = (values.astype(np.float64) - low) / (high - low) * (levels - 1)
    off = np.abs(t - np.floor(t) - 0.5) > 1e-4  # (off the level boundaries, by a margin)
    off[:64] = False
    assert off.sum() > 3900
    assert not env.within(far)[off].any()
    assert not env.within(env.truth + step)[off].any()  # (a whole level away)
    assert env.within(env.truth + step)[:64].all()  # (on a boundary, a neighbouring level is right)


def test_fake_quantize_zero_level_is_not_theirs_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    """The corpus case: before, 'theirs wrong' at 8e34 times the bound (the bound of a zero output
    was a subnormal's ulp); the CPU plugin is at 0.1 x the envelope now."""
    passes_inside_the_envelope(FQ_ZERO / "model.xml", FQ_ZERO / "spread.inputs.npz", capsys)


def passes_inside_the_envelope(xml: Path, inputs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``diff --oracle cpu`` on a corpus case: exit 0, the output PASS inside its envelope."""
    code = main(["diff", str(xml), "--inputs", str(inputs), "--oracle", "cpu"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASS (the difference is inside the rounding envelope of the float64 truth)" in out


SCATTER_MASK = Path(__file__).resolve().parents[1] / "ir" / "corpus" / "regressions" / "scatter_mask_bias"


def test_a_mask_built_by_scatter_keeps_the_envelope(capsys: pytest.CaptureFixture[str]) -> None:
    """Swin's attention mask (ScatterNDUpdate of constants, != 0, Select) is exact: the scatter is a
    copy, its sigma none, and the output keeps its envelope (before: the mask got a sigma from a
    perturbation estimate, the comparison 'might flip', the envelope was dropped and the fixed
    tolerance failed a 4096-term sum: 'unexplained')."""
    model = load(SCATTER_MASK / "model.xml")
    inputs = dict(np.load(SCATTER_MASK / "normal.inputs.npz"))

    carried = carry(model, truth(model, inputs))
    (scatter,) = model.graph.kind_indices("ScatterNDUpdate")
    assert carried.sigma[(scatter, 0)] is None
    assert "ScatterNDUpdate" not in carried.estimated
    passes_inside_the_envelope(SCATTER_MASK / "model.xml", SCATTER_MASK / "normal.inputs.npz", capsys)


def test_a_failing_verdict_without_an_envelope_says_why(tmp_path: Path) -> None:
    """An output computed from a TopK's indices over ties has no envelope (a rounding may change
    an index): a failing verdict there says so, and that the fixed tolerance judged it.  Before,
    the indices converted to f32 were taken for their own sigma (a bound of 54 on a value of 9:
    a 1% error passed)."""
    x = opset13.parameter([16], ov.Type.f32, name="x")
    top = opset13.topk(x, np.int64(4), 0, "max", "value", "i64")
    y = opset13.multiply(opset13.convert(top.output(1), "f32"), np.float32(1.5))
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([y.output(0)], [x], "m"), str(xml), compress_to_fp16=False)
    model = with_kernel(load(xml), "Multiply", lambda o: o * np.float32(1.01))
    runners = oracle_runners(("reference",), model, str(xml))
    ties = {"x": np.tile(np.float32([1.0, 0.5]), 8)}  # (a rounding may reorder the indices)
    (v,) = diff_model(model, ties, runners).verdicts
    assert v.verdict is Verdict.OURS_WRONG, v
    assert "no rounding envelope (unbounded" in v.reason and "the fixed tolerance judged it" in v.reason
    # Distinct values: the indices are exact, so is the output, and the 1% error is far outside.
    distinct = {"x": np.random.default_rng(0).standard_normal(16).astype(np.float32)}
    (v,) = diff_model(model, distinct, runners).verdicts
    assert v.verdict is Verdict.OURS_WRONG and v.envelope is not None and v.envelope.ours_ratio > 1e3, v


def test_a_comparison_that_may_flip_leaves_no_envelope(tmp_path: Path) -> None:
    """Select(x / 3 > c, 1, 0) where x / 3 lies within its rounding of c (a rounding may flip the
    comparison): unbounded, no envelope (before: the boolean's change was taken for a sigma of 1,
    a bound that passes any error below 6); away from c the output is exact."""
    c = np.float32(np.float32(0.5) / np.float32(3.0))
    x = opset13.parameter([4], ov.Type.f32, name="x")
    third = opset13.divide(x, np.float32(3.0))
    y = opset13.select(opset13.greater(third, c), np.float32(1.0), np.float32(0.0))
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([y.output(0)], [x], "m"), str(xml), compress_to_fp16=False)
    model = load(xml)
    (select,) = model.graph.kind_indices("Select")
    on_edge = carry(model, truth(model, {"x": np.float32([0.5, 0.1, 0.9, 0.5])}))
    assert on_edge.at(select, 0) is None
    away = carry(model, truth(model, {"x": np.float32([0.7, 0.1, 0.9, 0.3])})).at(select, 0)
    assert away is not None and float(away.bound.max()) < 1e-6


def test_the_cpu_plugins_fake_quantize_over_a_tiny_range_is_theirs_wrong(tmp_path: Path) -> None:
    """The envelope bounds FakeQuantize by ulps of its range, and still catches the CPU plugin's
    bug over a range of 2e-6 (docs/FINDINGS.md, bugs found: every output minus output_low)."""
    x = opset1.parameter([64], ov.Type.f32, name="x")
    lo, hi = np.float32(-8e-7), np.float32(1.2e-6)
    y = opset1.fake_quantize(x, lo, hi, lo, hi, 256)
    xml = tmp_path / "fq.xml"
    ov.save_model(ov.Model([y.output(0)], [x], "fq"), str(xml), compress_to_fp16=False)
    model = load(xml)
    inputs = {"x": np.linspace(-1e-6, 1.4e-6, 64, dtype=np.float32)}
    (v,) = diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml))).verdicts
    assert v.verdict is Verdict.THEIRS_WRONG, v
