"""Differential campaign: folded plans with the kernels ``OpSpec.specialize`` makes against
plans without them.

A kernel ``specialize`` makes for a signature must give the bytes of the op's own kernel, and
where it does not decide a value (an index out of range, a zero divisor, shapes NumPy will not
broadcast) the op's own kernel must run and word the error.  Exact runs are compared with runs
of ``RunMode(specialized=False)`` (every op's ``evaluate``); fast runs with a first run of a
fresh plan (the model's declared shapes, nothing folded), so a fast result does not depend on
folding.  The unit tests check chosen cases;
this runs whole graphs many times with *new values of one signature* (what a folded plan sees
in use): every IR under ``ir/`` and random graphs of ``ovonehot.differential.fuzz_graphs``, each
with inputs drawn by ``generate_inputs`` (one seed fixes the shapes, later seeds draw values,
special values and out-of-range indices included), exact and ``exact=False``.  Each run's
outcome -- the outputs' bytes, or the error's type and message -- must be the same bound and
unbound.

    python scripts/bind_campaign.py [--graphs 300] [--seeds 6] [--seed 1]

Prints a summary (models, runs, bound steps the runs went through, divergences) and each
divergence; exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

import ovonehot
from ovonehot import evaluate as ev
from ovonehot.differential import fuzz_graphs
from ovonehot.differential.gen_inputs import generate_inputs
from ovonehot.infer import infer
from ovonehot.model import Model

ROOT = Path(__file__).resolve().parent.parent


def models(graphs: int, seed: int, irs: bool = True) -> Iterator[tuple[str, Model, Model]]:
    """(name, model run bound, the same model run unbound) for every IR (unless not ``irs``)
    and random graph."""
    for xml in sorted((ROOT / "ir").rglob("*.xml")) if irs else ():
        if "invalid" in xml.parts:
            continue
        try:
            yield str(xml.relative_to(ROOT)), ovonehot.load(xml), ovonehot.load(xml)
        except ovonehot.Error:
            continue
    for k in range(graphs):
        try:
            case = fuzz_graphs.generate(seed, k)
        except ovonehot.Error:
            continue
        yield (
            f"fuzz {seed}/{k} {case.family}",
            Model(case.graph, infer(case.graph)),  # two inferences: a model's plans live with
            Model(case.graph, infer(case.graph)),  # its inference (one shared folds once, for both)
        )


def outcome(model: Model, inputs: dict[str, np.ndarray], mode: ev.RunMode) -> tuple[str, ...]:
    try:
        feeds = dict(zip(model._params, model.bind(inputs), strict=True))
        results = ev.evaluate(model.inference, feeds, mode)
    except ovonehot.Error as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", *(f"{k}:{v.dtype}:{v.shape}:{v.tobytes().hex()}" for k, v in results.items()))


def bound_steps(model: Model, inputs: dict[str, np.ndarray], exact: bool) -> int:
    """The nodes the signature's folded plan runs by a kernel ``specialize`` made."""
    try:
        feeds = dict(zip(model._params, model.bind(inputs), strict=True))
    except ovonehot.Error:
        return 0
    plan = ev.plan_of(model.inference, feeds, ev.RunMode(exact=exact))
    if not plan.folded:
        return 0
    return sum(plan.kernel_of(i) == "specialized" for i in range(len(model.graph.nodes)))


def campaign(graphs: int, seeds: int, seed: int, irs: bool = True) -> tuple[int, int, int, list[str]]:
    """(models, runs each way, bound steps in their plans, the divergences), printed too."""
    runs = bound = count = 0
    divergences: list[str] = []
    for name, with_bind, without in models(graphs, seed, irs):
        try:
            first = generate_inputs(with_bind, seed=seed)
        except ovonehot.Error:
            continue
        shapes = {k: v.shape for k, v in first.items()}
        count += 1
        for exact in (True, False):
            for k in range(seeds):
                try:
                    inputs = (
                        first if k == 0 else generate_inputs(with_bind, seed=seed * 1000 + k, shapes=shapes)
                    )
                except ovonehot.Error:
                    continue
                a = outcome(with_bind, inputs, ev.RunMode(exact=exact))
                if not exact:
                    without.inference.cache.clear()  # (a first run's plan: nothing folded)
                b = outcome(without, inputs, ev.RunMode(exact=exact, specialized=not exact))
                runs += 1
                if a != b:
                    divergences.append(f"{name} exact={exact} seed {k}: {a[:3]} != {b[:3]}")
                    print(f"DIVERGES {divergences[-1]}")
            bound += bound_steps(with_bind, first, exact)
    print(
        f"{count} models, {runs} runs bound and unbound, {bound} bound steps in their plans, "
        f"{len(divergences)} divergences"
    )
    return count, runs, bound, divergences


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    return 1 if campaign(args.graphs, args.seeds, args.seed)[3] else 0


if __name__ == "__main__":
    sys.exit(main())
