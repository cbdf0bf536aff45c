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

Representation here: each candidate carries its set as a short list of disjoint intervals in a
shared pool (compacted in place every step) and its ``F[tau], S[tau], Q[tau]`` (prefix sums
of the centred data, so no O(n) prefix-sum arrays are stored). The means live in
``[min y, max y]`` (a segment mean is inside the data range), which bounds every set.

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


@njit(nogil=True, cache=True)
def _grow_f(a: NDArray[np.float64], need: int) -> NDArray[np.float64]:
    if need <= a.size:
        return a
    b = np.empty(max(need, 2 * a.size))
    b[:a.size] = a
    return b


@njit(nogil=True, cache=True)
def _grow_i(a: NDArray[np.int64], need: int) -> NDArray[np.int64]:
    if need <= a.size:
        return a
    b = np.empty(max(need, 2 * a.size), dtype=np.int64)
    b[:a.size] = a
    return b


def fpop_state(capacity: int = 64) -> tuple:
    """Empty state for :func:`fpop_l2_advance`: candidate 0 is added by the kernel at ``t = 1``.

    Layout: ``(ctau, cF, cS, cQ, coff, ccnt, pool, scal, cnt)``: candidate records
    (start, F, S, Q at the start, offset and count of its intervals in ``pool``), the interval pool
    (pairs lo, hi), ``scal = [S_t, Q_t]``, ``cnt = [candidates, pool used]``.
    """
    return (np.empty(capacity, np.int64), np.empty(capacity), np.empty(capacity),
            np.empty(capacity), np.empty(capacity, np.int64), np.empty(capacity, np.int64),
            np.empty(4 * capacity), np.zeros(2), np.zeros(2, np.int64))


@njit(nogil=True, cache=True, error_model="numpy")
def fpop_l2_advance(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int,
                    ctau: NDArray[np.int64], cF: NDArray[np.float64], cS: NDArray[np.float64],
                    cQ: NDArray[np.float64], coff: NDArray[np.int64], ccnt: NDArray[np.int64],
                    pool: NDArray[np.float64],
                    scal: NDArray[np.float64], cnt: NDArray[np.int64]) -> tuple:
    """FPOP recursion for end points ``t in [t_from, t_to)`` (``t_from >= 1``); returns the state.

    ``y`` raw data, ``centre`` the value subtracted (``y.mean()``, as ``_costs.prefix_sums``),
    ``lo``/``hi`` the range of the centred data. ``F[0] = -beta`` and ``last[0] = -1`` are set by
    the caller. The state arrays may be reallocated; use the returned ones for the next call.
    """
    St = scal[0]
    Qt = scal[1]
    k = cnt[0]
    used = cnt[1]
    if t_from == 1:
        ctau[0] = 0
        cF[0] = F[0]
        cS[0] = 0.0
        cQ[0] = 0.0
        coff[0] = 0
        ccnt[0] = 1
        pool[0] = lo
        pool[1] = hi
        k = 1
        used = 1
        St = 0.0
        Qt = 0.0
    vbuf = np.empty(ctau.size)
    bl = np.empty(ctau.size + 1)
    bh = np.empty(ctau.size + 1)
    gl = np.empty(ctau.size)
    gh = np.empty(ctau.size)
    sl = np.empty(ctau.size)
    sh = np.empty(ctau.size)
    for t in range(t_from, t_to):
        c = y[t - 1] - centre
        St += c
        Qt += c * c
        # 1. F[t] with op's formula over the candidates, ascending start
        best = np.inf
        arg = -1
        for i in range(k):
            m = t - ctau[i]
            s = St - cS[i]
            v = cF[i] + ((Qt - cQ[i]) - s * s / m)
            vbuf[i] = v
            if v < best or (tie_last and v == best):
                best = v
                arg = ctau[i]
        ft = best + beta
        F[t] = ft
        last[t] = arg
        if t == t_to - 1 and t == F.size - 1:
            break
        eps = eps_rel * (abs(ft) + Qt + beta)
        # 2. intersect every candidate's set with its grown ball (in place: a set never gains
        #    intervals, so the write position never passes the read position); collect the
        #    shrunk balls, sorted by their left ends
        if bl.size < k + 1:
            bl = np.empty(2 * k + 2)
            bh = np.empty(2 * k + 2)
        if pool.size < 2 * (used + k + 2):
            pool = _grow_f(pool, 2 * (used + k + 2))
        if gl.size < k:
            gl = np.empty(2 * k)
            gh = np.empty(2 * k)
            sl = np.empty(2 * k)
            sh = np.empty(2 * k)
        # balls of all candidates in one branch-free loop (vectorised divisions and roots);
        # an empty ball is (inf, -inf)
        for i in range(k):
            v = vbuf[i]
            inv = 1.0 / (t - ctau[i])
            mu = (St - cS[i]) * inv
            room = ft + eps - v
            shrink = ft - eps - v
            r = math.sqrt(max(room, 0.0) * inv)
            rs = math.sqrt(max(shrink, 0.0) * inv)
            gl[i] = mu - r if room >= 0.0 else np.inf
            gh[i] = mu + r if room >= 0.0 else -np.inf
            sl[i] = mu - rs if shrink > 0.0 else np.inf
            sh[i] = mu + rs if shrink > 0.0 else -np.inf
        j = 0
        w = 0
        nb = 0
        for i in range(k):
            a0 = gl[i]
            a1 = gh[i]
            w0 = w
            o = coff[i]
            for q in range(ccnt[i]):
                x0 = max(pool[2 * (o + q)], a0)
                x1 = min(pool[2 * (o + q) + 1], a1)
                if x0 <= x1:
                    pool[2 * w] = x0
                    pool[2 * w + 1] = x1
                    w += 1
            left = sl[i]
            if left != np.inf:
                p = nb
                while p > 0 and bl[p - 1] > left:
                    bl[p] = bl[p - 1]
                    bh[p] = bh[p - 1]
                    p -= 1
                bl[p] = left
                bh[p] = sh[i]
                nb += 1
            if w > w0:
                if j < i:
                    ctau[j] = ctau[i]
                    cF[j] = cF[i]
                    cS[j] = cS[i]
                    cQ[j] = cQ[i]
                coff[j] = w0
                ccnt[j] = w - w0
                j += 1
        # 3. the newborn candidate t: [lo, hi] minus the shrunk balls
        w0 = w
        cur = lo
        for p in range(nb):
            if bl[p] > cur:
                pool[2 * w] = cur
                pool[2 * w + 1] = bl[p] if bl[p] < hi else hi
                w += 1
            if bh[p] > cur:
                cur = bh[p]
            if cur > hi:
                break
        if cur <= hi:
            pool[2 * w] = cur
            pool[2 * w + 1] = hi
            w += 1
        if w > w0:
            if j + 1 > ctau.size:
                need = 2 * ctau.size
                ctau = _grow_i(ctau, need)
                cF = _grow_f(cF, need)
                cS = _grow_f(cS, need)
                cQ = _grow_f(cQ, need)
                coff = _grow_i(coff, need)
                ccnt = _grow_i(ccnt, need)
                vbuf = np.empty(ctau.size)
            ctau[j] = t
            cF[j] = ft
            cS[j] = St
            cQ[j] = Qt
            coff[j] = w0
            ccnt[j] = w - w0
            j += 1
        k = j
        used = w
    scal[0] = St
    scal[1] = Qt
    cnt[0] = k
    cnt[1] = used
    return ctau, cF, cS, cQ, coff, ccnt, pool


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
