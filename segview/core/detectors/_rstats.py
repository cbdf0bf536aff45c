"""R's ``cov`` diagonal and ``median`` with R's arithmetic (long double accumulators), for ``kcpa``.

R ``cov`` (complete observations): the mean is a long double sum divided by n, corrected once by the
mean of the residuals; each variance is the long double sum of the squared double residuals divided
by ``n - 1``. R ``median`` of an even number of values is ``mean()`` of the two middle ones, again a
long double sum with one correction pass. numpy's ``longdouble`` is R's ``LDOUBLE`` on x86-64 Linux
(80-bit); elsewhere the results may differ in the last bit.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

_LD = np.longdouble


def _r_mean(x: NDArray[np.float64]) -> float:
    """R's ``mean`` of a double vector (``summary.c``: long double sum, one correction pass)."""
    n = x.size
    s = _LD(0)
    for v in x:
        s += _LD(v)
    s /= n
    if math.isfinite(float(s)):
        t = _LD(0)
        for v in x:
            t += _LD(v) - s
        s += t / n
    return float(s)


def r_var_columns(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """The diagonal of R ``cov(X)`` (NaN for fewer than two rows)."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    n = X.shape[0]
    out = np.full(X.shape[1], np.nan)
    if n < 2:
        return out
    for q in range(X.shape[1]):
        x = X[:, q]
        s = _LD(0)
        for v in x:
            s += _LD(v)
        tmp = s / n
        if math.isfinite(float(tmp)):
            s = _LD(0)
            for v in x:
                s += _LD(v) - tmp
            tmp = tmp + s / n
        m = float(tmp)  # the mean is stored as a double
        r = x - m
        acc = _LD(0)
        for v in r * r:  # double products, long double sum
            acc += _LD(v)
        out[q] = float(acc / (n - 1))
    return out


def r_sum(x: NDArray[np.float64]) -> float:
    """R ``sum`` of doubles: a long double accumulator rounded once."""
    acc = _LD(0)
    for v in np.asarray(x, dtype=np.float64).ravel():
        acc += _LD(v)
    return float(acc)


def r_median(x: NDArray[np.float64]) -> float:
    """R ``median`` (NaN if any value is NaN, as with ``na.rm = FALSE``)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    if n == 0 or np.isnan(x).any():
        return math.nan
    half = (n + 1) // 2
    if n % 2 == 1:
        return float(np.partition(x, half - 1)[half - 1])
    part = np.partition(x, (half - 1, half))
    return _r_mean(np.array([part[half - 1], part[half]]))
