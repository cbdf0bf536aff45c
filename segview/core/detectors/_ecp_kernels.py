"""E-Divisive (:mod:`.ecp`): the split search and the permutation test, compiled.

:func:`_scan` is the search of R ``ecp``'s ``splitPointC`` for one segment: over the first sample
``t1`` of a right cluster and its end ``t2``, the scaled energy distance between ``x[0:t1]`` and
``x[t1:t2]``, with the within and between sums updated incrementally in the package's order, so the
statistic has R's bits. Distances are computed when needed from the rows (``sqrt`` of the summed
squared differences, then ``^alpha``, as R's ``dist(X)^alpha``; ``|x_a - x_b|`` for one column and
alpha = 1, the same bits), so a permuted segment needs only its rows permuted, not an n x n matrix.
Independent running sums advance four at a time, and each row's updates and candidates are plain
array loops, which is what makes a test on 3,000 samples take seconds instead of tens of seconds.

``trunc``: ecp 3.1.1 (the version TCPDBench pins) computes the scale factor ``t1 (t2 - t1) / t2`` in
integer arithmetic, truncating it; 3.1.2 fixed that. Both are available.

:func:`perm_test` runs the R permutations: each permutes every current cluster with R's
``sample()`` (:mod:`._rrng`, one shared stream as in R), then asks whether some split of some
cluster reaches the observed statistic. The answer needs only one candidate at or above it, so the
search stops there (R computes the full maximum; the count is the same, and the random stream
does not depend on it because every permutation is drawn before the search). A candidate is first
bounded without division; only those whose bound reaches the observed statistic get R's exact
statistic, so the count is R's.
"""
from __future__ import annotations

import math

import numpy as np

from ._jit import njit
from ._rrng import sample_into


@njit(nogil=True, cache=True, inline="always")
def _dist(X, a, b, alpha):  # pragma: no cover (compiled)
    acc = 0.0
    for q in range(X.shape[1]):
        dev = X[a, q] - X[b, q]
        acc += dev * dev
    r = math.sqrt(acc)
    if alpha == 1.0:
        return r
    if alpha == 2.0:
        return r * r
    return r ** alpha


@njit(nogil=True, cache=True, inline="always")
def _d(X, a, b, alpha, flat):  # pragma: no cover (compiled)
    """``_dist``; for one column and alpha = 1 it is ``|x_a - x_b|``, which has the same bits
    (``sqrt(dev * dev) == |dev|`` in binary floating point, see ``flat`` in :func:`_scan`)."""
    if flat:
        return abs(X[a, 0] - X[b, 0])
    return _dist(X, a, b, alpha)


@njit(nogil=True, cache=True, inline="always")
def _stat(t1, t2, a_term, B, AB, trunc):  # pragma: no cover (compiled)
    """The scaled statistic; ``a_term = 2 A / ((t1 - 1) t1)`` is fixed within a row of t1."""
    v = (2.0 * AB / ((t2 - t1) * t1) - 2.0 * B / ((t2 - t1 - 1) * (t2 - t1))) - a_term
    if trunc:
        return v * float((t1 * (t2 - t1)) // t2)
    return v * (float(t1) * (t2 - t1) / t2)


@njit(nogil=True, cache=True, inline="always")
def _visit(t1, t2, a_term, B, AB, trunc, best, best_t):  # pragma: no cover (compiled)
    """One candidate of the search: ``(best, best_t)``, the first best in R's order."""
    v = _stat(t1, t2, a_term, B, AB, trunc)
    if v > best:
        return v, t1
    return best, best_t


@njit(nogil=True, cache=True)
def _sums4(X, p, lo, hi, alpha, flat, grow):  # pragma: no cover (compiled)
    """``s_k = sum_{c in [lo, hi + k)} d(p + k, c)`` for k = 0..3 (``grow``; otherwise every range
    is ``[lo, hi)``), each summed in ascending ``c`` (R's order) and the four advanced together
    (four running sums at once, none waiting on its last addition)."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for c in range(lo, hi):
        s0 += _d(X, p, c, alpha, flat)
        s1 += _d(X, p + 1, c, alpha, flat)
        s2 += _d(X, p + 2, c, alpha, flat)
        s3 += _d(X, p + 3, c, alpha, flat)
    if grow:
        s1 += _d(X, p + 1, hi, alpha, flat)
        s2 += _d(X, p + 2, hi, alpha, flat)
        s2 += _d(X, p + 2, hi + 1, alpha, flat)
        s3 += _d(X, p + 3, hi, alpha, flat)
        s3 += _d(X, p + 3, hi + 1, alpha, flat)
        s3 += _d(X, p + 3, hi + 2, alpha, flat)
    return s0, s1, s2, s3


@njit(nogil=True, cache=True)
def _sum1(X, p, lo, hi, alpha, flat):  # pragma: no cover (compiled)
    """``sum_{c in [lo, hi)} d(p, c)`` in ascending ``c``."""
    s = 0.0
    for c in range(lo, hi):
        s += _d(X, p, c, alpha, flat)
    return s


@njit(nogil=True, cache=True)
def _prefix(X, p, k, m, alpha, flat, P):  # pragma: no cover (compiled)
    """Rows ``p .. p + k - 1`` (k <= 4): ``P[j, c + 1]`` = running sum of ``d(p + j, c')`` over
    ``c' = p + j + 1 .. c``, R's ``addB`` of row ``p + j + 1`` at right end ``c + 1``; up to four
    rows advance together."""
    if k == 4:
        r0 = 0.0
        r1 = 0.0
        r2 = 0.0
        for c in range(p + 1, p + 4):
            r0 += _d(X, p, c, alpha, flat)
            P[0, c + 1] = r0
            if c >= p + 2:
                r1 += _d(X, p + 1, c, alpha, flat)
                P[1, c + 1] = r1
            if c >= p + 3:
                r2 += _d(X, p + 2, c, alpha, flat)
                P[2, c + 1] = r2
        r3 = 0.0
        for c in range(p + 4, m):
            r0 += _d(X, p, c, alpha, flat)
            r1 += _d(X, p + 1, c, alpha, flat)
            r2 += _d(X, p + 2, c, alpha, flat)
            r3 += _d(X, p + 3, c, alpha, flat)
            P[0, c + 1] = r0
            P[1, c + 1] = r1
            P[2, c + 1] = r2
            P[3, c + 1] = r3
        return
    for j in range(k):
        r = 0.0
        for c in range(p + j + 1, m):
            r += _d(X, p + j, c, alpha, flat)
            P[j, c + 1] = r


@njit(nogil=True, cache=True)
def _row(t1, lo, m, a_term, add_a, Pj, B, AB, trunc, decide, stop, rinv, q, fk, best,
         best_t):  # pragma: no cover (compiled)
    """Row ``t1``'s updates of ``B[t2]``, ``AB[t2]`` for ``t2`` in ``[lo, m]`` (``Pj[t2]`` = its
    ``addB``), then its candidates: searching, R's running best ``(best, best_t, False)``;
    deciding, whether one reaches ``stop`` (third value). Deciding, each statistic is first
    bounded without division (``rinv[k] = 1 / k``, ``q[k] = 2 / ((k - 1) k)``, ``fk[k] = k``), raised by a margin
    far above its rounding error (a few units in the last place of the sum of the terms'
    magnitudes) and times an upper bound of the scale factor; only candidates whose bound reaches
    ``stop`` get R's statistic. The loops are plain array arithmetic, so they vectorise."""
    L = m + 1 - lo
    Bv = B[lo:]
    ABv = AB[lo:]
    Pv = Pj[lo:]
    for i in range(L):
        b = Bv[i] - Pv[i]
        ab = ABv[i] + (Pv[i] - add_a)
        Bv[i] = b
        ABv[i] = ab
    if not decide:
        for t2 in range(lo, m + 1):
            best, best_t = _visit(t1, t2, a_term, B[t2], AB[t2], trunc, best, best_t)
        return best, best_t, False
    c1 = 2.0 * rinv[t1]
    t1f = float(t1)
    d0 = lo - t1
    rd = rinv[d0:]
    qd = q[d0:]
    fd = fk[d0:]
    r2 = rinv[lo:]
    cnt = 0
    for i in range(L):
        t_ab = c1 * ABv[i] * rd[i]
        t_b = Bv[i] * qd[i]
        g = (t_ab - t_b) - a_term
        g += 1e-13 * (abs(t_ab) + abs(t_b) + abs(a_term))
        # g > 0: times the factor's bound; g <= 0: the statistic is <= 0; NaN stays NaN
        ub = g * (t1f * fd[i] * r2[i]) * (1.0 + 1e-12) if g > 0.0 else (0.0 if g <= 0.0 else g)
        cnt += not ub < stop  # NaN counts: R's statistic decides
    if cnt == 0:
        return best, best_t, False
    for t2 in range(lo, m + 1):
        if _stat(t1, t2, a_term, B[t2], AB[t2], trunc) >= stop:
            return best, best_t, True
    return best, best_t, False


@njit(nogil=True, cache=True)
def _scan(X, m, min_size, alpha, trunc, B, AB, decide, stop, rinv, q, fk, flat, P):  # pragma: no cover
    """R ``splitPointC`` on the m rows of ``X``: ``(t1, statistic)`` of the best split (``t1`` =
    size of the left cluster; ``-1, -inf`` when m < 2 min_size). ``decide``: whether some split
    reaches ``stop`` instead, ``(-2, stop)`` as soon as one does. ``B``, ``AB``: scratch of length
    >= m + 1, ``P``: (4, >= m + 1); ``rinv``, ``q``, ``fk``: see :func:`_row`, length >= m + 1.

    Every sum is R's, in R's order, so the statistics have R's bits; only independent sums are
    advanced together (:func:`_sums4`, :func:`_prefix`) and each row's updates of ``B``, ``AB``
    come after its running sums. ``flat`` (one column, alpha = 1): ``|x_a - x_b|`` for
    ``sqrt((x_a - x_b)^2)``, equal for every difference whose square neither overflows nor
    underflows; the caller passes ``flat`` False when some nonzero difference could
    (:func:`flat_ok`)."""
    if m < 2 * min_size:
        return -1, -np.inf
    best_t = -1
    best = -np.inf
    ms = min_size
    t1 = ms
    t2 = ms * 2
    A = 0.0
    for c in range(t1):
        for r in range(t1):
            A += _dist(X, r, c, alpha)
    A = A / 2.0
    B1 = 0.0
    for c in range(t1, t2):
        for r in range(t1, t2):
            B1 += _dist(X, r, c, alpha)
    B1 = B1 / 2.0
    AB1 = 0.0
    for c in range(t1, t2):
        for r in range(t1):
            AB1 += _dist(X, r, c, alpha)
    a_term = 2.0 * A / ((t1 - 1) * t1)
    B[t2] = B1
    AB[t2] = AB1
    # the first row (t1 = ms): each right end t2 adds its new sample's distances
    t2 = 2 * ms + 1
    sb = np.zeros(4)
    sab = np.zeros(4)
    while t2 <= m:
        k = min(4, m + 1 - t2)
        if k == 4:
            sb[0], sb[1], sb[2], sb[3] = _sums4(X, t2 - 1, t1, t2 - 1, alpha, flat, True)
            sab[0], sab[1], sab[2], sab[3] = _sums4(X, t2 - 1, 0, t1, alpha, flat, False)
        else:
            for j in range(k):
                sb[j] = _sum1(X, t2 - 1 + j, t1, t2 - 1 + j, alpha, flat)
                sab[j] = _sum1(X, t2 - 1 + j, 0, t1, alpha, flat)
        for j in range(k):
            B[t2 + j] = B[t2 + j - 1] + sb[j]
            AB[t2 + j] = AB[t2 + j - 1] + sab[j]
        t2 += k
    if decide:
        for t2 in range(2 * ms, m + 1):
            if _stat(t1, t2, a_term, B[t2], AB[t2], trunc) >= stop:
                return -2, stop
    else:
        for t2 in range(2 * ms, m + 1):
            best, best_t = _visit(t1, t2, a_term, B[t2], AB[t2], trunc, best, best_t)
    # the other rows, four at a time: row t1 moves sample t1 - 1 from the right to the left
    t1 = ms + 1
    adds = np.zeros(4)
    while t1 + ms <= m:
        k = min(4, m - ms - t1 + 1)
        p = t1 - 1
        if k == 4:
            adds[0], adds[1], adds[2], adds[3] = _sums4(X, p, 0, p, alpha, flat, True)
        else:
            for j in range(k):
                adds[j] = _sum1(X, p + j, 0, p + j, alpha, flat)
        _prefix(X, p, k, m, alpha, flat, P)
        for j in range(k):
            r = t1 + j
            A += adds[j]
            a_term = 2.0 * A / ((r - 1) * r)
            best, best_t, hit = _row(r, r + ms, m, a_term, adds[j], P[j], B, AB, trunc, decide,
                                     stop, rinv, q, fk, best, best_t)
            if hit:
                return -2, stop
        t1 += k
    return best_t, best


@njit(nogil=True, cache=True)
def _tables(m):  # pragma: no cover (compiled)
    """``rinv[k] = 1 / k``, ``q[k] = 2 / ((k - 1) k)`` and ``fk[k] = k`` for k <= m (see
    :func:`_row`)."""
    rinv = np.empty(m + 1)
    q = np.empty(m + 1)
    fk = np.empty(m + 1)
    rinv[0] = np.inf
    q[0] = np.inf
    fk[0] = 0.0
    for k in range(1, m + 1):
        rinv[k] = 1.0 / k
        q[k] = np.inf if k == 1 else 2.0 / ((k - 1) * k)
        fk[k] = float(k)
    return rinv, q, fk


def flat_ok(X: np.ndarray, alpha: float) -> bool:
    """Whether the distances of ``X`` may be taken as ``|x_a - x_b|`` (one column, alpha = 1):
    ``sqrt(d * d) == |d|`` holds in binary floating point when ``d * d`` neither overflows nor
    underflows, so every nonzero difference must lie within ``[2^-500, 2^500]``. The smallest
    nonzero difference is between neighbours in sorted order, the largest is max - min."""
    if X.ndim != 2 or X.shape[1] != 1 or alpha != 1.0 or X.shape[0] < 2:
        return False
    x = np.sort(X[:, 0])
    if not np.all(np.isfinite(x)):
        return False
    gaps = np.diff(x)
    gaps = gaps[gaps != 0.0]
    return bool(x[-1] - x[0] < 2.0**500 and (gaps.size == 0 or gaps.min() > 2.0**-500))


@njit(nogil=True, cache=True)
def split_segment(X, start, end, min_size, alpha, trunc, flat):  # pragma: no cover (compiled)
    """``(location, statistic)`` for rows ``start..end - 1``: the 0-based first sample of the right
    cluster, or -1 when the segment is too short. ``flat``: :func:`flat_ok` of ``X``."""
    m = end - start
    B = np.zeros(m + 1)
    AB = np.zeros(m + 1)
    rinv, q, fk = _tables(m)
    P = np.zeros((4, m + 1))
    t, v = _scan(X[start:end], m, min_size, alpha, trunc, B, AB, False, np.inf, rinv, q, fk, flat,
                 P)
    if t < 0:
        return -1, v
    return start + t, v


@njit(nogil=True, cache=True)
def perm_test(X, bounds, min_size, alpha, trunc, obs, R, st, rejection, flat,
              stop_at):  # pragma: no cover (compiled)
    """``(over, done)``: the number of permutations whose best split statistic reaches ``obs``, of
    the ``done`` drawn: all R, unless ``over`` reaches ``stop_at`` first (the test's answer is then
    fixed; pass ``stop_at > R`` for R's full count). ``bounds``: sorted cluster boundaries
    ``[0, ..., n]``; ``st``: R's generator state, advanced in place; ``flat``: :func:`flat_ok` of
    ``X``."""
    n = X.shape[0]
    Xp = np.empty_like(X)
    pool = np.empty(n, dtype=np.int64)
    draw = np.empty(n, dtype=np.int64)
    B = np.zeros(n + 1)
    AB = np.zeros(n + 1)
    rinv, q, fk = _tables(n)
    P = np.zeros((4, n + 1))
    K = bounds.size - 1
    over = 0
    done = 0
    while done < R and over < stop_at:
        done += 1
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            sample_into(st, m, m, rejection, pool, draw)
            for i in range(m):
                for j in range(X.shape[1]):
                    Xp[a + i, j] = X[a + draw[i], j]
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            t, v = _scan(Xp[a:a + m], m, min_size, alpha, trunc, B, AB, True, obs, rinv, q, fk,
                         flat, P)
            if t == -2:
                over += 1
                break
    return over, done


# --- kappa = end: the right part always runs to the segment's end (kappa_search="end") ---
#
# For a segment of m samples in their current order, let ``dl[t]`` be the sum of the distances
# from sample t to the samples before it and ``dr[t]`` to the samples after it. With the left part
# ``[0, tau)`` and the right part ``[tau, m)``: the within-left sum (pairs) is ``WL = sum_{t<tau}
# dl[t]``, the within-right sum ``WR = sum_{t>=tau} dr[t]``, and the between sum follows from
# ``SL = sum_{t<tau} (dl[t] + dr[t]) = 2 WL + AB`` (or ``SR = 2 WR + AB``): every statistic of the
# segment comes from two running sums of nonnegative terms. ``dl`` and ``dr`` cost O(m^2) distances
# in general (:func:`_direct_sums`); for one column and alpha = 1, ``|x_t - x_i|`` summed over the
# samples before t is ``x_t c_lt - s_lt + s_gt - x_t c_gt`` (counts and sums of the smaller and the
# larger ones), read from a Fenwick tree over the ranks in O(log m) (:func:`_fenwick_pass`), so a
# whole search, and each permutation, is O(m log m).


@njit(nogil=True, cache=True)
def _fenwick_pass(x, rank, ps, m, dl, dr, cnt, sm):  # pragma: no cover (compiled)
    """``dl[t]``, ``dr[t]``: the sums of ``|x_t - x_i|`` over the samples i before and after t, in
    one pass of O(m log m). A Fenwick tree over ``rank`` (a permutation of 0..m-1 that sorts
    ``x``; equal values may take any order among themselves) holds the count and the sum of the
    values before t that rank below t; the samples after t that rank below t are the rest of the
    ``rank[t]`` smallest, whose sum ``ps[rank[t]]`` (``ps``: prefix sums of the sorted values, the
    same for every permutation of the segment) minus the tree's. ``x`` is centred (the segment's
    median subtracted) so that the sums of values stay small beside the distances. ``cnt``, ``sm``:
    scratch of length >= m + 1."""
    for i in range(m + 1):
        cnt[i] = 0
        sm[i] = 0.0
    tot = 0.0
    top = ps[m]
    for t in range(m):
        r = rank[t]
        s = x[t]
        c_lt = 0
        s_lt = 0.0
        i = r
        while i > 0:
            c_lt += cnt[i]
            s_lt += sm[i]
            i -= i & (-i)
        c_gt = t - c_lt
        s_gt = tot - s_lt
        dl[t] = (s * c_lt - s_lt) + (s_gt - s * c_gt)
        a_lt = r - c_lt
        a_gt = (m - 1 - r) - c_gt
        dr[t] = (s * a_lt - (ps[r] - s_lt)) + ((top - ps[r + 1] - s_gt) - s * a_gt)
        i = r + 1
        while i <= m:
            cnt[i] += 1
            sm[i] += s
            i += i & (-i)
        tot += s


@njit(nogil=True, cache=True)
def _direct_sums(X, m, alpha, dl, dr):  # pragma: no cover (compiled)
    """``dl``, ``dr`` of rows ``0..m-1`` of ``X`` from every distance (R's ``dist(X)^alpha``):
    O(m^2), for several columns or alpha != 1."""
    for t in range(m):
        dr[t] = 0.0
    for t in range(m):
        s = 0.0
        for i in range(t):
            v = _dist(X, t, i, alpha)
            s += v
            dr[i] += v
        dl[t] = s


@njit(nogil=True, cache=True)
def _end_best(dl, dr, m, min_size, trunc, WR, SR, stop):  # pragma: no cover (compiled)
    """``(tau, statistic)`` of the best split with kappa = m (the first best; ``-1, -inf`` when
    m < 2 min_size), from :func:`_direct_sums`' or :func:`_fenwick_pass`'s ``dl``, ``dr``.
    ``stop`` < inf: ``(-2, stop)`` as soon as a statistic reaches it. The statistic is R's
    (``_stat`` with t1 = tau, t2 = m); the between sum is taken from the smaller part's side
    (``SL - 2 WL`` while the left part is the smaller, else ``SR - 2 WR``), where the subtraction
    loses at most about one bit. ``WR``, ``SR``: scratch of length >= m + 1."""
    if m < 2 * min_size:
        return -1, -np.inf
    WR[m] = 0.0
    SR[m] = 0.0
    for t in range(m - 1, -1, -1):
        WR[t] = WR[t + 1] + dr[t]
        SR[t] = SR[t + 1] + (dl[t] + dr[t])
    WL = 0.0
    SL = 0.0
    best = -np.inf
    best_t = -1
    for t in range(m - min_size):
        WL += dl[t]
        SL += dl[t] + dr[t]
        a = t + 1
        if a < min_size:
            continue
        b = m - a
        if a <= b:
            ab = SL - 2.0 * WL
        else:
            ab = SR[a] - 2.0 * WR[a]
        v = _stat(a, m, 2.0 * WL / ((a - 1) * a), WR[a], ab, trunc)
        if v >= stop:
            return -2, stop
        if v > best:
            best = v
            best_t = a
    return best_t, best


@njit(nogil=True, cache=True)
def end_prepare(X, bounds, fast):  # pragma: no cover (compiled)
    """Per segment ``c`` = rows ``[a, b) = [bounds[c], bounds[c + 1])``, for the Fenwick search
    (``fast``: one column, alpha = 1): ``xc[a:b]`` = the values minus the segment's median,
    ``rk[a:b]`` = each sample's rank within its segment (stable order), ``ps[a + c : b + c + 1]``
    = the prefix sums of the segment's sorted ``xc`` (none of them changes when the segment is
    permuted, except ``xc`` and ``rk``, which move with the rows). Empty arrays when not
    ``fast``."""
    n = X.shape[0]
    if not fast:
        return np.empty(0), np.empty(0, dtype=np.int64), np.empty(0)
    K = bounds.size - 1
    xc = np.empty(n)
    rk = np.empty(n, dtype=np.int64)
    ps = np.empty(n + K)
    for c in range(K):
        a = bounds[c]
        b = bounds[c + 1]
        seg = X[a:b, 0].copy()
        order = np.argsort(seg, kind="mergesort")
        med = seg[order[(b - a) // 2]]
        acc = 0.0
        ps[a + c] = 0.0
        for k in range(b - a):
            rk[a + order[k]] = k
            xc[a + k] = seg[k] - med
            acc += seg[order[k]] - med
            ps[a + c + k + 1] = acc
    return xc, rk, ps


@njit(nogil=True, cache=True)
def _end_scan(X, xc, rk, ps, c, a, m, min_size, alpha, trunc, fast, stop, dl, dr, WR, SR, cnt,
              sm):  # pragma: no cover (compiled)
    """The kappa = end search of segment ``c``, rows ``a .. a + m - 1`` (``xc``, ``rk``, ``ps``:
    :func:`end_prepare`, ``xc`` and ``rk`` in the rows' current order)."""
    if m < 2 * min_size:
        return -1, -np.inf
    if fast:
        _fenwick_pass(xc[a:a + m], rk[a:a + m], ps[a + c:a + c + m + 1], m, dl, dr, cnt, sm)
    else:
        _direct_sums(X[a:a + m], m, alpha, dl, dr)
    return _end_best(dl, dr, m, min_size, trunc, WR, SR, stop)


@njit(nogil=True, cache=True)
def split_segment_end(X, start, end, min_size, alpha, trunc, fast):  # pragma: no cover (compiled)
    """``(location, statistic)`` of the best split of rows ``start..end - 1`` with kappa = the
    segment's end (0-based first sample of the right part; -1 when too short). ``fast``: one
    column, alpha = 1 and finite values (the O(m log m) Fenwick search), else O(m^2)."""
    m = end - start
    bounds = np.array([start, end], dtype=np.int64)
    xc, rk, ps = end_prepare(X, bounds, fast)
    dl = np.empty(m)
    dr = np.empty(m)
    WR = np.empty(m + 1)
    SR = np.empty(m + 1)
    cnt = np.empty(m + 1, dtype=np.int64)
    sm = np.empty(m + 1)
    t, v = _end_scan(X, xc, rk, ps, 0, start, m, min_size, alpha, trunc, fast, np.inf, dl, dr, WR,
                     SR, cnt, sm)
    if t < 0:
        return -1, v
    return start + t, v


@njit(nogil=True, cache=True)
def perm_test_end(X, xc, rk, ps, bounds, min_size, alpha, trunc, obs, R, st, rejection, fast,
                  stop_at):  # pragma: no cover (compiled)
    """:func:`perm_test` for the kappa = end search: ``(over, done)`` of ``R`` permutations
    drawn from R's stream ``st`` (each cluster permuted with R's ``sample()``, all before the
    search, as in :func:`perm_test`); ``xc``, ``rk``, ``ps``: :func:`end_prepare` of ``X`` (``xc``
    and ``rk`` are permuted along with the rows)."""
    n = X.shape[0]
    fast = fast and xc.size == n
    Xp = np.empty_like(X)
    xp = np.empty(n)
    rp = np.empty(n, dtype=np.int64)
    pool = np.empty(n, dtype=np.int64)
    draw = np.empty(n, dtype=np.int64)
    dl = np.empty(n)
    dr = np.empty(n)
    WR = np.empty(n + 1)
    SR = np.empty(n + 1)
    cnt = np.empty(n + 1, dtype=np.int64)
    sm = np.empty(n + 1)
    K = bounds.size - 1
    over = 0
    done = 0
    while done < R and over < stop_at:
        done += 1
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            sample_into(st, m, m, rejection, pool, draw)
            if fast:
                for i in range(m):
                    xp[a + i] = xc[a + draw[i]]
                    rp[a + i] = rk[a + draw[i]]
            else:
                for i in range(m):
                    for j in range(X.shape[1]):
                        Xp[a + i, j] = X[a + draw[i], j]
        for c in range(K):
            a = bounds[c]
            m = bounds[c + 1] - a
            t, v = _end_scan(Xp, xp, rp, ps, c, a, m, min_size, alpha, trunc, fast, obs, dl, dr, WR,
                             SR, cnt, sm)
            if t == -2:
                over += 1
                break
    return over, done
