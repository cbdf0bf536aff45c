"""bocpd: R ocp's BOCPD recursion (compiled kernel = plain twin), run-length diagnostics."""
from __future__ import annotations

import numpy as np
import pytest

import segview
from segview.core.detectors._bocpd_kernels import bocpd
from segview.core.io.detections import to_tcpdbench


def _series(seed, d=1):
    rng = np.random.default_rng(seed)
    y = np.r_[rng.normal(0, 1, (120, d)), rng.normal(3, 1, (80, d)), rng.normal(0, 3, (100, d))]
    return y[:, 0] if d == 1 else y


@pytest.mark.parametrize("d", [1, 2])
def test_compiled_kernel_equals_plain_twin(d):
    y = _series(5, d)
    y = (y - y.mean(0)) / y.std(0)
    a_cps, a = bocpd(y, 100, (0.0, 1.0, 1.0, 1.0), keep_posterior=True)
    b_cps, b = bocpd(y, 100, (0.0, 1.0, 1.0, 1.0), compiled=False, keep_posterior=True)
    a_post, b_post = a["posteriors"], b["posteriors"]
    assert list(a_cps) == list(b_cps)
    assert len(a_post) == len(b_post) == y.shape[0]
    assert all(np.array_equal(p, q) for p, q in zip(a_post, b_post))  # bit for bit


def test_finds_mean_and_variance_changes_with_posterior_diagnostics():
    y = _series(1)
    res = segview.detect(y, "bocpd")
    cps = list(res.change_points)
    assert any(abs(c - 120) <= 2 for c in cps) and any(abs(c - 200) <= 3 for c in cps)
    assert res.strengths is not None and res.strengths.size == len(cps)
    assert np.all((res.strengths >= 0) & (res.strengths <= 1))
    big = [s for c, s in zip(cps, res.strengths) if abs(c - 120) <= 2]
    assert big[0] > 0.5  # a clear change: most of the posterior says the run began there
    run = res.track("MAP run length").y
    assert run.size == y.size and run[119] >= 100 and run[130] <= 15
    short = res.track("P(run < 5)").y
    assert np.all((short >= 0) & (short <= 1 + 1e-12))


def test_constant_hazard_makes_p_run_zero_equal_the_hazard():
    # why P(run length = 0) is not a track: it is always exactly 1/lambda up to rounding
    _, diag = bocpd(_series(2), 50, (0.0, 1.0, 1.0, 1.0), keep_posterior=True)
    assert all(p[0] == pytest.approx(1 / 50, rel=1e-12) for p in diag["posteriors"])


def test_strength_is_the_posterior_mass_of_the_start_lag_samples_later():
    from segview.core.detectors.bocpd import start_probability
    y = _series(4)
    _, diag = bocpd(y, 100, (0.0, 1.0, 1.0, 1.0), keep_posterior=True, strength_lag=10)
    post = diag["posteriors"]
    # c = 120: the posterior after sample 130 (index 129), run lengths 8..12
    assert start_probability(diag, 120, 10) == pytest.approx(float(post[129][8:13].sum()))
    # near the end: the final posterior, run length n - c
    n = y.size
    assert start_probability(diag, n - 3, 10) == pytest.approx(float(post[-1][1:6].sum()))


def test_tcpdbench_reports_bocpd_first_samples():
    assert to_tcpdbench([1, 28, 99], 100, "bocpd") == [1, 28]  # 99 = n - 1 is dropped
    assert to_tcpdbench([1, 28, 99], 100, "amoc") == [27, 98]
    assert to_tcpdbench([1, 28, 99], 100) == [27, 98]
