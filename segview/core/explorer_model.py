"""The explorer's state, without Qt: one owner for what the explorer window shows.

napari splits its viewer into a ``ViewerModel`` (layers, dims, events; no Qt) and a ``QtViewer``
that renders it. The explorer does the same: :class:`ExplorerModel` owns

- the **dataset** (its series, labels, annotators' change points) and its **generation**, a
  counter that every new dataset increments;
- the **current** series or benchmark;
- the **enabled** methods and their **parameters**;
- the **results**, each stored with the :class:`JobToken` that made it (dataset generation,
  series, method, parameters): a result counts only while its token still matches;
- the **evaluation overlay** (truth and predicted onsets), tied to the generation it was made on;
- the **jobs in flight** (one token per lane ``(series id, method)``) and the "run on all series"
  batch;
- the **warm-up analyses** of the Warm-up panel, keyed by :data:`WarmupKey` (benchmark, rule,
  delta, delta mode) and stored with the :class:`WarmupToken` (dataset generation and key) that
  asked for them, the key the panel is about and the analysis in flight.

Changing the dataset, the series, a method's parameters or its tick forgets the tokens that no
longer apply and reports them through :attr:`ExplorerModel.jobs_cancelled`, so the view cancels
the work; an answer that comes back anyway is dropped because no live token matches it
(:meth:`ExplorerModel.finish_job`). Two datasets with the same series ids therefore never mix:
their generations differ. The same holds for the warm-up analyses: a benchmark of the same name in
the next dataset has the same key, but its token's generation differs.

The views (plots, lanes, tables, panels in ``segview.gui``) render this model and send intents;
they subscribe to its events, plain callbacks (:class:`Event`), never Qt signals.

Glossary of the method names the explorer lists: KB-KSSD (kernel-based key steady-state
detection), CP-SSD (change-point steady-state detection), nRSS (normalised residual sum of
squares), PMNF (performance model normal form), JAGT (the judges' agreed ground truth onset),
MDL (minimum description length), FPOP (functional pruning optimal partitioning).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import Series
from .params import Params

Lane = tuple[str, str]  # (series id, method name)
WarmupKey = tuple[str, str, float, str]  # (benchmark name, rule, delta, delta mode)


class Event:
    """A list of plain callbacks; ``emit`` calls each in the order they connected."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., Any]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for cb in list(self._callbacks):
            cb(*args)


@dataclass(frozen=True)
class JobToken:
    """What a job was asked to compute: the key its result is stored (or dropped) by."""

    generation: int  # the dataset's generation when the job was asked for
    series_id: str
    method: str
    params: Params

    @property
    def lane(self) -> Lane:
        return (self.series_id, self.method)


@dataclass(frozen=True)
class WarmupToken:
    """A warm-up analysis asked for: its key on the dataset of ``generation``."""

    generation: int
    key: WarmupKey


@dataclass(frozen=True)
class EvaluationOverlay:
    """An evaluation's truth and predicted onsets, for the dataset of ``generation`` only."""

    generation: int
    truth: Mapping[str, Any]  # series id -> TruthRow
    predictions: Mapping[str, Mapping[str, int | None]]  # method -> series id -> onset
    colors: Mapping[str, str] = field(default_factory=dict)


class _Results(Mapping[Lane, Any]):
    """Read-only view of the stored results, by lane (``results[(sid, method)]``)."""

    def __init__(self, data: dict[Lane, tuple[JobToken, Any]]) -> None:
        self._data = data

    def __getitem__(self, lane: Lane) -> Any:
        return self._data[lane][1]

    def __iter__(self) -> Iterator[Lane]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class _Warmups(Mapping[WarmupKey, Any]):
    """Read-only view of the stored warm-up analyses, by key."""

    def __init__(self, data: dict[WarmupKey, tuple[WarmupToken, Any]]) -> None:
        self._data = data

    def __getitem__(self, key: WarmupKey) -> Any:
        return self._data[key][1]

    def __iter__(self) -> Iterator[WarmupKey]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class ExplorerModel:
    """The explorer's state and its rules (see the module docstring).

    Events (callbacks' arguments in brackets): ``dataset_changed()``, ``series_changed(sid |
    None)``, ``benchmark_changed(benchmark | None)``, ``params_changed(method)``,
    ``enabled_changed(method, on)``, ``result_added(token, result)``, ``status_changed(method)``,
    ``jobs_cancelled(list[JobToken])``, ``overlay_changed()``, ``warmup_added(key, result)``,
    ``warmup_cancelled(WarmupToken)``.
    """

    RUNNING = "running\u2026"
    MAX_WARMUPS = 64  # warm-up analyses kept; the oldest go first

    def __init__(self, params: Mapping[str, Params] | None = None,
                 enabled: Iterable[str] = ()) -> None:
        self.generation = 0
        self.series: list[Series] = []
        self.by_id: dict[str, Series] = {}
        self.labels: dict[str, Any] = {}
        self.annotations: dict[str, dict[str, list[int]]] = {}
        self.current: Series | None = None
        self.current_benchmark: Any = None
        self.params: dict[str, Params] = dict(params or {})
        self.enabled: set[str] = set(enabled)
        self.status: dict[str, str] = {}
        self._results: dict[Lane, tuple[JobToken, Any]] = {}
        self.results: Mapping[Lane, Any] = _Results(self._results)
        self.jobs: dict[Lane, JobToken] = {}
        self.batch: int | None = None  # the generation a running batch belongs to
        self.overlay: EvaluationOverlay | None = None
        self.warmup_key: WarmupKey | None = None  # what the Warm-up panel is about
        self.warmup_job: WarmupToken | None = None  # its analysis in flight
        self._warmups: dict[WarmupKey, tuple[WarmupToken, Any]] = {}  # oldest first
        self.warmup_results: Mapping[WarmupKey, Any] = _Warmups(self._warmups)
        self.dataset_changed = Event()
        self.series_changed = Event()
        self.benchmark_changed = Event()
        self.params_changed = Event()
        self.enabled_changed = Event()
        self.result_added = Event()
        self.status_changed = Event()
        self.jobs_cancelled = Event()
        self.overlay_changed = Event()
        self.warmup_added = Event()
        self.warmup_cancelled = Event()

    # ------------------------------------------------------------------ dataset and selection
    def set_dataset(self, series: Iterable[Series], labels: Mapping[str, Any] | None = None,
                    annotations: Mapping[str, dict[str, list[int]]] | None = None) -> None:
        """A new dataset: a new generation; every job, result, status, overlay and warm-up
        analysis of the old one is forgotten (the jobs reported through ``jobs_cancelled``, the
        warm-up analysis in flight through ``warmup_cancelled``)."""
        self.generation += 1
        self._warmups.clear()
        self.select_warmup(None)
        dropped = list(self.jobs.values())
        self.jobs.clear()
        self.batch = None
        self._results.clear()
        self.series = list(series)
        self.by_id = {s.id: s for s in self.series}
        self.labels = dict(labels or {})
        self.annotations = dict(annotations or {})
        self.current = None
        self.current_benchmark = None
        had_overlay, self.overlay = self.overlay is not None, None
        self.status = {}
        if dropped:
            self.jobs_cancelled.emit(dropped)
        if had_overlay:
            self.overlay_changed.emit()
        self.dataset_changed.emit()

    def select_series(self, series_id: str | None) -> bool:
        """Make ``series_id`` current (None: none); jobs on other series are dropped. False when
        it already was current."""
        s = None if series_id is None else self.by_id[series_id]
        if s is self.current and self.current_benchmark is None:
            return False
        self.current, self.current_benchmark = s, None
        self._drop_jobs(lambda t: s is None or t.series_id != s.id)
        self.status = {}
        self.series_changed.emit(None if s is None else s.id)
        return True

    def select_benchmark(self, benchmark: Any) -> bool:
        """Show a benchmark (its executions); jobs on series outside it are dropped."""
        if benchmark is not None and self.current_benchmark is not None \
                and self.current_benchmark.name == benchmark.name:
            return False
        self.current, self.current_benchmark = None, benchmark
        keep = set() if benchmark is None else {s.id for s in benchmark.executions}
        self._drop_jobs(lambda t: t.series_id not in keep)
        self.status = {}
        self.benchmark_changed.emit(benchmark)
        return True

    # ------------------------------------------------------------------ methods and parameters
    def set_params(self, method: str, params: Params) -> bool:
        """New parameters for ``method``: its jobs with other parameters are dropped and its
        results no longer count (:meth:`result` compares the parameters). False if unchanged."""
        if self.params.get(method) == params:
            return False
        self.params[method] = params
        self._drop_jobs(lambda t: t.method == method and t.params != params)
        self.set_status(method, "")
        self.params_changed.emit(method)
        return True

    def set_enabled(self, method: str, on: bool) -> bool:
        """Tick or untick ``method``; unticked, its jobs are dropped and its status cleared."""
        if on == (method in self.enabled):
            return False
        if on:
            self.enabled.add(method)
        else:
            self.enabled.discard(method)
            self._drop_jobs(lambda t: t.method == method)
            self.set_status(method, "")
        self.enabled_changed.emit(method, on)
        return True

    def set_status(self, method: str, text: str) -> None:
        if self.status.get(method, "") != text:
            self.status[method] = text
            self.status_changed.emit(method)

    def status_of(self, method: str) -> str:
        """The method list's text: nothing for an unticked method."""
        return self.status.get(method, "") if method in self.enabled else ""

    # ------------------------------------------------------------------ jobs and results
    def begin_job(self, series_id: str, method: str) -> JobToken:
        """Record a job on ``(series_id, method)`` with the method's current parameters (it
        replaces the lane's previous job, whose answer will then be dropped)."""
        token = JobToken(self.generation, series_id, method, self.params[method])
        self.jobs[token.lane] = token
        return token

    def in_flight(self, series_id: str, method: str) -> bool:
        token = self.jobs.get((series_id, method))
        return token is not None and self._live(token)

    def job_started(self, series_id: str, method: str) -> bool:
        """A job began to run: the method shows "running…" when the job is live and on the
        series shown. True when the status changed."""
        token = self.jobs.get((series_id, method))
        if token is None or not self._live(token) or method not in self.enabled:
            return False
        if self.current is None or self.current.id != series_id:
            return False
        self.set_status(method, self.RUNNING)
        return True

    def finish_job(self, series_id: str, method: str, result: Any) -> JobToken | None:
        """A job's answer: stored and returned with its token when a live token of the lane
        matches it (same parameters, this dataset); otherwise dropped (None)."""
        token = self.jobs.get((series_id, method))
        if token is None or not self._live(token) or result.params != token.params:
            return None
        del self.jobs[token.lane]
        self._results[token.lane] = (token, result)
        self.result_added.emit(token, result)
        return token

    def fail_job(self, series_id: str, method: str) -> JobToken | None:
        """A job failed: its token when it was live (the failure is about the data shown)."""
        token = self.jobs.pop((series_id, method), None)
        return token if token is not None and self._live(token) else None

    def begin_batch(self) -> None:
        self.batch = self.generation

    def end_batch(self) -> None:
        self.batch = None

    def batch_result(self, series_id: str, method: str, params: Params, result: Any) -> bool:
        """A "run on all series" item: kept when the batch belongs to this dataset."""
        if self.batch != self.generation or series_id not in self.by_id:
            return False
        token = JobToken(self.generation, series_id, method, params)
        self._results[token.lane] = (token, result)
        self.result_added.emit(token, result)
        return True

    def result(self, series_id: str, method: str) -> Any:
        """The stored result of the lane if it was made with the current parameters on this
        dataset, else None."""
        entry = self._results.get((series_id, method))
        if entry is None:
            return None
        token, result = entry
        if token.generation != self.generation or token.params != self.params.get(method):
            return None
        return result

    def forget_results(self) -> None:
        """Drop every stored result (the next request computes again)."""
        self._results.clear()

    def cancel_jobs(self) -> list[JobToken]:
        """Forget every job (Esc): returns them; a method shown as running becomes
        "cancelled"."""
        dropped = list(self.jobs.values())
        self.jobs.clear()
        self.batch = None
        for name in list(self.status):
            if self.status[name] == self.RUNNING:
                self.set_status(name, "cancelled")
        if dropped:
            self.jobs_cancelled.emit(dropped)
        return dropped

    def _live(self, token: JobToken) -> bool:
        return token.generation == self.generation and token.params == self.params.get(token.method)

    def _drop_jobs(self, hit: Callable[[JobToken], bool]) -> list[JobToken]:
        dropped = [t for t in self.jobs.values() if hit(t)]
        for t in dropped:
            del self.jobs[t.lane]
            if self.status.get(t.method) == self.RUNNING:
                self.set_status(t.method, "")
        if dropped:
            self.jobs_cancelled.emit(dropped)
        return dropped

    # ------------------------------------------------------------------ evaluation overlay
    def set_overlay(self, truth: Mapping[str, Any], predictions: Mapping[str, Mapping[str, Any]],
                    colors: Mapping[str, str] | None = None) -> EvaluationOverlay:
        """An evaluation's truth and predictions, for this dataset (a new dataset drops it)."""
        self.overlay = EvaluationOverlay(self.generation, dict(truth),
                                         {m: dict(p) for m, p in predictions.items()},
                                         dict(colors or {}))
        self.overlay_changed.emit()
        return self.overlay

    def clear_overlay(self) -> None:
        if self.overlay is not None:
            self.overlay = None
            self.overlay_changed.emit()

    def overlay_for(self, series_id: str) -> EvaluationOverlay | None:
        """The overlay when it belongs to this dataset and has a truth for ``series_id``."""
        ov = self.overlay
        if ov is None or ov.generation != self.generation or series_id not in ov.truth:
            return None
        return ov

    # ------------------------------------------------------------------ warm-up analyses
    def select_warmup(self, key: WarmupKey | None) -> bool:
        """The Warm-up panel is now about ``key`` (None: nothing); an analysis in flight for
        another key is dropped (``warmup_cancelled``). False when the panel already was about
        ``key`` and has no stored analysis of it: it is under way (or failed), nothing to do."""
        if key is not None and key == self.warmup_key and self.warmup_result(key) is None:
            return False
        self.warmup_key = key
        job = self.warmup_job
        if job is not None and job.key != key:
            self.warmup_job = None
            self.warmup_cancelled.emit(job)
        return True

    def begin_warmup(self) -> WarmupToken:
        """Record an analysis of :attr:`warmup_key` on this dataset: the token to give the
        job, and to hand back with its answer (:meth:`finish_warmup`)."""
        if self.warmup_key is None:
            raise ValueError("no warm-up key selected (select_warmup first)")
        self.warmup_job = WarmupToken(self.generation, self.warmup_key)
        return self.warmup_job

    def warmup_result(self, key: WarmupKey) -> Any:
        """The stored analysis of ``key`` on this dataset, else None."""
        entry = self._warmups.get(key)
        if entry is None or entry[0].generation != self.generation:
            return None
        return entry[1]

    def finish_warmup(self, token: WarmupToken, result: Any) -> bool:
        """An analysis' answer: stored (the oldest beyond :attr:`MAX_WARMUPS` go) and
        reported through ``warmup_added`` when ``token`` was asked for on this dataset;
        otherwise dropped (False). The view shows it when its key is :attr:`warmup_key`."""
        if token.generation != self.generation:
            return False
        if self.warmup_job == token:
            self.warmup_job = None
        self._warmups.pop(token.key, None)
        self._warmups[token.key] = (token, result)
        while len(self._warmups) > self.MAX_WARMUPS:
            del self._warmups[next(iter(self._warmups))]
        self.warmup_added.emit(token.key, result)
        return True

    def fail_warmup(self, token: WarmupToken) -> bool:
        """An analysis failed: True when it was asked for on this dataset (the failure is
        about the data shown). Its key stays selected, so it is not asked again at once."""
        if token.generation != self.generation:
            return False
        if self.warmup_job == token:
            self.warmup_job = None
        return True
