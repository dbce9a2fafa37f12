"""The pre-filter's word scan in one pass (``_wordscan.c``): an optional C accelerator."""

from collections.abc import Sequence

MAX_WORDS: int

class Matcher:
    """Which of up to ``MAX_WORDS`` words occur in a text, in one pass. ``folded[i]``: the
    word ``words[i]`` is in lower case and matches in any case."""

    def __init__(self, words: Sequence[bytes], folded: Sequence[bool]) -> None: ...
    def scan(self, data: bytes | bytearray | memoryview, /) -> int:
        """Bit ``i`` set when ``words[i]`` occurs in ``data``."""
    def count(self) -> int:
        """The number of words."""
