"""Large u4/i4 Constants kept packed (:class:`ovonehot.packed.Packed`): every way of reading
one gives ``payload.decode``'s values, and a payload the .bin does not hold is refused."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ovonehot
from ovonehot.errors import IRError
from ovonehot.infer import infer
from ovonehot.ir import payload
from ovonehot.ir.builder import GraphBuilder
from ovonehot.ir.reader import read_ir
from ovonehot.ir.writer import write_ir
from ovonehot.packed import Packed
from ovonehot.types import ElementType, PartialShape

TYPES = [(ElementType.u4, ml_dtypes.uint4, 0, 15), (ElementType.i4, ml_dtypes.int4, -8, 7)]
SHAPES = [(7, 9), (70001,), (3, 5, 7), (4, 0), (1, 1), (33, 2049)]


@pytest.mark.parametrize(("et", "dtype", "lo", "hi"), TYPES, ids=["u4", "i4"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_packed_reads_as_decode(
    et: ElementType, dtype: type, lo: int, hi: int, shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(len(shape) * 31 + sum(shape))
    value = rng.integers(lo, hi + 1, shape).astype(dtype)
    raw = payload.encode(et, value)
    want = payload.decode(et, shape, raw)
    p = Packed(et, shape, np.frombuffer(raw, np.uint8))
    for got in (p.unpack(), np.asarray(p)):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.astype(np.int8), want.astype(np.int8))
    assert payload.encode(et, p) == raw
    if shape and shape[0] > 1:
        for index in (slice(1, 3), slice(0, 1), slice(2, None), np.array([2, 0, -1, 1])):
            assert np.array_equal(p.take(index).astype(np.int8), want[index].astype(np.int8)), index
        with pytest.raises(IndexError):
            p.take(np.array([shape[0]]))


def test_a_short_payload_is_refused() -> None:
    with pytest.raises(IRError, match="needed"):
        payload.decode_lazy(ElementType.u4, (300, 300), b"\x00" * 100)


def _model(tmp_path: Path, et: ElementType, value: np.ndarray) -> Path:
    b = GraphBuilder("packed")
    x = b.parameter("x", ElementType.f32, PartialShape.of((2, value.shape[1])))
    w = b.op("Convert", "opset1", [b.constant(et, value)], {"destination_type": "f32"})
    b.result(b.op("MatMul", "opset1", [x, w], {"transpose_a": "false", "transpose_b": "true"}), "y")
    graph = b.build()
    xml = tmp_path / "m.xml"
    write_ir(graph, xml, inference=infer(graph))
    return xml


def test_the_reader_keeps_large_nibble_constants_packed(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    value = rng.integers(0, 16, (300, 301)).astype(ml_dtypes.uint4)
    xml = _model(tmp_path, ElementType.u4, value)
    (const,) = [n for n in read_ir(xml).nodes if n.payload is not None]
    assert isinstance(const.payload, Packed)
    assert const.payload.nbytes == (300 * 301 + 1) // 2
    model = ovonehot.load(xml)
    x = rng.standard_normal((2, 301)).astype(np.float32)
    want = x @ value.astype(np.float32).T
    for exact in (True, False):
        got = model.run({"x": x}, exact=exact)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    # a .bin cut short: the reader refuses it, naming the layer
    bin_path = xml.with_suffix(".bin")
    bin_path.write_bytes(bin_path.read_bytes()[:1000])
    with pytest.raises(IRError, match="Const"):
        read_ir(xml)
