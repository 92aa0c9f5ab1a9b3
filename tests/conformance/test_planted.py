"""The net catches kernel regressions: each of three planted bugs, in a modified copy of a few
representative specs (``dataclasses.replace`` on the frozen OpSpec, run through the harness
directly; no module global is touched), fails some case of the CI sample, while the
unmodified specs pass the same cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from ovonehot.ops import OpSpec, lookup
from tests.conformance.harness import Harness, Verdict
from tests.conformance.sample import sample

pytest.importorskip("openvino", reason="the conformance oracle is OpenVINO")

Kernel = Callable[[Any, Sequence[np.ndarray]], Sequence[np.ndarray]]


def scalar(outs: Sequence[np.ndarray]) -> list[Any]:
    """A 0-d output returned as NumPy's scalar (the Convert-to-boolean regression)."""
    return [o[()] if o.ndim == 0 else o for o in outs]


def wrong_dtype(outs: Sequence[np.ndarray]) -> list[Any]:
    return [o.astype(np.float64 if o.dtype != np.float64 else np.float32) for o in outs]


def boundary(outs: Sequence[np.ndarray]) -> list[Any]:
    """-0.0 becomes +0.0, NaN becomes 0, an integer type's max becomes max - 1."""
    changed = []
    for o in outs:
        o = o.copy()
        if o.dtype.kind == "f":
            o[(o == 0) & np.signbit(o)] = 0.0
            o[np.isnan(o)] = 0.0
        elif o.dtype.kind in "iu":
            o[o == np.iinfo(o.dtype).max] -= 1
        changed.append(o)
    return changed


PLANTS = {"0-d scalar": scalar, "wrong dtype": wrong_dtype, "boundary value": boundary}
# Representative specs per plant: an arithmetic op, a copying op, a conversion, one with bind.
SPECS = [("Add", "opset1"), ("Convert", "opset1"), ("Negative", "opset1"), ("Gather", "opset8")]
NO_0D_OUTPUT = {("Gather", "opset8")}  # (its sample cases gather rows: no 0-d output to plant into)


def planted(spec: OpSpec[Any], change: Callable[[Sequence[np.ndarray]], list[Any]]) -> OpSpec[Any]:
    kernel = spec.evaluate
    assert kernel is not None

    def bad(attrs: Any, inputs: Sequence[np.ndarray]) -> list[Any]:
        return change(kernel(attrs, inputs))

    return replace(spec, evaluate=bad)


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    yield h
    h.close()


@pytest.mark.parametrize("type_version", [pytest.param(s, id=f"{s[0]}-{s[1]}") for s in SPECS])
@pytest.mark.parametrize("plant", list(PLANTS))
def test_planted_regression_fails_the_ci_sample(
    harness: Harness, plant: str, type_version: tuple[str, str]
) -> None:
    if plant == "0-d scalar" and type_version in NO_0D_OUTPUT:
        pytest.skip("the CI sample of this spec has no 0-d output")
    spec = lookup(*type_version)
    assert spec is not None
    own = [c for c in sample() if c.spec is spec]
    assert own, f"the CI sample has no case of {spec.name}"
    clean = [harness.run(c) for c in own]
    assert all(o.verdict is not Verdict.FAILED for o in clean), "the unmodified spec fails: no control"
    bad = planted(spec, PLANTS[plant])
    caught = [o for o in (harness.run(c, spec=bad) for c in own) if o.verdict is Verdict.FAILED]
    assert caught, f"planted '{plant}' in {spec.name}: no case of the CI sample fails"


def test_planted_block_seam_fails_the_ci_sample(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug only in the blocked narrow-float path (``NARROW_BLOCK``, 1M elements: never reached
    by the sample's small cases at its real size) is caught, because the harness also runs
    those ops in blocks of three elements."""
    from ovonehot.ops import elementwise

    original = elementwise._narrow_in_blocks

    def seam(kernel: Any, a: np.ndarray, b: np.ndarray, attrs: Any) -> np.ndarray:
        out = original(kernel, a, b, attrs)
        if out.size > elementwise.NARROW_BLOCK:  # (blocked: the last element of the last block)
            out = out.copy()
            out.reshape(-1)[-1] = out.dtype.type(1.5) if out.reshape(-1)[-1] != 1.5 else out.dtype.type(2)
        return out

    own = [c for c in sample() if c.spec.type in elementwise.IN_BLOCKS and c.types[0].name in ("f16", "bf16")]
    assert own, "the CI sample has no narrow-float element-wise case"
    assert all(harness.run(c).verdict is not Verdict.FAILED for c in own), "unmodified: no control"
    monkeypatch.setattr(elementwise, "_narrow_in_blocks", seam)
    caught = [c for c in own if harness.run(c).verdict is Verdict.FAILED]
    assert caught, "a bug at the block seam: no case of the CI sample fails"
