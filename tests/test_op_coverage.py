"""Which of OpenVINO's op types ovonehot still lacks: the honest TODO list.

Every type-opset pair of the generated opset table (``ops/common/openvino_opsets.py``) that
``ovonehot.ops.lookup`` cannot resolve must be named in ``NOT_YET`` with the reason it is not
implemented, and nothing else may be: implementing an op fails this test until its line is
removed, and a new OpenVINO release's new op fails it until it is added here.  A type that
ovonehot supports in some opsets only is keyed ``Type@opsetA-B`` (the opsets it lacks).
"""

from __future__ import annotations

import re
from pathlib import Path

from ovonehot.ops import lookup
from ovonehot.ops.common.openvino_opsets import OPSETS

NOT_YET: dict[str, str] = {}


def _missing() -> dict[str, list[int]]:
    """Each op type with the opsets holding it where ovonehot resolves no spec."""
    missing: dict[str, list[int]] = {}
    for name, types in OPSETS.items():
        for op_type in types:
            if lookup(op_type, name) is None:
                missing.setdefault(op_type, []).append(int(name.removeprefix("opset")))
    return missing


def _keys(missing: dict[str, list[int]]) -> set[str]:
    keys = set()
    for op_type, lacking in missing.items():
        holding = [int(n.removeprefix("opset")) for n, types in OPSETS.items() if op_type in types]
        if sorted(lacking) == sorted(holding):
            keys.add(op_type)
        else:
            keys.add(f"{op_type}@opset{min(lacking)}-{max(lacking)}")
    return keys


def test_every_lacking_op_is_listed_with_a_reason() -> None:
    keys = _keys(_missing())
    unlisted = sorted(keys - set(NOT_YET))
    assert not unlisted, (
        f"ovonehot lacks these OpenVINO ops; list each in NOT_YET with its reason: {unlisted}"
    )


def test_the_list_names_nothing_ovonehot_implements() -> None:
    keys = _keys(_missing())
    done = sorted(set(NOT_YET) - keys)
    assert not done, f"these are implemented now (or gone from OpenVINO): remove them from NOT_YET: {done}"


def test_reasons_are_written() -> None:
    assert all(reason.strip() for reason in NOT_YET.values())


def test_readme_states_the_coverage() -> None:
    """The README's count of implemented op types is the table's minus the ones listed here."""
    all_types = {t for types in OPSETS.values() for t in types}
    entirely = {k for k in NOT_YET if "@" not in k}
    implemented = len(all_types) - len(entirely)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    claim = re.search(r"implements (\d+) of the (\d+) op types", readme)
    assert claim, "the README should say 'implements N of the M op types' of OpenVINO's opsets"
    assert (int(claim.group(1)), int(claim.group(2))) == (implemented, len(all_types))
