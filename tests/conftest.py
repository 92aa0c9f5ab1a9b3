"""Suite-wide rules: findings about a third party are facts about one version of it.

A test that asserts how another project behaves (onnxruntime truncating float indices,
OpenVINO's ONNX frontend misreading a tensor) says which version it holds for::

    @pytest.mark.held_for("onnxruntime==1.31.1")

The version it names must be the one ``requirements/lock.txt`` locks: a marker that
drifts from the lock is a collection error, so the suite cannot silently hold for a
version it never installs.  Where the installed version is not the held one (someone
ran the suite outside the lock, or ``scripts/check_newest.py`` tried the newest
releases), the test is skipped with both versions named instead of failing: the finding
is about the held version, not about the world.  ``scripts/check_newest.py`` sets
``OVONEHOT_RUN_HELD=1`` to run them anyway, so a finding that no longer holds on a new
release shows up as a failure there.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

import pytest

# The tests import openvino themselves: without its usage telemetry, as ovonehot's oracles
# do (ovonehot.oracle.common.import_openvino: no network request, no forked child).
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]

LOCK = Path(__file__).resolve().parent.parent / "requirements" / "lock.txt"


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-")


def locked_versions() -> dict[str, str]:
    """``{distribution: version}`` as ``requirements/lock.txt`` pins them."""
    pins: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep:
            raise pytest.UsageError(f"{LOCK}: {line!r} is not pinned with '=='")
        pins[_canonical(name)] = version.strip()
    return pins


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "held_for(pin): the test asserts a third party's behaviour at this version, "
        "e.g. held_for('onnxruntime==1.31.1'); must equal the lock",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    pins = locked_versions()
    for item in items:
        for marker in item.iter_markers("held_for"):
            for pin in marker.args:
                name, sep, version = str(pin).partition("==")
                if not sep:
                    raise pytest.UsageError(f"{item.nodeid}: held_for({pin!r}) needs 'name==version'")
                locked = pins.get(_canonical(name))
                if locked != version:
                    raise pytest.UsageError(
                        f"{item.nodeid}: held for {name}=={version} but requirements/lock.txt "
                        f"locks {name}=={locked}; re-check the finding and update one of them"
                    )
                have = installed_version(name)
                if have != version and not os.environ.get("OVONEHOT_RUN_HELD"):
                    item.add_marker(
                        pytest.mark.skip(
                            reason=f"finding held for {name}=={version}, installed {name}=={have}"
                        )
                    )
