"""PELT exactly as R ``changepoint`` 2.2.2 runs it, with the Normal mean-and-variance cost.

This is the numerical core of the faithful CP-SSD emulation (spec ``docs/algorithms/cpssd.md`` §3-§4):

* :func:`prefix_sums_r` builds the cumulative sums of ``x`` and ``x*x`` the way R's ``cumsum`` does,
  accumulating in x87 80-bit extended precision and rounding each stored prefix to double. When
  ``np.longdouble`` is not the 80-bit type (ARM macOS, Windows) it uses an exact
  :class:`fractions.Fraction` emulation instead (slow but bit-identical).
* :func:`normal_meanvar_cost` is ``mll_meanvar`` of changepoint 2.2.2: twice the negative maximised
  Gaussian log-likelihood, variance floored at 1e-11 only when it is not positive.
* :func:`pelt_r_meanvar` is the package's PELT with a minimum segment length (default 2), its
  ``K = 0`` pruning and its tie rules. It is a heuristic, not an exact optimiser, and the published
  CP-SSD results are its output.

The kernels are plain scalar loops compiled with numba (``nogil`` so GUI workers run in parallel).
CROPS runs PELT dozens of times on one series with different penalties; the segment costs do not
depend on the penalty, so :func:`segment_costs` computes each one once (a triangular table, about
6x cheaper per run than the logarithms) and :func:`pelt_r_meanvar` reads it when given. The table
holds exactly the values the direct kernel computes, so results are bit-identical either way.
:func:`pelt_r_meanvar_many` runs the penalties of one CROPS round together (optionally in threads).
Indices follow R: the change-point list holds 1-based positions of the last observation of each
segment, including ``n``.
"""
from __future__ import annotations

import logging
import math
from fractions import Fraction
from functools import partial

import numpy as np
from ._jit import njit
from numpy.typing import NDArray

from ._threads import run_in_threads

#: True when ``np.longdouble`` is the x87 80-bit type (64-bit mantissa), as on x86-64 Linux.
LONGDOUBLE_IS_X87: bool = np.finfo(np.longdouble).nmant == 63
if not LONGDOUBLE_IS_X87:
    logging.getLogger(__name__).info(
        "np.longdouble is not 80-bit here: CP-SSD prefix sums use the exact (slower) Fraction path")

LOG_2PI: float = math.log(2.0 * math.pi)
VARIANCE_FLOOR: float = 1e-11


def _round_bits(q: Fraction, bits: int) -> Fraction:
    """Round ``q`` to ``bits`` significant binary digits, ties to even (exact arithmetic)."""
    if q == 0:
        return q
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    # now 2**e <= a < 2**(e+1); scale so the kept digits are the integer part
    scale = Fraction(2) ** (bits - 1 - e)
    scaled = a * scale
    floor = scaled.numerator // scaled.denominator
    rest = scaled - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        floor += 1
    return sign * Fraction(floor) / scale


def _cumsum_x87_fraction(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """R's ``cumsum`` emulated exactly: 64-bit-mantissa running sum, each prefix stored as double."""
    out = np.empty(v.size, dtype=np.float64)
    acc = Fraction(0)
    for i, val in enumerate(v.tolist()):
        acc = _round_bits(acc + Fraction(val), 64)
        out[i] = float(_round_bits(acc, 53))  # exact conversion of a 53-bit value
    return out


def cumsum_r(v: NDArray[np.float64], force_fraction: bool = False) -> NDArray[np.float64]:
    """Cumulative sum as R computes it (long double accumulator, double results)."""
    v = np.asarray(v, dtype=np.float64)
    if LONGDOUBLE_IS_X87 and not force_fraction:
        return np.cumsum(v.astype(np.longdouble)).astype(np.float64)
    return _cumsum_x87_fraction(v)


def prefix_sums_r(x: NDArray[np.float64], force_fraction: bool = False
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Prefix sums ``S1``, ``S2`` of length ``n + 1`` (``S[0] = 0``) as R's ``data_input`` builds them.

    Squares are double products ``x_i * x_i``; sums accumulate in 80-bit precision (cpssd.md §3).
    """
    x = np.asarray(x, dtype=np.float64)
    s1 = np.zeros(x.size + 1)
    s2 = np.zeros(x.size + 1)
    s1[1:] = cumsum_r(x, force_fraction)
    s2[1:] = cumsum_r(x * x, force_fraction)
    return s1, s2


@njit(nogil=True, cache=True)
def _variance_floored(s1, s2, s, t):  # pragma: no cover (compiled)
    """The ML variance of ``x[s..t-1]`` as changepoint 2.2.2 computes it, 1e-11 when not positive."""
    m = float(t - s)
    a = s1[t] - s1[s]
    b = s2[t] - s2[s]
    v = (b - (a * a) / m) / m
    if v <= 0.0:
        v = 1e-11
    return v


@njit(nogil=True, cache=True)
def normal_meanvar_cost(s1: NDArray[np.float64], s2: NDArray[np.float64], s: int, t: int) -> float:
    """Cost of the segment ``x[s..t-1]`` (prefix positions ``s < t``), changepoint 2.2.2 order."""
    return float(t - s) * ((LOG_2PI + math.log(_variance_floored(s1, s2, s, t))) + 1.0)


@njit(nogil=True, cache=True)
def _pelt_r_kernel(s1, s2, beta, minseglen, last, nseg, f):
    n = s1.size - 1
    f[0] = -beta
    last[0] = 0
    nseg[0] = 0
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = normal_meanvar_cost(s1, s2, 0, t)
        last[t] = 0
        nseg[t] = 1
    cand = np.empty(n + 2, dtype=np.int64)
    vals = np.empty(n + 2, dtype=np.float64)
    cand[0] = 0
    cand[1] = minseglen
    ncand = 2
    for t in range(2 * minseglen, n + 1):
        best = 0
        for i in range(ncand):
            tau = cand[i]
            vals[i] = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
            if vals[i] < vals[best]:
                best = i
        f[t] = vals[best]
        last[t] = cand[best]
        nseg[t] = nseg[cand[best]] + 1
        bound = f[t] + beta
        keep = 0
        for i in range(ncand):
            if vals[i] <= bound:
                cand[keep] = cand[i]
                keep += 1
        cand[keep] = t - minseglen + 1
        ncand = keep + 1


#: Largest segment-cost table :func:`segment_costs_or_none` builds (bytes); n = 3000 needs 36 MB.
COST_TABLE_MAX_BYTES: int = 48 * 2**20


def cost_table_fits(n: int, max_bytes: int | None = None) -> bool:
    """Whether the segment-cost table of ``n`` points fits in ``max_bytes`` (default
    :data:`COST_TABLE_MAX_BYTES`); without it PELT computes costs as it goes."""
    return n * (n + 1) // 2 * 8 <= (COST_TABLE_MAX_BYTES if max_bytes is None else max_bytes)


@njit(nogil=True, cache=True, inline="always")
def _column_variances(s1, s2, v, t, st1, st2):  # pragma: no cover (compiled)
    # _variance_floored's expression for s < t, without the floor: a loop LLVM vectorises (the
    # divisions are IEEE ones in SIMD too; the int32 length converts in SIMD, int64 does not)
    for s in range(t):
        m = np.float64(np.int32(t - s))
        a = st1 - s1[s]
        b = st2 - s2[s]
        v[s] = (b - (a * a) / m) / m


@njit(nogil=True, cache=True)
def _segment_costs_kernel(s1, s2, out, t_lo, t_hi):
    # column t: the variances in one vectorised pass, then the floor and the logarithms (libm,
    # one by one) exactly as normal_meanvar_cost; 1.4x faster than one pass (bench, n = 3000).
    # Also returns the least variance met (NaN if any is NaN): a floor for every segment cost.
    v = np.empty(max(t_hi, 1))
    vmin = np.inf
    nan = False
    for t in range(t_lo, t_hi):
        off = t * (t - 1) // 2
        _column_variances(s1, s2, v, t, s1[t], s2[t])
        for s in range(t):
            x = v[s]
            if x <= 0.0:
                x = 1e-11
            if x < vmin:
                vmin = x
            nan |= x != x
            out[off + s] = float(t - s) * ((LOG_2PI + math.log(x)) + 1.0)
    return np.nan if nan else vmin


def segment_costs(s1: NDArray[np.float64], s2: NDArray[np.float64], threads: int = 1
                  ) -> NDArray[np.float64]:
    """Every segment cost, column by column: ``C[t(t-1)/2 + s]`` is the cost of ``x[s..t-1]``.

    ``n (n + 1) / 2`` doubles (``s < t <= n``). ``threads > 1`` fills column ranges of equal work
    in parallel (each entry is the same expression whichever thread computes it).
    """
    return segment_costs_and_floor(s1, s2, threads)[0]


def segment_costs_and_floor(s1: NDArray[np.float64], s2: NDArray[np.float64], threads: int = 1
                            ) -> tuple[NDArray[np.float64], float]:
    """:func:`segment_costs` and the least (floored) variance of all segments (NaN if one is NaN),
    for :func:`one_segment_if_certain`."""
    n = s1.size - 1
    out = np.empty(n * (n + 1) // 2)
    a, b = np.ascontiguousarray(s1), np.ascontiguousarray(s2)
    k = max(1, min(int(threads), n // 64))
    # column t costs ~t: split [1, n] so that every range holds ~1/k of n^2/2
    cuts = [1] + [int(round(n * math.sqrt(i / k))) + 1 for i in range(1, k)] + [n + 1]
    floors = run_in_threads([partial(_segment_costs_kernel, a, b, out, lo, hi)
                             for lo, hi in zip(cuts[:-1], cuts[1:])])
    return out, (math.nan if any(math.isnan(v) for v in floors) else min(floors, default=math.inf))


def one_segment_if_certain(costs: NDArray[np.float64], vmin: float, beta: float,
                           minseglen: int = 2, lengths: NDArray[np.int64] | None = None
                           ) -> tuple[NDArray[np.int64], float] | None:
    """:func:`pelt_r_meanvar` ``(cpts, q)`` at ``beta`` without running it, when a bound proves that
    PELT keeps the whole series as one segment; None otherwise (then run PELT).

    Every segment cost is ``m ((ln 2pi + ln v) + 1)`` with ``v >= vmin``, so any segmentation of the
    first ``t`` points with ``k`` segments costs at least ``t l + (k - 1) beta``, ``l = (ln 2pi +
    ln vmin) + 1``. When ``C(0, t) < t l + beta`` for every ``t`` (with a margin of 1e-6 relative,
    far above the rounding of the sums), candidate 0 has the least value at every ``t`` (so PELT
    never prunes it) and wins at ``n``: the result is ``[n]`` with the value the kernel computes,
    ``((-beta + C(0, n)) + beta) - 0 beta``. CROPS's largest penalty is such a case on every JMH
    series (a full O(n^2) run, ~7 % of CROPS).

    ``lengths``: for a table over grid positions (:func:`grid_costs_and_floor`), those positions:
    the first ``t`` table points then hold ``lengths[t]`` points of the series, which is what the
    bound multiplies ``l`` by.
    """
    nc = costs.size
    n = int(round((math.sqrt(8 * nc + 1) - 1) / 2))
    if n * (n + 1) // 2 != nc or n < 2 * minseglen:
        return None
    if not (beta > 0 and math.isfinite(beta) and vmin > 0 and math.isfinite(vmin)):
        return None
    ell = (LOG_2PI + math.log(vmin)) + 1.0
    t = np.arange(2 * minseglen, n + 1, dtype=np.int64)
    c0 = costs[t * (t - 1) // 2]                     # C(0, t): first entry of column t
    tf = (t if lengths is None else np.asarray(lengths, dtype=np.int64)[t]).astype(np.float64)
    margin = (tf * ell + beta) - c0
    scale = beta + tf * (abs(ell) + 1.0) + np.abs(c0)
    if not bool(np.all(margin > 1e-6 * scale)):      # also False on NaN
        return None
    fn = (-beta + float(costs[n * (n - 1) // 2])) + beta
    return np.array([n], dtype=np.int64), float(fn - float(0) * float(beta))


def segment_costs_or_none(s1: NDArray[np.float64], s2: NDArray[np.float64],
                          max_bytes: int | None = None, threads: int = 1
                          ) -> NDArray[np.float64] | None:
    """:func:`segment_costs` when the table fits in ``max_bytes`` (default
    :data:`COST_TABLE_MAX_BYTES`), else None (PELT then computes costs as it goes)."""
    return segment_costs(s1, s2, threads) if cost_table_fits(s1.size - 1, max_bytes) else None


@njit(nogil=True, cache=True)
def _start_row(costs, beta, minseglen, last, nseg, f):  # pragma: no cover (compiled)
    # the table kernels' start of one run: F(0) = -beta, then the end points with one segment
    n = f.size - 1
    f[0] = -beta
    last[0] = 0
    nseg[0] = 0
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = costs[t * (t - 1) // 2]
        last[t] = 0
        nseg[t] = 1


@njit(nogil=True, cache=True)
def _pelt_r_kernel_table_many(costs, betas, minseglen, last, nseg, f):
    # _pelt_r_kernel with the costs read from the table (same operations in the same order), for
    # several penalties at once (row p of last/nseg/f is penalty p); one penalty is k = 1 (as fast
    # as a one-penalty kernel, measured). Interleaving independent runs by t reads each column once
    # for all of them. Kept apart from _pelt_r_kernel on purpose: one kernel choosing the cost
    # source per evaluation ran CROPS 2-6x slower (bench_cpssd.py), for both sources.
    k = betas.size
    n = f.shape[1] - 1
    cand = np.empty((k, n + 2), dtype=np.uint64)
    vals = np.empty((k, n + 2), dtype=np.float64)
    ncand = np.empty(k, dtype=np.int64)
    for p in range(k):
        _start_row(costs, betas[p], minseglen, last[p], nseg[p], f[p])
        cand[p, 0] = 0
        cand[p, 1] = minseglen
        ncand[p] = 2
    for t in range(2 * minseglen, n + 1):
        off = t * (t - 1) // 2
        col = costs[off:off + t]
        for p in range(k):
            beta = betas[p]
            fp = f[p]
            cp = cand[p]
            vp = vals[p]
            nc = ncand[p]
            tau = cp[0]
            bestv = (fp[tau] + col[tau]) + beta
            vp[0] = bestv
            best = 0
            for i in range(1, nc):
                tau = cp[i]
                v = (fp[tau] + col[tau]) + beta
                vp[i] = v
                if v < bestv:      # strict: the first of equal minima wins, as in R
                    bestv = v
                    best = i
            fp[t] = bestv
            last[p, t] = cp[best]
            nseg[p, t] = nseg[p, cp[best]] + 1
            bound = bestv + beta
            keep = 0
            for i in range(nc):
                cp[keep] = cp[i]
                keep += 1 if vp[i] <= bound else 0
            cp[keep] = t - minseglen + 1
            ncand[p] = keep + 1


@njit(nogil=True, cache=True)
def keep_run(NA, NB, m, tau):  # pragma: no cover (compiled)
    """Keep candidate ``tau`` (ascending) in the runs ``NA/NB[:m]``: it joins the last run when
    that run ends at ``tau``, else starts a new one; returns the number of runs."""
    if m > 0 and NB[m - 1] == tau:
        NB[m - 1] = tau + 1
        return m
    NA[m] = tau
    NB[m] = tau + 1
    return m + 1


@njit(nogil=True, cache=True)
def take_runs(ra, rb, NA, NB, m, newc):  # pragma: no cover (compiled)
    """The end of a PELT step on candidates kept as runs ``[RA, RB)``: the kept runs
    ``NA/NB[:m]`` with the new candidate ``newc`` appended (joining the last run when it ends at
    ``newc``) become the candidates ``ra/rb``; returns their number of runs."""
    m = keep_run(NA, NB, m, newc)
    for q in range(m):
        ra[q] = NA[q]
        rb[q] = NB[q]
    return m


@njit(nogil=True, cache=True)
def _pelt_r_kernel_table_runs(costs, betas, minseglen, last, nseg, f):
    # _pelt_r_kernel_table_many for a table without NaN, 1.4x faster on CROPS (bench_cpssd.py),
    # same results. PELT's candidates are kept as runs of consecutive starts [RA, RB) (on the
    # JMH series CROPS keeps 138 candidates in 2.7 runs on average), so a run's values are one
    # contiguous vector loop (unsigned indices: no wraparound checks, no gathers). The least value
    # comes from four min/max lanes, then the first position holding it: the value and the
    # position strict `<` picks (ties: the first; no NaN, so the least value is one of them).
    # When the largest value is within the bound (80 % of the steps) nothing is pruned.
    k = betas.size
    n = f.shape[1] - 1
    RA = np.empty((k, n + 2), dtype=np.int64)
    RB = np.empty((k, n + 2), dtype=np.int64)
    nr = np.empty(k, dtype=np.int64)
    vals = np.empty(n + 2)
    NA = np.empty(n + 2, dtype=np.int64)
    NB = np.empty(n + 2, dtype=np.int64)
    for p in range(k):
        _start_row(costs, betas[p], minseglen, last[p], nseg[p], f[p])
        RA[p, 0] = 0          # candidates 0 and minseglen
        RB[p, 0] = 1
        if minseglen == 1:
            RB[p, 0] = 2
            nr[p] = 1
        else:
            RA[p, 1] = minseglen
            RB[p, 1] = minseglen + 1
            nr[p] = 2
    for t in range(2 * minseglen, n + 1):
        uoff = np.uint64(t * (t - 1) // 2)
        newc = t - minseglen + 1
        for p in range(k):
            up = np.uint64(p)
            beta = betas[p]
            ra = RA[p]
            rb = RB[p]
            nrp = nr[p]
            # 1. the values, run by run, into vals[0:c] (candidate order)
            c = 0
            for r in range(nrp):
                a = ra[r]
                b = rb[r]
                shift = np.uint64(c) - np.uint64(a)
                for tau in range(np.uint64(a), np.uint64(b)):
                    vals[shift + tau] = (f[up, tau] + costs[uoff + tau]) + beta
                c += b - a
            # 2. least and largest value, four lanes
            v0 = vals[0]
            m0 = v0
            m1 = v0
            m2 = v0
            m3 = v0
            x0 = v0
            x1 = v0
            x2 = v0
            x3 = v0
            c4 = c & ~3
            for q in range(0, c4, 4):
                a0 = vals[q]
                a1 = vals[q + 1]
                a2 = vals[q + 2]
                a3 = vals[q + 3]
                m0 = a0 if a0 < m0 else m0
                m1 = a1 if a1 < m1 else m1
                m2 = a2 if a2 < m2 else m2
                m3 = a3 if a3 < m3 else m3
                x0 = a0 if a0 > x0 else x0
                x1 = a1 if a1 > x1 else x1
                x2 = a2 if a2 > x2 else x2
                x3 = a3 if a3 > x3 else x3
            for q in range(c4, c):
                a0 = vals[q]
                m0 = a0 if a0 < m0 else m0
                x0 = a0 if a0 > x0 else x0
            mn = min(min(m0, m1), min(m2, m3))
            mx = max(max(x0, x1), max(x2, x3))
            i = 0
            while i < c - 1 and vals[i] != mn:
                i += 1
            bestv = vals[i]
            pos = 0
            tau_best = ra[0]
            for r in range(nrp):
                ln = rb[r] - ra[r]
                if i < pos + ln:
                    tau_best = ra[r] + (i - pos)
                    break
                pos += ln
            f[p, t] = bestv
            last[p, t] = tau_best
            nseg[p, t] = nseg[p, tau_best] + 1
            bound = bestv + beta
            # 3. prune (keep v <= bound, in order) and append the new candidate
            if mx <= bound:
                if rb[nrp - 1] == newc:
                    rb[nrp - 1] = newc + 1
                else:
                    ra[nrp] = newc
                    rb[nrp] = newc + 1
                    nr[p] = nrp + 1
                continue
            m = 0
            pos = 0
            for r in range(nrp):
                a = ra[r]
                ln = rb[r] - a
                q = 0
                while q < ln:
                    while q < ln and vals[pos + q] > bound:
                        q += 1
                    if q == ln:
                        break
                    q0 = q
                    while q < ln and vals[pos + q] <= bound:
                        q += 1
                    NA[m] = a + q0
                    NB[m] = a + q
                    m += 1
                pos += ln
            nr[p] = take_runs(ra, rb, NA, NB, m, newc)


def pelt_r_meanvar_many(s1: NDArray[np.float64], s2: NDArray[np.float64], betas: list[float],
                        minseglen: int, costs: NDArray[np.float64], threads: int = 1,
                        nan_free: bool = False) -> list[tuple[NDArray[np.int64], float]]:
    """:func:`pelt_r_meanvar` with the cost table for each penalty of ``betas`` (same results,
    one pass over the table for all of them; ``threads > 1`` splits the penalties over threads).

    ``nan_free``: the caller knows the table holds no NaN (:func:`segment_costs_and_floor`'s floor
    is not NaN); a faster kernel then runs, with the same results.
    """
    n = s1.size - 1
    if n < 2 * minseglen:
        raise ValueError(f"PELT needs at least {2 * minseglen} points, got {n}")
    if costs.size != n * (n + 1) // 2:
        raise ValueError(f"cost table has {costs.size} entries, expected {n * (n + 1) // 2}")
    k = len(betas)
    b = np.asarray([float(v) for v in betas], dtype=np.float64)
    last = np.zeros((k, n + 1), dtype=np.int64)
    nseg = np.zeros((k, n + 1), dtype=np.int64)
    f = np.zeros((k, n + 1), dtype=np.float64)
    nt = max(1, min(int(threads), k))
    cuts = [k * i // nt for i in range(nt + 1)]          # contiguous rows: views, not copies
    kernel = (_pelt_r_kernel_table_runs if nan_free and bool(np.isfinite(b).all())
              else _pelt_r_kernel_table_many)
    run_in_threads([partial(kernel, costs, b[lo:hi], int(minseglen), last[lo:hi], nseg[lo:hi],
                            f[lo:hi])
                    for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo])
    return [_result(last[p], nseg[p], f[p], float(b[p])) for p in range(k)]


@njit(nogil=True, cache=True)
def _walk_back(last):
    """R's ``cpts``: the segment ends found walking ``last`` back from ``n``, ascending."""
    n = last.size - 1
    k = 0
    c = n
    while c != 0:
        k += 1
        c = last[c]
    out = np.empty(k, dtype=np.int64)
    c = n
    while c != 0:
        k -= 1
        out[k] = c
        c = last[c]
    return out


def _result(last: NDArray[np.int64], nseg: NDArray[np.int64], f: NDArray[np.float64], beta: float
            ) -> tuple[NDArray[np.int64], float]:
    """R's ``cpts`` (walk back from ``n``) and the unpenalised cost of one PELT run."""
    n = f.size - 1
    q = float(f[n] - float(nseg[n] - 1) * float(beta))
    return _walk_back(last), q


def pelt_r_meanvar(s1: NDArray[np.float64], s2: NDArray[np.float64], beta: float,
                   minseglen: int = 2, costs: NDArray[np.float64] | None = None,
                   nan_free: bool = False) -> tuple[NDArray[np.int64], float]:
    """Run changepoint 2.2.2's PELT at penalty ``beta`` (any real value, also <= 0).

    Args:
        s1, s2: prefix sums from :func:`prefix_sums_r` (length ``n + 1``).
        beta: penalty per change point.
        minseglen: minimum segment length (R's ``cpt.meanvar`` never goes below 2).
        costs: the table of :func:`segment_costs` for these sums (same result, faster), or None.
        nan_free: ``costs`` holds no NaN (a faster kernel, same result; see
            :func:`pelt_r_meanvar_many`).

    Returns:
        ``(cpts, q)``: ascending 1-based R indices of the last observation of each segment, including
        ``n`` (R's ``cpts`` slot), and the unpenalised cost ``F[n] - (nseg[n] - 1) * beta``.

    Raises:
        ValueError: ``n < 2 * minseglen`` (R stops with an error there).
    """
    if costs is not None:
        return pelt_r_meanvar_many(s1, s2, [beta], minseglen, costs, 1, nan_free)[0]
    n = s1.size - 1
    if n < 2 * minseglen:
        raise ValueError(f"PELT needs at least {2 * minseglen} points, got {n}")
    last = np.zeros(n + 1, dtype=np.int64)
    nseg = np.zeros(n + 1, dtype=np.int64)
    f = np.zeros(n + 1, dtype=np.float64)
    _pelt_r_kernel(np.ascontiguousarray(s1), np.ascontiguousarray(s2), float(beta),
                   int(minseglen), last, nseg, f)
    return _result(last, nseg, f, float(beta))


# --- Long series: change points restricted to a grid of block boundaries (cpssd.md §11) ---------

def grid_positions(n: int, points: int, minseglen: int = 2) -> NDArray[np.int64]:
    """Prefix positions ``0 = p_0 < p_1 < ... < p_G = n`` of ``G = min(points, n // minseglen)``
    blocks of nearly equal length (``p_i = floor(i n / G)``: every block holds ``floor(n / G)`` or
    ``ceil(n / G)`` points, so at least ``minseglen``)."""
    g = max(1, min(int(points), n // max(1, int(minseglen))))
    return (np.arange(g + 1, dtype=np.int64) * n) // g


@njit(nogil=True, cache=True)
def _grid_costs_kernel(s1, s2, pos, out, t_lo, t_hi):  # pragma: no cover (compiled)
    # _segment_costs_kernel over the grid: entry (s, t) is the cost of x[pos[s]..pos[t]-1] from the
    # full-resolution prefix sums at the two boundaries, the length being pos[t] - pos[s] points
    # (the same expression as normal_meanvar_cost, so pos = 0..n gives segment_costs bit for bit)
    vmin = np.inf
    nan = False
    for t in range(t_lo, t_hi):
        off = t * (t - 1) // 2
        pt = pos[t]
        st1 = s1[pt]
        st2 = s2[pt]
        for s in range(t):
            ps = pos[s]
            m = float(pt - ps)
            a = st1 - s1[ps]
            b = st2 - s2[ps]
            x = (b - (a * a) / m) / m
            if x <= 0.0:
                x = 1e-11
            if x < vmin:
                vmin = x
            nan |= x != x
            out[off + s] = m * ((LOG_2PI + math.log(x)) + 1.0)
    return np.nan if nan else vmin


def grid_costs_and_floor(s1: NDArray[np.float64], s2: NDArray[np.float64],
                         pos: NDArray[np.int64], threads: int = 1
                         ) -> tuple[NDArray[np.float64], float]:
    """:func:`segment_costs_and_floor` for segments between grid positions ``pos`` (from
    :func:`grid_positions`): ``C[t(t-1)/2 + s]`` is the cost of the points ``pos[s]..pos[t]-1``,
    ``G (G + 1) / 2`` doubles for ``G + 1`` positions. The table kernels read it as a series of
    ``G`` points, so PELT on it searches segmentations whose change points are grid positions,
    with every segment cost taken from the full-resolution sums."""
    pos = np.ascontiguousarray(pos, dtype=np.int64)
    g = pos.size - 1
    out = np.empty(g * (g + 1) // 2)
    a, b = np.ascontiguousarray(s1), np.ascontiguousarray(s2)
    k = max(1, min(int(threads), g // 64))
    cuts = [1] + [int(round(g * math.sqrt(i / k))) + 1 for i in range(1, k)] + [g + 1]
    floors = run_in_threads([partial(_grid_costs_kernel, a, b, pos, out, lo, hi)
                             for lo, hi in zip(cuts[:-1], cuts[1:])])
    return out, (math.nan if any(math.isnan(v) for v in floors) else min(floors, default=math.inf))


def grid_costs_numpy(s1: NDArray[np.float64], s2: NDArray[np.float64], pos: NDArray[np.int64]
                     ) -> NDArray[np.float64]:
    """Reference for :func:`grid_costs_and_floor`'s table, column by column in numpy."""
    g = pos.size - 1
    out = np.empty(g * (g + 1) // 2)
    for t in range(1, g + 1):
        ps = pos[:t]
        m = (pos[t] - ps).astype(np.float64)
        a = s1[pos[t]] - s1[ps]
        b = s2[pos[t]] - s2[ps]
        v = (b - (a * a) / m) / m
        v = np.where(v <= 0.0, 1e-11, v)
        out[t * (t - 1) // 2: t * (t - 1) // 2 + t] = m * ((LOG_2PI + np.log(v)) + 1.0)
    return out


def _cost_np(s1: NDArray[np.float64], s2: NDArray[np.float64], s: NDArray[np.int64],
             t: NDArray[np.int64]) -> NDArray[np.float64]:
    m = (t - s).astype(np.float64)
    a = s1[t] - s1[s]
    b = s2[t] - s2[s]
    v = (b - (a * a) / m) / m
    v = np.where(v <= 0.0, 1e-11, v)
    return m * ((LOG_2PI + np.log(v)) + 1.0)


def refine_change_points(s1: NDArray[np.float64], s2: NDArray[np.float64],
                         ends: NDArray[np.int64], radius: int, minseglen: int = 2,
                         beta: float | None = None) -> NDArray[np.int64]:
    """Move each change point of a segmentation within ``+-radius`` points to the best split of
    its two neighbouring segments at full resolution, the other change points fixed.

    ``ends``: R's ``cpts`` (ascending segment ends, 1-based, the last one ``n``). One sweep from
    left to right, each change point seeing its left neighbour already moved; a move keeps both
    segments at least ``minseglen`` long, and the current position is always a candidate (ties keep
    the leftmost least cost), so the total cost never rises. Not a global optimum: each change
    point is placed given its neighbours, once.

    With ``beta`` (the penalty), two change points at most ``2 radius`` apart are first tried as
    one: the best single change point between their outer neighbours replaces them when that does
    not raise the penalised cost (a grid search puts two change points around a change that falls
    inside a block, isolating the mixed block). So the penalised cost never rises either.
    """
    out = np.asarray(ends, dtype=np.int64).copy()
    if beta is not None:
        out = _merge_close_pairs(s1, s2, out, radius, minseglen, float(beta))
    for j in range(out.size - 1):
        left = 0 if j == 0 else int(out[j - 1])
        right = int(out[j + 1])
        lo = max(left + minseglen, int(out[j]) - radius)
        hi = min(right - minseglen, int(out[j]) + radius)
        if hi <= lo:
            continue
        p = np.arange(lo, hi + 1, dtype=np.int64)
        total = _split_costs(s1, s2, left, p, right)
        if np.isfinite(total).all():
            out[j] = p[int(np.argmin(total))]
    return out


def _split_costs(s1: NDArray[np.float64], s2: NDArray[np.float64], left: int,
                 p: NDArray[np.int64], right: int) -> NDArray[np.float64]:
    return _cost_np(s1, s2, np.full(p.size, left), p) + _cost_np(s1, s2, p, np.full(p.size, right))


def segmentation_cost(s1: NDArray[np.float64], s2: NDArray[np.float64], ends: NDArray[np.int64]
                      ) -> float:
    """The unpenalised cost of the segmentation with R ``cpts`` ``ends``, at full resolution."""
    e = np.asarray(ends, dtype=np.int64)
    return float(_cost_np(s1, s2, np.concatenate([[0], e[:-1]]), e).sum())


def _merge_close_pairs(s1: NDArray[np.float64], s2: NDArray[np.float64], ends: NDArray[np.int64],
                       radius: int, minseglen: int, beta: float) -> NDArray[np.int64]:
    out = [int(v) for v in ends]
    j = 0
    while j + 2 < len(out):            # change points out[j], out[j + 1] (out[-1] is n)
        a, b = out[j], out[j + 1]
        left = 0 if j == 0 else out[j - 1]
        right = out[j + 2]
        if b - a <= 2 * radius:
            old = float(_cost_np(s1, s2, np.array([left, a, b]), np.array([a, b, right])).sum())
            lo = max(left + minseglen, a - radius)
            hi = min(right - minseglen, b + radius)
            if lo <= hi:
                p = np.arange(lo, hi + 1, dtype=np.int64)
                total = _split_costs(s1, s2, left, p, right)
                k = int(np.argmin(total))
                if np.isfinite(total).all() and total[k] <= old + beta:
                    out[j:j + 2] = [int(p[k])]
                    continue
        j += 1
    return np.asarray(out, dtype=np.int64)
