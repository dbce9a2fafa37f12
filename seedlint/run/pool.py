"""The one process pool: work over many items in forked processes, when that pays.

Workers inherit the items (a module global set before the fork), so nothing is pickled on the
way in; each worker takes index ranges of about equal byte size, so that one big file does not
stall a worker.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Callable, Optional, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# The pool pays only above both thresholds (forking costs ~10 ms a process).
MIN_ITEMS = 64
MIN_BYTES = 4_000_000

_WORK: list[tuple[Callable[[Any], Any], Sequence[Any]]] = []  # inherited by forked workers
# The pool of the last `pool_map(..., keep=True)`, its workers idle until `close_kept()`.
_KEPT: list[Any] = []


def can_fork() -> bool:
    import multiprocessing  # imported when a pool may be used (a run of few files uses none)

    return sys.platform != "win32" and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _run_range(bounds: tuple[int, int]) -> list[Any]:
    function, items = _WORK[0]
    return [function(item) for item in items[bounds[0] : bounds[1]]]


def pool_map(
    function: Callable[[T], R],
    items: Sequence[T],
    sizes: Sequence[int],
    processes: int,
    min_items: int = MIN_ITEMS,
    min_bytes: int = MIN_BYTES,
    keep: bool = False,
) -> list[R]:
    """``[function(item) for item in items]``, in a pool of ``processes`` forked processes
    when there are at least ``min_items`` items of ``min_bytes`` in all. ``keep``: the pool
    stays, its workers idle, for :func:`submit_kept` (until :func:`close_kept`)."""
    if processes <= 1 or len(items) < max(min_items, 2) or sum(sizes) < min_bytes or not can_fork():
        return [function(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # A kept pool's threads (its manager, its queue's feeder) must not be running when this
    # process forks: a lock one of them holds would stay held in the children.
    close_kept()
    _WORK[:] = [(function, items)]
    pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
    try:
        results: list[R] = []
        for part in pool.map(_run_range, size_chunks(sizes, processes * 32)):
            results.extend(part)
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise
    finally:
        _WORK.clear()
    if keep:
        _KEPT.append(pool)
    else:
        pool.shutdown()
    return results


def submit_kept(function: Callable[[T], R], item: T) -> Optional[Future[R]]:
    """``function(item)`` in a worker of the kept pool (the function by reference, the item
    pickled: the workers' memory is the pool's as it was forked); None without one."""
    if not _KEPT:
        return None
    try:
        future: Future[R] = _KEPT[0].submit(function, item)
    except RuntimeError:  # the pool broke (a worker died): the caller computes it itself
        return None
    return future


def close_kept() -> None:
    """Shut the kept pool down (its workers exit)."""
    while _KEPT:
        _KEPT.pop().shutdown(cancel_futures=True)


def size_chunks(sizes: Sequence[int], count: int) -> list[tuple[int, int]]:
    """Index ranges of about equal byte size, so that one big file does not stall a worker."""
    target = (sum(sizes) or 1) / count
    bounds: list[tuple[int, int]] = []
    start, size = 0, 0
    for index, item in enumerate(sizes):
        size += item
        if size >= target:
            bounds.append((start, index + 1))
            start, size = index + 1, 0
    if start < len(sizes):
        bounds.append((start, len(sizes)))
    return bounds
