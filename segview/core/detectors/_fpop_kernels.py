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

Representation here: the candidates' records ``(tau, F[tau], S[tau], Q[tau])`` (prefix sums of the
centred data at their start, so no O(n) prefix-sum arrays are stored), in ascending ``tau``, and a
list of pieces ``(lo, hi, candidate)`` along the mean axis covering ``[min y, max y]`` (a segment
mean is inside the data range). Each step a piece keeps the part inside its candidate's ball and
hands the parts outside to the newborn candidate (contiguous newborn parts merged): the newborn's set
is the complement of the union of the balls, assembled piece by piece without sorting. A candidate
without a piece is pruned.

Exactness with respect to ``op`` (bitwise-identical ``F`` and ``last``, both tie rules): ``F[t]`` is
computed with ``op``'s formula ``F[tau] + ((Q[t] - Q[tau]) - s*s/m)`` over the surviving candidates in
ascending ``tau``, and the sets are kept as *supersets* of the exact ones: a candidate keeps the
mean values where it is within ``eps`` of the best (balls grown by ``eps``), a newborn candidate loses
only where an existing one beats it by more than ``eps`` (balls shrunk by ``eps``). ``eps`` is a
relative margin (``eps_rel * (|F[t]| + Q[t] + beta)``) far above the rounding of one cost
evaluation (pieces may therefore overlap by slivers of that width), so a candidate that ``op``'s floating-point arithmetic would pick -- including exact
ties -- is never pruned. ``min_size`` is 1 (the only case this kernel handles).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

#: Default relative pruning margin (see the module docstring).
EPS_REL = 1e-9


def fpop_state(capacity: int = 64) -> tuple:
    """Empty state for :func:`fpop_l2_advance` (candidate 0 is added by the kernel at ``t = 1``).

    ``(cand, pieces, scal, cnt)``: ``cand`` rows ``(tau, F, S, Q)`` of the candidates in ascending
    ``tau`` (the prefix sums at their start); ``pieces`` rows ``(lo, hi, candidate index)`` along the
    mean axis; ``scal = [S_t, Q_t]``; ``cnt = [candidates, pieces]``.
    """
    return (np.empty((4, capacity)), np.empty((3, 4 * capacity)), np.zeros(2),
            np.zeros(2, np.int64))


@njit(nogil=True, cache=True)
def _grow2(a: NDArray[np.float64], need: int) -> NDArray[np.float64]:
    if need <= a.shape[1]:
        return a
    b = np.empty((a.shape[0], max(need, 2 * a.shape[1])))
    b[:, :a.shape[1]] = a
    return b


@njit(nogil=True, cache=True, error_model="numpy")
def fpop_l2_advance(y: NDArray[np.float64], centre: float, beta: float, tie_last: bool,
                    eps_rel: float, lo: float, hi: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int, cand: NDArray[np.float64],
                    pieces: NDArray[np.float64], scal: NDArray[np.float64],
                    cnt: NDArray[np.int64]) -> tuple:
    """FPOP recursion for end points ``t in [t_from, t_to)`` (``t_from >= 1``); returns
    ``(cand, pieces)`` (they may have been reallocated; pass them to the next call).

    ``y`` raw data, ``centre`` the value subtracted (``y.mean()``, as ``_costs.prefix_sums``),
    ``lo``/``hi`` the range of the centred data. ``F[0] = -beta`` and ``last[0] = -1`` are set by
    the caller.
    """
    St = scal[0]
    Qt = scal[1]
    k = cnt[0]
    npc = cnt[1]
    if t_from == 1:
        cand[0, 0] = 0.0
        cand[1, 0] = F[0]
        cand[2, 0] = 0.0
        cand[3, 0] = 0.0
        pieces[0, 0] = lo
        pieces[1, 0] = hi
        pieces[2, 0] = 0.0
        k = 1
        npc = 1
        St = 0.0
        Qt = 0.0
    cap = cand.shape[1]
    v = np.empty(cap)
    g0 = np.empty(cap)
    g1 = np.empty(cap)
    s0 = np.empty(cap)
    s1 = np.empty(cap)
    newidx = np.empty(cap, dtype=np.int64)
    out = np.empty((3, pieces.shape[1]))
    for t in range(t_from, t_to):
        tf = float(t)
        c = y[t - 1] - centre
        St += c
        Qt += c * c
        ctau = cand[0]
        cF = cand[1]
        cS = cand[2]
        cQ = cand[3]
        # 1. every candidate's optimal cost with op's formula (vectorised), then the argmin in
        #    ascending start with op's tie rule
        for i in range(k):
            s = St - cS[i]
            v[i] = cF[i] + ((Qt - cQ[i]) - s * s / (tf - ctau[i]))
        best = v[0]
        arg = 0
        if tie_last:
            for i in range(1, k):
                if v[i] <= best:
                    best = v[i]
                    arg = i
        else:
            for i in range(1, k):
                if v[i] < best:
                    best = v[i]
                    arg = i
        ft = best + beta
        F[t] = ft
        last[t] = int(ctau[arg])
        if t == F.size - 1:
            break
        eps = eps_rel * (abs(ft) + Qt + beta)
        # 2. per candidate: the grown ball (where it may still win) and the shrunk ball (where
        #    it beats the newborn by more than eps); empty balls as (inf, -inf)
        for i in range(k):
            inv = 1.0 / (tf - ctau[i])
            mu = (St - cS[i]) * inv
            room = ft + eps - v[i]
            rg = math.sqrt(max(room, 0.0) * inv)
            g0[i] = mu - rg if room >= 0.0 else np.inf
            g1[i] = mu + rg if room >= 0.0 else -np.inf
            shrink = ft - eps - v[i]
            rs = math.sqrt(max(shrink, 0.0) * inv)
            s0[i] = mu - rs if shrink > 0.0 else np.inf
            s1[i] = mu + rs if shrink > 0.0 else np.inf
            newidx[i] = -1
        # 3. pieces along the mean axis: each keeps its part inside its candidate's grown ball;
        #    its parts outside the shrunk ball go to the newborn (label k), merged when contiguous
        if out.shape[1] < 3 * npc + 2:
            out = np.empty((3, 3 * npc + 2))
        w = 0
        newk = float(k)
        for p in range(npc):
            a = pieces[0, p]
            b = pieces[1, p]
            ci = int(pieces[2, p])
            e = min(b, s0[ci])
            if e > a or (e == a and s0[ci] == np.inf):
                if w > 0 and out[2, w - 1] == newk and out[1, w - 1] >= a:
                    if e > out[1, w - 1]:
                        out[1, w - 1] = e
                else:
                    out[0, w] = a
                    out[1, w] = e
                    out[2, w] = newk
                    w += 1
            x0 = max(a, g0[ci])
            x1 = min(b, g1[ci])
            if x0 <= x1:
                out[0, w] = x0
                out[1, w] = x1
                out[2, w] = ci
                w += 1
                newidx[ci] = 0
            x0 = max(a, s1[ci])
            if x0 < b and s0[ci] != np.inf:
                if w > 0 and out[2, w - 1] == newk and out[1, w - 1] >= x0:
                    if b > out[1, w - 1]:
                        out[1, w - 1] = b
                else:
                    out[0, w] = x0
                    out[1, w] = b
                    out[2, w] = newk
                    w += 1
        # 4. compact the candidates (ascending start kept), append the newborn, relabel pieces
        j = 0
        for i in range(k):
            if newidx[i] == 0:
                newidx[i] = j
                if j < i:
                    ctau[j] = ctau[i]
                    cF[j] = cF[i]
                    cS[j] = cS[i]
                    cQ[j] = cQ[i]
                j += 1
        if j + 1 > cap:
            cand = _grow2(cand, 2 * cap)
            cap = cand.shape[1]
            ctau = cand[0]
            cF = cand[1]
            cS = cand[2]
            cQ = cand[3]
            v = np.empty(cap)
            g0 = np.empty(cap)
            g1 = np.empty(cap)
            s0 = np.empty(cap)
            s1 = np.empty(cap)
            nidx = np.empty(cap, dtype=np.int64)
            nidx[:k] = newidx[:k]
            newidx = nidx
        ctau[j] = tf
        cF[j] = ft
        cS[j] = St
        cQ[j] = Qt
        newborn = j
        for p in range(w):
            ci = int(out[2, p])
            out[2, p] = newborn if ci == k else newidx[ci]
        k = j + 1
        tmp = pieces
        pieces = out
        out = tmp
        npc = w
    scal[0] = St
    scal[1] = Qt
    cnt[0] = k
    cnt[1] = npc
    return cand, pieces


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
