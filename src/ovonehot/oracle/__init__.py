"""Where OpenVINO (and onnxruntime) enter ovonehot: every import of either lives in this package.

ovonehot's core (``ir``, ``ops``, ``infer``, ``evaluate``, ``validate``) never imports
OpenVINO; this package is how the rest of the tool asks it for something, each module
importing it lazily, inside functions:

* :mod:`.openvino_runtime`: the oracles ``diff`` compares against (OpenVINO's core
  reference through ``Node.evaluate``, the CPU plugin or another device), version
  strings, and ``save_model`` for ``fuzz``'s writers;
* :mod:`.process`: the same in a child process, so an OpenVINO crash is a report;
* :mod:`.onnxruntime_runner`: onnxruntime as an oracle for ``.onnx`` models;
* :mod:`.onnx_frontend`: ``.onnx`` input, converted by OpenVINO's ONNX frontend;
* :mod:`.common`: what the oracles share (no third-party imports);
* :mod:`.repro`: the standalone numpy+openvino bug-report script ``ovonehot repro`` writes.

A failure inside OpenVINO surfaces as :class:`ovonehot.errors.OpenVINOError` (exit 4).
"""
