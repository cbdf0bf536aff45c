"""OP and PELT (spec partition.md): published FPOP vectors, brute force, ruptures, parallel = serial."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import segview
from segview.core.detectors.partition import optimal_partition
from segview.core.errors import InputError, ParameterError
from segview.core.synthetic import lcg_ar_shifts, lcg_uniform, piecewise_constant

# spec partition.md §7.1: R Fpop(1:30, 1) as printed in seed 003
FPOP_30 = [1, -2.5, -10.5, -26, -50, -85.5, -133.5, -197, -277, -376.5, -496.5, -640, -808,
           -1003.5, -1227.5, -1483, -1771, -2094.5, -2454.5, -2854, -3294, -3777.5, -4305.5,
           -4881, -5505, -6180.5, -6908.5, -7692, -8532, -9431.5]
FPOP_PATH = [-10, -10, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14, 16, 16, 18, 18, 20, 20, 22,
             22, 24, 24, 26, 26, 28, 28]


@pytest.mark.parametrize("method,extra", [("op", {}), ("op", {"threads": 2, "block": 8}),
                                          ("op", {"threads": 2, "schedule": "dynamic"}),
                                          ("pelt", {})])
def test_fpop_vector_and_pairs(method, extra):
    res = segview.detect(range(1, 31), method, preset="faithful",
                         cost="l2", penalty=1, min_size=1, **extra)
    assert list(res.stats["optimal_cost"]) == FPOP_30  # exact: all values are multiples of 0.5
    assert list(res.change_points) == list(range(2, 30, 2))


@pytest.mark.parametrize("n", [10, 20])
def test_fpop_prefixes(n):
    res = segview.detect(range(1, n + 1), "op", preset="faithful", cost="l2", penalty=1)
    assert list(res.stats["optimal_cost"]) == FPOP_30[:n]
    assert list(res.change_points) == list(range(2, n, 2))


def test_tie_last_reproduces_fpop_path():
    res = segview.detect(range(1, 31), "op", preset="faithful", cost="l2", penalty=1, tie="last")
    path = [-10 if v == 0 else int(v) for v in res.stats["last"]]
    assert path == FPOP_PATH


@pytest.mark.parametrize("method", ["op", "pelt"])
@pytest.mark.parametrize("beta,cps,f", [
    (3.0, [200, 350], 70.9280495011),
    (1.0, [125, 130, 139, 162, 200, 236, 253, 261, 350, 484, 497, 534, 541], 62.9702404574)])
def test_spec_lcg_l2(method, beta, cps, f):
    res = segview.detect(lcg_ar_shifts(600), method, preset="faithful",
                         cost="l2", penalty=beta, min_size=1)
    assert list(res.change_points) == cps
    assert res.stats["penalized_cost"] == pytest.approx(f, abs=1e-8)


@pytest.mark.parametrize("method", ["op", "pelt"])
def test_spec_lcg_normal_bic(method):
    y = lcg_uniform(300, 3)
    y[120:] *= 3
    y[220:] += 1
    res = segview.detect(y, method, preset="faithful", cost="normal", penalty="bic", min_size=2)
    assert res.stats["penalty"] == pytest.approx(17.111347, abs=1e-6)
    assert list(res.change_points) == [121, 218]
    assert res.stats["penalized_cost"] == pytest.approx(501.6763620288, abs=1e-8)


# ---------------------------------------------------------------- brute force (spec §5.3 item 2)
def _seg_cost(seg: np.ndarray, cost: str) -> float:
    sse = float(np.sum((seg - seg.mean()) ** 2))
    if cost == "l2":
        return sse
    var = max(sse / seg.size, 1e-11)
    return seg.size * (math.log(2 * math.pi) + math.log(var) + 1)


def _brute(y: np.ndarray, cost: str, beta: float, m: int) -> tuple[float, list[int]]:
    n = y.size
    best, best_cps = math.inf, []
    inner = range(m, n - m + 1)
    for k in range(0, n // m):
        for cps in itertools.combinations(inner, k):
            bounds = (0, *cps, n)
            if any(b - a < m for a, b in zip(bounds[:-1], bounds[1:])):
                continue
            total = sum(_seg_cost(y[a:b], cost) for a, b in zip(bounds[:-1], bounds[1:]))
            total += beta * k
            if total < best - 1e-12:
                best, best_cps = total, list(cps)
    return best, best_cps


@st.composite
def _cases(draw, cost: str, m: int):
    n = draw(st.integers(2 * m, 12 if m < 5 else 15))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    levels = rng.normal(0, 3, size=4)
    cuts = np.sort(rng.integers(0, n, size=3))
    means = levels[np.searchsorted(cuts, np.arange(n), side="right")]
    scale = 1.0 if cost == "l2" else rng.choice([0.3, 1.0, 3.0], size=n)
    y = means + rng.standard_normal(n) * scale
    beta = draw(st.floats(0.2, 10.0))
    return y, beta


@pytest.mark.parametrize("cost,m", [("l2", 1), ("l2", 2), ("l2", 3), ("l2", 5), ("normal", 2),
                                    ("normal", 3), ("normal", 5)])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_op_and_pelt_equal_brute_force(cost, m, data):
    y, beta = data.draw(_cases(cost, m))
    if cost == "normal":  # keep every segment variance well away from 0 (log amplifies rounding)
        assume(np.min(np.abs(np.diff(np.sort(y)))) > 0.05)
    ref_cost, ref_cps = _brute(y, cost, beta, m)
    for pruning in (False, True):
        part = optimal_partition(y, cost, beta, m, pruning=pruning)
        assert part.F[-1] == pytest.approx(ref_cost, abs=1e-9 * max(1.0, abs(ref_cost)))
        assert list(part.change_points) == ref_cps


# ------------------------------------------------ variants identical (spec §5.3 item 1)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.sampled_from([1, 2, 3, 5]), cost=st.sampled_from(["l2",
       "normal"]), block=st.sampled_from([8, 13, 64, 256]), n=st.integers(10, 150))
def test_variants_bitwise_identical(seed, m, cost, block, n):
    m = max(m, 2) if cost == "normal" else m
    rng = np.random.default_rng(seed)
    y = np.repeat(rng.normal(0, 2, 6), -(-n // 6))[:n] + rng.standard_normal(n)
    ref = optimal_partition(y, cost, 3.0, m)
    for kw in ({"pruning": True}, {"threads": 2, "block": block},
               {"threads": 2, "block": block, "schedule": "dynamic"}):
        other = optimal_partition(y, cost, 3.0, m, **kw)
        assert np.array_equal(other.F, ref.F)
        assert np.array_equal(other.last, ref.last)
        assert np.array_equal(other.change_points, ref.change_points)


# ------------------------------------------------------------- ruptures (spec §5.3 items 3-4)
ruptures = pytest.importorskip("ruptures")


def _pw_constant(rng: np.random.Generator, n: int) -> np.ndarray:
    k = min(int(rng.integers(0, 5)), n - 1)
    cuts = np.sort(rng.choice(np.arange(1, n), size=k, replace=False)) if k else np.array([], int)
    means = rng.normal(0, 3, size=k + 1)
    return means[np.searchsorted(cuts, np.arange(n), side="right")] + rng.standard_normal(n)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(5, 150), beta=st.floats(0.2, 10.0))
def test_same_change_points_as_ruptures_pelt(seed, n, beta):
    y = _pw_constant(np.random.default_rng(seed), n)
    ref = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(y).predict(pen=beta)[:-1]
    for method in ("pelt", "op"):
        assert list(segview.detect(y, method, preset="faithful",
                                   penalty=beta, min_size=1).change_points) == ref


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(8, 80), beta=st.floats(0.5, 10.0),
       m=st.sampled_from([1, 2, 3]))
def test_same_change_points_as_ruptures_dynp(seed, n, beta, m):
    y = _pw_constant(np.random.default_rng(seed), n)
    cps = list(optimal_partition(y, "l2", beta, m, pruning=True).change_points)
    if cps:
        ref = ruptures.Dynp(model="l2", min_size=m, jump=1).fit(y).predict(n_bkps=len(cps))[:-1]
        assert cps == ref


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(8, 120), beta=st.floats(0.2, 10.0),
       m=st.sampled_from([2, 3, 4]))
def test_never_worse_than_ruptures_pelt_with_min_size(seed, n, beta, m):
    y = _pw_constant(np.random.default_rng(seed), n)
    part = optimal_partition(y, "l2", beta, m, pruning=True)
    ref = ruptures.Pelt(model="l2", min_size=m, jump=1).fit(y).predict(pen=beta)
    bounds = [0, *ref]
    theirs = sum(_seg_cost(y[a:b], "l2") for a, b in zip(bounds[:-1], bounds[1:]))
    theirs += beta * (len(ref) - 1)
    assert part.F[-1] <= theirs + 1e-9


# ------------------------------------------------------------------------ monotone, errors
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(5, 200), b1=st.floats(0.0, 50.0),
       b2=st.floats(0.0, 50.0), cost=st.sampled_from(["l2", "normal"]))
def test_higher_penalty_never_more_change_points(seed, n, b1, b2, cost):
    y = _pw_constant(np.random.default_rng(seed), n)
    lo, hi = sorted((b1, b2))
    k_lo = len(segview.detect(y, "pelt", cost=cost, penalty=lo).change_points)
    k_hi = len(segview.detect(y, "pelt", cost=cost, penalty=hi).change_points)
    assert k_hi <= k_lo


def test_penalty_names_resolved_with_n():
    y = np.random.default_rng(1).standard_normal(500)
    ln_n = math.log(500)
    expected = {"bic": 2 * ln_n, "sic0": ln_n, "aic": 4.0, "hq": 4 * math.log(ln_n),
                "mbic": 3 * ln_n}
    for name, beta in expected.items():
        assert segview.detect(y, "pelt", penalty=name).stats["penalty"] == pytest.approx(beta)
    assert segview.detect(y, "pelt", cost="normal", penalty="BIC").stats["penalty"] == \
        pytest.approx(3 * ln_n)


def test_bad_parameters_are_named():
    with pytest.raises(ParameterError, match="min_size"):
        segview.detect(np.arange(10.0), "pelt", cost="normal", min_size=1)
    with pytest.raises(ParameterError, match="penalty"):
        segview.detect(np.arange(10.0), "op", penalty="nonsense")
    with pytest.raises(InputError):
        segview.detect([1.0, 2.0, 3.0], "pelt", min_size=5)


def test_constant_series_has_no_change():
    for cost in ("l2", "normal"):
        assert segview.detect(np.full(50, 3.0), "pelt", cost=cost).change_points.size == 0


def test_noise_scale_opt_in_benefit_and_invariance():
    # series in large units (noise sd 100): the unit-variance l2 penalty over-segments badly
    series, truth = piecewise_constant(1000, 4, noise_std=100.0,
                                       delta=(500.0, 800.0), min_gap=50, seed=2)
    raw = segview.detect(series, "pelt", preset="faithful", penalty="bic")
    scaled = segview.detect(series, "pelt", preset="faithful", penalty="bic", noise_scale=True)
    assert len(raw.change_points) > 100 and not raw.notes
    assert len(scaled.change_points) == 4 and scaled.notes
    assert np.max(np.abs(scaled.change_points - np.array(truth.change_points))) <= 3
    again = segview.detect(0.01 * series.values + 5, "op", preset="faithful",
                           penalty="bic", noise_scale=True)
    assert np.array_equal(again.change_points, scaled.change_points)



def test_noise_scale_makes_normal_cost_unit_free():
    # nanosecond-like units: every variance is below the fixed 1e-11 floor, so the faithful normal
    # cost sees nothing; with noise_scale the floor is relative and the change is found
    rng = np.random.default_rng(5)
    y = np.r_[rng.normal(4e-8, 1e-9, 400), rng.normal(4e-8, 5e-9, 400)]
    assert segview.detect(y, "pelt", preset="faithful",
                          cost="normal", min_size=10).change_points.size == 0
    res = segview.detect(y, "pelt", preset="faithful", cost="normal", min_size=10, noise_scale=True)
    ref = segview.detect(y * 1e9, "pelt", preset="faithful", cost="normal", min_size=10)
    assert np.array_equal(res.change_points, ref.change_points) and res.notes
    assert len(res.change_points) == 1 and abs(int(res.change_points[0]) - 400) <= 10


@pytest.mark.parametrize("method,extra", [("op", {}), ("op", {"threads": 2}), ("pelt", {})])
def test_cancellation(method, extra):
    from segview.core.context import RunContext
    from segview.core.errors import Cancelled
    ctx = RunContext()
    ctx.cancel()
    with pytest.raises(Cancelled):
        segview.detect(np.arange(300.0), method, ctx=ctx, **extra)


def test_normal_r_cost_is_bitwise_cpssd_emulation():
    pelt_r = pytest.importorskip("segview.core.detectors._pelt_r")
    from segview.core.detectors import _costs
    rng = np.random.default_rng(8)
    x = np.r_[rng.normal(5, 1, 200), np.full(5, 2.0), rng.normal(0, 1e-6, 50)]
    s1, s2 = pelt_r.prefix_sums_r(x)
    for _ in range(2000):
        a, b = sorted(rng.choice(x.size + 1, 2, replace=False))
        ours = _costs.segment_cost(s1, s2, a, b, _costs.NORMAL_R, 0.0, False)
        assert ours == pelt_r.normal_meanvar_cost(s1, s2, a, b)


def test_exact_pelt_with_cpssd_sums_never_worse_than_r_pelt():
    pelt_r = pytest.importorskip("segview.core.detectors._pelt_r")
    rng = np.random.default_rng(12)
    worse = 0
    for _ in range(40):
        n = int(rng.integers(20, 200))
        x = np.repeat(rng.normal(0, 2, 5), -(-n // 5))[:n] * rng.choice([1, 3]) + \
            rng.standard_normal(n)
        s1, s2 = pelt_r.prefix_sums_r(x)
        beta = float(rng.uniform(2, 20))
        cpts, q = pelt_r.pelt_r_meanvar(s1, s2, beta, 2)
        part = optimal_partition(x, "normal_r", beta, 2, pruning=True, sums=(s1, s2))
        theirs = q + beta * (len(cpts) - 1)
        assert part.F[-1] <= theirs + 1e-9 * max(1.0, abs(theirs))
        worse += part.F[-1] < theirs - 1e-9
        if part.F[-1] == pytest.approx(theirs, abs=1e-9):
            assert list(part.change_points) == [int(c) for c in cpts[:-1]]
