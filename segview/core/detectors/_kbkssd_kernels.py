"""Numba kernels of the KB-KSSD detector (spec ``docs/algorithms/kbkssd.md``).

Both kernels reproduce numpy's arithmetic bit for bit on finite input:

* :func:`substitute_outliers` -- step 1 (§3): per block, numpy's ``method='linear'`` percentiles
  (``g = (m - 1) * (p / 100)``, lerp ``a + (b - a) g`` or ``b - (b - a)(1 - g)`` for ``g >= 0.5``), then
  the sequential replacement of the outliers by the median of the *current* block. The block is kept
  sorted, so every median costs one insertion instead of a selection.
* :func:`step_decision` -- the median rules of step 3 (§5.7-5.10) given the two kernel candidates.
  Medians are ``np.median`` semantics: middle order statistic, or ``(a + b) / 2`` of the two middle
  ones.

The numpy parts that depend on summation order (means, convolutions, Kelly's sums) stay in numpy.
"""
from __future__ import annotations

import numpy as np
from ._jit import njit

# Branch codes returned by step_decision (names in kbkssd.BRANCHES).
A_EARLY = 0
A_A_KEEP = 1
A_A_REJECT = 2
A_B_KEEP = 3
A_B_FALLBACK = 4
B_KEEP = 5
B_REJECT = 6


@njit(nogil=True, cache=True)
def _percentile_sorted(v, m, q):  # pragma: no cover - compiled
    """numpy's linear percentile of the sorted ``v[:m]`` at fraction ``q`` (= p / 100)."""
    vi = (m - 1) * q
    if vi >= m - 1:
        return v[m - 1]
    if vi < 0:
        return v[0]
    lo = int(np.floor(vi))
    gamma = vi - np.floor(vi)
    a = v[lo]
    b = v[lo + 1]
    diff = b - a
    if gamma >= 0.5:
        return b - diff * (1.0 - gamma)
    return a + diff * gamma


@njit(nogil=True, cache=True)
def _median_sorted(v, m):  # pragma: no cover - compiled
    half = m // 2
    if m % 2 == 1:
        return v[half]
    return (v[half - 1] + v[half]) / 2.0


@njit(nogil=True, cache=True)
def _replace_sorted(v, m, old, new):  # pragma: no cover - compiled
    """Replace one occurrence of ``old`` by ``new`` in the sorted ``v[:m]``, keeping it sorted."""
    pos = 0
    while v[pos] != old:
        pos += 1
    if new >= old:
        while pos + 1 < m and v[pos + 1] < new:
            v[pos] = v[pos + 1]
            pos += 1
    else:
        while pos > 0 and v[pos - 1] > new:
            v[pos] = v[pos - 1]
            pos -= 1
    v[pos] = new


@njit(nogil=True, cache=True)
def substitute_outliers(x, window, q_hi, q_lo, first):  # pragma: no cover - compiled
    """Step 1 on ``x[first:]``, split like ``np.array_split`` into ``len // window`` blocks.

    Args:
        x: float64 series (not modified).
        window: nominal block length ``W_o``.
        q_hi, q_lo: upper and lower percentiles divided by 100.
        first: 1 in faithful mode (sample 0 is never inspected), 0 to include it.

    Returns:
        (y, positions): the substituted copy and the global indices replaced, in replacement order.
    """
    y = x.copy()
    total = x.size - first
    k = total // window
    out = np.empty(total, dtype=np.int64)
    n_out = 0
    if k <= 0:
        return y, out[:0]
    q = total // k
    r = total % k
    buf = np.empty(q + 1, dtype=np.float64)
    order = np.empty(q + 1, dtype=np.int64)
    start = first
    for blk in range(k):
        m = q + 1 if blk < r else q
        for i in range(m):
            buf[i] = y[start + i]
        srt = np.sort(buf[:m])
        hi = _percentile_sorted(srt, m, q_hi)
        lo = _percentile_sorted(srt, m, q_lo)
        n_o = 0
        for i in range(m):
            if buf[i] > hi:
                order[n_o] = i
                n_o += 1
        for i in range(m):
            if buf[i] < lo:
                order[n_o] = i
                n_o += 1
        for t in range(n_o):
            i = order[t]
            med = _median_sorted(srt, m)
            _replace_sorted(srt, m, y[start + i], med)
            y[start + i] = med
            out[n_out] = start + i
            n_out += 1
        start += m
    return y, out[:n_out]


@njit(nogil=True, cache=True)
def _median(a):  # pragma: no cover - compiled
    return np.median(a)


@njit(nogil=True, cache=True)
def step_decision(d, large, short, win):  # pragma: no cover - compiled
    """Steps 7-10 of §5: choose the warm-up end from the candidates ``L`` and ``S``.

    Args:
        d: the mean-centred (possibly filtered) series.
        large: ``L = argmin(R_L) - 1``; short: ``S = argmin(R_S) + h - 1``.
        win: ``W_s``, half-width of the median windows.

    Returns:
        (w, branch): warm-up end (last sample before the drop) or -1, and a branch code.
    """
    n = d.size
    if large == n - 1:
        large = -1
    if short == n - 1:
        short = -1
    if abs(large - short) <= 1:
        large = -1
    fallback = -1
    if large >= 0:
        a = min(large, short)
        b = max(large, short)
        if a == 0:
            return b, A_EARLY
        left = _median(d[max(b - win, 0):b + 1])
        right = _median(d[b + 1:min(b + win + 1, n)])
        drop = left - right
        c = a
        if _median(d[a + 1:b]) > 2.0 * abs(drop) + _median(d[b + 1:]):
            c = b
            fallback = a
    elif short >= 0:
        c = short
    else:
        return -1, B_REJECT
    if _median(d[:c]) - _median(d[c:]) < abs(_median(d) / 2):
        if fallback >= 0:
            return fallback, A_B_FALLBACK
        return -1, (A_A_REJECT if large >= 0 else B_REJECT)
    if large >= 0:
        return c, (A_B_KEEP if fallback >= 0 else A_A_KEEP)
    return c, B_KEEP
