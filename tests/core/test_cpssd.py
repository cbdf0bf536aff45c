"""CP-SSD pipeline: outlier filter (§2), bootstrap classification (§8), threshold (§9), edge cases
(§10) and the registered detector."""
from __future__ import annotations

import math

import numpy as np
import pytest

import segview
from segview.core.detectors import _pelt_r, _cpssd_bootstrap as boot
from segview.core.detectors import cpssd


def _naive_outliers(y: np.ndarray, skip: int, window: int = 200) -> np.ndarray:
    """Spec §2 steps 2-4 literally: every complete window from skip, strict bounds."""
    flagged = np.zeros(y.size, dtype=bool)
    for j in range(skip, y.size - window + 1):
        w = y[j:j + window]
        med = np.median(w)
        p1, p99 = np.quantile(w, 0.01), np.quantile(w, 0.99)
        hi, lo = med + 3 * (p99 - p1), med - 3 * (p99 - p1)
        flagged[j:j + window] |= (w > hi) | (w < lo)
    return flagged


@pytest.mark.parametrize("mean, skip", [(0.1, 289), (0.5, 289), (0.05, 183), (1e-6, 18)])
def test_warmup_skip_formula(mean, skip):
    # skip = ceil(200 / ln(1 + ceil(0.1 / mean))); mean >= 0.1 s gives noops = 1 and skip 289 (§2)
    y = np.full(1000, mean)
    assert cpssd.warmup_skip(y) == skip
    assert skip == math.ceil(200 / math.log(1 + math.ceil(0.1 / mean)))


def test_warmup_skip_undefined_for_non_positive_mean():
    assert cpssd.warmup_skip(np.array([-1.0, -2.0])) is None


def test_outlier_filter_equals_the_window_by_window_rule():
    rng = np.random.default_rng(8)
    y = rng.lognormal(-14, 0.05, 1500)
    y[[50, 300, 520, 900, 1210, 1450]] *= [3.0, 1.6, 4.0, 2.0, 3.5, 1.7]
    y[700] *= 0.2
    for skip in (0, 18, 289, 1299, 1301, 1500):
        assert np.array_equal(cpssd.outlier_mask(y, skip), _naive_outliers(y, skip)), skip
    assert cpssd.outlier_mask(y, 18).sum() >= 4


@pytest.mark.parametrize("window", [200, 201, 5, 4])
def test_sliding_window_bands_equal_numpys_median_and_quantile(window):
    # the sorted sliding window must give numpy's median/quantile bit for bit, ties included
    rng = np.random.default_rng(window)
    for y in (rng.normal(size=700), rng.integers(0, 4, 650).astype(float),
              np.round(rng.lognormal(0.0, 1.0, 600), 2), 3.0 + 1e-9 * rng.normal(size=500)):
        hi, lo = cpssd.outlier_bands(y, window)
        hi_ref, lo_ref = cpssd._outlier_bands_numpy(y, window)
        assert hi.tobytes() == hi_ref.tobytes() and lo.tobytes() == lo_ref.tobytes()


def test_outlier_filter_short_series_flags_nothing():
    y = np.r_[np.ones(250), 100.0]
    assert not cpssd.outlier_mask(y, 289).any()      # N - skip < 200: no complete window


# --- bootstrap (§8, §12) --------------------------------------------------------------------------

def test_bootstrap_is_deterministic_and_seed_dependent():
    rng = np.random.default_rng(1)
    last, seg = rng.normal(1.0, 0.2, 700), rng.normal(1.02, 0.3, 400)
    a = boot.ratio_ci(last, seg, seed=5, test_number=0, resamples=2000)
    b = boot.ratio_ci(last, seg, seed=5, test_number=0, resamples=2000)
    c = boot.ratio_ci(last, seg, seed=6, test_number=0, resamples=2000)
    d = boot.ratio_ci(last, seg, seed=5, test_number=1, resamples=2000)
    assert a == b
    assert a != c and a != d
    assert a[0] < 1.0 / 1.02 < a[1]


def test_bootstrap_does_not_depend_on_chunk_size(monkeypatch):
    rng = np.random.default_rng(2)
    last, seg = rng.normal(1.0, 0.2, 900), rng.normal(1.1, 0.2, 300)
    ref = boot.ratio_ci(last, seg, seed=9, test_number=3, resamples=3000)
    monkeypatch.setattr(boot, "CHUNK_ENTRIES", 5000)
    assert boot.ratio_ci(last, seg, seed=9, test_number=3, resamples=3000) == ref


def test_bootstrap_uses_the_documented_streams():
    rng_l, rng_g = boot.streams_for_test(42, 0)
    ss = np.random.SeedSequence(42, spawn_key=(0,))
    exp_l = np.random.Generator(np.random.PCG64(ss.spawn(2)[0]))
    assert np.array_equal(rng_l.integers(0, 10, 20), exp_l.integers(0, 10, 20))


@pytest.mark.parametrize("m", [1, 2, 3, 7, 8, 9, 16, 127, 128, 129, 136, 255, 257, 1000, 2999, 4097])
def test_fused_bootstrap_equals_numpy_bit_for_bit(m):
    # the numba kernel must give numpy's own draws and sums: the oracle is numpy itself
    seg = np.random.default_rng(m).lognormal(0.0, 1.0, m)
    for rows in (1, 3, 37):
        rng_a = np.random.Generator(np.random.PCG64(1000 + m))
        rng_b = np.random.Generator(np.random.PCG64(1000 + m))
        ref = boot.resampled_means_numpy(seg, rng_a, rows)
        got = boot._resampled_means(seg, rng_b, rows, segview.RunContext())
        assert np.array_equal(ref, got)
        # both generators end in the same state (odd draw counts leave a buffered half word)
        assert rng_a.bit_generator.state == rng_b.bit_generator.state
        assert rng_a.integers(0, 1000, 5).tolist() == rng_b.integers(0, 1000, 5).tolist()


@pytest.mark.slow
def test_fused_bootstrap_kernel_reloads_from_numbas_cache():
    # a second process loads the cached kernel (a recursive kernel crashed exactly there)
    import subprocess
    import sys
    code = ("import numpy as np\n"
            "from segview.core.detectors import _cpssd_bootstrap as b\n"
            "seg = np.linspace(1.0, 2.0, 300)\n"
            "r = np.random.Generator(np.random.PCG64(4))\n"
            "print(b._resampled_means(seg, r, 5, b.NULL_CONTEXT).tolist())\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    ref = boot.resampled_means_numpy(np.linspace(1.0, 2.0, 300),
                                     np.random.Generator(np.random.PCG64(4)), 5)
    assert runs[0].stdout == runs[1].stdout == f"{ref.tolist()}\n"


def test_fused_bootstrap_ci_equals_the_numpy_path():
    rng = np.random.default_rng(3)
    last, seg = rng.normal(1.0, 0.2, 701), rng.normal(1.02, 0.3, 333)
    assert boot.ratio_ci(last, seg, 7, 2, 1500) == boot.ratio_ci(last, seg, 7, 2, 1500,
                                                                  reference=True)


@pytest.mark.parametrize("lo, hi, expected", [(0.90, 0.95, True), (0.90, 0.9500001, False),
                                              (1.05, 1.2, True), (1.0499999, 1.2, False),
                                              (0.96, 1.04, False)])
def test_effect_size_bounds_are_inclusive(lo, hi, expected):
    assert boot.is_different(lo, hi, 0.05) is expected


def test_backward_walk_stops_at_the_last_differing_segment():
    y = np.r_[np.full(100, 2.0), np.full(100, 1.0), np.full(100, 1.0)]
    s, tests = boot.classify_backward(y, np.array([99, 199]), seed=1, resamples=500)
    assert s == 99
    assert [(t.start, t.stop, t.different) for t in tests] == [(100, 200, False), (0, 100, True)]
    assert tests[1].hi == pytest.approx(0.5)        # constant segments: ratio exactly 1/2
    assert boot.classify_backward(y, np.array([], dtype=np.int64), seed=1) == (0, [])
    same = np.ones(300)
    assert boot.classify_backward(same, np.array([99, 199]), seed=1, resamples=300)[0] == 0


# --- threshold (§9) and conventions ---------------------------------------------------------------

@pytest.mark.parametrize("rule, n, s, steady", [
    ("absolute", 3000, 2499, True), ("absolute", 3000, 2500, False),
    ("absolute", 1000, 499, True), ("absolute", 1000, 500, False), ("absolute", 500, 0, False),
    ("proportional", 3000, 2499, True), ("proportional", 3000, 2500, False),
    ("proportional", 1500, 1249, True), ("proportional", 1500, 1250, False)])
def test_threshold_rule(rule, n, s, steady):
    p = cpssd.SPEC.coerce({"threshold_rule": rule})
    assert cpssd._is_steady(s, n, p) is steady


def _step_series(seed=3, n=1200):
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(2e-3, 2e-5, 300), rng.normal(1e-3, 1e-5, n - 300)]


def test_detector_on_a_warmup_step():
    y = _step_series()
    res = segview.detect(y, "cpssd", bootstrap_resamples=1000)
    assert res.steady_start is not None and abs(res.steady_start - 299) <= 3
    assert any(abs(int(c) - 300) <= 3 for c in res.change_points)
    pelt = res.stats["pelt_cpts"]
    assert pelt[-1] == res.stats["pelt_cpts"].max()
    assert np.array_equal(res.change_points, np.asarray(pelt[:-1]) + 1)
    assert res.stats["deciding_ci"][1] <= 0.95 or res.stats["deciding_ci"][0] >= 1.05
    first = segview.detect(y, "cpssd", bootstrap_resamples=1000, onset_convention="first_steady")
    assert first.steady_start == res.steady_start + 1
    assert res.track("filtered series").y.size + res.stats["n_outliers"] == y.size


def test_threads_change_nothing_but_the_wall_time():
    # table columns, CROPS penalties and the two streams of a test in threads: identical results
    y = np.concatenate([_step_series(), np.random.default_rng(3).lognormal(-2.2, 0.2, 300)])
    one = segview.detect(y, "cpssd", bootstrap_resamples=700)
    two = segview.detect(y, "cpssd", bootstrap_resamples=700, threads=2)
    assert np.array_equal(one.change_points, two.change_points)
    assert one.steady_start == two.steady_start
    assert repr({k: v for k, v in one.stats.items()}) == repr(two.stats)
    assert len(one.stats["tests"]) >= 1 and one.stats["crops_runs"] > 2
    s1, s2 = _pelt_r.prefix_sums_r(y)
    assert _pelt_r.segment_costs(s1, s2, threads=3).tobytes() == \
        _pelt_r.segment_costs(s1, s2).tobytes()


def test_never_steady_when_the_change_is_in_the_last_500():
    rng = np.random.default_rng(4)
    y = np.r_[rng.normal(2e-3, 2e-5, 2700), rng.normal(1e-3, 1e-5, 300)]
    res = segview.detect(y, "cpssd", bootstrap_resamples=1000)
    assert res.steady_start is None
    assert res.stats["last_differing_index"] > 2499


@pytest.mark.parametrize("n", [1, 3, 4, 10, 250])
def test_short_series_run(n):
    y = np.linspace(1e-3, 2e-3, n)
    res = segview.detect(y, "cpssd", bootstrap_resamples=200)
    assert res.steady_start is None                  # N <= 500: nothing can be steady


def test_constant_guard_is_opt_in():
    y = np.full(800, 1e-3)
    off = segview.detect(y, "cpssd", bootstrap_resamples=200)
    on = segview.detect(y, "cpssd", bootstrap_resamples=200, constant_guard=True)
    assert on.change_points.size == 0 and on.steady_start == 0
    assert any("constant_guard" in note for note in on.notes)
    assert not any("constant_guard" in note for note in off.notes)


def test_registration():
    spec = segview.core.registry.get("cpssd")
    assert spec.produces == "onset" and spec.slow
    d = spec.defaults()
    assert (d["bootstrap_resamples"], d["effect_size"], d["alpha"], d["min_steady_tail"]) == \
        (10000, 0.05, 0.05, 500)
    assert (d["penalty_min_factor"], d["penalty_max_factor"], d["fallback_penalty_factor"]) == \
        (4, 100000, 15)
    assert d["threshold_rule"] == "absolute" and d["constant_guard"] is False
    assert d["onset_convention"] == "published" and d["seed"] == boot.DEFAULT_SEED
    with pytest.raises(segview.core.errors.ParameterError):
        segview.detect(np.ones(10), "cpssd", penalty_min_factor=10, penalty_max_factor=5)


def test_cancellation_between_crops_runs():
    from segview.core.context import RunContext
    from segview.core.errors import Cancelled
    ctx = RunContext()
    ctx.cancel()
    with pytest.raises(Cancelled):
        segview.detect(_step_series(), "cpssd", ctx=ctx)
