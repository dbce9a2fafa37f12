"""Reading a file seedlint did not write: only a regular file is ever read (imports nothing of
ours).

A FIFO named ``x.py`` (or ``.gitignore``, ``pyproject.toml``) would block a plain ``open`` until
some writer came; a device or a socket is no source either. A file is opened without blocking
(``O_NONBLOCK``, which changes nothing for a regular file) and refused, before any byte is
read, unless ``fstat`` says it is a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Union

_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)

StrPath = Union[str, "os.PathLike[str]"]


class NotRegularFile(OSError):
    """A path that names a FIFO, a socket or a device: never read."""


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO", "a socket", ...)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def not_regular(mode: int) -> str:
    """The reason a file of ``mode`` is not read."""
    return f"not a regular file ({kind_of(mode)})"


def read_regular(path: StrPath) -> bytes:
    """The bytes of the regular file ``path`` (two system calls for most files, besides the
    open and the close); :class:`NotRegularFile` for anything else, ``IsADirectoryError`` for
    a folder, ``OSError`` when it cannot be read."""
    descriptor = os.open(path, _FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
            raise NotRegularFile(errno.EINVAL, not_regular(info.st_mode), str(path))
        parts = [os.read(descriptor, info.st_size + 1)]
        # To the end, however the file changed since its size was read: a regular file read
        # short is at its end.
        if len(parts[0]) > info.st_size:
            while parts[-1]:
                parts.append(os.read(descriptor, 1 << 20))
    finally:
        os.close(descriptor)
    return parts[0] if len(parts) == 1 else b"".join(parts)


__all__ = ["NotRegularFile", "kind_of", "not_regular", "read_regular"]
