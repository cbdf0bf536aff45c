"""CP-SSD numerical core: 80-bit prefix sums, changepoint 2.2.2 cost and PELT (spec cpssd.md §3-§4)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segview.core.detectors import _pelt_r
from segview.core.detectors._pelt_r import (LONGDOUBLE_IS_X87, cumsum_r, normal_meanvar_cost,
                                            pelt_r_meanvar, prefix_sums_r, segment_costs,
                                            segment_costs_or_none)


def _spec_cost(x: list[float]) -> float:
    """Spec §3 formula written out on the raw values (sums exact enough for these small cases)."""
    m = float(len(x))
    a = math.fsum(x)
    b = math.fsum(v * v for v in x)
    v = (b - (a * a) / m) / m
    if v <= 0:
        v = 1e-11
    return m * ((math.log(2 * math.pi) + math.log(v)) + 1)


def test_cost_formula_on_a_small_segment():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    s1, s2 = prefix_sums_r(x)
    # mean 2.5, ML variance 1.25 (divisor m): 4 * (ln 2pi + ln 1.25 + 1)
    expected = 4.0 * ((math.log(2 * math.pi) + math.log(1.25)) + 1.0)
    assert normal_meanvar_cost(s1, s2, 0, 4) == expected
    assert normal_meanvar_cost(s1, s2, 1, 3) == _spec_cost([2.0, 3.0])


def test_variance_floor_applies_only_to_non_positive_variance():
    const = np.full(5, 3e-7)
    s1, s2 = prefix_sums_r(const)
    v = (s2[5] - s1[5] ** 2 / 5) / 5
    if v <= 0:  # exact cancellation: the 1e-11 floor is used
        assert normal_meanvar_cost(s1, s2, 0, 5) == 5 * ((math.log(2 * math.pi) + math.log(1e-11)) + 1)
    tiny = np.array([0.0, 1e-7, 0.0, 1e-7])   # ML variance 2.5e-15, below the floor: used as is
    s1, s2 = prefix_sums_r(tiny)
    got = normal_meanvar_cost(s1, s2, 0, 4)
    assert got == pytest.approx(4 * (math.log(2 * math.pi) + math.log(2.5e-15) + 1), rel=1e-12)
    assert got < 4 * (math.log(2 * math.pi) + math.log(1e-11) + 1)   # not clamped up to 1e-11


def test_prefix_sums_accumulate_in_extended_precision():
    v = np.array([1.0] + [1e-16] * 100)
    ours = cumsum_r(v)
    plain = np.cumsum(v)
    assert plain[-1] == 1.0            # double accumulation loses every 1e-16
    exact = Fraction(1) + 100 * Fraction(1e-16)
    assert ours[-1] == pytest.approx(float(exact), rel=0, abs=4e-16)
    assert ours[-1] > 1.0


def test_fraction_fallback_is_bit_identical_to_longdouble():
    if not LONGDOUBLE_IS_X87:
        pytest.skip("np.longdouble is not the x87 80-bit type here")
    rng = np.random.default_rng(11)
    x = rng.lognormal(-15, 1.0, 400)
    a1, a2 = prefix_sums_r(x)
    b1, b2 = prefix_sums_r(x, force_fraction=True)
    assert np.array_equal(a1, b1) and np.array_equal(a2, b2)


def test_round_bits_half_to_even():
    r = _pelt_r._round_bits
    assert r(Fraction(5, 2), 2) == 2         # 10.1b -> 10b (tie, even)
    assert r(Fraction(7, 2), 2) == 4         # 11.1b -> 100b (tie, up to even)
    assert r(Fraction(-11, 4), 4) == Fraction(-11, 4)   # 10.11b fits in 4 bits
    assert r(Fraction(-11, 4), 3) == -3                 # 10.1|1b tie -> 11.0b (even)
    assert r(Fraction(1, 3), 53) == Fraction(1 / 3)


def _spec_pelt(x: np.ndarray, beta: float, m: int = 2) -> tuple[list[int], float]:
    """Spec §4 pseudocode transliterated in plain Python (reference for the numba kernel)."""
    s1, s2 = prefix_sums_r(x)
    n = x.size

    def cost(s, t):
        mm = float(t - s)
        a = s1[t] - s1[s]
        b = s2[t] - s2[s]
        v = (b - (a * a) / mm) / mm
        if v <= 0:
            v = 1e-11
        return mm * ((math.log(2 * math.pi) + math.log(v)) + 1)

    f = {0: -beta}
    last = {0: 0}
    nseg = {0: 0}
    for t in range(m, min(2 * m, n + 1)):
        f[t], last[t], nseg[t] = cost(0, t), 0, 1
    cands = [0, m]
    for t in range(2 * m, n + 1):
        vals = [(f[tau] + cost(tau, t)) + beta for tau in cands]
        k = 0
        for i, v in enumerate(vals):
            if v < vals[k]:
                k = i
        f[t], last[t], nseg[t] = vals[k], cands[k], nseg[cands[k]] + 1
        cands = [tau for tau, v in zip(cands, vals) if v <= f[t] + beta]
        cands.append(t - m + 1)
    out, c = [], n
    while c != 0:
        out.append(c)
        c = last[c]
    return sorted(out), f[n] - (nseg[n] - 1) * beta


@pytest.mark.parametrize("beta", [-50.0, 0.0, 3.0, 20.0, 1e4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pelt_matches_the_spec_pseudocode(seed, beta):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(1e-6, 1e-8, 40), rng.normal(2e-6, 5e-8, 30),
                        np.round(rng.normal(1.5e-6, 1e-8, 30), 8)])
    s1, s2 = prefix_sums_r(x)
    ref_cpts, ref_q = _spec_pelt(x, beta)
    for costs in (None, segment_costs(s1, s2)):   # direct costs and the shared cost table
        cpts, q = pelt_r_meanvar(s1, s2, beta, 2, costs)
        assert cpts.tolist() == ref_cpts
        assert q == ref_q


@pytest.mark.parametrize("minseglen", [1, 2, 3, 5])
def test_cost_table_pelt_is_bit_identical_to_direct_pelt(minseglen):
    rng = np.random.default_rng(minseglen)
    x = np.concatenate([rng.normal(5, 1, 120), rng.normal(7, 3, 90), np.full(20, 2.5),
                        rng.lognormal(0, 1, 150)])
    s1, s2 = prefix_sums_r(x)
    table = segment_costs(s1, s2)
    n = x.size
    assert table[n * (n - 1) // 2 + 7] == normal_meanvar_cost(s1, s2, 7, n)
    for beta in (-20.0, 0.0, 4.0, 30.0, 300.0, 1e6):
        direct = pelt_r_meanvar(s1, s2, beta, minseglen)
        tabled = pelt_r_meanvar(s1, s2, beta, minseglen, table)
        assert direct[0].tolist() == tabled[0].tolist() and direct[1] == tabled[1]
    assert segment_costs_or_none(s1, s2, max_bytes=1000) is None
    with pytest.raises(ValueError):
        pelt_r_meanvar(s1, s2, 1.0, 2, table[:-1])


def test_cost_table_holds_exactly_the_direct_costs():
    # the table kernel computes the variances in a vectorised pass: every entry must still equal
    # normal_meanvar_cost bit for bit (floored, negative-rounding and constant stretches included)
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(1e3, 1e-3, 90), np.full(40, 0.1),
                        np.round(rng.lognormal(0, 1, 80), 2), rng.normal(0, 1e6, 60)])
    s1, s2 = prefix_sums_r(x)
    table, vmin = _pelt_r.segment_costs_and_floor(s1, s2, threads=2)
    direct = np.array([normal_meanvar_cost(s1, s2, s, t) for t in range(1, x.size + 1)
                       for s in range(t)])
    assert table.tobytes() == direct.tobytes()
    assert vmin == 1e-11 or vmin < 1e-11


def test_many_penalties_in_one_pass_equal_single_runs():
    # pelt_r_meanvar_many interleaves runs by t (one pass over the table): same results, and CROPS
    # fed with it makes the same runs, breakpoints and counts
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.normal(5, 1, 150), rng.normal(6, 2, 120),
                        np.round(rng.lognormal(0, 1, 130), 1)])
    s1, s2 = prefix_sums_r(x)
    table = segment_costs(s1, s2)
    betas = [-5.0, 0.0, 3.0, 30.0, 30.0, 250.0, 1e6]
    many = _pelt_r.pelt_r_meanvar_many(s1, s2, betas, 2, table)
    for beta, (cpts, q) in zip(betas, many):
        one = pelt_r_meanvar(s1, s2, beta, 2, table)
        assert cpts.tolist() == one[0].tolist() and q == one[1]
    assert _pelt_r.pelt_r_meanvar_many(s1, s2, [], 2, table) == []
    from segview.core.detectors import _crops
    ln_n = math.log(x.size)
    ref = _crops.crops_r(lambda b: pelt_r_meanvar(s1, s2, b, 2, table), 4 * ln_n, 1e5 * ln_n)
    got = _crops.crops_r(lambda b: pelt_r_meanvar(s1, s2, b, 2, table), 4 * ln_n, 1e5 * ln_n,
                         pelt_many=lambda bs: _pelt_r.pelt_r_meanvar_many(s1, s2, bs, 2, table))
    assert repr(got) == repr(ref) and ref.runs > 2


def test_one_segment_shortcut_equals_the_run_it_replaces():
    # one_segment_if_certain may answer only when its bound proves PELT's answer; then it must be
    # PELT's (cpts, q) bit for bit; everywhere else it must decline
    rng = np.random.default_rng(5)
    cases = [rng.normal(10, 1, 400), np.r_[rng.normal(5, 1, 200), rng.normal(9, 1, 200)],
             np.round(rng.lognormal(0, 0.5, 350), 2), np.r_[np.full(30, 2.0), rng.normal(2, 1, 300)]]
    answered = 0
    for x in cases:
        s1, s2 = prefix_sums_r(x)
        table, vmin = _pelt_r.segment_costs_and_floor(s1, s2)
        assert table.tobytes() == segment_costs(s1, s2).tobytes() and vmin > 0
        for beta in (-5.0, 0.0, 10.0, 1e3, 1e5, 6e5, 1e7):
            got = _pelt_r.one_segment_if_certain(table, vmin, beta)
            if beta <= 0:
                assert got is None
            if got is not None:
                answered += 1
                cpts, q = pelt_r_meanvar(s1, s2, beta, 2, table)
                assert cpts.tolist() == got[0].tolist() == [x.size] and q == got[1]
        assert _pelt_r.one_segment_if_certain(table, vmin, 10.0) is None  # bound far too weak here
    assert answered >= 4


def test_pelt_output_format_and_step_detection():
    x = np.concatenate([np.linspace(1, 1.1, 50), np.linspace(5, 5.2, 50)])
    cpts, q = pelt_r_meanvar(*prefix_sums_r(x), 10 * math.log(100))
    assert cpts[-1] == 100                     # R cpts slot includes n
    assert 50 in cpts.tolist()                 # 1-based last index of the first segment
    s1, s2 = prefix_sums_r(x)
    bounds = [0] + cpts.tolist()
    seg_cost = sum(normal_meanvar_cost(s1, s2, a, b) for a, b in zip(bounds[:-1], bounds[1:]))
    assert q == pytest.approx(seg_cost, rel=1e-9)   # Q = unpenalised cost of the segmentation


@pytest.mark.parametrize("n, expected", [(10, [2, 4, 6, 8, 10]), (11, [3, 5, 7, 9, 11])])
def test_minseglen_two_with_a_very_negative_penalty(n, expected):
    # every extra segment lowers the penalised cost: segments as short as minseglen allows
    x = np.random.default_rng(5).normal(0, 1, n)
    cpts, _ = pelt_r_meanvar(*prefix_sums_r(x), -1e6)
    assert cpts.tolist() == expected


def test_pelt_refuses_fewer_than_four_points():
    with pytest.raises(ValueError):
        pelt_r_meanvar(*prefix_sums_r(np.array([1.0, 2.0, 3.0])), 1.0)


def _both_kernels(table: np.ndarray, betas: list[float], minseglen: int, n: int) -> list:
    out = []
    for kernel in (_pelt_r._pelt_r_kernel_table_many, _pelt_r._pelt_r_kernel_table_runs):
        k = len(betas)
        last = np.zeros((k, n + 1), dtype=np.int64)
        nseg = np.zeros((k, n + 1), dtype=np.int64)
        f = np.zeros((k, n + 1))
        kernel(table, np.asarray(betas, dtype=np.float64), minseglen, last, nseg, f)
        out.append((last, nseg, f))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 1.5, 2.0, 7.25, 1e3]), min_size=12, max_size=90),
       st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3, 5]))
def test_run_kernel_equals_the_list_kernel(levels, seed, minseglen):
    # the run-length kernel (nan_free tables) must reproduce the candidate-list kernel's F, last
    # and nseg bit for bit: few distinct values make tied costs (the first minimum must win),
    # noise-free stretches make floored variances, and the penalties range from negative (nothing
    # pruned) to huge (one segment)
    rng = np.random.default_rng(seed)
    x = np.asarray(levels) + np.where(rng.random(len(levels)) < 0.5, 0.0,
                                      rng.normal(0, 1, len(levels)))
    n = x.size
    if n < 2 * minseglen:
        return
    s1, s2 = prefix_sums_r(x)
    table, vmin = _pelt_r.segment_costs_and_floor(s1, s2)
    assert not math.isnan(vmin)
    betas = [-3.0, 0.0, 1e-9, 0.5, 2 * math.log(n), 40.0, 40.0, 1e4, 1e12]
    (l0, n0, f0), (l1, n1, f1) = _both_kernels(table, betas, minseglen, n)
    assert l1.tolist() == l0.tolist() and n1.tolist() == n0.tolist()
    assert f1.tobytes() == f0.tobytes()


def test_run_kernel_on_the_jmh_crops_penalties_and_its_guards():
    # a JMH-like series (warm-up, level shift, rounded values) through CROPS: every run the same,
    # and pelt_r_meanvar(_many) take the list kernel for a NaN penalty or without nan_free
    rng = np.random.default_rng(21)
    x = np.round(np.r_[np.linspace(9, 5, 60), rng.normal(5, 0.3, 500), rng.normal(5.6, 0.3, 400)], 2)
    s1, s2 = prefix_sums_r(x)
    table, vmin = _pelt_r.segment_costs_and_floor(s1, s2)
    from segview.core.detectors import _crops
    ln_n = math.log(x.size)
    runs = [lambda bs, free=free: _pelt_r.pelt_r_meanvar_many(s1, s2, bs, 2, table, nan_free=free)
            for free in (False, True)]
    ref, got = (_crops.crops_r(lambda b: pelt_r_meanvar(s1, s2, b, 2, table), 4 * ln_n,
                               1e5 * ln_n, pelt_many=r) for r in runs)
    assert repr(got) == repr(ref) and ref.runs > 3
    betas = [0.0, 5.0, math.nan]
    for free in (False, True):
        got_many = _pelt_r.pelt_r_meanvar_many(s1, s2, betas, 2, table, nan_free=free)
        for beta, (cpts, q) in zip(betas, got_many):
            one = pelt_r_meanvar(s1, s2, beta, 2, table)
            assert cpts.tolist() == one[0].tolist()
            assert q == one[1] or (math.isnan(q) and math.isnan(one[1]))
            two = pelt_r_meanvar(s1, s2, beta, 2, table, nan_free=free)
            assert cpts.tolist() == two[0].tolist()
