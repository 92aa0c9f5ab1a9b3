"""ovonehot's inference equals OpenVINO's ``read_model``, layer by layer, on shape subgraphs users meet.

Each model is built with OpenVINO's Python API in the graph shapes ``ov.convert_model`` gives
PyTorch code (``F.pad`` whose pads come from ``x.shape`` arithmetic, as in LongT5's
transient-global attention and Mamba's conv state), saved as IR, and compared with
``scripts/compare_inference.py``: every layer's output partial shape and element type, ovonehot's
against what ``read_model`` of the same files reports.  The expected values are OpenVINO's own
inference, never ours.  ``validate`` must then find nothing to complain about in the IR OpenVINO
wrote itself, and its messages say what ovonehot inferred (by OpenVINO's rules), not what
"OpenVINO infers": OpenVINO is not asked.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ovonehot.check.validate import validate
from ovonehot.errors import ValidationError
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.ops.pad import PadAttrs, PadMode, infer_pad
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
op = pytest.importorskip("openvino.opset12")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from compare_inference import compare

I64 = np.int64


def _const(values: Any) -> Any:
    return op.constant(np.array(values, dtype=I64))


def _dim(x: Any, axis: int) -> Any:
    """``x.shape[axis]`` as a scalar: Gather(ShapeOf(x), axis), as the PyTorch frontend builds it."""
    return op.gather(op.shape_of(x, "i64"), _const(axis), _const(0))


def _save(model: Any, tmp_path: Path) -> Path:
    xml = tmp_path / "model.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return xml


def _assert_same_as_read_model(model: Any, tmp_path: Path) -> Path:
    xml = _save(model, tmp_path)
    mismatches = compare(xml)
    assert not mismatches, "\n".join(str(m) for m in mismatches)
    return xml


# -- models in the shape PyTorch code takes ------------------------------------------------------------


def pad_to_multiple(shape: list[Any]) -> Any:
    """LongT5 ``_pad_to_multiple`` then the block split: F.pad(x, (0, 0, 0, -t % 4)).reshape(b, -1, 4, d)."""
    x = op.parameter(ov.PartialShape(shape), ov.Type.f32, name="x")
    t = _dim(x, 1)
    pad_len = op.floor_mod(op.multiply(t, _const(-1)), _const(4))
    end = op.concat([_const([0]), op.unsqueeze(pad_len, _const(0)), _const([0])], 0)
    padded = op.pad(x, _const([0, 0, 0]), end, "constant")
    blocks = op.divide(op.add(t, pad_len), _const(4))
    target = op.concat(
        [
            op.unsqueeze(_dim(x, 0), _const(0)),
            op.unsqueeze(blocks, _const(0)),
            _const([4]),
            op.unsqueeze(_dim(x, 2), _const(0)),
        ],
        0,
    )
    return ov.Model([op.reshape(padded, target, False)], [x])


def pad_last_two(shape: list[Any]) -> Any:
    """F.pad(x, (0, (8 - n % 8) % 8, 0, 4 - x.shape[-2])): [?,?,3,5] -> [?,?,4,8] (the issue's model)."""
    x = op.parameter(ov.PartialShape(shape), ov.Type.f32, name="x")
    n = _dim(x, 3)
    pad_w = op.floor_mod(op.subtract(_const(8), op.floor_mod(n, _const(8))), _const(8))
    pad_h = op.subtract(_const(4), _dim(x, 2))
    end = op.concat([_const([0, 0]), op.unsqueeze(pad_h, _const(0)), op.unsqueeze(pad_w, _const(0))], 0)
    return ov.Model([op.pad(x, _const([0, 0, 0, 0]), end, "constant")], [x])


def mamba_conv_state(shape: list[Any]) -> Any:
    """Mamba's conv state: F.pad(x, (d_conv - L, 0)) with d_conv = 4 (a negative pad crops)."""
    x = op.parameter(ov.PartialShape(shape), ov.Type.f32, name="x")
    begin = op.concat([_const([0, 0]), op.unsqueeze(op.subtract(_const(4), _dim(x, 2)), _const(0))], 0)
    return ov.Model([op.pad(x, begin, _const([0, 0, 0]), "constant")], [x])


MODELS: list[Any] = [
    pytest.param(pad_to_multiple, [-1, 6, 3], id="longt5-static"),
    pytest.param(pad_to_multiple, [-1, -1, 3], id="longt5-dynamic"),
    pytest.param(pad_to_multiple, [-1, [2, 9], 3], id="longt5-interval"),
    pytest.param(pad_last_two, [-1, -1, 3, 5], id="pad-last-two-static"),
    pytest.param(pad_last_two, [-1, -1, 3, [1, 5]], id="pad-last-two-interval"),
    pytest.param(pad_last_two, [-1, -1, -1, -1], id="pad-last-two-dynamic"),
    pytest.param(mamba_conv_state, [-1, 6, 3], id="mamba-static"),
    pytest.param(mamba_conv_state, [-1, 6, [2, 8]], id="mamba-interval"),
    pytest.param(mamba_conv_state, [-1, -1, -1], id="mamba-dynamic"),
]


@pytest.mark.parametrize(("build", "shape"), MODELS)
def test_every_layer_as_read_model(
    build: Callable[[list[Any]], Any], shape: list[Any], tmp_path: Path
) -> None:
    xml = _assert_same_as_read_model(build(shape), tmp_path)
    # The IR OpenVINO wrote itself declares what read_model infers: validate finds nothing wrong.
    problems = [p for p in validate(xml).problems if p.severity.value == "error"]
    assert not problems, "\n".join(p.message for p in problems)


def test_issue_model_declares_4_8_and_validates_clean(tmp_path: Path) -> None:
    """The false positive of the issue: read_model infers [?,?,4,8]; so must ovonehot."""
    model = pad_last_two([-1, -1, 3, 5])
    assert str(model.output(0).get_partial_shape()) == "[?,?,4,8]"
    xml = _save(model, tmp_path)
    assert not validate(xml).problems


# -- Pad with pads known only by their bounds --------------------------------------------------------


def _pads_from_shape(dims: list[Any], sign: int) -> tuple[Any, Any]:
    """A Parameter of shape ``dims`` and pads = sign * ShapeOf(it): pads bounded by those dims."""
    p = op.parameter(ov.PartialShape(dims), ov.Type.f32)
    pads = op.shape_of(p, "i64")
    return p, (pads if sign > 0 else op.multiply(pads, _const(-1)))


# data shape, pads_begin dims and sign, pads_end dims and sign, mode
BOUNDED_PADS = [
    pytest.param([2, 3], [0, 1], 1, [0, [1, 3]], 1, "constant", id="static+interval"),
    pytest.param([2, -1], [0, 1], 1, [0, [1, 3]], 1, "constant", id="dynamic+interval"),
    pytest.param([2, [2, 5]], [0, -1], 1, [0, [1, 3]], 1, "constant", id="interval+unbounded"),
    pytest.param([2, 3], [0, -1], 1, [0, 0], 1, "constant", id="unbounded-pad"),
    pytest.param([2, 3], [0, [0, 2]], 1, [0, 0], 1, "constant", id="pad-0..2"),
    pytest.param([2, 3], [0, 0], 1, [0, [0, 5]], -1, "constant", id="crop-0..5"),
    pytest.param([2, 3], [0, 0], 1, [0, [0, 2]], -1, "constant", id="crop-0..2"),
    pytest.param([2, [2, 8]], [0, 0], 1, [0, [0, 2]], -1, "constant", id="interval-crop"),
    pytest.param([2, 3], [0, 0], 1, [0, -1], -1, "constant", id="unbounded-crop"),
    pytest.param([2, 3], [0, [1, 2]], 1, [0, 0], 1, "reflect", id="reflect"),
    pytest.param([2, 3], [0, [1, 5]], 1, [0, 0], 1, "reflect", id="reflect-upper-too-large"),
    pytest.param([2, 3], [0, [1, 5]], 1, [0, 0], 1, "symmetric", id="symmetric"),
    pytest.param([2, 3], [0, [3, 5]], 1, [0, 0], 1, "symmetric", id="symmetric-lower-at-limit"),
    pytest.param([2, 1], [0, [0, 5]], 1, [0, 0], 1, "reflect", id="reflect-dim-1-lower-0"),
    pytest.param([2, 3], [0, [2, 5]], 1, [0, 0], 1, "edge", id="edge"),
]


@pytest.mark.parametrize(("data", "begin", "bsign", "end", "esign", "mode"), BOUNDED_PADS)
def test_pad_from_pad_bounds(
    data: list[Any], begin: list[Any], bsign: int, end: list[Any], esign: int, mode: str, tmp_path: Path
) -> None:
    x = op.parameter(ov.PartialShape(data), ov.Type.f32)
    pb, sb = _pads_from_shape(begin, bsign)
    pe, se = _pads_from_shape(end, esign)
    _assert_same_as_read_model(ov.Model([op.pad(x, sb, se, mode)], [x, pb, pe]), tmp_path)


# Known pads whose sum makes a dim negative: OpenVINO infers ? (dim::padded), it does not refuse.
EXACT_PADS = [
    pytest.param([2, 3], [0, -5], [0, 0], id="static-negative"),
    pytest.param([2, 3], [0, -2], [0, -2], id="static-negative-both-sides"),
    pytest.param([2, [2, 6]], [0, -3], [0, 0], id="interval-lower-negative"),
    pytest.param([2, -1], [0, -3], [0, 0], id="dynamic-negative"),
    pytest.param([2, 3], [0, -3], [0, 0], id="static-to-zero"),
]


@pytest.mark.parametrize(("data", "begin", "end"), EXACT_PADS)
@pytest.mark.parametrize("version", ["opset1", "opset12"])
def test_pad_with_negative_known_pads(
    data: list[Any], begin: list[int], end: list[int], version: str, tmp_path: Path
) -> None:
    if version == "opset12":
        pad = op.pad
    else:
        import openvino.opset1 as op1

        pad = op1.pad
    x = op.parameter(ov.PartialShape(data), ov.Type.f32)
    _assert_same_as_read_model(ov.Model([pad(x, _const(begin), _const(end), "constant")], [x]), tmp_path)


# OpenVINO refuses these while validating the node; ovonehot's rule must refuse them too.
REFUSED = [
    pytest.param([2, 3], [0, 3], [0, 0], "reflect", id="reflect-pad-equals-dim"),
    pytest.param([2, 1], [0, 1], [0, 0], "reflect", id="reflect-dim-1"),
    pytest.param([2, 0], [0, 1], [0, 0], "edge", id="edge-empty-axis"),
    pytest.param([0, 2], [1, 0], [0, 0], "edge", id="edge-empty-first-axis"),
    pytest.param([2, 3], [0, 4], [0, 0], "symmetric", id="symmetric-pad-above-dim"),
]


@pytest.mark.parametrize(("data", "begin", "end", "mode"), REFUSED)
def test_pad_refusals_as_openvino(data: list[int], begin: list[int], end: list[int], mode: str) -> None:
    x = op.parameter(ov.PartialShape(data), ov.Type.f32)
    with pytest.raises(RuntimeError) as theirs:
        op.pad(x, _const(begin), _const(end), mode)
    ins = [
        TensorInfo(ElementType.f32, PartialShape.parse(str(ov.PartialShape(data)))),
        TensorInfo(ElementType.i64, PartialShape.parse(f"[{len(begin)}]"), value=np.array(begin, I64)),
        TensorInfo(ElementType.i64, PartialShape.parse(f"[{len(end)}]"), value=np.array(end, I64)),
    ]
    with pytest.raises(ValidationError) as ours:
        infer_pad(PadAttrs(PadMode(mode)), ins)
    assert str(ours.value).split(".")[0] in str(theirs.value)


# -- validate's wording ---------------------------------------------------------------------------


def test_validate_says_inferred_not_openvino_infers(tmp_path: Path) -> None:
    """A wrong declaration is reported as ovonehot's inference by OpenVINO's rules vs the IR's declaration."""
    xml = _save(pad_last_two([-1, -1, 3, 5]), tmp_path)
    text = xml.read_text()
    # The Pad's output port declares f32 [?,?,4,8]: make it declare f16 [?,?,5,8] instead.
    out_at = text.index("<output>", text.index('type="Pad"'))
    port_end = text.index("</port>", out_at)
    port = text[out_at:port_end]
    assert 'precision="FP32"' in port and "<dim>4</dim>" in port
    port = port.replace('precision="FP32"', 'precision="FP16"').replace("<dim>4</dim>", "<dim>5</dim>")
    xml.write_text(text[:out_at] + port + text[port_end:])
    problems = {p.code: p.message for p in validate(xml).problems}
    assert "OpenVINO infers" not in " ".join(problems.values())
    assert problems["output-shape"].endswith(
        "inferred [?,?,4,8] (OpenVINO's rules; written as [?,?,4,8]), IR declares dims [?,?,5,8]"
    )
    assert problems["output-type"].endswith(
        "inferred f32 (OpenVINO's rules), IR declares precision FP16 (f16)"
    )


def test_unknown_pads_longer_than_rank_refused_as_openvino() -> None:
    """Pads with no value or bounds: only their length is checked (at most the data's rank)."""
    x = op.parameter(ov.PartialShape([2, 3]), ov.Type.f32)
    pads = op.parameter(ov.PartialShape([3]), ov.Type.i64)
    with pytest.raises(RuntimeError, match="Number of elements of pads_begin must be >= 0 and <= arg rank"):
        op.pad(x, pads, pads, "constant")
    ins = [
        TensorInfo(ElementType.f32, PartialShape.parse("[2,3]")),
        TensorInfo(ElementType.i64, PartialShape.parse("[3]")),
        TensorInfo(ElementType.i64, PartialShape.parse("[3]")),
    ]
    with pytest.raises(
        ValidationError, match="Number of elements of pads_begin must be >= 0 and <= arg rank"
    ):
        infer_pad(PadAttrs(), ins)
    # of the right length, unknown pads leave every dim unknown, as in OpenVINO
    ok = op.pad(
        x,
        op.parameter(ov.PartialShape([2]), ov.Type.i64),
        op.parameter(ov.PartialShape([2]), ov.Type.i64),
        "constant",
    )
    ins[1:] = [TensorInfo(ElementType.i64, PartialShape.parse("[2]"))] * 2
    assert str(infer_pad(PadAttrs(), ins)[0].shape) == str(
        PartialShape.parse(str(ok.get_output_partial_shape(0)))
    )


# -- values and bounds through Identity-16 ----------------------------------------------------------


def _identity_target(shape: list[Any]) -> Any:
    """Broadcast to Identity(ShapeOf(x)): Identity-16 has no evaluate, so read_model knows no target."""
    import openvino.opset16 as op16

    x = op.parameter(ov.PartialShape(shape), ov.Type.f32)
    target = op16.identity(op.shape_of(x, "i64"))
    return ov.Model([op.broadcast(op.constant(np.array(1.0, np.float32)), target)], [x])


def _identity_slice_stop(shape: list[Any]) -> Any:
    """As ONNX's RotaryEmbedding expansion: a Slice stop of Identity(Slice(ShapeOf(x))) / 2."""
    import openvino.opset16 as op16

    x = op.parameter(ov.PartialShape(shape), ov.Type.f32)
    cache = op.parameter(ov.PartialShape([2, 3, 4]), ov.Type.f32)
    head = op16.identity(op.slice(op.shape_of(x, "i64"), _const([1]), _const([2]), _const([1])))
    stop = op.divide(head, _const([2]))
    return ov.Model([op.slice(cache, _const([0]), stop, _const([1]), _const([2]))], [x, cache])


@pytest.mark.parametrize(
    ("build", "shape"),
    [
        pytest.param(_identity_target, [2, 8], id="broadcast-target"),
        pytest.param(_identity_target, [2, [1, 8]], id="broadcast-target-interval"),
        pytest.param(_identity_slice_stop, [2, 8], id="rotary-slice-stop"),
    ],
)
def test_no_value_through_identity(
    build: Callable[[list[Any]], Any], shape: list[Any], tmp_path: Path
) -> None:
    _assert_same_as_read_model(build(shape), tmp_path)


# -- RNN/GRU/LSTM sequences: the hidden dim comes from the inputs, never from hidden_size -------------


def _sequence(cell: str, shapes: dict[str, list[Any]], hidden_size: int = 5) -> Any:
    """A GRU/LSTM/RNNSequence-5 whose inputs are all Parameters of the given shapes (default: dynamic)."""
    import openvino.opset5 as op5

    names = ["X", "H", *(["C"] if cell == "lstm" else []), "L", "W", "R", "B"]
    ranks = {"X": 3, "H": 3, "C": 3, "L": 1, "W": 3, "R": 3, "B": 2}
    params = {
        n: op.parameter(
            ov.PartialShape(shapes.get(n, [-1] * ranks[n])), ov.Type.i32 if n == "L" else ov.Type.f32, name=n
        )
        for n in names
    }
    build = {"gru": op5.gru_sequence, "lstm": op5.lstm_sequence, "rnn": op5.rnn_sequence}[cell]
    node = build(*params.values(), hidden_size, "forward")
    return ov.Model(node.outputs(), list(params.values()))


SEQUENCES = [
    pytest.param("gru", {}, id="gru-all-dynamic"),
    pytest.param("lstm", {}, id="lstm-all-dynamic"),
    pytest.param("rnn", {}, id="rnn-all-dynamic"),
    pytest.param("gru", {"W": [-1, 15, -1]}, id="gru-W-first-dim-dynamic"),
    pytest.param("gru", {"W": [1, 15, -1]}, id="gru-W-lends-hidden"),
    pytest.param("gru", {"R": [1, [9, 30], -1]}, id="gru-R-interval-divided"),
    pytest.param("lstm", {"C": [-1, -1, 4]}, id="lstm-C-says-4-attribute-5"),
    pytest.param("gru", {"H": [-1, -1, [2, 6]]}, id="gru-H-interval"),
    pytest.param("gru", {"B": [1, 15]}, id="gru-B-lends-nothing"),
    pytest.param(
        "rnn", {"X": [2, 3, 4], "H": [2, 1, 4], "W": [1, 4, 4], "R": [1, 4, 4], "B": [1, 4]}, id="rnn-static"
    ),
]


@pytest.mark.parametrize(("cell", "shapes"), SEQUENCES)
def test_sequence_hidden_dim_as_read_model(cell: str, shapes: dict[str, list[Any]], tmp_path: Path) -> None:
    _assert_same_as_read_model(_sequence(cell, shapes), tmp_path)  # hidden_size=5 throughout


# shapes OpenVINO refuses (checked here at construction), which ovonehot must refuse too
SEQUENCE_REFUSALS = [
    pytest.param("gru", {"H": [-1, -1, 4], "R": [-1, -1, 5]}, id="H-vs-R"),
    pytest.param("gru", {"H": [-1, -1, 5], "W": [-1, 16, -1]}, id="W-not-3-hidden"),
    pytest.param("gru", {"H": [-1, -1, 5], "B": [-1, 16]}, id="B-not-3-hidden"),
    pytest.param("gru", {"W": [1, 16, -1]}, id="W-not-divisible"),
    pytest.param("gru", {"W": [1, 15, -1], "R": [1, 18, -1]}, id="W-vs-R"),
]


@pytest.mark.parametrize(("cell", "shapes"), SEQUENCE_REFUSALS)
def test_sequence_refusals_as_openvino(cell: str, shapes: dict[str, list[Any]], tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        _sequence(cell, shapes)
    xml = _save(_sequence(cell, {}), tmp_path)  # all dynamic, then the refused shapes written in
    text = xml.read_text()
    for name, dims in shapes.items():
        at = text.index(f'name="{name}" type="Parameter"')
        start = text.index('shape="', at) + len('shape="')
        end = text.index('"', start)
        written = ",".join(
            "?" if d == -1 else f"{d[0]}..{d[1]}" if isinstance(d, list) else str(d) for d in dims
        )
        text = text[:start] + written + text[end:]
    xml.write_text(text)
    with pytest.raises(RuntimeError):
        ov.Core().read_model(str(xml))
    from ovonehot.infer import infer
    from ovonehot.ir.reader import read_ir

    with pytest.raises(ValidationError):
        infer(read_ir(xml))
