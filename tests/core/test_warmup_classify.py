"""Barrett et al.'s per-execution classes on hand-built segmentations.

Rules (warmup_stats 41212e0, bin/mark_changepoints_in_json): band around the last segment
[min(mu - v, mu - delta), max(mu + v, mu + delta)], v its ML variance, delta 0.001; walking back, a
segment with [mean - v, mean + v] meeting the band is equivalent; else it ends after n - int(0.25 n)
-> no steady state; else below the band -> slowdown (stop); else warmup (walk on).
Segments built from constant values have variance 0, so only delta matters unless said otherwise.
"""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.errors import InputError, ParameterError
from segview.core.result import DetectionResult
from segview.core.warmup import (FLAT, NO_STEADY_STATE, SLOWDOWN, WARMUP, barrett, classify,
                                 classify_result)


def steps(*pieces):
    """Concatenate (value, length) pieces; returns values and segview change points."""
    vals = np.concatenate([np.full(k, v, dtype=float) for v, k in pieces])
    cps = np.cumsum([k for _, k in pieces])[:-1]
    return vals, cps


def test_flat_without_change_points():
    x, cps = steps((0.01, 40))
    ec = classify(x, cps)
    assert ec.classification == FLAT and ec.steady_iteration == 0 and ec.time_to_steady == 0.0


def test_flat_when_the_segments_differ_by_less_than_delta():
    # 0.0105 vs last 0.0100: band [0.009, 0.011] contains 0.0105 -> equivalent -> flat
    x, cps = steps((0.0105, 10), (0.01, 30))
    ec = classify(x, cps)
    assert ec.classification == FLAT
    assert ec.first_steady_segment == 0 and ec.steady_iteration == 0
    assert ec.steady_mean == pytest.approx((0.0105 + 0.01) / 2)   # mean of segment means


def test_warmup():
    # 0.05 for 10, then 0.01 for 30: band [0.009, 0.011]; 0.05 is above; it ends at 9, not after
    # n - int(0.25 n) = 30 -> warmup. Steady iteration = last change point (9) + 1 = 10; time to
    # steady state = 10 * 0.05 = 0.5 s.
    x, cps = steps((0.05, 10), (0.01, 30))
    ec = classify(x, cps)
    assert ec.classification == WARMUP
    assert ec.steady_iteration == 10 and ec.time_to_steady == pytest.approx(0.5)
    assert ec.steady_mean == 0.01 and ec.steady_indices.tolist() == list(range(10, 40))


def test_slowdown():
    # 0.005 before 0.01: below the band [0.009, 0.011] -> slowdown (it was faster before)
    x, cps = steps((0.005, 10), (0.01, 30))
    assert classify(x, cps).classification == SLOWDOWN


def test_no_steady_state():
    # 0.05 for 35 then 0.01 for 5: the first segment ends at 34 > 40 - 10 = 30 -> no steady state
    x, cps = steps((0.05, 35), (0.01, 5))
    ec = classify(x, cps)
    assert ec.classification == NO_STEADY_STATE
    assert ec.steady_iteration is None and ec.steady_mean is None and ec.time_to_steady is None
    # ending exactly at n - steady (30: 31 iterations then 9) is still in time -> warmup
    x, cps = steps((0.05, 31), (0.01, 9))
    assert classify(x, cps).classification == WARMUP


def test_the_walk_goes_on_after_a_warmup_segment():
    # [0.005, 0.05, 0.01]: segment 1 is a warm-up (walk on), segment 0 below the band -> slowdown
    x, cps = steps((0.005, 10), (0.05, 10), (0.01, 40))
    assert classify(x, cps).classification == SLOWDOWN
    # [0.0102, 0.05, 0.01]: segment 0 equivalent -> warmup; the steady segments are only the last
    # one (summary_statistics stops at the first non-equivalent segment): steady iteration 20
    x, cps = steps((0.0102, 10), (0.05, 10), (0.01, 40))
    ec = classify(x, cps)
    assert ec.classification == WARMUP and ec.steady_iteration == 20 and ec.first_steady_segment == 2
    # [0.05, 0.0102, 0.01]: segment 1 equivalent, so the steady state starts at 10 and its mean
    # is the mean of the two segment means
    x, cps = steps((0.05, 10), (0.0102, 10), (0.01, 40))
    ec = classify(x, cps)
    assert ec.steady_iteration == 10 and ec.steady_mean == pytest.approx(0.0101)


def test_segment_variance_widens_the_band_and_sd_is_an_option():
    # Last segment mean 1.5 (constant: v = 0, band [1.499, 1.501]). Segment 0 alternates 1.4/2.6:
    # mean 2.0, ML variance 0.36, sd 0.6. Variance: 2.0 - 0.36 = 1.64 > 1.501 -> not equivalent
    # -> warmup. sd: 2.0 - 0.6 = 1.4 <= 1.501 -> equivalent -> flat.
    x = np.r_[np.tile([1.4, 2.6], 5), np.full(30, 1.5)]
    assert classify(x, [10]).classification == WARMUP
    ec = classify(x, [10], spread="sd")
    assert ec.classification == FLAT and "standard deviation" in ec.notes[0]
    # and a large last-segment variance swallows the earlier segment: last alternates 0/3 (mean
    # 1.5, v 2.25): band [-0.75, 3.75] holds 2.0 +- 0.36 -> flat
    y = np.r_[np.tile([1.4, 2.6], 5), np.tile([0.0, 3.0], 15)]
    assert classify(y, [10]).classification == FLAT


def test_delta_is_a_parameter_absolute_or_percent():
    # 0.0105 vs 0.0100 differ by 0.0005: flat with delta 0.001, warmup with delta 0.0001
    x, cps = steps((0.0105, 10), (0.01, 30))
    assert classify(x, cps, delta=0.0001).classification == WARMUP
    # percent of the fastest segment mean: 10 % of 0.01 = 0.001 -> flat; 1 % = 0.0001 -> warmup
    assert classify(x, cps, delta=10, delta_mode="percent").classification == FLAT
    assert classify(x, cps, delta=1, delta_mode="percent").delta == pytest.approx(0.0001)


def test_throughput_flips_warmup_and_slowdown():
    # ops/s rising from 50 to 100: for "higher is better" that is a warm-up; for times a slowdown
    x, cps = steps((50.0, 10), (100.0, 30))
    assert classify(x, cps, direction="higher").classification == WARMUP
    assert classify(x, cps, direction="lower").classification == SLOWDOWN
    x, cps = steps((150.0, 10), (100.0, 30))
    assert classify(x, cps, direction="higher").classification == SLOWDOWN
    assert classify(x, cps, direction="lower").classification == WARMUP
    # percent delta: the fastest segment is the largest one for throughput (10 % of 150 = 15)
    assert classify(x, cps, direction="higher", delta=10,
                    delta_mode="percent").delta == pytest.approx(15.0)


def test_steady_iterations_override_the_ratio():
    # with -s 5 (last 5 iterations) the 0.05 segment ending at 34 is in time: 34 > 40 - 5? no
    x, cps = steps((0.05, 35), (0.01, 5))
    assert classify(x, cps, steady_iterations=5).classification == WARMUP


def test_outliers_are_left_out_of_segment_estimates():
    # a spike of 9.0 in the last segment would make its variance huge (and everything flat);
    # declared an outlier it is ignored -> warmup
    x, cps = steps((0.05, 10), (0.01, 30))
    x[25] = 9.0
    assert classify(x, cps).classification == FLAT
    assert classify(x, cps, outliers=[25]).classification == WARMUP


def test_given_estimates_are_used_and_checked():
    x, cps = steps((0.05, 10), (0.01, 30))
    assert classify(x, cps, means=[0.0101, 0.01]).classification == FLAT
    with pytest.raises(InputError, match="2 segments"):
        classify(x, cps, means=[0.01])


def test_bad_arguments_are_named():
    x, cps = steps((0.05, 10), (0.01, 30))
    with pytest.raises(InputError, match="change points"):
        classify(x, [0])
    with pytest.raises(ParameterError, match="direction"):
        classify(x, cps, direction="up")
    with pytest.raises(ParameterError, match="spread"):
        classify(x, cps, spread="iqr")


def test_classes_from_other_detectors_results():
    x, cps = steps((0.05, 10), (0.01, 30))
    kb = DetectionResult("kbkssd", {}, np.array([10]), 12, stats={"outlier_indices": np.array([])})
    assert classify_result(x, kb).classification == WARMUP
    # an onset detector that found no steady state wins over the segments (noted), unless asked
    never = DetectionResult("cpssd", {}, np.array([10]), None)
    ec = classify_result(x, never)
    assert ec.classification == NO_STEADY_STATE and "never steady" in ec.notes[-1]
    assert classify_result(x, never, respect_verdict=False).classification == WARMUP
    # a change-point detector has no verdict: the segments decide
    assert classify_result(x, DetectionResult("pelt", {}, np.array([10]))).classification == WARMUP
    # outliers reported by the detector (an outlier mask track) are left out
    from segview.core.result import Track
    y = x.copy()
    y[25] = 9.0
    mask = np.zeros(40)
    mask[25] = 1
    res = DetectionResult("cpssd", {}, np.array([10]), 9, (Track("outlier mask", mask),))
    assert classify_result(y, res).classification == WARMUP


def test_classify_result_reads_the_series_direction():
    from segview.core.benchmark import execution
    x, _ = steps((50.0, 10), (100.0, 30))
    s = execution(x, benchmark="b", index=0, harness="t", unit="ops/s")
    assert classify_result(s, DetectionResult("pelt", {}, np.array([10]))).classification == WARMUP


def test_barrett_pipeline_on_a_clean_warmup():
    # 0.05 s for 20 iterations then 0.01 s for 180, alternating +-1e-4: PELT's change point is the
    # step (its cost drop is ~ 2 * 200 * ln(0.02 / 1e-4) >> 15 ln 200). No outliers: a window of
    # the flat part has p10 = 0.0099, p90 = 0.0101, median 0.01, band +-0.0006 around it; a window
    # across the step has p90 - p10 >= 0.0398, so its band holds both levels.
    x = np.r_[np.full(20, 0.05), np.full(180, 0.01)] + 1e-4 * (-1.0) ** np.arange(200)
    ec = barrett(x)
    assert ec.classification == WARMUP
    assert ec.segmentation.change_points.tolist() == [20] and ec.steady_iteration == 20
    assert ec.segmentation.outliers.tolist() == []
    assert ec.time_to_steady == pytest.approx(np.sum(x[:20]))
