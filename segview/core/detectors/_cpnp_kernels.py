"""PELT with the empirical-distribution cost of :mod:`.cpnp`: numba kernel and its plain twin.

:func:`pelt_ed` runs :func:`_pelt` compiled (numba, ``nogil``, cached) or, with ``compiled=False``,
the same Python functions uncompiled (slow; the exact reference the tests compare against).

``rule="changepoint"`` evaluates the cost as R ``changepoint.np`` 0.0.2's C function
``mll_nonparametric_ed`` does, ``F log F + (1 - F) log(1 - F)`` with ``F = count / m`` and the C
library's ``log``, in the same order, so the change points are R's bit for bit. ``rule="segview"``
uses ``log F = log(2 count) - log(2 m)`` from a table of logarithms (counts are multiples of 1/2):
the same cost up to rounding in the last bits; the two can differ only where two segmentations tie
to within rounding. :func:`segment_cost` is that cost of one segment under either rule.

Screening (both rules, results unchanged to the last bit): at each ``t`` the kernel first bounds
every candidate's penalised cost with the branch-free form ``m v = G[2c] + G[2(m - c)] - G[2m]``,
``G[j] = (j / 2) ln j`` (a table: no division, no logarithm, no branch for ``F`` = 0 or 1), and :data:`TOL` bounds how far that value can be from
the rule's own rounding of the same cost. The rule's cost is then evaluated only where the bound
cannot decide: for the candidates that may be the minimum, and for those whose value is too close
to the pruning threshold ``F(t) + pen`` to say on which side it lies. Every decision (which
candidate is the first minimum, ``F(t)`` itself, which candidates are pruned) is therefore the one
the rule's values give, and ``F(t)`` is always a value the rule computed. On the bundled JMH
sample the rule's cost is evaluated about once per ``t`` (up to 3.4 times on tied data), against
every candidate (hundreds per ``t`` with few changes) before.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray

from ._jit import njit, plain

#: Bound on ``|screen - rule|`` of one candidate's penalised cost, relative to
#: ``|scale| m (ln(2n + 2) + K + 1) + |F(a)| + |F_screen| + pen``. Rounding analysis (unit roundoff
#: u = 2^-53, logarithms within 4 ulp): each of the K terms ``m v`` is within
#: ``20 u m (ln 2m + 1)`` of its real value under either rule and under the G form, the running sum
#: adds ``u K m ln 2`` per term, scaling by ``scale / K`` and the two additions of ``F(a)`` and
#: ``pen`` add ``4 u (2 |F(a)| + |F| + 2 pen)``: in all below ``60 u`` times the expression above.
#: 2^-40 = 8192 u leaves a factor over 100; a larger value only sends more candidates to the
#: rule's own evaluation (slower, same result).
TOL = 2.0 ** -40


@njit(nogil=True, cache=True)
def segment_cost(QT, a, t, scale, exact, logtab):  # pragma: no cover (compiled)
    """The rule's cost of ``y[a:t]`` from the doubled counts ``QT`` (n + 1, K), as the package
    computes it: ``scale / K * sum_k m (F log F + (1 - F) log(1 - F))``, ``m = t - a``,
    ``F = (Q[k, t] - Q[k, a]) / m`` (``Q[k, j] = QT[j, k] / 2`` exactly); a term with ``F`` = 0 or
    1 is NaN in C and skipped (here: ``0 < 2 c < 2 m``, the same test on integers)."""
    K = QT.shape[1]
    m = t - a
    m2 = 2 * m
    lm = logtab[m2]
    cost = 0.0
    for k in range(K):
        c2 = QT[t, k] - QT[a, k]
        if 0 < c2 < m2:
            F = (0.5 * c2) / m
            if exact:
                v = F * math.log(F) + (1.0 - F) * math.log(1.0 - F)
            else:
                v = F * (logtab[c2] - lm) + (1.0 - F) * (logtab[m2 - c2] - lm)
            cost = cost + m * v
    return scale * cost / K


@njit(nogil=True, cache=True)
def _pelt(QT, pen, minseglen, scale, exact, logtab, G, tol, lastlike, lastcp
          ):  # pragma: no cover (compiled)
    """The package's PELT loop on the doubled quantile counts ``QT`` (n + 1, K); fills
    ``lastlike``/``lastcp``. ``G[j] = (j / 2) ln j`` for the screening (module docstring)."""
    n = QT.shape[0] - 1
    K = QT.shape[1]
    check = np.zeros(n + 2, dtype=np.int64)  # the candidates, ascending, contiguous
    acc = np.zeros(n + 2)  # screened penalised cost per candidate
    err = np.zeros(n + 2)  # the bound on |screened - rule's| per candidate
    tmp = np.zeros(n + 2)  # the rule's penalised cost, where evaluated
    done = np.zeros(n + 2, dtype=np.bool_)
    spread = abs(scale) * (math.log(2.0 * n + 2.0) + K + 1.0)
    lastlike[0] = -pen
    lastcp[0] = 0
    # t < 2 minseglen: one segment y[0:t] (check = [0]); then check = [0, minseglen]
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        lastlike[t] = segment_cost(QT, 0, t, scale, exact, logtab)  # R stores the cost alone
        lastcp[t] = 0
    if 2 * minseglen > n:
        return
    check[1] = minseglen
    nc = 2
    for t in range(2 * minseglen, n + 1):
        # screening: every candidate's cost in the G form (indices are >= 0: unsigned, so no
        # wraparound test per lookup)
        qt = QT[t]
        for i in range(nc):
            a = check[i]
            m2 = 2 * (t - a)
            g = G[np.uint64(m2)]
            s = 0.0
            for k in range(K):
                c2 = qt[k] - QT[a, k]
                s += (G[np.uint64(c2)] + G[np.uint64(m2 - c2)]) - g
            acc[i] = s
        upper = math.inf  # the smallest certain upper bound of a candidate's rule value
        for i in range(nc):
            a = check[i]
            v = lastlike[a] + scale * acc[i] / K + pen
            e = tol * (spread * (t - a) + abs(lastlike[a]) + abs(v) + abs(pen))
            acc[i] = v
            err[i] = e
            upper = min(upper, v + e)
        # the first minimum of the rule's values: only candidates that may reach it are evaluated
        best = 0.0
        which = -1
        for i in range(nc):
            done[i] = not acc[i] - err[i] > upper  # NaN (never seen): evaluate
            if done[i]:
                a = check[i]
                tmp[i] = lastlike[a] + segment_cost(QT, a, t, scale, exact, logtab) + pen
                if which < 0 or tmp[i] < best:
                    best = tmp[i]
                    which = i
        lastlike[t] = best
        lastcp[t] = check[which]
        # the package's pruning, tmp <= F(t) + pen, decided by the bound where it can be
        limit = best + pen
        keep = 0
        for i in range(nc):
            if not done[i]:
                if acc[i] + err[i] <= limit:
                    tmp[i] = -math.inf  # kept for sure
                elif acc[i] - err[i] > limit:
                    tmp[i] = math.inf  # pruned for sure
                else:
                    a = check[i]
                    tmp[i] = lastlike[a] + segment_cost(QT, a, t, scale, exact, logtab) + pen
            if tmp[i] <= limit:
                check[keep] = check[i]
                keep += 1
        check[keep] = t - (minseglen - 1)
        nc = keep + 1


_pelt_plain = plain(_pelt, segment_cost=segment_cost.py_func)


def doubled_counts(Q: NDArray[np.float64]) -> NDArray[np.int64]:
    """``2 Q.T`` as integers, shape (n + 1, K), C order: the kernel's layout of the quantile counts
    ``Q`` (K, n + 1) of :func:`.cpnp.quantile_counts` (halves: ties count one half), checked exact."""
    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2:
        raise ValueError(f"quantile counts must be a (K, n + 1) table, got shape {Q.shape}")
    Q2 = np.rint(2.0 * Q).astype(np.int64)
    if not np.array_equal(0.5 * Q2, Q):
        raise ValueError("quantile counts must be multiples of 1/2")
    return np.ascontiguousarray(Q2.T)


@functools.lru_cache(maxsize=2)  # 32 bytes a sample each: y and -y, or one slider
def log_tables(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(logtab, G)`` for a series of ``n`` points, read-only and cached (a slider move, and
    ``auto``'s run on ``-y``, reuse them): ``logtab[j] = log j``, the C library's (``math.log``,
    as before), ``-inf`` at 0; ``G[j] = (j / 2) log j``, 0 at 0; ``j = 0 .. 2n + 1``."""
    logtab = np.array([math.log(v) if v > 0 else -math.inf for v in range(2 * n + 2)])
    G = np.zeros(2 * n + 2)
    G[1:] = 0.5 * np.arange(1, 2 * n + 2) * logtab[1:]
    logtab.flags.writeable = False
    G.flags.writeable = False
    return logtab, G


def pelt_ed(Q: NDArray, pen: float, minseglen: int, scale: float, exact: bool = True,
            compiled: bool = True, tol: float = TOL
            ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``(lastchangelike, lastchangecpts)``, length n + 1, of the package's PELT on the quantile
    counts ``Q`` (K, n + 1; or already :func:`doubled_counts`, int64 (n + 1, K)). ``tol``: the
    screening bound (:data:`TOL`); ``math.inf`` evaluates every candidate with the rule (the
    unscreened loop, for the tests), a negative value breaks the guarantee (tests only)."""
    Q = np.asarray(Q)
    QT = Q if Q.dtype == np.int64 else doubled_counts(Q)
    n = QT.shape[0] - 1
    lastlike = np.zeros(n + 1)
    lastcp = np.zeros(n + 1, dtype=np.int64)
    logtab, G = log_tables(n)
    fn = _pelt if compiled else _pelt_plain
    fn(np.ascontiguousarray(QT), float(pen), int(minseglen), float(scale), bool(exact), logtab, G,
       float(tol), lastlike, lastcp)
    return lastlike, lastcp
