"""RandomUniform-8 bit for bit against OpenVINO's core reference (``Node.evaluate``) and its CPU plugin.

Every (alignment, output type) pair is run for several seeds, shapes and ranges; each
case builds a fresh OpenVINO node, so ``Node.evaluate`` gives the op's first sequence
(a node's later evaluations continue it; ovonehot always gives the first).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from ovref import C, P, assert_same, build, compare_op, cpu_outputs, infer_shapes

import ovonehot
from ovonehot.errors import InputError, ValidationError
from ovonehot.ops import random_uniform as ru
from ovonehot.ops.common.spec import TensorInfo
from ovonehot.types import ElementType, PartialShape

ov = pytest.importorskip("openvino")
ops = pytest.importorskip("openvino.opset15")

BF16 = ml_dtypes.bfloat16
DTYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "bf16": BF16,
    "f64": np.float64,
    "i32": np.int32,
    "i64": np.int64,
}

# (output type, min, max): float ranges that are not powers of two, so the scaling rounds;
# integer ranges that do not divide 2**32, wide ones, and ones crossing the int32/uint32 limits.
RANGES = [
    ("f32", -1.5, 2.3),
    ("f32", 0.0, 1.0),
    ("f16", -1.5, 2.3),
    ("f16", 10.0, 1000.0),
    ("bf16", -1.5, 2.3),
    ("bf16", 0.0, 100.0),
    ("f64", -1.5, 2.3),
    ("f64", 1e-3, 1e300),
    ("i32", -3, 100),
    ("i32", -(2**31), 2**31 - 1),
    ("i64", -3, 100),
    ("i64", -(2**40), 2**41 + 7),
    ("i64", 5, 2**32 + 9),
]
SEEDS = [(1, 2), (0, 7), (7, 0), (150, 10), (2**40 + 3, 2**33 + 5), (2**63 - 1, 2**63 - 5)]
SHAPES = [(1,), (5,), (3, 7), (2, 0, 3), (1000,)]


def _cases():  # type: ignore[no-untyped-def]
    for align in ("tensorflow", "pytorch"):
        for k, (et, lo, hi) in enumerate(RANGES):
            seeds = SEEDS[k % len(SEEDS)]
            shape = SHAPES[k % len(SHAPES)]
            yield pytest.param(align, et, lo, hi, seeds, shape, id=f"{align}-{et}-{lo}-{hi}-seed{seeds[0]}")


@pytest.mark.parametrize(("align", "et", "lo", "hi", "seeds", "shape"), list(_cases()))
def test_bit_exact_with_reference(tmp_path, align, et, lo, hi, seeds, shape):  # type: ignore[no-untyped-def]
    dtype = DTYPES[et]

    def factory(s, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(s, a, b, et, seeds[0], seeds[1], align)

    lo_v, hi_v = np.array(lo, np.float64).astype(dtype), np.array(hi, np.float64).astype(dtype)
    if et in ("i32", "i64"):
        lo_v, hi_v = np.array(lo, dtype), np.array(hi, dtype)
    compare_op(tmp_path, factory, [C(np.array(shape, np.int64)), P(lo_v), P(hi_v)])


@pytest.mark.parametrize("align", ["tensorflow", "pytorch"])
@pytest.mark.parametrize("et", list(DTYPES))
@pytest.mark.parametrize("seed", [3, 99, 2**33 + 1])
def test_seed_sweep(align, et, seed):  # type: ignore[no-untyped-def]
    """Many seeds per type without the IR round trip: the kernel against Node.evaluate."""
    from ovref import reference

    dtype = DTYPES[et]
    lo, hi = (
        (np.array(-2, dtype), np.array(7, dtype))
        if et[0] == "i"
        else (
            np.array(-0.7, np.float64).astype(dtype),
            np.array(3.1, np.float64).astype(dtype),
        )
    )
    shape = np.array([37], np.int32)

    def factory(s, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(s, a, b, et, seed, seed // 3, align)

    node, _ = build(factory, [C(shape), P(lo), P(hi)])
    theirs = reference(node, [shape, lo, hi])
    assert theirs is not None
    attrs = ru.RandomUniformAttrs(ElementType(et), seed, seed // 3, ru.Alignment(align))
    (ours,) = ru.evaluate_random_uniform(attrs, [shape, lo, hi])
    assert_same(ours, theirs[0], where=f"{align} {et} seed {seed}")


@pytest.mark.parametrize("align", ["tensorflow", "pytorch"])
@pytest.mark.parametrize(
    ("et", "lo", "hi"), [("f16", -65504.0, 65504.0), ("f32", -3e38, 3e38), ("f64", -1e308, 1e308)]
)
def test_span_past_the_type_range(align, et, lo, hi):  # type: ignore[no-untyped-def]
    """max - min overflows to inf in the output type: the values follow IEEE as OpenVINO's do."""
    from ovref import reference

    dtype = DTYPES[et]
    lo_v, hi_v, shape = np.array(lo, dtype), np.array(hi, dtype), np.array([9], np.int64)
    node, _ = build(
        lambda s, a, b: ops.random_uniform(s, a, b, et, 4, 5, align), [C(shape), P(lo_v), P(hi_v)]
    )
    theirs = reference(node, [shape, lo_v, hi_v])
    assert theirs is not None
    attrs = ru.RandomUniformAttrs(ElementType(et), 4, 5, ru.Alignment(align))
    assert_same(ru.evaluate_random_uniform(attrs, [shape, lo_v, hi_v])[0], theirs[0])


def test_shape_from_a_parameter_and_min_max_as_one_element_tensors(tmp_path):  # type: ignore[no-untyped-def]
    def factory(s, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(s, a, b, "f32", 11, 12)

    compare_op(
        tmp_path, factory, [P(np.array([4, 3], np.int32)), P(np.array([-2.0], np.float32)), C(np.float32(5))]
    )


# The CPU plugin (deterministic config) agrees bit for bit where it computes in the output type:
# pytorch f32/i32/i64/bf16 and tensorflow i32.  Measured deviations (2026.4): tensorflow f32
# differs by at most 1 ulp (the plugin fuses x * (max - min) + min into an FMA), f16/f64 are
# generated as f32 and converted, tensorflow i64 uses another word layout.
CPU_EXACT = [
    ("pytorch", "f32"),
    ("pytorch", "i32"),
    ("pytorch", "i64"),
    ("pytorch", "bf16"),
    ("tensorflow", "i32"),
]


@pytest.mark.parametrize(("align", "et"), CPU_EXACT)
@pytest.mark.parametrize("seeds", [(3, 4), (0, 9), (12345, 1)], ids=str)
def test_cpu_plugin_agrees(align, et, seeds):  # type: ignore[no-untyped-def]
    dtype = DTYPES[et]
    lo, hi = (
        (np.array(-3, dtype), np.array(100, dtype))
        if et[0] == "i"
        else (
            np.array(-1.5, np.float32).astype(dtype),
            np.array(2.25, np.float32).astype(dtype),
        )
    )
    shape = np.array([3, 5], np.int64)

    def factory(s, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(s, a, b, et, seeds[0], seeds[1], align)

    node, params = build(factory, [P(shape), C(lo), C(hi)])
    (theirs,) = cpu_outputs(node, params, [shape])
    attrs = ru.RandomUniformAttrs(ElementType(et), seeds[0], seeds[1], ru.Alignment(align))
    (ours,) = ru.evaluate_random_uniform(attrs, [shape, lo, hi])
    if et == "bf16":  # the plugin hands bf16 back as float16-typed raw bits (docs/openvino-behaviour.md)
        theirs = theirs.view(np.uint16).view(BF16)
    assert_same(ours, theirs, where=f"CPU {align} {et}")


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize(("lo", "hi"), [(-1.5, 2.3), (-100.0, 3.0)])
def test_cpu_plugin_tensorflow_f32_is_a_fused_multiply_add(lo, hi):  # type: ignore[no-untyped-def]
    """The plugin computes fma(unit, max - min, min) (one rounding), the reference rounds twice."""
    shape = np.array([64, 16], np.int64)
    lo, hi = np.float32(lo), np.float32(hi)
    node, params = build(lambda s, a, b: ops.random_uniform(s, a, b, "f32", 5, 6), [P(shape), C(lo), C(hi)])
    (theirs,) = cpu_outputs(node, params, [shape])
    words = ru.philox_words(256, 5, 6).reshape(-1)
    unit = ((words & 0x7FFFFF) | (127 << 23)).view(np.float32) - np.float32(1)
    fused = (unit.astype(np.float64) * np.float64(hi - lo) + np.float64(lo)).astype(
        np.float32
    )  # exact product
    assert_same(fused.reshape(64, 16), theirs, where="CPU tensorflow f32 = fma")
    (ours,) = ru.evaluate_random_uniform(ru.RandomUniformAttrs(ElementType.f32, 5, 6), [shape, lo, hi])
    error = np.abs(ours.astype(np.float64) - theirs)
    assert 0 < error.max() <= np.spacing(hi - lo)  # at most one ulp of the span


@pytest.mark.held_for("openvino==2026.4.1")
@pytest.mark.parametrize("align", ["tensorflow", "pytorch"])
@pytest.mark.parametrize("et", ["f16", "f64", "i64"])
def test_cpu_plugin_generates_wide_and_half_types_in_32_bits(align, et):  # type: ignore[no-untyped-def]
    """The plugin's f16/f64 output is its f32 sequence converted, its i64 the i32 sequence widened
    (reproduced bit for bit here); the reference generates each type its own way."""
    dtype = DTYPES[et]
    lo, hi = (
        (np.array(-3, dtype), np.array(100, dtype))
        if et == "i64"
        else (np.array(-1.5, dtype), np.array(2.25, dtype))
    )
    shape = np.array([4, 8], np.int64)
    node, params = build(
        lambda s, a, b: ops.random_uniform(s, a, b, et, 3, 4, align), [P(shape), C(lo), C(hi)]
    )
    (theirs,) = cpu_outputs(node, params, [shape])
    if et == "i64":
        narrow = ru.RandomUniformAttrs(ElementType.i32, 3, 4, ru.Alignment(align))
        (as_32,) = ru.evaluate_random_uniform(narrow, [shape, np.int32(lo), np.int32(hi)])
    elif align == "tensorflow":  # f32 with the plugin's fused multiply-add
        words = ru.philox_words(8, 3, 4).reshape(-1)
        unit = ((words & 0x7FFFFF) | (127 << 23)).view(np.float32) - np.float32(1)
        span = np.float64(np.float32(hi) - np.float32(lo))
        as_32 = (unit.astype(np.float64) * span + np.float64(np.float32(lo))).astype(np.float32).reshape(4, 8)
    else:
        narrow = ru.RandomUniformAttrs(ElementType.f32, 3, 4, ru.Alignment(align))
        (as_32,) = ru.evaluate_random_uniform(narrow, [shape, np.float32(lo), np.float32(hi)])
    assert_same(as_32.astype(dtype), theirs)
    (ours,) = ru.evaluate_random_uniform(
        ru.RandomUniformAttrs(ElementType(et), 3, 4, ru.Alignment(align)), [shape, lo, hi]
    )
    # (pytorch i64 with bounds inside u32 takes one word per value in the reference too: equal there)
    assert np.array_equal(ours, theirs) == (align == "pytorch" and et == "i64")


def test_both_seeds_zero_is_nondeterministic():  # type: ignore[no-untyped-def]
    attrs = ru.RandomUniformAttrs(ElementType.f32, 0, 0)
    args = [np.array([64]), np.array(0, np.float32), np.array(1, np.float32)]
    a, b = (ru.evaluate_random_uniform(attrs, args)[0] for _ in range(2))
    assert not np.array_equal(a, b)
    assert ((a >= 0) & (a < 1)).all()
    seeded = ru.evaluate_random_uniform(ru.RandomUniformAttrs(ElementType.f32, 0, 1), args)[0]
    assert np.array_equal(
        seeded, ru.evaluate_random_uniform(ru.RandomUniformAttrs(ElementType.f32, 0, 1), args)[0]
    )


@pytest.mark.parametrize("seeds", [(1, 2), (5, 6)])
def test_a_depth_computed_from_random_values_is_what_read_model_infers(tmp_path, seeds):  # type: ignore[no-untyped-def]
    """read_model evaluates RandomUniform (its first sequence) when a shape depends on it."""
    c = ops.constant
    values = ops.random_uniform(c(np.array([3])), c(np.int32(0)), c(np.int32(50)), "i32", *seeds)
    depth = ops.squeeze(ops.gather(values, c(np.int64(0)), c(np.int64(0))))
    one_hot = ops.one_hot(c(np.array([0, 1])), depth, c(np.float32(1)), c(np.float32(0)), -1)
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([one_hot], []), str(xml), compress_to_fp16=False)
    theirs = ov.Core().read_model(str(xml)).outputs[0].get_partial_shape()
    (desc,) = ovonehot.load(xml).outputs
    assert str(desc.shape) == str(theirs)
    assert theirs.is_static


RU_INFER = [
    pytest.param(C(np.array([2, -1], np.int64)), id="minus-one-is-dynamic"),
    pytest.param(C(np.array([2, -3], np.int32)), id="negative-is-zero"),
    pytest.param(P(np.array([2, 3, 4]), shape="3"), id="parameter-static-length"),
    pytest.param(P(np.array([2, 3]), shape="1..3"), id="parameter-interval-length"),
    pytest.param(P(np.array([2, 3]), shape="?"), id="parameter-dynamic-length"),
]


@pytest.mark.parametrize("shape_in", RU_INFER)
def test_inference_agrees(tmp_path, shape_in):  # type: ignore[no-untyped-def]
    def factory(s, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(s, a, b, "f32", 1, 2)

    ours, theirs = infer_shapes(tmp_path, factory, [shape_in, C(np.float32(0)), C(np.float32(1))])
    assert ours == theirs


def test_shape_from_shape_of_keeps_intervals(tmp_path):  # type: ignore[no-untyped-def]
    def factory(x, a, b):  # type: ignore[no-untyped-def]
        return ops.random_uniform(ops.shape_of(x), a, b, "i32", 1, 2)

    x = P(np.zeros((2, 4), np.float32), shape="1..3,4")
    ours, theirs = infer_shapes(tmp_path, factory, [x, C(np.int32(0)), C(np.int32(9))])
    assert ours == theirs == ["i32[1..3,4]"]


def _info(et: ElementType, shape: tuple[int, ...], value: object = None) -> TensorInfo:
    return TensorInfo(et, PartialShape.of(shape), value=None if value is None else np.asarray(value))


REFUSALS = [
    pytest.param(
        ElementType.i16, ElementType.f32, ElementType.f32, (2,), (), 0.0, "int32 or int64", id="shape-type"
    ),
    pytest.param(
        ElementType.i64,
        ElementType.f32,
        ElementType.f16,
        (2,),
        (),
        0.0,
        "same type as 'max_val'",
        id="min-max-type",
    ),
    pytest.param(
        ElementType.i64,
        ElementType.f64,
        ElementType.f64,
        (2,),
        (),
        0.0,
        "'out_type' attribute",
        id="out-type",
    ),
    pytest.param(
        ElementType.i64, ElementType.f32, ElementType.f32, (1, 2), (), 0.0, "equal to 1", id="shape-rank"
    ),
    pytest.param(
        ElementType.i64, ElementType.f32, ElementType.f32, (2,), (2,), 0.0, "one element 1D", id="min-shape"
    ),
    pytest.param(
        ElementType.i64, ElementType.f32, ElementType.f32, (2,), (), 1.0, "less than max", id="min-not-less"
    ),
    pytest.param(
        ElementType.i64,
        ElementType.f32,
        ElementType.f32,
        (2,),
        (),
        float("nan"),
        "less than max",
        id="nan-min",
    ),
]


@pytest.mark.parametrize(
    ("shape_et", "min_et", "max_et", "shape_shape", "min_shape", "lo", "match"), REFUSALS
)
def test_refusals(shape_et, min_et, max_et, shape_shape, min_shape, lo, match):  # type: ignore[no-untyped-def]
    attrs = ru.RandomUniformAttrs(ElementType.f32, 1, 2)
    lo_info = _info(min_et, min_shape, np.full(min_shape, lo, np.float32))
    hi_info = _info(max_et, (), np.float32(1))
    with pytest.raises(ValidationError, match=match):
        ru.infer_random_uniform(attrs, [_info(shape_et, shape_shape), lo_info, hi_info])


def test_run_time_refusals():  # type: ignore[no-untyped-def]
    attrs = ru.RandomUniformAttrs(ElementType.f32, 1, 2)
    with pytest.raises(InputError, match="less than max"):
        ru.evaluate_random_uniform(attrs, [np.array([3]), np.array(2, np.float32), np.array(1, np.float32)])
    f8 = ru.RandomUniformAttrs(ElementType.f8e4m3, 1, 2)
    with pytest.raises(InputError, match="Unsupported type"):
        ru.evaluate_random_uniform(f8, [np.array([3]), np.array(0, np.float32), np.array(1, np.float32)])
