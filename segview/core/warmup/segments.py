"""The change-point step of warmup_stats: R changepoint's ``cpt.meanvar`` on an execution without its
outliers, indices mapped back; and the segment description every classifier reads.

warmup_stats (softdevteam/warmup_stats ``41212e0``, ``bin/mark_changepoints_in_json``
``get_segments``) deletes the outliers, calls ``cpt.meanvar(x, method="PELT", penalty="Manual",
pen.value=15 * log(len(x)))`` (``minseglen`` left at its default 2), turns R's 1-based segment ends
into 0-based ones and shifts each one past every outlier at or before it (the ends then index the
execution with its outliers), and keeps changepoint's per-segment ``mean`` and ``variance``
(``param.est``; variance = ``var() * (m - 1) / m``, the maximum-likelihood estimate), both computed
on the series without outliers.

The changepoint package is installed by warmup_stats' ``build.sh`` at rkillick/changepoint commit
``e3959de1a25f75278c364c382b73dbf9c0002205`` (2016-10-04), whose tree is identical to the
package's tag ``v2.2.2``: ``src/cost_general_functions.c`` ``mll_meanvar`` (Normal mean and
variance, variance floored at 1e-11 only when not positive) and ``src/PELT_one_func_minseglen.c``
(``K = 0`` pruning, ``checklist`` order, strict ``<`` minimum) are the ones
:mod:`segview.core.detectors._pelt_r` emulates bit for bit for CP-SSD (80-bit prefix sums as R's
``cumsum``), so that emulation is reused here unchanged. With ``exact=True`` the same cost is
minimised exactly instead (optimal partitioning, O(n^2); R's pruning is not exact with minimum
segment length 2 and misses the optimum on some short series).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError
from ..kernels import fast_or_plain, simd_enabled
from ..lazy import lazy_module

if TYPE_CHECKING:
    from ..detectors import _pelt_r
    from . import _kernels, _pelt_vec
else:
    _pelt_r = lazy_module("..detectors._pelt_r", __package__)
    _kernels = lazy_module("._kernels", __package__)
    _pelt_vec = lazy_module("._pelt_vec", __package__)

#: warmup_stats' penalty: ``PENALTY_FACTOR * ln(n)``, n the number of values without outliers.
PENALTY_FACTOR = 15.0
#: ``cpt.meanvar``'s default (and smallest) minimum segment length.
MINSEGLEN = 2


@dataclass(frozen=True)
class Segmentation:
    """One execution cut into segments, with each segment's mean and spread.

    Attributes:
        n: number of iterations of the execution (outliers included).
        starts: 0-based index of the first iteration of each segment (``starts[0] == 0``);
            ``starts[1:]`` are segview's change points.
        means: each segment's mean (of its iterations without outliers).
        variances: each segment's maximum-likelihood variance (divisor m), as changepoint's
            ``param.est`` gives it.
        outliers: ascending 0-based indices of the iterations left out of the estimates.
        penalty: the penalty per change point used (None when the segmentation came from elsewhere).
        cost: the unpenalised cost of the segmentation (None when not computed).
        notes: what was unusual (too few values for changepoint, ...).
    """

    n: int
    starts: NDArray[np.int64]
    means: NDArray[np.float64]
    variances: NDArray[np.float64]
    outliers: NDArray[np.int64]
    penalty: float | None = None
    cost: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def change_points(self) -> NDArray[np.int64]:
        """segview's change points: the first iteration of every segment but the first."""
        return self.starts[1:]

    @property
    def ends(self) -> NDArray[np.int64]:
        """0-based last iteration of each segment (the last one ends at ``n - 1``)."""
        return np.append(self.starts[1:] - 1, self.n - 1).astype(np.int64)

    @property
    def ws_changepoints(self) -> list[int]:
        """warmup_stats' ``changepoints``: the last iteration of every segment but the last."""
        return [int(e) for e in self.ends[:-1]]

    def __len__(self) -> int:
        return int(self.starts.size)


def r_mean(x: NDArray[np.float64]) -> float:
    """R's ``mean`` of a double vector: long-double sum, then one correction pass."""
    m = x.size
    xl = x.astype(np.longdouble)
    s = xl.sum() / m
    if math.isfinite(float(s)):
        s = s + (xl - s).sum() / m
    return float(s)


def r_ml_variance(x: NDArray[np.float64]) -> float:
    """changepoint 2.2.2's ``param.var``: R's ``var(x) * (m - 1) / m`` (R's two-pass ``cov``:
    long-double mean, double deviations, long-double sum of their products)."""
    m = x.size
    if m < 2:
        return float("nan")   # R's var of one value is NA
    xl = x.astype(np.longdouble)
    t = xl.sum() / m
    if math.isfinite(float(t)):
        t = t + (xl - t).sum() / m
    xm = float(t)
    d = x - xm
    v = float((d * d).astype(np.longdouble).sum() / (m - 1))
    return v * (m - 1) / m


def segment_stats(values: NDArray[np.float64], starts: NDArray[np.int64],
                  outliers: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Means and ML variances of the segments beginning at ``starts``, outliers left out (NaN for a
    segment with no value left, variance NaN for one value)."""
    keep = np.ones(values.size, dtype=bool)
    keep[outliers] = False
    bounds = np.append(starts, values.size)
    means = np.empty(starts.size)
    variances = np.empty(starts.size)
    for j in range(starts.size):
        seg = values[bounds[j]:bounds[j + 1]][keep[bounds[j]:bounds[j + 1]]]
        means[j] = r_mean(seg) if seg.size else np.nan
        variances[j] = r_ml_variance(seg) if seg.size else np.nan
    return means, variances


def exact_meanvar(s1: NDArray[np.float64], s2: NDArray[np.float64], beta: float,
                  minseglen: int = MINSEGLEN) -> tuple[NDArray[np.int64], float]:
    """The optimum that :func:`segview.core.detectors._pelt_r.pelt_r_meanvar` approximates: same
    arguments, same return convention (R's 1-based segment ends including ``n``, unpenalised cost).

    Raises:
        ValueError: fewer than ``2 * minseglen`` points (as R and ``pelt_r_meanvar``).
    """
    n = s1.size - 1
    if n < 2 * minseglen:
        raise ValueError(f"PELT needs at least {2 * minseglen} points, got {n}")
    last = np.zeros(n + 1, dtype=np.int64)
    nseg = np.zeros(n + 1, dtype=np.int64)
    f = np.zeros(n + 1, dtype=np.float64)
    _kernels.exact_meanvar_op(np.ascontiguousarray(s1), np.ascontiguousarray(s2), float(beta),
                              int(minseglen), last, nseg, f)
    return _pelt_r._result(last, nseg, f, float(beta))


def pelt_r_meanvar_fast(s1: NDArray[np.float64], s2: NDArray[np.float64], beta: float,
                        minseglen: int = MINSEGLEN, notes: list[str] | None = None
                        ) -> tuple[NDArray[np.int64], float]:
    """:func:`segview.core.detectors._pelt_r.pelt_r_meanvar` (R changepoint 2.2.2's PELT, same
    arguments and result, bit for bit) about 6x faster at warmup_stats' penalty: the vector kernel
    of :mod:`segview.core.warmup._pelt_vec` takes the same decisions from cheap approximate values,
    evaluating exactly (libm's log) only the candidates a decision depends on within a rigorous
    margin. The plain kernel runs instead with ``SEGVIEW_NO_SIMD=1``, for non-finite sums or
    penalty, and when numba or LLVM fails on the vector kernel (then a note is appended to
    ``notes``; :func:`segview.core.kernels.fast_or_plain`).

    Raises:
        ValueError: fewer than ``2 * minseglen`` points.
    """
    n = s1.size - 1
    if n < 2 * minseglen:
        raise ValueError(f"PELT needs at least {2 * minseglen} points, got {n}")

    def plain() -> tuple[NDArray[np.int64], float]:
        return _pelt_r.pelt_r_meanvar(s1, s2, beta, minseglen)

    if not (simd_enabled() and minseglen >= 1 and math.isfinite(beta)
            and np.isfinite(s1).all() and np.isfinite(s2).all()):
        return plain()
    res, note = fast_or_plain(lambda: _vector_pelt(s1, s2, float(beta), int(minseglen)), plain,
                              "the warm-up PELT's vector kernel")
    if note is not None and notes is not None:
        notes.append(note)
    return res


def _vector_pelt(s1: NDArray[np.float64], s2: NDArray[np.float64], beta: float, minseglen: int
                 ) -> tuple[NDArray[np.int64], float]:
    last, nseg, f, _ = _pelt_vec.run(s1, s2, beta, minseglen)
    return _pelt_r._result(last, nseg, f, beta)


def meanvar_changepoints(values: ArrayLike, outliers: ArrayLike = (), *,
                         penalty_factor: float = PENALTY_FACTOR, minseglen: int = MINSEGLEN,
                         exact: bool = False) -> Segmentation:
    """warmup_stats' change-point step on one execution (see the module doc).

    Args:
        values: the execution's iterations (finite), outliers included.
        outliers: 0-based indices to leave out (e.g. :func:`~segview.core.warmup.mark_outliers`).
        penalty_factor: penalty ``penalty_factor * ln(m)``, ``m`` the values left (warmup_stats: 15).
        minseglen: minimum segment length (``cpt.meanvar`` raises anything below 2 to 2).
        exact: minimise the same penalised cost exactly instead of R's pruned PELT.

    Returns:
        The :class:`Segmentation`; with fewer than ``2 * minseglen`` values left, R stops with an
        error: here the execution is one segment and ``notes`` says so.

    Raises:
        InputError: non-finite values, outlier indices out of range.
    """
    y = np.ascontiguousarray(values, dtype=np.float64)
    if not np.isfinite(y).all():
        raise InputError("changepoints", "values must be finite (drop NaN iterations first)")
    out = np.unique(np.asarray(outliers, dtype=np.int64))
    if out.size and (out[0] < 0 or out[-1] >= y.size):
        raise InputError("changepoints", f"outlier index out of range 0..{y.size - 1}")
    minseglen = max(int(minseglen), MINSEGLEN)
    keep = np.ones(y.size, dtype=bool)
    keep[out] = False
    kept = np.flatnonzero(keep)
    x = y[kept]
    m = x.size
    notes: list[str] = []
    penalty = None
    cost = None
    if m < 2 * minseglen:
        notes.append(f"{m} values without outliers: changepoint needs at least {2 * minseglen} "
                     "(R stops with an error); the execution is one segment")
        starts = np.zeros(1, dtype=np.int64)
    else:
        penalty = float(penalty_factor * np.log(m))   # warmup_stats: 15.0 * numpy.log(len(p_exec))
        s1, s2 = _pelt_r.prefix_sums_r(x)
        if exact:
            cpts, cost = exact_meanvar(s1, s2, penalty, minseglen)
        else:
            cpts, cost = pelt_r_meanvar_fast(s1, s2, penalty, minseglen, notes)
        ends = kept[np.asarray(cpts, dtype=np.int64) - 1]      # R 1-based ends -> raw 0-based
        starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    means, variances = segment_stats(y, starts, out)
    return Segmentation(int(y.size), starts, means, variances, out, penalty, cost, tuple(notes))


def segmentation_from_change_points(values: ArrayLike, change_points: ArrayLike,
                                    outliers: ArrayLike = ()) -> Segmentation:
    """A :class:`Segmentation` of any change points (segview convention: first index of each new
    segment, ``0 < cp < n``), with changepoint-style segment means and ML variances computed
    from ``values`` without ``outliers``.

    Raises:
        InputError: a change point out of range, or non-finite values.
    """
    y = np.ascontiguousarray(values, dtype=np.float64)
    if not np.isfinite(y).all():
        raise InputError("segments", "values must be finite (drop NaN iterations first)")
    cps = np.unique(np.asarray(change_points, dtype=np.int64))
    if cps.size and (cps[0] <= 0 or cps[-1] >= y.size):
        raise InputError("segments", f"change points must lie in 1..{y.size - 1}, got "
                                     f"{cps.tolist()}")
    out = np.unique(np.asarray(outliers, dtype=np.int64))
    starts = np.concatenate([[0], cps]).astype(np.int64)
    means, variances = segment_stats(y, starts, out)
    return Segmentation(int(y.size), starts, means, variances, out)
