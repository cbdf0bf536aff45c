"""warmup_stats' outlier rule: segview's sliding kernel against a direct implementation of the rule.

The reference below is written from the rule as warmup_stats 41212e0 states it in
warmup/outliers.py (window ``data[max(0, i - W//2) : min(n, i + W//2)]``, incomplete first windows
skipped, ``median +- 3 (p90 - p10)`` with its own interpolation), one window at a time, with
``statistics``-free plain Python: slow and obvious.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from segview.core.errors import InputError
from segview.core.warmup import mark_outliers, outlier_window

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "warmup" / "cpt_golden.json"


def _pct(s, pc):
    if len(s) == 1:
        return s[0]
    k = (len(s) - 1) * (pc / 100.0)
    f, c = float(math.floor(k)), float(math.ceil(k))
    if f == c:
        return s[int(k)]
    return s[int(f)] * (c - k) + s[int(c)] * (k - f)


def _med(s):
    n = len(s)
    if n == 1:
        return s[0]
    i = (n - 1) // 2
    return s[i] if n % 2 else (s[i] + s[i + 1]) / 2.0


def reference(data, window):
    data = [float(v) for v in data]
    h = window // 2
    out = []
    for i, d in enumerate(data):
        lo = max(0, i - h) if i - h >= 0 else 0
        hi = min(len(data), i + h)
        if lo == 0 and hi < window:
            continue
        s = sorted(data[lo:hi])
        med = _med(s)
        band = 3 * (_pct(s, 90.0) - _pct(s, 10.0))
        if d > med + band or d < med - band:
            out.append(i)
    return out


def _series(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    kind = seed % 4
    if kind == 0:
        x = rng.normal(1, 0.01, n)
    elif kind == 1:     # heavy tails: many outliers
        x = 1 + 0.01 * rng.standard_t(1.5, n)
    elif kind == 2:     # quantised: ties everywhere, zero-width bands
        x = np.round(rng.normal(0.01, 0.0006, n), 3)
    else:               # a step and spikes
        x = np.where(np.arange(n) < n // 3, 2.0, 1.0) + rng.normal(0, 0.02, n)
        x[rng.integers(0, n, 5)] += 1.0
    return x, int(rng.integers(2, 60))


@pytest.mark.parametrize("seed", range(40))
def test_kernel_equals_the_direct_rule(seed):
    x, w = _series(seed)
    for window in (w, w + 1, outlier_window(x.size)):   # odd and even windows, the default
        assert mark_outliers(x, window).tolist() == reference(x, window), window


def test_window_longer_than_the_series_and_tiny_windows():
    x, _ = _series(3)
    for window in (x.size - 1, x.size, x.size + 1, 2 * x.size, 2, 3):
        assert mark_outliers(x, window).tolist() == reference(x, window), window
    # W // 2 == 0: warmup_stats fails on an empty window; nothing is marked here
    assert mark_outliers(x, 1).tolist() == [] and mark_outliers(x, 0).tolist() == []


def test_default_window_is_ten_percent():
    assert outlier_window(200) == 20 and outlier_window(2000) == 200 and outlier_window(19) == 1


def test_a_spike_is_an_outlier_but_not_in_the_first_half_window():
    # flat 1.0 with alternating +-0.001: every window's p10 = 0.999, p90 = 1.001, so the band is
    # median +- 0.012. A spike of +1 at 50 is an outlier; one at 5 lies in the first W/2 = 10
    # iterations, whose windows are incomplete and skipped.
    x = 1.0 + 0.001 * np.where(np.arange(100) % 2 == 0, 1.0, -1.0)
    x[50] += 1.0
    x[5] += 1.0
    assert mark_outliers(x, 20).tolist() == [50]


def test_real_fixture_outliers_equal_the_original_code():
    # cpt_golden.json's "outliers" were computed by a line-by-line port of warmup_stats'
    # _tukey_all_outliers (make_cpt_golden.py), window int(0.1 n) as bin/warmup_stats passes it
    doc = json.loads(GOLDEN.read_text())
    krun = [s for s in doc["series"] if s["name"].startswith("krun")]
    assert len(krun) == 10
    for s in krun:
        assert mark_outliers(np.array(s["values"])).tolist() == s["outliers"], s["name"]


def test_non_finite_values_are_a_named_error():
    with pytest.raises(InputError, match="finite"):
        mark_outliers([1.0, float("nan"), 2.0] * 10)
