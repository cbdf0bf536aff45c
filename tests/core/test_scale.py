"""The robust noise level and the ``scale`` transforms (segview.core.detectors._scale)."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.detectors._scale import SCALE_MODES, noise_sd, r_scale, scale_values
from segview.core.errors import ParameterError


def test_noise_sd_recovers_sigma_despite_shifts_and_spikes():
    rng = np.random.default_rng(11)
    y = rng.normal(0.0, 2.0, 4000)
    y[1000:] += 50.0      # level shifts
    y[2500:] -= 80.0
    y[::97] += 400.0      # isolated spikes (~1 % of points, 2 % of differences)
    assert noise_sd(y) == pytest.approx(2.0, rel=0.06)
    assert np.std(y) > 20  # the plain sd is dominated by shifts and spikes


@pytest.mark.parametrize("a,b", [(1e-9, 0.0), (1e-3, 5.0), (3.0, -2.0), (1e9, 1e3)])
def test_noise_sd_is_equivariant(a, b):
    y = np.random.default_rng(2).normal(10, 1, 500)
    assert noise_sd(a * y + b) == pytest.approx(a * noise_sd(y), rel=1e-9)


def test_quantised_series_guard():
    # a timer with resolution 1: most differences are 0, yet the series is noisy
    rng = np.random.default_rng(4)
    y = np.round(rng.normal(100.0, 0.4, 3000))
    d = np.diff(y)
    assert np.median(np.abs(d - np.median(d))) == 0.0
    s = noise_sd(y)
    assert 0.2 < s < 1.0
    assert noise_sd(1e-6 * y) == pytest.approx(1e-6 * s)


def test_degenerate_series():
    assert noise_sd(np.array([])) == 1.0
    assert noise_sd(np.array([3.0])) == 1.0
    assert noise_sd(np.full(20, 7.5)) == 1.0
    ramp = np.arange(10.0)
    assert noise_sd(ramp) == pytest.approx(np.std(ramp, ddof=1))
    few = np.zeros(100)
    few[50] = 1.0  # two non-zero differences among 99
    assert noise_sd(few) > 0


def test_scale_values_modes():
    y = np.array([1.0, 2.0, 4.0, 8.0, 9.0])
    same, a, b = scale_values(y, "none")
    assert same is y and (a, b) == (1.0, 0.0)
    for mode in SCALE_MODES:
        s, a, b = scale_values(y, mode)
        assert a > 0
        np.testing.assert_allclose(a * s + b, y, rtol=1e-14)
    z, sd, mean = scale_values(y, "zscore")
    assert mean == 4.8 and sd == pytest.approx(np.std(y, ddof=1))
    assert np.std(z, ddof=1) == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="scale"):
        scale_values(y, "minmax")


def test_r_scale_matches_r_on_known_values():
    # hand-computed: sd = sqrt(0.05 / 3), z = (x - 0.25) / sd
    z, sd, mean = r_scale(np.array([0.1, 0.2, 0.3, 0.4]))
    assert mean == 0.25
    assert sd == pytest.approx(0.12909944487358055, rel=1e-15)
    np.testing.assert_allclose(z, [-1.161895003862225, -0.3872983346207417,
                                   0.3872983346207417, 1.161895003862225], rtol=1e-15)
    z, sd, mean = r_scale(np.full(5, 2.0))
    assert sd == 1.0 and np.all(z == 0)


def test_zscore_near_the_float_limit():
    y = np.r_[np.zeros(50), np.ones(50)] * 1e300 + 1e299
    z, sd, mean = r_scale(y)
    assert np.all(np.isfinite(z)) and np.isfinite(sd) and sd > 0
    np.testing.assert_allclose(z[:50], -z[50:])
