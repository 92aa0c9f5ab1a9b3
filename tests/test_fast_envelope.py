"""Fast mode stays inside exact mode's rounding envelope on every model of the regression corpus
and the exports (issue 24: "fast results still within the rounding envelope of exact results on
every corpus model").

For each model's first stored case: exact and fast runs; every output whose bytes differ is a
float output with an envelope (``differential/envelope.py``: the float64 truth run and the
rounding error carried from it), and both runs lie inside it.  Non-float outputs give the same
values.  tests/test_fast_mode.py holds each fast kernel to its own derived bound; this holds the
whole models to the envelope ``diff`` judges with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ovonehot
from ovonehot.differential.envelope import envelopes, truth

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "ir" / "corpus"
EXPORTS = ROOT / "ir" / "exports"


def _cases() -> list[object]:
    params = []
    for xml in sorted(CORPUS.glob("*/*/model.xml")):
        first = sorted(xml.parent.glob("*.inputs.npz"))[:1]
        if first:
            params.append(pytest.param(xml, first[0], id=xml.parent.relative_to(CORPUS).as_posix()))
    for xml in sorted(EXPORTS.glob("**/*.xml")):
        first = sorted(xml.parent.glob(f"{xml.stem}.*.inputs.npz"))[:1]
        if first:
            params.append(pytest.param(xml, first[0], id=xml.relative_to(ROOT).with_suffix("").as_posix()))
    return params


CASES = _cases()


def test_the_corpus_is_here() -> None:
    assert len(CASES) >= 140, f"only {len(CASES)} corpus models with stored inputs"


@pytest.mark.parametrize(("xml", "case"), CASES)
def test_fast_inside_the_exact_envelope(xml: Path, case: Path) -> None:
    model = ovonehot.load(xml)
    with np.load(case, allow_pickle=False) as archive:
        inputs = {name: archive[name] for name in archive.files}
    exact, fast = model.run(inputs), model.run(inputs, exact=False)
    assert list(fast) == list(exact)
    differ = []
    for name, e in exact.items():
        f = fast[name]
        assert (f.shape, f.dtype) == (e.shape, e.dtype), name
        if e.dtype == object:  # (strings: values, not pointers)
            assert f.tolist() == e.tolist(), name
        elif f.tobytes() != e.tobytes():
            differ.append(name)
    if not differ:
        return
    envs, _ = envelopes(model, truth(model, inputs))
    for name in differ:
        env = envs.get(name)
        assert env is not None, f"{name}: {exact[name].dtype} output differs and has no envelope"
        for how, values in (("fast", fast[name]), ("exact", exact[name])):
            ratio = env.ratio(values)
            assert ratio <= 1.0, f"{name}: {how} is {ratio:.3g} envelopes from the float64 truth"
