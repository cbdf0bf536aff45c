"""numba kernel of FPOP for the L2 (Normal-mean) cost, exact w.r.t. ``op``.

FPOP (Maidstone, Hocking, Rigaill & Fearnhead 2017, Statistics and Computing 27:519-533) keeps, for
every candidate last change ``tau``, the cost of the best segmentation of ``y[0:t]`` whose last
segment starts at ``tau`` *as a function of that segment's mean* ``mu``:

    f_tau^t(mu) = F[tau] + sum_{tau <= i < t} (y_i - mu)^2
                = v_tau(t) + (t - tau) (mu - ybar_tau(t))^2,   v_tau(t) = F[tau] + C(tau, t).

``F[t] = min_tau v_tau(t) + beta`` and the new candidate ``t`` enters as the constant ``F[t]``.
``tau`` can be the optimal last change at some end point only for ``mu`` in its set ``I_tau``: at
birth the part of the mean axis where it is not beaten by an older candidate, afterwards intersected,
for every later candidate ``s``, with the ball ``{f_tau^s(mu) <= F[s]}`` around ``ybar_tau(s)`` of
radius ``sqrt((F[s] - v_tau(s)) / (s - tau))``. Differences between two candidates' functions do not
change with ``t``, so each pair is compared once, and *when* it is compared does not matter.
``tau`` is pruned when ``I_tau`` is empty.

**Blocks of 8 steps.** That last remark is what this kernel exploits. It runs the steps in blocks of
8 and puts the block's 8 end points in the 8 lanes of a vector (:mod:`._vec8`), instead of putting
the candidates in the lanes:

1. *values*: for each candidate alive at the block's start (a *row*), ``v_tau(t)`` for the 8 steps
   at once with ``1/m`` from a table (``m = t - tau``), and their lane-wise minimum; then ``op``'s
   exact formula ``F[tau] + ((Q[t] - Q[tau]) - s*s/m)`` (a division) only for the rows within
   ``_NEAR`` (relative) of that minimum in some lane -- the others cannot be the minimum or tie
   with it, as the table's quotient is within a few ulps of ``op``'s -- and the first (or last)
   exact minimum over them in ascending ``tau``;
2. *the recursion*: a scalar pass over the 8 steps adds the block's own newborns (``t0 .. t-1``) to
   that minimum, in ``tau`` order, but evaluates them only when one could compete (a newborn's value
   is at least its ``F`` minus rounding, and it seldom comes within ``beta`` of the best): ``F[t]``,
   ``last[t]``;
3. *balls*: each row's balls against the 8 newborns (intersected into its set) and its shrunk balls
   (merged into the 8 newborns' holes); then the 28 pairs of newborns of the block (``jp < j``),
   packed by diagonal ``d = j - jp``: diagonals ``d`` and ``8 - d`` fill one vector, so 4 vectors;
4. the rows whose set is empty are dropped and the newborns enter with ``[lo, hi]`` minus their
   hole, intersected with their balls against the block's later newborns. The rows' balls are
   reduced 8 rows at a time (a transposed max/min tree) and both the rows and the newborns are
   compacted with a vector compress, 8 lanes at a time.

The loop-carried chain of a step is then one scalar comparison (step 2); the divisions, square roots
and reductions run 8 steps to a vector instruction. Pruning is applied up to 7 steps late, which
only keeps more candidates for a while (a superset, so still exact; on the benchmark series about
4.9 and 10.5 rows a block against FPOP's 3.9 and 7.5 candidates a step). A row needs one square
root: with ``rm = sqrt((F[s] - v) / m)`` and ``h = sqrt(eps / m)``, the grown radius
``sqrt((F[s] + eps - v) / m)`` is at most ``rm + h`` and the shrunk one ``sqrt((F[s] - eps - v) / m)``
at least ``rm - h`` (``sqrt(a + e) <= sqrt(a) + sqrt(e)``), so ``rm +- h`` keep the sets supersets.
``h`` comes from ``sqrt(eps)`` (once a block) and a table of ``1/sqrt(m)`` (its value at the row's
smallest ``m`` bounds all 8 lanes). The prefix sums are computed ``_CHUNK`` steps ahead, in ``op``'s
order: a vector load of values just stored one lane at a time would stall on the store buffer.

Representation: structure of arrays, one column per candidate (start, ``F[tau]``, ``S[tau]``,
``Q[tau]`` -- prefix sums of the centred data, so no O(n) prefix-sum arrays are stored -- and its set
as at most two closed intervals, an empty one stored with its ends crossed). The means live in
``[min y, max y]`` (a segment mean is inside the data range), which bounds every set. The newborn's
set is ``[lo, hi]`` minus one interval: the best candidate's shrunk ball merged, in one pass, with
every other shrunk ball that meets the interval merged so far -- a subset of the union of the balls
(in any order), so the newborn gets a superset of its exact set; a set of at most two intervals
stays so under intersection with a ball.

Exactness with respect to ``op`` (bitwise-identical ``F`` and ``last``, both tie rules): ``F[t]`` is
computed with ``op``'s formula over a superset of the candidates ``op`` could pick, in ascending
``tau``, and the sets are kept as *supersets* of the exact ones: a candidate keeps the mean values
where it is within ``eps`` of the best (balls grown by ``eps``), a newborn loses only where an
existing one beats it by more than ``eps`` (balls shrunk by ``eps``). ``eps`` is a relative margin
(``eps_rel * (|F[t]| + Q[t] + beta)``, ``EPS_REL = 1e-12``) about 4000 times the rounding of one
cost evaluation (a few ulps of ``|F| + Q``), so a candidate that ``op``'s floating-point arithmetic
would pick -- including exact ties -- is never pruned. (``1e-9`` worked as well before the radii
were bounded by ``rm +- h``; with the bound, ``h`` grows with ``eps`` and the rows per block of the
5-change benchmark series double at ``1e-9``.) ``min_size`` is 1 (the only case this kernel handles).
"""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit
from numba.core import config
from numba.core.codegen import get_host_cpu_features
from numpy.typing import NDArray

from ._vec8 import popcount, vadd, vbcast, vcompress, vdiv, vle, vload, vlt, vmax, vmin, vmul, \
    vperm, vsel, vshuf2, vsqrt, vstore, vsub

#: Default relative pruning margin (see the module docstring).
EPS_REL = 1e-12

_ROWS = 8  # start, F, S, Q, interval 1 (lo, hi), interval 2 (lo, hi)
_B = 8  # steps per block = vector lanes
_INV_MAX = 1 << 16  # tables of 1/m and 1/sqrt(m) for m below this (512 KB each)
_NEAR = 1e-12  # relative distance to the approximate minimum inside which op's value is computed
_CHUNK = 512  # prefix sums computed ahead


def _native_compress() -> bool:
    """Whether numba's target has AVX-512 (one instruction for :func:`._vec8.vcompress`; elsewhere
    LLVM expands it through memory, slower than plain copies)."""
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else get_host_cpu_features()
    return "+avx512f" in features.split(",")


_VCOMPRESS = _native_compress()


def fpop_state(capacity: int = 64) -> tuple:
    """Empty state for :func:`fpop_l2_advance`: candidate 0 is added by the kernel at ``t = 1``.

    ``(C, scal, cnt)``: the candidate columns ``C`` (rows: see ``_ROWS``; zero-filled so that the
    lanes past the last candidate are finite), ``scal = [S_t, Q_t]``, ``cnt = [candidates]``.
    """
    return np.zeros((_ROWS, max(capacity, 4 * _B))), np.zeros(2), np.zeros(1, np.int64)


@njit(nogil=True, cache=True, inline="always")
def _ball_ends(mu, inv, h, v, Fb, up, down, lanes: int) -> tuple:
    """A candidate's balls against the newborns of the lanes in ``lanes`` (its values ``v``, centres
    ``mu``, ``inv = 1/m``, ``h`` a bound of ``sqrt(eps/m)``; ``Fb`` the newborns' F, ``up``/``down``
    F plus and minus eps): the grown balls' ends ``glo, ghi`` (a lane outside ``lanes`` neutral, a
    lane without a ball empty) and the shrunk balls' ends ``lo_s, hi_s`` (empty where none)."""
    zero = vbcast(0.0)
    vinf = vbcast(np.inf)
    vninf = vbcast(-np.inf)
    rm = vsqrt(vmul(vmax(vsub(Fb, v), zero), inv))
    r = vadd(rm, h)
    rs = vsub(rm, h)
    ball = vle(zero, vsub(up, v)) & lanes
    glo = vsel(ball, vsub(mu, r), vsel(lanes, vinf, vninf))
    ghi = vsel(ball, vadd(mu, r), vsel(lanes, vninf, vinf))
    pos = vlt(zero, vsub(down, v)) & lanes
    return glo, ghi, vsel(pos, vsub(mu, rs), vinf), vsel(pos, vadd(mu, rs), vninf)


@njit(nogil=True, cache=True, inline="always")
def _merge(CL, CH, lo_s, hi_s) -> tuple:
    """The holes ``[CL, CH]`` grown, lane by lane, by the shrunk balls that meet them."""
    meets = vle(lo_s, CH) & vle(CL, hi_s)
    return vsel(meets, vmin(CL, lo_s), CL), vsel(meets, vmax(CH, hi_s), CH)


@njit(nogil=True, cache=True, inline="always")
def _put(TAU, CF, CS, CQ, A0, A1, B0, B1, jn: int, c0, c1, c2, c3, c4, c5, c6, c7, keep: int,
         X) -> int:
    """Append the lanes in ``keep`` of the column vectors ``c0..c7`` at ``jn``, in lane order;
    returns the new count. Writes at most 8 entries from ``jn`` (the ones past the count are
    garbage); ``X``: scratch of 64 values."""
    if _VCOMPRESS:
        vstore(TAU, jn, vcompress(c0, keep))
        vstore(CF, jn, vcompress(c1, keep))
        vstore(CS, jn, vcompress(c2, keep))
        vstore(CQ, jn, vcompress(c3, keep))
        vstore(A0, jn, vcompress(c4, keep))
        vstore(A1, jn, vcompress(c5, keep))
        vstore(B0, jn, vcompress(c6, keep))
        vstore(B1, jn, vcompress(c7, keep))
        return jn + popcount(keep)
    vstore(X, 0, c0)
    vstore(X, 8, c1)
    vstore(X, 16, c2)
    vstore(X, 24, c3)
    vstore(X, 32, c4)
    vstore(X, 40, c5)
    vstore(X, 48, c6)
    vstore(X, 56, c7)
    for r in range(_B):
        ju = np.uintp(jn)
        TAU[ju] = X[r]
        CF[ju] = X[8 + r]
        CS[ju] = X[16 + r]
        CQ[ju] = X[24 + r]
        A0[ju] = X[32 + r]
        A1[ju] = X[40 + r]
        B0[ju] = X[48 + r]
        B1[ju] = X[56 + r]
        jn += (keep >> r) & 1
    return jn


# Transposed reduction of 8 vectors to the vector of their 8 maxima (minima): the rows are loaded in
# the order 0 4 2 6 1 5 3 7 so that the three levels of two-vector shuffles leave row r in lane r.
_T1A = vshuf2([0, 1, 2, 3, 8, 9, 10, 11])
_T1B = vshuf2([4, 5, 6, 7, 12, 13, 14, 15])
_T2A = vshuf2([0, 1, 8, 9, 4, 5, 12, 13])
_T2B = vshuf2([2, 3, 10, 11, 6, 7, 14, 15])
_T3A = vshuf2([0, 8, 2, 10, 4, 12, 6, 14])
_T3B = vshuf2([1, 9, 3, 11, 5, 13, 7, 15])


@njit(nogil=True, cache=True, inline="always")
def _treduce(G, o: int, take_max: bool):
    """Lane ``r`` = the largest (``take_max``) or smallest lane of ``G[o + 8r : o + 8r + 8]``."""
    x0 = vload(G, o)
    x1 = vload(G, o + 32)
    x2 = vload(G, o + 16)
    x3 = vload(G, o + 48)
    x4 = vload(G, o + 8)
    x5 = vload(G, o + 40)
    x6 = vload(G, o + 24)
    x7 = vload(G, o + 56)
    if take_max:
        y0 = vmax(_T1A(x0, x1), _T1B(x0, x1))
        y1 = vmax(_T1A(x2, x3), _T1B(x2, x3))
        y2 = vmax(_T1A(x4, x5), _T1B(x4, x5))
        y3 = vmax(_T1A(x6, x7), _T1B(x6, x7))
        z0 = vmax(_T2A(y0, y1), _T2B(y0, y1))
        z1 = vmax(_T2A(y2, y3), _T2B(y2, y3))
        return vmax(_T3A(z0, z1), _T3B(z0, z1))
    y0 = vmin(_T1A(x0, x1), _T1B(x0, x1))
    y1 = vmin(_T1A(x2, x3), _T1B(x2, x3))
    y2 = vmin(_T1A(x4, x5), _T1B(x4, x5))
    y3 = vmin(_T1A(x6, x7), _T1B(x6, x7))
    z0 = vmin(_T2A(y0, y1), _T2B(y0, y1))
    z1 = vmin(_T2A(y2, y3), _T2B(y2, y3))
    return vmin(_T3A(z0, z1), _T3B(z0, z1))


# The pairs of a block's newborns (jp, j = jp + d) by diagonal d = 1..4: lane L < 8 - d holds
# (L, L + d), lane L >= 8 - d the pair (L - 8 + d, L) of diagonal 8 - d (none for d = 4).
# _PJP/_PJ gather the jp/j lanes; _ROT rotates by 8 - d (lane t from lane t + 8 - d mod 8), which
# moves the second diagonal's lanes to their jp and the first one's to their j.
_PJP1, _PJP2, _PJP3, _PJP4 = [vperm([L if L < 8 - d else L - 8 + d for L in range(8)])
                              for d in (1, 2, 3, 4)]
_PJ1, _PJ2, _PJ3, _PJ4 = [vperm([L + d if L < 8 - d else L for L in range(8)]) for d in (1, 2, 3, 4)]
_ROT1, _ROT2, _ROT3, _ROT4 = [vperm([(t + 8 - d) % 8 for t in range(8)]) for d in (1, 2, 3, 4)]


@njit(nogil=True, cache=True, inline="always")
def _pjp(v, d: int):
    if d == 1:
        return _PJP1(v)
    if d == 2:
        return _PJP2(v)
    if d == 3:
        return _PJP3(v)
    return _PJP4(v)


@njit(nogil=True, cache=True, inline="always")
def _pj(v, d: int):
    if d == 1:
        return _PJ1(v)
    if d == 2:
        return _PJ2(v)
    if d == 3:
        return _PJ3(v)
    return _PJ4(v)


@njit(nogil=True, cache=True, inline="always")
def _rot(v, d: int):
    if d == 1:
        return _ROT1(v)
    if d == 2:
        return _ROT2(v)
    if d == 3:
        return _ROT3(v)
    return _ROT4(v)


@njit(nogil=True, cache=True, inline="always")
def _pair_diagonals(d: int, Fb, Sb, Qb, up, down, hE, INVP, ISQP, nb: int, okbits: int, ngl, ngh,
                    CL, CH) -> tuple:
    """The newborn pairs of diagonals ``d`` and ``8 - d``: their grown balls narrow ``ngl``/``ngh``
    (the newborns' sets, lane = jp), their shrunk balls grow the holes ``CL``/``CH`` (lane = j).
    These values only place balls, so the division is by the table's 1/m (``INVP``)."""
    vinf = vbcast(np.inf)
    vninf = vbcast(-np.inf)
    first = (1 << (_B - d)) - 1
    second = (0xFF ^ first) if d < _B // 2 else 0
    valid = (((1 << max(nb - d, 0)) - 1) & first) | (okbits & second)
    s = vsub(_pj(Sb, d), _pjp(Sb, d))
    inv = vload(INVP, (d - 1) * _B)
    mu = vmul(s, inv)
    v = vadd(_pjp(Fb, d), vsub(vsub(_pj(Qb, d), _pjp(Qb, d)), vmul(s, mu)))
    h = vmul(hE, vload(ISQP, (d - 1) * _B))
    glo, ghi, lo_s, hi_s = _ball_ends(mu, inv, h, v, _pj(Fb, d), _pj(up, d), _pj(down, d), valid)
    ngl = vmax(ngl, vmax(vsel(first, glo, vninf), _rot(vsel(second, glo, vninf), d)))
    ngh = vmin(ngh, vmin(vsel(first, ghi, vinf), _rot(vsel(second, ghi, vinf), d)))
    CL, CH = _merge(CL, CH, _rot(vsel(first, lo_s, vinf), d), _rot(vsel(first, hi_s, vninf), d))
    if d < _B // 2:
        CL, CH = _merge(CL, CH, vsel(second, lo_s, vinf), vsel(second, hi_s, vninf))
    return ngl, ngh, CL, CH


@njit(nogil=True, cache=True, error_model="numpy")
def _fpop_l2_blocks(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int,
                    TAU: NDArray[np.float64], CF: NDArray[np.float64], CS: NDArray[np.float64],
                    CQ: NDArray[np.float64], A0: NDArray[np.float64], A1: NDArray[np.float64],
                    B0: NDArray[np.float64], B1: NDArray[np.float64], Vm: NDArray[np.float64],
                    GL: NDArray[np.float64], GH: NDArray[np.float64], INV: NDArray[np.float64],
                    ISQ: NDArray[np.float64], INVP: NDArray[np.float64],
                    ISQP: NDArray[np.float64], scal: NDArray[np.float64],
                    cnt: NDArray[np.int64]) -> int:
    """Blocks of steps from ``t_from`` until ``t_to`` or until the columns are full; returns the
    first step not done. ``Vm``, ``GL``, ``GH``: scratch of 8 values per column. Tables (see
    :func:`_tables`): ``INV[m] = 1/m`` and ``ISQ[m] >= 1/sqrt(m)`` for ``1 <= m < INV.size - 8``;
    ``INVP``/``ISQP`` the same for the lanes of the 4 newborn-pair vectors."""
    inf = np.inf
    k = cnt[0]
    if t_from == 1:
        TAU[0] = 0.0
        CF[0] = F[0]
        CS[0] = 0.0
        CQ[0] = 0.0
        A0[0] = lo
        A1[0] = hi
        B0[0] = inf
        B1[0] = -inf
        k = 1
        scal[0] = 0.0
        scal[1] = 0.0
    S_prev = scal[0]  # prefix sums at t0 - 1
    Q_prev = scal[1]
    cap = TAU.size
    M = INV.size - _B
    SB = np.zeros(_CHUNK + _B)  # prefix sums of the steps tb .. tb + _CHUNK + 7
    QB = np.zeros(_CHUNK + _B)
    tb = t_from - 2 * _CHUNK
    Fa = np.zeros(_B)
    Ba = np.zeros(_B)
    XT = np.zeros(_B)
    XS = np.zeros(_B)
    X = np.zeros(_B * _B)
    zero = vbcast(0.0)
    one = vbcast(1.0)
    vinf = vbcast(inf)
    vninf = vbcast(-inf)
    iota = vload(np.arange(float(_B)), 0)
    t0 = t_from
    while t0 < t_to:
        if k + 2 * _B > cap:
            break
        nb = min(_B, t_to - t0)
        okbits = (1 << nb) - 1
        if t0 + _B > tb + _CHUNK:
            # prefix sums ahead, in op's order; lanes past t_to repeat the last one
            tb = t0
            St = S_prev
            Qt = Q_prev
            for j in range(_CHUNK + _B):
                if tb + j < t_to:
                    c = y[tb + j - 1] - centre
                    St += c
                    Qt += c * c
                SB[j] = St
                QB[j] = Qt
        o = t0 - tb
        Sb = vload(SB, o)
        Qb = vload(QB, o)
        Tf = vadd(vbcast(float(t0)), iota)
        # 1. the rows' values at the 8 steps with the table's 1/m, and their minimum ...
        appr = vinf
        for i in range(k):
            s = vsub(Sb, vbcast(CS[i]))
            m0 = t0 - int(TAU[i])
            if m0 < M:
                q = vmul(vmul(s, s), vload(INV, m0))
            else:
                q = vdiv(vmul(s, s), vsub(Tf, vbcast(TAU[i])))
            v = vadd(vbcast(CF[i]), vsub(vsub(Qb, vbcast(CQ[i])), q))
            vstore(Vm, i * _B, v)
            appr = vmin(appr, v)
        # ... then op's values where a row may be the minimum or tie with it: first (last)
        # minimum in tau order, with its tau and S
        near_max = vadd(appr, vmul(vbcast(_NEAR), vadd(vadd(vmax(appr, vsub(zero, appr)), Qb),
                                                       vbcast(beta))))
        best = vinf
        argT = zero
        argS = zero
        for i in range(k):
            near = vle(vload(Vm, i * _B), near_max)
            if near != 0:
                s = vsub(Sb, vbcast(CS[i]))
                v = vadd(vbcast(CF[i]), vsub(vsub(Qb, vbcast(CQ[i])),
                                             vdiv(vmul(s, s), vsub(Tf, vbcast(TAU[i])))))
                v = vsel(near, v, vinf)
                better = vle(v, best) if tie_last else vlt(v, best)
                best = vsel(better, v, best)
                argT = vsel(better, vbcast(TAU[i]), argT)
                argS = vsel(better, vbcast(CS[i]), argS)
        vstore(Ba, 0, best)
        vstore(XT, 0, argT)
        # 2. F step by step; the block's newborns are evaluated only when one can compete
        fmin = inf
        won = 0
        for j in range(nb):
            b = Ba[j]
            atau = XT[j]
            Qj = QB[o + j]
            if fmin - eps_rel * (abs(b) + Qj + beta) <= b:
                Sj = SB[o + j]
                for jp in range(j):
                    s = Sj - SB[o + jp]
                    v = Fa[jp] + ((Qj - QB[o + jp]) - s * s / float(j - jp))
                    if (v <= b) if tie_last else (v < b):
                        b = v
                        atau = float(t0 + jp)
                        won |= 1 << j
                        Ba[j] = v
                        XT[j] = atau
                        XS[j] = SB[o + jp]
            ft = b + beta
            F[t0 + j] = ft
            last[t0 + j] = int(atau)
            Fa[j] = ft
            fmin = min(fmin, ft)
        if won != 0:
            best = vsel(won, vload(Ba, 0), best)
            argT = vload(XT, 0)  # the lanes not won still hold argT
            argS = vsel(won, vload(XS, 0), argS)
        Fb = vadd(best, vbcast(beta))
        Eb = vmul(vbcast(eps_rel), vadd(vadd(vmax(Fb, vsub(zero, Fb)), Qb), vbcast(beta)))
        up = vadd(Fb, Eb)
        down = vsub(Fb, Eb)
        hE = vsqrt(Eb)
        # 3. the newborns' holes start from the best candidate's shrunk ball ...
        inv = vdiv(one, vsub(Tf, argT))
        mu = vmul(vsub(Sb, argS), inv)
        shrink = vsub(down, best)
        rs = vsqrt(vmul(shrink, inv))
        pos = vlt(zero, shrink)
        CL = vsel(pos, vsub(mu, rs), vinf)
        CH = vsel(pos, vadd(mu, rs), vninf)
        # ... and grow, in tau order, by every shrunk ball that meets them; the rows' grown balls
        # are kept for step 4
        for i in range(k):
            m0 = t0 - int(TAU[i])
            if m0 < M:
                inv = vload(INV, m0)
            else:
                inv = vdiv(one, vsub(Tf, vbcast(TAU[i])))
            mu = vmul(vsub(Sb, vbcast(CS[i])), inv)
            h = vmul(hE, vbcast(ISQ[min(m0, M - 1)]))
            glo, ghi, lo_s, hi_s = _ball_ends(mu, inv, h, vload(Vm, i * _B), Fb, up, down, okbits)
            CL, CH = _merge(CL, CH, lo_s, hi_s)
            vstore(GL, i * _B, glo)
            vstore(GH, i * _B, ghi)
        # the block's newborn pairs, by diagonals
        ngl = vninf
        ngh = vinf
        ngl, ngh, CL, CH = _pair_diagonals(1, Fb, Sb, Qb, up, down, hE, INVP, ISQP, nb, okbits,
                                           ngl, ngh, CL, CH)
        ngl, ngh, CL, CH = _pair_diagonals(2, Fb, Sb, Qb, up, down, hE, INVP, ISQP, nb, okbits,
                                           ngl, ngh, CL, CH)
        ngl, ngh, CL, CH = _pair_diagonals(3, Fb, Sb, Qb, up, down, hE, INVP, ISQP, nb, okbits,
                                           ngl, ngh, CL, CH)
        ngl, ngh, CL, CH = _pair_diagonals(4, Fb, Sb, Qb, up, down, hE, INVP, ISQP, nb, okbits,
                                           ngl, ngh, CL, CH)
        # 4. the rows, 8 at a time: sets intersected with their balls; the empty ones dropped
        jn = 0
        for g in range(0, k, _B):
            rows = (1 << min(k - g, _B)) - 1
            gmax = _treduce(GL, g * _B, True)
            gmin = _treduce(GH, g * _B, False)
            a0 = vmax(vload(A0, g), gmax)
            a1 = vmin(vload(A1, g), gmin)
            b0 = vmax(vload(B0, g), gmax)
            b1 = vmin(vload(B1, g), gmin)
            keep = (vle(a0, a1) | vle(b0, b1)) & rows
            if keep == rows and jn == g:
                vstore(A0, g, a0)
                vstore(A1, g, a1)
                vstore(B0, g, b0)
                vstore(B1, g, b1)
                jn += popcount(rows)
                continue
            jn = _put(TAU, CF, CS, CQ, A0, A1, B0, B1, jn, vload(TAU, g), vload(CF, g),
                      vload(CS, g), vload(CQ, g), a0, a1, b0, b1, keep, X)
        # the newborns: [lo, hi] minus the hole, intersected with their balls; the live ones enter
        vlo = vbcast(lo)
        vhi = vbcast(hi)
        hole = vle(CL, CH)
        cut = vlt(vlo, CL)
        a0 = vmax(vsel(hole, vsel(cut, vlo, vinf), vlo), ngl)
        a1 = vmin(vsel(hole, vsel(cut, vmin(CL, vhi), vninf), vhi), ngh)
        b0 = vmax(vsel(hole, CH, vinf), ngl)
        b1 = vmin(vsel(hole, vhi, vninf), ngh)
        alive = (vle(a0, a1) | vle(b0, b1)) & okbits
        k = _put(TAU, CF, CS, CQ, A0, A1, B0, B1, jn, Tf, Fb, Sb, Qb, a0, a1, b0, b1, alive, X)
        S_prev = SB[o + nb - 1]
        Q_prev = QB[o + nb - 1]
        t0 += nb
    scal[0] = S_prev
    scal[1] = Q_prev
    cnt[0] = k
    return t0


@njit(nogil=True, cache=True, error_model="numpy")
def _tables(n: int) -> tuple:
    """``INV``, ``ISQ`` (``1/m``, ``1/sqrt(m)`` rounded up) for the rows; ``INVP``, ``ISQP`` for the
    lanes of the newborn-pair vectors (see :func:`_pair_diagonals`)."""
    M = max(min(n, _INV_MAX), 2 * _B)
    up = 1.0 + 2.0 ** -40
    INV = np.empty(M + _B)
    ISQ = np.empty(M + _B)
    # one loop per table and no zero checks (error_model numpy), so LLVM vectorises both; one loop
    # filling both stayed scalar and took 0.7 ms of a 1e6-point run's 26 ms (now 0.4, mostly the
    # first touch of the 1 MB)
    for m in range(1, M + _B):
        INV[m] = 1.0 / (m + 0.0)
    for m in range(1, M + _B):
        ISQ[m] = up / math.sqrt(m + 0.0)
    INV[0] = 1.0
    ISQ[0] = 1.0
    INVP = np.empty(_B // 2 * _B)
    ISQP = np.empty(_B // 2 * _B)
    for d in range(1, _B // 2 + 1):
        for L in range(_B):
            m = d if L < _B - d else _B - d
            INVP[(d - 1) * _B + L] = 1.0 / m
            ISQP[(d - 1) * _B + L] = up / math.sqrt(m)
    return INV, ISQ, INVP, ISQP


@njit(nogil=True, cache=True)
def fpop_l2_advance(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int, C: NDArray[np.float64],
                    scal: NDArray[np.float64], cnt: NDArray[np.int64]) -> NDArray[np.float64]:
    """FPOP recursion for end points ``t in [t_from, t_to)`` (``t_from >= 1``); returns ``C``.

    ``y`` raw data, ``centre`` the value subtracted (``y.mean()``, as ``_costs.prefix_sums``),
    ``lo``/``hi`` the range of the centred data. ``F[0] = -beta`` and ``last[0] = -1`` are set by
    the caller. ``C`` may be reallocated (more candidates); use the returned one for the next call.
    Calls may split the steps anywhere (a block never spans two calls).
    """
    INV, ISQ, INVP, ISQP = _tables(t_to)
    t = t_from
    while t < t_to:
        Vm = np.zeros(C.shape[1] * _B)
        GL = np.zeros(C.shape[1] * _B)
        GH = np.zeros(C.shape[1] * _B)
        t = _fpop_l2_blocks(y, centre, beta, tie_last, eps_rel, lo, hi, F, last, t, t_to,
                            C[0], C[1], C[2], C[3], C[4], C[5], C[6], C[7], Vm, GL, GH,
                            INV, ISQ, INVP, ISQP, scal, cnt)
        if t < t_to:
            D = np.zeros((C.shape[0], 2 * C.shape[1]))
            D[:, :C.shape[1]] = C
            C = D
    return C
