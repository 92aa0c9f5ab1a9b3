"""Input and output files: .npy/.npz loaded without pickle, .npz written atomically.

Reading is guarded against hostile files: only regular files are opened (a FIFO
would block), every .npy header is checked against the model before data is read,
and nothing is inflated beyond what a header declares (zip bombs), within a memory
budget.  Writing goes through :mod:`ovonehot.atomic`.
"""

from __future__ import annotations

import math
import os
import stat
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .atomic import AtomicFile, check_output_dir, file_kind, target_mode
from .errors import InputError
from .model import Model, TensorDesc, check_input
from .types import PartialShape

# The largest extent (product of the non-zero dims times the item size) NumPy can address.
_INDEX_MAX = 2**63 - 1

_KNOWN_METHODS = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}


def check_input_file(path: str | os.PathLike[str], what: str = "input") -> None:
    """``path`` is an existing regular file, checked before it is opened: a FIFO with no
    writer would block the open forever, a device or socket is no input file."""
    if str(path) == "":  # (Path("") is the current directory)
        raise InputError(f"an empty {what} file name")
    try:
        st = Path(path).stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = file_kind(st.st_mode)
        raise InputError(f"{path}: is {kind}, not a regular {what} file")


def memory_budget() -> int:
    """The most input bytes read at once: half the memory available now (1 GiB if unknown)."""
    from .ops.one_hot import available_memory

    available = available_memory()
    return 2**30 if available is None else available // 2


@dataclass(frozen=True, slots=True)
class ArrayHeader:
    """What an .npy header declares: enough to check an array before reading its data."""

    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool
    offset: int  # header length: where the data starts

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    def describe(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


def _header_fields(f: BinaryIO) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """(shape, fortran order, dtype) from the .npy header at the start of ``f``; NumPy's errors,
    or ValueError for a version NumPy does not name."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(f)
    if version in ((2, 0), (3, 0)):
        return np.lib.format.read_array_header_2_0(f)
    raise ValueError(f"unknown .npy version {version}")


def read_header(f: BinaryIO, where: str) -> ArrayHeader:
    """The .npy header at the start of ``f`` (no pickled object arrays), or InputError."""
    try:
        shape, fortran, dtype = _header_fields(f)
    except (
        ValueError,
        OSError,
        EOFError,
        SyntaxError,
        TypeError,
        zipfile.BadZipFile,
        NotImplementedError,
        RuntimeError,
    ) as exc:
        raise InputError(f"{where}: not a readable .npy array ({_cut(str(exc))})") from None
    if dtype.hasobject:
        raise InputError(f"{where}: holds Python objects (pickle), which ovonehot does not load")
    if any(d < 0 for d in shape):
        raise InputError(f"{where}: negative dims in the header {list(shape)}")
    # NumPy refuses (ValueError "array is too big") a shape whose non-zero dims multiply past
    # what an index can hold, even with a 0 dim and no data: checked here in Python ints.
    extent = math.prod(max(d, 1) for d in shape) * max(dtype.itemsize, 1)
    if extent > _INDEX_MAX:
        raise InputError(
            f"{where}: the header's shape {_cut(str(list(shape)))} of {dtype} spans {extent} bytes, "
            f"more than an array can index ({_INDEX_MAX})"
        )
    return ArrayHeader(tuple(shape), dtype, bool(fortran), f.tell())


def _read_data(f: BinaryIO, header: ArrayHeader, where: str) -> np.ndarray:
    """Exactly the bytes the header declares (never more), as an array."""
    nbytes = header.nbytes
    data = bytearray(nbytes)
    view = memoryview(data)
    got = 0
    while got < nbytes:
        n = f.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise InputError(f"{where}: truncated, {got} of the {nbytes} data bytes its header declares")
        got += n
    flat = np.frombuffer(data, dtype=header.dtype, count=math.prod(header.shape))
    if header.fortran_order:
        out: np.ndarray = flat.reshape(header.shape[::-1]).transpose()
        return out
    return flat.reshape(header.shape)


def _check_budget(where: str, nbytes: int, budget: int) -> None:
    if nbytes > budget:
        raise InputError(
            f"{where}: its header declares {nbytes} bytes of data, more than the {budget} bytes "
            "of memory ovonehot allows for inputs now (half of what is available)"
        )


def load_array(
    path: str | os.PathLike[str],
    budget: int | None = None,
    check: Callable[[ArrayHeader], None] | None = None,
) -> np.ndarray:
    """An .npy file, its header checked (``check``, the memory budget) before its data is read."""
    check_input_file(path, ".npy")
    try:
        with Path(path).open("rb") as f:
            if f.read(4) == b"PK\x03\x04":
                raise InputError(f"{path}: is an .npz archive; name it alone to feed every input from it")
            f.seek(0)
            header = read_header(f, str(path))
            if check is not None:
                check(header)
            _check_budget(str(path), header.nbytes, memory_budget() if budget is None else budget)
            return _read_data(f, header, str(path))
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def load_archive(
    path: str | os.PathLike[str],
    budget: int | None = None,
    check: Callable[[str, ArrayHeader], None] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of an .npz keyed by member name without ``.npy``.

    Bombs and odd archives are refused before anything is inflated: every member must be
    unencrypted, use a compression method Python reads, and start with an .npy header;
    ``check(key, header)`` sees every header first (names, shapes and types against the
    model), and the sum of the declared data sizes must fit the memory budget.  Then each
    member is inflated up to the size its header declares, never more.
    """
    check_input_file(path, ".npz")
    where = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            headers: dict[str, tuple[zipfile.ZipInfo, ArrayHeader]] = {}
            for info in members:
                key = info.filename.removesuffix(".npy")
                here = f"{where}: member {_cut(info.filename)!r}"
                if info.is_dir():
                    continue
                if info.flag_bits & 0x1:
                    raise InputError(f"{here} is encrypted; ovonehot reads only plain archives")
                if info.compress_type not in _KNOWN_METHODS:
                    raise InputError(
                        f"{here} uses compression method {info.compress_type}; ovonehot reads "
                        f"{', '.join(_KNOWN_METHODS.values())}"
                    )
                if key in headers:
                    raise InputError(f"{here} appears twice")
                with archive.open(info) as member:
                    headers[key] = (info, read_header(member, here))  # type: ignore[arg-type]
            if check is not None:
                for key, (_, header) in headers.items():
                    check(key, header)
            total = sum(h.nbytes for _, h in headers.values())
            _check_budget(where, total, memory_budget() if budget is None else budget)
            arrays = {}
            for key, (info, header) in headers.items():
                here = f"{where}: member {_cut(info.filename)!r}"
                if info.file_size < header.offset + header.nbytes:
                    raise InputError(f"{here}: {info.file_size} bytes, less than its header declares")
                with archive.open(info) as member:
                    member.read(header.offset)  # the header, already checked
                    arrays[key] = _read_data(member, header, here)  # type: ignore[arg-type]
            return arrays
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        ValueError,
        NotImplementedError,
        RuntimeError,
    ) as exc:
        raise InputError(f"{path}: not a readable .npz file ({_cut(str(exc))})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _spec_path(spec: str) -> tuple[str, str]:
    """(input name or "", file path) of one ``--inputs`` SPEC."""
    name, sep, path = spec.partition("=")
    if sep and name and not Path(spec).exists():
        return name, path
    return "", spec


def check_model_paths(model: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None) -> None:
    """The model file (and ``--bin``) are regular files: a missing one or a FIFO is refused before
    anything is opened, as a bad input file (InputError, exit 2) like a missing inputs file."""
    for path, what in ((model, "model"), (bin_path, "weights")):
        if path is not None:
            check_input_file(path, what)


def check_input_specs(specs: Sequence[str]) -> None:
    """Every file the ``--inputs`` SPECs name exists and is a regular file (before any work)."""
    for spec in specs:
        name, path = _spec_path(spec)
        if spec == "" or (spec.startswith("=") and not Path(spec).exists()):
            raise InputError(f"--inputs {spec!r}: expected FILE.npy, NAME=FILE.npy or FILE.npz")
        before, colon, after = spec.partition(":")
        if colon and not name and before and not Path(spec).exists() and Path(after).is_file():
            raise InputError(f"--inputs {spec!r}: no such file; NAME=FILE names an input: {before}={after}")
        check_input_file(path, ".npz" if spec.endswith(".npz") else ".npy")


def parse_input_specs(model: Model, specs: Sequence[str]) -> dict[str, np.ndarray]:
    """``x.npy`` (single-input model), ``name=x.npy``, or ``all.npz`` -> {input name: array}.

    Each array's name, shape and element type are checked against the model's Parameters
    from its header, before its data is read (or, in an .npz, inflated)."""
    inputs: dict[str, np.ndarray] = {}
    budget = memory_budget()

    def canonical(name: str, origin: str) -> str:
        key = _input_key(model, name, origin)
        if key in inputs:
            raise InputError(f"{origin}: input {key!r} is given twice")
        return key

    def checker(name: str, origin: str) -> Callable[[ArrayHeader], None]:
        def check(header: ArrayHeader) -> None:
            desc = model.inputs[model.input_index(name)]
            check_header(desc, header, origin)

        return check

    def put(key: str, value: np.ndarray) -> None:
        nonlocal budget
        inputs[key] = value
        budget -= value.nbytes

    for spec in specs:
        name, path = _spec_path(spec)
        if name:
            key = canonical(name, spec)
            put(key, load_array(path, budget, checker(key, spec)))
        elif spec.endswith(".npz"):
            seen: set[str] = set()

            def check_member(
                member: str, header: ArrayHeader, spec: str = spec, seen: set[str] = seen
            ) -> None:
                key = canonical(member, spec)
                if key in seen:
                    raise InputError(f"{spec}: input {key!r} is given twice")
                seen.add(key)
                check_header(model.inputs[model.input_index(key)], header, f"{spec}: {member!r}")

            for member, value in load_archive(spec, budget, check_member).items():
                put(model.input_key(model.input_index(member)), value)
        else:
            key = canonical(_sole_input(model, spec), spec)
            put(key, load_array(spec, budget, checker(key, spec)))
    _check_complete(model, inputs)
    return inputs


def _input_key(model: Model, name: str, origin: str) -> str:
    """The key of the input ``name`` addresses; an error naming ``origin`` (the SPEC) when none."""
    try:
        return model.input_key(model.input_index(name))
    except InputError as exc:
        raise InputError(f"{origin}: {exc}") from None


def _check_complete(model: Model, inputs: Mapping[str, np.ndarray]) -> None:
    """Given inputs are all the model's inputs (none are generated beside them)."""
    missing = [d.name for k, d in enumerate(model.inputs) if model.input_key(k) not in inputs]
    if inputs and missing:
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        raise InputError(
            f"missing inputs: {', '.join(_cut(m) for m in missing[:20])}{more} (the --inputs given hold "
            f"{', '.join(_cut(n) for n in list(inputs)[:20])}): give every input, as NAME=FILE.npy or in "
            "one .npz, or none to have them all generated"
        )


def _sole_input(model: Model, spec: str) -> str:
    """The input a bare ``x.npy`` feeds: the model's only one, else an InputError."""
    if len(model.inputs) != 1:
        names = ", ".join(d.name for d in model.inputs)
        raise InputError(
            f"{spec}: the model has {len(model.inputs)} inputs ({names}); "
            "name each one as NAME=FILE.npy or give one .npz"
        )
    return model.input_key(0)


def check_header(desc: TensorDesc, header: ArrayHeader, origin: str) -> None:
    """What ``check_input`` refuses from the header alone: the shape, the kind of values."""
    if not desc.shape.accepts(header.shape):
        raise InputError(
            f"{origin}: input {desc.name!r} ({desc.element_type}{desc.shape}): "
            f"got an array of shape {list(header.shape)}"
        )
    # The dtype rules of check_input, on an empty array of any shape; the error names the file
    # and the input's declared shape, as the shape's does.
    anyshape = replace(desc, shape=PartialShape.dynamic())
    try:
        check_input(anyshape, np.empty((0,), dtype=header.dtype))
    except InputError as exc:
        said, meant = f"({anyshape.element_type}{anyshape.shape})", f"({desc.element_type}{desc.shape})"
        raise InputError(f"{origin}: {str(exc).replace(said, meant, 1)}") from None


def storable(array: np.ndarray) -> np.ndarray:
    """An array NumPy can save without pickle: strings become fixed-width unicode."""
    if array.dtype == object:
        return np.asarray(array.astype(str) if array.size else np.empty(array.shape, dtype="<U1"))
    if array.dtype.isbuiltin == 2:
        # ml_dtypes types (bf16, f8, i4, ...): NumPy saves most as raw bytes (|V2, |V1) but
        # float8_e5m2 as '<f1', which np.load refuses. Store them all as raw bytes of their width.
        # (reshape: np.ascontiguousarray turns a 0-d array into shape (1,))
        return (
            np.ascontiguousarray(array).reshape(array.shape).view(np.dtype((np.void, array.dtype.itemsize)))
        )
    return array


def _write_npz(f: BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    """What ``np.savez`` writes, for any key: ``np.savez(f, **arrays)`` fails on a key named
    ``file`` and takes a key named ``allow_pickle`` for its flag (and drops the array)."""
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, value in arrays.items():
            with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(storable(value)), allow_pickle=False)


def save_archive(path: str | os.PathLike[str], arrays: Mapping[str, np.ndarray]) -> None:
    """Write an .npz atomically (:class:`ovonehot.atomic.AtomicFile`): complete or not at all.

    A target that cannot be written (a directory, no permission, a full disk) is an
    InputError, and leaves neither the target nor a temporary file behind.
    """
    with AtomicFile(path) as f:
        _write_npz(f, arrays)


def save_array(path: str | os.PathLike[str], array: np.ndarray) -> None:
    """Write one array as an .npy atomically, as :func:`save_archive` writes an .npz."""
    with AtomicFile(path) as f:
        np.lib.format.write_array(f, np.asanyarray(storable(array)), allow_pickle=False)


def ensure_directory(path: str | os.PathLike[str]) -> Path:
    """``path`` as a directory, created with its parents when missing; InputError when it
    cannot be (a file is in the way, no permission)."""
    folder = check_output_dir(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"{path}: exists and is not a directory") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot create the directory ({exc.strerror or exc})") from None
    return folder


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a text file (a JSON report) atomically; InputError when it cannot be written."""
    with AtomicFile(path) as f:
        f.write(text.encode("utf-8"))


def new_file_mode(path: str | os.PathLike[str] | None = None) -> int:
    """The mode a written file gets: an existing target's, else 0o666 less the umask."""
    return target_mode(Path(path) if path is not None else Path("/nonexistent/ovonehot"))
