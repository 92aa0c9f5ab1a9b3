"""OpenVINO's PyTorch and TensorFlow layer tests, run through ovonehot and the CPU plugin.

A generator-side script (like ``scripts/onnx_node_suite.py``): it needs torch or TensorFlow
and OpenVINO, so it runs inside a generator venv (``/work/gen/torch`` or ``/work/gen/tf``,
with pytest installed there) and is never imported by the tests or by ``src/``.  None of
OpenVINO's code is in this repository: the test modules are imported, at run time, from an
OpenVINO checkout given by ``--ov`` (the checkout's root, or its ``tests/layer_tests``).

How a case runs.  pytest collects the layer test files of the checkout with this script as
a plugin, which puts its own stand-ins in place of the tests' common runner modules
(``pytorch_layer_test_class``, ``common.tf_layer_test_class``, ``common.utils.*``): the tests'
parametrization, ``create_model``/``create_*_net`` and ``_prepare_input`` are theirs, while
the stand-in ``_test`` does what OpenVINO's ``_test`` does and then more:

* PyTorch: the module is scripted or traced and converted exactly as the test's runner does
  (``TorchScriptPythonDecoder`` and the PyTorch frontend, or ``ov.convert_model`` when the
  test passes ``use_convert_model=True``), inputs made dynamic (or static) and typed as the
  runner does; the framework output is the scripted/traced module's.
* TensorFlow: the graph is written to ``model.pb`` and converted with ``ov.convert_model``
  (``input=`` from the test's ``input_shapes``/``input_names``); the framework output comes
  from a TF1 session on that ``.pb`` (outputs: nodes nobody consumes, as the runner picks them).

The converted model is saved as IR (``compress_to_fp16=False``, as the FP32 runs do), then

* the CPU plugin compiles that IR deterministically (1 thread, 1 stream, f32 hint, accuracy)
  and runs the test's inputs;
* ovonehot runs the same IR on the same inputs in a child process (its own interpreter,
  ``--ovonehot-python``, with ``src/`` on the path), under a timeout and an address-space
  limit, so a crash or a hang costs one side of one case.

Both are compared with the framework's output as the test compares (PyTorch: dtype, shape,
then ``np.isclose`` with atol = rtol = the test's ``custom_eps`` or 1e-4, NaN equal NaN, or the
quantized rule; TensorFlow: dtype, shape, then OpenVINO's ``allclose`` with the same eps).
Per case: CPU pass / wrong (the first difference) / refused (compile or infer error);
ovonehot pass / wrong / refused (the unsupported ``Type-opsetN`` named) / crashed (the error
line, or how the process died) / timeout; both ``conversion failed`` when OpenVINO cannot
convert the model; ``skipped`` / ``test error`` when the test itself skips or fails before
its ``_test``.

Usage (resumable: cases already in ``--out`` are not run again)::

    python scripts/layer_tests.py run --ov OV_CHECKOUT --framework pytorch --out lt-torch.jsonl \\
        [--filter REGEX] [--limit N] [--per-file K] [--jobs 1] [--timeout S] [--mem-mb M]
    python scripts/layer_tests.py summary lt-torch.jsonl lt-tf.jsonl
    python scripts/layer_tests.py export --ov OV_CHECKOUT --framework pytorch --case NODEID \\
        --name NAME      # writes ir/corpus/layer_tests/NAME/ (format: CORPUS_FORMAT)
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import json
import os
import pickle
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OVONEHOT_PYTHON = "/work/main/.venv/bin/python"

CPU_CONFIG = {
    "INFERENCE_NUM_THREADS": 1,
    "NUM_STREAMS": 1,
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
}

PASS, WRONG, REFUSED, CONVERSION_FAILED, CRASHED, TIMEOUT, SKIPPED, TEST_ERROR = (
    "pass",
    "wrong",
    "refused",
    "conversion failed",
    "crashed",
    "timeout",
    "skipped",
    "test error",
)
STATUSES = (PASS, WRONG, REFUSED, CONVERSION_FAILED, CRASHED, TIMEOUT, SKIPPED, TEST_ERROR)

_DEVICES = ("CPU", "GPU", "NPU")
TEST_DIRS = {"pytorch": "pytorch_tests", "tensorflow": "tensorflow_tests"}


def layer_tests_dir(ov: Path) -> Path:
    """``tests/layer_tests`` of an OpenVINO checkout (``ov`` is the checkout or that folder)."""
    for cand in (ov / "tests" / "layer_tests", ov):
        if (cand / "pytorch_tests").is_dir() or (cand / "tensorflow_tests").is_dir():
            return cand
    raise SystemExit(f"error: {ov} holds no tests/layer_tests/pytorch_tests or tensorflow_tests")


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:400]}"


# -- comparisons, as the runners compare ----------------------------------------------------


def compare_torch(
    fw: Sequence[np.ndarray], got: Sequence[np.ndarray], eps: float, quant_size: float | None
) -> str | None:
    """PytorchLayerTest's checks: output count, dtype, shape, then isclose(atol=rtol=eps, NaN==NaN)."""
    if len(fw) != len(got):
        return f"{len(got)} outputs, expected {len(fw)}"
    for i, (f, g) in enumerate(zip(fw, got, strict=True)):
        g = np.asarray(g)
        if f.dtype != g.dtype:
            return f"output {i}: dtype {g.dtype} != framework {f.dtype}"
        if f.shape != g.shape:
            return f"output {i}: shape {list(g.shape)} != framework {list(f.shape)}"
        if f.size == 0:
            continue
        if f.dtype == object or f.dtype.kind in "US":
            if f.tolist() != g.tolist():
                return f"output {i}: strings differ"
            continue
        with np.errstate(all="ignore"):
            close = np.isclose(g, f, atol=eps, rtol=eps, equal_nan=True)
            diff = np.abs(g.astype(np.float64) - f.astype(np.float64))
        if quant_size is not None:
            if np.nanmax(diff) > quant_size + eps:
                return f"output {i}: max diff {np.nanmax(diff):.6g} > one quant {quant_size} + {eps}"
            continue
        if not close.all():
            return _first_difference(i, f, g, close)
    return None


def _first_difference(i: int, f: np.ndarray, g: np.ndarray, close: np.ndarray) -> str:
    bad = np.argwhere(~np.asarray(close).reshape(f.shape)) if f.ndim else np.zeros((1, 0), int)
    at = tuple(int(k) for k in bad[0])
    n = int((~np.asarray(close)).sum())
    return (
        f"output {i}: {n} of {f.size} values differ, first at {list(at)}: "
        f"{g[at].item()!r} != framework {f[at].item()!r}"
    )


def ov_allclose(cur: np.ndarray, ref: np.ndarray, atol: float, rtol: float) -> bool:
    """OpenVINO layer tests' ``common_utils.allclose`` (strict <, no NaN equality; strings exact)."""
    if isinstance(ref, bytes):
        ref = np.array(ref.decode("utf-8"))
    if cur.dtype.kind in "USO" or ref.dtype.kind in "USO":
        return _texts(cur) == _texts(ref)
    with np.errstate(all="ignore"):
        diff = np.absolute(cur ^ ref) if cur.dtype == bool else np.absolute(cur - ref)
        top = np.maximum(np.absolute(cur), np.absolute(ref))
        return bool(((diff < atol) | (diff < rtol * top)).all())


def _texts(a: np.ndarray) -> list[str]:
    return [x.decode() if isinstance(x, bytes) else str(x) for x in np.asarray(a).reshape(-1)]


def compare_tf(fw: dict[str, np.ndarray], got: dict[str, np.ndarray], eps: float) -> str | None:
    """CommonTFLayerTest's checks per framework output: dtype, shape, then allclose(eps, eps)."""
    for name, f in fw.items():
        f = np.asarray(f)
        g = got.get(name)
        if g is None:
            if len(got) != 1:
                return f"no output named {name!r} (outputs: {', '.join(sorted(got))})"
            g = next(iter(got.values()))
        g = np.asarray(g)
        if not (f.dtype == g.dtype or g.dtype.kind in "USO"):
            return f"{name}: dtype {g.dtype} != framework {f.dtype}"
        if f.shape != g.shape:
            return f"{name}: shape {list(g.shape)} != framework {list(f.shape)}"
        if not ov_allclose(g, f, eps, eps):
            if g.dtype.kind in "biuf" and f.size:
                with np.errstate(all="ignore"):
                    diff = np.abs(g.astype(np.float64) - f.astype(np.float64))
                close = (diff < eps) | (diff < eps * np.maximum(np.abs(g), np.abs(f)))
                return _first_difference(0, f, g, close).replace("output 0", name, 1)
            return f"{name}: values differ"
    return None


# -- the two engines on one IR --------------------------------------------------------------


def cpu_run(xml: Path, feeds: list[Any]) -> tuple[list[np.ndarray], list[list[str]]]:
    """The CPU plugin, deterministic config, on the IR: outputs in Result order, their tensor names."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(str(xml))
    compiled = core.compile_model(model, "CPU", CPU_CONFIG)
    result = compiled(copy.deepcopy(feeds))
    outs = [np.asarray(result[compiled.output(i)]) for i in range(len(compiled.outputs))]
    return outs, [sorted(o.get_names()) for o in compiled.outputs]


def ovonehot_run(
    xml: Path, feeds: list[Any], python: str, timeout: float, mem_mb: int
) -> tuple[str, str, list[np.ndarray], list[str]]:
    """ovonehot on the IR in a child: (status, detail, outputs, ir op types). status: ran/refused/..."""
    work = xml.parent
    (work / "ovonehot_in.pkl").write_bytes(pickle.dumps([np.asarray(f) for f in feeds]))
    out = work / "ovonehot_out.pkl"
    out.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    limit = mem_mb * 1024 * 1024

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    cmd = [
        python,
        str(Path(__file__).resolve()),
        "_ovonehot",
        str(xml),
        str(work / "ovonehot_in.pkl"),
        str(out),
    ]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout, preexec_fn=cap, check=False)
    except subprocess.TimeoutExpired:
        return TIMEOUT, f"no result after {timeout:.0f} s", [], []
    if out.exists():
        record = pickle.loads(out.read_bytes())  # noqa: S301 - written by our own child just now
        return record["status"], record["detail"], record["outputs"], record["ir_ops"]
    err = done.stderr.decode(errors="replace").strip().splitlines()
    last = next((line for line in reversed(err) if line.strip()), "")
    how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
    return CRASHED, f"the process died ({how}){': ' + last[:300] if last else ''}", [], []


def ovonehot_child(xml: str, inputs: str, out: str) -> int:
    """Runs in ovonehot's interpreter: read, check support, infer, run; a pickled record at ``out``."""
    from ovonehot.infer import infer
    from ovonehot.ir.reader import read_ir
    from ovonehot.model import Model
    from ovonehot.ops import unsupported_types

    record: dict[str, Any] = {"status": "ran", "detail": "", "outputs": [], "ir_ops": []}
    try:
        graph = read_ir(xml)
        record["ir_ops"] = list(
            dict.fromkeys(
                n.type_version for n in graph.nodes if n.type not in ("Parameter", "Result", "Constant")
            )
        )
        missing = unsupported_types(graph)
        if missing:
            record.update(status=REFUSED, detail="unsupported " + ", ".join(missing))
        else:
            model = Model(graph, infer(graph), Path(xml))
            feeds = pickle.loads(Path(inputs).read_bytes())  # noqa: S301 - written by our own parent
            record["outputs"] = [np.asarray(v) for v in model.run(feeds).values()]
    except Exception as exc:  # noqa: BLE001 - any failure is this side's verdict, reported as one line
        record.update(status=CRASHED, detail=_first_line(exc))
    Path(out).write_bytes(pickle.dumps(record))
    return 0


# -- the stand-in runners (the plugin side) -------------------------------------------------


class Harness:
    """What the stand-in ``_test`` methods report to: one record per case, written as a JSON line."""

    def __init__(self, framework: str, log: Path, python: str, timeout: float, mem_mb: int) -> None:
        self.framework = framework
        self.log = log
        self.python = python
        self.timeout = timeout
        self.mem_mb = mem_mb
        self.case: str | None = None
        self.record: dict[str, Any] | None = None
        self.export: Path | None = (
            Path(os.environ["LAYER_TESTS_EXPORT"]) if "LAYER_TESTS_EXPORT" in os.environ else None
        )
        self.work: Path | None = None

    def note(self, rec: dict[str, Any]) -> None:
        with self.log.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(rec) + "\n")

    def begin(self, case: str) -> None:
        self.case, self.record = case, None
        self.work = Path(tempfile.mkdtemp(prefix="layer-test-"))
        self.note({"start": case, "t": time.time()})
        np.random.seed(0)
        with contextlib.suppress(ImportError):
            if self.framework == "pytorch":
                import torch

                torch.manual_seed(0)

    def end(self, outcome: str, detail: str) -> None:
        if self.record is None:  # the test never reached _test: skipped, or failed on its own
            status = SKIPPED if outcome == "skipped" else TEST_ERROR
            side = {"status": status, "detail": detail[:400]}
            self.record = {"cpu": side, "ovonehot": dict(side)}
        self.record.update(case=self.case, framework=self.framework)
        self.note({"result": self.record})
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        self.case, self.record = None, None

    def conversion_failed(self, exc: BaseException) -> None:
        side = {"status": CONVERSION_FAILED, "detail": _first_line(exc)}
        self._merge({"cpu": side, "ovonehot": dict(side)})

    def run_engines(
        self,
        xml: Path,
        feeds: list[Any],
        compare: Callable[[list[np.ndarray], list[list[str]]], str | None],
        eps: float,
        extra: dict[str, Any],
        fw_outputs: Any,
    ) -> None:
        """CPU and ovonehot on ``xml``; ``compare(outputs, names)`` checks one side against the framework."""
        feeds = _as_parameter_types(xml, feeds)
        cpu: dict[str, Any]
        names: list[list[str]] = []
        cpu_outs: list[np.ndarray] = []
        try:
            cpu_outs, names = cpu_run(xml, feeds)
        except Exception as exc:  # noqa: BLE001 - the plugin's refusal is its verdict
            cpu = {"status": REFUSED, "detail": _first_line(exc)}
        else:
            why = compare(cpu_outs, names)
            cpu = {"status": PASS if why is None else WRONG, "detail": why or ""}
        if not names:
            names = _output_names(xml)
        self.note({"phase": "ovonehot", "case": self.case, "t": time.time()})
        status, detail, outs, ir_ops = ovonehot_run(xml, feeds, self.python, self.timeout, self.mem_mb)
        ours: dict[str, Any] = {"status": status, "detail": detail}
        if status == REFUSED:
            ours["ops"] = detail.removeprefix("unsupported ").split(", ")
        if status == "ran":
            why = compare(outs, names)
            ours = {"status": PASS if why is None else WRONG, "detail": why or ""}
        record = {"cpu": cpu, "ovonehot": ours, "eps": eps, "ir_ops": ir_ops, **extra}
        first_failure = self.record is None or self.record["ovonehot"]["status"] == PASS
        self._merge(record)
        if self.export is not None and (first_failure or not (self.export / "case.pkl").exists()):
            self._export(xml, feeds, fw_outputs, cpu_outs, names)

    def _merge(self, record: dict[str, Any]) -> None:
        """A test that calls ``_test`` several times (one case, several models): each side keeps its
        first non-pass result, and the record says how many calls there were."""
        if self.record is None:
            self.record = {**record, "calls": 1}
            return
        self.record["calls"] = self.record.get("calls", 1) + 1
        for side in ("cpu", "ovonehot"):
            if self.record[side]["status"] == PASS and record[side]["status"] != PASS:
                self.record[side] = record[side]
        self.record["ir_ops"] = list(
            dict.fromkeys([*self.record.get("ir_ops", []), *record.get("ir_ops", [])])
        )

    def _export(
        self, xml: Path, feeds: list[Any], fw: Any, cpu: list[np.ndarray], names: list[list[str]]
    ) -> None:
        import openvino as ov

        assert self.export is not None and self.record is not None
        self.export.mkdir(parents=True, exist_ok=True)
        shutil.copy(xml, self.export / "model.xml")
        shutil.copy(xml.with_suffix(".bin"), self.export / "model.bin")
        model = ov.Core().read_model(str(xml))
        in_names = [
            p.get_any_name() if p.get_names() else p.get_node().get_friendly_name() for p in model.inputs
        ]
        out_names = []
        for o, r in zip(model.outputs, model.get_results(), strict=True):
            out_names.append(o.get_any_name() if o.get_names() else r.get_friendly_name())
        data = {
            "inputs": dict(zip(in_names, [np.asarray(f) for f in feeds], strict=True)),
            "framework": fw,
            "cpu": cpu,
            "output_names": out_names,
            "tensor_names": names,
            "record": self.record,
            "case": self.case,
        }
        (self.export / "case.pkl").write_bytes(pickle.dumps(data))


def _as_parameter_types(xml: Path, feeds: list[Any]) -> list[Any]:
    """Each input converted to its Parameter's element type, as OpenVINO's Python API converts
    silently (a TF test may feed float32 random integers to an i32 input); ovonehot's ``run``
    refuses a mismatched dtype by design, so both engines get the converted arrays."""
    import openvino as ov

    model = ov.Core().read_model(str(xml))
    out = []
    for item, value in zip(model.inputs, feeds, strict=False):
        arr = np.asarray(value)
        et = item.get_element_type()
        if et.is_dynamic() or arr.dtype.kind in "OUS" or et == ov.Type.string:
            out.append(value)
            continue
        target = np.dtype(et.to_dtype())
        out.append(arr.astype(target) if arr.dtype != target else value)
    return out + list(feeds[len(out) :])


def _output_names(xml: Path) -> list[list[str]]:
    import openvino as ov

    return [sorted(o.get_names()) for o in ov.Core().read_model(str(xml)).outputs]


HARNESS: Harness | None = None


def _harness() -> Harness:
    assert HARNESS is not None, "the layer-test stand-ins run only under scripts/layer_tests.py"
    return HARNESS


class _Random:
    """``self.random`` of newer PytorchLayerTest: a seeded NumPy generator taking ``dtype=``."""

    def __init__(self, seed: int = 0) -> None:
        self._rs = np.random.RandomState(seed)

    @staticmethod
    def _np(dtype: Any) -> Any:
        """NumPy's dtype for a NumPy or torch dtype (tests pass either)."""
        if type(dtype).__module__ == "torch":
            import torch

            return torch.empty(0, dtype=dtype).numpy().dtype
        return dtype

    def randint(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64) -> Any:
        return self._rs.randint(low, high, size).astype(self._np(dtype))

    def rand(self, *shape: int, dtype: Any = np.float32) -> Any:
        return self._rs.rand(*shape).astype(self._np(dtype))

    def randn(self, *shape: int, dtype: Any = np.float32) -> Any:
        return self._rs.randn(*shape).astype(self._np(dtype))

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = np.float32) -> Any:
        return self._rs.uniform(low, high, size).astype(self._np(dtype))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rs, name)


def _flatten(res: Any, kinds: tuple[type, ...]) -> list[Any]:
    out: list[Any] = []
    for item in res:
        if item is None:
            continue
        if isinstance(item, (list, tuple)) and type(item) in kinds:
            out.extend(_flatten(item, kinds))
        elif isinstance(item, dict) and dict in kinds:
            out.extend(_flatten(item.values(), kinds))
        else:
            out.append(item)
    return out


def _torch_runner_module() -> types.ModuleType:
    """The stand-in ``pytorch_layer_test_class``."""
    import pytest

    mod = types.ModuleType("pytorch_layer_test_class")

    class PytorchLayerTest:
        _type_map_names = (
            "float64",
            "float32",
            "bool",
            "int32",
            "int64",
            "int16",
            "int8",
            "uint8",
            "float16",
        )

        @property
        def random(self) -> _Random:
            if "_lt_random" not in self.__dict__:
                self.__dict__["_lt_random"] = _Random(0)
            return self.__dict__["_lt_random"]  # type: ignore[no-any-return]

        @staticmethod
        def use_torch_compile_backend() -> bool:
            return False

        @staticmethod
        def use_torch_export() -> bool:
            return False

        @staticmethod
        def _check_kind_exist(graph: Any, kind: str) -> bool:
            return PytorchKind.exists(graph, kind)

        def _prepare_input(self) -> Any:
            raise RuntimeError("Please provide inputs generation function")

        def _test(
            self,
            model: Any,
            ref_net: Any,
            kind: Any,
            ie_device: str,
            precision: str,
            ir_version: Any = None,
            infer_timeout: float = 60,
            dynamic_shapes: bool = True,
            **kwargs: Any,
        ) -> None:
            if isinstance(kind, str) and kind in _DEVICES:  # newer tests: _test(model, kind, device, ...)
                kind, precision = ref_net, ie_device
            run_torch_case(self, model, kind, precision, dynamic_shapes, kwargs)

    def skip_if_export(param: Any, reason: str = "Unsupported on torch.export") -> Any:
        return pytest.param(param, marks=pytest.mark.skipif(False, reason=reason))

    def skip_if_fx(param: Any, reason: str = "Unsupported on torch.fx") -> Any:
        return pytest.param(param, marks=pytest.mark.skipif(False, reason=reason))

    def get_params(ie_device: Any = None, precision: Any = None) -> list[tuple[str, str]]:
        return [("CPU", "FP32")]

    mod.PytorchLayerTest = PytorchLayerTest  # type: ignore[attr-defined]
    mod.skip_if_export = skip_if_export  # type: ignore[attr-defined]
    mod.skip_if_fx = skip_if_fx  # type: ignore[attr-defined]
    mod.skip_check = skip_if_export  # type: ignore[attr-defined]
    mod.get_params = get_params  # type: ignore[attr-defined]
    mod.flattenize = lambda res, kinds: _flatten(res, tuple(kinds))  # type: ignore[attr-defined]
    mod.flattenize_outputs = lambda res: _flatten(res, (list, tuple, dict))  # type: ignore[attr-defined]
    mod.flattenize_inputs = lambda res: _flatten(res, (tuple, dict))  # type: ignore[attr-defined]
    mod.flattenize_dict_outputs = lambda res, kinds: _flatten(res.values(), tuple(kinds))  # type: ignore[attr-defined]
    return mod


_TORCH_TYPES = {
    "float64": "f64",
    "float32": "f32",
    "bool": "boolean",
    "int32": "i32",
    "int64": "i64",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "float16": "f16",
}


def _convert_model(
    decoder: Any, torch_inputs: list[Any], ov_inputs: list[Any], trace: bool, dynamic: bool
) -> Any:
    """ov.convert_model as the runner's convert_via_mo calls it: an example input when traced, else
    inputs of dynamic shape (the inputs' own shapes unless ``dynamic``)."""
    import openvino as ov

    if trace:
        example = (
            torch_inputs if len(torch_inputs) > 1 or isinstance(torch_inputs[0], dict) else torch_inputs[0]
        )
        conv: dict[str, Any] = {"example_input": example}
    else:
        conv = {"input": [(i.dtype, ov.PartialShape([-1] * len(i.shape))) for i in torch_inputs]}
    if not dynamic:
        conv["input"] = [inp.shape for inp in ov_inputs]
    return ov.convert_model(decoder, **conv)


def run_torch_case(
    test: Any, model: Any, kind: Any, precision: str, dynamic: bool, kwargs: dict[str, Any]
) -> None:
    """The PyTorch runner's ``_test_impl``: convert as it does, then both engines against the framework."""
    import openvino as ov
    import torch
    from openvino.frontend import FrontEndManager
    from openvino.frontend.pytorch.ts_decoder import TorchScriptPythonDecoder

    h = _harness()
    prep = kwargs.get("kwargs_to_prepare_input")
    inputs = test._prepare_input(**prep) if prep else test._prepare_input()

    def to_torch(x: Any) -> Any:
        if isinstance(x, tuple):
            return tuple(to_torch(y) for y in x)
        if isinstance(x, dict):
            return {k: to_torch(v) for k, v in x.items()}
        return torch.from_numpy(x) if isinstance(x, np.ndarray) else x

    torch_inputs = [to_torch(x) for x in inputs]
    eps = kwargs.get("custom_eps") or 1e-4
    if precision != "FP32":
        eps = 5e-2
    ov_inputs = _flatten(inputs, (tuple, dict))
    trace = kwargs.get("trace_model", False)
    freeze = kwargs.get("freeze_model", True)
    # ov.convert_model (the runner's convert_via_mo: frontend + OpenVINO's MOC transformations, the
    # model users save) unless --conversion frontend asks for the runner's default bare-frontend path
    bare = os.environ.get("LAYER_TESTS_CONVERSION") == "frontend" and not kwargs.get("use_convert_model")
    way = "the PyTorch frontend (fe.convert)" if bare else "ov.convert_model"
    try:
        with torch.no_grad():
            if trace:
                decoder = TorchScriptPythonDecoder(model, example_input=torch_inputs, skip_freeze=not freeze)
            else:
                decoder = TorchScriptPythonDecoder(model, skip_freeze=not freeze)
            smodel = decoder.pt_module
            if not bare:
                om = _convert_model(decoder, torch_inputs, ov_inputs, trace, dynamic)
            else:
                fe = FrontEndManager().load_by_framework("pytorch")
                om = fe.convert(fe.load(decoder))
            _resolve_inputs(om, ov_inputs, dynamic)
    except Exception as exc:  # noqa: BLE001 - OpenVINO cannot convert: both sides' verdict
        h.conversion_failed(exc)
        return
    kinds = [] if kind is None else ([kind] if not isinstance(kind, (tuple, list)) else list(kind))
    missing_kind = [k for k in kinds if not PytorchKind.exists(smodel.inlined_graph, k)]
    assert h.work is not None
    xml = h.work / "model.xml"
    ov.save_model(om, str(xml), compress_to_fp16=False)
    with torch.no_grad():
        fw_res = smodel(*copy.deepcopy(torch_inputs))
    if not isinstance(fw_res, tuple):
        fw_res = (fw_res,)
    fw = []
    for r in _flatten(fw_res, (list, tuple, dict)):
        if isinstance(r, torch.Tensor):
            fw.append(r.contiguous().numpy(force=True))
        else:
            fw.append(torch.tensor(r).numpy())
    quant = kwargs.get("quant_size") if kwargs.get("quantized_ops") else None
    extra = {"kind": kinds, "converted_by": way, "missing_kind": missing_kind}
    h.run_engines(xml, ov_inputs, lambda outs, names: compare_torch(fw, outs, eps, quant), eps, extra, fw)


class PytorchKind:
    """Whether a TorchScript graph (or a block of it) holds a node of the given kind, as the runner checks."""

    @staticmethod
    def exists(graph: Any, kind: str) -> bool:
        for n in graph.nodes():
            if n.kind() == kind:
                return True
            if any(PytorchKind.exists(b, kind) for b in n.blocks()):
                return True
        return False


def _resolve_inputs(om: Any, ov_inputs: list[Any], dynamic: bool) -> None:
    """The runner's ``_resolve_input_shape_dtype``: list inputs to arrays (i64 -> i32), types, shapes."""
    import openvino as ov

    params = list(om.inputs)
    for i in range(len(ov_inputs)):
        inp = ov_inputs[i]
        if isinstance(inp, list):
            ov_inputs[i] = np.array(inp)
            if ov_inputs[i].dtype == np.int64:
                ov_inputs[i] = ov_inputs[i].astype(np.int32)
            inp = ov_inputs[i]
        assert inp.dtype.name in _TORCH_TYPES, f"Unknown type {inp.dtype}."
        node = params[i].get_node()
        if node.get_element_type().is_dynamic():
            node.set_element_type(getattr(ov.Type, _TORCH_TYPES[inp.dtype.name]))
        shape = [-1] * len(inp.shape) if dynamic else list(inp.shape)
        node.set_partial_shape(ov.PartialShape(shape))
    om.validate_nodes_and_infer_types()


def _tf_modules() -> dict[str, types.ModuleType]:
    """Stand-ins for the TF tests' ``common`` package: the runner classes and the utilities they use."""
    pkg = types.ModuleType("common")
    pkg.__path__ = []  # type: ignore[attr-defined]
    utils = types.ModuleType("common.utils")
    utils.__path__ = []  # type: ignore[attr-defined]
    tf_utils = types.ModuleType("common.utils.tf_utils")
    common_utils = types.ModuleType("common.utils.common_utils")
    runner = types.ModuleType("common.tf_layer_test_class")
    base = types.ModuleType("common.layer_test_class")

    def mix_array_with_value(input_array: np.ndarray, value: Any) -> np.ndarray:
        mask = np.random.randint(0, 2, input_array.shape).astype(bool)
        return np.where(mask, input_array, value)

    def mix_array_with_several_values(input_array: np.ndarray, values: Any, rng: Any) -> np.ndarray:
        if not len(values):
            return input_array
        mask = rng.integers(0, 2, input_array.shape).astype(bool)
        picks = rng.choice(np.asarray(values), input_array.shape).astype(input_array.dtype)
        return np.where(mask, input_array, picks)

    def save_to_pb(tf_model: Any, path: str, model_name: str = "model.pb") -> str:
        import tensorflow as tf

        tf.io.write_graph(tf_model, path, model_name, False)
        return str(Path(path) / model_name)

    def permute_nchw_to_nhwc(shape: Any, use_new_frontend: bool = True) -> Any:
        return shape

    def permute_nhwc_to_nchw(shape: Any, use_new_frontend: bool = True) -> Any:
        return shape

    tf_utils.mix_array_with_value = mix_array_with_value  # type: ignore[attr-defined]
    tf_utils.save_to_pb = save_to_pb  # type: ignore[attr-defined]
    tf_utils.mix_array_with_several_values = mix_array_with_several_values  # type: ignore[attr-defined]
    tf_utils.permute_nchw_to_nhwc = permute_nchw_to_nhwc  # type: ignore[attr-defined]
    tf_utils.permute_nhwc_to_nchw = permute_nhwc_to_nchw  # type: ignore[attr-defined]
    tf_utils.summarize_graph = lambda model_path, *a, **k: {"outputs": tf_outputs(model_path)}  # type: ignore[attr-defined]
    common_utils.allclose = ov_allclose  # type: ignore[attr-defined]

    class CommonTFLayerTest:
        input_model_key = "input_model"

        def _prepare_input(self, inputs_dict: dict[str, Any]) -> dict[str, Any]:
            for name, shape in inputs_dict.items():
                inputs_dict[name] = np.random.randint(-10, 10, shape).astype(np.float32)
            return inputs_dict

        def _test(
            self,
            framework_model: Any,
            ref_net: Any,
            ie_device: str,
            precision: str,
            ir_version: Any,
            temp_dir: Any = None,
            use_legacy_frontend: bool = False,
            infer_timeout: float = 60,
            **kwargs: Any,
        ) -> None:
            run_tf_case(self, framework_model, precision, kwargs)

    runner.CommonTFLayerTest = CommonTFLayerTest  # type: ignore[attr-defined]
    base.CommonLayerTest = CommonTFLayerTest  # type: ignore[attr-defined]
    base.check_ir_version = lambda left, right, ir_version: True  # type: ignore[attr-defined]
    pkg.tf_layer_test_class = runner  # type: ignore[attr-defined]
    pkg.layer_test_class = base  # type: ignore[attr-defined]
    pkg.utils = utils  # type: ignore[attr-defined]
    utils.tf_utils = tf_utils  # type: ignore[attr-defined]
    utils.common_utils = common_utils  # type: ignore[attr-defined]
    return {m.__name__: m for m in (pkg, utils, tf_utils, common_utils, runner, base)}


def tf_outputs(model_path: str) -> list[str]:
    """The nodes the TF runner reads as outputs: consumed by nobody, not a control input, not Const-like."""
    import tensorflow as tf

    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(Path(model_path).read_bytes())
    consumed: set[str] = set()
    for node in graph_def.node:
        for i in node.input:
            consumed.add(i.lstrip("^").split(":")[0])
    unlikely = {
        "Const",
        "Assign",
        "NoOp",
        "Placeholder",
        "Assert",
        "switch_t",
        "switch_f",
        "TensorArrayCloseV3",
    }
    return [
        n.name
        for n in graph_def.node
        if n.name not in consumed and n.op not in unlikely and n.name.split("/")[-1] not in unlikely
    ]


def run_tf_case(test: Any, graph_def: Any, precision: str, kwargs: dict[str, Any]) -> None:
    """CommonTFLayerTest._test: .pb -> ov.convert_model -> IR; TF1 session for the framework side."""
    import openvino as ov
    import tensorflow as tf

    h = _harness()
    assert h.work is not None
    if getattr(test, "tflite", False):
        raise _Skip("TFLite variant: not run by this harness")
    pb = h.work / "model.pb"
    tf.io.write_graph(graph_def, str(h.work), "model.pb", False)
    conv: dict[str, Any] = {}
    if "input_shapes" in kwargs and "input_names" in kwargs:
        conv["input"] = dict(zip(kwargs["input_names"], kwargs["input_shapes"], strict=True))
    elif "input_names" in kwargs:
        conv["input"] = kwargs["input_names"]
    elif "input_shapes" in kwargs:
        conv["input"] = kwargs["input_shapes"]
    xml = h.work / "model.xml"
    try:
        om = ov.convert_model(str(pb), **conv)
        ov.save_model(om, str(xml), compress_to_fp16=False)
    except Exception as exc:  # noqa: BLE001 - OpenVINO cannot convert: both sides' verdict
        h.conversion_failed(exc)
        return
    model = ov.Core().read_model(str(xml))
    info = _InputsInfo()
    for item in model.inputs:
        ps = item.partial_shape
        info.add(item.get_any_name(), item.get_names(), ps if ps.is_dynamic else ps.to_shape())
    prep = kwargs.get("kwargs_to_prepare_input")
    feeds = test._prepare_input(info, prep) if prep else test._prepare_input(info)
    # one value per input, whichever of its names the test used ('x' or 'x:0')
    ordered = _as_parameter_types(xml, [feeds[_fed_key(item, feeds)] for item in model.inputs])
    eps = kwargs.get("custom_eps") or (1e-4 if precision == "FP32" else 5e-2)
    # the framework: a TF1 session on the .pb, outputs as the runner picks them
    outputs = tf_outputs(str(pb))
    tf.compat.v1.reset_default_graph()
    with tf.compat.v1.Session() as sess:
        gd = tf.compat.v1.GraphDef()
        gd.ParseFromString(pb.read_bytes())
        tf.compat.v1.import_graph_def(gd, name="")
        tf_feeds = {
            _tf_tensor_name(item.get_any_name()): v for item, v in zip(model.inputs, ordered, strict=True)
        }
        values = sess.run([o + ":0" for o in outputs], tf_feeds)
    fw = {o + ":0": np.asarray(v) for o, v in zip(outputs, values, strict=True)}

    def compare(outs: list[np.ndarray], names: list[list[str]]) -> str | None:
        got: dict[str, np.ndarray] = {}
        for out, tensor_names in zip(outs, names, strict=False):
            for n in tensor_names:
                got[n] = out
        return compare_tf(fw, got, eps)

    h.run_engines(xml, ordered, compare, eps, {"converted_by": "ov.convert_model"}, fw)


class _Skip(Exception):
    pass


class _InputsInfo(dict[str, Any]):
    """``inputs_info`` for a TF test's ``_prepare_input``: one key per input (its ``get_any_name``,
    as the runner gives), but every tensor name of the input is accepted: tests of different
    OpenVINO versions ask for ``'x'`` or ``'x:0'``."""

    def __init__(self) -> None:
        super().__init__()
        self.aliases: dict[str, str] = {}

    def add(self, name: str, names: Any, shape: Any) -> None:
        self[name] = shape
        for alias in {name, *names}:
            self.aliases[alias] = name
            self.aliases.setdefault(alias.split(":")[0], name)
            if ":" not in alias:
                self.aliases.setdefault(alias + ":0", name)

    def __contains__(self, key: object) -> bool:
        return key in self.aliases

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(self.aliases.get(key, key))


def _fed_key(item: Any, feeds: dict[str, Any]) -> str:
    """The key under which the test fed this input: any of its tensor names, with or without ':0'."""
    aliases = {item.get_any_name(), *item.get_names()}
    aliases |= {a.split(":")[0] for a in aliases} | {a + ":0" for a in aliases if ":" not in a}
    key = next((k for k in feeds if k in aliases), None)
    if key is None:
        raise KeyError(f"the test fed no value for input {item.get_any_name()!r} (fed: {sorted(feeds)})")
    return key


def _tf_tensor_name(name: str) -> str:
    return name if ":" in name else name + ":0"


# -- the pytest plugin (child side) -----------------------------------------------------------


class Plugin:
    """Registers the stand-ins, provides the runners' fixtures, and reports each case's record."""

    def __init__(self, harness: Harness) -> None:
        self.h = harness

    def install(self, tests_dir: Path) -> None:
        if self.h.framework == "pytorch":
            sys.modules["pytorch_layer_test_class"] = _torch_runner_module()
        else:
            sys.modules.update(_tf_modules())
        sys.path.insert(0, str(tests_dir))

    import pytest as _pytest

    @_pytest.fixture
    def ie_device(self) -> str:
        return "CPU"

    @_pytest.fixture
    def precision(self) -> str:
        return "FP32"

    @_pytest.fixture
    def ir_version(self) -> int:
        return 11

    @_pytest.fixture
    def temp_dir(self, tmp_path: Path) -> str:
        return str(tmp_path)

    @_pytest.fixture
    def use_legacy_frontend(self) -> bool:
        return False

    @_pytest.fixture
    def use_new_frontend(self) -> bool:
        return True

    @_pytest.fixture
    def use_old_api(self) -> bool:
        return False

    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Iterator[None]:
        self.h.begin(item.nodeid)
        self._outcome = ("passed", "")
        yield
        self.h.end(*self._outcome)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.skipped and self._outcome[0] == "passed":
            if getattr(report, "wasxfail", None) is not None:
                reason = f"the test marks it xfail: {report.wasxfail}"
            elif isinstance(report.longrepr, tuple):
                reason = str(report.longrepr[2])
            else:
                reason = str(report.longrepr).strip().splitlines()[-1]
            self._outcome = ("skipped", reason)
        elif report.failed:
            text = str(report.longrepr).strip().splitlines()
            err = next((ln for ln in reversed(text) if ln.startswith("E ")), text[-1] if text else "")
            if "_Skip" in err:
                self._outcome = ("skipped", err.split("_Skip:", 1)[-1].strip())
            else:
                self._outcome = ("failed", f"{report.when}: {err[1:].strip()[:300]}")


def _seed_unseeded_generators() -> None:
    """``np.random.default_rng()`` without a seed (some test modules) gets seed 0: reruns repeat."""
    original = np.random.default_rng

    def seeded(seed: Any = None) -> np.random.Generator:
        return original(0 if seed is None else seed)

    np.random.default_rng = seeded  # type: ignore[assignment]


def pytest_child(framework: str, ov: Path, log: Path, args: list[str]) -> int:
    import pytest

    global HARNESS
    tests = layer_tests_dir(ov)
    test_dir = tests / TEST_DIRS[framework]
    python = os.environ.get("LAYER_TESTS_OVONEHOT_PYTHON", DEFAULT_OVONEHOT_PYTHON)
    timeout = float(os.environ.get("LAYER_TESTS_TIMEOUT", "120"))
    mem = int(os.environ.get("LAYER_TESTS_MEM_MB", "4096"))
    HARNESS = Harness(framework, log, python, timeout, mem)
    _seed_unseeded_generators()
    plugin = Plugin(HARNESS)
    plugin.install(test_dir)
    os.chdir(test_dir)
    base = ["-q", "-p", "no:cacheprovider", "--noconftest", "-p", "no:randomly", "--rootdir", str(test_dir)]
    base += ["-W", "ignore", "-o", "addopts=", "-o", "python_files=test_*.py"]
    return int(pytest.main(base + args, plugins=[plugin]))


# -- the driver -----------------------------------------------------------------------------


def collect(framework: str, ov: Path, python: str) -> list[str]:
    """Every case id (pytest node id relative to the test folder) of the framework's layer tests."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        log = Path(f.name)
    cmd = [python, str(Path(__file__).resolve()), "_pytest", framework, str(ov), str(log), "--collect-only"]
    test_dir = layer_tests_dir(ov) / TEST_DIRS[framework]
    files = sorted(p.name for p in test_dir.glob("test_*.py"))
    done = subprocess.run(cmd + files, capture_output=True, text=True, check=False)
    log.unlink(missing_ok=True)
    ids = [
        ln.strip() for ln in done.stdout.splitlines() if "::" in ln and not ln.startswith(("ERROR", "FAILED"))
    ]
    errors = [ln for ln in done.stdout.splitlines() if ln.startswith("ERROR ")]
    for e in errors:
        print(f"  collection: {e}", file=sys.stderr)
    return ids


def pick(ids: list[str], per_file: int, rx: str | None, limit: int | None) -> list[str]:
    """Breadth first: up to ``per_file`` cases of every file, spread evenly over its cases."""
    if rx:
        ids = [i for i in ids if re.search(rx, i)]
    by_file: dict[str, list[str]] = collections.defaultdict(list)
    for i in ids:
        by_file[i.split("::")[0]].append(i)
    chosen: list[str] = []
    for _file, cases in sorted(by_file.items()):
        if per_file <= 0 or per_file >= len(cases):
            chosen.extend(cases)
            continue
        step = len(cases) / per_file
        chosen.extend(cases[int(k * step)] for k in range(per_file))
    # interleave files so that a run cut short still covers every file
    rounds: dict[str, list[str]] = collections.defaultdict(list)
    for c in chosen:
        rounds[c.split("::")[0]].append(c)
    order: list[str] = []
    queues = [list(v) for _, v in sorted(rounds.items())]
    while any(queues):
        order.extend(q.pop(0) for q in queues if q)
    return order[:limit] if limit else order


def _run_chunk(
    framework: str, ov: Path, python: str, names: list[str], timeout: float, out: Path, lock: threading.Lock
) -> None:
    """Run ``names`` in pytest children until each has a record (a dead child costs one case).

    Each record is appended to ``out`` as soon as the child writes it, so a run stopped at any
    point keeps every finished case (resume skips them)."""
    todo = list(names)
    while todo:
        with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
            log = Path(f.name)
        cmd = [python, str(Path(__file__).resolve()), "_pytest", framework, str(ov), str(log), *todo]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        state = _ChunkState()
        killed = False
        while proc.poll() is None:
            time.sleep(0.5)
            _drain(log, state, out, lock)
            # the case's own budget: the framework, conversion, CPU, plus ovonehot's child timeout
            if state.current is not None and time.monotonic() - state.since > 2 * timeout + 60:
                proc.kill()
                killed = True
        proc.wait()
        _drain(log, state, out, lock)
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        log.unlink(missing_ok=True)
        todo = [n for n in todo if n not in state.done]
        current = state.current
        if current is not None and current in todo:
            last = [ln for ln in stderr.strip().splitlines() if ln.strip()][-1:]
            why = (
                "killed after the case's time budget"
                if killed
                else f"the pytest child died (exit {proc.returncode})"
            )
            detail = f"during {state.phase}: {why}" + (f": {last[0][:200]}" if last else "")
            dead = {"status": TIMEOUT if killed else CRASHED, "detail": detail}
            _append(out, lock, {"case": current, "framework": framework, "cpu": dead, "ovonehot": dict(dead)})
            todo.remove(current)
        elif todo and not state.done:
            print(
                f"  chunk ended with no result for {len(todo)} cases: {stderr.strip()[-300:]}",
                file=sys.stderr,
            )
            for n in todo:
                side = {"status": TEST_ERROR, "detail": "pytest did not run it (not collected)"}
                _append(out, lock, {"case": n, "framework": framework, "cpu": side, "ovonehot": dict(side)})
            todo = []


class _ChunkState:
    def __init__(self) -> None:
        self.seen = 0
        self.current: str | None = None
        self.phase = "framework"
        self.since = time.monotonic()
        self.done: set[str] = set()


def _drain(log: Path, state: _ChunkState, out: Path, lock: threading.Lock) -> None:
    """Read the child's new log lines: starts, phases, and records (appended to ``out`` at once)."""
    if not log.exists():
        return
    lines = log.read_text(encoding="utf-8").splitlines()
    complete = lines if log.read_bytes().endswith(b"\n") else lines[:-1]
    for line in complete[state.seen :]:
        rec = json.loads(line)
        if "start" in rec:
            state.current, state.phase, state.since = rec["start"], "framework", time.monotonic()
        elif "phase" in rec:
            state.phase = rec["phase"]
        elif "result" in rec:
            _append(out, lock, rec["result"])
            state.done.add(rec["result"]["case"])
            state.current = None
    state.seen = len(complete)


def _append(out: Path, lock: threading.Lock, rec: dict[str, Any]) -> None:
    with lock, out.open("a", encoding="utf-8") as sink:
        sink.write(json.dumps(rec) + "\n")


def read_results(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for p in paths:
        if not p.exists():
            continue
        for line in p.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                results[f"{rec['framework']}:{rec['case']}"] = rec
    return results


def cmd_run(args: argparse.Namespace) -> int:
    python = sys.executable
    os.environ["LAYER_TESTS_OVONEHOT_PYTHON"] = args.ovonehot_python
    os.environ["LAYER_TESTS_TIMEOUT"] = str(args.timeout)
    os.environ["LAYER_TESTS_MEM_MB"] = str(args.mem_mb)
    os.environ["LAYER_TESTS_CONVERSION"] = args.conversion
    ids = collect(args.framework, args.ov, python)
    print(f"collected {len(ids)} {args.framework} cases", file=sys.stderr)
    names = pick(ids, args.per_file, args.filter, None)
    have = read_results([args.out])
    names = [n for n in names if f"{args.framework}:{n}" not in have]
    if args.limit:
        names = names[: args.limit]
    print(f"running {len(names)} cases ({len(have)} already in {args.out})", file=sys.stderr)
    lock = threading.Lock()
    chunks = [names[i : i + args.chunk] for i in range(0, len(names), args.chunk)]
    queue = list(chunks)
    t0 = time.monotonic()

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                chunk = queue.pop(0)
            _run_chunk(args.framework, args.ov, python, chunk, args.timeout, args.out, lock)
            print(f"  chunk done, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (args.out.with_suffix(".collected.json")).write_text(json.dumps(ids), encoding="utf-8")
    return 0


# -- the summary ----------------------------------------------------------------------------


def cause(rec: dict[str, Any]) -> str:
    """A failure's cause as a group key: the refused op, or the detail with numbers blanked."""
    side = rec["ovonehot"]
    if side["status"] == REFUSED:
        return "refused: " + side["detail"].removeprefix("unsupported ")
    text = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", side["detail"])
    text = re.sub(r"'[^']*'", "'…'", text)
    return f"{side['status']}: {text[:160]}"


def summary(results: dict[str, dict[str, Any]]) -> str:
    lines: list[str] = []
    for fw in ("pytorch", "tensorflow"):
        recs = [r for r in results.values() if r["framework"] == fw]
        if not recs:
            continue
        files = {r["case"].split("::")[0] for r in recs}
        lines.append(f"## {fw}: {len(recs)} cases from {len(files)} test files")
        lines.append("")
        lines.append("| status | CPU plugin vs framework | ovonehot vs framework |")
        lines.append("|---|---:|---:|")
        cpu = collections.Counter(r["cpu"]["status"] for r in recs)
        ours = collections.Counter(r["ovonehot"]["status"] for r in recs)
        lines.extend(f"| {s} | {cpu[s]} | {ours[s]} |" for s in STATUSES if cpu[s] or ours[s])
        lines.append("")
        cpu_only = [r for r in recs if r["cpu"]["status"] == PASS and r["ovonehot"]["status"] != PASS]
        lines.append(f"CPU plugin passes, ovonehot does not: {len(cpu_only)} cases")
        lines.append("")
        groups: dict[str, list[str]] = collections.defaultdict(list)
        for r in cpu_only:
            groups[cause(r)].append(r["case"])
        for why, cases in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"- {len(cases)} x {why}")
            lines.extend(f"  - `{c}`" for c in cases[:4])
            if len(cases) > 4:
                lines.append(f"  - and {len(cases) - 4} more")
        lines.append("")
        refused = collections.Counter(
            op for r in recs if r["ovonehot"]["status"] == REFUSED for op in r["ovonehot"].get("ops", [])
        )
        lines.append(
            f"ovonehot refuses {len(refused)} op types: "
            + (", ".join(f"{op} ({n})" for op, n in refused.most_common()) or "none")
        )
        lines.append("")
        ours_only = [r for r in recs if r["ovonehot"]["status"] == PASS and r["cpu"]["status"] != PASS]
        lines.append(f"ovonehot matches the framework where the CPU plugin does not: {len(ours_only)} cases")
        lines.extend(
            f"- `{r['case']}`: CPU {r['cpu']['status']}: {r['cpu']['detail'][:200]}" for r in ours_only
        )
        lines.append("")
        both_fail = collections.Counter(
            cause({"ovonehot": r["cpu"]})
            for r in recs
            if r["cpu"]["status"] != PASS and r["ovonehot"]["status"] != PASS
        )
        lines.append(
            "Neither passes (CPU's cause): " + "; ".join(f"{n} x {w}" for w, n in both_fail.most_common(12))
        )
        lines.append("")
    return "\n".join(lines)


# -- export to the regression corpus ----------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(ROOT / "ir" / "exports"))
    from corpus_io import write_npz

    target = ROOT / "ir" / "corpus" / "layer_tests" / args.name
    with tempfile.TemporaryDirectory(prefix="layer-export-") as tmp:
        with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
            log = Path(f.name)
        env = {
            **os.environ,
            "LAYER_TESTS_EXPORT": tmp,
            "LAYER_TESTS_OVONEHOT_PYTHON": args.ovonehot_python,
        }
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "_pytest",
            args.framework,
            str(args.ov),
            str(log),
            args.case,
        ]
        subprocess.run(cmd, env=env, capture_output=True, check=False)
        log.unlink(missing_ok=True)
        case_file = Path(tmp) / "case.pkl"
        if not case_file.exists():
            raise SystemExit(f"error: {args.case} produced no converted model")
        data = pickle.loads(case_file.read_bytes())  # noqa: S301 - written by this script's own child
        rec = data["record"]
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        shutil.copy(Path(tmp) / "model.xml", target / "model.xml")
        shutil.copy(Path(tmp) / "model.bin", target / "model.bin")
    fw = data["framework"]
    if isinstance(fw, dict):  # TF: by tensor name -> the IR's output order
        fw = [
            next((fw[n] for n in names if n in fw), next(iter(fw.values())) if len(fw) == 1 else None)
            for names in data["tensor_names"]
        ]
    from_fw = rec["cpu"]["status"] == PASS and all(x is not None for x in fw)
    expected = fw if from_fw else data["cpu"]
    write_npz(target / "case.inputs.npz", data["inputs"])
    write_npz(target / "case.expected.npz", dict(zip(data["output_names"], expected, strict=True)))
    eps = float(rec.get("eps", 1e-4))
    test_file = args.case.split("::")[0]
    sub = TEST_DIRS[args.framework]
    if args.commit is None:
        listing = layer_tests_dir(args.ov) / "COMMITS.txt"
        known = (
            dict(ln.split() for ln in listing.read_text().splitlines() if ln.strip())
            if listing.exists()
            else {}
        )
        args.commit = known.get(f"{sub}/{test_file}", "unknown")
    meta: dict[str, Any] = {
        "generator": "ir/corpus/generate_layer_tests.py",  # (which calls this script's export)
        "source": (
            f"OpenVINO layer test {sub}/{args.case} (tests/layer_tests/{sub}/{test_file} at OpenVINO commit "
            f"{args.commit}), converted as the test does ({rec.get('converted_by', 'ov.convert_model')}) "
            "and saved with ov.save_model(compress_to_fp16=False); "
            f"`scripts/layer_tests.py export --framework {args.framework} --case '{args.case}' --name {args.name}`"
        ),
        "expected_from": "framework" if from_fw else "cpu",
        "tolerance": {"atol": eps, "rtol": eps},
        "stateful": False,
        "fast": True,
        "notes": (
            f"The layer test's own tolerance (atol = rtol = {eps}). "
            + (
                "Expected = the framework's output (the CPU plugin passes the case too)."
                if from_fw
                else f"The CPU plugin does not pass the case against the framework ({rec['cpu']['detail']}): "
                "expected = the CPU plugin's output."
            )
            + (f" {args.note}" if args.note else "")
        ),
    }
    # A case ovonehot fails today goes into tests/test_regression_corpus.py's XFAIL table (strict, with
    # the failure printed below as its reason) until the fix lands: the folder itself holds no verdict.
    (target / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(
        f"{target.relative_to(ROOT)}: cpu {rec['cpu']['status']}, ovonehot {rec['ovonehot']['status']}: {rec['ovonehot']['detail']}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_ovonehot"]:
        return ovonehot_child(*argv[1:4])
    if argv[:1] == ["_pytest"]:
        return pytest_child(argv[1], Path(argv[2]), Path(argv[3]), argv[4:])
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run layer-test cases, appending one JSON line per case to --out")
    run.add_argument("--ov", type=Path, required=True, help="OpenVINO checkout (or its tests/layer_tests)")
    run.add_argument("--framework", choices=sorted(TEST_DIRS), required=True)
    run.add_argument(
        "--out", type=Path, required=True, help="results (JSONL; cases already there are skipped)"
    )
    run.add_argument("--filter", default=None, help="only case ids matching this regex")
    run.add_argument("--limit", type=int, default=None, help="at most N cases this run")
    run.add_argument("--per-file", type=int, default=0, help="at most K cases per test file (0: all)")
    run.add_argument("--jobs", type=int, default=1, help="pytest children at once (default 1)")
    run.add_argument("--chunk", type=int, default=40, help="cases per pytest child (default 40)")
    run.add_argument("--timeout", type=float, default=120.0, help="seconds ovonehot may take on one case")
    run.add_argument("--mem-mb", type=int, default=4096, help="ovonehot child's address-space limit (MiB)")
    run.add_argument("--ovonehot-python", default=DEFAULT_OVONEHOT_PYTHON)
    run.add_argument(
        "--conversion",
        choices=("convert_model", "frontend"),
        default="convert_model",
        help="PyTorch: ov.convert_model (default) or the runner's default bare frontend (fe.convert)",
    )
    summ = sub.add_parser("summary", help="the summary (markdown) of result files")
    summ.add_argument("results", type=Path, nargs="+")
    exp = sub.add_parser("export", help="write one case as ir/corpus/layer_tests/NAME/")
    exp.add_argument("--ov", type=Path, required=True)
    exp.add_argument("--framework", choices=sorted(TEST_DIRS), required=True)
    exp.add_argument("--case", required=True, help="the case id (as in the results)")
    exp.add_argument("--name", required=True)
    exp.add_argument(
        "--commit",
        default=None,
        help="OpenVINO commit of the test file (default: from COMMITS.txt beside the test folders, "
        "lines 'pytorch_tests/test_x.py <sha>', when the checkout is assembled from several commits)",
    )
    exp.add_argument("--note", default="", help="a sentence for meta.json's notes")
    exp.add_argument("--ovonehot-python", default=DEFAULT_OVONEHOT_PYTHON)
    args = parser.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "summary":
        print(summary(read_results(args.results)))
        return 0
    return cmd_export(args)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
