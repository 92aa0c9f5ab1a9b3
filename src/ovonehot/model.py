"""The public model object: ``load`` an IR, look at its inputs and outputs, ``run`` it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .errors import InputError
from .evaluate import Observer, evaluate
from .graph import Graph
from .infer import Inference, infer, parameter_infos
from .ir.reader import read_ir
from .types import ElementType, PartialShape


@dataclass(frozen=True, slots=True)
class TensorDesc:
    """A model input or output: the name ovonehot uses for it, every tensor name, type and shape."""

    name: str
    names: tuple[str, ...]
    element_type: ElementType
    shape: PartialShape

    def __str__(self) -> str:
        return f"{self.name}: {self.element_type}{self.shape}"


def load(xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> Model:
    """Read an IR (.xml, and the .bin beside it unless ``bin_path`` is given), check it, infer it.

    Raises an ``ovonehot.Error`` for anything wrong with the files; never imports openvino,
    except for a ``.onnx`` path, which OpenVINO's ONNX frontend converts first (``onnx_input``).
    """
    if Path(xml_path).suffix.lower() == ".onnx":
        from .onnx_input import load_onnx  # imports openvino lazily; .xml loading never does

        return load_onnx(xml_path, bin_path)
    graph = read_ir(xml_path, bin_path)
    return Model(graph, infer(graph), Path(xml_path))


class Model:
    """An IR graph with its inferred types and shapes, runnable on NumPy arrays."""

    def __init__(self, graph: Graph, inference: Inference, path: Path | None = None) -> None:
        self.graph = graph
        self.inference = inference
        self.path = path
        self._params = [graph.index_of(n.id) for n, _, _ in parameter_infos(inference)]
        self.inputs: tuple[TensorDesc, ...] = tuple(
            TensorDesc(n.name, n.outputs[0].names if n.outputs else (), et, shape)
            for n, et, shape in parameter_infos(inference)
        )
        self._results = graph.kind_indices("Result")
        outputs = []
        used: set[str] = set()
        for r in self._results:
            src = graph.sources[r][0]
            port = graph.nodes[src.node].outputs[src.output]
            info = inference.outputs[src.node][src.output]
            name = port.names[0] if port.names else graph.nodes[r].name
            if name in used:  # two Results of one tensor: the second goes by its layer name
                name = graph.nodes[r].name
            used.add(name)
            outputs.append(TensorDesc(name, port.names, info.element_type, info.shape))
        self.outputs: tuple[TensorDesc, ...] = tuple(outputs)

    def __repr__(self) -> str:
        ins = ", ".join(str(d) for d in self.inputs)
        outs = ", ".join(str(d) for d in self.outputs)
        return f"<ovonehot.Model {self.graph.name!r} inputs=[{ins}] outputs=[{outs}]>"

    def input_index(self, key: str) -> int:
        """Position of the input named ``key`` (Parameter name or any of its tensor names)."""
        for k, desc in enumerate(self.inputs):
            if key == desc.name or key in desc.names:
                return k
        known = ", ".join(repr(d.name) for d in self.inputs)
        raise InputError(f"the model has no input named {key!r}; its inputs are: {known}")

    def bind(self, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]) -> list[np.ndarray]:
        """Match and check user inputs; return one array per Parameter, in order."""
        bound: list[np.ndarray | None] = [None] * len(self.inputs)
        if isinstance(inputs, Mapping):
            for key, value in inputs.items():
                k = self.input_index(str(key))
                if bound[k] is not None:
                    raise InputError(f"input {self.inputs[k].name!r} is given twice")
                bound[k] = check_input(self.inputs[k], value)
        else:
            seq = list(inputs)
            if len(seq) != len(self.inputs):
                raise InputError(f"the model takes {len(self.inputs)} inputs, {len(seq)} were given")
            bound = [check_input(d, v) for d, v in zip(self.inputs, seq, strict=True)]
        missing = [d.name for d, v in zip(self.inputs, bound, strict=True) if v is None]
        if missing:
            raise InputError(f"missing inputs: {', '.join(missing)}")
        return [b for b in bound if b is not None]

    def run(
        self,
        inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
        observer: Observer | None = None,
    ) -> dict[str, np.ndarray]:
        """Run the model; results keyed by output name, in the IR's Result order."""
        arrays = self.bind(inputs)
        feeds = dict(zip(self._params, arrays, strict=True))
        values = evaluate(self.inference, feeds, observer)
        return {d.name: values[(r, 0)] for d, r in zip(self.outputs, self._results, strict=True)}


def check_input(desc: TensorDesc, value: object) -> np.ndarray:
    """``value`` as an array of the input's element type, or InputError.

    Exact dtypes pass.  Other dtypes pass only when the conversion is lossless and
    within one kind (integer to integer with every value in range, float to float
    with every value exactly representable); a float array for an integer input, a
    lossy narrowing, a wrong rank or a dim outside the declared interval is refused.
    """
    et = desc.element_type
    arr = np.asarray(value)
    where = f"input {desc.name!r} ({et}{desc.shape})"
    if not desc.shape.accepts(arr.shape):
        raise InputError(f"{where}: got an array of shape {list(arr.shape)}")
    if et.is_dynamic:
        return arr
    target = et.numpy_dtype
    if target is None:
        raise InputError(f"{where}: ovonehot cannot hold {et} values in NumPy")
    if et is ElementType.string:
        if arr.dtype.kind in "US" or arr.dtype == object:
            out = np.empty(arr.shape, dtype=object)
            out[...] = arr.astype(str) if arr.dtype.kind != "O" else arr
            return out
        raise InputError(f"{where}: got {arr.dtype} values, expected strings")
    if arr.dtype == target:
        return arr
    if arr.dtype.kind == "V" and target.kind == "V" and arr.dtype.itemsize == target.itemsize:
        # bf16/f8 arrays saved by np.save come back as raw bytes ("|V2"): same bits, re-typed.
        return arr.view(target)
    src_kind, dst_kind = _kind(arr.dtype), _kind(target)
    if src_kind != dst_kind:
        raise InputError(f"{where}: got {arr.dtype} values, expected {et}; convert them explicitly")
    with np.errstate(all="ignore"):
        converted = arr.astype(target)
        back = converted.astype(arr.dtype)
    same = np.array_equal(back, arr, equal_nan=(src_kind == "float"))
    if same and src_kind == "int" and arr.size and arr.dtype.kind != converted.dtype.kind:
        # signed <-> unsigned of one width survives the round trip (2**63 -> -2**63 -> 2**63)
        same = bool((arr >= 0).all()) if converted.dtype.kind == "u" else bool((converted >= 0).all())
    if not same or (et in (ElementType.u1, ElementType.u3, ElementType.u6) and converted.size and
                    int(converted.max()) >= (1 << et.bitwidth)):
        raise InputError(f"{where}: {arr.dtype} values do not all fit in {et}")
    return converted


def _kind(dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "bool"
    if dtype.kind in "iu":
        return "int"
    try:
        et = ElementType.from_numpy(dtype)
    except Exception:  # noqa: BLE001 - any dtype we cannot name is its own kind
        return str(dtype)
    return "float" if et.is_real else "int" if et.is_integral_number else str(et)
