"""Writing a fixed file: atomically, only over the bytes that were read, and never a read-only
file.

The new bytes go to a temporary file in the same folder, are flushed and fsync'ed, get the old
file's permission bits, and replace the old file with ``os.replace`` (a symlink's target is
replaced, not the link). Before that, the file is read again: if its bytes are no longer the ones
the fix started from (an editor saved it meanwhile), nothing is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Optional


def write_fixed(path: Path, expected: bytes, new: bytes) -> Optional[str]:
    """Replace ``path``'s content ``expected`` with ``new``; None on success, else why not."""
    target = Path(os.path.realpath(path))
    try:
        info = target.stat()
        with open(target, "rb") as handle:
            current = handle.read()
    except OSError as error:
        return f"cannot read it again before writing: {error.strerror or error}"
    if current != expected:
        return "it changed on disk while it was being fixed; it was left as it is"
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
        target, os.W_OK
    ):
        return "it is read-only; it was left as it is"
    folder = target.parent
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        return f"cannot write in {folder}: {error.strerror or error}"
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return f"cannot write it: {error.strerror or error}"
    except BaseException:  # interrupted (Ctrl-C): leave no temporary file behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)
    return None


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable where the platform allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
