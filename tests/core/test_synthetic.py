"""Synthetic generators: M/M/1 theory (spec fisher.md §9), truth, seeding, spec LCG values."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core import synthetic
from segview.core.errors import ParameterError
from segview.core.model import Series


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.8])
def test_mm1_mean_response_time_matches_theory(rho):
    series, truth = synthetic.mm1_response_times(2_000_000, rho, warmup=60_000, seed=5)
    theory = 1.0 / (1.0 / rho - 1.0)  # 1/(mu - lambda) with lambda = 1, mu = 1/rho
    assert abs(series.values.mean() / theory - 1.0) <= 0.03
    assert truth.change_points == () and truth.onset == 0


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.8])
def test_mm1_lag1_matches_craven(rho):  # spec §8 Eq. 7: phi ~ 1 - (1 - rho)^2
    x = synthetic.mm1_response_times(400_000, rho, seed=6)[0].values
    c = x - x.mean()
    assert abs(np.dot(c[:-1], c[1:]) / np.dot(c, c) - (1 - (1 - rho) ** 2)) <= 0.02


def test_mm1_lindley_matches_vectorised_form():  # spec §9: W = U - minimum.accumulate(U)
    rng = np.random.default_rng(3)
    s, a = rng.exponential(0.5, 20_000), rng.exponential(1.0, 20_000)
    w = synthetic._lindley(s, a)
    u = np.r_[0.0, np.cumsum(s[:-1] - a[1:])]
    assert np.allclose(w, u - np.minimum.accumulate(u), atol=1e-9)


def test_mm1_shift_truth_and_level():
    series, truth = synthetic.mm1_response_times(20_000, 0.2, drho=0.3, f=0.5, seed=1)
    assert truth.change_points == (10_000,)
    before, after = series.values[:10_000].mean(), series.values[12_000:].mean()
    assert before == pytest.approx(0.25, rel=0.08) and after == pytest.approx(1.0, rel=0.15)


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.8])
def test_md1_mean_response_time_matches_pollaczek_khinchine(rho):
    series, truth = synthetic.md1_response_times(1_000_000, rho, seed=5)
    s = rho  # constant service time with lambda = 1
    theory = s + rho * s / (2 * (1 - rho))  # P-K mean wait for deterministic service
    assert abs(series.values.mean() / theory - 1.0) <= 0.03
    assert series.values.min() >= s - 1e-12  # nobody leaves before being served
    assert truth.change_points == () and series.metadata["generator"] == "md1"


def test_md1_shift_changes_the_service_time():
    series, truth = synthetic.md1_response_times(20_000, 0.2, drho=0.3, f=0.5, seed=2)
    assert truth.change_points == (10_000,)
    assert series.values[:10_000].min() == pytest.approx(0.2)
    assert series.values[10_000:].min() == pytest.approx(0.5)


def test_mm1_rejects_unstable_queue():
    with pytest.raises(ParameterError, match="rho"):
        synthetic.mm1_response_times(10, 1.2)
    with pytest.raises(ParameterError, match="drho"):
        synthetic.mm1_response_times(10, 0.8, drho=0.3)


@pytest.mark.parametrize("name", sorted(synthetic.GENERATORS))
def test_generators_are_seeded_and_return_truth(name):
    gen = synthetic.GENERATORS[name]
    kw = {"n": 500, "warmup": 100} if name.startswith("mm1") else {"n": 500}
    s1, t1 = gen(seed=4, **kw)
    s2, _ = gen(seed=4, **kw)
    s3, _ = gen(seed=5, **kw)
    assert isinstance(s1, Series) and len(s1) == 500
    assert np.array_equal(s1.values, s2.values) and not np.array_equal(s1.values, s3.values)
    assert all(0 < c < 500 for c in t1.change_points)
    assert t1.onset is None or 0 <= t1.onset < 500


def test_shapes_match_their_truth():
    x, t = synthetic.step(1000, 300, delta=5.0, noise_std=0.1, seed=0)
    assert t.change_points == (300,)
    assert x.values[300:].mean() - x.values[:300].mean() == pytest.approx(5.0, abs=0.05)
    x, t = synthetic.warmup_plateau(1000, 200, amplitude=5.0, noise_std=0.1)
    assert t.onset == 200 and abs(x.values[200:].mean()) < 0.05 and x.values[:20].mean() > 4
    assert synthetic.drift(100)[1].onset is None and synthetic.never_steady(100)[1].onset is None
    x, t = synthetic.periodic_spikes(1000, period=50, height=10.0, noise_std=0.1)
    assert np.sum(x.values > 5) == 20
    x, t = synthetic.piecewise_constant(600, 4, noise_std=0.0, seed=3)
    assert len(t.change_points) == 4
    assert set(np.flatnonzero(np.diff(x.values)) + 1) == set(t.change_points)
    x, t = synthetic.ar1(300, 0.5, shift_at=100, shift=2.0)
    assert t.change_points == (100,)


def test_lcg_series_matches_spec():  # fisher.md §7.3
    x = synthetic.lcg_ar_shifts(600)
    assert x[:3] == pytest.approx([-0.26276937, -0.08070648, 0.33330534], abs=1e-8)
    assert x[598:] == pytest.approx([-0.4597049, 0.21726057], abs=1e-7)


def test_mm1_queue_left_behind_matches_theory():  # departures see L = rho / (1 - rho)
    x, truth = synthetic.mm1_queue_lengths(2_000_000, 0.5, seed=9)
    assert abs(x.values.mean() - 1.0) <= 0.03 and x.values.min() >= 0
    assert np.all(x.values == np.round(x.values))
    small = synthetic.mm1_queue_lengths(2000, 0.5, warmup=0, seed=1)[0].values
    resp = synthetic.mm1_response_times(2000, 0.5, warmup=0, seed=1)[0].values
    assert small[0] >= 0 and np.corrcoef(small, resp)[0, 1] > 0.5  # same draws, same congestion
