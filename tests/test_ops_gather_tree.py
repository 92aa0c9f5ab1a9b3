"""GatherTree-1 against OpenVINO: values against the CPU plugin (the core op has no ``evaluate``;
integer data movement, exact) and against TF 1.5's algorithm written here; shapes, types and
messages against OpenVINO's inference.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import P, assert_inferred, assert_same, build, cpu_outputs, export

ov = pytest.importorskip("openvino")
o15 = pytest.importorskip("openvino.opset15")

RNG = np.random.default_rng(11)


def _tf_gather_tree(step, parent, lengths, end):  # type: ignore[no-untyped-def]
    frames, batches, beams = step.shape
    out = np.full(step.shape, end, step.dtype)
    for b in range(batches):
        for w in range(beams):
            length = min(frames, int(lengths[b]))
            if length == 0:
                continue
            out[length - 1, b, w] = step[length - 1, b, w]
            p = int(parent[length - 1, b, w])
            for t in range(length - 2, -1, -1):
                out[t, b, w] = step[t, b, p]
                p = int(parent[t, b, p])
            done = False
            for t in range(length):
                if done:
                    out[t, b, w] = end
                elif int(out[t, b, w]) == int(end):
                    done = True
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.float32], ids=["i32", "f32"])
@pytest.mark.parametrize(
    ("frames", "batches", "beams", "lengths"),
    [(5, 2, 3, [5, 3]), (4, 1, 4, [2]), (6, 3, 2, [0, 6, 10]), (1, 2, 1, [1, 1])],
    ids=["basic", "short", "zero-and-over", "one-step"],
)
def test_gather_tree_matches_cpu(tmp_path, frames, batches, beams, lengths, dtype):  # type: ignore[no-untyped-def]
    step = RNG.integers(0, 6, (frames, batches, beams)).astype(dtype)
    parent = RNG.integers(0, beams, (frames, batches, beams)).astype(dtype)
    arrays = [step, parent, np.array(lengths, dtype), np.array(3, dtype)]  # 3: an end token that occurs
    node, params = build(o15.gather_tree, [P(a) for a in arrays])
    model = export(tmp_path, node, params)
    assert_inferred(model, node)
    (ours,) = model.run(arrays).values()
    assert_same(ours, _tf_gather_tree(*arrays))
    run = np.array(lengths) > 0  # a batch of length 0: the CPU plugin leaves its output unwritten
    assert_same(ours[:, run], cpu_outputs(node, params, arrays)[0][:, run])


SHAPES = [
    ("3,1,2", "3,1,2", "1", ""),
    ("3,1,2", "3,2,2", "1", ""),
    ("?,?,?", "3,?,2", "?", ""),
    ("3,1,2", "3,1,2", "2", ""),
    ("3,1,2", "3,1,2", "1", "1"),
    ("3,1", "3,1,2", "1", ""),
    ("...", "3,1..4,2", "2..6", ""),
    ("...", "...", "...", ""),
    ("...", "...", "4", ""),
    ("3,1,2", "3,1,2", "1,1", ""),
]


@pytest.mark.parametrize(
    "types", [("i32",) * 4, ("i32", "f32", "i32", "i32"), ("boolean",) * 4, ("f32",) * 4]
)
@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "|".join(s))
def test_gather_tree_inference_matches_openvino(shapes, types):  # type: ignore[no-untyped-def]
    from ovonehot.errors import ValidationError
    from ovonehot.ops.common.attrs import NoAttrs
    from ovonehot.ops.common.spec import TensorInfo
    from ovonehot.ops.gather_tree import infer_gather_tree
    from ovonehot.types import ElementType, PartialShape

    def ps(s):  # type: ignore[no-untyped-def]
        return ov.PartialShape.dynamic() if s == "..." else ov.PartialShape(f"[{s}]")

    try:
        node = o15.gather_tree(
            *(o15.parameter(ps(s), getattr(ov.Type, t)) for s, t in zip(shapes, types, strict=True))
        )
        theirs = f"{node.get_output_element_type(0).to_string()}{node.get_output_partial_shape(0)}"
    except RuntimeError as exc:
        theirs = "error: " + str(exc).strip().splitlines()[-1].strip()
    infos = [
        TensorInfo(ElementType.from_name(t), PartialShape.parse(s))
        for s, t in zip(shapes, types, strict=True)
    ]
    try:
        (out,) = infer_gather_tree(NoAttrs(), infos)
        ours = f"{out.element_type}{out.shape}"
    except ValidationError as exc:
        ours = f"error: {exc}"
    assert ours == theirs
