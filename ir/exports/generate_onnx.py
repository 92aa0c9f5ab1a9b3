"""Generate ir/exports/onnx/: ONNX models with OneHot, converted by OpenVINO's ONNX frontend.

Three sources of models:

* ONNX's own backend test cases for OneHot (``onnx.backend.test.case.node.onehot``): the node,
  inputs and expected outputs are taken from the onnx package; the model is rebuilt at opset 11
  (the package builds them at the newest OneHot, 28, which onnxruntime 1.31 refuses), and a few at
  opset 9.  The bf16 case needs OneHot-28 and stays there.
* Hand-built models for what the backend tests leave out: opset 9 vs 11, integer and float
  indices, depth as a graph input (a Parameter in the IR) and as an initializer (scalar, and the
  one-element vector tf2onnx writes), values as an initializer, int64 indices beyond int32.
* ``torch.onnx.export`` (the TorchScript exporter) of PyTorch modules using ``F.one_hot``, with
  dynamic axes, as ONNX users get them.

Each model is kept as ``<name>.onnx`` (ONNX IR version set to 8 for the models built here:
onnxruntime 1.31 refuses > 13), converted with ``ov.convert_model`` and saved as IR v11 with
``ov.save_model``.  Per input case the inputs and OpenVINO's CPU outputs (``corpus_io``) are stored,
plus ``<name>.<case>.onnxruntime.npz`` when onnxruntime implements the model (else
``<name>.<case>.onnx_reference.npz`` from ``onnx.reference.ReferenceEvaluator``), and
``<name>.<case>.backend.npz`` (ONNX's expected outputs) for the backend test cases.  Outputs in
those two files are keyed by ONNX output names.

    python ir/exports/generate_onnx.py
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_io import HERE, describe, input_names, save_ir, write_case, write_npz

OUT = HERE / "onnx"
ONNX_IR_VERSION = 8


@dataclass(frozen=True)
class Case:
    name: str
    inputs: dict[str, np.ndarray]
    backend: list[np.ndarray] | None = None  # ONNX backend test's expected outputs
    reference: bool = False  # outside the CPU plugin's envelope: store the core reference too


@dataclass(frozen=True)
class OnnxExport:
    name: str
    build: Callable[[], onnx.ModelProto]
    cases: Callable[[], list[Case]]


# ---------------------------------------------------------------------------------------------
# Building blocks


def one_hot_model(
    opset: int,
    inputs: list[onnx.ValueInfoProto],
    initializers: list[onnx.TensorProto],
    out_type: int,
    axis: int | None = None,
    name: str = "one_hot",
) -> onnx.ModelProto:
    """A single OneHot(indices, depth, values) -> y graph; the first input is ``indices``."""
    attrs = {} if axis is None else {"axis": axis}
    node = helper.make_node("OneHot", ["indices", "depth", "values"], ["y"], **attrs)
    rank = len(inputs[0].type.tensor_type.shape.dim) + 1
    output = helper.make_tensor_value_info("y", out_type, [None] * rank)
    graph = helper.make_graph([node], name, inputs, [output], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="ovonehot")
    model.ir_version = ONNX_IR_VERSION
    onnx.checker.check_model(model)
    return model


def tensor_input(name: str, elem_type: int, shape: list[int | str | None]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def init(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


# ONNX's backend test cases for OneHot, as the installed onnx package defines them.
def backend_cases() -> dict[
    str, tuple[onnx.NodeProto, list[np.ndarray], list[np.ndarray], list[onnx.ValueInfoProto]]
]:
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = collect_testcases("OneHot")
    cases = {}
    for case in found:
        if case.name.endswith("_expanded") or not case.name.startswith("test_onehot"):
            continue
        graph = case.model.graph
        ((inputs, outputs),) = case.data_sets
        cases[case.name.removeprefix("test_onehot_")] = (
            graph.node[0],
            list(inputs),
            list(outputs),
            list(graph.input),
        )
    return cases


_BACKEND = None


def backend(
    case_name: str,
) -> tuple[onnx.NodeProto, list[np.ndarray], list[np.ndarray], list[onnx.ValueInfoProto]]:
    global _BACKEND
    if _BACKEND is None:
        _BACKEND = backend_cases()
    return _BACKEND[case_name]


def backend_model(case_name: str, opset: int) -> onnx.ModelProto:
    """ONNX's backend test model for ``case_name``, rebuilt at ``opset``."""
    node, _, _, graph_inputs = backend(case_name)
    axis = next((a.i for a in node.attribute if a.name == "axis"), None)
    _, _, outputs, _ = backend(case_name)
    out_type = helper.np_dtype_to_tensor_dtype(outputs[0].dtype)
    return one_hot_model(opset, graph_inputs, [], out_type, axis, name=f"onehot_{case_name}")


def backend_case(case_name: str, *, expected: bool = True) -> list[Case]:
    _, inputs, outputs, graph_inputs = backend(case_name)
    feeds = {vi.name: np.asarray(value) for vi, value in zip(graph_inputs, inputs, strict=True)}
    return [Case("backend", feeds, outputs if expected else None)]


# ---------------------------------------------------------------------------------------------
# torch.onnx.export of F.one_hot modules (torch is needed by this generator only)


def torch_label_smoothing(opset: int) -> onnx.ModelProto:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class LabelSmoothing(nn.Module):
        def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            classes = logits.size(-1)
            soft = F.one_hot(target, classes).to(logits.dtype) * 0.9 + 0.1 / classes
            return -(soft * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()

    example = (torch.randn(3, 4), torch.tensor([0, 2, 1]))
    axes = {"logits": {0: "batch", 1: "classes"}, "target": {0: "batch"}}
    return _torch_export(LabelSmoothing(), example, ["logits", "target"], axes, opset)


def torch_segmentation(opset: int) -> onnx.ModelProto:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Segmentation(nn.Module):
        def forward(self, mask: torch.Tensor) -> torch.Tensor:
            return F.one_hot(mask, 5).permute(0, 3, 1, 2).float()

    example = (torch.randint(0, 5, (2, 3, 3)),)
    axes = {"mask": {0: "batch", 1: "height", 2: "width"}}
    return _torch_export(Segmentation(), example, ["mask"], axes, opset)


def _torch_export(module, example, names, axes, opset) -> onnx.ModelProto:  # type: ignore[no-untyped-def]
    import io

    import torch

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter is deprecated, still what many use
        torch.onnx.export(
            module,
            example,
            buffer,
            dynamo=False,
            opset_version=opset,
            input_names=names,
            output_names=["out"],
            dynamic_axes=axes,
        )
    return onnx.load_from_string(buffer.getvalue())


# ---------------------------------------------------------------------------------------------
# The corpus

RNG = np.random.default_rng(11)
F32, F16, I64, I32, U8, BOOL = (
    TensorProto.FLOAT,
    TensorProto.FLOAT16,
    TensorProto.INT64,
    TensorProto.INT32,
    TensorProto.UINT8,
    TensorProto.BOOL,
)


def int32_indices_case() -> dict[str, np.ndarray]:
    # [-7, 7) against depth 6: in range, wrapped negatives (-6..-1), and -7 / 6 out of range.
    return {"indices": RNG.integers(-7, 7, (2, 3, 4)).astype(np.int32)}


def label_smoothing_case() -> dict[str, np.ndarray]:
    return {"logits": (RNG.standard_normal((6, 7)) * 3).astype(np.float32), "target": RNG.integers(0, 7, 6)}


def _backend_export(case_name: str, opset: int, suffix: str = "") -> OnnxExport:
    # The backend's expected outputs follow OneHot-11 (negative indices wrap): at opset 9 only
    # cases without negative indices keep them as an expectation.
    _, inputs, _, _ = backend(case_name)
    expected = opset >= 11 or not (np.asarray(inputs[0]) < 0).any()
    return OnnxExport(
        f"backend_{case_name}{suffix}",
        lambda: backend_model(case_name, opset),
        lambda: backend_case(case_name, expected=expected),
    )


EXPORTS = [
    *(
        _backend_export(c, 11)
        for c in (
            "without_axis",
            "with_axis",
            "negative_indices",
            "out_of_range_indices",
            "with_negative_axis",
        )
    ),
    _backend_export("with_bfloat16_values", 28),  # bf16 values exist since OneHot-28 only
    _backend_export("with_axis", 9, "_opset9"),
    _backend_export("negative_indices", 9, "_opset9"),  # OneHot-9: negative indices stay off
    OnnxExport(
        "opset9_depth_input_int64",
        lambda: one_hot_model(
            9,
            [tensor_input("indices", I64, ["n", "m"]), tensor_input("depth", I64, [])],
            [init("values", np.array([0.0, 1.0], np.float32))],
            F32,
        ),
        lambda: [
            Case("typical", {"indices": RNG.integers(0, 5, (3, 4)), "depth": np.array(5)}),
            Case("depth_one", {"indices": np.array([[0, 1], [0, 0]]), "depth": np.array(1)}),
            # OneHot-9 leaves negative and >= depth indices all off (onnxruntime wraps negatives).
            Case("negative_and_large", {"indices": np.array([[0, -1, 4], [5, -5, 2]]), "depth": np.array(5)}),
        ],
    ),
    OnnxExport(
        "opset9_float16_indices_axis0",
        lambda: one_hot_model(
            9,
            [tensor_input("indices", F16, [5])],
            [init("depth", np.float32(4.0)), init("values", np.array([-1.0, 2.0], np.float32))],
            F32,
            axis=0,
        ),
        lambda: [Case("typical", {"indices": np.array([1, 3, 0, 2, 3], np.float16)})],
    ),
    OnnxExport(
        "opset11_depth_initializer_int32_indices",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", I32, [2, 3, 4])],
            [init("depth", np.int64(6)), init("values", np.array([-3, 7], np.int64))],
            I64,
            axis=1,
        ),
        lambda: [Case("typical", int32_indices_case())],
    ),
    OnnxExport(
        "opset11_depth_vector_tf_style",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", I64, ["batch", 3])],
            [init("depth", np.array([4], np.int32)), init("values", np.array([0.0, 1.0], np.float32))],
            F32,
            axis=-1,
        ),
        lambda: [Case("typical", {"indices": np.array([[0, 2, -1], [3, 4, -5], [1, 1, -4]])})],
    ),
    OnnxExport(
        "opset11_float_indices_truncation",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", F32, [8]), tensor_input("depth", F32, [])],
            [init("values", np.array([0.0, 1.0], np.float32))],
            F32,
        ),
        lambda: [
            # Cast to int64 truncates toward zero: 1.9 -> 1, -0.7 -> 0, -3.2 -> -3 -> 2; depth 5.9 -> 5.
            Case(
                "non_integer",
                {
                    "indices": np.array([1.9, -0.7, 2.5, -3.2, -10.5, 4.99, 5.0, -5.0], np.float32),
                    "depth": np.array(5.9, np.float32),
                },
            ),
            Case(
                "integer_valued",
                {
                    "indices": np.array([0, 1, 2, 3, 4, -1, -5, 5], np.float32),
                    "depth": np.array(5.0, np.float32),
                },
            ),
        ],
    ),
    OnnxExport(
        "opset11_bool_values",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", I64, [2, "n"])],
            [init("depth", np.int64(3)), init("values", np.array([False, True]))],
            BOOL,
            axis=-2,
        ),
        lambda: [Case("typical", {"indices": np.array([[0, 1, 2, 3], [-1, -2, -3, -4]])})],
    ),
    OnnxExport(
        "opset11_uint8_indices_f16_values",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", U8, [2, 5])],
            [init("depth", np.int64(10)), init("values", np.array([0.25, -1.5], np.float16))],
            F16,
            axis=0,
        ),
        lambda: [Case("typical", {"indices": np.array([[0, 9, 10, 255, 3], [1, 2, 200, 8, 9]], np.uint8)})],
    ),
    OnnxExport(
        "opset11_int64_indices_beyond_int32",
        lambda: one_hot_model(
            11,
            [tensor_input("indices", I64, [6])],
            [init("depth", np.int64(3)), init("values", np.array([0.0, 1.0], np.float32))],
            F32,
        ),
        lambda: [
            Case("in_int32", {"indices": np.array([0, 2, -1, -3, 2**31 - 1, -(2**31)])}),
            # The CPU plugin wraps i64 indices to i32 (2**32 + 1 -> 1): the core reference decides.
            Case(
                "beyond_int32",
                {"indices": np.array([2**32 + 1, 2**32 - 2, -(2**32) + 1, 1, 2**40, -(2**33)])},
                reference=True,
            ),
        ],
    ),
    OnnxExport(
        "torch_label_smoothing_opset9",
        lambda: torch_label_smoothing(9),
        lambda: [Case("typical", label_smoothing_case())],
    ),
    OnnxExport(
        "torch_label_smoothing_opset13",
        lambda: torch_label_smoothing(13),
        lambda: [Case("typical", label_smoothing_case())],
    ),
    OnnxExport(
        "torch_segmentation_opset11",
        lambda: torch_segmentation(11),
        lambda: [Case("typical", {"mask": RNG.integers(0, 5, (2, 4, 3))})],
    ),
]


# ---------------------------------------------------------------------------------------------


def run_onnxruntime(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray] | str:
    """onnxruntime's outputs keyed by ONNX output name, or why it cannot run the model."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(names, inputs), strict=True))
    except Exception as exc:  # noqa: BLE001 - report onnxruntime's refusal, keep generating
        return str(exc).splitlines()[0][:160]


def run_onnx_reference(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray] | str:
    """onnx.reference's outputs keyed by ONNX output name (where onnxruntime has no kernel), or why not.

    Known bug (docs/openvino-behaviour.md): it never sets a non-integer float index hot (ONNX says
    cast to int64).
    """
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(str(path))
    names = [o.name for o in model.graph.output]
    try:
        return dict(zip(names, ReferenceEvaluator(model).run(names, inputs), strict=True))
    except Exception as exc:  # noqa: BLE001 - e.g. bool values: it subtracts booleans
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"


def main() -> None:
    import openvino as ov

    OUT.mkdir(parents=True, exist_ok=True)
    for export in EXPORTS:
        model = export.build()
        onnx_path = OUT / f"{export.name}.onnx"
        onnx.save(model, str(onnx_path))
        xml = OUT / f"{export.name}.xml"
        save_ir(ov.convert_model(str(onnx_path)), xml)
        print(f"{xml.relative_to(HERE)} (opset {model.opset_import[0].version}): {describe(xml)}")
        names = input_names(xml)
        onnx_outputs = [o.name for o in model.graph.output]
        for case in export.cases():
            if sorted(names) != sorted(case.inputs):
                raise ValueError(f"{export.name}: case inputs {sorted(case.inputs)}, IR inputs {names}")
            expected = write_case(xml, case.name, case.inputs, reference=case.reference)
            stem = f"{xml.with_suffix('')}.{case.name}"
            ort_out = run_onnxruntime(onnx_path, case.inputs)
            notes = []
            if isinstance(ort_out, str):
                notes.append(f"onnxruntime: {ort_out}")
                ref_out = run_onnx_reference(onnx_path, case.inputs)
                if isinstance(ref_out, str):
                    notes.append(f"onnx.reference: {ref_out}")
                else:
                    write_npz(Path(f"{stem}.onnx_reference.npz"), ref_out)
                    notes.append(f"onnx.reference {'==' if _same(expected, ref_out) else '!='} openvino")
            else:
                write_npz(Path(f"{stem}.onnxruntime.npz"), ort_out)
                notes.append(f"onnxruntime {'==' if _same(expected, ort_out) else '!='} openvino")
            if case.backend is not None:
                backend_out = dict(zip(onnx_outputs, case.backend, strict=True))
                write_npz(Path(f"{stem}.backend.npz"), backend_out)
                notes.append(f"backend {'==' if _same(expected, backend_out) else '!='} openvino")
            print(f"  case {case.name}: {'; '.join(notes)}")


def _same(openvino_out: dict[str, np.ndarray], other: dict[str, np.ndarray]) -> bool:
    """Loose agreement for the log (dtype aside): values equal up to float rounding."""
    a = list(openvino_out.values())
    b = list(other.values())
    return len(a) == len(b) and all(
        x.shape == y.shape and np.allclose(x.astype(np.float64), y.astype(np.float64), rtol=1e-5, atol=1e-6)
        for x, y in zip(a, b, strict=True)
    )


if __name__ == "__main__":
    main()
