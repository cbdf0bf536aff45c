"""Worker processes never outlive the process that started them.

A parent killed by SIGKILL or SIGTERM runs no cleanup, so each worker watches for itself: a daemon
thread notices that its parent is gone (the parent id changes when the worker is re-parented) and
ends the worker within about half a second. Linux's parent-death signal is not used: it fires when
the *thread* that spawned the worker ends, and segview spawns workers from pool threads that Qt
retires after a while.

A worker forked by multiprocessing's fork server (:mod:`.start`) is the server's child. The
server ends when the write ends of its "alive" pipe are closed, and each forked worker inherits one
(so that it could start processes itself): the owner's death then left the server, and with it
every worker's parent, alive for ever. Workers start no processes, so they close their copy.

Ctrl-C is the parent's business: workers ignore SIGINT (the terminal sends it to the whole process
group), and the parent terminates them at once (:func:`.pool.terminate_pool`) instead of waiting for
running tasks, so a batch stops within a second or two.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

POLL_S = 0.5


def guard_worker(parent_pid: int | None = None) -> None:
    """Call first thing in a worker's initializer."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread of the worker (in-process test doubles)
        pass
    _drop_forkserver_alive_fd()
    parent = parent_pid if parent_pid is not None else os.getppid()
    threading.Thread(target=_watch, args=(parent,), name="segview-parent-watch",
                     daemon=True).start()


def _drop_forkserver_alive_fd() -> None:
    """In a worker forked by the fork server, close the inherited write end of the server's alive
    pipe (see the module docstring); in any other process (the server's owner) do nothing."""
    forkserver = sys.modules.get("multiprocessing.forkserver")
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    # the owner started the server (it knows its pid); a forked worker only inherited the fd
    if server is None or fd is None or getattr(server, "_forkserver_pid", None) is not None:
        return
    try:
        os.close(fd)
    except OSError:
        pass
    server._forkserver_alive_fd = None


def _watch(parent: int) -> None:
    stop = threading.Event()
    while not stop.wait(POLL_S):
        if os.getppid() != parent:
            os._exit(70)  # the parent is gone: nothing to deliver results to


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while worker processes start, then deliver them.

    Starting a worker sends it its pickled start-up data (the series, through the pool's
    initializer) down a pipe; an interrupt raised in the middle of that write leaves the new
    worker to die on a truncated pickle, printing its traceback. Inside this block the two
    signals are only noted (the signal mask is left alone: spawned children inherit it, and a
    worker must stay killable); at its end the first one noted is raised again with the handlers
    of before, so Ctrl-C and SIGTERM act exactly as they would have, just a moment later. Outside
    the main thread this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    saved: dict[int, Any] = {}
    for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
        if sig is None:
            continue
        try:
            saved[sig] = signal.signal(sig, lambda signum, frame: noted.append(signum))
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        if noted:
            signal.raise_signal(noted[0])
