"""A standalone bug-report script from a replay folder (``ovonehot repro DIR``).

The script needs only ``numpy`` and ``openvino``: the model (XML and weights), the
inputs and the expected outputs (ovonehot's, an independent NumPy evaluation) are
embedded in it as base64, so it can be attached to an upstream issue as is.  It runs
the model on the oracle the replay was made with (the CPU plugin with the same
configuration, or OpenVINO's core reference through ``Model.evaluate``), compares
each output with the expected values, and, for the CPU plugin, also with OpenVINO's
own reference when that can evaluate the model, which is what a maintainer asks
first.  Inputs and outputs are addressed by position (matched by their Parameter and Result
layer names where OpenVINO reports them), so outputs without tensor names work too.  Its exit
status means what it says: 0 no difference, 1 the difference reproduces, 2 it could not run
(any exception, one line: ``could not run: ...``).

Every value that comes from the replay folder (the manifest's oracles, source, verdicts,
versions; output names) reaches the script only as a Python literal made by
:func:`literal` (``repr`` of plain data, checked to be plain), never spliced into code
or a docstring by string formatting: a replay folder is something users exchange, and
running its script must run no code from it.

This module writes text; it never imports openvino.
"""

from __future__ import annotations

import base64
import io
import math
import textwrap
import zipfile
from pathlib import Path

import numpy as np

from ..differential.replay import Replay
from ..errors import InputError
from ..model import TensorDesc
from ..npyio import storable

# Above this many bytes of embedded data the script is no longer something to paste
# into an issue; ``reduce`` first.
EMBED_LIMIT = 8 << 20


def _b64(data: bytes) -> str:
    text = base64.b64encode(data).decode("ascii")
    return "\n".join(textwrap.wrap(text, 100)) if text else ""


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            item = io.BytesIO()
            np.save(item, storable(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))  # same bytes every run
            zf.writestr(info, item.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


_PLAIN = (str, int, float, bool, type(None))


def literal(value: object) -> str:
    """``value`` as a Python literal that evaluates to it and runs nothing: ``repr`` of
    strings, ints, finite floats, booleans, None, and lists/tuples/dicts of them (a float
    that is not finite has no literal: ValueError, as for anything else)."""
    _check_plain(value)
    return repr(value)


def _check_plain(value: object) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} has no Python literal")
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_plain(item)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_plain(k)
            _check_plain(v)
    elif type(value) not in _PLAIN:  # exactly these types: a str subclass could have its own repr
        raise ValueError(f"{type(value).__name__} is not plain data")


def _docstring(text: str) -> str:
    """``text`` as the script's docstring: one string literal per line, concatenated in
    parentheses (the parser joins them into one string), so it reads as text and holds any
    character as data."""
    lines = "".join(f"    {literal(line)}\n" for line in text.splitlines(keepends=True))
    return f"(\n{lines})"


def script_text(replay: Replay) -> str:
    """The script for ``replay`` (see the module docstring)."""
    manifest = replay.manifest
    oracles = list(manifest.get("oracles") or ["reference"])
    oracle = "reference" if "reference" in oracles and "cpu" not in oracles else "cpu"
    if "ours" not in replay.saved:
        raise InputError(
            f"{replay.folder}: the replay has no ours.npz (ovonehot's outputs): nothing to compare"
        )
    from ..differential.comparator import output_tolerances
    from ..model import load

    model = load(replay.xml, replay.bin)
    inputs = _by_position(replay.folder, "inputs.npz", replay.inputs, model.inputs)
    wanted = _by_position(replay.folder, "ours.npz", replay.saved["ours"], model.outputs)
    xml = replay.xml.read_bytes()
    weights = replay.bin.read_bytes() if replay.bin.is_file() else b""
    size = len(xml) + len(weights) + len(inputs) + len(wanted)
    if size > EMBED_LIMIT:
        raise InputError(
            f"{replay.folder}: {size} bytes of model and data are too many to embed in a script "
            f"(limit {EMBED_LIMIT}); shrink it first with ovonehot reduce"
        )
    per_output = output_tolerances(model, replay.tolerances)
    graph = model.graph
    values = {
        "oracle": oracle,
        "device": replay.plugin.device,
        "config": {k: str(v) for k, v in replay.plugin.config.items()},
        "refusal_is_finding": any(
            v.get("oracle") == replay.plugin.label and v.get("verdict") == "not compared"
            for v in manifest.get("verdicts", [])
        ),
        "input_layers": [graph.nodes[k].name for k in graph.kind_indices("Parameter")],
        "output_layers": [graph.nodes[k].name for k in graph.kind_indices("Result")],
        "names": [d.name for d in model.outputs],
        "tolerances": [(t.is_exact, t.atol, t.rtol) for t in (per_output[d.name] for d in model.outputs)],
    }
    try:
        literals = {k: literal(v) for k, v in values.items()}
    except ValueError as exc:
        raise InputError(f"{replay.folder}: cannot write its values into a script ({exc})") from None
    return _TEMPLATE.format(
        header=_docstring(_header(replay, oracle, oracles)),
        **literals,
        xml=_b64(xml),
        weights=_b64(weights),
        inputs=_b64(inputs),
        expected=_b64(wanted),
    )


def _by_position(
    folder: Path, what: str, arrays: dict[str, np.ndarray], descs: tuple[TensorDesc, ...]
) -> bytes:
    """``arrays`` (keyed by a model input's or output's name or any tensor name) as an archive
    keyed by position: ``0``, ``1``, ... in the model's order."""
    ordered = {}
    for k, desc in enumerate(descs):
        key = next((n for n in (desc.name, *desc.names) if n in arrays), None)
        if key is None:
            raise InputError(f"{folder}: {what} has no array for {desc.name!r} (it holds {sorted(arrays)})")
        ordered[str(k)] = arrays[key]
    return _npz_bytes(ordered)


def _header(replay: Replay, oracle: str, oracles: list[str]) -> str:
    manifest = replay.manifest
    verdicts = [v for v in manifest.get("verdicts", []) if v.get("verdict") != "PASS"]
    summary = "; ".join(f"{v['output']}: {v['verdict']} ({v['oracle']})" for v in verdicts) or "no difference"
    versions = manifest.get("versions") or {}
    reduced = manifest.get("reduced_from")
    origin = (
        f"reduced by ovonehot from {reduced['model']} ({reduced['ops_before']} ops to {reduced['ops_after']})"
        if reduced
        else f"from {manifest.get('source', replay.folder)}"
    )
    others = [o for o in oracles if o not in ("reference", "cpu")]
    note = (
        f"The replay compared against {', '.join(others)}, which this script does not run: it shows "
        f"what OpenVINO ({oracle}) computes.\n"
        if others and not {"reference", "cpu"} & set(oracles)
        else ""
    )
    return (
        f"OpenVINO reproducer: {summary}.\n\n"
        f"Model {origin}; made by ovonehot {versions.get('ovonehot', '?')} with OpenVINO "
        f"{versions.get('openvino', '?')}.\n{_ABOUT.format(oracle=oracle)}{note}"
    )


def write_script(replay: Replay, path: Path) -> Path:
    from ..npyio import write_text

    write_text(path, script_text(replay))
    return path


_ABOUT = """Needs only numpy and openvino. Runs the embedded model on OpenVINO ({oracle}) with the
embedded inputs and compares every output with the expected values (computed by
ovonehot, an independent NumPy implementation of OpenVINO's op specifications), and,
for the CPU plugin, with OpenVINO's own core reference (Model.evaluate) where it can
evaluate the model. Exit 0: no difference; 1: the difference reproduces; 2: it could not run.
"""

_TEMPLATE = '''#!/usr/bin/env python3
{header}

import base64
import io
import sys

try:
    import numpy as np
    import openvino as ov
except ImportError as exc:
    print(f"could not run: {{exc}} (this script needs numpy and openvino)")
    sys.exit(2)

ORACLE = {oracle}
DEVICE = {device}
CPU_CONFIG = {config}
# Whether the plugin refusing the model is the finding (the replay recorded that refusal).
REFUSAL_IS_FINDING = {refusal_is_finding}
# Inputs and outputs by position; OpenVINO's are matched by Parameter / Result layer name.
INPUT_LAYERS = {input_layers}
OUTPUT_LAYERS = {output_layers}
NAMES = {names}
# Per output: (exact, atol, rtol): floats bit for bit when exact, else |a - b| <= atol + rtol * |b|.
TOLERANCES = {tolerances}

MODEL_XML = base64.b64decode("""
{xml}
""")
MODEL_BIN = base64.b64decode("""
{weights}
""")
INPUTS_NPZ = base64.b64decode("""
{inputs}
""")
EXPECTED_NPZ = base64.b64decode("""
{expected}
""")


class CouldNotRun(Exception):
    """Something this script needs did not work: exit 2, not a finding."""


def load_npz(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return [archive[str(k)] for k in range(len(archive.files))]


def to_tensor(array, element_type):
    if array.dtype.kind == "V":  # bf16/f8 kept as raw bits
        tensor = ov.Tensor(element_type, list(array.shape))
        np.asarray(tensor.data).view(np.uint8)[...] = np.require(array, requirements="C").view(np.uint8)
        return tensor
    return ov.Tensor(np.require(array, requirements="C"))


def bits(array):
    """Floats (and raw bf16/f8 bytes) as unsigned integers of their width: compared bit for bit."""
    array = np.asarray(array)
    if array.dtype.kind in "biuOU":
        return array
    return array.view(np.dtype(f"u{{array.dtype.itemsize}}"))


def message(exc):
    """An exception's text on one line (OpenVINO's first lines only name source files)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " | ".join(lines)[-600:] or type(exc).__name__


def positions(ports, layers):
    """For each of OpenVINO's ports, the position of its array: by layer name, else in order."""
    found = [port.get_node().get_friendly_name() for port in ports]
    if sorted(found) == sorted(layers) and len(set(layers)) == len(layers):
        return [layers.index(name) for name in found]
    if len(ports) != len(layers):
        raise CouldNotRun(f"OpenVINO reads {{len(ports)}} ports where the replay has {{len(layers)}}")
    return list(range(len(ports)))


def shown(array, k, element_type):
    value = array.reshape(-1)[k]
    if element_type == ov.Type.bf16:  # the Python API hands bf16 out as raw bits
        bits = int(np.asarray(value).view(np.uint16))
        return f"{{np.array([bits << 16], np.uint32).view(np.float32)[0]!r}} (bf16 0x{{bits:04x}})"
    if array.dtype.kind == "f":
        bits = int(np.asarray(value).view(np.dtype(f"u{{array.dtype.itemsize}}")))
        return f"{{value!r}} (0x{{bits:0{{2 * array.dtype.itemsize}}x}})"
    return repr(value)


def compare(k, got, want, against, element_type):
    name = NAMES[k]
    exact, atol, rtol = TOLERANCES[k]
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.itemsize == want.dtype.itemsize and got.dtype != want.dtype:
        want = want.view(got.dtype)  # bf16/f8 kept as raw bits
    if got.shape != want.shape:
        print(f"{{name}}: shape {{list(got.shape)}} vs {{against}} {{list(want.shape)}}")
        return True
    if want.dtype.kind in "biuV" or exact:
        differs = bits(got).reshape(-1) != bits(want).reshape(-1)
    else:
        g, w = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
        differs = ~((np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w)))
    count = int(np.count_nonzero(differs))
    if not count:
        print(f"{{name}}: equal to {{against}}")
        return False
    first = np.flatnonzero(differs)[:5]
    where = [np.unravel_index(int(k), got.shape) if got.shape else () for k in first]
    print(f"{{name}}: {{count}} of {{got.size}} elements differ from {{against}}")
    for pos, k in zip(where, first):
        print(f"  at {{list(map(int, pos))}}: openvino {{shown(got, k, element_type)}}, "
              f"{{against}} {{shown(want, k, element_type)}}")
    if got.dtype.kind == "f" and element_type != ov.Type.bf16:
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        print(f"  max abs error {{np.nanmax(err):.6g}}")
    return True


def reference_outputs(model, tensors, expected, where):
    """OpenVINO's core reference (Model.evaluate), or None where it cannot evaluate the model."""
    try:
        outs = [ov.Tensor(o.get_element_type(), list(expected[k].shape)) for o, k in zip(model.outputs, where)]
        if model.evaluate(outs, tensors):
            return [np.array(t.data, copy=True) for t in outs]
        print("OpenVINO's core reference cannot evaluate this model (Model.evaluate returned false)")
    except Exception as exc:  # the core reference has no kernel for some op of the model
        print(f"OpenVINO's core reference cannot evaluate this model: {{message(exc)}}")
    return None


def plugin_outputs(core, model, tensors):
    """The plugin's outputs, or None when it refuses the model (printed)."""
    try:
        request = core.compile_model(model, DEVICE, CPU_CONFIG).create_infer_request()
        for k, t in enumerate(tensors):
            request.set_input_tensor(k, t)
        request.infer()
    except Exception as exc:
        print(f"the {{DEVICE}} plugin refuses the model: {{message(exc)}}")
        return None
    return [np.array(request.get_output_tensor(k).data, copy=True) for k in range(len(model.outputs))]


def main():
    core = ov.Core()
    model = core.read_model(model=MODEL_XML, weights=ov.Tensor(np.frombuffer(MODEL_BIN, np.uint8).copy()))
    inputs, expected = load_npz(INPUTS_NPZ), load_npz(EXPECTED_NPZ)
    tensors = [
        to_tensor(inputs[j], port.get_element_type())
        for port, j in zip(model.inputs, positions(model.inputs, INPUT_LAYERS))
    ]
    where = positions(model.outputs, OUTPUT_LAYERS)
    reference = reference_outputs(model, tensors, expected, where)
    if ORACLE == "cpu":
        got = plugin_outputs(core, model, tensors)
        if got is None and REFUSAL_IS_FINDING:
            print("expected: it runs (OpenVINO's core reference and ovonehot compute the outputs)")
            print("the difference reproduces: the plugin refuses the model")
            return 1
        if got is None:
            raise CouldNotRun(f"the {{DEVICE}} plugin refuses the model (the replay ran it)")
    elif reference is None:
        raise CouldNotRun("the core reference, this replay's oracle, cannot evaluate the model")
    else:
        got = reference
    differs = False
    for k, value in enumerate(got):
        element_type = model.outputs[k].get_element_type()
        differs |= compare(where[k], value, expected[where[k]], "expected (ovonehot)", element_type)
        if ORACLE == "cpu" and reference is not None:
            compare(where[k], value, reference[k], "OpenVINO core reference", element_type)
    print("the difference reproduces" if differs else "no difference: it does not reproduce here")
    return 1 if differs else 0


if __name__ == "__main__":
    try:
        status = main()
    except Exception as exc:  # exit 2: the script could not run, which is not a finding
        print(f"could not run: {{message(exc)}}")
        status = 2
    sys.exit(status)
'''
