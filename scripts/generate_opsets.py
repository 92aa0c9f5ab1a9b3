"""Write ``src/ovonehot/ops/common/openvino_opsets.py``: the op types each OpenVINO opset holds.

``ovonehot validate`` tells an op type OpenVINO does not know (``read_model`` refuses
the file) from one ovonehot merely does not implement, without importing openvino at
run time.  This script asks the installed openvino once and writes a static table:

* candidate type names: every ``create("Type", ...)`` in the source of the functions
  of ``openvino.opsetN`` (``openvino.runtime.opsetN`` before 2025), plus the ops those
  modules build from classes (Parameter, Result, Constant, ReadValue, Assign, If,
  Loop, TensorIterator);
* membership: ``NodeFactory("opsetN").create(type)`` succeeds, or fails for a reason
  other than "no such op" (a Constant cannot be made empty), exactly when the opset
  holds the type; ``read_model`` resolves a layer's ``type``/``version`` through the
  same opset tables (``tests/test_openvino_opsets.py`` checks a sample both ways).

Usage: ``python scripts/generate_opsets.py [--check]``.  ``--check`` writes nothing and
exits 1 when the committed table differs from what the installed openvino says.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "ovonehot" / "ops" / "common" / "openvino_opsets.py"

# Ops the opset modules build from their classes rather than through the NodeFactory.
CLASS_BUILT = ("Parameter", "Result", "Constant", "ReadValue", "Assign", "If", "Loop", "TensorIterator")
_CREATE = re.compile(r"""create\(\s*["'](\w+)["']""")


def opset_modules() -> dict[int, ModuleType]:
    """``openvino.opsetN`` (or ``openvino.runtime.opsetN``) for every N the install has."""
    modules: dict[int, ModuleType] = {}
    n = 1
    while True:
        for name in (f"openvino.opset{n}", f"openvino.runtime.opset{n}"):
            try:
                modules[n] = importlib.import_module(name)
                break
            except ImportError:
                continue
        else:
            return modules
        n += 1


def candidate_types(modules: dict[int, ModuleType]) -> set[str]:
    """Type names to ask each opset about: what the opset modules build, and every type ovonehot
    implements (some ops have no Python builder: Reverse-1 is in opset1 all the same)."""
    sys.path.insert(0, str(ROOT / "src"))
    from ovonehot.ops import specs_types

    names = set(CLASS_BUILT) | set(specs_types())
    for module in modules.values():
        for attr in dir(module):
            function = getattr(module, attr)
            if attr.startswith("_") or not callable(function):
                continue
            try:
                names.update(_CREATE.findall(inspect.getsource(function)))
            except (OSError, TypeError):  # a builtin or class: no Python source
                continue
    return names


def opsets() -> dict[str, frozenset[str]]:
    """{"opsetN": the op types opset N holds} as the installed openvino says."""
    from openvino.utils.node_factory import NodeFactory

    modules = opset_modules()
    names = sorted(candidate_types(modules))
    table: dict[str, frozenset[str]] = {}
    for n in sorted(modules):
        factory = NodeFactory(f"opset{n}")
        held = set()
        for name in names:
            try:
                factory.create(name)
            except Exception as exc:  # noqa: BLE001 - OpenVINO raises plain RuntimeError-likes
                if "op_node != nullptr" in str(exc):  # node_factory.cpp: the opset has no such type
                    continue
            held.add(name)
        table[f"opset{n}"] = frozenset(held)
    return table


def render(table: dict[str, frozenset[str]], version: str) -> str:
    lines = [
        f'"""The op types each opset of OpenVINO {version} holds (generated: do not edit).',
        "",
        "Written by ``scripts/generate_opsets.py`` from the installed openvino, so that",
        "``validate`` can tell an op OpenVINO does not know (``read_model`` refuses the layer)",
        "from one ovonehot does not implement, without importing openvino.  A layer's",
        "``version`` must be one of these keys exactly; its ``type`` is matched without regard",
        "to case, and ``Const`` is ``Constant``, as OpenVINO's IR reader does.",
        "``tests/test_openvino_opsets.py`` regenerates the table and compares.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f'OPENVINO_VERSION = "{version}"',
        "",
        "# Each opset's types, separated by whitespace.",
        "_TYPES = {",
    ]
    for key in sorted(table, key=lambda k: int(k.removeprefix("opset"))):
        lines.append(f'    "{key}": """')
        line = "       "
        for name in sorted(table[key]):
            if len(line) + 1 + len(name) > 106:
                lines.append(line)
                line = "       "
            line += " " + name
        lines.append(line)
        lines.append('    """,')
    lines.append("}")
    lines.append("")
    lines.append(
        "OPSETS: dict[str, frozenset[str]] = {key: frozenset(text.split()) for key, text in _TYPES.items()}"
    )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed table, write nothing"
    )
    args = parser.parse_args()
    import openvino

    version = openvino.__version__.split("-")[0]
    text = render(opsets(), version)
    if args.check:
        same = TARGET.read_text(encoding="utf-8") == text
        print(f"{TARGET}: {'up to date' if same else 'DIFFERS from openvino ' + version}")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
