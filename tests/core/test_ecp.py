"""ecp: R ecp 3.1.1's E-Divisive with its permutation test (docs/algorithms/ecp.md).

Golden change points, their order and every p-value come from R itself with set.seed(s)
(tests/data/ecp_kcpa/golden.json, made by make_golden.py and make_golden.R beside it).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.detectors import _ecp_kernels as ek
from segview.core.detectors import ecp as E
from segview.core.detectors.kcpa import as_matrix

DATA = Path(__file__).resolve().parents[1] / "data" / "ecp_kcpa"
GOLDEN = json.loads((DATA / "golden.json").read_text())["ecp"]
MISSING = "uk_coal_employ"  # two missing values: segview refuses them; R's NA ends in no change
CASES = [(name, seed) for name in sorted(set(GOLDEN) - {MISSING}) for seed in ("1", "2")
         if seed in GOLDEN[name]]


def _tcpd_matrix(tcpd_dir: Path, name: str) -> np.ndarray:
    d = json.loads((tcpd_dir / "datasets" / f"{name}.json").read_text())
    X = np.column_stack([np.array([float(v) for v in s["raw"]]) for s in d["series"]])
    return as_matrix(X if X.shape[1] > 1 else X[:, 0], "zscore")


@pytest.mark.parametrize("name,seed", CASES)
def test_change_points_and_p_values_equal_r(tcpd_dir, name, seed):
    out = E.e_divisive(_tcpd_matrix(tcpd_dir, name), seed=int(seed))
    want = GOLDEN[name][seed]
    assert out["order"] == want["order"]
    assert out["cps"] == want["cps"]
    assert out["p_values"] == want["p_values"]


def _split_reference(x, min_size, trunc):
    """The statistic straight from its definition, every (tau, kappa): the best tau."""
    m = x.size
    D = np.abs(x[:, None] - x[None, :])
    best, arg = -np.inf, -1
    for t1 in range(min_size, m - min_size + 1):
        for t2 in range(t1 + min_size, m + 1):
            a, b = t1, t2 - t1
            e = (2 * D[:t1, t1:t2].mean() - D[t1:t2, t1:t2].sum() / (b * (b - 1))
                 - D[:t1, :t1].sum() / (a * (a - 1)))
            f = (t1 * b) // t2 if trunc else t1 * b / t2
            if e * f > best:
                best, arg = e * f, t1
    return arg, best


@pytest.mark.parametrize("trunc", [True, False])
def test_split_search_is_the_energy_statistic(trunc):
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(0, 1, 25), rng.normal(2, 1, 20)])
    loc, v = ek.split_segment(x[:, None], 0, x.size, 5, 1.0, trunc, True)
    arg, best = _split_reference(x, 5, trunc)
    assert loc == arg and v == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("trunc", [True, False])
def test_absolute_differences_have_the_bits_of_r_distances(trunc):
    # |x_a - x_b| for sqrt((x_a - x_b)^2): same statistic bits and same permutation counts
    rng = np.random.default_rng(7)
    X = as_matrix(np.concatenate([rng.normal(0, 1, 70), rng.standard_t(2, 61)]), "zscore")
    assert ek.flat_ok(X, 1.0)
    assert ek.split_segment(X, 0, 131, 9, 1.0, trunc, True) == ek.split_segment(
        X, 0, 131, 9, 1.0, trunc, False)
    bounds = np.array([0, 131], dtype=np.int64)
    _, obs = ek.split_segment(X, 0, 131, 9, 1.0, trunc, True)
    counts = [ek.perm_test(X, bounds, 9, 1.0, trunc, obs * 0.7, 30, E._rr.seed_state(3), True, f,
                           31)[0] for f in (True, False)]
    assert counts[0] == counts[1] > 0


def test_flat_distances_only_where_squares_stay_normal():
    x = np.array([[0.0], [1.0], [2.0]])
    assert ek.flat_ok(x, 1.0)
    assert not ek.flat_ok(x, 1.5)  # distances ^ alpha
    assert not ek.flat_ok(np.hstack([x, x]), 1.0)  # several columns
    assert not ek.flat_ok(np.array([[0.0], [1e-200], [1.0]]), 1.0)  # a square would underflow
    assert not ek.flat_ok(np.array([[-1e300], [1e300]]), 1.0)  # a square would overflow
    assert ek.flat_ok(np.array([[5.0], [5.0], [5.0]]), 1.0)  # no nonzero difference


def test_strengths_are_the_p_values_of_the_accepting_tests():
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.normal(0, 1, 120), rng.normal(3, 1, 120), rng.normal(0, 1, 120)])
    res = segview.detect(y, "ecp", permutations=49, seed=3)
    assert list(res.change_points) == [120, 240]
    p_of = dict(zip(res.stats["order_found"], res.stats["p_values"]))
    assert list(res.strengths) == [p_of[120], p_of[240]] == [0.02, 0.02]
    assert res.stats["p_values"][-1] > 0.05  # the rejected third test ends the search
    again = segview.detect(2.5 * y - 1.0, "ecp", permutations=49, seed=3)
    assert list(again.change_points) == [120, 240]


def test_r_finds_nothing_on_missing_values():
    # what TCPDBench scored on uk_coal_employ: every statistic involving the NA rows is NA
    assert all(run["cps"] == [] for run in GOLDEN[MISSING].values())


def test_stopping_early_changes_only_the_rejected_tests_p_value():
    rng = np.random.default_rng(11)
    X = as_matrix(np.concatenate([rng.normal(0, 1, 150), rng.normal(1.5, 1, 150)]), "zscore")
    full = E.e_divisive(X, R=99, seed=2)
    early = E.e_divisive(X, R=99, seed=2, stop_early=True)
    assert early["order"] == full["order"] == [150]
    assert early["p_values"][:-1] == full["p_values"][:-1]
    assert early["statistics"] == full["statistics"]
    assert full["permutations_run"] == [99, 99]
    assert early["permutations_run"][0] == 99 and early["permutations_run"][1] < 99
    # (1 + over) / (R + 1) with over = 5, the first count that rejects at 0.05: a lower bound
    assert 0.05 < early["p_values"][-1] == 0.06 <= full["p_values"][-1]


def test_default_stops_early_and_says_so_the_preset_does_not():
    rng = np.random.default_rng(11)
    y = np.concatenate([rng.normal(0, 1, 150), rng.normal(1.5, 1, 150)])
    res = segview.detect(y, "ecp", permutations=99, seed=2)
    assert any(n.startswith("stop_early:") for n in res.notes)
    faithful = segview.detect(y, "ecp", preset="tcpdbench")
    assert faithful.stats["permutations_run"][-1] == 199
    assert not any(n.startswith("stop_early:") for n in faithful.notes)
