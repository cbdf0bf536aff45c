"""numba kernels of the joint multivariate segmentation (:mod:`._multivariate`)."""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit
from numpy.typing import NDArray

from ._costs import VAR_FLOOR as _FLOOR

_INF = np.inf
_LOG_2PI = math.log(2.0 * math.pi)


@njit(nogil=True, cache=True)
def mv_cost(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, kind: int,
            var_offset: float, mbic: bool) -> float:
    """Cost of ``y[a:b]`` summed over the dimensions (module docstring)."""
    m = b - a
    c = 0.0
    for k in range(S.shape[1]):
        s = S[b, k] - S[a, k]
        sse = (Q[b, k] - Q[a, k]) - s * s / m
        if kind == 0:
            c += sse
        else:
            var = sse / m
            if var < _FLOOR:
                var = _FLOOR
            c += m * ((_LOG_2PI + math.log(var + var_offset)) + 1.0)
    if mbic:
        c += math.log(m)
    return c


@njit(nogil=True, cache=True)
def mv_partition(S: NDArray[np.float64], Q: NDArray[np.float64], beta: float, min_size: int,
                 kind: int, var_offset: float, mbic: bool, prune: bool, tie_last: bool
                 ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """OP (``prune=False``) or PELT: ``F[0..n]`` (``F[0] = -beta``) and the optimal last change."""
    n = S.shape[0] - 1
    F = np.full(n + 1, _INF)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    cand = np.empty(n + 1, dtype=np.int64)
    dom = np.full(n + 1, n + min_size + 1, dtype=np.int64)
    vals = np.empty(n + 1)
    nc = 0
    for t in range(1, n + 1):
        k_new = t - min_size
        if k_new >= 0 and F[k_new] < _INF:
            cand[nc] = k_new
            nc += 1
        best = _INF
        arg = -1
        for i in range(nc):
            k = cand[i]
            v = F[k] + mv_cost(S, Q, k, t, kind, var_offset, mbic)
            vals[i] = v
            v += beta
            if v < best or (tie_last and v == best and arg >= 0):
                best = v
                arg = k
        F[t] = best
        last[t] = arg
        if prune and arg >= 0:
            keep = 0
            for i in range(nc):
                k = cand[i]
                if vals[i] > best and dom[k] > t:
                    dom[k] = t
                if t + 1 < dom[k] + min_size:
                    cand[keep] = k
                    keep += 1
            nc = keep
    return F, last


@njit(nogil=True, cache=True)
def mv_best_split(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, m: int,
                  kind: int, var_offset: float, mbic: bool) -> tuple[float, int]:
    """Best single split of ``y[a:b]``: ``(gain, q)``, q in ``[a+m, b-m]`` (ties: smallest q)."""
    best = _INF
    arg = -1
    for q in range(a + m, b - m + 1):
        v = (mv_cost(S, Q, a, q, kind, var_offset, mbic)
             + mv_cost(S, Q, q, b, kind, var_offset, mbic))
        if v < best:
            best = v
            arg = q
    if arg < 0:
        return -_INF, -1
    return mv_cost(S, Q, a, b, kind, var_offset, mbic) - best, arg
