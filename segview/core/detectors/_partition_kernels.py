"""numba kernels of optimal partitioning, PELT and binary segmentation (``docs/algorithms/partition.md`` §3-§6).

All kernels evaluate a candidate last change ``k`` for end point ``t`` as
``F[k] + segment_cost(k, t)`` and set ``F[t] = min + beta``, scanning ``k`` in ascending order with a
strict ``<`` (smallest minimiser wins; ``tie_last`` makes ``<=``). The serial, blocked-parallel and PELT
variants therefore give bitwise-identical ``F`` and ``last``.

Each DP kernel advances the recursion over ``t in [t_from, t_to)`` on caller-owned arrays, so the
Python driver can check for cancellation and report progress between calls. Conventions: ``F[0] = -beta``
(set by the caller), ``F[t] = inf`` and ``last[t] = -1`` for ``0 < t < m``.
"""
from __future__ import annotations

import numpy as np
from ._jit import njit, prange
from numpy.typing import NDArray

from ._cost_kernels import segment_cost

_INF = np.inf


@njit(nogil=True, cache=True)
def op_advance(S: NDArray[np.float64], Q: NDArray[np.float64], F: NDArray[np.float64],
               last: NDArray[np.int64], t_from: int, t_to: int, beta: float, m: int, kind: int,
               var_offset: float, mbic: bool, tie_last: bool) -> None:
    """Exact OP recursion for ``t in [t_from, t_to)``; candidates ``{0} U [m, t-m]``."""
    for t in range(t_from, t_to):
        if t < m:
            F[t] = _INF
            last[t] = -1
            continue
        best = F[0] + segment_cost(S, Q, 0, t, kind, var_offset, mbic)
        arg = 0
        for k in range(m, t - m + 1):
            v = F[k] + segment_cost(S, Q, k, t, kind, var_offset, mbic)
            if v < best or (tie_last and v == best):
                best = v
                arg = k
        F[t] = best + beta
        last[t] = arg


@njit(parallel=True, nogil=True, cache=True)
def op_parallel_advance(S: NDArray[np.float64], Q: NDArray[np.float64], F: NDArray[np.float64],
                        last: NDArray[np.int64], t_from: int, t_to: int, beta: float, m: int,
                        kind: int, var_offset: float, mbic: bool, tie_last: bool,
                        block: int) -> None:
    """OP by blocked wavefront (partition.md §5.2, backend 3): same output as :func:`op_advance`.

    For a block of end points ``[t0, t1)`` every ``F[k]``, ``k < t0``, is final, so the scans over
    those candidates run in parallel (``prange``); the in-block candidates ``k >= t0`` follow
    sequentially. Thread count and chunking (static or dynamic) are set by the caller.
    """
    partial = np.empty(block)
    parg = np.empty(block, dtype=np.int64)
    t0 = t_from
    while t0 < t_to:
        t1 = min(t0 + block, t_to)
        nb = t1 - t0
        for j in prange(nb):
            t = t0 + j
            if t < m:
                partial[j] = _INF
                parg[j] = -1
                continue
            best = F[0] + segment_cost(S, Q, 0, t, kind, var_offset, mbic)
            arg = 0
            kend = min(t0 - 1, t - m)
            for k in range(m, kend + 1):
                v = F[k] + segment_cost(S, Q, k, t, kind, var_offset, mbic)
                if v < best or (tie_last and v == best):
                    best = v
                    arg = k
            partial[j] = best
            parg[j] = arg
        for j in range(nb):
            t = t0 + j
            if t < m:
                F[t] = _INF
                last[t] = -1
                continue
            best = partial[j]
            arg = parg[j]
            for k in range(max(t0, m), t - m + 1):
                v = F[k] + segment_cost(S, Q, k, t, kind, var_offset, mbic)
                if v < best or (tie_last and v == best):
                    best = v
                    arg = k
            F[t] = best + beta
            last[t] = arg
        t0 = t1


@njit(nogil=True, cache=True)
def pelt_advance(S: NDArray[np.float64], Q: NDArray[np.float64], F: NDArray[np.float64],
                 last: NDArray[np.int64], R: NDArray[np.int64], state: NDArray[np.int64],
                 dom: NDArray[np.int64], vbuf: NDArray[np.float64], t_from: int, t_to: int,
                 beta: float, m: int, kind: int, var_offset: float, mbic: bool,
                 tie_last: bool) -> None:
    """PELT with deferred pruning (partition.md §4), exact for every ``m`` with a constant penalty per
    change; with ``mbic`` the pruning is R changepoint's and not exact (OP is the reference).

    ``R[:state[0]]`` holds the candidates in ascending order; ``dom[tau]`` is the first end point at
    which ``tau`` was dominated (``F[tau] + C(tau, t) > F[t]``; ties kept) or a large sentinel. A
    candidate dominated at ``s`` is removed once ``s`` itself becomes a legal last change
    (``t - m >= s``), not earlier.
    """
    rlen = state[0]
    for t in range(t_from, t_to):
        if t < m:
            F[t] = _INF
            last[t] = -1
            continue
        s = t - m
        if s == 0 or s >= m:
            R[rlen] = s
            rlen += 1
        best = _INF
        arg = -1
        j = 0
        for i in range(rlen):
            tau = R[i]
            if dom[tau] <= s:
                continue
            v = F[tau] + segment_cost(S, Q, tau, t, kind, var_offset, mbic)
            R[j] = tau
            vbuf[j] = v
            j += 1
            if v < best or (tie_last and v == best):
                best = v
                arg = tau
        rlen = j
        ft = best + beta
        F[t] = ft
        last[t] = arg
        for i in range(rlen):
            if vbuf[i] > ft and dom[R[i]] > t:
                dom[R[i]] = t
    state[0] = rlen


@njit(nogil=True, cache=True)
def best_split(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, m: int, kind: int,
               var_offset: float, mbic: bool) -> tuple[float, int]:
    """Best single split of ``y[a:b]``: ``(gain, q)`` with gain ``C(a,b) - min_q C(a,q) + C(q,b)``.

    ``q`` ranges over ``[a+m, b-m]`` (ties: smallest q); returns ``(-inf, -1)`` when ``b - a < 2m``.
    """
    best = _INF
    arg = -1
    for q in range(a + m, b - m + 1):
        v = (segment_cost(S, Q, a, q, kind, var_offset, mbic)
             + segment_cost(S, Q, q, b, kind, var_offset, mbic))
        if v < best:
            best = v
            arg = q
    if arg < 0:
        return -_INF, -1
    return segment_cost(S, Q, a, b, kind, var_offset, mbic) - best, arg


def backtrack(last: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """Change points from the ``last`` array: follow ``last[t]`` from ``t = n`` while positive."""
    cps = []
    t = n
    while last[t] > 0:
        t = int(last[t])
        cps.append(t)
    return np.asarray(cps[::-1], dtype=np.int64)


@njit(nogil=True, cache=True)
def _grown(a: NDArray[np.float64], j: int, size: int) -> NDArray[np.float64]:
    """A new array of ``size`` holding the first ``j`` values of ``a`` (candidate lists grow)."""
    out = np.empty(size)
    out[:j] = a[:j]
    return out


@njit(nogil=True, cache=True, error_model="numpy")
def pelt_l2_advance(y: NDArray[np.float64], centre: float, F: NDArray[np.float64],
                    last: NDArray[np.int64], t_from: int, t_to: int, beta: float, tie_last: bool,
                    ctau: NDArray[np.float64], cF: NDArray[np.float64], cS: NDArray[np.float64],
                    cQ: NDArray[np.float64], vbuf: NDArray[np.float64],
                    scal: NDArray[np.float64], cnt: NDArray[np.int64]) -> tuple:
    """PELT for the l2 cost with ``min_size`` 1: bitwise :func:`pelt_advance`'s ``F`` and ``last``.

    Faster layout: each candidate carries its start (as a float: exact below 2**53, and the
    int-to-float conversion of ``t - tau`` would stop the vectorisation) and its ``F, S, Q`` in contiguous arrays (no gathers through
    the candidate index, no O(n) prefix-sum or domination arrays), the costs of all candidates are
    computed in one branch-free loop the compiler vectorises, and the surviving candidates
    (``v <= F[t]``, the textbook rule that is exact for ``min_size`` 1) are compacted without
    branches (``error_model="numpy"``: no zero-division check, which would block the vectorised
    division; ``t - tau >= 1`` always). The prefix sums of the centred data are accumulated in the loop exactly as
    ``_costs.prefix_sums`` does. The arrays may grow; the updated ones are returned.
    """
    St = scal[0]
    Qt = scal[1]
    k = cnt[0]
    if t_from == 1:
        ctau[0] = 0.0
        cF[0] = F[0]
        cS[0] = 0.0
        cQ[0] = 0.0
        k = 1
        St = 0.0
        Qt = 0.0
    for t in range(t_from, t_to):
        tf = float(t)
        c = y[t - 1] - centre
        St += c
        Qt += c * c
        for i in range(k):
            s = St - cS[i]
            vbuf[i] = cF[i] + ((Qt - cQ[i]) - s * s / (tf - ctau[i]))
        best = vbuf[0]
        arg = 0
        if tie_last:
            for i in range(1, k):
                if vbuf[i] <= best:
                    best = vbuf[i]
                    arg = i
        else:
            for i in range(1, k):
                if vbuf[i] < best:
                    best = vbuf[i]
                    arg = i
        ft = best + beta
        F[t] = ft
        last[t] = int(ctau[arg])
        j = 0
        for i in range(k):
            keep = vbuf[i] <= ft
            ctau[j] = ctau[i]
            cF[j] = cF[i]
            cS[j] = cS[i]
            cQ[j] = cQ[i]
            j += keep
        if j + 1 > ctau.size:
            size = 2 * ctau.size
            ctau = _grown(ctau, j, size)
            cF = _grown(cF, j, size)
            cS = _grown(cS, j, size)
            cQ = _grown(cQ, j, size)
            vbuf = np.empty(size)
        ctau[j] = tf
        cF[j] = ft
        cS[j] = St
        cQ[j] = Qt
        k = j + 1
    scal[0] = St
    scal[1] = Qt
    cnt[0] = k
    return ctau, cF, cS, cQ, vbuf
