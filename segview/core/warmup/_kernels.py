"""Compiled loops of the warm-up analysis (numba, ``nogil``, cached): warmup_stats' moving-window
outlier rule and the exact optimal partitioning under R changepoint's Normal mean-and-variance cost.

Loaded on first use (:func:`segview.core.lazy.lazy_module`), so importing :mod:`segview.core.warmup`
or listing the detectors does not import numba.
"""
from __future__ import annotations

import math

import numpy as np
from ..detectors._jit import njit

from ..detectors._pelt_r import normal_meanvar_cost


@njit(nogil=True, cache=True)
def _percentile_sorted(buf, size, pc):  # pragma: no cover (compiled)
    # warmup/outliers.py percentile(): linear interpolation written as d0 + d1, not numpy's lerp
    if size == 1:
        return buf[0]
    index = float(size - 1) * (pc / 100.0)
    f = math.floor(index)
    c = math.ceil(index)
    if f == c:
        return buf[int(index)]
    d0 = buf[int(f)] * (c - index)
    d1 = buf[int(c)] * (index - f)
    return d0 + d1


@njit(nogil=True, cache=True)
def _median_sorted(buf, size):  # pragma: no cover (compiled)
    if size == 1:
        return buf[0]
    idx = (size - 1) // 2
    if size % 2 == 1:
        return buf[idx]
    return (buf[idx] + buf[idx + 1]) / 2.0


@njit(nogil=True, cache=True)
def ws_outlier_mask(data, window, mask):  # pragma: no cover (compiled)
    """warmup_stats' ``_tukey_all_outliers`` (commit 41212e0) into ``mask`` (``data`` finite).

    For every index ``i``: the window is ``data[l:r]`` with ``l = max(0, i - h)``, ``r = min(n,
    i + h)``, ``h = window // 2`` (Python 2 integer division); it is skipped when ``l == 0`` and
    ``r < window`` (incomplete first windows); ``i`` is an outlier when ``data[i]`` lies strictly
    outside ``median +- 3 (p90 - p10)`` of its window. ``l`` and ``r`` never decrease with ``i``, so
    one sorted buffer slides along (removal by bisection, insertion in place): the order
    statistics are the values a full sort gives.
    """
    n = data.size
    h = window // 2
    buf = np.empty(2 * h + 1)
    size = 0
    cl = 0
    cr = 0
    started = False
    for i in range(n):
        l = 0 if i - h < 0 else i - h
        r = n if i + h > n else i + h
        if l == 0 and r < window:
            continue
        if not started:
            for k in range(l, r):
                buf[k - l] = data[k]
            size = r - l
            buf[:size].sort()
            cl = l
            cr = r
            started = True
        while cl < l:
            old = data[cl]
            lo = 0
            hi = size - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if buf[mid] < old:
                    lo = mid + 1
                else:
                    hi = mid
            for k in range(lo, size - 1):
                buf[k] = buf[k + 1]
            size -= 1
            cl += 1
        while cr < r:
            new = data[cr]
            k = size
            while k > 0 and buf[k - 1] > new:
                buf[k] = buf[k - 1]
                k -= 1
            buf[k] = new
            size += 1
            cr += 1
        if size == 0:
            continue
        med = _median_sorted(buf, size)
        band = 3 * (_percentile_sorted(buf, size, 90.0) - _percentile_sorted(buf, size, 10.0))
        d = data[i]
        if d > (med + band) or d < (med - band):
            mask[i] = True


@njit(nogil=True, cache=True)
def exact_meanvar_op(s1, s2, beta, minseglen, last, nseg, f):  # pragma: no cover (compiled)
    """Optimal partitioning (Jackson et al. 2005): the exact minimum of the penalised cost that
    :func:`segview.core.detectors._pelt_r.pelt_r_meanvar` approximates, with the same segment
    cost (:func:`normal_meanvar_cost`, changepoint 2.2.2's ``mll_meanvar`` in the same order of
    operations), the same minimum segment length, the same start (``F[0] = -beta``, ``F[t] =
    C(0, t)`` for ``t < 2 minseglen``) and the same tie rule (the smallest ``tau`` of equal
    values). Every ``tau`` in ``{0} U [minseglen, t - minseglen]`` is tried: O(n^2), no pruning.
    """
    n = s1.size - 1
    f[0] = -beta
    last[0] = 0
    nseg[0] = 0
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = normal_meanvar_cost(s1, s2, 0, t)
        last[t] = 0
        nseg[t] = 1
    for t in range(2 * minseglen, n + 1):
        bestv = (f[0] + normal_meanvar_cost(s1, s2, 0, t)) + beta
        best = 0
        for tau in range(minseglen, t - minseglen + 1):
            v = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
            if v < bestv:
                bestv = v
                best = tau
        f[t] = bestv
        last[t] = best
        nseg[t] = nseg[best] + 1


# --- R's PELT, the same decisions, fewer logarithms --------------------------------------------
# pelt_r_meanvar spends ~90 % of its time in libm's log: one per candidate and time step, and with
# warmup_stats' penalty (15 ln n) PELT prunes little, so ~n^2/2 logs. The kernel below takes the
# same decisions from values computed with a cheap logarithm (exponent bits plus a 7-term atanh
# series, |error| < 1e-13, vectorised by LLVM) and evaluates a candidate exactly (libm) only when
# a decision depends on it within a rigorous margin: being the minimum, or being kept by the
# pruning test. The exact values decide, so the change points, F and the kept candidate set are
# the plain kernel's (checked in tests/core/test_warmup_changepoints.py).

_LN2 = 0.6931471805599453
_SQRT2 = 1.4142135623730951
_LOG_ERR = 1e-11          # bound used for |approximate log - log| (true bound ~1e-13)


@njit(nogil=True, cache=True, fastmath=True)
def _approx_log_column(v, bits, ebits, out, t):  # pragma: no cover (compiled)
    # out[s] ~ log(v[s]) for s < t; v positive and normal (others fixed up by the caller). The
    # exponent becomes a double through its bits (2^52 + e), not an int64 -> double conversion,
    # which AVX2 cannot vectorise.
    iv = v.view(np.int64)
    for s in range(t):
        b = iv[s]
        bits[s] = (b & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000
        ebits[s] = (b >> 52) | 0x4330000000000000
    fm = bits.view(np.float64)
    fe = ebits.view(np.float64)
    for s in range(t):
        m = fm[s]
        e = fe[s] - 4503599627371519.0          # 2^52 + 1023
        big = m > _SQRT2
        m = m * 0.5 if big else m
        e = e + 1.0 if big else e
        z = (m - 1.0) / (m + 1.0)
        z2 = z * z
        p = z * (2.0 + z2 * (2.0 / 3 + z2 * (2.0 / 5 + z2 * (2.0 / 7 + z2 * (
            2.0 / 9 + z2 * (2.0 / 11 + z2 * (2.0 / 13 + z2 * (2.0 / 15))))))))
        out[s] = e * _LN2 + p


@njit(nogil=True, cache=True)
def _approx_cost_column(s1, s2, t, v, bits, ebits, ca):  # pragma: no cover (compiled)
    # ca[s] ~ normal_meanvar_cost(s1, s2, s, t) for s < t; returns max |ca[s]|
    st1 = s1[t]
    st2 = s2[t]
    for s in range(t):
        m = np.float64(np.int32(t - s))
        a = st1 - s1[s]
        b = st2 - s2[s]
        x = (b - (a * a) / m) / m
        v[s] = x if x > 0.0 else 1e-11
    _approx_log_column(v, bits, ebits, ca, t)
    for s in range(t):
        x = v[s]
        if not (x > 1e-300 and x < 1e300):
            ca[s] = math.log(x)
    cmax = 0.0
    for s in range(t):
        c = np.float64(np.int32(t - s)) * ((2 * 0.9189385332046728 + ca[s]) + 1.0)
        ca[s] = c
        cmax = max(cmax, abs(c))
    return cmax


@njit(nogil=True, cache=True)
def pelt_r_meanvar_filtered(s1, s2, beta, minseglen, last, nseg, f):  # pragma: no cover
    """``_pelt_r._pelt_r_kernel`` (changepoint 2.2.2's PELT) with approximate values filtering the
    exact evaluations; ``s1``, ``s2`` must be finite. Returns the number of exact evaluations.

    Every approximate value ``(F[tau] + c~) + beta`` is within ``M = 2e-11 t + 1e-14 (max|F| +
    max|c~| + |beta| + 1)`` of the exact one (log error <= 1e-11 per point of segment length,
    three roundings of magnitude <= the bracket). The exact minimum lies among the candidates
    whose approximate value is <= min + 2M: those are evaluated exactly and the first least exact
    value wins, as in the plain kernel. A candidate is kept by the pruning test ``value <= F[t] +
    beta`` surely when its approximate value + M is, dropped surely when its approximate value - M
    exceeds it, and evaluated exactly otherwise.
    """
    n = s1.size - 1
    f[0] = -beta
    last[0] = 0
    nseg[0] = 0
    fmax = abs(beta)
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = normal_meanvar_cost(s1, s2, 0, t)
        last[t] = 0
        nseg[t] = 1
        fmax = max(fmax, abs(f[t]))
    cand = np.empty(n + 2, dtype=np.int64)
    vals = np.empty(n + 2)
    isx = np.zeros(n + 2, dtype=np.bool_)
    xidx = np.empty(n + 2, dtype=np.int64)
    v = np.empty(n + 1)
    bits = np.empty(n + 1, dtype=np.int64)
    ebits = np.empty(n + 1, dtype=np.int64)
    ca = np.empty(n + 1)
    cand[0] = 0
    cand[1] = minseglen
    ncand = 2
    n_exact = 0
    ab = abs(beta)
    for t in range(2 * minseglen, n + 1):
        cmax = _approx_cost_column(s1, s2, t, v, bits, ebits, ca)
        marg = _LOG_ERR * 2.0 * t + 1e-14 * (fmax + cmax + ab + 1.0)
        amin = np.inf
        for i in range(ncand):
            tau = cand[i]
            x = (f[tau] + ca[tau]) + beta
            vals[i] = x
            amin = x if x < amin else amin
        top = amin + 2.0 * marg
        nx = 0
        best = -1
        bestv = np.inf
        for i in range(ncand):
            if vals[i] <= top:
                tau = cand[i]
                x = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
                vals[i] = x
                isx[i] = True
                xidx[nx] = i
                nx += 1
                if best < 0 or x < bestv:
                    best = i
                    bestv = x
        n_exact += nx
        f[t] = bestv
        fmax = max(fmax, abs(bestv))
        last[t] = cand[best]
        nseg[t] = nseg[cand[best]] + 1
        bound = f[t] + beta
        keep = 0
        for i in range(ncand):
            x = vals[i]
            if not isx[i]:
                if x - marg > bound:
                    continue
                if not (x + marg <= bound):
                    tau = cand[i]
                    x = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
                    n_exact += 1
            if x <= bound:
                cand[keep] = cand[i]
                keep += 1
        for j in range(nx):
            isx[xidx[j]] = False
        cand[keep] = t - minseglen + 1
        ncand = keep + 1
    return n_exact
