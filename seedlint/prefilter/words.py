"""The pre-filter's first stage: the words a file must contain for a rule to fire."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


# Parts of many words the pre-filters look for (the rules' and the project index's): a file
# without one has none of the words holding it, which then cost no scan of their own.
STEMS = (b"oader", b"rand", b"_split", b"Sampler", b"seed", b"capture_")


class WordScan:
    """Looks each word up in ``raw`` once, however many rules (and the project index's
    pre-filter) share it; a word holding a stem the file lacks is not looked for."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._seen: dict[bytes, bool] = {}

    def has(self, word: bytes) -> bool:
        found = self._seen.get(word)
        if found is None:
            for stem in STEMS:
                if stem in word and stem != word and not self.has(stem):
                    self._seen[word] = False
                    return False
            found = self._seen[word] = word in self.raw
        return found

    def any(self, words: Iterable[bytes]) -> bool:
        return any(self.has(word) for word in words)

    def all_groups(self, groups: Sequence[tuple[bytes, ...]]) -> bool:
        return all(any(self.has(word) for word in group) for group in groups)
