"""Shared by the export generators: save an IR, run it on OpenVINO's CPU plugin, write .npz files.

Used only by ``generate_torch.py`` and ``generate_onnx.py`` (run as scripts from any directory);
the project's runtime never imports this file.  OpenVINO is imported inside functions.

File layout of one corpus entry ``<family>/<model>``::

    <model>.xml, <model>.bin            the IR, written by ov.save_model (IR v11)
    <model>.<case>.inputs.npz           inputs keyed by the IR's input (tensor) names
                                        (bf16 arrays are stored as np.save stores them: raw |V2)
    <model>.<case>.openvino.npz         OpenVINO CPU outputs keyed by the Result layer names
    <model>.<case>.reference.npz        only for a case outside the CPU plugin's exact envelope:
                                        the core reference's outputs (``ov.Model.evaluate``)
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent

# The CPU plugin is deterministic and, within docs/openvino-behaviour.md's envelope, equal to the
# core reference when
# compiled like this (one thread, one stream, f32 inference, accuracy mode).
CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}

# A fixed timestamp makes the .npz bytes reproducible, so regenerating leaves git clean.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as a byte-reproducible .npz (deflated members, fixed timestamps, sorted keys)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            value = np.asarray(arrays[key])
            if value.dtype == object:
                raise TypeError(f"{path.name}: {key!r} is an object array; the corpus holds plain arrays")
            member = io.BytesIO()
            np.lib.format.write_array(member, value, allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, member.getvalue())
    path.write_bytes(buffer.getvalue())


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def save_ir(model: Any, xml: Path, *, compress_to_fp16: bool = True) -> Path:
    """``ov.save_model`` (IR v11; f32 constants compressed to f16 by default, as users get it)."""
    import openvino as ov

    xml.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(xml), compress_to_fp16=compress_to_fp16)
    return xml


def input_names(xml: Path) -> list[str]:
    """The IR's input names as OpenVINO reports them (``get_any_name``), in Parameter order."""
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    return [p.get_any_name() for p in model.inputs]


def _is_bf16(array: np.ndarray) -> bool:
    return array.dtype.name == "bfloat16" or (array.dtype.kind == "V" and array.dtype.itemsize == 2)


def to_tensor(array: np.ndarray, ov_type: Any) -> Any:
    """An ``ov.Tensor`` of ``ov_type`` holding ``array``; bf16 (ml_dtypes or raw ``|V2``) bit for bit."""
    import openvino as ov

    array = np.array(array, order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    if ov_type == ov.Type.bf16:
        if not _is_bf16(array):
            raise TypeError(f"a bf16 input needs bf16 (or raw |V2) values, got {array.dtype}")
        tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(array.shape)))
        tensor.data[...] = array.view(np.float16)  # the Python API shows bf16 as float16-typed bits
        return tensor
    return ov.Tensor(array)


def from_tensor(tensor: Any) -> np.ndarray:
    """A fresh array from an ``ov.Tensor``; bf16 comes back as ml_dtypes.bfloat16 (not raw f16 bits)."""
    import ml_dtypes
    import openvino as ov

    data = np.array(tensor.data, copy=True)
    if tensor.element_type == ov.Type.bf16:
        return data.view(np.uint16).view(ml_dtypes.bfloat16)
    return data


def run_openvino(xml: Path, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Read the saved IR back, compile it deterministically on CPU, infer; outputs by Result name."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    compiled = core.compile_model(model, "CPU", CPU_CONFIG)
    request = compiled.create_infer_request()
    names = [p.get_any_name() for p in model.inputs]
    if sorted(names) != sorted(inputs):
        raise ValueError(f"{xml.name}: inputs {sorted(inputs)} do not match the IR's {sorted(names)}")
    for k, p in enumerate(model.inputs):
        request.set_input_tensor(k, to_tensor(inputs[p.get_any_name()], p.get_element_type()))
    request.infer()
    return {
        result.get_friendly_name(): from_tensor(request.get_output_tensor(k))
        for k, result in enumerate(model.get_results())
    }


def run_reference(xml: Path, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The core reference over the whole graph (``ov.Model.evaluate``); outputs by Result name.

    Works for the ops whose core class implements ``evaluate`` (not LogSoftmax, for one).
    """
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    feeds = [to_tensor(inputs[p.get_any_name()], p.get_element_type()) for p in model.inputs]
    outs = [ov.Tensor(r.get_output_element_type(0), ov.Shape([0])) for r in model.get_results()]
    if not model.evaluate(outs, feeds):
        raise RuntimeError(f"{xml.name}: ov.Model.evaluate failed")
    return {r.get_friendly_name(): from_tensor(t) for r, t in zip(model.get_results(), outs, strict=True)}


def write_case(
    xml: Path, case: str, inputs: Mapping[str, np.ndarray], *, reference: bool = False
) -> dict[str, np.ndarray]:
    """Store ``inputs`` and OpenVINO's outputs for them beside ``xml``; return the expectation.

    ``reference``: the case is outside the CPU plugin's exact envelope; store the core
    reference's outputs too: they are the expectation (returned) for such a case.
    """
    names = input_names(xml)
    if sorted(names) != sorted(inputs):
        raise ValueError(f"{xml.name}: case {case!r} feeds {sorted(inputs)}, the IR takes {names}")
    outputs = run_openvino(xml, inputs)
    stem = xml.with_suffix("")
    write_npz(Path(f"{stem}.{case}.inputs.npz"), inputs)
    write_npz(Path(f"{stem}.{case}.openvino.npz"), outputs)
    if reference:
        outputs = run_reference(xml, inputs)
        write_npz(Path(f"{stem}.{case}.reference.npz"), outputs)
    return outputs


def describe(xml: Path) -> str:
    """One line per op type: a summary of what the saved IR holds, for the generator's log."""
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    kinds: dict[str, int] = {}
    for op in model.get_ordered_ops():
        name = f"{op.get_type_name()}-{op.get_type_info().version_id}"
        kinds[name] = kinds.get(name, 0) + 1
    return ", ".join(f"{k}x{v}" if v > 1 else k for k, v in sorted(kinds.items()))
