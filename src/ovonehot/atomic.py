"""Files written whole or not at all, leaving nothing behind when the process dies.

Every file ovonehot writes for the user (``--output``, ``--json``, ``--out-dir``,
``--dump-intermediates``, ``convert -o``, fuzz's ``summary.json``) goes through
:class:`AtomicFile`:

* the data goes to an anonymous file in the target's directory (Linux ``O_TMPFILE``):
  a process killed mid-write (SIGKILL, the OOM killer) leaves nothing in the
  directory, the kernel frees the blocks;
* once complete, it is linked under ``.NAME.ovonehot-PID-XXXX.tmp`` and renamed over
  the target (``rename`` is atomic: a reader sees the old file or the new one);
  only a kill in the microseconds between link and rename can leave that name;
* where ``O_TMPFILE`` is not available (another OS or file system), the data is
  written under that name from the start;
* either way every write first removes the ``.*.ovonehot-PID-*.tmp`` files beside
  the target whose process is no longer running: what a killed run left;
* the file gets the target's mode when it overwrites one (a 0600 file stays 0600),
  else the mode ``open()`` would give a new file (0666 less the umask);
* a write that fails (a full disk, an exception, Ctrl-C) leaves the target as it was
  and no temporary file;
* the scratch directories ovonehot works in (``ovonehot-diff-PID-XXXX`` in the system's
  temporary directory: the OpenVINO child's files, a corpus worker's, a reduction's
  candidates) carry the process id, and each new one first removes those whose process is
  gone (:func:`scratch_directory`): a killed run's folder lasts until the next run;
* only a regular file (or a symbolic link to one) or a new name is ever replaced: a
  device node (``/dev/null``, ``/dev/full``), a FIFO, a socket, or a link to one of them
  (``/proc/self/fd/1``) is refused in one line, checked before any work starts
  (:func:`check_output_file`) and again just before the rename, in case one appeared
  meanwhile.  Renaming over ``/dev/null`` as root would replace the device node itself
  with a regular file for every process of the machine.  A stream is written only when
  the user names it on purpose: ``-`` for stdout where a command takes it (``--json-out -``).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from .errors import InputError, UsageError

_TEMP = re.compile(r"\..*\.ovonehot-(\d+)-[0-9A-Za-z_]+\.tmp")


def check_output_file(path: str | os.PathLike[str], option: str = "the output") -> Path:
    """``path`` as a file ovonehot may write, checked before any work starts: an empty
    name is a usage error; a missing directory, a directory in the way or a directory
    that cannot be written is an InputError."""
    if str(path) == "":
        raise UsageError(f"{option}: an empty file name")
    target = Path(path)
    directory = target.parent
    if not directory.is_dir():
        raise InputError(f"{path}: the directory {directory} does not exist")
    check_replaceable(target)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write in the directory {directory}")
    try:  # (permission bits say nothing of a read-only mount, /proc, or of root: try it)
        fd, name = tempfile.mkstemp(prefix=".ovonehot-check-", dir=directory)
    except OSError as exc:
        raise InputError(
            f"{path}: cannot write in the directory {directory} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        Path(name).unlink()
    return target


def check_replaceable(target: Path) -> None:
    """``target`` is a new name, a regular file or a link to one; else an InputError that says
    what is there.  A dangling link is a new name (the rename replaces the link)."""
    try:
        st = target.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{target}: cannot write it ({exc.strerror or exc})") from None
    if stat.S_ISREG(st.st_mode):
        return
    link = " (a symbolic link to it)" if target.is_symlink() else ""
    raise InputError(
        f"{target}: is {file_kind(st.st_mode)}{link}, not a regular file; ovonehot replaces only "
        "regular files (write to a new name, or '-' for stdout where the option takes it)"
    )


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words: "a directory", "a FIFO", "a device", ..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_output_dir(path: str | os.PathLike[str], option: str = "the output directory") -> Path:
    """``path`` as a directory ovonehot may create or write in: an empty name is a usage
    error, a file in the way or a missing parent an InputError."""
    if str(path) == "":
        raise UsageError(f"{option}: an empty directory name")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{path}: exists and is not a directory")
    if not folder.exists():
        parent = next((p for p in folder.absolute().parents if p.exists()), None)
        if parent is None or not parent.is_dir():
            raise InputError(f"{path}: its parent directory does not exist")
    return folder


def check_writable_dir(path: str | os.PathLike[str], option: str = "the output directory") -> None:
    """``path`` (a directory, or the nearest existing parent it would be made in) lets this
    process write: a file is made there and removed (permission bits say nothing of a
    read-only mount or of root); InputError otherwise."""
    folder = Path(path).absolute()
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise InputError(f"{path}: its parent directory does not exist")
    try:
        fd, name = tempfile.mkstemp(prefix=".ovonehot-check-", dir=existing)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot write in {existing} ({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        Path(name).unlink()


def remove_stale_temps(directory: str | os.PathLike[str]) -> None:
    """Delete the temporary files of ovonehot writes in ``directory`` whose process is gone."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        m = _TEMP.fullmatch(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            Path(entry.path).unlink()


_SCRATCH = re.compile(r"ovonehot-[a-z]+-(\d+)-[0-9a-z_]+")


def scratch_directory(prefix: str) -> str:
    """A new directory ``{prefix}{pid}-XXXX`` in the system's temporary directory (``prefix``
    like ``ovonehot-diff-``), made after removing those of processes that are gone."""
    remove_stale_scratch(tempfile.gettempdir())
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """:func:`scratch_directory`, removed with its contents at the end (as ``TemporaryDirectory``)."""
    path = scratch_directory(prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def remove_stale_scratch(directory: str) -> None:
    """Remove this user's ``ovonehot-*-PID-*`` directories in ``directory`` whose process is gone."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        m = _SCRATCH.fullmatch(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and (uid is None or st.st_uid == uid):
            shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or a name we did not make): leave it
    return True


def target_mode(target: Path) -> int:
    """The mode the written file gets: the existing regular file's, else a new file's."""
    try:
        st = os.lstat(target)
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux says it (os.umask sets it, which
    another thread creating a file at that moment would see)."""
    try:
        with Path("/proc/self/status").open(encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


class AtomicFile:
    """A binary file that appears under ``path`` only at :meth:`commit` (see the module doc).

    Use as a context manager (commit on success, discard on any exception) or call
    :meth:`commit` / :meth:`discard` yourself.  ``file`` is the open, seekable file.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.target = check_output_file(path)
        self.directory = self.target.parent
        remove_stale_temps(self.directory)
        self._mode = target_mode(self.target)
        self._named: Path | None = None
        fd = self._open_anonymous()
        if fd is None:
            self._named = self._temp_name()
            try:
                fd = os.open(self._named, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise InputError(f"{path}: cannot write there ({exc.strerror or exc})") from None
        self.file: BinaryIO = os.fdopen(fd, "w+b")
        self._done = False

    def _temp_name(self) -> Path:
        name = self.target.name[:120]
        return self.directory / f".{name}.ovonehot-{os.getpid()}-{secrets.token_hex(4)}.tmp"

    def _open_anonymous(self) -> int | None:
        flag = getattr(os, "O_TMPFILE", None)
        if flag is None or not Path("/proc/self/fd").is_dir():
            return None
        try:
            return os.open(self.directory, flag | os.O_RDWR | os.O_CLOEXEC, 0o600)
        except OSError:  # the file system has no O_TMPFILE: a named temporary file instead
            return None

    def commit(self) -> None:
        """Flush, give the file its mode and rename it over the target."""
        if self._done:
            return
        try:
            self.file.flush()
            os.fchmod(self.file.fileno(), self._mode)
            if self._named is None:
                self._named = self._temp_name()
                _link_anonymous(self.file.fileno(), self._named)
            self.file.close()
            check_replaceable(self.target)  # a device or FIFO may have appeared since the start
            self._named.replace(self.target)
            self._named = None
            self._done = True
        except BaseException as exc:
            self.discard()
            if isinstance(exc, OSError):
                raise InputError(f"{self.target}: cannot write it ({exc.strerror or exc})") from None
            raise

    def discard(self) -> None:
        """Forget what was written: the target stays as it was, no temporary file remains
        (nothing to do after a commit)."""
        self._done = True
        with contextlib.suppress(OSError):
            self.file.close()
        if self._named is not None:
            with contextlib.suppress(FileNotFoundError):
                self._named.unlink()

    def __enter__(self) -> BinaryIO:
        return self.file

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()
            if isinstance(exc, OSError):
                raise InputError(f"{self.target}: cannot write it ({exc.strerror or exc})") from None


def _link_anonymous(fd: int, name: Path) -> None:
    """Give the ``O_TMPFILE`` file ``fd`` the name ``name``.  ``linkat`` must follow the
    ``/proc/self/fd`` link (AT_SYMLINK_FOLLOW); ``os.link`` calls plain ``link()``, which
    does not, unless a directory fd is passed."""
    directory = os.open(name.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.link(f"/proc/self/fd/{fd}", name.name, dst_dir_fd=directory, follow_symlinks=True)
    finally:
        os.close(directory)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with AtomicFile(path) as f:
        f.write(data)


def copy_file(source: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Copy ``source`` to ``path`` atomically, in bounded chunks."""
    with Path(source).open("rb") as src, AtomicFile(path) as f:
        while chunk := src.read(1 << 20):
            f.write(chunk)
