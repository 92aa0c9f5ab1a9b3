#!/usr/bin/env python3
(
    'OpenVINO reproducer: out: plugin deviation (reference).\n'
    '\n'
    'Model from /tmp/tmpm5feaf5f/reference-bf16-rounding.xml; made by ovonehot 0.1.0 with OpenVINO 2026.4.1-22982-e213a147257-releases/2026/4.\n'
    'Needs only numpy and openvino. Runs the embedded model on OpenVINO (reference) with the\n'
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

ORACLE = 'reference'
CPU_CONFIG = {'INFERENCE_NUM_THREADS': 1, 'NUM_STREAMS': 1, 'INFERENCE_PRECISION_HINT': 'f32', 'EXECUTION_MODE_HINT': 'ACCURACY'}
# Per output: (exact, atol, rtol): floats bit for bit when exact, else |a - b| <= atol + rtol * |b|.
TOLERANCES = {'out': (True, 0.0, 0.0)}

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
UEsDBBQAAAAIAAAAIQCLj19YVQAAAJAAAAAFAAAAeC5ucHmb7BfqGxDJyFDGUK2eklqcXKRupaBuk2airqOgnpZfVFKUmBefX5SS
ChJ3S8wpTgWKF2ckFqQC+RomOpo6CrUKFAAuhgMN9gwNjfb//9fXMzQ0/AcAUEsBAhQDFAAAAAgAAAAhAIuPX1hVAAAAkAAAAAUA
AAAAAAAAAAAAAIABAAAAAHgubnB5UEsFBgAAAAABAAEAMwAAAHgAAAAAAA==
""")
EXPECTED_NPZ = base64.b64decode("""
UEsDBBQAAAAIAAAAIQBdjmV8TAAAAIgAAAAHAAAAb3V0Lm5weZvsF+obEMnIUMZQrZ6SWpxcpG6loF4TZqSuo6Cell9UUpSYF59f
lJIKEndLzClOBYoXZyQWpAL5GiY6mjoKtQoUAK5G+yb7hvoD/wFQSwECFAMUAAAACAAAACEAXY5lfEwAAACIAAAABwAAAAAAAAAA
AAAAgAEAAAAAb3V0Lm5weVBLBQYAAAAAAQABADUAAABxAAAAAAA=
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
