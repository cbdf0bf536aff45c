"""Binary segmentation (spec partition.md §6): ruptures Binseg, fixed K, monotone penalty."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import segview
from segview.core.errors import ParameterError

ruptures = pytest.importorskip("ruptures")


def _pw_constant(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = min(int(rng.integers(0, 5)), n - 1)
    cuts = np.sort(rng.choice(np.arange(1, n), size=k, replace=False)) if k else np.array([], int)
    means = rng.normal(0, 3, size=k + 1)
    return means[np.searchsorted(cuts, np.arange(n), side="right")] + rng.standard_normal(n)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 200), beta=st.floats(0.2, 20.0),
       m=st.sampled_from([1, 2, 3, 5]))
def test_same_as_ruptures_binseg_penalty(seed, n, beta, m):
    y = _pw_constant(seed, n)
    if n < m:
        return
    ref = ruptures.Binseg(model="l2", min_size=m, jump=1).fit(y).predict(pen=beta)[:-1]
    got = segview.detect(y, "binseg", preset="faithful", penalty=beta, min_size=m).change_points
    assert list(got) == ref


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(20, 200), k=st.integers(1, 4),
       m=st.sampled_from([1, 2, 3]))
def test_same_as_ruptures_binseg_n_bkps(seed, n, k, m):
    y = _pw_constant(seed, n)
    ref = ruptures.Binseg(model="l2", min_size=m, jump=1).fit(y).predict(n_bkps=k)[:-1]
    res = segview.detect(y, "binseg", preset="faithful", n_bkps=k, min_size=m)
    assert list(res.change_points) == ref
    assert res.notes


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(4, 200), b1=st.floats(0, 50),
       b2=st.floats(0, 50), cost=st.sampled_from(["l2", "normal"]))
def test_higher_penalty_never_more_change_points(seed, n, b1, b2, cost):
    y = _pw_constant(seed, n)
    lo, hi = sorted((b1, b2))
    k_lo = segview.detect(y, "binseg", cost=cost, penalty=lo).change_points.size
    assert segview.detect(y, "binseg", cost=cost, penalty=hi).change_points.size <= k_lo


def test_noiseless_steps_found_and_gain_track():
    y = np.r_[np.zeros(100), np.full(50, 4.0), np.full(80, -1.0)]
    res = segview.detect(y, "binseg", penalty=5)
    assert list(res.change_points) == [100, 150]
    track = res.track("gain")
    assert list(track.xs()) == [100, 150] and track.threshold_param == "penalty"
    assert np.all(track.y > 5)


def test_normal_cost_variance_change():
    rng = np.random.default_rng(0)
    y = np.r_[rng.normal(0, 1, 300), rng.normal(0, 5, 300)]
    cps = segview.detect(y, "binseg", cost="normal", penalty="bic").change_points
    assert len(cps) == 1 and abs(int(cps[0]) - 300) <= 10


def test_errors():
    with pytest.raises(ParameterError, match="min_size"):
        segview.detect(np.arange(10.0), "binseg", cost="normal", min_size=1)


def test_noise_scale_option():
    rng = np.random.default_rng(4)
    y = np.r_[rng.normal(0, 100, 300), rng.normal(800, 100, 300)]
    assert segview.detect(y, "binseg", preset="faithful", penalty="bic").change_points.size > 50
    res = segview.detect(y, "binseg", preset="faithful", penalty="bic", noise_scale=True)
    assert len(res.change_points) == 1 and abs(int(res.change_points[0]) - 300) <= 5 and res.notes
