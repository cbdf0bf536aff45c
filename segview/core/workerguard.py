"""Worker processes never outlive the process that started them.

A parent killed by SIGKILL or SIGTERM runs no cleanup, so each worker watches for itself: a daemon
thread notices that its parent is gone (the parent id changes when the worker is re-parented) and
ends the worker within about half a second. Linux's parent-death signal is not used: it fires when
the *thread* that spawned the worker ends, and segview spawns workers from pool threads that Qt
retires after a while.

Ctrl-C is the parent's business: workers ignore SIGINT (the terminal sends it to the whole process
group), and the parent terminates them at once (:func:`terminate_pool`) instead of waiting for
running tasks, so a batch stops within a second or two.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import threading
from typing import Any

POLL_S = 0.5


def guard_worker(parent_pid: int | None = None) -> None:
    """Call first thing in a worker's initializer."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread of the worker (in-process test doubles)
        pass
    parent = parent_pid if parent_pid is not None else os.getppid()
    threading.Thread(target=_watch, args=(parent,), name="segview-parent-watch",
                     daemon=True).start()


def _watch(parent: int) -> None:
    stop = threading.Event()
    while not stop.wait(POLL_S):
        if os.getppid() != parent:
            os._exit(70)  # the parent is gone: nothing to deliver results to


def terminate_pool(pool: cf.ProcessPoolExecutor | None) -> None:
    """Stop a process pool now: queued work is cancelled and running workers are terminated."""
    if pool is None:
        return
    procs: dict[Any, Any] = dict(getattr(pool, "_processes", None) or {})
    for proc in procs.values():
        try:
            proc.terminate()
        except (OSError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs.values():
        try:
            proc.join(2.0)
        except (OSError, AssertionError, AttributeError):
            pass
