"""``ovonehot convert MODEL.onnx [-o OUT.xml]``: write the IR OpenVINO's ONNX frontend makes.

The IR is exactly what ``ovonehot run MODEL.onnx`` runs (``onnx_input.convert_onnx``:
IR v11, no fp16 compression).  Both files are written to temporary names beside
the target and renamed into place, the .bin first: an interrupted or failed
conversion never leaves a half-written file, and a new .xml never sits next to
an old .bin.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import Counter
from pathlib import Path

from ..errors import IRError, UsageError
from ..ir.reader import read_ir_bytes
from ..onnx_input import convert_onnx, is_onnx_path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convert", help="convert an ONNX model to OpenVINO IR (.xml + .bin) with OpenVINO")
    p.add_argument("model", help="model .onnx")
    p.add_argument("-o", "--output", metavar="OUT.xml", help="IR to write (default: MODEL with .xml); "
                   "the .bin goes beside it")
    p.set_defaults(func=convert_command)


def convert_command(args: argparse.Namespace) -> int:
    source = Path(args.model)
    if not is_onnx_path(source):
        raise UsageError(f"{source}: convert takes an .onnx model")
    target = Path(args.output) if args.output else source.with_suffix(".xml")
    if target.suffix.lower() != ".xml":
        raise UsageError(f"{target}: the output must be an .xml path (the .bin is written beside it)")
    xml, weights = convert_onnx(source)
    write_ir_pair(target, xml, weights)
    print(f"wrote {target} and {target.with_suffix('.bin')}: {_op_summary(xml, weights)}")
    return 0


def write_ir_pair(xml_path: Path, xml: bytes, weights: bytes) -> None:
    """Write ``xml_path`` and its .bin atomically: temporary files beside them, then two renames."""
    directory = xml_path.parent if str(xml_path.parent) else Path(".")
    if not directory.is_dir():
        raise UsageError(f"{xml_path}: the directory {directory} does not exist")
    pending: list[tuple[str, Path]] = []
    try:
        for data, final in ((weights, xml_path.with_suffix(".bin")), (xml, xml_path)):
            fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=directory)
            pending.append((tmp, final))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        while pending:  # .bin first: a new .xml never pairs with an old .bin
            tmp, final = pending[0]
            os.replace(tmp, final)
            pending.pop(0)
    finally:
        for tmp, _ in pending:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass


def _op_summary(xml: bytes, weights: bytes) -> str:
    """"Convert-opset1 x2, OneHot-opset16 x1, ..." for the layers OpenVINO produced."""
    try:
        graph = read_ir_bytes(xml, weights)
    except IRError as exc:  # the file is OpenVINO's; our reader's opinion is only informative
        return f"(ovonehot cannot read it: {exc})"
    counts = Counter(f"{n.type}-{n.version}" for n in graph.nodes
                     if n.type not in ("Parameter", "Result", "Const", "Constant"))
    return ", ".join(f"{name} x{k}" for name, k in sorted(counts.items())) or "no computing layers"
