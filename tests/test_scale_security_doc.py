"""docs/security.md describes the cache's protection as seedlint/run/cache.py implements it:
the names, modes and algorithms the page gives are the code's, and every test it cites exists."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from seedlint.run import cache

ROOT = Path(__file__).parent.parent
PAGE = (ROOT / "docs" / "security.md").read_text()
SECTION = PAGE.split("## The cache: a folder in the repository is not trusted", 1)[-1].split(
    "\n## ", 1
)[0]
SOURCE = inspect.getsource(cache)


def test_the_page_has_a_cache_section() -> None:
    assert "## The cache: a folder in the repository is not trusted" in PAGE


def test_the_key_is_where_and_as_the_page_says() -> None:
    assert f"seedlint/{cache._KEY_NAME}" in SECTION
    assert f"{cache._KEY_BYTES} random bytes" in SECTION
    assert "0o600" in inspect.getsource(cache.secret_key) and "`0600`" in SECTION
    assert "0o700" in inspect.getsource(cache.secret_key) and "`0700`" in SECTION
    assert "O_EXCL" in inspect.getsource(cache.secret_key) and "O_EXCL" in SECTION
    assert "XDG_CACHE_HOME" in inspect.getsource(cache.key_folder)


def test_the_mac_is_what_the_page_says() -> None:
    mac = inspect.getsource(cache.Cache._mac)
    assert "hashlib.sha256" in mac and "HMAC-SHA256" in SECTION
    assert "seedlint-cache" in mac and "`seedlint-cache`" in SECTION
    assert "getuid" in mac and "user id" in SECTION
    assert "compare_digest" in SOURCE and "compare_digest" in SECTION


def test_the_functions_the_page_names_exist() -> None:
    for name in re.findall(r"`(_?[a-z_]+)\(\)`", SECTION):
        assert hasattr(cache, name), name
    for name in re.findall(r"\(`(_[a-z_]+)`", SECTION):
        assert hasattr(cache, name), name


def test_every_cited_test_exists() -> None:
    names = set(re.findall(r"`(test_[a-z0-9_]+)`", PAGE))
    assert len(names) > 10
    defined = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        defined.update(re.findall(r"^def (test_[a-z0-9_]+)", path.read_text(), re.MULTILINE))
    assert names <= defined, names - defined
