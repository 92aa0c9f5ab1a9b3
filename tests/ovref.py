"""Test helper: one OpenVINO op, evaluated by OpenVINO's core reference and by ovonehot.

``compare_op`` builds the op with OpenVINO's Python API (Parameters for data
inputs, Constants where the test says so), evaluates it with ``Node.evaluate``
(the core reference: the expected values), saves the one-op model as IR
(``ov.save_model``, no f16 compression) and loads and runs that IR with ovonehot.
So every case also checks ovonehot's attribute parsing of what OpenVINO writes,
and its inferred output types and shapes against OpenVINO's.

Comparison order: shape, then dtype, then values (exact unless an ulp tolerance
is given; NaN equals NaN; +0.0 and -0.0 are told apart).  bf16 outputs: the reference
rounds f32 to bf16 its own way where ovonehot rounds to nearest even (the named deviation
``bf16-reference-rounding``): ovonehot runs under that rounding for the comparison, and its
own outputs must differ from the reference's only as the deviation predicts.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from exact import (
    assert_bf16_rounding_only,
    ulp_distance,  # noqa: F401 - the op tests import it from here
)
from exact import assert_same as _assert_same

import ovonehot
from ovonehot.ops.common.bf16 import Bf16Rounding, bf16_rounding

ov = pytest.importorskip("openvino", reason="the OpenVINO oracle helpers need openvino")

_counter = itertools.count()


@dataclass(frozen=True)
class In:
    """One op input: its value, whether it is a Constant, and the Parameter's declared shape."""

    value: Any
    const: bool = False
    shape: str | None = None  # e.g. "?,3" for a dynamic Parameter; default: the value's static shape

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.value)


def C(value: Any, dtype: Any = None) -> In:
    """A Constant input."""
    return In(np.asarray(value, dtype=dtype), const=True)


def P(value: Any, dtype: Any = None, shape: str | None = None) -> In:
    """A Parameter input fed with ``value``."""
    return In(np.asarray(value, dtype=dtype), shape=shape)


def to_tensor(arr: np.ndarray) -> Any:
    arr = np.array(arr, order="C", copy=True)  # ascontiguousarray would make a 0-d array 1-d
    if arr.dtype == ml_dtypes.bfloat16:
        t = ov.Tensor(ov.Type.bf16, ov.Shape(list(arr.shape)))
        np.copyto(t.data.view(np.uint16), arr.view(np.uint16))
        return t
    return ov.Tensor(arr)


def from_tensor(t: Any) -> np.ndarray:
    if t.element_type == ov.Type.bf16:
        return t.data.view(np.uint16).copy().view(ml_dtypes.bfloat16)
    return np.array(t.data, copy=True)


def ov_type(dtype: np.dtype) -> Any:
    if np.dtype(dtype) == ml_dtypes.bfloat16:
        return ov.Type.bf16
    return ov.Type(np.dtype(dtype))


def reference(node: Any, arrays: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """``node.evaluate`` on ``arrays``; None when the core reference has no kernel for it."""
    outs = [ov.Tensor(node.get_output_element_type(i), ov.Shape([0])) for i in range(node.get_output_size())]
    if not node.evaluate(outs, [to_tensor(a) for a in arrays]):
        return None
    return [from_tensor(t) for t in outs]


@dataclass
class Outcome:
    node: Any  # the OpenVINO node
    model: ovonehot.Model
    ours: list[np.ndarray] | None
    theirs: list[np.ndarray] | None


def build(factory: Callable[..., Any], inputs: Sequence[In]) -> tuple[Any, list[Any]]:
    """The OpenVINO op and its Parameters."""
    ops = __import__("openvino.opset15", fromlist=["opset15"])
    args, params = [], []
    for k, spec in enumerate(inputs):
        arr = spec.array
        if spec.const:
            node = ops.constant(to_tensor(arr)) if arr.dtype == ml_dtypes.bfloat16 else ops.constant(arr)
        else:
            shape = (
                ov.PartialShape(f"[{spec.shape}]")
                if spec.shape is not None
                else ov.PartialShape(list(arr.shape))
            )
            node = ops.parameter(shape, ov_type(arr.dtype), name=f"in{k}")
            params.append(node)
        args.append(node.output(0))
    return factory(*args), params


def export(tmp_path: Path, node: Any, params: Sequence[Any]) -> ovonehot.Model:
    """Save a model of ``node``'s outputs as IR and load it with ovonehot."""
    model = ov.Model([node.output(i) for i in range(node.get_output_size())], list(params), "op")
    xml = tmp_path / f"op{next(_counter)}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=False)
    return ovonehot.load(xml)


def compare_op(
    tmp_path: Path,
    factory: Callable[..., Any],
    inputs: Sequence[In],
    ulp: int = 0,
    require_reference: bool = True,
    evaluate: bool = True,
    bf16_rounds_once: bool = True,
) -> Outcome:
    """Run one op both ways and assert ovonehot matches OpenVINO (see module doc).

    ``evaluate=False`` skips ``Node.evaluate`` (for ops where it crashes OpenVINO);
    the inferred types and shapes are still compared.  ``bf16_rounds_once=False``: the op rounds
    to bf16 after every step (FakeConvert), so its nearest-even outputs may differ from the
    reference's by more than one rounding (only the comparison under the reference's rounding).
    """
    node, params = build(factory, inputs)
    theirs = reference(node, [i.array for i in inputs]) if evaluate else None
    if theirs is None and require_reference and evaluate:
        pytest.fail(f"OpenVINO's core reference cannot evaluate {node.get_type_name()} on these inputs")
    # bf16 outputs: the reference rounds its own way (the named deviation bf16-reference-rounding);
    # ovonehot reproduces it under bf16_rounding, and its own nearest-even differs only as predicted.
    as_reference = any(t.dtype == ml_dtypes.bfloat16 for t in theirs or ())
    rounding = bf16_rounding(Bf16Rounding.OPENVINO_REFERENCE) if as_reference else contextlib.nullcontext()
    feeds = [i.array for i in inputs if not i.const]
    with rounding:
        model = export(tmp_path, node, params)
        ours = list(model.run(feeds).values())
    assert_inferred(model, node)
    if theirs is not None:
        assert len(ours) == len(theirs)
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, ulp=ulp, where=f"output {k}")
    if as_reference and theirs is not None and not ulp and bf16_rounds_once:
        nearest = list(ovonehot.load(model.path).run(feeds).values())
        for k, (a, b) in enumerate(zip(nearest, theirs, strict=True)):
            if b.dtype == ml_dtypes.bfloat16:
                assert_bf16_rounding_only(a, b, f"output {k}")
    return Outcome(node, model, ours, theirs)


def cpu_outputs(node: Any, params: Sequence[Any], feeds: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``node``'s outputs from OpenVINO's CPU plugin, compiled deterministically (docs/openvino-behaviour.md).

    For ops the core reference cannot evaluate; ``feeds`` go to ``params`` in order.
    """
    from ovonehot.oracle.openvino_runtime import CPU_CONFIG

    compiled = ov.Core().compile_model(ov.Model(node.outputs(), list(params)), "CPU", CPU_CONFIG)
    result = compiled(list(feeds))
    return [np.array(result[o]) for o in compiled.outputs]


def assert_inferred(model: ovonehot.Model, node: Any) -> None:
    """ovonehot's inferred output types and partial shapes equal OpenVINO's."""
    assert len(model.outputs) == node.get_output_size()
    for k, desc in enumerate(model.outputs):
        assert str(desc.shape) == str(node.get_output_partial_shape(k)), f"output {k} shape"
        assert str(desc.element_type) == node.get_output_element_type(k).to_string(), f"output {k} type"


def infer_shapes(
    tmp_path: Path, factory: Callable[..., Any], inputs: Sequence[In]
) -> tuple[list[str], list[str]]:
    """(ovonehot's, OpenVINO's) output partial shapes as strings, plus types, for inference tests."""
    node, params = build(factory, inputs)
    model = export(tmp_path, node, params)
    ours = [f"{d.element_type}{d.shape}" for d in model.outputs]
    theirs = [
        f"{node.get_output_element_type(k).to_string()}{node.get_output_partial_shape(k)}"
        for k in range(node.get_output_size())
    ]
    return ours, theirs


def assert_same(actual: np.ndarray, expected: np.ndarray, ulp: int = 0, where: str = "") -> None:
    """An op's computed values against OpenVINO's: exact.assert_same, where a NaN equals any NaN."""
    _assert_same(actual, expected, where, ulp=ulp, any_nan=True)
