"""kcpa: R ecp 3.1.1's kernel change-point analysis (detector docs/algorithms/kcpa.md).

Golden change points come from R itself (tests/data/ecp_kcpa/golden.json, made by make_golden.py
and make_golden.R beside it); the pruned recursion is checked against the plain one over every cell.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.detectors import _kcpa_kernels as kk
from segview.core.detectors import kcpa as K

DATA = Path(__file__).resolve().parents[1] / "data" / "ecp_kcpa"
GOLDEN = json.loads((DATA / "golden.json").read_text())["kcpa"]
MISSING = "uk_coal_employ"  # two missing values: segview refuses them; R's NA ends in no change


def _tcpd_matrix(tcpd_dir: Path, name: str) -> np.ndarray:
    d = json.loads((tcpd_dir / "datasets" / f"{name}.json").read_text())
    cols = [np.array([float(v) for v in s["raw"]]) for s in d["series"]]
    return np.column_stack(cols)


@pytest.mark.parametrize("name", sorted(set(GOLDEN) - {MISSING}))
def test_change_points_equal_r(tcpd_dir, name):
    X = _tcpd_matrix(tcpd_dir, name)
    cps, _ = K.kcpa(K.as_matrix(X if X.shape[1] > 1 else X[:, 0], "zscore"), None, 1.0,
                    "sample", 1)
    assert cps == GOLDEN[name]["1"]


def _block_costs(X, h):
    n = X.shape[0]
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    Kx = np.exp(-D2 / h)
    U = np.zeros((n, n))
    for s in range(n):
        for e in range(s, n):
            m = e - s + 1
            U[s, e] = m - Kx[s:e + 1, s:e + 1].sum() / m
    return U


def test_segment_costs_are_the_kernel_scatter():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    U = kk.segment_costs(X, 0.7)
    assert np.allclose(np.triu(U), np.triu(_block_costs(X, 0.7)), rtol=0, atol=1e-12)
    assert np.array_equal(U, kk.segment_costs(X, 0.7, compiled=False))


@pytest.mark.parametrize("seed", range(12))
def test_pruned_recursion_equals_every_cell(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 45))
    y = np.concatenate([rng.normal(0, 1, n // 2), rng.normal(rng.uniform(0, 3), 1, n - n // 2)])
    if seed % 3 == 0:
        y = np.round(y)  # ties: equal costs, the first j and the first K must win as in R
    X = K.as_matrix(y, "zscore")
    h = K.bandwidth(X, "all")[0]
    U = kk.segment_costs(X, h)
    for cost in (0.0, 1.0, 30.0, 1e3):
        for L in (n + 1, max(2, n // 3)):
            want = kk.kcpa_dense(U, L, cost, K.vmax(X))
            got, _ = kk.kcpa_dp(U, L, cost, K.vmax(X))
            assert got == want, (n, cost, L)
            if cost == 1.0 and L > n:
                assert kk.kcpa_dp(U, L, cost, K.vmax(X), compiled=False)[0] == want


def test_detector_runs_multivariate_and_is_affine_invariant():
    rng = np.random.default_rng(4)
    y = np.concatenate([rng.normal(0, 1, 150), rng.normal(4, 1, 150)])
    a = segview.detect(y, "kcpa", cost=300.0)
    b = segview.detect(3.0 * y - 2.0, "kcpa", cost=300.0)
    assert list(a.change_points) == list(b.change_points)
    assert 150 in a.change_points
    Y = np.column_stack([y, rng.normal(size=300)])
    from segview.core.registry import multivariate_runner
    assert multivariate_runner("kcpa") is not None
    assert 150 in K.kcpa(K.as_matrix(Y, "zscore"), None, 300.0)[0]


def test_long_series_bandwidth_uses_r_sample_rows():
    X = K.as_matrix(np.arange(675.0) % 7, "zscore")
    _, rows = K.bandwidth(X, "sample", 1)
    golden = (DATA / "rng_golden.txt").read_text().splitlines()
    want = [int(v) for v in next(ln for ln in golden if ln.startswith("sample_1_675_250")).split()[1:]]
    assert rows.tolist() == want


def test_mostly_equal_values_find_nothing_as_in_r():
    # R 4.2, ecp 3.1.1: kcpa(scale(matrix(c(rep(1, 40), 2, 3, rep(1, 20)))), 62, 1) returns
    # c(1, 63): the median squared distance is 0, every kernel cost NaN, no change point
    y = np.array([1.0] * 40 + [2.0, 3.0] + [1.0] * 20)
    cps, stats = K.kcpa(K.as_matrix(y, "zscore"))
    assert cps == [] and stats["bandwidth"] == 0.0


def test_tcpdbench_locations_are_first_samples():
    # TCPDBench's ecp wrapper reports R's estimates - 1 (the first sample of each new segment),
    # e.g. 30 on the Nile for both e.divisive and kcpa (abed_results default_ecp/default_kcpa)
    from segview.core.io.detections import to_tcpdbench
    assert to_tcpdbench([1, 30, 99], 100, "ecp") == [1, 30]  # n - 1 = 99 is dropped
    assert to_tcpdbench([1, 30, 99], 100, "kcpa") == [1, 30]


def test_r_finds_nothing_on_missing_values():
    # what TCPDBench scored on uk_coal_employ: R's NA makes the bandwidth NA, hence no change
    assert GOLDEN[MISSING]["1"] == []


def test_a_result_of_the_version_2_default_says_so():
    # docs/defaults.md: version 2's default is C = 3000 with at most 10 change points; TCPDBench's
    # C = 1, L = n (version 1) is the preset tcpdbench. As wbs, cpnp, bocpd and ecp, a result made
    # with the new default says so, naming the part of it that is in effect, and the preset's does not.
    y = np.r_[np.zeros(200), np.full(200, 3.0)] + np.random.default_rng(3).standard_normal(400)
    new = segview.detect(y, "kcpa")
    assert list(new.change_points) == [200]
    said = [n for n in new.notes if "version 2's default" in n]
    assert len(said) == 1 and said[0].startswith("C = 3000 and at most 10 change points:")
    assert "preset tcpdbench" in said[0]
    only_cap = segview.detect(y, "kcpa", cost=50.0)
    assert [n.split(":")[0] for n in only_cap.notes if "version 2's default" in n] == [
        "at most 10 change points"]
    for old in (segview.detect(y, "kcpa", preset="tcpdbench"),
                segview.detect(y, "kcpa", cost=1.0, max_cp="max")):
        assert not any("version 2's default" in n for n in old.notes), old.notes
