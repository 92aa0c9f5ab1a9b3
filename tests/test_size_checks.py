"""Which nodes a run checks the output sizes of before their kernel runs (``Step.sized``,
``check_output_sizes``): not the ops whose output is their one data input's values moved
(``OpSpec.sizes_within_inputs``: Reshape, Squeeze, Unsqueeze, Transpose, Assign) where the
output rank is known, so a generation step does not infer their sizes again as its KV cache
grows; still a Concat (one input given many times would multiply its size), a Broadcast, and a
Reshape whose output rank comes from a runtime shape (NumPy holds at most 64 dims)."""

from __future__ import annotations

import numpy as np
import pytest

from ovonehot import evaluate as ev
from ovonehot.errors import Error
from ovonehot.infer import infer
from ovonehot.model import Model
from tests.graph_builder import GraphBuilder


def _model() -> tuple[Model, dict[str, int]]:
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[?,8]")
    target = b.parameter("target", "i64", "[?]")
    dims = b.parameter("dims", "i64", "[?]")
    nodes = {
        "reshape": b.op(
            "Reshape", "opset1", [x, b.const("s", np.array([-1, 4], np.int64))], {"special_zero": "false"}
        ),
        "transpose": b.op("Transpose", "opset1", [x, b.const("p", np.array([1, 0], np.int64))]),
        "concat": b.op("Concat", "opset1", [x, x, x], {"axis": "0"}),
        "broadcast": b.op("Broadcast", "opset3", [b.const("one", np.float32(1)), dims]),
        "runtime_reshape": b.op("Reshape", "opset1", [x, target], {"special_zero": "false"}),
    }
    for k in nodes.values():
        b.op("Result", "opset1", [k], outputs=0)
    graph = b.graph()
    return Model(graph, infer(graph)), nodes


def test_moved_values_of_a_known_rank_are_not_sized() -> None:
    model, nodes = _model()
    steps = ev.program(model.inference).steps
    sized = {name: steps[i].sized for name, i in nodes.items()}
    assert sized == {
        "reshape": False,
        "transpose": False,
        "concat": True,
        "broadcast": True,
        "runtime_reshape": True,
    }


def test_a_runtime_shape_of_too_many_dims_is_still_refused_in_one_error() -> None:
    model, _ = _model()
    x = np.zeros((2, 8), np.float32)
    dims = np.array([2, 3], np.int64)
    model.run({"x": x, "target": np.array([16], np.int64), "dims": dims})  # (a fine run first)
    with pytest.raises(Error, match="Reshape"):
        model.run({"x": x, "target": np.array([16] + [1] * 70, np.int64), "dims": dims})


def test_a_constant_shape_of_too_many_dims_is_refused_in_one_error() -> None:
    """A Reshape whose 70-value shape is a Constant (a static rank NumPy cannot hold): its sizes
    are still checked per run, so the run refuses it with the layer named."""
    b = GraphBuilder()
    x = b.parameter("x", "f32", "[?,8]")
    shape = b.const("s", np.array([16] + [1] * 69, np.int64))
    b.op("Result", "opset1", [b.op("Reshape", "opset1", [x, shape], {"special_zero": "false"})], outputs=0)
    graph = b.graph()
    model = Model(graph, infer(graph))
    with pytest.raises(Error, match=r"Reshape.*rank 70"):
        model.run({"x": np.zeros((2, 8), np.float32)})
