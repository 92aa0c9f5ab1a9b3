#!/usr/bin/env python3
(
    'OpenVINO reproducer: out: unexplained (cpu).\n'
    '\n'
    'Model from /tmp/tmpmumpi7zo/cpu-f8-to-boolean-empty-output.xml; made by ovonehot 0.1.0 with OpenVINO 2026.4.1-22982-e213a147257-releases/2026/4.\n'
    'Needs only numpy and openvino. Runs the embedded model on OpenVINO (cpu) with the\n'
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

ORACLE = 'cpu'
DEVICE = 'CPU'
CPU_CONFIG = {'INFERENCE_NUM_THREADS': '1', 'NUM_STREAMS': '1', 'INFERENCE_PRECISION_HINT': 'f32', 'EXECUTION_MODE_HINT': 'ACCURACY'}
# Whether the plugin refusing the model is the finding (the replay recorded that refusal).
REFUSAL_IS_FINDING = False
# Inputs and outputs by position; OpenVINO's are matched by Parameter / Result layer name.
INPUT_LAYERS = ['indices']
OUTPUT_LAYERS = ['Result_8']
NAMES = ['out']
# Per output: (exact, atol, rtol): floats bit for bit when exact, else |a - b| <= atol + rtol * |b|.
TOLERANCES = [(True, 0.0, 0.0)]

MODEL_XML = base64.b64decode("""
PD94bWwgdmVyc2lvbj0iMS4wIj8+CjxuZXQgbmFtZT0ibSIgdmVyc2lvbj0iMTEiPgoJPGxheWVycz4KCQk8bGF5ZXIgaWQ9IjAi
IG5hbWU9ImluZGljZXMiIHR5cGU9IlBhcmFtZXRlciIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgc2hhcGU9Ij8iIGVsZW1l
bnRfdHlwZT0iaTMyIiAvPgoJCQk8b3V0cHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTMyIiBuYW1lcz0iaW5kaWNl
cyI+CgkJCQkJPGRpbT4tMTwvZGltPgoJCQkJPC9wb3J0PgoJCQk8L291dHB1dD4KCQk8L2xheWVyPgoJCTxsYXllciBpZD0iMSIg
bmFtZT0iQ29uc3RhbnRfMyIgdHlwZT0iQ29uc3QiIHZlcnNpb249Im9wc2V0MSI+CgkJCTxkYXRhIGVsZW1lbnRfdHlwZT0iaTY0
IiBzaGFwZT0iIiBvZmZzZXQ9IjAiIHNpemU9IjgiIC8+CgkJCTxvdXRwdXQ+CgkJCQk8cG9ydCBpZD0iMCIgcHJlY2lzaW9uPSJJ
NjQiIC8+CgkJCTwvb3V0cHV0PgoJCTwvbGF5ZXI+CgkJPGxheWVyIGlkPSIyIiBuYW1lPSJDb25zdGFudF80IiB0eXBlPSJDb25z
dCIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgZWxlbWVudF90eXBlPSJmOGU0bTMiIHNoYXBlPSIiIG9mZnNldD0iOCIgc2l6
ZT0iMSIgLz4KCQkJPG91dHB1dD4KCQkJCTxwb3J0IGlkPSIwIiBwcmVjaXNpb249IkY4RTRNMyIgLz4KCQkJPC9vdXRwdXQ+CgkJ
PC9sYXllcj4KCQk8bGF5ZXIgaWQ9IjMiIG5hbWU9IkNvbnN0YW50XzUiIHR5cGU9IkNvbnN0IiB2ZXJzaW9uPSJvcHNldDEiPgoJ
CQk8ZGF0YSBlbGVtZW50X3R5cGU9ImY4ZTRtMyIgc2hhcGU9IiIgb2Zmc2V0PSI5IiBzaXplPSIxIiAvPgoJCQk8b3V0cHV0PgoJ
CQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iRjhFNE0zIiAvPgoJCQk8L291dHB1dD4KCQk8L2xheWVyPgoJCTxsYXllciBpZD0i
NCIgbmFtZT0iT25lSG90XzYiIHR5cGU9Ik9uZUhvdCIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgYXhpcz0iMSIgLz4KCQkJ
PGlucHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTMyIj4KCQkJCQk8ZGltPi0xPC9kaW0+CgkJCQk8L3BvcnQ+CgkJ
CQk8cG9ydCBpZD0iMSIgcHJlY2lzaW9uPSJJNjQiIC8+CgkJCQk8cG9ydCBpZD0iMiIgcHJlY2lzaW9uPSJGOEU0TTMiIC8+CgkJ
CQk8cG9ydCBpZD0iMyIgcHJlY2lzaW9uPSJGOEU0TTMiIC8+CgkJCTwvaW5wdXQ+CgkJCTxvdXRwdXQ+CgkJCQk8cG9ydCBpZD0i
NCIgcHJlY2lzaW9uPSJGOEU0TTMiPgoJCQkJCTxkaW0+LTE8L2RpbT4KCQkJCQk8ZGltPjM8L2RpbT4KCQkJCTwvcG9ydD4KCQkJ
PC9vdXRwdXQ+CgkJPC9sYXllcj4KCQk8bGF5ZXIgaWQ9IjUiIG5hbWU9IkNvbnZlcnRfNyIgdHlwZT0iQ29udmVydCIgdmVyc2lv
bj0ib3BzZXQxIj4KCQkJPGRhdGEgZGVzdGluYXRpb25fdHlwZT0iYm9vbGVhbiIgLz4KCQkJPGlucHV0PgoJCQkJPHBvcnQgaWQ9
IjAiIHByZWNpc2lvbj0iRjhFNE0zIj4KCQkJCQk8ZGltPi0xPC9kaW0+CgkJCQkJPGRpbT4zPC9kaW0+CgkJCQk8L3BvcnQ+CgkJ
CTwvaW5wdXQ+CgkJCTxvdXRwdXQ+CgkJCQk8cG9ydCBpZD0iMSIgcHJlY2lzaW9uPSJCT09MIiBuYW1lcz0ib3V0Ij4KCQkJCQk8
ZGltPi0xPC9kaW0+CgkJCQkJPGRpbT4zPC9kaW0+CgkJCQk8L3BvcnQ+CgkJCTwvb3V0cHV0PgoJCTwvbGF5ZXI+CgkJPGxheWVy
IGlkPSI2IiBuYW1lPSJSZXN1bHRfOCIgdHlwZT0iUmVzdWx0IiB2ZXJzaW9uPSJvcHNldDEiIG91dHB1dF9uYW1lcz0ib3V0Ij4K
CQkJPGlucHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iQk9PTCI+CgkJCQkJPGRpbT4tMTwvZGltPgoJCQkJCTxkaW0+
MzwvZGltPgoJCQkJPC9wb3J0PgoJCQk8L2lucHV0PgoJCTwvbGF5ZXI+Cgk8L2xheWVycz4KCTxlZGdlcz4KCQk8ZWRnZSBmcm9t
LWxheWVyPSIwIiBmcm9tLXBvcnQ9IjAiIHRvLWxheWVyPSI0IiB0by1wb3J0PSIwIiAvPgoJCTxlZGdlIGZyb20tbGF5ZXI9IjEi
IGZyb20tcG9ydD0iMCIgdG8tbGF5ZXI9IjQiIHRvLXBvcnQ9IjEiIC8+CgkJPGVkZ2UgZnJvbS1sYXllcj0iMiIgZnJvbS1wb3J0
PSIwIiB0by1sYXllcj0iNCIgdG8tcG9ydD0iMiIgLz4KCQk8ZWRnZSBmcm9tLWxheWVyPSIzIiBmcm9tLXBvcnQ9IjAiIHRvLWxh
eWVyPSI0IiB0by1wb3J0PSIzIiAvPgoJCTxlZGdlIGZyb20tbGF5ZXI9IjQiIGZyb20tcG9ydD0iNCIgdG8tbGF5ZXI9IjUiIHRv
LXBvcnQ9IjAiIC8+CgkJPGVkZ2UgZnJvbS1sYXllcj0iNSIgZnJvbS1wb3J0PSIxIiB0by1sYXllcj0iNiIgdG8tcG9ydD0iMCIg
Lz4KCTwvZWRnZXM+Cgk8cnRfaW5mbz4KCQk8aW5mbyBuYW1lPSJPcGVuVklOTyBSdW50aW1lIiB2YWx1ZT0iMjAyNi40LjEtMjI5
ODItZTIxM2ExNDcyNTctcmVsZWFzZXMvMjAyNi80IiAvPgoJPC9ydF9pbmZvPgo8L25ldD4K
""")
MODEL_BIN = base64.b64decode("""
AwAAAAAAAAA4AA==
""")
INPUTS_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQAaIEtlTgAAAJAAAAAFAAAAMC5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBuk2mirqOgnpZfVFKUmBefX5SS
ChJ3S8wpTgWKF2ckFqQC+RomOpo6CrUKFAAuBiBgAmJWIP4PBABQSwECFAMUAAAACAAAACEAGiBLZU4AAACQAAAABQAAAAAAAAAA
AAAAgAEAAAAAMC5ucHlQSwUGAAAAAAEAAQAzAAAAcQAAAAAA
""")
EXPECTED_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQDCnVS1TQAAAIwAAAAFAAAAMC5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBek2SorqOgnpZfVFKUmBefX5SS
ChJ3S8wpTgWKF2ckFqQC+RomOgrGmjoKtQpkAy5GBiAAEwwMAFBLAQIUAxQAAAAIAAAAIQDCnVS1TQAAAIwAAAAFAAAAAAAAAAAA
AACAAQAAAAAwLm5weVBLBQYAAAAAAQABADMAAABwAAAAAAA=
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
