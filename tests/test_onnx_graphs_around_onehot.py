"""ONNX graphs with OneHot and the ops around it, run by ovonehot (via OpenVINO's ONNX frontend) vs onnxruntime.

Each model is built with ``onnx.helper`` and run through ``ovonehot run model.onnx
--inputs all.npz --output out.npz``; the expected outputs are onnxruntime's (on
integer-valued indices, where onnxruntime follows the ONNX spec: see
docs/conventions.md, finding 4).  Integer and boolean outputs are exact; float
outputs within ``FLOAT_RTOL`` (the two runtimes sum and exponentiate differently).
The graphs cover what OpenVINO's frontend turns into ops beyond OneHot: Identity,
GatherElements, ScatterElementsUpdate, Einsum, TopK, Pad, Sin, Shape/Gather depth.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.cli import main

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip(
    "onnxruntime", reason="expected values come from ONNX Runtime, which is not installed"
)
pytest.importorskip("openvino", reason="ONNX input goes through OpenVINO's ONNX frontend")
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

FLOAT_RTOL = 1e-5
RNG = np.random.default_rng(5)


def _vi(name: str, elem: int, shape: list[object] | None) -> object:
    return (
        h.make_tensor_value_info(name, elem, shape)
        if shape is not None
        else onnx.ValueInfoProto(name=name, type=h.make_tensor_type_proto(elem, shape=None))
    )


def _save(tmp_path: Path, name: str, nodes, inputs, outputs, inits, opset: int = 13) -> Path:  # type: ignore[no-untyped-def]
    graph = h.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    model.ir_version = 8  # onnxruntime 1.31 refuses newer IR versions (docs/openvino-behaviour.md)
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


VALUES = nh.from_array(np.array([0, 1], np.float32), "vals")
DEPTH = nh.from_array(np.array(5, np.int64), "depth")


def _multi_outputs(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    nodes = [
        h.make_node("OneHot", ["idx", "depth", "vals"], ["oh"], axis=-1),
        h.make_node("ArgMax", ["oh"], ["am"], axis=-1, keepdims=0),
        h.make_node("ReduceSum", ["oh"], ["rs"], keepdims=1),
        h.make_node("Identity", ["idx"], ["idx_out"]),  # becomes Identity-16 in OpenVINO's IR
    ]
    outputs = [
        _vi("oh", TP.FLOAT, None),
        _vi("am", TP.INT64, None),
        _vi("rs", TP.FLOAT, None),
        _vi("idx_out", TP.INT64, None),
    ]
    path = _save(tmp_path, "multi", nodes, [_vi("idx", TP.INT64, [2, 3])], outputs, [VALUES, DEPTH])
    return path, {"idx": RNG.integers(-5, 5, (2, 3))}


def _round_trip(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    weights = nh.from_array(RNG.standard_normal((5, 4)).astype(np.float32), "W")
    nodes = [
        h.make_node("OneHot", ["idx", "depth", "vals"], ["oh"]),
        h.make_node("MatMul", ["oh", "W"], ["mm"]),
        h.make_node("Softmax", ["mm"], ["sm"], axis=-1),
        h.make_node("ArgMax", ["sm"], ["am"], axis=-1, keepdims=0),
        h.make_node("OneHot", ["am", "d4", "vals"], ["oh2"], axis=1),
        h.make_node("Cast", ["oh2"], ["c"], to=TP.INT32),
    ]
    inits = [VALUES, DEPTH, weights, nh.from_array(np.array([4], np.int64), "d4")]
    path = _save(
        tmp_path,
        "round_trip",
        nodes,
        [_vi("idx", TP.INT64, ["n", 3])],
        [_vi("c", TP.INT32, None), _vi("sm", TP.FLOAT, None)],
        inits,
    )
    return path, {"idx": RNG.integers(-5, 5, (6, 3))}


def _label_smoothing(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    scalars = {"eps": 0.1, "one": 1.0, "C": 5.0}
    nodes = [
        h.make_node("OneHot", ["t", "depth", "vals"], ["oh"]),
        h.make_node("Sub", ["one", "eps"], ["k"]),
        h.make_node("Mul", ["oh", "k"], ["a"]),
        h.make_node("Div", ["eps", "C"], ["b"]),
        h.make_node("Add", ["a", "b"], ["soft"]),
        h.make_node("LogSoftmax", ["x"], ["ls"], axis=1),
        h.make_node("Mul", ["soft", "ls"], ["prod"]),
        h.make_node("ReduceSum", ["prod", "ax"], ["s"], keepdims=0),
        h.make_node("Neg", ["s"], ["ns"]),
        h.make_node("ReduceMean", ["ns"], ["loss"], keepdims=0),
    ]
    inits = [VALUES, DEPTH, nh.from_array(np.array([1], np.int64), "ax")]
    inits += [nh.from_array(np.array(v, np.float32), k) for k, v in scalars.items()]
    path = _save(
        tmp_path,
        "label_smoothing",
        nodes,
        [_vi("x", TP.FLOAT, [4, 5]), _vi("t", TP.INT64, [4])],
        [_vi("loss", TP.FLOAT, None)],
        inits,
    )
    return path, {"x": RNG.standard_normal((4, 5)).astype(np.float32), "t": np.array([0, 4, 2, -1])}


def _gathers_and_scatters(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    nodes = [
        h.make_node("Shape", ["x"], ["sh"]),
        h.make_node("Gather", ["sh", "one_i"], ["dep"], axis=0),
        h.make_node("OneHot", ["t", "dep", "vals"], ["oh"]),
        h.make_node("GatherElements", ["x", "t2"], ["ge"], axis=1),
        h.make_node("ScatterElements", ["x", "t2", "ge"], ["se"], axis=1),
        h.make_node("Einsum", ["oh", "x"], ["es"], equation="bc,bc->b"),
        h.make_node("TopK", ["x", "k"], ["tv", "ti"], axis=-1),
        h.make_node("Pad", ["oh", "pads"], ["pd"], mode="constant"),
        h.make_node("Sin", ["x"], ["sn"]),
    ]
    inits = [
        VALUES,
        nh.from_array(np.array(1, np.int64), "one_i"),
        nh.from_array(np.array([2], np.int64), "k"),
        nh.from_array(np.array([0, 1, 0, 2], np.int64), "pads"),
    ]
    outputs = [_vi(n, TP.FLOAT, None) for n in ("oh", "ge", "se", "es", "tv", "pd", "sn")]
    outputs.append(_vi("ti", TP.INT64, None))
    inputs = [_vi("x", TP.FLOAT, [3, 5]), _vi("t", TP.INT64, [3]), _vi("t2", TP.INT64, [3, 2])]
    path = _save(tmp_path, "gathers", nodes, inputs, outputs, inits)
    feeds = {
        "x": RNG.standard_normal((3, 5)).astype(np.float32),
        "t": np.array([0, 4, -2]),
        "t2": np.array([[0, 4], [1, 2], [3, -1]]),
    }
    return path, feeds


MODELS = {
    "multi-outputs-identity": _multi_outputs,
    "onehot-matmul-argmax-onehot": _round_trip,
    "label-smoothing-loss": _label_smoothing,
    "gathers-scatters-einsum-pad": _gathers_and_scatters,
}


@pytest.mark.held_for("onnxruntime==1.31.1")
@pytest.mark.parametrize("name", list(MODELS))
def test_onnx_graph_matches_onnxruntime(tmp_path, name):  # type: ignore[no-untyped-def]
    path, feeds = MODELS[name](tmp_path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    expected = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))
    np.savez(tmp_path / "all.npz", **feeds)
    out = tmp_path / "out.npz"
    assert main(["run", str(path), "--inputs", str(tmp_path / "all.npz"), "--output", str(out)]) == 0
    with np.load(out) as archive:
        ours = {k: archive[k] for k in archive.files}
    assert sorted(ours) == sorted(expected)
    for key, want in expected.items():
        got = ours[key]
        assert got.shape == want.shape and got.dtype == want.dtype, key
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=FLOAT_RTOL, atol=FLOAT_RTOL, err_msg=key)
        else:
            np.testing.assert_array_equal(got, want, err_msg=key)


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize("op", ["ReduceL1", "ReduceLogSum", "ReduceLogSumExp"])
@pytest.mark.parametrize("opset", [13, 17])
def test_finding_reduce_axes_attribute_is_ignored(tmp_path, op, opset):  # type: ignore[no-untyped-def]
    # docs/conventions.md, finding 7: OpenVINO's ONNX frontend reduces every axis.
    nodes = [h.make_node(op, ["x"], ["y"], axes=[-1], keepdims=0)]
    path = _save(
        tmp_path, op, nodes, [_vi("x", TP.FLOAT, [4, 5])], [_vi("y", TP.FLOAT, None)], [], opset=opset
    )
    x = (np.abs(RNG.standard_normal((4, 5))) + 0.1).astype(np.float32)
    (want,) = ort.InferenceSession(str(path)).run(None, {"x": x})
    assert want.shape == (4,)  # ONNX: one value per row
    (ours,) = ovonehot.load(path).run({"x": x}).values()
    assert ours.shape == ()  # OpenVINO's conversion: everything reduced
    whole = {
        "ReduceL1": np.abs(x).sum(),
        "ReduceLogSum": np.log(x.sum()),
        "ReduceLogSumExp": np.log(np.exp(x).sum()),
    }
    np.testing.assert_allclose(ours, whole[op], rtol=1e-5)


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.held_for("onnxruntime==1.31.1")
def test_finding_onnx_integer_div_becomes_floor_division(tmp_path):  # type: ignore[no-untyped-def]
    # docs/conventions.md, finding 7: OpenVINO's frontend makes Divide(m_pythondiv=true), floor
    # division in OpenVINO's semantics; ovonehot turns it back into ONNX's truncation.
    nodes = [h.make_node("Div", ["a", "b"], ["y"])]
    path = _save(
        tmp_path,
        "div",
        nodes,
        [_vi("a", TP.INT64, [4])],
        [_vi("y", TP.INT64, None)],
        [nh.from_array(np.array(2, np.int64), "b")],
    )
    a = np.array([-7, -1, 1, 7])
    (onnx_says,) = ort.InferenceSession(str(path)).run(None, {"a": a})
    np.testing.assert_array_equal(onnx_says, [-3, 0, 0, 3])
    ov = pytest.importorskip("openvino", reason="expected values come from OpenVINO, which is not installed")
    (divide,) = [
        op for op in ov.Core().read_model(str(path)).get_ordered_ops() if op.get_type_name() == "Divide"
    ]
    assert divide.get_attributes()["m_pythondiv"] is True  # the frontend's choice (floor in OpenVINO)
    (ours,) = ovonehot.load(path).run({"a": a}).values()
    np.testing.assert_array_equal(ours, onnx_says)


def test_torch_opset9_remainder_of_negatives_matches_onnx(tmp_path):  # type: ignore[no-untyped-def]
    # PyTorch's opset-9 export of ``x % 3`` (a Div/Mul/Sub chain with a sign fix) relies on Div
    # truncating: one_hot(remainder(t - 5, 3)) must match onnxruntime.
    a = np.arange(6) - 5
    q = h.make_node("Div", ["a", "three"], ["q"])
    neg = h.make_node("Less", ["a", "zero"], ["neg"])
    prod = h.make_node("Mul", ["q", "three"], ["qm"])
    rem = h.make_node("Sub", ["a", "qm"], ["r"])
    nonzero = h.make_node("Not", ["is0"], ["nz"])
    is0 = h.make_node("Equal", ["r", "zero"], ["is0"])
    fix = h.make_node("And", ["neg", "nz"], ["fix"])
    fix_i = h.make_node("Cast", ["fix"], ["fix_i"], to=TP.INT64)
    shift = h.make_node("Mul", ["fix_i", "three"], ["shift"])
    out = h.make_node("Add", ["r", "shift"], ["m"])
    hot = h.make_node("OneHot", ["m", "three", "vals"], ["y"])
    inits = [
        nh.from_array(np.array(3, np.int64), "three"),
        nh.from_array(np.array(0, np.int64), "zero"),
        VALUES,
    ]
    path = _save(
        tmp_path,
        "rem",
        [q, neg, prod, rem, is0, nonzero, fix, fix_i, shift, out, hot],
        [_vi("a", TP.INT64, [6])],
        [_vi("y", TP.FLOAT, None)],
        inits,
        opset=11,
    )
    (want,) = ort.InferenceSession(str(path)).run(None, {"a": a})
    np.testing.assert_array_equal(want.argmax(-1), np.remainder(a, 3))  # Python's %: [1, 2, 0, 1, 2, 0]
    (ours,) = ovonehot.load(path).run({"a": a}).values()
    np.testing.assert_array_equal(ours, want)


def test_diff_on_an_onnx_model_compares_the_graph_ovonehot_runs(tmp_path, capsys):  # type: ignore[no-untyped-def]
    # OpenVINO's oracles read the IR ovonehot made of the .onnx (with its corrections), so an
    # integer Div of negatives passes on both instead of reporting ovonehot's own correction.
    nodes = [h.make_node("Div", ["a", "b"], ["q"]), h.make_node("OneHot", ["q", "d", "vals"], ["y"])]
    inits = [nh.from_array(np.array(3, np.int64), "b"), nh.from_array(np.array(4, np.int64), "d"), VALUES]
    path = _save(tmp_path, "div_one_hot", nodes, [_vi("a", TP.INT64, [5])], [_vi("y", TP.FLOAT, None)], inits)
    np.savez(tmp_path / "all.npz", a=np.array([-7, -3, -1, 2, 9]))
    assert main(["diff", str(path), "--inputs", str(tmp_path / "all.npz"), "--oracle", "both"]) == 0
    out = capsys.readouterr().out
    assert out.count("PASS") >= 2 and "unexplained" not in out and "deviation" not in out


@pytest.mark.held_for("openvino==2026.4.1")
def test_bitshift_right_keeps_the_frontends_floor_division(tmp_path):  # type: ignore[no-untyped-def]
    # OpenVINO's frontend builds BitShift right as Divide(x, 2**s) with m_pythondiv=true: floor
    # division on purpose (-1 >> 1 == -1).  ovonehot's truncation fix is for ONNX Div only; here the
    # graph also has a Div of negatives, which must still truncate.  (ONNX allows unsigned BitShift
    # only, so onnxruntime refuses this model; OpenVINO's frontend takes signed inputs.)
    nodes = [
        h.make_node("BitShift", ["x", "s"], ["y"], direction="RIGHT"),
        h.make_node("Div", ["x", "two"], ["q"]),
    ]
    path = _save(
        tmp_path,
        "bitshift",
        nodes,
        [_vi("x", TP.INT64, [3]), _vi("s", TP.INT64, [3])],
        [_vi("y", TP.INT64, None), _vi("q", TP.INT64, None)],
        [nh.from_array(np.array(2, np.int64), "two")],
        opset=11,
    )
    x, s = np.array([-8, -1, -128]), np.array([1, 1, 1])
    ov = pytest.importorskip("openvino")
    converted = ov.Core().read_model(str(path))
    outs = [ov.Tensor(r.get_output_element_type(0), ov.Shape([0])) for r in converted.get_results()]
    assert converted.evaluate(outs, [ov.Tensor(x), ov.Tensor(s)])  # OpenVINO's reference on its conversion
    by_name = {
        r.get_output_tensor(0).get_any_name(): t.data
        for r, t in zip(converted.get_results(), outs, strict=True)
    }
    np.testing.assert_array_equal(by_name["y"], [-4, -1, -64])
    ours = ovonehot.load(path).run({"x": x, "s": s})
    np.testing.assert_array_equal(ours["y"], by_name["y"])
    np.testing.assert_array_equal(ours["q"], [-4, 0, -64])  # ONNX Div truncates
