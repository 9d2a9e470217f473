"""Safe files: the one mechanism every reader and writer of fracas goes through (docs/scenario-limits.md).

Inputs must be regular files (a FIFO would block, ``/dev/zero`` would never end).
Outputs are only ever regular files: an existing one is replaced only with
``force``; an input is never an output (not even through another name or a
hard link); nothing is written through a symbolic link or onto a folder, a
device or a FIFO. A whole-file output is written to a temporary file in the
same folder, flushed, synced and renamed; a streamed output (a log being
written, so that a killed run keeps its prefix) is created exclusively, never
following a link. Each refusal is a :class:`FracasError`: one line, exit 2.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from fracas.core.errors import FracasError

#: The longest file name a default output gets from user text (a seed, a scenario's name).
NAME_MAX = 64
#: The picture formats a ``--plot`` writes, named by the file's suffix.
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def file_name(path: Path | str) -> Path:
    """``path`` as a Path, if the system could name a file so: a NUL byte cannot be in a file name (a shell cannot
    pass one, but a caller in Python or a name read from a log can)."""
    if "\x00" in str(path):
        raise FracasError(f"{str(path)!r}: not a file name: it holds a NUL byte")
    return Path(path)


def check_input(path: Path | str, what: str = "input") -> Path:
    """``path`` if it is a regular file (links followed); else one line, at once, without opening it."""
    path = file_name(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise FracasError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FracasError(f"{path}: not a regular file ({_kind(st.st_mode)}): fracas reads only regular files")
    return path


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_output(path: Path | str, *, force: bool = False, inputs: Iterable[Path | str] = ()) -> Path:
    """Refuse an output that would destroy something; return ``path`` (its folder created if missing).

    Refused even with ``force``: a symbolic link, a folder, a device, a FIFO, a socket,
    or one of ``inputs`` (by any name). Without ``force``: any existing file.
    """
    path = file_name(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # e.g. a path under a plain file
        raise FracasError(f"{path}: cannot write here: {exc.strerror or exc}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise FracasError(f"{path}: is a symbolic link: fracas never writes through one")
        if not stat.S_ISREG(st.st_mode):
            raise FracasError(f"{path}: is {_kind(st.st_mode)}: fracas writes only regular files")
        for source in inputs:
            try:
                if _same_file(st, os.stat(source)):
                    raise FracasError(f"{path}: is an input of this command ({source}): it is never an output")
            except FileNotFoundError:
                continue
        if not force:
            raise FracasError(f"{path}: already exists: give --force to replace it")
    _make_folder(path.parent)
    return path


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FracasError(f"{folder}: is not a folder: cannot write in it") from None
    except OSError as exc:
        raise FracasError(f"{folder}: cannot create the folder: {exc.strerror or exc}") from None
    if not folder.is_dir():
        raise FracasError(f"{folder}: is not a folder: cannot write in it")


def write_atomic(path: Path | str, data: bytes, *, force: bool = False, inputs: Iterable[Path | str] = ()) -> Path:
    """Write ``data`` as ``path``: a temporary file in the same folder, flushed, synced, renamed."""
    path = check_output(path, force=force, inputs=inputs)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:NAME_MAX]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        check_output(path, force=True, inputs=inputs)  # nothing was swapped in meanwhile
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _plot_format(path: Path | str) -> str:
    """The picture format a ``--plot`` name asks for (its suffix): ``png``, ``svg`` or ``pdf``."""
    suffix = Path(path).suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise FracasError(f"--plot {path}: expected a {', '.join(PLOT_SUFFIXES)} file name")
    return suffix[1:]


def check_plot(path: Path | str, *, force: bool = False, inputs: Iterable[Path | str] = ()) -> Path:
    """A ``--plot`` output: named ``.png``, ``.svg`` or ``.pdf`` (its format), and checked as every output."""
    _plot_format(path)
    return check_output(path, force=force, inputs=inputs)


def save_figure(
    figure: Any, path: Path | str, *, force: bool = False, inputs: Iterable[Path | str] = (), **options: Any
) -> Path:
    """A matplotlib figure written whole as ``path`` (:func:`write_atomic`, which checks it as every output), in
    the format its suffix names."""
    picture = io.BytesIO()
    figure.savefig(picture, format=_plot_format(path), **options)
    return write_atomic(path, picture.getvalue(), force=force, inputs=inputs)


def open_exclusive(path: Path | str, *, force: bool = False, inputs: Iterable[Path | str] = ()) -> IO[bytes]:
    """Open a new regular file for streaming: created exclusively, never through a link.

    With ``force`` an existing regular file (never an input) is removed first; a link,
    device or FIFO swapped in between the check and the open makes the open fail.
    """
    path = check_output(path, force=force, inputs=inputs)
    if force:
        path.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        raise FracasError(f"{path}: appeared while fracas was about to write it: give --force to replace it") from None
    except OSError as exc:
        raise FracasError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return os.fdopen(fd, "wb")


class PartialFile:
    """A file streamed as ``NAME.partial`` and renamed to ``NAME`` only when complete.

    A reader (or a crash) never finds an unfinished file under its final name.
    """

    def __init__(self, path: Path | str, *, force: bool = False, inputs: Iterable[Path | str] = ()) -> None:
        self.path = check_output(path, force=force, inputs=inputs)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.force = force
        self.inputs = list(inputs)
        self.fh = open_exclusive(self.partial, force=True, inputs=self.inputs)

    def commit(self) -> Path:
        """Flush, sync and rename the finished file to its final name."""
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        check_output(self.path, force=self.force, inputs=self.inputs)
        os.replace(self.partial, self.path)
        return self.path

    def abandon(self) -> None:
        """Close, leaving ``NAME.partial`` marked as what it is."""
        self.fh.close()


_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]+")


def safe_name(text: str, limit: int = NAME_MAX) -> str:
    """A file-name part from user text: no separators, no ``..``, no leading dot or dash, bounded."""
    name = _UNSAFE.sub("_", text)
    name = re.sub(r"\.{2,}", "_", name).lstrip(".-")
    return name[:limit] or "_"
