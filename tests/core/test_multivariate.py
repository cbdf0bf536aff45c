"""Multivariate series: the model, joint op/pelt/binseg against a brute-force optimum, and the
clear error of univariate-only detectors."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import segview
from segview.core.errors import InputError
from segview.core.model import Series


def _seg_cost(seg: np.ndarray, cost: str) -> float:
    """Independent reference: per-dimension cost of one segment, written with numpy only."""
    m = seg.shape[0]
    if cost == "l2":
        return float(((seg - seg.mean(axis=0)) ** 2).sum())
    var = np.maximum(seg.var(axis=0), 1e-11)
    return float((m * (np.log(2 * math.pi) + np.log(var) + 1.0)).sum())


def _brute_force(y: np.ndarray, cost: str, beta: float, min_size: int) -> tuple[float, tuple]:
    """Every segmentation with segments >= min_size: the smallest penalised cost and its cps."""
    n = y.shape[0]
    best = (math.inf, ())
    for k in range(n):
        for cps in itertools.combinations(range(1, n), k):
            bounds = (0, *cps, n)
            if any(b - a < min_size for a, b in zip(bounds[:-1], bounds[1:])):
                continue
            total = sum(_seg_cost(y[a:b], cost) for a, b in zip(bounds[:-1], bounds[1:]))
            total += beta * k
            if total < best[0] - 1e-9:
                best = (total, cps)
    return best


@pytest.mark.parametrize("method", ["op", "pelt"])
@pytest.mark.parametrize("cost", ["l2", "normal"])
def test_joint_segmentation_equals_brute_force(method: str, cost: str) -> None:
    rng = np.random.default_rng(7 if cost == "l2" else 11)
    checked = 0
    for trial in range(12):
        n = int(rng.integers(6, 12))
        d = int(rng.integers(2, 4))
        y = rng.normal(size=(n, d)) + np.where(np.arange(n)[:, None] >= n // 2,
                                               rng.normal(0, 3, size=d), 0.0)
        min_size = int(rng.integers(1 if cost == "l2" else 2, 4))
        beta = float(rng.uniform(0.5, 6.0))
        s = Series(y, id=f"t{trial}", dims=[f"d{k}" for k in range(d)])
        res = segview.detect(s, method, preset="faithful",
                             cost=cost, penalty=beta, min_size=min_size)
        want_cost, want_cps = _brute_force(y, cost, beta, min_size)
        got_cps = tuple(int(c) for c in res.change_points)
        bounds = (0, *got_cps, n)
        got_cost = sum(_seg_cost(y[a:b], cost) for a, b in zip(bounds[:-1], bounds[1:]))
        got_cost += beta * len(got_cps)
        assert got_cost == pytest.approx(want_cost, rel=1e-9, abs=1e-9), (trial, got_cps, want_cps)
        assert got_cps == want_cps
        assert res.stats["penalized_cost"] == pytest.approx(want_cost, rel=1e-9, abs=1e-9)
        checked += 1
    assert checked == 12


def test_binseg_joint_finds_a_change_seen_only_jointly() -> None:
    rng = np.random.default_rng(3)
    # each dimension moves by 1.2 sd: the joint evidence over four dimensions carries the change
    y = rng.normal(size=(200, 4)) + np.where(np.arange(200)[:, None] >= 120, 1.2, 0.0)
    s = Series(y, id="joint", dims=list("abcd"))
    cps = segview.detect(s, "binseg").change_points
    assert len(cps) >= 1 and min(abs(int(c) - 120) for c in cps) <= 3


def test_univariate_only_detector_needs_one_dimension() -> None:
    rng = np.random.default_rng(0)
    s = Series(rng.normal(size=(300, 2)), id="run_log", dims=["Pace", "Distance"])
    with pytest.raises(InputError, match="kbkssd works on one dimension.*Pace, Distance"):
        segview.detect(s, "kbkssd")
    per = segview.detect_per_dimension(s, "kbkssd")
    assert list(per) == ["Pace", "Distance"]
    assert per["Pace"].steady_start == segview.detect(s.dimension("Pace"), "kbkssd").steady_start


def test_series_dimensions_and_hash() -> None:
    y = np.arange(12.0).reshape(6, 2)
    s = Series(y, id="m", dims=("p", "q"))
    assert len(s) == 6 and s.ndim == 2 and s.dims == ("p", "q")
    assert np.array_equal(s.dimension("q").values, y[:, 1]) and s.dimension(1).id == "m/q"
    assert s.content_hash != Series(y, id="m", dims=("p", "r")).content_hash
    with pytest.raises(InputError, match="needs dims"):
        Series(y)
    with pytest.raises(InputError, match="index 2, dimension 'q'"):
        Series(np.where(np.arange(12).reshape(6, 2) == 5, np.nan, y), id="m", dims=("p", "q"))
    with pytest.raises(InputError, match="3 dimension names for 2 columns"):
        Series(y, dims=("a", "b", "c"))
