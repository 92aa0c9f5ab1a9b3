"""``ovonehot validate MODEL.xml [--shape NAME=SHAPE ...] [--json]``: declared vs inferred.

Exit statuses: 0 clean (warnings allowed), 1 problems found, 2 bad command line,
3 the IR cannot be read at all.
"""

from __future__ import annotations

import argparse

from ..check.validate import Report, validate
from ..errors import InputError, UnknownParameterError, UsageError
from ..npyio import check_model_paths
from ..types import PartialShape
from ._json import add_json_options, check_json_out, emit, human_output
from ._paths import model_files, refuse_writing_over


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "validate",
        help="re-infer every layer as OpenVINO does and report where the IR's declarations disagree",
    )
    p.add_argument("model", help="model .xml or .onnx (an .xml's .bin beside it is read too)")
    p.add_argument("--bin", dest="bin_path", help="weights file, when not MODEL.bin")
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="NAME=SHAPE",
        help="re-infer with a new Parameter shape, like model.reshape: e.g. indices=[2,?,1..5] "
        "(repeatable; NAME is the Parameter's name or one of its tensor names)",
    )
    add_json_options(p, "the report (every problem, every layer)")
    p.set_defaults(func=validate_command)


def parse_shape_overrides(items: list[str]) -> dict[str, PartialShape]:
    """``NAME=SHAPE`` arguments as a mapping; the shape in OpenVINO notation, brackets optional."""
    shapes: dict[str, PartialShape] = {}
    for item in items:
        name, sep, text = item.rpartition("=")
        if not sep or not name:
            raise UsageError(f"--shape {item!r}: expected NAME=SHAPE, e.g. indices=[2,?,1..5]")
        try:
            shapes[name] = PartialShape.parse(text)
        except ValueError as exc:
            raise UsageError(f"--shape {item!r}: {exc}") from None
    return shapes


def validate_command(args: argparse.Namespace) -> int:
    with human_output(args):
        check_model_paths(args.model, args.bin_path)
        check_json_out(args)
        refuse_writing_over(model_files(args.model, args.bin_path), ("--json-out", args.json_out))
        try:
            report = validate(args.model, args.bin_path, parse_shape_overrides(args.shape))
        except UnknownParameterError as exc:
            raise InputError(f"--shape names no Parameter: {', '.join(exc.names)}") from None
        print_text(args.model, report)
        emit(args, report.to_json)
        return report.exit_code


def print_text(model: str, report: Report) -> None:
    for problem in report.problems:
        print(problem)
    n_err, n_warn = len(report.errors), len(report.warnings)
    verdict = "problems found" if n_err else "clean"
    print(f"{model}: {len(report.layers)} layers, {n_err} error(s), {n_warn} warning(s): {verdict}")
