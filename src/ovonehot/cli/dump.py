"""Intermediate tensors of a run: streamed into one .npz, then renamed into place.

``ovonehot run --dump-intermediates DIR`` writes ``DIR/intermediates.npz``: one
array per output port of every node that ran, keyed ``"<layer name>:<port>"``
(``port`` counts the node's outputs from 0, whatever the IR's port ids).  When two
layers share a name, the later ones are keyed ``"<layer name>#<layer id>:<port>"``.
Every node is there, Parameters and Constants included, except Results (they have
no outputs: their input is the producer's entry).  ``keys()`` lists the layer
id and type of each key, in run order, for ``DIR/intermediates.tsv``.

A key is the member's name in the archive unless the layer name would make it a path
that leaves the folder it is extracted to (``..`` as a path component, a leading ``/``, a
backslash, control characters: a hostile IR's layer ``../../x``): then the member's
name has those replaced by ``_`` (and ``#<layer id>`` if that name is taken), and the
.tsv's ``member`` column says which member holds the key, which keeps the real name.

Arrays are written as the run goes, so the run keeps freeing what it no longer
needs; the archive appears under its final name only when complete (a temporary
file beside it, then a rename).  ``close(partial=True)`` still publishes what was
written, for a run that failed half way.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import AtomicFile
from ..errors import InputError
from ..infer import NodePlan
from ..npyio import storable, write_text

ARCHIVE = "intermediates.npz"
INDEX = "intermediates.tsv"

SKIPPED_TYPES = ("result",)


_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\]")


def safe_member(key: str) -> str:
    """``key`` as an archive member name that stays inside the folder it is extracted to: no
    ``..`` or empty leading path component, no backslash or control character."""
    parts = _UNSAFE.sub("_", key).split("/")
    parts = ["_" * len(p) if p in (".", "..") else p for p in parts]
    if parts[0] == "":
        parts[0] = "_"
    return "/".join(parts)


class IntermediateWriter:
    """Collects node outputs into ``directory/intermediates.npz`` (see the module doc)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(exist_ok=True)
        except FileNotFoundError:
            raise InputError(f"{directory}: its parent directory does not exist") from None
        except (FileExistsError, NotADirectoryError):
            raise InputError(f"{directory}: exists and is not a directory") from None
        self._file = AtomicFile(self.directory / ARCHIVE)
        self._zip = zipfile.ZipFile(self._file.file, "w", compression=zipfile.ZIP_STORED, allowZip64=True)
        self._names: set[str] = set()
        self._rows: list[tuple[str, int, str, str, str]] = []  # key, layer id, type, shape, member
        self._members: set[str] = set()
        self.count = 0

    @property
    def path(self) -> Path:
        return self.directory / ARCHIVE

    def add(self, plan: NodePlan, outputs: Sequence[np.ndarray], path: str = "") -> None:
        """Write one node's outputs (nothing for Results, which have none); ``path``: where
        in a sub-graph body it ran (``loop/body0.iteration2/``), "" at the top level."""
        node = plan.node
        if node.type.lower() in SKIPPED_TYPES:
            return
        name = path + node.name
        base = name if name not in self._names else f"{name}#{node.id}"
        self._names.add(name)
        for port, value in enumerate(outputs):
            key = f"{base}:{port}"
            member = safe_member(key)
            if member != key and member in self._members:
                member = safe_member(f"{name}#{node.id}:{port}")
            self._members.add(member)
            with self._zip.open(f"{member}.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(storable(value)), allow_pickle=False)
            self._rows.append((key, node.id, node.type_version, str(list(value.shape)), member))
            self.count += 1

    def close(self, publish: bool = True) -> None:
        """Finish the archive and rename it into place (or delete it when ``publish`` is false)."""
        try:
            self._zip.close()
            if publish:
                self._file.commit()
                self._write_index()
        finally:
            self._file.discard()  # no-op after a commit

    def _write_index(self) -> None:
        lines = ["key\tlayer_id\ttype\tshape\tmember\n"]
        for key, layer_id, type_version, shape, member in self._rows:
            safe = key.replace("\t", "\\t").replace("\n", "\\n")
            lines.append(f"{safe}\t{layer_id}\t{type_version}\t{shape}\t{member}\n")
        write_text(self.directory / INDEX, "".join(lines))
