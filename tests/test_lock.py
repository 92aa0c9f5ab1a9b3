"""The lock file pins every dependency the project declares, and the suite runs on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
from conftest import installed_version, locked_versions

ROOT = Path(__file__).resolve().parent.parent


def declared() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"]) + list(project["optional-dependencies"]["test"])
    return [re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs]


@pytest.mark.parametrize("name", declared())
def test_every_declared_dependency_is_locked(name: str) -> None:
    assert name in locked_versions(), (
        f"{name} is declared in pyproject.toml but not pinned in requirements/lock.txt"
    )


def test_installed_versions_are_the_locked_ones() -> None:
    """The suite is meant to run on the lock (README's test command installs with -c)."""
    wrong = {
        name: (version, installed_version(name))
        for name, version in locked_versions().items()
        if installed_version(name) not in (None, version)
    }
    assert not wrong, f"installed versions differ from requirements/lock.txt (locked, installed): {wrong}"
