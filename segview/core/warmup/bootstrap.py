"""Steady-state performance with its uncertainty: warmup_stats' bootstrap and Kalibera & Jones'
hierarchical bootstrap, both seeded (numpy ``Generator``).

* :func:`warmup_stats_bootstrap` follows ``warmup/bootstrapper.py`` of softdevteam/warmup_stats
  ``41212e0`` (quality ``HIGH``: 100,000 resamples; ``LOW``: 10,000): for every process execution
  ``floor(B / executions) + 1`` resamples, each the mean of that execution's steady segments, every
  segment resampled with replacement within itself; the resample means of all executions are
  sorted; the reported value is their median and the reported "CI" the mean of the distances from
  the median to the ``(1 - 0.99) / 2`` and ``1 - (1 - 0.99) / 2`` order statistics, indices
  computed with ``Decimal`` exactly as the original (libkalibera's code). Executions themselves are
  never resampled: the spread between executions is not in this interval. Its random numbers are
  numpy's, not Python's ``random``, so values agree with warmup_stats in distribution only.
* :func:`hierarchical_bootstrap` is Kalibera & Jones' two-level bootstrap ("Rigorous benchmarking
  in reasonable time", ISMM 2013, §5 "multi-level" resampling): each resample draws the executions
  with replacement, then the iterations of each drawn execution with replacement; the statistic is
  the mean of the drawn executions' means. The percentile interval therefore carries both the
  variation between executions and within them. With one execution it reduces to an ordinary
  bootstrap of its iterations.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_UP, Decimal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError

#: Default seed of both bootstraps.
SEED = 20170101
RESAMPLES_HIGH = 100000
RESAMPLES_LOW = 10000
CONFIDENCE = "0.99"
_CHUNK = 1 << 21    # random indices drawn at once


def _resampled_means(rng: np.random.Generator, x: NDArray[np.float64], count: int
                     ) -> NDArray[np.float64]:
    """``count`` sums of ``x.size`` values drawn from ``x`` with replacement."""
    m = x.size
    out = np.empty(count)
    rows = max(1, _CHUNK // max(m, 1))
    for a in range(0, count, rows):
        b = min(count, a + rows)
        idx = rng.integers(0, m, size=(b - a, m))
        out[a:b] = x[idx].sum(axis=1)
    return out


def warmup_stats_bootstrap(steady_segments: Sequence[Sequence[Sequence[float] | NDArray[np.float64]]], *,
                           resamples: int = RESAMPLES_HIGH, confidence: str = CONFIDENCE,
                           seed: int = SEED) -> tuple[float, float]:
    """warmup_stats' ``bootstrap_steady_perf``: ``(median, ci)`` (see the module doc).

    Args:
        steady_segments: per execution, its steady segments' values (outliers removed).
        resamples: ``B`` (warmup_stats: 100,000 ``HIGH``, 10,000 ``LOW``).
        confidence: the confidence level as a string (a ``Decimal``, as the original insists).
        seed: seed of the random stream.

    Raises:
        InputError: no execution, or an execution without steady values.
    """
    if not steady_segments:
        raise InputError("bootstrap", "no execution with a steady state")
    rng = np.random.default_rng(seed)
    n_res = int(math.floor(resamples / len(steady_segments))) + 1
    means = []
    for segs in steady_segments:
        arrays = [np.asarray(s, dtype=np.float64) for s in segs if len(s)]
        total = sum(a.size for a in arrays)
        if total == 0:
            raise InputError("bootstrap", "an execution has no steady values")
        sums = np.zeros(n_res)
        for a in arrays:
            sums += _resampled_means(rng, a, n_res)
        means.append(sums / float(total))
    allm = np.sort(np.concatenate(means))
    level = Decimal(confidence)
    exclude = (1 - level) / 2
    length = allm.size
    med_idx = (length // 2 - 1, length // 2) if length % 2 == 0 else (length // 2,)
    lower_index = int((exclude * length).quantize(Decimal("1.0"), rounding=ROUND_DOWN))
    upper_index = int(((1 - exclude) * length).quantize(Decimal("1.0"), rounding=ROUND_UP))
    lower, upper = float(allm[lower_index]), float(allm[upper_index - 1])
    median = math.fsum(float(allm[i]) for i in med_idx) / len(med_idx)
    ci = math.fsum([upper - median, median - lower]) / 2.0
    return median, ci


@dataclass(frozen=True)
class BootstrapCI:
    """A point estimate and its percentile confidence interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    resamples: int
    seed: int
    iteration_level: str = "exact"

    def to_dict(self) -> dict[str, float | int | str]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high,
                "confidence": self.confidence, "resamples": self.resamples, "seed": self.seed,
                "iteration_level": self.iteration_level}


#: ``iteration_level="auto"`` resamples iterations exactly up to this many random draws
#: (``resamples`` x all steady iterations), and uses the normal limit beyond.
EXACT_DRAWS_MAX = 20_000_000


def hierarchical_resamples(arrays: Sequence[NDArray[np.float64]], resamples: int,
                           rng: np.random.Generator, iteration_level: str = "auto"
                           ) -> tuple[NDArray[np.float64], str]:
    """The ``resamples`` statistics of Kalibera & Jones' two-level bootstrap (mean of the drawn
    executions' resampled means) and the iteration level used: the distribution behind
    :func:`hierarchical_bootstrap`'s interval, for statistics built on it (e.g. the ratio of two
    benchmarks' means in :mod:`.compare`). ``arrays`` must be non-empty, each with values."""
    if iteration_level == "auto":
        draws = resamples * sum(a.size for a in arrays)
        iteration_level = "exact" if draws <= EXACT_DRAWS_MAX else "normal"
    e = len(arrays)
    picks = rng.integers(0, e, size=(resamples, e))           # level 1: executions
    counts = np.bincount(picks.ravel(), minlength=e)
    exec_means = np.empty(picks.shape)
    order = np.argsort(picks, axis=None, kind="stable")        # slots grouped by execution
    starts = np.concatenate([[0], np.cumsum(counts)])
    flat = exec_means.reshape(-1)
    for j, a in enumerate(arrays):                             # level 2: iterations
        if not counts[j]:
            continue
        slots = order[starts[j]:starts[j + 1]]
        if iteration_level == "exact":
            flat[slots] = _resampled_means(rng, a, int(counts[j])) / a.size
        else:
            mu = float(a.mean())
            sd = float(a.std()) / math.sqrt(a.size)
            flat[slots] = mu + sd * rng.standard_normal(int(counts[j]))
    return exec_means.mean(axis=1), iteration_level


def hierarchical_bootstrap(groups: Sequence[ArrayLike], *, resamples: int = 10000,
                           confidence: float = 0.99, seed: int = SEED,
                           iteration_level: str = "auto") -> BootstrapCI:
    """Kalibera & Jones' two-level bootstrap of the mean of per-execution means.

    Resampling iterations exactly costs ``resamples`` x (all steady iterations) random draws
    (10,000 x 1,000 executions x 2,000 iterations = 2e10). ``iteration_level="normal"`` draws each
    resampled execution mean from its large-sample limit instead, ``N(mean, var / m)`` (``var``
    with divisor m: the variance of one draw from the execution's values), which is what the exact
    resample mean of m >= a few dozen iterations follows; ``"auto"`` (default) is exact up to
    :data:`EXACT_DRAWS_MAX` draws and normal beyond. The level used is in the result.

    Args:
        groups: per execution, its steady iterations (outliers removed).
        resamples: number of bootstrap resamples.
        confidence: coverage of the percentile interval.
        seed: seed of the random stream.
        iteration_level: ``"auto"``, ``"exact"`` or ``"normal"``.

    Raises:
        InputError: no group, an empty group, or a confidence outside (0, 1).
    """
    arrays = [np.asarray(g, dtype=np.float64) for g in groups]
    if not arrays:
        raise InputError("bootstrap", "no execution with a steady state")
    if any(a.size == 0 for a in arrays):
        raise InputError("bootstrap", "an execution has no steady values")
    if not 0 < confidence < 1:
        raise InputError("bootstrap", f"confidence must lie in (0, 1), got {confidence}")
    if iteration_level not in ("auto", "exact", "normal"):
        raise InputError("bootstrap", f"iteration_level must be auto, exact or normal, got "
                                      f"{iteration_level!r}")
    rng = np.random.default_rng(seed)
    stat, iteration_level = hierarchical_resamples(arrays, resamples, rng, iteration_level)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(stat, [alpha, 1 - alpha])
    estimate = math.fsum(float(a.mean()) for a in arrays) / len(arrays)
    return BootstrapCI(estimate, float(lo), float(hi), float(confidence), int(resamples), int(seed),
                       iteration_level)
