"""Berry-Hellerstein detector (spec fisher.md): worked examples, Eq. 8, Monte Carlo, simulations."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import lfilter

import segview
from segview.core.detectors import fisher
from segview.core.detectors._fisher_kernels import two_partition
from segview.core.registry import get
from segview.core.synthetic import lcg_ar_shifts


def _prefix(x):
    c = np.asarray(x, float) - np.mean(x)
    return np.r_[0.0, np.cumsum(c)], np.r_[0.0, np.cumsum(c * c)]


def test_hand_example_partition():  # spec §7.1
    S, Q = _prefix([95, 105, 510, 490])
    d_p, d_q, q = two_partition(S, Q, 0, 4, 1)
    assert (q, d_q, d_p) == (2, pytest.approx(250.0), pytest.approx(160250.0))
    assert d_p / d_q == pytest.approx(641.0)


@pytest.mark.parametrize("n,phi,expected", [(958, .52, 1.0309391), (735, .44, 1.0317381),
                                            (958, .87, 1.1826659), (223, .36, 1.0977826)])
def test_eq8_worked_values(n, phi, expected):  # spec §5.1
    assert fisher.eq8(n, phi) == pytest.approx(expected, abs=5e-8)


@pytest.mark.parametrize("n,phi,paper", [(958, .52, 1.030), (735, .44, 1.032), (958, .87, 1.18)])
def test_eq8_close_to_paper(n, phi, paper):
    assert abs(fisher.eq8(n, phi) - paper) <= 0.006


def test_paper_vmsp_arithmetic():  # spec §7.2: root T = 140.22/(92.32+24.15), significant
    t = 140.22 / (92.32 + 24.15)
    assert t == pytest.approx(1.204, abs=5e-4)
    assert t > fisher.eq8(958, .52)
    assert 1.095 < fisher.eq8(223, .36)       # [736..958] not significant
    assert 1.053 > fisher.eq8(735, .44)       # [1..735] significant
    assert 1.077 < fisher.eq8(958, .87)       # stationary M/M/1 of Fig. 2


NODES_73 = [  # spec §7.3: a, b, q*, T, phi, Tc, significant
    (0, 600, 200, 1.281940, 0.701377, 1.075598, True),
    (0, 200, 162, 1.066817, 0.502698, 1.138506, False),
    (200, 600, 350, 1.507678, 0.657911, 1.090402, True),
    (200, 350, 304, 1.034896, 0.538616, 1.212647, False),
    (350, 600, 597, 1.022116, 0.464412, 1.096612, False),
]


def test_deterministic_series_node_log():
    res = segview.detect(lcg_ar_shifts(600), "fisher")
    assert list(res.change_points) == [200, 350]
    nodes = res.stats["nodes"]
    assert len(nodes) == len(NODES_73)
    for nd, (a, b, q, t, phi, tc, sig) in zip(nodes, NODES_73):
        assert (nd["a"], nd["b"], nd["q"], nd["significant"]) == (a, b, q, sig)
        assert nd["T"] == pytest.approx(t, abs=1e-6)
        assert nd["phi"] == pytest.approx(phi, abs=1e-6)
        assert nd["Tc"] == pytest.approx(tc, abs=1e-6)
    assert list(res.track("T").xs()) == [200, 350]
    assert list(res.track("Tc").y) == pytest.approx([1.075598, 1.090402], abs=1e-6)


def test_deterministic_series_without_shifts():
    res = segview.detect(lcg_ar_shifts(600, shifts=False), "fisher")
    assert list(res.change_points) == []
    (nd,) = res.stats["nodes"]
    assert (nd["a"], nd["b"], nd["q"]) == (0, 600, 236)
    assert (nd["T"], nd["phi"], nd["Tc"]) == (pytest.approx(1.012155, abs=1e-6),
                                              pytest.approx(0.499119, abs=1e-6),
                                              pytest.approx(1.040353, abs=1e-6))


def test_small_n_guard():  # spec §7.4
    assert fisher.eq8(41, .285) < 1.001
    x = lcg_ar_shifts(600, s0=12345)
    res = segview.detect(x, "fisher")
    # outside Eq. 8's range: simulated values (the shipped table of them since version 2)
    assert all(nd["source"] in ("simulation", "table") for nd in res.stats["nodes"]
               if not 100 <= nd["b"] - nd["a"] <= 1000)
    assert len(res.change_points) < 10
    forced = segview.detect(x, "fisher", critical="formula")
    assert any("clamped" in note for note in forced.notes)


def test_monte_carlo_agrees_with_eq8():  # spec §5.3 sanity grid
    for n in (100, 200, 500, 1000):
        for phi in (.05, .2, .4, .6, .7, .8):
            mc = fisher.monte_carlo_tc(n, phi)
            assert abs(math.log(mc - 1) - math.log(fisher.eq8(n, phi) - 1)) <= 0.4, (n, phi)


def test_monte_carlo_is_seeded_and_cached():
    a = fisher.monte_carlo_tc(150, .33, alpha=0.1, replications=500, seed=7)
    fisher.clear_mc_cache()
    assert fisher.monte_carlo_tc(150, .33, alpha=0.1, replications=500, seed=7) == a
    assert fisher.monte_carlo_tc(150, .33, alpha=0.1, replications=500, seed=8) != a
    assert fisher.monte_carlo_tc(150, .33, alpha=0.01, replications=500, seed=7) > a


def _ar1_batch(rng, reps, n, phi):
    a = rng.standard_normal((reps, n))
    a[:, 0] /= math.sqrt(1 - phi * phi)
    return lfilter([1.0], [1.0, -phi], a, axis=1)


@pytest.mark.parametrize("phi", [.2, .5, .8])
@pytest.mark.parametrize("n", [100, 1000])
def test_size_of_root_test_eq8(phi, n):  # spec §10.1 (root test decides any false alarm)
    x = _ar1_batch(np.random.default_rng([11, n, int(phi * 10)]), 2000, n, phi)
    rejects = 0
    for row in x:
        S, Q = _prefix(row)
        d_p, d_q, _ = two_partition(S, Q, 0, n, 1)
        rejects += d_p / d_q > fisher.eq8(n, fisher.lag1_autocorrelation(row))
    assert 0.015 <= rejects / 2000 <= 0.10


def test_stationary_ar1_mostly_no_change():
    x = _ar1_batch(np.random.default_rng(2024), 100, 500, 0.5)
    quiet = sum(segview.detect(row, "fisher").change_points.size == 0 for row in x)
    assert quiet >= 85


def test_mean_shift_found():
    phi = 0.5
    sigma = 1 / math.sqrt(1 - phi * phi)  # marginal sd of the AR(1) noise
    x = _ar1_batch(np.random.default_rng(99), 50, 500, phi)
    x[:, 250:] += 2.5 * sigma
    hits = 0
    for row in x:
        cps = segview.detect(row, "fisher").change_points
        hits += bool(cps.size) and int(np.min(np.abs(cps - 250))) <= 15
    assert hits >= 45


def test_alpha_changes_use_simulation_and_scale_invariance():
    x = lcg_ar_shifts(600)
    res = segview.detect(x, "fisher", alpha=0.01, replications=1000)
    assert {nd["source"] for nd in res.stats["nodes"]} == {"table"}  # tabulated alpha, no Eq. 8
    res = segview.detect(x, "fisher", alpha=0.02, replications=1000)
    assert {nd["source"] for nd in res.stats["nodes"]} == {"simulation"}
    assert list(segview.detect(3 * x + 7, "fisher").change_points) == [200, 350]


def test_constant_and_tiny_series():
    assert segview.detect(np.ones(50), "fisher").change_points.size == 0
    assert segview.detect([1.0], "fisher").change_points.size == 0
    assert get("fisher").defaults()["alpha"] == 0.05


def test_monte_carlo_batches_do_not_change_the_value(monkeypatch):
    a = fisher.monte_carlo_tc(120, .41, replications=700, seed=3)
    fisher.clear_mc_cache()
    monkeypatch.setattr(fisher, "_CELLS_PER_BATCH", 120 * 50)
    assert fisher.monte_carlo_tc(120, .41, replications=700, seed=3) == a


def test_cancellation_inside_monte_carlo():
    from segview.core.context import RunContext
    from segview.core.errors import Cancelled
    ctx = RunContext()
    ctx.cancel()
    with pytest.raises(Cancelled):
        fisher.monte_carlo_tc(130, .2, replications=300, seed=99, ctx=ctx)


def _root_rejects(x) -> bool:
    S, Q = _prefix(x)
    d_p, d_q, _ = two_partition(S, Q, 0, x.size, 1)
    return d_p / d_q > fisher.eq8(x.size, fisher.lag1_autocorrelation(x))


def test_mm1_no_change_false_alarm_rate_loose():  # spec §10.2: reproduction 0.12-0.18, assert <= .25
    from segview.core.synthetic import mm1_response_times
    rate = np.mean([_root_rejects(mm1_response_times(1000, 0.4, seed=s)[0].values)
                    for s in range(200)])
    assert rate <= 0.25


def test_mm1_power_does_not_fall_with_shift():  # spec §10.3, N=1000, rho=.2, f=.5
    from segview.core.synthetic import mm1_response_times
    accept = []
    for drho in (0.0, 0.1, 0.2, 0.3):
        runs = [_root_rejects(mm1_response_times(1000, 0.2, drho=drho, seed=s)[0].values)
                for s in range(150)]
        accept.append(1 - np.mean(runs))
    assert all(b <= a + 0.05 for a, b in zip(accept, accept[1:])), accept
    assert accept[0] > 0.7 and accept[1] < 0.2  # reference: .86, .02, .01, .01


@pytest.mark.parametrize("phi", [.2, .5, .8])
@pytest.mark.parametrize("n", [100, 1000])
def test_size_with_monte_carlo_at_true_phi(phi, n):  # spec §10.1 second bullet
    tc = fisher.monte_carlo_tc(n, phi, 0.05, 4000, 1, seed=1)
    x = _ar1_batch(np.random.default_rng([77, n, int(phi * 10)]), 2000, n, phi)
    rejects = 0
    for row in x:
        S, Q = _prefix(row)
        d_p, d_q, _ = two_partition(S, Q, 0, n, 1)
        rejects += d_p / d_q > tc
    assert abs(rejects / 2000 - 0.05) <= 0.02


def test_monte_carlo_values_are_shared_through_the_cache_folder(monkeypatch, tmp_path):
    import subprocess
    import sys

    monkeypatch.setenv("SEGVIEW_CACHE_DIR", str(tmp_path))
    code = ("from segview.core.detectors import fisher; "
            "print(repr(fisher.monte_carlo_tc(140, .27, alpha=0.1, replications=400, seed=11)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "SEGVIEW_CACHE_DIR": str(tmp_path)})
    other_process = float(out.stdout.strip())
    fisher._MC_CACHE.clear()  # memory only: the value must come from the other process's file

    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated again although another process stored the value")

    monkeypatch.setattr(fisher, "simulate_t", no_simulation)
    assert fisher.monte_carlo_tc(140, .27, alpha=0.1, replications=400, seed=11) == other_process


def test_an_unusable_cache_folder_only_costs_time(monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("SEGVIEW_CACHE_DIR", str(blocker))
    fisher.clear_mc_cache()
    a = fisher.monte_carlo_tc(110, .5, replications=300, seed=5)
    fisher._MC_CACHE.clear()
    assert fisher.monte_carlo_tc(110, .5, replications=300, seed=5) == a  # recomputed, same value


# --------------------------------------------------------------------------- issue 15.4: table
TABLE_CHECKS = [(7, .9), (20, .5), (50, .37), (150, .63), (700, .82), (2500, .27), (2500, .93)]


@pytest.mark.parametrize("n, phi", TABLE_CHECKS)
def test_table_agrees_with_monte_carlo(n, phi):
    """Off-grid lookups against fresh Monte Carlo values (other seed, spec §5.3, R = 4000): within
    0.1 in log(Tc - 1), about twice the simulation's own noise."""
    from segview.core.detectors import _fisher_table
    mc = fisher.monte_carlo_tc(n, phi, 0.05, 4000, 1, seed=12345)
    tab = _fisher_table.lookup(n, round(phi, 2), 0.05)
    assert abs(math.log(tab - 1) - math.log(mc - 1)) <= 0.1, (tab, mc)


def test_table_covers_other_alphas_and_orders_them():
    from segview.core.detectors import _fisher_table
    vals = [_fisher_table.lookup(300, 0.4, a) for a in (0.01, 0.025, 0.05, 0.10)]
    assert vals == sorted(vals, reverse=True)
    assert _fisher_table.available(0.05, 1) and not _fisher_table.available(0.05, 2)
    assert not _fisher_table.available(0.07, 1)
    with pytest.raises(KeyError):
        _fisher_table.lookup(300, 0.4, 0.07)


def test_long_series_need_no_simulation(monkeypatch):
    """Issue 15.4: the first run at a new length is immediate (no Monte Carlo for any node)."""
    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated a critical value")

    monkeypatch.setattr(fisher, "simulate_t", no_simulation)
    fisher._MC_CACHE.clear()
    x = _ar1_batch(np.random.default_rng(8), 1, 50_000, 0.5)[0]
    x[20_000:] += 1.0
    res = segview.detect(x, "fisher")
    assert {nd["source"] for nd in res.stats["nodes"]} <= {"table", "formula"}
    assert any(abs(c - 20_000) < 200 for c in res.change_points)
    # unusual alphas still simulate
    with pytest.raises(AssertionError, match="simulated"):
        segview.detect(x[:2000], "fisher", alpha=0.07)


def test_version_2_and_simulate_policy_keeps_monte_carlo():
    assert get("fisher").version == "2"
    x = lcg_ar_shifts(600)
    res = segview.detect(np.r_[x, x], "fisher", critical="simulate", replications=500)
    assert {nd["source"] for nd in res.stats["nodes"]} == {"simulation"}


# --------------------------------------------------------------------------- issue 16.2 options
def test_candidate_tree_is_figure_4():
    x = lcg_ar_shifts(600)
    res = segview.detect(x, "fisher", tree_depth=3)
    tree = res.stats["candidate_tree"]
    assert tree[0] == {"a": 0, "b": 600, "q": 200, "T": pytest.approx(1.281940, abs=1e-6),
                       "depth": 0}
    # Tc = 0: both halves of every candidate are split again (pre-order, left first)
    assert [(nd["a"], nd["b"]) for nd in tree[:3]] == [(0, 600), (0, 200), (0, tree[1]["q"])]
    assert len(tree) == 1 + 2 + 4 and max(nd["depth"] for nd in tree) == 2
    assert all(nd["T"] > 1 for nd in tree)
    track = res.track("candidate tree (Tc = 0)")
    assert np.isnan(track.y).sum() == len(tree)  # one tick per candidate
    assert np.all(np.diff(track.xs()) >= 0)  # plots clip and downsample assuming sorted x
    assert track.y[0] == -float(min(tree, key=lambda nd: nd["q"])["depth"])
    # the faithful result itself is unchanged by the option
    plain = segview.detect(x, "fisher")
    assert list(plain.change_points) == list(res.change_points) == [200, 350]


def test_prewhitening_tests_ar1_residuals():
    x = lcg_ar_shifts(600)
    res = segview.detect(x, "fisher", prewhiten=True)
    resid, phi = fisher.prewhiten(x)
    assert phi == pytest.approx(fisher.lag1_autocorrelation(x))
    assert resid.size == 599 and resid[0] == pytest.approx(x[1] - phi * x[0])
    root = res.stats["nodes"][0]
    assert root["a"] == 1 and root["b"] == 600  # residual i belongs to sample i + 1
    assert root["phi"] < 0.2  # the residuals are nearly white
    assert any("prewhiten" in n for n in res.notes)
    assert any(abs(c - 200) <= 5 for c in res.change_points)


def test_sieve_calibration_keeps_real_changes():
    x = lcg_ar_shifts(600)
    res = segview.detect(x, "fisher", calibrate="sieve")
    assert list(res.change_points) == [200, 350]
    assert {nd["source"] for nd in res.stats["nodes"]} == {"sieve"}
    again = segview.detect(x, "fisher", calibrate="sieve")
    assert [nd["Tc"] for nd in again.stats["nodes"]] == [nd["Tc"] for nd in res.stats["nodes"]]


def test_ar_sieve_recovers_an_ar2():
    rng = np.random.default_rng(4)
    e = rng.standard_normal(20_000)
    x = lfilter([1.0], [1.0, -0.5, 0.3], e)
    coef, resid = fisher.ar_sieve(x)
    assert coef.size >= 2
    assert coef[0] == pytest.approx(0.5, abs=0.03) and coef[1] == pytest.approx(-0.3, abs=0.03)
    assert resid.std() == pytest.approx(1.0, abs=0.03)


def test_block_calibration_finds_a_utilisation_change_and_is_repeatable():
    from segview.core.synthetic import mm1_response_times
    x = mm1_response_times(1000, 0.2, drho=0.3, f=0.5, seed=3)[0].values
    res = segview.detect(x, "fisher", calibrate="block")
    assert any(abs(c - 500) <= 25 for c in res.change_points), res.change_points
    assert {nd["source"] for nd in res.stats["nodes"]} <= {"block bootstrap", "block (paper floor)"}
    assert all(nd["Tc"] >= fisher.eq8(nd["b"] - nd["a"], nd["phi"]) - 1e-12
               for nd in res.stats["nodes"] if 100 <= nd["b"] - nd["a"] <= 1000)
    again = segview.detect(x, "fisher", calibrate="block")
    assert [nd["Tc"] for nd in again.stats["nodes"]] == [nd["Tc"] for nd in res.stats["nodes"]]
    assert any("normal scores" in n for n in res.notes)


def test_normal_scores_keep_order_and_ties():
    z = fisher.normal_scores(np.array([3.0, 1.0, 2.0, 2.0, 10.0]))
    assert np.argsort(z, kind="stable").tolist() == [1, 2, 3, 0, 4]
    assert z[2] == z[3] and z[0] > z[2]
    assert fisher.normal_scores(np.arange(5.0)).sum() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.2, 0.5])
def test_block_calibrated_size_on_mm1(rho):
    """Issue 16 acceptance: with calibrate=block the procedure reports a change on M/M/1 response
    times without change (N = 1000, warm-up 60,000 customers, seeds 0..599) in 3-7 % of runs
    (faithful: 12-18 %, docs/berry-hellerstein.md)."""
    from segview.core.synthetic import mm1_response_times
    rate = np.mean([segview.detect(mm1_response_times(1000, rho, seed=s)[0].values, "fisher",
                                   calibrate="block").change_points.size > 0
                    for s in range(600)])
    assert 0.03 <= rate <= 0.07, rate
