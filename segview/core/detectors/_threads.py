"""A small shared thread pool for CP-SSD's independent nogil kernels (same results, less wall time).

The CROPS penalties of one iteration, the column ranges of the segment-cost table and the two
bootstrap streams of a test are independent; their numba kernels release the GIL, so running them in
threads divides the wall time without changing any value (each result is computed by the same
code in one thread). CPU time is not reduced. With one task, or one thread, everything runs in the
calling thread.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

_LOCK = threading.Lock()
_POOL: "ThreadPoolExecutor | None" = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _LOCK:
        if _POOL is None:
            from concurrent.futures import ThreadPoolExecutor   # only when threads are used
            _POOL = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2),
                                       thread_name_prefix="segview-cpssd")
        return _POOL


def run_in_threads(tasks: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``tasks`` (the first in the calling thread, the others in the pool); their results in
    order. Exceptions propagate (the first one raised, after every task has finished)."""
    if len(tasks) <= 1:
        return [t() for t in tasks]
    futures = [_pool().submit(t) for t in tasks[1:]]
    results: list[Any] = []
    error: BaseException | None = None
    try:
        results.append(tasks[0]())
    except BaseException as exc:  # noqa: BLE001 - re-raised below once the others are done
        error = exc
    for fut in futures:
        try:
            results.append(fut.result())
        except BaseException as exc:  # noqa: BLE001
            error = error or exc
    if error is not None:
        raise error
    return results
