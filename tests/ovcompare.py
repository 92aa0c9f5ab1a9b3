"""Test helper: every layer's inferred outputs, by layer name, from OpenVINO and from ``ovonehot validate``.

OpenVINO's side is ``Core().read_model`` (and ``Model.reshape`` for new input
shapes) and each op's ``get_output_partial_shape``/``get_output_element_type``;
ovonehot's side is the ``validate`` report.  Both are written ``"f32[2,2..7,?]"``.
A Result layer has no output port in the IR; ``validate`` reports the output OpenVINO's
Result op has (what it returns), so Results are compared too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ovonehot.check.validate import Report, validate
from ovonehot.types import PartialShape

ov = pytest.importorskip("openvino", reason="the OpenVINO oracle helpers need openvino")
_counter = itertools.count()


def save(model: Any, tmp_path: Path, name: str = "model", compress_to_fp16: bool = False) -> Path:
    """``ov.save_model``; with ``compress_to_fp16`` float constants become f16 + decompression Convert."""
    xml = tmp_path / f"{name}_{next(_counter)}.xml"
    ov.save_model(model, str(xml), compress_to_fp16=compress_to_fp16)
    return xml


def openvino_layers(xml: Path, shapes: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    model = ov.Core().read_model(str(xml))
    if shapes:
        model.reshape({k: ov.PartialShape(v) for k, v in shapes.items()})
    return {
        op.get_friendly_name(): [
            f"{op.get_output_element_type(k).get_type_name()}{op.get_output_partial_shape(k)}"
            for k in range(op.get_output_size())
        ]
        for op in model.get_ops()
    }


def ovonehot_layers(report: Report) -> dict[str, list[str]]:
    return {
        layer.name: [
            f"{o.element_type}{o.shape}" if o.shape is not None else "not checked" for o in layer.outputs
        ]
        for layer in report.layers
    }


def assert_layers_agree(xml: Path, shapes: Mapping[str, str] | None = None) -> Report:
    """Every layer's outputs equal OpenVINO's; returns ovonehot's report."""
    report = validate(xml, shapes={k: PartialShape.parse(v) for k, v in (shapes or {}).items()})
    ours, theirs = ovonehot_layers(report), openvino_layers(xml, shapes)
    differ = {name: (ours.get(name), theirs[name]) for name in theirs if ours.get(name) != theirs[name]}
    assert not differ, f"{xml.name}: layers differ (ovonehot, OpenVINO): {differ}"
    assert set(ours) == set(theirs)
    return report
