"""KB-KSSD: the spec's test vectors TV-1..TV-8, a plain transcription of the spec as a cross-check
of the fast path (hypothesis), input validation, prepare/run split and the opt-in improvements.

Every expected number below comes from ``shared/spec/kbkssd.md`` §10 (or is derived by hand from
the spec's formulas), never from the code under test.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.signal
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import segview
from segview.core.api import MAGNITUDE_LIMITS
from segview.core.context import RunContext
from segview.core.detectors import _kbkssd_kernels, kbkssd
from segview.core.errors import InputError, ParameterError

# ---------------------------------------------------------------------------------------------
# Plain reference: a direct transcription of spec §§3-7 (np.convolve, per-block np.percentile,
# np.median after every replacement). Slow on purpose; used to cross-check the fast detector.
# ---------------------------------------------------------------------------------------------


def ref_substitute(x, window, p_hi, p_lo):
    y = np.array(x, dtype=np.float64, copy=True)
    tail = y[1:]
    for block in np.array_split(tail, int(len(tail) / int(window))):  # views into y
        hi = np.percentile(block, p_hi)
        lo = np.percentile(block, p_lo)
        order = np.concatenate((np.flatnonzero(block > hi), np.flatnonzero(block < lo)))
        for i in order:
            block[i] = np.median(block)
    return y


def ref_step(s, win, half=15):
    n = len(s)
    d = s - np.mean(s)
    r_large = np.convolve(d, np.concatenate((np.ones(n), -np.ones(n))), mode="valid")
    r_short = np.convolve(d, np.array(half * [1] + half * [-1]), mode="valid")
    large = int(np.argmin(r_large)) - 1
    short = int(np.argmin(r_short)) + half - 1
    if large == n - 1:
        large = -1
    if short == n - 1:
        short = -1
    if abs(large - short) in (0, 1):
        large = -1
    fallback = None
    if large >= 0:
        a, b = min(large, short), max(large, short)
        if a == 0:
            return b
        drop = np.median(d[max(b - win, 0):b + 1]) - np.median(d[b + 1:min(b + win, n - 1) + 1])
        c = a
        if np.median(d[a + 1:b]) > 2 * abs(drop) + np.median(d[b + 1:]):
            c, fallback = b, a
    else:
        c = short
    if np.median(d[:c]) - np.median(d[c:]) < abs(np.median(d)) / 2:
        return fallback if fallback is not None else -1
    return c


def ref_kelly(z, n, t_crit):
    size = len(z)
    width = min(n, size)
    blocks = []
    start = 0
    while True:
        end = start + width
        last = end >= size
        if last:
            end = size
        if end - start < 3:
            if not blocks:
                return np.full(size, -1.0)
            blocks[-1][1] = end
        else:
            blocks.append([start, end])
        if last:
            break
        start = end
    out = np.zeros(size)
    for a, b in blocks:
        blk = z[a:b]
        m = b - a
        slope = np.mean(np.diff(blk))
        mu = (np.sum(blk) - np.sum(np.arange(1, m + 1) * slope)) / m
        sd = np.sqrt(np.sum((blk - slope * np.arange(1, m + 1) - mu) ** 2) / (m - 2))
        out[a:b] = np.mean(np.abs(blk - mu) <= t_crit * sd)
    return out


def ref_kbkssd(x, window=100, p_hi=98, p_lo=2, kernel=1, win=70, n=500, t_crit=4.0,
               threshold=0.95, min_steady=1):
    """Returns (onset or -1, warm-up end w, probabilities P)."""
    y = ref_substitute(x, window, p_hi, p_lo)
    s = scipy.signal.medfilt(y, kernel) if kernel > 1 else y.copy()
    w = ref_step(s, win)
    size = len(y)
    if w < 0:
        prob = ref_kelly(y, n, t_crit)
    else:
        right = y[w + 1:]
        tail = ref_kelly(right, n, t_crit) if len(right) >= 2 else np.zeros(len(right))
        prob = np.concatenate((np.zeros(w + 1), tail))
    runs = []  # (start, end, value)
    start = 0
    for i in range(1, size + 1):
        if i == size or prob[i] != prob[start]:
            runs.append((start, i - 1, prob[start]))
            start = i
    onset = -1
    for a, _, v in reversed(runs):
        if v >= threshold:
            onset = a
        else:
            break
    if onset > runs[-1][1] - min_steady:
        onset = -1
    return onset, w, prob


def detect(x, **params):
    return segview.detect(np.asarray(x, dtype=np.float64), "kbkssd", **params)


SMALL = dict(outliers_window_size=10, prob_win_size=15, t_crit=4.0, step_win_size=5,
             prob_threshold=0.95)


# --------------------------------------- TV-1 .. TV-8 -----------------------------------------

def test_tv1_sequential_substitution():
    x = np.array([50, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100] + [10] * 10, dtype=float)
    y, pos = kbkssd.substitute_outliers(x, 10, 98, 2)
    expected = [50, 5.25, 2, 3, 4, 5, 6, 7, 8, 9, 5.5] + [10] * 10
    assert y.tolist() == expected
    assert pos.tolist() == [1, 10]
    assert x[10] == 100  # input untouched
    assert ref_substitute(x, 10, 98, 2).tolist() == expected


def test_tv1_block_percentiles():
    block = np.arange(1.0, 10.0).tolist() + [100.0]
    srt = np.sort(np.array(block))
    assert _kbkssd_kernels._percentile_sorted(srt, 10, 0.98) == pytest.approx(83.62, abs=1e-12)
    assert _kbkssd_kernels._percentile_sorted(srt, 10, 0.02) == pytest.approx(1.18, abs=1e-12)


def test_tv2_kelly():
    p = kbkssd.kelly(np.array([1, 2, 3, 4, 10.0]), 5, 4.0)
    assert p.tolist() == [0.8] * 5
    assert kbkssd.kelly(np.array([1, 2, 3, 4, 10.0]), 5, 1.0).tolist() == [0.0] * 5
    assert kbkssd.kelly(np.array([1, 2, 3, 4, 10, 3, 3.0]), 5, 4.0).tolist() == [1.0] * 7
    assert kbkssd.kelly(np.array([1, 2, 3, 4, 10, 3, 3, 3.0]), 5, 4.0).tolist() == \
        [0.8] * 5 + [1.0] * 3
    assert kbkssd.kelly(np.array([1, 2.0]), 5, 4.0).tolist() == [-1.0, -1.0]


@pytest.mark.parametrize("name, x, params, w, onset", [
    ("TV-3 clean step", [10] * 20 + [5] * 40, SMALL, 19, 20),
    ("TV-4 huge first sample", [100] + [10] * 59, SMALL, 14, 15),
    ("TV-5 constant", [7] * 60, SMALL, 14, 15),
    ("TV-6 later candidate then fallback", [30] * 5 + [9] * 16 + [8] * 39, SMALL, 4, 5),
    ("TV-7 upward step", [5] * 30 + [10] * 30, dict(SMALL, prob_win_size=20), -1, 0),
    ("TV-7 upward step, n=15", [5] * 30 + [10] * 30, SMALL, -1, 0),
    ("TV-8 short-kernel floor", [30] * 3 + [10] * 29 + [8] * 28, SMALL, 14, 15),
])
def test_vectors(name, x, params, w, onset):
    res = detect(x, **params)
    assert res.stats["warmup_end"] == w, name
    assert res.steady_start == onset, name
    assert res.change_points.tolist() == ([w + 1] if w >= 0 else [])
    ref = ref_kbkssd(np.array(x, dtype=float), window=10, n=params["prob_win_size"], win=5)
    assert ref[:2] == (onset, w), name


def test_tv3_details():
    res = detect([10] * 20 + [5] * 40, **SMALL)
    assert res.stats["large_candidate"] == 19 and res.stats["short_candidate"] == 19
    assert res.stats["branch"] == "B-keep" and res.stats["n_outliers"] == 0
    prob = res.track("steadiness probability").y
    assert prob.tolist() == [0.0] * 20 + [1.0] * 40


def test_tv4_details():
    res = detect([100] + [10] * 59, **SMALL)
    assert res.stats["large_candidate"] == 0 and res.stats["short_candidate"] == 14
    assert res.stats["branch"] == "A-early-return"
    r_large = res.track("large kernel response")
    assert r_large.x0 == -1 and len(r_large.y) == 61
    assert r_large.y[1] == pytest.approx(-177.0) and np.argmin(r_large.y) == 1
    r_short = res.track("short kernel response")
    assert r_short.x0 == 14 and len(r_short.y) == 31 and r_short.y[0] == pytest.approx(-90.0)


def test_tv6_tv8_branches():
    assert detect([30] * 5 + [9] * 16 + [8] * 39, **SMALL).stats["branch"] == \
        "A-choose-b-fallback-to-a"
    res = detect([30] * 3 + [10] * 29 + [8] * 28, **SMALL)
    assert (res.stats["large_candidate"], res.stats["short_candidate"]) == (2, 14)
    assert res.stats["branch"] == "A-choose-b-keep"


# ------------------------------------- validation ---------------------------------------------

def test_too_short_for_outlier_window():
    with pytest.raises(InputError, match="at least 101 points"):
        detect(np.arange(100.0))
    assert detect(np.arange(101.0)) is not None


def test_too_short_for_short_kernel():
    with pytest.raises(InputError, match="at least 30 points"):
        detect(np.arange(29.0), outliers_window_size=10)
    with pytest.raises(InputError, match="at least 40 points"):
        detect(np.arange(39.0), outliers_window_size=10, short_half=20)


def test_bad_values_and_params():
    with pytest.raises(InputError, match="non-finite"):
        detect([1.0] * 200 + [np.nan])
    with pytest.raises(ParameterError, match="medfilt_kernel_size.*odd"):
        detect(np.arange(200.0), medfilt_kernel_size=4)
    with pytest.raises(ParameterError, match="prob_win_size"):
        detect(np.arange(200.0), prob_win_size=2)
    with pytest.raises(InputError, match="non-finite"):  # direct call without the API
        kbkssd.prepare(np.array([1.0] * 200 + [np.inf]), kbkssd.SPEC.defaults(), RunContext())


def test_min_length_from_params():
    spec = segview.core.registry.get("kbkssd")
    assert spec.required_length(spec.defaults()) == 101
    assert spec.required_length(spec.coerce({"outliers_window_size": 10})) == 30
    assert spec.produces == "onset"
    assert spec.prepare_params == {"outliers_window_size", "percentile_upper", "percentile_lower",
                                   "medfilt_kernel_size", "step_win_size", "prob_win_size",
                                   "t_crit", "direction", "short_half"}


def test_caller_array_untouched():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(20, 3, 300), rng.normal(10, 1, 2700)])
    x[rng.integers(1, 3000, 50)] *= 4  # outliers to substitute
    before = x.copy()
    res = segview.detect(x, "kbkssd")  # plain writable array
    assert res.stats["n_outliers"] > 0
    assert np.array_equal(x, before)
    kbkssd.run(x, kbkssd.SPEC.defaults(), RunContext())
    assert np.array_equal(x, before)


# ------------------------------- prepare / run split ------------------------------------------

def test_prepare_then_run_equals_full_run():
    rng = np.random.default_rng(5)
    x = np.concatenate([np.linspace(30, 10, 400) + rng.normal(0, 1, 400),
                        rng.normal(10, 1, 2600)])
    spec = kbkssd.SPEC
    params = spec.defaults()
    prepared = spec.prepare(x, params, RunContext())
    for thr in (0.5, 0.8, 0.95, 0.99, 1.0):
        p = params.replace(prob_threshold=thr)
        fast = spec.run(x, p, RunContext(prepared=prepared))
        full = segview.detect(x, "kbkssd", prob_threshold=thr)
        ref = ref_kbkssd(x, threshold=thr)
        assert fast.steady_start == full.steady_start
        assert (-1 if fast.steady_start is None else fast.steady_start) == ref[0]
        assert np.array_equal(fast.change_points, full.change_points)
        assert np.array_equal(fast.track("steadiness probability").y, ref[2])


def test_threshold_track_and_stats():
    x = np.concatenate([np.full(200, 50.0), np.full(800, 10.0)]) + \
        np.random.default_rng(2).normal(0, 1, 1000)
    res = segview.detect(x, "kbkssd")
    prob = res.track("steadiness probability")
    assert prob.threshold_param == "prob_threshold" and prob.y_range == (0.0, 1.0)
    assert len(prob.y) == 1000 and len(res.track("smoothed series").y) == 1000
    assert len(res.track("short kernel response").y) == 1000 - 29
    assert res.stats["warmup_end"] == 199 and res.change_points.tolist() == [200]
    idx = res.stats["outlier_indices"]
    assert idx.size == res.stats["n_outliers"] and idx.min() >= 1
    assert res.notes == ()


# ------------------------------ fast path vs plain reference ----------------------------------

def _cross_check(x, **kw):
    params = dict(outliers_window_size=kw.get("window", 100), percentile_upper=kw.get("p_hi", 98),
                  percentile_lower=kw.get("p_lo", 2), medfilt_kernel_size=kw.get("kernel", 1),
                  step_win_size=kw.get("win", 70), prob_win_size=kw.get("n", 500),
                  t_crit=kw.get("t_crit", 4.0), prob_threshold=kw.get("threshold", 0.95),
                  min_steady_length=kw.get("min_steady", 1))
    res = detect(x, **params)
    onset, w, prob = ref_kbkssd(x, **kw)
    assert res.stats["warmup_end"] == w
    assert (-1 if res.steady_start is None else res.steady_start) == onset
    assert np.array_equal(res.track("steadiness probability").y, prob)
    assert np.array_equal(res.track("smoothed series").y,
                          scipy.signal.medfilt(ref_substitute(x, kw.get("window", 100),
                                                              kw.get("p_hi", 98),
                                                              kw.get("p_lo", 2)),
                                               kw.get("kernel", 1)))


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_equals_reference_random(data):
    size = data.draw(st.integers(60, 700))
    kind = data.draw(st.sampled_from(["noise", "step", "ties", "ints"]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "noise":
        x = rng.normal(10, 2, size) * np.exp(rng.normal(0, 0.3, size))
    elif kind == "step":
        cut = int(rng.integers(1, size - 1))
        x = np.where(np.arange(size) < cut, rng.uniform(5, 30), 10.0) + rng.normal(0, 1, size)
    elif kind == "ties":
        x = rng.choice(np.array([1.0, 2.0, 2.5, 7.0]), size)
    else:
        x = rng.integers(-5, 6, size).astype(float)
    kw = dict(window=data.draw(st.integers(5, min(120, size - 1))),
              p_hi=data.draw(st.sampled_from([98, 85, 99.5, 75.5])),
              p_lo=data.draw(st.sampled_from([2, 1, 10.5, 0])),
              kernel=data.draw(st.sampled_from([1, 1, 3, 21])),
              win=data.draw(st.integers(1, 100)),
              n=data.draw(st.integers(3, 300)),
              t_crit=data.draw(st.floats(0.5, 6.0)),
              threshold=data.draw(st.sampled_from([0.75, 0.9, 0.95, 1.0])),
              min_steady=data.draw(st.integers(0, 3)))
    _cross_check(x, **kw)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(values=arrays(np.float64, st.integers(30, 400),
                     elements=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)))
def test_fast_equals_reference_arbitrary_values(values):
    # Detectors refuse series whose largest |value| is below 1e-150 (squares underflow); that refusal
    # has its own tests, this one compares the fast path with the reference where both compute.
    assume(not 0.0 < np.max(np.abs(values)) < MAGNITUDE_LIMITS[0])
    _cross_check(values, window=min(29, values.size - 1), n=50, win=10)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(block=arrays(np.float64, st.integers(1, 300),
                    elements=st.floats(-1e3, 1e3, allow_nan=False, width=32)),
       p=st.floats(0, 100))
def test_kernel_percentile_equals_numpy(block, p):
    srt = np.sort(block)
    got = _kbkssd_kernels._percentile_sorted(srt, block.size, p / 100)
    assert got == np.percentile(block, p)


@pytest.mark.parametrize("seed", range(6))
def test_large_kernel_argmin_equals_convolve(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(30, 4000))
    for d in (rng.normal(0, 1, size), np.round(rng.normal(0, 1, size), 1),
              np.full(size, 0.1) - np.mean(np.full(size, 0.1)), rng.normal(0, 1e-9, size) + 3):
        d = d - np.mean(d)
        j, approx = kbkssd.large_kernel(d)
        exact = np.convolve(d, np.concatenate((np.ones(size), -np.ones(size))), mode="valid")
        assert j == int(np.argmin(exact))
        assert np.allclose(approx, exact, rtol=0, atol=1e-9 * (1 + np.abs(d).sum()))


@pytest.mark.parametrize("half", [2, 3, 5, 6, 8, 9, 12, 15, 20, 40])
def test_short_kernel_argmin_equals_convolve(half):
    rng = np.random.default_rng(half)
    for size in (2 * half, 2 * half + 1, 300, 3000):
        kernel = np.array(half * [1] + half * [-1])
        for d in (rng.normal(0, 1, size), np.round(rng.normal(0, 1, size), 1),
                  rng.choice(np.array([0.0, 1.0, 2.5]), size), np.zeros(size)):
            d = d - np.mean(d)
            j, resp = kbkssd.short_kernel(d, half)
            exact = np.convolve(d, kernel, mode="valid")
            assert j == int(np.argmin(exact))
            assert len(resp) == size - 2 * half + 1
            assert np.allclose(resp, exact, rtol=0, atol=1e-9 * (1 + np.abs(d).sum()))


@pytest.mark.parametrize("kernel", [3, 21, 101, 401])
def test_median_filter_equals_medfilt(kernel):
    rng = np.random.default_rng(kernel)
    for size in (50, 300, 1000):
        y = np.round(rng.normal(0, 1, size), 1)
        with pytest.warns(UserWarning) if kernel > size else _no_warning():
            expected = scipy.signal.medfilt(y, kernel)
        assert np.array_equal(kbkssd.median_filter(y, kernel), expected)


def _no_warning():
    import contextlib
    return contextlib.nullcontext()


# ------------------------------------ improvements ----------------------------------------------

def _warmup_then_slowdown(seed=0):
    """Warm-up decreasing to 10 until 300, steady at 10, a slowdown (upward shift) at 1500."""
    rng = np.random.default_rng(seed)
    t = np.arange(3000)
    level = np.where(t < 300, 10 + 20 * np.exp(-t / 60.0), 10.0)
    level = np.where(t >= 1500, 16.0, level)
    return level + rng.normal(0, 0.5, 3000)


def test_direction_both_finds_upward_step():
    faithful_err, both_err = [], []
    for seed in range(5):
        x = _warmup_then_slowdown(seed)
        faithful = segview.detect(x, "kbkssd")
        both = segview.detect(x, "kbkssd", direction="both")
        assert faithful.notes == ()
        assert faithful.stats["warmup_end"] < 400  # only the downward warm-up is seen
        assert abs(both.stats["up_warmup_end"] - 1499) <= 2
        assert any("direction=both" in n for n in both.notes)
        faithful_err.append(3000 if faithful.steady_start is None
                            else abs(faithful.steady_start - 1500))
        both_err.append(abs(both.steady_start - 1500))  # steady after the last level shift
    assert max(both_err) <= 3
    assert np.mean(faithful_err) > 1000  # faithful calls it steady right after the warm-up


def test_direction_both_keeps_downward_only_results():
    x = np.concatenate([np.full(200, 50.0), np.full(800, 10.0)]) + \
        np.random.default_rng(4).normal(0, 1, 1000)
    assert segview.detect(x, "kbkssd", direction="both").steady_start == \
        segview.detect(x, "kbkssd").steady_start == 200


def test_short_half_moves_the_floor():
    # TV-4 with noise: one huge first sample. h = 15 cannot place the step before 14.
    rng = np.random.default_rng(3)
    x = np.concatenate([[100.0], 10 + rng.normal(0, 0.2, 59)])
    faithful = detect(x, **SMALL)
    short = detect(x, short_half=2, **SMALL)
    assert faithful.steady_start == 15
    assert short.steady_start == 2  # true onset 1: error 1 instead of 14
    assert short.track("short kernel response").x0 == 1
    assert any("short kernel half-length 2" in n for n in short.notes)
