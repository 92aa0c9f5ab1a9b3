"""String tensors stay object arrays through the data-movement ops, 0-d results included.

ovonehot holds OpenVINO ``string`` tensors as NumPy object arrays of ``str``.  NumPy gives a 0-d
indexing result (``np.take`` with a scalar index) as a bare ``str``; wrapped by ``np.asarray`` it
became a ``<U`` array, which the evaluator refused ("output 0 is <U7, inferred string") where
OpenVINO returns the string (a TensorFlow ``tf.gather(strings, i)`` with a scalar ``i``).
Expected values: OpenVINO's core reference (``Node.evaluate``) for Gather; for StridedSlice and
Squeeze, where the reference corrupts the heap on strings (it copies them as bytes) and the CPU
plugin crashes at compile time on some, plain Python indexing of the word list (pure data movement).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from graph_builder import GraphBuilder
from ovref import P, build, export, ov

from ovonehot.errors import ValidationError
from ovonehot.infer import infer

ops = pytest.importorskip("openvino.opset15")

WORDS = np.array(["alpha", "b", "", "deltaé"])


def _i64(value: object) -> Any:
    return ops.constant(np.array(value, np.int64))


def _reference_strings(node: Any, feeds: list[np.ndarray]) -> list[str]:
    out = ov.Tensor(ov.Type.string, ov.Shape([0]))
    assert node.evaluate([out], [ov.Tensor(np.asarray(a)) for a in feeds])
    return list(np.asarray(out.str_data).reshape(-1))


@pytest.mark.parametrize(
    "index", [np.int32(3), np.int64(-4), np.array([2, 0], np.int32)], ids=["0d", "0d-negative", "1d"]
)
def test_gather_on_strings_matches_reference(tmp_path: Path, index: np.ndarray) -> None:
    node, params = build(lambda d, i, a: ops.gather(d, i, a), [P(WORDS), P(index), P(np.int64(0))])
    expected = _reference_strings(node, [WORDS, index, np.int64(0)])
    model = export(tmp_path, node, params)
    for exact in (True, False):
        ours = next(iter(model.run([WORDS, index, np.int64(0)], exact=exact).values()))
        assert ours.dtype == object and ours.shape == np.shape(index)
        assert list(ours.reshape(-1)) == expected


# (case, the op on the words, the word it picks)
PICKS: dict[str, tuple[Callable[[Any], Any], int]] = {
    "StridedSlice-shrink": (
        lambda p: ops.strided_slice(p, _i64([1]), _i64([2]), _i64([1]), [0], [0], shrink_axis_mask=[1]),
        1,
    ),
    "Squeeze-to-0d": (lambda p: ops.squeeze(ops.slice(p, _i64([3]), _i64([4]), _i64([1])), _i64([0])), 3),
    "Gather-constant-index": (lambda p: ops.gather(p, ops.constant(np.int32(2)), _i64(0)), 2),
}


@pytest.mark.parametrize("case", list(PICKS))
def test_0d_string_results_stay_strings(tmp_path: Path, case: str) -> None:
    factory, pick = PICKS[case]
    node, params = build(factory, [P(WORDS)])
    model = export(tmp_path, node, params)
    for exact in (True, False):
        ours = next(iter(model.run([WORDS], exact=exact).values()))
        assert ours.dtype == object and ours.shape == ()
        assert ours.item() == str(WORDS[pick])


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric"])
def test_pad_of_strings_other_than_constant_is_refused_as_openvino(mode: str) -> None:
    """OpenVINO refuses to build it (pad_base.cpp); ovonehot's inference refuses it the same way."""
    p = ops.parameter([2, 4], ov.Type.string)
    with pytest.raises(
        RuntimeError, match="Only CONSTANT pad mode is supported for element::string"
    ) as theirs:
        ops.pad(p, _i64([0, 1]), _i64([1, 0]), mode)
    b = GraphBuilder()
    x = b.parameter("x", "string", "[2,4]")
    pads = b.const("b", np.array([0, 1], np.int64)), b.const("e", np.array([1, 0], np.int64))
    b.op("Pad", "opset12", [x, *pads], {"pad_mode": mode})
    with pytest.raises(ValidationError) as ours:
        infer(b.graph())
    assert "Only CONSTANT pad mode is supported for element::string" in str(ours.value)
    assert "Only CONSTANT pad mode" in str(theirs.value)
