#!/usr/bin/env python3
(
    'OpenVINO reproducer: out: plugin deviation (cpu).\n'
    '\n'
    'Model from /tmp/tmp74ymumw8/cpu-int32-saturation-i64-values.xml; made by ovonehot 0.1.0 with OpenVINO 2026.4.1-22982-e213a147257-releases/2026/4.\n'
    'Needs only numpy and openvino. Runs the embedded model on OpenVINO (cpu) with the\n'
    'embedded inputs and compares every output with the expected values (computed by\n'
    "ovonehot, an independent NumPy implementation of OpenVINO's op specifications), and,\n"
    "for the CPU plugin, with OpenVINO's own core reference (Model.evaluate) where it can\n"
    'evaluate the model. Exit 1 when the difference reproduces.\n'
)

import base64
import io
import sys

import numpy as np
import openvino as ov

ORACLE = 'cpu'
CPU_CONFIG = {'INFERENCE_NUM_THREADS': 1, 'NUM_STREAMS': 1, 'INFERENCE_PRECISION_HINT': 'f32', 'EXECUTION_MODE_HINT': 'ACCURACY'}
# Per output: (exact, atol, rtol): floats bit for bit when exact, else |a - b| <= atol + rtol * |b|.
TOLERANCES = {'out': (True, 0.0, 0.0)}

MODEL_XML = base64.b64decode("""
PD94bWwgdmVyc2lvbj0iMS4wIj8+CjxuZXQgbmFtZT0ibSIgdmVyc2lvbj0iMTEiPgoJPGxheWVycz4KCQk8bGF5ZXIgaWQ9IjAi
IG5hbWU9ImluZGljZXMiIHR5cGU9IlBhcmFtZXRlciIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgc2hhcGU9IjMiIGVsZW1l
bnRfdHlwZT0iaTMyIiAvPgoJCQk8b3V0cHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTMyIiBuYW1lcz0iaW5kaWNl
cyI+CgkJCQkJPGRpbT4zPC9kaW0+CgkJCQk8L3BvcnQ+CgkJCTwvb3V0cHV0PgoJCTwvbGF5ZXI+CgkJPGxheWVyIGlkPSIxIiBu
YW1lPSJDb25zdGFudF81MzA5IiB0eXBlPSJDb25zdCIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgZWxlbWVudF90eXBlPSJp
NjQiIHNoYXBlPSIiIG9mZnNldD0iMCIgc2l6ZT0iOCIgLz4KCQkJPG91dHB1dD4KCQkJCTxwb3J0IGlkPSIwIiBwcmVjaXNpb249
Ikk2NCIgLz4KCQkJPC9vdXRwdXQ+CgkJPC9sYXllcj4KCQk8bGF5ZXIgaWQ9IjIiIG5hbWU9IkNvbnN0YW50XzUzMTEiIHR5cGU9
IkNvbnN0IiB2ZXJzaW9uPSJvcHNldDEiPgoJCQk8ZGF0YSBlbGVtZW50X3R5cGU9Imk2NCIgc2hhcGU9IiIgb2Zmc2V0PSI4IiBz
aXplPSI4IiAvPgoJCQk8b3V0cHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTY0IiAvPgoJCQk8L291dHB1dD4KCQk8
L2xheWVyPgoJCTxsYXllciBpZD0iMyIgbmFtZT0iQ29uc3RhbnRfNTMxMyIgdHlwZT0iQ29uc3QiIHZlcnNpb249Im9wc2V0MSI+
CgkJCTxkYXRhIGVsZW1lbnRfdHlwZT0iaTY0IiBzaGFwZT0iIiBvZmZzZXQ9IjE2IiBzaXplPSI4IiAvPgoJCQk8b3V0cHV0PgoJ
CQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTY0IiAvPgoJCQk8L291dHB1dD4KCQk8L2xheWVyPgoJCTxsYXllciBpZD0iNCIg
bmFtZT0iT25lSG90XzUzMTQiIHR5cGU9Ik9uZUhvdCIgdmVyc2lvbj0ib3BzZXQxIj4KCQkJPGRhdGEgYXhpcz0iMSIgLz4KCQkJ
PGlucHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTMyIj4KCQkJCQk8ZGltPjM8L2RpbT4KCQkJCTwvcG9ydD4KCQkJ
CTxwb3J0IGlkPSIxIiBwcmVjaXNpb249Ikk2NCIgLz4KCQkJCTxwb3J0IGlkPSIyIiBwcmVjaXNpb249Ikk2NCIgLz4KCQkJCTxw
b3J0IGlkPSIzIiBwcmVjaXNpb249Ikk2NCIgLz4KCQkJPC9pbnB1dD4KCQkJPG91dHB1dD4KCQkJCTxwb3J0IGlkPSI0IiBwcmVj
aXNpb249Ikk2NCIgbmFtZXM9Im91dCI+CgkJCQkJPGRpbT4zPC9kaW0+CgkJCQkJPGRpbT4zPC9kaW0+CgkJCQk8L3BvcnQ+CgkJ
CTwvb3V0cHV0PgoJCTwvbGF5ZXI+CgkJPGxheWVyIGlkPSI1IiBuYW1lPSJSZXN1bHRfNTMxNSIgdHlwZT0iUmVzdWx0IiB2ZXJz
aW9uPSJvcHNldDEiIG91dHB1dF9uYW1lcz0ib3V0Ij4KCQkJPGlucHV0PgoJCQkJPHBvcnQgaWQ9IjAiIHByZWNpc2lvbj0iSTY0
Ij4KCQkJCQk8ZGltPjM8L2RpbT4KCQkJCQk8ZGltPjM8L2RpbT4KCQkJCTwvcG9ydD4KCQkJPC9pbnB1dD4KCQk8L2xheWVyPgoJ
PC9sYXllcnM+Cgk8ZWRnZXM+CgkJPGVkZ2UgZnJvbS1sYXllcj0iMCIgZnJvbS1wb3J0PSIwIiB0by1sYXllcj0iNCIgdG8tcG9y
dD0iMCIgLz4KCQk8ZWRnZSBmcm9tLWxheWVyPSIxIiBmcm9tLXBvcnQ9IjAiIHRvLWxheWVyPSI0IiB0by1wb3J0PSIxIiAvPgoJ
CTxlZGdlIGZyb20tbGF5ZXI9IjIiIGZyb20tcG9ydD0iMCIgdG8tbGF5ZXI9IjQiIHRvLXBvcnQ9IjIiIC8+CgkJPGVkZ2UgZnJv
bS1sYXllcj0iMyIgZnJvbS1wb3J0PSIwIiB0by1sYXllcj0iNCIgdG8tcG9ydD0iMyIgLz4KCQk8ZWRnZSBmcm9tLWxheWVyPSI0
IiBmcm9tLXBvcnQ9IjQiIHRvLWxheWVyPSI1IiB0by1wb3J0PSIwIiAvPgoJPC9lZGdlcz4KCTxydF9pbmZvPgoJCTxpbmZvIG5h
bWU9Ik9wZW5WSU5PIFJ1bnRpbWUiIHZhbHVlPSIyMDI2LjQuMS0yMjk4Mi1lMjEzYTE0NzI1Ny1yZWxlYXNlcy8yMDI2LzQiIC8+
Cgk8L3J0X2luZm8+CjwvbmV0Pgo=
""")
MODEL_BIN = base64.b64decode("""
AwAAAAAAAAAAAAAAAAEAAAAAAAAA////
""")
INPUTS_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQC71Go0TAAAAIwAAAALAAAAaW5kaWNlcy5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBuk2mirqOgnpZfVFKU
mBefX5SSChJ3S8wpTgWKF2ckFqQC+RrGOpo6CrUKFAAuBiBgBGJWIAYAUEsBAhQDFAAAAAgAAAAhALvUajRMAAAAjAAAAAsAAAAA
AAAAAAAAAIABAAAAAGluZGljZXMubnB5UEsFBgAAAAABAAEAOQAAAHUAAAAAAA==
""")
EXPECTED_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQDSJCBbVQAAAMgAAAAHAAAAb3V0Lm5weZvsF+obEMnIUMZQrZ6SWpxcpG6loG6TaaGuo6Cell9UUpSYF59f
lJIKEndLzClOBYoXZyQWpAL5GsY6CsaaOgq1CmQDLgYQYGSAgP///2OlCckDaQBQSwECFAMUAAAACAAAACEA0iQgW1UAAADIAAAA
BwAAAAAAAAAAAAAAgAEAAAAAb3V0Lm5weVBLBQYAAAAAAQABADUAAAB6AAAAAAA=
""")


def load_npz(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


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
    """OpenVINO's exception text on one line (its first lines only name source files)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " | ".join(lines)[-600:]


def shown(array, k, element_type):
    value = array.reshape(-1)[k]
    if element_type == ov.Type.bf16:  # the Python API hands bf16 out as raw bits
        bits = int(np.asarray(value).view(np.uint16))
        return f"{np.array([bits << 16], np.uint32).view(np.float32)[0]!r} (bf16 0x{bits:04x})"
    if array.dtype.kind == "f":
        bits = int(np.asarray(value).view(np.dtype(f"u{array.dtype.itemsize}")))
        return f"{value!r} (0x{bits:0{2 * array.dtype.itemsize}x})"
    return repr(value)


def compare(name, got, want, against, element_type):
    exact, atol, rtol = TOLERANCES.get(name, (True, 0.0, 0.0))
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
    positions = [np.unravel_index(int(k), got.shape) if got.shape else () for k in first]
    print(f"{name}: {count} of {got.size} elements differ from {against}")
    for pos, k in zip(positions, first):
        print(f"  at {list(map(int, pos))}: openvino {shown(got, k, element_type)}, "
              f"{against} {shown(want, k, element_type)}")
    if got.dtype.kind == "f" and element_type != ov.Type.bf16:
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        print(f"  max abs error {np.nanmax(err):.6g}")
    return True


def main():
    core = ov.Core()
    model = core.read_model(model=MODEL_XML, weights=ov.Tensor(np.frombuffer(MODEL_BIN, np.uint8).copy()))
    inputs = load_npz(INPUTS_NPZ)
    expected = load_npz(EXPECTED_NPZ)
    tensors = []
    for port in model.inputs:
        key = next((n for n in sorted(port.get_names()) if n in inputs), port.get_any_name())
        tensors.append(to_tensor(inputs[key], port.get_element_type()))
    names = [next((n for n in sorted(o.get_names()) if n in expected), o.get_any_name()) for o in model.outputs]
    reference = None
    try:
        outs = [ov.Tensor(o.get_element_type(), list(expected[n].shape)) for o, n in zip(model.outputs, names)]
        if model.evaluate(outs, tensors):
            reference = [np.array(t.data, copy=True) for t in outs]
    except Exception as exc:  # the core reference has no kernel for some op of the model
        print(f"OpenVINO's core reference cannot evaluate this model: {message(exc)}")
    if ORACLE == "cpu":
        try:
            request = core.compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
            for k, t in enumerate(tensors):
                request.set_input_tensor(k, t)
            request.infer()
        except Exception as exc:  # a refusal is the finding when the model is valid
            print(f"the CPU plugin refuses the model: {message(exc)}")
            print("expected: it runs (OpenVINO's core reference and ovonehot compute the outputs)")
            return 1
        got = [np.array(request.get_output_tensor(k).data, copy=True) for k in range(len(model.outputs))]
    else:
        if reference is None:
            print("nothing ran: the core reference is the oracle here")
            return 2
        got = reference
    differs = False
    for k, (name, value) in enumerate(zip(names, got)):
        element_type = model.outputs[k].get_element_type()
        differs |= compare(name, value, expected[name], "expected (ovonehot)", element_type)
        if ORACLE == "cpu" and reference is not None:
            compare(name, value, reference[k], "OpenVINO core reference", element_type)
    print("the difference reproduces" if differs else "no difference: it does not reproduce here")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
