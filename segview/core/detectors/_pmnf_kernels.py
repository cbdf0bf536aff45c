"""numba kernels of the PMNF hypothesis search (``docs/algorithms/nrss.md`` §2; paper rule of seed 000).

One call scores every candidate term of a point set, or of every sliding window of a long point
set, with the term values computed once for all points (``tt[c, i] = t_c(x_i)``, the same numpy
arithmetic as the reference). Least squares with two columns ``[1, t]`` are solved in closed form on
centred sums (minimum-norm solution when ``t`` is constant, as ``numpy.linalg.lstsq`` returns);
sums of whole arrays follow numpy's pairwise order so the constant model is bit-identical to
``numpy.mean``/``numpy.sum``. Fits agree with the ``lstsq`` reference to ~1e-12 relative; the
``lstsq`` path stays in :mod:`._pmnf` (``fit_best_reference``) for the tests.
"""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit
from numpy.typing import NDArray

#: Extra-P's tolerances: constant cleaning in LOO fits, minimal term contribution (nrss.md §2.3-§2.4).
CLEAN_TOL = 5e-4
CONTRIB_TOL = 5e-4
#: Point sets up to this size refit every leave-one-out fold from scratch; larger ones downdate.
_DIRECT_MAX = 64


@njit(nogil=True, cache=True, error_model="numpy")
def pw_sum(a: NDArray[np.float64]) -> float:
    """``numpy.sum`` of a contiguous float64 array, bit for bit (numpy's pairwise summation)."""
    n = a.size
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        stop = n - n % 8
        while i < stop:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return pw_sum(a[:n2]) + pw_sum(a[n2:])


@njit(nogil=True, cache=True, error_model="numpy")
def _constant(y: NDArray[np.float64]) -> tuple[float, float, float, float]:
    """Constant model: mean, RSS, in-sample SMAPE, nRSS (nrss.md §2.2), numpy's arithmetic."""
    n = y.size
    c = pw_sum(y) / n
    d = np.empty(n)
    for i in range(n):
        d[i] = c - y[i]
    rss = pw_sum(d * d)
    q = np.empty(n)
    m = 0
    for i in range(n):
        den = abs(y[i]) + abs(c)
        if den > 0:
            q[m] = 2 * abs(d[i]) / den
            m += 1
    smape = 100.0 / n * pw_sum(q[:m])
    nrss = math.sqrt(rss) / c if c != 0 else math.nan
    return c, rss, smape, nrss


@njit(nogil=True, cache=True, error_model="numpy", inline="always")
def _solve(st: float, sy: float, stt: float, sty: float, m: float) -> tuple[float, float]:
    """Least squares of ``y ~ c0 + c1 t`` on ``m`` points from centred sums (means ``st``/``sy``).

    As ``numpy.linalg.lstsq(rcond=None)``: a singular value of ``[1, t]`` at or below
    ``eps * max(m, 2)`` times the largest counts as zero and the minimum-norm solution is returned
    (a constant ``t``, or ``|t|`` so large that the intercept column is numerically invisible).
    """
    if not (math.isfinite(stt) and math.isfinite(sty) and math.isfinite(st) and math.isfinite(sy)):
        return math.nan, math.nan
    a = m
    b = m * st
    d = stt + m * st * st
    lam1 = 0.5 * (a + d + math.sqrt((a - d) ** 2 + 4.0 * b * b))
    lam2 = m * stt / lam1 if lam1 > 0 else 0.0
    cut = 2.220446049250313e-16 * max(m, 2.0)
    if lam2 > 0 and math.sqrt(lam2 / lam1) > cut:
        c1 = sty / stt
        return sy - c1 * st, c1
    # rank one: project on the leading right singular vector
    v0, v1 = b, lam1 - a
    w0, w1 = lam1 - d, b
    if w0 * w0 + w1 * w1 > v0 * v0 + v1 * v1:
        v0, v1 = w0, w1
    nv = math.sqrt(v0 * v0 + v1 * v1)
    if nv == 0 or lam1 == 0:
        return 0.0, 0.0
    v0 /= nv
    v1 /= nv
    g = (v0 * m * sy + v1 * (sty + m * st * sy)) / lam1
    return v0 * g, v1 * g


@njit(nogil=True, cache=True, error_model="numpy")
def _centred(t: NDArray[np.float64], y: NDArray[np.float64]
             ) -> tuple[float, float, float, float]:
    """Means of ``t`` and ``y`` and the centred sums ``S_tt``, ``S_ty``."""
    n = t.size
    st = 0.0
    sy = 0.0
    for i in range(n):
        st += t[i]
        sy += y[i]
    st /= n
    sy /= n
    stt = 0.0
    sty = 0.0
    for i in range(n):
        dt = t[i] - st
        stt += dt * dt
        sty += dt * (y[i] - sy)
    return st, sy, stt, sty


@njit(nogil=True, cache=True, error_model="numpy")
def _fit2(t: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    st, sy, stt, sty = _centred(t, y)
    return _solve(st, sy, stt, sty, t.size)


@njit(nogil=True, cache=True, error_model="numpy")
def _loo_score(t: NDArray[np.float64], y: NDArray[np.float64]
               ) -> tuple[float, float, float]:
    """Leave-one-out PRESS, running-PRESS nRSS and SMAPE of one candidate (nrss.md §2.3)."""
    n = y.size
    m = n - 1
    press = 0.0
    nrss = 0.0
    smape = 0.0
    ytr = np.empty(m)
    big = n > _DIRECT_MAX
    if big:  # downdate centred full-data sums
        tb, yb, stt, sty = _centred(t, y)
        ysum = pw_sum(y)
        lo1 = np.inf
        lo2 = np.inf
        arg1 = -1
        for i in range(n):
            if y[i] < lo1:
                lo2 = lo1
                lo1 = y[i]
                arg1 = i
            elif y[i] < lo2:
                lo2 = y[i]
    for k in range(n):
        if big:
            dtk = t[k] - tb
            dyk = y[k] - yb
            f = n / m
            st_k = tb - dtk / m
            sy_k = yb - dyk / m
            c0, c1 = _solve(st_k, sy_k, stt - f * dtk * dtk, sty - f * dtk * dyk, m)
            ymin = lo2 if k == arg1 else lo1
            ymean = (ysum - y[k]) / m
        else:
            j = 0
            for i in range(n):
                if i != k:
                    ytr[j] = y[i]
                    j += 1
            ttr = np.empty(m)
            j = 0
            for i in range(n):
                if i != k:
                    ttr[j] = t[i]
                    j += 1
            c0, c1 = _fit2(ttr, ytr)
            ymin = ytr.min()
            ymean = pw_sum(ytr) / m
        if ymin == 0.0:
            if abs(c0) < CLEAN_TOL:
                c0 = 0.0
        elif abs(c0 / ymin) < CLEAN_TOL:
            c0 = 0.0
        pred = c0 + c1 * t[k]
        d = pred - y[k]
        press += d * d
        nrss += math.sqrt(press) / ymean / n
        den = abs(y[k]) + abs(pred)
        if den > 0:
            smape += 100.0 * 2 * abs(d) / den / n
    return press, nrss, smape


@njit(nogil=True, cache=True, error_model="numpy")
def fit_set(x: NDArray[np.float64], y: NDArray[np.float64], tt: NDArray[np.float64],
            has_log: NDArray[np.bool_], paper: bool) -> tuple[int, float, float, float, float, float]:
    """Best hypothesis of one point set: ``(which, c0, c1, nrss, smape, press)``.

    ``tt[c]`` are the candidate term values at ``x``; ``which = -1`` is the constant model.
    ``paper=False``: Extra-P's LOO/SMAPE search (nrss.md §2.3-§2.4); ``paper=True``: the paper's
    least in-sample RSS with in-sample nRSS (candidates with a non-finite term value skipped).
    """
    n = y.size
    c, rss_c, smape_c, nrss_c = _constant(y)
    which = -1
    b0, b1, bn, bs, bp = c, 0.0, nrss_c, smape_c, rss_c
    if rss_c == 0.0:
        return which, b0, b1, bn, bs, bp
    allow_log = True
    for i in range(n):
        if x[i] < 1:
            allow_log = False
    ymean = c
    for cand in range(tt.shape[0]):
        if has_log[cand] and not allow_log:
            continue
        t = tt[cand]
        if paper:
            ok = True
            for i in range(n):
                if not math.isfinite(t[i]):
                    ok = False
            if not ok:
                continue
            c0, c1 = _fit2(t, y)
            rss = 0.0
            for i in range(n):
                d = c0 + c1 * t[i] - y[i]
                rss += d * d
            if c1 == 0 or not math.isfinite(rss) or rss >= bp:
                continue
            s = 0.0
            for i in range(n):
                p = c0 + c1 * t[i]
                den = abs(y[i]) + abs(p)
                if den > 0:
                    s += 2 * abs(p - y[i]) / den
            nr = math.sqrt(rss) / ymean if ymean != 0 else math.nan
            which, b0, b1, bn, bs, bp = cand, c0, c1, nr, 100.0 / n * s, rss
            continue
        press, nr, sm = _loo_score(t, y)
        if not math.isfinite(press):
            continue
        c0, c1 = _fit2(t, y)
        if c1 == 0:
            continue
        cmax = -np.inf
        for i in range(n):
            v = abs(c1 * t[i] / y[i])
            if v != v:
                cmax = v
                break
            if v > cmax:
                cmax = v
        if cmax < CONTRIB_TOL:  # NaN compares false: not skipped (as numpy's max)
            continue
        if sm < bs:
            which, b0, b1, bn, bs, bp = cand, c0, c1, nr, sm, press
    return which, b0, b1, bn, bs, bp


@njit(nogil=True, cache=True, error_model="numpy")
def fit_windows(x: NDArray[np.float64], y: NDArray[np.float64], tt: NDArray[np.float64],
                has_log: NDArray[np.bool_], k: int, paper: bool) -> NDArray[np.float64]:
    """:func:`fit_set` on every window ``s..s+k-1``; row ``s`` = (which, c0, c1, nrss, smape, press)."""
    r = y.size - k + 1
    out = np.empty((max(r, 0), 6))
    for s in range(r):
        w, c0, c1, nr, sm, pr = fit_set(x[s:s + k], y[s:s + k],
                                        np.ascontiguousarray(tt[:, s:s + k]), has_log, paper)
        out[s, 0] = w
        out[s, 1] = c0
        out[s, 2] = c1
        out[s, 3] = nr
        out[s, 4] = sm
        out[s, 5] = pr
    return out
