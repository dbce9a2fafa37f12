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
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Callable, Optional, cast

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


_CHANGED = "it changed on disk while it was being fixed; it was left as it is"


def write_fixed(path: Path, expected: bytes, new: bytes) -> Optional[str]:
    """Replace ``path``'s content ``expected`` with ``new``; None on success, else why not.

    The file is opened once and held (under an advisory ``flock`` where the platform has one,
    so that two seedlint runs take turns); it must still hold ``expected`` when it is opened,
    and again right before the new file takes its name (the same bytes, then the same inode,
    size and modification time). On Linux the new file and the old one then swap names in one
    step (``renameat2(RENAME_EXCHANGE)``), and swap back if what the name held by then was not
    the old file, unchanged (an editor saved meanwhile, by renaming a file of its own over it
    or in place); elsewhere the new file replaces the old one (``os.replace``), which leaves
    the microseconds between the last check and the rename. Bytes an editor writes into the
    old file after the check are found in it (it is still held) and put back. The editor's
    save wins; a crash leaves the file fully old or fully new either way."""
    target = Path(os.path.realpath(path))
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as error:
        return f"cannot read it again before writing: {error.strerror or error}"
    try:
        _lock(fd)
        try:
            info = os.fstat(fd)
            current = _read_all(fd)
        except OSError as error:
            return f"cannot read it again before writing: {error.strerror or error}"
        if current != expected:
            return _CHANGED
        if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
            target, os.W_OK
        ):
            return "it is read-only; it was left as it is"
        if info.st_nlink > 1 or not _can_keep_owner(info):
            return _write_in_place(target, expected, new)
        return _replace(target, fd, info, expected, new)
    finally:
        os.close(fd)  # releases the lock


def _replace(
    target: Path, fd: int, info: os.stat_result, expected: bytes, new: bytes
) -> Optional[str]:
    """The new bytes in a temporary file of the folder, which then takes the file's name, if
    the name still holds the file ``fd`` (``info``) with ``expected`` in it."""
    folder = target.parent
    with signals_held():
        try:
            handle, temporary = tempfile.mkstemp(
                dir=folder, prefix=f".{target.name}.", suffix=".tmp"
            )
        except OSError as error:
            return f"cannot write in {folder}: {error.strerror or error}"
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(new)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            if hasattr(os, "chown") and (info.st_uid, info.st_gid) != _ids(temporary):
                os.chown(temporary, info.st_uid, info.st_gid)
            os.chmod(temporary, stat.S_IMODE(info.st_mode))  # chown may clear setgid bits
            # Right before the name changes hands: still the file that was read?
            if not _unchanged(target, fd, info, expected):
                os.unlink(temporary)
                return _CHANGED
            if _exchange(temporary, target):
                # ``temporary`` now names what ``target`` named right before: the old file?
                if not _names(temporary, info) or _read_all(fd) != expected:
                    if not _exchange(temporary, target):  # the editor's save back in place
                        return f"{_CHANGED}; the file saved meanwhile is {temporary}"
                    os.unlink(temporary)
                    return _CHANGED
                os.unlink(temporary)
            else:
                os.replace(temporary, target)
            if _read_all(fd) != expected:  # written in place meanwhile: those bytes win
                _put_back(target, fd, info)
                return _CHANGED
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


def _lock(fd: int) -> None:
    """An exclusive advisory lock on ``fd`` (released when it is closed), where there is one."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX)


def _read_all(fd: int) -> bytes:
    """Everything in the file ``fd`` from its start (without moving a shared offset)."""
    pread = getattr(os, "pread", None)
    parts: list[bytes] = []
    offset = 0
    while True:
        if pread is not None:
            part = pread(fd, 1 << 20, offset)
        else:  # pragma: no cover - Windows
            os.lseek(fd, offset, os.SEEK_SET)
            part = os.read(fd, 1 << 20)
        if not part:
            return b"".join(parts)
        parts.append(part)
        offset += len(part)


def _unchanged(target: Path, fd: int, info: os.stat_result, expected: bytes) -> bool:
    """Whether the file ``fd`` still holds ``expected`` and ``target`` still names it, with the
    same size and modification time (the name checked last, right before the rename)."""
    if _read_all(fd) != expected:
        return False
    try:
        now = os.stat(target)
    except OSError:
        return False
    return (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) == (
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
    )


def _put_back(target: Path, fd: int, info: os.stat_result) -> None:
    """What an editor wrote into the old file ``fd`` (after the last check) under ``target``
    again, once it stops changing (an editor may still be writing it)."""
    content = _settled(fd)
    for _ in range(_ROUNDS):
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        again = _settled(fd)
        if again == content:
            return
        content = again


_ROUNDS = 50


def _settled(fd: int) -> bytes:
    """The file's bytes once two reads a millisecond apart agree (at most :data:`_ROUNDS`)."""
    content = _read_all(fd)
    for _ in range(_ROUNDS):
        time.sleep(0.001)
        again = _read_all(fd)
        if again == content:
            break
        content = again
    return content


def _names(name: str, info: os.stat_result) -> bool:
    """Whether ``name`` is a name of the file ``info`` describes."""
    try:
        now = os.lstat(name)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)


# Linux's renameat2(RENAME_EXCHANGE): two names swapped in one step, which Python's os module
# does not offer. Looked up once, through ctypes, in the C library already loaded (no other
# library is loaded, nothing but this one call is made); None elsewhere.
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_RENAMEAT2: list[Optional[Callable[..., int]]] = []


def _exchange(first: str, second: Path) -> bool:
    """Swap the names ``first`` and ``second`` atomically; False where the platform or the
    file system cannot (nothing was done then)."""
    if not _RENAMEAT2:
        _RENAMEAT2.append(_find_renameat2())
    function = _RENAMEAT2[0]
    if function is None:
        return False
    done = function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    return done == 0


def _find_renameat2() -> Optional[Callable[..., int]]:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, ImportError):
        return None
    text, number = ctypes.c_char_p, ctypes.c_int
    function.argtypes = [number, text, number, text, ctypes.c_uint]
    function.restype = number
    return cast("Callable[..., int]", function)


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
