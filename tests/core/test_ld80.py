"""_ld80: x87 long double sums of non-negative doubles in integers, against numpy's longdouble.

The reference is numpy itself (``np.cumsum`` over ``np.longdouble``, rounded to float64), which on
x86-64 runs the x87 hardware: every prefix of every input must give the same double, bit for bit.
The prefixes matter because bocpd's truncation compares every partial tail sum.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segview.core.detectors._bocpd_kernels import X87

pytestmark = pytest.mark.skipif(not X87, reason="numpy's long double is not the x87 format here")

TINY = 5e-324  # the smallest subnormal
MIN_NORMAL = 2.2250738585072014e-308


def _ref(v):
    with np.errstate(over="ignore"):
        return np.cumsum(np.asarray(v, dtype=np.float64).astype(np.longdouble)).astype(np.float64)


def _check(v):
    from segview.core.detectors._ld80 import ld_cumsum
    got, want = ld_cumsum(np.asarray(v, dtype=np.float64)), _ref(v)
    assert got.view(np.uint64).tolist() == want.view(np.uint64).tolist(), list(v)


nonneg = st.floats(min_value=0.0, allow_nan=False, allow_infinity=False,
                   allow_subnormal=True).map(abs)


@settings(max_examples=400, deadline=None)
@given(st.lists(nonneg, min_size=1, max_size=40))
def test_any_non_negative_doubles(v):
    _check(v)


@st.composite
def near(draw):
    """Summands a few binades around a base, so that the exact sums fall on and next to the
    64-bit and 53-bit rounding points (ties included): significands with few bits, exponents
    within +-80 of the base."""
    base = draw(st.integers(-1100, 1000))
    n = draw(st.integers(1, 30))
    sig = st.one_of(st.integers(1, 8), st.integers(1, 2 ** 53 - 1),
                    st.sampled_from([2 ** 53 - 1, 2 ** 52, 2 ** 52 + 1, 3 * 2 ** 51]))
    return [float(np.ldexp(float(draw(sig)), max(-1074, min(970, base + draw(st.integers(-80, 80))))))
            for _ in range(n)]


@settings(max_examples=600, deadline=None)
@given(near())
def test_sums_on_the_rounding_points(v):
    _check(v)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=TINY, max_value=1.0), st.integers(1, 3000))
def test_long_runs_of_equal_values(x, n):
    _check(np.full(n, x))


def _ld(x):
    return np.longdouble(x)


@pytest.mark.parametrize("v", [
    [1.0, 2.0 ** -64],                       # exactly half a long double unit: tie, stays even
    [1.0 + 2.0 ** -52, 2.0 ** -64, 2.0 ** -63],  # ties to even upwards after an odd last bit
    [1.0, 2.0 ** -63, 2.0 ** -64],           # odd last bit then a tie: rounds up
    [1.0, 2.0 ** -53],                       # a 53-bit tie when rounded to double: down to even
    [1.0, 2.0 ** -52, 2.0 ** -53],           # a 53-bit tie with an odd last bit: up
    [1.0, 2.0 ** -53, 2.0 ** -64],           # double rounding: long double tie first, then 53 bits
    [1.0, 2.0 ** -53, 2.0 ** -64 + 2.0 ** -100],  # just above the long double tie
    [2.0 ** 63, 1.0, 1.0, 1.0],              # units below the 64-bit significand
    [2.0 ** 64 - 2.0 ** 11, 2.0 ** 11 - 1.0],  # carry out of bit 63 with a dropped half
    [1.0 - 2.0 ** -53] * 3 + [2.0 ** -64],   # carries with ones everywhere
    [1.0, 2.0 ** -65], [1.0, 2.0 ** -64 + 2.0 ** -116], [1.0, 2.0 ** -200],  # huge gaps
    [2.0 ** -200, 1.0], [TINY, 1.0, TINY], [1.0, TINY],
    [TINY] * 5, [TINY, MIN_NORMAL, TINY], [MIN_NORMAL - TINY, TINY],  # subnormals
    [MIN_NORMAL / 2 + TINY, MIN_NORMAL / 4, TINY * 3],
    [1.7976931348623157e308, 1.7976931348623157e308],  # above DBL_MAX: inf
    [1.7976931348623157e308, 2.0 ** 970],    # rounds to DBL_MAX or inf at the top
    [0.0, 0.0, 1.0, 0.0], [0.0],             # zeros
    [0.3, 0.1, 0.2, 1e-17, 1e-300, 0.4],
])
def test_adversarial_sums(v):
    _check(v)


def test_probability_vectors_as_bocpd_sums_them():
    """What the kernel adds: posteriors over thousands of run lengths spanning hundreds of
    binades, summed forwards (normalisation) and from the back (every tail sum, truncation)."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 3000))
        logp = np.cumsum(rng.normal(-0.3, 3.0, n))
        p = np.exp(logp - logp.max())
        p[rng.random(n) < 0.05] = MIN_NORMAL * rng.random()
        _check(p)
        _check(p[::-1])


def test_refuses_what_it_does_not_emulate():
    from segview.core.detectors._ld80 import ld_cumsum
    for bad in ([1.0, -1.0], [np.inf], [np.nan], [-0.0]):
        with pytest.raises(ValueError, match="not a finite number >= 0"):
            ld_cumsum(np.array(bad))
