"""Kernels of :mod:`.wbs`: R's Mersenne-Twister uniforms, the CUSUM scan and the WBS recursion.

Every kernel is a numba function (``nogil``, cached) whose plain Python twin (``.py_func``) gives the
same numbers bit for bit; ``compiled=False`` selects the twin (slow, the tests' reference). What each
one reproduces of R 4.x and R ``wbs`` 1.4.1 (arithmetic in the same order, no fused multiply-add):

* :func:`r_uniforms` -- ``set.seed(seed); runif(k)`` with R's default generator: the seed is
  scrambled by 50 steps of the congruential map ``s -> 69069 s + 1 (mod 2^32)``, the next 625
  values fill the generator's seed vector (the first is overwritten by 624, "state used up"), then
  MT19937 (Matsumoto & Nishimura 1998) with its tempering; an output ``y`` becomes ``y * 2^-32``
  (R's constant ``2.3283064365386963e-10``), pushed off 0 and 1 as R's ``fixup`` does.
* :func:`cusum_scan` -- the package's O(m) CUSUM of a segment: the standardised difference of the
  left and right means at every split, carried by two running products rather than prefix sums, so
  that the maximiser and its value are R's to the last bit; ties of ``|CUSUM|`` resolve as the
  package does (the middle one of the tied splits, counted from the second split on).
* :func:`heap_order` -- the permutation of R's ``revsort`` (heapsort into decreasing order; not
  stable, so equal statistics come out in heapsort's order, which decides which of two tied
  intervals the recursion meets first).
* :func:`wbs_tree` -- integrated WBS: in every segment the larger of the plain binary-segmentation
  CUSUM and the best random interval lying inside the segment, recursively down to single points;
  a segment containing no random interval continues as binary segmentation.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._jit import njit, plain

_MASK32 = 0xFFFFFFFF
_MT_N = 624
_MT_M = 397


@njit(nogil=True, cache=True)
def _uniforms(seed, count, out):  # pragma: no cover (compiled)
    s = seed & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    mt = np.empty(624, dtype=np.int64)
    s = (69069 * s + 1) & 0xFFFFFFFF  # the seed vector's first slot: the position, reset to 624
    for j in range(624):
        s = (69069 * s + 1) & 0xFFFFFFFF
        mt[j] = s
    pos = 624
    for k in range(count):
        if pos >= 624:
            for i in range(624):
                y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7FFFFFFF)
                v = mt[(i + 397) % 624] ^ (y >> 1)
                if y & 1:
                    v ^= 0x9908B0DF
                mt[i] = v
            pos = 0
        y = mt[pos]
        pos += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        u = float(y) * 2.3283064365386963e-10
        if u <= 0.0:
            u = 0.5 * 2.328306437080797e-10
        elif 1.0 - u <= 0.0:
            u = 1.0 - 0.5 * 2.328306437080797e-10
        out[k] = u


def r_uniforms(seed: int, count: int, compiled: bool = True) -> NDArray[np.float64]:
    """``set.seed(seed); runif(count)`` of R's default Mersenne-Twister, bit for bit."""
    out = np.empty(int(count))
    (_uniforms if compiled else _uniforms.py_func)(int(seed), int(count), out)
    return out


def random_intervals(n: int, count: int, seed: int, compiled: bool = True
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """R wbs ``random.intervals(n, count)`` after ``set.seed(seed)``: 1-based ``(starts, ends)``.

    A start is ``ceiling(u (n - 1))`` for the first ``count`` uniforms, its end the start plus
    ``ceiling(u (n - start))`` for the next ``count``: every interval has at least two points.
    """
    u = r_uniforms(seed, 2 * count, compiled)
    starts = np.ceil(u[:count] * float(n - 1))
    ends = starts + np.ceil(u[count:] * (float(n) - starts))
    return starts.astype(np.int64), ends.astype(np.int64)


@njit(nogil=True, cache=True)
def _cusum(x, a, m, out):  # pragma: no cover (compiled)
    """CUSUM of ``x[a:a+m]`` at the ``m - 1`` splits into ``out[:m-1]``; returns the split index
    (0-based, the left part's last point) and its signed value."""
    tail = 0.0
    for i in range(1, m):
        tail += x[a + i]
    md = float(m)
    inv_m = 1.0 / md
    m2 = md * md
    left = math.sqrt(1.0 - inv_m) * x[a]
    right = 1.0 / math.sqrt(m2 - md) * tail
    out[0] = left - right
    for i in range(1, m - 1):
        fi = float(i)
        inv = 1.0 / (fi + 1.0)
        f = math.sqrt((md - fi - 1.0) * fi * inv / (md - fi))
        left = left * f + x[a + i] * math.sqrt(inv - inv_m)
        right = right / f - x[a + i] / math.sqrt(m2 * inv - md)
        out[i] = left - right
    best = -1.0
    arg = 0
    ties = 0
    for i in range(m - 1):
        t = abs(out[i])
        if t > best:
            best = t
            arg = i
            ties = 1
        elif t == best:
            ties += 1
    if ties > 1:  # the middle tie, counted from split 1 on (the package skips split 0 here)
        want = ties // 2 + ties % 2
        seen = 0
        i = 0
        while i < m - 1 and seen < want:
            i += 1
            if abs(out[i]) == best:
                seen += 1
        arg = i
    return arg, out[arg]


def cusum_scan(x: NDArray[np.float64], compiled: bool = True) -> tuple[NDArray[np.float64], int, float]:
    """``(cusum, argmax, value)`` of a whole segment ``x`` (length >= 2) as R wbs computes them;
    ``argmax`` is 0-based (split after ``x[argmax]``)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.zeros(max(x.size, 1))
    arg, val = (_cusum if compiled else _cusum.py_func)(x, 0, x.size, out)
    return out[:x.size - 1], int(arg), float(val)


@njit(nogil=True, cache=True)
def _heap_order(a, idx):  # pragma: no cover (compiled)
    """Heapsort ``a`` into decreasing order in place, carrying ``idx`` along (R's revsort)."""
    n = a.shape[0]
    if n <= 1:
        return
    # 1-based heap positions h map to a[h - 1]
    lo = n // 2 + 1
    hi = n
    while True:
        if lo > 1:
            lo -= 1
            key = a[lo - 1]
            kid = idx[lo - 1]
        else:
            key = a[hi - 1]
            kid = idx[hi - 1]
            a[hi - 1] = a[0]
            idx[hi - 1] = idx[0]
            hi -= 1
            if hi == 1:
                a[0] = key
                idx[0] = kid
                return
        i = lo
        j = 2 * lo
        while j <= hi:
            if j < hi and a[j - 1] > a[j]:
                j += 1
            if key > a[j - 1]:
                a[i - 1] = a[j - 1]
                idx[i - 1] = idx[j - 1]
                i = j
                j = 2 * j
            else:
                break
        a[i - 1] = key
        idx[i - 1] = kid


def heap_order(values: NDArray[np.float64], compiled: bool = True) -> NDArray[np.int64]:
    """0-based permutation putting ``values`` in decreasing order as R's ``revsort`` does."""
    a = np.array(values, dtype=np.float64)
    idx = np.arange(a.size, dtype=np.int64)
    (_heap_order if compiled else _heap_order.py_func)(a, idx)
    return idx


@njit(nogil=True, cache=True)
def _wbs_tree(x, starts, ends, res):  # pragma: no cover (compiled)
    """Integrated WBS on ``x`` with 1-based random intervals; fills ``res`` (n - 1, 6) by change
    point: start, end, change point (all 1-based), signed CUSUM, min.th, scale."""
    n = x.shape[0]
    M = starts.shape[0]
    buf = np.zeros(n)
    cand_cpt = np.zeros(M, dtype=np.int64)
    cand_val = np.zeros(M)
    cand_abs = np.zeros(M)
    for k in range(M):
        s = starts[k]
        arg, val = _cusum(x, s - 1, ends[k] - s + 1, buf)
        cand_cpt[k] = arg + s
        cand_val[k] = val
        cand_abs[k] = abs(val)
    order = np.arange(M, dtype=np.int64)
    _heap_order(cand_abs.copy(), order)
    # explicit stack of segments: s, e, scale, scan position, wild flag; min.th alongside
    st_i = np.zeros((2 * n + 2, 5), dtype=np.int64)
    st_f = np.zeros(2 * n + 2)
    top = 0
    st_i[0, 0] = 1
    st_i[0, 1] = n
    st_i[0, 2] = 1
    st_i[0, 3] = 0
    st_i[0, 4] = 1 if M > 0 else 0
    st_f[0] = -1.0
    top = 1
    while top > 0:
        top -= 1
        s = st_i[top, 0]
        e = st_i[top, 1]
        scale = st_i[top, 2]
        pos = st_i[top, 3]
        wild = st_i[top, 4]
        minth = st_f[top]
        if e - s + 1 < 2:
            continue
        if wild:
            while pos < M and not (starts[order[pos]] >= s and ends[order[pos]] <= e):
                pos += 1
            if pos == M:
                wild = 0
        arg, val = _cusum(x, s - 1, e - s + 1, buf)
        cpt = arg + s
        stat = abs(val)
        if wild:
            k = order[pos]
            if stat < cand_abs[k]:
                cpt = cand_cpt[k]
                val = cand_val[k]
                stat = cand_abs[k]
        if minth > stat or minth < 0.0:
            minth = stat
        r = cpt - 1
        res[r, 0] = s
        res[r, 1] = e
        res[r, 2] = cpt
        res[r, 3] = val
        res[r, 4] = minth
        res[r, 5] = scale
        for c in range(2):
            st_i[top, 0] = s if c == 0 else cpt + 1
            st_i[top, 1] = cpt if c == 0 else e
            st_i[top, 2] = scale + 1
            st_i[top, 3] = pos
            st_i[top, 4] = wild
            st_f[top] = minth
            top += 1


_wbs_tree_plain = plain(_wbs_tree, _cusum=_cusum.py_func, _heap_order=_heap_order.py_func)


def wbs_tree(x: NDArray[np.float64], starts: NDArray[np.int64], ends: NDArray[np.int64],
             compiled: bool = True) -> NDArray[np.float64]:
    """R wbs's ``res`` matrix (``n - 1`` rows by change point; columns s, e, cpt, CUSUM, min.th,
    scale) of integrated WBS on ``x`` with the given 1-based intervals."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    res = np.zeros((max(x.size - 1, 0), 6))
    fn = _wbs_tree if compiled else _wbs_tree_plain
    fn(x, np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(ends, dtype=np.int64),
       res)
    return res
