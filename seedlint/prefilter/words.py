"""The pre-filter's first stage: the words a file must contain for a rule to fire."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Optional

from seedlint.analysis.facts import AnalysisOptions
from seedlint.prefilter.scan import in_code, names_in_code

if TYPE_CHECKING:
    from seedlint.prefilter._wordscan import Matcher

_Matcher: Optional[type[Matcher]]
try:  # the C accelerator, compiled when the package was built (optional)
    from seedlint.prefilter._wordscan import MAX_WORDS
    from seedlint.prefilter._wordscan import Matcher as _Matcher
except ImportError:  # pragma: no cover - built without a C compiler
    _Matcher, MAX_WORDS = None, 0

# A rule's trigger groups: each group needs one of its words in the file.
WordGroups = tuple[tuple[str, ...], ...]
EncodedGroups = tuple[tuple[bytes, ...], ...]


def loader_words(options: AnalysisOptions) -> tuple[str, ...]:
    """The last names of every DataLoader class (the rules that check loaders need one)."""
    return tuple(sorted({name.rsplit(".", 1)[-1] for name in options.all_dataloader_classes}))


def loader_in_code(raw: bytes, options: AnalysisOptions) -> bool:
    """The loader rules' second stage: whether a DataLoader class's name occurs outside
    comments and string literals (one named only in docstrings is never called)."""
    return in_code(raw, _encoded_loader_words(options))


@functools.lru_cache(maxsize=16)
def _encoded_loader_words(options: AnalysisOptions) -> tuple[bytes, ...]:
    return tuple(word.encode() for word in loader_words(options))


# The names the project binds to its loader classes that no loader word finds (a subclass
# ``AudioLoader``, a re-export ``Feeder``): set by the run (and the flake8 plugin, and the
# server) while it checks files with the project in view. A file naming one in its code
# passes the loader group of the rules that check the project's loader classes.
_PROJECT_LOADERS: list[tuple[bytes, ...]] = [()]


def project_loaders() -> tuple[bytes, ...]:
    return _PROJECT_LOADERS[0]


def set_project_loaders(names: Iterable[str]) -> None:
    _PROJECT_LOADERS[0] = tuple(sorted({name.encode() for name in names if name}))


@contextlib.contextmanager
def project_loaders_set(names: Iterable[str]) -> Iterator[None]:
    """Check with ``names`` as the project's loader names, then with those before again."""
    before = _PROJECT_LOADERS[0]
    set_project_loaders(names)
    try:
        yield
    finally:
        _PROJECT_LOADERS[0] = before


def names_project_loader(raw: bytes, names: Optional[tuple[bytes, ...]] = None) -> bool:
    """Whether the file's code names one of the project's loader names (whole names)."""
    chosen = project_loaders() if names is None else names
    return bool(chosen) and names_in_code(raw, chosen)


def hidden_loader_names(names: Iterable[str], options: AnalysisOptions) -> frozenset[str]:
    """The names among ``names`` that hold no loader word (a file naming them is found by no
    rule's words): the ones the run looks for in the other files."""
    words = loader_words(options)
    return frozenset(n for n in names if n and not any(word in n for word in words))


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


class Vocabulary:
    """The words every :class:`WordScan` looks up in one pass of the C accelerator
    (``seedlint.prefilter._wordscan``), each with its bit: exact words, and lower-case words
    found in any case (``folded``). Immutable: :func:`register` makes a larger one, and a scan
    keeps the one it was made with. A word outside it is searched for in Python."""

    __slots__ = ("exact", "folded", "groups", "matcher")

    def __init__(self, exact: dict[bytes, int], folded: dict[bytes, int]) -> None:
        self.exact = exact
        self.folded = folded
        # word groups -> one mask per group (None: a word of a group is not in the vocabulary)
        self.groups: dict[tuple[tuple[bytes, ...], ...], Optional[tuple[int, ...]]] = {}
        # The matcher's word i has the bit 1 << i.
        order = sorted(
            [(bit, word, False) for word, bit in exact.items()]
            + [(bit, word, True) for word, bit in folded.items()]
        )
        assert _Matcher is not None
        self.matcher = _Matcher([word for _, word, _ in order], [fold for _, _, fold in order])

    def mask(self, words: Sequence[bytes]) -> Optional[int]:
        """The bits of ``words`` (None: one is not in the vocabulary)."""
        found = self.masks((tuple(words),))
        return None if found is None else found[0]

    def masks(self, groups: Sequence[tuple[bytes, ...]]) -> Optional[tuple[int, ...]]:
        key = tuple(groups)
        found = self.groups.get(key, False)
        if found is False:
            masks: list[int] = []
            for group in key:
                bits = [self.exact.get(word) for word in group]
                if None in bits:
                    found = None
                    break
                masks.append(sum(b for b in bits if b is not None))
            else:
                found = tuple(masks)
            self.groups[key] = found
        return found  # type: ignore[return-value]


# The vocabulary scans are made with; None without the accelerator.
_VOCABULARY: list[Optional[Vocabulary]] = [None]


def accelerated() -> bool:
    """Whether word scans run in the C accelerator (it was compiled when seedlint was built)."""
    return _Matcher is not None


def register(words: Iterable[bytes], folded: bool = False) -> None:
    """Add words to the vocabulary of every scan made from now on (``folded``: lower-case
    words looked up in any case). Up to the accelerator's limit; the words beyond it, and
    every word without the accelerator, are searched for one by one."""
    if _Matcher is None:
        return
    current = _VOCABULARY[0]
    exact = dict(current.exact) if current is not None else {}
    lower = dict(current.folded) if current is not None else {}
    table = lower if folded else exact
    size = len(exact) + len(lower)
    for word in words:
        if word and word not in table and size < MAX_WORDS and (not folded or word == word.lower()):
            table[word] = 1 << size
            size += 1
    if current is None or size != len(current.exact) + len(current.folded):
        _VOCABULARY[0] = Vocabulary(exact, lower)


class WordScan:
    """Looks each word up in ``raw`` once, however many rules (and the project index's
    pre-filter) share it. With the C accelerator, one pass finds every word of the
    vocabulary (:func:`register`); a word outside it (or every word, without the
    accelerator) is searched for alone, unless it holds a stem the file lacks (in any case).
    The answers are exact: a word is found if and only if it occurs in ``raw``."""

    __slots__ = ("_folded", "_found", "_lower", "_seen", "_vocabulary", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._seen: dict[bytes, bool] = {}
        self._lower: Optional[bytes] = None
        self._folded: dict[bytes, bool] = {}  # lower-case word -> found in any case
        self._vocabulary = _VOCABULARY[0]
        self._found = -1  # the vocabulary's words found (bits); -1: not scanned yet

    def _matched(self, vocabulary: Vocabulary) -> int:
        found = self._found
        if found < 0:
            found = self._found = vocabulary.matcher.scan(self.raw)
        return found

    def lower(self) -> bytes:
        """The file's bytes in lower case (computed once)."""
        lower = self._lower
        if lower is None:
            lower = self._lower = self.raw.lower()
        return lower

    def _known(self, word: bytes, folded: bool) -> Optional[bool]:
        """Whether the one pass found ``word`` (None: it is not in the scan's vocabulary)."""
        vocabulary = self._vocabulary
        if vocabulary is None:
            return None
        bit = (vocabulary.folded if folded else vocabulary.exact).get(word)
        return None if bit is None else bool(self._matched(vocabulary) & bit)

    def has_folded(self, word: bytes) -> bool:
        """Whether ``word`` (in lower case) occurs in the file in any case."""
        known = self._known(word, True)
        if known is not None:
            return known
        found = self._folded.get(word)
        if found is None:
            found = self._folded[word] = word in self.lower()
        return found

    def has(self, word: bytes) -> bool:
        known = self._known(word, False)
        if known is not None:
            return known
        found = self._seen.get(word)
        if found is None:
            found = all(map(self.has_folded, _stems_of(word))) and word in self.raw
            self._seen[word] = found
        return found

    def any(self, words: Sequence[bytes]) -> bool:
        """Whether one of ``words`` occurs (one test with the accelerator, when the
        vocabulary holds them all)."""
        vocabulary = self._vocabulary
        if vocabulary is not None:
            mask = vocabulary.mask(words)
            if mask is not None:
                return bool(self._matched(vocabulary) & mask)
        return any(self.has(word) for word in words)

    def all_groups(self, groups: Sequence[tuple[bytes, ...]]) -> bool:
        vocabulary = self._vocabulary
        if vocabulary is not None:
            masks = vocabulary.masks(groups)
            if masks is not None:
                found = self._matched(vocabulary)
                return all(found & mask for mask in masks)
        return all(any(self.has(word) for word in group) for group in groups)


register(STEMS, folded=True)


class WordSet:
    """Which of many words occur in a text (as substrings, in their case): one pass of the
    C accelerator for each 64 of them, or one search per word without it. For words known
    only at run time (the project index's caller words), which no vocabulary holds."""

    def __init__(self, words: Iterable[bytes]) -> None:
        self.words = [word for word in dict.fromkeys(words) if word]
        self._matchers: list[tuple[list[bytes], Matcher]] = []
        if _Matcher is not None:
            for start in range(0, len(self.words), MAX_WORDS):
                part = self.words[start : start + MAX_WORDS]
                self._matchers.append((part, _Matcher(part, [False] * len(part))))

    def found(self, raw: bytes) -> list[bytes]:
        """The words that occur in ``raw``, in the order given."""
        if _Matcher is None:
            return [word for word in self.words if word in raw]
        found: list[bytes] = []
        for part, matcher in self._matchers:
            bits = matcher.scan(raw)
            found.extend(word for index, word in enumerate(part) if bits >> index & 1)
        return found
