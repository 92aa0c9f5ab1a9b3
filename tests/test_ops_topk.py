"""TopK-1/3/11 against OpenVINO's core reference (values and indices exact) and its shape inference.

``sort=none`` with k > 1 is compared as a set (the reference leaves ``std::nth_element``'s
order, ovonehot gives value order); every other case is compared element by element.
"""

from __future__ import annotations

import numpy as np
import pytest
from ovref import C, P, build, compare_op, infer_shapes, reference

from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import topk
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ops11 = pytest.importorskip("openvino.opset11")
ops3 = pytest.importorskip("openvino.opset3")
ops1 = pytest.importorskip("openvino.opset1")

DATA = np.array([[3, 1, 3, 2, 5, 5], [0, 0, 0, 0, 0, 0], [-1, 4, 2, 4, -7, 4]], np.float32)

TOPK_CASES = [
    pytest.param(1, 1, "max", "none", id="argmax"),
    pytest.param(1, -1, "min", "none", id="argmin"),
    pytest.param(3, 1, "max", "value", id="max-value"),
    pytest.param(3, 1, "max", "index", id="max-index"),
    pytest.param(4, -1, "min", "value", id="min-value"),
    pytest.param(2, 0, "max", "value", id="axis0"),
    pytest.param(6, 1, "min", "index", id="k-equals-dim"),
]


@pytest.mark.parametrize(("k", "axis", "mode", "sort"), TOPK_CASES)
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int32, np.int64, np.float16], ids=lambda d: np.dtype(d).name
)
@pytest.mark.parametrize("index_type", ["i32", "i64"])
def test_topk11_matches_reference(tmp_path, k, axis, mode, sort, dtype, index_type):  # type: ignore[no-untyped-def]
    x = DATA.astype(dtype)
    compare_op(tmp_path, lambda a, b: ops11.topk(a, b, axis, mode, sort, index_type), [P(x), C(np.int64(k))])


@pytest.mark.parametrize("factory", [ops1.topk, ops3.topk], ids=["v1", "v3"])
def test_older_versions(tmp_path, factory):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda a, b: factory(a, b, 1, "max", "value"), [P(DATA), C(np.int32(2))])


def test_sort_none_picks_the_same_set(tmp_path):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (4, 9)).astype(np.float32)  # many ties
    out = compare_op(
        tmp_path,
        lambda a, b: ops11.topk(a, b, 1, "max", "none", "i64"),
        [P(x), C(np.int64(4))],
        evaluate=False,
    )
    node, _ = build(lambda a, b: ops11.topk(a, b, 1, "max", "none", "i64"), [P(x), C(np.int64(4))])
    theirs = reference(node, [x, np.int64(4)])
    assert theirs is not None and out.ours is not None
    assert np.array_equal(np.sort(out.ours[1], axis=1), np.sort(theirs[1], axis=1))
    assert np.array_equal(np.sort(out.ours[0], axis=1), np.sort(theirs[0], axis=1))


def test_k0_follows_inference_not_the_reference_kernel(tmp_path):  # type: ignore[no-untyped-def]
    # OpenVINO infers [3,0] for k = 0, but its reference kernel then returns every element
    # sorted (the legacy "k = 0 means all"): the two disagree, ovonehot keeps the inferred shape.
    def factory(a, b):  # type: ignore[no-untyped-def]
        return ops11.topk(a, b, 1, "max", "value", "i32")

    out = compare_op(tmp_path, factory, [P(DATA), C(np.int64(0))], evaluate=False)
    assert out.ours is not None and [o.shape for o in out.ours] == [(3, 0), (3, 0)]
    node, _ = build(factory, [P(DATA), C(np.int64(0))])
    theirs = reference(node, [DATA, np.int64(0)])
    assert theirs is not None and theirs[0].shape == (3, 6)


def test_k_from_a_parameter(tmp_path):  # type: ignore[no-untyped-def]
    compare_op(tmp_path, lambda a, b: ops11.topk(a, b, 1, "max", "value", "i32"), [P(DATA), P(np.int32(2))])


TOPK_INFER = [
    pytest.param("?,6", 2, id="dyn-batch"),
    pytest.param("3,?", 2, id="dyn-axis"),
    pytest.param("3,2..8", 4, id="interval-axis"),
    pytest.param("...", 2, id="dyn-rank"),
    pytest.param("3,6", None, id="unknown-k"),
    pytest.param("3,1..4", None, id="unknown-k-interval"),
]


@pytest.mark.parametrize(("shape", "k"), TOPK_INFER)
def test_topk_infer_agrees(tmp_path, shape, k):  # type: ignore[no-untyped-def]
    k_in = C(np.int64(k)) if k is not None else P(np.int64(1))

    def factory(a, b):  # type: ignore[no-untyped-def]
        return ops11.topk(a, b, 1, "max", "value", "i64")

    ours, theirs = infer_shapes(tmp_path, factory, [P(np.zeros((), np.float32), shape=shape), k_in])
    assert ours == theirs


def test_k_from_shape_of_gives_an_interval(tmp_path):  # type: ignore[no-untyped-def]
    opset = pytest.importorskip("openvino.opset15")

    def factory(a, b):  # type: ignore[no-untyped-def]
        k = opset.squeeze(opset.shape_of(b), opset.constant(np.int64(0)))
        return ops11.topk(a, k, 1, "max", "value", "i64")

    z = np.zeros((), np.float32)
    ours, theirs = infer_shapes(tmp_path, factory, [P(z, shape="3,10"), P(z, shape="2..5")])
    assert ours == theirs


def test_topk_refusals():  # type: ignore[no-untyped-def]
    attrs = topk.TopKAttrs(1, topk.TopKMode.MAX, topk.TopKSort.VALUE)
    data = TensorInfo(ElementType.f32, PartialShape.of((2, 3)))
    negative = TensorInfo(ElementType.i64, PartialShape.of(()), value=np.array(-2))
    with pytest.raises(ValidationError, match="greater or equal to zero"):
        topk.infer_topk(attrs, [data, negative])
    with pytest.raises(ValidationError, match="out of the tensor rank range"):
        topk.infer_topk(topk.TopKAttrs(2, topk.TopKMode.MAX, topk.TopKSort.VALUE), [data, negative])
    with pytest.raises(InputError, match="must be in"):
        topk.evaluate_topk(attrs, [np.zeros((2, 3), np.float32), np.array(4)])
