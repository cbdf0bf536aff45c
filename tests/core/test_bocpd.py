"""bocpd: R ocp's BOCPD recursion (compiled kernel = plain twin), run-length diagnostics."""
from __future__ import annotations

import numpy as np
import pytest

import segview
from segview.core.context import NULL_CONTEXT
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
    default = list(segview.detect(y, "bocpd").change_points)  # version 2's default finds both
    assert any(abs(c - 120) <= 2 for c in default) and any(abs(c - 200) <= 3 for c in default)
    res = segview.detect(y, "bocpd", preset="tcpdbench")  # ocp's prior: the posterior figures
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


# --- the fused kernel (whole time loop in numba, long double sums emulated) = the per-step path ---

def _assert_same(a, b):
    (a_cps, a), (b_cps, b) = a, b
    assert a_cps.tolist() == b_cps.tolist()
    for key in ("map_run", "p_short", "lag_mass", "kept", "last"):
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
        assert a[key].tobytes() == b[key].tobytes(), key  # bit for bit
    assert ("posteriors" in a) == ("posteriors" in b)
    if "posteriors" in a:
        assert len(a["posteriors"]) == len(b["posteriors"])
        assert all(p.tobytes() == q.tobytes() for p, q in zip(a["posteriors"], b["posteriors"]))


def _fused_and_steps(y, lam=100.0, prior=(0.0, 1.0, 1.0, 1.0), plain=True, **kw):
    """(bocpd's fused result, the per-step reference): the plain Python twin, or the compiled
    per-step path for series too long for it."""
    from segview.core.context import NULL_CONTEXT
    from segview.core.detectors import _bocpd_kernels as K
    from segview.core.detectors._bocpd_fused import bocpd_fused
    opts = dict(trunc=1e-4, max_len=10_000, keep_posterior=False, strength_lag=10, window=2,
                short_run=5)
    opts.update(kw)
    args = K._arguments(y, lam, prior, opts["trunc"], opts["max_len"], opts["keep_posterior"],
                        opts["strength_lag"], opts["window"], opts["short_run"], NULL_CONTEXT)
    return bocpd_fused(*args), K._bocpd_steps(*args, compiled=not plain)


pytestmark_fused = pytest.mark.skipif(
    not __import__("segview.core.detectors._bocpd_kernels", fromlist=["X87"]).X87,
    reason="the fused kernel runs where numpy's long double is the x87 format")


def _cases():
    rng = np.random.default_rng(31)
    noise = rng.normal(0, 1, 240)
    steps = np.r_[rng.normal(0, 1, 60), rng.normal(4, 1, 50), rng.normal(-1, 0.2, 70),
                  rng.normal(0, 5, 60)]
    two = np.column_stack([steps, rng.normal(0, 1, steps.size)])
    three = np.column_stack([noise, -noise * 2 + 1, rng.standard_t(2, noise.size)])
    spikes = noise.copy()
    spikes[[30, 31, 100, 200]] = [60.0, -80.0, 1e3, 40.0]  # densities underflow
    # a quiet stretch (sd 1e-18) under a tiny prior variance: its runs' densities are ~1e18 per
    # sample, the older runs fall below the smallest double and R clips its zeros to XMIN
    quiet = np.r_[rng.normal(0, 1, 50), rng.normal(0, 1e-18, 150)]
    return [
        ("noise", noise, {}),
        ("steps", steps, {}),
        ("steps keep_posterior", steps, {"keep_posterior": True}),
        ("d=2", two, {"keep_posterior": True}),
        ("d=3 heavy tails", three, {}),
        ("spikes raw", spikes, {"keep_posterior": True}),
        ("spikes tiny prior beta", spikes, {"prior": (0.0, 1.0, 1.0, 1e-3)}),
        ("clipped at XMIN", quiet, {"prior": (0.0, 1.0, 1.0, 1e-40), "trunc": 0.0,
                                    "keep_posterior": True}),
        ("hazard 1/1", steps, {"lam": 1.0}),
        ("hazard 1/2", steps, {"lam": 2.0}),
        ("hazard 1e-6", noise, {"lam": 1e6}),
        ("hazard 0", noise, {"lam": np.inf}),
        ("prior m 5 k 1e-3", steps, {"prior": (5.0, 1e-3, 1.0, 1.0)}),
        ("prior a 0.01", steps, {"prior": (0.0, 1.0, 0.01, 1.0)}),
        ("prior a 50 b 1e3", steps, {"prior": (0.0, 3.0, 50.0, 1e3)}),
        ("trunc 0 keeps all", steps, {"trunc": 0.0, "keep_posterior": True}),
        ("trunc 0.5", steps, {"trunc": 0.5}),
        ("trunc 1e-300", noise, {"trunc": 1e-300}),
        ("max_len 1", steps, {"max_len": 1, "keep_posterior": True}),
        ("max_len 2", steps, {"max_len": 2}),
        ("max_len 7", noise, {"max_len": 7, "trunc": 0.0}),
        ("lag 1 window 0", steps, {"strength_lag": 1, "window": 0, "short_run": 1}),
        ("lag 400 window 9", steps, {"strength_lag": 400, "window": 9, "short_run": 300}),
        ("n=1", noise[:1], {"keep_posterior": True}),
        ("n=2", noise[:2], {}),
        ("constant", np.zeros(50), {}),
    ]


@pytestmark_fused
@pytest.mark.parametrize("name,y,kw", _cases(), ids=[c[0] for c in _cases()])
def test_fused_kernel_equals_plain_twin(name, y, kw):
    fused, steps = _fused_and_steps(y, **kw)
    assert fused is not None, "the fused kernel fell back"
    _assert_same(fused, steps)
    if name == "clipped at XMIN":  # the case that exercises R's clipping of zeros to XMIN
        from segview.core.detectors._bocpd_kernels import XMIN
        assert any((p == XMIN).any() for p in steps[1]["posteriors"])


@pytestmark_fused
@pytest.mark.parametrize("seed", range(6))
def test_fused_kernel_equals_compiled_steps_on_3000_points(seed):
    """Long series, past a block boundary (256 steps) many times; the compiled per-step path is
    the reference here (it equals the plain twin, test_compiled_kernel_equals_plain_twin)."""
    rng = np.random.default_rng(seed)
    n = 3000
    cuts = np.sort(rng.choice(np.arange(50, n - 50), size=seed, replace=False))
    y = rng.normal(0, 1, n) + np.repeat(rng.normal(0, 2, seed + 1), np.diff(np.r_[0, cuts, n]))
    if seed % 2:
        y = np.column_stack([y, rng.normal(0, 1 + seed, n)])
    y = (y - y.mean(0)) / y.std(0, ddof=1)
    fused, steps = _fused_and_steps(y, plain=False, keep_posterior=seed == 0)
    assert fused is not None
    _assert_same(fused, steps)


@pytestmark_fused
def test_fused_kernel_hands_unsupported_sums_to_the_per_step_path():
    """A predictive density that overflows (a constant 3-D series under a prior variance of
    1e-300: each dimension's log-density is about 345, exp(1035) is inf) puts inf into R's long
    double sums: the emulation refuses it and bocpd runs the per-step path, so the result is
    still the reference's."""
    y = np.zeros((40, 3))
    prior = (0.0, 1.0, 1.0, 1e-300)
    with np.errstate(all="ignore"):  # inf / inf in the reference's normalisation
        fused, steps = _fused_and_steps(y, prior=prior, plain=False)  # Python's exp raises here
        assert fused is None
        _assert_same(bocpd(y, 100.0, prior), steps)
        y = _series(2)
        y[150] = np.nan  # a NaN sample: NaN densities, NaN sums
        fused, steps = _fused_and_steps(y)
        assert fused is None
        _assert_same(bocpd(y, 100.0, (0.0, 1.0, 1.0, 1.0)), steps)


@pytestmark_fused
def test_fused_kernel_checks_cancellation_between_blocks():
    from segview.core.context import RunContext
    from segview.core.errors import Cancelled
    from segview.core.detectors import _bocpd_fused as F
    ctx = RunContext()
    calls = []
    real = F._fused_block

    def spy(*a):
        calls.append(a[0])
        if len(calls) == 2:
            ctx.cancel()
        return real(*a)

    F._fused_block = spy
    try:
        with pytest.raises(Cancelled):
            bocpd(np.random.default_rng(0).normal(size=2000), 100, (0.0, 1.0, 1.0, 1.0), ctx=ctx)
    finally:
        F._fused_block = real
    assert calls == [1, 1 + F.BLOCK]


@pytestmark_fused
def test_a_fused_kernel_that_fails_to_compile_gives_the_per_step_result_with_a_note(monkeypatch):
    from numba import njit

    from segview.core.detectors import _bocpd_fused as F

    @njit
    def untypable(*args):
        return args[0] + "not a number"  # a real typing error at the first call

    y = _series(3)
    ref = segview.detect(y, "bocpd")
    assert not any("fused kernel" in n for n in ref.notes)
    monkeypatch.setattr(F, "_fused_block", untypable)
    res = segview.detect(y, "bocpd")
    assert res.change_points.tolist() == ref.change_points.tolist()
    assert res.strengths.tobytes() == ref.strengths.tobytes()
    assert res.track("P(run < 5)").y.tobytes() == ref.track("P(run < 5)").y.tobytes()
    assert any("bocpd's fused kernel failed" in n for n in res.notes), res.notes


@pytest.mark.parametrize("minsep", [2, 7, 20])
def test_min_separation_same_in_every_path_and_keeps_change_points_apart(minsep):
    """R findCPprobs' minsep: the fused kernel, the compiled per-step path and the plain Python
    twin agree bit for bit; on a spiky series (isolated outliers, which ocp's prior cuts out as
    short segments) a minsep of 20 leaves fewer change points than minsep 1. It is no hard
    spacing: as in R, when fewer than minsep run lengths are kept every start is eligible."""
    from segview.core.detectors import _bocpd_kernels as K
    rng = np.random.default_rng(8)
    y = rng.normal(0.0, 1.0, 600)
    y[rng.choice(600, 25, replace=False)] += 12.0
    y[300:] += 3.0
    y = (y - y.mean()) / y.std()
    prior = (0.0, 1.0, 1.0, 1.0)
    fused, _ = K.bocpd(y, 100, prior, minsep=minsep)
    steps, _ = K._bocpd_steps(*K._arguments(y, 100, prior, 1e-4, 10_000, False, 10, 2, 5,
                                            NULL_CONTEXT, minsep), compiled=True)
    plain, _ = K.bocpd(y, 100, prior, minsep=minsep, compiled=False)
    assert list(fused) == list(steps) == list(plain)
    one, _ = K.bocpd(y, 100, prior)
    if minsep == 20:
        assert len(fused) < len(one)
