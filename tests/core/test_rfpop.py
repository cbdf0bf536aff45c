"""Robust FPOP, biweight loss (issue 14): exact against brute force, and the spec's JMH segmentation."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import segview
from segview.core.detectors.rfpop import biweight_partition
from segview.core.resources import sample_dir


def _segment_cost(x: np.ndarray, K: float) -> float:
    """min over theta of sum min((x - theta)^2, K^2), by enumeration: between consecutive
    breakpoints x_i +- K the inlier set is fixed, so the minimiser is its mean clipped to the gap."""
    pts = np.unique(np.concatenate([x - K, x + K, x]))
    cands = list(pts)
    for lo, hi in zip(pts[:-1], pts[1:]):
        inl = np.abs(x - (lo + hi) / 2) < K
        if inl.any():
            cands.append(min(max(float(x[inl].mean()), lo), hi))
    return min(float(np.minimum((x - th) ** 2, K * K).sum()) for th in cands)


def _cost(y: np.ndarray, cps, beta: float, K: float) -> float:
    b = [0, *cps, len(y)]
    return sum(_segment_cost(y[a:e], K) for a, e in zip(b[:-1], b[1:])) + beta * len(cps)


def _brute(y: np.ndarray, beta: float, K: float) -> float:
    n = len(y)
    return min(_cost(y, cps, beta, K) for k in range(n)
               for cps in itertools.combinations(range(1, n), k))


@settings(max_examples=120, deadline=None)
@given(y=st.lists(st.integers(-30, 30), min_size=1, max_size=8).map(lambda v: np.array(v) / 4.0),
       spike=st.integers(-1, 7), K=st.sampled_from([0.5, 1.0, 3.0]),
       beta=st.sampled_from([0.25, 2.0, 5.0]))
def test_exact_against_brute_force(y, spike, K, beta):
    if 0 <= spike < y.size:
        y[spike] += 12.0
    cps, F, _ = biweight_partition(y, beta, K)
    best = _brute(y, beta, K)
    assert F[-1] == pytest.approx(best, abs=1e-9)
    assert _cost(y, list(cps), beta, K) == pytest.approx(best, abs=1e-9)


def test_invariant_under_affine_maps():
    rng = np.random.default_rng(3)
    y = np.repeat([0.0, 4.0, 1.0], 100) + rng.standard_normal(300)
    y[[20, 150, 151, 260]] += 40.0
    ref = segview.detect(y, "rfpop").change_points
    assert list(ref) and all(abs(c - t) <= 3 for c, t in zip(ref, [100, 200]))
    for a, b in ((1e-5, 1.6e-3), (1e3, 1e9)):
        assert list(segview.detect(a * y + b, "rfpop").change_points) == list(ref)


def test_spec_segmentation_of_jmh_series_with_spikes():
    """rfpop's module spec (the paper's configuration, preset faithful): s0141's level shift is
    found, its spikes are not cut out."""
    path = sample_dir() / "s0141.json"
    if not path.is_file():
        pytest.skip("bundled sample missing")
    y = np.array(json.loads(path.read_text())[0], dtype=float)
    res = segview.detect(y, "rfpop", preset="faithful")
    cps = list(map(int, res.change_points))
    assert any(515 <= c <= 530 for c in cps), cps
    assert min(b - a for a, b in res.stats["segments"]) >= 5, cps
    assert 1 not in cps and 2 not in cps
    # the same penalty (2 ln n noise variances) with the L2 cost cuts the spikes out
    # (min_size 1, as the spec's comparison: pelt's default minimum segment is 5 since version 3)
    l2 = segview.detect(y, "pelt", scale="robust", penalty="bic", min_size=1)
    assert len(cps) * 3 < len(l2.change_points)
    assert min(b - a for a, b in l2.stats["segments"]) < 5
