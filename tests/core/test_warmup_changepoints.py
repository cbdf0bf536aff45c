"""warmup_stats' change-point step: R changepoint (e3959de = 2.2.2) golden answers, the R PELT
emulation against an exact optimal-partitioning DP, and the outlier index mapping.

cpt_golden.json was made by tests/data/warmup/make_cpt_golden.py + cpt_golden.R with R 4.2.2 and
changepoint built from rkillick/changepoint e3959de (the commit warmup_stats' build.sh installs);
no R is needed here.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from segview.core.detectors._jit import njit
from segview.core.detectors._pelt_r import (
    normal_meanvar_cost,
    pelt_r_meanvar,
    prefix_sums_r,
)
from segview.core.errors import InputError
from segview.core.warmup import exact_meanvar, meanvar_changepoints

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "warmup" /
                     "cpt_golden.json").read_text())
SERIES = GOLDEN["series"]


def test_golden_file_names_the_warmup_stats_changepoint_commit():
    assert GOLDEN["changepoint_commit"] == "e3959de1a25f75278c364c382b73dbf9c0002205"
    assert GOLDEN["r"].startswith("changepoint 2.2.2")
    assert len(SERIES) >= 30


@pytest.mark.parametrize("s", SERIES, ids=[s["name"] for s in SERIES])
def test_change_points_means_and_variances_equal_r(s):
    x = np.array(s["values"])
    seg = meanvar_changepoints(x, s["outliers"])
    kept = np.setdiff1d(np.arange(x.size), s["outliers"])
    r_ends = kept[np.array(s["cpts"]) - 1]          # R's 1-based ends on the reduced series
    assert seg.ends[:-1].tolist() == r_ends[:-1].tolist()
    np.testing.assert_array_equal(seg.means, s["means"])                 # R's mean, bit for bit
    np.testing.assert_allclose(seg.variances, s["variances"], rtol=1e-14)  # R's var * (m-1)/m
    assert seg.penalty == 15.0 * np.log(kept.size)


def test_r_itself_misses_the_optimum_where_the_emulation_does():
    # "pruning" series: found by searching seeded random series for a disagreement between the
    # emulation and the exact DP at warmup_stats' penalty; R gives the emulation's answer.
    pruned = [s for s in SERIES if s["name"].startswith("pruning")]
    assert len(pruned) == 2
    for s in pruned:
        x = np.array(s["values"])
        s1, s2 = prefix_sums_r(x)
        beta = 15.0 * np.log(x.size)
        r_cpts, r_q = pelt_r_meanvar(s1, s2, beta, 2)
        e_cpts, e_q = exact_meanvar(s1, s2, beta, 2)
        assert r_cpts.tolist() == s["cpts"]
        assert e_cpts.tolist() != s["cpts"]
        # penalised costs: the exact answer is strictly better
        assert e_q + (e_cpts.size - 1) * beta < r_q + (r_cpts.size - 1) * beta - 1e-6
        seg = meanvar_changepoints(x, exact=True)
        assert (seg.ends + 1).tolist() == e_cpts.tolist()


def _random(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 41))
    kind = seed % 3
    if kind == 0:
        return rng.normal(0, 1, n)
    if kind == 1:
        return rng.normal(0, 1, n) * np.exp(rng.normal(0, 2, n))
    return np.round(rng.normal(0, 1, n), 1)


def _segment_means(x, cpts):
    b = np.concatenate([[0], cpts])
    return [math.fsum(x[b[j]:b[j + 1]].tolist()) / (b[j + 1] - b[j]) for j in range(len(cpts))]


@pytest.mark.parametrize("factor", [15.0, 2.0])
def test_r_emulation_equals_the_exact_dp_where_they_agree_and_never_beats_it(factor):
    agree = missed = 0
    for seed in range(600):
        x = _random(seed)
        s1, s2 = prefix_sums_r(x)
        beta = factor * np.log(x.size)
        r_cpts, r_q = pelt_r_meanvar(s1, s2, beta, 2)
        e_cpts, e_q = exact_meanvar(s1, s2, beta, 2)
        r_f, e_f = r_q + (r_cpts.size - 1) * beta, e_q + (e_cpts.size - 1) * beta
        assert e_f <= r_f + 1e-9 * (1 + abs(r_f))          # the DP is optimal
        if r_cpts.tolist() == e_cpts.tolist():
            agree += 1
            assert r_f == e_f
            assert _segment_means(x, r_cpts) == _segment_means(x, e_cpts)
        else:
            missed += 1
            assert e_f < r_f                                # a real miss, not a tie
    assert agree > 500
    if factor == 2.0:
        assert missed > 0      # R's pruning with minseglen 2 is a heuristic (a few per cent)


def test_exact_dp_equals_brute_force_on_tiny_series():
    # every segmentation with segments of >= 2 points, enumerated
    from itertools import combinations

    from segview.core.detectors._pelt_r import normal_meanvar_cost
    for seed in range(30):
        x = _random(seed)[:9]
        n = x.size
        s1, s2 = prefix_sums_r(x)
        beta = 3.0
        best = math.inf
        for k in range(0, n // 2):
            for cut in combinations(range(2, n - 1), k):
                b = (0, *cut, n)
                if any(b[j + 1] - b[j] < 2 for j in range(len(b) - 1)):
                    continue
                v = sum(normal_meanvar_cost(s1, s2, b[j], b[j + 1]) for j in range(len(b) - 1))
                best = min(best, v + k * beta)
        e_cpts, e_q = exact_meanvar(s1, s2, beta, 2)
        assert e_q + (e_cpts.size - 1) * beta == pytest.approx(best, rel=1e-12, abs=1e-9)


def test_outliers_are_removed_and_indices_mapped_back():
    # 0.05 for 20 iterations, then 0.01 for 30 (alternating +-1e-4 so variances are positive);
    # iterations 5 and 20 are declared outliers. Without them the series has 48 values and the
    # step lies after reduced index 18 (the 19th value, original index 19); R's end 19 (1-based)
    # maps to original 19. Segment means come from the values without outliers.
    x = np.r_[np.full(20, 0.05), np.full(30, 0.01)] + 1e-4 * (-1.0) ** np.arange(50)
    x[5] = 9.0
    x[20] = 9.0
    seg = meanvar_changepoints(x, [5, 20])
    assert seg.ws_changepoints == [19]
    assert seg.change_points.tolist() == [20]
    assert seg.means[0] == pytest.approx(np.delete(x[:20], 5).mean(), abs=1e-15)
    assert seg.means[1] == pytest.approx(x[21:].mean(), abs=1e-15)
    assert seg.outliers.tolist() == [5, 20]


def test_too_few_values_for_changepoint_make_one_segment_with_a_note():
    seg = meanvar_changepoints([1.0, 2.0, 3.0])
    assert seg.change_points.size == 0 and "at least 4" in seg.notes[0]


def test_bad_input_is_named():
    with pytest.raises(InputError, match="finite"):
        meanvar_changepoints([1.0, np.inf, 2.0, 3.0, 4.0])
    with pytest.raises(InputError, match="outlier index"):
        meanvar_changepoints([1.0, 2.0, 3.0, 4.0, 5.0], [7])


@njit(cache=False)
def _plain_traced(s1, s2, beta, minseglen, last, nseg, f, trace):
    # changepoint 2.2.2's PELT_one_func_minseglen as _pelt_r._pelt_r_kernel runs it (every cost
    # with libm's log), recording after each step the candidates kept (with the new one): count
    # and sum of tau
    n = s1.size - 1
    f[0] = -beta
    for t in range(minseglen, min(2 * minseglen, n + 1)):
        f[t] = normal_meanvar_cost(s1, s2, 0, t)
        nseg[t] = 1
    cand = np.empty(n + 2, dtype=np.int64)
    vals = np.empty(n + 2)
    cand[0] = 0
    cand[1] = minseglen
    ncand = 2
    for t in range(2 * minseglen, n + 1):
        best = 0
        for i in range(ncand):
            vals[i] = (f[cand[i]] + normal_meanvar_cost(s1, s2, cand[i], t)) + beta
            if vals[i] < vals[best]:
                best = i
        f[t] = vals[best]
        last[t] = cand[best]
        nseg[t] = nseg[cand[best]] + 1
        keep = 0
        for i in range(ncand):
            if vals[i] <= f[t] + beta:
                cand[keep] = cand[i]
                keep += 1
        cand[keep] = t - minseglen + 1
        ncand = keep + 1
        trace[t, 0] = ncand
        trace[t, 1] = cand[:ncand].sum()


def _kinds(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 700))
    k = seed % 9
    t = np.arange(n)
    if k == 0:
        return rng.normal(0.01, 0.0005, n) + 0.01 * (t < rng.integers(1, n))
    if k == 1:
        return np.round(rng.normal(0.01, 0.001, n), 3)           # ties, zero-variance pieces
    if k == 2:
        return np.r_[np.full(n // 2, 0.02), rng.normal(0.01, 1e-6, n - n // 2)]
    if k == 3:
        return rng.normal(0, 1, n) * np.exp(rng.normal(0, 2, n))
    if k == 4:
        return 1e-9 * rng.normal(5, 1, n)                         # nanoseconds given as seconds
    if k == 5:                                                    # integer timings, long runs
        return np.repeat(rng.integers(100, 104, n), rng.integers(1, 30, n))[:n].astype(float)
    if k == 6:                                                    # constant, then a step
        return np.r_[np.full(n // 3, 7.0), np.full(n - n // 3, 7.5)]
    if k == 7:                                                    # tiny variances, 1e-8 relative
        return 1.0 + 1e-8 * rng.normal(size=n) + 1e-7 * (t > n // 2)
    return 10.0 ** rng.uniform(-150, 150) * rng.normal(3, 1, n)   # large and small magnitudes


def _warmup_like(seed, n=2000):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    level = np.where(t < rng.integers(0, 600), rng.uniform(2, 5), 1.0)
    x = 0.01 * level * (1 + rng.uniform(0.01, 0.05) * rng.normal(size=n))
    spikes = rng.random(n) < 0.01
    x[spikes] *= rng.uniform(2, 10, spikes.sum())
    return x


def _same(a, b):
    # bit for bit, a NaN equal to any NaN (its sign and payload are not part of the result)
    a, b = np.atleast_1d(np.asarray(a, np.float64)), np.atleast_1d(np.asarray(b, np.float64))
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b))
                and np.array_equal(a[~nan].view(np.int64), b[~nan].view(np.int64)))


def _check_vector_kernel(x, beta, minseglen):
    from segview.core.warmup import _pelt_vec
    s1, s2 = prefix_sums_r(x)
    n = x.size
    if n < 2 * minseglen:
        return None
    last, nseg, f = np.zeros(n + 1, np.int64), np.zeros(n + 1, np.int64), np.zeros(n + 1)
    tr = np.zeros((n + 1, 2), np.int64)
    _plain_traced(s1, s2, float(beta), minseglen, last, nseg, f, tr)
    tr2 = np.zeros((n + 1, 2), np.int64)
    l2, n2, f2, n_exact = _pelt_vec.run(s1, s2, beta, minseglen, tr2)
    assert _same(f2, f) and np.array_equal(l2, last) and np.array_equal(n2, nseg)
    assert np.array_equal(tr2, tr)                 # the same candidates kept at every step
    return n_exact


@pytest.mark.parametrize("factor", [15.0, 1.0, 0.1, 0.0, -1.0])
def test_vector_kernel_takes_the_plain_kernels_decisions_bit_for_bit(factor):
    # F, last, nseg bitwise and the kept candidate set after every step, on ties, constant
    # stretches, tiny variances, heavy tails and values near the limits of double precision
    for seed in range(180):
        x = _kinds(seed)
        _check_vector_kernel(x, factor * np.log(x.size), 2 + (seed % 7 == 0) + 3 * (seed % 11 == 0))
    _check_vector_kernel(_kinds(5)[:50], 3.0, 1)


def test_steps_near_the_limits_of_double_precision_run_as_the_plain_kernel_runs_them():
    rng = np.random.default_rng(7)
    # variances above 1e300 and below 1e-300: every step is a bad one (no exact count)
    assert _check_vector_kernel(1e151 * rng.normal(3, 1, 300), 15 * np.log(300), 2) == 0
    assert _check_vector_kernel(1e-152 * rng.normal(3, 1, 300), 15 * np.log(300), 2) == 0
    # one huge spike: the steps whose short segments hold it are bad, the others are not
    x = rng.normal(1, 0.1, 400)
    x[200] = 1e151
    assert _check_vector_kernel(x, 15 * np.log(400), 2) > 0
    for beta in (np.inf, -np.inf, np.nan):           # every step plain
        _check_vector_kernel(rng.normal(size=50), beta, 2)


def test_vector_kernel_on_warmup_series_evaluates_few_candidates_exactly():
    for seed in range(4):
        x = _warmup_like(seed)
        n_exact = _check_vector_kernel(x, 15 * np.log(x.size), 2)
        assert n_exact < 3 * x.size                # vs ~n^2/2 = 2e6 candidate values


@pytest.mark.parametrize("factor", [15.0, 1.0, -1.0])
def test_fast_kernel_equals_the_plain_r_emulation_bit_for_bit(factor):
    from segview.core.warmup.segments import pelt_r_meanvar_fast
    for seed in range(120):
        x = _kinds(seed)
        s1, s2 = prefix_sums_r(x)
        beta = factor * np.log(x.size)
        a_cpts, a_q = pelt_r_meanvar(s1, s2, beta, 2)
        b_cpts, b_q = pelt_r_meanvar_fast(s1, s2, beta, 2)
        assert b_cpts.tolist() == a_cpts.tolist() and _same(b_q, a_q), seed
    for s in SERIES:                                              # and on the golden series
        x = np.delete(np.array(s["values"]), s["outliers"])
        s1, s2 = prefix_sums_r(x)
        assert pelt_r_meanvar_fast(s1, s2, 15.0 * np.log(x.size))[0].tolist() == s["cpts"]


def test_the_cheap_logarithm_is_inside_its_proven_bound():
    # the kernel's proof takes |approximate log - log| < 7.5e-13 for positive normal values;
    # worst near the ends of the reduced range (significand near sqrt 2) and for large exponents
    from segview.core.warmup import _pelt_vec
    rng = np.random.default_rng(0)
    s = np.r_[np.sqrt(2.0) * (1 + rng.uniform(-1e-6, 1e-6, 2000)), rng.uniform(1, 2, 2000)]
    v = np.r_[np.exp(rng.uniform(-690, 690, 4000)), s * 2.0 ** rng.integers(-996, 996, 4000),
              1e-11, 1e-300 * 1.0001, 0.9999e300]
    v = np.r_[v, np.ones(-v.size % 8)]
    out = np.empty(v.size)
    _pelt_vec.approx_log(v, out)
    assert np.max(np.abs(out - np.log(v))) < 7.5e-13 - 1.2e-13    # numpy's log may be 1 ulp off


def test_a_failing_vector_kernel_gives_the_plain_result_and_a_note(monkeypatch):
    from numba.core.errors import TypingError

    from segview.core.warmup import _pelt_vec

    def fail(*args):
        raise TypingError("vector kernel")

    x = _warmup_like(3, 600)
    want = meanvar_changepoints(x)
    monkeypatch.setattr(_pelt_vec, "pelt_r_meanvar_vec", fail)
    got = meanvar_changepoints(x)
    assert got.starts.tolist() == want.starts.tolist() and _same(got.cost, want.cost)
    assert any("vector kernel" in n and "plain exact path" in n for n in got.notes), got.notes
    assert not want.notes


def test_no_simd_runs_the_plain_kernel(monkeypatch):
    from segview.core.warmup import _pelt_vec

    def fail(*args):
        raise AssertionError("the vector kernel ran")

    x = _warmup_like(4, 300)
    want = meanvar_changepoints(x)
    monkeypatch.setenv("SEGVIEW_NO_SIMD", "1")
    monkeypatch.setattr(_pelt_vec, "pelt_r_meanvar_vec", fail)
    got = meanvar_changepoints(x)
    assert got.starts.tolist() == want.starts.tolist() and _same(got.cost, want.cost)
