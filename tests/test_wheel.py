"""The wheel ``pip`` builds holds every file the package reads at run time, not only its modules:
the JSON Schema of every command's ``--json`` (``ovonehot/schemas/*.schema.json``) and any other
package data under ``src/ovonehot`` (a file that is not Python source).

The wheel is built offline (``pip wheel --no-deps --no-build-isolation``) with the setuptools the
test extras pin (the same version as ``[build-system]``), from a copy of the sources (the build
writes ``build/`` and ``*.egg-info`` beside them).  Then the wheel alone, on ``sys.path`` in a
fresh interpreter, loads every schema.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import tomllib

from ovonehot import schemas

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "ovonehot"
# setuptools builds wheels itself (bdist_wheel) from 70.1 on; older ones need the wheel package.
BUILDS_WHEELS = (70, 1)


def _pins() -> tuple[str, str]:
    """The setuptools pins of [build-system] and of the test extras."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = [r for r in pyproject["build-system"]["requires"] if r.startswith("setuptools")]
    test = [r for r in pyproject["project"]["optional-dependencies"]["test"] if r.startswith("setuptools")]
    return build[0], test[0]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


def test_the_tests_build_with_the_build_systems_setuptools() -> None:
    build, test = _pins()
    assert build == test, "tests/test_wheel.py builds the wheel with the test extras' setuptools"


def _package_data() -> list[str]:
    """Every file under src/ovonehot that is not Python (source or bytecode), as wheel paths."""
    return sorted(
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )


def _build(tmp: Path) -> Path:
    """Build the wheel from a copy of pyproject.toml, README.md and src/; its path."""
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), *offline, "--wheel-dir", str(tmp / "dist")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp / "dist").glob("ovonehot-*.whl")
    return wheel


def test_the_wheel_holds_the_schemas_and_all_package_data(tmp_path: Path) -> None:
    have = metadata.version("setuptools")
    if _version(have) < BUILDS_WHEELS:
        pytest.skip(
            f"setuptools {have} cannot build a wheel without the wheel package; the test extras pin "
            f"{_pins()[1]}: pip install -e '.[test]' -c requirements/lock.txt"
        )
    wheel = _build(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    data = _package_data()
    assert {f"ovonehot/schemas/{n}.schema.json" for n in (*schemas.COMMANDS, "common")} <= set(data)
    assert [n for n in data if n not in names] == []
    modules = sorted(str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py"))
    assert [m for m in modules if m not in names] == []
    # The wheel alone (a zip on sys.path, no source tree) finds and parses every schema.
    check = "from ovonehot import schemas; print(schemas.__file__); print(len(schemas.load_all()))"
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(wheel)!r}); {check}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    where, count = done.stdout.split()
    assert where.startswith(str(wheel)), where  # (not an installed or editable ovonehot)
    assert int(count) == len(schemas.COMMANDS) + 1
