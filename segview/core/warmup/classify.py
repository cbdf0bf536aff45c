"""Barrett et al.'s per-execution classes, for any segmentation.

Rules of softdevteam/warmup_stats at commit ``41212e0c6f8c81d3660095ea1d3324f77819cf1b``
(``bin/mark_changepoints_in_json``, ``Segments.get_classification``; the steady segments and the
steady iteration of ``warmup/summary_statistics.py``), defaults as ``bin/warmup_stats`` passes them:

* ``delta`` = 0.001 (``--delta`` default, seconds); ``"D%"`` there means ``D`` percent of the
  fastest segment mean (``delta_mode="percent"`` here).
* Around the last segment (mean ``mu``, variance ``v``) lies the band
  ``[min(mu - v, mu - delta), max(mu + v, mu + delta)]``. At this commit the segment **variance**
  that changepoint estimates is added to and subtracted from the means (older commits used
  ``3 (p90 - p10)`` bands and a ``half_bound``); with values in seconds the variance is tiny and
  ``delta`` decides. ``spread="sd"`` uses the standard deviation instead (same units as the means:
  an opt-in deviation, reported in ``notes``).
* Walking back from the second-to-last segment: a segment whose ``[mean - v, mean + v]`` meets the
  band is *equivalent* to the last one (skipped); otherwise, if it ends in the last
  ``steady`` iterations (``end > n - steady``, ``steady = int(0.25 * iterations)`` as
  ``bin/warmup_stats`` passes ``-s``), the execution has **no steady state**; else if it lies below
  the band the execution is a **slowdown** (it was faster before); else it is a **warm-up** and
  the walk goes on (an earlier segment can still make it a slowdown or no steady state). Nothing
  different: **flat**.
* For throughput (``direction="higher"``) every comparison is flipped: a segment below the band
  was slower, so the execution warms up; one above it means a slowdown.
* Steady segments: the last one and the equivalent segments directly before it (the walk of
  ``summary_statistics.py`` stops at the first non-equivalent one). The steady iteration is the
  first iteration after the last change point before them (``changepoint + 1``, 0-based: 0 when
  flat; warmup_stats writes 1 for a flat execution, a 1-based count, but ``cpt + 1`` with 0-based
  ``cpt`` otherwise); none for no steady state. The steady mean is the plain mean of the steady
  segments' means (warmup_stats' ``steady_state_time_list``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..benchmark import DIRECTION, HIGHER, LOWER
from ..errors import InputError, ParameterError
from ..model import Series
from ..result import DetectionResult
from .segments import Segmentation, segmentation_from_change_points

FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE = "flat", "warmup", "slowdown", "no steady state"
#: warmup_stats' class names, in its order.
CLASSES = (FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE)
#: ``mark_changepoints_in_json --delta`` default (seconds, for values in seconds).
DELTA = 0.001
#: ``bin/warmup_stats``' ``DEFAULT_STEADY_RATIO``: a steady state must begin before the last quarter.
STEADY_RATIO = 0.25


@dataclass(frozen=True)
class ExecutionClass:
    """The class of one execution and what follows from it.

    Attributes:
        classification: one of :data:`CLASSES`.
        segmentation: the segments it was decided on.
        first_steady_segment: index of the first steady segment; None for no steady state.
        steady_iteration: 0-based first iteration of the steady state (0 when flat); None for no
            steady state.
        steady_mean: mean of the steady segments' means; None for no steady state.
        time_to_steady: sum of the iterations before ``steady_iteration`` (outliers included), in
            the values' unit; None for no steady state.
        steady_indices: the iterations of the steady segments without outliers (what the
            bootstrap resamples); empty for no steady state.
        delta: the absolute delta used (values' unit).
        steady_limit: a steady state must begin before the last ``steady_limit`` iterations.
        direction: ``"lower"`` or ``"higher"`` is better.
        notes: anything unusual or any opt-in deviation from warmup_stats.
    """

    classification: str
    segmentation: Segmentation
    first_steady_segment: int | None
    steady_iteration: int | None
    steady_mean: float | None
    time_to_steady: float | None
    steady_indices: NDArray[np.int64]
    delta: float
    steady_limit: int
    direction: str
    notes: tuple[str, ...] = field(default=())

    @property
    def steady(self) -> bool:
        return self.classification != NO_STEADY_STATE


def _direction(direction: str | None) -> str:
    if direction is None:
        return LOWER
    if direction not in (LOWER, HIGHER):
        raise ParameterError("direction", f"must be 'lower' or 'higher', got {direction!r}")
    return direction


def absolute_delta(delta: float, means: ArrayLike, mode: str = "absolute",
                   direction: str | None = LOWER) -> float:
    """warmup_stats' ``get_absolute_delta_using_fastest_seg``: ``delta`` itself, or with
    ``mode="percent"`` that percentage of the fastest segment mean (the least one, or the
    greatest for ``direction="higher"``)."""
    if mode == "absolute":
        return float(delta)
    if mode != "percent":
        raise ParameterError("delta_mode", f"must be 'absolute' or 'percent', got {mode!r}")
    m = np.asarray(means, dtype=np.float64)
    m = m[np.isfinite(m)]
    if not m.size:
        return 0.0
    fastest = float(m.max() if _direction(direction) == HIGHER else m.min())
    return fastest * (float(delta) / 100)


def steady_limit(n: int, steady_ratio: float = STEADY_RATIO,
                 steady_iterations: int | None = None) -> int:
    """The ``-s`` value of ``mark_changepoints_in_json``: ``steady_iterations`` when given, else
    ``int(n * steady_ratio)`` as ``bin/warmup_stats`` computes it."""
    if steady_iterations is not None:
        return int(steady_iterations)
    return int(n * steady_ratio)


def classify_segmentation(values: ArrayLike, seg: Segmentation, *, delta: float = DELTA,
                          delta_mode: str = "absolute", steady_ratio: float = STEADY_RATIO,
                          steady_iterations: int | None = None, direction: str | None = LOWER,
                          spread: str = "variance") -> ExecutionClass:
    """Classify one execution from its :class:`Segmentation` (see the module doc for the rules).

    Args:
        values: the execution's iterations (the same ones ``seg`` describes).
        seg: its segments, their means and variances, and its outliers.
        delta: the absolute margin (values' unit), or a percentage with ``delta_mode="percent"``.
        delta_mode: ``"absolute"`` or ``"percent"`` (of the fastest segment mean).
        steady_ratio: the steady state must begin before the last ``int(n * ratio)`` iterations.
        steady_iterations: that number of iterations directly (overrides the ratio).
        direction: ``"lower"`` (times) or ``"higher"`` (throughput) is better; None means lower.
        spread: ``"variance"`` (warmup_stats) or ``"sd"`` (standard deviation; opt-in).

    Raises:
        InputError: ``values`` and ``seg`` disagree on the length.
        ParameterError: a bad direction, ``delta_mode`` or ``spread``.
    """
    y = np.asarray(values, dtype=np.float64)
    if y.size != seg.n:
        raise InputError("classify", f"{y.size} values for a segmentation of {seg.n}")
    direction = _direction(direction)
    if spread not in ("variance", "sd"):
        raise ParameterError("spread", f"must be 'variance' or 'sd', got {spread!r}")
    notes: list[str] = []
    if spread == "sd":
        notes.append("segments compared with their standard deviation (warmup_stats: variance)")
    sign = -1.0 if direction == HIGHER else 1.0
    means = np.asarray(seg.means, dtype=np.float64)
    var = np.nan_to_num(np.asarray(seg.variances, dtype=np.float64), nan=0.0)
    sp = np.sqrt(np.maximum(var, 0.0)) if spread == "sd" else var
    m = sign * means
    d = absolute_delta(delta, means, delta_mode, direction)
    limit = steady_limit(seg.n, steady_ratio, steady_iterations)
    ends = seg.ends
    k = len(seg)
    if not math.isfinite(m[-1]):
        notes.append("the last segment holds only outliers: classified as no steady state")
        return ExecutionClass(NO_STEADY_STATE, seg, None, None, None, None,
                              np.zeros(0, dtype=np.int64), d, limit, direction, tuple(notes))
    lower = min(m[-1] - sp[-1], m[-1] - d)
    upper = max(m[-1] + sp[-1], m[-1] + d)

    def equivalent(i: int) -> bool:
        if not math.isfinite(m[i]):   # a segment of outliers only: no evidence either way
            return True
        return bool(m[i] + sp[i] >= lower and m[i] - sp[i] <= upper)

    cls = FLAT
    for i in range(k - 2, -1, -1):
        if equivalent(i):
            continue
        if ends[i] > seg.n - limit:
            cls = NO_STEADY_STATE
            break
        if m[i] - sp[i] < lower:
            cls = SLOWDOWN
            break
        cls = WARMUP
    if cls == NO_STEADY_STATE:
        return ExecutionClass(cls, seg, None, None, None, None, np.zeros(0, dtype=np.int64), d,
                              limit, direction, tuple(notes))
    first = k - 1
    while first > 0 and equivalent(first - 1):
        first -= 1
    steady_iter = 0 if cls == FLAT else int(ends[first - 1]) + 1
    steady_means = [float(v) for v in means[first:] if math.isfinite(v)]
    steady_mean = math.fsum(steady_means) / len(steady_means)
    keep = np.ones(seg.n, dtype=bool)
    keep[seg.outliers] = False
    keep[:int(seg.starts[first])] = False
    return ExecutionClass(cls, seg, first, steady_iter, steady_mean,
                          math.fsum(y[:steady_iter].tolist()), np.flatnonzero(keep).astype(np.int64),
                          d, limit, direction, tuple(notes))


def classify(values: ArrayLike, change_points: ArrayLike, *, outliers: ArrayLike = (),
             means: ArrayLike | None = None, variances: ArrayLike | None = None,
             **options: Any) -> ExecutionClass:
    """Classify one execution from ANY segmentation (detector-independent).

    Args:
        values: the execution's iterations (finite).
        change_points: segview's change points: the 0-based first iteration of each new segment.
        outliers: iterations left out of the segment estimates.
        means, variances: the segments' means and variances when the segmenter estimated them (as
            changepoint does); by default changepoint's estimates are computed from ``values``
            without ``outliers`` (mean, variance with divisor m).
        **options: as :func:`classify_segmentation` (``delta``, ``delta_mode``, ``steady_ratio``,
            ``steady_iterations``, ``direction``, ``spread``).

    Raises:
        InputError: change points out of range, non-finite values, or estimates whose number is not
            the number of segments.
    """
    seg = segmentation_from_change_points(values, change_points, outliers)
    if means is not None or variances is not None:
        mu = np.asarray(seg.means if means is None else means, dtype=np.float64)
        va = np.asarray(seg.variances if variances is None else variances, dtype=np.float64)
        if mu.size != len(seg) or va.size != len(seg):
            raise InputError("classify", f"{len(seg)} segments but {mu.size} means and "
                                         f"{va.size} variances")
        seg = Segmentation(seg.n, seg.starts, mu, va, seg.outliers)
    return classify_segmentation(values, seg, **options)


def _result_outliers(result: DetectionResult, n: int) -> NDArray[np.int64]:
    st = result.stats
    for key in ("outliers", "outlier_indices"):
        if key in st and st[key] is not None:
            out = np.asarray(st[key], dtype=np.int64).ravel()
            return out[(out >= 0) & (out < n)]
    for t in result.tracks:
        if t.name == "outlier mask" and len(t.y) == n:
            return np.flatnonzero(np.asarray(t.y) > 0.5).astype(np.int64)
    return np.zeros(0, dtype=np.int64)


def _produces_onset(name: str) -> bool:
    from .. import registry
    try:
        return registry.get(name).produces == "onset"
    except Exception:   # an unregistered detector name: no verdict to respect
        return False


def classify_result(series: Series | ArrayLike, result: DetectionResult, *,
                    respect_verdict: bool = True, **options: Any) -> ExecutionClass:
    """Barrett et al.'s class of an execution from another detector's result (KB-KSSD, CP-SSD,
    ``barrett`` itself, or any change-point method), so that rules can be compared side by side.

    The segments are the result's ``change_points``; its outliers (``stats["outliers"]``,
    ``stats["outlier_indices"]`` or an ``outlier mask`` track) are left out of the segment
    estimates. With ``respect_verdict`` an onset detector that judged the series never steady
    (``steady_start is None``) makes it **no steady state** whatever the segments say (noted).
    ``direction`` defaults to the series' ``direction`` metadata.

    Raises:
        InputError: as :func:`classify`.
    """
    if isinstance(series, Series):
        values = series.values
        meta: Mapping[str, Any] = series.metadata
    else:
        values = np.asarray(series, dtype=np.float64)
        meta = {}
    if values.ndim != 1:
        raise InputError("classify_result", "one-dimensional series only")
    options.setdefault("direction", meta.get(DIRECTION) or LOWER)
    out = _result_outliers(result, values.size)
    cps = np.asarray(result.change_points, dtype=np.int64)
    ec = classify(values, cps, outliers=out, **options)
    onset_detector = _produces_onset(result.detector)
    if respect_verdict and onset_detector and result.steady_start is None \
            and ec.classification != NO_STEADY_STATE:
        note = (f"{result.detector} judged the series never steady (its segments alone say "
                f"{ec.classification!r})")
        ec = ExecutionClass(NO_STEADY_STATE, ec.segmentation, None, None, None, None,
                            np.zeros(0, dtype=np.int64), ec.delta, ec.steady_limit, ec.direction,
                            ec.notes + (note,))
    return ec
