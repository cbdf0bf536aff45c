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
