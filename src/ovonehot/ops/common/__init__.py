"""What the op families share, apart from the families themselves.

* :mod:`.spec`: ``OpSpec`` (every fact about an op type-version), ``TensorInfo``, ``Variables``;
* :mod:`.attrs`: reading IR attributes into typed values;
* :mod:`.autobroadcast`: NumPy and PDPD broadcasting of shapes;
* :mod:`.bounds`: value and bound propagation (OpenVINO's evaluate_lower/upper);
* :mod:`.shape_util`: axes, dimension arithmetic, known inputs;
* :mod:`.spatial`: windows, padding and output sizes of convolutions and pooling;
* :mod:`.numeric`: NumPy arithmetic as OpenVINO's reference computes it;
* :mod:`.openvino_opsets`: which type-versions each OpenVINO opset holds (generated).
"""
