"""Rebuild the seedlint speed-benchmark corpus from pinned wheels.

The corpus is the ``.py`` files of eight pinned PyTorch-ecosystem wheels, unpacked into
``bench/corpus/<name>/``.  Every artifact is fetched with ``pip download --no-deps`` for an
explicit target (CPython 3.11, ``manylinux_2_28_x86_64``; the pure-python wheels are
``py3-none-any``), so the same bytes come down on any host.  Each wheel is checked against its
pinned sha256, and the unpacked tree is checked against the committed ``bench/corpus.manifest``
(``sha256sum`` lines, two spaces, paths relative to ``bench/``, sorted with ``LC_ALL=C``), whose
own sha256 is pinned below as well.

The script is idempotent: wheels already in ``bench/wheels/`` with the right digest are not
downloaded again, and a corpus that already matches the manifest is left alone.  Standard
library only; pip is run as ``python -m pip`` of the interpreter that runs this script.

Usage::

    python bench/build_corpus.py            # download what is missing, unpack, verify
    python bench/build_corpus.py --check    # verify the existing tree only (no network)

The CPU torch wheel is ``torch==2.13.0+cpu``; pip must be able to find it, e.g. by pointing
``PIP_FIND_LINKS`` at a folder that holds it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_WHEELS = BENCH_DIR / "wheels"
DEFAULT_CORPUS = BENCH_DIR / "corpus"
MANIFEST = BENCH_DIR / "corpus.manifest"

#: sha256 of ``bench/corpus.manifest`` itself.
MANIFEST_SHA256 = "e5d5b7bfabdd5dffe592adaf44934a893c55bb7e2a0c419d6f9ed218baa174c5"

#: The explicit download target, so that platform wheels are identical from any host.
PIP_TARGET_ARGS = (
    "--no-deps",
    "--only-binary=:all:",
    "--python-version",
    "3.11",
    "--implementation",
    "cp",
    "--abi",
    "cp311",
    "--platform",
    "manylinux_2_28_x86_64",
)

EXPECTED_FILES = 7577


@dataclass(frozen=True)
class Pin:
    """One pinned wheel of the corpus."""

    name: str  # corpus folder name: bench/corpus/<name>/
    requirement: str  # what pip is asked for
    wheel: str  # the artifact's file name
    sha256: str


PINS: tuple[Pin, ...] = (
    Pin(
        "torch",
        "torch==2.13.0+cpu",
        "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
        "6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b",
    ),
    Pin(
        "transformers",
        "transformers==5.24.0",
        "transformers-5.24.0-py3-none-any.whl",
        "ff5ebedf9359f94bb63772b6380eba6e7104d010cbbb2cb82c788817ea7486f6",
    ),
    Pin(
        "diffusers",
        "diffusers==0.42.1",
        "diffusers-0.42.1-py3-none-any.whl",
        "9154faa704ce00e0b77f568e0d64786064368528aab5fc14eeea92f87d788014",
    ),
    Pin(
        "torchmetrics",
        "torchmetrics==1.9.0",
        "torchmetrics-1.9.0-py3-none-any.whl",
        "bfdcbff3dd1d96b3374bb2496eb39f23c4b28b8a845b6a18c313688e0d2d9ca1",
    ),
    Pin(
        "timm",
        "timm==1.0.31",
        "timm-1.0.31-py3-none-any.whl",
        "5bd50f7d0fe6d09bf9285ac2523234a1b7e6bf075c0be3e7aed09139fcb617c7",
    ),
    Pin(
        "pytorch-lightning",
        "pytorch-lightning==2.6.6",
        "pytorch_lightning-2.6.6-py3-none-any.whl",
        "71f95c7b22f25c4f91cc659e1734bcdc6c69c8b66543f2ed2d78dbe29ce2f167",
    ),
    Pin(
        "torchvision",
        "torchvision==0.29.1",
        "torchvision-0.29.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        "2cb678029a5dd45afbbfa662fce49736827d52be33242b5a8a731e0db02ccdf5",
    ),
    Pin(
        "accelerate",
        "accelerate==1.15.0",
        "accelerate-1.15.0-py3-none-any.whl",
        "97eacca0b73e45cb867dbf8c5d5d4dc32219544300e0c8992c7334dc2ef33cec",
    ),
)

#: manifest path (relative to bench/, starting with ``corpus/``) -> sha256 hex digest
Manifest = dict[str, str]


class CorpusError(Exception):
    """A check failed; the message says which."""


def log(message: str) -> None:
    print(f"build_corpus: {message}", file=sys.stderr, flush=True)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def format_manifest(manifest: Manifest) -> bytes:
    """Render ``sha256sum`` lines (two spaces), sorted by path bytes as ``LC_ALL=C sort``."""
    lines = [f"{manifest[path]}  {path}\n" for path in sorted(manifest, key=lambda p: p.encode())]
    return "".join(lines).encode("utf-8")


def parse_manifest(data: bytes) -> Manifest:
    manifest: Manifest = {}
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        digest, sep, path = raw.partition("  ")
        if not sep or len(digest) != 64 or not path.startswith("corpus/"):
            raise CorpusError(f"{MANIFEST.name}:{number}: not a sha256sum line: {raw!r}")
        manifest[path] = digest
    return manifest


def wheel_members(wheel: Path) -> list[zipfile.ZipInfo]:
    """The ``.py`` members of a wheel, with unsafe names rejected."""
    members: list[zipfile.ZipInfo] = []
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            if info.is_dir() or not info.filename.endswith(".py"):
                continue
            parts = info.filename.split("/")
            if info.filename.startswith("/") or "\\" in info.filename or ".." in parts:
                raise CorpusError(f"{wheel.name}: unsafe member name {info.filename!r}")
            members.append(info)
    return members


def manifest_of_wheel(pin: Pin, wheel: Path) -> Manifest:
    manifest: Manifest = {}
    with zipfile.ZipFile(wheel) as archive:
        for info in wheel_members(wheel):
            data = archive.read(info)
            manifest[f"corpus/{pin.name}/{info.filename}"] = hashlib.sha256(data).hexdigest()
    return manifest


def manifest_of_tree(corpus: Path, names: Iterable[str] | None = None) -> Manifest:
    """Hash every file under ``corpus`` (all of them, so strays are caught)."""
    manifest: Manifest = {}
    roots = [corpus / name for name in names] if names is not None else [corpus]
    for root in roots:
        if not root.is_dir():
            continue
        for dirpath, _dirnames, filenames in os.walk(root):
            for filename in filenames:
                path = Path(dirpath) / filename
                rel = path.relative_to(corpus).as_posix()
                manifest[f"corpus/{rel}"] = sha256_file(path)
    return manifest


def subset(manifest: Manifest, name: str) -> Manifest:
    prefix = f"corpus/{name}/"
    return {path: digest for path, digest in manifest.items() if path.startswith(prefix)}


def check_wheel(pin: Pin, wheels: Path) -> bool:
    path = wheels / pin.wheel
    if not path.is_file():
        return False
    actual = sha256_file(path)
    if actual != pin.sha256:
        log(f"{pin.wheel}: sha256 {actual} != pinned {pin.sha256}; removing it")
        path.unlink()
        return False
    return True


def download(pins: Sequence[Pin], wheels: Path) -> None:
    wheels.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        *PIP_TARGET_ARGS,
        "--dest",
        str(wheels),
        *(pin.requirement for pin in pins),
    ]
    log("running " + " ".join(command))
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise CorpusError(f"pip download failed with exit code {result.returncode}")


def fetch_wheels(wheels: Path) -> None:
    missing = [pin for pin in PINS if not check_wheel(pin, wheels)]
    if missing:
        download(missing, wheels)
    for pin in PINS:
        path = wheels / pin.wheel
        if not path.is_file():
            raise CorpusError(f"pip did not produce {pin.wheel} in {wheels}")
        actual = sha256_file(path)
        if actual != pin.sha256:
            raise CorpusError(f"{pin.wheel}: sha256 {actual} != pinned {pin.sha256}")
        log(f"ok   {pin.wheel}  sha256 {actual}")


def extract(pin: Pin, wheel: Path, corpus: Path) -> None:
    """Unpack the ``.py`` files of one wheel into ``corpus/<name>/``, replacing it whole."""
    corpus.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{pin.name}-", dir=corpus))
    try:
        with zipfile.ZipFile(wheel) as archive:
            for info in wheel_members(wheel):
                target = staging / info.filename
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, target.open("wb") as sink:
                    shutil.copyfileobj(source, sink)
        final = corpus / pin.name
        if final.exists():
            shutil.rmtree(final)
        staging.rename(final)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def check_manifest_file() -> Manifest:
    if not MANIFEST.is_file():
        raise CorpusError(f"{MANIFEST} is missing")
    digest = sha256_file(MANIFEST)
    if digest != MANIFEST_SHA256:
        raise CorpusError(f"{MANIFEST.name}: sha256 {digest} != pinned {MANIFEST_SHA256}")
    log(f"ok   {MANIFEST.name}  sha256 {digest}")
    return parse_manifest(MANIFEST.read_bytes())


def compare(expected: Manifest, actual: Manifest, what: str) -> None:
    if expected == actual:
        return
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    changed = sorted(p for p in set(expected) & set(actual) if expected[p] != actual[p])
    details = []
    for label, paths in (("missing", missing), ("unexpected", extra), ("changed", changed)):
        if paths:
            details.append(f"{len(paths)} {label} (first: {paths[0]})")
    raise CorpusError(f"{what} does not match the manifest: " + "; ".join(details))


def corpus_stats(corpus: Path, manifest: Manifest) -> tuple[int, int, int]:
    files = lines = size = 0
    for rel in manifest:
        data = (corpus / rel[len("corpus/") :]).read_bytes()
        files += 1
        lines += data.count(b"\n")
        size += len(data)
    return files, lines, size


def build(corpus: Path, wheels: Path, force: bool) -> None:
    expected = check_manifest_file()
    names = [pin.name for pin in PINS]
    stray = (
        sorted(e.name for e in corpus.iterdir() if e.name not in names) if corpus.is_dir() else []
    )
    for name in stray:
        log(f"removing stray {corpus / name}")
        target = corpus / name
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
    stale = []
    for pin in PINS:
        if force or manifest_of_tree(corpus, [pin.name]) != subset(expected, pin.name):
            stale.append(pin)
        else:
            log(f"ok   corpus/{pin.name}/ (up to date)")
    if stale:
        fetch_wheels(wheels)
        for pin in stale:
            from_wheel = manifest_of_wheel(pin, wheels / pin.wheel)
            compare(subset(expected, pin.name), from_wheel, pin.wheel)
            log(f"unpacking {pin.wheel} -> corpus/{pin.name}/")
            extract(pin, wheels / pin.wheel, corpus)
    verify(corpus, expected)


def verify(corpus: Path, expected: Manifest) -> None:
    compare(expected, manifest_of_tree(corpus), str(corpus))
    files, lines, size = corpus_stats(corpus, expected)
    log(f"ok   corpus: {files} files, {lines:,} lines, {size / 1e6:.1f} MB ({corpus})")
    if files != EXPECTED_FILES:
        raise CorpusError(f"expected {EXPECTED_FILES} files, found {files}")


def write_manifest(wheels: Path) -> None:
    """Maintainer tool: regenerate the manifest from the (verified) wheels."""
    fetch_wheels(wheels)
    manifest: Manifest = {}
    for pin in PINS:
        manifest.update(manifest_of_wheel(pin, wheels / pin.wheel))
    data = format_manifest(manifest)
    MANIFEST.write_bytes(data)
    log(f"wrote {MANIFEST} ({len(manifest)} files), sha256 {hashlib.sha256(data).hexdigest()}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus folder")
    parser.add_argument("--wheels", type=Path, default=DEFAULT_WHEELS, help="wheel cache")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only verify the existing corpus")
    mode.add_argument("--force", action="store_true", help="unpack every wheel again")
    mode.add_argument(
        "--write-manifest",
        action="store_true",
        help="regenerate bench/corpus.manifest from the wheels (maintainers only)",
    )
    args = parser.parse_args(argv)
    corpus: Path = args.corpus.resolve()
    wheels: Path = args.wheels.resolve()
    try:
        if args.write_manifest:
            write_manifest(wheels)
        elif args.check:
            verify(corpus, check_manifest_file())
        else:
            build(corpus, wheels, force=args.force)
    except CorpusError as error:
        log(f"error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
