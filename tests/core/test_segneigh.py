"""segneigh: the exact segment-neighbourhood DP, checked against brute force on small series."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import segview
from segview.core.detectors.segneigh import r_text_round_trip, segment_neighbourhood
from segview.core.errors import InputError, ParameterError


def _rss(y):
    return float(((y - y.mean()) ** 2).sum())


def _brute(y, q):
    """Smallest RSS with exactly q segments and its change points, by enumeration."""
    n = y.size
    best = (math.inf, None)
    for cps in itertools.combinations(range(1, n), q - 1):
        b = [0, *cps, n]
        c = sum(_rss(y[a:e]) for a, e in zip(b[:-1], b[1:]))
        if c < best[0] - 1e-12:
            best = (c, list(cps))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_costs_and_change_points_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    y = np.repeat(rng.normal(0, 3, 4), 3) + rng.normal(0, 1, 12)
    costs, cps = segment_neighbourhood(y, 5)
    for q in range(1, 6):
        cost, where = _brute(y, q)
        assert costs[q - 1] == pytest.approx(cost, rel=1e-9, abs=1e-9)
        assert cps[q - 1] == where


def test_bic_chooses_the_number_of_segments():
    y = np.r_[np.zeros(10), 5 * np.ones(10), np.zeros(10)] + 0.1 * np.cos(np.arange(30))
    res = segview.detect(y, "segneigh", scale="none")
    assert list(res.change_points) == [10, 20]
    assert res.stats["penalty"] == pytest.approx(2 * math.log(30))
    crit = res.stats["criterion"]
    assert int(np.argmin(crit)) == 2 and crit.size == 5
    # a huge penalty: one segment
    assert segview.detect(y, "segneigh", scale="none", penalty=1e5).change_points.size == 0


def test_criterion_track_is_over_the_number_of_segments():
    # one point per number of segments q = 1..Q (docs/algorithms/segneigh.md), not per sample: the
    # track says so, and marks the q chosen (here 3 segments, the two changes at 10 and 20)
    y = np.r_[np.zeros(10), 5 * np.ones(10), np.zeros(10)] + 0.1 * np.cos(np.arange(30))
    track = segview.detect(y, "segneigh", scale="none").track("criterion")
    assert list(track.xs()) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert track.x_label == "segments" and not track.over_samples
    assert track.mark_x == 3.0


def test_r_rules_mbic_refused_and_q_limited():
    with pytest.raises(ParameterError):
        segview.detect(np.arange(20.0), "segneigh", penalty="mbic")
    with pytest.raises(InputError):
        segview.detect(np.arange(6.0), "segneigh", max_segments=5)  # 5 > 6/2 + 1


def test_text_round_trip_keeps_15_significant_digits():
    x = np.array([1 / 3, -2 / 3, 1e-7 / 3, 123456.789012345678, 0.0])
    r = r_text_round_trip(x)
    assert r[0] == 0.333333333333333 and r[1] == -0.666666666666667
    assert r[2] == 3.33333333333333e-08 and r[3] == 123456.789012346 and r[4] == 0.0
