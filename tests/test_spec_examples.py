"""The worked examples of OpenVINO's OneHot-1 specification, through an IR and through the kernel.

Transcribed from the OneHot-1 page (docs "OneHot-1", section Examples; the same two
examples in the OpenVINO OneHot-1 operation spec).  Each runs three ways: ovonehot's kernel
``one_hot``, a model built with OpenVINO and written by ``ov.save_model`` read back
by ``ovonehot.load`` (both OneHot-1 and OneHot-16, whose default mode gives the same
answer for non-negative indices, and both IR forms), and OpenVINO's own reference,
which must agree with its spec.  The spec leaves the element types open ("T1: int32
or int64", "T2: any supported type"), so every combination of i32/i64 indices and a
few value types is run.  The ONNX and DirectML examples belong to issue 6.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from exact import assert_same

import ovonehot
from ovonehot.ops.common.shape_util import normalize_axis
from ovonehot.ops.one_hot import NegativeIndicesMode, one_hot

ov = pytest.importorskip("openvino", reason="the IR runs are written by OpenVINO")


@dataclass(frozen=True)
class SpecExample:
    name: str
    axis: int
    indices: list
    depth: int
    on_value: int
    off_value: int
    output: list


EXAMPLES = [
    SpecExample(
        "axis-1",
        axis=-1,
        indices=[0, 3, 1, 2],
        depth=3,
        on_value=1,
        off_value=2,
        output=[[1, 2, 2], [2, 2, 2], [2, 1, 2], [2, 2, 1]],
    ),
    SpecExample(
        "axis1",
        axis=1,
        indices=[[0, 3, 1], [1, 2, 4]],
        depth=3,
        on_value=1,
        off_value=0,
        output=[[[1, 0, 0], [0, 0, 1], [0, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]],
    ),
]
INDEX_TYPES = [np.int32, np.int64]
VALUE_TYPES = [np.float32, np.int32, np.int64, np.float16, np.uint8]


def _expected(ex: SpecExample, value_type: type) -> np.ndarray:
    return np.array(ex.output, dtype=value_type)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=lambda t: np.dtype(t).name)
def test_spec_example_through_the_kernel(ex: SpecExample, index_type: type, value_type: type) -> None:
    indices = np.array(ex.indices, dtype=index_type)
    axis = normalize_axis(ex.axis, indices.ndim + 1)
    for mode in NegativeIndicesMode:
        out = one_hot(
            indices,
            ex.depth,
            np.array(ex.on_value, value_type),
            np.array(ex.off_value, value_type),
            axis,
            mode,
        )
        assert_same(out, _expected(ex, value_type), f"{ex.name} {mode}")


def _write(
    ex: SpecExample, index_type: type, value_type: type, version: int, compress: bool, path: Path
) -> Path:
    from openvino import opset1, opset16

    p = opset1.parameter(list(np.shape(ex.indices)), ov.Type(np.dtype(index_type)), name="indices")
    args = (
        p,
        ov.op.Constant(np.array(ex.depth, index_type)),
        ov.op.Constant(np.array(ex.on_value, value_type)),
        ov.op.Constant(np.array(ex.off_value, value_type)),
        ex.axis,
    )
    node = opset1.one_hot(*args) if version == 1 else opset16.one_hot(*args)
    node.output(0).set_names({"output"})
    ov.save_model(ov.Model([node.output(0)], [p], ex.name), str(path), compress_to_fp16=compress)
    return path


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
@pytest.mark.parametrize("index_type", INDEX_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("value_type", VALUE_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("version", [1, 16], ids=["v1", "v16"])
@pytest.mark.parametrize("compress", [True, False], ids=["f16c", "plain"])
def test_spec_example_through_an_ir(
    ex: SpecExample, index_type: type, value_type: type, version: int, compress: bool, tmp_path: Path
) -> None:
    from ovonehot.oracle.openvino_runtime import reference_run

    xml = _write(ex, index_type, value_type, version, compress, tmp_path / "m.xml")
    inputs = {"indices": np.array(ex.indices, dtype=index_type)}
    model = ovonehot.load(xml)
    out_desc = model.outputs[0]
    assert out_desc.name == "output"
    assert str(out_desc.shape) == "[" + ",".join(str(n) for n in np.shape(ex.output)) + "]"
    ours = model.run(inputs)["output"]
    assert_same(ours, _expected(ex, value_type), f"{ex.name} ovonehot")
    assert_same(reference_run(xml, inputs)["output"], _expected(ex, value_type), f"{ex.name} OpenVINO")


# The spec's own XML, as written on the page (ports with their <dim>s), completed into a net.
SPEC_LAYER = """<layer id="4" name="onehot" type="OneHot" version="opset1">
    <data axis="{axis}"/>
    <input>
        <port id="0" precision="I64">{in_dims}</port>
        <port id="1" precision="I64"/>
        <port id="2" precision="I64"/>
        <port id="3" precision="I64"/>
    </input>
    <output>
        <port id="4" precision="I64" names="output">{out_dims}</port>
    </output>
</layer>"""


def _dims(shape: tuple[int, ...]) -> str:
    return "".join(f"<dim>{n}</dim>" for n in shape)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_spec_example_in_the_specs_own_xml(ex: SpecExample, tmp_path: Path) -> None:
    in_shape, out_shape = np.shape(ex.indices), np.shape(ex.output)
    consts = "".join(
        f'<layer id="{k}" name="c{k}" type="Const" version="opset1"><data element_type="i64" shape="" '
        f'offset="{8 * (k - 1)}" size="8"/><output><port id="0" precision="I64"/></output></layer>'
        for k in (1, 2, 3)
    )
    xml = (
        '<?xml version="1.0"?><net name="spec" version="11"><layers>'
        f'<layer id="0" name="indices" type="Parameter" version="opset1"><data shape="{",".join(map(str, in_shape))}" '
        f'element_type="i64"/><output><port id="0" precision="I64">{_dims(in_shape)}</port></output></layer>'
        + consts
        + SPEC_LAYER.format(axis=ex.axis, in_dims=_dims(in_shape), out_dims=_dims(out_shape))
        + '<layer id="5" name="r" type="Result" version="opset1"><input><port id="0" precision="I64">'
        + _dims(out_shape)
        + "</port></input></layer></layers><edges>"
        + "".join(f'<edge from-layer="{k}" from-port="0" to-layer="4" to-port="{k}"/>' for k in (0, 1, 2, 3))
        + '<edge from-layer="4" from-port="4" to-layer="5" to-port="0"/></edges></net>'
    )
    path = tmp_path / "spec.xml"
    path.write_text(xml)
    path.with_suffix(".bin").write_bytes(np.array([ex.depth, ex.on_value, ex.off_value], np.int64).tobytes())
    inputs = {"indices": np.array(ex.indices, np.int64)}
    ours = ovonehot.load(path).run(inputs)["output"]
    assert_same(ours, _expected(ex, np.int64), ex.name)
    from ovonehot.oracle.openvino_runtime import reference_run

    assert_same(reference_run(path, inputs)["output"], _expected(ex, np.int64), f"{ex.name} OpenVINO")
