"""The long conformance run: thousands of generated cases (tests/conformance) against OpenVINO.

    python scripts/conformance.py --cases-per-op N --seed S --jobs 1 [--filter REGEX] [--out docs/conformance.md]

Every op-version of the registry (or those whose ``Type-version`` matches ``--filter``) gets up
to N cases; each runs every kernel variant of its spec against OpenVINO's reference (or the CPU
plugin in its exact envelope).  Writes a per-op table (cases, passed, refused by both, no oracle
with reasons, known failures, failed with the first failing case) to ``--out``; exits 1 when a
case failed that the table does not know.  ``--jobs`` > 1 splits the ops over processes.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]  # (this checkout's ovonehot and its tests/conformance)

from ovonehot.ops import specs  # noqa: E402 - after the sys.path line above
from tests.conformance.generate import cases  # noqa: E402 - after the sys.path line above
from tests.conformance.harness import Harness, Verdict  # noqa: E402 - after the sys.path line above
from tests.conformance.sample import known_failure  # noqa: E402 - after the sys.path line above
from tests.conformance.table import entry  # noqa: E402 - after the sys.path line above


@dataclass(slots=True)
class Row:
    op: str
    cases: int = 0
    passed: int = 0
    refused: int = 0
    no_oracle: collections.Counter[str] = field(default_factory=collections.Counter)
    known: collections.Counter[str] = field(default_factory=collections.Counter)
    failed: list[str] = field(default_factory=list)
    note: str = ""


def _reason(text: str) -> str:
    """A no-oracle reason without the case's types (so reasons group)."""
    return re.sub(
        r" on \([^)]*\)", "", text.split(";")[0] + (";" + text.split(";")[1] if ";" in text else "")
    )[:120]


def run_ops(names: list[str], n: int, seed: int) -> list[Row]:
    harness = Harness()
    rows = []
    try:
        for spec in specs():
            if spec.name not in names:
                continue
            row = Row(spec.name, note=entry(spec).not_generated)
            for case in cases(spec, n, seed):
                outcome = harness.run(case)
                row.cases += 1
                if outcome.verdict is Verdict.PASSED:
                    row.passed += 1
                elif outcome.verdict is Verdict.REFUSED:
                    row.refused += 1
                elif outcome.verdict is Verdict.NO_ORACLE:
                    row.no_oracle[_reason(outcome.detail)] += 1
                elif known_failure(case):
                    row.known[known_failure(case)] += 1
                else:
                    row.failed.append(f"{case.label}: {outcome.detail.splitlines()[0][:160]}")
            rows.append(row)
            print(f"{row.op}: {row.cases} cases, {row.passed} passed, {len(row.failed)} failed", flush=True)
    finally:
        harness.close()
    return rows


def known_lines() -> list[str]:
    """One line per known-failure reason, with the op-versions it is declared for."""
    by_reason: dict[str, list[str]] = {}
    for spec in specs():
        for known in entry(spec).known:
            by_reason.setdefault(known.reason, []).append(spec.name)
    return [f"- {reason}: {', '.join(names)}" for reason, names in by_reason.items()]


def table(rows: list[Row], n: int, seed: int, seconds: float) -> str:
    total = collections.Counter(
        cases=sum(r.cases for r in rows),
        passed=sum(r.passed for r in rows),
        refused=sum(r.refused for r in rows),
        no_oracle=sum(sum(r.no_oracle.values()) for r in rows),
        known=sum(sum(r.known.values()) for r in rows),
        failed=sum(len(r.failed) for r in rows),
    )
    lines = [
        "# Op conformance: generated cases against OpenVINO",
        "",
        (
            f"`python scripts/conformance.py --cases-per-op {n} --seed {seed} --jobs 1` "
            f"({len(rows)} op-versions, {total['cases']} cases, {seconds:.0f} s).  How the cases are made and "
            "judged: tests/conformance (generate.py, harness.py; seeds and known failures in table.py)."
        ),
        "",
        (
            f"Totals: {total['passed']} passed, {total['refused']} refused by both OpenVINO and ovonehot, "
            f"{total['no_oracle']} without an oracle (kernels still checked against each other), "
            f"{total['known']} known failures, {total['failed']} other failures."
        ),
        "",
        (
            "How a case is judged: the one-op model is built and written by ovonehot, read by OpenVINO and "
            "computed by its core reference (`Node.evaluate`) in a child process; where the reference has no "
            "kernel, the CPU plugin (deterministic configuration) is the oracle only inside its exact envelope "
            "(integer/boolean or copied outputs, plugin types). Every kernel variant of the spec runs: `evaluate` "
            "must give OpenVINO's bytes (NaN = NaN, -0.0 != +0.0, within the op's stated ulp) or refuse where "
            "OpenVINO refuses; every kernel `specialize` makes (declared shapes; static shapes with inputs unfolded and "
            "folded; exact, fast, an offered buffer, fresh variables) gives `evaluate`'s bytes, fast ones within the summation bound; every "
            "output an `np.ndarray` of the inferred dtype and a shape inference accepts. *Refused*: OpenVINO and "
            "ovonehot both refused at run time. *No oracle*: kernels checked against each other only."
        ),
        "",
        (
            "Planted regressions (tests/conformance/test_planted.py, in the default test run): a 0-d output "
            "returned as NumPy's scalar, a wrong dtype, and a wrong boundary value (-0.0 -> +0.0, NaN -> 0, "
            "integer max -> max - 1), each planted into copies of Add-1, Convert-0, Negative-0 and Gather-8 "
            "(`dataclasses.replace` on the OpSpec), fail the CI sample; the unmodified specs pass it. A bug "
            "only at the seam of the blocked narrow-float element-wise path fails it too (the harness runs "
            "those ops again in blocks of three elements)."
        ),
        "",
        "## Known failures (tests/conformance/table.py; strict xfail per entry in the suite)",
        "",
        *known_lines(),
        "",
        "## Per op-version",
        "",
        "| op-version | cases | passed | refused | no oracle (reasons) | known failures | failed (first) |",
        "|---|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        no_oracle = f"{sum(r.no_oracle.values())}: " + "; ".join(
            f"{k} ({v})" for k, v in r.no_oracle.most_common(2)
        )
        known = "; ".join(f"{k} ({v})" for k, v in r.known.items())
        failed = f"{len(r.failed)}: `{r.failed[0]}`" if r.failed else "0"
        cells = [
            r.op,
            str(r.cases),
            str(r.passed),
            str(r.refused),
            no_oracle if r.no_oracle else "0",
            known or "",
            failed.replace("|", "\\|"),
        ]
        if r.note:
            cells[-1] = f"not generated: {r.note}"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases-per-op", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--filter", default="")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "conformance.md")
    args = parser.parse_args()
    pattern = re.compile(args.filter)
    names = [s.name for s in specs() if pattern.search(s.name)]
    start = time.monotonic()
    if args.jobs <= 1:
        rows = run_ops(names, args.cases_per_op, args.seed)
    else:
        parts = [names[k :: args.jobs] for k in range(args.jobs)]
        with ProcessPoolExecutor(args.jobs) as pool:
            found = pool.map(run_ops, parts, [args.cases_per_op] * args.jobs, [args.seed] * args.jobs)
        by_name = {r.op: r for part in found for r in part}
        rows = [by_name[n] for n in names]
    args.out.write_text(table(rows, args.cases_per_op, args.seed, time.monotonic() - start))
    print(f"wrote {args.out}")
    return 1 if any(r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
