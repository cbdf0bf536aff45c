"""numba kernels of the Berry-Hellerstein detector (``docs/algorithms/fisher.md`` §1-§5.3)."""
from __future__ import annotations

import numpy as np
from ._jit import njit
from numpy.typing import NDArray


@njit(nogil=True, cache=True, inline="always")
def _asq(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int) -> float:
    v = (Q[b] - Q[a]) - (S[b] - S[a]) ** 2 / (b - a)
    return v if v > 0.0 else 0.0


@njit(nogil=True, cache=True)
def two_partition(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int,
                  m: int) -> tuple[float, float, int]:
    """Fisher's optimal 2-partition of ``x[a:b]``: ``(D_P, D_Q, q*)``, ties to the smallest q.

    Needs ``b - a >= 2m``; ASQ values are clamped at 0 (fisher.md §1).
    """
    dp = _asq(S, Q, a, b)
    best = np.inf
    arg = -1
    for q in range(a + m, b - m + 1):
        v = _asq(S, Q, a, q) + _asq(S, Q, q, b)
        if v < best:
            best = v
            arg = q
    return dp, best, arg


@njit(nogil=True, cache=True)
def _t_of(x: NDArray[np.float64], S: NDArray[np.float64], Q: NDArray[np.float64], m: int) -> float:
    n = x.size
    total = 0.0
    for i in range(n):
        total += x[i]
    mean = total / n
    S[0] = 0.0
    Q[0] = 0.0
    for i in range(n):
        c = x[i] - mean
        S[i + 1] = S[i] + c
        Q[i + 1] = Q[i] + c * c
    dp, dq, _ = two_partition(S, Q, 0, n, m)
    if dp == 0.0:
        return 1.0
    if dq == 0.0:
        return np.inf
    return dp / dq


@njit(nogil=True, cache=True)
def simulate_t(innov: NDArray[np.float64], phi: float, m: int) -> NDArray[np.float64]:
    """T statistic of each row's stationary AR(1) series built from N(0, 1) innovations (§5.3)."""
    reps, n = innov.shape
    out = np.empty(reps)
    x = np.empty(n)
    S = np.empty(n + 1)
    Q = np.empty(n + 1)
    scale = 1.0 / np.sqrt(1.0 - phi * phi)
    for r in range(reps):
        x[0] = innov[r, 0] * scale
        for i in range(1, n):
            x[i] = phi * x[i - 1] + innov[r, i]
        out[r] = _t_of(x, S, Q, m)
    return out


@njit(nogil=True, cache=True)
def sieve_t(coef: NDArray[np.float64], resid: NDArray[np.float64], idx: NDArray[np.int64],
            n: int, m: int) -> NDArray[np.float64]:
    """T of sieve-bootstrap series: ``x_t = sum_j coef[j] x_{t-1-j} + resid[idx[r, t]]``.

    Each row of ``idx`` draws the residuals of one series; the first ``idx.shape[1] - n`` values
    are a burn-in and dropped (the series starts at 0).
    """
    reps, total = idx.shape
    p = coef.size
    burn = total - n
    out = np.empty(reps)
    z = np.empty(total)
    S = np.empty(n + 1)
    Q = np.empty(n + 1)
    for r in range(reps):
        for t in range(total):
            v = resid[idx[r, t]]
            for j in range(p):
                if t - 1 - j >= 0:
                    v += coef[j] * z[t - 1 - j]
            z[t] = v
        out[r] = _t_of(z[burn:], S, Q, m)
    return out


@njit(nogil=True, cache=True)
def block_t(z: NDArray[np.float64], starts: NDArray[np.int64], block: int, m: int
            ) -> NDArray[np.float64]:
    """T of circular moving-block bootstrap series of ``z``: row ``r`` of ``starts`` gives the
    first index of each block of ``block`` values (wrapping around the end of ``z``)."""
    reps, nblocks = starts.shape
    n = z.size
    out = np.empty(reps)
    x = np.empty(n)
    S = np.empty(n + 1)
    Q = np.empty(n + 1)
    for r in range(reps):
        t = 0
        for b in range(nblocks):
            s = starts[r, b]
            for j in range(block):
                if t >= n:
                    break
                x[t] = z[(s + j) % n]
                t += 1
        out[r] = _t_of(x, S, Q, m)
    return out
