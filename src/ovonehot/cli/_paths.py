"""What a command reads against what it writes: nothing the user gave is ever written over.

An output option naming a file the command reads (``run m.xml --inputs x.npz -o x.npz``,
``repro DIR -o DIR/model.xml``, ``inspect m.xml --json-out m.xml``), or an ``--out-dir`` whose
replay files would replace one (``diff DIR --out-dir DIR``), is a usage error before any work:
the atomic write would otherwise replace the user's file with ours, whole and for good.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..differential.replay import MANIFEST, is_replay
from ..errors import UsageError

# (what the file is, its path): a file the command reads.
Read = tuple[str, str]

# The files of a replay folder that ``--out-dir`` writes (and every ``NAME.npz``).
_REPLAY_NAMES = frozenset({MANIFEST, "model.xml", "model.bin", "model.onnx"})


def model_files(model: str, bin_path: str | None = None) -> list[Read]:
    """The files a model argument reads: an .xml and its .bin, an .onnx, a replay folder's files."""
    if is_replay(model):
        folder = Path(model)
        return [(f"the replay folder's {p.name}", str(p)) for p in folder.iterdir() if _replay_file(p)]
    reads = [("the model", model)]
    if bin_path is not None:
        reads.append(("the model's weights (--bin)", bin_path))
    elif Path(model).suffix.lower() != ".onnx":
        reads.append(("the model's weights", str(Path(model).with_suffix(".bin"))))
    return reads


def input_files(specs: Iterable[str], option: str = "--inputs") -> list[Read]:
    """The files ``--inputs`` SPECs (``x.npy``, ``NAME=x.npy``, ``all.npz``) name."""
    reads = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        reads.append((f"the {option} file", path if sep and name and not Path(spec).exists() else spec))
    return reads


def refuse_writing_over(reads: Sequence[Read], *writes: tuple[str, str | None]) -> None:
    """Each ``(option, path)`` of ``writes`` names no file of ``reads``; a UsageError otherwise."""
    known = {key: read for read in reads if (key := _identity(read[1])) is not None}
    for option, path in writes:
        if path is None or path in ("", "-"):
            continue
        read = known.get(_identity(path) or "")
        if read is not None:
            raise UsageError(
                f"{option} {path!r} is {read[0]} ({read[1]}): ovonehot never writes over a file it "
                "reads; name another file"
            )


def refuse_out_dir_over(reads: Sequence[Read], out_dir: str | None, option: str = "--out-dir") -> None:
    """``out_dir`` would receive a replay folder (manifest.json, model.xml/.bin/.onnx, NAME.npz):
    none of them may be a file the command reads."""
    if out_dir is None or out_dir == "" or not Path(out_dir).is_dir():
        return
    folder = _identity(out_dir)
    for what, path in reads:
        if _replay_file(Path(path)) and _identity(str(Path(path).parent)) == folder:
            raise UsageError(
                f"{option} {out_dir!r} holds {what} ({path}), which the replay folder written there "
                "would replace; give another folder"
            )


def _replay_file(path: Path) -> bool:
    return path.name in _REPLAY_NAMES or path.suffix.lower() == ".npz"


def _identity(path: str) -> tuple[int, int] | str | None:
    """What makes two names one file: its device and inode when it exists (links, other
    spellings), else its resolved path; None for no path."""
    if not path:
        return None
    try:
        st = Path(path).stat()
    except OSError:
        return os.path.realpath(path)
    return (st.st_dev, st.st_ino)


def diff_reads(model: str, bin_path: str | None, inputs: Sequence[str], expected: str | None) -> list[Read]:
    """What ``diff`` and ``reduce`` read: the model, the inputs files, the saved outputs."""
    reads = model_files(model, bin_path) + input_files(inputs)
    if expected:
        reads.append(("the --expected file", expected))
    return reads
