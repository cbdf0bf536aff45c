"""The BOCPD recursion of :mod:`.bocpd` with R ``ocp`` 0.1.1's arithmetic.

One time step is split in two: the element-wise work over run lengths (Student-t predictive
log-densities, Normal-Gamma updates, growth probabilities), done by :func:`_step_numba` (numba,
``nogil``, cached) or its plain twin :func:`_step_python` (same operations in the same order with the C
library's ``log``, ``exp`` and ``pow``, so both give the same bits); and the sums, which R accumulates
in long double (``sum``, ``cumsum``) and which are done here with ``numpy.longdouble`` sequential
sums, as R does them on x86-64. The lgamma terms come from one table shared by both paths.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypedDict

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext

#: numpy's long double is the x87 80-bit format, which :mod:`._ld80` emulates (as ``_ld80.X87``,
#: read here without importing numba).
X87 = bool(np.finfo(np.longdouble).nmant == 63 and np.finfo(np.longdouble).nexp == 15)
XMIN = 2.2250738585072014e-308  # R's .Machine$double.xmin
LOG_XMIN = math.log(XMIN)


class _Diagnostics(TypedDict):
    map_run: NDArray[np.int64]
    p_short: NDArray[np.float64]
    lag_mass: NDArray[np.float64]
    kept: NDArray[np.int64]
    last: NDArray[np.float64]


class Diagnostics(_Diagnostics, total=False):
    """:func:`bocpd`'s per-sample diagnostics (described in its Returns)."""

    posteriors: list[NDArray[np.float64]]
    note: str


def lgamma_table(alpha0: float, size: int) -> NDArray[np.float64]:
    """``lgamma(nu/2 + 0.5) - lgamma(nu/2)`` for ``nu = 2 alpha_r``, where ``alpha_0 = alpha0`` and
    ``alpha_r = alpha_{r-1} + 0.5`` (the shape of run length r, added up as R does)."""
    out = np.empty(size)
    a = alpha0
    for r in range(size):
        half_nu = (2.0 * a) / 2.0
        out[r] = math.lgamma(half_nu + 0.5) - math.lgamma(half_nu)
        a = a + 0.5
    return out


def _step_python(x, logR, mu, kappa, alpha, beta, elg, prior, H, out_mu, out_kappa,
                 out_alpha, out_beta, temp_h, grow):
    """One step for run lengths ``0..L-1`` (``L = logR.size``, ``logR = log(R)``); writes the
    updated parameters to ``out_*[1..L]`` (row 0 is the prior) and ``temp * H``,
    ``temp * (1 - H)``. ``elg[r] = exp(lgamma(a_r + 0.5) - lgamma(a_r))``, tabulated."""
    L = logR.shape[0]
    d = x.shape[0]
    for i in range(L):
        s = 0.0
        for j in range(d):
            a = alpha[i, j]
            k = kappa[i, j]
            b = beta[i, j]
            m = mu[i, j]
            nu = 2.0 * a
            var = b * (k + 1.0) / (a * k)
            c = elg[i] / math.sqrt(nu * math.pi * var)
            dev = x[j] - m
            p = math.log(c * (1.0 + (1.0 / (nu * var)) * (dev * dev)) ** (-(nu + 1.0) / 2.0))
            s = p if j == 0 else s + p
            out_beta[i + 1, j] = b + (k * (dev * dev)) / (2.0 * (k + 1.0))
            out_mu[i + 1, j] = (k * m + x[j]) / (k + 1.0)
            out_kappa[i + 1, j] = k + 1.0
            out_alpha[i + 1, j] = a + 0.5
        v = logR[i] + s
        if v < LOG_XMIN:
            v = LOG_XMIN
        e = math.exp(v)
        temp_h[i] = e * H
        grow[i] = e * (1.0 - H)
    for j in range(x.shape[0]):
        out_mu[0, j] = prior[0]
        out_kappa[0, j] = prior[1]
        out_alpha[0, j] = prior[2]
        out_beta[0, j] = prior[3]


def _log_python(v, out):
    for i in range(v.shape[0]):
        out[i] = math.log(v[i])


_numba_cache: dict[str, Callable[..., None]] = {}


def _kernels(compiled: bool) -> tuple[Callable[..., None], Callable[..., None]]:
    if not compiled:
        return _step_python, _log_python
    if not _numba_cache:
        from ._jit import njit
        _numba_cache["step"] = njit(nogil=True, cache=True, error_model="numpy")(_step_python)
        _numba_cache["log"] = njit(nogil=True, cache=True)(_log_python)
    return _numba_cache["step"], _numba_cache["log"]


def _sum_r(v: NDArray[np.float64]) -> float:
    """R's ``sum``: sequential long double accumulation, rounded to double."""
    return float(np.cumsum(v.astype(np.longdouble))[-1])


def _kept_length(R: NDArray[np.float64], trunc: float, chunk: int = 64) -> int:
    """How many leading run lengths R ``ocp`` keeps: those whose tail sum ``rev(cumsum(rev(R)))``
    (long double, rounded to double) is at least ``trunc``. The tail sums only grow towards the
    front, so they are accumulated from the back, chunk by chunk, until one reaches ``trunc``."""
    carry = np.zeros(1, dtype=np.longdouble)
    end = R.size
    while end > 0:
        start = max(0, end - chunk)
        part = np.cumsum(np.concatenate((carry, R[start:end][::-1].astype(np.longdouble))))
        hit = np.nonzero(part[1:].astype(np.float64) >= trunc)[0]
        if hit.size:
            return end - int(hit[0])
        carry = part[-1:]
        end = start
    return 0


def bocpd(y: NDArray[np.float64], hazard_lambda: float, prior: tuple[float, float, float, float],
          trunc: float = 1e-4, max_len: int = 10_000, compiled: bool = True,
          keep_posterior: bool = False, strength_lag: int = 10, window: int = 2,
          short_run: int = 5, ctx: RunContext = NULL_CONTEXT, minsep: int = 1
          ) -> tuple[NDArray[np.int64], Diagnostics]:
    """BOCPD on ``y`` (shape ``(n,)`` or ``(n, d)``) as R ``ocp::onlineCPD`` computes it.

    Args:
        y: the data (one column per dimension; dimensions are independent given the run length).
        hazard_lambda: constant hazard ``1 / hazard_lambda``.
        prior: Normal-Gamma ``(m, kappa, alpha, beta)`` of every dimension.
        trunc: drop the longest run lengths whose total probability is below this (R's
            ``truncRlim``).
        max_len: at most this many run lengths (R's ``maxRlength``).
        compiled: numba (True) or the plain Python twin. Compiled, on a machine whose long double
            is the x87 format (:data:`._ld80.X87`), the whole time loop is one numba kernel
            (:mod:`._bocpd_fused`, long double sums emulated in integers); elsewhere only the
            element-wise step is compiled and numpy does the long double sums.
        keep_posterior: also return every step's run-length posterior (memory O(n^2); tests).
        strength_lag, window: record, after each sample t, the posterior mass of run lengths
            ``strength_lag +- window`` (the run began ``strength_lag`` samples ago, give or take).
        short_run: record P(run length < short_run) after each sample.
        minsep: R ``findCPprobs``'s ``minsep``: the most probable segmentation ending at ``t``
            only takes a last run of at least ``minsep - 1`` samples before ``t``, unless fewer
            than ``minsep`` run lengths are kept (then every one is eligible, as in R). 1: no
            restriction (TCPDBench's ocp call).

    Returns:
        ``(starts, diag)``: R's ``maxCPs`` (1-based first point of each segment of the most
        probable segmentation, its leading 1 included) and per-sample diagnostics: ``map_run``
        (most probable run length), ``p_short``, ``lag_mass``, ``kept`` (run lengths kept),
        ``last`` (the final posterior ``P(run length = r | x_1..x_n)``), with
        ``keep_posterior``, ``posteriors`` (the posterior after each sample) and, when the fused
        kernel failed to compile or load and the per-step path ran instead, ``note``.
    """
    args = _arguments(y, hazard_lambda, prior, trunc, max_len, keep_posterior, strength_lag,
                      window, short_run, ctx, minsep)
    if compiled and X87 and int(max_len) >= 1 and 0.0 <= trunc < math.inf:
        from ..kernels import fast_or_plain
        from ._bocpd_fused import bocpd_fused
        out, note = fast_or_plain(lambda: bocpd_fused(*args),
                                  lambda: _bocpd_steps(*args, compiled=True), "bocpd's fused kernel")
        if out is None:  # a summand the emulated long double sums do not take (inf, NaN, < 0)
            out = _bocpd_steps(*args, compiled=True)
        if note:
            out[1]["note"] = note
        return out
    return _bocpd_steps(*args, compiled=compiled)


def _arguments(y: NDArray[np.float64], hazard_lambda: float,
               prior: tuple[float, float, float, float], trunc: float, max_len: int,
               keep_posterior: bool, strength_lag: int, window: int, short_run: int,
               ctx: RunContext, minsep: int = 1) -> tuple:
    """:func:`bocpd`'s arguments as :func:`_bocpd_steps` and ``_bocpd_fused.bocpd_fused`` take
    them: ``y`` 2-D, the prior as an array, the lgamma table, the hazard, the lag window."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    n = y.shape[0]
    prior_arr = np.asarray(prior, dtype=np.float64)
    size = min(n, int(max_len)) + 2 if int(max_len) >= 1 else n + 2  # run lengths 0..min(n, max_len)
    elg = np.array([math.exp(v) for v in lgamma_table(float(prior[2]), size).tolist()])
    H = 1.0 / float(hazard_lambda) * 1.0
    lo, hi = max(0, int(strength_lag) - window), int(strength_lag) + window + 1
    return (y, H, prior_arr, elg, trunc, int(max_len), keep_posterior, lo, hi, short_run, ctx,
            max(1, int(minsep)))


def _bocpd_steps(y: NDArray[np.float64], H: float, prior_arr: NDArray[np.float64],
                 elg: NDArray[np.float64], trunc: float, max_len: int, keep_posterior: bool,
                 lo: int, hi: int, short_run: int, ctx: RunContext, minsep: int, *,
                 compiled: bool) -> tuple[NDArray[np.int64], Diagnostics]:
    """:func:`bocpd` one step at a time: the element-wise step compiled (or plain Python), the
    long double sums, truncation, normalisation and the maxCPs recursion in numpy (the reference
    the fused kernel is tested against)."""
    step, log = _kernels(compiled)
    n, d = y.shape
    R = np.ones(1)
    logR = np.zeros(1)
    mu = np.full((1, d), prior_arr[0])
    kappa = np.full((1, d), prior_arr[1])
    alpha = np.full((1, d), prior_arr[2])
    beta = np.full((1, d), prior_arr[3])
    probmaxes = np.zeros(n + 2)
    parent = np.zeros(n + 2, dtype=np.int64)  # list(g) = list(parent[g]) + [g]; list(1) = [1]
    posteriors: list[NDArray[np.float64]] = []
    map_run = np.zeros(n, dtype=np.int64)
    p_short = np.zeros(n)
    lag_mass = np.zeros(n)
    kept = np.zeros(n, dtype=np.int64)
    for t in range(1, n + 1):
        if t % 512 == 0:
            ctx.check()
        if R.size > 1:
            keep = min(max(_kept_length(R, trunc), 1), int(max_len))
            R, logR = R[:keep], logR[:keep]
        L = R.size
        out_mu = np.empty((L + 1, d))
        out_kappa = np.empty((L + 1, d))
        out_alpha = np.empty((L + 1, d))
        out_beta = np.empty((L + 1, d))
        temp_h = np.empty(L)
        grow = np.empty(L)
        step(y[t - 1], logR, mu, kappa, alpha, beta, elg, prior_arr, H, out_mu, out_kappa, out_alpha,
             out_beta, temp_h, grow)
        mu, kappa, alpha, beta = out_mu, out_kappa, out_alpha, out_beta
        newR = np.empty(L + 1)
        newR[0] = _sum_r(temp_h)
        newR[1:] = grow
        newR = newR / _sum_r(newR)
        if np.any(newR == 0.0):
            newR[newR < XMIN] = XMIN
        logR = np.empty(L + 1)
        log(newR, logR)
        # most probable segmentation ending at t: R's findCPprobs with minsep 1, maxsep >= n
        cur = logR[::-1] + probmaxes[t - L: t + 1]
        last_j = L + 1 - minsep if minsep <= L + 1 else L  # R's minid, 0-based
        j = int(np.argmax(cur[:last_j + 1]))
        probmaxes[t + 1] = cur[j]
        parent[t + 1] = t - L + j
        if keep_posterior:
            posteriors.append(newR)
        map_run[t - 1] = int(np.argmax(newR))
        p_short[t - 1] = float(newR[:short_run].sum())
        lag_mass[t - 1] = float(newR[lo:hi].sum())
        kept[t - 1] = L + 1
        R = newR
    diag: Diagnostics = {"map_run": map_run, "p_short": p_short, "lag_mass": lag_mass,
                         "kept": kept, "last": R}
    if keep_posterior:
        diag["posteriors"] = posteriors
    return _starts(parent, n), diag


def _starts(parent: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """R's ``maxCPs`` after the last step, ascending: ``E(i) = E(parent[i]) + [parent[i] + 1]``,
    ``E(0)`` empty (``parent[1] = 0``, so every list starts with 1)."""
    out = []
    i = n + 1
    while i >= 1:
        g = int(parent[i])
        out.append(g + 1)
        i = g
    return np.array(out[::-1], dtype=np.int64)
