"""Benchmarks: what a harness measured, kept together with its process executions.

A performance researcher studies *benchmarks*, not single series. A harness (JMH, pyperf, Google
Benchmark, hyperfine, Krun, ...) runs one benchmark in several **process executions** (JMH forks,
pyperf worker processes, hyperfine runs, Krun process executions) and records **iterations** in each;
some harnesses mark the first iterations of an execution as **warm-up** themselves.

segview keeps every execution an ordinary :class:`~segview.core.model.Series` (everything that works on
series keeps working), and records in its metadata which benchmark it belongs to. The keys are:

``benchmark``   the benchmark's name (with its parameters, e.g. ``Fib.run[n=20]``)
``execution``   0-based index of the process execution within the benchmark
``harness``     the harness that wrote the file (``jmh``, ``pyperf``, ``gbench``, ...)
``unit``        the unit of the values as the harness wrote it (``ns``, ``s``, ``ops/ms``...)
``direction``   ``"lower"`` when a lower value is better (time per operation, latency) or
                ``"higher"`` when a higher value is better (throughput); ``None`` when unknown
``warmup``      how many leading iterations the harness itself recorded as warm-up (0 if none)
``params``      the benchmark's parameters (a dict), when the harness has them

The harness's warm-up iterations are *kept* in ``Series.values`` (they are drawn, shaded, and can be
analysed): whether an analysis includes them is an explicit choice, :func:`measured` drops them and
records that it did, never silently. :func:`group` builds :class:`Benchmark` objects from a list of
series (``Dataset.benchmarks()``); a series loaded without benchmark metadata (a CSV column, a JMH
fork list of one fork) is a benchmark of its own with one execution.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .errors import InputError
from .model import Series

LOWER = "lower"    # lower is better: time per operation, latency, instructions
HIGHER = "higher"  # higher is better: throughput (operations per time unit)
DIRECTIONS = (LOWER, HIGHER)

BENCHMARK, EXECUTION, HARNESS, UNIT, DIRECTION, WARMUP, PARAMS = (
    "benchmark", "execution", "harness", "unit", "direction", "warmup", "params")

_TIME_UNITS = {"ns", "us", "µs", "μs", "ms", "s", "sec", "second", "seconds", "min", "h",
               "nanoseconds", "microseconds", "milliseconds", "cycles", "ticks"}


def direction_for_unit(unit: str | None) -> str | None:
    """Which way is better for values in ``unit``: ``"higher"`` for a rate (``ops/ms``,
    ``ops/s``, ``MB/s``, ``1/s``), ``"lower"`` for a time per operation (``ns``, ``ms/op``,
    ``s``), None when the unit does not say (a count such as ``instructions`` is ``"lower"``
    only when the harness says so)."""
    if not unit:
        return None
    u = unit.strip().lower()
    if "/" in u:
        num, _, den = u.partition("/")
        num, den = num.strip(), den.strip()
        if den in ("op", "ops", "operation", "iter", "iteration", "call", "run"):
            return LOWER  # time per operation
        if num in _TIME_UNITS and den not in _TIME_UNITS:
            return LOWER
        if den in _TIME_UNITS:
            return HIGHER  # something per time unit: a rate
        return None
    if u in _TIME_UNITS:
        return LOWER
    if u in ("ops", "hz", "qps", "rps", "iops"):
        return HIGHER
    return None


def execution(values: ArrayLike, *, benchmark: str, index: int, harness: str, unit: str = "",
              direction: str | None = None, warmup: int = 0,
              params: Mapping[str, Any] | None = None, id: str | None = None,
              metadata: Mapping[str, Any] | None = None, x: ArrayLike | None = None,
              checked: bool = False) -> Series:
    """One process execution of a benchmark as a Series (what a harness loader returns).

    ``values`` are all recorded iterations in order, the harness's ``warmup`` leading warm-up
    iterations included. ``direction`` defaults to :func:`direction_for_unit`. The id is
    ``benchmark/execK`` unless given. ``checked=True`` (a loader's own array, already checked:
    non-empty, finite, read-only, C-contiguous float64, one dimension; no ``x``) keeps ``values``
    without the copy and second check of ``Series(...)``: a load of 30 M values spent a second
    there.

    Raises:
        InputError: a bad direction, or ``warmup`` outside ``0..len(values)``.
    """
    if direction is None:
        direction = direction_for_unit(unit)
    if direction is not None and direction not in DIRECTIONS:
        raise InputError(benchmark, f"direction must be one of {DIRECTIONS}, got {direction!r}")
    sid = id if id is not None else f"{benchmark}/exec{index}"
    meta = {**(metadata or {}), BENCHMARK: benchmark, EXECUTION: int(index), HARNESS: harness,
            UNIT: unit, DIRECTION: direction, WARMUP: int(warmup)}
    if params:
        meta[PARAMS] = dict(params)
    if checked and x is None and isinstance(values, np.ndarray):
        s = Series._checked(values, str(sid), meta)
    else:
        s = Series(values, x, sid, meta)
    if not 0 <= int(warmup) <= len(s):
        raise InputError(sid, f"{warmup} warm-up iterations for {len(s)} recorded iterations")
    return s


def benchmark_name(series: Series) -> str:
    """The benchmark a series belongs to (its own id when it has no benchmark metadata)."""
    name = series.metadata.get(BENCHMARK)
    return str(name) if name is not None else series.id


def execution_index(series: Series) -> int:
    """The series' 0-based execution index within its benchmark (JMH ``fork`` counts too)."""
    for key in (EXECUTION, "fork"):
        v = series.metadata.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return 0


def warmup_count(series: Series) -> int:
    """How many leading iterations the harness recorded as warm-up (0 when it recorded none)."""
    v = series.metadata.get(WARMUP, 0)
    return int(v) if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= len(series) else 0


def measured(series: Series) -> Series:
    """The series without the harness's warm-up iterations (same id; ``metadata`` records
    ``warmup_dropped``). A series without harness warm-up is returned as it is.

    Raises:
        InputError: every recorded iteration is a warm-up iteration.
    """
    k = warmup_count(series)
    if k == 0:
        return series
    if k >= len(series):
        raise InputError(series.id, f"all {len(series)} iterations are the harness's warm-up; "
                                    "there is no measured iteration")
    x = series.x[k:] if series.x is not None else None
    meta = {**series.metadata, WARMUP: 0, "warmup_dropped": k}
    return Series(series.values[k:], x, series.id, meta, series.dims or None)


def harness_warmup(series: Sequence[Series], choice: str) -> list[Series]:
    """Apply an explicit choice about the harness's warm-up iterations: ``"keep"`` (all
    recorded iterations, warm-up marked) or ``"drop"`` (:func:`measured`)."""
    if choice == "keep":
        return list(series)
    if choice == "drop":
        return [measured(s) for s in series]
    raise InputError("harness_warmup", f"must be 'keep' or 'drop', got {choice!r}")


@dataclass(frozen=True)
class Benchmark:
    """A benchmark and its process executions.

    Attributes:
        name: the benchmark's name (parameters included).
        harness: the harness that wrote it (``jmh``, ``pyperf``, ...; the file format for series
            loaded without benchmark metadata).
        unit: the values' unit ('' when unknown).
        direction: ``"lower"`` (time per operation) or ``"higher"`` (throughput) is better, or
            None when unknown.
        executions: the process executions as Series, by execution index.
        params: the benchmark's parameters.
        metadata: what the harness recorded about the run (VM, machine, commit...), from the first
            execution.
        warnings: what looked wrong (mixed units, repeated execution indices, ...), named.
    """

    name: str
    harness: str
    unit: str
    direction: str | None
    executions: tuple[Series, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.executions)

    def __iter__(self):
        return iter(self.executions)

    @property
    def higher_is_better(self) -> bool:
        return self.direction == HIGHER

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b`` in this benchmark's direction
        (lower is assumed better when the direction is unknown)."""
        return a > b if self.direction == HIGHER else a < b


_RUN_KEYS = {"source", "format", BENCHMARK, EXECUTION, "fork", WARMUP, "warmup_dropped", UNIT,
             DIRECTION, HARNESS, PARAMS}


def group(series: Iterable[Series]) -> list[Benchmark]:
    """Group series into benchmarks by their ``benchmark`` metadata, in order of first appearance;
    executions are sorted by execution index. Mixed units or directions and repeated execution
    indices inside one benchmark become named ``warnings`` (nothing is dropped)."""
    order: dict[str, list[Series]] = {}
    for s in series:
        order.setdefault(benchmark_name(s), []).append(s)
    out = []
    for name, members in order.items():
        members = sorted(members, key=execution_index)
        first = members[0].metadata
        warnings = []
        units = sorted({str(m.metadata.get(UNIT) or "") for m in members})
        if len(units) > 1:
            warnings.append(f"benchmark {name!r}: executions in different units ({', '.join(units)}); "
                            "their values are not comparable as they are")
        dirs = {m.metadata.get(DIRECTION) for m in members}
        if len(dirs) > 1:
            warnings.append(f"benchmark {name!r}: executions disagree on whether lower or higher is "
                            "better")
        idx = [execution_index(m) for m in members]
        if len(set(idx)) < len(idx):
            srcs = sorted({str(m.metadata.get("source", "?")) for m in members})
            warnings.append(f"benchmark {name!r}: execution indices repeat ({len(idx)} executions, "
                            f"{len(set(idx))} distinct indices) - the same benchmark name in "
                            f"{', '.join(srcs)}")
        params = first.get(PARAMS)
        out.append(Benchmark(
            name=name,
            harness=str(first.get(HARNESS) or first.get("format") or ""),
            unit=units[0] if len(units) == 1 else "",
            direction=first.get(DIRECTION) if len(dirs) == 1 else None,
            executions=tuple(members),
            params=dict(params) if isinstance(params, Mapping) else {},
            metadata={k: v for k, v in first.items() if k not in _RUN_KEYS},
            warnings=tuple(warnings)))
    return out


# --- what was read, and per-benchmark roll-ups of detection results (``segview inspect``,
# ``segview detect --rollup``) ---------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """``value`` when it is a JSON value (str, number, bool, None, lists and dicts of them), else
    its text."""
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        return str(value)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _number(row: Any) -> Any:
    """A measured value as a JSON number (a list of numbers for a multivariate series)."""
    return row.tolist() if getattr(row, "ndim", 0) else float(row)


def describe_execution(series: Series) -> dict[str, Any]:
    """What segview read of one execution: ``index`` (execution index), ``warmup`` (the harness's
    warm-up iterations kept in the values), ``measured`` (the other iterations), ``first`` and
    ``last`` (the first and last *measured* value; None when every iteration is warm-up), plus
    ``id``, ``source`` and ``warmup_dropped`` (warm-up iterations dropped at load, 0 if none)."""
    k = warmup_count(series)
    n = len(series)
    dropped = series.metadata.get("warmup_dropped", 0)
    return {"index": execution_index(series), "warmup": k, "measured": n - k,
            "first": _number(series.values[k]) if n > k else None,
            "last": _number(series.values[-1]) if n > k else None,
            "id": series.id, "source": _plain(series.metadata.get("source")),
            "warmup_dropped": int(dropped) if isinstance(dropped, int) else 0}


def describe(benchmark: Benchmark) -> dict[str, Any]:
    """A benchmark as a JSON-ready dict (what ``segview inspect`` prints): ``name``, ``harness``,
    ``unit``, ``direction``, ``executions`` (:func:`describe_execution` each, by execution index),
    ``params``, ``metadata`` (the run's, as JSON values) and ``warnings`` (the grouping's and the
    loaders' ``load_warnings`` of its executions, e.g. a crashed execution)."""
    warnings = list(benchmark.warnings)
    for s in benchmark.executions:
        extra = s.metadata.get("load_warnings")
        if isinstance(extra, (list, tuple)):
            warnings += [str(w) for w in extra if str(w) not in warnings]
    return {"name": benchmark.name, "harness": benchmark.harness, "unit": benchmark.unit,
            "direction": benchmark.direction,
            "executions": [describe_execution(s) for s in benchmark.executions],
            "params": _plain(dict(benchmark.params)),
            "metadata": _plain({k: v for k, v in benchmark.metadata.items()
                                if k != "load_warnings"}),
            "warnings": warnings}


def rollup(benchmark: Benchmark, results: Mapping[str, Any], *, onset: bool = True
           ) -> dict[str, Any]:
    """Summarise one method's results over a benchmark's executions.

    Args:
        benchmark: the benchmark.
        results: series id -> result (a :class:`~segview.core.result.DetectionResult` or anything
            with ``steady_start`` and ``change_points``); an execution without an entry (its run
            failed, or it was not analysed) counts as not analysed.
        onset: the method reports steady-state onsets; False for a change-point detector (the
            steady counts and onset statistics are then None).

    Returns:
        ``benchmark``, ``executions`` (how many the benchmark has), ``analysed`` (how many have a
        result), ``steady`` (how many of those reached a steady state), ``onset_median``,
        ``onset_q1``, ``onset_q3``, ``onset_iqr`` (over the steady executions' onsets, as indices
        of the analysed values; None when none is steady), and ``change_points``: the number of
        change points per execution in execution order (None where not analysed).
    """
    import numpy as np  # (kept local: the functions above need none of it)

    got = [results.get(s.id) for s in benchmark.executions]
    done = [r for r in got if r is not None]
    onsets = [int(r.steady_start) for r in done if r.steady_start is not None] if onset else []
    q1 = med = q3 = None
    if onsets:
        q1, med, q3 = (float(v) for v in np.percentile(np.asarray(onsets, dtype=np.float64),
                                                          [25, 50, 75]))
    return {"benchmark": benchmark.name, "executions": len(benchmark.executions),
            "analysed": len(done), "steady": len(onsets) if onset else None,
            "onset_median": med, "onset_q1": q1, "onset_q3": q3,
            "onset_iqr": (q3 - q1) if q1 is not None and q3 is not None else None,
            "change_points": [len(r.change_points) if r is not None else None for r in got]}


@dataclass(frozen=True)
class MethodRollup:
    """One method's results over a benchmark's executions (:func:`rollup_results`).

    Attributes:
        method: the detector's name.
        executions: how many executions the benchmark has.
        done: how many of them have a result.
        steady: how many results have an onset (``steady_start`` not None).
        median_onset: the median onset of the steady ones (None when none is steady).
        median_change_points: the median number of change points of the results (None without
            results).
    """

    method: str
    executions: int
    done: int
    steady: int
    median_onset: float | None
    median_change_points: float | None

    def text(self, produces: str = "onset") -> str:
        """What a table cell shows: ``"2/3 steady, med 45"`` for an onset method, ``"med 3 cp"``
        for a change-point method; ``"1/3 done"`` style prefix while results are missing."""
        if self.done == 0:
            return ""
        wait = "" if self.done == self.executions else f" ({self.done}/{self.executions} done)"
        if produces == "onset":
            med = "" if self.median_onset is None else f", med {_num(self.median_onset)}"
            return f"{self.steady}/{self.executions} steady{med}{wait}"
        return f"med {_num(self.median_change_points or 0.0)} cp{wait}"

    def sort_key(self, produces: str = "onset") -> float:
        """A number to sort benchmarks by: the median onset (never steady last) or the median
        number of change points."""
        if produces == "onset":
            return float("inf") if self.median_onset is None else float(self.median_onset)
        return float("inf") if self.median_change_points is None else self.median_change_points


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def rollup_results(benchmark: Benchmark, results: Mapping[tuple[str, str], Any],
                   methods: Iterable[str]) -> dict[str, MethodRollup]:
    """Per method, how the benchmark's executions came out: how many have a result, how many are
    steady, the median onset of the steady ones and the median number of change points.

    ``results`` maps ``(series id, method)`` to a result with ``steady_start`` and
    ``change_points`` (a :class:`~segview.core.result.DetectionResult`); executions without a
    result are counted as not done, never as not steady.
    """
    import numpy as np

    out = {}
    for m in methods:
        r = rollup(benchmark, {s.id: results[(s.id, m)] for s in benchmark.executions
                               if (s.id, m) in results})
        cps = [c for c in r["change_points"] if c is not None]
        out[m] = MethodRollup(
            method=m, executions=r["executions"], done=r["analysed"], steady=r["steady"],
            median_onset=r["onset_median"],
            median_change_points=float(np.median(cps)) if cps else None)
    return out
