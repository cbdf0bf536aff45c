"""``barrett``: warmup_stats' classification of one process execution as a segview detector.

Barrett, Bolz-Tereick, Killick, Mount, Tratt: "Virtual Machine Warmup Blows Hot and Cold" (OOPSLA
2017), as softdevteam/warmup_stats ``41212e0`` computes it (:mod:`segview.core.warmup`): outliers by
``median +- 3 (p90 - p10)`` over a moving window of 10 % of the iterations, R changepoint's
``cpt.meanvar`` PELT (penalty ``15 ln n``, minimum segment length 2) on the series without them,
and the classes flat / warmup / slowdown / no steady state.

Result: ``change_points`` are segview's (first iteration of each new segment);
``steady_start`` is the first iteration of the steady state (0 when flat; None for no steady
state); ``stats["classification"]`` the class, ``stats["changepoints"]`` warmup_stats' own
(last iteration of each segment but the last), ``stats["outliers"]``, ``stats["segment_means"]``
and ``stats["segment_variances"]`` in the values' unit; the first note names the class.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track

NAME = "barrett"
#: seconds per unit of the ``unit`` parameter (warmup_stats works in seconds)
UNIT_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}

PARAMS = (
    ParamSpec("unit", "str", "s", choices=tuple(UNIT_SECONDS),
              help="time unit of the values; they are converted to seconds first, as "
                   "warmup_stats expects (delta is in seconds)"),
    ParamSpec("direction", "str", "lower", choices=("lower", "higher"),
              help="lower: times (warm-up = getting faster); higher: throughput (warm-up = "
                   "rising); higher values are used as they are"),
    ParamSpec("delta", "float", 0.001, low=0.0, high=1e9, step=0.0001,
              help="segments closer than this to the last one are equivalent (seconds; a "
                   "percentage with delta_mode=percent)"),
    ParamSpec("delta_mode", "str", "absolute", choices=("absolute", "percent"),
              help="absolute: delta in seconds; percent: delta percent of the fastest segment "
                   "mean (warmup_stats' 'D%')"),
    ParamSpec("steady_ratio", "float", 0.25, low=0.0, high=1.0, step=0.05,
              help="a steady state must begin before this last fraction of the iterations"),
    ParamSpec("window_ratio", "float", 0.1, low=0.0, high=1.0, step=0.01,
              help="outlier window as a fraction of the iterations"),
    ParamSpec("penalty_factor", "float", 15.0, low=0.0, high=1e6, log=False, step=0.5,
              help="cpt.meanvar penalty = penalty_factor * ln(n)"),
    ParamSpec("exact", "bool", False,
              help="the exact optimum of the same cost instead of R's pruned PELT (which can "
                   "miss it)"),
    ParamSpec("spread", "str", "variance", choices=("variance", "sd"),
              help="variance: warmup_stats' segment comparison; sd: standard deviation "
                   "(same unit as the means)"),
    ParamSpec("mark_outliers", "bool", True,
              help="mark and leave out outliers before the change points"),
)

PRESETS = (
    Preset("warmup_stats", {}, help="softdevteam/warmup_stats 41212e0 defaults (R changepoint "
                                    "e3959de = 2.2.2)"),
    Preset("exact", {"exact": True}, help="warmup_stats' rules with the exact change-point "
                                          "optimum"),
)


def run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    from ..warmup.barrett import barrett

    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 1 or y.size == 0:
        raise InputError(NAME, "expected a non-empty one-dimensional series")
    if not np.isfinite(y).all():
        raise InputError(NAME, f"{int((~np.isfinite(y)).sum())} non-finite values")
    scale = UNIT_SECONDS[params["unit"]] if params["direction"] == "lower" else 1.0
    ec = barrett(y * scale if scale != 1.0 else y, window_ratio=params["window_ratio"],
                 penalty_factor=params["penalty_factor"], exact=params["exact"],
                 delta=params["delta"], delta_mode=params["delta_mode"],
                 steady_ratio=params["steady_ratio"], direction=params["direction"],
                 spread=params["spread"], mark=params["mark_outliers"])
    seg = ec.segmentation
    mask = np.zeros(y.size)
    mask[seg.outliers] = 1.0
    bounds = np.append(seg.starts, y.size)
    seg_line = np.repeat(seg.means / scale, np.diff(bounds))
    tracks = (Track("outlier mask", mask, y_range=(0.0, 1.0), kind="step"),
              Track("segment means", seg_line, kind="step"))
    stats = {
        "classification": ec.classification,
        "changepoints": seg.ws_changepoints,
        "outliers": seg.outliers,
        "segment_means": seg.means / scale,
        "segment_variances": seg.variances / (scale * scale),
        "steady_iteration": ec.steady_iteration,
        "first_steady_segment": ec.first_steady_segment,
        "steady_mean": None if ec.steady_mean is None else ec.steady_mean / scale,
        "time_to_steady_s": ec.time_to_steady if params["direction"] == "lower" else None,
        "delta": ec.delta,
        "steady_limit": ec.steady_limit,
        "penalty": seg.penalty,
        "n_outliers": int(seg.outliers.size),
    }
    notes = (f"class: {ec.classification}",) + ec.notes
    return DetectionResult(NAME, params, seg.change_points, ec.steady_iteration, tracks, stats,
                           notes)


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): warmup_stats' penalty (15 ln n)
    leaves PELT little to prune, so about n^2 / 2 segment costs, each ~10 steps with its
    logarithm (measured: 2,000 iterations in ~25 ms)."""
    return Cost.of_steps(5.0 * float(n) * n, 64.0 * n,
                         f"warmup_stats' PELT is quadratic in the length here (its penalty leaves "
                         f"little to prune): {n} samples are about {0.5 * n * n:.0e} segment costs "
                         "(minutes to hours)")


SPEC = register(DetectorSpec(
    cost=cost,
    name=NAME,
    label="Barrett et al. (warmup_stats)",
    version="1.0",
    produces="onset",
    params=PARAMS,
    run=run,
    min_length=1,
    affine_invariant=False,
    citation="Barrett, Bolz-Tereick, Killick, Mount, Tratt: Virtual Machine Warmup Blows Hot and "
             "Cold, OOPSLA 2017; softdevteam/warmup_stats 41212e0; R changepoint 2.2.2",
    description="Outliers (moving median +- 3 (p90 - p10)), R changepoint's PELT for mean and "
                "variance (penalty 15 ln n) without them, and the execution's class: flat, "
                "warm-up, slowdown or no steady state (the steady state must begin before the "
                "last 25 % of iterations). steady_start is the first steady iteration.",
    presets=PRESETS,
))
