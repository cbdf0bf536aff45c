"""The compute engine: detectors run on a private QThreadPool, never on the GUI thread.

Work is organised in **lanes** ``(series_id, detector)``. Each lane has a generation counter, at most
one running job and one waiting request; the newest request wins:

1. :meth:`JobRunner.request` stores the request as pending. A fast detector on a quiet lane starts at
   once (so a single click answers immediately); further requests within the rate-limit window are
   coalesced and the newest starts when the single-shot timer fires. Slow detectors (``spec.slow``) are
   purely debounced: the timer restarts on every request.
2. Dispatching increments the lane's generation. A running job of that lane gets its cancel token set
   (or is taken back from the queue with ``tryTake``) and the request waits until it ends.
3. A :class:`DetectJob` gets only immutable inputs (read-only arrays, frozen ``Params``, generation,
   ``RunContext``); like every background job it is a :class:`~.runnable.Job`, which reports
   through :class:`~.runnable.JobSignals` and catches every exception.
4. The ``@Slot`` receivers on the runner (GUI thread) drop results whose generation is no longer the
   lane's, store returned ``prepare`` state in an LRU cache (GUI thread only, so no locks) and emit
   :attr:`JobRunner.result_ready`.

Where the detector runs: segview's own detectors run in worker processes of a
:class:`~segview.core.workers.runner.ProcessRunner` (one per application, see :func:`shared_processes`)
and the runnable only waits for the answer, so a detector's Python code never competes with the
GUI thread for the GIL. A cheap decide step whose ``prepare`` state is already cached here (a
threshold slider) runs in the runnable itself, on the cached state; so do detectors a worker
process cannot import (plug-ins registered at run time, test fakes), and everything when
``SEGVIEW_IN_PROCESS=1``.

Nothing here touches widgets. On shutdown every job is cancelled and the pool is waited for.
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Collection, Hashable, Iterator, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from ..core.api import run_spec
from ..core.context import RunContext
from ..core.errors import Cancelled, RecoverableError
from ..core.evaluation.batch import eta_seconds, format_eta
from ..core.kernels import cancellable_compiles
from ..core.workers.runner import DetectorBug, ProcessRunner, compute, runs_in_worker, unpack
from .runnable import Job
from ..core.model import Series
from ..core.params import Params
from ..core.registry import DetectorSpec

log = logging.getLogger(__name__)

Lane = tuple[str, str]
OVERDUE_MS = 300  # a cancelled job still running this long no longer holds up its lane
LIVE_RUNNERS: "weakref.WeakSet[JobRunner]" = weakref.WeakSet()
_SHARED_PROCESSES: list[ProcessRunner] = []


def in_process_only() -> bool:
    """``SEGVIEW_IN_PROCESS=1`` runs every detector in the pool threads (debugging, profiling)."""
    return os.environ.get("SEGVIEW_IN_PROCESS", "").strip() not in ("", "0")


def shared_processes() -> ProcessRunner | None:
    """The application's detector worker processes, started on first use."""
    if in_process_only():
        return None
    if not _SHARED_PROCESSES:
        try:
            # no warm-up before serving: the first requests compile (or load) just the kernels
            # they need, so the first overlay does not wait for every detector's kernels
            runner = ProcessRunner(warm=False).start()
        except (OSError, RuntimeError) as err:  # no processes here (sandbox, limits): use threads
            log.warning("detector worker processes unavailable (%s); running detectors in threads",
                        err)
            os.environ["SEGVIEW_IN_PROCESS"] = "1"
            return None
        _SHARED_PROCESSES.append(runner)
        atexit.register(shutdown_shared_processes)
    return _SHARED_PROCESSES[0]


def shutdown_shared_processes() -> None:
    """Stop the shared worker processes (at application exit)."""
    while _SHARED_PROCESSES:
        _SHARED_PROCESSES.pop().shutdown()


@dataclass(frozen=True)
class Request:
    """What to compute on a lane."""

    series: Series
    spec: DetectorSpec
    params: Params


class PrepareCache:
    """LRU of detectors' ``prepare`` output keyed by (series, detector, prepare-stage params).

    Bounded by entries and by bytes: a state that reports ``nbytes`` (kcpa's n x n cost table is
    72 MB at 3,000 samples; segneigh's layers grow with max_segments) counts that much, and the
    least recently used states go once the total passes ``max_bytes`` (the newest always stays).
    A state that grows in place is re-measured at every ``put`` and ``get``."""

    def __init__(self, capacity: int = 64, max_bytes: int = 512 * 2**20) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self._data: OrderedDict[Hashable, object] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(req: Request) -> Hashable:
        return (req.series.id, req.spec.name, req.params.subset(req.spec.prepare_params))

    @staticmethod
    def size(value: object) -> int:
        try:
            return max(0, int(getattr(value, "nbytes", 0)))
        except (TypeError, ValueError):
            return 0

    @property
    def nbytes(self) -> int:
        return sum(self.size(v) for v in self._data.values())

    def get(self, key: Hashable) -> object | None:
        if key in self._data:
            self._data.move_to_end(key)
            self.hits += 1
            value = self._data[key]
            self._trim()
            return value
        self.misses += 1
        return None

    def put(self, key: Hashable, value: object) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        self._trim()

    def _trim(self) -> None:
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)
        while len(self._data) > 1 and self.nbytes > self.max_bytes:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


class DetectJob(Job):
    """Run one detector on one series (tag ``(lane, gen)``; result ``(result, cache key, prepare
    state or None)``)."""

    def __init__(self, lane: Lane, gen: int, req: Request, ctx: RunContext,
                 cache_key: Hashable, prepared: object | None,
                 remote: ProcessRunner | None = None) -> None:
        super().__init__((lane, gen), ctx)
        self.lane, self.gen, self.req = lane, gen, req
        self.cache_key, self.prepared = cache_key, prepared
        self.remote = remote
        self.ctx.on_progress = self.report
        self.call = None  # the worker call, once submitted (see JobRunner.abandon_cancelled)

    def compute(self) -> tuple[object, Hashable, object | None]:
        spec, series, params = self.req.spec, self.req.series, self.req.params
        self.ctx.check()
        cheap_here = self.prepared is not None and not spec.slow  # decide step on cached state
        if self.remote is None or cheap_here:
            with cancellable_compiles(self.ctx):  # in this thread: a cancel stops numba too
                result, state = compute(spec, series, params, self.ctx, self.prepared)
        else:
            call = self.call = self.remote.submit(spec, series, params, self.prepared)
            result, state = unpack(call.wait(lambda: self.ctx.cancelled, self.report))
        return result, self.cache_key, state


class BatchSignals(QObject):
    item_done = Signal(str, str, object, object)  # series id, detector, params, result
    item_failed = Signal(str, str, str)
    progress = Signal(float, str)
    finished = Signal(bool)  # True when cancelled


class BatchJob(QRunnable):
    """Run (spec, params) pairs over many series in one runnable ("run on all series")."""

    def __init__(self, series: Sequence[Series], work: Sequence[tuple[DetectorSpec, Params]],
                 ctx: RunContext, remote: ProcessRunner | None = None) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.series, self.work, self.ctx = list(series), list(work), ctx
        self.remote = remote
        self.calls: list = []  # worker calls submitted so far (see JobRunner.abandon_cancelled)
        self.signals = BatchSignals()
        self.done = threading.Event()

    def run(self) -> None:  # worker thread
        cancelled = False
        total = max(1, len(self.series) * len(self.work))
        items = [(s, spec, params) for s in self.series for spec, params in self.work]
        start = time.monotonic()
        try:
            for k, (s, spec, params, out) in enumerate(self._outcomes(items), start=1):
                if isinstance(out, RecoverableError):
                    self.signals.item_failed.emit(s.id, spec.name, str(out))
                elif isinstance(out, DetectorBug):  # keep going; report the bug
                    last = str(out).strip().splitlines()[-1:] or ["failed"]
                    self.signals.item_failed.emit(s.id, spec.name, last[0])
                elif isinstance(out, Exception):
                    self.signals.item_failed.emit(s.id, spec.name, f"{type(out).__name__}: {out}")
                else:
                    self.signals.item_done.emit(s.id, spec.name, params, out)
                eta = format_eta(eta_seconds(k, total, time.monotonic() - start))
                self.ctx.progress(k / total, f"{k}/{total} {eta}  {s.id}: {spec.label}")
        except Cancelled:
            cancelled = True
        finally:
            self.signals.finished.emit(cancelled)
            self.done.set()

    def _outcomes(self, items: list[tuple[Series, DetectorSpec, Params]]
                  ) -> Iterator[tuple[Series, DetectorSpec, Params, object]]:
        """Each item with its result or exception; worker runs keep every worker process busy."""
        pending: deque = deque()
        try:
            for s, spec, params in items:
                self.ctx.check()
                if self.remote is not None and runs_in_worker(spec):
                    call = self.remote.submit(spec, s, params)
                    self.calls = [*self.calls[-64:], call]
                    pending.append((s, spec, params, call))
                    while len(pending) >= self.remote.workers:
                        yield self._collect(*pending.popleft())
                    continue
                try:
                    out: object = run_spec(spec, s, params, RunContext(self.ctx.cancel_event))
                except Cancelled:
                    raise
                except Exception as err:
                    out = err
                yield s, spec, params, out
            while pending:
                yield self._collect(*pending.popleft())
        finally:
            for *_, call in pending:
                call.cancel()

    def _collect(self, s: Series, spec: DetectorSpec, params: Params, call) -> tuple:
        try:
            out: object = unpack(call.wait(lambda: self.ctx.cancelled))[0]
        except Cancelled:
            raise
        except Exception as err:
            out = err
        return s, spec, params, out


def analyse_benchmark_job(benchmark: object, method: str, params: dict) -> object:
    """What a :class:`WarmupJob` runs (in a worker process, or in its thread): the core's
    :func:`~segview.core.warmup.analyse_benchmark`, nothing else."""
    from ..core.warmup import analyse_benchmark

    return analyse_benchmark(benchmark, method, **params)  # type: ignore[arg-type]  # the parameters come from the method's own ParamSpecs (checked by analyse_benchmark)


class WarmupJob(Job):
    """A benchmark's warm-up analysis (issue 27; tag ``(key, gen)``, result a BenchmarkWarmup).
    Runs in a worker process when there is one; a cancelled job's answer is dropped (the worker
    finishes the analysis it started: one benchmark, seconds at most)."""

    def __init__(self, key: Hashable, gen: int, benchmark: object, method: str, params: dict,
                 ctx: RunContext, remote: ProcessRunner | None = None) -> None:
        super().__init__((key, gen), ctx)
        self.key, self.gen, self.benchmark, self.method = key, gen, benchmark, method
        self.params, self.remote = dict(params), remote

    def compute(self) -> object:
        self.ctx.check()
        if self.remote is None:  # in this thread: a cancel stops the kernels' compilation
            with cancellable_compiles(self.ctx):
                return analyse_benchmark_job(self.benchmark, self.method, self.params)
        call = self.call = self.remote.submit_call(analyse_benchmark_job, self.benchmark,
                                                   self.method, self.params)
        return unpack(call.wait(lambda: self.ctx.cancelled))[0]


class PathJob(Job):
    """A CROPS penalty path (:func:`segview.core.penalty_path.penalty_path`) in a pool thread;
    its tag is ``(key, gen)`` (the generic job's signals, :mod:`segview.gui.runnable`)."""

    def __init__(self, key: Hashable, gen: int, series: Series, method: str, params: dict,
                 ctx: RunContext) -> None:
        super().__init__((key, gen), ctx)
        self.key, self.gen, self.series, self.method = key, gen, series, method
        self.params = dict(params)

    def compute(self) -> object:
        from ..core.penalty_path import penalty_path

        with cancellable_compiles(self.ctx):
            return penalty_path(self.series, self.method, params=self.params, ctx=self.ctx)


class JobRunner(QObject):
    """Schedules detector runs per lane on its own thread pool (see the module docstring)."""

    result_ready = Signal(object, object)  # lane, DetectionResult
    job_failed = Signal(object, str, bool)  # lane, message, recoverable
    job_started = Signal(object, object)  # lane, Request
    progress = Signal(object, float, str)  # lane, fraction, message (slow jobs)
    idle = Signal()  # no job running or waiting
    batch_item = Signal(str, str, object, object)
    batch_failed = Signal(str, str, str)
    batch_progress = Signal(float, str)
    batch_finished = Signal(bool)
    warmup_ready = Signal(object, object)  # key (WarmupToken), BenchmarkWarmup (newest only)
    warmup_failed = Signal(object, str)  # key, message
    path_ready = Signal(object, object)  # key, PenaltyPath (the newest request's only)
    path_failed = Signal(object, str)  # key, message

    def __init__(self, parent: QObject | None = None, debounce_ms: int = 80,
                 max_threads: int | None = None, cache_size: int = 64,
                 processes: ProcessRunner | None = None) -> None:
        super().__init__(parent)
        self.processes = processes
        self.pool = QThreadPool(self)
        # cpu-1 threads, but at least 2 so one long run does not queue every other overlay behind it
        self.pool.setMaxThreadCount(max_threads or max(2, (os.cpu_count() or 2) - 1))
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._gen: dict[Lane, int] = {}
        self._pending: dict[Lane, Request] = {}  # waiting for the timer
        self._next: dict[Lane, Request] = {}  # waiting for the lane's running job to end
        self._running: dict[Lane, DetectJob] = {}
        self._retired: list[QRunnable] = []
        self._batch: BatchJob | None = None
        self._warmup: WarmupJob | None = None
        self._warmup_gen = 0
        self._path: PathJob | None = None
        self._path_gen = 0
        # warm-up analyses wait for their worker in a thread of their own, so a long one never
        # holds a thread the detectors' overlays need
        self.warmup_pool = QThreadPool(self)
        self.warmup_pool.setMaxThreadCount(1)
        self.cache = PrepareCache(cache_size)
        self.closed = False
        LIVE_RUNNERS.add(self)

    # ----------------------------------------------------------------- requests
    def generation(self, lane: Lane) -> int:
        return self._gen.get(lane, 0)

    def request(self, series: Series, spec: DetectorSpec, params: Params,
                immediate: bool = False) -> Lane:
        """Ask for ``spec`` on ``series`` with ``params``; newer requests on the lane supersede."""
        lane = (series.id, spec.name)
        if self.closed:
            return lane
        req = Request(series, spec, params)
        quiet = (lane not in self._running and lane not in self._pending
                 and not self._timer.isActive())
        if immediate or (quiet and not spec.slow):
            self._pending.pop(lane, None)
            self._dispatch(lane, req)
            if not immediate:
                self._timer.start()  # opens the rate-limit window
            return lane
        self._pending[lane] = req
        if spec.slow or not self._timer.isActive():
            self._timer.start()
        return lane

    def cancel_lanes(self, keep_series: str | Collection[str] | None = None,
                     detector: str | None = None) -> None:
        """Cancel and forget lanes of every series but ``keep_series`` (one id, or several: the
        executions of the benchmark shown), or of one detector (on ``keep_series`` only, when
        given)."""
        keep = ({keep_series} if isinstance(keep_series, str)
                else set(keep_series) if keep_series is not None else set())

        def hit(lane: Lane) -> bool:
            if detector is not None:
                return lane[1] == detector and (keep_series is None or lane[0] in keep)
            return lane[0] not in keep
        for table in (self._pending, self._next):
            for lane in [ln for ln in table if hit(ln)]:
                del table[lane]
        for lane in [ln for ln in self._running if hit(ln)]:
            self._gen[lane] = self.generation(lane) + 1
            self._cancel_job(lane)
        self._check_idle()

    # ----------------------------------------------------------------- warm-up analysis
    def request_warmup(self, key: Hashable, benchmark: object, method: str,
                       params: dict | None = None) -> int:
        """Analyse ``benchmark``'s warm-up with ``method`` off the GUI thread (a worker process
        when there is one). One lane: a new request supersedes the previous one, whose answer is
        dropped; :attr:`warmup_ready` ``(key, result)`` comes for the newest only. Returns the
        request's generation."""
        self.cancel_warmup()
        if self.closed:
            return self._warmup_gen
        job = WarmupJob(key, self._warmup_gen, benchmark, method, dict(params or {}),
                        RunContext(), self.processes)
        job.signals.finished.connect(self._on_warmup_finished)
        job.signals.failed.connect(self._on_warmup_failed)
        job.signals.cancelled.connect(self._on_warmup_cancelled)
        self._warmup = job
        self.warmup_pool.start(job)
        return self._warmup_gen

    def cancel_warmup(self) -> None:
        """Drop the warm-up analysis under way (its answer will not be emitted)."""
        self._warmup_gen += 1
        job, self._warmup = self._warmup, None
        if job is not None:
            job.ctx.cancel()
            if not self.warmup_pool.tryTake(job):
                self._retired.append(job)

    @Slot(object, object)
    def _on_warmup_finished(self, tag: tuple[object, int], result: object) -> None:
        key, gen = tag
        if self._warmup_ended(gen) and not self.closed:
            self.warmup_ready.emit(key, result)
        self._check_idle()

    @Slot(object, str, bool)
    def _on_warmup_failed(self, tag: tuple[object, int], text: str, recoverable: bool) -> None:
        key, gen = tag
        if self._warmup_ended(gen) and not self.closed:
            self.warmup_failed.emit(key, text)
        self._check_idle()

    @Slot(object)
    def _on_warmup_cancelled(self, tag: tuple[object, int]) -> None:
        self._warmup_ended(tag[1])
        self._check_idle()

    def _warmup_ended(self, gen: int) -> bool:
        """True when ``gen`` is the newest request (its job is then over)."""
        if gen != self._warmup_gen:
            return False
        if self._warmup is not None:
            self._retired.append(self._warmup)
        self._warmup = None
        return True

    # ----------------------------------------------------------------- penalty path
    def request_path(self, key: Hashable, series: Series, method: str, params: dict) -> int:
        """Compute the CROPS penalty path of ``method`` on ``series`` off the GUI thread; a new
        request supersedes the previous one, and :attr:`path_ready` ``(key, path)`` comes for the
        newest only. Returns the request's generation."""
        self.cancel_path()
        if self.closed:
            return self._path_gen
        job = PathJob(key, self._path_gen, series, method, params, RunContext())
        job.signals.finished.connect(self._on_path_finished)
        job.signals.failed.connect(self._on_path_failed)
        job.signals.cancelled.connect(self._on_path_cancelled)
        self._path = job
        self.pool.start(job)
        return self._path_gen

    def cancel_path(self) -> None:
        """Drop the penalty path under way (its answer will not be emitted)."""
        self._path_gen += 1
        job, self._path = self._path, None
        if job is not None:
            job.ctx.cancel()
            if not self.pool.tryTake(job):
                self._retired.append(job)

    def _path_ended(self, gen: int) -> bool:
        if gen != self._path_gen:
            return False
        if self._path is not None:
            self._retired.append(self._path)
        self._path = None
        return True

    @Slot(object, object)
    def _on_path_finished(self, tag: tuple[object, int], path: object) -> None:
        key, gen = tag
        if self._path_ended(gen) and not self.closed:
            self.path_ready.emit(key, path)
        self._check_idle()

    @Slot(object, str, bool)
    def _on_path_failed(self, tag: tuple[object, int], text: str, recoverable: bool) -> None:
        key, gen = tag
        if self._path_ended(gen) and not self.closed:
            if not recoverable:
                log.error("penalty path of %s failed:\n%s", key, text)
            self.path_failed.emit(key, text)
        self._check_idle()

    @Slot(object)
    def _on_path_cancelled(self, tag: tuple[object, int]) -> None:
        self._path_ended(tag[1])
        self._check_idle()

    def abandon_cancelled(self, grace_s: float = 0.5) -> None:
        """Cancelled jobs whose worker process keeps computing (a kernel that never looks at
        the cancel flag) are given up: after ``grace_s`` their worker pool is stopped and a new
        one serves the next requests (:meth:`ProcessRunner.abandon`)."""
        if self.processes is None:
            return
        jobs = [*self._running.values(), *self._retired, self._batch, self._warmup]
        calls = []
        for job in jobs:
            if job is None or not job.ctx.cancelled or job.done.is_set():
                continue
            calls += [c for c in (getattr(job, "calls", None) or [getattr(job, "call", None)])
                      if c is not None]
        if calls:
            self.processes.abandon(calls, grace_s)

    def cancel_all(self) -> None:
        """Cancel every lane, any batch, the warm-up analysis and the penalty path."""
        self._timer.stop()
        self._pending.clear()
        self._next.clear()
        for lane in list(self._running):
            self._gen[lane] = self.generation(lane) + 1
            self._cancel_job(lane)
        if self._batch is not None:
            self._batch.ctx.cancel()
        if self._warmup is not None:
            self.cancel_warmup()
        if self._path is not None:
            self.cancel_path()
        self._check_idle()

    def shutdown(self, timeout_ms: int = 2000) -> bool:
        """Cancel everything and wait for the pool; True when no thread is left running."""
        self.closed = True
        self.cancel_all()
        ok = self.pool.waitForDone(timeout_ms) and self.warmup_pool.waitForDone(timeout_ms)
        self._retired.clear()
        return bool(ok)

    def is_busy(self) -> bool:
        return bool(self._running or self._pending or self._next or self._batch is not None
                    or self._warmup is not None or self._path is not None)

    def in_flight(self, lane: Lane, params: Params) -> bool:
        """Whether ``lane`` already computes (or waits to compute) with ``params``: asking again
        would cancel it and queue the same work behind everything else."""
        for table in (self._pending, self._next):
            req = table.get(lane)
            if req is not None:
                return req.params == params
        job = self._running.get(lane)
        return (job is not None and not job.ctx.cancelled and job.gen == self.generation(lane)
                and job.req.params == params)

    def running_lanes(self) -> list[Lane]:
        return list(self._running)

    # ----------------------------------------------------------------- batch
    def run_batch(self, series: Sequence[Series],
                  work: Sequence[tuple[DetectorSpec, Params]]) -> bool:
        """Start a batch over ``series``; False when one is already running."""
        if self._batch is not None or self.closed:
            return False
        job = BatchJob(series, work, RunContext(), self.processes)
        job.ctx.on_progress = job.signals.progress.emit
        job.signals.item_done.connect(self._on_batch_item_done)
        job.signals.item_failed.connect(self._on_batch_item_failed)
        job.signals.progress.connect(self._on_batch_progress)
        job.signals.finished.connect(self._on_batch_finished)
        self._batch = job
        self.pool.start(job)
        return True

    @Slot(str, str, object, object)
    def _on_batch_item_done(self, sid: str, det: str, params: object, result: object) -> None:
        self.batch_item.emit(sid, det, params, result)

    @Slot(str, str, str)
    def _on_batch_item_failed(self, sid: str, det: str, text: str) -> None:
        self.batch_failed.emit(sid, det, text)

    @Slot(float, str)
    def _on_batch_progress(self, fraction: float, message: str) -> None:
        self.batch_progress.emit(fraction, message)

    @Slot(bool)
    def _on_batch_finished(self, cancelled: bool) -> None:
        if self._batch is not None:
            self._retired.append(self._batch)
        self._batch = None
        self.batch_finished.emit(cancelled)
        self._check_idle()

    # ----------------------------------------------------------------- internals
    def _dispatch(self, lane: Lane, req: Request) -> None:
        self._gen[lane] = self.generation(lane) + 1
        if lane in self._running and not self._cancel_job(lane):
            self._next[lane] = req  # starts when the cancelled job ends, or when it is overdue
            job = self._running[lane]
            QTimer.singleShot(OVERDUE_MS, self, lambda: self._overdue(lane, job))
            return
        self._start(lane, req)

    def _overdue(self, lane: Lane, job: DetectJob) -> None:
        """A cancelled job still runs (it never looks at the cancel flag, or another file's
        stuck job has the same series id): the lane's next request starts anyway, beside it;
        the old job's answer is dropped by its generation."""
        if self.closed or self._running.get(lane) is not job or lane not in self._next:
            return
        del self._running[lane]
        self._retired.append(job)
        self._start(lane, self._next.pop(lane))

    def _cancel_job(self, lane: Lane) -> bool:
        """Cancel the lane's job; True when it was still queued and is gone for good."""
        job = self._running[lane]
        job.ctx.cancel()
        if self.pool.tryTake(job):
            del self._running[lane]
            return True
        job.lend_thread(self.pool)  # it holds up no other job while it runs on
        return False

    def _start(self, lane: Lane, req: Request) -> None:
        self._prune()
        key = PrepareCache.key(req)
        prepared = self.cache.get(key) if req.spec.prepare is not None else None
        remote = self.processes if runs_in_worker(req.spec) else None
        job = DetectJob(lane, self.generation(lane), req, RunContext(), key, prepared, remote)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        job.signals.cancelled.connect(self._on_job_cancelled)
        job.signals.progress.connect(self._on_job_progress)
        self._running[lane] = job
        self.job_started.emit(lane, req)
        self.pool.start(job)

    def _prune(self) -> None:
        self._retired = [j for j in self._retired if not j.done.is_set()]

    def _job_ended(self, lane: Lane, gen: int) -> None:
        job = self._running.get(lane)
        if job is not None and job.gen == gen:
            del self._running[lane]
            self._retired.append(job)
        nxt = self._next.pop(lane, None)
        if nxt is not None and lane not in self._running and not self.closed:
            self._start(lane, nxt)

    def _check_idle(self) -> None:
        if not self.is_busy():
            self.idle.emit()

    @Slot()
    def _on_timer_timeout(self) -> None:
        pending, self._pending = self._pending, {}
        for lane, req in pending.items():
            self._dispatch(lane, req)

    @Slot(object, object)
    def _on_job_finished(self, tag: tuple[Lane, int], out: tuple[object, object, object]) -> None:
        (lane, gen), (result, key, state) = tag, out
        if state is not None:
            self.cache.put(key, state)
        self._job_ended(lane, gen)
        if gen == self.generation(lane) and not self.closed:
            self.result_ready.emit(lane, result)
        self._check_idle()

    @Slot(object, str, bool)
    def _on_job_failed(self, tag: tuple[Lane, int], text: str, recoverable: bool) -> None:
        lane, gen = tag
        self._job_ended(lane, gen)
        if gen == self.generation(lane) and not self.closed:
            if not recoverable:
                log.error("detector %s failed on %s:\n%s", lane[1], lane[0], text)
            self.job_failed.emit(lane, text, recoverable)
        self._check_idle()

    @Slot(object)
    def _on_job_cancelled(self, tag: tuple[Lane, int]) -> None:
        self._job_ended(*tag)
        self._check_idle()

    @Slot(object, float, str)
    def _on_job_progress(self, tag: tuple[Lane, int], fraction: float, message: str) -> None:
        lane, gen = tag
        if gen == self.generation(lane):
            self.progress.emit(lane, fraction, message)
