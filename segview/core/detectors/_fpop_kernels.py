"""numba kernel of FPOP for the L2 (Normal-mean) cost, exact w.r.t. ``op``.

FPOP (Maidstone, Hocking, Rigaill & Fearnhead 2017, Statistics and Computing 27:519-533) keeps, for
every candidate last change ``tau``, the cost of the best segmentation of ``y[0:t]`` whose last
segment starts at ``tau`` *as a function of that segment's mean* ``mu``:

    f_tau^t(mu) = F[tau] + sum_{tau <= i < t} (y_i - mu)^2
                = v_tau(t) + (t - tau) (mu - ybar_tau(t))^2,   v_tau(t) = F[tau] + C(tau, t).

``F[t] = min_tau v_tau(t) + beta`` and the new candidate ``t`` enters as the constant ``F[t]``.
``tau`` can be the optimal last change at some end point only for ``mu`` in its set
``I_tau``: at birth the part of the mean axis where it is not beaten by an existing candidate,
afterwards intersected at every step ``t`` with the interval ``{f_tau^t(mu) <= F[t]}`` (a ball around
``ybar_tau(t)`` of radius ``sqrt((F[t] - v_tau(t)) / (t - tau))``). Differences between two
candidates' functions do not change with ``t``, which is why one comparison per step suffices.
``tau`` is pruned when ``I_tau`` is empty (the functional pruning of the paper; PELT's rule
``v_tau(t) > F[t]`` is the special case where the ball itself is empty).

Representation here: structure of arrays, one column per candidate (start, ``F[tau]``, ``S[tau]``,
``Q[tau]`` -- prefix sums of the centred data, so no O(n) prefix-sum arrays are stored -- and its set
as at most two closed intervals, an empty one stored with its ends crossed). The means live in
``[min y, max y]`` (a segment mean is inside the data range), which bounds every set.

The newborn's set is ``[lo, hi]`` minus one interval: the best candidate's (shrunk) ball merged, in
one pass in ``tau`` order, with every other shrunk ball that meets the interval merged so far. That
interval is a subset of the union of the balls, so the newborn gets a superset of its exact set; a
set of at most two intervals stays so under intersection with a ball, so no candidate ever has more
than two. (On the benchmark series one pass keeps exactly as many candidates alive as carving the
whole union with sorted balls: 4.9 on average with n/200 changes, 8.5 with 5, at n = 1e5; more
passes add nothing, none lets 2.6x (dense) and 6.5x as many survive.) Every step is a few branch-free loops over the candidates: the cost values and the
balls run vectorised over the candidate count rounded up to 8 (the lanes past the last candidate
compute on stale, finite columns and are never read), the intersection and compaction are
branch-free, and the columns are rewritten only behind the first pruned candidate.

Exactness with respect to ``op`` (bitwise-identical ``F`` and ``last``, both tie rules): ``F[t]`` is
computed with ``op``'s formula ``F[tau] + ((Q[t] - Q[tau]) - s*s/m)`` over the surviving candidates in
ascending ``tau``, and the sets are kept as *supersets* of the exact ones: a candidate keeps the
mean values where it is within ``eps`` of the best (balls grown by ``eps``), a newborn candidate loses
only where an existing one beats it by more than ``eps`` (balls shrunk by ``eps``). ``eps`` is a
relative margin (``eps_rel * (|F[t]| + Q[t] + beta)``) far above the rounding of one cost
evaluation, so a candidate that ``op``'s floating-point arithmetic would pick -- including exact
ties -- is never pruned. ``min_size`` is 1 (the only case this kernel handles).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

#: Default relative pruning margin (see the module docstring).
EPS_REL = 1e-9

_ROWS = 13  # start, F, S, Q, interval 1 (lo, hi), interval 2 (lo, hi); scratch: v, ball, shrunk ball
_LANES = 8  # vector loops run over the candidate count rounded up to this


def fpop_state(capacity: int = 64) -> tuple:
    """Empty state for :func:`fpop_l2_advance`: candidate 0 is added by the kernel at ``t = 1``.

    ``(C, scal, cnt)``: the candidate columns ``C`` (rows: see ``_ROWS``; zero-filled so that the
    padding lanes are finite), ``scal = [S_t, Q_t]``, ``cnt = [candidates]``.
    """
    return np.zeros((_ROWS, capacity)), np.zeros(2), np.zeros(1, np.int64)


@njit(nogil=True, cache=True, error_model="numpy")
def _fpop_l2_steps(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                   eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                   last: NDArray[np.int64], t_from: int, t_to: int,
                   TAU: NDArray[np.float64], CF: NDArray[np.float64], CS: NDArray[np.float64],
                   CQ: NDArray[np.float64], A0: NDArray[np.float64], A1: NDArray[np.float64],
                   B0: NDArray[np.float64], B1: NDArray[np.float64], V: NDArray[np.float64],
                   GL: NDArray[np.float64], GH: NDArray[np.float64], SL: NDArray[np.float64],
                   SH: NDArray[np.float64], scal: NDArray[np.float64], cnt: NDArray[np.int64]
                   ) -> int:
    """Steps ``t_from <= t < t_to`` until the columns are full; returns the first step not done.

    The columns arrive as separate arrays (no array is created or rebound in the loop, so numba
    emits no reference counting there).
    """
    St = scal[0]
    Qt = scal[1]
    k = cnt[0]
    inf = np.inf
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
    t_stop = t_to
    for t in range(t_from, t_to):
        if k + 1 + _LANES > cap:
            t_stop = t
            break
        c = y[t - 1] - centre
        St += c
        Qt += c * c
        tf = float(t)
        kp = (k + _LANES - 1) & ~(_LANES - 1)
        # 1. F[t] with op's formula over the candidates, ascending start
        for i in range(kp):
            s = St - CS[i]
            V[i] = CF[i] + ((Qt - CQ[i]) - s * s / (tf - TAU[i]))
        best = V[0]
        arg = 0
        if tie_last:
            for i in range(1, k):
                if V[i] <= best:
                    best = V[i]
                    arg = i
        else:
            for i in range(1, k):
                if V[i] < best:
                    best = V[i]
                    arg = i
        ft = best + beta
        F[t] = ft
        last[t] = int(TAU[arg])
        if t == t_to - 1 and t == F.size - 1:
            break
        eps = eps_rel * (abs(ft) + Qt + beta)
        up = ft + eps
        down = ft - eps
        # 2. grown and shrunk balls (an empty one is (inf, -inf))
        for i in range(kp):
            inv = 1.0 / (tf - TAU[i])
            mu = (St - CS[i]) * inv
            room = up - V[i]
            shrink = down - V[i]
            r = math.sqrt(max(room, 0.0) * inv)
            rs = math.sqrt(max(shrink, 0.0) * inv)
            GL[i] = mu - r if room >= 0.0 else inf
            GH[i] = mu + r if room >= 0.0 else -inf
            SL[i] = mu - rs if shrink > 0.0 else inf
            SH[i] = mu + rs if shrink > 0.0 else -inf
        # 3. one pass in tau order: the newborn's hole grows from the best candidate's shrunk ball
        #    by every shrunk ball that meets it; every set is intersected with its grown ball and
        #    the empty ones are dropped (order kept)
        cl = SL[arg]
        ch = SH[arg]
        j = 0
        for i in range(k):
            l = SL[i]
            h = SH[i]
            meets = l <= ch and h >= cl
            cl = min(cl, l) if meets else cl
            ch = max(ch, h) if meets else ch
            gl = GL[i]
            gh = GH[i]
            x0 = max(A0[i], gl)
            x1 = min(A1[i], gh)
            z0 = max(B0[i], gl)
            z1 = min(B1[i], gh)
            if j != i:
                TAU[j] = TAU[i]
                CF[j] = CF[i]
                CS[j] = CS[i]
                CQ[j] = CQ[i]
            A0[j] = x0
            A1[j] = x1
            B0[j] = z0
            B1[j] = z1
            j += (x0 <= x1) | (z0 <= z1)
        # 4. the newborn t: [lo, hi] minus the hole [cl, ch]
        TAU[j] = tf
        CF[j] = ft
        CS[j] = St
        CQ[j] = Qt
        if cl <= ch:
            n0 = lo if cl > lo else inf
            n1 = min(cl, hi) if cl > lo else -inf
            A0[j] = n0
            A1[j] = n1
            B0[j] = ch
            B1[j] = hi
            j += (n0 <= n1) | (ch <= hi)
        else:
            A0[j] = lo
            A1[j] = hi
            B0[j] = inf
            B1[j] = -inf
            j += 1
        k = j
    scal[0] = St
    scal[1] = Qt
    cnt[0] = k
    return t_stop


@njit(nogil=True, cache=True)
def fpop_l2_advance(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int, C: NDArray[np.float64],
                    scal: NDArray[np.float64], cnt: NDArray[np.int64]) -> NDArray[np.float64]:
    """FPOP recursion for end points ``t in [t_from, t_to)`` (``t_from >= 1``); returns ``C``.

    ``y`` raw data, ``centre`` the value subtracted (``y.mean()``, as ``_costs.prefix_sums``),
    ``lo``/``hi`` the range of the centred data. ``F[0] = -beta`` and ``last[0] = -1`` are set by
    the caller. ``C`` may be reallocated (more candidates); use the returned one for the next call.
    """
    t = t_from
    while t < t_to:
        t = _fpop_l2_steps(y, centre, beta, tie_last, eps_rel, lo, hi, F, last, t, t_to,
                           C[0], C[1], C[2], C[3], C[4], C[5], C[6], C[7], C[8], C[9], C[10],
                           C[11], C[12], scal, cnt)
        if t < t_to:
            D = np.zeros((C.shape[0], 2 * C.shape[1]))
            D[:, :C.shape[1]] = C
            C = D
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
