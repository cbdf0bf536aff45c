"""ecp's default search since version 2, ``kappa_search=end`` (docs/algorithms/ecp.md): the right
part of every split runs to its segment's end, as in MongoDB's signal-processing-algorithms and
Apache Otava.

The reference is the statistic written from its definition in plain Python (every distance, the
means of the three blocks of the distance matrix), never segview's sums. Tolerance: the kernels
sum in another order (and the Fenwick search from sums of values), so their statistic may differ
from the reference in the last bits; ``REL`` (1e-11 of the largest |statistic| of the segment) is
far above that and far below the gaps between candidates of continuous data, and the chosen split
must be the same. On integer data every sum is exact, so the Fenwick and the O(m^2) kernels agree
bit for bit.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import segview
from segview.core import registry
from segview.core.context import RunContext
from segview.core.detectors import _ecp_kernels as ek
from segview.core.detectors import ecp as E
from segview.core.detectors.kcpa import as_matrix
from segview.core.errors import Cancelled, SegviewError

REL = 1e-11


def _end_reference(X, min_size, trunc, alpha=1.0):
    """Every split ``tau`` of the rows of ``X`` (kappa = the end): ``(best tau, statistic)`` and
    all the statistics, straight from the definition (Matteson & James's U-statistic, R's factor)."""
    X = np.asarray(X, dtype=float).reshape(len(X), -1)
    m = len(X)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)) ** alpha
    stats = {}
    for a in range(min_size, m - min_size + 1):
        b = m - a
        e = (2 * D[:a, a:].mean() - D[a:, a:].sum() / (b * (b - 1))
             - D[:a, :a].sum() / (a * (a - 1)))
        stats[a] = e * ((a * b) // m if trunc else a * b / m)
    best = max(stats, key=lambda t: (stats[t], -t))  # the first best
    return best, stats[best], stats


def _series(seed, m, offset=0.0, scale=1.0):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(m // 4, 3 * m // 4))
    x = np.concatenate([rng.normal(0, 1, k), rng.normal(rng.normal(), rng.uniform(0.5, 2), m - k)])
    return offset + scale * x


@pytest.mark.parametrize("trunc", [True, False])
@pytest.mark.parametrize("seed,offset,scale", [(1, 0.0, 1.0), (2, 1e6, 1.0), (3, -50.0, 1e-3),
                                               (4, 0.0, 1e4), (5, 7.0, 1.0)])
def test_fenwick_and_quadratic_searches_are_the_definition(seed, offset, scale, trunc):
    x = _series(seed, 97, offset, scale)
    arg, best, stats = _end_reference(x, 6, trunc)
    tol = REL * max(abs(v) for v in stats.values())
    for fast in (True, False):
        loc, v = ek.split_segment_end(x[:, None], 0, x.size, 6, 1.0, trunc, fast)
        assert loc == arg, fast
        assert abs(v - best) <= tol, (fast, v, best)


def test_integer_data_fenwick_equals_quadratic_bit_for_bit():
    # ties everywhere; every partial sum is an integer, so no rounding in either path
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.integers(0, 5, 60), rng.integers(2, 9, 50)]).astype(float)
    for trunc in (True, False):
        fast = ek.split_segment_end(x[:, None], 0, x.size, 5, 1.0, trunc, True)
        slow = ek.split_segment_end(x[:, None], 0, x.size, 5, 1.0, trunc, False)
        assert fast == slow
        arg, best, stats = _end_reference(x, 5, trunc)
        assert fast[1] == pytest.approx(best, rel=1e-13)
        assert stats[fast[0]] == pytest.approx(best, rel=1e-13)  # a best split (ties allowed)


@pytest.mark.parametrize("alpha,d", [(1.5, 1), (1.0, 3), (2.0, 2)])
def test_multivariate_and_other_alpha_take_the_quadratic_sums(alpha, d):
    rng = np.random.default_rng(9)
    X = np.vstack([rng.normal(0, 1, (45, d)), rng.normal(0.8, 1.5, (40, d))])
    arg, best, stats = _end_reference(X, 7, False, alpha)
    loc, v = ek.split_segment_end(X, 0, len(X), 7, alpha, False, False)
    assert loc == arg
    assert abs(v - best) <= REL * max(abs(s) for s in stats.values())


def test_compiled_kernels_equal_their_plain_python():
    # numba without fastmath keeps the order of every operation: same bits as plain Python
    x = _series(11, 120, 2.0, 3.0)
    m = x.size
    bounds = np.array([0, m], dtype=np.int64)
    xc, rk, ps = ek.end_prepare(x[:, None], bounds, True)
    pxc, prk, pps = ek.end_prepare.py_func(x[:, None], bounds, True)
    assert np.array_equal(xc, pxc) and np.array_equal(rk, prk) and np.array_equal(ps, pps)
    out = []
    for fn in (ek._fenwick_pass, ek._fenwick_pass.py_func):
        dl, dr = np.empty(m), np.empty(m)
        fn(xc, rk, ps, m, dl, dr, np.empty(m + 1, dtype=np.int64), np.empty(m + 1))
        out.append((dl, dr))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])
    dl, dr = out[0]
    for trunc in (True, False):
        a = ek._end_best(dl, dr, m, 8, trunc, np.empty(m + 1), np.empty(m + 1), np.inf)
        b = ek._end_best.py_func(dl, dr, m, 8, trunc, np.empty(m + 1), np.empty(m + 1), np.inf)
        assert a == b
    qa, qb = (np.empty(m), np.empty(m)), (np.empty(m), np.empty(m))
    ek._direct_sums(x[:, None], m, 1.0, *qa)
    ek._direct_sums.py_func(x[:, None], m, 1.0, *qb)
    assert np.array_equal(qa[0], qb[0]) and np.array_equal(qa[1], qb[1])


def _perm_reference(X, bounds, min_size, trunc, obs, R, seed):
    """The permutation test in plain Python: R's sample() per segment (all drawn first), the
    definition's best statistic of every segment, counted when one reaches ``obs``."""
    st = E._rr.seed_state(seed)
    over = 0
    for _ in range(R):
        perm = np.empty(len(X), dtype=int)
        for a, b in zip(bounds[:-1], bounds[1:]):
            perm[a:b] = a + E._rr.sample(st, b - a)
        Xp = X[perm]
        for a, b in zip(bounds[:-1], bounds[1:]):
            if b - a >= 2 * min_size and _end_reference(Xp[a:b], min_size, trunc)[1] >= obs:
                over += 1
                break
    return over


@pytest.mark.parametrize("fast", [True, False])
def test_permutation_count_is_the_definition_with_rs_stream(fast):
    rng = np.random.default_rng(21)
    x = np.concatenate([rng.normal(0, 1, 60), rng.normal(0.5, 1, 50), rng.normal(0, 2, 40)])
    X = x[:, None]
    bounds = np.array([0, 60, 150], dtype=np.int64)
    _, obs = ek.split_segment_end(X, 0, 60, 8, 1.0, False, fast)
    obs *= 2.0  # a threshold some permutations reach and others do not
    want = _perm_reference(X, bounds, 8, False, obs, 40, 5)
    assert 0 < want < 40
    xc, rk, ps = ek.end_prepare(X, bounds, fast)
    st = E._rr.seed_state(5)
    assert ek.perm_test_end(X, xc, rk, ps, bounds, 8, 1.0, False, obs, 40, st, True, fast,
                            41) == (want, 40)
    # in blocks (what e_divisive does between ctx checks): the same count, the same stream
    st1, st2 = E._rr.seed_state(5), E._rr.seed_state(5)
    one = ek.perm_test_end(X, xc, rk, ps, bounds, 8, 1.0, False, obs, 40, st1, True, fast, 41)
    over = done = 0
    while done < 40:
        o, d = ek.perm_test_end(X, xc, rk, ps, bounds, 8, 1.0, False, obs, min(7, 40 - done),
                                st2, True, fast, 41)
        over, done = over + o, done + d
    assert (over, done) == one and np.array_equal(st1, st2)


def test_the_default_searches_to_the_end_and_the_presets_keep_r():
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.normal(0, 1, 120), rng.normal(3, 1, 120), rng.normal(0, 1, 120)])
    res = segview.detect(y, "ecp", permutations=49, seed=3)
    assert res.params["kappa_search"] == "end"
    assert list(res.change_points) == [120, 240]
    assert any(n.startswith("kappa_search=end") for n in res.notes)
    for preset in ("tcpdbench", "faithful"):
        old = segview.detect(y, "ecp", preset=preset, permutations=49, seed=3)
        assert old.params["kappa_search"] == "all"
        assert not any(n.startswith("kappa_search") for n in old.notes)
    assert registry.get("ecp").version == "2"


def test_faithful_is_version_1s_default_bit_for_bit():
    rng = np.random.default_rng(11)
    y = np.concatenate([rng.normal(0, 1, 150), rng.normal(1.5, 1, 150)])
    res = segview.detect(y, "ecp", preset="faithful")
    X = as_matrix(y, "zscore")
    v1 = E.e_divisive(X, 0.05, 199, 30, 1.0, 4, "rejection", True, None, True)  # version 1's call
    assert list(res.change_points) == v1["cps"]
    assert res.stats["p_values"] == v1["p_values"]
    assert res.stats["statistics"] == v1["statistics"]


def test_bad_input_is_refused_with_a_clear_error():
    y = np.random.default_rng(1).normal(size=100)
    with pytest.raises(SegviewError, match="kappa_search"):
        segview.detect(y, "ecp", kappa_search="middle")
    with pytest.raises(SegviewError, match="kappa_search"):
        E.e_divisive(y[:, None], kappa_search="middle")
    bad = y.copy()
    bad[10] = np.nan
    with pytest.raises(SegviewError):
        segview.detect(bad, "ecp")
    bad[10] = np.inf
    with pytest.raises(SegviewError):
        segview.detect(bad, "ecp", scale="none")
    # shorter than two minimum segments: nothing to split, no error
    assert list(segview.detect(y[:50], "ecp").change_points) == []
    assert list(segview.detect(np.full(200, 3.0), "ecp").change_points) == []


class _CancelAfter:
    """A cancel flag that reads as set from its ``k``-th look on (counts every look)."""

    def __init__(self, k):
        self.k, self.looks, self._ev = k, 0, threading.Event()

    def is_set(self):
        self.looks += 1
        return self.looks >= self.k or self._ev.is_set()

    def set(self):
        self._ev.set()

    def clear(self):
        self._ev.clear()

    def wait(self, timeout=None):
        return self._ev.wait(timeout)


def test_cancellation_is_seen_between_blocks_of_permutations():
    y = np.random.default_rng(3).normal(size=3000)
    X = y[:, None]
    never = _CancelAfter(10**9)
    out = E.e_divisive(X, R=199, seed=1, ctx=RunContext(never), kappa_search="end")
    tests = len(out["p_values"])
    # a look per test before its permutations and one per block of them: more looks than tests
    assert never.looks > 2 * tests
    flag = _CancelAfter(3)  # the third look is inside the first test's permutations
    with pytest.raises(Cancelled):
        E.e_divisive(X, R=199, seed=1, ctx=RunContext(flag), kappa_search="end")
    assert flag.looks == 3


def test_min_size_share_caps_the_change_points_below_two_percent_of_n():
    """Version 2's default smallest segment is n / 60 (docs/defaults.md): a 3,000-sample series of
    alternating 30-sample bursts, which min_size 30 alone cuts at (nearly) every burst, gets at most
    59 change points, each segment at least 50 samples long; the note says why."""
    rng = np.random.default_rng(11)
    n = 3000
    level = np.where((np.arange(n) // 30) % 2 == 0, 0.0, 6.0)
    y = level + rng.normal(0.0, 1.0, n)
    only30 = segview.detect(y, "ecp", min_size_share=0.0)
    res = segview.detect(y, "ecp")
    assert only30.change_points.size > 59          # the flood the share prevents
    assert res.change_points.size <= 59
    edges = np.concatenate([[0], res.change_points, [n]])
    assert np.diff(edges).min() >= 50
    assert any("min_size_share" in note for note in res.notes)
    # short series: the share is below min_size, nothing changes and no note
    short = segview.detect(y[:1200], "ecp")
    assert short.change_points.tolist() == segview.detect(
        y[:1200], "ecp", min_size_share=0.0).change_points.tolist()
    assert not any("min_size_share" in note for note in short.notes)


def test_presets_keep_min_size_alone():
    spec = registry.get("ecp")
    for preset in spec.presets:
        assert preset.values["min_size_share"] == 0.0
