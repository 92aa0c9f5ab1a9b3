"""Every kernel a spec's ``specialize`` can make is exercised by its generated cases: a
``specialize`` whose kernels no case reaches (None on all of them, say, or raising) turns this
red.  Read from the harness's own record of what ran (``Outcome.variants``: ``specialize/exact``,
``specialize/fast``, ``specialize/out``, ``specialize/variables``), on the CI sample's cases,
plus more of the spec's cases if needed.  Which modes a spec's kernels must serve is a fact
written here, per op family, and checked against what its ``specialize`` does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ovonehot.ops import OpSpec, specs
from ovonehot.ops.elementwise import IN_BLOCKS
from tests.conformance.generate import cases
from tests.conformance.harness import Harness
from tests.conformance.sample import SEED, sample

# The ops whose ``specialize`` has a fast variant, writes into an offered buffer, or keeps state.
FAST = {
    "MatMul",
    "Softmax",
    "LogSoftmax",
    "ReduceSum",
    "ReduceMean",
    "ReduceL1",
    "ReduceL2",
    "MVN",
    "NormalizeL2",
    "ScaledDotProductAttention",
    "Convolution",
    "GroupConvolution",
    "AvgPool",
    "Swish",
    "Clamp",
    "Relu",
    "Gelu",
    "GroupNormalization",
    "Interpolate",
    "ConvolutionBackpropData",
    "GroupConvolutionBackpropData",
}
# The ops of FAST whose exact runs are ``evaluate`` itself (``specialize`` makes no exact kernel).
EXACT_IS_EVALUATE = {
    "ReduceL1",
    "ReduceL2",
    "NormalizeL2",
    "Clamp",
    "Gelu",
    "GroupNormalization",
    "Interpolate",
    "ConvolutionBackpropData",
    "GroupConvolutionBackpropData",
}
INTO = {"OneHot"}
# The ops whose ``specialize`` skips an output nothing reads (``RunMode.unused``).
UNUSED = {("MaxPool", 8), ("MaxPool", 14)}
STATEFUL = {"ReadValue", "Assign"}
# Ops run by a plan only with a run's hooks or state (their bodies): no generated case.
BODIES = {"Loop", "If", "TensorIterator"}


def required(spec: OpSpec[Any]) -> frozenset[str]:
    # (narrow floats in blocks: tests/conformance/harness.py's _blocked)
    blocked = {"evaluate/blocked"} if spec.type in IN_BLOCKS else set()
    if spec.specialize is None or spec.type in BODIES:
        return frozenset(blocked)
    if spec.type in STATEFUL:
        return frozenset({"specialize/variables"})
    need = {"specialize/fast"} if spec.type in FAST else set()
    need |= blocked
    if spec.type in INTO:
        need.add("specialize/out")
    if spec.type not in EXACT_IS_EVALUATE:
        need.add("specialize/exact")
    if (spec.type, spec.version) in UNUSED:
        need.add("specialize/unused")
    return frozenset(need)


WITH_VARIANTS = [pytest.param(s, id=s.name) for s in specs() if required(s)]


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    h.close()


@pytest.mark.parametrize("spec", WITH_VARIANTS)
def test_every_kernel_variant_has_a_case(harness: Harness, spec: OpSpec[Any]) -> None:
    ran: set[str] = set()
    for case in [c for c in sample() if c.spec is spec]:
        ran |= harness.kernels(case).variants
    if not required(spec) <= ran:  # (the sample's few cases missed one: the spec's others)
        for case in cases(spec, 32, SEED):
            ran |= harness.kernels(case).variants
    missing = required(spec) - ran
    assert not missing, f"{spec.name}: no generated case exercises {sorted(missing)}"


SHAPES_ONLY = [pytest.param(s, id=s.name) for s in specs() if s.shapes_only]


@pytest.mark.parametrize("spec", SHAPES_ONLY)
def test_shapes_only_ops_infer_the_same_shapes_without_values(spec: OpSpec[Any]) -> None:
    """``OpSpec.shapes_only`` (the evaluator's size check then reads no value) holds on the spec's
    generated cases: its rule gives every case's types and shapes alike with the inputs' values
    known and unknown (or refuses both ways)."""
    from ovonehot.errors import Error
    from ovonehot.ops.common.spec import TensorInfo

    checked = 0
    for case in cases(spec, 32, SEED):
        attrs = spec.parse(case.node())
        with_values = [TensorInfo(i.element_type, i.info(static=True).shape, i.value) for i in case.inputs]
        without = [TensorInfo(i.element_type, i.info(static=True).shape) for i in case.inputs]
        try:
            expected = [(t.element_type, t.shape) for t in spec.infer(attrs, with_values)]
        except Error:
            with pytest.raises(Error):
                spec.infer(attrs, without)
            continue
        assert [(t.element_type, t.shape) for t in spec.infer(attrs, without)] == expected, case.label
        checked += 1
    assert checked, f"{spec.name}: no generated case infers"
