"""How detector worker processes start: forked from a fork server that has loaded numba once.

Every worker needs numpy, numba (with llvmlite and, through numba's BLAS check, scipy.linalg),
numba's compiler registries and the detectors: about 110 MB that a spawned worker loads on its own
(issue 15.6). On Linux, :func:`worker_context` gives multiprocessing's ``forkserver`` start method
instead: a fresh interpreter, started by ``exec`` (never a fork of the GUI process or of a process
running numba's threads), imports :mod:`segview.core.workers.preload` once and forks each worker
from that state, so the workers share those pages copy-on-write. A worker's PSS (shared pages split
between the processes mapping them) is then its fair share; its RSS still counts shared pages in
full. The server starts with the first pool and ends with this process (workers watch their
parent, :mod:`.guard`; the server ends when this process does).

The server keeps the environment it was started with: a variable that must reach the workers
(``NUMBA_CACHE_DIR``, ``SEGVIEW_CACHE_DIR``) has to be set before the first pool starts, as the
launcher and the command line do. ``SEGVIEW_WORKER_START=spawn`` spawns every worker instead
(debugging, and the benchmarks' reference). Elsewhere workers are spawned: macOS's system
libraries (Accelerate, used by numpy there) are not safe to use in a forked child.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
from multiprocessing.context import BaseContext

PRELOAD = "segview.core.workers.preload"
ENV = "SEGVIEW_WORKER_START"


def worker_context() -> BaseContext:
    """``forkserver`` with the preload on Linux, else ``spawn``."""
    wanted = os.environ.get(ENV, "").strip().lower()
    if (wanted != "spawn" and sys.platform.startswith("linux")
            and "forkserver" in mp.get_all_start_methods()):
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload([PRELOAD])
        return ctx
    return mp.get_context("spawn")
