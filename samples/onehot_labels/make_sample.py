"""Write this sample's model, input and expected output, all with OpenVINO (no ovonehot).

    python samples/onehot_labels/make_sample.py

* model.xml/.bin: labels (i64 [6]) -> OneHot-16 (depth 10, on 1.0, off 0.0, axis -1,
  negative_indices_mode=normalize) -> "onehot" (f32 [6,10]), written by ov.save_model
  (default form: on/off are f16 constants decompressed by a Convert).
* labels.npz: the input, keyed by the Parameter's name.
* expected.npz: OpenVINO's output for it, keyed by the output's name.  Computed by the
  CPU plugin (one thread, f32, accuracy mode) and by the core reference
  (Model.evaluate); the script checks that the two agree bit for bit before saving.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
from openvino import opset1, opset16

HERE = Path(__file__).resolve().parent
LABELS = np.array([3, 0, 9, -1, 12, 5], np.int64)  # -1 counts from the end; 12 is out of range


def main() -> None:
    labels = opset1.parameter([6], ov.Type.i64, name="labels")
    labels.output(0).set_names({"labels"})
    node = opset16.one_hot(
        labels,
        ov.op.Constant(np.array(10, np.int64)),
        ov.op.Constant(np.array(1, np.float32)),
        ov.op.Constant(np.array(0, np.float32)),
        -1,
        negative_indices_mode="normalize",
        name="onehot",
    )
    node.output(0).set_names({"onehot"})
    model = ov.Model([node.output(0)], [labels], "onehot_labels")
    model.get_results()[0].set_friendly_name("result")
    ov.save_model(model, HERE / "model.xml")
    np.savez(HERE / "labels.npz", labels=LABELS)

    read = ov.Core().read_model(HERE / "model.xml")
    compiled = ov.Core().compile_model(
        read,
        "CPU",
        {
            "INFERENCE_NUM_THREADS": 1,
            "NUM_STREAMS": 1,
            "INFERENCE_PRECISION_HINT": "f32",
            "EXECUTION_MODE_HINT": "ACCURACY",
        },
    )
    cpu = compiled({"labels": LABELS})[compiled.outputs[0]]
    out = ov.Tensor(ov.Type.f32, ov.Shape([0]))
    assert read.evaluate([out], [ov.Tensor(LABELS)])
    reference = np.array(out.data, copy=True)
    assert cpu.dtype == reference.dtype and cpu.tobytes() == reference.tobytes(), "CPU and reference differ"
    np.savez(HERE / "expected.npz", **{read.outputs[0].any_name: reference})
    print(f"wrote model.xml, labels.npz, expected.npz (OpenVINO {ov.get_version()})")


if __name__ == "__main__":
    main()
