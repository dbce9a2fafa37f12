"""Writing a fixed file: atomically, only over the bytes that were read, never a read-only
file, and keeping the file's identity (owner, group, mode, hard links).

The new bytes go to a temporary file in the same folder, are flushed and fsync'ed, get the old
file's permission bits, owner and group, and replace the old file with ``os.replace`` (a
symlink's target is replaced, not the link). Before that, the file is read again: if its bytes
are no longer the ones the fix started from (an editor saved it meanwhile), nothing is written.

A file with several hard links (or whose owner cannot be kept, for a user who is not root) is
not replaced, which would split it from its twins or hand it to the user: it is rewritten in
place instead, under the same check. While a temporary file exists or a file is rewritten in
place, SIGINT and SIGTERM are held back and delivered right after, so an interrupted ``--fix``
never leaves a ``.*.tmp`` file or half a file behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM delivered after the block, not during it (where the platform can)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    old = mask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


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
    if info.st_nlink > 1 or not _can_keep_owner(info):
        return _write_in_place(target, expected, new)
    folder = target.parent
    with signals_held():
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
            if hasattr(os, "chown") and (info.st_uid, info.st_gid) != _ids(temporary):
                os.chown(temporary, info.st_uid, info.st_gid)
            os.chmod(temporary, stat.S_IMODE(info.st_mode))  # chown may clear setgid bits
            os.replace(temporary, target)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            return f"cannot write it: {error.strerror or error}"
        except BaseException:  # interrupted all the same: leave no temporary file behind
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    _fsync_folder(folder)
    return None


def _ids(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_uid, info.st_gid


def _can_keep_owner(info: os.stat_result) -> bool:
    """Whether a new file can get ``info``'s owner and group (root can; others only their own
    uid and one of their groups)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    if getuid() == 0:
        return True
    return info.st_uid == getuid() and (info.st_gid == os.getgid() or info.st_gid in os.getgroups())


def _write_in_place(target: Path, expected: bytes, new: bytes) -> Optional[str]:
    """Rewrite the file itself (same inode: hard links and owner kept), signals held."""
    with signals_held():
        try:
            fd = os.open(target, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError as error:
            return f"cannot write it: {error.strerror or error}"
        with os.fdopen(fd, "r+b") as handle:
            try:
                if handle.read() != expected:
                    return "it changed on disk while it was being fixed; it was left as it is"
                handle.seek(0)
                handle.write(new)
                handle.truncate()
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as error:
                return f"cannot write it in place: {error.strerror or error}"
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
