"""Shared by the ir/corpus generators: save an IR, compute OpenVINO's expected outputs, write a folder.

Used only by ``ir/corpus/generate_*.py`` (run as scripts from any directory, in a generator venv
with OpenVINO); neither the project's runtime nor its tests import this file. OpenVINO is imported
inside functions. The folder format is described in ir/corpus/README.md:

    <group>/<name>/model.xml, model.bin          ov.save_model's IR (v11)
    <group>/<name>/<case>.inputs.npz             inputs keyed by the IR's input tensor names
    <group>/<name>/<case>.expected.npz           outputs keyed by output tensor name
    <group>/<name>/<case>.step<K>.{inputs,expected}.npz   stateful models, one pair per step
    <group>/<name>/meta.json                     generator, source, expected_from, tolerance, ...
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "ir" / "exports"))
from corpus_io import CPU_CONFIG, from_tensor, to_tensor, write_npz  # noqa: E402 - after sys.path.insert

__all__ = ["CPU_CONFIG", "Folder", "fold_decompression", "output_key", "write_npz"]


def output_key(port: Any, result: Any) -> str:
    """An output's key in the .npz: its smallest tensor name, else the Result layer's name."""
    names = port.get_names()
    return min(names) if names else result.get_friendly_name()


def _feed(request: Any, model: Any, inputs: Mapping[str, np.ndarray]) -> None:
    names = [p.get_any_name() for p in model.inputs]
    if sorted(names) != sorted(inputs):
        raise ValueError(f"inputs {sorted(inputs)} do not match the IR's {sorted(names)}")
    for k, p in enumerate(model.inputs):
        request.set_input_tensor(k, to_tensor(inputs[p.get_any_name()], p.get_element_type()))


def _outputs(request: Any, model: Any) -> dict[str, np.ndarray]:
    return {
        output_key(port, result): from_tensor(request.get_output_tensor(k))
        for k, (port, result) in enumerate(zip(model.outputs, model.get_results(), strict=True))
    }


def cpu_steps(model: Any, steps: Sequence[Mapping[str, np.ndarray]]) -> list[dict[str, np.ndarray]]:
    """Run ``model`` (an ov.Model or a path) on the CPU plugin compiled deterministically, step
    after step on one InferRequest (state carried over); outputs per step keyed by output name."""
    import openvino as ov

    core = ov.Core()
    if not isinstance(model, ov.Model):
        model = core.read_model(str(model))
    request = core.compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    results = []
    for inputs in steps:
        _feed(request, model, inputs)
        request.infer()
        results.append(_outputs(request, model))
    return results


def fold_decompression(model: Any) -> Any:
    """A copy of ``model`` (an ov.Model) with every subgraph computed from Constants only (NNCF's
    weight decompression Const -> Convert -> [Subtract zp] -> Multiply scale [-> Reshape -> Convert],
    f16 decompression Converts, constant shape arithmetic) replaced by one Constant holding what
    OpenVINO's reference (``Node.evaluate``) computes for it. The CPU plugin computes NNCF's f16
    decompression in f32; compiling the folded model gives the spec's result (see FACTS.md)."""
    import openvino as ov
    from openvino import opset13 as ops

    model = model.clone()
    folded = 0
    for node in model.get_ordered_ops():
        if node.get_type_name() in ("Constant", "Parameter", "Result", "ReadValue", "Assign"):
            continue
        if node.get_input_size() == 0 or node.get_output_size() != 1:
            continue
        sources = [node.input_value(i).get_node() for i in range(node.get_input_size())]
        if not all(s.get_type_name() == "Constant" for s in sources):
            continue
        feeds = [s.get_tensor_view() for s in sources]
        outs = [ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))]
        if not node.evaluate(outs, feeds) and not _evaluate_gather_widened(node, outs, feeds):
            continue
        const = ops.constant(outs[0], shared_memory=False)
        const.set_friendly_name(node.get_friendly_name() + "/folded")
        for target in list(node.output(0).get_target_inputs()):
            target.replace_source_output(const.output(0))
        folded += 1
    model.validate_nodes_and_infer_types()
    if folded == 0:
        raise RuntimeError("fold_decompression folded nothing")
    low = {"i8", "u8", "i4", "u4", "u3", "u2", "u1", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"}
    left = [
        f"{op.get_friendly_name()} ({op.get_output_element_type(0).get_type_name()})"
        for op in model.get_ops()
        if op.get_type_name() == "Constant" and op.get_output_element_type(0).get_type_name() in low
    ]
    if left:
        raise RuntimeError(f"decompression left unfolded (no reference kernel?): {', '.join(left[:5])}")
    return model


def _evaluate_gather_widened(node: Any, outs: list[Any], feeds: list[Any]) -> bool:
    """Gather with u8/u4 indices (NNCF's codebook formats index their table with them) has no
    ``Node.evaluate`` kernel; the same indices widened to i64 (exact: the values are unchanged)."""
    import openvino as ov

    if node.get_type_name() != "Gather" or feeds[1].element_type not in (ov.Type.u8, ov.Type.u4, ov.Type.i8):
        return False
    widened = ov.Tensor(np.array(_unpacked(feeds[1]), dtype=np.int64))
    return bool(node.evaluate(outs, [feeds[0], widened, *feeds[2:]]))


def _unpacked(tensor: Any) -> np.ndarray:
    """A u8/i8/u4 tensor's values as NumPy integers (u4: element 0 in the low nibble)."""
    import openvino as ov

    shape = tuple(tensor.shape)
    if tensor.element_type == ov.Type.u4:
        raw = np.asarray(tensor.data).view(np.uint8).reshape(-1)
        values = np.stack([raw & 0x0F, raw >> 4], axis=1).reshape(-1)
        return values[: int(np.prod(shape))].reshape(shape)
    return np.asarray(tensor.data).reshape(shape)


class Folder:
    """One corpus folder ``ir/corpus/<group>/<name>/``, rewritten from scratch."""

    def __init__(self, group: str, name: str, generator: str) -> None:
        self.path = HERE / group / name
        self.rel = f"{group}/{name}"
        self.generator = generator
        if self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True)
        self.xml = self.path / "model.xml"

    def save(self, model: Any, *, compress_to_fp16: bool = True) -> Any:
        """``ov.save_model`` to model.xml; returns the model as read back (what users load)."""
        import openvino as ov

        ov.save_model(model, str(self.xml), compress_to_fp16=compress_to_fp16)
        return ov.Core().read_model(str(self.xml))

    def input_names(self) -> list[str]:
        import openvino as ov

        return [p.get_any_name() for p in ov.Core().read_model(str(self.xml)).inputs]

    def case(self, case: str, inputs: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray]) -> None:
        write_npz(self.path / f"{case}.inputs.npz", inputs)
        write_npz(self.path / f"{case}.expected.npz", expected)

    def cpu_case(
        self, case: str, inputs: Mapping[str, np.ndarray], model: Any = None
    ) -> dict[str, np.ndarray]:
        """Store ``inputs`` and the CPU plugin's outputs for them (of ``model``, default the saved IR)."""
        out = cpu_steps(self.xml if model is None else model, [inputs])[0]
        self.case(case, inputs, out)
        return out

    def cpu_steps(
        self, case: str, steps: Sequence[Mapping[str, np.ndarray]], model: Any = None
    ) -> list[dict[str, np.ndarray]]:
        outs = cpu_steps(self.xml if model is None else model, steps)
        for k, (inputs, out) in enumerate(zip(steps, outs, strict=True), start=1):
            self.case(f"{case}.step{k}", inputs, out)
        return outs

    def meta(
        self,
        *,
        source: str,
        expected_from: str,
        atol: float,
        rtol: float,
        notes: str,
        stateful: bool = False,
        fast: bool = True,
        per_output: Mapping[str, tuple[float, float]] | None = None,
        fast_tolerance: tuple[float, float] | None = None,
    ) -> None:
        meta: dict[str, Any] = {
            "generator": self.generator,
            "source": source,
            "expected_from": expected_from,
            "tolerance": {"atol": atol, "rtol": rtol},
        }
        if per_output:
            meta["tolerance_per_output"] = {k: {"atol": a, "rtol": r} for k, (a, r) in per_output.items()}
        meta.update({"stateful": stateful, "fast": fast, "notes": notes})
        if fast_tolerance is not None:  # (runs with exact=False; tests/test_regression_corpus.py)
            meta["tolerance_fast"] = {"atol": fast_tolerance[0], "rtol": fast_tolerance[1]}
        (self.path / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        size = sum(p.stat().st_size for p in self.path.iterdir())
        print(f"{self.rel}: {size / 1024:.0f} KB, {describe(self.xml)}", flush=True)


def describe(xml: Path) -> str:
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    kinds: dict[str, int] = {}
    for op in model.get_ordered_ops():
        name = f"{op.get_type_name()}-{op.get_type_info().version_id}"
        kinds[name] = kinds.get(name, 0) + 1
    return ", ".join(f"{k}x{v}" if v > 1 else k for k, v in sorted(kinds.items()))


def max_diff(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> float:
    """Largest absolute difference over the float outputs both hold (NaN where both are NaN: 0)."""
    worst = 0.0
    for k, v in a.items():
        if k in b and np.asarray(v).dtype.kind == "f":
            x, y = np.atleast_1d(np.asarray(v, np.float64)), np.atleast_1d(np.asarray(b[k], np.float64))
            d = np.abs(x - y)
            d[np.isnan(x) & np.isnan(y)] = 0
            worst = max(worst, float(np.nanmax(d)) if d.size else 0.0)
    return worst


def hide_broken_torchvision() -> None:
    """The torchvision wheel beside the CPU torch in /work/gen/torch is a CUDA build whose C++ ops do
    not load; its import then fails registering fake kernels for them (``operator torchvision::nms does
    not exist``), and transformers and timm import torchvision. Skip that registration module: the
    Python parts of torchvision (models, ``ops.misc``) import, its C++ ops stay absent (see
    ``register_torchvision_ops`` for the ones the vision generator needs)."""
    import types

    sys.modules.setdefault(
        "torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations")
    )
    import torchvision  # noqa: F401 - imported for its op registrations


def patch_transformers_tracing() -> None:
    """transformers 5.5 (the newest optimum-intel 2.2 allows) mistakes the traced query length (a 0-d
    tensor under torch.jit.trace) for the deprecated ``cache_position`` argument in its mask
    functions (``q_length.shape[0]``: IndexError) and cannot be traced. Redefine those functions
    with the check limited to tensors of rank >= 1 (what cache_position is); nothing else changes."""
    import inspect
    import textwrap

    from transformers import masking_utils

    old_check = "if isinstance(q_length, torch.Tensor):"
    new_check = "if isinstance(q_length, torch.Tensor) and q_length.ndim > 0:"
    replaced = {}
    for name, fn in list(vars(masking_utils).items()):
        if inspect.isfunction(fn) and fn.__module__ == masking_utils.__name__:
            source = textwrap.dedent(inspect.getsource(fn))
            if old_check in source:
                exec(  # noqa: S102  # transformers source with one condition changed
                    compile(source.replace(old_check, new_check), masking_utils.__file__, "exec"),
                    vars(masking_utils),
                )
                replaced[fn] = vars(masking_utils)[name]
    registry = masking_utils.ALL_MASK_ATTENTION_FUNCTIONS
    for key, fn in list(registry._global_mapping.items()):
        if fn in replaced:
            registry._global_mapping[key] = replaced[fn]
