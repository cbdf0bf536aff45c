"""amoc: R changepoint 2.2.2's cpt.mean(method="AMOC"), checked by hand on small series."""
from __future__ import annotations

import math

import numpy as np
import pytest

import segview
from segview.core.detectors.amoc import amoc_statistics, chen_gupta_confidence
from segview.core.errors import SegviewError
from segview.core.result import DetectionResult


def _rss(y):
    return float(((y - y.mean()) ** 2).sum()) if y.size else 0.0


def test_statistics_are_residual_sums_of_squares():
    y = np.array([0.0, 1.0, 0.0, 5.0, 6.0, 5.0, 6.0])
    tau, null, alt, curve = amoc_statistics(y, 1, mbic=False)
    assert tau == 3  # the split before the 5
    assert null == pytest.approx(_rss(y))
    assert alt == pytest.approx(_rss(y[:3]) + _rss(y[3:]))
    assert curve.size == y.size and math.isnan(curve[-1])  # tau = n is R's 0/0, skipped
    _, _, alt_m, _ = amoc_statistics(y, 1, mbic=True)
    assert alt_m == pytest.approx(alt + math.log(3) + math.log(7 - 3 + 1))  # R's n - tau + 1


def test_penalty_decides_and_mbic_is_3_ln_n():
    y = np.r_[np.zeros(20), 3 * np.ones(20)] + 0.01 * np.sin(np.arange(40))
    res = segview.detect(y, "amoc", scale="none")
    assert list(res.change_points) == [20]
    assert res.stats["penalty"] == pytest.approx(3 * math.log(40))
    # a numeric penalty: no ln terms; a change when the RSS drop reaches it (R's >=)
    stat = segview.detect(y, "amoc", scale="none", penalty=0.0).stats["statistic"]
    assert stat == pytest.approx(_rss(y) - _rss(y[:20]) - _rss(y[20:]))
    assert segview.detect(y, "amoc", scale="none", penalty=stat).change_points.size == 1
    assert segview.detect(y, "amoc", scale="none", penalty=stat * 1.001).change_points.size == 0


def test_min_size_limits_the_split():
    y = np.r_[10.0, np.zeros(30)]
    assert list(segview.detect(y, "amoc", scale="none", penalty=0.0).change_points) == [1]
    res = segview.detect(y, "amoc", scale="none", penalty=0.0, min_size=3)
    assert res.change_points[0] >= 3


def test_strength_is_chen_gupta_confidence():
    y = np.r_[np.zeros(30), 3 * np.ones(30)] + np.random.default_rng(0).normal(0, 0.5, 60)
    res = segview.detect(y, "amoc")
    assert res.strengths is not None and res.strengths.size == res.change_points.size == 1
    assert 0.0 < res.strengths[0] <= 1.0
    assert res.strengths[0] == chen_gupta_confidence(60, res.stats["null"], res.stats["alt"])
    assert math.isnan(chen_gupta_confidence(15, 10.0, 1.0))  # ln ln ln 15 < 0: R gives NaN


def test_affine_invariant_and_refuses_tiny_input():
    rng = np.random.default_rng(3)
    y = np.r_[rng.normal(0, 1, 50), rng.normal(2, 1, 50)]
    a = segview.detect(y, "amoc").change_points
    b = segview.detect(3.5 * y - 7.0, "amoc").change_points
    assert list(a) == list(b)
    with pytest.raises(SegviewError):
        segview.detect(np.array([1.0]), "amoc")


def test_result_strengths_follow_sorted_change_points():
    r = DetectionResult("x", {}, np.array([30, 10, 20, 10]), strengths=[0.3, 0.1, 0.2, 0.9])
    assert list(r.change_points) == [10, 20, 30]
    assert list(r.strengths) == [0.1, 0.2, 0.3]  # the first of duplicates is kept
    with pytest.raises(ValueError):
        DetectionResult("x", {}, np.array([1, 2]), strengths=[0.5])


@pytest.mark.parametrize("call", ["amoc_short", "amoc_min_size", "cpnp_short", "cpnp_min_size"])
def test_too_short_input_to_the_public_functions_is_an_input_error(call):
    # found by mypy: these raised InputError with one argument, i.e. a TypeError instead of the
    # named error
    from segview.core.detectors.amoc import amoc_statistics
    from segview.core.detectors.cpnp import cpnp
    from segview.core.errors import InputError

    fn, y, kw = {"amoc_short": (amoc_statistics, np.ones(1), {}),
                 "amoc_min_size": (amoc_statistics, np.ones(5), {"min_size": 3}),
                 "cpnp_short": (cpnp, np.ones(1), {}),
                 "cpnp_min_size": (cpnp, np.ones(5), {"min_size": 3})}[call]
    with pytest.raises(InputError, match="observations"):
        fn(y, **kw)
