"""CROPS penalty path (issue 28 point 3): every optimal segmentation over a penalty range.

The reference is written here from the definitions, independent of segview's solvers: the exact
best segmentation with K changes for every K (segment neighbourhood, a plain dynamic programme over
squared errors), and the penalties where each is optimal (K wins over K' for beta >= or <= the
crossing of the two lines Q_K + beta K).
"""
import math

import numpy as np
import pytest

import segview
from segview.core.errors import InputError, ParameterError
from segview.core.penalty_path import elbow_index, penalty_path


def series(seed: int, n: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    means = np.repeat(rng.normal(0, 3, 5), n // 5)
    return means + rng.normal(0, 1, n)


def segment_neighbourhood(y: np.ndarray) -> dict[int, tuple[float, list[int]]]:
    """K -> (least squared error with K changes, its change points), by brute-force DP."""
    n = y.size
    cost = np.full((n + 1, n + 1), np.inf)
    for a in range(n):
        for b in range(a + 1, n + 1):
            seg = y[a:b]
            cost[a, b] = float(((seg - seg.mean()) ** 2).sum())
    best = {0: (cost[0].copy(), [[] for _ in range(n + 1)])}
    out = {0: (cost[0, n], [])}
    for k in range(1, n):
        prev_q, prev_cps = best[k - 1]
        q = np.full(n + 1, np.inf)
        cps: list[list[int]] = [[] for _ in range(n + 1)]
        for b in range(k + 1, n + 1):
            cand = [prev_q[a] + cost[a, b] for a in range(k, b)]
            a = k + int(np.argmin(cand))
            q[b], cps[b] = cand[a - k], prev_cps[a] + [a]
        best[k] = (q, cps)
        out[k] = (q[n], cps[n])
    return out


def optimal_in_range(sn: dict[int, tuple[float, list[int]]], lo: float, hi: float
                     ) -> dict[int, tuple[float, list[int]]]:
    keep = {}
    for k, (q, cps) in sn.items():
        low = max([lo] + [(q - q2) / (k2 - k) for k2, (q2, _) in sn.items() if k2 > k])
        high = min([hi] + [(q2 - q) / (k - k2) for k2, (q2, _) in sn.items() if k2 < k])
        if low < high:
            keep[k] = (q, cps)
    return keep


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["op", "pelt"])
def test_path_is_every_optimal_segmentation_of_the_range(seed, method):
    y = series(seed)
    lo, hi = 0.5, 300.0
    expect = optimal_in_range(segment_neighbourhood(y), lo, hi)
    # the reference allows one-sample segments: pelt's and op's default minimum is 5 since version 3
    path = penalty_path(y, method, lo, hi, params={"scale": "none", "min_size": 1})
    assert list(path.n_changes) == sorted(expect, reverse=True)
    for k, q, cps in zip(path.n_changes, path.costs, path.segmentations):
        assert list(cps) == expect[int(k)][1]
        assert q == pytest.approx(expect[int(k)][0], rel=1e-9, abs=1e-9)
    assert path.penalty_low[0] == lo and path.penalty_high[-1] == hi
    assert np.all(path.penalty_high[:-1] == path.penalty_low[1:])
    assert path.runs <= 2 * len(path) + 1


@pytest.mark.parametrize("seed", range(3))
def test_a_sweep_of_penalties_finds_nothing_the_path_lacks(seed):
    y = series(seed)
    path = penalty_path(y, "pelt", 0.5, 300.0, params={"scale": "none", "min_size": 1})
    on_path = {tuple(c) for c in path.segmentations}
    swept = {tuple(segview.detect(y, "op", scale="none", penalty=float(b), min_size=1).change_points)
             for b in np.geomspace(0.5, 300.0, 300)}
    assert swept <= on_path


def test_penalty_for_reproduces_each_segmentation():
    y = series(7, 60)
    path = penalty_path(y, "pelt", 1.0, 200.0, params={"scale": "none"})
    assert len(path) >= 3
    for i in range(len(path)):
        got = segview.detect(y, "pelt", scale="none", penalty=path.penalty_for(i)).change_points
        assert list(got) == list(path.segmentations[i])
        assert path.index_of(path.penalty_for(i)) == i


def test_default_scale_path_matches_the_lane():
    """With the default (z-scored) values, penalties are in the units of the lane's penalty."""
    y = series(3, 80) * 1000.0 + 5e4
    path = penalty_path(y, "op")
    assert path.beta_min == pytest.approx(math.log(80)) and path.beta_max == 80.0
    i = len(path) // 2
    got = segview.detect(y, "op", penalty=path.penalty_for(i)).change_points
    assert list(got) == list(path.segmentations[i])


def test_elbow_of_a_clear_knee():
    # cost falls steeply to 3 changes, then flat: the elbow is at 3 changes
    k = np.array([8, 6, 5, 3, 2, 1, 0])
    q = np.array([10.0, 10.5, 11.0, 12.0, 60.0, 120.0, 200.0])
    assert k[elbow_index(k, q)] == 3
    assert elbow_index([1, 0], [1.0, 5.0]) is None


@pytest.mark.parametrize("kwargs,fragment", [
    ({"method": "binseg"}, "exact solver"),
    ({"beta_min": 5.0, "beta_max": 5.0}, "must be below"),
    ({"beta_min": -1.0, "beta_max": 5.0}, ">= 0"),
    ({"beta_min": 1.0, "beta_max": math.inf}, "finite"),
])
def test_bad_requests_are_named(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        penalty_path(series(0), **{"method": "pelt", **kwargs})


def test_non_finite_values_are_named():
    with pytest.raises(InputError):
        penalty_path([1.0, 2.0, math.nan, 3.0] * 5, "pelt", 1.0, 10.0)
