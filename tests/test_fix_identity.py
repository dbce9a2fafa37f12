"""--fix keeps a file's identity: owner, group, mode and hard links; no temporary file is left
behind by SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from seedlint.fixes.write import write_fixed

OLD = b"x = 1\n"
NEW = b"x = 2\n"


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown")
def test_owner_group_and_mode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(OLD)
    os.chown(path, 65534, 65534)
    os.chmod(path, 0o640)
    assert write_fixed(path, OLD, NEW) is None
    info = path.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (65534, 65534, 0o640)
    assert path.read_bytes() == NEW


def test_hard_links_stay_one_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(OLD)
    twin = tmp_path / "twin.py"
    os.link(path, twin)
    inode = path.stat().st_ino
    assert write_fixed(path, OLD, NEW) is None
    assert twin.read_bytes() == NEW and path.stat().st_ino == inode == twin.stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "twin.py"]


def test_a_hard_linked_file_changed_meanwhile_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"edited\n")
    os.link(path, tmp_path / "twin.py")
    assert write_fixed(path, OLD, NEW) is not None
    assert path.read_bytes() == b"edited\n"


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signals")
@pytest.mark.parametrize("links", [1, 2])
def test_sigterm_while_writing_leaves_no_temporary_file(tmp_path: Path, links: int) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(OLD)
    if links == 2:
        os.link(path, tmp_path / "twin.py")
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from seedlint.fixes import write\n"
        "real = os.fsync\n"
        "def fsync(fd):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    real(fd)\n"
        "write.os.fsync = fsync\n"
        "write.write_fixed(Path(sys.argv[1]), b'x = 1\\n', b'x = 2\\n')\n"
        "print('survived')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -signal.SIGTERM, proc.stderr
    assert "survived" not in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["a.py"] + (["twin.py"] if links == 2 else [])
    )
    assert path.read_bytes() == NEW  # the write completed before the signal was delivered
