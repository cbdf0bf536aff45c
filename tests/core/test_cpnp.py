"""cpnp: changepoint.np's PELT with the empirical-distribution cost."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import segview
from segview.core.detectors._cpnp_kernels import pelt_ed
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
