"""Exact optimal partitioning under MBIC with functional pruning (``op``'s default: l2, any minimum
segment length).

The recursion is OP's: ``F(t) = min_k F(k) + C(k, t) + ln(t - k) + beta`` with ``C`` the squared
error of ``y[k:t]`` about its mean. PELT's pruning is not valid here (``ln`` of a segment length is
not sub-additive the right way round, see :mod:`.partition`), so ``op`` used to evaluate every
candidate: O(n^2). This kernel keeps only candidates that can still be the minimiser, and it
prunes a candidate only when it is *proved* never to win again, so the ``F`` and ``last`` arrays are
bitwise those of :func:`._partition_kernels.op_advance` (tests/core/test_op_mbic_pruning.py).

Why the pruning is exact. Write a candidate ``k``'s cost at a later end point ``T`` as a function
of the segment level ``mu``::

    q_k(mu) = F(k) + sum_{k < i <= T} (y_i - mu)^2 ,   value_k(T) = min_mu q_k(mu) + ln(T - k).

For two candidates ``k < c`` the difference ``q_k(mu) - q_c(mu) = (F(k) - Q_k) - (F(c) - Q_c) +
2 mu (S_k - S_c) + (c - k) mu^2`` (``S``, ``Q`` prefix sums) does not depend on ``T``: both receive the
same new terms. Only the length terms move: ``ln(T - k) - ln(T - c)`` is positive and falls towards 0
as ``T`` grows. Hence, at a level ``mu``:

* a later ``c`` beats ``k`` for every future ``T <= n`` once ``q_k(mu) - q_c(mu) >= ln(n - c) -
  ln(n - k)`` (the smallest the length gap gets before the end of the series);
* an earlier ``c`` beats ``k`` for every future ``T >= T0`` once ``q_k(mu) - q_c(mu) >=
  ln(T0 - c) - ln(T0 - k)`` (the gap only grows in ``c``'s favour).

If every level ``mu`` is beaten that way by some candidate (by a margin ``tol`` above rounding), then
``k``'s value at its own best level exceeds some other candidate's value by at least ``tol`` at every
future ``T``, so ``k`` is never the (first) minimiser and can go. Beaten-by relations chain, so it
does not matter if the candidate that beats ``k`` is pruned later. The set of levels where ``k`` is
not yet beaten is an interval (from the later candidates: each constraint is the inside of an
upward parabola) minus a union of intervals (from the earlier ones: the inside of downward
parabolas); ``k`` is pruned when that set is empty. Roots are widened in ``k``'s favour, so rounding
in them can only keep a candidate longer.

The survivors are evaluated exactly as :func:`._partition_kernels.op_advance` does (the same
``F[k] + segment_cost`` expression, ascending ``k``, strict ``<``), which is why ``F`` and ``last``
are bitwise the same. The pruning sweep runs when the candidate list has doubled since the last
sweep: O(k^2 log k) every k steps, so O(k log k) per step where k stays small when there are changes
or plain noise (the penalty ``beta`` makes an early candidate beat a later one at every level far
from the data, and later candidates beat it near the data).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._cost_kernels import segment_cost
from ._costs import L2 as _L2  # the l2 cost's kind code
from ._jit import njit

_INF = np.inf


@njit(nogil=True, cache=True)
def _roots(a: float, b: float, c: float) -> tuple[float, float, bool]:
    """Real roots ``r1 <= r2`` of ``a mu^2 + b mu + c`` (``a > 0``), or ``(0, 0, False)``."""
    disc = b * b - 4.0 * a * c
    if not disc > 0.0:
        return 0.0, 0.0, False
    sq = math.sqrt(disc)
    # the stable pair: no cancellation between -b and the square root
    if b >= 0.0:
        q = -0.5 * (b + sq)
    else:
        q = -0.5 * (b - sq)
    r1 = q / a
    r2 = c / q if q != 0.0 else -r1
    if r1 > r2:
        r1, r2 = r2, r1
    return r1, r2, True


@njit(nogil=True, cache=True)
def _beaten(i: int, cand: NDArray[np.int64], k: int, F: NDArray[np.float64],
            S: NDArray[np.float64], Q: NDArray[np.float64], n: int, t_next: int, tol: float,
            slack: float, left: NDArray[np.float64], right: NDArray[np.float64],
            lg: NDArray[np.float64]) -> bool:
    """True when candidate ``cand[i]`` is beaten at every level (module docstring)."""
    tau = cand[i]
    a_t = F[tau] - Q[tau]
    s_t = S[tau]
    lo = -_INF
    hi = _INF
    # later candidates: tau may win only inside {q_tau - q_c < ln(n-c) - ln(n-tau) + tol}
    ln_n_tau = lg[n - tau]
    for j in range(i + 1, k):
        c = cand[j]
        thr = (lg[n - c] - ln_n_tau) + tol
        r1, r2, ok = _roots(float(c - tau), 2.0 * (s_t - S[c]), (a_t - (F[c] - Q[c])) - thr)
        if not ok:
            return True
        w = slack * (1.0 + abs(r1) + abs(r2))
        r1 -= w
        r2 += w
        if r1 > lo:
            lo = r1
        if r2 < hi:
            hi = r2
        if lo >= hi:
            return True
    if i == 0 or lo == -_INF or hi == _INF:
        return False  # no earlier candidate, or an unbounded set no finite union can cover
    # earlier candidates: tau is beaten inside {q_tau - q_c >= ln(t_next-c) - ln(t_next-tau) + tol}
    ln_tn_tau = lg[t_next - tau]
    m = 0
    for j in range(i):
        c = cand[j]
        thr = (lg[t_next - c] - ln_tn_tau) + tol
        # q_tau - q_c - thr >= 0 with leading coefficient c - tau < 0: between the roots of
        # (tau - c) mu^2 - 2 (s_t - S_c) mu - (a_t - a_c - thr)
        r1, r2, ok = _roots(float(tau - c), -2.0 * (s_t - S[c]), thr - (a_t - (F[c] - Q[c])))
        if not ok:
            continue
        w = slack * (1.0 + abs(r1) + abs(r2))
        r1 += w
        r2 -= w
        if r1 >= r2 or r2 <= lo or r1 >= hi:
            continue
        left[m] = r1
        right[m] = r2
        m += 1
    if m == 0:
        return False
    order = np.argsort(left[:m])
    cur = lo
    for p in range(m):
        q = order[p]
        if left[q] > cur:
            return False  # a gap: tau may still win at those levels
        if right[q] > cur:
            cur = right[q]
            if cur >= hi:
                return True
    return cur >= hi


@njit(nogil=True, cache=True)
def op_mbic_advance(S: NDArray[np.float64], Q: NDArray[np.float64], F: NDArray[np.float64],
                    last: NDArray[np.int64], cand: NDArray[np.int64], state: NDArray[np.int64],
                    left: NDArray[np.float64], right: NDArray[np.float64],
                    keep: NDArray[np.bool_], lg: NDArray[np.float64], t_from: int,
                    t_to: int, n: int, beta: float, tol: float, slack: float,
                    tie_last: bool, m: int = 1, mbic: bool = True) -> None:
    """OP under MBIC (l2, minimum segment ``m``) for ``t in [t_from, t_to)`` with exact
    functional pruning.

    ``mbic=False`` with ``lg`` all zeros is OP under a constant penalty: the length terms are gone,
    the bounds above hold with a zero gap (FPOP's own argument), and survivors are evaluated with
    the constant-penalty segment cost, as :func:`._partition_kernels.op_advance` does with
    ``mbic=False`` (used where FPOP cannot run: a minimum segment above 1).

    ``cand[:state[0]]`` holds the live candidates in ascending order; ``state[1]`` is the list
    length that triggers the next pruning sweep. The caller sets ``F[0] = -beta``, ``cand[0] = 0``,
    ``state = [1, 16]``; ``cand``, ``left``, ``right`` and ``keep`` have room for ``n + 1`` entries; ``lg[j] = ln(j)``
    for ``j = 1..n`` (a table: the pruning bounds need only be valid, not bitwise anything).

    Minimum segment ``m``: the candidates of ``F(t)`` are ``{0} U [m, t - m]``, as in
    :func:`._partition_kernels.op_advance`. A start ``c`` joins the list only at ``t = c + m``, when
    it becomes feasible, so every listed candidate is feasible at every later end point and the
    pruning argument of the module docstring holds unchanged (both candidates of a comparison
    receive the same new terms; only feasible ones are compared). ``F(t) = inf`` for ``0 < t < m``.
    """
    k = state[0]
    sweep_at = state[1]
    for t in range(t_from, t_to):
        if t < m:
            F[t] = _INF
            last[t] = -1
            continue
        c_new = t - m
        if c_new >= m:  # the start that became feasible at this end point
            cand[k] = c_new
            k += 1
            if k >= sweep_at:
                # decide every candidate against the full list first (a candidate pruned in this
                # sweep may still serve as the one that beats another: beaten-by relations chain)
                for i in range(k):
                    keep[i] = not _beaten(i, cand, k, F, S, Q, n, t, tol, slack, left, right, lg)
                j = 0
                for i in range(k):
                    if keep[i]:
                        cand[j] = cand[i]
                        j += 1
                k = j
                sweep_at = max(2 * k, 16)
        best = _INF
        arg = -1
        for i in range(k):
            tau = cand[i]
            v = F[tau] + segment_cost(S, Q, tau, t, _L2, 0.0, mbic)
            if v < best or (tie_last and v == best):
                best = v
                arg = tau
        F[t] = best + beta
        last[t] = arg
    state[0] = k
    state[1] = sweep_at
