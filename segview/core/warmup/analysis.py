"""Warm-up analysis of whole benchmarks: a class per execution, a verdict per benchmark, steady-state
figures with their spread and uncertainty.

Per benchmark (``warmup/summary_statistics.py`` of softdevteam/warmup_stats ``41212e0``):

* **classification**: the executions' common class when all agree (*consistent*: ``flat``,
  ``warmup``, ``slowdown`` or ``no steady state``), ``good inconsistent`` when they are flat and
  warm-up only, else ``bad inconsistent``; ``consistency`` says which of the three; ``counts`` has
  every class. Crashed (empty) or unanalysable executions are left out with a named warning.
* **steady_iteration** and **time_to_steady** (seconds): median, inter-quartile range (25-75 %),
  warmup_stats' own "IQR" (it reports the 5th and 95th percentiles: ``p5_p95``) and the list,
  over the executions that reach a steady state.
* **steady_performance** (values' unit): median and IQR of the executions' steady means; a
  confidence interval from Kalibera & Jones' two-level bootstrap (:func:`.hierarchical_bootstrap`,
  executions then iterations, seeded); and warmup_stats' own bootstrap (``warmup_stats``: median
  and half-width, seeded, :func:`.warmup_stats_bootstrap`).
* As in warmup_stats, a benchmark with any execution of class ``no steady state`` gets no steady
  iteration, time or performance (None, and ``steady_reason`` says why).

Indices are 0-based in the **measured** iterations (:func:`segview.core.benchmark.measured`: the
harness's own warm-up iterations dropped). NaN iterations are left out of the analysis (named
warning) and indices map back to the execution as loaded. Units: time units (``s``, ``ms``,
``us``, ``ns``, also ``ms/op``...) are converted to seconds for the classification, as warmup_stats
expects (``delta`` is in seconds); means are reported in the benchmark's unit. A rate (``ops/s``,
direction ``higher``) is classified as it is (``delta`` in its unit) and has no time to steady
state; an unknown unit is taken as seconds (named warning).
"""
from __future__ import annotations

from functools import partial
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..benchmark import HIGHER, LOWER, Benchmark, group, measured
from ..errors import InputError, SegviewError
from ..model import Series
from .barrett import barrett
from .bootstrap import (CONFIDENCE, SEED, BootstrapCI, hierarchical_bootstrap,
                        warmup_stats_bootstrap)
from .classify import CLASSES, DELTA, FLAT, NO_STEADY_STATE, STEADY_RATIO, WARMUP, \
    ExecutionClass, classify_result
from .outliers import WINDOW_RATIO
from .segments import PENALTY_FACTOR

CONSISTENT, GOOD_INCONSISTENT, BAD_INCONSISTENT = "consistent", "good inconsistent", \
    "bad inconsistent"
METHODS = ("barrett", "kbkssd", "cpssd")

_SECONDS = {"s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0, "ms": 1e-3, "milliseconds": 1e-3,
            "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "microseconds": 1e-6, "ns": 1e-9,
            "nanoseconds": 1e-9}


def seconds_per_unit(unit: str | None) -> float | None:
    """Seconds in one ``unit`` for a time per iteration or operation (``ns``, ``ms/op``, ``s``);
    None for anything else (a rate, a count, an empty unit)."""
    if not unit:
        return None
    u = unit.strip().lower()
    num, _, den = u.partition("/")
    if den and den.strip() not in ("op", "ops", "operation", "iter", "iteration", "call", "run"):
        return None
    return _SECONDS.get(num.strip())


@dataclass(frozen=True)
class Spread:
    """Median and spread of a figure across executions."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return float(np.median(self.values))

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.values, q))

    def to_dict(self) -> dict[str, Any]:
        return {"median": self.median, "iqr": [self.percentile(25), self.percentile(75)],
                "p5_p95": [self.percentile(5), self.percentile(95)], "values": list(self.values)}


@dataclass(frozen=True)
class ExecutionWarmup:
    """One execution of a benchmark, analysed.

    Attributes:
        index: the execution's index within its benchmark.
        series_id: the Series it came from.
        n: its measured iterations (NaN ones included).
        classification: one of :data:`~segview.core.warmup.CLASSES`, or None when it could not be
            analysed (``error`` says why).
        changepoints: warmup_stats' change points: 0-based last iteration of every segment but the
            last.
        segment_starts: 0-based first iteration of every segment (segview's change points are
            ``segment_starts[1:]``).
        outliers: iterations left out as outliers.
        nan_iterations: iterations left out because they are NaN.
        segment_means, segment_variances: per segment (benchmark unit; variance in unit squared).
        steady_iteration: first iteration of the steady state (0 when flat), None if none.
        time_to_steady: seconds spent before it (sum of the iterations before), None if none or
            when the unit is not a time.
        steady_mean: mean of the steady segments' means (benchmark unit), None if none.
        steady_values: the steady iterations without outliers (benchmark unit; the bootstrap's input).
        warmup_dropped: harness warm-up iterations dropped before the analysis.
        execution_class: the full per-execution decision (None when not analysed).
        notes: remarks; error: why it was not analysed.
    """

    index: int
    series_id: str
    n: int
    classification: str | None
    changepoints: tuple[int, ...] = ()
    segment_starts: tuple[int, ...] = ()
    outliers: tuple[int, ...] = ()
    nan_iterations: tuple[int, ...] = ()
    segment_means: tuple[float, ...] = ()
    segment_variances: tuple[float, ...] = ()
    steady_iteration: int | None = None
    time_to_steady: float | None = None
    steady_mean: float | None = None
    steady_values: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0), repr=False)
    warmup_dropped: int = 0
    execution_class: ExecutionClass | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """warmup_stats' per-execution JSON keys (``index``, ``classification``, ``changepoints``,
        ``outliers``, ``segment_means``) plus segview's."""
        return {"index": self.index, "classification": self.classification,
                "changepoints": list(self.changepoints), "outliers": list(self.outliers),
                "segment_means": [_num(v) for v in self.segment_means],
                "segment_starts": list(self.segment_starts),
                "segment_variances": [_num(v) for v in self.segment_variances],
                "steady_iteration": self.steady_iteration,
                "time_to_steady": _num(self.time_to_steady),
                "steady_mean": _num(self.steady_mean), "n": self.n,
                "nan_iterations": list(self.nan_iterations),
                "warmup_dropped": self.warmup_dropped, "series_id": self.series_id,
                "notes": list(self.notes), "error": self.error,
                "steady_values": [float(v) for v in self.steady_values]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "execution") -> ExecutionWarmup:
        """The execution of :meth:`to_dict`'s form (``execution_class`` is not restored). A
        document written before ``steady_values`` existed (format 1) gives none.

        Raises:
            ValueError, TypeError, KeyError: a field of the wrong type or missing (the caller
                names the file).
        """
        def floats(key: str) -> tuple[float, ...]:
            return tuple(float("nan") if v is None else float(v) for v in d.get(key) or ())

        def opt(key: str) -> float | None:
            v = d.get(key)
            return None if v is None else float(v)

        cls_ = d["classification"]
        if cls_ is not None and cls_ not in CLASSES:
            raise ValueError(f"{where}: unknown classification {cls_!r}")
        steady = d.get("steady_iteration")
        return cls(index=int(d["index"]), series_id=str(d.get("series_id") or ""),
                   n=int(d.get("n") or 0), classification=cls_,
                   changepoints=tuple(int(v) for v in d.get("changepoints") or ()),
                   segment_starts=tuple(int(v) for v in d.get("segment_starts") or ()),
                   outliers=tuple(int(v) for v in d.get("outliers") or ()),
                   nan_iterations=tuple(int(v) for v in d.get("nan_iterations") or ()),
                   segment_means=floats("segment_means"),
                   segment_variances=floats("segment_variances"),
                   steady_iteration=None if steady is None else int(steady),
                   time_to_steady=opt("time_to_steady"), steady_mean=opt("steady_mean"),
                   steady_values=np.asarray([float(v) for v in d.get("steady_values") or ()],
                                            dtype=np.float64),
                   warmup_dropped=int(d.get("warmup_dropped") or 0),
                   notes=tuple(str(v) for v in d.get("notes") or ()),
                   error=None if d.get("error") is None else str(d["error"]))


def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


@dataclass(frozen=True)
class BenchmarkWarmup:
    """A benchmark's warm-up analysis (see the module doc); :meth:`to_dict` is its JSON form."""

    name: str
    method: str
    unit: str
    direction: str
    executions: tuple[ExecutionWarmup, ...]
    classification: str | None
    consistency: str | None
    counts: Mapping[str, int]
    steady_iteration: Spread | None
    time_to_steady: Spread | None
    steady_means: Spread | None
    steady_ci: BootstrapCI | None
    warmup_stats_perf: tuple[float, float] | None
    steady_reason: str | None
    params: Mapping[str, Any]
    warnings: tuple[str, ...] = ()

    @property
    def analysed(self) -> tuple[ExecutionWarmup, ...]:
        return tuple(e for e in self.executions if e.classification is not None)

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "classification", "steady_iteration", "steady_performance", "executions":
        [...]}`` as issue 27 asks, plus ``consistency``, ``counts``, ``time_to_steady``, ``unit``,
        ``direction``, ``method``, ``params`` and ``warnings``."""
        perf: dict[str, Any] | None = None
        if self.steady_means is not None:
            perf = self.steady_means.to_dict()
            if self.steady_ci is not None:
                perf["ci"] = [self.steady_ci.low, self.steady_ci.high]
                perf["mean"] = self.steady_ci.estimate
                perf["confidence"] = self.steady_ci.confidence
                perf["bootstrap"] = self.steady_ci.to_dict()
            if self.warmup_stats_perf is not None:
                perf["warmup_stats"] = {"median": self.warmup_stats_perf[0],
                                        "ci": self.warmup_stats_perf[1]}
        return {
            "name": self.name, "classification": self.classification,
            "consistency": self.consistency, "counts": dict(self.counts),
            "steady_iteration": None if self.steady_iteration is None
            else self.steady_iteration.to_dict(),
            "time_to_steady": None if self.time_to_steady is None
            else self.time_to_steady.to_dict(),
            "steady_performance": perf, "steady_reason": self.steady_reason,
            "unit": self.unit, "direction": self.direction, "method": self.method,
            "params": dict(self.params), "warnings": list(self.warnings),
            "executions": [e.to_dict() for e in self.executions],
        }


    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "benchmark") -> BenchmarkWarmup:
        """The analysis of :meth:`to_dict`'s form, as far as the JSON holds it (the executions'
        ``execution_class`` is not restored; neither is ``steady_ci``'s seed when absent).

        Raises:
            ValueError, TypeError, KeyError: a field of the wrong type or missing.
        """
        def spread(v: Any) -> Spread | None:
            return None if v is None else Spread(tuple(float(x) for x in v["values"]))

        name = str(d["name"])
        execs = tuple(ExecutionWarmup.from_dict(e, f"{where} {name!r} execution {k}")
                      for k, e in enumerate(d["executions"]))
        perf = d.get("steady_performance")
        ci = None
        ws = None
        if perf is not None:
            boot = perf.get("bootstrap")
            if boot is not None:
                ci = BootstrapCI(float(boot["estimate"]), float(boot["low"]), float(boot["high"]),
                                 float(boot["confidence"]), int(boot["resamples"]),
                                 int(boot["seed"]), str(boot.get("iteration_level", "exact")))
            w = perf.get("warmup_stats")
            if w is not None:
                ws = (float(w["median"]), float(w["ci"]))
        direction = str(d.get("direction") or LOWER)
        if direction not in (LOWER, HIGHER):
            raise ValueError(f"{where} {name!r}: direction {direction!r} is not "
                             f"{LOWER!r} or {HIGHER!r}")
        return cls(name=name, method=str(d.get("method") or ""), unit=str(d.get("unit") or ""),
                   direction=direction, executions=execs,
                   classification=d.get("classification"), consistency=d.get("consistency"),
                   counts={str(k): int(v) for k, v in (d.get("counts") or {}).items()},
                   steady_iteration=spread(d.get("steady_iteration")),
                   time_to_steady=spread(d.get("time_to_steady")),
                   steady_means=spread(perf), steady_ci=ci, warmup_stats_perf=ws,
                   steady_reason=d.get("steady_reason"), params=dict(d.get("params") or {}),
                   warnings=tuple(str(w) for w in d.get("warnings") or ()))


def benchmark_verdict(classes: Sequence[str]) -> tuple[str | None, str | None]:
    """``(classification, consistency)`` of a benchmark from its executions' classes, by
    ``summary_statistics.py``'s rule; ``(None, None)`` for no class at all."""
    kinds = set(classes)
    if not kinds:
        return None, None
    if len(kinds) == 1:
        return classes[0], CONSISTENT
    if kinds == {FLAT, WARMUP}:
        return GOOD_INCONSISTENT, GOOD_INCONSISTENT
    return BAD_INCONSISTENT, BAD_INCONSISTENT


_CLASSIFY_KEYS = ("delta", "delta_mode", "steady_ratio", "steady_iterations", "spread")
_BARRETT_KEYS = ("window", "window_ratio", "penalty_factor", "exact", "mark")


def _classify_one(values: NDArray[np.float64], method: str, direction: str,
                  classify_opts: dict[str, Any], barrett_opts: dict[str, Any],
                  detector_params: Mapping[str, Any]) -> ExecutionClass:
    if method == "barrett":
        return barrett(values, direction=direction, **classify_opts, **barrett_opts)
    from ..api import detect
    result = detect(values, method, **detector_params)
    return classify_result(values, result, direction=direction, **classify_opts)


def analyse_execution(series: Series, method: str = "barrett", *, scale: float | None = 1.0,
                      direction: str = LOWER, harness_warmup: str = "drop",
                      detector_params: Mapping[str, Any] | None = None,
                      **params: Any) -> ExecutionWarmup:
    """Analyse one execution (see :func:`analyse_benchmark` for the parameters; ``scale``: seconds
    per unit of the values, None when they are not times). Never raises for bad data: an
    execution that cannot be analysed comes back with ``classification=None`` and ``error``."""
    from ..benchmark import execution_index
    idx = execution_index(series)
    classify_opts = {k: params[k] for k in _CLASSIFY_KEYS if k in params}
    barrett_opts = {k: params[k] for k in _BARRETT_KEYS if k in params}
    if np.asarray(series.values).size == 0:
        return ExecutionWarmup(idx, series.id, 0, None, error="crashed: no iteration")
    try:
        s = measured(series) if harness_warmup == "drop" else series
    except InputError as err:
        return ExecutionWarmup(idx, series.id, 0, None, error=str(err))
    dropped = int(s.metadata.get("warmup_dropped", 0) or 0)
    y = np.asarray(s.values, dtype=np.float64)
    if y.ndim != 1:
        return ExecutionWarmup(idx, s.id, 0, None, error="multivariate series: one dimension only")
    n = y.size
    if n == 0:
        return ExecutionWarmup(idx, s.id, 0, None, warmup_dropped=dropped,
                               error="crashed: no iteration")
    finite = np.isfinite(y)
    kept = np.flatnonzero(finite)
    nan_idx = tuple(int(i) for i in np.flatnonzero(~finite))
    notes = []
    if nan_idx:
        notes.append(f"{len(nan_idx)} non-finite iterations left out")
    if kept.size == 0:
        return ExecutionWarmup(idx, s.id, n, None, nan_iterations=nan_idx, warmup_dropped=dropped,
                               error="no finite iteration")
    yk = y[kept]
    sc = 1.0 if scale is None else float(scale)
    try:
        ec = _classify_one(yk * sc if sc != 1.0 else yk, method, direction, classify_opts,
                           barrett_opts, detector_params or {})
    except SegviewError as err:
        return ExecutionWarmup(idx, s.id, n, None, nan_iterations=nan_idx, warmup_dropped=dropped,
                               notes=tuple(notes), error=f"{type(err).__name__}: {err}")
    seg = ec.segmentation
    ends = kept[seg.ends]
    starts = kept[seg.starts]
    starts[0] = 0
    steady_it = None if ec.steady_iteration is None else (
        0 if ec.steady_iteration == 0 else int(kept[ec.steady_iteration]))
    tts = None
    if steady_it is not None and scale is not None:
        before = y[:steady_it]
        tts = math.fsum(before[np.isfinite(before)].tolist()) * sc
    return ExecutionWarmup(
        index=idx, series_id=s.id, n=n, classification=ec.classification,
        changepoints=tuple(int(e) for e in ends[:-1]),
        segment_starts=tuple(int(v) for v in starts),
        outliers=tuple(int(v) for v in kept[seg.outliers]), nan_iterations=nan_idx,
        segment_means=tuple(float(v) / sc for v in seg.means),
        segment_variances=tuple(float(v) / (sc * sc) for v in seg.variances),
        steady_iteration=steady_it, time_to_steady=tts,
        steady_mean=None if ec.steady_mean is None else ec.steady_mean / sc,
        steady_values=yk[ec.steady_indices], warmup_dropped=dropped, execution_class=ec,
        notes=tuple(notes) + ec.notes)


def analyse_benchmark(benchmark: Benchmark, method: str = "barrett", *,
                      delta: float = DELTA, delta_mode: str = "absolute",
                      steady_ratio: float = STEADY_RATIO, steady_iterations: int | None = None,
                      spread: str = "variance", window_ratio: float = WINDOW_RATIO,
                      penalty_factor: float = PENALTY_FACTOR, exact: bool = False,
                      harness_warmup: str = "drop", resamples: int = 10000,
                      ws_resamples: int | None = 10000, confidence: float = 0.99,
                      seed: int = SEED, iteration_level: str = "auto", threads: int = 1,
                      detector_params: Mapping[str, Any] | None = None) -> BenchmarkWarmup:
    """Barrett et al.'s analysis of one benchmark (see the module doc).

    Args:
        benchmark: the benchmark and its executions.
        method: ``"barrett"`` (warmup_stats' own pipeline) or a registered detector whose result is
            then classified by the same rules (``"kbkssd"``, ``"cpssd"``, ...; its
            ``detector_params`` are passed on).
        delta, delta_mode, steady_ratio, steady_iterations, spread: the classification's (see
            :func:`~segview.core.warmup.classify_segmentation`; ``delta`` in seconds for times).
        window_ratio, penalty_factor, exact: ``barrett``'s outlier window, penalty factor, and
            exact change points instead of R's PELT.
        harness_warmup: ``"drop"`` (default: analyse the measured iterations) or ``"keep"``.
        resamples: Kalibera & Jones bootstrap resamples (0: no CI).
        iteration_level: how that bootstrap resamples iterations: ``"exact"``, ``"normal"``
            (large-sample limit) or ``"auto"`` (see :func:`.hierarchical_bootstrap`).
        ws_resamples: warmup_stats' bootstrap resamples (its ``LOW`` quality is 10,000, ``HIGH``
            100,000; None or 0: skip it).
        confidence: coverage of the Kalibera & Jones interval (warmup_stats uses 0.99).
        seed: seed of both bootstraps.
        threads: executions analysed in this many threads (the kernels release the GIL): less
            wall time, the same results, no less CPU time.

    Returns:
        A :class:`BenchmarkWarmup`; bad executions are named in ``warnings`` and the rest analysed.

    Raises:
        InputError: an unknown ``method`` name is given as a named error by the registry
            (UnknownMethodError), a bad ``harness_warmup``.
    """
    if harness_warmup not in ("drop", "keep"):
        raise InputError("harness_warmup", f"must be 'drop' or 'keep', got {harness_warmup!r}")
    if method != "barrett":
        from .. import registry
        registry.get(method)   # UnknownMethodError now, not once per execution
    direction = benchmark.direction if benchmark.direction in (LOWER, HIGHER) else LOWER
    warnings = list(benchmark.warnings)
    scale: float | None = seconds_per_unit(benchmark.unit)
    if direction == HIGHER:
        scale = None
        warnings.append(f"benchmark {benchmark.name!r}: higher is better ({benchmark.unit or 'no'} "
                        "unit): delta is in the values' unit and there is no time to steady state")
    elif scale is None:
        scale = 1.0
        warnings.append(f"benchmark {benchmark.name!r}: unit {benchmark.unit!r} is not a known time "
                        "unit; values taken as seconds (warmup_stats' assumption)")
    if benchmark.direction is None:
        warnings.append(f"benchmark {benchmark.name!r}: direction unknown; lower taken as better")
    params: dict[str, Any] = dict(delta=delta, delta_mode=delta_mode, steady_ratio=steady_ratio,
                                  steady_iterations=steady_iterations, spread=spread)
    if method == "barrett":
        params.update(window_ratio=window_ratio, penalty_factor=penalty_factor, exact=exact)
    def one(s: Series) -> ExecutionWarmup:
        return analyse_execution(s, method, scale=scale, direction=direction,
                                 harness_warmup=harness_warmup, detector_params=detector_params,
                                 **params)

    members = list(benchmark.executions)
    k = max(1, min(int(threads), len(members)))
    if k == 1:
        execs = tuple(one(s) for s in members)
    else:
        from ..detectors._threads import run_in_threads
        cuts = [len(members) * i // k for i in range(k + 1)]
        def some(a: int, b: int) -> list[ExecutionWarmup]:
            return [one(s) for s in members[a:b]]

        parts = run_in_threads([partial(some, a, b) for a, b in zip(cuts[:-1], cuts[1:])])
        execs = tuple(e for part in parts for e in part)
    for e in execs:
        if e.error:
            warnings.append(f"benchmark {benchmark.name!r} execution {e.index}: not analysed "
                            f"({e.error})")
        elif e.nan_iterations:
            warnings.append(f"benchmark {benchmark.name!r} execution {e.index}: "
                            f"{len(e.nan_iterations)} NaN iterations left out")
    done = [e for e in execs if e.classification is not None]
    lengths = sorted({e.n for e in done})
    if len(lengths) > 1:
        warnings.append(f"benchmark {benchmark.name!r}: executions of different lengths "
                        f"({lengths[0]}..{lengths[-1]} iterations); each is judged on its own "
                        "length")
    if len(done) == 1:
        warnings.append(f"benchmark {benchmark.name!r}: one execution only: consistency cannot "
                        "be judged and the interval has no between-execution variation")
    classes = [e.classification for e in done if e.classification is not None]
    cls, consistency = benchmark_verdict(classes)
    counts = {c: classes.count(c) for c in CLASSES}
    steady_iter = tts = means = None
    ci = None
    wsp = None
    reason = None
    if not done:
        reason = "no execution could be analysed"
    elif counts[NO_STEADY_STATE]:
        reason = (f"{counts[NO_STEADY_STATE]} execution(s) without a steady state (warmup_stats "
                  "then reports no steady figures)")
    else:
        steady_iter = Spread(tuple(float(e.steady_iteration) for e in done
                                   if e.steady_iteration is not None))
        if scale is not None:
            tts = Spread(tuple(float(e.time_to_steady) for e in done
                               if e.time_to_steady is not None))
        means = Spread(tuple(float(e.steady_mean) for e in done if e.steady_mean is not None))
        groups = [e.steady_values for e in done]
        if resamples and all(g.size for g in groups):
            ci = hierarchical_bootstrap(groups, resamples=resamples, confidence=confidence,
                                        seed=seed, iteration_level=iteration_level)
        if ws_resamples:
            segs = [[e.steady_values] for e in done]
            wsp = warmup_stats_bootstrap(segs, resamples=ws_resamples, confidence=CONFIDENCE,
                                         seed=seed)
    params.update(method=method, harness_warmup=harness_warmup, resamples=resamples,
                  threads=threads, ws_resamples=ws_resamples, confidence=confidence, seed=seed,
                  iteration_level=iteration_level)
    if detector_params:
        params["detector_params"] = dict(detector_params)
    return BenchmarkWarmup(benchmark.name, method, benchmark.unit, direction, execs, cls,
                           consistency, counts, steady_iter, tts, means, ci, wsp, reason, params,
                           tuple(warnings))


def analyse(data: Any, method: str = "barrett", **params: Any) -> list[BenchmarkWarmup]:
    """:func:`analyse_benchmark` for every benchmark of ``data``: a Dataset (``.benchmarks()``),
    Benchmarks, or Series (grouped with :func:`segview.core.benchmark.group`)."""
    if hasattr(data, "benchmarks") and callable(data.benchmarks):
        benches = list(data.benchmarks())
    else:
        items = list(data) if isinstance(data, Iterable) else [data]
        if items and all(isinstance(b, Benchmark) for b in items):
            benches = items
        elif all(isinstance(s, Series) for s in items):
            benches = group(items)
        else:
            raise InputError("analyse", "expected a Dataset, Benchmarks or Series")
    return [analyse_benchmark(b, method, **params) for b in benches]


#: ``format`` of :func:`to_json`'s document; ``format_version`` 2 added the executions'
#: ``steady_values`` (what ``segview compare`` resamples). Version 1 had neither key.
JSON_FORMAT, JSON_FORMAT_VERSION = "segview warmup", 2


def to_json(results: Sequence[BenchmarkWarmup]) -> dict[str, Any]:
    """``{"benchmarks": [...]}``: the JSON document of issue 27 for several benchmarks (with
    ``format`` and ``format_version``; :func:`from_json` reads it back)."""
    return {"format": JSON_FORMAT, "format_version": JSON_FORMAT_VERSION,
            "benchmarks": [r.to_dict() for r in results]}


def is_warmup_json(doc: Any) -> bool:
    """Whether ``doc`` (parsed JSON) is :func:`to_json`'s document, of any version: a
    ``format`` of ours, or (version 1) ``benchmarks`` whose entries all have ``executions`` and
    ``classification`` (pyperf's ``benchmarks`` have ``runs``)."""
    if not isinstance(doc, dict):
        return False
    if doc.get("format") == JSON_FORMAT:
        return True
    b = doc.get("benchmarks")
    return (isinstance(b, list) and bool(b) and all(
        isinstance(x, dict) and "executions" in x and "classification" in x for x in b))


def from_json(doc: Any, source: str = "JSON") -> list[BenchmarkWarmup]:
    """The analyses of a :func:`to_json` document (``segview warmup --json``), any version.

    Raises:
        DataFormatError: not such a document, a newer format version, or a field missing or of
            the wrong type (named with ``source`` and the benchmark).
    """
    from ..errors import DataFormatError

    if not is_warmup_json(doc):
        raise DataFormatError(source, "not a 'segview warmup --json' document")
    version = doc.get("format_version", 1)
    if not isinstance(version, int) or version > JSON_FORMAT_VERSION:
        raise DataFormatError(source, f"format_version {version!r} is newer than this segview "
                                      f"reads ({JSON_FORMAT_VERSION})")
    out = []
    for k, b in enumerate(doc["benchmarks"]):
        where = f"benchmarks[{k}]"
        try:
            out.append(BenchmarkWarmup.from_dict(b, where))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            what = f"missing field {err}" if isinstance(err, KeyError) else str(err)
            raise DataFormatError(source, what, where) from None
    return out
