"""Multinomial-13 against OpenVINO's reference algorithm, composed from OpenVINO's own kernels.

The core op has no ``evaluate`` and the CPU plugin draws with another generator (its samples
differ from the reference's for every seed pair tried; ``test_cpu_plugin_draws_otherwise``
pins that).  So the oracle is ``reference/multinomial.hpp`` rebuilt from OpenVINO's reference
kernels via ``Node.evaluate``: RandomUniform-8 (the same seeds, [0, 1), the probs' type) for
the draws, Exp, CumSum and Divide for the CDF, and the reference's selection loop written out
plainly in the probs' type.  Every value then comes bit for bit from OpenVINO's kernels.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, build, cpu_outputs, export, reference

ov = pytest.importorskip("openvino")
o13 = pytest.importorskip("openvino.opset13")
o8 = pytest.importorskip("openvino.opset8")

RNG = np.random.default_rng(13)


def _ov_eval(node_factory, *arrays):  # type: ignore[no-untyped-def]
    node, _ = build(node_factory, [P(a) for a in arrays])
    (out,) = reference(node, list(arrays))  # type: ignore[misc]
    return out


def _oracle(
    probs: np.ndarray, count: int, replace: bool, log_probs: bool, seeds: tuple[int, int]
) -> np.ndarray:
    dtype = probs.dtype
    values = _ov_eval(o13.exp, probs) if log_probs else probs
    if dtype == np.float32:
        cdf = _ov_eval(lambda a, axis: o13.cumsum(a, axis), values, np.array(1, np.int64))
    else:  # CumSum has no f16 evaluate: the same running sum by OpenVINO's Add, column by column
        cdf = values.copy()
        for k in range(1, cdf.shape[1]):
            cdf[:, k] = _ov_eval(
                o13.add, np.ascontiguousarray(cdf[:, k - 1]), np.ascontiguousarray(cdf[:, k])
            )
    cdf = _ov_eval(lambda a, b: o13.divide(a, b), cdf, np.ascontiguousarray(cdf[:, -1:]))
    shape = np.array([probs.shape[0], count], np.int64)
    bounds = [shape, np.zeros((), dtype), np.ones((), dtype)]
    draw_node = o8.random_uniform(*(o13.constant(b) for b in bounds), ov.Type(dtype).to_string(), *seeds)
    (draws,) = reference(draw_node, bounds)  # type: ignore[misc]
    out = np.zeros((probs.shape[0], count), np.int64)
    t = dtype.type
    with np.errstate(all="ignore"):  # more draws than classes without replacement: 0 / 0
        _select(out, cdf, draws, replace, t)
    return out


def _select(out: np.ndarray, cdf: np.ndarray, draws: np.ndarray, replace: bool, t: type) -> None:
    """The reference's selection loop, plainly, in the probs' type."""
    count = out.shape[1]
    for b in range(out.shape[0]):
        row = [t(v) for v in cdf[b]]
        for j in range(count):
            chosen = next((k for k, v in enumerate(row) if draws[b, j] <= v), None)
            out[b, j] = 0 if chosen is None else chosen
            if replace or chosen is None:
                continue
            p = t(row[chosen] - row[chosen - 1]) if chosen else row[0]
            divisor = t(t(1) - p)
            row = [t(t(v - p) if k >= chosen else v) for k, v in enumerate(row)]
            row = [t(v / divisor) for v in row]


CASES = [
    pytest.param((1, 5), 4, (1, 2), id="1x5-draw4"),
    pytest.param((3, 6), 5, (150, 10), id="3x6-draw5"),
    pytest.param((2, 10), 10, (7, 0), id="2x10-draw10"),
    pytest.param((4, 3), 1, (0, 7), id="4x3-draw1"),
    pytest.param((2, 50), 20, (2**40 + 3, 2**33 + 5), id="2x50-big-seeds"),
    pytest.param((5, 1), 3, (3, 3), id="one-class"),
]


@pytest.mark.parametrize("convert_type", ["i32", "i64"])
@pytest.mark.parametrize("log_probs", [False, True], ids=["probs", "log-probs"])
@pytest.mark.parametrize("replace", [True, False], ids=["with-replacement", "without"])
@pytest.mark.parametrize(("shape", "count", "seeds"), CASES)
def test_multinomial_matches_composed_reference(
    tmp_path, shape, count, seeds, replace, log_probs, convert_type
):  # type: ignore[no-untyped-def]
    probs = RNG.random(shape).astype(np.float32) + np.float32(0.05)
    if log_probs:
        probs = np.log(probs / probs.sum(axis=1, keepdims=True)).astype(np.float32)
    node, params = build(
        lambda a, n: o13.multinomial(a, n, convert_type, replace, log_probs, *seeds),
        [P(probs), C(np.array(count, np.int64))],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([probs]).values()
    assert ours.dtype == np.dtype(convert_type.replace("i", "int"))
    np.testing.assert_array_equal(ours, _oracle(probs, count, replace, log_probs, seeds))


@pytest.mark.parametrize("replace", [True, False], ids=["with-replacement", "without"])
def test_multinomial_f16_matches_composed_reference(tmp_path, replace):  # type: ignore[no-untyped-def]
    probs = (RNG.random((3, 7)) + 0.05).astype(np.float16)
    node, params = build(
        lambda a, n: o13.multinomial(a, n, "i64", replace, False, 5, 6),
        [P(probs), P(np.array([4], np.int32))],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([probs, np.array([4], np.int32)]).values()
    np.testing.assert_array_equal(ours, _oracle(probs, 4, replace, False, (5, 6)))


def test_multinomial_without_replacement_draws_distinct_classes(tmp_path):  # type: ignore[no-untyped-def]
    probs = RNG.random((6, 8)).astype(np.float32) + np.float32(0.01)
    node, params = build(
        lambda a, n: o13.multinomial(a, n, "i32", False, False, 11, 12), [P(probs), C(np.int64(8))]
    )
    (ours,) = export(tmp_path, node, params).run([probs]).values()
    for row in ours:
        assert sorted(row.tolist()) == list(range(8))


def test_multinomial_zero_samples(tmp_path):  # type: ignore[no-untyped-def]
    probs = RNG.random((2, 3)).astype(np.float32)
    node, params = build(
        lambda a, n: o13.multinomial(a, n, "i32", True, False, 1, 2), [P(probs), C(np.int64(0))]
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([probs]).values()
    assert ours.shape == (2, 0)


def test_cpu_plugin_draws_otherwise(tmp_path):  # type: ignore[no-untyped-def]
    """A deviation pinned: the 2026.4 CPU plugin's Multinomial does not draw the reference's
    Philox sequence (both are valid samplers; only the reference's is specified by seeds)."""
    probs = RNG.random((3, 6)).astype(np.float32)
    node, params = build(
        lambda a, n: o13.multinomial(a, n, "i32", True, False, 1, 2), [P(probs), C(np.int64(50))]
    )
    (ours,) = export(tmp_path, node, params).run([probs]).values()
    theirs = cpu_outputs(node, params, [probs])[0]
    np.testing.assert_array_equal(ours, _oracle(probs, 50, True, False, (1, 2)))
    assert not np.array_equal(ours, theirs)


SHAPES = [
    ("2,4", "", "3"),
    ("2,4", "1", "3"),
    ("2,4", "", None),
    ("?,4", "1", None),
    ("2..5,?", "...", None),
    ("...", "", "3"),
    ("4", "", "3"),
    ("2,3,4", "", None),
    ("2,4", "2", None),
    ("2,4", "1,1", None),
    ("2,4", "", "-1"),
    ("2,4", "", "0"),
]


@pytest.mark.parametrize(("probs", "samples", "value"), SHAPES)
def test_multinomial_inference_matches_openvino(probs, samples, value):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.multinomial import MultinomialAttrs, infer_multinomial
    from ovonehot.types import ElementType, PartialShape

    p = o13.parameter(ov.PartialShape(f"[{probs}]"), ov.Type.f32)
    if value is None:
        n = o13.parameter(ov.PartialShape(f"[{samples}]"), ov.Type.i32)
        info = TensorInfo(ElementType.i32, PartialShape.parse(samples))
    else:
        arr = np.array(int(value), np.int64).reshape([1] * samples.count("1"))
        n = o13.constant(arr)
        info = TensorInfo(ElementType.i64, PartialShape.of(arr.shape), value=arr)
    try:
        node = o13.multinomial(p, n, "i64", True, False, 1, 2)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    attrs = MultinomialAttrs(ElementType.i64, True, False, 1, 2)
    try:
        (out,) = infer_multinomial(attrs, [TensorInfo(ElementType.f32, PartialShape.parse(probs)), info])
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
