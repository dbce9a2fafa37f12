"""The pre-filter's first stage: the words a file must contain for a rule to fire."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

from seedlint.analysis.facts import AnalysisOptions

# A rule's trigger groups: each group needs one of its words in the file.
WordGroups = tuple[tuple[str, ...], ...]
EncodedGroups = tuple[tuple[bytes, ...], ...]


def loader_words(options: AnalysisOptions) -> tuple[str, ...]:
    """The last names of every DataLoader class (the rules that check loaders need one)."""
    return tuple(sorted({name.rsplit(".", 1)[-1] for name in options.all_dataloader_classes}))


def essential(group: Iterable[str]) -> tuple[str, ...]:
    """The group without the words that contain another of its words (`set_seed` is found
    whenever `seed` is): one scan of the file fewer each."""
    words = set(group)
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


def encode(groups: WordGroups) -> EncodedGroups:
    return tuple(tuple(word.encode() for word in essential(group)) for group in groups)


# Parts of many words the pre-filters look for (the rules' and the project index's), in lower
# case: they are looked up in the file's lower-cased bytes, so that one scan stands for every
# spelling (`seed`, `Seed`, `SEED`), and a file without one has none of the words holding it
# in any case, which then cost no scan of their own.
STEMS = (b"oader", b"rand", b"split", b"sampler", b"seed", b"capture_", b"generator", b"shuffle")

# word -> the stems it holds (in lower case), computed once per word
_HOLDS: dict[bytes, tuple[bytes, ...]] = {}


def _stems_of(word: bytes) -> tuple[bytes, ...]:
    found = _HOLDS.get(word)
    if found is None:
        lower = word.lower()
        found = _HOLDS[word] = tuple(stem for stem in STEMS if stem in lower)
    return found


class WordScan:
    """Looks each word up in ``raw`` once, however many rules (and the project index's
    pre-filter) share it; a word holding a stem the file lacks (in any case) is not looked
    for. The answers are exact: a word is found if and only if it occurs in ``raw``."""

    __slots__ = ("_folded", "_lower", "_seen", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._seen: dict[bytes, bool] = {}
        self._lower: Optional[bytes] = None
        self._folded: dict[bytes, bool] = {}  # lower-case word -> found in any case

    def lower(self) -> bytes:
        """The file's bytes in lower case (computed once)."""
        lower = self._lower
        if lower is None:
            lower = self._lower = self.raw.lower()
        return lower

    def has_folded(self, word: bytes) -> bool:
        """Whether ``word`` (in lower case) occurs in the file in any case."""
        found = self._folded.get(word)
        if found is None:
            found = self._folded[word] = word in self.lower()
        return found

    def has(self, word: bytes) -> bool:
        found = self._seen.get(word)
        if found is None:
            found = all(map(self.has_folded, _stems_of(word))) and word in self.raw
            self._seen[word] = found
        return found

    def any(self, words: Iterable[bytes]) -> bool:
        return any(self.has(word) for word in words)

    def all_groups(self, groups: Sequence[tuple[bytes, ...]]) -> bool:
        return all(any(self.has(word) for word in group) for group in groups)
