"""OpenVINO as an oracle: the only ovonehot module that imports ``openvino``.

Two oracles run an IR file on NumPy inputs and give results keyed the way
:meth:`ovonehot.Model.run` keys them (an output's first tensor name, else its
Result layer name):

* :func:`reference_run`: OpenVINO's core reference.  The IR is read with
  ``Core.read_model`` and every node of ``get_ordered_ops()`` is computed with
  its own ``Node.evaluate`` (the code OpenVINO's constant folding uses):
  Parameters are fed, Constants evaluate to their data.  This is OpenVINO's
  definition of the op semantics, one node at a time, with no plugin.
  With ``partial`` it runs up to the ops it has no kernel for: only the
  outputs that depend on one are missing (``OracleOutputs.missing`` says which
  op refused), the others are computed.
* :func:`cpu_run`: the CPU plugin compiled deterministically
  (:data:`CPU_CONFIG`: one thread, one stream, f32 precision, accuracy mode), or
  with any configuration and device (``config``, ``device``).

Every refusal is an :class:`~ovonehot.errors.OracleRefusal` with a stable
``cause`` and the refusing layer (never only a message to be matched); what OpenVINO's
own exception text says comes as ``complaints`` (:mod:`.openvino_messages`, the one place
that reads it).

Tensors cross the boundary as raw bytes through :mod:`ovonehot.ir.payload`, so
every element type keeps its bits: bf16 (which the Python API hands back as
float16-typed raw bits), sub-byte packings, f8, strings.

``openvino`` is imported inside functions only; when it is missing or fails, an
:class:`~ovonehot.errors.OpenVINOError` (exit status 4) says so.  Core paths
(load, infer, run) never import this module.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Error, InputError, IRError, OpenVINOError, OracleRefusal, ParameterError
from ..graph import Graph
from ..ir import payload
from ..types import ElementType, PartialShape
from .common import CPU_CONFIG, Intermediates, OracleOutputs, Refusal, import_openvino
from .openvino_messages import complaints

__all__ = [
    "CPU_CONFIG",
    "Intermediates",
    "OracleOutputs",
    "cpu_run",
    "plugin_property",
    "reference_run",
    "run",
]


@dataclass(frozen=True, slots=True)
class _Loaded:
    model: Any  # ov.Model
    graph: Graph | None  # ovonehot's own reading, for output names; None if it cannot read it


# -- openvino, lazily ---------------------------------------------------------------------


def _openvino() -> Any:
    return import_openvino()


@functools.lru_cache(maxsize=1)
def _core() -> Any:
    return _openvino().Core()


def versions() -> str:
    """The installed OpenVINO's version string (``2026.4.1-22982-...``)."""
    return str(_openvino().get_version())


def resave(
    source_xml: str | os.PathLike[str], target_xml: str | os.PathLike[str], compress_to_fp16: bool
) -> None:
    """Read an IR with OpenVINO and write it back with ``save_model`` (``fuzz``'s OpenVINO writers).

    With ``compress_to_fp16`` f32 constants become f16 with a decompression Convert, as
    ``save_model`` does by default.  Any failure is an :class:`OpenVINOError`.
    """
    ov = _openvino()
    source = Path(source_xml)
    try:
        model = _core().read_model(str(source), str(source.with_suffix(".bin")))
        ov.save_model(model, str(target_xml), compress_to_fp16=compress_to_fp16)
    except Exception as exc:  # noqa: BLE001 - whatever OpenVINO raises is an OpenVINO failure
        raise OpenVINOError(f"OpenVINO could not re-save {source.name}: {_first_line(exc)}") from None


def _read(xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None) -> _Loaded:
    xml_path = Path(xml_path)
    if not xml_path.is_file():
        raise IRError(f"{xml_path}: no such file")
    if xml_path.suffix.lower() == ".onnx":
        return _read_onnx(xml_path)
    weights = Path(bin_path) if bin_path is not None else xml_path.with_suffix(".bin")
    try:
        if weights.is_file():
            model = _core().read_model(str(xml_path), str(weights))
        else:
            model = _core().read_model(str(xml_path))
    except RuntimeError as exc:
        raise OpenVINOError(f"{xml_path}: OpenVINO cannot read it: {_first_line(exc)}") from None
    graph: Graph | None
    try:
        from ..ir.reader import read_ir

        graph = read_ir(xml_path, bin_path)
    except Error:
        graph = None
    return _Loaded(model, graph)


def _read_onnx(path: Path) -> _Loaded:
    """An ONNX model as ovonehot runs it: the IR ``onnx_frontend.convert_onnx`` makes (OpenVINO's
    conversion with ovonehot's corrections), so both sides of a comparison compute one graph."""
    import numpy as np

    from ..ir.reader import read_ir_bytes
    from .onnx_frontend import convert_onnx

    xml, weights = convert_onnx(path)
    ov = _openvino()
    try:
        model = _core().read_model(
            xml.decode("utf-8"), ov.Tensor(np.frombuffer(weights, dtype=np.uint8).copy())
        )
    except RuntimeError as exc:
        raise OpenVINOError(f"{path}: OpenVINO cannot read its converted IR: {_first_line(exc)}") from None
    graph: Graph | None
    try:
        graph = read_ir_bytes(xml, weights, source=str(path))
    except Error:
        graph = None
    return _Loaded(model, graph)


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    # OpenVINO's messages start with "Exception from src/...cpp:N:" and a "Check ... failed" line;
    # the last non-empty line is usually the useful one.
    useful = [ln for ln in lines if not ln.startswith(("Exception from", "Check '"))]
    return " ".join(useful or lines)[:500]


# -- element types and tensors ------------------------------------------------------------


def element_type_of(ov_type: Any) -> ElementType:
    """ovonehot's ElementType for an ``openvino.Type``."""
    return ElementType.from_name(ov_type.get_type_name())


def _ov_type(et: ElementType) -> Any:
    return getattr(_openvino().Type, et.value)


def partial_shape_of(ov_shape: Any) -> PartialShape:
    """ovonehot's PartialShape for an ``openvino.PartialShape`` (via OpenVINO's own notation)."""
    return PartialShape.parse(str(ov_shape))


def to_tensor(et: ElementType, array: np.ndarray) -> Any:
    """An ``openvino.Tensor`` of type ``et`` holding ``array``'s values, bit for bit."""
    ov = _openvino()
    arr = np.asarray(array)
    if et is ElementType.string:
        return ov.Tensor(np.asarray(arr.astype(str) if arr.size else np.empty(arr.shape, dtype="<U1")))
    tensor = ov.Tensor(_ov_type(et), list(arr.shape))
    if arr.size == 0:
        return tensor
    raw = payload.encode(et, arr)
    dst = np.asarray(tensor.data).reshape(-1).view(np.uint8)
    if dst.size != len(raw):
        raise OpenVINOError(
            f"an {et} tensor of shape {list(arr.shape)} holds {dst.size} bytes, not {len(raw)}"
        )
    dst[:] = np.frombuffer(raw, dtype=np.uint8)
    return tensor


def from_tensor(tensor: Any) -> np.ndarray:
    """A fresh NumPy array (ovonehot's dtype for the element type) from an ``openvino.Tensor``.

    Reads raw bytes, so bf16 comes back as bf16, not as the float16-typed bits the
    Python API's ``.data`` shows.
    """
    et = element_type_of(tensor.get_element_type())
    shape = tuple(int(n) for n in tensor.get_shape())
    if et is ElementType.string:
        out = np.empty(shape, dtype=object)
        if out.size:
            out[...] = np.asarray(tensor.str_data, dtype=object).reshape(shape)
        return out
    if et.numpy_dtype is None:
        raise OpenVINOError(f"OpenVINO produced {et} values, which NumPy cannot hold")
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return np.empty(shape, dtype=et.numpy_dtype)
    raw = np.ascontiguousarray(np.asarray(tensor.data)).reshape(-1).view(np.uint8).tobytes()
    return np.array(payload.decode(et, shape, raw), copy=True)


# -- names --------------------------------------------------------------------------------


def _output_keys(loaded: _Loaded) -> list[str]:
    """Per OpenVINO Result (model order), the key ovonehot's Model.run gives that output:
    OpenVINO's own ``any_name`` (the smallest tensor name), else the Result's name; a second
    output with the same name goes by its Result's name."""
    keys = []
    used: set[str] = set()
    for output, res in zip(loaded.model.outputs, loaded.model.get_results(), strict=True):
        name = output.get_any_name() if output.get_names() else res.get_friendly_name()
        if name in used:
            name = res.get_friendly_name()
        used.add(name)
        keys.append(name)
    return keys


def _describe(node: Any) -> str:
    return f"layer name={node.get_friendly_name()!r} type={_op(node)}"


def _op(node: Any) -> str:
    return f"{node.get_type_name()}-{node.get_type_info().version_id}"


def _bind(model: Any, inputs: Mapping[str, np.ndarray]) -> list[tuple[ElementType, np.ndarray]]:
    """Per model Parameter (in order): its element type and the checked input array."""
    from ..model import TensorDesc, check_input

    params = list(model.get_parameters())
    bound: list[tuple[ElementType, np.ndarray] | None] = [None] * len(params)
    keys = [{p.get_friendly_name(), *p.output(0).get_names()} for p in params]
    for key, value in inputs.items():
        k = next((i for i, names in enumerate(keys) if key in names), None)
        if k is None:
            known = ", ".join(repr(p.get_friendly_name()) for p in params)
            raise InputError(f"the model has no input named {key!r}; its inputs are: {known}")
        p = params[k]
        et = element_type_of(p.get_element_type())
        desc = TensorDesc(
            p.get_friendly_name(),
            tuple(sorted(p.output(0).get_names())),
            et,
            partial_shape_of(p.get_partial_shape()),
        )
        bound[k] = (et, check_input(desc, value))
    missing = [p.get_friendly_name() for p, b in zip(params, bound, strict=True) if b is None]
    if missing:
        raise InputError(f"missing inputs: {', '.join(missing)}")
    return [b for b in bound if b is not None]


# -- the core reference -------------------------------------------------------------------


def reference_run(
    xml_path: str | os.PathLike[str],
    inputs: Mapping[str, np.ndarray],
    bin_path: str | os.PathLike[str] | None = None,
    keep_intermediates: bool = False,
    partial: bool = False,
) -> OracleOutputs:
    """Run the IR through OpenVINO's core reference, one ``Node.evaluate`` per node.

    Raises OracleRefusal naming the node when OpenVINO has no reference for it
    (``evaluate`` returns false, e.g. OneHot with i8 indices: cause ``no-evaluate``),
    when its evaluate fails (``failed``) or when the reference is known to crash the
    process (OneHot with string values: ``not-run``).  With ``partial``, a node that
    refuses makes only the outputs depending on it missing (``OracleOutputs.missing``).
    """
    loaded = _read(xml_path, bin_path)
    return _reference(loaded, inputs, keep_intermediates, partial)


def _reference(
    loaded: _Loaded, inputs: Mapping[str, np.ndarray], keep: bool, partial: bool = False
) -> OracleOutputs:
    ov = _openvino()
    model = loaded.model
    fed = _bind(model, inputs)
    _settle_shapes(ov, model, [a.shape for _, a in fed])
    feeds = {p.get_name(): to_tensor(et, a) for p, (et, a) in zip(model.get_parameters(), fed, strict=True)}
    # Python wrappers of nodes are fresh objects on every call: outputs are identified by the
    # node's unique internal name (get_name, not the friendly name) and the output index.
    values: dict[tuple[str, int], Any] = {}
    blocked: dict[str, Refusal] = {}  # node uid -> why it (or an op it depends on) was not computed
    intermediates: Intermediates = {}
    for node in model.get_ordered_ops():
        uid = node.get_name()
        if node.get_type_name() == "Parameter":
            outs = [feeds[uid]]
        else:
            sources = [inp.get_source_output().get_node().get_name() for inp in node.inputs()]
            upstream = next((blocked[u] for u in sources if u in blocked), None)
            if upstream is not None:
                blocked[uid] = upstream
                continue
            try:
                outs = _evaluate_node(
                    ov, node, [values[_source_key(inp.get_source_output())] for inp in node.inputs()]
                )
            except OracleRefusal as exc:
                if not partial:
                    raise
                blocked[uid] = Refusal.of(exc)
                continue
        for k, t in enumerate(outs):
            values[(uid, k)] = t
            if keep and node.get_type_name() != "Result":
                intermediates.setdefault((node.get_friendly_name(), k), from_tensor(t))
    results = {}
    missing = {}
    for key, res in zip(_output_keys(loaded), model.get_results(), strict=True):
        if res.get_name() in blocked:
            missing[key] = blocked[res.get_name()]
        else:
            results[key] = from_tensor(values[_source_key(res.input_value(0))])
    if not keep or not blocked:
        return OracleOutputs(results, intermediates, missing)
    by_name = {node.get_name(): node.get_friendly_name() for node in model.get_ordered_ops()}
    return OracleOutputs(results, intermediates, missing, {by_name[u]: r for u, r in blocked.items()})


def _settle_shapes(ov: Any, model: Any, shapes: Sequence[tuple[int, ...]]) -> None:
    """OpenVINO's shape inference of ``model`` on the fed shapes (``Model.reshape``), so that each
    output whose shape they settle is given to ``evaluate`` as a tensor of its value's size.  Some
    kernels write into the tensor they are given without resizing it: MVN-6 with a dynamic output
    got a one-element tensor and wrote the whole row past it (heap corruption: SIGSEGV, SIGABRT
    "munmap_chunk(): invalid pointer" on optimum-intel exports of OPT, Falcon, GPT-J, Phi, ...).
    A model whose shapes are static already is left alone, and so is one with a Parameter of
    dynamic rank (its nodes are evaluated as declared: the reference's refusals there, such as
    OneHot's negative axis, are findings of their own, ir/replays); one the reshape refuses keeps
    its declared shapes (``evaluate`` sizes what they leave open, as before)."""
    params = model.get_parameters()
    shapes_of = [p.get_partial_shape() for p in params]
    if all(ps.is_static for ps in shapes_of) or any(ps.rank.is_dynamic for ps in shapes_of):
        return
    with contextlib.suppress(RuntimeError, ValueError, TypeError):  # (OpenVINO restores the declared shapes)
        model.reshape({p.output(0): ov.PartialShape(list(s)) for p, s in zip(params, shapes, strict=True)})


def _evaluate_node(ov: Any, node: Any, args: list[Any]) -> list[Any]:
    """One ``Node.evaluate``; OracleRefusal naming the node when there is no kernel or it fails."""
    _refuse_known_crashes(node)
    outs = [ov.Tensor(o.get_element_type(), _shape_hint(o)) for o in node.outputs()]
    try:
        ok = node.evaluate(outs, args)
    except (RuntimeError, ValueError) as exc:  # (an integer division by zero comes as ValueError)
        raise OracleRefusal(
            f"OpenVINO's reference failed on {_describe(node)}: {_first_line(exc)}",
            "failed",
            node.get_friendly_name(),
            _op(node),
            complaints=complaints(str(exc)),
        ) from None
    if not ok:
        types = ", ".join(str(element_type_of(a.get_element_type())) for a in args)
        raise OracleRefusal(
            f"OpenVINO's reference has no evaluate for {_describe(node)} with input types ({types})",
            "no-evaluate",
            node.get_friendly_name(),
            _op(node),
            "no-reference-evaluate",
            f"input types ({types})",
        )
    return outs


def _source_key(output: Any) -> tuple[str, int]:
    return (output.get_node().get_name(), output.get_index())


def _shape_hint(output: Any) -> list[int]:
    ps = output.get_partial_shape()
    return [d.get_length() for d in ps] if ps.is_static else []


# Element types narrower than a byte: OpenVINO's OneHot kernel steps one byte per element
# (ov::reference::one_hot uses element_type.size(), which rounds up to 1), writing past the
# packed output buffer.  Running it corrupts memory, so neither oracle runs it.
SUB_BYTE_TYPES = frozenset(t for t in ElementType if t.bitwidth < 8 and t is not ElementType.dynamic)


def refusal(node: Any) -> str | None:
    """Why OpenVINO must not be run on ``node`` (it would crash or corrupt memory), or None."""
    known = _known_crash(node)
    return None if known is None else known[1]


def _known_crash(node: Any) -> tuple[str, str] | None:
    """(deviation code, why) when running ``node`` would crash OpenVINO or corrupt its memory."""
    if node.get_type_name() != "OneHot":
        return None
    out = element_type_of(node.get_output_element_type(0))
    if out is ElementType.string:
        return "string-one-hot", "OpenVINO's OneHot aborts the process on string values"
    if out in SUB_BYTE_TYPES:
        return (
            "sub-byte-one-hot",
            f"OpenVINO's OneHot writes {out} values one byte per element, past the packed output buffer",
        )
    return None


# Devices that stand for others (AUTO:CPU,GPU; HETERO:...): never in available_devices.
VIRTUAL_DEVICES = frozenset({"AUTO", "MULTI", "HETERO", "BATCH"})

NEGATIVE_DEPTH = "the CPU plugin does not check a negative OneHot depth and corrupts its heap"


def _refuse_negative_depth(model: Any, fed: Sequence[tuple[ElementType, np.ndarray]]) -> None:
    """A negative depth fed to the CPU plugin is not caught; the next compile then crashes the
    process (checked on 2026.4.1).  Depths fed straight from a Parameter are checked here;
    callers that compute a depth (ovonehot diff) check theirs before calling."""
    params = {p.get_name(): k for k, p in enumerate(model.get_parameters())}
    for node in model.get_ordered_ops():
        if node.get_type_name() != "OneHot":
            continue
        src = node.input_value(1).get_node()
        k = params.get(src.get_name())
        if k is None:
            continue
        depth = np.asarray(fed[k][1])
        if depth.dtype.kind == "i" and depth.size and int(depth.min()) < 0:
            raise OracleRefusal(
                f"not run: {NEGATIVE_DEPTH} (depth {int(depth.min())} fed to "
                f"{src.get_friendly_name()!r}, {_describe(node)})",
                "not-run",
                node.get_friendly_name(),
                _op(node),
                "negative-depth-unchecked",
                f"depth {int(depth.min())} fed to {src.get_friendly_name()!r}",
            )


def _refuse_known_crashes(node: Any) -> None:
    known = _known_crash(node)
    if known is not None:
        code, reason = known
        raise OracleRefusal(
            f"not run: {reason} ({_describe(node)})",
            "not-run",
            node.get_friendly_name(),
            _op(node),
            code,
            reason,
        )


# -- the CPU plugin -----------------------------------------------------------------------


def cpu_run(
    xml_path: str | os.PathLike[str],
    inputs: Mapping[str, np.ndarray],
    bin_path: str | os.PathLike[str] | None = None,
    keep_intermediates: bool = False,
    config: Mapping[str, Any] | None = None,
    device: str = "CPU",
) -> OracleOutputs:
    """Run the IR on the CPU plugin compiled with :data:`CPU_CONFIG` (one thread, f32, accuracy),
    or with ``config`` (``{}``: OpenVINO's defaults) on ``device``.

    With ``keep_intermediates`` every inner node output is made a model output too
    (which can change what the plugin fuses; the outputs proper are still returned).
    Compile and inference failures raise OracleRefusal (``refused``, ``failed``) with
    OpenVINO's message.
    """
    loaded = _read(xml_path, bin_path)
    return _cpu(loaded, inputs, keep_intermediates, dict(CPU_CONFIG if config is None else config), device)


def _cpu(
    loaded: _Loaded, inputs: Mapping[str, np.ndarray], keep: bool, config: dict[str, Any], device: str = "CPU"
) -> OracleOutputs:
    model = loaded.model
    for node in model.get_ordered_ops():
        _refuse_known_crashes(node)
    keys = _output_keys(loaded)
    n_results = len(keys)
    fed = _bind(model, inputs)
    _refuse_negative_depth(model, fed)
    if keep:
        # Every inner output becomes a model output (add_outputs skips those already one), but
        # an Assign's: a sink, the plugin refuses to compile one read ("Incorrect output port
        # number for node Assign_N": every stateful model's layer table was empty).
        extra = [
            node.output(k)
            for node in model.get_ordered_ops()
            if node.get_type_name() not in ("Result", "Parameter", "Constant", "Assign")
            for k in range(node.get_output_size())
        ]
        if extra:
            model.add_outputs(extra)
    inner = [
        (res.input_value(0).get_node().get_friendly_name(), res.input_value(0).get_index())
        for res in model.get_results()
    ]
    available = list(_core().available_devices)
    base = device.split(":")[0]
    if base not in VIRTUAL_DEVICES and base.split(".")[0] not in {d.split(".")[0] for d in available}:
        raise OracleRefusal(
            f"OpenVINO has no device {device!r} here (available: {', '.join(available)})", "unavailable"
        )
    try:
        compiled = _core().compile_model(model, device, config)
    except RuntimeError as exc:
        raise OracleRefusal(
            f"the {device} plugin refuses the model: {_first_line(exc)}",
            "refused",
            complaints=complaints(str(exc)),
        ) from None
    request = compiled.create_infer_request()
    try:
        for k, (et, arr) in enumerate(fed):
            request.set_input_tensor(k, to_tensor(et, arr))
        request.infer()
    except RuntimeError as exc:
        raise OracleRefusal(
            f"the {device} plugin failed to run the model: {_first_line(exc)}",
            "failed",
            complaints=complaints(str(exc)),
        ) from None
    outs = [from_tensor(request.get_output_tensor(k)) for k in range(len(compiled.outputs))]
    results = dict(zip(keys, outs[:n_results], strict=True))
    intermediates: Intermediates = {}
    if keep:
        for key, value in zip(inner, outs, strict=True):
            intermediates.setdefault(key, value)
    return OracleOutputs(results, intermediates)


def run(
    oracle: str,
    xml_path: str | os.PathLike[str],
    inputs: Mapping[str, np.ndarray],
    bin_path: str | os.PathLike[str] | None = None,
    keep_intermediates: bool = False,
    *,
    partial: bool = False,
    config: Mapping[str, Any] | None = None,
    device: str = "CPU",
) -> OracleOutputs:
    """``reference_run`` or ``cpu_run`` by name (``"reference"`` / ``"cpu"``); ``partial`` is the
    reference's, ``config`` and ``device`` the plugin's."""
    if oracle == "reference":
        return reference_run(xml_path, inputs, bin_path, keep_intermediates, partial)
    if oracle == "cpu":
        return cpu_run(xml_path, inputs, bin_path, keep_intermediates, config, device)
    raise ValueError(f"unknown oracle {oracle!r}; expected 'reference' or 'cpu'")


def check_plugin(device: str, overrides: Mapping[str, Any]) -> None:
    """A ParameterError (a usage error, exit 2) when the device is not here or an override is
    not a property the device takes (unknown, read-only, or a value it refuses): a wrong
    ``--device`` or ``--config`` is the command line's mistake, never a verdict on a model."""
    available = list(_core().available_devices)
    base = device.split(":")[0]
    if base not in VIRTUAL_DEVICES and base.split(".")[0] not in {d.split(".")[0] for d in available}:
        same = [d for d in available if d.upper() == base.upper()]
        case = f"; device names are case-sensitive: {same[0]}" if same else ""
        raise ParameterError(
            "device",
            f"OpenVINO has no such device here (available: {', '.join(available)}){case}",
            repr(device),
        )
    _check_device_id(base, available)
    if base in VIRTUAL_DEVICES or not overrides:
        return
    scratch_core = _openvino().Core()  # set on a core of its own: the oracles' core keeps its defaults
    # (a property set before the device's plugin is loaded is kept unchecked: load it first)
    scratch_core.get_property(device, "SUPPORTED_PROPERTIES")
    for key, value in overrides.items():
        try:
            scratch_core.set_property(device, {key: value})
        except (RuntimeError, TypeError) as exc:
            item = repr(f"{key}={value}")
            raise ParameterError(
                "config", f"the {device} plugin refuses it: {_first_line(exc)}", item
            ) from None


def _check_device_id(device: str, available: Sequence[str]) -> None:
    """``NAME.ID`` names one of the devices NAME's plugin has (``CPU.0``: the CPU plugin takes
    no device id, and refuses it only when a model is compiled)."""
    name, dot, ident = device.partition(".")
    if not dot or device in VIRTUAL_DEVICES or device in available:
        return
    try:
        ids = [str(i) for i in _core().get_property(name, "AVAILABLE_DEVICES")]
    except RuntimeError:
        return  # the plugin does not say: compiling will
    if ident not in ids:
        raise ParameterError(
            "device",
            f"OpenVINO's {name} plugin has no device {ident!r} here (available: {', '.join(available)})",
            repr(device),
        )


def plugin_property(device: str, key: str) -> str:
    """A device's default value of a property (``INFERENCE_PRECISION_HINT`` of ``CPU``: ``bf16`` on
    CPUs with AVX-512 BF16, else ``f32``), as text; empty when the device does not have it."""
    try:
        return str(_core().get_property(device, key))
    except RuntimeError:
        return ""


ORACLES: Sequence[str] = ("reference", "cpu")
