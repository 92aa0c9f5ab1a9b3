"""The public model object: ``load`` an IR, look at its inputs and outputs, ``run`` it."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError, quote, shorten
from .evaluate import Observer, RunMode, evaluate
from .graph import Graph
from .infer import Inference, infer, parameter_infos
from .ir.reader import read_ir
from .ops.common.spec import Override, Variables
from .ops.convert import convert_array
from .suggest import did_you_mean
from .threads import resolve as resolve_threads
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


@dataclass(frozen=True, slots=True)
class VariableDesc:
    """A variable of a stateful model: its ``variable_id``, element type and partial shape
    (what its ReadValue layers give)."""

    variable_id: str
    element_type: ElementType
    shape: PartialShape

    def __str__(self) -> str:
        return f"{self.variable_id}: {self.element_type}{self.shape}"


def load(xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> Model:
    """Read an IR (.xml, and the .bin beside it unless ``bin_path`` is given), check it, infer it.

    Raises an ``ovonehot.Error`` for anything wrong with the files; never imports openvino,
    except for a ``.onnx`` path, which OpenVINO's ONNX frontend converts first (``onnx_input``).
    """
    if Path(xml_path).suffix.lower() == ".onnx":
        from .oracle.onnx_frontend import load_onnx  # imports openvino lazily; .xml loading never does

        return load_onnx(xml_path, bin_path)
    with _no_gc():  # a load makes many small objects and no garbage cycles: skip the collector's passes
        graph = read_ir(xml_path, bin_path)
        return Model(graph, infer(graph), Path(xml_path))


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Model:
    """An IR graph with its inferred types and shapes, runnable on NumPy arrays."""

    def __init__(self, graph: Graph, inference: Inference, path: Path | None = None) -> None:
        self.graph = graph
        self.inference = inference
        self.path = path
        legacy = graph.ir_version == 10
        params = parameter_infos(inference)
        self._params = [graph.index_of(n.id) for n, _, _ in params]
        # What each input is converted to before it enters the graph (IR v10 only, see below).
        self._input_casts = [et if legacy and et is ElementType.f16 else None for _, et, _ in params]
        self.inputs: tuple[TensorDesc, ...] = tuple(
            TensorDesc(
                n.name,
                n.outputs[0].names if n.outputs else (),
                ElementType.f32 if cast is not None else et,
                shape,
            )
            for (n, et, shape), cast in zip(params, self._input_casts, strict=True)
        )
        self._results = graph.kind_indices("Result")
        self._output_casts: list[ElementType | None] = []
        self._output_names: list[tuple[str, tuple[str, ...], ElementType]] = []
        used: set[str] = set()
        for r in self._results:
            result = graph.nodes[r]
            src = graph.sources[r][0]
            producer = graph.nodes[src.node]
            info = inference.outputs[src.node][src.output]
            names = set(result.output_names or producer.outputs[src.output].names)
            et = info.element_type
            if legacy:
                names.add(producer.name if len(producer.outputs) == 1 else f"{producer.name}.{src.output}")
                et = _v10_output_type(et)
            self._output_casts.append(et if et is not info.element_type else None)
            # OpenVINO's any_name: the smallest tensor name (save_model writes them sorted, so
            # this is also the first one in the file).
            name = min(names) if names else result.name
            if name in used:  # two Results of one tensor: the second goes by its layer name
                name = result.name
            used.add(name)
            self._output_names.append((name, tuple(sorted(names)), et))
        self._outputs: tuple[TensorDesc, ...] | None = None
        variables: dict[str, VariableDesc] = {}
        for i in graph.kind_indices("ReadValue"):
            vid = graph.nodes[i].attr("variable_id") or ""
            info = inference.outputs[i][0]
            variables.setdefault(vid, VariableDesc(vid, info.element_type, info.shape))
        self.variables: tuple[VariableDesc, ...] = tuple(variables.values())
        # Input names -> position: tensor names first (the names OpenVINO's API addresses inputs
        # by), then layer names no tensor name took; the first input wins a clash among either.
        self._input_keys: dict[str, int] = {}
        for k, desc in enumerate(self.inputs):
            for key in desc.names:
                self._input_keys.setdefault(key, k)
        for k, desc in enumerate(self.inputs):
            self._input_keys.setdefault(desc.name, k)
        # Per input, the shapes an array of exactly its dtype was accepted with (check_input
        # need not look at such an array again).
        self._accepted: list[set[tuple[int, ...]]] = [set() for _ in self.inputs]
        # share_outputs=True: per output, the buffer runs write it into (None until the first).
        self._shared: list[np.ndarray | None] = [None] * len(self._results)

    @property
    def outputs(self) -> tuple[TensorDesc, ...]:
        """The outputs (name, tensor names, element type, shape) as ``read_model`` reports them.

        Their shapes are inferred as ``read_model`` does (no value or bound passes a
        decompression Convert), which takes a second inference for a model with such
        Converts: done on first use, since running needs only the names.
        """
        if self._outputs is None:
            reported = self.inference
            if any(n.decompression for n in self.graph.nodes):
                shapes = {d.name: d.shape for d in self.inputs}
                reported = infer(self.graph, self.inference.plans, shapes, as_read_model=True)
            descs = []
            for (name, names, et), r in zip(self._output_names, self._results, strict=True):
                src = self.graph.sources[r][0]
                descs.append(TensorDesc(name, names, et, reported.outputs[src.node][src.output].shape))
            self._outputs = tuple(descs)
        return self._outputs

    def __repr__(self) -> str:
        ins = ", ".join(str(d) for d in self.inputs)
        outs = ", ".join(str(d) for d in self.outputs)
        return f"<ovonehot.Model {self.graph.name!r} inputs=[{ins}] outputs=[{outs}]>"

    def input_index(self, key: str) -> int:
        """Position of the input named ``key`` (Parameter name or any of its tensor names)."""
        k = self._input_keys.get(key)
        if k is not None:
            return k
        known = ", ".join(quote(d.name) for d in self.inputs[:20])
        if len(self.inputs) > 20:
            known += f" and {len(self.inputs) - 20} more"
        hint = did_you_mean(key, [d.name for d in self.inputs])
        raise InputError(f"the model has no input named {quote(key)}{hint}; its inputs are: {known}")

    def input_key(self, k: int) -> str:
        """A name that addresses input ``k`` and no other: its layer name, unless another input
        has that tensor name (a T5 export's decoder Parameter is called ``input_ids``, the
        encoder's tensor name), then one of its own tensor names."""
        desc = self.inputs[k]
        for key in (desc.name, *desc.names):
            if self._input_keys.get(key) == k:
                return key
        raise InputError(f"input {k} ({quote(desc.name)}) has no name of its own: other inputs take them all")

    def bind(self, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]) -> list[np.ndarray]:
        """Match and check user inputs; return one array per Parameter, in order."""
        bound: list[np.ndarray | None] = [None] * len(self.inputs)
        if isinstance(inputs, Mapping):
            for key, value in inputs.items():
                k = self.input_index(str(key))
                if bound[k] is not None:
                    raise InputError(f"input {self.inputs[k].name!r} is given twice")
                bound[k] = self._check_input(k, value)
        else:
            seq = list(inputs)
            if len(seq) != len(self.inputs):
                raise InputError(f"the model takes {len(self.inputs)} inputs, {len(seq)} were given")
            bound = [self._check_input(k, v) for k, v in enumerate(seq)]
        if any(b is None for b in bound):
            missing = [d.name for d, v in zip(self.inputs, bound, strict=True) if v is None]
            more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
            raise InputError(f"missing inputs: {', '.join(shorten(m) for m in missing[:20])}{more}")
        return bound  # type: ignore[return-value]  # every one bound

    def _check_input(self, k: int, value: object) -> np.ndarray:
        desc = self.inputs[k]
        if (
            type(value) is np.ndarray
            and value.shape in self._accepted[k]
            and value.dtype == desc.element_type.numpy_dtype
        ):
            return value
        checked = check_input(desc, value)
        if checked is value and len(self._accepted[k]) < 64:
            self._accepted[k].add(checked.shape)
        return checked

    def run(
        self,
        inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
        observer: Observer | None = None,
        share_outputs: bool = False,
        exact: bool = True,
        threads: int | None = None,
        override: Override | None = None,
    ) -> dict[str, np.ndarray]:
        """Run the model; results keyed by output name, in the IR's Result order.

        Stateless: a stateful model (ReadValue/Assign) starts every call from its initial
        state and forgets what Assign wrote.  To keep state across runs, use
        :meth:`create_request`.

        ``share_outputs=True`` (OpenVINO's ``InferRequest.infer(..., share_outputs=True)``):
        each output is an array the model keeps and reuses, so a run allocates no output
        (a OneHot writes straight into it).  The arrays stay valid only until the next
        ``run(..., share_outputs=True)`` of this model, which overwrites them in place
        (or replaces them when an output's shape or dtype changes): copy a result you
        want to keep.  Without it (the default) every run returns fresh arrays.

        ``exact=False`` trades exactness for speed: the ops that sum floats (MatMul, the
        reductions, MVN, Softmax, attention, ...) sum in NumPy's order and MatMul by BLAS
        instead of in OpenVINO's reference order, so float outputs may differ from the
        reference (and from ``exact=True``) by rounding; everything else is unchanged.

        ``threads``: the most threads the kernels use (NumPy's BLAS and OneHot's workers
        together; default ``OVONEHOT_NUM_THREADS``, else 1; never more than the cores
        available, see :mod:`ovonehot.threads`).

        ``override`` (diff's what-if runs): called before each node's kernel with the node's key,
        plan and inputs; the values it returns, when not None, stand for the node's outputs.

        One call at a time per Model: its plans and their records of checked shapes are shared
        by every call, so threads that run at once each load their own Model.
        """
        return self._run(inputs, observer, None, share_outputs, exact, threads, override)

    def create_request(self) -> Request:
        """A :class:`Request`: runs that keep the model's variables, like OpenVINO's InferRequest."""
        return Request(self)

    def _run(
        self,
        inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
        observer: Observer | None,
        variables: Variables | None,
        share_outputs: bool = False,
        exact: bool = True,
        threads: int | None = None,
        override: Override | None = None,
    ) -> dict[str, np.ndarray]:
        n_threads = resolve_threads(threads)  # (a bad number refused before any work)
        arrays = [
            a if cast is None else convert_array(a, cast)
            for a, cast in zip(self.bind(inputs), self._input_casts, strict=True)
        ]
        feeds = dict(zip(self._params, arrays, strict=True))
        mode = RunMode(
            exact=exact, variables=variables, observer=observer, override=override, threads=n_threads
        )
        if not share_outputs:
            values = evaluate(self.inference, feeds, mode)
            return {
                name: values[(r, 0)] if cast is None else convert_array(values[(r, 0)], cast)
                for (name, _, _), r, cast in zip(
                    self._output_names, self._results, self._output_casts, strict=True
                )
            }
        # Each Result's producer is offered its buffer (or none yet: a fresh array, which then
        # becomes the buffer); a value not written into its buffer is copied in.
        out = {
            r: self._shared[k]
            for k, (r, cast) in enumerate(zip(self._results, self._output_casts, strict=True))
            if cast is None
        }
        values = evaluate(self.inference, feeds, mode, out=out)
        shared = {}
        for k, ((name, _, _), r, cast) in enumerate(
            zip(self._output_names, self._results, self._output_casts, strict=True)
        ):
            value = values[(r, 0)] if cast is None else convert_array(values[(r, 0)], cast)
            buffer = self._shared[k]
            if (
                buffer is not None
                and buffer is not value
                and not (
                    buffer.shape == value.shape and buffer.dtype == value.dtype and buffer.flags.writeable
                )
            ):
                buffer = None
            if buffer is None:
                buffer = np.array(value, copy=True, order="C")
            elif buffer is not value:
                np.copyto(buffer, value, casting="no")
            self._shared[k] = buffer
            shared[name] = buffer
        return shared


class Request:
    """Runs of one model that keep its variables between them (OpenVINO's InferRequest with
    ``query_state``/``reset_state``): the way to run an LLM export with a KV cache step by step.

    Each :meth:`run` reads the variables as the previous runs left them (ReadValue) and
    stores what Assign computes for the next run.  A variable in its initial state (before
    the first run, or after :meth:`reset_state`) reads as its ReadValue's init input, or
    zeros of its ``variable_shape`` when there is none.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self._variables = Variables()

    def run(
        self,
        inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
        observer: Observer | None = None,
        share_outputs: bool = False,
        exact: bool = True,
        threads: int | None = None,
    ) -> dict[str, np.ndarray]:
        """Run one step; results keyed by output name as :meth:`Model.run` (``share_outputs``,
        ``exact`` and ``threads`` too: the buffers are the model's, overwritten by its next
        shared run, of any request)."""
        try:
            return self.model._run(inputs, observer, self._variables, share_outputs, exact, threads)
        finally:
            self._variables.pending.clear()  # a failed step changes no variable

    def query_state(self) -> dict[str, np.ndarray]:
        """``{variable_id: value}`` of every variable that holds a value (Assign wrote one, or
        :meth:`set_state`); a variable in its initial state is absent."""
        return dict(self._variables.values)

    def set_state(self, variable_id: str, value: np.ndarray) -> None:
        """Give a variable a value, checked against its type and shape (OpenVINO's ``state.state = t``)."""
        desc = next((v for v in self.model.variables if v.variable_id == variable_id), None)
        if desc is None:
            known = ", ".join(repr(v.variable_id) for v in self.model.variables) or "none"
            raise InputError(f"the model has no variable {variable_id!r}; its variables: {known}")
        td = TensorDesc(variable_id, (), desc.element_type, desc.shape)
        self._variables.values[variable_id] = check_input(td, value, what="variable")

    def reset_state(self, variable_id: str | None = None) -> None:
        """Put every variable (or one) back in its initial state."""
        if variable_id is None:
            self._variables.values.clear()
        else:
            self._variables.values.pop(variable_id, None)


def _v10_output_type(et: ElementType) -> ElementType:
    """The output type OpenVINO's IR frontend gives an IR v10 model output of type ``et``.

    IR v10 keeps the old Inference Engine conventions (checked on OpenVINO 2026.4 with
    ``Core.read_model``): i32 and f32 stay; i64, u32 and u64 become i32; every other type
    becomes f32.  f16 Parameters become f32 inputs.  Each output tensor is also named after
    its producer layer (``name``, or ``name.port`` for a multi-output layer).
    """
    if et in (ElementType.i32, ElementType.f32) or et in (ElementType.string, ElementType.dynamic):
        return et
    if et in (ElementType.i64, ElementType.u32, ElementType.u64):
        return ElementType.i32
    return ElementType.f32


def check_input(desc: TensorDesc, value: object, what: str = "input") -> np.ndarray:
    """``value`` as an array of the input's element type, or InputError.

    Exact dtypes pass.  Other dtypes pass only when the conversion is lossless and
    within one kind (integer to integer with every value in range, float to float
    with every value exactly representable); a float array for an integer input, a
    lossy narrowing, a wrong rank or a dim outside the declared interval is refused.
    """
    et = desc.element_type
    arr = np.asarray(value)
    where = f"{what} {quote(desc.name)} ({shorten(f'{et}{desc.shape}')})"
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
    # (float8_e5m2 is the one ml_dtypes type of kind "f", not "V": isbuiltin == 2 covers them all.)
    if arr.dtype.kind == "V" and target.isbuiltin == 2 and arr.dtype.itemsize == target.itemsize:
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
    if not same or (
        et in (ElementType.u1, ElementType.u3, ElementType.u6)
        and converted.size
        and int(converted.max()) >= (1 << et.bitwidth)
    ):
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
