"""The process pool of every worker process segview starts (:mod:`segview.core.workers`).

A :class:`WorkerPool` is a ``concurrent.futures.ProcessPoolExecutor`` started on first use, whose
workers run ``initializer(*initargs)`` first (which calls :func:`.guard.guard_worker`). A worker
that dies (a crash in compiled code, the OOM killer) breaks the executor and fails every call in it
with ``BrokenProcessPool``; the pool then answers ``broken`` and :meth:`WorkerPool.replace` ends
what is left of it, so the next call starts a fresh one. A pool found broken when a call is
submitted (a worker died while idle) is replaced once, at once. What to do with the calls a broken
pool took down is the caller's decision: the explorer reports the one call (``WorkerDied``), the
batch engine retries the unfinished tasks series by series, then one at a time.
"""
from __future__ import annotations

import concurrent.futures as cf
import logging
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["BrokenProcessPool", "WorkerPool", "terminate_pool"]


class WorkerPool:
    """Worker processes for calls of module-level functions (see the module docstring).

    Args:
        workers: processes.
        initializer, initargs: run first in each worker (pickled to it at its start).
        context: multiprocessing start method; default :func:`.start.worker_context`.
        what: names the workers in the log ("detector", "batch").
    """

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: tuple = (), *,
                 context: BaseContext | None = None, what: str = "worker") -> None:
        if context is None:
            from .start import worker_context

            context = worker_context()
        self.workers = int(workers)
        self.context = context
        self._init = (initializer, tuple(initargs))
        self.what = what
        self._executor: cf.ProcessPoolExecutor | None = None
        self.started_at: float | None = None
        self.restarts = 0

    @property
    def executor(self) -> cf.ProcessPoolExecutor:
        """The running executor, started now when there is none."""
        if self._executor is None:
            initializer, initargs = self._init
            self._executor = cf.ProcessPoolExecutor(self.workers, mp_context=self.context,
                                                    initializer=initializer, initargs=initargs)
            if self.started_at is None:
                self.started_at = time.monotonic()
        return self._executor

    @property
    def broken(self) -> bool:
        """A worker of the running executor died (every call still in it has failed)."""
        return bool(getattr(self._executor, "_broken", False))

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        """``fn(*args)`` in a worker; a pool found broken (a worker died while idle) is replaced
        once. Raises ``BrokenProcessPool`` when the fresh pool breaks at once too."""
        try:
            return self.executor.submit(fn, *args)
        except BrokenProcessPool:
            self.replace()
            return self.executor.submit(fn, *args)

    @property
    def current(self) -> cf.ProcessPoolExecutor | None:
        """The running executor, or None (nothing is started)."""
        return self._executor

    def detach(self) -> cf.ProcessPoolExecutor | None:
        """Take the running executor out of the pool without stopping it (the caller ends it);
        the next call starts a new one."""
        ex, self._executor = self._executor, None
        return ex

    def replace(self) -> None:
        """End the current executor now (its workers are terminated); the next call starts a
        new one."""
        ex, self._executor = self._executor, None
        if ex is not None:
            self.restarts += 1
            log.warning("a %s worker process died; starting a new pool", self.what)
            terminate_pool(ex)

    def replace_if_broken(self) -> None:
        if self.broken:
            self.replace()

    def processes(self) -> list[Any]:
        """The live worker processes of the running executor."""
        procs = getattr(self._executor, "_processes", None) or {}
        return [p for p in list(procs.values()) if p.is_alive()]

    def terminate(self) -> None:
        """Stop now (Ctrl-C, a cancelled run): queued calls are cancelled, workers terminated."""
        ex, self._executor = self._executor, None
        terminate_pool(ex)

    def shutdown(self, timeout: float | None = None) -> None:
        """Let the workers finish the calls they run (``timeout`` None: wait for all), then stop;
        with a timeout, queued calls are cancelled and workers still busy after it terminated."""
        ex, self._executor = self._executor, None
        if ex is None:
            return
        if timeout is None:
            ex.shutdown(wait=True)
            return
        procs = list((getattr(ex, "_processes", None) or {}).values())
        results = getattr(ex, "_result_queue", None)
        ex.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + timeout
        for p in procs:
            p.join(max(0.0, end - time.monotonic()))
        _kill(procs)
        unblock_results(results, procs)


def terminate_pool(pool: cf.ProcessPoolExecutor | None) -> None:
    """Stop an executor now: queued work is cancelled and running workers are terminated."""
    if pool is None:
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    results = getattr(pool, "_result_queue", None)  # shutdown() drops the executor's reference
    for proc in procs:
        try:
            proc.terminate()
        except (OSError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    _kill(procs, 2.0)
    unblock_results(results, procs)


def unblock_results(results: Any, procs: list[Any]) -> None:
    """Once every worker is dead, close this process's write end of the executor's result pipe.

    A worker killed while it was sending a result leaves part of a message in the pipe, and the
    executor's manager thread waits for the rest for ever; the interpreter then hangs at exit
    joining that thread (seen in CI: no worker left, the manager blocked in ``recv``). With the
    workers gone this process holds the only write end, so closing it turns the wait into an end of
    file, which the manager treats as a broken pool and ends."""
    writer = getattr(results, "_writer", None)
    if writer is None:
        return
    try:
        if any(p.is_alive() for p in procs):
            return
        writer.close()
    except (OSError, AssertionError, AttributeError, ValueError):
        pass


def _kill(procs: list[Any], grace: float = 1.0) -> None:
    """Terminate the processes still alive, then kill those that ignore it."""
    for p in procs:
        try:
            if p.is_alive():
                p.terminate()
            p.join(grace)
            if p.is_alive():
                p.kill()
                p.join(grace)
        except (OSError, AssertionError, AttributeError, ValueError):
            pass
