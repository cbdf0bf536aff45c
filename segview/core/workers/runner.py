"""Run registered detectors in worker processes, with cooperative cancellation and progress.

The explorer dispatches every detector run from a pool thread. Run in that thread, a detector's
Python code shares the GIL with the GUI thread, and every Qt call of a repaint that releases the
GIL may wait for it: paints that take 5 ms on an idle machine took 10-16 ms while op, pelt and
fisher ran, and Auto-PARM alone stalled the event loop for 60 ms. A :class:`ProcessRunner` runs the
detector in a separate process instead (forked from a fresh fork server that loaded numba once,
:mod:`.start`, or spawned; the GUI process itself is never forked); the pool
thread only waits for the answer, which costs the GUI nothing.

Cancellation and progress cross the process boundary through shared memory: each call gets a
*slot* with a cancel flag, a progress fraction and a short progress message. A worker's
:class:`RunContext` reads the flag in ``check()`` and writes the fraction in ``progress()``, so
detectors need no change. Worker processes run at a lower CPU priority (``nice``) so that on a
busy machine the GUI thread gets a core first, and they load every fast detector's compiled
kernels once at start-up (numba's on-disk cache), off the GUI thread.

Only detectors that a fresh process registers by importing ``segview.core.detectors`` can run
there (see :func:`runs_in_worker`); others (plug-ins registered at run time, test fakes) stay in
the dispatching thread.

The first launch is slow for reasons a user cannot see: the workers start and import the
detectors, and numba compiles each kernel on its first call (seconds each, until its on-disk cache
exists). Each worker reports its phase in shared memory (:meth:`ProcessRunner.warmup_status`) and
a numba compile listener names the kernel being compiled, also in the running call's progress
message, so the GUI can say what it is waiting for.
"""
from __future__ import annotations

import concurrent.futures as cf
import ctypes
import functools
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..api import check_length, run_spec
from ..context import RunContext
from ..errors import Cancelled, RecoverableError
from ..model import Series
from ..params import Params
from ..registry import DetectorSpec
from .pool import WorkerPool, terminate_pool
from .start import worker_context

log = logging.getLogger(__name__)

MESSAGE_BYTES = 96
DEFAULT_SLOTS = 256
WORKER_SLOTS = 16          # status entries of worker processes (indices reused modulo this)
#: worker phases in :meth:`ProcessRunner.warmup_status`
PHASE_STARTING, PHASE_IMPORTING, PHASE_WARMING, PHASE_READY, PHASE_COMPILING = 0, 1, 2, 3, 4
WORKER_NICE = 10
BUILTIN_PACKAGE = "segview.core.detectors"

# Worker-process state (set by _init_worker; never used in the parent process).
_SHARED: dict[str, Any] = {}


@dataclass(frozen=True)
class Outcome:
    """What a worker returns: ``status`` is ok, cancelled, recoverable or bug."""

    status: str
    result: Any = None
    state: Any = None
    text: str = ""


class SharedFlag:
    """A ``threading.Event``-like view of one cancel flag in shared memory."""

    def __init__(self, flags: Any, slot: int) -> None:
        self.flags, self.slot = flags, slot

    def is_set(self) -> bool:
        return bool(self.flags[self.slot])

    def set(self) -> None:
        self.flags[self.slot] = 1

    def clear(self) -> None:
        self.flags[self.slot] = 0

    def wait(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = 0.005 if end is None else min(0.005, end - time.monotonic())
            if left <= 0:
                break
            time.sleep(left)
        return self.is_set()


def runs_in_worker(spec: DetectorSpec) -> bool:
    """True for detectors a fresh worker process registers itself (segview's own)."""
    return getattr(spec.run, "__module__", "").startswith(BUILTIN_PACKAGE)


def compute(spec: DetectorSpec, series: Series, params: Params, ctx: RunContext,
            prepared: object | None = None) -> tuple[Any, object | None]:
    """Run ``spec`` the way the explorer does: ``(result, prepare state computed here or None)``.

    With a ``prepare`` stage, ``prepared`` (a cached state) skips it; otherwise the state is
    computed and returned so the caller can cache it.
    """
    state = None
    ctx.check()
    if spec.prepare is not None and not spec.needs_x and not series.dims:
        check_length(spec, series.values, params, series.id)
        if prepared is None:
            state = spec.prepare(series.values, params, ctx)
            ctx = ctx.with_prepared(state)
        else:
            ctx = ctx.with_prepared(prepared)
    return run_spec(spec, series, params, ctx), state


# ------------------------------------------------------------------------------ worker side

def _init_worker(flags: Any, fractions: Any, messages: Any, nice: int, warm: bool,
                 status: Any = None) -> None:
    from .guard import guard_worker

    guard_worker()
    _SHARED.update(flags=flags, fractions=fractions, messages=messages, slot=None)
    if status is not None:
        phases, texts, counter = status
        with counter.get_lock():
            index = counter.value % WORKER_SLOTS
            counter.value += 1
        _SHARED.update(phases=phases, texts=texts, index=index)
    _set_phase(PHASE_IMPORTING, "importing the detectors")
    if nice and hasattr(os, "nice"):
        try:
            os.nice(nice)
        except OSError:  # not permitted: run at normal priority
            pass
    from .. import registry

    registry.all_specs()
    _watch_compilation()
    if warm:
        _set_phase(PHASE_WARMING, "loading compiled kernels")
        warm_up()
    _set_phase(PHASE_READY, "ready")


def _set_phase(phase: int, text: str) -> None:
    """Publish this worker's phase (no-op outside a worker with a status area); a compilation
    shows over the phase and :func:`_restore_phase` brings it back."""
    if phase != PHASE_COMPILING:
        _SHARED["base"] = (phase, text)
    if "phases" not in _SHARED:
        return
    i = _SHARED["index"]
    raw = text.encode("utf-8", "replace")[:MESSAGE_BYTES - 1]
    _SHARED["texts"][i * MESSAGE_BYTES:i * MESSAGE_BYTES + len(raw) + 1] = raw + b"\0"
    _SHARED["phases"][i] = phase


def _watch_compilation() -> Any:
    """Report numba compilations (cache misses: the first launch) as this worker's phase and in
    the running call's progress message; returns the registered listener."""
    from numba.core import event

    class CompileListener(event.Listener):
        depth = 0

        def on_start(self, ev: Any) -> None:
            self.depth += 1
            func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
            if func is not None and str(getattr(func, "__module__", "")).startswith("segview"):
                text = f"compiling numba kernel {func.__name__} (first run only)"
            else:  # numba's own helpers compiled for a segview kernel
                text = "compiling numba kernels (first run only)"
            _set_phase(PHASE_COMPILING, text)
            slot = _SHARED.get("slot")
            if slot is not None:
                fractions = _SHARED["fractions"]
                _slot_context(slot).progress(max(float(fractions[slot]), 0.001), text)

        def on_end(self, ev: Any) -> None:
            self.depth = max(0, self.depth - 1)
            if self.depth == 0:
                _set_phase(*_SHARED.get("base", (PHASE_READY, "ready")))

    listener = CompileListener()
    event.register("numba:compile", listener)
    return listener


def warm_up(n: int = 400) -> None:
    """Run every fast registered detector once on a small series (loads compiled kernels)."""
    from .. import registry

    rng = np.random.default_rng(1)
    values = np.concatenate([np.linspace(3.0, 1.0, n // 4), np.ones(n - n // 4)])
    series = Series(values + 0.05 * rng.standard_normal(n), id="warm-up")
    for spec in registry.all_specs():
        if spec.slow or spec.needs_x:
            continue
        _set_phase(PHASE_WARMING, f"loading compiled kernels: {spec.label}")
        try:
            run_spec(spec, series, spec.defaults())
        except Exception:  # warm-up is best effort; the real run reports errors
            log.debug("warm-up of %s failed", spec.name, exc_info=True)


def _slot_context(slot: int) -> RunContext:
    fractions, messages = _SHARED["fractions"], _SHARED["messages"]

    def report(fraction: float, message: str) -> None:
        raw = message.encode("utf-8", "replace")[:MESSAGE_BYTES - 1]
        start = slot * MESSAGE_BYTES
        messages[start:start + len(raw) + 1] = raw + b"\0"
        fractions[slot] = fraction

    return RunContext(SharedFlag(_SHARED["flags"], slot), report)


def _run_in_worker(slot: int, name: str, values: np.ndarray, x: np.ndarray | None, sid: str,
                   params: Params, prepared: object | None,
                   dims: tuple[str, ...] | None = None) -> Outcome:
    from .. import registry

    _SHARED["slot"] = slot
    try:
        spec = registry.get(name)
        series = Series(values, x, sid, dims=dims)  # dims: a multivariate series
        result, state = compute(spec, series, params, _slot_context(slot), prepared)
    except Cancelled:
        return Outcome("cancelled")
    except RecoverableError as err:
        return Outcome("recoverable", text=str(err))
    except Exception:  # a bug in a detector: its traceback goes back to the caller
        return Outcome("bug", text=traceback.format_exc())
    finally:
        _SHARED["slot"] = None
    return Outcome("ok", result, state)


def _call_in_worker(slot: int, func: Callable[..., Any], args: tuple[Any, ...],
                    kwargs: dict[str, Any]) -> Outcome:
    """Run a module-level function of segview's core (not a detector) in a worker: the same
    outcomes as a detector run (a bug's traceback goes back to the caller)."""
    _SHARED["slot"] = slot
    try:
        return Outcome("ok", func(*args, **kwargs))
    except Cancelled:
        return Outcome("cancelled")
    except RecoverableError as err:
        return Outcome("recoverable", text=str(err))
    except Exception:
        return Outcome("bug", text=traceback.format_exc())
    finally:
        _SHARED["slot"] = None


def _ping() -> int:
    return os.getpid()


# ------------------------------------------------------------------------------ parent side

class WorkerDied(RecoverableError):
    """A worker process ended while running a detector (crash, killed, out of memory)."""


class RemoteCall:
    """One detector run in a worker: its future, cancel flag and progress."""

    def __init__(self, runner: "ProcessRunner", slot: int, future: cf.Future,
                 executor: cf.ProcessPoolExecutor | None = None,
                 work: tuple[Any, ...] = ()) -> None:
        self.runner, self.slot, self.future = runner, slot, future
        self.executor, self.work = executor, work  # the pool it went to; (entry, *args)

    def cancel(self) -> None:
        if not self.future.cancel():
            self.runner._flags[self.slot] = 1

    def progress(self) -> tuple[float, str]:
        start = self.slot * MESSAGE_BYTES
        raw = bytes(self.runner._messages[start:start + MESSAGE_BYTES]).split(b"\0", 1)[0]
        return float(self.runner._fractions[self.slot]), raw.decode("utf-8", "replace")

    def wait(self, cancelled: Callable[[], bool],
             on_progress: Callable[[float, str], None] | None = None,
             poll_s: float = 0.05) -> Outcome:
        """Block until the worker answers; raise :class:`Cancelled` as soon as ``cancelled()``.

        Raises:
            Cancelled: the caller cancelled (the worker is told and its answer dropped).
            WorkerDied: the worker process ended before answering (the pool is replaced).
        """
        last = (-1.0, "")
        while True:
            try:
                return self.future.result(timeout=poll_s)
            except cf.TimeoutError:
                pass
            except cf.CancelledError:
                raise Cancelled() from None
            except BrokenProcessPool as err:
                if self.executor is not None and self.executor in self.runner._reaped \
                        and self.work and not cancelled():
                    # its pool was stopped to end an abandoned call, not by this one: run it
                    # again on the new pool
                    again = self.runner._submit(*self.work)
                    self.slot, self.future, self.executor = again.slot, again.future, again.executor
                    continue
                self.runner._on_broken(self.future)
                raise WorkerDied(f"the worker process ended unexpectedly ({err}); "
                                 "a new one was started") from None
            if cancelled():
                self.cancel()
                raise Cancelled()
            if on_progress is not None:
                now = self.progress()
                if now != last and now[0] > 0:
                    last = now
                    on_progress(*now)


class ProcessRunner:
    """A pool of worker processes for detector runs (see the module docstring).

    Args:
        workers: processes (default: CPU count - 1, at least 2).
        slots: how many calls may be in flight or queued at once.
        nice: CPU priority decrease of the workers (POSIX).
        warm: load every fast detector's kernels when a worker starts.
    """

    def __init__(self, workers: int | None = None, slots: int = DEFAULT_SLOTS,
                 nice: int = WORKER_NICE, warm: bool = True) -> None:
        self.workers = workers or max(2, (os.cpu_count() or 2) - 1)
        self.nice, self.warm = nice, warm
        self._ctx = worker_context()
        self._flags = self._ctx.RawArray(ctypes.c_int8, slots)
        self._fractions = self._ctx.RawArray(ctypes.c_double, slots)
        # c_char arrays: a slice is bytes (typeshed says a list of them)
        self._messages: Any = self._ctx.RawArray(ctypes.c_char, slots * MESSAGE_BYTES)
        self._phases = self._ctx.RawArray(ctypes.c_int8, WORKER_SLOTS)
        self._texts: Any = self._ctx.RawArray(ctypes.c_char, WORKER_SLOTS * MESSAGE_BYTES)
        self._counter = self._ctx.Value(ctypes.c_int, 0)
        self.calls_started = 0
        self.calls_done = 0
        self._free = list(range(slots - 1, -1, -1))
        self._lock = threading.Lock()
        self._slots_free = threading.Condition(self._lock)
        self.pool = WorkerPool(self.workers, _init_worker,
                               (self._flags, self._fractions, self._messages, self.nice, self.warm,
                                (self._phases, self._texts, self._counter)),
                               context=self._ctx, what="detector")
        self.closed = False
        self.reaps = 0  # pools stopped because an abandoned call kept a worker busy
        self._reaped: list[cf.ProcessPoolExecutor] = []

    # ----------------------------------------------------------------- life cycle
    @property
    def started_at(self) -> float | None:
        """When the first pool started (``time.monotonic()``), or None."""
        return self.pool.started_at

    @property
    def restarts(self) -> int:
        """Pools replaced because a worker died."""
        return self.pool.restarts

    def start(self) -> "ProcessRunner":
        """Start the worker processes now (they warm up in the background)."""
        with self._lock:
            ex = self._executor()
        for _ in range(self.workers):
            ex.submit(_ping)
        return self

    def _executor(self) -> cf.ProcessPoolExecutor:
        """The pool's executor (caller holds the lock)."""
        if self.closed:
            raise RuntimeError("ProcessRunner is shut down")
        return self.pool.executor

    def _on_broken(self, future: cf.Future) -> None:
        """Replace a pool whose worker died (only once per broken pool)."""
        with self._lock:
            self.pool.replace_if_broken()

    def warmup_status(self) -> list[tuple[int, str]]:
        """``(phase, text)`` of each worker started so far (``PHASE_*``; the most recent
        ``workers`` of them, a replaced pool's workers first): what the first launch waits for."""
        with self._counter.get_lock():
            started = self._counter.value
        out = []
        for k in range(max(0, started - self.workers), started):
            i = k % WORKER_SLOTS
            raw = bytes(self._texts[i * MESSAGE_BYTES:(i + 1) * MESSAGE_BYTES]).split(b"\0", 1)[0]
            out.append((int(self._phases[i]), raw.decode("utf-8", "replace")))
        return out

    def abandon(self, calls: list["RemoteCall"], grace_s: float = 0.5
                ) -> threading.Timer | None:
        """Give up ``calls`` for good: each is told to cancel, and if one is still computing
        after ``grace_s`` (a kernel that never looks at the cancel flag: minutes of work and
        memory nobody waits for), the pool it runs in is stopped and later calls go to a new
        one. Other calls of the stopped pool are run again on the new one. Returns the timer
        (None when every call had already ended)."""
        live = [c for c in calls if not c.future.done()]
        for c in live:
            c.cancel()
        if not live:
            return None
        timer = threading.Timer(grace_s, self._reap, (live,))
        timer.daemon = True
        timer.start()
        return timer

    def _reap(self, calls: list["RemoteCall"]) -> None:
        with self._lock:
            stuck = {id(c.executor) for c in calls if not c.future.done()}
            ex = self.pool.current
            if ex is None or id(ex) not in stuck or self.closed:
                return
            self.pool.detach()  # ``ex``: the next call starts a new executor
            self._reaped.append(ex)
            del self._reaped[:-8]  # the few most recent: only their calls can still be waiting
            self.reaps += 1
        log.info("stopping a worker pool that kept computing a cancelled job")
        terminate_pool(ex)  # its other calls see a broken pool and run again (RemoteCall.wait)

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.pool.processes()]

    def shutdown(self, timeout: float = 2.0) -> None:
        """Cancel every call, stop the workers (terminated when they do not stop in time)."""
        with self._lock:
            self.closed = True
            for i in range(len(self._flags)):
                self._flags[i] = 1
        self.pool.shutdown(timeout)

    # ----------------------------------------------------------------- calls
    def submit(self, spec: DetectorSpec, series: Series, params: Params,
               prepared: object | None = None) -> RemoteCall:
        """Start ``spec`` on ``series`` in a worker; the slot is freed when the call ends."""
        return self._submit(_run_in_worker, spec.name, series.values, series.x, series.id, params,
                            prepared, series.dims or None)

    def submit_call(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> RemoteCall:
        """Run ``func(*args, **kwargs)`` in a worker (an analysis that is not a detector run,
        e.g. a benchmark's warm-up analysis). ``func`` must be importable by name (a module-level
        function) and its arguments and result picklable; wait for it like a detector call
        (:meth:`RemoteCall.wait`, then :func:`unpack`)."""
        return self._submit(_call_in_worker, func, args, kwargs)

    def _submit(self, entry: Callable[..., Any], *args: Any) -> RemoteCall:
        """``entry(slot, *args)`` in a worker, on a free slot (waiting for one); a pool whose
        worker died while idle is replaced once; the slot is freed when the call ends."""
        with self._lock:
            while not self._free:
                self._slots_free.wait()
            slot = self._free.pop()
            self._flags[slot] = 0
            self._fractions[slot] = 0.0
            self._messages[slot * MESSAGE_BYTES] = b"\0"
            try:
                self._executor()  # refuses after shutdown
                fut = self.pool.submit(entry, slot, *args)  # a pool found broken: replaced once
                ex = self.pool.executor  # the executor the call went to (after any replacement)
            except BaseException:  # the slot goes back, whichever attempt failed
                self._free.append(slot)
                raise
        self.calls_started += 1
        fut.add_done_callback(functools.partial(self._released, slot))
        return RemoteCall(self, slot, fut, ex, (entry, *args))

    def _released(self, slot: int, _future: cf.Future) -> None:
        self._release(slot)

    def _release(self, slot: int) -> None:
        with self._lock:
            self.calls_done += 1
            self._free.append(slot)
            self._slots_free.notify()

    def run(self, spec: DetectorSpec, series: Series, params: Params,
            ctx: RunContext, prepared: object | None = None) -> tuple[Any, object | None]:
        """Like :func:`compute`, in a worker: cancellation and progress go through ``ctx``."""
        call = self.submit(spec, series, params, prepared)
        out = call.wait(lambda: ctx.cancelled, ctx.on_progress)
        return unpack(out)


def unpack(out: Outcome) -> tuple[Any, object | None]:
    """``(result, state)`` of a worker's answer; raises what the detector raised."""
    if out.status == "ok":
        return out.result, out.state
    if out.status == "cancelled":
        raise Cancelled()
    if out.status == "recoverable":
        raise RecoverableError(out.text)
    raise DetectorBug(out.text)


class DetectorBug(Exception):
    """A detector raised an unexpected exception in a worker; ``str()`` is its traceback."""
