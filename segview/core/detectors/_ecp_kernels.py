"""E-Divisive (:mod:`.ecp`): the split search and the permutation test, compiled.

:func:`_split_point` is the search of R ``ecp``'s ``splitPointC`` for one segment: over the first
sample ``t1`` of a right cluster and its end ``t2``, the scaled energy distance between ``x[0:t1]``
and ``x[t1:t2]``, with the within and between sums updated incrementally in the package's order, so
the statistic has R's bits. Distances are computed when needed from the rows (``sqrt`` of the summed
squared differences, then ``^alpha``, as R's ``dist(X)^alpha``), so a permuted segment needs only
its rows permuted, not an n x n matrix.

``trunc``: ecp 3.1.1 (the version TCPDBench pins) computes the scale factor ``t1 (t2 - t1) / t2`` in
integer arithmetic, truncating it; 3.1.2 fixed that. Both are available.

:func:`_perm_test` runs the R permutations: each permutes every current cluster with R's
``sample()`` (:mod:`._rrng`, one shared stream as in R), then asks whether some split of some
cluster reaches the observed statistic. The answer needs only one candidate at or above it, so the
search stops there (R computes the full maximum; the count is the same, and the random stream
does not depend on it because every permutation is drawn before the search).
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import njit
from ._rrng import sample_into


@njit(nogil=True, cache=True, inline="always")
def _dist(X, a, b, alpha):  # pragma: no cover (compiled)
    acc = 0.0
    for q in range(X.shape[1]):
        dev = X[a, q] - X[b, q]
        acc += dev * dev
    r = math.sqrt(acc)
    if alpha == 1.0:
        return r
    if alpha == 2.0:
        return r * r
    return r ** alpha


@njit(nogil=True, cache=True, inline="always")
def _stat(t1, t2, a_term, B, AB, trunc):  # pragma: no cover (compiled)
    """The scaled statistic; ``a_term = 2 A / ((t1 - 1) t1)`` is fixed within a row of t1."""
    v = (2.0 * AB / ((t2 - t1) * t1) - 2.0 * B / ((t2 - t1 - 1) * (t2 - t1))) - a_term
    if trunc:
        return v * float((t1 * (t2 - t1)) // t2)
    return v * (float(t1) * (t2 - t1) / t2)


@njit(nogil=True, cache=True)
def _split_point(X, m, min_size, alpha, trunc, B, AB, stop):  # pragma: no cover (compiled)
    """``(t1, statistic)`` of the best split of the m rows of ``X`` (``t1`` = size of the
    left cluster; ``-1, -inf`` when m < 2 min_size). With ``stop`` finite, returns as soon as a
    candidate reaches it (``t1`` then is -2). ``B``, ``AB``: scratch of length >= m + 1."""
    if m < 2 * min_size:
        return -1, -np.inf
    best_t = -1
    best = -np.inf
    t1 = min_size
    t2 = min_size * 2
    A = 0.0
    for c in range(t1):
        for r in range(t1):
            A += _dist(X, r, c, alpha)
    A = A / 2.0
    B1 = 0.0
    for c in range(t1, t2):
        for r in range(t1, t2):
            B1 += _dist(X, r, c, alpha)
    B1 = B1 / 2.0
    AB1 = 0.0
    for c in range(t1, t2):
        for r in range(t1):
            AB1 += _dist(X, r, c, alpha)
    a_term = 2.0 * A / ((t1 - 1) * t1)
    v = _stat(t1, t2, a_term, B1, AB1, trunc)
    if v > best:
        best = v
        best_t = t1
        if v >= stop:
            return -2, v
    B[t2] = B1
    AB[t2] = AB1
    for t2 in range(2 * min_size + 1, m + 1):
        sb = 0.0
        for c in range(t1, t2 - 1):
            sb += _dist(X, t2 - 1, c, alpha)
        sab = 0.0
        for c in range(t1):
            sab += _dist(X, t2 - 1, c, alpha)
        B[t2] = B[t2 - 1] + sb
        AB[t2] = AB[t2 - 1] + sab
        v = _stat(t1, t2, a_term, B[t2], AB[t2], trunc)
        if v > best:
            best = v
            best_t = t1
            if v >= stop:
                return -2, v
    t1 = min_size + 1
    while True:
        t2 = t1 + min_size
        if t2 > m:
            break
        addA = 0.0
        for c in range(t1 - 1):
            addA += _dist(X, t1 - 1, c, alpha)
        A += addA
        a_term = 2.0 * A / ((t1 - 1) * t1)
        addB = 0.0
        for c in range(t1, t2 - 1):
            addB += _dist(X, t1 - 1, c, alpha)
        while t2 <= m:
            addB += _dist(X, t1 - 1, t2 - 1, alpha)
            B[t2] -= addB
            AB[t2] += addB - addA
            v = _stat(t1, t2, a_term, B[t2], AB[t2], trunc)
            if v > best:
                best = v
                best_t = t1
                if v >= stop:
                    return -2, v
            t2 += 1
        t1 += 1
    return best_t, best


@njit(nogil=True, cache=True)
def split_segment(X, start, end, min_size, alpha, trunc):  # pragma: no cover (compiled)
    """``(location, statistic)`` for rows ``start..end - 1``: the 0-based first sample of the right
    cluster, or -1 when the segment is too short."""
    m = end - start
    B = np.zeros(m + 1)
    AB = np.zeros(m + 1)
    t, v = _split_point(X[start:end], m, min_size, alpha, trunc, B, AB, np.inf)
    if t < 0:
        return -1, v
    return start + t, v


@njit(nogil=True, cache=True)
def perm_test(X, bounds, min_size, alpha, trunc, obs, R, st, rejection):  # pragma: no cover
    """Number of the R permutations whose best split statistic reaches ``obs``. ``bounds``: sorted
    cluster boundaries ``[0, ..., n]``; ``st``: R's generator state, advanced in place."""
    n = X.shape[0]
    Xp = np.empty_like(X)
    pool = np.empty(n, dtype=np.int64)
    draw = np.empty(n, dtype=np.int64)
    B = np.zeros(n + 1)
    AB = np.zeros(n + 1)
    K = bounds.size - 1
    over = 0
    for _ in range(R):
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            sample_into(st, m, m, rejection, pool, draw)
            for i in range(m):
                for q in range(X.shape[1]):
                    Xp[a + i, q] = X[a + draw[i], q]
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            t, v = _split_point(Xp[a:a + m], m, min_size, alpha, trunc, B, AB, obs)
            if t == -2:
                over += 1
                break
    return over
