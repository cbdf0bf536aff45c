"""Kernel change-point analysis (:mod:`.kcpa`): segment costs and the pruned dynamic programme.

:func:`segment_costs` fills ``U[s, e]``, the within-segment scatter of ``x[s..e]`` in the Gaussian
kernel's feature space, ``m - (1/m) sum_{r,c in s..e} k(x_r, x_c)`` (``m = e - s + 1``), for all
``s <= e`` in O(n^2): the block sums grow by one row and column at a time. (R ``ecp`` sums each block
afresh, O(n^4); the two differ only in the rounding of the last bits.)

:func:`kcpa_dp` is R ``ecp``'s ``kcpa`` segment-neighbourhood recursion, ``II[k, i] = min_j II[k-1, j]
+ U[j+1, i]`` for every number of segments ``k + 1 <= L``, followed by the choice ``argmin_K II[K-1,
n-1] + pen(K)``, with the same tie rules (the first j and the first K that reach the minimum). It is
exact but does not visit every cell: costs are non-negative and ``pen`` is increasing, so a prefix
whose cost plus the smallest penalty of any longer segmentation already exceeds the best total found
so far (``UB``) can be on no optimal path, and it is dropped. With the all-singletons segmentation
(cost 0) giving ``UB`` at the start, the cells that survive form a band near the diagonal and the
O(L n^2) recursion (O(n^3) for TCPDBench's ``L = n``) becomes roughly O(n w^2) for a band of width w.
Floating-point arguments: additions of non-negative numbers round monotonically, so a dropped cell's
every completion rounds to a total above ``UB`` too; a scan along growing segments stops once a
candidate exceeds the bound by a margin larger than the rounding of the costs (a segment's true cost
never decreases as it grows).

:func:`kcpa_columns` is the same recursion unpruned for a small ``L``, in column order with each
column of ``U`` computed on the fly (no table; the penalty enters only :func:`decide_columns`).

``compiled=False`` runs the same functions uncompiled (slow; the tests' reference), and
:func:`kcpa_dense` is the plain O(L n^2) recursion over every cell, R's loop as written.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._jit import njit


@njit(nogil=True, cache=True)
def _segment_costs(X, h, U):  # pragma: no cover (compiled)
    n, d = X.shape
    prev = np.zeros(n + 1)  # S(s + 1, e) for e > s: the block sums of the row below
    cur = np.zeros(n + 1)
    for s in range(n - 1, -1, -1):
        c = 0.0
        cur[s] = 1.0
        U[s, s] = 1.0 - 1.0
        for e in range(s + 1, n):
            acc = 0.0
            for q in range(d):
                dev = X[s, q] - X[e, q]
                acc += dev * dev
            if d == 1 and acc >= 1e-290:
                # one dimension: acc = fl(dev^2) and fl(sqrt(acc))^2 == acc exactly (IEEE
                # sqrt of a rounded square of a normal number), so R's sqrt-then-square is skipped
                c += math.exp(-acc / h)
            else:
                r = math.sqrt(acc)
                c += math.exp(-(r * r) / h)
            tot = prev[e] + 2.0 * c + 1.0
            cur[e] = tot
            m = e - s + 1.0
            U[s, e] = m - tot / m
        for e in range(s, n):
            prev[e] = cur[e]


def segment_costs(X: NDArray[np.float64], h: float, compiled: bool = True) -> NDArray[np.float64]:
    """``U`` (n, n), upper triangle: the kernel within-segment scatter of every segment."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    U = np.zeros((n, n))
    (_segment_costs if compiled else _segment_costs.py_func)(X, float(h), U)
    return U


@njit(nogil=True, cache=True)
def _kcpa_dp(U, pen, sufmin, L, ub0, S, hoff, hhi, hfinal, hbuf):  # pragma: no cover (compiled)
    """Fill ``S[K]`` (total of the best K-segmentation, +inf where pruned/unreachable, NaN where R
    has NaN), and the back-pointers; return the filled length of ``hbuf``."""
    n = U.shape[0]
    inf = np.inf
    prev = np.full(n, inf)
    cur = np.full(n, inf)
    best = np.full(n, inf)
    arg = np.zeros(n, dtype=np.int64)
    reached = np.zeros(n, dtype=np.bool_)
    ub = ub0
    # layer 0: one segment x[0..i]
    for i in range(n):
        prev[i] = U[0, i]
    S[1] = prev[n - 1] + pen[1]
    if S[1] < ub:
        ub = S[1]
    hoff[0] = 0
    hhi[0] = -1
    hfinal[0] = 0
    used = 0
    alive = np.empty(n, dtype=np.int64)
    na = 0
    for i in range(n - 1):
        if L >= 2 and prev[i] + sufmin[2] <= ub:
            alive[na] = i
            na += 1
    for k in range(1, L):
        if k > n - 1 or na == 0:
            break
        bound = ub - sufmin[k + 1]
        hi = -1
        for t in range(na):
            j = alive[t]
            base = prev[j]
            row = U[j + 1]
            for i in range(j + 1, n):
                v = base + row[i]
                if not reached[i]:
                    reached[i] = True
                    arg[i] = 0
                    if i > hi and i < n - 1:
                        hi = i
                if v < best[i]:  # R's test: the first j wins a tie; NaN never wins
                    best[i] = v
                    arg[i] = j + 1
                if v - bound > 1e-12 * (i - j) * (i - j) + 1e-12:
                    break
        # store back-pointers of this layer, collect the survivors
        if used + (hi - k + 1) > hbuf.size:
            grow = max(hbuf.size * 2, used + hi - k + 1)
            nb = np.zeros(grow, dtype=np.int32)
            nb[:used] = hbuf[:used]
            hbuf = nb
        hoff[k] = used
        hhi[k] = hi
        for i in range(k, hi + 1):
            hbuf[used + i - k] = arg[i] if reached[i] else 0
        used += max(0, hi - k + 1)
        if reached[n - 1]:
            hfinal[k] = arg[n - 1]
            S[k + 1] = best[n - 1] + pen[k + 1]
            if S[k + 1] < ub:
                ub = S[k + 1]
        na = 0
        lim = sufmin[k + 2] if k + 2 <= L else inf
        for i in range(k, n - 1):
            if reached[i]:
                cur[i] = best[i]
                if k + 2 <= L and best[i] + lim <= ub:
                    alive[na] = i
                    na += 1
            else:
                cur[i] = inf
        for i in range(n):
            prev[i] = cur[i]
            reached[i] = False
            best[i] = inf
    return hbuf


@njit(nogil=True, cache=True)
def _kcpa_columns(X, h, L, II, H, c, tot, ucol, e0, e1):  # pragma: no cover (compiled)
    """Columns ``e0..e1-1`` of the full recursion (R's loop, :func:`kcpa_dense`) for ``L``
    segments at most, with ``U[., e]`` computed column by column instead of read from the table.

    The column holds exactly :func:`_segment_costs`' values: ``c[s]`` is the same running sum
    ``sum_{e' = s+1..e} k(x_s, x_e')`` (one addition per new ``e``), ``tot[s] = tot[s+1] + 2 c[s] +
    1`` the same block sum, ``U[s, e] = m - tot[s] / m``. ``II`` (L, n) starts at +inf, ``H`` at 0;
    ``c``/``tot`` carry over between calls. Every cell of layer ``k`` at column ``e`` scans
    ``j = k-1..e-1`` in order with a strict ``<`` (the first j wins a tie, NaN never wins), as R.
    This order keeps the layers and the column in cache (ruptures' ``ekcpd_compute`` loop order)
    and needs O(L n) memory, not the n x n table."""
    n, d = X.shape
    inf = np.inf
    for e in range(e0, e1):
        tot[e] = 1.0
        c[e] = 0.0
        ucol[e] = 1.0 - 1.0
        for s in range(e - 1, -1, -1):
            acc = 0.0
            for q in range(d):
                dev = X[s, q] - X[e, q]
                acc += dev * dev
            if d == 1 and acc >= 1e-290:  # see _segment_costs
                kv = math.exp(-acc / h)
            else:
                r = math.sqrt(acc)
                kv = math.exp(-(r * r) / h)
            c[s] += kv
            t = tot[s + 1] + 2.0 * c[s] + 1.0
            tot[s] = t
            m = e - s + 1.0
            ucol[s] = m - t / m
        II[0, e] = ucol[0]
        for k in range(1, min(L, e + 1)):
            prev = II[k - 1]
            best = inf
            arg = 0
            for j in range(k - 1, e):
                v = prev[j] + ucol[j + 1]
                if v < best:
                    best = v
                    arg = j + 1
            II[k, e] = best
            H[k, e] = arg


def kcpa_columns(X: NDArray[np.float64], h: float, L: int, check=lambda: None,
                 compiled: bool = True, block: int = 128
                 ) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
    """``(II[:, n-1], H)`` of the full recursion for at most ``L`` segments: the best cost with
    ``K`` segments is ``II[K-1]``, independent of the penalty, and ``H`` (L, n) the back-pointers.
    O(L n^2) steps and O(L n) memory; ``check()`` runs between blocks of columns."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    L = max(1, min(int(L), n))
    II = np.full((L, n), np.inf)
    H = np.zeros((L, n), dtype=np.int32)
    c, tot, ucol = np.zeros(n + 1), np.zeros(n + 1), np.zeros(n + 1)
    fn = _kcpa_columns if compiled else _kcpa_columns.py_func
    for e0 in range(0, n, block):
        check()
        fn(X, float(h), L, II, H, c, tot, ucol, e0, min(n, e0 + block))
    return II[:, n - 1].copy(), H


def decide_columns(last: NDArray[np.float64], H: NDArray[np.int32], n: int, L: int, cost: float,
                   vmax: float) -> tuple[list[int], NDArray[np.float64]]:
    """R's choice among ``L`` segments at most (``L <= last.size``) from :func:`kcpa_columns`'
    output: :func:`kcpa_dense`'s decision and backtrack (same change points and optimum as
    :func:`kcpa_dp`, which prunes; ``S`` here is finite for every reachable K)."""
    return _decide(last, H, n, L, cost, vmax)


def _decide(last: NDArray[np.float64], H: NDArray, n: int, L: int, cost: float, vmax: float
            ) -> tuple[list[int], NDArray[np.float64]]:
    """R's choice from ``last[K - 1]``, the optimal cost of K segments (K <= L; more than
    ``last.size`` segments: none, +inf as R's II), and the back-pointers ``H``: the change points
    of the K minimising cost + penalty, and the penalised costs ``S``."""
    pen, _ = _penalties(n, L, cost, vmax)
    S = np.full(L + 1, np.inf)
    for K in range(1, min(L, last.size) + 1):
        S[K] = last[K - 1] + pen[K]
    K = _first_min(S)
    cps, cp = [], n
    for k in range(K - 1, 0, -1):
        cp = int(H[k, cp - 1])
        if cp <= 0:
            break
        cps.append(cp)
    return sorted(cps), S


def _penalties(n: int, L: int, cost: float, vmax: float) -> tuple[NDArray, NDArray]:
    """``pen[K] = (C v K / n)(1 + ln(n / K))`` for K = 1..L (index 0 unused) and its suffix minima
    (``sufmin[K] = min_{K' >= K} pen[K']``, +inf past L)."""
    pen = np.full(L + 2, np.inf)
    for K in range(1, L + 1):
        pen[K] = (cost * vmax * K / n) * (1.0 + math.log(n / K))
    suf = np.full(L + 3, np.inf)
    for K in range(L, 0, -1):
        suf[K] = min(pen[K], suf[K + 1])
    return pen, suf


def kcpa_dp(U: NDArray[np.float64], L: int, cost: float, vmax: float, compiled: bool = True
            ) -> tuple[list[int], NDArray[np.float64]]:
    """``(change points, S)``: R ``kcpa``'s choice among at most ``L`` segments (0-based first
    samples of the new segments) and the penalised totals ``S[K]``, K = 1..L (index 0 unused; +inf
    where the pruning proved K is not the answer)."""
    n = U.shape[0]
    L = int(L)
    pen, suf = _penalties(n, L, cost, vmax)
    ub: float = np.inf
    if L >= n:  # the all-singletons segmentation: its cost, summed as the recursion sums it
        diag = 0.0
        for i in range(n):
            diag = diag + U[i, i]
        tot = diag + pen[n]
        if tot == tot:
            ub = float(tot)
    S = np.full(L + 1, np.inf)
    hoff = np.zeros(L + 1, dtype=np.int64)
    hhi = np.full(L + 1, -1, dtype=np.int64)
    hfinal = np.zeros(L + 1, dtype=np.int64)
    hbuf = np.zeros(max(16, 8 * n), dtype=np.int32)
    fn = _kcpa_dp if compiled else _kcpa_dp.py_func
    hbuf = fn(np.ascontiguousarray(U), pen, suf, L, ub, S, hoff, hhi, hfinal, hbuf)
    return _backtrack(S, hoff, hhi, hfinal, hbuf, n), S


def _first_min(S: NDArray[np.float64]) -> int:
    """R's ``which.min`` over ``S[1:]`` (NaN skipped); raises ValueError when all are NaN."""
    best, K = math.inf, -1
    for i in range(1, S.size):
        v = float(S[i])
        if v != v:
            continue
        if K < 0 or v < best:
            best, K = v, i
    if K < 0:
        raise ValueError("every penalised total is NaN")
    return K


def _backtrack(S, hoff, hhi, hfinal, hbuf, n) -> list[int]:
    K = _first_min(S)
    cps: list[int] = []
    k = K - 1  # layer of the last segment (layer k holds k + 1 segments)
    if k == 0:
        return cps
    cp = int(hfinal[k])
    while cp > 0:  # 0: a cell no candidate reached (R's H is 0 there, and the chain ends)
        cps.append(cp)
        k -= 1
        if k == 0:
            break
        i = cp - 1  # last sample of the previous segment
        if i > hhi[k] or i < k:
            raise AssertionError("kcpa back-pointer outside the stored band")
        cp = int(hbuf[hoff[k] + i - k])
    return sorted(cps)


def kcpa_dense(U: NDArray[np.float64], L: int, cost: float, vmax: float) -> list[int]:
    """The recursion over every cell, as R's loop (O(L n^2); a reference for small n)."""
    n = U.shape[0]
    L = int(L)
    II = np.full((L, n), np.inf)
    H = np.zeros((L, n), dtype=np.int64)
    II[0] = U[0]
    for k in range(1, L):
        for i in range(k, n):
            for j in range(k - 1, i):
                t = II[k - 1, j] + U[j + 1, i]
                if t < II[k, i]:
                    II[k, i] = t
                    H[k, i] = j + 1
    return _decide(II[:, n - 1], H, n, L, cost, vmax)[0]
