"""PELT with the empirical-distribution cost of :mod:`.cpnp`: numba kernel and its plain twin.

:func:`pelt_ed` runs :func:`_pelt` compiled (numba, ``nogil``, cached) or, with ``compiled=False``,
the same Python function uncompiled (slow; the exact reference the tests compare against).

``rule="changepoint"`` evaluates the cost as R ``changepoint.np`` 0.0.2's C function
``mll_nonparametric_ed`` does, ``F log F + (1 - F) log(1 - F)`` with ``F = count / m`` and the C
library's ``log``, in the same order, so the change points are R's bit for bit. ``rule="segview"``
uses ``log F = log(2 count) - log(2 m)`` from a table of logarithms (counts are multiples of 1/2):
the same cost up to rounding in the last bits, several times faster; the two can differ only where
two segmentations tie to within rounding.
"""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit
from numpy.typing import NDArray


@njit(nogil=True, cache=True)
def _pelt(Q, pen, minseglen, scale, exact, logtab, lastlike, lastcp):  # pragma: no cover (compiled)
    """The package's PELT loop on quantile counts ``Q`` (K, n + 1); fills ``lastlike``/``lastcp``.

    Cost of ``y[a:b]``: ``scale / K * sum_k m (F log F + (1 - F) log(1 - F))``, ``m = b - a``,
    ``F = (Q[k, b] - Q[k, a]) / m``; a term with ``F`` = 0 or 1 is NaN in C and skipped.
    """
    K = Q.shape[0]
    n = Q.shape[1] - 1
    check = np.zeros(n + 2, dtype=np.int64)
    tmp = np.zeros(n + 2)
    lastlike[0] = -pen
    lastcp[0] = 0
    # t < 2 minseglen: one segment y[0:t] (check = [0]); then check = [0, minseglen]
    nc = 1
    for t in range(minseglen, n + 1):
        if t == 2 * minseglen:
            check[1] = minseglen
            nc = 2
        best = 0.0
        which = 0
        for i in range(nc):
            a = check[i]
            m = t - a
            cost = 0.0
            for k in range(K):
                c = Q[k, t] - Q[k, a]
                F = c / m
                if 0.0 < F < 1.0:
                    if exact:
                        v = F * math.log(F) + (1.0 - F) * math.log(1.0 - F)
                    else:
                        lm = logtab[2 * m]
                        v = (F * (logtab[int(2.0 * c)] - lm)
                             + (1.0 - F) * (logtab[int(2.0 * (m - c))] - lm))
                    cost = cost + m * v
            cost = scale * cost / K
            if t < 2 * minseglen:  # R stores the cost alone here (lastchangelike[0] + pen = 0)
                best = cost
                break
            tmp[i] = lastlike[a] + cost + pen
            if i == 0 or tmp[i] < best:
                best = tmp[i]
                which = i
        lastlike[t] = best
        lastcp[t] = check[which]
        if t < 2 * minseglen:
            continue
        keep = 0
        for i in range(nc):
            if tmp[i] <= best + pen:
                check[keep] = check[i]
                keep += 1
        check[keep] = t - (minseglen - 1)
        nc = keep + 1


def pelt_ed(Q: NDArray[np.float64], pen: float, minseglen: int, scale: float, exact: bool = True,
            compiled: bool = True) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """``(lastchangelike, lastchangecpts)``, length n + 1, of the package's PELT on ``Q`` (K, n+1)."""
    n = Q.shape[1] - 1
    lastlike = np.zeros(n + 1)
    lastcp = np.zeros(n + 1, dtype=np.int64)
    logtab = np.array([math.log(v) if v > 0 else -math.inf for v in range(2 * n + 2)])
    fn = _pelt if compiled else _pelt.py_func
    fn(np.ascontiguousarray(Q, dtype=np.float64), float(pen), int(minseglen), float(scale),
       bool(exact), logtab, lastlike, lastcp)
    return lastlike, lastcp
