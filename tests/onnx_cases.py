"""Test helper: ONNX OneHot models, ONNX's own backend test cases for OneHot, exact comparison.

``backend_cases()`` runs ONNX's node test generators (``onnx.backend.test.case.node``)
for OneHot: each case is the model ONNX ships plus its inputs and the outputs ONNX
expects.  ``one_hot_model`` builds a one-node OneHot model whose three inputs are
graph inputs.  ``for_onnxruntime`` rewrites a model so onnxruntime 1.31 loads it
(IR version 8, opset 11: OneHot is the same op from 11 to 27).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="ONNX models need the onnx package (test extra)")
from onnx import helper


@dataclass(frozen=True)
class BackendCase:
    name: str
    model: onnx.ModelProto
    inputs: tuple[np.ndarray, ...]  # indices, depth, values
    expected: np.ndarray
    axis: int
    opset: int

    def feeds(self) -> dict[str, np.ndarray]:
        names = [i.name for i in self.model.graph.input]
        return {n: np.asarray(a) for n, a in zip(names, self.inputs, strict=True)}


@functools.cache
def backend_cases() -> tuple[BackendCase, ...]:
    """ONNX's backend test cases for OneHot (test_onehot_*), as its generators make them."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():  # the generators of other ops warn about their own inf/nan data
        warnings.simplefilter("ignore", RuntimeWarning)
        collected = collect_testcases("OneHot")
    cases = []
    for case in collected:
        if case.model is None or not case.data_sets:
            continue
        ((ins, outs),) = case.data_sets
        node = case.model.graph.node[0]
        axis = next((a.i for a in node.attribute if a.name == "axis"), -1)
        opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
        cases.append(
            BackendCase(
                case.name, case.model, tuple(np.asarray(a) for a in ins), np.asarray(outs[0]), axis, opset
            )
        )
    assert cases, "onnx ships no OneHot backend cases: check the onnx installation"
    return tuple(cases)


def backend_ids() -> list[str]:
    return [c.name for c in backend_cases()]


def one_hot_model(
    indices: np.ndarray,
    depth: np.ndarray,
    values: np.ndarray,
    axis: int | None = None,
    opset: int = 11,
) -> onnx.ModelProto:
    """indices, depth, values (graph inputs, shapes as given) -> OneHot -> y."""
    kwargs = {} if axis is None else {"axis": axis}
    node = helper.make_node("OneHot", ["indices", "depth", "values"], ["y"], **kwargs)
    inputs = [
        helper.make_tensor_value_info(name, onnx_type(a), list(a.shape))
        for name, a in (("indices", indices), ("depth", depth), ("values", values))
    ]
    out = helper.make_tensor_value_info("y", onnx_type(values), None)
    graph = helper.make_graph([node], "one_hot", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def onnx_type(array: np.ndarray) -> int:
    array = np.asarray(array)
    if array.dtype == object or array.dtype.kind in "US":
        return onnx.TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(array.dtype)


def for_onnxruntime(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy onnxruntime 1.31 loads: IR version 8 and, for OneHot-11..27, opset 11."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    copy.ir_version = 8
    for o in copy.opset_import:
        if o.domain in ("", "ai.onnx") and o.version > 11:
            o.version = 11
    return copy


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path


def assert_bits(ours: np.ndarray, expected: np.ndarray, where: str = "") -> None:
    """Shape, then dtype, then every bit (strings compare as text)."""
    ours, expected = np.asarray(ours), np.asarray(expected)
    assert ours.shape == expected.shape, f"{where}: shape {ours.shape} != {expected.shape}"
    assert ours.dtype == expected.dtype, f"{where}: dtype {ours.dtype} != {expected.dtype}"
    if ours.dtype == object:
        assert ours.tolist() == expected.tolist(), f"{where}:\n{ours}\n!=\n{expected}"
        return
    assert ours.tobytes() == expected.tobytes(), f"{where}:\n{ours!r}\n!=\n{expected!r}"
