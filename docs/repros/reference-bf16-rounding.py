#!/usr/bin/env python3
(
    'OpenVINO reproducer: out: plugin deviation (reference).\n'
    '\n'
    'Model from /tmp/tmpm5feaf5f/reference-bf16-rounding.xml; made by ovonehot 0.1.0 with OpenVINO 2026.4.1-22982-e213a147257-releases/2026/4.\n'
    'Needs only numpy and openvino. Runs the embedded model on OpenVINO (reference) with the\n'
    'embedded inputs and compares every output with the expected values (computed by\n'
    "ovonehot, an independent NumPy implementation of OpenVINO's op specifications), and,\n"
    "for the CPU plugin, with OpenVINO's own core reference (Model.evaluate) where it can\n"
    'evaluate the model. Exit 0: no difference; 1: the difference reproduces; 2: it could not run.\n'
)

import base64
import io
import sys

try:
    import numpy as np
    import openvino as ov
except ImportError as exc:
    print(f"could not run: {exc} (this script needs numpy and openvino)")
    sys.exit(2)

ORACLE = 'reference'
DEVICE = 'CPU'
CPU_CONFIG = {'INFERENCE_NUM_THREADS': '1', 'NUM_STREAMS': '1', 'INFERENCE_PRECISION_HINT': 'f32', 'EXECUTION_MODE_HINT': 'ACCURACY'}
# Whether the plugin refusing the model is the finding (the replay recorded that refusal).
REFUSAL_IS_FINDING = False
# Inputs and outputs by position; OpenVINO's are matched by Parameter / Result layer name.
INPUT_LAYERS = ['x']
OUTPUT_LAYERS = ['Result_3']
NAMES = ['out']
# Per output: (exact, atol, rtol): floats bit for bit when exact, else |a - b| <= atol + rtol * |b|.
TOLERANCES = [(True, 0.0, 0.0)]

MODEL_XML = base64.b64decode("""
PD94bWwgdmVyc2lvbj0iMS4wIj8+CjxuZXQgbmFtZT0ibSIgdmVyc2lvbj0iMTEiPgoJPGxheWVycz4KCQk8bGF5ZXIgaWQ9IjAi
IG5hbWU9IngiIHR5cGU9IlBhcmFtZXRlciIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgc2hhcGU9IjQiIGVsZW1lbnRfdHlw
ZT0iZjMyIiAvPgoJCQk8b3V0cHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iRlAzMiIgbmFtZXM9IngiPgoJCQkJCTxk
aW0+NDwvZGltPgoJCQkJPC9wb3J0PgoJCQk8L291dHB1dD4KCQk8L2xheWVyPgoJCTxsYXllciBpZD0iMSIgbmFtZT0iQ29udmVy
dF8yIiB0eXBlPSJDb252ZXJ0IiB2ZXJzaW9uPSJvcHNldDEiPgoJCQk8ZGF0YSBkZXN0aW5hdGlvbl90eXBlPSJiZjE2IiAvPgoJ
CQk8aW5wdXQ+CgkJCQk8cG9ydCBpZD0iMCIgcHJlY2lzaW9uPSJGUDMyIj4KCQkJCQk8ZGltPjQ8L2RpbT4KCQkJCTwvcG9ydD4K
CQkJPC9pbnB1dD4KCQkJPG91dHB1dD4KCQkJCTxwb3J0IGlkPSIxIiBwcmVjaXNpb249IkJGMTYiIG5hbWVzPSJvdXQiPgoJCQkJ
CTxkaW0+NDwvZGltPgoJCQkJPC9wb3J0PgoJCQk8L291dHB1dD4KCQk8L2xheWVyPgoJCTxsYXllciBpZD0iMiIgbmFtZT0iUmVz
dWx0XzMiIHR5cGU9IlJlc3VsdCIgdmVyc2lvbj0ib3BzZXQxIiBvdXRwdXRfbmFtZXM9Im91dCI+CgkJCTxpbnB1dD4KCQkJCTxw
b3J0IGlkPSIwIiBwcmVjaXNpb249IkJGMTYiPgoJCQkJCTxkaW0+NDwvZGltPgoJCQkJPC9wb3J0PgoJCQk8L2lucHV0PgoJCTwv
bGF5ZXI+Cgk8L2xheWVycz4KCTxlZGdlcz4KCQk8ZWRnZSBmcm9tLWxheWVyPSIwIiBmcm9tLXBvcnQ9IjAiIHRvLWxheWVyPSIx
IiB0by1wb3J0PSIwIiAvPgoJCTxlZGdlIGZyb20tbGF5ZXI9IjEiIGZyb20tcG9ydD0iMSIgdG8tbGF5ZXI9IjIiIHRvLXBvcnQ9
IjAiIC8+Cgk8L2VkZ2VzPgoJPHJ0X2luZm8+CgkJPGluZm8gbmFtZT0iT3BlblZJTk8gUnVudGltZSIgdmFsdWU9IjIwMjYuNC4x
LTIyOTgyLWUyMTNhMTQ3MjU3LXJlbGVhc2VzLzIwMjYvNCIgLz4KCTwvcnRfaW5mbz4KPC9uZXQ+Cg==
""")
MODEL_BIN = base64.b64decode("""

""")
INPUTS_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQCLj19YVQAAAJAAAAAFAAAAMC5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBuk2airqOgnpZfVFKUmBefX5SS
ChJ3S8wpTgWKF2ckFqQC+RomOpo6CrUKFAAuhgMN9gwNjfb//9fXMzQ0/AcAUEsBAhQDFAAAAAgAAAAhAIuPX1hVAAAAkAAAAAUA
AAAAAAAAAAAAAIABAAAAADAubnB5UEsFBgAAAAABAAEAMwAAAHgAAAAAAA==
""")
EXPECTED_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQBdjmV8TAAAAIgAAAAFAAAAMC5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBeE2akrqOgnpZfVFKUmBefX5SS
ChJ3S8wpTgWKF2ckFqQC+RomOpo6CrUKFACuRvsm+4b6A/8BUEsBAhQDFAAAAAgAAAAhAF2OZXxMAAAAiAAAAAUAAAAAAAAAAAAA
AIABAAAAADAubnB5UEsFBgAAAAABAAEAMwAAAG8AAAAAAA==
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
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


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
        raise CouldNotRun(f"OpenVINO reads {len(ports)} ports where the replay has {len(layers)}")
    return list(range(len(ports)))


def shown(array, k, element_type):
    value = array.reshape(-1)[k]
    if element_type == ov.Type.bf16:  # the Python API hands bf16 out as raw bits
        bits = int(np.asarray(value).view(np.uint16))
        return f"{np.array([bits << 16], np.uint32).view(np.float32)[0]!r} (bf16 0x{bits:04x})"
    if array.dtype.kind == "f":
        bits = int(np.asarray(value).view(np.dtype(f"u{array.dtype.itemsize}")))
        return f"{value!r} (0x{bits:0{2 * array.dtype.itemsize}x})"
    return repr(value)


def compare(k, got, want, against, element_type):
    name = NAMES[k]
    exact, atol, rtol = TOLERANCES[k]
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.itemsize == want.dtype.itemsize and got.dtype != want.dtype:
        want = want.view(got.dtype)  # bf16/f8 kept as raw bits
    if got.shape != want.shape:
        print(f"{name}: shape {list(got.shape)} vs {against} {list(want.shape)}")
        return True
    if want.dtype.kind in "biuV" or exact:
        differs = bits(got).reshape(-1) != bits(want).reshape(-1)
    else:
        g, w = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
        differs = ~((np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w)))
    count = int(np.count_nonzero(differs))
    if not count:
        print(f"{name}: equal to {against}")
        return False
    first = np.flatnonzero(differs)[:5]
    where = [np.unravel_index(int(k), got.shape) if got.shape else () for k in first]
    print(f"{name}: {count} of {got.size} elements differ from {against}")
    for pos, k in zip(where, first):
        print(f"  at {list(map(int, pos))}: openvino {shown(got, k, element_type)}, "
              f"{against} {shown(want, k, element_type)}")
    if got.dtype.kind == "f" and element_type != ov.Type.bf16:
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        print(f"  max abs error {np.nanmax(err):.6g}")
    return True


def reference_outputs(model, tensors, expected, where):
    """OpenVINO's core reference (Model.evaluate), or None where it cannot evaluate the model."""
    try:
        outs = [ov.Tensor(o.get_element_type(), list(expected[k].shape)) for o, k in zip(model.outputs, where)]
        if model.evaluate(outs, tensors):
            return [np.array(t.data, copy=True) for t in outs]
        print("OpenVINO's core reference cannot evaluate this model (Model.evaluate returned false)")
    except Exception as exc:  # the core reference has no kernel for some op of the model
        print(f"OpenVINO's core reference cannot evaluate this model: {message(exc)}")
    return None


def plugin_outputs(core, model, tensors):
    """The plugin's outputs, or None when it refuses the model (printed)."""
    try:
        request = core.compile_model(model, DEVICE, CPU_CONFIG).create_infer_request()
        for k, t in enumerate(tensors):
            request.set_input_tensor(k, t)
        request.infer()
    except Exception as exc:
        print(f"the {DEVICE} plugin refuses the model: {message(exc)}")
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
            raise CouldNotRun(f"the {DEVICE} plugin refuses the model (the replay ran it)")
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
        print(f"could not run: {message(exc)}")
        status = 2
    sys.exit(status)
