"""CTCLoss-4 against OpenVINO.

The core op has no ``evaluate``; the CPU plugin (deterministic config) runs the backward
recursion that ovonehot follows, in f32 (``nodes/ctc_loss.cpp``), so values are compared with
it bit for bit (CPU_ULP = 0; f16 within 1 ulp), and with an independent float64 oracle (the
forward recursion of Graves et al., written here) within 1e-4 relative, empty labels included.  Shapes, types and messages against OpenVINO's
inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o4 = pytest.importorskip("openvino.opset4")

CPU_ULP = 0
RNG = np.random.default_rng(4)


def _forward_oracle(logits, frames, target, blank, merge):  # type: ignore[no-untyped-def]
    """-log p(target | logits) by the forward (alpha) recursion in float64."""
    lp = logits[:frames] - np.log(np.exp(logits[:frames].astype(np.float64)).sum(axis=1, keepdims=True))
    ext = [blank]
    for v in target:
        ext += [v, blank]
    s_len = len(ext)
    alpha = np.full(s_len, -np.inf)
    alpha[0] = lp[0, ext[0]]
    if s_len > 1:
        alpha[1] = lp[0, ext[1]]
    for t in range(1, frames):
        new = np.full(s_len, -np.inf)
        for s in range(s_len):
            terms = [alpha[s]] if (merge or ext[s] == blank) else []
            if s >= 1:
                terms.append(alpha[s - 1])
            if s >= 2 and ext[s] != blank and (not merge or ext[s] != ext[s - 2]):
                terms.append(alpha[s - 2])
            new[s] = np.logaddexp.reduce(terms) + lp[t, ext[s]] if terms else -np.inf
        alpha = new
    tail = alpha[-2:] if s_len > 1 else alpha[-1:]
    return -np.logaddexp.reduce(tail)


def _inputs(n, frames_max, classes, lengths, label_lengths, repeats=False):  # type: ignore[no-untyped-def]
    logits = RNG.standard_normal((n, frames_max, classes)).astype(np.float32)
    high = 2 if repeats else classes - 1
    labels = RNG.integers(0, high, (n, frames_max)).astype(np.int32)
    return logits, np.array(lengths, np.int32), labels, np.array(label_lengths, np.int32)


CASES = [
    pytest.param(2, 6, 5, [6, 4], [3, 2], False, id="basic"),
    pytest.param(3, 10, 4, [10, 7, 5], [4, 3, 5], True, id="repeated-labels"),
    pytest.param(1, 5, 3, [5], [5], False, id="labels-fill-frames"),
    pytest.param(2, 8, 6, [1, 8], [1, 0], False, id="one-frame-and-empty-label"),
    pytest.param(2, 30, 10, [30, 25], [12, 9], True, id="long"),
]
ATTRS = [
    pytest.param(False, True, False, id="default"),
    pytest.param(True, True, False, id="collapse"),
    pytest.param(False, False, False, id="no-merge"),
    pytest.param(False, True, True, id="unique"),
    pytest.param(True, False, True, id="collapse-unique-no-merge"),
]


@pytest.mark.parametrize(("collapse", "merge", "unique"), ATTRS)
@pytest.mark.parametrize(("n", "frames", "classes", "lengths", "label_lengths", "repeats"), CASES)
def test_ctc_loss_matches_cpu(
    tmp_path, n, frames, classes, lengths, label_lengths, repeats, collapse, merge, unique
):  # type: ignore[no-untyped-def]
    arrays = _inputs(n, frames, classes, lengths, label_lengths, repeats)
    if 0 in label_lengths:  # the CPU plugin reads outside its table for empty labels: not an oracle there
        pytest.skip("empty labels: the CPU plugin's result is undefined (out-of-range reads)")
    node, params = build(
        lambda *a: o4.ctc_loss(
            *a, preprocess_collapse_repeated=collapse, ctc_merge_repeated=merge, unique=unique
        ),
        [P(a) for a in arrays],
    )
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(list(arrays)).values()
    assert_same(ours, cpu_outputs(node, params, list(arrays))[0], ulp=CPU_ULP)


@pytest.mark.parametrize("merge", [True, False], ids=["merge", "no-merge"])
@pytest.mark.parametrize(("n", "frames", "classes", "lengths", "label_lengths", "repeats"), CASES)
def test_ctc_loss_against_float64_oracle(
    tmp_path, n, frames, classes, lengths, label_lengths, repeats, merge
):  # type: ignore[no-untyped-def]
    logits, lengths_a, labels, label_lengths_a = _inputs(n, frames, classes, lengths, label_lengths, repeats)
    node, params = build(
        lambda *a: o4.ctc_loss(*a, ctc_merge_repeated=merge),
        [P(logits), P(lengths_a), P(labels), P(label_lengths_a)],
    )
    (ours,) = export(tmp_path, node, params).run([logits, lengths_a, labels, label_lengths_a]).values()
    for b in range(n):
        target = labels[b, : label_lengths[b]].tolist()
        expected = _forward_oracle(logits[b].astype(np.float64), lengths[b], target, classes - 1, merge)
        np.testing.assert_allclose(ours[b], expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_blank_index_input(tmp_path, blank):  # type: ignore[no-untyped-def]
    logits, lengths, labels, label_lengths = _inputs(2, 7, 5, [7, 6], [3, 2])
    labels = np.where(labels == blank, (blank + 1) % 5, labels).astype(np.int32)
    b = np.array(blank, np.int32)
    arrays = [logits, lengths, labels, label_lengths, b]
    node, params = build(lambda *a: o4.ctc_loss(*a), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    assert_same(ours, cpu_outputs(node, params, arrays)[0], ulp=CPU_ULP)


def test_ctc_loss_f16_matches_cpu(tmp_path):  # type: ignore[no-untyped-def]
    logits, lengths, labels, label_lengths = _inputs(2, 6, 5, [6, 5], [2, 3])
    arrays = [logits.astype(np.float16), lengths, labels, label_lengths]
    node, params = build(lambda *a: o4.ctc_loss(*a), [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    assert_same(ours, cpu_outputs(node, params, arrays)[0], ulp=1)


def test_ctc_loss_label_longer_than_logits_is_an_error(tmp_path):  # type: ignore[no-untyped-def]
    from ovonehot.errors import InputError

    logits, lengths, labels, label_lengths = _inputs(1, 5, 4, [3], [4])
    node, params = build(lambda *a: o4.ctc_loss(*a), [P(a) for a in (logits, lengths, labels, label_lengths)])
    with pytest.raises(InputError, match="Label length cannot be greater than a logit length"):
        export(tmp_path, node, params).run([logits, lengths, labels, label_lengths])


SHAPES = [
    ("2,6,5", "2", "2,6", "2"),
    ("?,6,5", "2", "?,6", "?"),
    ("?,?,5", "?", "3,?", "..."),
    ("...", "...", "...", "4"),
    ("2..5,6,5", "3..9", "?,6", "?"),
    ("2,6,5", "3", "2,6", "2"),
    ("2,6,5", "2", "2,7", "2"),
    ("2,6,5", "2", "3,6", "2"),
    ("2,6,5", "2", "2,6", "3"),
    ("2,6", "2", "2,6", "2"),
    ("2,6,5", "2,1", "2,6", "2"),
    ("2,6,5", "2", "2", "2"),
    ("2,6,5", "2", "2,6", ""),
    ("?,?,?", "?", "?,?", "?"),
]


@pytest.mark.parametrize("blank", [None, "", "1"], ids=["4-inputs", "blank-scalar", "blank-1d"])
@pytest.mark.parametrize(("logits", "logit_length", "labels", "label_length"), SHAPES)
def test_ctc_loss_inference_matches_openvino(logits, logit_length, labels, label_length, blank):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.ctc_loss import CTCLossAttrs, infer_ctc_loss
    from ovonehot.types import ElementType, PartialShape

    shapes = [logits, logit_length, labels, label_length] + ([] if blank is None else [blank])
    types = [ov.Type.f32] + [ov.Type.i32] * (len(shapes) - 1)
    params = [
        o4.parameter(ov.PartialShape(f"[{s}]") if s != "..." else ov.PartialShape.dynamic(), t)
        for s, t in zip(shapes, types, strict=True)
    ]
    try:
        node = o4.ctc_loss(*params)
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [
        TensorInfo(ElementType.f32 if k == 0 else ElementType.i32, PartialShape.parse(s))
        for k, s in enumerate(shapes)
    ]
    try:
        (out,) = infer_ctc_loss(CTCLossAttrs(), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
