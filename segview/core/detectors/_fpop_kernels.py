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

1. *values*: for each candidate alive at the block's start, ``v_tau(t)`` for the 8 steps at once,
   with ``op``'s formula ``F[tau] + ((Q[t] - Q[tau]) - s*s/m)``, and the running first (or last)
   minimum over the candidates in ascending ``tau``;
2. *the recursion*: a scalar pass over the 8 steps adds the block's own newborns (``t0 .. t-1``) to
   that minimum, in ``tau`` order, but evaluates them only when one could compete (a newborn's value
   is at least its ``F`` minus rounding, and it seldom comes within ``beta`` of the best): ``F[t]``,
   ``last[t]``;
3. *balls*: for each old candidate, its balls against the 8 newborns (intersected into its set) and
   its shrunk balls (merged into the 8 newborns' holes); then the same for the pairs of newborns of
   the block (``jp < j``) in one vector per ``jp``;
4. the old candidates whose set is empty are dropped; the newborns enter with ``[lo, hi]`` minus
   their hole, intersected with their balls against the block's later newborns.

The loop-carried chain of a step is then one scalar comparison (step 2); the divisions, square roots
and reductions run 8 steps to a vector instruction. Pruning is applied up to 7 steps late, which
only keeps more candidates for a while (a superset, so still exact; on the benchmark series 4.9 and
8.5-10.8 candidates per block against FPOP's 3.9 and 7.5 per step). Divisions by ``m`` for the balls
come from a table of ``1/m`` (the same correctly rounded value as ``1.0 / m``).

Representation: structure of arrays, one column per candidate (start, ``F[tau]``, ``S[tau]``,
``Q[tau]`` -- prefix sums of the centred data, so no O(n) prefix-sum arrays are stored -- and its set
as at most two closed intervals, an empty one stored with its ends crossed). The means live in
``[min y, max y]`` (a segment mean is inside the data range), which bounds every set. The newborn's
set is ``[lo, hi]`` minus one interval: the best candidate's shrunk ball merged, in one pass in
``tau`` order, with every other shrunk ball that meets the interval merged so far -- a subset of
the union of the balls, so the newborn gets a superset of its exact set; a set of at most two
intervals stays so under intersection with a ball.

Exactness with respect to ``op`` (bitwise-identical ``F`` and ``last``, both tie rules): ``F[t]`` is
computed with ``op``'s formula over a superset of the candidates ``op`` could pick, in ascending
``tau``, and the sets are kept as *supersets* of the exact ones: a candidate keeps the mean values
where it is within ``eps`` of the best (balls grown by ``eps``), a newborn loses only where an
existing one beats it by more than ``eps`` (balls shrunk by ``eps``). ``eps`` is a relative margin
(``eps_rel * (|F[t]| + Q[t] + beta)``) far above the rounding of one cost evaluation, so a candidate
that ``op``'s floating-point arithmetic would pick -- including exact ties -- is never pruned.
``min_size`` is 1 (the only case this kernel handles).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ._vec8 import hmax, hmin, vadd, vbcast, vdiv, vle, vload, vlt, vmax, vmin, vmul, vsel, \
    vsqrt, vstore, vsub

#: Default relative pruning margin (see the module docstring).
EPS_REL = 1e-9

_ROWS = 8  # start, F, S, Q, interval 1 (lo, hi), interval 2 (lo, hi)
_B = 8  # steps per block = vector lanes
_INV_MAX = 1 << 16  # table of 1/m for m below this (512 KB); older candidates divide


def fpop_state(capacity: int = 64) -> tuple:
    """Empty state for :func:`fpop_l2_advance`: candidate 0 is added by the kernel at ``t = 1``.

    ``(C, scal, cnt)``: the candidate columns ``C`` (rows: see ``_ROWS``; zero-filled so that the
    lanes past the last candidate are finite), ``scal = [S_t, Q_t]``, ``cnt = [candidates]``.
    """
    return np.zeros((_ROWS, max(capacity, 4 * _B))), np.zeros(2), np.zeros(1, np.int64)


@njit(nogil=True, cache=True, inline="always")
def _balls(mu, inv, v, up, down, lanes: int, CL, CH) -> tuple:
    """One candidate's balls against the newborns of the lanes in ``lanes`` (values ``v``, centres
    ``mu``, ``inv = 1/m``; ``up``/``down`` = the newborns' F plus/minus eps). Returns the
    intersection ``[gmax, gmin]`` of its grown balls (empty: crossed ends) and the holes ``CL``/``CH``
    grown by each shrunk ball that meets them."""
    zero = vbcast(0.0)
    vinf = vbcast(np.inf)
    vninf = vbcast(-np.inf)
    room = vsub(up, v)
    shrink = vsub(down, v)
    r = vsqrt(vmul(vmax(room, zero), inv))
    rs = vsqrt(vmul(vmax(shrink, zero), inv))
    ball = vle(zero, room) & lanes
    gmax = hmax(vsel(ball, vsub(mu, r), vsel(lanes, vinf, vninf)))
    gmin = hmin(vsel(ball, vadd(mu, r), vsel(lanes, vninf, vinf)))
    pos = vlt(zero, shrink) & lanes
    lo_s = vsel(pos, vsub(mu, rs), vinf)
    hi_s = vsel(pos, vadd(mu, rs), vninf)
    meets = vle(lo_s, CH) & vle(CL, hi_s)
    return gmax, gmin, vsel(meets, vmin(CL, lo_s), CL), vsel(meets, vmax(CH, hi_s), CH)


@njit(nogil=True, cache=True, error_model="numpy")
def _fpop_l2_blocks(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int,
                    TAU: NDArray[np.float64], CF: NDArray[np.float64], CS: NDArray[np.float64],
                    CQ: NDArray[np.float64], A0: NDArray[np.float64], A1: NDArray[np.float64],
                    B0: NDArray[np.float64], B1: NDArray[np.float64], Vm: NDArray[np.float64],
                    INV: NDArray[np.float64], INVP: NDArray[np.float64],
                    scal: NDArray[np.float64], cnt: NDArray[np.int64]) -> int:
    """Blocks of steps from ``t_from`` until ``t_to`` or until the columns are full; returns the
    first step not done. ``Vm`` is scratch of 8 values per column; ``INV[m] = 1/m`` for
    ``1 <= m < INV.size - 8``; ``INVP[7 - jp + j] = 1/(j - jp)`` for ``j > jp`` (1 elsewhere)."""
    inf = np.inf
    St = scal[0]
    Qt = scal[1]
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
        St = 0.0
        Qt = 0.0
    cap = TAU.size
    M = INV.size - _B
    Sa = np.zeros(_B)
    Qa = np.zeros(_B)
    Ta = np.zeros(_B)
    Fa = np.zeros(_B)
    Ea = np.zeros(_B)
    Ba = np.zeros(_B)
    Aa = np.zeros(_B)
    XT = np.zeros(_B)
    XS = np.zeros(_B)
    CLa = np.zeros(_B)
    CHa = np.zeros(_B)
    NGL = np.zeros(_B)
    NGH = np.zeros(_B)
    zero = vbcast(0.0)
    one = vbcast(1.0)
    vinf = vbcast(inf)
    vninf = vbcast(-inf)
    t0 = t_from
    while t0 < t_to:
        if k + 2 * _B > cap:
            break
        nb = min(_B, t_to - t0)
        for j in range(_B):
            if j < nb:
                c = y[t0 + j - 1] - centre
                St += c
                Qt += c * c
            Sa[j] = St
            Qa[j] = Qt
            Ta[j] = float(t0 + j)
        Sb = vload(Sa, 0)
        Qb = vload(Qa, 0)
        Tf = vload(Ta, 0)
        okbits = (1 << nb) - 1
        # 1. the values of the old candidates at the 8 steps; first (last) minimum in tau order
        best = vinf
        argv = zero
        for i in range(k):
            s = vsub(Sb, vbcast(CS[i]))
            v = vadd(vbcast(CF[i]), vsub(vsub(Qb, vbcast(CQ[i])),
                                         vdiv(vmul(s, s), vsub(Tf, vbcast(TAU[i])))))
            vstore(Vm, i * _B, v)
            better = vle(v, best) if tie_last else vlt(v, best)
            best = vsel(better, v, best)
            argv = vsel(better, vbcast(float(i)), argv)
        vstore(Ba, 0, best)
        vstore(Aa, 0, argv)
        # 2. F step by step; the block's newborns are evaluated only when one can compete
        fmin = inf
        for j in range(nb):
            b = Ba[j]
            a = int(Aa[j])
            atau = TAU[a]
            XT[j] = atau
            XS[j] = CS[a]
            if fmin - eps_rel * (abs(b) + Qa[j] + beta) <= b:
                for jp in range(j):
                    s = Sa[j] - Sa[jp]
                    v = Fa[jp] + ((Qa[j] - Qa[jp]) - s * s / (Ta[j] - Ta[jp]))
                    if (v <= b) if tie_last else (v < b):
                        b = v
                        atau = Ta[jp]
                        XT[j] = Ta[jp]
                        XS[j] = Sa[jp]
                        Ba[j] = v
            ft = b + beta
            F[t0 + j] = ft
            last[t0 + j] = int(atau)
            Fa[j] = ft
            Ea[j] = eps_rel * (abs(ft) + Qa[j] + beta)
            fmin = min(fmin, ft)
        for j in range(nb, _B):
            Fa[j] = Fa[nb - 1]
            Ea[j] = Ea[nb - 1]
            XT[j] = XT[nb - 1]
            XS[j] = XS[nb - 1]
            Ba[j] = Ba[nb - 1]
        Fb = vload(Fa, 0)
        Eb = vload(Ea, 0)
        up = vadd(Fb, Eb)
        down = vsub(Fb, Eb)
        # 3. the newborns' holes start from the best candidate's shrunk ball ...
        inv = vdiv(one, vsub(Tf, vload(XT, 0)))
        mu = vmul(vsub(Sb, vload(XS, 0)), inv)
        shrink = vsub(down, vload(Ba, 0))
        rs = vsqrt(vmul(vmax(shrink, zero), inv))
        pos = vlt(zero, shrink)
        CL = vsel(pos, vsub(mu, rs), vinf)
        CH = vsel(pos, vadd(mu, rs), vninf)
        # ... and grow, in tau order, by every shrunk ball that meets them; each old candidate's
        # set is intersected with its (grown) balls against the block's newborns
        for i in range(k):
            m0 = t0 - int(TAU[i])
            if m0 < M:
                inv = vload(INV, m0)
            else:
                inv = vdiv(one, vsub(Tf, vbcast(TAU[i])))
            mu = vmul(vsub(Sb, vbcast(CS[i])), inv)
            gmax, gmin, CL, CH = _balls(mu, inv, vload(Vm, i * _B), up, down, okbits, CL, CH)
            A0[i] = max(A0[i], gmax)
            A1[i] = min(A1[i], gmin)
            B0[i] = max(B0[i], gmax)
            B1[i] = min(B1[i], gmin)
        # the block's newborn pairs: newborn jp against the later newborns j (lanes j > jp); these
        # values only place balls, so the division is by the table's 1/m
        for jp in range(nb):
            okj = (okbits >> (jp + 1)) << (jp + 1)
            if okj == 0:
                NGL[jp] = -inf
                NGH[jp] = inf
                continue
            s = vsub(Sb, vbcast(Sa[jp]))
            inv = vload(INVP, _B - 1 - jp)
            mu = vmul(s, inv)
            v = vadd(vbcast(Fa[jp]), vsub(vsub(Qb, vbcast(Qa[jp])), vmul(s, mu)))
            NGL[jp], NGH[jp], CL, CH = _balls(mu, inv, v, up, down, okj, CL, CH)
        vstore(CLa, 0, CL)
        vstore(CHa, 0, CH)
        # 4. drop the old candidates with an empty set (order kept), then add the newborns
        jn = 0
        for i in range(k):
            if (A0[i] <= A1[i]) | (B0[i] <= B1[i]):
                if jn != i:
                    TAU[jn] = TAU[i]
                    CF[jn] = CF[i]
                    CS[jn] = CS[i]
                    CQ[jn] = CQ[i]
                    A0[jn] = A0[i]
                    A1[jn] = A1[i]
                    B0[jn] = B0[i]
                    B1[jn] = B1[i]
                jn += 1
        for j in range(nb):
            cl = CLa[j]
            ch = CHa[j]
            TAU[jn] = Ta[j]
            CF[jn] = Fa[j]
            CS[jn] = Sa[j]
            CQ[jn] = Qa[j]
            if cl <= ch:
                a0 = lo if cl > lo else inf
                a1 = min(cl, hi) if cl > lo else -inf
                b0 = ch
                b1 = hi
            else:
                a0 = lo
                a1 = hi
                b0 = inf
                b1 = -inf
            a0 = max(a0, NGL[j])
            a1 = min(a1, NGH[j])
            b0 = max(b0, NGL[j])
            b1 = min(b1, NGH[j])
            A0[jn] = a0
            A1[jn] = a1
            B0[jn] = b0
            B1[jn] = b1
            jn += (a0 <= a1) | (b0 <= b1)
        k = jn
        t0 += nb
    scal[0] = St
    scal[1] = Qt
    cnt[0] = k
    return t0


@njit(nogil=True, cache=True)
def _inverse_tables(n: int) -> tuple:
    M = max(min(n, _INV_MAX), 2 * _B)
    INV = np.empty(M + _B)
    INV[0] = 1.0
    for m in range(1, M + _B):
        INV[m] = 1.0 / m
    INVP = np.ones(2 * _B)
    for x in range(_B, 2 * _B):
        INVP[x] = 1.0 / (x - (_B - 1))
    return INV, INVP


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
    INV, INVP = _inverse_tables(t_to)
    Vm = np.zeros(C.shape[1] * _B)
    t = t_from
    while t < t_to:
        t = _fpop_l2_blocks(y, centre, beta, tie_last, eps_rel, lo, hi, F, last, t, t_to,
                            C[0], C[1], C[2], C[3], C[4], C[5], C[6], C[7], Vm, INV, INVP,
                            scal, cnt)
        if t < t_to:
            D = np.zeros((C.shape[0], 2 * C.shape[1]))
            D[:, :C.shape[1]] = C
            C = D
            Vm = np.zeros(C.shape[1] * _B)
    return C


@njit(nogil=True, cache=True)
def _grow_pieces(P: NDArray[np.float64], need: int) -> NDArray[np.float64]:
    if need <= P.shape[0]:
        return P
    Q = np.empty((max(need, 2 * P.shape[0]), P.shape[1]))
    Q[:P.shape[0]] = P
    return Q


@njit(nogil=True, cache=True)
def rfpop_biweight_advance(z: NDArray[np.float64], K: float, beta: float, lo: float, hi: float,
                           F: NDArray[np.float64], last: NDArray[np.int64], t_from: int, t_to: int,
                           P: NDArray[np.float64], W: NDArray[np.float64],
                           cnt: NDArray[np.int64]) -> tuple:
    """Robust FPOP (Fearnhead & Rigaill 2019) with the biweight loss ``min((z - theta)^2, K^2)``.

    ``Q_t(theta)`` = the best penalised cost of ``z[0:t]`` whose last segment has parameter
    ``theta`` obeys ``Q_t = min(Q_{t-1}, F[t-1] + beta) + loss(z[t-1] - theta)`` and
    ``F[t] = min Q_t``. It is stored exactly as pieces over ``[lo, hi]`` (the data range, where a
    minimiser lies), each a row ``(left, right, a, m, v, tau)`` meaning ``a (theta - m)^2 + v``
    (vertex form: adding a point updates ``m`` and ``v`` like a running mean, without the
    cancellation of expanded coefficients) for segmentations whose last segment starts at ``tau``;
    ``a`` counts the points whose quadratic branch covers the piece. ``last[t]`` is the ``tau`` of
    the minimising piece (ties: smallest ``tau``). Rows ``P[:cnt[0]]``; ``W`` is scratch.
    """
    npc = cnt[0]
    for t in range(t_from, t_to):
        L = F[t - 1] + beta
        tau_new = float(t - 1)
        # 1. min(Q_{t-1}, L): the parts of each piece above L become the constant L (label t-1)
        W = _grow_pieces(W, 3 * npc + 3)
        w = 0
        if t == 1:
            W[0, 0] = lo
            W[0, 1] = hi
            W[0, 2] = 0.0
            W[0, 3] = 0.0
            W[0, 4] = L
            W[0, 5] = tau_new
            w = 1
        for i in range(npc):
            l = P[i, 0]
            r = P[i, 1]
            a = P[i, 2]
            m = P[i, 3]
            v = P[i, 4]
            d = L - v
            if a == 0.0 or d < 0.0:
                if d >= 0.0:
                    c0 = l
                    c1 = l  # nothing replaced
                    k0 = l
                    k1 = r
                else:
                    c0 = l
                    c1 = r
                    k0 = r
                    k1 = r
                    # whole piece replaced
            else:
                h = math.sqrt(d / a)
                k0 = max(l, m - h)
                k1 = min(r, m + h)
                c0 = l
                c1 = k0
                if k0 >= k1:
                    k0 = r
                    k1 = r
                    c1 = r
            # constant part on the left [c0, c1]
            if c1 > c0:
                if w > 0 and W[w - 1, 5] == tau_new and W[w - 1, 2] == 0.0 and W[w - 1, 1] >= c0:
                    W[w - 1, 1] = c1
                else:
                    W[w, 0] = c0
                    W[w, 1] = c1
                    W[w, 2] = 0.0
                    W[w, 3] = 0.0
                    W[w, 4] = L
                    W[w, 5] = tau_new
                    w += 1
            # kept part [k0, k1]
            if k1 > k0:
                W[w, 0] = k0
                W[w, 1] = k1
                W[w, 2] = a
                W[w, 3] = m
                W[w, 4] = v
                W[w, 5] = P[i, 5]
                w += 1
                # constant part on the right [k1, r]
                if r > k1:
                    W[w, 0] = k1
                    W[w, 1] = r
                    W[w, 2] = 0.0
                    W[w, 3] = 0.0
                    W[w, 4] = L
                    W[w, 5] = tau_new
                    w += 1
        # 2. add the loss of z[t-1]: quadratic inside (A, B), the constant K^2 outside
        x = z[t - 1]
        A = x - K
        B = x + K
        P = _grow_pieces(P, w + 2)
        npc = 0
        best = np.inf
        arg = -1.0
        for i in range(w):
            l = W[i, 0]
            r = W[i, 1]
            cuts0 = l
            for part in range(3):
                if part == 0:
                    e = min(r, A) if A > l else l
                elif part == 1:
                    e = min(r, B) if B > cuts0 else cuts0
                else:
                    e = r
                if e <= cuts0:
                    continue
                a = W[i, 2]
                m = W[i, 3]
                v = W[i, 4]
                mid = 0.5 * (cuts0 + e)
                if A < mid < B:
                    a1 = a + 1.0
                    dm = x - m
                    m = m + dm / a1
                    v = v + (a / a1) * dm * dm
                    a = a1
                else:
                    v = v + K * K
                P[npc, 0] = cuts0
                P[npc, 1] = e
                P[npc, 2] = a
                P[npc, 3] = m
                P[npc, 4] = v
                P[npc, 5] = W[i, 5]
                npc += 1
                # minimum of this piece
                if a > 0.0:
                    th = min(max(m, cuts0), e)
                    val = v + a * (th - m) * (th - m)
                else:
                    val = v
                if val < best or (val == best and W[i, 5] < arg):
                    best = val
                    arg = W[i, 5]
                cuts0 = e
        F[t] = best
        last[t] = int(arg)
    cnt[0] = npc
    return P, W
