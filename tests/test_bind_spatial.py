"""Pooling, convolution and sequence ops bound to a folded signature (``OpSpec.specialize``) give exactly
the bytes of their own ``evaluate``: per op on chosen geometries, types and special values (the
oracle is the op's kernel, itself checked against OpenVINO in test_ops_conv_pool.py,
test_ops_avg_pool_16.py and test_ops_recurrent.py), and char_cnn_gru run whole, bound vs unbound."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot import evaluate as ev
from ovonehot.infer import infer
from ovonehot.model import Model
from tests.exact import assert_same
from tests.graph_builder import GraphBuilder
from tests.test_bind import check

ROOT = Path(__file__).resolve().parent.parent
SPECIAL = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0, 1.5, 1.5, -3.0], np.float32)


def _data(dtype: str, shape: tuple[int, ...], seed: int, special: bool = True) -> np.ndarray:
    """Normal values with ties (a few repeated values); floats also NaN, +-inf and signed zeros;
    integers also their type's extremes."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, 7, 7], dtype=dt)
        plain = rng.integers(max(info.min, -50), min(info.max, 50), n).astype(dt)
        return np.where(rng.random(n) < 0.3, rng.choice(pool, n), plain).reshape(shape)
    plain = rng.choice(np.round(rng.standard_normal(n) * 4, 1), n)  # rounded: ties within windows
    out = np.where(rng.random(n) < 0.25, rng.choice(SPECIAL, n), plain) if special else plain
    return out.astype(dt).reshape(shape)


def _window(spatial: int, **given: object) -> dict[str, str]:
    """Pooling/convolution attributes, each a per-axis int repeated or a string as given."""
    attrs = {"strides": 1, "pads_begin": 0, "pads_end": 0, "dilations": 1}
    attrs.update(given)
    return {
        k: ",".join([str(v)] * spatial) if isinstance(v, int) and k != "axis" else str(v)
        for k, v in attrs.items()
    }


# id, data shape, attributes: kernel, strides, dilations, pads, rounding, auto_pad
POOL_GEOMETRIES = [
    pytest.param((3, 8, 11), {"kernel": 2, "strides": 2, "rounding_type": "ceil_torch"}, id="1d-char-cnn"),
    pytest.param((2, 3, 10), {"kernel": 3, "strides": 2, "pads_begin": 1, "pads_end": 1}, id="1d-pads-floor"),
    pytest.param(
        (2, 2, 4), {"kernel": 1, "strides": 2, "pads_end": 1, "rounding_type": "ceil"}, id="1d-empty-window"
    ),
    pytest.param(
        (1, 2, 9), {"kernel": 3, "dilations": 2, "pads_begin": 2, "rounding_type": "ceil"}, id="1d-dilated"
    ),
    pytest.param(
        (2, 3, 7, 6), {"kernel": 3, "strides": 2, "pads_begin": 1, "rounding_type": "ceil"}, id="2d-ceil-pads"
    ),
    pytest.param((1, 2, 7, 5), {"kernel": 2, "strides": 2, "auto_pad": "same_upper"}, id="2d-same-upper"),
    pytest.param(
        (1, 2, 7, 6), {"kernel": 2, "strides": 3, "auto_pad": "valid", "rounding_type": "ceil"}, id="2d-valid"
    ),
    pytest.param(
        (1, 2, 8, 7),
        {"kernel": "2,3", "strides": "2,1", "dilations": "2,1", "pads_end": "1,0"},
        id="2d-mixed",
    ),
    pytest.param(
        (1, 2, 5, 4, 6), {"kernel": 2, "strides": 2, "pads_begin": 1, "rounding_type": "ceil_torch"}, id="3d"
    ),
]

# version, index type, axis
MAX_POOL_VARIANTS = [
    ("opset1", None, None),
    ("opset8", "i32", 0),
    ("opset14", "i64", 2),
    ("opset14", "i32", -1),
]


@pytest.mark.parametrize(("shape", "given"), POOL_GEOMETRIES)
@pytest.mark.parametrize(
    ("version", "index_type", "axis"),
    MAX_POOL_VARIANTS,
    ids=["v1", "v8-i32-axis0", "v14-i64-axis2", "v14-i32-axis-last"],
)
def test_max_pool_bound_gives_its_kernels_bytes(
    shape: tuple[int, ...], given: dict[str, object], version: str, index_type: str | None, axis: int | None
) -> None:
    if version != "opset14" and given.get("rounding_type") == "ceil_torch":
        given = {**given, "rounding_type": "ceil"}  # (ceil_torch needs opset14)
    attrs = _window(len(shape) - 2, **{"rounding_type": "floor", "auto_pad": "explicit", **given})
    if version == "opset1":
        del attrs["dilations"]
    else:
        attrs.update(index_element_type=str(index_type), axis=str(axis))
    outputs = 1 if version == "opset1" else 2
    for k, dtype in enumerate(("float32", "float64", "float16", "int32", "uint8", "int8")):
        check("MaxPool", version, [_data(dtype, shape, k)], attrs=attrs, outputs=outputs)


def test_max_pool_bound_on_windows_of_nan_and_minus_inf_only() -> None:
    """A window of NaN, one of -inf only, one of ties: the first NaN, -inf, the first tie."""
    x = np.array([[[np.nan, 1.0, -np.inf, -np.inf, 2.0, 2.0, -0.0, 0.0, np.nan, np.nan]]], np.float32)
    attrs = _window(1, kernel=2, strides=2, pads_begin=1, rounding_type="ceil", auto_pad="explicit")
    check("MaxPool", "opset8", [x], attrs={**attrs, "index_element_type": "i64", "axis": "0"}, outputs=2)
    x = np.full((1, 1, 6), -np.inf, np.float32)  # windows over padding and -inf data
    check("MaxPool", "opset8", [x], attrs={**attrs, "index_element_type": "i64", "axis": "0"}, outputs=2)
    x = np.full((1, 2, 5), np.iinfo(np.int32).min, np.int32)
    check("MaxPool", "opset14", [x], attrs={**attrs, "index_element_type": "i32", "axis": "2"}, outputs=2)


@pytest.mark.parametrize(("shape", "given"), POOL_GEOMETRIES)
@pytest.mark.parametrize("exclude_pad", ["true", "false"])
def test_avg_pool_bound_gives_its_kernels_bytes(
    shape: tuple[int, ...], given: dict[str, object], exclude_pad: str
) -> None:
    attrs = _window(len(shape) - 2, **{"rounding_type": "floor", "auto_pad": "explicit", **given})
    attrs["exclude-pad"] = exclude_pad
    dilated = attrs.pop("dilations") != ",".join(["1"] * (len(shape) - 2))
    version = "opset16" if dilated else "opset14"
    if dilated:
        attrs["dilations"] = (
            str(given["dilations"])
            if isinstance(given["dilations"], str)
            else ",".join([str(given["dilations"])] * (len(shape) - 2))
        )
    for k, dtype in enumerate(("float32", "float64", "float16", "int32")):
        check("AvgPool", version, [_data(dtype, shape, k, special=dtype != "float16")], attrs=attrs)


# data shape, filters shape, attributes
CONV_CASES = [
    pytest.param((3, 12, 11), (8, 12, 3), {"pads_begin": 1, "pads_end": 1}, id="1d-char-cnn"),
    pytest.param(
        (2, 3, 10),
        (4, 3, 3),
        {"strides": 2, "dilations": 2, "pads_begin": 1, "pads_end": 2},
        id="1d-stride-dilation",
    ),
    pytest.param(
        (1, 2, 7, 6),
        (3, 2, 3, 2),
        {"strides": "2,1", "dilations": "1,2", "pads_begin": "1,0", "pads_end": "0,1"},
        id="2d",
    ),
    pytest.param((1, 2, 7, 5), (3, 2, 3, 3), {"strides": 2, "auto_pad": "same_upper"}, id="2d-same-upper"),
    pytest.param((1, 2, 7, 6), (2, 2, 2, 3), {"auto_pad": "valid", "pads_begin": 4}, id="2d-valid"),
    pytest.param(
        (1, 2, 4, 5, 3),
        (2, 2, 2, 2, 2),
        {"strides": "1,2,1", "pads_begin": "0,1,0", "pads_end": "1,0,0"},
        id="3d",
    ),
    pytest.param((2, 3, 9), (2, 3, 9), {}, id="1d-kernel-covers-data"),
]

GROUP_CASES = [
    pytest.param((2, 4, 9), (2, 3, 2, 3), {"pads_begin": 1, "pads_end": 1}, id="1d-2-groups"),
    pytest.param(
        (1, 6, 7, 6), (6, 1, 1, 3, 3), {"strides": 2, "dilations": 2, "pads_begin": 2}, id="2d-depthwise"
    ),
    pytest.param((1, 6, 5, 5), (3, 2, 2, 2, 2), {"auto_pad": "same_lower"}, id="2d-3-groups-same-lower"),
]


def _conv_attrs(shape: tuple[int, ...], given: dict[str, object]) -> dict[str, str]:
    return _window(len(shape) - 2, **{"auto_pad": "explicit", **given})


@pytest.mark.parametrize(("shape", "w_shape", "given"), CONV_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_convolution_bound_gives_its_kernels_bytes(
    shape: tuple[int, ...], w_shape: tuple[int, ...], given: dict[str, object], dtype: str
) -> None:
    x, w = _data(dtype, shape, 1, special=False), _data(dtype, w_shape, 2, special=False)
    attrs = _conv_attrs(shape, given)
    check("Convolution", "opset1", [x], [w], attrs=attrs)  # folded filters (a Constant)
    check("Convolution", "opset1", [x, w], attrs=attrs)  # filters given per run


@pytest.mark.parametrize(("shape", "w_shape", "given"), GROUP_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_group_convolution_bound_gives_its_kernels_bytes(
    shape: tuple[int, ...], w_shape: tuple[int, ...], given: dict[str, object], dtype: str
) -> None:
    x, w = _data(dtype, shape, 3, special=False), _data(dtype, w_shape, 4, special=False)
    attrs = _conv_attrs(shape, given)
    check("GroupConvolution", "opset1", [x], [w], attrs=attrs)
    check("GroupConvolution", "opset1", [x, w], attrs=attrs)


def test_convolution_bound_carries_nan_and_inf_as_its_kernel() -> None:
    x = _data("float32", (2, 3, 8), 5)
    check(
        "Convolution",
        "opset1",
        [x],
        [_data("float32", (2, 3, 2), 6, special=False)],
        attrs=_conv_attrs(x.shape, {"pads_begin": 1}),
    )


def _sequence(
    cell: str,
    direction: str,
    dtype: str,
    lengths: list[int],
    seq: int = 5,
    hidden: int = 4,
    lbr: bool = False,
) -> tuple[list[np.ndarray], int]:
    gates = {"RNNSequence": 1, "GRUSequence": 3, "LSTMSequence": 4}[cell]
    dirs = 2 if direction == "bidirectional" else 1
    batch, inp = len(lengths), 3
    x = _data(dtype, (batch, seq, inp), 7, special=False) / 4
    states = [
        _data(dtype, (batch, dirs, hidden), 8 + k, special=False) / 4
        for k in range(2 if cell == "LSTMSequence" else 1)
    ]
    w = _data(dtype, (dirs, gates * hidden, inp), 10, special=False) / 4
    r = _data(dtype, (dirs, gates * hidden, hidden), 11, special=False) / 4
    b = _data(dtype, (dirs, (gates + lbr) * hidden), 12, special=False) / 4
    return [x, *states, np.array(lengths, np.int32), w, r, b], len(states)


# cell, direction, linear_before_reset, clip, activations, sequence lengths
SEQUENCE_CASES = [
    pytest.param("GRUSequence", "bidirectional", True, 0.0, "", [5, 5, 5], id="gru-bi-lbr-full"),
    pytest.param("GRUSequence", "bidirectional", False, 0.0, "", [5, 2, 0], id="gru-bi-short-and-empty"),
    pytest.param("GRUSequence", "forward", True, 1.5, "", [3, 5, 1], id="gru-forward-lbr-clip-short"),
    pytest.param("GRUSequence", "reverse", False, 0.0, "", [4, 4, 2], id="gru-reverse-short"),
    pytest.param(
        "GRUSequence", "reverse", True, 0.5, "tanh,sigmoid", [5, 5, 5], id="gru-reverse-clip-activations"
    ),
    pytest.param("LSTMSequence", "bidirectional", False, 0.0, "", [5, 3, 0], id="lstm-bi-short"),
    pytest.param("LSTMSequence", "forward", False, 2.0, "", [5, 5, 5], id="lstm-forward-clip"),
    pytest.param("RNNSequence", "reverse", False, 0.0, "relu", [2, 5, 4], id="rnn-reverse-relu"),
    pytest.param("RNNSequence", "bidirectional", False, 0.0, "", [5, 5, 5], id="rnn-bi"),
]


@pytest.mark.parametrize(("cell", "direction", "lbr", "clip", "activations", "lengths"), SEQUENCE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_sequence_bound_gives_its_kernels_bytes(
    cell: str, direction: str, lbr: bool, clip: float, activations: str, lengths: list[int], dtype: str
) -> None:
    inputs, n_states = _sequence(cell, direction, dtype, lengths, lbr=lbr)
    attrs = {"hidden_size": "4", "direction": direction, "clip": str(clip)}
    if cell == "GRUSequence":
        attrs["linear_before_reset"] = str(lbr).lower()
    if activations:
        attrs["activations"] = activations
    runtime = 1 + n_states
    outputs = 1 + n_states
    check(
        cell, "opset5", inputs[:runtime], inputs[runtime:], attrs=attrs, outputs=outputs
    )  # lengths, W, R, B folded
    check(
        cell, "opset5", inputs[: runtime + 1], inputs[runtime + 1 :], attrs=attrs, outputs=outputs
    )  # lengths per run
    check(cell, "opset5", inputs, attrs=attrs, outputs=outputs)  # everything per run


def test_bound_sequence_refers_lengths_out_of_range_to_its_kernel() -> None:
    """Lengths given per run past the sequence: the bound kernel hands over, and the op's own
    error names the layer."""
    inputs, _ = _sequence("GRUSequence", "forward", "float32", [5, 5, 5])
    b = GraphBuilder()
    params = [
        b.parameter(
            f"p{k}", ovonehot.ElementType.from_numpy(a.dtype).name, str(list(a.shape)).replace(" ", "")
        )
        for k, a in enumerate(inputs[:3])
    ]
    consts = [b.const(f"c{k}", a) for k, a in enumerate(inputs[3:])]
    gru = b.op(
        "GRUSequence", "opset5", params + consts, {"hidden_size": "4", "direction": "forward"}, 2, name="gru"
    )
    b.op("Result", "opset1", [(gru, 0)], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    feeds = dict(enumerate(inputs[:3]))
    for _ in range(3):
        ev.evaluate(model.inference, feeds)
    assert ev.plan_of(model.inference, feeds).kernel_of(gru) == "specialized"
    feeds[2] = np.array([5, 6, 1], np.int32)
    with pytest.raises(
        ovonehot.Error, match=r"name='gru' type=GRUSequence.*sequence_lengths must lie in \[0, 5\]"
    ):
        ev.evaluate(model.inference, feeds)


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_char_cnn_gru_bound_gives_the_same_bytes_as_unbound(exact: bool) -> None:
    """The export whose MaxPool, Convolution and GRUSequence these bindings were made for: each
    of them bound, and every output's bytes those of the same folded plan run unbound."""
    xml = ROOT / "ir" / "exports" / "torch" / "char_cnn_gru.xml"
    with np.load(min(xml.parent.glob("char_cnn_gru.*.inputs.npz")), allow_pickle=False) as archive:
        inputs = {k: archive[k] for k in archive.files}

    def runs(mode: ev.RunMode) -> tuple[dict[str, np.ndarray], set[str]]:
        model = ovonehot.load(xml)
        feeds = dict(zip(model._params, model.bind(inputs), strict=True))
        for _ in range(2):
            ev.evaluate(model.inference, feeds, mode)
        got = {str(k): v for k, v in ev.evaluate(model.inference, feeds, mode).items()}
        plan = ev.plan_of(model.inference, feeds, mode)
        assert plan.folded
        nodes = model.inference.graph.nodes
        return got, {nodes[i].type for i in range(len(nodes)) if plan.kernel_of(i) == "specialized"}

    got, bound = runs(ev.RunMode(exact=exact))
    assert {"MaxPool", "Convolution", "GRUSequence"} <= bound
    if exact:  # every op's evaluate
        expected, none = runs(ev.RunMode(specialized=False))
        assert not none
    else:  # the fast kernels of a first run's plan (the declared shapes, nothing folded)
        model = ovonehot.load(xml)
        feeds = dict(zip(model._params, model.bind(inputs), strict=True))
        expected = {
            str(k): v for k, v in ev.evaluate(model.inference, feeds, ev.RunMode(exact=False)).items()
        }
    assert got.keys() == expected.keys()
    for name in got:
        assert_same(got[name], expected[name], f"char_cnn_gru {name}")
