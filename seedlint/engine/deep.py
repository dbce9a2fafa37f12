"""Deeply nested code that CPython compiles (a 2,000-arm ``elif`` chain, a 2,000-term sum) is
checked, not reported as RNG000: the tree walks recurse once per level, so a file whose first
attempt runs out of recursion is checked again in a thread with a large stack and a higher
recursion limit. Only that retry pays for it; code nested beyond what the retry allows is still
the file's RNG000 finding.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")

# Measured on CPython 3.11: a 2,000-deep chain needs about 6,000 frames; CPython itself stops
# compiling between 2,000 and 10,000 levels. 100,000 frames fit in the stack below.
STACK_BYTES = 512 * 1024 * 1024
RECURSION_LIMIT = 100_000
_NAME = "seedlint-deep"
_LOCK = threading.Lock()


def in_deep_thread() -> bool:
    return threading.current_thread().name == _NAME


def deeply(function: Callable[[], T]) -> T:
    """``function()`` in a thread with a large stack and a high recursion limit (raises what it
    raises)."""
    results: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            results.append(function())
        except BaseException as error:  # re-raised in the caller's thread
            errors.append(error)

    with _LOCK:
        old_limit = sys.getrecursionlimit()
        old_size = threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=target, name=_NAME, daemon=True)
            sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
            thread.start()
            thread.join()
        finally:
            threading.stack_size(old_size)
            sys.setrecursionlimit(old_limit)
    if errors:
        raise errors[0]
    return results[0]
