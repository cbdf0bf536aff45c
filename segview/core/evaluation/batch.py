"""Run detectors over many series: one executor interface for local worker processes (default,
``concurrent.futures.ProcessPoolExecutor``), a Dask distributed cluster (``scheduler`` address or a
``Client``) and in-process serial runs, with an on-disk result cache.

A run is one (series, method, parameters) triple. The cache key is the series' content hash, the
detector name and version and the coerced parameters, so a repeated run recomputes nothing and a
detector whose ``version`` changes is recomputed. The cache is a SQLite file written only by the
calling process; workers just compute.

``run_batch`` returns one row per run, series-major (for each series, each method in order)::

    {"series_id", "method", "detector_version", "params", "steady_index" (int | None),
     "change_points" (list[int]), "runtime_ms", "error" (str | None), "cached" (bool),
     "strengths" (list[float] aligned with change_points, or None: the method has none),
     "strength_label" (str), "notes" (list[str]: the result's remarks, e.g. that a default
     changed with the detector's version), "series_index", "spec_index"}

Cancelling (``ctx``, or Ctrl-C in the calling thread) keeps what finished: ``run_batch`` raises
:class:`BatchCancelled` carrying those rows, so callers can write a partial export
(:func:`partial_path` names it); local worker processes are stopped at once.
"""
from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import multiprocessing as mp
from concurrent.futures.process import BrokenProcessPool
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import registry
from ..api import check_length, run_spec
from ..context import NULL_CONTEXT, RunContext
from ..errors import Cancelled, InputError, RecoverableError
from ..model import Series
from ..workers.guard import deferred_interrupts
from ..workers.pool import WorkerPool
from ..workers.start import worker_context
from ..params import Params
from ..registry import DetectorSpec
from .cache import ResultCache

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
# (methods sharing one prepare stage as (spec index, method), series indices)
PlannedTask = tuple[tuple[tuple[int, "MethodSpec"], ...], tuple[int, ...]]
_PAYLOAD: dict[str, Any] = {}


class BatchCancelled(Cancelled):
    """A batch was cancelled; ``rows`` are the runs that finished (series-major), of ``total``."""

    def __init__(self, rows: list[dict[str, Any]], total: int) -> None:
        super().__init__(f"batch ({len(rows)} of {total} runs finished)")
        self.rows, self.total = rows, total


class ExecutorLost(RecoverableError):
    """The cluster running a batch went away mid-run (a Dask scheduler stopped, the connection
    to it lost): the runs still out are lost, the finished ones are kept."""

    def __init__(self, where: str, reason: str) -> None:
        self.where, self.reason = where, reason
        super().__init__(f"{where}: {reason}")


class BatchIncomplete(RecoverableError):
    """A batch stopped because its executor was lost (:class:`ExecutorLost`); ``rows`` are the
    runs that finished (series-major), of ``total``, for a partial export."""

    def __init__(self, rows: list[dict[str, Any]], total: int, lost: ExecutorLost) -> None:
        super().__init__(f"{lost}; {len(rows)} of {total} runs finished")
        self.rows, self.total, self.lost = rows, total, lost


def partial_path(path: str | Path) -> Path:
    """Where a cancelled batch's export goes: ``out.csv`` -> ``out.partial.csv``."""
    p = Path(path)
    return p.with_name(f"{p.stem}.partial{p.suffix}")


def format_eta(seconds: float) -> str:
    """``'ETA 1:05'`` / ``'ETA 1:02:03'`` for a remaining time in seconds (``''`` when unknown)."""
    if not math.isfinite(seconds) or seconds < 0:
        return ""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    return f"ETA {h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"ETA {rest // 60}:{rest % 60:02d}"


def eta_seconds(done: float, total: float, elapsed: float) -> float:
    """Remaining time at the rate so far (``inf`` before anything finished)."""
    if done <= 0 or elapsed <= 0:
        return math.inf
    return max(0.0, elapsed * (total - done) / done)


@dataclass(frozen=True)
class MethodSpec:
    """A detector with coerced parameters."""

    spec: DetectorSpec
    params: Params

    @property
    def name(self) -> str:
        return self.spec.name

    def __reduce__(self) -> tuple[Any, ...]:
        # segview's own detectors travel to workers by name (every worker registers them; a spec
        # may hold lambdas pickle cannot send); others (plug-ins, test fakes) as they are
        if getattr(self.spec.run, "__module__", "").startswith("segview.core.detectors"):
            return (_registered_method, (self.spec.name, self.spec.version, self.params))
        return (MethodSpec, (self.spec, self.params))

    @classmethod
    def of(cls, method: str | DetectorSpec, params: dict[str, Any] | Params | None = None
           ) -> "MethodSpec":
        """Resolve ``method`` through the registry and coerce ``params`` (ParameterError)."""
        spec = method if isinstance(method, DetectorSpec) else registry.get(method)
        return cls(spec, spec.coerce(dict(params or {})))


def _registered_method(name: str, version: str, params: Params) -> MethodSpec:
    """A pickled :class:`MethodSpec` of a built-in detector, looked up again in the worker."""
    spec = registry.get(name)
    if spec.version != version:
        raise RuntimeError(f"worker has {name} version {spec.version}, the caller {version}")
    return MethodSpec(spec, params)


def _as_method_specs(items: Iterable[Any]) -> list[MethodSpec]:
    out = []
    for item in items:
        if isinstance(item, MethodSpec):
            out.append(item)
        elif isinstance(item, (str, DetectorSpec)):
            out.append(MethodSpec.of(item))
        else:
            name, params = item
            out.append(MethodSpec.of(name, params))
    return out


# ----------------------------------------------------------------------------------- workers

def _failed(err: Exception, ms: MethodSpec, series: Series | None = None) -> dict[str, Any]:
    """The row of a run that raised. A RecoverableError is the input's fault and says so; running
    out of memory is the machine's limit and says so with the series' size; anything else is a
    bug in the detector, reported as such, and never takes the other runs with it."""
    if isinstance(err, MemoryError):
        size = f" of {len(series):,} samples" if series is not None else ""
        text = (f"out of memory while running {ms.spec.name} on this series{size} (a shorter "
                "series, other parameters or more memory)")
    elif isinstance(err, RecoverableError):
        text = str(err)
    else:
        text = (f"internal error in {ms.spec.name} ({type(err).__name__}: {err}); this is a bug "
                "in segview")
    return {"steady_index": None, "change_points": [], "runtime_ms": 0.0, "error": text}


def _run_one(ms: MethodSpec, series: Series, full: bool) -> dict[str, Any]:
    try:
        res = run_spec(ms.spec, series, ms.params)
    except Cancelled:
        raise
    except Exception as err:  # noqa: BLE001  (per-item isolation: one run never kills the batch)
        return _failed(err, ms, series)
    cps = [int(c) for c in res.change_points] if full else None
    return {"steady_index": res.steady_start, "change_points": cps,
            "runtime_ms": float(res.runtime_ms), "error": None, **_result_fields(res, full)}


def _result_fields(res: Any, full: bool) -> dict[str, Any]:
    """``strengths`` (one float per change point, or None where the method has none),
    ``strength_label`` and ``notes`` of a result, as rows carry them."""
    s = res.strengths
    return {"strengths": [float(v) for v in s] if (full and s is not None) else None,
            "strength_label": res.strength_label if s is not None else "",
            "notes": [str(n) for n in res.notes]}


def _run_shared(members: Sequence[tuple[int, MethodSpec]], series: Series, ri: int, full: bool
                ) -> list[tuple[int, int, dict[str, Any]]]:
    """Members share the detector and its prepare-stage parameters: prepare once, decide each."""
    spec = members[0][1].spec
    prepare = spec.prepare
    if prepare is None:  # not grouped by the planner (_prepare_key); as a failed prepare would be
        return [(si, ri, _run_one(ms, series, full)) for si, ms in members]
    t0 = time.perf_counter()
    try:
        check_length(spec, series.values, members[0][1].params, series.id)
        prepared = prepare(series.values, members[0][1].params, NULL_CONTEXT)
    except Cancelled:
        raise
    except Exception:  # noqa: BLE001  (each member then reports its own error)
        return [(si, ri, _run_one(ms, series, full)) for si, ms in members]
    prep_ms = (time.perf_counter() - t0) * 1000.0
    ctx = NULL_CONTEXT.with_prepared(prepared)
    out = []
    for si, ms in members:
        try:
            res = run_spec(ms.spec, series, ms.params, ctx)
        except Cancelled:
            raise
        except Exception as err:  # noqa: BLE001
            out.append((si, ri, _failed(err, ms, series)))
            continue
        out.append((si, ri, {"steady_index": res.steady_start,
                             "change_points": [int(c) for c in res.change_points] if full else None,
                             "runtime_ms": float(res.runtime_ms) + prep_ms, "error": None,
                             **_result_fields(res, full)}))
    return out


def _run_chunk(series: Sequence[Series], members: Sequence[tuple[int, MethodSpec]],
               idx: tuple[int, ...], full: bool = True) -> list[tuple[int, int, dict[str, Any]]]:
    out: list[tuple[int, int, dict[str, Any]]] = []
    shared = len(members) > 1
    for ri in idx:
        if shared:
            out += _run_shared(members, series[ri], ri, full)
        else:
            out += [(si, ri, _run_one(ms, series[ri], full)) for si, ms in members]
    return out


def _init_worker(series: Sequence[Series]) -> None:
    from ..workers.guard import guard_worker

    guard_worker()
    _PAYLOAD["series"] = series


def _pool_task(members: Sequence[tuple[int, MethodSpec]], idx: tuple[int, ...], full: bool
               ) -> list[tuple[int, int, dict[str, Any]]]:
    return _run_chunk(_PAYLOAD["series"], members, idx, full)


# --------------------------------------------------------------------------------- executors

class Executor:
    """Runs chunks of (method, series indices) and yields their results as they complete."""

    workers: int = 1

    def run(self, series: Sequence[Series], tasks: Sequence[PlannedTask], full: bool = True
            ) -> Iterator[list[tuple[int, int, dict[str, Any]]]]:
        raise NotImplementedError

    def close(self) -> None:
        """Release workers or the cluster connection this executor created."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Everything in the calling process (tests, tiny jobs, debugging)."""

    def run(self, series, tasks, full=True):
        for members, idx in tasks:
            yield _run_chunk(series, members, idx, full)


def _pool_context() -> Any:
    """Workers forked from the fork server that loaded numba once
    (:mod:`segview.core.workers.start`; a fresh process, so neither this process's threads nor
    numba's OpenMP pool are ever forked: forking a process that ran a parallel kernel aborts the
    child), or spawned where there is none."""
    return worker_context()


class LocalExecutor(Executor):
    """Local worker processes; the series are sent once per worker (pool initializer)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, int(workers or os.cpu_count() or 1))

    def run(self, series, tasks, full=True):
        """Yields each task's rows. A worker that dies (a crash in compiled code, the OOM killer)
        breaks the pool and every task still in it: the unfinished tasks are retried series by
        series in a fresh pool of spawned workers; what breaks that one too runs once more alone,
        one task at a time in one worker, so that only the series that kills its worker is
        reported as a failed row and the run goes on."""
        pending = list(tasks)
        for context in (None, "spawn"):
            if not pending:
                return
            pending = yield from self._run_pool(series, pending, full, context)
            pending = [(members, (ri,)) for members, idx in pending for ri in idx]
            if pending and context is None:
                log.warning("a worker process died; retrying %d task(s) in fresh worker processes",
                            len(pending))
        if pending:
            log.warning("a worker process died again; running %d task(s) one at a time",
                        len(pending))
        pool = self._pool("spawn", 1, series)
        try:
            for members, idx in pending:
                with deferred_interrupts():  # never cut a worker's start-up data
                    fut = pool.submit(_pool_task, members, idx, full)
                try:
                    rows = fut.result()
                except BrokenProcessPool:  # alone in its worker: this task kills it
                    pool.replace()  # the next task starts a fresh worker
                    rows = [(si, ri, {"steady_index": None, "change_points": [], "runtime_ms": 0.0,
                                      "error": f"a worker process died while running "
                                               f"{ms.spec.name} on this series (also when run "
                                               "alone); see the log"})
                            for si, ms in members for ri in idx]
                yield rows
        except BaseException:  # Ctrl-C, a cancelled run, a closed generator: stop workers now
            pool.terminate()
            raise
        pool.shutdown()

    def _pool(self, context: str | None, workers: int, series: Any) -> WorkerPool:
        """A pool whose workers hold ``series`` (``context`` None: :func:`_pool_context`);
        its processes start with the first task."""
        mp_context = _pool_context() if context is None else mp.get_context(context)
        return WorkerPool(workers, _init_worker, (list(series),), context=mp_context, what="batch")

    def _run_pool(self, series, tasks, full, context):
        """Run ``tasks`` in one pool, yielding each task's rows; returns the tasks left unfinished
        when a worker died."""
        pool = self._pool(context, self.workers, series)
        futures: dict[Any, int] = {}
        done: set[int] = set()
        try:
            with deferred_interrupts():  # workers start in submit(): never cut their start data
                futures = {pool.submit(_pool_task, members, idx, full): k
                           for k, (members, idx) in enumerate(tasks)}
            for fut in cf.as_completed(futures):
                try:
                    rows = fut.result()
                except BrokenProcessPool:
                    break
                done.add(futures[fut])
                yield rows
        except BaseException:  # Ctrl-C, a cancelled run, a closed generator: stop workers now
            pool.terminate()
            raise
        if len(done) < len(tasks):
            pool.terminate()
        else:
            pool.shutdown()
        return [t for k, t in enumerate(tasks) if k not in done]


# what a lost scheduler or connection raises: Dask's FutureCancelledError (a CancelledError),
# CommClosedError (an OSError), timeouts
_LOST = (cf.CancelledError, asyncio.CancelledError, OSError, TimeoutError)


class DaskExecutor(Executor):
    """A Dask distributed cluster: ``address`` of a scheduler, or an existing ``client``.

    The series are scattered to every worker once; tasks carry only indices and parameters.
    """

    def __init__(self, address: str | None = None, client: Any = None) -> None:
        from distributed import Client

        if client is None and not address:
            raise InputError("scheduler", "give a scheduler address or a Client")
        self._own = client is None
        self.address = address or getattr(getattr(client, "scheduler", None), "address", "?")
        try:
            self.client = client if client is not None else Client(address)
        except (OSError, ValueError, TypeError) as err:  # unreachable, refused, malformed address
            raise InputError(f"scheduler {address}", f"cannot be used ({err})") from None
        n = sum(self.client.nthreads().values())
        self.workers = max(1, int(n))

    def _lost(self, err: BaseException) -> ExecutorLost:
        first = (str(err).splitlines() or [""])[0][:160]
        return ExecutorLost(f"scheduler {self.address}", "connection lost mid-run "
                                                          f"({type(err).__name__}: {first})")

    def run(self, series, tasks, full=True):
        """Yields each task's rows. A task that kills its workers again and again (Dask's
        ``KilledWorker``) fails its rows; a lost scheduler or connection raises
        :class:`ExecutorLost` (the rows yielded so far stand)."""
        from distributed import KilledWorker, as_completed

        futures: list[Any] = []
        try:
            data = self.client.scatter(list(series), broadcast=True, hash=False)
            futures = [self.client.submit(_run_chunk, data, members, idx, full, pure=False)
                       for members, idx in tasks]
            index = {f.key: k for k, f in enumerate(futures)}
            for fut in as_completed(futures):
                try:
                    rows = fut.result()
                except KilledWorker:
                    members, idx = tasks[index[fut.key]]
                    rows = [(si, ri, {"steady_index": None, "change_points": [],
                                      "runtime_ms": 0.0,
                                      "error": f"the Dask workers running {ms.spec.name} on this "
                                               "series died (KilledWorker); see their logs"})
                            for si, ms in members for ri in idx]
                yield rows
        except _LOST as err:  # the futures cancelled for "scheduler-connection-lost", a closed comm
            raise self._lost(err) from None
        finally:
            with contextlib.suppress(Exception):
                self.client.cancel(futures)

    def close(self) -> None:
        if self._own:
            with contextlib.suppress(Exception):  # the scheduler may be gone already
                self.client.close(timeout=5)


def make_executor(scheduler: str | None = None, workers: int | None = None) -> Executor:
    """``--scheduler ADDRESS`` -> Dask; ``workers=1`` -> serial; otherwise local processes."""
    if scheduler:
        return DaskExecutor(scheduler)
    if workers == 1:
        return SerialExecutor()
    return LocalExecutor(workers)


# ----------------------------------------------------------------------------------- driver

def _prepare_key(ms: MethodSpec) -> tuple[Any, ...] | None:
    spec = ms.spec
    if spec.prepare is None or spec.needs_x:
        return None
    return (spec.name.lower(), spec.version, ms.params.subset(spec.prepare_params))


def _plan(missing: dict[int, list[int]], specs: Sequence[MethodSpec], workers: int,
          n_series: int) -> list[PlannedTask]:
    """Chunks of work; methods that differ only in decide-stage parameters (and miss the same
    series) form one group, so the detector's prepare stage runs once per series for all of them."""
    groups: dict[Any, list[tuple[int, MethodSpec]]] = {}
    for si, idx in missing.items():
        pk = _prepare_key(specs[si])
        key = (pk, tuple(idx)) if pk is not None else (("single", si), tuple(idx))
        groups.setdefault(key, []).append((si, specs[si]))
    total = sum(len(k[1]) for k in groups)
    chunk = max(1, min(n_series, math.ceil(total / (workers * 8)))) if total else 1
    tasks: list[PlannedTask] = []
    for (_, idx), members in groups.items():
        for i in range(0, len(idx), chunk):
            tasks.append((tuple(members), tuple(idx[i:i + chunk])))
    return tasks


def _resolve_executor(executor: Executor | str | None, workers: int | None
                      ) -> tuple[Executor, bool]:
    if isinstance(executor, Executor):
        return executor, False
    if isinstance(executor, str):
        return DaskExecutor(executor), True
    return make_executor(None, workers), True


def _row(series: Series, ri: int, si: int, ms: MethodSpec, res: dict[str, Any]) -> dict[str, Any]:
    return {"series_id": series.id, "method": ms.spec.name, "detector_version": ms.spec.version,
            "params": dict(ms.params), "steady_index": res["steady_index"],
            "change_points": list(res["change_points"]), "runtime_ms": res["runtime_ms"],
            "error": res.get("error"), "cached": bool(res.get("cached", False)),
            "strengths": res.get("strengths"), "strength_label": res.get("strength_label", ""),
            "notes": list(res.get("notes") or ()), "series_index": ri, "spec_index": si}


Sink = Callable[[int, int, dict[str, Any]], None]


def _execute(series_list: Sequence[Series], specs: Sequence[MethodSpec], sink: Sink, *,
             full: bool, executor: Executor | str | None, workers: int | None,
             progress: Progress | None, cache_dir: str | Path | None, ctx: RunContext) -> None:
    """Feed ``sink(spec_index, series_index, result)`` from the cache, then from the executor."""
    n = len(series_list) * len(specs)
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    try:
        missing: dict[int, list[int]] = {}
        done = 0
        if cache is not None:
            hashes = [s.content_hash for s in series_list]
            for si, ms in enumerate(specs):
                tail = ResultCache.spec_part(ms)
                keys = [ResultCache.key_from(h, tail) for h in hashes]
                hits = cache.get_many(keys)
                for ri, k in enumerate(keys):
                    hit = hits.get(k)
                    # entries cached before strengths (or notes) were kept lack the key:
                    # recomputed
                    if hit is not None and ((hit.get("change_points") is not None
                                             and "strengths" in hit and "notes" in hit)
                                            or not full):
                        sink(si, ri, {**hit, "cached": True})
                        done += 1
                    else:
                        missing.setdefault(si, []).append(ri)
        else:
            missing = {si: list(range(len(series_list))) for si in range(len(specs))}
        if progress:
            progress(done, n)
        if not missing:
            return
        ex, own = _resolve_executor(executor, workers)
        pending: list[tuple[str, dict[str, Any]]] = []
        hashes_c: dict[int, str] = {}
        tails: dict[int, str] = {}
        try:
            tasks = _plan(missing, specs, ex.workers, len(series_list))
            log.info("batch: %d runs in %d tasks on %s", n - done, len(tasks), type(ex).__name__)
            for chunk in ex.run(series_list, tasks, full):
                ctx.check()
                for si, ri, res in chunk:
                    sink(si, ri, res)
                    if cache is not None and res.get("error") is None:
                        if ri not in hashes_c:
                            hashes_c[ri] = series_list[ri].content_hash
                        if si not in tails:
                            tails[si] = ResultCache.spec_part(specs[si])
                        pending.append((ResultCache.key_from(hashes_c[ri], tails[si]), res))
                if cache is not None and len(pending) >= 20000:
                    cache.put_many(pending)
                    pending = []
                done += len(chunk)
                if progress:
                    progress(done, n)
        finally:
            if cache is not None and pending:
                cache.put_many(pending)
            if own:
                ex.close()
    finally:
        if cache is not None:
            cache.close()


def run_batch(series_list: Sequence[Series], method_specs: Iterable[Any],
              executor: Executor | str | None = None, progress: Progress | None = None,
              cache_dir: str | Path | None = None, ctx: RunContext = NULL_CONTEXT,
              workers: int | None = None) -> list[dict[str, Any]]:
    """Run every method on every series.

    Args:
        series_list: the series.
        method_specs: :class:`MethodSpec` objects, method names, or ``(name, params)`` pairs.
        executor: an :class:`Executor`, a Dask scheduler address, or None for local processes
            (``workers`` of them; ``workers=1`` runs in-process). An executor passed in stays open.
        progress: ``progress(done, total)`` after each finished chunk (cached runs count as done).
        cache_dir: folder of the result cache; None disables caching.
        ctx: cancellation (checked between chunks).

    Returns:
        Rows (see the module docstring), series-major.

    Raises:
        UnknownMethodError, ParameterError.
        BatchCancelled: ``ctx`` was cancelled or Ctrl-C was pressed; it holds the finished rows.
        BatchIncomplete: the Dask scheduler was lost mid-run; it holds the finished rows.
    """
    specs = _as_method_specs(method_specs)
    series_list = list(series_list)
    results: dict[tuple[int, int], dict[str, Any]] = {}

    def sink(si: int, ri: int, res: dict[str, Any]) -> None:
        results[(si, ri)] = res

    def rows() -> list[dict[str, Any]]:
        return [_row(series_list[ri], ri, si, specs[si], results[(si, ri)])
                for ri in range(len(series_list)) for si in range(len(specs))
                if (si, ri) in results]

    try:
        _execute(series_list, specs, sink, full=True, executor=executor, workers=workers,
                 progress=progress, cache_dir=cache_dir, ctx=ctx)
    except (Cancelled, KeyboardInterrupt) as err:
        raise BatchCancelled(rows(), len(series_list) * len(specs)) from err
    except ExecutorLost as err:
        raise BatchIncomplete(rows(), len(series_list) * len(specs), err) from None
    return rows()


def run_onsets(series_list: Sequence[Series], method_specs: Iterable[Any],
               executor: Executor | str | None = None, progress: Progress | None = None,
               cache_dir: str | Path | None = None, ctx: RunContext = NULL_CONTEXT,
               workers: int | None = None) -> tuple[np.ndarray, int]:
    """Onsets only, as a compact ``(n_methods, n_series)`` float matrix: the onset, ``-1`` for
    "never steady", NaN for a failed run. Used by sensitivity and tuning (millions of runs).

    Returns:
        (matrix, number of failed runs).
    """
    specs = _as_method_specs(method_specs)
    series_list = list(series_list)
    out = np.full((len(specs), len(series_list)), np.nan)
    failed = [0]

    def sink(si: int, ri: int, res: dict[str, Any]) -> None:
        if res.get("error"):
            failed[0] += 1
        else:
            v = res["steady_index"]
            out[si, ri] = -1.0 if v is None else float(v)

    _execute(series_list, specs, sink, full=False, executor=executor, workers=workers,
             progress=progress, cache_dir=cache_dir, ctx=ctx)
    return out, failed[0]
