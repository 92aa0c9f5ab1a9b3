"""The rounding envelope on what torchvision's Mask R-CNN and Keypoint R-CNN compute after their
detections: both were "unexplained" against the CPU plugin although both sides were right.

* Keypoint R-CNN: the keypoints come out of a Loop over the boxes whose body resizes each box's
  heatmaps to a size computed from the box and takes their argmax.  The envelope estimated the
  Loop by moving its float inputs, which moved the decisions inside (another size, another
  argmax, an empty resize the TopK refused), so the keypoints had no envelope.  The estimate now
  holds the body's integer, boolean and whole-number values (``envelope._body_runner``).
  Corpus: ``regressions/torch_keypoints_loop``.
* Mask R-CNN: its mask probabilities fall among f32's subnormals, which the CPU plugin's Sigmoid
  gives as 0 (and OpenVINO's reference and ovonehot, whose exp overflows below -88.7, for the
  smallest), far outside an envelope of the subnormal's ulps; transcendental, cancelling and
  estimated ops may now be off by f32's smallest normal (``Accuracy.flushes``).  Corpus:
  ``regressions/sigmoid_underflow``.  And the square root of a box area of 0 that carries an
  error: moved below 0 it is NaN, which made the envelope unbounded; the other side's change
  counts now (``_largest_change(one_sided=True)``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ovonehot import load
from ovonehot.differential.envelope import F32_TINY, LAMBDA, carry, envelopes, truth

CORPUS = Path(__file__).resolve().parent.parent / "ir" / "corpus" / "regressions"
CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}


def _case(name: str) -> tuple[Path, dict[str, np.ndarray]]:
    return CORPUS / name / "model.xml", dict(np.load(CORPUS / name / "normal.inputs.npz"))


def _diff_against_cpu(xml: Path, inputs: dict[str, np.ndarray]) -> list:  # type: ignore[type-arg]
    pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    from ovonehot.differential.diff import DiffOptions, diff_model, oracle_runners

    model = load(xml)
    return list(diff_model(model, inputs, oracle_runners(("cpu",), model, str(xml)), DiffOptions()).verdicts)


def test_keypoints_from_a_loop_over_boxes_pass_inside_their_envelope() -> None:
    xml, inputs = _case("torch_keypoints_loop")
    (verdict,) = _diff_against_cpu(xml, inputs)
    assert verdict.verdict.value == "PASS", verdict.reason
    assert verdict.envelope is not None and "rounding envelope" in verdict.reason
    # (the fixed tolerance alone fails them: the envelope decided)
    assert verdict.comparison.count > 0


def test_the_loop_s_envelope_is_bounded_and_not_vacuous() -> None:
    xml, inputs = _case("torch_keypoints_loop")
    model = load(xml)
    (env,) = envelopes(model, truth(model, inputs))[0].values()
    assert np.isfinite(env.bound).all()
    # coordinates of tens of pixels and heatmap values: a 1e-3 relative error is outside
    assert env.ratio(env.truth * (1 + 1e-3)) > 1.0
    assert float(np.median(env.bound / np.maximum(np.abs(env.truth), 1e-30))) < 1e-3


def test_a_body_with_too_many_decisions_to_hold_is_moved_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``MAX_HELD_BYTES`` of decisions (every iteration's) the Loop is moved with nothing
    held: the keypoints have no envelope then, as before (not a memory blow-up)."""
    from ovonehot.differential import envelope

    monkeypatch.setattr(envelope, "MAX_HELD_BYTES", 16)
    xml, inputs = _case("torch_keypoints_loop")
    model = load(xml)
    assert envelopes(model, truth(model, inputs))[0] == {}


def test_subnormal_probabilities_the_cpu_plugin_flushes_pass() -> None:
    ov = pytest.importorskip("openvino", reason="the CPU plugin is the oracle")
    xml, inputs = _case("sigmoid_underflow")
    compiled = ov.Core().compile_model(str(xml), "CPU", CPU_CONFIG)
    theirs = np.asarray(compiled(inputs)[compiled.outputs[0]])[0, :24]
    model = load(xml)
    (env,) = envelopes(model, truth(model, inputs))[0].values()
    subnormal = (env.truth[0, :24] > 0) & (env.truth[0, :24] < F32_TINY)
    assert subnormal.any() and (theirs[subnormal] == 0).any()  # (the plugin does flush them)
    (verdict,) = _diff_against_cpu(xml, inputs)
    assert verdict.verdict.value == "PASS", verdict.reason
    # the allowance is f32's smallest normal, no more: a value twice that off is outside
    moved = env.truth.copy()
    moved[0, 0] += 4 * LAMBDA * F32_TINY
    assert env.ratio(moved) > 1.0


def test_the_square_root_of_an_area_of_zero_with_an_error_is_bounded() -> None:
    ov = pytest.importorskip("openvino", reason="the model is written by OpenVINO's opset API")
    import openvino.opset13 as ops

    x = ops.parameter([1, 64], np.float32, name="x")
    a = ops.matmul(
        x, ops.constant(np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)), False, False
    )
    width = ops.subtract(a, a)  # (0 exactly, with the MatMul's error: a box of no width)
    height = ops.add(ops.abs(a), np.float32(1.0))
    y = ops.add(ops.sqrt(ops.multiply(width, height)), a)  # (the square root of its area)
    model = load_model(ov.Model([y.output(0)], [x], "area"))
    inputs = {"x": np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)}
    t = truth(model, inputs)
    carried = carry(model, t)
    sqrt = next(i for i, p in enumerate(model.inference.plans) if p.node.type == "Sqrt")
    sigma = np.asarray(carried.sigma[(sqrt, 0)])
    assert np.isfinite(sigma).all() and np.all(sigma > 0)
    (env,) = envelopes(model, t)[0].values()
    assert np.isfinite(env.bound).all()
    # (the square root magnifies an error near 0: sqrt(1e-6) = 1e-3; still, 1 is outside)
    assert env.ratio(env.truth + 1.0) > 1.0


def load_model(ov_model: object) -> object:
    """An ``ov.Model`` saved and read back by ovonehot."""
    import tempfile

    import openvino as ov

    folder = Path(tempfile.mkdtemp())
    ov.save_model(ov_model, str(folder / "m.xml"))
    return load(folder / "m.xml")
