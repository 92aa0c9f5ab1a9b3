"""CTCGreedyDecoder-0 and CTCGreedyDecoderSeqLen-6 against OpenVINO: values against the CPU plugin
(the core ops have no ``evaluate``; argmax and copies, exact) and against a plain decoding loop;
shapes and messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(6)


def _logits(shape):  # type: ignore[no-untyped-def]
    """Few classes, so runs of the same class and blanks occur."""
    return RNG.standard_normal(shape).astype(np.float32)


def _loop(best_rows, blank, merge):  # type: ignore[no-untyped-def]
    out, prev = [], -1
    for k in best_rows:
        if k != blank and not (merge and k == prev):
            out.append(k)
        prev = k
    return out


@pytest.mark.parametrize("merge", [True, False], ids=["merge", "no-merge"])
@pytest.mark.parametrize("lengths", [[7, 4, 0], [7, 7, 7], [1, 2, 3]], ids=["mixed", "full", "short"])
def test_greedy_0_matches_cpu(tmp_path, lengths, merge):  # type: ignore[no-untyped-def]
    data = _logits((7, 3, 3))
    mask = (np.arange(7)[:, None] < np.array(lengths)[None, :]).astype(np.float32)
    node, params = build(lambda a, b: o15.ctc_greedy_decoder(a, b, merge), [P(data), P(mask)])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run([data, mask]).values()
    assert_same(ours, cpu_outputs(node, params, [data, mask])[0])
    for b, n in enumerate(lengths):
        decoded = _loop(np.argmax(data[:n, b], axis=1).tolist(), 2, merge)
        assert ours[b, :, 0, 0].tolist() == decoded + [-1] * (7 - len(decoded))


@pytest.mark.parametrize("types", [("i32", "i32"), ("i64", "i32"), ("i32", "i64")])
@pytest.mark.parametrize("blank", [None, 0, 2])
@pytest.mark.parametrize("merge", [True, False], ids=["merge", "no-merge"])
def test_greedy_6_matches_cpu(tmp_path, merge, blank, types):  # type: ignore[no-untyped-def]
    data = _logits((3, 8, 4))
    lengths = np.array([8, 5, 0], np.int32)
    inputs = [P(data), P(lengths)] + ([C(np.array(blank, np.int32))] if blank is not None else [])

    def factory(*a):  # type: ignore[no-untyped-def]
        return o15.ctc_greedy_decoder_seq_len(
            *a, merge_repeated=merge, classes_index_type=types[0], sequence_length_type=types[1]
        )

    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    ours = list(model.run([data, lengths]).values())
    theirs = cpu_outputs(node, params, [data, lengths])
    for k in range(2):
        assert_same(ours[k], theirs[k].astype(ours[k].dtype), where=f"output {k}")
    for b, n in enumerate(lengths):
        decoded = _loop(np.argmax(data[b, :n], axis=1).tolist(), 3 if blank is None else blank, merge)
        assert ours[0][b].tolist() == decoded + [-1] * (8 - len(decoded)) and ours[1][b] == len(decoded)


def _infer(factory, shapes_types):  # type: ignore[no-untyped-def]
    params = [
        o15.parameter(
            ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]"), getattr(ov.Type, t)
        )
        for s, t in shapes_types
    ]
    try:
        node = factory(*params)
        return [
            f"{node.get_output_element_type(i).to_string()}{node.get_output_partial_shape(i)}"
            for i in range(len(node.outputs()))
        ]
    except RuntimeError as exc:
        return ["error: " + str(exc).strip().splitlines()[-1].strip()]


def _ours(infer, attrs, shapes_types):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.types import ElementType, PartialShape

    infos = [TensorInfo(ElementType.from_name(t), PartialShape.parse(s)) for s, t in shapes_types]
    try:
        return [f"{o.element_type}{o.shape}" for o in infer(attrs, infos)]
    except ValidationError as exc:
        return [f"error: {exc}"]


@pytest.mark.parametrize(
    "shapes",
    [
        ("5,2,4", "5,2"),
        ("5,2,4", "5,3"),
        ("5,2,4", "6,2"),
        ("5,2", "5,2"),
        ("5,2,4", "5"),
        ("...", "5,2"),
        ("?,?,4", "5,2"),
        ("...", "..."),
    ],
)
def test_greedy_0_inference_matches_openvino(shapes):  # type: ignore[no-untyped-def]
    from ovonehot.ops.ctc_greedy import GreedyAttrs, infer_greedy_0

    st = [(shapes[0], "f32"), (shapes[1], "f32")]
    assert _ours(infer_greedy_0, GreedyAttrs(), st) == _infer(
        lambda a, b: o15.ctc_greedy_decoder(a, b, True), st
    )


@pytest.mark.parametrize(
    "shapes",
    [
        ("2,5,4", "2", None),
        ("2,5,4", "3", None),
        ("2,5", "2", None),
        ("2,5,4", "2,1", None),
        ("...", "2", None),
        ("?,5,4", "?", None),
        ("2,5,4", "2", "2"),
        ("2,5,4", "2", "1"),
        ("2,5,4", "2", ""),
    ],
)
def test_greedy_6_inference_matches_openvino(shapes):  # type: ignore[no-untyped-def]
    from ovonehot.ops.ctc_greedy import GreedyAttrs, infer_greedy_6

    st = [(shapes[0], "f32"), (shapes[1], "i32")] + ([(shapes[2], "i32")] if shapes[2] is not None else [])
    assert _ours(infer_greedy_6, GreedyAttrs(), st) == _infer(
        lambda *a: o15.ctc_greedy_decoder_seq_len(*a), st
    )
