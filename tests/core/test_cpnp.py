"""cpnp: changepoint.np's PELT with the empirical-distribution cost."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import segview
from segview.core.detectors._cpnp_kernels import doubled_counts, log_tables, pelt_ed, segment_cost
from segview.core.detectors.cpnp import quantile_counts


def _cost(Q, a, b, n):
    K = Q.shape[0]
    m = b - a
    s = 0.0
    for k in range(K):
        F = (Q[k, b] - Q[k, a]) / m
        if 0 < F < 1:
            s += m * (F * math.log(F) + (1 - F) * math.log(1 - F))
    return -2 * math.log(2 * n - 1) * s / K


def test_quantile_counts_by_hand():
    y = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    Q = quantile_counts(y, 2)
    # n = 5: y_k = -1/2, 1/2; p_k = 1 / (1 + 9^(+-1/2)) = 1/4, 3/4; order statistics
    # j = int(4 p + 1) = 2 and 4 of sort(y) = [1, 2, 2, 3, 5]: quantiles 2 and 3
    assert list(Q[0]) == [0, 0, 1, 1.5, 2, 2]  # below 2, ties count 1/2
    assert list(Q[1]) == [0, 0.5, 1.5, 2.5, 3.5, 3.5]


@pytest.mark.parametrize("seed", range(5))
def test_pelt_equals_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    n = 10
    y = np.r_[rng.normal(0, 1, 5), rng.normal(3, 1, 5)]
    Q = quantile_counts(y, 4)
    pen = 3 * math.log(n)
    like, _ = pelt_ed(Q, pen, 1, -2.0 * math.log(2 * n - 1))
    best = math.inf
    for k in range(n):
        for cps in itertools.combinations(range(1, n), k):
            b = [0, *cps, n]
            best = min(best, sum(_cost(Q, a, e, n) for a, e in zip(b[:-1], b[1:])) + pen * k)
    assert like[n] == pytest.approx(best, rel=1e-12, abs=1e-12)  # F(n) = costs + pen * changes


@pytest.mark.parametrize("exact", [True, False])
def test_compiled_kernel_equals_plain_twin(exact):
    rng = np.random.default_rng(7)
    y = np.r_[rng.normal(0, 1, 80), rng.exponential(1, 80), rng.normal(2, 1, 40)]
    Q = quantile_counts(y, 10)
    a = pelt_ed(Q, 3 * math.log(200), 1, -2 * math.log(399), exact=exact)
    b = pelt_ed(Q, 3 * math.log(200), 1, -2 * math.log(399), exact=exact, compiled=False)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])  # bit for bit


def test_rank_invariance_and_table_rule():
    rng = np.random.default_rng(11)
    y = np.r_[rng.normal(0, 1, 150), rng.normal(0, 4, 150)]  # a change in scale only
    a = segview.detect(y, "cpnp", scale="none", rule="changepoint").change_points
    b = segview.detect(np.exp(y), "cpnp", scale="none", rule="changepoint").change_points
    c = segview.detect(y, "cpnp", scale="none").change_points
    assert list(a) == list(b) == list(c)
    assert any(140 <= cp <= 160 for cp in a)  # finds the variance change a mean cost misses


def _tie_heavy(seed: int) -> tuple[np.ndarray, int]:
    """Short integer series (many exactly tied costs) and a quantile count."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    kind = seed % 4
    if kind == 0:
        y = rng.integers(0, 2, n)
    elif kind == 1:
        y = np.tile(rng.integers(0, 3, int(rng.integers(2, 6))), n)[:n]
    elif kind == 2:
        y = np.repeat(rng.integers(0, 4, n // 5 + 1), 5)[:n]
    else:
        y = rng.normal(size=n).round(0)
    return y.astype(np.float64), int(rng.integers(1, 12))


@pytest.mark.parametrize("exact", [True, False])
def test_screening_changes_no_bit(exact):
    # tol=inf sends every candidate to the rule's own cost: the loop as it was before the
    # screening. On these series tol=0 (screening without the rounding bound) differs in about
    # one run in seven; the bound must give the same bits every time.
    for seed in range(200):
        y, K = _tie_heavy(seed)
        n = y.size
        rng = np.random.default_rng(1000 + seed)
        pen = float(rng.choice([0.0, 1.0, 3 * math.log(n), 15 * math.log(n), rng.uniform(0, 50)]))
        ms = int(rng.integers(1, 4))
        Q = quantile_counts(y, K)
        ref = pelt_ed(Q, pen, ms, -2 * math.log(2 * n - 1), exact, tol=math.inf)
        got = pelt_ed(Q, pen, ms, -2 * math.log(2 * n - 1), exact)
        assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1]), seed


@pytest.mark.parametrize("exact", [True, False])
def test_screened_kernel_equals_plain_twin_on_ties(exact):
    for seed in (1, 2, 7):  # kinds 1-3 with min_size 2-3 among them
        y, K = _tie_heavy(seed)
        n = y.size
        Q = quantile_counts(y, K)
        for ms in (1, 3):
            a = pelt_ed(Q, 2.0, ms, -2 * math.log(2 * n - 1), exact)
            b = pelt_ed(Q, 2.0, ms, -2 * math.log(2 * n - 1), exact, compiled=False)
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_segment_cost_is_the_package_formula():
    # rule changepoint: the package's F log F + (1 - F) log(1 - F) in its order, bit for bit
    rng = np.random.default_rng(3)
    y = np.r_[rng.normal(0, 1, 30), rng.integers(0, 3, 30)]
    n = y.size
    Q = quantile_counts(y, 7)
    QT = doubled_counts(Q)
    logtab, _ = log_tables(n)
    for a in range(0, n, 3):
        for b in range(a + 1, n + 1, 2):
            assert segment_cost(QT, a, b, -2 * math.log(2 * n - 1), True, logtab) == \
                _cost(Q, a, b, n)


def test_doubled_counts_refuses_other_than_halves():
    with pytest.raises(ValueError, match="multiples of 1/2"):
        doubled_counts(np.array([[0.0, 0.25, 1.0]]))
