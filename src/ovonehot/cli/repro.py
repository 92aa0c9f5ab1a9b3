"""``ovonehot repro DIR``: a standalone OpenVINO script (numpy + openvino only) from a replay folder.

The script embeds the model, the inputs and ovonehot's outputs, runs OpenVINO the
way the replay did, and shows the difference: what an upstream bug report needs.
Make the folder small first with ``ovonehot reduce``.  The script exits 0 when there is
no difference, 1 when the difference reproduces, 2 when it could not run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..atomic import check_output_file
from ..differential import replay as _replay
from ..errors import InputError, UsageError
from ..oracle.repro import write_script
from ._json import add_json_options, check_json_out, emit, human_output
from ._paths import model_files, refuse_writing_over


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "repro",
        help="write a standalone OpenVINO script (numpy + openvino only) that shows a replay's difference",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", help="a replay folder (from diff --save, fuzz or reduce)")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="where to write the script (default: FOLDER/repro.py)"
    )
    add_json_options(p, "what was written (the replay folder and the script)")
    p.set_defaults(func=repro_command)


def repro_command(args: argparse.Namespace) -> int:
    with human_output(args):
        if args.output == "":
            raise UsageError("--output needs a file name")
        if not _replay.is_replay(args.folder):
            raise InputError(f"{args.folder}: not a replay folder (no manifest.json)")
        target = Path(args.output) if args.output else Path(args.folder) / "repro.py"
        check_output_file(target, "--output")
        check_json_out(args, ("--output", str(target)))
        refuse_writing_over(
            model_files(args.folder), ("--output", str(target)), ("--json-out", args.json_out)
        )
        replay = _replay.load(args.folder)
        path = write_script(replay, target)
        print(f"wrote {path} (run: python {path})")
        emit(args, {"folder": str(args.folder), "script": str(path), "run": ["python", str(path)]})
        return 0
