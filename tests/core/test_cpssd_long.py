"""CP-SSD on long series (cpssd.md §11, issue 31): the grid search above ``exact_up_to``.

Below the threshold nothing changes (the exact path, bit for bit: these tests compare with
``long_series="exact"``, the JMH golden tests in tests/golden/test_cpssd_jmh.py with the published
data). Above it, PELT places change points on block boundaries with full-resolution costs and a
polish moves them within one block; the comparisons with the exact search use series with known
level shifts and a decaying warm-up at the default's block size (4 points, as at n = 12,000).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import segview
from segview.core.context import NULL_CONTEXT, RunContext
from segview.core.detectors import _pelt_r, cpssd
from segview.core.errors import Cancelled

SPEC = next(s for s in segview.methods() if s.name == "cpssd")


def _shifts(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Four levels around 1 (three shifts at random places) times 1 + 2 % Gaussian noise."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(n // 10, n - n // 10), 3, replace=False))
    levels = 1.0 + np.abs(rng.normal(0, 0.3, 4))
    idx = np.searchsorted(cuts, np.arange(n), side="right")
    return levels[idx] * (1 + 0.02 * rng.standard_normal(n)), cuts


def _warm(n: int, seed: int) -> np.ndarray:
    """A warm-up decaying as exp(-i / (n / 15)) to a plateau, 3 % noise."""
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    return 1.0 + 2.0 * np.exp(-i / (n / 15)) + 0.03 * rng.standard_normal(n)


def _sums(x):
    return _pelt_r.prefix_sums_r(np.asarray(x, dtype=np.float64))


# --- the grid cost table ------------------------------------------------------------------------

@pytest.mark.parametrize("n, points", [(50, 50), (997, 120), (3001, 300)])
def test_grid_table_equals_the_plain_numpy_columns(n, points):
    rng = np.random.default_rng(n)
    x = rng.lognormal(0, 0.3, n)
    x[n // 3: n // 3 + 7] = 2.0                      # constant stretch: floored variances
    s1, s2 = _sums(x)
    pos = _pelt_r.grid_positions(n, points)
    table, vmin = _pelt_r.grid_costs_and_floor(s1, s2, pos)
    ref = _pelt_r.grid_costs_numpy(s1, s2, pos)
    assert np.array_equal(table, ref)
    assert table.size == (pos.size - 1) * pos.size // 2
    assert vmin > 0 and math.isfinite(vmin)


def test_grid_table_on_every_position_is_the_exact_table_bit_for_bit():
    rng = np.random.default_rng(3)
    x = rng.normal(5, 1, 400)
    s1, s2 = _sums(x)
    table, vmin = _pelt_r.grid_costs_and_floor(s1, s2, np.arange(401), threads=2)
    ref, ref_min = _pelt_r.segment_costs_and_floor(s1, s2)
    assert table.tobytes() == ref.tobytes() and vmin == ref_min


def test_grid_positions_blocks_are_nearly_equal_and_never_below_minseglen():
    for n, points in [(10_001, 3000), (12_000, 3000), (10**6, 3000), (7, 3000), (5000, 100)]:
        pos = _pelt_r.grid_positions(n, points)
        d = np.diff(pos)
        assert pos[0] == 0 and pos[-1] == n and pos.size - 1 <= points
        assert d.min() >= 2 and d.max() - d.min() <= 1
        assert d.max() == math.ceil(n / (pos.size - 1))


def _op_on_grid(table: np.ndarray, g: int, beta: float) -> float:
    """Optimal partitioning over the grid, the textbook recursion: least penalised cost."""
    f = np.full(g + 1, np.inf)
    f[0] = -beta
    for t in range(1, g + 1):
        off = t * (t - 1) // 2
        f[t] = min(f[s] + table[off + s] + beta for s in range(t))
    return float(f[g])


@pytest.mark.parametrize("seed", range(4))
def test_pelt_on_the_grid_table_is_optimal_over_grid_change_points(seed):
    x, _ = _shifts(600, seed)
    s1, s2 = _sums(x)
    pos = _pelt_r.grid_positions(x.size, 60)
    table, _ = _pelt_r.grid_costs_and_floor(s1, s2, pos)
    g1, g2 = s1[pos], s2[pos]
    for beta in (5.0, 25.0, 200.0):
        ends, q = _pelt_r.pelt_r_meanvar(g1, g2, beta, 1, table, nan_free=True)
        best = _op_on_grid(table, pos.size - 1, beta)
        assert q + (ends.size - 1) * beta == pytest.approx(best, rel=1e-12, abs=1e-9)


def test_one_segment_shortcut_on_the_grid_is_sound_with_tiny_variances():
    # variances far below 1 make ln v negative: the bound must use the points, not the blocks
    rng = np.random.default_rng(5)
    x = 1e-4 * rng.standard_normal(2000) + 1.0
    x[1200:] += 3e-5
    s1, s2 = _sums(x)
    pos = _pelt_r.grid_positions(x.size, 200)
    table, vmin = _pelt_r.grid_costs_and_floor(s1, s2, pos)
    g1, g2 = s1[pos], s2[pos]
    claimed = 0
    for beta in np.geomspace(1.0, 1e6, 40):
        known = _pelt_r.one_segment_if_certain(table, vmin, beta, 1, pos)
        ran = _pelt_r.pelt_r_meanvar(g1, g2, beta, 1, table, nan_free=True)
        if known is not None:
            claimed += 1
            assert np.array_equal(known[0], ran[0]) and known[1] == ran[1]
    assert claimed > 0


# --- the polish -----------------------------------------------------------------------------------

def test_refinement_moves_a_grid_change_point_onto_the_step():
    rng = np.random.default_rng(0)
    x = np.r_[np.full(503, 1.0), np.full(497, 1.5)] + 0.01 * rng.standard_normal(1000)
    s1, s2 = _sums(x)
    ends = _pelt_r.refine_change_points(s1, s2, np.array([500, 1000]), 10)
    assert ends.tolist() == [503, 1000]


def test_polish_merges_a_pair_isolating_a_mixed_block_and_never_raises_the_cost():
    rng = np.random.default_rng(1)
    x = np.r_[np.full(1002, 1.0), np.full(998, 1.3)] * (1 + 0.02 * rng.standard_normal(2000))
    s1, s2 = _sums(x)
    beta = 4 * math.log(2000)
    grid_pair = np.array([1000, 1004, 2000])        # the block holding the step cut out
    ends = _pelt_r.refine_change_points(s1, s2, grid_pair, 4, 2, beta)
    assert ends.tolist() == [1002, 2000]
    pen = [_pelt_r.segmentation_cost(s1, s2, e) + (e.size - 1) * beta for e in (grid_pair, ends)]
    assert pen[1] <= pen[0]
    for seed in range(20):                           # random segmentations: never worse
        r = np.random.default_rng(seed)
        e = np.r_[np.sort(r.choice(np.arange(10, 1990), 6, replace=False)), 2000]
        if np.diff(np.r_[0, e]).min() < 2:
            continue
        out = _pelt_r.refine_change_points(s1, s2, e, 8, 2, beta)
        assert np.diff(np.r_[0, out]).min() >= 2
        before = _pelt_r.segmentation_cost(s1, s2, e) + (e.size - 1) * beta
        after = _pelt_r.segmentation_cost(s1, s2, out) + (out.size - 1) * beta
        assert after <= before + 1e-9 * abs(before)


# --- the detector -------------------------------------------------------------------------------

def test_at_and_below_the_threshold_the_exact_path_runs_unchanged():
    y, _ = _shifts(700, 2)
    exact = segview.detect(y, "cpssd", long_series="exact", bootstrap_resamples=200)
    n = exact.tracks[0].y.size                       # the filtered series' length
    at = segview.detect(y, "cpssd", exact_up_to=n, bootstrap_resamples=200)
    assert at.stats["change_point_search"] == "exact" and at.stats["grid_block"] == 0
    assert np.array_equal(at.change_points, exact.change_points)
    for key in ("penalty", "crops_penalties", "crops_ncpts", "pelt_cpts", "tests"):
        assert np.array_equal(np.asarray(at.stats[key]), np.asarray(exact.stats[key])), key
    assert not any("long series" in note for note in at.notes)
    above = segview.detect(y, "cpssd", exact_up_to=n - 1, grid_points=100,
                           bootstrap_resamples=200)
    assert above.stats["change_point_search"] == "grid" and above.stats["grid_block"] == math.ceil(n / 100)
    assert any("long series" in note and "long_series='exact'" in note for note in above.notes)


def test_default_threshold_covers_the_papers_series():
    d = SPEC.defaults()
    assert d["long_series"] == "grid" and d["exact_up_to"] == 10_000 >= 3 * 3000
    assert d["grid_points"] == 3000


def _prep(y, **kw):
    return cpssd._prepare(y, SPEC.defaults().replace(**kw), NULL_CONTEXT)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_finds_the_exact_change_points_of_level_shifts(seed):
    # n = 6000 on 1500 blocks: blocks of 4 points, the default's at n = 12,000
    y, _ = _shifts(6000, seed)
    exact = _prep(y, long_series="exact")
    grid = _prep(y, exact_up_to=5000, grid_points=1500)
    assert grid.grid_block == 4 and exact.grid_block == 0
    assert grid.pelt_cpts.size == exact.pelt_cpts.size
    assert np.abs(grid.pelt_cpts - exact.pelt_cpts).max() <= 4
    assert grid.penalty == pytest.approx(exact.penalty, rel=0.05)


@pytest.mark.parametrize("seed", range(4))
def test_grid_on_a_decaying_warm_up_stays_close_to_the_exact_search(seed):
    # a smooth decay has no true change point: where its segments end is weakly determined (the
    # knee picks among near-equal segmentations), so locations are only held to 2 % of the length
    # (measured: 0-59 points here); the number of change points must agree
    y = _warm(3000, seed)
    exact = _prep(y, long_series="exact")
    grid = _prep(y, exact_up_to=2000, grid_points=750)
    assert grid.grid_block == 4
    assert grid.pelt_cpts.size == exact.pelt_cpts.size
    assert np.abs(grid.pelt_cpts - exact.pelt_cpts).max() <= 60


class _CancelAfter:
    """A cancel flag that turns on after ``k`` reads (a user pressing Cancel mid-run)."""

    def __init__(self, k: int) -> None:
        self.k = k

    def is_set(self) -> bool:
        self.k -= 1
        return self.k < 0

    def set(self) -> None:
        self.k = -1


def test_the_grid_path_stays_cancellable():
    y, _ = _shifts(20_000, 4)
    for k in (1, 3):
        with pytest.raises(Cancelled):
            segview.detect(y, "cpssd", ctx=RunContext(cancel_event=_CancelAfter(k)))


def test_cost_model_warns_for_the_exact_path_only():
    from segview.core.limits import cost_warning
    d = SPEC.defaults().replace(bootstrap_resamples=100)
    assert cost_warning(SPEC, 100_000, d) is None
    assert cost_warning(SPEC, 10**6, d) is None
    text = cost_warning(SPEC, 100_000, d.replace(long_series="exact"))
    assert text and "quadratic" in text


# --- the bootstrap on long segments (cpssd.md §11, last part) ---

def test_normal_means_match_the_resampled_means_in_law():
    """The stand-in has the bootstrap's exact mean and variance; against the real resampling of a
    skewed 20,000-sample segment its 2.5 % / 97.5 % quantiles agree to a small share of the
    interval's width (the golden reference is numpy's resampling, not the code under test)."""
    from segview.core.detectors._cpssd_bootstrap import normal_means, resampled_means_numpy
    rng = np.random.default_rng(5)
    seg = rng.gamma(2.0, 1.0, 20_000) + 10.0
    exact = resampled_means_numpy(seg, np.random.default_rng(1), 4000)
    approx = normal_means(seg, np.random.default_rng(2), 4000)
    q = [0.025, 0.5, 0.975]
    qe, qa = np.quantile(exact, q), np.quantile(approx, q)
    width = qe[2] - qe[0]
    assert np.all(np.abs(qe - qa) < 0.1 * width)
    assert abs(np.std(approx) - np.std(seg) / np.sqrt(seg.size)) < 0.05 * np.std(approx)


def test_normal_bootstrap_only_past_exact_up_to_and_said_in_the_notes():
    from segview.core.detectors._cpssd_bootstrap import classify_backward
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.normal(20.0, 1.0, 3000), rng.normal(10.0, 1.0, 30_000)])
    cps = np.array([2999])
    s0, t0 = classify_backward(y, cps, 7, 2000)
    s1, t1 = classify_backward(y, cps, 7, 2000, normal_above=10**9)  # nothing long: identical
    assert (s0, t0) == (s1, t1)
    s2, t2 = classify_backward(y, cps, 7, 2000, normal_above=10_000)
    assert s2 == s0 == 2999 and t2[0].different
    assert (t2[0].lo, t2[0].hi) != (t0[0].lo, t0[0].hi)  # the long final segment was drawn normally
    res = segview.detect(y, "cpssd", exact_up_to=10_000, bootstrap_resamples=2000)
    assert any("normal law" in n for n in res.notes)
    res_exact = segview.detect(y[:9000], "cpssd", bootstrap_resamples=2000)
    assert not any("normal law" in n for n in res_exact.notes)
