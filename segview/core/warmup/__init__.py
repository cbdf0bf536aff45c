"""Warm-up analysis the way the field reports it (issue 27): Barrett et al.'s classes per process
execution, consistency per benchmark, steady-state figures with their spread and uncertainty.

Follows softdevteam/warmup_stats at its latest commit ``41212e0c6f8c81d3660095ea1d3324f77819cf1b``
(2023-06-14) and the R changepoint commit its ``build.sh`` installs (rkillick/changepoint
``e3959de``, version 2.2.2). Qt-free. The pieces, each usable on its own:

* :func:`mark_outliers` - moving-window ``median +- 3 (p90 - p10)`` outliers (:mod:`.outliers`);
* :func:`meanvar_changepoints` - ``cpt.meanvar`` PELT on the series without outliers, indices
  mapped back; ``exact=True`` for the true optimum (:mod:`.segments`);
* :func:`classify` / :func:`classify_segmentation` / :func:`classify_result` - flat / warmup /
  slowdown / no steady state for any segmentation, e.g. KB-KSSD's or CP-SSD's results
  (:mod:`.classify`);
* :func:`barrett` - the three steps as warmup_stats chains them (also the registered detector
  ``barrett``);
* :func:`analyse_benchmark` / :func:`analyse` - per benchmark: verdict, counts, steady iteration,
  time to steady state, steady performance with Kalibera & Jones' two-level bootstrap interval
  (:mod:`.analysis`, :mod:`.bootstrap`); ``BenchmarkWarmup.to_dict()`` is the JSON form.

See ``docs/warmup.md``.
"""
from .analysis import (BAD_INCONSISTENT, CONSISTENT, GOOD_INCONSISTENT, METHODS, BenchmarkWarmup,
                       ExecutionWarmup, Spread, analyse, analyse_benchmark, analyse_execution,
                       benchmark_verdict, from_json, is_warmup_json, seconds_per_unit, to_json)
from .barrett import barrett
from .bootstrap import BootstrapCI, hierarchical_bootstrap, warmup_stats_bootstrap
from .classify import (CLASSES, DELTA, FLAT, NO_STEADY_STATE, SLOWDOWN, STEADY_RATIO, WARMUP,
                       ExecutionClass, absolute_delta, classify, classify_result,
                       classify_segmentation, steady_limit)
from .outliers import WINDOW_RATIO, mark_outliers, outlier_window
from .segments import (MINSEGLEN, PENALTY_FACTOR, Segmentation, exact_meanvar,
                       meanvar_changepoints, segmentation_from_change_points)

#: softdevteam/warmup_stats commit followed.
WARMUP_STATS_COMMIT = "41212e0c6f8c81d3660095ea1d3324f77819cf1b"
#: rkillick/changepoint commit warmup_stats' build.sh installs (tree = tag v2.2.2).
CHANGEPOINT_COMMIT = "e3959de1a25f75278c364c382b73dbf9c0002205"

__all__ = [
    "BAD_INCONSISTENT", "CHANGEPOINT_COMMIT", "CLASSES", "CONSISTENT", "DELTA", "FLAT",
    "GOOD_INCONSISTENT", "METHODS", "MINSEGLEN", "NO_STEADY_STATE", "PENALTY_FACTOR", "SLOWDOWN",
    "STEADY_RATIO", "WARMUP", "WARMUP_STATS_COMMIT", "WINDOW_RATIO", "BenchmarkWarmup",
    "BootstrapCI", "ExecutionClass", "ExecutionWarmup", "Segmentation", "Spread",
    "absolute_delta", "analyse", "analyse_benchmark", "analyse_execution", "barrett",
    "benchmark_verdict", "classify", "classify_result", "classify_segmentation", "exact_meanvar",
    "from_json", "hierarchical_bootstrap", "is_warmup_json", "mark_outliers",
    "meanvar_changepoints", "outlier_window",
    "seconds_per_unit", "segmentation_from_change_points", "steady_limit", "to_json",
    "warmup_stats_bootstrap",
]
