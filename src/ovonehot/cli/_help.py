"""Help texts: every command's examples (its ``--help`` epilog), module docstrings as plain
text (no reStructuredText markup), and the ``-q``/``-v`` options every command takes.

tests/test_cli_help.py parses every example line with the real parser, so an example cannot
name an option that does not exist.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

EXAMPLES: dict[str, str] = {
    "run": """\
  ovonehot run model.xml --inputs inputs.npz                   print each output
  ovonehot run model.onnx --inputs ids=ids.npy mask=mask.npy   an ONNX model, one file per input
  ovonehot run model.xml --inputs inputs.npz -o outputs.npz    save the outputs
  ovonehot run model.xml --inputs inputs.npz --out-dir outs     one .npy per output, for large ones
  ovonehot run model.xml --inputs inputs.npz --steps 3         a stateful model, three steps
  ovonehot run model.xml --inputs inputs.npz --json            the outputs as JSON (docs/json.md)""",
    "convert": """\
  ovonehot convert model.onnx                    writes model.xml and model.bin beside it
  ovonehot convert model.onnx -o ir/model.xml    choose where""",
    "diff": """\
  ovonehot diff model.xml                                 generated inputs, the default oracles
  ovonehot diff model.onnx --inputs inputs.npz --oracle cpu --atol 1e-4 --rtol 1e-3
  ovonehot diff model.xml --all-layers --report report.html   every layer's error, as HTML
  ovonehot diff models/ --json                            every model in a folder (a corpus)
  ovonehot diff replays/case00001                         replay a saved difference""",
    "fuzz": """\
  ovonehot fuzz --cases 200 --seed 1 --out-dir failures   failing cases saved as replay folders
  ovonehot fuzz --cases 20 --oracle reference --json      against OpenVINO's core reference only""",
    "validate": """\
  ovonehot validate model.xml                            declared vs inferred shapes and types
  ovonehot validate model.onnx                           an ONNX model, as OpenVINO converts it
  ovonehot validate model.xml --shape input_ids=[1,16]   with a dynamic input made static
  ovonehot validate model.xml --json                     the findings as JSON""",
    "inspect": """\
  ovonehot inspect model.xml                     summary, then every layer
  ovonehot inspect model.onnx                    an ONNX model, as OpenVINO converts it
  ovonehot inspect model.xml --filter MatMul     only the MatMul layers (a type, Type-version or name)
  ovonehot inspect model.xml --summary           op types, weights, variables, inputs and outputs
  ovonehot inspect model.xml --json              the listing as JSON""",
    "reduce": """\
  ovonehot reduce model.xml --inputs inputs.npz --oracle cpu --out-dir reduced
  ovonehot reduce replays/case00001              a saved difference, its own inputs and oracle
  ovonehot repro reduced                         then: a standalone OpenVINO script""",
    "repro": """\
  ovonehot repro reduced                         writes reduced/repro.py
  ovonehot repro reduced --output bug.py         choose where
  python bug.py                                  exits 1 while OpenVINO still shows the difference""",
}

# reStructuredText in docstrings: ``code``, :func:`name`, `text`.
_RST = re.compile(r":[a-z]+:`~?([^`]+)`|``([^`]+)``|`([^`]+)`")


def plain_text(text: str | None) -> str | None:
    """``text`` without reStructuredText markup (``x`` and :func:`x` are x)."""
    if text is None:
        return None
    return _RST.sub(lambda m: next(g for g in m.groups() if g is not None), text)


def add_verbosity_options(p: argparse.ArgumentParser, default: object) -> None:
    """``-q``/``--quiet`` and ``-v``/``--verbose-errors``, counted (before or after the command)."""
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        action="count",
        default=default,
        help="quiet: no progress or notes on stderr (errors are still printed)",
    )
    group.add_argument(
        "-v",
        "--verbose-errors",
        dest="verbose_errors",
        action="count",
        default=default,
        help="verbose: an error also prints its causes (-vv: the Python traceback)",
    )


def finish(sub: argparse._SubParsersAction[Any], docs: dict[str, str | None]) -> None:
    """Every command's help: its description (else its module's docstring, ``docs``) as plain
    text, its examples as the epilog, laid out as written; and the -q/-v options."""
    for name, p in sub.choices.items():
        p.description = plain_text(p.description or docs.get(name))
        p.epilog = "examples:\n" + EXAMPLES[name] if name in EXAMPLES else p.epilog
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        add_verbosity_options(p, argparse.SUPPRESS)
