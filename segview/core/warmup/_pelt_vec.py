"""R changepoint 2.2.2's PELT for ``cpt.meanvar`` with the same decisions, eight candidates at a
time (the fast path of :func:`segview.core.warmup.segments.pelt_r_meanvar_fast`).

At warmup_stats' penalty (15 ln n) PELT prunes almost nothing, so the plain emulation
(:func:`segview.core.detectors._pelt_r.pelt_r_meanvar`) evaluates ~n^2/2 segment costs, each with
a libm logarithm (~12 ns). This kernel computes, for every candidate ``tau`` of a time step ``t``, an
*approximate* value ``x~`` of the plain kernel's ``x = (F[tau] + C(tau, t)) + beta`` in 8-lane
vectors (:mod:`segview.core.detectors._vec8`, IEEE lanes, no fast-math), and a rigorous bound
``M`` with ``|x~ - x| <= M`` for every candidate of the step. Decisions are then taken on exact
values wherever ``x~`` alone could get them wrong, so they are the plain kernel's (proof below).

The approximate value
---------------------
The plain kernel computes ``D = (S2[t] - S2[tau]) - a*a/m`` (``a = S1[t] - S1[tau]``, ``m = t - tau``),
``v = D/m``, floors ``v`` at 1e-11 when ``v <= 0``, and ``C = m ((ln 2pi + log v) + 1)``.
Here ``D`` is computed by the same operations (so equal bit for bit); ``v~ = D * r`` with ``r`` the
double nearest ``1/m`` (a table), so ``|v~/v - 1| <= 2.3u`` (u = 2^-53). The floor is taken where
``D <= 0``, which is where the plain kernel floors except when ``D/m`` underflows; a lane whose
``v~`` (floored) is not in ``(1e-300, 1e300)``, NaN included, makes the whole step *bad* (below),
so every lane used has a positive normal ``v~``, ``v`` too, both floored alike, ``|log v| < 691``.
``log v~`` is approximated from the exponent ``e`` and the significand ``s`` of ``v~``
(:func:`~segview.core.detectors._vec8.vexponent`, ``vmantissa``; ``s`` halved and ``e`` raised when
``s > sqrt 2``, so ``s`` in ``(0.707, 1.415)``): ``e ln2 + 2 atanh(z)``, ``z = (s-1)/(s+1)``,
``|z| < 0.1716``, the atanh series to ``z^13``. Truncation: ``< 2|z|^15/(15 (1 - z^2)) < 4.6e-13``;
rounding: ``s - 1`` is exact (Sterbenz), ``z`` has relative error ``<= 2u``, the series ``<= 12u``
of its value (< 0.35), ``e ln2`` with ``|e| <= 997``: ``ln2`` rounded (``u/2`` relative), product
and sum rounded (``u`` each, of at most 691): ``< 2.6e-13`` in all. With ``v~`` for ``v``
(``< 2.6e-16``): ``|L~ - log v| < 7.5e-13`` (``tests/core/test_warmup_changepoints.py`` checks it
on the whole range, worst significands included). Then ``C~ = m (L~ + K1)`` with ``K1`` the double
nearest ``ln 2pi + 1`` and ``x~ = (F[tau] + beta) + C~`` (``F[tau] + beta`` kept from step
``tau``). Against the real ``X = F[tau] + beta + m (ln 2pi + log v + 1)``, with ``|ln 2pi + log v|
+ 1 < 694`` and each rounding at most ``u`` of its result: the plain kernel's
``x = (F[tau] + m ((ln 2pi + L) + 1)) + beta``, libm's ``L`` within one ulp (``< 1.2e-13``) and five
roundings, has ``|x - X| < 5.1e-13 m + 2.3e-16 (|F[tau]| + |beta|)``; ``x~`` (log error, ``K1``, four
roundings) has ``|x~ - X| < 9.8e-13 m + 2.3e-16 (|F[tau]| + |beta|)``. So
``|x~ - x| < 1.5e-12 t + 4.6e-16 (Fmax + |beta|)``, ``Fmax`` the largest ``|F|`` so far. The
kernel uses ``M = 3e-11 t + 1e-14 (Fmax + |beta| + 1)``, more than 18 times that, which also covers
the rounding of the thresholds built from ``M`` below (``u`` of values below
``Fmax + |beta| + 694 t + 2M``).

Why the decisions are the plain kernel's
----------------------------------------
*Minimum.* Let ``mn`` be the least ``x~`` of the step. The exact value is computed for every
candidate with ``x~ <= mn + 2M`` and the first least exact value among those (ascending ``tau``,
strict ``<``) is taken, as the plain kernel takes the first least value of all. A candidate left
out has ``x > x~ - M > mn + M >= x`` of the candidate whose ``x~`` is ``mn``: it is strictly
above the minimum, so neither the minimum nor the first of equal minima can be among them. ``F[t]``,
``last[t]`` and ``nseg[t]`` are the plain kernel's.

*Pruning* (keep ``tau`` when ``x <= F[t] + beta``, ``bound`` computed as the plain kernel does):
when ``x~ + M <= bound`` then ``x <= bound`` (kept); when ``x~ - M > bound`` then ``x > bound``
(dropped); otherwise ``x`` is computed exactly and decides. When the largest ``x~`` of the step
passes the first test, every candidate is kept without looking at them one by one. The kept set,
in ascending order, is therefore the plain kernel's at every step; by induction over ``t`` so are
``F``, ``last`` and ``nseg``.

*Bad steps.* When a lane of the step is not usable (``v~`` out of range or NaN, from data near
the limits of double precision), the step is run exactly as the plain kernel runs it (every
candidate through :func:`~segview.core.detectors._pelt_r.normal_meanvar_cost`, the same argmin
and pruning, NaN included); once an ``F[t]`` is not finite every later step is (``M`` would be
meaningless).

Candidates are kept as runs of consecutive ``tau`` (``[RA, RB)``, ascending, maximal), so a run is
read by contiguous 8-lane loads; lanes past a run's end are masked out. Arrays read by lane are
padded by 8 (see :func:`segview.core.warmup.segments.pelt_r_meanvar_fast`).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..detectors._jit import njit
from ..detectors._pelt_r import LOG_2PI, keep_run, normal_meanvar_cost, take_runs
from ..detectors._vec8 import (popcount, vadd, vbcast, vdiv, vexponent, vle, vload, vlt,
                               vmantissa, vmax, vmin, vmul, vsel, vstore, vsub)

#: Bound of ``|x~ - x|`` per unit of ``t`` and per unit of magnitude (module docstring).
MARGIN_PER_T = 3e-11
MARGIN_REL = 1e-14
#: Lane padding of the arrays read by 8-lane loads.
PAD = 8

_LN2 = 0.6931471805599453
_SQRT2 = 1.4142135623730951
_LOG_2PI_1 = LOG_2PI + 1.0


@njit(nogil=True, cache=True, inline="always")
def _approx_log(w):  # pragma: no cover (compiled)
    # e ln2 + 2 atanh((s-1)/(s+1)) for positive normal lanes (module docstring)
    e = vexponent(w)
    s = vmantissa(w)
    big = vlt(vbcast(_SQRT2), s)
    s = vsel(big, vmul(s, vbcast(0.5)), s)
    e = vsel(big, vadd(e, vbcast(1.0)), e)
    one = vbcast(1.0)
    z = vdiv(vsub(s, one), vadd(s, one))
    z2 = vmul(z, z)
    p = vadd(vbcast(2.0 / 11), vmul(z2, vbcast(2.0 / 13)))
    p = vadd(vbcast(2.0 / 9), vmul(z2, p))
    p = vadd(vbcast(2.0 / 7), vmul(z2, p))
    p = vadd(vbcast(2.0 / 5), vmul(z2, p))
    p = vadd(vbcast(2.0 / 3), vmul(z2, p))
    p = vadd(vbcast(2.0), vmul(z2, p))
    return vadd(vmul(e, vbcast(_LN2)), vmul(z, p))


@njit(nogil=True, cache=True)
def approx_log(v, out):  # pragma: no cover (compiled)
    """``out[:k] ~ log(v[:k])`` by the kernel's cheap logarithm (``v.size`` a multiple of 8; for the
    tests of its error bound)."""
    for off in range(0, v.size, 8):
        vstore(out, off, _approx_log(vload(v, off)))


@njit(nogil=True, cache=True, inline="always")
def _approx_block(s1, s2, fb, rtab, off, roff, st1, st2, m8):  # pragma: no cover (compiled)
    # x~ and the floored v~ of the 8 candidates off..off+7 (module docstring); m8 = t - tau
    da = vsub(st1, vload(s1, off))
    d = vsub(vsub(st2, vload(s2, off)), vdiv(vmul(da, da), m8))
    w = vsel(vle(d, vbcast(0.0)), vbcast(1e-11), vmul(d, vload(rtab, roff + off)))
    c = vmul(m8, vadd(_approx_log(w), vbcast(_LOG_2PI_1)))
    return vadd(vload(fb, off), c), w


@njit(nogil=True, cache=True)
def _hsum(v, scratch):  # pragma: no cover (compiled)
    vstore(scratch, 0, v)
    m = 0.0
    for j in range(8):
        m += scratch[j]
    return m


@njit(nogil=True, cache=True)
def _hmin(v, scratch):  # pragma: no cover (compiled)
    vstore(scratch, 0, v)
    m = scratch[0]
    for j in range(1, 8):
        m = scratch[j] if scratch[j] < m else m
    return m


@njit(nogil=True, cache=True)
def _hmax(v, scratch):  # pragma: no cover (compiled)
    vstore(scratch, 0, v)
    m = scratch[0]
    for j in range(1, 8):
        m = scratch[j] if scratch[j] > m else m
    return m


@njit(nogil=True, cache=True)
def _low_bit(bits):  # pragma: no cover (compiled)
    return popcount((bits & -bits) - 1)


@njit(nogil=True, cache=True)
def _plain_step(s1, s2, beta, t, ra, rb, nr, newc, vals, f, last, nseg, NA, NB):  # pragma: no cover
    # _pelt_r._pelt_r_kernel's step t over the runs (same values, same argmin, same pruning);
    # returns the new number of runs (the new candidate newc appended)
    best = ra[0]
    for r in range(nr):
        for tau in range(ra[r], rb[r]):
            vals[tau] = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
            if vals[tau] < vals[best]:
                best = tau
    f[t] = vals[best]
    last[t] = best
    nseg[t] = nseg[best] + 1
    bound = f[t] + beta
    m = 0
    for r in range(nr):
        for tau in range(ra[r], rb[r]):
            if vals[tau] <= bound:
                m = keep_run(NA, NB, m, tau)
    return take_runs(ra, rb, NA, NB, m, newc)


@njit(nogil=True, cache=True)
def _trace(trace, t, ra, rb, nr):  # pragma: no cover (compiled)
    k = 0
    tot = 0
    for r in range(nr):
        k += rb[r] - ra[r]
        for tau in range(ra[r], rb[r]):
            tot += tau
    trace[t, 0] = k
    trace[t, 1] = tot


@njit(nogil=True, cache=True)
def _append(ra, rb, nr, newc):  # pragma: no cover (compiled)
    if nr > 0 and rb[nr - 1] == newc:
        rb[nr - 1] = newc + 1
        return nr
    ra[nr] = newc
    rb[nr] = newc + 1
    return nr + 1


@njit(nogil=True, cache=True)
def pelt_r_meanvar_vec(s1, s2, rtab, beta, minseglen, last, nseg, f, trace):  # pragma: no cover
    """``_pelt_r._pelt_r_kernel`` with the same decisions (module docstring); ``s1``, ``s2`` finite.

    ``n = last.size - 1``; ``s1``, ``s2`` and ``f`` have ``n + 1 + PAD`` entries (the padding any
    finite value), ``rtab[i] = 1 / (n + 1 - i)`` for ``i <= n`` and 1.0 for the ``PAD`` after.
    ``minseglen >= 1``. ``trace``: an ``(n + 1, 2)`` int64 array to receive, after each step
    ``t``, the number of candidates and the sum of their ``tau`` (the new one included), or an
    empty one. Returns the number of exact evaluations of the vector steps (how well the filter
    works; the bad steps are not counted).
    """
    n = last.size - 1
    fb = np.zeros(n + 1 + PAD)          # F[tau] + beta, the part of x~ that does not depend on t
    f[0] = -beta
    last[0] = 0
    nseg[0] = 0
    fb[0] = f[0] + beta
    fmax = abs(beta)
    ab = abs(beta)
    plain = not math.isfinite(beta)
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = normal_meanvar_cost(s1, s2, 0, t)
        last[t] = 0
        nseg[t] = 1
        fb[t] = f[t] + beta
        fmax = max(fmax, abs(f[t]))
        plain |= not math.isfinite(f[t])
    ra = np.empty(n + 2, dtype=np.int64)
    rb = np.empty(n + 2, dtype=np.int64)
    NA = np.empty(n + 2, dtype=np.int64)
    NB = np.empty(n + 2, dtype=np.int64)
    vals = np.zeros(n + 1 + PAD)
    scratch = np.empty(8)
    iota = vload(np.arange(8.0), 0)
    ra[0] = 0
    rb[0] = 1
    nr = _append(ra, rb, 1, minseglen)
    n_exact = 0
    zero = vbcast(0.0)
    eight = vbcast(8.0)
    vhi = vbcast(1e300)
    vinf = vbcast(np.inf)
    vninf = vbcast(-np.inf)
    for t in range(2 * minseglen, n + 1):
        newc = t - minseglen + 1
        if plain:
            nr = _plain_step(s1, s2, beta, t, ra, rb, nr, newc, vals, f, last, nseg, NA, NB)
            if trace.shape[0] > 0:
                _trace(trace, t, ra, rb, nr)
            continue
        st1 = vbcast(s1[t])
        st2 = vbcast(s2[t])
        vt = vbcast(float(t))
        roff = n + 1 - t
        mnv = vinf
        mxv = vninf
        wmin = vhi
        wsum = zero
        # 1. approximate values of every candidate, run by run, 8 at a time; the last block of a
        # run masked (lanes past its end hold anything)
        for r in range(nr):
            a = ra[r]
            b = rb[r]
            full = a + ((b - a) & ~7)
            m8 = vsub(vsub(vt, vbcast(float(a))), iota)
            for off in range(a, full, 8):
                x, w = _approx_block(s1, s2, fb, rtab, off, roff, st1, st2, m8)
                m8 = vsub(m8, eight)
                vstore(vals, off, x)
                mnv = vmin(x, mnv)
                mxv = vmax(x, mxv)
                wmin = vmin(w, wmin)
                wsum = vadd(wsum, w)
            if full < b:
                valid = (1 << (b - full)) - 1
                x, w = _approx_block(s1, s2, fb, rtab, full, roff, st1, st2, m8)
                vstore(vals, full, x)
                mnv = vmin(vsel(valid, x, vinf), mnv)
                mxv = vmax(vsel(valid, x, vninf), mxv)
                wmin = vmin(vsel(valid, w, vhi), wmin)
                wsum = vadd(wsum, vsel(valid, w, zero))
        # every lane's w in (1e-300, 1e300), or else (NaN, inf, out of range) a bad step: the sum
        # is NaN or >= 1e300 when a lane is NaN, inf or >= 1e300 (or when many lanes are huge)
        ws = _hsum(wsum, scratch)
        bad = not (_hmin(wmin, scratch) > 1e-300 and ws < 1e300)
        if bad:
            nr = _plain_step(s1, s2, beta, t, ra, rb, nr, newc, vals, f, last, nseg, NA, NB)
            if trace.shape[0] > 0:
                _trace(trace, t, ra, rb, nr)
            fmax = max(fmax, abs(f[t]))
            fb[t] = f[t] + beta
            plain = not math.isfinite(fb[t])
            continue
        mn = _hmin(mnv, scratch)
        mx = _hmax(mxv, scratch)
        marg = MARGIN_PER_T * t + MARGIN_REL * (fmax + ab + 1.0)
        # 2. exact values of the candidates within 2M of the least approximate value
        vtop = vbcast(mn + 2.0 * marg)
        best = -1
        bestv = np.inf
        for r in range(nr):
            a = ra[r]
            b = rb[r]
            for off in range(a, b, 8):
                k = b - off
                valid = 255 if k >= 8 else (1 << k) - 1
                bits = vle(vload(vals, off), vtop) & valid
                while bits != 0:
                    tau = off + _low_bit(bits)
                    bits &= bits - 1
                    x = (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta
                    n_exact += 1
                    if best < 0 or x < bestv:
                        best = tau
                        bestv = x
        f[t] = bestv
        last[t] = best
        nseg[t] = nseg[best] + 1
        fmax = max(fmax, abs(bestv))
        bound = f[t] + beta
        fb[t] = bound
        if not math.isfinite(bound):
            plain = True
        # 3. pruning: nothing to drop when the largest value is surely within the bound
        if mx + marg <= bound:
            nr = _append(ra, rb, nr, newc)
            if trace.shape[0] > 0:
                _trace(trace, t, ra, rb, nr)
            continue
        vb = vbcast(bound)
        vm = vbcast(marg)
        m = 0
        for r in range(nr):
            a = ra[r]
            b = rb[r]
            for off in range(a, b, 8):
                k = b - off
                valid = 255 if k >= 8 else (1 << k) - 1
                x8 = vload(vals, off)
                keep = vle(vadd(x8, vm), vb) & valid
                undecided = valid & ~keep & ~vlt(vb, vsub(x8, vm))
                while undecided != 0:
                    j = _low_bit(undecided)
                    undecided &= undecided - 1
                    tau = off + j
                    n_exact += 1
                    if (f[tau] + normal_meanvar_cost(s1, s2, tau, t)) + beta <= bound:
                        keep |= 1 << j
                if keep == 255 and m > 0 and NB[m - 1] == off:
                    NB[m - 1] = off + 8
                    continue
                while keep != 0:
                    tau = off + _low_bit(keep)
                    keep &= keep - 1
                    m = keep_run(NA, NB, m, tau)
        nr = take_runs(ra, rb, NA, NB, m, newc)
        if trace.shape[0] > 0:
            _trace(trace, t, ra, rb, nr)
    return n_exact


def run(s1: NDArray[np.float64], s2: NDArray[np.float64], beta: float, minseglen: int,
        trace: NDArray[np.int64] | None = None
        ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64], int]:
    """:func:`pelt_r_meanvar_vec` on prefix sums ``s1``, ``s2`` (length ``n + 1``, finite; the
    padded copies and the table of ``1/m`` made here): ``last``, ``nseg``, ``F`` (length
    ``n + 1``) and the number of exact evaluations. ``trace`` as the kernel's, or None."""
    n = s1.size - 1
    a = np.ones(n + 1 + PAD)
    b = np.ones(n + 1 + PAD)
    a[:n + 1] = s1
    b[:n + 1] = s2
    rtab = np.ones(n + 1 + PAD)
    rtab[:n + 1] = 1.0 / np.arange(n + 1, 0, -1, dtype=np.float64)
    last = np.zeros(n + 1, dtype=np.int64)
    nseg = np.zeros(n + 1, dtype=np.int64)
    f = np.zeros(n + 1 + PAD)
    tr = np.zeros((0, 2), dtype=np.int64) if trace is None else trace
    n_exact = pelt_r_meanvar_vec(a, b, rtab, float(beta), int(minseglen), last, nseg, f, tr)
    return last, nseg, f[:n + 1], int(n_exact)
