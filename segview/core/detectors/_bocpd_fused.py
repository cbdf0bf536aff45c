"""The whole BOCPD time loop of :func:`._bocpd_kernels.bocpd` in one numba kernel.

:func:`._bocpd_kernels._bocpd_steps` makes about fifteen numpy calls per time step (truncation,
long double sums, normalisation, logs, the maxCPs recursion, diagnostics) around one compiled
element-wise step; on a few thousand samples that overhead, not the arithmetic, was most of the
time. :func:`_fused_block` does all of a step in numba, with the same operations in the same order,
and R's long double sums done by :mod:`._ld80`'s exact x87 emulation, so its results are the
per-step path's bits (``tests/core/test_bocpd.py`` compares them on many series). Only used where
numpy's long double is the x87 format (:data:`._ld80.X87`), the arithmetic R uses on x86-64.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ._bocpd_kernels import LOG_XMIN, XMIN, Diagnostics, _starts
from ._jit import njit
from ._ld80 import ZERO_E, _ZERO, bits_f64, f64_bits, is_nonneg_finite, ld_add_bits, ld_to_double_bits
from ._pmnf_kernels import pw_sum

#: Time steps per call of the fused kernel; the run's context is checked between calls.
BLOCK = 256


def bocpd_fused(y: NDArray[np.float64], H: float, prior_arr: NDArray[np.float64],
                 elg: NDArray[np.float64], trunc: float, max_len: int, keep_posterior: bool,
                 lo: int, hi: int, short_run: int, ctx: RunContext, minsep: int = 1
                 ) -> tuple[NDArray[np.int64], Diagnostics] | None:
    """:func:`bocpd` with the whole time loop in :func:`_fused_block`, :data:`BLOCK` steps per
    call with ``ctx.check()`` between. None when a long double sum met a summand the emulation
    does not take (not finite or negative); the caller then runs :func:`_bocpd_steps`."""
    y = np.array(y, dtype=np.float64, order="C")  # one array type: no second compilation for a
    n, d = y.shape                                 # read-only or strided input
    cap = min(n, max_len) + 1  # run lengths 0..L after a step, L <= min(t - 1, max_len)
    tab = np.empty((7, cap))
    _tables(prior_arr, tab)
    R = np.zeros(cap)
    R[0] = 1.0
    logR = np.zeros(cap)
    temp = np.empty(cap)
    mu = np.empty((cap, d))
    beta = np.empty((cap, d))
    mu[0] = prior_arr[0]
    beta[0] = prior_arr[3]
    probmaxes = np.zeros(n + 2)
    parent = np.zeros(n + 2, dtype=np.int64)
    map_run = np.zeros(n, dtype=np.int64)
    p_short = np.zeros(n)
    lag_mass = np.zeros(n)
    kept = np.zeros(n, dtype=np.int64)
    post = np.empty((BLOCK, cap)) if keep_posterior else np.empty((0, 0))
    posteriors: list[NDArray[np.float64]] = []
    trunc_bits = np.float64(float(trunc) + 0.0).view(np.uint64)  # + 0.0: -0.0 is 0.0
    L = 1
    for t0 in range(1, n + 1, BLOCK):
        ctx.check()
        t1 = min(n + 1, t0 + BLOCK)
        L = _fused_block(t0, t1, L, y, H, trunc_bits, max_len, prior_arr, elg, tab, R, logR, temp,
                         mu, beta, probmaxes, parent, map_run, p_short, lag_mass, kept,
                         short_run, lo, hi, post, int(minsep))
        if L < 0:
            return None
        if keep_posterior:
            posteriors.extend(post[t - t0, :kept[t - 1]].copy() for t in range(t0, t1))
    diag: Diagnostics = {"map_run": map_run, "p_short": p_short, "lag_mass": lag_mass,
                         "kept": kept, "last": R[:L].copy()}
    if keep_posterior:
        diag["posteriors"] = posteriors
    return _starts(parent, n), diag


@njit(nogil=True, cache=True)
def _tables(prior, tab):  # pragma: no cover (compiled)
    """Per run length r, the step's factors that do not depend on the data: kappa_r and alpha_r
    (added up one step at a time, exactly as the recursion adds them), ``nu = 2 alpha``,
    ``nu * pi``, ``alpha * kappa``, ``kappa + 1``, ``2 (kappa + 1)`` and the Student-t exponent
    ``-(nu + 1) / 2``; the same operations on the same values as :func:`_step_python`."""
    k = prior[1]
    a = prior[2]
    for r in range(tab.shape[1]):
        nu = 2.0 * a
        tab[0, r] = k
        tab[1, r] = nu
        tab[2, r] = nu * math.pi
        tab[3, r] = a * k
        tab[4, r] = k + 1.0
        tab[5, r] = 2.0 * (k + 1.0)
        tab[6, r] = -(nu + 1.0) / 2.0
        k = k + 1.0
        a = a + 0.5


@njit(nogil=True, cache=True, error_model="numpy")
def _fused_block(t0, t1, L, y, H, trunc_bits, max_len, prior, elg, tab, R, logR, temp, mu, beta,
                 probmaxes, parent, map_run, p_short, lag_mass, kept, short_run, lo, hi,
                 post, minsep):  # pragma: no cover (compiled)
    """Time steps ``t0 .. t1 - 1`` (1-based) of :func:`_bocpd_steps`, in place: ``R[:L]``,
    ``logR[:L]``, ``mu[:L]``, ``beta[:L]`` hold the posterior and each run length's parameters
    (kappa and alpha come from ``tab``, see :func:`_tables`). With one dimension the new mu and
    beta go to scratch vectors first; with several, run lengths are updated in place from the
    longest down, so row ``i + 1`` is written after it was read. Returns the new ``L``, or -1
    when a long double sum meets a summand that is not a finite number >= 0. Same operations in
    the same order as the per-step path, so the same bits (tests/core/test_bocpd.py)."""
    d = y.shape[1]
    H1 = 1.0 - H
    cap = R.shape[0]
    cb = np.empty(cap)  # d == 1: c and the Student-t base of each run length, new beta and mu
    bb = np.empty(cap)
    nb = np.empty(cap)
    nm = np.empty(cap)
    b1 = beta.reshape(beta.size)  # d == 1: the parameters as contiguous vectors
    m1 = mu.reshape(mu.size)
    kkr, nur, nupir, akr, k1r, k2r, exr = tab[0], tab[1], tab[2], tab[3], tab[4], tab[5], tab[6]
    keep_post = post.shape[0] > 0
    for t in range(t0, t1):
        if L > 1:  # R ocp's truncation: tail sums rev(cumsum(rev(R))) in long double
            m = _ZERO
            e = np.int64(ZERO_E)
            k = 0
            for i in range(L - 1, -1, -1):
                b = f64_bits(R[i])
                if not is_nonneg_finite(b):
                    return -1
                m, e = ld_add_bits(m, e, b)
                if ld_to_double_bits(m, e) >= trunc_bits:
                    k = i + 1
                    break
            L = min(max(k, 1), max_len)
        x = y[t - 1]
        if d == 1:
            # one dimension: first the divisions and square roots for every run length, in a
            # loop of plain arithmetic that LLVM vectorises (IEEE division and square root give
            # the same bits in vector registers), then the C library's pow, log and exp
            xb = x[0]
            for i in range(L):
                b_ = b1[i]
                m_ = m1[i]
                var = b_ * k1r[i] / akr[i]
                cb[i] = elg[i] / math.sqrt(nupir[i] * var)
                dev = xb - m_
                bb[i] = 1.0 + (1.0 / (nur[i] * var)) * (dev * dev)
                nb[i + 1] = b_ + (kkr[i] * (dev * dev)) / k2r[i]
                nm[i + 1] = (kkr[i] * m_ + xb) / k1r[i]
            for i in range(L):
                v = logR[i] + math.log(cb[i] * bb[i] ** exr[i])
                if v < LOG_XMIN:
                    v = LOG_XMIN
                ev = math.exp(v)
                temp[i] = ev * H
                R[i + 1] = ev * H1
            for i in range(1, L + 1):
                b1[i] = nb[i]
                m1[i] = nm[i]
        for i in range(L - 1 if d > 1 else -1, -1, -1):  # several dimensions: s adds them up
            kk = tab[0, i]
            nu = tab[1, i]
            s = 0.0
            for j in range(d):
                b_ = beta[i, j]
                m_ = mu[i, j]
                var = b_ * tab[4, i] / tab[3, i]
                c = elg[i] / math.sqrt(tab[2, i] * var)
                dev = x[j] - m_
                p = math.log(c * (1.0 + (1.0 / (nu * var)) * (dev * dev)) ** tab[6, i])
                s = p if j == 0 else s + p
                beta[i + 1, j] = b_ + (kk * (dev * dev)) / tab[5, i]
                mu[i + 1, j] = (kk * m_ + x[j]) / tab[4, i]
            v = logR[i] + s
            if v < LOG_XMIN:
                v = LOG_XMIN
            ev = math.exp(v)
            temp[i] = ev * H
            R[i + 1] = ev * H1
        for j in range(d):
            mu[0, j] = prior[0]
            beta[0, j] = prior[3]
        m = _ZERO
        e = np.int64(ZERO_E)
        for i in range(L):
            b = f64_bits(temp[i])
            if not is_nonneg_finite(b):
                return -1
            m, e = ld_add_bits(m, e, b)
        R[0] = bits_f64(ld_to_double_bits(m, e))
        m = _ZERO
        e = np.int64(ZERO_E)
        for i in range(L + 1):
            b = f64_bits(R[i])
            if not is_nonneg_finite(b):
                return -1
            m, e = ld_add_bits(m, e, b)
        total = bits_f64(ld_to_double_bits(m, e))
        zero = False
        for i in range(L + 1):
            v = R[i] / total
            R[i] = v
            if v == 0.0:
                zero = True
        if zero:
            for i in range(L + 1):
                if R[i] < XMIN:
                    R[i] = XMIN
        for i in range(L + 1):
            logR[i] = math.log(R[i])
        # most probable segmentation ending at t (R's findCPprobs): first maximum over the
        # starts R's minsep allows (a last run of at least minsep - 1 samples, or every one when
        # fewer than minsep run lengths are kept)
        last_j = L + 1 - minsep if minsep <= L + 1 else L
        best = logR[L] + probmaxes[t - L]
        jb = 0
        for j in range(1, last_j + 1):
            c = logR[L - j] + probmaxes[t - L + j]
            if c > best:
                best = c
                jb = j
        probmaxes[t + 1] = best
        parent[t + 1] = t - L + jb
        newR = R[:L + 1]
        if keep_post:
            post[t - t0, :L + 1] = newR
        mr = 0
        for i in range(1, L + 1):
            if newR[i] > newR[mr]:
                mr = i
        map_run[t - 1] = mr
        p_short[t - 1] = pw_sum(newR[:short_run])
        lag_mass[t - 1] = pw_sum(newR[lo:hi])
        kept[t - 1] = L + 1
        L = L + 1
    return L
