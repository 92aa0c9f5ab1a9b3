"""``ovonehot convert MODEL.onnx [-o OUT.xml]``: write the IR OpenVINO's ONNX frontend makes.

``ovonehot convert MODEL.xml|MODEL.onnx --to model-explorer [-o GRAPH.json]`` writes the graph
as Model Explorer's JSON graph instead (:mod:`ovonehot.explorer`; ``cli/explorer.py``).

The IR is exactly what ``ovonehot run MODEL.onnx`` runs (``onnx_frontend.convert_onnx``:
IR v11, no fp16 compression).  The pair is written atomically (``write_ir_pair``):
a failed conversion or write never leaves a half-written file or a mixed pair.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..atomic import check_output_file, check_replaceable, remove_stale_temps
from ..errors import IRError, UsageError
from ..ir.reader import read_ir_bytes
from ..npyio import check_input_file, new_file_mode
from ..oracle.onnx_frontend import convert_onnx, is_onnx_path
from ._json import add_json_options, check_json_out, emit, human_output
from .explorer import convert_to_explorer
from .inspect import op_types


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "convert",
        help="convert an ONNX model to OpenVINO IR (.xml + .bin) with OpenVINO, or an IR to "
        "Model Explorer's JSON graph",
    )
    p.add_argument("model", help="model .onnx (--to model-explorer: also an IR .xml)")
    p.add_argument(
        "--to",
        choices=("ir", "model-explorer"),
        default="ir",
        help="ir (default): the IR pair; model-explorer: Model Explorer's JSON graph of the IR, "
        "node ids = layer ids (colour it with `diff --all-layers --node-data`)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.xml",
        help="IR to write (default: MODEL with .xml); the .bin goes beside it "
        "(--to model-explorer: the .json graph, default MODEL with .explorer.json)",
    )
    add_json_options(p, "what was written (the .xml, the .bin, the layers by type)")
    p.set_defaults(func=convert_command)


def convert_command(args: argparse.Namespace) -> int:
    with human_output(args):
        return _convert_command(args)


def _convert_command(args: argparse.Namespace) -> int:
    if args.output == "":
        raise UsageError("--output: an empty file name")
    if getattr(args, "to", "ir") == "model-explorer":
        check_json_out(args, ("--output", args.output))
        emit(args, convert_to_explorer(args.model, args.output))
        return 0
    source = Path(args.model)
    if not is_onnx_path(source):
        raise UsageError(f"{source}: convert takes an .onnx model")
    check_input_file(source, "ONNX model")
    target = Path(args.output) if args.output is not None else source.with_suffix(".xml")
    if target.suffix.lower() != ".xml":
        raise UsageError(f"{target}: the output must be an .xml path (the .bin is written beside it)")
    check_output_file(target, "--output")
    check_output_file(target.with_suffix(".bin"), "--output")
    check_json_out(args, ("--output", str(target)), ("--output (its .bin)", str(target.with_suffix(".bin"))))
    xml, weights = convert_onnx(source)
    write_ir_pair(target, xml, weights)
    counts = _op_counts(xml, weights)
    layers: dict[str, Any]
    if isinstance(counts, str):
        summary, layers = counts, {"layers": None, "layers_error": counts}
    else:
        computing = sorted((f"{t}-{v}", k) for (t, v), k in counts.items() if t not in _NOT_COMPUTING)
        summary = ", ".join(f"{name} x{k}" for name, k in computing) or "no computing layers"
        layers = {"layers": op_types(counts)}
    print(f"wrote {target} and {target.with_suffix('.bin')}: {summary}")
    emit(args, {"model": str(source), "xml": str(target), "bin": str(target.with_suffix(".bin")), **layers})
    return 0


def write_ir_pair(xml_path: Path, xml: bytes, weights: bytes) -> None:
    """Write ``xml_path`` and its .bin as a pair: both complete, or the old pair left as it was.

    Both files go to temporary names beside the targets; then the .bin is renamed
    into place, then the .xml.  If the second rename fails, the old .bin comes back
    (from a hard link, or a copy, taken before) so the old pair stays whole.  Only
    a hard kill between the two renames can leave the new .bin beside the old .xml.
    """
    directory = xml_path.parent  # "." for a bare name
    if not directory.is_dir():
        raise UsageError(f"{xml_path}: the directory {directory} does not exist")
    bin_path = xml_path.with_suffix(".bin")
    remove_stale_temps(directory)  # what a killed conversion left
    temps: list[Path] = []
    try:
        tmp_bin, tmp_xml, backup = (_temp_name(directory, bin_path.name, temps) for _ in range(3))
        for data, tmp, target in ((weights, tmp_bin, bin_path), (xml, tmp_xml, xml_path)):
            mode = new_file_mode(target)
            with tmp.open("wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            tmp.chmod(mode)  # mkstemp makes 0600 files; a written IR gets the usual mode
        for target in (bin_path, xml_path):  # a device or FIFO may have appeared since the start
            check_replaceable(target)
        had_bin = bin_path.exists()
        if had_bin:
            _keep_copy(bin_path, backup)
        tmp_bin.replace(bin_path)
        try:
            tmp_xml.replace(xml_path)
        except BaseException:
            if had_bin:
                backup.replace(bin_path)
            else:
                bin_path.unlink(missing_ok=True)
            raise
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)


def _temp_name(directory: Path, name: str, temps: list[Path]) -> Path:
    # The name ovonehot.atomic recognises: a kill leaves it, the next write removes it.
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:120]}.ovonehot-{os.getpid()}-", suffix=".tmp", dir=directory)
    os.close(fd)
    temps.append(Path(tmp))
    return temps[-1]


def _keep_copy(path: Path, backup: Path) -> None:
    """``backup`` becomes a hard link to ``path`` (a copy where links are not allowed)."""
    backup.unlink()
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)


# Layers the human summary leaves out: they compute nothing.
_NOT_COMPUTING = ("Parameter", "Result", "Const", "Constant")


def _op_counts(xml: bytes, weights: bytes) -> Counter[tuple[str, str]] | str:
    """How many layers of each (type, version) OpenVINO produced, or why ovonehot cannot read them."""
    try:
        graph = read_ir_bytes(xml, weights)
    except IRError as exc:  # the file is OpenVINO's; our reader's opinion is only informative
        return f"(ovonehot cannot read it: {exc})"
    return Counter((n.type, n.version) for n in graph.nodes)
