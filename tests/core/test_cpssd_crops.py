"""CROPS as changepoint 2.2.2 runs it (spec cpssd.md §5) and kneed 0.7.0's knee rules (§6)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from segview.core.detectors._crops import (CropsLimitError, all_equal, crops_r,
                                           sealab_penalties_ncpts)
from segview.core.detectors._knee import choose_penalty, knee_kneed070
from segview.core.detectors._pelt_r import normal_meanvar_cost, prefix_sums_r


def _segmentations(n: int, m: int = 2):
    """All segmentations of 0..n with segments of at least m points, as R cpts lists (incl. n)."""
    for k in range(0, n // m):
        for inner in itertools.combinations(range(m, n - m + 1), k):
            bounds = (0,) + inner + (n,)
            if all(b - a >= m for a, b in zip(bounds[:-1], bounds[1:])):
                yield list(bounds[1:])


def _brute_force(x):
    s1, s2 = prefix_sums_r(x)
    table = []
    for cpts in _segmentations(x.size):
        bounds = [0] + cpts
        q = sum(normal_meanvar_cost(s1, s2, a, b) for a, b in zip(bounds[:-1], bounds[1:]))
        table.append((cpts, q))
    return table


def test_crops_with_an_exact_optimiser_recovers_the_lower_hull():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.normal(0, 1, 4), rng.normal(6, 1, 4), rng.normal(2, 3, 4)])
    table = _brute_force(x)

    def exact(beta):  # penalised optimum; ties -> fewer segments
        cpts, q = min(table, key=lambda r: (r[1] + (len(r[0]) - 1) * beta, len(r[0])))
        return np.asarray(cpts), q

    bmin, bmax = 0.5, 500.0
    res = crops_r(exact, bmin, bmax)
    # independent expectation: best cost per segment count, then the penalties where the optimum changes
    best = {}
    for cpts, q in table:
        best[len(cpts)] = min(best.get(len(cpts), math.inf), q)
    grid = np.linspace(bmin, bmax, 200001)
    opt_counts = [min(best, key=lambda c: (best[c] + (c - 1) * b, c)) for b in grid[::50]]
    expected_counts = sorted(set(opt_counts), reverse=True)
    assert res.nsegments.tolist() == expected_counts
    assert res.ncpts.tolist() == [c - 1 for c in expected_counts]
    assert res.pen_value_full[0] == bmin
    for k in range(1, len(expected_counts)):
        a, b = expected_counts[k - 1], expected_counts[k]
        assert res.pen_value_full[k] == pytest.approx((best[b] - best[a]) / (a - b), rel=1e-12)
    assert res.runs <= len(expected_counts) + 2 + len(expected_counts)  # few runs when exact


def _scripted(results):
    calls = []

    def pelt(beta):
        calls.append(beta)
        for key, (c, q) in results.items():
            if abs(key - beta) < 1e-9:
                return np.arange(1, c + 1), q
        raise AssertionError(f"unexpected penalty {beta}")
    return pelt, calls


def test_crops_quirks_unpaired_sorting_all_equal_drop_and_prune():
    # hand-worked from spec §5.2: a non-exact optimiser, same count with a lower cost at beta = 10
    pelt, calls = _scripted({1.0: (5, 10.0), 100.0: (1, 50.0), 10.0: (5, 5.0)})
    res = crops_r(pelt, 1.0, 100.0)
    # round 1: (50-10)/(5-1) = 10. round 2: counts [5,5,1], costs [5,10,50] sorted independently;
    # (50-10)/4 = 10 all.equals the tested 10 -> stop. prune j=1 (5 == 5): counts [5,1], costs [5,50]
    assert calls == [1.0, 100.0, 10.0]
    assert res.runs == 3
    assert res.penalties.tolist() == [1.0, 100.0]
    assert res.nsegments.tolist() == [5, 1]
    assert res.costs.tolist() == [5.0, 50.0]
    assert res.pen_value_full.tolist() == [1.0, (5.0 - 50.0) / (1 - 5)]
    pens, ncpts = sealab_penalties_ncpts(res)
    assert ncpts.tolist() == [4, 0]


def test_crops_collapsed_cpts_full_gets_sealabs_trailing_zero():
    pelt, _ = _scripted({1.0: (2, 10.0), 100.0: (1, 50.0)})
    res = crops_r(pelt, 1.0, 100.0)
    assert res.ncpts.tolist() == [1]               # one row of cpts.full (R drops the dimension)
    pens, ncpts = sealab_penalties_ncpts(res)
    assert pens.tolist() == [1.0, 40.0] and ncpts.tolist() == [1, 0]


def test_crops_safety_cap():
    pelt, _ = _scripted({1.0: (5, 10.0), 100.0: (1, 50.0), 10.0: (5, 5.0)})   # needs 3 runs
    with pytest.raises(CropsLimitError):
        crops_r(pelt, 1.0, 100.0, max_runs=2)
    pelt, _ = _scripted({1.0: (5, 10.0), 100.0: (1, 50.0), 10.0: (5, 5.0)})
    assert crops_r(pelt, 1.0, 100.0, max_runs=3).runs == 3


def test_all_equal_matches_r_tolerance():
    tol = math.sqrt(2.0 ** -52)
    assert all_equal(100.0, 100.0 * (1 + 0.9 * tol))
    assert not all_equal(100.0, 100.0 * (1 + 1.1 * tol))
    assert all_equal(1e-9, 1e-9 + 1e-8)            # absolute below the tolerance
    assert not all_equal(0.0, 2 * tol)


# --- knee (kneed 0.7.0 rules, spec §6) -------------------------------------------------------------

def test_knee_hand_worked_example():
    # xn = [1,.75,.5,.25,0]; yn flipped = [1,1,1,.8,0]; d = [0,.25,.5,.55,0]; one maximum at 3 with
    # threshold .55 - .25 = .30; d[4] = 0 < .30 -> knee x[3]
    assert knee_kneed070([4, 3, 2, 1, 0], [0, 0, 0, 1, 5]) == 1.0


def test_knee_first_maximum_at_x_one_stops_without_knee():
    # xn = [1,.5,0], yn flipped = [1,0,0], d = [0,-.5,0]: index 0 is a maximum (clipped neighbour)
    # and xn[0] = 1 because x is descending -> the scan stops at once, no knee
    assert knee_kneed070([2, 1, 0], [0, 2, 2]) is None


def test_knee_scan_past_the_end_raises_index_error():
    # d = [-1, -2/3, -1/3, 1]: the only maximum is the last point; kneed 0.7.0 reads d[4]
    with pytest.raises(IndexError):
        knee_kneed070([3, 2, 1, 0], [3, 3, 3, 0])


def test_choose_penalty_outcomes():
    n = 2900
    pen, how = choose_penalty([0, 1, 2, 3], [3, 0, 0, 0][::-1], n)
    assert how == "index_error" and pen == 15 * math.log(n)
    pen, how = choose_penalty([0, 1, 2], [2, 2, 0], n)
    assert how == "no_knee" and pen == 15 * math.log(n)
    pen, how = choose_penalty([0, 1, 2, 3, 4], [5, 1, 0, 0, 0], n)
    assert (pen, how) == (1.0, "knee")
    pen, how = choose_penalty([-1, 0, 1, 2, 3], [5, 1, 0, 0, 0], n)   # knee at 0.0 is falsy
    assert how == "falsy_knee" and pen == 15 * math.log(n)
    pen, how = choose_penalty([4 * math.log(n)], [0], n)
    assert (pen, how) == (4 * math.log(n), "single_penalty")
    pen, how = choose_penalty([0, 1, 2, 3, 4], [5, 1, 0, 0, 0], n, fallback_factor=20)
    assert pen == 1.0


def test_knee_convex_curve_and_kneed_library_option():
    # reversed: x = [64..1], y = [1,2,3,5,12,30,60]; d = [0,.491,.728,.821,.766,.492,0]; maximum
    # at 3 with threshold .821 - 1/6 = .654; d[5] = .492 < .654 -> knee x[3] = 8. The installed
    # kneed agrees on such a plain curve (the releases differ only in scan corner cases).
    pens = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
    ncpts = [60, 30, 12, 5, 3, 2, 1]
    assert choose_penalty(pens, ncpts, 3000) == (8.0, "knee")
    assert choose_penalty(pens, ncpts, 3000, method="kneed_library") == (8.0, "knee")
