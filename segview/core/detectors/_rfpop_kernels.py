"""numba kernel of robust FPOP with the biweight loss (detector ``rfpop``, :mod:`.rfpop`).

Plain scalar code (no hand-written vector intrinsics, unlike :mod:`._fpop_kernels`): the pieces of
``Q_t`` are rows of a small table that grows as needed.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._jit import njit


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
