"""Input and output files: .npy/.npz loaded without pickle, .npz written atomically."""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from .errors import InputError
from .model import Model


def load_array(path: str | os.PathLike[str]) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npy file ({exc})") from None
    if isinstance(value, np.lib.npyio.NpzFile):
        raise InputError(f"{path}: is an .npz archive; name it alone to feed every input from it")
    return value


def load_archive(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise InputError(f"{path}: is not an .npz archive")
            return {key: archive[key] for key in archive.files}
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(f"{path}: not a readable .npz file ({exc})") from None


def parse_input_specs(model: Model, specs: Sequence[str]) -> dict[str, np.ndarray]:
    """``x.npy`` (single-input model), ``name=x.npy``, or ``all.npz`` -> {input name: array}."""
    inputs: dict[str, np.ndarray] = {}

    def put(name: str, value: np.ndarray, origin: str) -> None:
        k = model.input_index(name)
        canonical = model.inputs[k].name
        if canonical in inputs:
            raise InputError(f"{origin}: input {canonical!r} is given twice")
        inputs[canonical] = value

    for spec in specs:
        name, sep, path = spec.partition("=")
        if sep and name and not Path(spec).exists():
            put(name, load_array(path), spec)
        elif spec.endswith(".npz"):
            for key, value in load_archive(spec).items():
                put(key, value, spec)
        else:
            if len(model.inputs) != 1:
                names = ", ".join(d.name for d in model.inputs)
                raise InputError(
                    f"{spec}: the model has {len(model.inputs)} inputs ({names}); "
                    "name each one as NAME=FILE.npy or give one .npz"
                )
            put(model.inputs[0].name, load_array(spec), spec)
    return inputs


def storable(array: np.ndarray) -> np.ndarray:
    """An array NumPy can save without pickle: strings become fixed-width unicode."""
    if array.dtype == object:
        return np.asarray(array.astype(str) if array.size else np.empty(array.shape, dtype="<U1"))
    if array.dtype.isbuiltin == 2:
        # ml_dtypes types (bf16, f8, i4, ...): NumPy saves most as raw bytes (|V2, |V1) but
        # float8_e5m2 as '<f1', which np.load refuses. Store them all as raw bytes of their width.
        # (reshape: np.ascontiguousarray turns a 0-d array into shape (1,))
        return np.ascontiguousarray(array).reshape(array.shape).view(np.dtype((np.void, array.dtype.itemsize)))
    return array


def _write_npz(f: BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    """What ``np.savez`` writes, for any key: ``np.savez(f, **arrays)`` fails on a key named
    ``file`` and takes a key named ``allow_pickle`` for its flag (and drops the array)."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, value in arrays.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(storable(value)), allow_pickle=False)


def save_archive(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> None:
    """Write an .npz atomically: a temporary file beside the target, then a rename.

    A target that cannot be written (a directory, no permission, a full disk) is an
    InputError, and leaves neither the target nor a temporary file behind.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"{path}: the directory {directory} does not exist")
    if target.is_dir():
        raise InputError(f"{path}: is a directory, not a file name")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"{path}: cannot write there ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            _write_npz(f, arrays)
        os.chmod(tmp, new_file_mode())  # mkstemp makes 0600 files
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write it ({exc.strerror or exc})") from None
        raise


def ensure_directory(path: str | os.PathLike[str]) -> Path:
    """``path`` as a directory, created with its parents when missing; InputError when it
    cannot be (a file is in the way, no permission)."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{path}: exists and is not a directory") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot create the directory ({exc.strerror or exc})") from None
    return folder


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a small text file (a JSON report); InputError when it cannot be written."""
    if Path(path).is_dir():
        raise InputError(f"{path}: is a directory, not a file name")
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot write it ({exc.strerror or exc})") from None


def new_file_mode() -> int:
    """0o666 less the process umask: the mode ``open(..., "w")`` would give a new file."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask
