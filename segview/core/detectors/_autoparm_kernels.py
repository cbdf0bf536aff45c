"""Numba kernels of Auto-PARM (spec ``docs/algorithms/autoparm.md`` §2, §4, §5).

Piece costs come from prefix sums of the globally centred series (§4 step 1): the biased
autocovariances of any piece in O(P), then Levinson-Durbin in O(P^2). Every piece cost includes the
``log n`` share of ``(m+1) log n``. The dynamic programmes run in chunks of end positions so the caller
can report progress and honour cancellation between chunks.
"""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit

LOG_2PI = math.log(2.0 * math.pi)


@njit(cache=True, nogil=True)
def prefix_sums(x, pmax):
    """``S[t] = sum_{i<t} x_i`` and ``Q[h, t] = sum_{i<t} x_i x_{i+h}`` (0 beyond the end)."""
    n = x.size
    s = np.zeros(n + 1)
    q = np.zeros((pmax + 1, n + 1))
    for t in range(n):
        s[t + 1] = s[t] + x[t]
    for h in range(pmax + 1):
        for t in range(n):
            prod = x[t] * x[t + h] if t + h < n else 0.0
            q[h, t + 1] = q[h, t] + prod
    return s, q


@njit(cache=True, nogil=True)
def int_code(k):
    """``L(k) = log k`` for k >= 1, 0 for k = 0."""
    return math.log(k) if k >= 1 else 0.0


@njit(cache=True, nogil=True)
def piece_variances(s_arr, q_arr, s, e, pmax, g, v, phi, tmp):
    """Yule-Walker innovation variances ``v[0..pmax]`` of piece ``[s, e)`` (Levinson-Durbin)."""
    n_j = e - s
    mu = (s_arr[e] - s_arr[s]) / n_j
    for h in range(pmax + 1):
        g[h] = (q_arr[h, e - h] - q_arr[h, s]
                - mu * ((s_arr[e - h] - s_arr[s]) + (s_arr[e] - s_arr[s + h]))
                + (n_j - h) * mu * mu) / n_j
    v[0] = g[0]
    for k in range(1, pmax + 1):
        if v[k - 1] <= 0.0:
            for kk in range(k, pmax + 1):
                v[kk] = v[k - 1]
            break
        acc = g[k]
        for i in range(1, k):
            acc -= phi[i] * g[k - i]
        a = acc / v[k - 1]
        for i in range(1, k // 2 + 1):  # in place, pairs (i, k-i) together
            lo = phi[i]
            hi = phi[k - i]
            phi[i] = lo - a * hi
            if i != k - i:
                phi[k - i] = hi - a * lo
        phi[k] = a
        v[k] = v[k - 1] * (1.0 - a * a)


@njit(cache=True, nogil=True)
def order_cost(p, n_j, s2, floor, logn):
    """``log n + L(p) + (p+2)/2 log n_j + n_j/2 log(2 pi s2)`` with the variance floor."""
    if s2 < floor:
        s2 = floor
    return logn + int_code(p) + 0.5 * (p + 2) * math.log(n_j) + 0.5 * n_j * (LOG_2PI + math.log(s2))


@njit(cache=True, nogil=True)
def best_piece(s_arr, q_arr, s, e, p0, spans, floor, logn, g, v, phi, tmp):
    """Least cost over admissible orders of piece ``[s, e)`` and its order (smallest on ties)."""
    n_j = e - s
    pm = -1
    for p in range(p0 + 1):
        if spans[p] <= n_j:
            pm = p
    if pm < 0:
        return np.inf, -1
    piece_variances(s_arr, q_arr, s, e, pm, g, v, phi, tmp)
    best = np.inf
    arg = -1
    for p in range(pm + 1):
        if spans[p] > n_j:
            continue
        c = order_cost(p, n_j, v[p], floor, logn)
        if c < best:
            best = c
            arg = p
    return best, arg


@njit(cache=True, nogil=True)
def order_weights(n, p0, spans):
    """``w[L, p] = exp(2/L * (L(p) + (p+2)/2 log L))`` (inf when ``m_p > L``).

    ``min_p s2_p * w[L, p]`` picks the same order as the code length and gives it with one log:
    ``C = log n + L/2 (log(2 pi) + log(min_p s2_p w[L, p]))``.
    """
    w = np.full((n + 1, p0 + 1), np.inf)
    for n_j in range(1, n + 1):
        for p in range(p0 + 1):
            if spans[p] <= n_j:
                w[n_j, p] = math.exp(2.0 / n_j * (int_code(p) + 0.5 * (p + 2) * math.log(n_j)))
    return w


@njit(cache=True, nogil=True)
def piece_cost_fast(s_arr, q_arr, s, e, p0, spans, floor, logn, w, g, v, phi, tmp):
    """Same value as :func:`best_piece` (up to rounding), one logarithm instead of one per order."""
    n_j = e - s
    pm = -1
    for p in range(p0 + 1):
        if spans[p] <= n_j:
            pm = p
    if pm < 0:
        return np.inf
    piece_variances(s_arr, q_arr, s, e, pm, g, v, phi, tmp)
    best = np.inf
    for p in range(pm + 1):
        s2 = v[p] if v[p] > floor else floor
        val = s2 * w[n_j, p]
        if val < best:
            best = val
    return logn + 0.5 * n_j * (LOG_2PI + math.log(best))


@njit(cache=True, nogil=True)
def dp_chunk(s_arr, q_arr, p0, spans, floor, logn, w, gcost, garg, f, b, e0, e1):
    """One pass over end positions ``e`` in ``[e0, e1)``: the cost column ``C(., e)`` once, then

    * optimal partitioning ``G(e) = min_s G(s) + C(s, e)`` (``gcost``/``garg``), and
    * segment neighbourhood ``F_k(e) = min_s F_{k-1}(s) + C(s, e)`` for ``k = 1..f.shape[0]-1``.

    Ties keep the smallest ``s``. Row 0 of ``f`` must be ``[0, inf, inf, ...]``.
    """
    kmax = f.shape[0] - 1
    minspan = spans[0]
    for p in range(p0 + 1):
        minspan = min(minspan, spans[p])
    g = np.zeros(p0 + 1)
    v = np.zeros(p0 + 1)
    phi = np.zeros(p0 + 1)
    tmp = np.zeros(p0 + 1)
    col = np.empty(e1 + 1)
    for e in range(e0, e1):
        last = e - minspan
        for s in range(0, last + 1):
            if gcost[s] == np.inf:
                col[s] = np.inf
            else:
                col[s] = piece_cost_fast(s_arr, q_arr, s, e, p0, spans, floor, logn, w, g, v,
                                         phi, tmp)
        best = np.inf
        arg = -1
        for s in range(0, last + 1):
            val = gcost[s] + col[s]
            if val < best:
                best = val
                arg = s
        gcost[e] = best
        garg[e] = arg
        for k in range(1, kmax + 1):
            best = np.inf
            arg = -1
            for s in range(0, last + 1):
                prev = f[k - 1, s]
                if prev == np.inf:
                    continue
                val = prev + col[s]
                if val < best:
                    best = val
                    arg = s
            f[k, e] = best
            b[k, e] = arg


# --------------------------------------------------------------------------------------------
# Pruned exact search (issue 15.3): one optimal-partitioning sweep with block-vectorised piece
# costs, recording only the pieces that can belong to an optimal segmentation; the segment
# neighbourhood then runs over those pieces. The argument is in ``autoparm.prepare_exact``.

BLOCK = 256  # pieces per vectorised cost call (array sizes)
SUB = 64  # starts per lower-bound test
GROUP = 32  # end positions whose costs are computed together, block by block


@njit(cache=True, nogil=True, error_model="numpy")
def cost_block(s_arr, q_arr, e, s0, s1, pm, floor, logn, wT, g, phi, acc, best, out):
    """Costs of pieces ``[s, e)`` for ``s`` in ``[s0, s1)`` into ``out[:s1-s0]``; every order
    ``0..pm`` must be admissible for all of them (``e - s1 + 1 >= max span``).

    The same arithmetic as :func:`piece_cost_fast`, operation for operation (so the values are
    bit-identical), but laid out across ``s`` so that the compiler vectorises the Levinson-Durbin
    recursion over independent pieces instead of waiting on one piece's dependency chain.
    """
    m = s1 - s0
    se = s_arr[e]
    for j in range(m):
        s = s0 + j
        acc[j] = (se - s_arr[s]) / (e - s)  # the piece mean
    for h in range(pm + 1):
        qe = q_arr[h, e - h]
        seh = s_arr[e - h]
        for j in range(m):
            s = s0 + j
            n_j = e - s
            mu = acc[j]
            g[h, j] = (qe - q_arr[h, s] - mu * ((seh - s_arr[s]) + (se - s_arr[s + h]))
                       + (n_j - h) * mu * mu) / n_j
    for j in range(m):
        v = g[0, j]
        best[j] = (v if v > floor else floor) * wT[0, e - s0 - j]
        out[j] = v  # out holds the running innovation variance until the end
    for k in range(1, pm + 1):
        for j in range(m):
            acc[j] = g[k, j]
        i = 1
        while i + 3 < k:  # four terms a pass, in the scalar kernel's order
            for j in range(m):
                acc[j] = (((acc[j] - phi[i, j] * g[k - i, j]) - phi[i + 1, j] * g[k - i - 1, j])
                          - phi[i + 2, j] * g[k - i - 2, j]) - phi[i + 3, j] * g[k - i - 3, j]
            i += 4
        while i < k:
            for j in range(m):
                acc[j] -= phi[i, j] * g[k - i, j]
            i += 1
        for j in range(m):
            v = out[j]
            a = acc[j] / v  # numpy error model: no exception at v = 0, the value is discarded
            acc[j] = a if v > 0.0 else 0.0  # v <= 0: the variance stays (scalar kernel's break)
        for i in range(1, k // 2 + 1):
            if i != k - i:
                for j in range(m):
                    lo = phi[i, j]
                    hi = phi[k - i, j]
                    a = acc[j]
                    phi[i, j] = lo - a * hi
                    phi[k - i, j] = hi - a * lo
            else:
                for j in range(m):
                    phi[i, j] = phi[i, j] - acc[j] * phi[i, j]
        for j in range(m):
            a = acc[j]
            phi[k, j] = a
            v = out[j] * (1.0 - a * a)
            out[j] = v
            val = (v if v > floor else floor) * wT[k, e - s0 - j]
            if val < best[j]:
                best[j] = val
    for j in range(m):
        out[j] = logn + 0.5 * (e - s0 - j) * (LOG_2PI + math.log(best[j]))


@njit(cache=True, nogil=True)
def rows_schur(s_arr, q_arr, a, b, p0, mat):
    """Lower bound on ``L * v_P`` for every piece ``[s, e)`` with ``s + P <= a`` and ``e >= b``.

    ``v_P`` (Yule-Walker, biased autocovariances) is the Schur complement of the current value in
    the lag matrix ``Z'Z / L`` of the zero-padded, piece-centred data. Keeping only the rows
    ``t`` in ``[a, b)`` (whole lag vectors inside every such piece) and centring them at their own
    mean removes positive semidefinite terms, and Schur complements are monotone in that order,
    so the Schur complement of the centred scatter of those rows is at most ``L * v_P``. Computed
    from the prefix sums by a Cholesky factorisation with the current value last; a margin of
    ``1e-8`` of its sum of squares absorbs rounding. Returns 0 (no bound) when degenerate.
    """
    nrow = b - a
    if nrow <= p0 + 1:
        return 0.0
    for ii in range(p0 + 1):
        li = ii + 1 if ii < p0 else 0  # lags 1..P first, the current value last
        si = s_arr[b - li] - s_arr[a - li]
        for jj in range(ii, p0 + 1):
            lj = jj + 1 if jj < p0 else 0
            lo = min(li, lj)
            hi = max(li, lj)
            h = hi - lo
            sj = s_arr[b - lj] - s_arr[a - lj]
            val = (q_arr[h, b - hi] - q_arr[h, a - hi]) - si * sj / nrow
            mat[ii, jj] = val
            mat[jj, ii] = val
    scale = mat[p0, p0]
    if not scale > 0.0:
        return 0.0
    for k in range(p0 + 1):
        d = mat[k, k]
        for m in range(k):
            d -= mat[k, m] * mat[k, m]
        if k == p0:
            d -= 1e-8 * scale
            return d if d > 0.0 else 0.0
        if not d > 1e-12 * abs(mat[k, k]) or not d > 0.0:
            return 0.0
        r = math.sqrt(d)
        mat[k, k] = r
        for i in range(k + 1, p0 + 1):
            val = mat[i, k]
            for m in range(k):
                val -= mat[i, m] * mat[k, m]
            mat[i, k] = val / r
    return 0.0


@njit(cache=True, nogil=True)
def _lb_len(length, schur, logn):
    """``log n + log L + L/2 log(2 pi S / L)``: the least cost of a piece of length ``L`` whose
    ``L * v_P >= S`` (order 0's penalty ``log L`` is the smallest; ``v_p >= v_P``)."""
    return logn + math.log(length) + 0.5 * length * (LOG_2PI + math.log(schur / length))


@njit(cache=True, nogil=True)
def op_sweep(s_arr, q_arr, p0, spans, floor, logn, w, wT, gcost, garg, e0, e1, delta,
             rec_s, rec_e, rec_c, nrec, prune):
    """Optimal partitioning for end positions ``e`` in ``[e0, e1)`` (``G(e) = min_s G(s) + C(s, e)``,
    ties: smallest ``s``), recording every piece with ``G(s) + C(s, e) <= G(e) + delta``.

    End positions go in groups of ``GROUP``. Starts ``s < lo = ea - maxspan + 1`` (``ea``: the
    group's first end) make admissible pieces of every order for every end of the group and have
    final ``G(s)``; their costs are computed block by block for all ends of the group at once (the
    block's prefix sums stay in cache). The remaining starts follow end by end.

    With ``prune``, a block of ``SUB`` starts is skipped at end ``e`` when a lower bound of
    ``G(s) + C(s, e)`` over the block (``G(s)`` plus the chord of the concave :func:`_lb_len` with
    :func:`rows_schur` over the rows before ``ea``: fewer rows only lower it) exceeds an upper
    bound of ``G(e)`` (the costs through the previous optimum's block) plus ``delta``: none of its
    pieces can be the optimum or be recorded.

    Returns ``(next_e, nrec, skipped)``: ``next_e < e1`` when the record buffers are full (grow
    them and call again from ``next_e``); ``skipped`` counts the pieces not evaluated.
    """
    minspan = spans[0]
    bigspan = spans[0]
    for p in range(p0 + 1):
        minspan = min(minspan, spans[p])
        bigspan = max(bigspan, spans[p])
    g = np.zeros(p0 + 1)
    v = np.zeros(p0 + 1)
    phi = np.zeros(p0 + 1)
    tmp = np.zeros(p0 + 1)
    gb = np.zeros((p0 + 1, BLOCK))
    phib = np.zeros((p0 + 1, BLOCK))
    accb = np.zeros(BLOCK)
    bestb = np.zeros(BLOCK)
    outb = np.zeros(BLOCK)
    colg = np.empty((GROUP, e1 + 1))
    col = np.empty(e1 + 1)
    upper = np.empty(GROUP)
    mat = np.zeros((p0 + 1, p0 + 1))
    keep = np.zeros((e1 // SUB + 2, GROUP), dtype=np.bool_)
    cap = rec_s.size
    skipped = 0
    for ea in range(e0, e1, GROUP):
        eb = min(ea + GROUP, e1)
        ne = eb - ea
        lo = ea - bigspan + 1
        if lo < 0:
            lo = 0
        nblk = (lo + SUB - 1) // SUB
        for r in range(ne):
            upper[r] = np.inf
        first = min(max(garg[ea - 1], 0) // SUB, nblk - 1) if nblk > 0 else -1
        if first >= 0:
            s0 = first * SUB
            s1 = min(s0 + SUB, lo)
            for r in range(ne):
                cost_block(s_arr, q_arr, ea + r, s0, s1, p0, floor, logn, wT, gb, phib, accb,
                           bestb, outb)
                for j in range(s1 - s0):
                    colg[r, s0 + j] = outb[j]
                    upper[r] = min(upper[r], gcost[s0 + j] + outb[j])
        for bi in range(nblk):
            if bi == first:
                continue
            s0 = bi * SUB
            s1 = min(s0 + SUB, lo)
            for r in range(ne):
                keep[bi, r] = True
            finite = False
            for s in range(s0, s1):
                if gcost[s] < np.inf:
                    finite = True
                    break
            if not finite:
                for r in range(ne):
                    keep[bi, r] = False
                    for s in range(s0, s1):
                        colg[r, s] = np.inf
                continue
            if not prune:
                continue
            schur = rows_schur(s_arr, q_arr, s1 - 1 + p0, ea, p0, mat)
            if not schur > 0.0:
                continue
            for r in range(ne):
                e = ea + r
                # the length bound is concave in L, so above its chord over the block
                fa = _lb_len(e - s0, schur, logn)
                slope = ((_lb_len(e - s1 + 1, schur, logn) - fa) / (s1 - 1 - s0)
                         if s1 - 1 > s0 else 0.0)
                lb = np.inf
                for s in range(s0, s1):
                    lb = min(lb, gcost[s] + fa + slope * (s - s0))
                if lb > upper[r] + delta + 1e-6:
                    keep[bi, r] = False
                    for s in range(s0, s1):
                        colg[r, s] = np.inf
                    skipped += s1 - s0
        # kept blocks: runs of up to BLOCK starts, every end of the group while they are in cache
        bi = 0
        while bi < nblk:
            if bi == first:
                bi += 1
                continue
            s0 = bi * SUB
            b_end = bi
            s1 = s0
            while b_end < nblk and b_end != first and s1 - s0 < BLOCK:
                s1 = min((b_end + 1) * SUB, lo)
                b_end += 1
            for r in range(ne):
                # the run's kept part for this end: from its first to its last kept block
                k0 = bi
                while k0 < b_end and not keep[k0, r]:
                    k0 += 1
                if k0 == b_end:
                    continue
                k1 = b_end - 1
                while not keep[k1, r]:
                    k1 -= 1
                a0 = k0 * SUB
                a1 = min((k1 + 1) * SUB, lo)
                cost_block(s_arr, q_arr, ea + r, a0, a1, p0, floor, logn, wT, gb, phib, accb,
                           bestb, outb)
                for j in range(a1 - a0):
                    if keep[a0 // SUB + j // SUB, r] or (a0 + j) // SUB == first:
                        colg[r, a0 + j] = outb[j]
            bi = b_end
        # end by end: the starts from lo on, the optimum and the recorded pieces
        for r in range(ne):
            e = ea + r
            last = e - minspan
            bulk = e - bigspan + 1
            if bulk < lo:
                bulk = lo
            for s0 in range(lo, bulk, BLOCK):
                s1 = min(s0 + BLOCK, bulk)
                cost_block(s_arr, q_arr, e, s0, s1, p0, floor, logn, wT, gb, phib, accb, bestb,
                           outb)
                for j in range(s1 - s0):
                    col[s0 + j] = outb[j]
            for s in range(bulk, last + 1):
                col[s] = piece_cost_fast(s_arr, q_arr, s, e, p0, spans, floor, logn, w, g, v, phi,
                                         tmp)
            best = np.inf
            arg = -1
            for s in range(0, min(lo, last + 1)):
                val = gcost[s] + colg[r, s]
                if val < best:
                    best = val
                    arg = s
            for s in range(lo, last + 1):
                val = gcost[s] + col[s]
                if val < best:
                    best = val
                    arg = s
            limit = best + delta
            count = 0
            for s in range(0, min(lo, last + 1)):
                if gcost[s] + colg[r, s] <= limit:
                    count += 1
            for s in range(lo, last + 1):
                if gcost[s] + col[s] <= limit:
                    count += 1
            if nrec + count > cap:
                return e, nrec, skipped
            gcost[e] = best
            garg[e] = arg
            for s in range(0, min(lo, last + 1)):
                if gcost[s] + colg[r, s] <= limit:
                    rec_s[nrec] = s
                    rec_e[nrec] = e
                    rec_c[nrec] = colg[r, s]
                    nrec += 1
            for s in range(lo, last + 1):
                if gcost[s] + col[s] <= limit:
                    rec_s[nrec] = s
                    rec_e[nrec] = e
                    rec_c[nrec] = col[s]
                    nrec += 1
    return e1, nrec, skipped


@njit(cache=True, nogil=True)
def sparse_neighbourhood(rec_s, rec_e, rec_c, nrec, n, kmax):
    """Segment neighbourhood ``F_k(e) = min F_{k-1}(s) + C(s, e)`` over the recorded pieces only
    (sorted by ``e``, then ``s``; ties keep the smallest ``s`` as in :func:`dp_chunk`)."""
    f = np.full((kmax + 1, n + 1), np.inf)
    f[0, 0] = 0.0
    b = np.full((kmax + 1, n + 1), -1, dtype=np.int64)
    for r in range(nrec):
        s = rec_s[r]
        e = rec_e[r]
        c = rec_c[r]
        for k in range(1, kmax + 1):
            prev = f[k - 1, s]
            if prev == np.inf:
                continue
            val = prev + c
            if val < f[k, e]:
                f[k, e] = val
                b[k, e] = s
    return f, b


# --------------------------------------------------------------------------------------------
# Exact Gaussian likelihood of a fitted AR piece (autoparm.md §2, exact form)

@njit(cache=True, nogil=True)
def ar_exact_terms(z, phi, s2):
    """``(log det V, z' V^-1 z)`` for the centred piece ``z`` under a stationary AR with
    coefficients ``phi`` and innovation variance ``s2`` (``V``: covariance of ``len(z)`` values).

    The innovations form of the Gaussian likelihood: stepping the coefficients down (Levinson in
    reverse) gives the one-step predictors and prediction variances ``v_k`` of orders
    ``k < p``; value ``t`` is predicted from ``min(t, p)`` predecessors, so
    ``log det V = sum_t log v_min(t,p)`` and the quadratic form is ``sum_t e_t^2 / v_min(t,p)``.
    O(n p). Returns ``(inf, inf)`` when ``phi`` is not stationary.
    """
    p = phi.size
    n = z.size
    pc = np.zeros((p + 1, p + 1))  # pc[k, :k]: order-k predictor
    v = np.zeros(p + 1)
    v[p] = s2
    cur = phi.copy()
    for k in range(p, 0, -1):
        for i in range(k):
            pc[k, i] = cur[i]
        a = cur[k - 1]
        if not abs(a) < 1.0:
            return np.inf, np.inf
        d = 1.0 - a * a
        v[k - 1] = v[k] / d
        prev = np.empty(k - 1)
        for i in range(k - 1):
            prev[i] = (cur[i] + a * cur[k - 2 - i]) / d
        cur = prev
    logdet = 0.0
    quad = 0.0
    for t in range(n):
        k = t if t < p else p
        pred = 0.0
        for i in range(1, k + 1):
            pred += pc[k, i - 1] * z[t - i]
        err = z[t] - pred
        logdet += math.log(v[k])
        quad += err * err / v[k]
    return logdet, quad


@njit(cache=True, nogil=True)
def exact_order_cost(x, s_arr, start, end, order, phi, s2, floor, logn):
    """Exact-form piece cost: ``log n + L(p) + (p+2)/2 log n_j + n_j/2 log(2 pi)
    + 1/2 log det V + 1/2 quad`` at the Yule-Walker fit (``phi[1..p]``, ``s2``)."""
    n_j = end - start
    mu = (s_arr[end] - s_arr[start]) / n_j
    z = x[start:end] - mu
    if s2 < floor:
        s2 = floor
    logdet, quad = ar_exact_terms(z, phi[1:order + 1].copy(), s2)
    return (logn + int_code(order) + 0.5 * (order + 2) * math.log(n_j) + 0.5 * n_j * LOG_2PI
            + 0.5 * logdet + 0.5 * quad)


# --------------------------------------------------------------------------------------------
# Genetic algorithm (§5)

@njit(cache=True, nogil=True)
def chromosome_cl(chrom, s_arr, q_arr, p0, spans, floor, logn, g, v, phi, tmp, x, exact):
    """CL of a chromosome (-1 = no break, p >= 0 = a piece of order p starts here); ``exact``:
    the exact-likelihood form of each piece instead of Yule-Walker's."""
    n = chrom.size
    total = 0.0
    m = -1
    start = 0
    order = chrom[0]
    for t in range(1, n + 1):
        if t == n or chrom[t] >= 0:
            for i in range(p0 + 1):
                phi[i] = 0.0
            piece_variances(s_arr, q_arr, start, t, order, g, v, phi, tmp)
            if exact:
                total += exact_order_cost(x, s_arr, start, t, order, phi, v[order], floor, logn)
            else:
                total += order_cost(order, t - start, v[order], floor, logn)
            m += 1
            if t < n:
                start = t
                order = chrom[t]
    return total + int_code(m)


@njit(cache=True, nogil=True)
def _fresh_gene(t, n, p0, spans, pi_b):
    if np.random.random() < pi_b:
        p = np.random.randint(0, p0 + 1)
        if spans[p] <= n - t:
            return p
    return -1


@njit(cache=True, nogil=True)
def _first_order(n, p0, spans):
    while True:
        p = np.random.randint(0, p0 + 1)
        if spans[p] <= n:
            return p


@njit(cache=True, nogil=True)
def random_chromosome(out, p0, spans, pi_b):
    n = out.size
    out[:] = -1
    out[0] = _first_order(n, p0, spans)
    t = spans[out[0]]
    while t < n:
        p = _fresh_gene(t, n, p0, spans, pi_b)
        if p >= 0:
            out[t] = p
            t += spans[p]
        else:
            t += 1


@njit(cache=True, nogil=True)
def _rank_select(order_idx, np_):
    """Index (into the island) drawn by linear ranking; order_idx sorted worst -> best."""
    total = np_ * (np_ + 1) / 2.0
    u = np.random.random() * total
    acc = 0.0
    for r in range(np_):
        acc += r + 1
        if u < acc:
            return order_idx[r]
    return order_idx[np_ - 1]


@njit(cache=True, nogil=True)
def _crossover(a, b, out, p0, spans):
    n = out.size
    out[:] = -1
    out[0] = a[0] if np.random.random() < 0.5 else b[0]
    t = spans[out[0]]
    while t < n:
        gene = a[t] if np.random.random() < 0.5 else b[t]
        if gene >= 0 and spans[gene] <= n - t:
            out[t] = gene
            t += spans[gene]
        else:
            t += 1


@njit(cache=True, nogil=True)
def _mutate(a, out, p0, spans, pi_b, pi_p, pi_n):
    n = out.size
    out[:] = -1
    out[0] = a[0] if np.random.random() < pi_p else _first_order(n, p0, spans)
    t = spans[out[0]]
    while t < n:
        u = np.random.random()
        if u < pi_p:
            gene = a[t]
        elif u < pi_p + pi_n:
            gene = -1
        else:
            gene = _fresh_gene(t, n, p0, spans, pi_b)
        if gene >= 0 and spans[gene] <= n - t:
            out[t] = gene
            t += spans[gene]
        else:
            t += 1


@njit(cache=True, nogil=True)
def ga_run(x, p0, spans, floor, seed, n_islands, n_pop, n_migrants, mig_interval, stable,
           max_migrations, pi_b, pi_c, pi_p, pi_n, exact=False, logn_factor=1.0):
    """One GA run (islands, steady-state offspring, migration). Returns (chromosome, CL, migrations).
    ``logn_factor`` multiplies each piece's ``ln n`` term (autoparm's ``penalty_factor``)."""
    np.random.seed(seed)
    n = x.size
    logn = math.log(n) * logn_factor
    s_arr, q_arr = prefix_sums(x, p0)
    g = np.zeros(p0 + 1)
    v = np.zeros(p0 + 1)
    phi = np.zeros(p0 + 1)
    tmp = np.zeros(p0 + 1)
    pop = np.empty((n_islands, n_pop, n), dtype=np.int8)
    fit = np.empty((n_islands, n_pop))
    for i in range(n_islands):
        for j in range(n_pop):
            random_chromosome(pop[i, j], p0, spans, pi_b)
            fit[i, j] = chromosome_cl(pop[i, j], s_arr, q_arr, p0, spans, floor, logn, g, v, phi, tmp,
                                      x, exact)
    best_cl = np.inf
    best = np.empty(n, dtype=np.int8)
    for i in range(n_islands):
        for j in range(n_pop):
            if fit[i, j] < best_cl:
                best_cl = fit[i, j]
                best[:] = pop[i, j]
    child = np.empty(n, dtype=np.int8)
    migrations = 0
    unchanged = 0
    while migrations < max_migrations:
        for _gen in range(mig_interval):
            for i in range(n_islands):
                ranks = np.argsort(-fit[i])  # worst first
                if np.random.random() < pi_c and n_pop > 1:
                    a = _rank_select(ranks, n_pop)
                    bb = _rank_select(ranks, n_pop)
                    while bb == a:
                        bb = _rank_select(ranks, n_pop)
                    _crossover(pop[i, a], pop[i, bb], child, p0, spans)
                else:
                    a = _rank_select(ranks, n_pop)
                    _mutate(pop[i, a], child, p0, spans, pi_b, pi_p, pi_n)
                cl = chromosome_cl(child, s_arr, q_arr, p0, spans, floor, logn, g, v, phi, tmp, x,
                                   exact)
                worst = ranks[0]
                if cl < fit[i, worst]:
                    dup = False
                    for j in range(n_pop):
                        if fit[i, j] == cl:
                            same = True
                            for t in range(n):
                                if pop[i, j, t] != child[t]:
                                    same = False
                                    break
                            if same:
                                dup = True
                                break
                    if not dup:
                        pop[i, worst] = child
                        fit[i, worst] = cl
        # migration: the n_migrants best of island i replace the worst of island i+1
        if n_islands > 1:
            mig_pop = np.empty((n_islands, n_migrants, n), dtype=np.int8)
            mig_fit = np.empty((n_islands, n_migrants))
            for i in range(n_islands):
                order = np.argsort(fit[i])
                for k in range(n_migrants):
                    mig_pop[i, k] = pop[i, order[k]]
                    mig_fit[i, k] = fit[i, order[k]]
            for i in range(n_islands):
                dest = (i + 1) % n_islands
                order = np.argsort(-fit[dest])
                for k in range(n_migrants):
                    pop[dest, order[k]] = mig_pop[i, k]
                    fit[dest, order[k]] = mig_fit[i, k]
        migrations += 1
        improved = False
        for i in range(n_islands):
            for j in range(n_pop):
                if fit[i, j] < best_cl:
                    best_cl = fit[i, j]
                    best[:] = pop[i, j]
                    improved = True
        if improved:
            unchanged = 0
        else:
            unchanged += 1
            if unchanged >= stable:
                break
    return best, best_cl, migrations
