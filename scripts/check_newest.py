"""Run the test suite against the newest releases of every dependency and report what changed.

Not part of CI (CI installs exactly ``requirements/lock.txt``).  This script makes a
throw-away venv, installs the project with its test extras *without* the lock (so pip
picks the newest releases the version ranges in pyproject.toml allow), runs the suite
and prints:

* every dependency whose newest version differs from the lock;
* the tests that fail on the newest releases (a behaviour change, or a bug of ours the
  new version exposes);
* which of those are findings held for the locked version of a third party
  (``@pytest.mark.held_for``, run here with ``OVONEHOT_RUN_HELD=1`` instead of skipped):
  a finding that no longer holds on the new release; re-check each one and move the
  finding and the lock together.

Usage: ``python scripts/check_newest.py [--keep VENV_DIR] [-- PYTEST_ARGS...]``.
Exit 0 when nothing changed in behaviour, 1 when a test fails on the newest releases.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"


def read_pins(text: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        name, sep, version = line.partition("==")
        if sep:
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="make the venv here and keep it")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ovonehot-newest-") as tmp:
        venv = args.keep or Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = str(venv / "bin" / "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "--upgrade", "-e", f"{ROOT}[test]"], check=True)
        frozen = subprocess.run(
            [py, "-m", "pip", "freeze", "--exclude-editable"], check=True, capture_output=True, text=True
        ).stdout
        locked, newest = read_pins(LOCK.read_text()), read_pins(frozen)

        print("== versions (lock -> newest)")
        changed = 0
        for name in sorted(set(locked) | set(newest)):
            old, new = locked.get(name, "-"), newest.get(name, "-")
            if old != new:
                changed += 1
                print(f"  {name}: {old} -> {new}")
        if not changed:
            print("  none: the lock holds the newest releases")

        run = subprocess.run(
            [
                *(py, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider"),
                # outside the lock by design here
                "--deselect=tests/test_lock.py::test_installed_versions_are_the_locked_ones",
                *args.pytest_args,
            ],
            env={**os.environ, "OVONEHOT_RUN_HELD": "1"},
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        lines = run.stdout.splitlines()
        failed = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
        held_ids = subprocess.run(
            [py, "-m", "pytest", "-q", "--co", "-m", "held_for", "-p", "no:cacheprovider", *args.pytest_args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        held = [ln for ln in failed if ln.split()[1] in held_ids]
        print("== tests failing on the newest releases")
        print("\n".join(f"  {ln}" for ln in failed) or "  none")
        print("== of those, findings held for a locked version that no longer hold")
        print("\n".join(f"  {ln}" for ln in held) or "  none")
        summary = next((ln for ln in reversed(lines) if re.search(r"\d+ (passed|failed)", ln)), "")
        print(f"== pytest: {summary or run.stdout[-2000:] + run.stderr[-2000:]}")
        return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
